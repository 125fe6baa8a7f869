"""A host profile's ``tier_setup`` (hosts/schema.yaml): a command of the user's that places the
nodes in memory tiers (the Colloid artifact's tierinit module is one), so that kernel TPP is
planned on a two-socket host. Run here on a stand-in memory_tiering tree: the setup script moves
node 1 into a lower tier of the fake tree, the undo script moves it back."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from test_memtiers import MT, sysfs
from test_profiles import two_socket_facts

from workflows.harness import memtiers, plan, point, scenario, settings
from workflows.harness.settings import Settings, restore_journal

ICELAKE = Path(__file__).resolve().parents[1] / "hosts" / "icelake-2s.yaml"


def one_row(outdir, role, opts):
    return [{"metric": "throughput", "value": 1, "unit": "Mops/s", "tool": "w"}]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A two-socket kernel's tiers (both nodes in memory_tier4), read through memtiers.SYS, and the
    setup/undo scripts that put node 1 into memory_tier22 and back (each logging that it ran)."""
    root = sysfs(tmp_path / "sys", {f"{MT}/memory_tier4/nodelist": "0-1"})
    monkeypatch.setattr(memtiers, "SYS", root)
    t, log = root / MT, tmp_path / "commands.log"
    setup = tmp_path / "setup.sh"
    setup.write_text(f"""
# what the journal held when setup started (the undo must be in it already)
cat "$JOURNAL" >{tmp_path / "journal-at-setup.json"} 2>/dev/null
echo 0 >{t}/memory_tier4/nodelist && mkdir -p {t}/memory_tier22 && echo 1 >{t}/memory_tier22/nodelist
echo setup >>{log}
echo "tier setup says hello"
""")
    undo = tmp_path / "undo.sh"
    undo.write_text(f"rm -rf {t}/memory_tier22; echo 0-1 >{t}/memory_tier4/nodelist; echo undo >>{log}\n")
    return {"root": root, "log": log, "setup": f"sh {setup}", "undo": f"sh {undo}", "tmp": tmp_path}


def alive(pid: int) -> bool:
    """Running (a zombie waiting for whoever adopted it to reap it is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def tiers_now(tree) -> dict:
    return memtiers.read_tiers(tree["root"])


def ran(tree) -> list[str]:
    return tree["log"].read_text().split() if tree["log"].exists() else []


def sc_with(tree, workload: list[str], setup: str | None = None, timeout_s: float = 30) -> dict:
    w = scenario.role("w", workload, parse="tests.test_tier_setup:one_row")
    ts = {"setup": setup or tree["setup"], "undo": tree["undo"], "timeout_s": timeout_s, "nodes": [0, 1]}
    return scenario.scenario(w, settings={}, tier_setup=ts)


def run_point(tree, sc, monkeypatch) -> tuple[int, Path]:
    """The scenario as a measured point on this host (workflows/harness/point.py, executor host)."""
    tmp = tree["tmp"]
    results, outdir = tmp / "results", tmp / "results" / "p"
    results.mkdir(exist_ok=True)
    monkeypatch.setenv("JOURNAL", str(results / ".settings-journal.json"))
    (tmp / "facts.json").write_text(json.dumps({"hostname": "t"}))
    run = {"scenario": sc, "counters": {"sources": [], "interval_ms": 1000}, "note": "", "parse": {}, "event_t_s": None,
           "profile": {"name": "t", "source": "t.yaml", "tools": {}, "monitor_cpus": []}}
    row = plan.point("tiering", "steady_state", "numa-tpp-c0-i0", executor="host", context={"system": "tpp"}, run=run,
                     columns={})
    (tmp / "row.json").write_text(json.dumps(row))
    rc = point.main(["--outdir", str(outdir), "--results", str(results), "--facts", str(tmp / "facts.json"),
                     str(tmp / "row.json")])
    return rc, outdir


# ---- the scenario resource ----------------------------------------------------------------------

def test_setup_runs_first_and_its_undo_last(tree):
    sc = sc_with(tree, ["true"])
    ops = scenario.ops(sc)
    assert ops[0] == ("tier_setup",), "before any setting (numa_balancing=2 is set with the tiers already placed)"
    with pytest.raises(ValueError, match="guest host runs no"):
        scenario.render_sh(sc, "/out/p")


def test_point_runs_after_the_setup_and_undo_follows(tree, monkeypatch, capfd):
    during = tree["tmp"] / "during"
    rc, outdir = run_point(tree, sc_with(tree, ["sh", "-c", f"cat {tree['root'] / MT}/memory_tier22/nodelist >{during}"]),
                           monkeypatch)
    assert rc == 0, capfd.readouterr().err
    assert during.read_text().strip() == "1", "the workload ran with node 1 in the lower tier"
    assert ran(tree) == ["setup", "undo"] and tiers_now(tree) == {4: [0, 1]}, "undone after the point"
    at_setup = json.loads((tree["tmp"] / "journal-at-setup.json").read_text())
    assert at_setup == {f"undo:30:{tree['undo']}": "done"}, "undo journaled before setup started"
    assert not (tree["tmp"] / "results" / ".settings-journal.json").exists()
    meta = json.loads((outdir / "meta.json").read_text())
    assert meta["tier_setup"]["memory_tiers"] == {"4": [0], "22": [1]}
    assert (outdir / "result.csv").exists()
    assert "tier setup says hello" in capfd.readouterr().err, "the setup's output goes to the point's log"


def test_a_point_whose_undo_fails_fails_and_writes_no_result(tree, monkeypatch, capfd):
    """The host is left changed: the job fails (a line in its log says what stayed), so the run
    does not end green with the host changed; the journal keeps it for the next point's repair."""
    sc = sc_with(tree, ["true"])
    sc["tier_setup"] = {**sc["tier_setup"], "undo": f"{tree['undo']}; exit 4"}
    rc, outdir = run_point(tree, sc, monkeypatch)
    err = capfd.readouterr().err
    assert rc == 1 and "tierbench: error: the host is left changed: could not restore undo:30:" in err, err
    assert not (outdir / "result.csv").exists()
    assert (tree["tmp"] / "results" / ".settings-journal.json").exists()


def test_a_failed_point_undoes_and_writes_nothing(tree, monkeypatch, capfd):
    rc, outdir = run_point(tree, sc_with(tree, ["false"]), monkeypatch)
    assert rc == 1 and "w exited with status 1" in capfd.readouterr().err
    assert ran(tree) == ["setup", "undo"] and tiers_now(tree) == {4: [0, 1]}
    assert not (outdir / "result.csv").exists() and not (outdir / "meta.json").exists()


def test_an_interrupted_point_undoes(tree, monkeypatch):
    """SIGINT while the workload runs (the workload sends it to the harness, this process)."""
    rc, outdir = run_point(tree, sc_with(tree, ["sh", "-c", "kill -INT $PPID; sleep 5"]), monkeypatch)
    assert rc == 130
    assert ran(tree) == ["setup", "undo"] and tiers_now(tree) == {4: [0, 1]}
    assert not (outdir / "result.csv").exists()


def test_a_setup_that_leaves_the_tiers_is_refused_in_one_line(tree, monkeypatch, capfd):
    rc, outdir = run_point(tree, sc_with(tree, ["true"], setup="echo nothing placed"), monkeypatch)
    err = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("tierbench: error:")]
    assert rc == 1 and err == [
        "tierbench: error: the profile's tier setup (echo nothing placed) ran, but the default node 0 is not in a higher "
        "memory tier than the alternate node 1 (memory_tier4: 0-1): the kernel would move no page between them, so the "
        f"point stops here and its undo ({tree['undo']}) runs"]
    assert ran(tree) == ["undo"] and not (outdir / "result.csv").exists()


@pytest.mark.parametrize("promotes", [False, True])
def test_a_node_with_cpus_moved_down_is_still_top_tier_unless_the_kernel_says_otherwise(tree, monkeypatch, capfd,
                                                                                        promotes):
    """Both sockets' nodes have CPUs (has_cpu 0-1): an upstream kernel counts every tier at or
    above the lowest holding a node with CPUs as top tier and promotes from none (mm/memory-tiers.c
    top_tier_adistance), so node 1 moved to memory_tier22 gives kernel TPP nothing to promote; the
    point fails, unless the profile says its kernel promotes from such a node (the artifact's fork)."""
    (tree["root"] / "devices/system/node").mkdir(parents=True)
    (tree["root"] / "devices/system/node/has_cpu").write_text("0-1\n")
    sc = sc_with(tree, ["true"])
    sc["tier_setup"]["cpu_tiers_promote"] = promotes
    rc, outdir = run_point(tree, sc, monkeypatch)
    err = capfd.readouterr().err
    if promotes:
        assert rc == 0 and (outdir / "result.csv").exists(), err
    else:
        assert rc == 1 and not (outdir / "result.csv").exists()
        assert "the alternate node 1 (memory_tier22) is in or above memory_tier22, the lowest tier holding a node with " \
               "CPUs" in err
    assert ran(tree) == ["setup", "undo"]


def test_a_failing_or_hanging_setup_fails_the_point_and_is_undone(tree, monkeypatch, capfd):
    rc, _ = run_point(tree, sc_with(tree, ["true"], setup="exit 3"), monkeypatch)
    assert rc == 1 and "tier setup failed: setup 'exit 3' exited with status 3" in capfd.readouterr().err
    assert ran(tree) == ["undo"]
    pidfile = tree["tmp"] / "bg.pid"
    rc, _ = run_point(tree, sc_with(tree, ["true"], setup=f"sleep 60 & echo $! >{pidfile}; wait", timeout_s=0.5),
                      monkeypatch)
    assert rc == 1 and "ran past its 0.5 s limit" in capfd.readouterr().err
    assert not alive(int(pidfile.read_text())), "its whole process group was stopped"
    assert ran(tree) == ["undo", "undo"]


def test_a_killed_run_is_repaired_by_the_journal(tree, monkeypatch, capfd):
    """A run killed after setup (no restore): the next point's repair runs the undo."""
    journal = tree["tmp"] / "journal.json"
    monkeypatch.setenv("JOURNAL", str(journal))
    s = Settings(journal)
    s.command(tree["setup"], tree["undo"], 30)
    assert tiers_now(tree) == {4: [0], 22: [1]}
    assert restore_journal(journal) == {f"undo:30:{tree['undo']}": "done"}
    assert tiers_now(tree) == {4: [0, 1]} and not journal.exists()
    # an undo that fails stays journaled (and said in the point's log): the next point refuses to
    # start until it succeeds
    with Settings(journal) as s:
        s.command("true", "exit 1", 30)
    assert "tierbench: could not restore undo:30:exit 1: 'exit 1' exited with status 1" in capfd.readouterr().err
    with pytest.raises(settings.ConfigError, match="could not restore settings.*'exit 1' exited with status 1"):
        restore_journal(journal)
    assert journal.exists()


# ---- planning and validate ----------------------------------------------------------------------

SETUP = "insmod /opt/colloid/tpp/tierinit/tierinit.ko"
UNDO = "if grep -q '^tierinit ' /proc/modules; then rmmod tierinit; fi"


def validate(tmp_path, capsys, extra: str, tiers: dict | None = None) -> tuple[int, str, str]:
    from workflows.harness import cli

    f = two_socket_facts()
    f |= {"privileges": {"root": True}, "memory_tiers": {"4": [0, 1, 2]} if tiers is None else tiers, "kernel": "6.12.9"}
    (tmp_path / "facts.json").write_text(json.dumps(f))
    (tmp_path / "host.yaml").write_text(ICELAKE.read_text() + extra)
    rc = cli.main(["validate", "--host", str(tmp_path / "host.yaml"), "--facts", str(tmp_path / "facts.json")])
    out = capsys.readouterr()
    return rc, out.out, out.err


WITH_SETUP = f'tier_setup:\n  setup: "{SETUP}"\n  undo: "{UNDO}"\n  timeout_s: 20\n'


def test_validate_plans_kernel_tpp_after_the_tier_setup(tmp_path, capsys):
    rc, out, _ = validate(tmp_path, capsys, WITH_SETUP)
    assert rc == 0
    assert f"tiering: kernel TPP: runs after the profile's tier setup ({SETUP})" in out.splitlines()
    assert "runs: tiering: tpp without Colloid (host, " in out and "left out: tiering: kernel TPP" not in out
    # without it, today's refusal stays
    rc, out, _ = validate(tmp_path, capsys, "")
    assert rc == 0 and "left out: tiering: kernel TPP: nodes 0 and 1 are in the same memory tier" in out
    assert "runs after the profile's tier setup" not in out


def test_kernel_tpp_points_carry_the_setup(tmp_path):
    from workflows.harness import profile

    f = two_socket_facts()
    f |= {"privileges": {"root": True}, "memory_tiers": {"4": [0, 1, 2]}, "kernel": "6.12.9"}
    (tmp_path / "host.yaml").write_text(ICELAKE.read_text() + WITH_SETUP)
    config = profile.validate_config({"scale": "cli", "host": str(tmp_path / "host.yaml")})
    pl = plan.build(config, plan.Host(profile.resolve(str(tmp_path / "host.yaml"), f), f, None))
    rows = pl.families["tiering"].rows
    kernel = [r for r in rows if r["context"].get("system") == "tpp" and not r["context"]["colloid"]]
    assert kernel and all(r["run"]["scenario"]["tier_setup"] == {"setup": SETUP, "undo": UNDO, "timeout_s": 20.0,
                                                                 "nodes": [0, 1]} for r in kernel)
    assert not any("tier_setup" in r["run"]["scenario"] for r in rows if r not in kernel), "only kernel TPP's points"


def test_a_kernel_without_memory_tiers_stays_refused(tmp_path, capsys):
    rc, out, _ = validate(tmp_path, capsys, WITH_SETUP, tiers={})
    assert rc == 0 and "shows no memory tiers" in out and "cannot give a kernel memory tiers" in out


@pytest.mark.parametrize("extra, needle", [
    ('tier_setup: {setup: "x"}\n', "tier_setup: 'undo' is a required property"),
    ('tier_setup: {setup: "x", undo: "y", timeout_s: 0}\n', "tier_setup/timeout_s: 0 is less than or equal to"),
    ('tier_setup: {setup: " ", undo: "y"}\n', "tier_setup/setup: ' ' does not match"),
    ('tier_setup: {setup: "x", undo: "y", when: always}\n', "tier_setup: unknown key"),
    ('tier_setup: "insmod x.ko"\n', "tier_setup: 'insmod x.ko' is not of type 'object'"),
])
def test_a_malformed_option_is_one_error_line(tmp_path, capsys, extra, needle):
    rc, out, err = validate(tmp_path, capsys, extra)
    assert rc == 1 and not out
    assert err.count("\n") == 1 and err.startswith("tierbench: error: host profile ") and needle in err, err


def test_a_guest_or_model_profile_takes_no_tier_setup(tmp_path):
    from workflows.harness import ConfigError, profile

    model = (Path(__file__).resolve().parents[1] / "hosts" / "paper-testbed.yaml").read_text()
    p = tmp_path / "m.yaml"
    p.write_text(model.replace("curves/", str(ICELAKE.parent / "curves") + "/") + WITH_SETUP)
    with pytest.raises(ConfigError, match="tier_setup: a profile of modelled tiers has no kernel memory tiers"):
        profile.resolve(str(p), two_socket_facts())


def test_a_stop_signal_after_the_children_stop_still_restores(tree, monkeypatch):
    """Between the Supervisor's exit (which puts back the handlers it found) and the restore, a
    SIGTERM or SIGHUP used to find the default disposition: the point ended with nothing restored.
    It raises now, and the restore runs."""
    seen = {}
    real_exit = point.Supervisor.__exit__

    def exit_and_look(self, *exc):
        real_exit(self, *exc)
        seen.update({sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)})

    monkeypatch.setattr(point.Supervisor, "__exit__", exit_and_look)
    before = signal.getsignal(signal.SIGTERM)
    rc, _ = run_point(tree, sc_with(tree, ["true"]), monkeypatch)
    assert rc == 0 and seen and all(callable(h) and h is not before for h in seen.values()), seen
    assert signal.getsignal(signal.SIGTERM) is before, "put back after the point"
