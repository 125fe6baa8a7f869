"""The whole workflow on the QEMU NUMA guest (hosts/qemu-numa.yaml, a functional host).

The ``vm`` test runs ``snakemake --configfile workflows/config/qemu.yaml --config
host=qemu-numa`` into a scratch copy of results/: the profile is resolved against the
guest's facts, the real tiering family runs inside the guest in one boot, and the host
turns the guest's raw CSVs into measurements.csv and figures marked "functional host".
It skips with the reason when this machine cannot build or boot the guest.

The unmarked tests need no VM: the guest plan and the shell script it exports.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from workflows.harness import ConfigError, plans, profile
from workflows.harness.guestrun import guest_script

REPO = Path(__file__).resolve().parents[1]
VM_TIMEOUT_S = float(os.environ.get("TIERBENCH_VM_WORKFLOW_TIMEOUT", "600"))

# the guest's facts as hosts/qemu/guest.py's guest_facts() returns them (2 nodes, node 1 CPU-less)
GUEST_FACTS = {
    "hostname": "qemu-numa", "arch": "x86_64", "kernel": "6.1.0-test-amd64", "functional": True,
    "nodes": {"0": {"cpus": [0, 1], "memory_mib": 502}, "1": {"cpus": [], "memory_mib": 457}},
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


def test_guest_plan_runs_only_real_tiering():
    prof = profile.resolve("qemu-numa", GUEST_FACTS)
    plan = plans.build(_guest_config(), prof, GUEST_FACTS)
    assert plan["tiering"] == {} and plan["contention"] == {} and plan["storage"] is False
    assert plan["characterize"]["pairs"] == [] and "qemu guest" in plan["characterize"]["absent"]["characterize"]
    pts = plan["real_tiering"]
    assert {p["experiment"] for p in pts.values()} == {"steady_state", "hotset_move", "contention_change"}
    assert {p["context"]["colloid"] for p in pts.values()} == {"true", "false"}
    for p in pts.values():
        assert "--mem-node" in p["gups"] and p["gups"][p["gups"].index("--mem-node") + 1] == "0"  # start_tier: default
        if p["tierd"]:
            assert p["tierd"][p["tierd"].index("--observe") + 1] == "none"


def test_guest_plan_rejects_a_working_set_larger_than_the_guest():
    cfg = _guest_config()
    cfg["tiering"]["real"]["working_set"] = "72G"
    prof = profile.resolve("qemu-numa", GUEST_FACTS)
    with pytest.raises(ConfigError, match="does not fit node 0"):
        plans.build(cfg, prof, GUEST_FACTS)


def test_guest_script_is_valid_shell_with_guest_paths(tmp_path):
    prof = profile.resolve("qemu-numa", GUEST_FACTS)
    pts = plans.build(_guest_config(), prof, GUEST_FACTS)["real_tiering"]
    points = [{**p, "context": {**p["context"], "point": f"numa-{p['id']}"}} for p in pts.values()]
    text = guest_script(points, 1)
    assert "build/bin" not in text and '"$BIN/gups"' in text and '"$BIN/tierd"' in text
    assert "settings_set /proc/sys/kernel/numa_balancing 2" in text  # kernel TPP
    assert text.count("settings_restore") == len(points) and text.count("end_point \"$D\"") == len(points)
    script = tmp_path / "run.sh"
    script.write_text(text)
    for sh in ("sh", "bash", "busybox"):
        exe = shutil.which(sh)
        if exe:
            args = [exe, "sh", "-n", str(script)] if sh == "busybox" else [exe, "-n", str(script)]
            r = subprocess.run(args, capture_output=True, text=True)
            assert r.returncode == 0, f"{sh}: {r.stderr}"


@pytest.mark.vm
def test_workflow_in_qemu_guest(tmp_path):
    if platform.machine() != "x86_64" or sys.platform != "linux":
        pytest.skip("the QEMU guest is built from Debian amd64 packages (x86-64 Linux only)")
    if not shutil.which("apt-get"):
        pytest.skip("no apt-get: the guest is built from Debian packages")
    from workflows.harness import runner  # noqa: PLC0415

    r = profile.runner_of("qemu-numa")
    g = runner.launcher(r)
    try:
        g.build(install=os.geteuid() == 0)
    except g.GuestUnavailable as e:
        pytest.skip(f"QEMU guest unavailable on this machine: {e}")
    # a scratch copy of the tree's inputs would be slow; run in the repo with its own results dir
    results = REPO / "results" / "qemu-numa"
    backup = tmp_path / "previous-results"
    if results.exists():
        shutil.move(str(results), backup)
    try:
        cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "workflows/config/qemu.yaml",
               "--config", "host=qemu-numa"]
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=VM_TIMEOUT_S)
        log = results / "logs" / "guest_tiering_batch.log"
        assert p.returncode == 0, (p.stderr[-3000:] + "\n" + (log.read_text()[-3000:] if log.exists() else ""))
        df = pd.read_csv(results / "measurements.csv")
        t = df[df["family"] == "tiering"]
        assert not t.empty
        assert set(t["backend"]) == {"numa"} and set(t["host"]) == {"qemu-numa"}
        assert set(t["colloid"].astype(str).str.lower()) == {"true", "false"}
        assert {"steady_state", "hotset_move", "contention_change"} <= set(t["experiment"])
        thr = t[(t["metric"] == "throughput") & t["t_s"].isna()]
        assert (thr["value"] > 0).all() and len(thr) >= 8
        moved = t[(t["metric"] == "bytes_moved") & (t["tool"] == "tierd")]
        assert (moved["value"] > 0).any(), "tierd moved no pages in any point"
        assert (results / "figures" / "steady_state.png").stat().st_size > 0
        assert (results / "figures" / "dynamics.png").stat().st_size > 0
    finally:
        if backup.exists():
            shutil.rmtree(results, ignore_errors=True)
            shutil.move(str(backup), results)
