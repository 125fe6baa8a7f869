"""The kv family (seed 002): YCSB's runner parsed from captured output, the family's plan on a
one-node and a two-node host, bad input refused before any job, and real YCSB runs (build/bin/ycsb,
built with Maven here if missing) against the in-process skip list and a private Redis, which
leave no Redis or JVM behind, also when interrupted; pmdk's kv-pmem (workloads/kvpmem) planned on a
DAX tier, absent without one, emulated only when asked and labelled so, and run for real on a
tmpfs file (RESP from Python, a restart, SIGTERM; one YCSB point through the family's path)."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import REPO, alive, guest_facts_or_skip

import families.kv as kv
from workflows.harness import ConfigError, hostdetect, plan, profile
from workloads.ycsb import workload as ycsb

DATA = REPO / "tests/data/kv"


def config(**kv_over) -> dict:
    cfg = profile.validate_config(yaml.safe_load((REPO / "workflows/config/quick.yaml").read_text()))
    cfg["kv"].update(kv_over)
    return cfg


def fake_host(nodes: int = 1, cpus: int = 2) -> plan.Host:
    names = ["default", "alternate", "third"]
    prof = {"name": "box", "source": "hosts/box.yaml", "backend": "numa", "tools": {},
            "tiers": [{"name": names[i], "kind": "numa", "node": i} for i in range(nodes)],
            "cpus": {"app": list(range(cpus // 2 or 1)), "antagonist": list(range(cpus // 2 or 1, cpus))}}
    facts = {"llc_bytes": 32 << 20, "settings": {"numa_balancing": "0", "demotion_enabled": "false"},
             "nodes": {str(i): {"cpus": list(range(cpus)) if i == 0 else [], "memory_mib": 4096} for i in range(nodes)}}
    return plan.Host(prof, facts)


def test_a_server_and_its_client_get_cpus_of_their_own_where_the_client_threads_fit():
    """Where the application CPUs hold the sweep's client threads, a store's server runs on the
    antagonist CPUs and the client on the application CPUs (a single-threaded server never waits
    behind t client threads); an embedded store keeps every granted CPU."""
    fp = kv.plan(config(key_types=["string"], threads=[1, 2], systems=["redis", "skiplist"]), fake_host(1, cpus=4))
    for r in fp.rows:
        roles = {x["name"]: x for x in r["run"]["scenario"]["roles"]}
        if r["context"]["system"] == "redis":
            assert roles["ycsb"]["wrap"] == ["numactl", "--physcpubind=0-1", "--membind=0"]
            (srv,) = [x for x in roles.values() if x["name"] != "ycsb"]
            assert srv["wrap"][:2] == ["numactl", "--physcpubind=2-3"]
        else:
            assert roles["ycsb"]["wrap"][:2] == ["numactl", "--physcpubind=0-3"]
    # four client threads do not fit two application CPUs: both share all four
    fp = kv.plan(config(key_types=["string"], threads=[1, 4], systems=["redis"]), fake_host(1, cpus=4))
    assert all(x["wrap"][:2] == ["numactl", "--physcpubind=0-3"] for r in fp.rows for x in r["run"]["scenario"]["roles"]
               if x.get("wrap"))


# ---- parser -------------------------------------------------------------------------------------

def parsed(name: str, **opts) -> list[dict]:
    role = ycsb.role(["build/bin/ycsb"], {"slow_nodes": [], "llc_bytes": 32 << 20, "records": 2000,
                                          "value_bytes": 100, "key_type": "int", **opts})
    role["output"][1] = name
    return ycsb.rows(DATA, role, role["opts"])


def test_parser_skiplist_phases_latency_memory():
    rows = parsed("ycsb-skiplist-int.csv", slow_nodes=[1])
    tp = {r["kv_phase"]: r["value"] for r in rows if r["metric"] == "throughput"}
    assert set(tp) == {"load", "a", "c", "d", "e"} and all(v > 0 for v in tp.values())
    ops = {(r["kv_phase"], r["op"]) for r in rows if r["metric"] == "latency_p99"}
    assert {("a", "READ"), ("a", "UPDATE"), ("d", "INSERT"), ("e", "SCAN")} <= ops
    assert any(r["metric"] == "latency_p999" for r in rows)
    mem = [r for r in rows if r["metric"] == "node_bytes" and r["kv_phase"] == "mem_end"]
    assert mem and all(r["op"] == "store" and r["node"] == "0" and r["value"] > 0 for r in mem)
    share = [r for r in rows if r["metric"] == "slow_tier_share"]
    assert share and all(r["value"] == 0.0 for r in share)  # everything on node 0, the slow node is 1
    assert all(r["cache_resident"] is True for r in rows)  # 2000 records: far under 4x a 32 MiB LLC
    cpu = [r for r in rows if r["metric"] == "jvm_cpu_per_op"]
    assert {r["kv_phase"] for r in cpu} >= {"load", "a", "c", "d", "e"}
    assert not any(r["metric"] == "server_cpu_per_op" for r in rows)


def test_parser_redis_server_cpu_and_pipelining():
    rows = parsed("ycsb-redis-string.csv", key_type="string")
    assert any(r["metric"] == "server_cpu_per_op" for r in rows)
    pipe = {r["kv_phase"] for r in rows if r["metric"] == "throughput" and r["kv_phase"].startswith("c-pipe")}
    assert pipe == {"c-pipe1", "c-pipe4"}
    clients = {r["op"] for r in rows if r["metric"] == "node_bytes"}
    assert clients == {"client", "store"}  # the JVM and the server, apart
    assert not any(r["metric"] == "server_pid" for r in rows)


def test_client_bound_flag_on_a_synthetic_point():
    """The client, not the store, is the bottleneck where its CPU per operation (per client thread)
    exceeds the server's (per serving thread): flagged per phase, and said in both tables."""
    def runner_csv(phases: dict[str, tuple[float, float]]) -> str:
        lines = ["phase,metric,op,node,value,unit"]
        for ph, (jvm_s, server_s) in phases.items():  # 10 000 operations each
            lines += [f"{ph},operations,,,10000,ops", f"{ph},elapsed,,,1,s", f"{ph},throughput,,,10000,ops/s",
                      f"{ph},jvm_cpu,,,{jvm_s},s", f"{ph},server_cpu,,,{server_s},s"]
        return "\n".join([*lines, "end,complete,,,1,"]) + "\n"

    # a: client 100 us/op vs server 20 (client-bound); c: 10 vs 20 (the store); d: 30 vs 20 over 2 threads
    rows = ycsb.parse(runner_csv({"a": (1.0, 0.2), "c": (0.1, 0.2), "d": (0.3, 0.2), "e": (0.15, 0.2)}))
    flag = {r["kv_phase"]: r["value"] for r in ycsb.derived(rows, {"threads": 1}) if r["metric"] == "client_bound"}
    assert flag == {"a": 1.0, "c": 0.0, "d": 1.0, "e": 0.0}
    flag2 = {r["kv_phase"]: r["value"] for r in ycsb.derived(rows, {"threads": 2}) if r["metric"] == "client_bound"}
    assert flag2 == {"a": 1.0, "c": 0.0, "d": 0.0, "e": 0.0}  # d: 30 us over 2 client threads: 15 < 20
    memcached = {r["kv_phase"]: r["value"] for r in ycsb.derived(rows, {"threads": 1, "server_threads": 2})
                 if r["metric"] == "client_bound"}
    assert memcached["e"] == 1.0 and memcached["c"] == 0.0  # e: 15 us vs 20 us over memcached's 2 threads
    no_server = ycsb.parse("phase,metric,op,node,value,unit\nc,operations,,,10,ops\nc,jvm_cpu,,,1,s\nend,complete,,,1,\n")
    assert not [r for r in ycsb.derived(no_server, {}) if r["metric"] == "client_bound"]  # no server: no flag here

    import pandas as pd  # noqa: PLC0415

    from families.kv import tables  # noqa: PLC0415
    base = {"host": "box", "backend": "numa", "family": "kv", "experiment": "ycsb", "workload": "ycsb", "rep": 0,
            "tool": "ycsb", "records": 1000, "value_bytes": 100, "cache_resident": True, "placement_note": "",
            "key_type": "int", "threads": 1, "placement": "default", "mem_nodes": "0"}
    df = []
    for system, ph, tput, jvm, server, cb in (("redis", "a", 1e4, 100, 20, 1.0), ("redis", "c", 5e4, 10, 20, 0.0),
                                              ("null", "c", 1e6, 1.0, None, None),
                                              ("skiplist", "c", 2e5, 4.0, None, None),  # engine 3 us > driver 1
                                              ("skiplist", "a", 2e5, 1.5, None, None)):  # engine 0.5 us < driver 1
        pt = {**base, "system": system, "kv_phase": ph, "point": f"{system}-default-int-t1"}
        df += [{**pt, "metric": "throughput", "value": tput, "unit": "ops/s"},
               {**pt, "metric": "jvm_cpu_per_op", "value": jvm, "unit": "us"}]
        if server is not None:
            df += [{**pt, "metric": "server_cpu_per_op", "value": server, "unit": "us"},
                   {**pt, "metric": "client_bound", "value": cb, "unit": "bool"}]
    df += [{**base, "system": "null", "kv_phase": "a", "point": "null-default-int-t1", "metric": m, "value": v,
            "unit": u} for m, v, u in (("throughput", 1e6, "ops/s"), ("jvm_cpu_per_op", 1.0, "us"))]
    df = pd.DataFrame(df)
    t = {(r["system"]): r for r in table_rows(tables.throughput(df))}
    assert t["redis"]["client_bound_phases"] == "a" and t["skiplist"]["client_bound_phases"] == "a"
    assert t["null"]["client_bound_phases"] == ""
    b = {(r["system"], r["kv_phase"]): r["bottleneck"] for r in table_rows(tables.bottleneck(df))}
    assert b == {("redis", "a"): "client", ("redis", "c"): "store", ("skiplist", "a"): "client",
                 ("skiplist", "c"): "store", ("null", "a"): "(driver)", ("null", "c"): "(driver)"}


def test_parser_refuses_an_incomplete_run():
    text = (DATA / "ycsb-skiplist-int.csv").read_text()
    with pytest.raises(ValueError, match="did not complete"):
        ycsb.parse(text[: text.index("mem_end")])


# ---- plan -----------------------------------------------------------------------------------------

def test_one_node_host_every_placement_is_node0_and_labelled():
    fp = kv.plan(config(key_types=["int", "string"]), fake_host(1))
    rows = fp.rows
    # null, skiplist, redis x int, string x 1, 2 threads; memcached: string keys only; rocksdb: not root here
    assert len(rows) == 3 * 2 * 2 + 2
    assert {r["context"]["key_type"] for r in rows if r["context"]["system"] == "memcached"} == {"string"}
    mc = next(r for r in rows if r["context"]["system"] == "memcached")
    w = next(x for x in mc["run"]["scenario"]["roles"] if x["name"] == "ycsb")
    assert w["argv"][w["argv"].index("--phases") + 1] == "a,c,d", "memcached has no scan: no phase e"
    assert {r["context"]["placement"] for r in rows} == {"default"}
    assert all(r["context"]["placement_note"] == "one-node host: every placement is node 0" for r in rows)
    for r in rows:
        roles = {x["name"]: x for x in r["run"]["scenario"]["roles"]}
        # 2 client threads, 1 application CPU: client and server share both CPUs (client_server_cpus)
        assert roles["ycsb"]["wrap"] == ["numactl", "--physcpubind=0-1", "--membind=0"]
        assert r["run"]["scenario"]["settings"] == {}  # balancing and demotion are already off
    assert fp.outputs == ["results/box/tables/kv_throughput.md", "results/box/tables/kv_bottleneck.md",
                          "results/box/tables/kv_reference.md"]


def test_rocksdb_files_on_a_tier_bound_tmpfs_and_split():
    h = fake_host(2)
    facts = {**h.facts, "privileges": {"root": True}}
    fp = kv.plan(config(systems=["rocksdb"], key_types=["int"], threads=[1]), plan.Host(h.profile, facts))
    pts = {r["point"]: r for r in fp.rows}
    assert set(pts) == {f"rocksdb-{p}-int-t1" for p in ("default", "alternate", "interleave", "split")}

    def roles(p):
        return {x["name"]: x for x in pts[f"rocksdb-{p}-int-t1"]["run"]["scenario"]["roles"]}

    split = roles("split")
    assert split["ycsb"]["wrap"][-1] == "--membind=0", "the process (memtable, cache) on the fast tier"
    assert split["tmpfs"]["argv"][-2:] == ["--mpol", "bind:1"], "the files on the slow tier"
    assert split["tmpfs"]["kind"] == "background" and split["tmpfs"]["ready_file"]
    assert roles("alternate")["tmpfs"]["argv"][-1] == "bind:1" and roles("alternate")["ycsb"]["wrap"][-1] == "--membind=1"
    assert roles("interleave")["tmpfs"]["argv"][-1] == "interleave:0-1"
    assert pts["rocksdb-split-int-t1"]["context"]["mem_nodes"] == "0 (process), 1 (files)"
    # not root: rocksdb is left out, and the reason is said
    fp = kv.plan(config(systems=["null", "rocksdb", "lmdb"]), h)
    assert {r["context"]["system"] for r in fp.rows} == {"null"} and "only root" in fp.absent["kv: rocksdb"]
    assert "only root" in fp.absent["kv: lmdb"]
    fp = kv.plan(config(systems=["lmdb"], key_types=["int"], threads=[1], placements=["split"]),
                 plan.Host(h.profile, facts))
    (row,) = fp.rows
    roles = {x["name"]: x for x in row["run"]["scenario"]["roles"]}
    assert roles["tmpfs"]["argv"][-1] == "bind:1" and roles["ycsb"]["wrap"][-1] == "--membind=0"
    assert roles["ycsb"]["argv"][roles["ycsb"]["argv"].index("--map-mib") + 1] == "256"


def test_two_node_host_places_store_on_each_tier_client_on_default():
    fp = kv.plan(config(key_types=["int"], threads=[2]), fake_host(2))
    pts = {r["point"]: r for r in fp.rows}
    assert set(pts) == {"null-default-int-t2", "skiplist-default-int-t2", "skiplist-alternate-int-t2",
                        "skiplist-interleave-int-t2", "redis-default-int-t2", "redis-alternate-int-t2",
                        "redis-interleave-int-t2"}
    roles = {x["name"]: x for x in pts["redis-alternate-int-t2"]["run"]["scenario"]["roles"]}
    assert roles["redis"]["wrap"][-1] == "--membind=1" and roles["redis"]["kind"] == "background"
    assert roles["ycsb"]["wrap"][-1] == "--membind=0"  # client on the compute node
    assert roles["ycsb"]["opts"]["slow_nodes"] == [1]
    sk = {x["name"]: x for x in pts["skiplist-interleave-int-t2"]["run"]["scenario"]["roles"]}
    assert sk["ycsb"]["wrap"][-1] == "--interleave=0-1"
    assert "--pipeline-depths" in roles["ycsb"]["argv"]


@pytest.mark.parametrize(("over", "message"), [
    ({"systems": ["mongodb"]}, "kv/systems: unknown system 'mongodb'"),
    ({"workloads": ["load", "b"]}, "kv/workloads: unknown workload 'b'"),
    ({"threads": [1, 3]}, "kv/threads: 3 threads but host profile hosts/box.yaml grants 2 CPUs"),
    ({"placements": ["default", "cxl"]}, "kv/placements: 'cxl' names no tier of this host"),
    ({"systems": ["rocksdb", "bonsaikv"]}, "kv/systems: unknown system 'bonsaikv'"),
])
def test_bad_input_is_one_line_before_any_job(over, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        kv.plan(config(**over), fake_host(1))
    assert "\n" not in str(e.value)


def test_a_port_in_use_is_refused(monkeypatch):
    monkeypatch.setattr(kv, "measuring", lambda results: False)  # as if no point ran on this machine now
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        cfg = config()
        cfg["kv"]["redis"] = {**cfg["kv"]["redis"], "port": port}
        with pytest.raises(ConfigError, match=f"kv/redis/port: port {port} on 127.0.0.1 is in use"):
            kv.plan(cfg, fake_host(1))


@pytest.mark.parametrize("tool", ["java", "mvn", "redis-server"])
def test_missing_java_maven_or_redis_is_refused(monkeypatch, tool):
    real = shutil.which
    monkeypatch.setattr(kv.shutil, "which", lambda name: None if name == tool else real(name))
    if real("java") is None and tool != "java":
        pytest.skip("java is not installed here")
    with pytest.raises(ConfigError, match=f"needs {tool}"):
        kv.plan(config(), fake_host(1))


def test_a_guest_host_runs_only_redis_and_says_why():
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (make setup)")
    h = fake_host(2)
    fp = kv.plan(config(), plan.Host(h.profile, h.facts, {"kind": "qemu"}))
    assert {r["context"]["system"] for r in fp.rows} == {"redis"} and {r["executor"] for r in fp.rows} == {"guest"}
    assert {r["context"]["threads"] for r in fp.rows} == {1}
    assert "without a JVM" in fp.absent["kv: in the guest"]


# ---- real runs ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def built() -> Path:
    for tool in ("java", "mvn", "numactl"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed (make setup)")
    launcher, jar = REPO / "build/bin/ycsb", REPO / "build/ycsb/target/tierbench-kv.jar"
    sources = [REPO / "workloads/ycsb/pom.xml", *sorted((REPO / "workloads/ycsb/src").rglob("*.java"))]
    if not (launcher.exists() and jar.exists()) or max(p.stat().st_mtime for p in sources) > jar.stat().st_mtime:
        r = subprocess.run([str(REPO / "workloads/ycsb/build.sh"), "build/src/ycsb", "build/bin/ycsb"], cwd=REPO,
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.fail("building the YCSB driver failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    return launcher


def real_rows(tmp_path: Path, systems: list[str], **over) -> tuple[dict, Path]:
    facts = hostdetect.detect()
    prof = profile.resolve("auto", facts)
    pmdk = over.pop("pmdk", None)
    cfg = config(**{"systems": systems, "records": 2000, "max_seconds": 0.2, "heap_mib": 256, "warmup_seconds": 0.1,
                    "min_operations": 300, **over})
    cfg["kv"]["redis"] = {"port": free_port(), "pipeline_depths": [1, 4], "pipeline_seconds": 0.1}
    cfg["kv"]["memcached"] = {"port": free_port()}
    if pmdk:
        cfg["kv"]["pmdk"] = pmdk
    fp = kv.plan(cfg, plan.Host(prof, facts))
    facts_path = tmp_path / "facts.json"
    facts_path.write_text(json.dumps(facts))
    return {r["point"]: r for r in fp.rows}, facts_path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_point(row: dict, tmp_path: Path, facts: Path) -> subprocess.Popen:
    out = tmp_path / row["point"]
    return subprocess.Popen([sys.executable, "-m", "workflows.harness.point", "--outdir", str(out), "--results",
                             str(tmp_path), "--facts", str(facts), "-"], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def server_pid(out: Path) -> int | None:
    f = out / "ycsb.csv"
    if not f.exists():
        return None
    for line in f.read_text().splitlines():
        if line.startswith("setup,server_pid,"):
            return int(line.split(",")[4])
    return None


def test_real_ycsb_against_skiplist_redis_and_memcached(built, tmp_path):
    if not (shutil.which("redis-server") and shutil.which("memcached")):
        pytest.skip("redis-server or memcached is not installed (make setup)")
    points, facts = real_rows(tmp_path, ["skiplist", "redis", "memcached"], key_types=["int", "string"], threads=[1])
    from analysis.frame import load

    for name in ("skiplist", "redis", "memcached"):
        kt = "-string-" if name == "memcached" else "-int-"
        row = copy.deepcopy(next(r for p, r in points.items() if p.startswith(name) and kt in p))
        p = run_point(row, tmp_path, facts)
        log, _ = p.communicate(json.dumps(row), timeout=120)
        assert p.returncode == 0, log
        out = tmp_path / row["point"]
        df = load(out / "result.csv")
        tp = df[df["metric"] == "throughput"].set_index("kv_phase")["value"]
        assert ({"load", "a", "c", "d"} | ({"e"} if name != "memcached" else set())) <= set(tp.index)
        assert (tp > 0).all()
        failed = df[df["metric"] == "failed_operations"]["value"]
        assert (failed == 0).all(), "every operation returned OK"
        store = df[(df["metric"] == "node_bytes") & (df["op"] == "store") & (df["kv_phase"] == "mem_end")]
        assert store["value"].sum() > 0 and set(store["node"].astype(str)) <= {str(n) for n in facts_nodes(facts)}
        if name in ("redis", "memcached"):
            pid = server_pid(out)
            assert pid and not alive(pid), f"the private {name} was ended"
            assert (df["metric"] == "server_cpu_per_op").any()
        if name == "redis":
            assert {"c-pipe1", "c-pipe4"} <= set(df["kv_phase"].dropna())
            assert (df["metric"] == "client_bound").any()
        warm = df[df["metric"] == "warmup_operations"].set_index("kv_phase")["value"]
        assert {"load", "a", "c", "d"} <= set(warm.index) and (warm > 0).all()  # a warm-up before every phase
        ops = df[(df["metric"] == "operations") & df["kv_phase"].isin(["a", "c", "d", "e"])]["value"]
        assert (ops >= 300).all()  # kv/min_operations, however short max_seconds
    # the bottleneck table from these points' meta.json: counted where a source counted, else the reason
    from families.kv import tables  # noqa: PLC0415

    outs = [tmp_path / p for p in points if (tmp_path / p / "meta.json").exists()]
    pc = tables.point_counters(counter_table([o / "meta.json" for o in outs]))
    b = tables.bottleneck(load([o / "result.csv" for o in outs]), counters=pc, facts=json.loads(facts.read_text()))
    status = json.loads((outs[0] / "meta.json").read_text())["counters"]
    if not any(status.get(s, {}).get("rows") for s in tables.BANDWIDTH_SOURCES):
        assert {r["counted_read_MB_per_s"] for r in table_rows(b)} == {"–"}
        assert status["perf_uncore"]["reason"] in b[b.index("Counted columns empty"):]
    else:  # counted, or a reason naming the point (or every point)
        note = b[b.index("Counted columns empty"):] if "Counted columns empty" in b else ""
        for r in table_rows(b):
            v, name = r["counted_read_MB_per_s"], f"{r['system']}-{r['placement']}-{r['key_type']}"
            assert (v != "–" and float(v.replace(",", "")) > 0) or name in note or "every point" in note


def test_redis_benchmark_beside_the_ycsb_binding_on_the_same_server_and_keys(built, tmp_path):
    """bench/bench_kv_redis.py at a tiny scale: YCSB loads and reads a private Redis, redis-benchmark
    reads the same keys on the same server (every GET a keyspace hit: the key names agree), and a
    ratio per phase comes out (its value is a timing: never asserted)."""
    for tool in ("redis-server", "redis-benchmark", "redis-cli"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed (Debian packages redis-server, redis-tools)")
    from bench import bench_kv_redis  # noqa: PLC0415

    r = bench_kv_redis.compare(str(built), records=500, threads=1, seconds=0.1, warmup=0.1, min_ops=200,
                               value_bytes=100, depth=4, heap_mib=256, workdir=tmp_path)
    assert r["keyspace"]["keyspace_hits"] > 0 and r["keyspace"]["keyspace_misses"] == 0
    for ph in ("a", "c", "c-pipe4"):
        assert r[ph]["ycsb"] > 0 and r[ph]["native"] > 0 and r[ph]["ratio"] == pytest.approx(r[ph]["ycsb"] / r[ph]["native"])
        assert r[ph]["ycsb_server_us"] >= 0 and r[ph]["native_client_us"] >= 0  # /proc ticks: 10 ms resolution
    # the minimum operation count, pipelined phases too (0.1 s of c-pipe4 once sent no batch on a
    # loaded host: its clock starts before the client has connected)
    assert r["c"]["ycsb_ops"] >= 200 and r["c-pipe4"]["ycsb_ops"] >= 200
    assert not list(tmp_path.iterdir())  # its scratch directory removed, its server ended


def mounted_under(path: Path) -> list[str]:
    return [ln.split()[1] for ln in Path("/proc/mounts").read_text().splitlines() if ln.split()[1].startswith(str(path))]


@pytest.mark.parametrize("system", ["rocksdb", "lmdb"])
def test_real_file_store_on_its_tmpfs_then_unmounted(built, tmp_path, system):
    facts = hostdetect.detect()
    if not facts["privileges"]["root"]:
        pytest.skip("mounting the store's tmpfs needs root")
    points, facts_path = real_rows(tmp_path, [system], key_types=["string"], threads=[2])
    row = next(iter(points.values()))
    tmpfs = next(r for r in row["run"]["scenario"]["roles"] if r["name"] == "tmpfs")
    d = tmp_path / "tmpfs"  # not the planned results/<host>/kv-tmpfs: this test's own
    tmpfs["argv"][tmpfs["argv"].index("--dir") + 1] = str(d)
    w = next(r for r in row["run"]["scenario"]["roles"] if r["name"] == "ycsb")
    w["argv"][w["argv"].index("--data-dir") + 1] = str(d)
    mounts = row["run"]["scenario"]["mounts"]
    assert len(mounts) == 1 and mounts[0].endswith("/kv-tmpfs"), "the planned tmpfs is journaled"
    row["run"]["scenario"]["mounts"] = [str(d)]
    p = run_point(row, tmp_path, facts_path)
    log, _ = p.communicate(json.dumps(row), timeout=120)
    assert p.returncode == 0, log
    from analysis.frame import load  # noqa: PLC0415

    df = load(tmp_path / row["point"] / "result.csv")
    tp = df[df["metric"] == "throughput"].set_index("kv_phase")["value"]
    assert {"load", "a", "c", "d", "e"} <= set(tp.index) and (tp > 0).all()
    files = df[(df["metric"] == "tmpfs_node_bytes") & (df["kv_phase"] == "mem_load")]["value"]
    assert files.sum() > 2000 * 100, "the loaded records are in the tmpfs files"
    assert not mounted_under(tmp_path), "the tmpfs was unmounted"


def facts_nodes(facts: Path) -> list[int]:
    return [int(n) for n in json.loads(facts.read_text())["nodes"]]


def test_sigint_leaves_no_redis_or_jvm(built, tmp_path):
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (make setup)")
    points, facts = real_rows(tmp_path, ["redis"], key_types=["int"], threads=[1], max_seconds=30)
    row = next(iter(points.values()))
    with interrupted_in_phase_a(row, tmp_path, facts) as (p, _out, spid):
        jvms = [c for c in children_of(p.pid) if "java" in comm(c)]
        assert jvms, "the JVM runs"
    assert not alive(spid), "Redis was ended"
    assert not [j for j in jvms if alive(j)], "the JVM was ended"


@contextlib.contextmanager
def interrupted_in_phase_a(row: dict, tmp_path: Path, facts: Path):
    """Runs a point until its server runs and YCSB's phase A has begun, yields (the point's
    process, its directory, the server's pid), then sends SIGINT: the point exits 128 + SIGINT,
    with no result.csv."""
    out = tmp_path / row["point"]
    p = run_point(row, tmp_path, facts)
    p.stdin.write(json.dumps(row))
    p.stdin.close()
    deadline = time.monotonic() + 60
    try:
        while server_pid(out) is None or "\na," not in (out / "ycsb.csv").read_text():
            assert p.poll() is None, p.stdout.read()
            assert time.monotonic() < deadline, "the run never got to phase A"
            time.sleep(0.1)
        yield p, out, server_pid(out)
    finally:
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
    assert rc == 128 + signal.SIGINT
    time.sleep(0.3)
    assert not (out / "result.csv").exists()


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def children_of(root: int) -> list[int]:
    from conftest import ancestors

    return [int(d.name) for d in Path("/proc").iterdir() if d.name.isdigit() and root in ancestors(int(d.name))]


def test_os_has_no_redis_of_ours_left():
    """Belt and braces after the real runs: no redis-server on a port of this module is running."""
    ours = [d for d in Path("/proc").iterdir() if d.name.isdigit() and comm(int(d.name)) == "redis-server"
            and "tierbench" in _environ_cwd(d)]
    assert not ours


def _environ_cwd(d: Path) -> str:
    try:
        return os.readlink(d / "cwd")
    except OSError:
        return ""


# ---- the QEMU guest -------------------------------------------------------------------------------

def test_guest_plan_places_redis_on_node1_with_kv_resp():
    from test_qemu_workflow import _guest_config, guest_host  # noqa: PLC0415

    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (make setup)")
    fp = kv.plan(_guest_config(), guest_host())
    (row,) = fp.rows
    assert row["point"] == "redis-alternate-int-t1" and row["executor"] == "guest"
    roles = {r["name"]: r for r in row["run"]["scenario"]["roles"]}
    assert roles["redis"]["wrap"][-1] == "--membind=1" and roles["kv-resp"]["wrap"][-1] == "--membind=0"
    assert "--unixsocket" in roles["redis"]["argv"], "the guest's loopback is down: a Unix socket"
    assert row["run"]["scenario"]["settings"] == {"numa_balancing": "0"}  # journaled, restored in the guest


@pytest.mark.vm
def test_redis_data_on_node1_in_qemu_guest(guest_points):
    """Redis bound to the guest's CPU-less node 1, loaded and read by kv-resp through the workflow's own
    path (guestrun's batch, then the point parsed as its job would; conftest's guest_points: the
    workflow test's boot, or one boot shared with the other guest-point tests): numa_maps of the
    server says its anonymous memory (its data) is on node 1. TCG: throughputs mean nothing."""

    from analysis.frame import load  # noqa: PLC0415

    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (make setup)")
    r, facts = guest_facts_or_skip()
    from test_qemu_workflow import _guest_config  # noqa: PLC0415

    rows = kv.plan(_guest_config(), plan.Host(profile.resolve("qemu-numa", facts), facts, r)).rows
    assert [x["point"] for x in rows] == ["redis-alternate-int-t1"]
    out = guest_points(rows)[plan.key(rows[0])]
    df = load(out / "result.csv")
    share = df[(df["metric"] == "slow_tier_share") & (df["kv_phase"] == "mem_end")]["value"]
    assert len(share) == 1 and share.iloc[0] > 0.99, "the server's data is on node 1"
    anon = df[(df["metric"] == "anon_node_bytes") & (df["op"] == "store") & (df["kv_phase"] == "mem_end")]
    assert set(anon["node"].astype(str)) == {"1"} and anon["value"].sum() > 1e6
    assert (df[df["metric"] == "throughput"]["value"] > 0).all()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["functional"] and meta["exit"] == {"kv-resp": 0, "redis": 0}


def test_parser_kv_resp_same_format():
    from workloads.kvresp import workload as kvresp  # noqa: PLC0415

    role = kvresp.role(["build/bin/kv-resp"], {"slow_nodes": [1], "llc_bytes": 0, "records": 2000, "value_bytes": 100,
                                              "key_type": "string"})
    role["output"][1] = "kv-resp-string.csv"
    rows = kvresp.rows(DATA, role, role["opts"])
    assert {r["kv_phase"] for r in rows if r["metric"] == "throughput"} == {"load", "c"}
    assert all(r["tool"] == "kv-resp" for r in rows)
    assert any(r["metric"] == "client_cpu_per_op" for r in rows) and any(r["metric"] == "server_cpu_per_op" for r in rows)
    share = [r for r in rows if r["metric"] == "slow_tier_share"]
    assert share and all(r["value"] == 0.0 for r in share)
    assert not any(r["cache_resident"] for r in rows)  # LLC unknown: not flagged


def test_sigint_leaves_no_tmpfs_mounted(built, tmp_path):
    if not hostdetect.detect()["privileges"]["root"]:
        pytest.skip("mounting the store's tmpfs needs root")
    points, facts = real_rows(tmp_path, ["rocksdb"], key_types=["int"], threads=[1], max_seconds=30)
    row = next(iter(points.values()))
    d = tmp_path / "tmpfs"
    for r in row["run"]["scenario"]["roles"]:
        flag = "--dir" if r["name"] == "tmpfs" else "--data-dir"
        r["argv"][r["argv"].index(flag) + 1] = str(d)
    out = tmp_path / row["point"]
    p = run_point(row, tmp_path, facts)
    p.stdin.write(json.dumps(row))
    p.stdin.close()
    deadline = time.monotonic() + 60
    try:
        while not (out / "ycsb.csv").exists() or "\na," not in (out / "ycsb.csv").read_text():
            assert p.poll() is None, p.stdout.read()
            assert time.monotonic() < deadline, "the run never got to phase A"
            time.sleep(0.1)
        assert mounted_under(tmp_path) == [str(d)], "the store's tmpfs is mounted while it runs"
    finally:
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
    assert rc == 128 + signal.SIGINT
    assert not mounted_under(tmp_path), "the tmpfs was unmounted on the interrupt"
    assert not (out / "result.csv").exists()


def test_weighted_interleave_through_kv_wil(monkeypatch):
    h = fake_host(2)
    isdir, exists, wil = os.path.isdir, os.path.exists, kv.kvresp.WIL_SYSFS
    monkeypatch.setattr(kv.os.path, "isdir", lambda p: True if p == wil else isdir(p))
    monkeypatch.setattr(kv.os.path, "exists", lambda p: True if p == f"{wil}/auto" else exists(p))
    fp = kv.plan(config(systems=["skiplist", "redis"], key_types=["int"], threads=[1], placements=["interleave"],
                        interleave_weights=[3, 1]), h)
    pts = {r["point"]: r for r in fp.rows}
    sk = pts["skiplist-interleave-int-t1"]
    (w,) = sk["run"]["scenario"]["roles"]
    assert w["wrap"] == ["numactl", "--physcpubind=0-1", "build/bin/kv-wil", "--nodes", "0,1", "--"]
    assert sk["run"]["scenario"]["settings"] == {f"{kv.kvresp.WIL_SYSFS}/auto": "false",
                                                 f"{kv.kvresp.WIL_SYSFS}/node0": "3", f"{kv.kvresp.WIL_SYSFS}/node1": "1"}
    assert "kv-wil" in sk["tools"] and sk["context"]["placement_note"] == "weighted interleave 3:1"
    rd = {r["name"]: r for r in pts["redis-interleave-int-t1"]["run"]["scenario"]["roles"]}
    assert rd["redis"]["wrap"][2] == "build/bin/kv-wil" and rd["ycsb"]["wrap"][-1] == "--membind=0"
    # a file store's files are on its tmpfs, which interleaves evenly: its label says so
    h.facts["privileges"] = {"root": True}
    fp = kv.plan(config(systems=["rocksdb"], key_types=["int"], threads=[1], placements=["interleave"],
                        interleave_weights=[3, 1]), h)
    (rk,) = fp.rows
    assert rk["context"]["placement_note"] == ("weighted interleave 3:1 (the process; its files on the tmpfs "
                                               "interleaved evenly)")
    with pytest.raises(ConfigError, match="kv/interleave_weights: 1 weights for 2 tiers"):
        kv.plan(config(interleave_weights=[3]), h)
    monkeypatch.setattr(kv.os.path, "isdir", lambda p: False if p == wil else isdir(p))
    with pytest.raises(ConfigError, match="this kernel has no weighted interleave"):
        kv.plan(config(interleave_weights=[3, 1]), h)


def test_kv_wil_sets_the_policy():
    from workloads.kvresp import workload as kvresp  # noqa: PLC0415

    if not Path(kvresp.WIL_SYSFS).is_dir():
        pytest.skip("this kernel has no weighted interleave (Linux 6.9+)")
    exe = REPO / kvresp.WIL
    if not exe.exists():
        subprocess.run(["make", "--no-print-directory", "-C", "workloads/kvresp"], cwd=REPO, check=True)
    node = min(int(n) for n in hostdetect.detect()["memory_nodes"])
    r = subprocess.run([str(exe), "--nodes", str(node), "--", "cat", "/proc/self/numa_maps"], capture_output=True,
                       text=True, check=True)
    assert f"weighted interleave:{node}" in r.stdout
    bad = subprocess.run([str(exe), "--nodes", "x", "--", "true"], capture_output=True, text=True)
    assert bad.returncode == 2


# ---- figures and tables on a made-up two-tier frame -------------------------------------------------

def two_tier_frame():
    import itertools  # noqa: PLC0415

    import pandas as pd  # noqa: PLC0415

    rows = []
    base = {"host": "box", "backend": "numa", "family": "kv", "experiment": "ycsb", "workload": "ycsb", "rep": 0,
            "tool": "ycsb", "records": 10_000_000, "value_bytes": 100, "cache_resident": False, "placement_note": ""}
    places = {"default": ("0", 0.0, 1.0), "alternate": ("1", 1.0, 0.6), "interleave": ("0,1", 0.5, 0.8)}
    for sys_, kt, th, (pl, (nodes, share, f)) in itertools.product(["null", "skiplist", "redis"], ["int", "string"],
                                                                   [1, 2, 4], places.items()):
        if sys_ == "null" and pl != "default":
            continue
        pt = {**base, "system": sys_, "key_type": kt, "threads": th, "placement": pl, "mem_nodes": nodes,
              "point": f"{sys_}-{pl}-{kt}-t{th}"}
        for ph in ("load", "a", "c", "d", "e"):
            rows.append({**pt, "kv_phase": ph, "metric": "throughput", "value": 1e5 * th * f, "unit": "ops/s"})
            rows.append({**pt, "kv_phase": ph, "metric": "jvm_cpu_per_op", "value": 2.0 / f, "unit": "us"})
            for m, v in (("latency_p50", 20), ("latency_p99", 80), ("latency_p999", 300)):
                rows.append({**pt, "kv_phase": ph, "op": "READ", "metric": m, "value": v / f, "unit": "us"})
        rows.append({**pt, "kv_phase": "mem_end", "op": "store", "metric": "slow_tier_share", "value": share,
                     "unit": "fraction"})
        rows.append({**pt, "kv_phase": "mem_end", "op": "store", "node": "0", "metric": "node_bytes", "value": 1e9,
                     "unit": "B"})
        if sys_ == "redis":
            for d in (1, 4, 16):
                rows.append({**pt, "kv_phase": f"c-pipe{d}", "metric": "throughput", "value": 3e4 * d ** 0.7,
                             "unit": "ops/s"})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("name", ["kv_throughput", "kv_latency", "kv_pipeline", "kv_tier_ratio", "kv_slow_share"])
def test_kv_figures_draw_a_two_tier_frame(name, tmp_path):
    from analysis.figures import FIGURES, render  # noqa: PLC0415

    fig = FIGURES[name].plot(two_tier_frame())
    texts = " ".join(t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")))
    assert "no data" not in texts
    paths = render(name, two_tier_frame(), None, tmp_path / name)
    assert all(p.stat().st_size > 1000 for p in paths)


def test_kv_tables(tmp_path):
    from analysis import reference  # noqa: PLC0415
    from families.kv import tables  # noqa: PLC0415

    df = two_tier_frame()
    t = tables.throughput(df)
    assert "| redis | alternate | int | 4 |" in t
    b = tables.bottleneck(df)
    assert "driver_share" in b and "slow_tier_share" in b
    r = tables.reference_table(reference.load())
    assert r.startswith("**Published numbers, not tierbench results.**") and "bonsaikv" in r and "sherman" in r


def test_kv_bottleneck_bandwidth_share_of_memchar_peak_and_dimms():
    """payload bandwidth over the peak read bandwidth memchar measured on the store's nodes (summed over
    an interleave's), and the profile's DIMM count of those nodes; absent without them."""
    import pandas as pd  # noqa: PLC0415

    from families.kv import tables  # noqa: PLC0415

    chars = pd.DataFrame([{"metric": "bandwidth", "op": "read", "mem_node": n, "threads": t, "t_s": None,
                           "value": v * t} for n, v in ((0, 10_000.0), (1, 5_000.0)) for t in (1, 2)])
    assert tables.node_peaks(chars) == {0: 20_000.0, 1: 10_000.0}
    b = tables.bottleneck(two_tier_frame(), tables.node_peaks(chars), {0: 6, 1: 2})
    head = [c.strip() for c in b.splitlines()[2].strip("|").split("|")]
    rows = [dict(zip(head, (c.strip() for c in line.strip("|").split("|")), strict=True))
            for line in b.splitlines()[4:] if line.startswith("| redis |") and "| a |" in line]
    by = {r["placement"]: r for r in rows if r["key_type"] == "int"}
    for place, peak, dimms in (("default", 20_000, "6"), ("alternate", 10_000, "2"), ("interleave", 30_000, "6+2")):
        payload = float(by[place]["payload_MB_per_s"])
        assert payload > 0
        assert float(by[place]["payload_share_of_peak"]) == pytest.approx(payload / peak, rel=1e-2)  # as the table rounds it
        assert by[place]["dimms"] == dimms
    plain = tables.bottleneck(two_tier_frame())
    assert "payload_share_of_peak" not in plain.splitlines()[2] and "dimms" not in plain.splitlines()[2]


def table_rows(md: str) -> list[dict]:
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")), strict=True)) for ln in lines[2:]]


TWO_SOCKETS = {"nodes": {"0": {"cpus": [0, 1], "memory_mib": 4096, "sockets": [0]},
                         "1": {"cpus": [2, 3], "memory_mib": 4096, "sockets": [1]}}}
PEAKS = {0: 20_000.0, 1: 10_000.0, 2: 5_000.0}
PERF_OK = {"available": True, "reason": "8 uncore events on 4 PMU boxes", "ok": True, "rows": 12}


def counter_points(tmp_path: Path, status: dict, counters: list[tuple] | None, threads: int = 4, reps: int = 1,
                   scale=lambda rep: 1.0) -> list[Path]:
    """meta.json (and counters.csv) of every point of two_tier_frame at ``threads``: ``counters`` as
    (t_s, source, scope, metric, MB/s) rows, multiplied by ``scale(rep)``."""
    import pandas as pd  # noqa: PLC0415

    metas = []
    pts = two_tier_frame().drop_duplicates(["point"])
    for r in pts[pts["threads"] == threads].to_dict("records"):
        for rep in range(reps):
            d = tmp_path / r["point"] / f"rep{rep}"
            d.mkdir(parents=True)
            ctx = {k: r[k] for k in ("family", "experiment", "point", "system", "placement", "key_type", "threads",
                                     "mem_nodes")}
            (d / "meta.json").write_text(json.dumps({"point": {**ctx, "rep": rep}, "counters": status}))
            if counters is not None:
                pd.DataFrame([(t, src, sc, m, v * scale(rep), "MB/s") for t, src, sc, m, v in counters],
                             columns=["t_s", "source", "scope", "metric", "value", "unit"]).to_csv(d / "counters.csv",
                                                                                                    index=False)
            metas.append(d / "meta.json")
    return metas


def counter_table(metas: list[Path]):
    """The host's counters table of these points, as the kv_tables rule reads it (written, then
    loaded: analysis/counters.py)."""
    import io  # noqa: PLC0415

    from analysis import counters  # noqa: PLC0415

    buf = io.StringIO()
    counters.collect(metas).to_csv(buf, index=False)
    buf.seek(0)
    return counters.load(buf)


# per socket: S0 reads 3000 then 5000 MB/s (mean 4000) and writes 1000, S1 reads 2000 and writes 500; the
# per-box rows beside the socket sums must not be counted again
PERF_ROWS = [(t, "perf_uncore", sc, m, v) for t, s0 in ((1.0, 3000.0), (2.0, 5000.0))
             for sc, m, v in (("S0", "read_bandwidth", s0), ("S0/uncore_imc_0", "read_bandwidth", s0 / 2),
                              ("S0", "write_bandwidth", 1000.0), ("S1", "read_bandwidth", 2000.0),
                              ("S1", "write_bandwidth", 500.0), ("S1/uncore_imc_0", "read_bandwidth", 2000.0))]


def test_kv_bottleneck_counted_bandwidth_per_socket_of_the_stores_nodes(tmp_path):
    """Two sockets, one node each: a point's counted read/write are the socket means of the node(s)
    holding its data (an interleave's: both sockets), over the point's samples and its repetitions,
    and their read as a share of memchar's peak of those nodes; the payload columns stay."""
    from families.kv import tables  # noqa: PLC0415

    pc = tables.point_counters(counter_table(counter_points(tmp_path, {"perf_uncore": PERF_OK}, PERF_ROWS, reps=2,
                                                          scale=lambda rep: 1.0 + rep)))  # rep 1 counts twice rep 0's
    b = tables.bottleneck(two_tier_frame(), PEAKS, None, pc, TWO_SOCKETS)
    by = {r["placement"]: r for r in table_rows(b) if r["system"] == "redis" and r["key_type"] == "int"
          and r["kv_phase"] == "a"}
    for place, read, write, peak, on in (("default", 6000, 1500, 20_000, "S0: N0 (perf_uncore)"),
                                         ("alternate", 3000, 750, 10_000, "S1: N1 (perf_uncore)"),
                                         ("interleave", 9000, 2250, 30_000, "S0+S1: N0+N1 (perf_uncore)")):
        r = by[place]
        assert float(r["counted_read_MB_per_s"].replace(",", "")) == pytest.approx(read)
        assert float(r["counted_write_MB_per_s"].replace(",", "")) == pytest.approx(write)
        assert float(r["counted_share_of_peak"]) == pytest.approx(read / peak, rel=1e-2)
        assert r["counted_on"] == on
        assert float(r["payload_MB_per_s"]) > 0 and r["payload_share_of_peak"] != "–"
    assert "Counted columns empty" not in b


def test_kv_tables_cli_reads_the_points_and_facts(tmp_path):
    """The rules' command lines: the points' meta.json files make the host's counters table
    (analysis/counters.py, the core's counter_table rule), which with the host facts reaches the table."""
    from analysis import counters  # noqa: PLC0415
    from families.kv import tables  # noqa: PLC0415

    metas = counter_points(tmp_path / "pts", {"perf_uncore": PERF_OK}, PERF_ROWS)
    assert counters.main(["--out", str(tmp_path / "counters.csv"), *map(str, metas)]) == 0
    two_tier_frame().to_csv(tmp_path / "m.csv", index=False)
    (tmp_path / "facts.json").write_text(json.dumps(TWO_SOCKETS))
    assert tables.main(["--measurements", str(tmp_path / "m.csv"), "--facts", str(tmp_path / "facts.json"),
                        "--counter-table", str(tmp_path / "counters.csv"), "--out", str(tmp_path / "t")]) == 0
    rows = table_rows((tmp_path / "t/kv_bottleneck.md").read_text())
    assert {r["counted_on"] for r in rows if r["placement"] == "alternate"} == {"S1: N1 (perf_uncore)"}


def test_kv_bottleneck_counted_from_pcm_when_perf_did_not_count(tmp_path):
    from families.kv import tables  # noqa: PLC0415

    status = {"perf_uncore": {"available": True, "ok": False, "reason": "perf exited with status 1"},
              "pcm_memory": {"available": True, "ok": True, "rows": 9}}
    rows = [(1.0, "pcm_memory", sc, m, v) for sc, m, v in (
        ("S0", "read_bandwidth", 1200.0), ("S0/ch0", "read_bandwidth", 600.0), ("S0", "write_bandwidth", 300.0),
        ("S1", "read_bandwidth", 100.0), ("S1", "write_bandwidth", 50.0), ("system", "read_bandwidth", 1300.0))]
    pc = tables.point_counters(counter_table(counter_points(tmp_path, status, rows + PERF_ROWS)))
    b = tables.bottleneck(two_tier_frame(), PEAKS, None, pc, TWO_SOCKETS)
    r = next(r for r in table_rows(b) if r["system"] == "skiplist" and r["placement"] == "default")
    assert float(r["counted_read_MB_per_s"].replace(",", "")) == 1200.0, "perf's rows of a failed run are not used"
    assert r["counted_on"] == "S0: N0 (pcm_memory)"
    assert tables.socket_bandwidth(pd_frame([(1.0, "perf_uncore", "S0-D0", "read_bandwidth", 10.0),
                                             (1.0, "perf_uncore", "S0-D1", "read_bandwidth", 5.0)])) == {0: {"read": 15.0}}


def pd_frame(rows: list[tuple]):
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame([(*r, "MB/s") for r in rows], columns=["t_s", "source", "scope", "metric", "value", "unit"])


def test_kv_bottleneck_cpuless_node_and_shared_socket_are_said_not_guessed(tmp_path):
    """A CPU-less node (CXL, PMem) belongs to no socket's memory controllers: its points' counted
    columns stay empty and the note says why; a socket holding two memory nodes (SNC) gives its
    total, labelled shared, over the peak of both nodes, never split between them."""
    from families.kv import tables  # noqa: PLC0415

    facts = {"nodes": {"0": {"cpus": [0, 1], "memory_mib": 4096, "sockets": [0]},
                       "1": {"cpus": [], "memory_mib": 8192, "sockets": []},
                       "2": {"cpus": [2, 3], "memory_mib": 4096, "sockets": [0]}}}
    pc = tables.point_counters(counter_table(counter_points(tmp_path, {"perf_uncore": PERF_OK}, PERF_ROWS)))
    b = tables.bottleneck(two_tier_frame(), PEAKS, None, pc, facts)
    rows = [r for r in table_rows(b) if r["key_type"] == "int" and r["kv_phase"] == "c"]
    default = next(r for r in rows if r["system"] == "redis" and r["placement"] == "default")
    assert float(default["counted_read_MB_per_s"].replace(",", "")) == 4000.0, "S0's total, not half of it"
    assert float(default["counted_share_of_peak"]) == pytest.approx(4000 / (20_000 + 5_000), rel=1e-2)
    assert default["counted_on"] == "S0: N0+N2, socket total shared with N2 (perf_uncore)"
    for r in rows:
        if r["placement"] in ("alternate", "interleave"):  # node 1's data
            assert {r[c] for c in ("counted_read_MB_per_s", "counted_write_MB_per_s", "counted_share_of_peak",
                                   "counted_on")} == {"–"}
    note = b[b.index("Counted columns empty"):]
    assert "node 1 has no CPUs" in note
    assert "redis-alternate-int" in note and "redis-interleave-string" in note and "redis-default-int" not in note
    # facts without sockets (written before they were recorded): unknown, not socket 0
    old = {"nodes": {k: {"cpus": v["cpus"], "memory_mib": v["memory_mib"]} for k, v in TWO_SOCKETS["nodes"].items()}}
    b = tables.bottleneck(two_tier_frame(), PEAKS, None, pc, old)
    assert {r["counted_read_MB_per_s"] for r in table_rows(b)} == {"–"} and "the socket of node 0 is unknown" in b


def test_kv_bottleneck_without_counters_says_why_and_reads_no_stale_file(tmp_path):
    """No PMU (a VM): the counted columns are empty and the note gives the point's recorded reason;
    a counters.csv an earlier run left beside the meta.json is not read as this run's."""
    from families.kv import tables  # noqa: PLC0415

    why = "no uncore PMU under /sys/bus/event_source/devices (no hardware PMU exposed)"
    status = {"perf_uncore": {"available": False, "reason": why},
              "pcm_memory": {"available": False, "reason": "pcm-memory binary not found"},
              "ipmctl": {"available": False, "reason": "ipmctl binary not found"}}
    pc = tables.point_counters(counter_table(counter_points(tmp_path, status, PERF_ROWS)))  # the stale file
    b = tables.bottleneck(two_tier_frame(), PEAKS, None, pc, TWO_SOCKETS)
    rows = table_rows(b)
    assert rows and {r["counted_read_MB_per_s"] for r in rows} == {"–"}
    assert {r["counted_share_of_peak"] for r in rows} == {"–"} and {r["payload_share_of_peak"] for r in rows} != {"–"}
    assert f"- perf_uncore: {why}; pcm_memory: pcm-memory binary not found: every point" in b
    # no counter source configured, and no meta.json read at all
    pc = tables.point_counters(counter_table(counter_points(tmp_path / "none", {}, None)))
    assert "neither perf_uncore nor pcm_memory ran for the point" in tables.bottleneck(two_tier_frame(), counters=pc)
    assert "- the point is not in the counters table (counters.csv): every point" in tables.bottleneck(two_tier_frame())


def test_node_sockets_from_sysfs(tmp_path):
    """Host facts give each node the sockets of its CPUs (physical_package_id); a CPU-less node has
    none, and a CPU whose package sysfs does not say (unreadable, -1) adds none."""
    for node, cpus in (("node0", "0-1"), ("node1", "2-3"), ("node2", "")):
        (tmp_path / "devices/system/node" / node).mkdir(parents=True)
        (tmp_path / "devices/system/node" / node / "cpulist").write_text(cpus + "\n")
    for cpu, pkg in ((0, "0"), (1, "0"), (2, "1"), (3, "-1")):
        topo = tmp_path / f"devices/system/cpu/cpu{cpu}/topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(pkg + "\n")
    nodes = hostdetect.detect_nodes(tmp_path)
    assert [nodes[n]["sockets"] for n in (0, 1, 2)] == [[0], [1], []]
    (tmp_path / "devices/system/cpu/cpu2/topology/physical_package_id").unlink()
    assert hostdetect.detect_nodes(tmp_path)[1]["sockets"] == []


def test_tier_traffic_left_out_only_where_no_point_can_count_it():
    no_pmu = fake_host(2)
    no_pmu.facts["perf_counters"] = {"available": False, "reason": "no hardware PMU exposed"}
    fp = kv.plan(config(), no_pmu)
    assert "no hardware PMU exposed" in fp.absent["kv: tier traffic from counters"]
    imc = plan.Host(no_pmu.profile, {**no_pmu.facts, "uncore_pmus": ["uncore_imc_0"]})
    assert "kv: tier traffic from counters" not in kv.plan(config(), imc).absent
    cfg = config()
    cfg["counters"]["sources"] = ["ipmctl"]
    assert "neither perf_uncore nor pcm_memory" in kv.plan(cfg, imc).absent["kv: tier traffic from counters"]


def test_someone_elses_redis_on_the_port_is_never_touched(built, tmp_path):
    """The plan checks the port is free; if another Redis takes it before the point runs, ours cannot
    bind and the client, finding a server whose pid is not the one ours wrote, refuses to touch it."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (make setup)")
    points, facts = real_rows(tmp_path, ["redis"], key_types=["int"], threads=[1])
    row = next(iter(points.values()))
    port = next(r for r in row["run"]["scenario"]["roles"] if r["name"] == "redis")["argv"][2]
    foreign = subprocess.Popen(["redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                "no", "--dir", str(tmp_path), "--logfile", ""], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", int(port))) == 0:
                    s.sendall(b"SET precious 1\r\n")
                    assert s.recv(64).startswith(b"+OK")
                    break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        p = run_point(row, tmp_path, facts)
        log, _ = p.communicate(json.dumps(row), timeout=120)
        assert p.returncode != 0
        with socket.socket() as s:
            s.connect(("127.0.0.1", int(port)))
            s.sendall(b"GET precious\r\n")
            assert s.recv(64) == b"$1\r\n1\r\n", "the other Redis was not flushed"
    finally:
        foreign.terminate()
        foreign.wait(timeout=10)


# ---- pmdk: kv-pmem, a libpmemobj pool on a DAX path ------------------------------------------------

def dax_host(path: Path | str, nodes: int = 2) -> plan.Host:
    h = fake_host(nodes)
    prof = {**h.profile, "tiers": [*h.profile["tiers"], {"name": "pmem", "kind": "dax", "path": str(path)}]}
    return plan.Host(prof, h.facts)


@pytest.fixture
def libpmemobj(monkeypatch):
    """The plan's libpmemobj check passes (the plan tests do not need the library installed)."""
    monkeypatch.setattr(kv.kvpmem, "missing", lambda: "")


def pmdk_config(**over) -> dict:
    pm = over.pop("pmdk", {})
    cfg = config(**over)
    cfg["kv"]["pmdk"] = {**cfg["kv"]["pmdk"], **pm}
    return cfg


def roles_of(row: dict) -> dict:
    return {r["name"]: r for r in row["run"]["scenario"]["roles"]}


def test_pmdk_is_absent_without_a_dax_tier():
    fp = kv.plan(pmdk_config(systems=["redis", "pmdk"]), fake_host(2))
    assert {r["context"]["system"] for r in fp.rows} == {"redis"}
    assert "has no DAX tier" in fp.absent["kv: pmdk"] and "kv/pmdk/emulate_on" in fp.absent["kv: pmdk"]
    # said also where kv/systems does not ask for it (quick.yaml's), as the reason it cannot run here
    assert "has no DAX tier" in kv.plan(config(), fake_host(1)).absent["kv: pmdk"]


def test_pmdk_pool_on_each_dax_tier_server_and_client_on_the_default_tier(tmp_path, libpmemobj):
    d = tmp_path / "pmem0"
    d.mkdir()
    h = dax_host(d)
    fp = kv.plan(pmdk_config(systems=["skiplist", "pmdk"], key_types=["int"], threads=[1, 2]), h)
    pts = {r["point"]: r for r in fp.rows}
    assert set(pts) == {"pmdk-pmem-int-t1", "pmdk-pmem-int-t2", "skiplist-default-int-t1", "skiplist-default-int-t2",
                        "skiplist-alternate-int-t1", "skiplist-alternate-int-t2", "skiplist-interleave-int-t1",
                        "skiplist-interleave-int-t2"}, "the DAX tier is pmdk's placement only"
    assert "kv: pmdk" not in fp.absent
    row = pts["pmdk-pmem-int-t2"]
    r = roles_of(row)
    pool = str(d / "tierbench-kv-pmem-box.pool")
    a = r["kv-pmem"]["argv"]
    assert a[0] == "build/bin/kv-pmem" and a[a.index("--pool") + 1] == pool and "--fresh" in a
    assert a[a.index("--port") + 1] == "16380" and r["kv-pmem"]["kind"] == "background"
    # its DRAM on the default tier (2 client threads, 1 application CPU: both share the two)
    assert r["kv-pmem"]["wrap"] == ["numactl", "--physcpubind=0-1", "--membind=0"], "its DRAM on the default tier"
    assert r["kv-pmem"]["ready_file"] and r["kv-pmem"]["output"] == ["--pid-file", "server.pid"]
    w = r["ycsb"]["argv"]
    assert w[w.index("--db") + 1] == "redis" and w[w.index("--port") + 1] == "16380", "the Redis binding"
    assert r["ycsb"]["wrap"][-1] == "--membind=0" and r["ycsb"]["opts"]["slow_nodes"] == []
    assert "--pipeline-depths" in w and "--pipeline-depths" not in roles_of(pts["pmdk-pmem-int-t1"])["ycsb"]["argv"]
    assert row["run"]["scenario"]["scratch"] == {"dir": str(d), "remove": ["tierbench-kv-pmem-box.pool"]}
    ctx = row["context"]
    assert (ctx["system"], ctx["placement"], ctx["backend"], ctx["mem_nodes"], ctx["placement_note"]) == (
        "pmdk", "pmem", "dax", f"dax:{d}", "")
    assert "kv-pmem" in row["tools"] and "ycsb" in row["tools"]
    # placements named: the DAX tier for pmdk, the NUMA tier for the others
    fp = kv.plan(pmdk_config(systems=["skiplist", "pmdk"], key_types=["int"], threads=[1],
                             placements=["alternate", "pmem"]), h)
    assert sorted(r["point"] for r in fp.rows) == ["pmdk-pmem-int-t1", "skiplist-alternate-int-t1"]
    fp = kv.plan(pmdk_config(systems=["skiplist", "pmdk"], placements=["alternate"]), h)
    assert "names none of the host's DAX tiers (pmem)" in fp.absent["kv: pmdk"]
    assert "not in kv/systems" in kv.plan(config(), h).absent["kv: pmdk"]
    # a DAX tier given as a file on the DAX filesystem: the pool beside it; device DAX: absent, said why
    (d / "memchar.dat").write_bytes(b"")
    (row,) = kv.plan(pmdk_config(systems=["pmdk"], key_types=["int"], threads=[1]), dax_host(d / "memchar.dat")).rows
    assert roles_of(row)["kv-pmem"]["argv"][2] == pool
    fp = kv.plan(pmdk_config(systems=["pmdk"]), dax_host("/dev/null"))
    assert not fp.rows and "device DAX" in fp.absent["kv: pmdk on pmem"]


def test_pmdk_emulated_only_when_asked_and_labelled_everywhere(tmp_path, libpmemobj):
    fp = kv.plan(pmdk_config(systems=["null", "pmdk"], key_types=["int"], threads=[1],
                             pmdk={"emulate_on": str(tmp_path)}), fake_host(1))
    pts = {r["point"]: r for r in fp.rows}
    assert set(pts) == {"null-default-int-t1", "pmdk-emulated-int-t1"} and "kv: pmdk" not in fp.absent
    row = pts["pmdk-emulated-int-t1"]
    ctx = row["context"]
    assert ctx["placement_note"].startswith("emulated: not PMem") and str(tmp_path) in ctx["placement_note"]
    assert ctx["backend"] == "dax-emulated" and ctx["mem_nodes"] == f"emulated:{tmp_path}"
    assert row["run"]["note"] == ctx["placement_note"], "meta.json says so too"
    assert roles_of(row)["kv-pmem"]["wrap"][:2] == ["env", "PMEM_IS_PMEM_FORCE=1"]
    assert roles_of(row)["kv-pmem"]["argv"][2] == str(tmp_path / "tierbench-kv-pmem-box.pool")
    assert roles_of(pts["null-default-int-t1"])["ycsb"]["wrap"][0] == "numactl", "only pmdk's server is emulated"
    # the tables and the figures' legends say it
    from families.kv import tables  # noqa: PLC0415
    from families.kv.figures import kvstyle  # noqa: PLC0415

    df = pmdk_frame(ctx)
    assert "emulated: not PMem" in tables.throughput(df).split("| pmdk | emulated |")[1].splitlines()[0]
    b = tables.bottleneck(df)
    assert "emulated: not PMem: pmdk-emulated-int" in b and "not a PMem measurement" in b
    # socket counters that counted: never attributed to the pool (its path's "0" is no node 0)
    import pandas as pd  # noqa: PLC0415

    dax = {**ctx, "placement": "pmem", "mem_nodes": "dax:/mnt/pmem0", "placement_note": "", "backend": "dax"}
    d = tmp_path / "pt"
    d.mkdir()
    frame = pmdk_frame(dax)
    pt = frame[frame["system"] == "pmdk"].iloc[0]
    (d / "meta.json").write_text(json.dumps({"point": {"family": "kv", "experiment": pt["experiment"], "point": pt["point"],
                                                       "rep": 0, **{k: dax[k] for k in ("system", "placement", "mem_nodes")},
                                                       "key_type": "int", "threads": 4}, "counters": {"perf_uncore": PERF_OK}}))
    pd.DataFrame([(*r, "MB/s") for r in PERF_ROWS], columns=["t_s", "source", "scope", "metric", "value",
                                                             "unit"]).to_csv(d / "counters.csv", index=False)
    b = tables.bottleneck(frame, counters=tables.point_counters(counter_table([d / "meta.json"])), facts=TWO_SOCKETS)
    pm = [r for r in table_rows(b[: b.index("Counted columns empty")]) if r["system"] == "pmdk"]
    assert pm and {(r["counted_read_MB_per_s"], r["counted_on"]) for r in pm} == {("–", "–")}
    assert "pool file on a DAX path (pmdk), not on a NUMA node" in b
    assert kvstyle.placement_label(df, "emulated") == f"emulated ({tmp_path}) [emulated: not PMem]"
    assert kvstyle.placement_label(df, "default") == "default (node 0)"


def pmdk_frame(ctx: dict):
    """two_tier_frame plus one emulated pmdk point (its context as the plan made it)."""
    import pandas as pd  # noqa: PLC0415

    base = two_tier_frame()
    pt = {**base.iloc[0].to_dict(), **{k: ctx[k] for k in ("system", "placement", "mem_nodes", "placement_note",
                                                         "backend")},
          "key_type": "int", "threads": 4, "point": f"pmdk-{ctx['placement']}-int-t4", "op": None, "node": None}
    rows = [{**pt, "kv_phase": ph, "metric": "throughput", "value": 5e4, "unit": "ops/s"} for ph in ("load", "a", "c")]
    rows += [{**pt, "kv_phase": "a", "op": "READ", "metric": "latency_p99", "value": 90.0, "unit": "us"},
             {**pt, "kv_phase": "c-pipe4", "metric": "throughput", "value": 9e4, "unit": "ops/s"}]
    return pd.concat([base, pd.DataFrame(rows)], ignore_index=True)


@pytest.mark.parametrize("name", ["kv_throughput", "kv_latency", "kv_pipeline", "kv_tier_ratio"])
def test_kv_figures_draw_pmdk_beside_the_numa_stores(name, tmp_path):
    from analysis.figures import FIGURES  # noqa: PLC0415

    ctx = {"system": "pmdk", "placement": "emulated", "mem_nodes": "emulated:/dev/shm", "backend": "dax-emulated",
           "placement_note": "emulated: not PMem (a pool file on /dev/shm, PMEM_IS_PMEM_FORCE=1)"}
    fig = FIGURES[name].plot(pmdk_frame(ctx))
    texts = " ".join(t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")))
    assert "no data" not in texts
    if name in ("kv_throughput", "kv_pipeline"):
        assert "[emulated: not PMem]" in texts
    if name == "kv_tier_ratio":  # the DAX pool is no NUMA tier: still default vs alternate
        assert "throughput alternate / default" in texts and "pmdk" not in texts


@pytest.mark.parametrize(("case", "message"), [
    ("unknown option", "kv/pmdk: unknown key ('emulate' was unexpected)"),
    ("emulate_on not a directory", "kv/pmdk/emulate_on: '/nonexistent/tierbench' is not a directory"),
    ("dax path missing", "the DAX path '/nonexistent/pmem0' of tier pmem does not exist"),
    ("libpmemobj missing", "kv/systems: pmdk needs libpmemobj (libpmemobj is not installed; Debian packages "
                           "libpmemobj-dev, libpmemobj1"),
    ("same port as redis", "kv/redis/port and kv/pmdk/port: the same port for two servers"),
    ("pool larger than the disk", "kv/pmdk: the pool needs 1000000000 MiB but"),
    ("pool directory not writable", "kv/pmdk: cannot create the pool in"),
])
def test_pmdk_bad_input_is_one_line_before_any_job(case, message, tmp_path, monkeypatch):
    monkeypatch.setattr(kv, "measuring", lambda results: False)
    monkeypatch.setattr(kv.kvpmem, "missing", lambda: "libpmemobj is not installed" if case == "libpmemobj missing"
                        else "")
    host, pm = fake_host(1), {"emulate_on": str(tmp_path)}
    cfg = None
    if case == "unknown option":
        raw = yaml.safe_load((REPO / "workflows/config/quick.yaml").read_text())
        raw["kv"]["pmdk"] = {"emulate": "/dev/shm"}
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
            profile.validate_config(raw)
        assert "\n" not in str(e.value)
        return
    if case == "emulate_on not a directory":
        pm = {"emulate_on": "/nonexistent/tierbench"}
    elif case == "dax path missing":
        host, pm = dax_host("/nonexistent/pmem0"), {}
    elif case == "same port as redis":
        pm["port"] = 16379
    elif case == "pool larger than the disk":
        pm["pool_mib"] = 10**9
    elif case == "pool directory not writable":  # (root may write anywhere: as another user would see it)
        monkeypatch.setattr(kv.os, "access", lambda path, mode: path != str(tmp_path.resolve()))
    cfg = pmdk_config(systems=["redis", "pmdk"], pmdk=pm)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        kv.plan(cfg, host)
    assert "\n" not in str(e.value)


def test_pmdk_port_in_use_is_refused(tmp_path, monkeypatch, libpmemobj):
    monkeypatch.setattr(kv, "measuring", lambda results: False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        cfg = pmdk_config(systems=["pmdk"], pmdk={"emulate_on": str(tmp_path), "port": port})
        with pytest.raises(ConfigError, match=f"kv/pmdk/port: port {port} on 127.0.0.1 is in use"):
            kv.plan(cfg, fake_host(1))
        # where pmdk cannot run (no DAX tier, not emulated) its port is not its concern
        cfg["kv"]["pmdk"]["emulate_on"] = None
        assert "has no DAX tier" in kv.plan(cfg, fake_host(1)).absent["kv: pmdk"]


# ---- kv-pmem for real (a pool file on a tmpfs, PMEM_IS_PMEM_FORCE=1: functional, not PMem) ----------

@pytest.fixture(scope="module")
def kv_pmem() -> Path:
    from workloads.kvpmem import workload as kvpmem  # noqa: PLC0415

    why = kvpmem.missing()
    if why:
        pytest.skip(f"{why} (Debian package libpmemobj-dev: make setup)")
    r = subprocess.run(["make", "--no-print-directory", "-C", "workloads/kvpmem"], cwd=REPO, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return REPO / "build/bin/kv-pmem"


@pytest.fixture
def shm(tmp_path):
    """A directory on a tmpfs (/dev/shm where there is one), removed after the test."""
    import tempfile  # noqa: PLC0415

    base = Path("/dev/shm")
    d = Path(tempfile.mkdtemp(prefix="tierbench-kv-pmem-", dir=base if base.is_dir() else tmp_path))
    yield d
    shutil.rmtree(d, ignore_errors=True)


class Resp:
    """A minimal RESP client (arrays of bulk strings out; simple strings, errors, integers, bulk
    strings and arrays in)."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.f = self.sock.makefile("rb")

    @staticmethod
    def encode(*args) -> bytes:
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        return out

    def read(self):
        line = self.f.readline()
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            return None if int(rest) < 0 else self.f.read(int(rest) + 2)[:-2]
        if kind == b"*":
            return [self.read() for _ in range(int(rest))]
        raise AssertionError(f"not RESP: {line!r}")

    def __call__(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.read()

    def close(self):
        self.f.close()
        self.sock.close()


def start_kv_pmem(exe: Path, pool: Path, port: int, ctl: Path, *extra: str) -> subprocess.Popen:
    ready = ctl / "ready"
    ready.unlink(missing_ok=True)
    p = subprocess.Popen([str(exe), "--pool", str(pool), "--port", str(port), "--size-mib", "32", "--buckets", "1024",
                          "--pid-file", str(ctl / "pid"), "--ready-file", str(ready), *extra],
                         env={**os.environ, "PMEM_IS_PMEM_FORCE": "1"}, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not ready.exists():
        if p.poll() is not None:
            return p  # the caller looks at why
        assert time.monotonic() < deadline, "kv-pmem was not ready within 30 s"
        time.sleep(0.02)
    assert int((ctl / "pid").read_text()) == p.pid
    return p


def stop_kv_pmem(p: subprocess.Popen, sig: int = signal.SIGTERM) -> str:
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert not alive(p.pid)
    if sig == signal.SIGTERM:
        assert p.returncode == 0, err
        assert "pool" in out and "closed" in out.splitlines()[-1]
    return out


def test_kv_pmem_resp_survives_a_restart_and_sigterm(kv_pmem, shm, tmp_path):
    pool, port = shm / "kv.pool", free_port()
    p = start_kv_pmem(kv_pmem, pool, port, tmp_path, "--fresh")
    assert p.poll() is None, p.communicate()
    int_key = bytes([0, 13, 10, 36, 255, 42, 13, 10])  # an 8-byte integer key: NUL, CR LF and '$' inside
    members = [b"user%019d" % k for k in (7, 3, 11, 5, 2, 13)] + [int_key]
    r = Resp(port)
    try:
        assert r("PING") == "PONG" and r("CLIENT", "SETINFO", "lib-name", "jedis") == "OK"
        assert f"process_id:{p.pid}\r\n" in r("INFO", "server").decode(), "the pid the YCSB runner checks"
        assert r("SET", "a", "1") == "OK" and r("GET", "a") == b"1" and r("GET", "nope") is None
        assert r("SET", "a", "2") == "OK" and r("SET", "a", "longer") == "OK" and r("GET", "a") == b"longer"
        assert r("SET", int_key, b"v\r\n\x00") == "OK" and r("GET", int_key) == b"v\r\n\x00"
        assert r("MGET", "a", "nope", int_key) == [b"longer", None, b"v\r\n\x00"]
        assert r("ZADD", "idx", 0, members[0], 0, members[1]) == 2
        assert r("ZADD", "idx", *[x for m in members for x in (0, m)]) == len(members) - 2, "new members only"
        assert isinstance(r("ZADD", "other", 0, "x"), RuntimeError), "one sorted set"
        assert r("ZRANGEBYLEX", "idx", "-", "+") == sorted(members), "members in byte order"
        s = sorted(members)
        assert r("ZRANGEBYLEX", "idx", b"[" + s[2], "+", "LIMIT", 0, 3) == s[2:5], "the binding's scan"
        assert r("ZRANGEBYLEX", "idx", b"(" + s[2], b"[" + s[4], "LIMIT", 1, 10) == [s[4]]
        assert r("ZRANGEBYLEX", "idx", b"[zzz", "+") == [] and r("ZRANGEBYLEX", "nothere", "-", "+") == []
        assert isinstance(r("ZRANGEBYLEX", "idx", "a", "+"), RuntimeError)
        assert isinstance(r("HSET", "h", "f", "v"), RuntimeError), "not implemented: an error, the connection lives"
        # pipelined: many requests in one write, their replies in order
        r.sock.sendall(b"".join(Resp.encode("SET", f"k{i}", f"v{i}") + Resp.encode("ZADD", "idx", 0, f"k{i}")
                                for i in range(500)))
        assert [r.read() for _ in range(1000)] == ["OK", 1] * 500
        assert r("DEL", "k0", "k1", "nope") == 2 and r("ZREM", "idx", "k0", "nope") == 1
    finally:
        r.close()

    # several clients at once, each on its own connection
    def client(n: int) -> None:
        c = Resp(port)
        for i in range(200):
            assert c("SET", f"c{n}-{i}", f"{n}:{i}") == "OK"
        c.close()

    import threading  # noqa: PLC0415

    ts = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    r = Resp(port)
    keys = 2 + 498 + 800
    assert r("DBSIZE") == keys and r("GET", "c3-199") == b"3:199"
    r.close()
    out = stop_kv_pmem(p)  # SIGTERM: pool closed, exit 0
    assert f"listening on 127.0.0.1:{port}" in out

    # restarted on the same pool (no --fresh): everything read back
    p = start_kv_pmem(kv_pmem, pool, port, tmp_path)
    r = Resp(port)
    try:
        assert r("DBSIZE") == keys and r("ZCARD", "idx") == len(members) + 499
        assert r("MGET", "a", int_key, "k0", "k499", "c0-0") == [b"longer", b"v\r\n\x00", None, b"v499", b"0:0"]
        assert r("ZRANGEBYLEX", "idx", "-", "+", "LIMIT", 0, 3) == sorted([*members, b"k1", b"k10"])[:3]
        assert r("SET", "after-restart", "x") == "OK"
    finally:
        r.close()
    stop_kv_pmem(p, signal.SIGKILL)  # killed: pmemobj recovers the pool when it is opened again

    p = start_kv_pmem(kv_pmem, pool, port, tmp_path)
    r = Resp(port)
    try:
        assert r("GET", "after-restart") == b"x" and r("DBSIZE") == keys + 1
        assert r("FLUSHALL") == "OK" and r("DBSIZE") == 0 and r("ZRANGEBYLEX", "idx", "-", "+") == []
        assert r("SET", "fresh", "1") == "OK" and r("ZADD", "idx2", 0, "m") == 1, "a new sorted set after FLUSHALL"
    finally:
        r.close()
    stop_kv_pmem(p)
    p = start_kv_pmem(kv_pmem, pool, port, tmp_path)
    r = Resp(port)
    assert r("DBSIZE") == 1 and r("GET", "a") is None and r("ZRANGEBYLEX", "idx2", "-", "+") == [b"m"]
    r.close()
    stop_kv_pmem(p)
    # --fresh: the pool a killed run left is replaced
    p = start_kv_pmem(kv_pmem, pool, port, tmp_path, "--fresh")
    r = Resp(port)
    assert r("DBSIZE") == 0
    r.close()
    assert "an earlier run left" in stop_kv_pmem(p)


def test_kv_pmem_refuses_a_port_in_use_and_a_pool_in_use(kv_pmem, shm, tmp_path):
    pool = shm / "kv.pool"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        p = start_kv_pmem(kv_pmem, pool, s.getsockname()[1], tmp_path, "--fresh")
        _, err = p.communicate(timeout=30)
        assert p.returncode == 1 and f"cannot listen on 127.0.0.1:{s.getsockname()[1]}" in err
    port = free_port()
    a = start_kv_pmem(kv_pmem, pool, port, tmp_path, "--fresh")
    try:
        r = Resp(port)
        assert r("SET", "mine", "1") == "OK"
        (tmp_path / "b").mkdir()
        for extra in (["--fresh"], []):  # another server never removes nor opens a pool in use
            b = start_kv_pmem(kv_pmem, pool, free_port(), tmp_path / "b", *extra)
            _, err = b.communicate(timeout=30)
            assert b.returncode == 1 and "kv-pmem: error:" in err and str(pool) in err
        assert r("GET", "mine") == b"1"
        r.close()
    finally:
        stop_kv_pmem(a)
    bad = subprocess.run([str(kv_pmem), "--pool", str(pool)], capture_output=True, text=True)
    assert bad.returncode == 2 and "--port" in bad.stderr


def test_real_ycsb_against_pmdk_emulated_on_a_tmpfs(built, kv_pmem, shm, tmp_path):
    """One point through the family's path: kv-pmem with its pool on a tmpfs directory
    (kv/pmdk/emulate_on), the YCSB Redis binding loading it and running A, C, D, E and the
    pipelined reads; the server is ended and its pool removed after the point."""
    points, facts = real_rows(tmp_path, ["pmdk"], key_types=["string"], threads=[2],
                              pmdk={"port": free_port(), "pool_mib": 0, "emulate_on": str(shm)})
    (row,) = points.values()
    assert row["context"]["placement_note"].startswith("emulated: not PMem")
    pool = shm / Path(roles_of(row)["kv-pmem"]["argv"][2]).name
    p = run_point(row, tmp_path, facts)
    log, _ = p.communicate(json.dumps(row), timeout=180)
    assert p.returncode == 0, log
    out = tmp_path / row["point"]
    from analysis.frame import load  # noqa: PLC0415

    df = load(out / "result.csv")
    tp = df[df["metric"] == "throughput"].set_index("kv_phase")["value"]
    assert {"load", "a", "c", "d", "e", "c-pipe1", "c-pipe4"} <= set(tp.index) and (tp > 0).all()
    assert (df[df["metric"] == "failed_operations"]["value"] == 0).all(), "every operation returned OK"
    scans = df[(df["metric"] == "op_count") & (df["op"] == "SCAN")]["value"]
    assert scans.sum() > 0, "phase e scanned the ordered index"
    assert (df["metric"] == "server_cpu_per_op").any()
    assert set(df["placement_note"].dropna()) == {row["context"]["placement_note"]}
    assert "pool" in (out / "kv-pmem.log").read_text()
    pid = server_pid(out)
    assert pid and not alive(pid), "kv-pmem was ended"
    assert not pool.exists(), "the pool file was removed after the point"
    meta = json.loads((out / "meta.json").read_text())
    assert meta["note"].startswith("emulated: not PMem") and meta["exit"]["kv-pmem"] == 0


def test_sigint_leaves_no_kv_pmem_and_no_pool(built, kv_pmem, shm, tmp_path):
    """An interrupted pmdk point ends its server by pid and removes its pool file (the scenario's scratch)."""
    points, facts = real_rows(tmp_path, ["pmdk"], key_types=["int"], threads=[1], max_seconds=5,
                              pmdk={"port": free_port(), "pool_mib": 64, "emulate_on": str(shm)})
    (row,) = points.values()
    pool = Path(roles_of(row)["kv-pmem"]["argv"][2])
    with interrupted_in_phase_a(row, tmp_path, facts) as (_p, _out, spid):
        assert pool.exists() and comm(spid) == "kv-pmem"
    assert not alive(spid), "kv-pmem was ended"
    assert not pool.exists(), "its pool was removed"
