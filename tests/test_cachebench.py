"""CacheLib's CacheBench in the apps family: the HeMemKV config, the parser on real output, a
profile's own binary or the pinned build, bad input; a real run where a cachebench binary is at
hand (``TIERBENCH_CACHEBENCH``: building CacheLib's chain takes about an hour on 2 cores, so no
test builds it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from analysis.frame import load
from families import apps
from workflows.harness import ConfigError, plan, profile
from workloads.cachebench import workload as cachebench

DATA = REPO / "tests/data/cachebench"
HAVE = os.environ.get("TIERBENCH_CACHEBENCH")


def test_parser_on_real_output():
    """tests/data/cachebench/hememkv-100k-2t.stdout: cachebench at v2024.06.03.00 (built by
    workloads/cachebench/build.sh), 100 000 keys, 2 threads x 12 M ops, ``--progress 2``."""
    rows = cachebench.parse((DATA / "hememkv-100k-2t.stdout").read_text())
    end = {r["metric"]: (r["value"], r["unit"]) for r in rows if "t_s" not in r}
    assert end == {"throughput": (2477499.0, "get ops/s"), "set_throughput": (286294.0, "set ops/s"),
                   "hit_ratio": (99.58, "%")}
    series = [(r["t_s"], round(r["value"])) for r in rows if r["metric"] == "op_throughput"]
    assert series == [(2, 2630000), (4, 2815000), (6, 2810000), (8, 2790000)], "millions of ops between progress lines"


def test_parser_reads_plain_numbers_and_ignores_other_lines():
    text = ("get       : 2477499/s, success   :  99.58%\ncouldExist:         0/s, success   :   0.00%\n"
            "set       : 1,286,294/s, success   : 100.00%\nNVM Gets      :               0, Coalesced :   0.00%\n")
    assert [(r["metric"], r["value"]) for r in cachebench.parse(text)] == [("throughput", 2477499.0),
                                                                           ("set_throughput", 1286294.0)]
    assert cachebench.parse("Invalid configuration. Exception: Cannot start ProgressTracker.\n") == []
    wrap = "23:59:59       1.00M ops completed. Hit Ratio 0%\n00:00:01       3.00M ops completed. Hit Ratio 9%\n"
    assert [(r["t_s"], r["value"]) for r in cachebench.parse(wrap)] == [(2, 1e6)], "past midnight"


def test_hememkv_config():
    """The paper's HeMemKV: 64 B keys, 4096 B values, 20 % of the keys take 90 % of the accesses,
    get:update 9:1; every key fits the cache."""
    keys = cachebench.keys_of(256)
    assert keys == 256 * 2**20 // 4224
    c = cachebench.config(keys=keys, ops_per_thread=1000, threads=2)
    t = c["test_config"]
    assert (t["keySizeRange"], t["valSizeRange"]) == ([64, 65], [4096])
    assert (t["popularityBuckets"], t["popularityWeights"]) == ([20, 80], [90, 10])
    assert (t["getRatio"], t["setRatio"], t["numKeys"], t["numOps"], t["numThreads"]) == (0.9, 0.1, keys, 1000, 2)
    assert c["cache_config"]["cacheSizeMB"] * 2**20 * 0.8 >= keys * 4224
    assert cachebench.ht_power(100_000) == 22 and cachebench.ht_power(15_000_000) == 25
    out = subprocess.run([sys.executable, "-m", "workloads.cachebench.workload", "config", "--keys", str(keys),
                          "--ops-per-thread", "1000", "--threads", "2"], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == c


def fake_cachebench(tmp_path: Path, mode: int = 0o755) -> Path:
    exe = tmp_path / "cachebench"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(mode)
    return exe


def host_with(tmp_path: Path, tools: str = "") -> plan.Host:
    facts = {"hostname": "h", "nodes": {"0": {"cpus": [0, 1], "memory_mib": 8192}}, "memory_nodes": [0],
             "cpu_nodes": [0], "online_cpus": [0, 1], "allowed_cpus": [0, 1], "tools": {}, "privileges": {"root": True}}
    y = tmp_path / "cb.yaml"
    y.write_text(f"name: cb\ndetect: true\ntiers: []\n{tools}")
    return plan.Host(profile.resolve(str(y), facts), facts)


def contention(fp) -> dict:
    return {r["point"]: r for r in fp.rows if r["experiment"] == "contention_single_node"}


def test_a_profiles_cachebench_runs_with_auto_and_needs_no_build(tmp_path):
    exe = fake_cachebench(tmp_path)
    cfg = profile.validate_config({"scale": "t", "apps": {"cachelib": {"size_mib": 64, "ops_per_thread": 5000}}})
    pts = contention(apps.plan(cfg, host_with(tmp_path, f"tools: {{cachebench: {exe}}}\n")))
    r = pts["cachelib-i3-t1"]
    role = r["run"]["scenario"]["roles"][-1]
    keys = cachebench.keys_of(64)
    assert role["argv"] == [str(exe), "--json_test_config", f"build/cachebench/hememkv-keys{keys}-ops5000-threads1.json",
                            "--progress", "1"]
    assert r["inputs"] == [role["argv"][2]] and r["tools"] == ["antagonist"], "the user's binary is not built"
    assert r["context"]["keys"] == keys and r["context"]["object_bytes"] == 4096 and role["usage"]
    assert not any(p.startswith("cachelib") for p in contention(apps.plan(cfg, host_with(tmp_path)))), \
        "auto leaves cachelib out where no cachebench is named"


def test_listing_cachelib_builds_it_when_the_packages_are_there(tmp_path, monkeypatch):
    cfg = profile.validate_config({"scale": "t", "apps": {"apps": ["cachelib"]}})
    monkeypatch.setattr(apps, "missing_packages", lambda pk: [])
    r = contention(apps.plan(cfg, host_with(tmp_path)))["cachelib-i0-t0"]
    assert r["run"]["scenario"]["roles"][-1]["argv"][0] == "build/bin/cachebench" and r["tools"] == ["cachebench"]
    monkeypatch.setattr(apps, "missing_packages", lambda pk: ["libboost-all-dev", "cmake"])
    with pytest.raises(ConfigError, match=r"cachelib is built here .* needs Debian packages libboost-all-dev cmake "
                       r"\(make setup-cachebench\), or name your cachebench binary .*tools/cachebench") as e:
        apps.plan(cfg, host_with(tmp_path))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("mode, needle", [(0o644, "is not an executable file"), (None, "is not an executable file")])
def test_a_cachebench_that_is_missing_or_not_executable_is_named(tmp_path, mode, needle):
    exe = fake_cachebench(tmp_path, mode) if mode is not None else tmp_path / "nowhere/cachebench"
    with pytest.raises(ConfigError, match=rf"tools/cachebench: '{exe}' {needle}") as e:
        host_with(tmp_path, f"tools: {{cachebench: {exe}}}\n")
    assert "\n" not in str(e.value)


def test_a_cache_that_does_not_fit_the_node_is_refused(tmp_path):
    cfg = profile.validate_config({"scale": "t", "apps": {"cachelib": {"size_mib": 16384}}})
    exe = fake_cachebench(tmp_path)
    with pytest.raises(ConfigError, match=r"apps/cachelib: about \d+ MiB does not fit node 0 \(8192 MiB\)"):
        apps.plan(cfg, host_with(tmp_path, f"tools: {{cachebench: {exe}}}\n"))


def test_cachebench_runs_beside_the_antagonist(workdir, tmp_path):
    """The real thing, where a cachebench binary is at hand: HeMemKV alone and beside the
    antagonist, its get rate, hit ratio, footprint and progress series in measurements.csv."""
    if not HAVE:
        pytest.skip("no cachebench binary here: set TIERBENCH_CACHEBENCH=PATH (building CacheLib's chain from the "
                    "pinned sources takes about an hour on 2 cores: workloads/cachebench/README.md)")
    cfg = tmp_path / "cb.yaml"
    cfg.write_text("scale: cb-tiny\ncharacterize: {enabled: false}\nstorage: {enabled: false}\ntiering: {enabled: false}\n"
                   "overcommit: {enabled: false}\nkv: {enabled: false}\n"
                   "apps: {apps: [cachelib], cachelib: {size_mib: 32, ops_per_thread: 300000},\n"
                   "       contention: {warmup_s: 0.2, antagonist_buffer: 64M}, model: {enabled: false}}\n")
    host = tmp_path / "h.yaml"
    host.write_text(f"name: cb-host\ndetect: true\ntiers: []\ntools: {{cachebench: {HAVE}}}\n")
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(cfg), "--config",
                        f"host={host}"], cwd=workdir, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    df = load(workdir / "results/cb-host/apps/measurements.csv")
    summ = df[df["t_s"].isna()]
    get = summ[summ["metric"] == "throughput"]
    assert len(get) == 2 and (get["value"] > 0).all() and set(get["unit"]) == {"get ops/s"}
    assert (summ[summ["metric"] == "hit_ratio"]["value"] > 50).all()
    assert (summ[summ["metric"] == "peak_rss"]["value"] > 10).all()


def test_two_tier_host_runs_cachebench_under_each_system(monkeypatch):
    """On two NUMA tiers: CacheBench bound to the alternate tier, tierd attached once the run
    starts (its ready line), a third of its footprint allowed in the default tier."""
    from test_profiles import two_socket_facts

    monkeypatch.setattr(apps, "missing_packages", lambda pk: [])
    facts = two_socket_facts()
    facts["privileges"] = {"root": True}
    host = plan.Host(profile.resolve("icelake-2s", facts), facts)
    cfg = profile.validate_config({"scale": "t", "apps": {"apps": ["cachelib"], "cachelib": {"size_mib": 1024}}})
    by = {r["point"]: r for r in apps.plan(cfg, host).rows}
    # three systems, with and without Colloid, four intensities, less kernel TPP (tpp without
    # Colloid): the application is bound with numactl --membind, which NUMA balancing never scans
    assert len(by) == 3 * 2 * 4 - 4 and not any("-tpp-c0-" in p for p in by)
    roles = {x["name"]: x for x in by["numa-cachelib-memtis-c1-i2"]["run"]["scenario"]["roles"]}
    cb = roles["cachebench"]
    assert cb["wrap"][-1] == "--membind=1" and cb["ready_line"] == "ops to be run"
    foot = by["numa-cachelib-memtis-c1-i2"]["context"]["footprint_mib"]
    t = roles["tierd"]["argv"]
    assert t[t.index("--capacity") + 1] == f"{round(foot / 3)}M,auto"
    assert by["numa-cachelib-tpp-c1-i0"]["context"]["app_threads"] == 15
