"""The whole workflow on the QEMU NUMA guest (hosts/qemu-numa.yaml, a functional host).

The ``vm`` test runs ``snakemake --configfile workflows/config/qemu.yaml --config
host=qemu-numa`` in a scratch copy of the repository: the profile is resolved against the
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
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import guest_facts_or_skip

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
    assert {r["experiment"] for r in ch.rows} == {"thread_share"}, "only thread_share of characterize in the guest"
    assert "only characterize/thread_share runs in it" in ch.absent["characterize:idle_latency"]
    assert ch.figures == ["thread_share"]
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


def test_guest_thread_share_pairs_node_0_with_node_1():
    """The guest's thread_share: both CPUs, the fast group on node 0, the slow one on the CPU-less node 1."""
    rows = characterize.plan(_guest_config(), guest_host()).rows
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


@pytest.mark.vm
def test_thread_share_in_qemu_guest(guest_points):
    """characterize/thread_share for real in the guest, through the workflow's own path (guestrun's
    batch, then each point parsed as its job would; conftest's guest_points: no boot of its own):
    the fast group's buffers on node 0, the slow
    group's on the CPU-less node 1 (memchar checks the placement of both with move_pages and fails
    if a page is elsewhere), a + b = total. TCG: the MB/s values mean nothing."""
    r, facts = guest_facts_or_skip()  # builds the guest (memchar from these sources, static), boots once per build
    host = plan.Host(profile.resolve("qemu-numa", facts), facts, r)
    rows = characterize.plan(_guest_config(), host).rows
    assert [x["point"] for x in rows] == ["c0-m0-m1/read"]
    frames = []
    for row in rows:
        out = guest_points(rows)[plan.key(row)]  # the workflow's run of it, or one shared guest batch
        frames.append(load(out / "result.csv"))
        meta = json.loads((out / "meta.json").read_text())
        assert meta["functional"] and meta["exit"] == {"memchar": 0}
    import pandas as pd  # noqa: PLC0415

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
