"""The apps family: pinned upstream sources, GAPBS PageRank built and run for real, bad input.

The real build and run need GAPBS's pinned archive: from the sources directory beside the
checkout (``../shared/upstream``, this project's offline cache), $TIERBENCH_SOURCES, or GitHub;
they skip with the reason when none is reachable.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

import systems
from analysis.frame import load
from families import apps
from workflows.harness import ConfigError, plan, profile
from workloads import upstream
from workloads.gapbs import workload as gapbs
from workloads.silo import workload as silo

DATA = Path(__file__).parent / "data" / "gapbs"
PIN = gapbs.PINS[0]


def sources_dir() -> Path | None:
    for d in (os.environ.get(upstream.ENV), REPO.parent / "shared" / "upstream"):
        if d and (Path(d) / PIN.archive).is_file():
            return Path(d)
    return None


def test_pagerank_parser_on_real_output():
    rows = gapbs.parse((DATA / "pr-kron14-n3.out").read_text())
    trials = [r for r in rows if r["metric"] == "trial_time"]
    assert [r["trial"] for r in trials] == [0, 1, 2]
    assert [r["value"] for r in trials] == ["0.00939", "0.05580", "0.02933"]
    avg = [r for r in rows if r["metric"] == "average_trial_time"]
    assert avg == [{"metric": "average_trial_time", "value": "0.03151", "unit": "s", "tool": "gapbs-pr"}]
    assert {r["metric"] for r in rows} == {"read_time", "trial_time", "average_trial_time"}
    assert gapbs.parse("Couldn't open file /nonexistent.sg\n") == []


def test_silo_parser_on_real_output():
    rows = silo.parse((REPO / "tests/data/silo/ycsb-c-zipf0.5-report1s.stdout").read_text())
    series = [(r["t_s"], r["value"]) for r in rows if r.get("t_s")]
    assert series == [("1.003", "939579.4"), ("2.000", "967698.2"), ("3.004", "1059002.5")]
    summary = {r["metric"]: (r["value"], r["unit"]) for r in rows if not r.get("t_s")}
    assert summary == {"throughput": ("988770", "ops/s"), "avg_latency": ("0.000979766", "ms"), "abort_rate": ("0", "aborts/s")}
    uniform = silo.parse((REPO / "tests/data/silo/ycsb-default-uniform.stdout").read_text())
    assert [r["metric"] for r in uniform] == ["throughput", "avg_latency", "abort_rate"], "no report lines without the option"
    assert silo.parse((REPO / "tests/data/silo/bad-option.stdout").read_text()) == []
    assert silo.parse("1.02065e+06 1.02065e+06 0.0009 0 0\n")[0]["value"] == "1.02065e+06"


def test_graph_parameter():
    assert gapbs.graph_file("kron:20") == "build/graphs/kron20-k16.sg"
    assert gapbs.argv(graph="kron:20", trials=3)[1:] == ["-f", "build/graphs/kron20-k16.sg", "-n", "3"]
    assert gapbs.argv(graph="/data/twitter.el", trials=1)[-1] == "-s", "an edge list is symmetrized"


def one_node_host(memory_mib: int = 8192) -> plan.Host:
    facts = {"hostname": "h", "nodes": {"0": {"cpus": [0, 1], "memory_mib": memory_mib}}, "memory_nodes": [0],
             "cpu_nodes": [0], "online_cpus": [0, 1], "allowed_cpus": [0, 1], "tools": {"fio": "/usr/bin/fio"},
             "privileges": {"root": True}}
    return plan.Host(profile.resolve("auto", facts), facts)


def apps_config(**gapbs_cfg) -> dict:
    return profile.validate_config({"scale": "t", "apps": {"gapbs-pr": gapbs_cfg}})


def test_points_run_beside_the_antagonist_with_the_graph_as_input():
    fp = apps.plan(apps_config(graph="kron:18"), one_node_host())
    measured = [r for r in fp.rows if r["experiment"] == "contention_single_node"]
    # one antagonist CPU: 1x and 2x are that CPU streaming 1/3 and 2/3 of every period (--duty)
    assert [r["point"] for r in measured] == [f"{a}-i{k}-t{min(k, 1)}" for a in ("gapbs-pr", "silo") for k in range(4)]
    duty = [next((x["argv"] for x in r["run"]["scenario"]["roles"] if x["name"] == "antagonist"), None)
            for r in measured[:4]]
    assert duty[0] is None and "--duty" not in duty[3]
    assert [a[a.index("--duty") + 1] for a in duty[1:3]] == ["0.333333", "0.666667"]
    r = measured[3]
    roles = {x["name"]: x for x in r["run"]["scenario"]["roles"]}
    assert set(roles) == {"antagonist", "gapbs-pr"} and roles["gapbs-pr"]["usage"]
    assert roles["gapbs-pr"]["wrap"] == ["numactl", "--physcpubind=0", "--membind=0"]
    assert r["inputs"] == ["build/graphs/kron18-k16.sg"] and r["tools"] == ["antagonist", "gapbs-pr"]
    assert r["context"]["workload"] == "gapbs-pr" and r["context"]["graph"] == "kron:18"
    assert fp.figures == ["app_contention", "app_speedup"]


def test_model_points_run_each_access_model_under_every_system():
    """Modelled: each application's model (models.yaml) with every registered system (HeMem, TPP,
    MEMTIS, DAMON), with and without Colloid, at 0x-3x; the default tier holds a third of the
    working set; labelled model."""
    fp = apps.plan(profile.validate_config({"scale": "t", "apps": {"contention": {"enabled": False}}}), one_node_host())
    assert {r["experiment"] for r in fp.rows} == {"steady_state"} and fp.figures == ["app_speedup"]
    assert {r["context"]["system"] for r in fp.rows} == set(systems.names())
    assert len(fp.rows) == 3 * len(systems.names()) * 2 * 4 and {r["context"]["backend"] for r in fp.rows} == {"model"}
    by = {r["point"]: r["run"]["argv"] for r in fp.rows}
    pr, s = by["gapbs-pr-hemem-c1-i3"], by["silo-tpp-c0-i0"]
    assert pr[pr.index("--workload") + 1] == "gups" and pr[pr.index("--hot-share") + 1] == "0.918"
    assert pr[pr.index("--hot-set") + 1] == "696M", "5.23 % of 13 GiB"
    assert any(a.startswith("default:") and a.endswith(":capacity=4.333") for a in pr), "a third of 13 GiB"
    assert s[s.index("--workload") + 1] == "zipf" and s[s.index("--zipf-theta") + 1] == "0.5"
    c = by["cachelib-memtis-c1-i2"]
    assert c[c.index("--object-size") + 1] == "640" and c[c.index("--hot-share") + 1] == "0.9"
    assert fp.info.profile == "paper-testbed"
    two = apps.plan(profile.validate_config({"scale": "t", "reps": 2, "apps": {"contention": {"enabled": False}}}),
                    one_node_host()).rows
    a1 = next(r["run"]["argv"] for r in two if r["rep"] == 1 and r["point"] == "silo-tpp-c0-i0")
    assert a1[a1.index("--seed") + 1] == "2", "a repetition of a model point runs with seed + rep"


def test_silo_workers_need_application_cpus():
    c = profile.validate_config({"scale": "t", "apps": {"silo": {"threads": 8}}})
    with pytest.raises(ConfigError, match=r"apps/silo/threads: 8 workers but the host profile grants 1 application CPU"):
        apps.plan(c, one_node_host())
    rows = [r for r in apps.plan(profile.validate_config({"scale": "t"}), one_node_host()).rows
            if r["experiment"] == "contention_single_node"]
    assert {r["context"]["workload"] for r in rows} == {"gapbs-pr", "silo"}
    s = next(r for r in rows if r["context"]["workload"] == "silo")
    assert s["context"]["app_threads"] == 1 and "--zipf-theta 0.5" in " ".join(s["run"]["scenario"]["roles"][-1]["argv"])


@pytest.mark.parametrize("cfg, needle", [
    ({"graph": "/nonexistent/twitter.sg"}, r"apps/gapbs-pr/graph: '/nonexistent/twitter.sg' does not exist"),
    ({"graph": "twitter.txt"}, r"neither kron:SCALE nor a .sg/.el file"),
    ({"graph": "kron:40"}, r"kron:SCALE takes a scale of 8..31"),
    ({"graph": "kron:28"}, r"apps/gapbs-pr: about \d+ MiB does not fit node 0 \(8192 MiB\); use a smaller input"),
])
def test_bad_input_is_one_line_before_any_job(cfg, needle):
    with pytest.raises(ConfigError, match=needle) as e:
        apps.plan(apps_config(**cfg), one_node_host())
    assert "\n" not in str(e.value)


def test_unknown_application_is_refused_by_the_schema():
    with pytest.raises(ConfigError, match=r"experiment config: apps/apps/0: 'gups' is not one of"):
        profile.validate_config({"scale": "t", "apps": {"apps": ["gups"]}})


def test_fetch_verifies_the_pin(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / PIN.archive).write_bytes(b"not the archive")
    with pytest.raises(upstream.SourceError, match="is not the pinned"):
        upstream.fetch(PIN, tmp_path / "out.tar.gz", [bad])
    assert not (tmp_path / "out.tar.gz").exists()
    src = sources_dir()
    if src is None:
        pytest.skip("GAPBS's pinned archive is not in a sources directory here")
    assert upstream.fetch(PIN, tmp_path / "out.tar.gz", [bad.parent / "nothing", src]) == str(src / PIN.archive)
    assert upstream.sha256(tmp_path / "out.tar.gz") == PIN.sha256


def test_missing_archive_offline_names_the_remedy(tmp_path, monkeypatch):
    def offline(*a, **k):
        raise OSError("network unreachable")

    import urllib.request  # noqa: PLC0415 - upstream imports it only to download

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(upstream.SourceError, match=r"not in .*download .* failed.*sources: DIR"):
        upstream.fetch(PIN, tmp_path / "out.tar.gz", [tmp_path])


def test_apps_built_from_pinned_sources_and_run(workdir, tmp_path):
    """The archives fetched and verified, GAPBS and Silo built with our scripts (and patches), a
    graph made, PageRank and YCSB-C run alone and beside the antagonist; rows with their metric,
    footprint and run time."""
    src = sources_dir()
    if src is None or not all((src / p.archive).is_file() for p in silo.PINS):
        pytest.skip("the pinned GAPBS and Silo archives are not in a sources directory here (nor TIERBENCH_SOURCES)")
    cfg = tmp_path / "apps.yaml"
    cfg.write_text("scale: apps-tiny\ncharacterize: {enabled: false}\nstorage: {enabled: false}\ntiering: {enabled: false}\n"
                   "overcommit: {enabled: false}\nkv: {enabled: false}\n"
                   "apps: {gapbs-pr: {graph: 'kron:12', trials: 2}, silo: {scale_factor: 50, runtime_s: 1},\n"
                   "       contention: {warmup_s: 0.2, antagonist_buffer: 64M}, model: {enabled: false}}\n")
    host = tmp_path / "h.yaml"
    host.write_text("name: apps-host\ndetect: true\ntiers: []\n")
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(cfg), "--config",
                        f"host={host}", f"sources={src}"], cwd=workdir, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    df = load(workdir / "results/apps-host/apps/measurements.csv")
    summ = df[df["t_s"].isna()]
    avg = summ[summ["metric"] == "average_trial_time"]
    # 0x and 3x, and on a host with fewer than 3 antagonist CPUs 1x and 2x (a duty-cycled antagonist)
    levels = avg["intensity"].nunique()
    assert len(avg) == levels and levels in (2, 4) and (avg["value"] > 0).all() and set(avg["workload"]) == {"gapbs-pr"}
    assert (summ[summ["metric"] == "peak_rss"]["value"] > 1).all()
    assert len(df[df["metric"] == "trial_time"]) == 2 * levels
    thr = summ[(summ["workload"] == "silo") & (summ["metric"] == "throughput")]
    assert len(thr) == levels and (thr["value"] > 0).all()
    assert len(df[(df["workload"] == "silo") & df["t_s"].notna()]) >= 2, "a throughput report per second"
    assert (workdir / "results/apps-host/figures/app_contention.png").stat().st_size > 1000
    # its ready line reaches a file while it runs (a printf, flushed by the endl of the next line,
    # "Graph has ...", GAPBS src/graph.h PrintStats()): the measured phase's CPU share and an
    # attached daemon wait for it
    out = tmp_path / "pr.out"
    with out.open("w") as f:
        pr = subprocess.Popen([str(workdir / "build/bin/gapbs-pr"), "-f", str(workdir / "build/graphs/kron12-k16.sg"),
                               "-n", "1000000"], stdout=f, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while "Read Time:" not in out.read_text() and time.monotonic() < deadline:
            assert pr.poll() is None, "PageRank ended before its ready line reached the file"
            time.sleep(0.05)
        assert "Read Time:" in out.read_text() and pr.poll() is None
    finally:
        pr.kill()
        pr.wait()


def test_trace_filter_counts_memory_accesses_not_words():
    """Sixteen 4-byte loads of one line are one access; a line evicted and read again is two."""
    from families.apps import trace

    lines = ["I  04000000,3\n"] + [f" L {0x10000 + 4 * i:08x},4\n" for i in range(16)]  # one line, word by word
    lines += [f" L {0x10000 + 512 * 64:08x},8\n", " L 00010000,4\n"]  # a line mapping to the same slot, then back
    assert trace.page_misses(lines) == {0x10: 2, (0x10000 + 512 * 64) >> 12: 1}


def test_trace_two_level_knee_and_zipf():
    from families.apps import trace

    counts = {p: (100 if p < 5 else 1) for p in range(100)}  # 5 % of pages take 500 of 595 accesses
    assert trace.two_level(counts) == {"hot_fraction": 0.05, "hot_share": round(500 / 595, 4), "hot_pages": 5}
    zipf = {p: round(1e6 * (p + 1) ** -0.8) for p in range(2000)}
    assert trace.zipf_theta(zipf) == pytest.approx(0.8, abs=0.02)
    segs = trace.segments({1: 5, 2: 5, 10: 90})
    assert segs[0] == {"pages": 1, "page_share": round(1 / 3, 4), "access_share": 0.9}


def test_trace_of_real_pagerank_finds_the_vertex_arrays(tmp_path):
    """On a real (tiny) PageRank: a minority of the pages takes most accesses (models.yaml's trace
    is 16 times larger: 5.23 % of the pages, 91.8 % of the accesses)."""
    import shutil

    from families.apps import trace

    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed")
    pr, conv = REPO / "build/bin/gapbs-pr", REPO / "build/bin/gapbs-converter"
    if not (pr.exists() and conv.exists()):
        pytest.skip("GAPBS is not built here (the apps family builds it from its pinned archive)")
    g = tmp_path / "k12.sg"
    subprocess.run([str(conv), "-g", "12", "-k", "16", "-b", str(g)], check=True, capture_output=True)
    t = trace.trace([str(pr), "-f", str(g), "-n", "1"])
    hot = t["two_level"]  # at this size the program's own pages still weigh: a loose knee
    assert hot["hot_fraction"] < 0.35 and hot["hot_share"] > 0.8, t
    assert t["misses"] > 1e5 and t["segments"][0]["access_share"] > 0.3


def test_two_tier_host_runs_the_applications_under_each_system():
    """On a host with two NUMA tiers: each application bound to the alternate tier at start, the
    antagonist on the default tier, tierd attached once the application printed its ready line
    (the kernel's TPP without Colloid), a default-tier share of its footprint; no model points."""
    from test_profiles import two_socket_facts

    facts = two_socket_facts()
    facts["privileges"] = {"root": True}
    facts["memory_tiers"] = {"4": [0, 1, 2]}
    host = plan.Host(profile.resolve("icelake-2s", facts), facts)
    fp = apps.plan(profile.validate_config({"scale": "t", "apps": {"gapbs-pr": {"graph": "kron:20"}}}), host)
    assert {r["context"]["backend"] for r in fp.rows} == {"numa"} and {r["experiment"] for r in fp.rows} == {"steady_state"}
    by = {r["point"]: r for r in fp.rows}
    assert len(by) == 2 * 3 * 2 * 4 - 2 * 4, "kernel TPP left out: both nodes have CPUs"
    assert "both nodes have CPUs" in fp.absent["apps: kernel TPP"]
    roles = {x["name"]: x for x in by["numa-gapbs-pr-hemem-c1-i3"]["run"]["scenario"]["roles"]}
    assert roles["gapbs-pr"]["wrap"] == ["numactl", "--physcpubind=0-14", "--membind=1"] and roles["gapbs-pr"]["ready_line"]
    t = roles["tierd"]["argv"]
    assert t[t.index("--capacity") + 1] == "56M,auto", "a third of PageRank's 168 MiB"
    assert roles["antagonist"]["argv"][roles["antagonist"]["argv"].index("--mem-node") + 1] == "0"
    assert "numa-silo-tpp-c0-i1" not in by and "numa-silo-tpp-c1-i1" in by
    assert fp.figures == ["app_speedup"]
    # a CXL-like host (the alternate node, without CPUs, in a lower memory tier): still out, the
    # application is bound
    facts["memory_tiers"] = {"4": [0], "22": [1]}
    facts["nodes"]["1"]["cpus"] = []
    facts["cpu_nodes"] = [0]
    fp = apps.plan(profile.validate_config({"scale": "t", "apps": {"gapbs-pr": {"graph": "kron:20"}}}),
                   plan.Host(profile.resolve("icelake-2s", facts), facts))
    assert "numactl --membind" in fp.absent["apps: kernel TPP"]


def test_guest_batch_ships_what_the_guest_build_lacks():
    """In the QEMU guest: the applications and numactl (with their libraries) and the graph are
    shipped with the batch; GUPS, the antagonist and tierd are the guest's own static build."""
    from test_qemu_workflow import guest_host

    from workflows.harness import guestrun

    cfg = profile.validate_config(__import__("yaml").safe_load((REPO / "workflows/config/qemu.yaml").read_text()))
    rows = apps.plan(cfg, guest_host()).rows
    assert rows and {r["executor"] for r in rows} == {"guest"}
    files = guestrun.shipped(rows, {"antagonist", "gups", "memchar", "tbprobe", "tierd"})
    assert {"opt/tierbench/bin/gapbs-pr", "opt/tierbench/bin/silo-dbtest", "opt/tierbench/graphs/kron16-k16.sg"} <= set(files)
    assert any(k.endswith("bin/numactl") for k in files)
    assert not any(k.endswith(("/antagonist", "/tierd")) for k in files)
    from workflows.harness.scenario import render_batch

    text = render_batch([(f"/out/{plan.key(r)}", r["run"]["scenario"]) for r in rows])
    assert "/opt/tierbench/graphs/kron16-k16.sg" in text and "build/" not in text
    assert "wait_for_line" in text, "tierd waits for the application's ready line"
