"""The whole workflow on the QEMU NUMA guest (hosts/qemu-numa.yaml, a functional host).

The ``vm`` test runs ``snakemake --configfile workflows/config/qemu.yaml --config
host=qemu-numa`` in a scratch copy of the repository, every point of qemu.yaml with shorter
measured phases (conftest's ``qemu_test_config``): the profile is resolved against the
guest's facts, the real tiering family and the applications (GAPBS and Silo, built here and
shipped into the guest) run inside the guest in one boot (the scenario executor's shell
backend), and the host parses each point's raw output into measurements.csv and figures marked
"functional host". The applications' pinned archives come from the sources directory beside the
checkout (or $TIERBENCH_SOURCES); without them the test skips. It skips with the reason when this
machine cannot build or boot the guest.

The unmarked tests need no VM: the guest plan and the shell script it exports.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import QEMU_TEST_CONFIG, guest_facts_or_skip, sources_dir

from analysis.frame import load
from families import characterize
from workflows.harness import ConfigError, plan, profile
from workflows.harness.scenario import render_batch

REPO = Path(__file__).resolve().parents[1]

# the guest's facts as hosts/qemu/guest.py's guest_facts() returns them (2 nodes, node 1 CPU-less,
# in a lower memory tier: the HMAT-derived abstract distance of a >= 6.12 kernel)
GUEST_FACTS = {
    "hostname": "qemu-numa", "arch": "x86_64", "kernel": "6.12.0-test-amd64", "functional": True,
    "nodes": {"0": {"cpus": [0, 1], "memory_mib": 502}, "1": {"cpus": [], "memory_mib": 457}},
    "memory_tiers": {"4": [0], "22": [1]},
    "memory_nodes": [0, 1], "cpu_nodes": [0], "online_cpus": [0, 1], "allowed_cpus": [0, 1],
    "settings": {"numa_balancing": "1", "demotion_enabled": "false", "thp_enabled": "always"},
    "privileges": {"euid": 0, "root": True}, "tools": {},
    "runner": {"kind": "qemu", "launcher": "hosts/qemu/guest.py"},
}


def _guest_config() -> dict:
    cfg = yaml.safe_load((REPO / "workflows/config/qemu.yaml").read_text())
    return profile.validate_config(cfg)


def test_qemu_profile_names_its_runner():
    r = profile.runner_of("qemu-numa")
    assert r["kind"] == "qemu"
    assert Path(r["launcher"]).name == "guest.py" and Path(r["config"]).name == "qemu.yaml"
    assert profile.runner_of("paper-testbed") is None


def guest_host() -> plan.Host:
    return plan.Host(profile.resolve("qemu-numa", GUEST_FACTS), GUEST_FACTS, profile.runner_of("qemu-numa"))


def role(row, name):
    return next((r for r in row["run"]["scenario"]["roles"] if r["name"] == name), None)


def test_guest_plan_runs_real_tiering_and_thread_share():
    pl = plan.build(_guest_config(), guest_host())
    assert pl.rows("storage") == []
    ch = pl.families["characterize"]
    assert {r["experiment"] for r in ch.rows} == {"idle_latency", "loaded_latency", "thread_share"}
    assert "only characterize/idle_latency, loaded_latency, thread_share run in it" in ch.absent["characterize:bandwidth"]
    assert {"characterize:object_latency", "characterize:mlc"} <= ch.absent.keys()
    assert "characterize:idle_latency" not in ch.absent
    assert set(ch.figures) == {"latency_matrix", "latency_cdf", "bandwidth_latency", "latency_tail", "thread_share"}
    assert ch.outputs == ["results/qemu-numa/curves"], "the loaded points' curves and tail files"
    pts = pl.rows("tiering")
    assert {p["executor"] for p in pts} == {"guest"}
    assert {p["experiment"] for p in pts} == {"steady_state", "hotset_move", "contention_change"}
    assert {p["context"]["colloid"] for p in pts} == {True, False}
    for p in pts:
        g = role(p, "gups")["argv"]
        assert g[g.index("--mem-node") + 1] == "0"  # start_tier: default
        t = role(p, "tierd")
        if t:
            assert t["argv"][t["argv"].index("--observe") + 1] == "none"


def test_guest_latency_points_per_tier():
    """The guest's latency distributions: idle and loaded, node 0's CPUs against each tier (node 0 and
    the CPU-less node 1); loaded with the second CPU as the injector, at no load and at full load."""
    rows = [r for r in characterize.plan(_guest_config(), guest_host()).rows if r["experiment"] != "thread_share"]
    assert sorted((r["experiment"], r["point"]) for r in rows) == [
        ("idle_latency", "c0-m0"), ("idle_latency", "c0-m1"), ("loaded_latency", "c0-m0/read"), ("loaded_latency", "c0-m1/read")]
    for r in rows:
        a = r["run"]["scenario"]["roles"][0]["argv"]
        opt = {f: a[a.index(f) + 1] for f in a if f.startswith("--") and a.index(f) + 1 < len(a)}
        assert opt["--cpus"] == "0,1" and opt["--mem-node"] == str(r["context"]["mem_node"]) and r["executor"] == "guest"
        assert int(opt["--buffer-mib"]) <= 32, "guest-sized buffers (512 MiB per node)"
        if r["experiment"] == "loaded_latency":
            assert a[1] == "loaded" and opt["--injectors"] == "1" and opt["--delays"] == "0,1600"
        else:
            assert a[1] == "latency"
    assert {r["context"]["mem_node"] for r in rows} == {0, 1}


def test_guest_thread_share_pairs_node_0_with_node_1():
    """The guest's thread_share: both CPUs, the fast group on node 0, the slow one on the CPU-less node 1."""
    rows = [r for r in characterize.plan(_guest_config(), guest_host()).rows if r["experiment"] == "thread_share"]
    assert [r["point"] for r in rows] == ["c0-m0-m1/read"]
    r = rows[0]
    a = r["run"]["scenario"]["roles"][0]["argv"]
    assert a[:2] == ["build/bin/memchar", "share"] and r["executor"] == "guest"
    assert {f: a[a.index(f) + 1] for f in ("--cpus", "--mem-node", "--mem-node-b", "--threads", "--shares")} == {
        "--cpus": "0,1", "--mem-node": "0", "--mem-node-b": "1", "--threads": "2", "--shares": "0,0.5,1"}
    assert r["context"]["target"] == "node:0+node:1"
    text = render_batch([(f"/out/{plan.key(r)}", r["run"]["scenario"])])
    assert '"$BIN/memchar" share --cpus 0,1 --mem-node 0 --mem-node-b 1' in text


def test_guest_plan_rejects_a_working_set_larger_than_the_guest():
    cfg = _guest_config()
    cfg["tiering"]["real"]["working_set"] = "72G"
    with pytest.raises(ConfigError, match="does not fit node 0"):
        plan.build(cfg, guest_host())


def test_guest_script_is_valid_shell_with_guest_paths(tmp_path):
    rows = plan.build(_guest_config(), guest_host()).rows("tiering")
    text = render_batch([(f"/out/{plan.key(r)}", r["run"]["scenario"]) for r in rows])
    assert " build/bin" not in text and '"$BIN/gups"' in text and '"$BIN/tierd"' in text
    assert "settings_set /proc/sys/kernel/numa_balancing 2" in text  # kernel TPP
    assert 'cat /proc/vmstat >"$D/vmstat_before.txt"' in text and "--unbind-after-touch" in text
    assert text.count("settings_restore") == len(rows) and text.count('>"$D/status"') == len(rows)
    assert '--pid "$(cat /tmp/tb/gups.pid)"' in text, "tierd attaches to GUPS's pid"
    script = tmp_path / "run.sh"
    script.write_text(text)
    for sh in ("sh", "bash", "busybox"):
        exe = shutil.which(sh)
        if exe:
            args = [exe, "sh", "-n", str(script)] if sh == "busybox" else [exe, "-n", str(script)]
            r = subprocess.run(args, capture_output=True, text=True)
            assert r.returncode == 0, f"{sh}: {r.stderr}"


@pytest.mark.vm
def test_workflow_in_qemu_guest(qemu_workflow):
    """(The run is conftest's session fixture: the guest-point tests read their points from it.)"""
    if qemu_workflow.skip:
        pytest.skip(qemu_workflow.skip)
    p, results = qemu_workflow.proc, qemu_workflow.results
    log = results / "logs" / "guest_batch.log"
    assert p.returncode == 0, (p.stderr[-3000:] + "\n" + (log.read_text()[-3000:] if log.exists() else ""))
    df = load(results / "measurements.csv")
    t = df[df["family"] == "tiering"]
    assert not t.empty
    assert set(t["backend"]) == {"numa"} and set(t["host"]) == {"qemu-numa"}
    assert set(t["colloid"]) == {True, False}
    assert {"steady_state", "hotset_move", "contention_change"} <= set(t["experiment"])
    thr = t[(t["metric"] == "throughput") & t["t_s"].isna()]
    assert (thr["value"] > 0).all() and len(thr) >= 8
    moved = t[(t["metric"] == "bytes_moved") & (t["tool"] == "tierd")]
    assert (moved["value"] > 0).any(), "tierd moved no pages in any point"
    meta = json.loads(next(results.glob("tiering/contention_change/numa-*-c1-*/rep0/meta.json")).read_text())
    assert meta["functional"] and meta["exit"]["gups"] == 0 and meta["started_after_s"] == {"antagonist": 3.0}
    assert (results / "figures" / "steady_state.png").stat().st_size > 0
    assert (results / "figures" / "dynamics.png").stat().st_size > 0
    # the applications, shipped into the guest and run under the same systems
    a = df[df["family"] == "apps"]
    assert set(a["backend"]) == {"numa"} and set(a["workload"]) == {"gapbs-pr", "silo"}
    s = a[a["t_s"].isna()]
    # hemem and tpp, each with and without Colloid, at 2 intensities, less kernel TPP (tpp without
    # Colloid): an application bound with numactl --membind is never scanned by NUMA balancing, so
    # the apps family leaves the kernel mechanism out (families/apps/real.py, APP_BOUND)
    assert (s[s["metric"] == "average_trial_time"]["value"] > 0).sum() == 6
    assert (s[(s["metric"] == "throughput") & (s["workload"] == "silo")]["value"] > 0).sum() == 6
    assert not a["point"].str.contains("tpp-c0").any()
    moved = a[(a["metric"] == "bytes_moved") & (a["tool"] == "tierd")]
    assert (moved["value"] > 0).any(), "tierd moved no application pages in any point"
    assert (results / "figures" / "app_speedup.png").stat().st_size > 0
    # characterize: the latency distribution of each tier, idle and at each load, and its tail file
    c = df[df["family"] == "characterize"]
    for metric in ("idle_latency_quantile", "loaded_latency_quantile"):
        q = c[c["metric"] == metric]
        assert set(q["mem_node"]) == {0, 1} and (q["value"] > 0).all(), metric
    for pair in ("c0-m0", "c0-m1"):
        tail = pd.read_csv(results / "curves" / f"{pair}.tail.csv")
        assert sorted(tail["delay"].unique()) == [0, 1600] and set(tail["quantile"]) >= {0.5, 0.99, 0.999, 1.0}, pair
    for fig in ("latency_cdf", "latency_tail"):
        assert (results / "figures" / f"{fig}.png").stat().st_size > 0


@pytest.mark.vm
def test_a_deleted_guest_batch_boots_the_guest_again(qemu_workflow):
    """Snakemake alone would say "Nothing to be done" (the points collected from the batch are newer
    than everything there): the workflow asks for a missing batch by name (common.smk, host_targets)."""
    if qemu_workflow.skip:
        pytest.skip(qemu_workflow.skip)
    if qemu_workflow.proc.returncode:
        pytest.skip("the guest's run failed (test_workflow_in_qemu_guest says how)")
    results = qemu_workflow.results
    batch = results / "guest" / "batch"
    kept = batch.with_name("batch.kept")
    cmd = [sys.executable, "-m", "snakemake", "-n", "--cores", "2", "--configfile", QEMU_TEST_CONFIG,
           "--config", "host=qemu-numa", f"sources={sources_dir()}"]
    batch.rename(kept)
    try:
        r = subprocess.run(cmd, cwd=results.parents[1], capture_output=True, text=True, timeout=300)
    finally:
        kept.rename(batch)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "rule guest_batch:" in r.stdout, r.stdout[-3000:]
    planned = set(re.findall(r"^\s+output: (\S+/result\.csv)", r.stdout, re.M))
    guest = {str(p.relative_to(results.parents[1])) for p in results.glob("tiering/*/*/rep*/result.csv")}
    assert guest and guest <= planned, sorted(guest - planned)[:5]


@pytest.mark.vm
def test_two_tier_fidelity_hooks_read_the_guests_rows(qemu_workflow):
    """The two-tier fidelity hooks on the guest's real tiering and apps runs (the guest is a
    functional host, so the workflow scores none of them: fidelity.skipped), here beside a two-tier
    model of the paper's curves: every run gets its rows, none is dropped, and every apps run has
    the ratio its references allow, predicted. The guest's runs start in the default tier
    (qemu.yaml: start_tier: default), so no prediction starts in the alternate one."""
    if qemu_workflow.skip:
        pytest.skip(qemu_workflow.skip)
    from families.apps import fidelity as apps_fidelity  # noqa: PLC0415
    from families.tiering import fidelity as tiering_fidelity  # noqa: PLC0415
    from workflows.harness import fidelity  # noqa: PLC0415

    results = qemu_workflow.results
    assert (results / "fidelity.skipped").exists()
    df = fidelity.measurements(results, sorted(results.glob("*/measurements.csv")))
    curves = REPO / "hosts" / "curves"
    model = fidelity.Model({"default": {"curve": str(curves / "paper-default.csv"), "capacity_gib": 0.5},
                            "alternate": {"curve": str(curves / "paper-alternate-135.csv"), "capacity_gib": 0.5}},
                           host_dir=results)
    t = pd.DataFrame(tiering_fidelity.two_tier_rows(df, model))
    ran = df[(df["family"] == "tiering") & (df["experiment"] != "contention_single_node")]
    assert set(t["point"]) == set(ran["point"]) and (t["role"] == "validation").any()
    a = pd.DataFrame(apps_fidelity.two_tier_rows(df, model))
    real = df[(df["family"] == "apps") & (df["experiment"] == "steady_state")]
    assert set(a["point"]) == set(real["point"])
    v = a[a["role"] == "validation"]
    # per application: hemem c0/c1 and tpp c1, at 0x and 1x: 3 slowdowns, and Colloid's speed-up at 0x and 1x
    for app in ("gapbs-pr", "silo"):
        w = v[v["workload"] == app]
        assert sorted(w["metric"]) == ["colloid_speedup"] * 2 + ["slowdown_vs_0x"] * 3, w[["point", "metric"]]
        assert (w["predicted"] > 0).all() and (w["measured"] > 0).all()
    assert not any("--start-tier" in argv for argv in model._cache), "a run bound to the default node started elsewhere"


@pytest.mark.vm
def test_thread_share_in_qemu_guest(guest_points):
    """characterize/thread_share for real in the guest, through the workflow's own path (guestrun's
    batch, then each point parsed as its job would; conftest's guest_points: no boot of its own):
    the fast group's buffers on node 0, the slow
    group's on the CPU-less node 1 (memchar checks the placement of both with move_pages and fails
    if a page is elsewhere), a + b = total. TCG: the MB/s values mean nothing."""
    r, facts = guest_facts_or_skip()  # builds the guest (memchar from these sources, static), boots once per build
    host = plan.Host(profile.resolve("qemu-numa", facts), facts, r)
    rows = [x for x in characterize.plan(_guest_config(), host).rows if x["experiment"] == "thread_share"]
    assert [x["point"] for x in rows] == ["c0-m0-m1/read"]
    frames = []
    for row in rows:
        out = guest_points(rows)[plan.key(row)]  # the workflow's run of it, or one shared guest batch
        frames.append(load(out / "result.csv"))
        meta = json.loads((out / "meta.json").read_text())
        assert meta["functional"] and meta["exit"] == {"memchar": 0}
    df = pd.concat(frames, ignore_index=True)
    print(df[["metric", "share", "threads", "cpus", "mem_node", "target", "value", "huge_pages"]].to_string())
    assert sorted(df["share"].unique()) == [0.0, 0.5, 1.0] and (df["value"] > 0).all()
    a, b = df[df["metric"] == "bandwidth_a"], df[df["metric"] == "bandwidth_b"]
    assert set(a["mem_node"]) == {0} and set(a["target"]) == {"node:0"} and sorted(a["share"]) == [0.0, 0.5]
    assert set(b["mem_node"]) == {1} and set(b["target"]) == {"node:1"} and sorted(b["share"]) == [0.5, 1.0]
    t = df[df["metric"] == "bandwidth_total"].set_index("share")["value"]
    assert set(df[df["metric"] == "bandwidth_total"]["target"]) == {"node:0+node:1"}
    mid = a[a["share"] == 0.5]["value"].iloc[0] + b[b["share"] == 0.5]["value"].iloc[0]
    assert abs(mid - t[0.5]) < 0.01 * t[0.5]


QUANTILES = [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0]


@pytest.mark.vm
def test_latency_tails_in_qemu_guest(guest_points, tmp_path):
    """characterize's latency distributions for real in the guest (conftest's guest_points: the
    workflow's run or one shared guest batch): per tier (node 0, and the CPU-less node 1, whose
    placement memchar checks with move_pages), idle and at each load, 12 non-decreasing quantiles;
    the tail file beside each tier's curve; both tail figures draw one panel per tier. Functional
    only: what the numbers are says nothing (TCG)."""
    from families.characterize import curves  # noqa: PLC0415
    from families.characterize.figures import latency_cdf, latency_tail  # noqa: PLC0415

    r, facts = guest_facts_or_skip()
    host = plan.Host(profile.resolve("qemu-numa", facts), facts, r)
    rows = [x for x in characterize.plan(_guest_config(), host).rows if x["experiment"] != "thread_share"]
    dirs = guest_points(rows)
    frames, loaded = [], []
    for row in rows:
        out = dirs[plan.key(row)]
        meta = json.loads((out / "meta.json").read_text())
        assert meta["functional"] and meta["exit"] == {"memchar": 0}, plan.key(row)
        frames.append(load(out / "result.csv"))
        if row["experiment"] == "loaded_latency":
            loaded.append(out / "result.csv")
    df = pd.concat(frames, ignore_index=True)
    q = df[df["metric"].str.endswith("_quantile") & df["quantile"].isin([0.5, 0.99, 0.999, 1.0])]
    print(q.assign(delay=q["delay"].fillna(-1))  # idle: delay -1 here; what the guest gave (TCG: behaviour, not speed)
          .pivot_table(index=["metric", "mem_node", "delay"], columns="quantile", values="value").to_string())
    for metric, per in (("idle_latency_quantile", 1), ("loaded_latency_quantile", 2)):
        for node in (0, 1):
            q = df[(df["metric"] == metric) & (df["mem_node"] == node)]
            keys = ["delay"] if per > 1 else []
            groups = list(q.groupby(keys)) if keys else [(None, q)]
            assert len(groups) == per, (metric, node)
            for _, g in groups:
                assert list(g["quantile"]) == QUANTILES and g["value"].is_monotonic_increasing, (metric, node)
                assert (g["value"] > 0).all()
    counts = df[df["metric"].str.endswith("_groups")]
    assert (counts["value"] > 0).all() and set(counts["mem_node"]) == {0, 1}
    assert curves.main(["--out", str(tmp_path / "curves"), *map(str, loaded)]) == 0
    for pair in ("c0-m0", "c0-m1"):
        tail = pd.read_csv(tmp_path / "curves" / f"{pair}.tail.csv")
        assert len(tail) == 2 * len(QUANTILES) and sorted(tail["delay"].unique()) == [0, 1600], pair
    for mod in (latency_cdf, latency_tail):
        fig = mod.plot(df)
        assert sorted(ax.get_title() for ax in fig.axes if ax.get_title()) == ["cpu 0 \u2192 mem 0", "cpu 0 \u2192 mem 1"]
