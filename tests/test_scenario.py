"""The scenario executor: one op list, run here (Supervisor) and rendered as shell for a guest host.

Runs on this machine's node 0 with tiny sizes: a point's rows and meta; SIGINT midway leaves no
antagonist, GUPS or collector behind and every changed setting restored; and the shell rendering
of the same scenario, run here with lib.sh (which also runs under dash/bash), gives the same rows.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, alive, binary, started_by

from analysis.frame import load
from antagonists import workload as antagonist
from families.tiering import real
from workflows.harness import ConfigError, hostdetect, plan, profile, scenario
from workloads.gups import workload as gups
from workloads.memchar import workload as memchar


def local() -> tuple[dict, dict, int, list[int], list[int]]:
    facts = hostdetect.detect()
    prof = profile.resolve("auto", facts)
    app, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"] or prof["cpus"]["app"]
    return facts, prof, prof["tiers"][0]["node"], app, ant


def contention_scenario(duration: float, knob: Path | None = None, start_after_s: float | None = None) -> dict:
    for b in ("gups", "antagonist", "memchar"):
        binary(b)
    _, _, node, app, ant = local()
    w = gups.role(gups.argv(cpus=app[:1], node=node, working_set="64M", hot_set="16M", hot_share=0.9, object_bytes=64,
                            op="rmw", duration_s=duration, seed=1))
    bg = antagonist.role(antagonist.argv(cpus=ant[:1], node=node, buffer="64M"))
    probe = memchar.role(memchar.argv("latency", ["--cpus", str(app[0]), "--mem-node", str(node)], buffer_mib=32,
                                      duration=0.2), name="latency", probe_metric="latency_default")
    return scenario.scenario(w, background=[bg], probes=[probe], settings={str(knob): "2"} if knob else {},
                             warmup_s=0.2, timeout_s=300,
                             start_after_s={"antagonist": start_after_s} if start_after_s is not None else None)


def row_for(sc: dict) -> dict:
    facts, prof, *_ = local()
    config = profile.validate_config({"scale": "t"})
    host = plan.Host(prof, facts)
    run = plan.measured(config, host, sc, parse={"average_last_s": 2})
    return plan.point("tiering", "contention_single_node", "t", executor="host", run=run, tools=scenario.tools(sc),
                      context={"host": "t", "backend": "numa", "intensity": 3}, columns=["threads"])


def point_cmd(outdir: Path, results: Path, facts: Path) -> list[str]:
    return [sys.executable, "-m", "workflows.harness.point", "--outdir", str(outdir), "--results", str(results),
            "--facts", str(facts), "-"]


def facts_file(tmp_path: Path) -> Path:
    f = tmp_path / "facts.json"
    f.write_text(json.dumps(hostdetect.detect()))
    return f


def test_ops_are_one_sequence():
    w = scenario.role("w", ["w"], parse="m:f", pid_file="w.pid", ready_file="w.ready")
    early = scenario.role("bg", ["bg"], parse="m:f", ready_file="bg.ready")
    late = scenario.role("late", ["late"], parse="m:f")
    att = scenario.role("at", ["at"], parse="m:f", target_pid="--pid")
    pr = scenario.role("pr", ["pr"], parse="m:f", stdout="pr.csv")
    sc = scenario.scenario(w, background=[early, late], attach=[att], probes=[pr], settings={"numa_balancing": "0"},
                           warmup_s=2, start_after_s={"late": 5}, timeout_s=60)
    assert scenario.ops(sc) == [
        ("set", "numa_balancing", "0"),
        ("spawn", "bg"), ("ready", "bg", 120), ("sleep", 2.0),
        ("spawn", "w"), ("pid", "w", 300), ("spawn", "at"),
        ("ready", "w", 600), ("sleep", 5.0), ("alive", "w"), ("spawn", "late"), ("ready", "late", 120),
        ("wait", "w", 60.0), ("stop", "at", True), ("run", "pr", 600),
        ("alive", "bg"), ("stop", "bg", False), ("alive", "late"), ("stop", "late", False),
    ]
    for name in ("nobody", "w"):  # only a background role starts late
        with pytest.raises(ValueError, match="start_after_s names no background role"):
            scenario.scenario(w, start_after_s={name: 1})


def test_point_writes_rows_and_meta(tmp_path):
    row = row_for(contention_scenario(2))
    out = tmp_path / "point"
    r = subprocess.run(point_cmd(out, tmp_path, facts_file(tmp_path)), input=json.dumps(row), text=True,
                       capture_output=True, cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    df = load(out / "result.csv")
    series = df[df["t_s"].notna() & (df["metric"] == "throughput")]
    assert len(series) >= 2 and (series["value"] > 0).all()
    summ = df[df["t_s"].isna()].set_index("metric")["value"]
    assert summ["throughput"] > 0 and summ["antagonist_bandwidth"] > 0 and summ["latency_default"] > 5
    assert set(df["rep"]) == {0} and set(df["host"]) == {"t"}
    meta = json.loads((out / "meta.json").read_text())
    assert meta["counters"]["perf_uncore"]["available"] in (True, False)
    assert set(meta["argv"]) == {"gups", "antagonist", "latency"} and meta["binaries"]["gups"]
    assert meta["exit"]["gups"] == 0 and meta["exit"]["latency"] == 0
    steal = meta["cpu_steal"]  # every CPU's, over GUPS's run: a share of it
    assert steal["during"] == "gups" and set(steal["share"]) == {str(c) for c in scenario.cpu_times()}
    assert all(0 <= v <= 1 for v in steal["share"].values())


def test_steal_shares_from_proc_stat(tmp_path):
    """cpu_times() reads each CPU's total and steal ticks (the aggregate line left out); the share is
    the steal's part of the time between two readings; a file without a steal column gives none."""
    def stat(c0, c1):
        return (f"cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 {' '.join(map(str, c0))}\ncpu1 {' '.join(map(str, c1))}\n"
                "intr 1 2 3\n")
    p = tmp_path / "stat"
    p.write_text(stat([10, 0, 5, 80, 0, 0, 0, 5, 3, 0], [10, 0, 5, 85, 0, 0, 0, 0, 0, 0]))
    before = scenario.cpu_times(p)
    assert before == {0: (100, 5), 1: (100, 0)}  # guest (3) is in user already
    p.write_text(stat([60, 0, 5, 100, 0, 0, 0, 35, 0, 0], [110, 0, 5, 85, 0, 0, 0, 0, 0, 0]))
    assert scenario.steal_shares(before, scenario.cpu_times(p)) == {0: 0.3, 1: 0.0}
    p.write_text("cpu0 1 2 3 4\n")
    assert scenario.cpu_times(p) == {} and scenario.cpu_times(tmp_path / "none") == {}


def start_point(tmp_path: Path, row: dict, out: Path) -> subprocess.Popen:
    """The point's runner, started; returns once GUPS runs (its ready file)."""
    p = subprocess.Popen(point_cmd(out, tmp_path, facts_file(tmp_path)), stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=REPO)
    p.stdin.write(json.dumps(row))
    p.stdin.close()
    deadline = time.monotonic() + 120
    try:
        while not (out / "gups.ready").exists():
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() < deadline, "GUPS never started"
            time.sleep(0.05)
    except BaseException:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        raise
    return p


def test_sigint_midway_stops_everything_and_restores_settings(tmp_path):
    knob = tmp_path / "numa_balancing"
    knob.write_text("0\n")
    out = tmp_path / "point"
    p = start_point(tmp_path, row_for(contention_scenario(60, knob)), out)
    try:
        assert knob.read_text() == "2", "the setting was applied during the run"
        started = started_by(p.pid)
        assert len(started) >= 2, "antagonist and GUPS were running"
    finally:
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
    assert rc == 128 + signal.SIGINT
    time.sleep(0.3)
    left = {pid for pid in started if alive(pid)}
    assert not left, f"left behind: {left}"
    assert knob.read_text().strip() == "0", "setting restored"
    assert not (tmp_path / ".settings-journal.json").exists()
    assert not (out / "result.csv").exists(), "no half-written result"


@pytest.mark.parametrize("next_host", ["same", "other"])
def test_a_killed_run_is_repaired_by_the_next_point(tmp_path, next_host):
    """SIGKILL cannot be caught: the setting stays changed and the journal keeps its original
    value; the next measured point puts it back, under the lock, before it saves anything: one of
    the same host profile, or of another (its own results directory; the killed run's journal is
    in this machine's list)."""
    knob = tmp_path / "numa_balancing"
    knob.write_text("0\n")
    p = start_point(tmp_path, row_for(contention_scenario(60, knob)), tmp_path / "killed")
    started = started_by(p.pid)
    p.kill()
    p.wait(timeout=30)
    time.sleep(0.5)
    assert not {pid for pid in started if alive(pid)}, "children die with the runner (PDEATHSIG)"
    journal = tmp_path / ".settings-journal.json"
    assert knob.read_text().strip() == "2" and json.loads(journal.read_text()) == {str(knob): "0"}
    out = tmp_path / "next"
    results = tmp_path if next_host == "same" else tmp_path / "other-host"
    results.mkdir(exist_ok=True)
    r = subprocess.run(point_cmd(out, results, facts_file(tmp_path)), input=json.dumps(row_for(contention_scenario(1, knob))),
                       text=True, capture_output=True, cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    assert knob.read_text().strip() == "0" and not journal.exists(), "the original value is back, for good"
    meta = json.loads((out / "meta.json").read_text())
    assert meta["settings_repaired"] == {str(knob) if next_host == "same" else f"{knob} ({journal.resolve()})": "0"}
    assert meta["settings_set"] == {str(knob): "2"} and meta["settings_original"] == {str(knob): "0"}


def test_late_background_needs_the_workload_still_running(tmp_path):
    """A contention change whose antagonist would start after GUPS ended is a failed point, not a
    point with an antagonist that ran alone."""
    out = tmp_path / "point"
    r = subprocess.run(point_cmd(out, tmp_path, facts_file(tmp_path)), input=json.dumps(row_for(contention_scenario(1, None, 3))),
                       text=True, capture_output=True, cwd=REPO, timeout=300)
    assert r.returncode == 1 and "gups was no longer running" in r.stderr, r.stderr
    assert not (out / "result.csv").exists() and not (out / "antagonist.csv").exists()


@pytest.mark.skipif(not shutil.which("sh"), reason="no sh")
def test_shell_rendering_runs_the_same_scenario_here(tmp_path):
    """The guest's backend, run on this host: same files, same rows as the host backend, the setting
    restored, a status file saying ok."""
    knob = tmp_path / "knob"
    knob.write_text("0\n")
    sc = contention_scenario(2, knob)
    out = tmp_path / "guest-out"
    text = scenario.render_batch([(str(out), sc)], bin_dir=str(REPO / "build/bin"),
                                 lib=str(REPO / "hosts/qemu/guest/lib.sh"), ctl_dir=str(tmp_path / "ctl"))
    assert " build/bin/" not in text and "\"$BIN/gups\"" in text
    (tmp_path / "run.sh").write_text(text)
    env = {**os.environ, "SETTINGS_JOURNAL": str(tmp_path / "journal.json"), "_SETTINGS_SAVED": str(tmp_path / "saved.tsv")}
    r = subprocess.run(["sh", str(tmp_path / "run.sh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    st = scenario.read_status(out / "status")
    assert st["status"] == "ok" and st["exit_gups"] == "0" and st["exit_latency"] == "0", st
    assert knob.read_text().strip() == "0" and not (tmp_path / "journal.json").exists()
    rows = scenario.parse_rows(sc, out, {"average_last_s": 2})
    metrics = {(r["metric"], r.get("t_s", "") == "") for r in rows}
    assert {("throughput", True), ("throughput", False), ("antagonist_bandwidth", True), ("latency_default", True)} <= metrics


def test_intensity_needing_more_cores_is_rejected(tmp_path):
    facts = hostdetect.detect()
    p = tmp_path / "five.yaml"
    p.write_text("name: five\ndetect: true\ntiers: []\ncpus: {cores_per_unit: 5}\n")
    prof = profile.resolve(str(p), facts)
    cfg = profile.validate_config({"scale": "t", "tiering": {"contention": {"intensities": [0, 3]}}})
    if len(prof["tiers"]) != 1:
        pytest.skip("single-node experiment; this host has several memory nodes")
    with pytest.raises(ConfigError, match=r"intensity 3 needs 15 antagonist cores .* grants"):
        real.contention_points(cfg, plan.Host(prof, facts))


def test_auto_cores_per_unit_scales_to_granted_cpus():
    facts = hostdetect.detect()
    prof = profile.resolve("auto", facts)
    assert prof["cpus"]["cores_per_unit"] == "auto"
    n = len(prof["cpus"]["antagonist"])
    assert plan.antagonist_threads(prof, 3) == n and plan.antagonist_threads(prof, 0) == 0


def test_a_mount_a_role_makes_is_journaled_before_any_role_starts():
    """``mounts``: journaled (a mount guard) before the first spawn, so a role killed after its
    mount is unmounted however the point ends; the guest's lib.sh has no such guard, so a guest
    scenario with one is refused at rendering, not run without it."""
    w = scenario.role("w", ["w"], parse="m:f")
    t = scenario.role("t", ["mount-it"], parse="m:f", ready_file="t.ready")
    sc = scenario.scenario(w, background=[t], mounts=["results/h/kv-tmpfs"])
    ops = scenario.ops(sc)
    assert ops.index(("mount_guard", "results/h/kv-tmpfs")) < ops.index(("spawn", "t"))
    assert "mounts" not in scenario.scenario(w)
    with pytest.raises(ValueError, match="runs on a host: the guest's lib.sh journals no mounts"):
        scenario.render_sh(sc, "/out/p")


def test_directories_a_role_makes_are_journaled_before_any_role_starts(tmp_path):
    """``dirs``: each journaled (a directory guard, with its server's pid file) before the first
    spawn, in order (restored in reverse: the server ended before its directory is removed); a
    directory that is there already fails the point before any role starts; the guest's lib.sh
    has no such guard, so a guest scenario with one is refused at rendering, not run without it."""
    from workflows.harness.settings import Settings  # noqa: PLC0415

    w = scenario.role("w", ["w"], parse="m:f")
    tmp = tmp_path.resolve()
    dirs = [{"path": str(tmp / "sock")}, {"path": str(tmp / "data"), "pid_file": "postmaster.pid", "signal": "QUIT"}]
    sc = scenario.scenario(w, cgroup="w-R1", dirs=dirs)
    ops = scenario.ops(sc)
    guards = [("dir_guard", str(tmp / "sock"), "", "TERM"), ("dir_guard", str(tmp / "data"), "postmaster.pid", "QUIT")]
    assert ops.index(("cgroup", "w-R1")) < ops.index(guards[0]) < ops.index(guards[1]) < ops.index(("spawn", "w"))
    assert "dirs" not in scenario.scenario(w)
    with pytest.raises(ValueError, match="runs on a host: the guest's lib.sh journals no such directories"):
        scenario.render_sh(sc, "/out/p")
    journal = tmp / "journal.json"
    hr = scenario.HostRun(scenario.scenario(w, dirs=dirs), tmp / "pt", None, Settings(journal))
    for op in scenario.ops(hr.sc)[:2]:
        getattr(hr, "op_" + op[0])(*op[1:])
    assert list(json.loads(journal.read_text())) == [f"tree:{tmp / 'sock'}", f"tree:{tmp / 'data'}",
                                                     f"server:QUIT:{tmp / 'data' / 'postmaster.pid'}"]
    (tmp / "sock").mkdir()
    with pytest.raises(ConfigError, match="is there before the point made it"):
        scenario.HostRun(hr.sc, tmp / "pt", None, Settings()).op_dir_guard(str(tmp / "sock"), "", "TERM")


def test_resources_come_first_and_are_journaled_like_settings(tmp_path):
    """A scenario's swap area and memory cgroup are operations after its settings and before any
    role; the host backend journals each before it makes it (one journal with the settings) and
    undoes them in reverse order."""
    from workflows.harness.settings import Settings  # noqa: PLC0415

    w = scenario.role("w", ["w"], parse="m:f")
    sc = scenario.scenario(w, settings={"numa_balancing": "0"}, swap={"target": "/x/t.swap", "size_mib": 64},
                           cgroup="w-R2")
    assert scenario.ops(sc)[:3] == [("set", "numa_balancing", "0"), ("swapon", "/x/t.swap", 64), ("cgroup", "w-R2")]
    dev = scenario.scenario(w, swap={"target": "/dev/sdz9", "size_mib": None})
    assert scenario.ops(dev)[0] == ("swapon", "/dev/sdz9", 0)
    sh = scenario.render_sh(sc, "/out/p")
    assert "resource_swapon /x/t.swap 64" in sh and "resource_cgroup w-R2" in sh
    assert sh.index("resource_cgroup") < sh.index("settings_restore")
    # a journal a killed run left: the next restore undoes what it records, newest first
    made = tmp_path / "swapdir"
    made.mkdir()
    (made / "t.swap").write_text("")
    journal = tmp_path / "journal.json"
    journal.write_text(json.dumps({f"dir:{made}": "absent", f"swapfile:{made / 't.swap'}": "absent"}))
    from workflows.harness.settings import restore_journal  # noqa: PLC0415

    assert restore_journal(journal) == {f"dir:{made}": "absent", f"swapfile:{made / 't.swap'}": "absent"}
    assert not made.exists() and not journal.exists()
    (tmp_path / "keep").write_text("")
    with Settings() as s:  # a directory that is not empty stays, and that is no error
        s.saved[f"dir:{tmp_path}"] = "absent"
    assert (tmp_path / "keep").exists() and not s.saved


NEEDS_RESOURCES = os.geteuid() != 0 or not shutil.which("swapon") or not shutil.which("mkswap")


@pytest.mark.skipif(NEEDS_RESOURCES, reason="needs root, swapon and mkswap")
def test_shell_rendering_makes_and_undoes_swap_and_cgroup_here(tmp_path):
    """The guest's backend (lib.sh) on this host's cgroups (v1 here, or v2) and disk: the workload
    runs inside the cgroup with the swap area on, and both are gone after the point, the journal too."""
    from workflows.harness import memcg  # noqa: PLC0415

    info = memcg.detect()
    if not info.get("version"):
        pytest.skip(f"no memory cgroup controller: {info.get('reason')}")
    name = f"test-sh-{os.getpid()}"
    cg = memcg.Cgroup(info, name)
    swapfile = tmp_path / "swap" / "deeper" / "t.swap"  # two directories to make, and to remove
    probe = tmp_path / "probe.sh"
    # the area's priority too (/proc/swaps' 5th column): the highest, so that it takes the pages first
    probe.write_text(f"#!/bin/sh\ngrep -c {swapfile} /proc/swaps >\"$2\"\ncat {cg.procs} >>\"$2\"\n"
                     f"awk '$1 == \"{swapfile}\" {{ print \"prio=\" $5 }}' /proc/swaps >>\"$2\"\n")
    probe.chmod(0o755)
    w = scenario.role("w", [str(probe)], parse="m:f", output="seen.txt")
    sc = scenario.scenario(w, swap={"target": str(swapfile), "size_mib": 16}, cgroup=name)
    out = tmp_path / "out"
    text = scenario.render_batch([(str(out), sc)], bin_dir=str(REPO / "build/bin"),
                                 lib=str(REPO / "hosts/qemu/guest/lib.sh"), ctl_dir=str(tmp_path / "ctl"))
    (tmp_path / "run.sh").write_text(text)
    env = {**os.environ, "SETTINGS_JOURNAL": str(tmp_path / "journal.json"), "_SETTINGS_SAVED": str(tmp_path / "saved.tsv")}
    r = subprocess.run(["sh", str(tmp_path / "run.sh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr + (out / "guest.log").read_text()
    assert scenario.read_status(out / "status")["status"] == "ok"
    seen = (out / "seen.txt").read_text().split()
    assert seen[0] == "1", "the swap area was on while the workload ran"
    assert "prio=32767" in seen, seen
    assert not swapfile.exists() and not (tmp_path / "swap").exists(), "swapfile and the directories made for it removed"
    assert str(swapfile) not in Path("/proc/swaps").read_text()
    assert not cg.path.exists() and not (tmp_path / "journal.json").exists()


@pytest.mark.skipif(not shutil.which("sh"), reason="no sh")
def test_shell_cgroup_resource_on_a_v2_hierarchy(tmp_path):
    """lib.sh's cgroup v2 branch (the guest's) on a fixture of a v2 hierarchy (CGROUP_ROOT): the
    memory controller enabled down to the parent (the root's journaled first), the cgroup
    journaled, then removed by settings_restore, and the root's controller taken back."""
    root = tmp_path / "cg"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "cgroup.subtree_control").write_text("cpu\n")
    saved, journal = tmp_path / "saved.tsv", tmp_path / "journal.json"
    script = (f". {REPO / 'hosts/qemu/guest/lib.sh'}\n"
              "resource_cgroup w-R2 || exit 3\n"
              f"[ -d {root}/tierbench/w-R2 ] || exit 4\n"
              f"cp {journal} {tmp_path}/during.json\n"
              "settings_restore || exit 5\n")
    env = {**os.environ, "CGROUP_ROOT": str(root), "SETTINGS_JOURNAL": str(journal), "_SETTINGS_SAVED": str(saved)}
    r = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads((tmp_path / "during.json").read_text()) == {
        f"subtree:{root}/cgroup.subtree_control": "-memory", f"cgroup:{root}/tierbench/w-R2": "absent"}
    # (a real cgroupfs would then list "cpu"; the fixture keeps the write)
    assert (root / "cgroup.subtree_control").read_text().split() == ["-memory"]
    # (a real cgroupfs removes the parent with its control files; in the fixture its file stays)
    assert not (root / "tierbench" / "w-R2").exists() and not journal.exists()
    assert [p.name for p in (root / "tierbench").iterdir()] == ["cgroup.subtree_control"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: makes a real memory cgroup")
def test_shell_cgroup_remove_ends_what_is_left_in_a_real_cgroup(tmp_path):
    """lib.sh's cgroup_remove on this machine's own cgroupfs (v1 or v2): a process left in the
    point's cgroup is killed by pid and the cgroup removed. Every cgroup file reports size 0
    (kernel/cgroup/cgroup.c cgroup_add_file()), so a `[ -s cgroup.procs ]` test never saw one:
    the process stayed and the rmdir failed."""
    from workflows.harness import memcg  # noqa: PLC0415

    if not memcg.detect().get("version"):
        pytest.skip("no memory cgroup controller mounted here")
    name = f"pytest-rm-{os.getpid()}"
    saved, journal = tmp_path / "saved.tsv", tmp_path / "journal.json"
    env = {**os.environ, "SETTINGS_JOURNAL": str(journal), "_SETTINGS_SAVED": str(saved)}
    lib = REPO / "hosts/qemu/guest/lib.sh"
    sleeper = subprocess.Popen(["sleep", "120"], start_new_session=True)
    path = None
    try:
        r = subprocess.run(["sh", "-c", f". {lib}\nresource_cgroup {name} || exit 3\ncgroup_path {name}"], env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        path = Path(r.stdout.strip().splitlines()[-1])
        (path / "cgroup.procs").write_text(str(sleeper.pid))
        assert str(sleeper.pid) in (path / "cgroup.procs").read_text()
        r = subprocess.run(["sh", "-c", f". {lib}\nsettings_restore"], env=env, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert not path.exists() and not journal.exists()
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
        if path is not None and path.exists():
            path.rmdir()


@pytest.mark.skipif(not shutil.which("sh"), reason="no sh")
@pytest.mark.parametrize("other_uses_it", [True, False])
def test_shell_root_controller_a_cgroup_below_still_uses_stays_on(tmp_path, other_uses_it):
    """lib.sh taking "+memory" back from the root: refused (EBUSY, here the write fails as the
    kernel's would) while another cgroup below enables the controller for its own children, it
    stays on, said, and settings_restore succeeds, as settings.py's restore does; refused with no
    such cgroup, it is a restore error."""
    root = tmp_path / "cg"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "cgroup.subtree_control").write_text("cpu\n")
    (root / "other").mkdir()
    (root / "other" / "cgroup.subtree_control").write_text("memory\n" if other_uses_it else "\n")
    saved, journal = tmp_path / "saved.tsv", tmp_path / "journal.json"
    script = (f". {REPO / 'hosts/qemu/guest/lib.sh'}\n"
              "resource_cgroup w-R2 || exit 3\n"
              # (a real cgroupfs's control files go with their directory: the parent's removal works)
              f"rm {root}/tierbench/cgroup.subtree_control\n"
              # the kernel refuses "-memory" while a child enables it (cgroup-v2.rst, Top-down Constraint)
              "_subtree_write() { if [ \"$2\" = -memory ]; then echo 'sh: 1: echo: echo: I/O error' >&2; "
              "return 1; fi; echo \"$2\" >\"$1\"; }\n"
              "settings_restore\n")
    env = {**os.environ, "CGROUP_ROOT": str(root), "SETTINGS_JOURNAL": str(journal), "_SETTINGS_SAVED": str(saved)}
    r = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert not (root / "tierbench").exists()
    if other_uses_it:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "the memory controller stays enabled" in r.stderr
        assert not journal.exists()
    else:
        assert r.returncode == 1 and "I/O error" in r.stderr
        assert json.loads(journal.read_text())[f"subtree:{root}/cgroup.subtree_control"] == "-memory"


def test_usage_since_ready_leaves_out_a_start_up_that_waits(tmp_path):
    """A workload that waits (as for its input on disk), prints its ready line, then computes: its
    usage says what it had used when ready (its process group's, from /proc), and the CPU share
    taken from the measured phase alone is higher than the whole run's, which counts the wait."""
    from workflows.harness.fidelity import usage_share
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    prog = ("import time; time.sleep(1.0); print('tb-ready', flush=True); t = time.process_time()\n"
            "while time.process_time() - t < 1.2: pass\n")
    w = scenario.role("w", [sys.executable, "-c", prog], parse="m:f", stdout="w.out", ready_line="tb-ready", usage=True)
    sc = scenario.scenario(w, timeout_s=60)
    with Settings(tmp_path / "journal.json") as settings, Supervisor() as sup:
        run = scenario.HostRun(sc, tmp_path, sup, settings)
        run.execute()
    u = run.meta["usage"]["w"]
    ready = u["ready"]
    assert ready["wall_s"] >= 1.0 and ready["user_s"] + ready["system_s"] < u["user_s"] + u["system_s"]
    whole = usage_share({k: u[k] for k in ("user_s", "system_s", "wall_s")}, 1)
    assert usage_share(u, 1) > whole
    # a measured phase too short for clock ticks to time: the whole run counts
    short = {"user_s": 1.0, "system_s": 0.0, "wall_s": 4.0, "ready": {"user_s": 0.9, "system_s": 0.0, "wall_s": 3.8}}
    assert usage_share(short, 1) == 0.25
    short["ready"]["wall_s"] = 2.0
    assert usage_share(short, 1) == pytest.approx(0.05)
    # a ready line never printed: no snapshot, the whole run counts
    w2 = scenario.role("w2", [sys.executable, "-c", "pass"], parse="m:f", stdout="w2.out", ready_line="never", usage=True)
    with Settings(tmp_path / "journal2.json") as settings, Supervisor() as sup:
        run = scenario.HostRun(scenario.scenario(w2, timeout_s=60), tmp_path, sup, settings)
        run.execute()
    assert "ready" not in run.meta["usage"]["w2"]


def test_a_scratch_directory_the_point_made_goes_with_its_files(tmp_path):
    """Scratch: its files removed after the point; the directory too where the point made it (a
    review found results/<host>/storage-scratch left empty after every fio point), never one it
    found (a DAX mount's path a profile names)."""
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    for existed in (False, True):
        d = tmp_path / f"scratch-{existed}"
        if existed:
            d.mkdir()
        w = scenario.role("w", ["sh", "-c", f"echo x > {d}/data"], parse="m:f")
        sc = scenario.scenario(w, scratch={"dir": str(d), "remove": ["data"]}, timeout_s=60)
        with Settings(tmp_path / "journal.json") as settings, Supervisor() as sup:
            run = scenario.HostRun(sc, tmp_path, sup, settings)
            run.execute()
            assert (d / "data").exists()
            run.cleanup_scratch()
        assert not (d / "data").exists() and d.exists() == existed


def test_group_cpu_sums_a_process_group_from_proc(tmp_path):
    """group_cpu() adds utime, stime, cutime and cstime (clock ticks) of every process whose pgrp
    is the group, reading the fields after the command name's last ')'; none left: None."""
    tick = os.sysconf("SC_CLK_TCK")
    for pid, comm, pgrp, times in ((10, "a (b) c", 10, (100, 50, 7, 3)), (11, "x", 10, (10, 0, 0, 0)),
                                   (12, "y", 99, (999, 999, 0, 0))):
        d = tmp_path / str(pid)
        d.mkdir()
        rest = " ".join(["S", "1", str(pgrp)] + ["0"] * 8 + [str(t) for t in times] + ["0"] * 10)
        (d / "stat").write_text(f"{pid} ({comm}) {rest}\n")
    (tmp_path / "self").mkdir()
    assert scenario.group_cpu(10, tmp_path) == (round(117 / tick, 3), round(53 / tick, 3))
    assert scenario.group_cpu(42, tmp_path) is None


def test_line_watch_sees_a_text_split_between_two_looks(tmp_path):
    """LineWatch reads only what was added since its last look, and still finds a text whose
    first bytes came in one look and the rest in the next."""
    f = tmp_path / "out"
    w = scenario.LineWatch(f, "Read Time:")
    assert not w.seen()  # no file yet
    f.write_text("Generate Time: 1\nRead Ti")
    assert not w.seen()
    with f.open("a") as fh:
        fh.write("me: 0.1\n")
    assert w.seen()
    short = scenario.LineWatch(tmp_path / "short", "abcde")
    (tmp_path / "short").write_text("xab")
    assert not short.seen()
    with (tmp_path / "short").open("a") as fh:
        fh.write("cde")
    assert short.seen()


def test_what_a_role_changes_itself_is_journaled_before_it_starts(tmp_path):
    """A role's ``changes`` (tierd: DAMON's nr_kdamonds, which it raises itself and lowers only on
    a clean exit) is journaled as it was before the program started: put back when the point ends,
    or by the next repair after a kill."""
    import json  # noqa: PLC0415

    from workflows.harness.procs import Supervisor  # noqa: PLC0415
    from workflows.harness.settings import Settings  # noqa: PLC0415

    knob = tmp_path / "nr_kdamonds"
    knob.write_text("0\n")
    w = scenario.role("w", ["sh", "-c", f"echo 1 > {knob}"], parse="tests.test_tier_setup:one_row",
                      changes=[str(knob), str(tmp_path / "absent")])
    journal = tmp_path / "journal.json"
    out = tmp_path / "out"
    out.mkdir()
    with Settings(journal) as s, Supervisor() as sup:
        scenario.HostRun(scenario.scenario(w), out, sup, s).execute()
        assert json.loads(journal.read_text()) == {str(knob): "0"}  # (a path not there is not journaled)
        assert knob.read_text().strip() == "1"
    assert knob.read_text().strip() == "0" and not journal.exists()
