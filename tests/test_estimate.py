"""The time estimate before a run (cli plan) and the progress line during it (estimate follow)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from workflows.harness import cli, estimate, plan, scenario
from workloads.gapbs import workload as gapbs
from workloads.memchar import workload as memchar
from workloads.pgtpcc import workload as pgtpcc
from workloads.silo import workload as silo
from workloads.ycsb import workload as ycsb

MEMCHAR_BW = ["build/bin/memchar", "bandwidth", "--cpus", "0,1", "--op", "read", "--threads", "1,2", "--duration", "0.5"]
FIO = ["/usr/bin/fio", "--runtime=2", "--name=qd1", "--iodepth=1", "--name=qd4", "--iodepth=4", "--stonewall"]


@pytest.mark.parametrize("argv, seconds", [
    (MEMCHAR_BW, 1.0),                                                        # one run per thread count
    (["build/bin/ycsb", "--max-seconds", "0.5", "--phases", "a,c,d,e"], 2.0),  # one per phase
    (["build/bin/ycsb", "--max-seconds", "1", "--phases", "a,c", "--warmup-seconds", "1"], 4.0),  # a warm-up each
    (FIO, 4.0),                                                               # one runtime per fio job
    (["python", "-m", "workflows.harness.memcg", "run", "--argv-json", json.dumps(["pgbench", "-c", "2", "-T", "10"])], 10.0),
    (["/usr/bin/ffmpeg", "-frames:v", "150"], None),                          # a length its argv does not say
    # memcg at 1/R of the memory: fixed work takes about R times as long, a set time does not
    (["python", "-m", "workflows.harness.memcg", "run", "--ratio", "4", "--argv-json", json.dumps(["ffmpeg"])],
     4 * estimate.UNKNOWN_ROLE_S),
    (["python", "-m", "workflows.harness.memcg", "run", "--ratio", "1", "--argv-json", json.dumps(["ffmpeg"])],
     estimate.UNKNOWN_ROLE_S),
    (["python", "-m", "workflows.harness.memcg", "run", "--ratio", "4", "--argv-json", json.dumps(["pgbench", "-T", "10"]),
      "--prepare-json", json.dumps(["load"])], 10.0),
])
def test_role_seconds_reads_durations_and_their_sweeps(argv, seconds):
    assert estimate.role_seconds(argv) == seconds


KRON20_ARCS = 2**20 * 16 * 2
YCSB = ["numactl", "--membind=0", "build/bin/ycsb", "--db", "redis", "--records", "50000", "--operations", "1000000",
        "--max-seconds", "1", "--phases", "a,c,d,e", "--warmup-seconds", "1", "--pipeline-depths", "1,4,16",
        "--pipeline-seconds", "0.3"]


@pytest.mark.parametrize("argv, parse, seconds", [
    # PageRank: its length is trials, not seconds; the workload says it from the graph's arcs
    (["build/bin/gapbs-pr", "-f", "build/graphs/kron20-k16.sg", "-n", "3"], "workloads.gapbs.workload:rows",
     KRON20_ARCS * (gapbs.READ_S_PER_ARC + 3 * gapbs.TRIAL_S_PER_ARC)),
    (["build/bin/silo-dbtest", "--scale-factor", "600", "--runtime", "3"], "workloads.silo.workload:rows",
     3 + 600 * silo.LOAD_S_PER_SCALE),
    # YCSB as Runner.java runs it: depths repeat the pipelined part only, not the phases
    (YCSB, "workloads.ycsb.workload:rows",
     ycsb.JVM_S + 1 + 50000 * ycsb.LOAD_S_PER_RECORD["server"] + 4 * (1 + 1) + 3 * (1 + 0.3)),
    # the null store ends a phase at --operations, its driver's ceiling
    ([*YCSB[:4], "null", *YCSB[5:15]], "workloads.ycsb.workload:rows",
     ycsb.JVM_S + (50000 + (1 + 4 * 2) * 1e6) / ycsb.NULL_OPS_PER_S),
    # a hook given another program's argv (the server its module also parses) leaves it to the flags
    (["numactl", "--membind=0", "redis-server", "--port", "16379"], "workloads.ycsb.workload:server_rows", None),
    (["build/bin/memchar", "loaded", "--delays", "0,5,10", "--duration", "0.5", "--buffer-mib", "300"],
     "workloads.memchar.workload:rows", memchar.CHAIN_S_PER_MIB * 300 + 3 * (0.5 + 0.1)),
    (["build/bin/memchar", "bandwidth", "--threads", "1,2", "--duration", "0.5"], "workloads.memchar.workload:rows", 1.0),
    # a prepare step run first under memcg counts what its workload (python -m MODULE) says
    (["python", "-m", "workflows.harness.memcg", "run", "--ratio", "2", "--argv-json",
      json.dumps(["python", "-m", "workloads.pgtpcc.workload", "drive", "--duration-s", "10"]),
      "--prepare-json", json.dumps(["python", "-m", "workloads.pgtpcc.workload", "prepare", "--warehouses", "2"])],
     "families.overcommit:rows", 10 + 2 * pgtpcc.PREPARE_S_PER_WAREHOUSE),
])
def test_a_workload_says_how_long_it_runs_where_its_argv_does_not(argv, parse, seconds):
    got = estimate.role_seconds(argv, parse)
    assert got is None if seconds is None else got == pytest.approx(seconds)


@pytest.mark.parametrize(("llc_mib", "chain_mib"), [(None, 256), (16, 256), (96, 768)])
def test_memchars_default_chain_grows_with_the_hosts_last_level_cache(monkeypatch, llc_mib, chain_mib):
    """Without --buffer-mib memchar's chain is max(256, 8 x LLC) MiB (src/util.c), and so is its time."""
    from workflows.harness import hostdetect  # noqa: PLC0415

    monkeypatch.setattr(hostdetect, "llc_bytes", lambda *a, level_only=None: llc_mib and llc_mib << 20)
    assert memchar.seconds(["build/bin/memchar", "latency", "--duration", "1"]) == \
        pytest.approx(memchar.CHAIN_S_PER_MIB * chain_mib + 1)


def test_the_warm_up_counts_only_where_the_executor_waits_it():
    """scenario.ops: the warm-up is slept with a background role running, none without one."""
    w = scenario.role("w", ["build/bin/x", "--duration", "2"], parse="x:rows")
    bg = scenario.role("antagonist", ["build/bin/antagonist"], parse="x:rows")
    alone = {"run": {"scenario": scenario.scenario(w, warmup_s=1)}}
    beside = {"run": {"scenario": scenario.scenario(w, background=[bg], warmup_s=1)}}
    assert estimate.measured_seconds(alone) == pytest.approx(2 + estimate.POINT_OVERHEAD_S)
    assert estimate.measured_seconds(beside) == pytest.approx(2 + 1 + estimate.BACKGROUND_READY_S + estimate.POINT_OVERHEAD_S)


def _row(family, point, argv, executor="host", parse="x:rows"):
    bg = scenario.role("antagonist", ["build/bin/antagonist", "--duration", "999"], parse="x:rows")
    run = {"argv": argv} if executor == "model" else {
        "scenario": scenario.scenario(scenario.role("w", argv, parse=parse), background=[bg], warmup_s=1)}
    return {"family": family, "experiment": "e", "point": point, "rep": 0, "executor": executor,
            "tools": [], "inputs": [], "run": run}


def _plan(rows):
    return plan.Plan(families={}, points={plan.key(r): r for r in rows})


def test_durations_then_an_earlier_runs_benchmarks_calibrate_the_family(tmp_path):
    rows = [_row("fam", "a", MEMCHAR_BW), _row("fam", "b", MEMCHAR_BW),
            _row("mod", "m", ["build/bin/tiersim", "--duration", "200"], executor="model")]
    fresh = estimate.estimate(_plan(rows), "h", cores=2, results=tmp_path, probe=False)
    by = {p.key: p for p in fresh.points}
    # sweep x duration + the warm-up and the background role's start before the workload + fixed cost
    said = 1.0 + 1 + estimate.BACKGROUND_READY_S + estimate.POINT_OVERHEAD_S
    assert by["fam/e/a/rep0"].seconds == pytest.approx(said) and by["fam/e/a/rep0"].source == "durations"
    assert by["mod/e/m/rep0"].seconds == pytest.approx(2 * estimate.MODEL_POINT_S)  # 200 simulated s
    assert fresh.workflow_s == estimate.WORKFLOW_START_S + 2 * estimate.PER_FAMILY_S  # (no figures planned)
    # measured points one at a time; the modelled CPU and the two families' tables beside them on the
    # other core (8.4 s against 8 s: all the work over two cores is the longer), then Snakemake's start
    tables = 2 * estimate.PER_FAMILY_S
    assert fresh.serial_s == pytest.approx(2 * said) and fresh.shared_s == pytest.approx(2 * estimate.MODEL_POINT_S + tables)
    assert fresh.wall_s == pytest.approx((2 * said + 2 * estimate.MODEL_POINT_S + tables) / 2 + estimate.WORKFLOW_START_S)
    one_core = estimate.estimate(_plan(rows), "h", cores=1, results=tmp_path, probe=False)
    assert one_core.wall_s == pytest.approx(2 * said + 2 * estimate.MODEL_POINT_S + one_core.workflow_s)

    bench = tmp_path / "benchmarks/fam/e/a/rep0.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text("s\th:m:s\tmax_rss\n" + f"{3 * said:.4f}\t0:00:12\t10\n")
    again = {p.key: p for p in estimate.estimate(_plan(rows), "h", cores=2, results=tmp_path, probe=False).points}
    assert again["fam/e/a/rep0"].source == "benchmark" and again["fam/e/a/rep0"].seconds == pytest.approx(3 * said)
    # the point without a file of its own is scaled as its family's measured one was
    assert again["fam/e/b/rep0"].seconds == pytest.approx(3 * said, rel=1e-3)


def test_a_batched_config_pays_the_harness_once_per_batch(tmp_path):
    """A probed modelled point costs tiersim's time (scaled by its simulated seconds) plus the
    harness; with model_batch N the harness is one per N points."""
    rows = [_row("mod", f"m{i}", ["build/bin/tiersim", "--duration", "50"], executor="model") for i in range(32)]
    per = {"mod": 0.4}  # tiersim CPU seconds per 100 simulated seconds
    one = estimate.estimate(_plan(rows), "h", cores=2, results=tmp_path, probe=False, model_per_point=per)
    batched = estimate.estimate(_plan(rows), "h", cores=2, results=tmp_path, probe=False, model_per_point=per,
                                model_batch=16)
    assert one.points[0].seconds == pytest.approx(0.2 + estimate.MODEL_HARNESS_S)
    assert batched.points[0].seconds == pytest.approx(0.2 + estimate.MODEL_HARNESS_S / 16)
    assert batched.shared_s < one.shared_s
    assert "one per 16 points" in batched.text("plan") and "one per" not in one.text("plan")


SNAKEMAKE_LOG = """\
localrule point:
    output: results/h/fam/e/a/rep0/result.csv
    jobid: 7
    wildcards: host=h, family=fam, experiment=e, point=a, rep=0
Finished jobid: 7 (Rule: point)
1 of 3 steps (33%) done
localrule point:
    jobid: 9
    wildcards: host=h, family=fam, experiment=e, point=b/x, rep=0
Finished jobid: 9 (Rule: point)
"""


def test_wall_time_is_the_longer_of_the_measured_row_and_all_work_over_the_cores(tmp_path):
    measured = [_row("fam", f"p{i}", MEMCHAR_BW) for i in range(2)]
    modelled = [_row("mod", f"m{i}", ["build/bin/tiersim", "--duration", "100"], executor="model") for i in range(40)]
    est = estimate.estimate(_plan(measured + modelled), "h", cores=4, results=tmp_path, probe=False)
    serial = sum(p.seconds for p in est.points if p.executor != "model")
    cpu = 40 * estimate.MODEL_POINT_S + 2 * estimate.PER_FAMILY_S  # the modelled points, two families' tables
    assert est.serial_s == pytest.approx(serial) and est.shared_s == pytest.approx(cpu)
    assert cpu / 4 > serial  # the modelled points dominate: spread over the 4 cores with the measured ones
    assert est.wall_s == pytest.approx((serial + cpu) / 4 + estimate.WORKFLOW_START_S)
    assert "measured points one at a time" in est.text("plan")


def test_follow_echoes_the_run_and_says_points_done_and_time_left(tmp_path):
    f = tmp_path / "estimate.json"
    f.write_text(json.dumps({"points": {"fam/e/a/rep0": 10.0, "fam/e/b/x/rep0": 30.0, "fam/e/c/rep0": 60.0}, "build_s": 0}))
    out = io.StringIO()
    # each point's job starts (its wildcards line) and ends (Finished) at these times
    ticks = iter([0.0, 0.0, 20.0, 20.0, 80.0])  # the start, then each job's start and end
    assert estimate.follow(f, io.StringIO(SNAKEMAKE_LOG), out, clock=lambda: next(ticks)) == 0
    text = out.getvalue()
    assert SNAKEMAKE_LOG.splitlines()[0] in text and "1 of 3 steps" in text
    progress = [ln for ln in text.splitlines() if ln.startswith("[progress]")]
    # a took 20 s for its 10 (2x): 90 s of estimates left, twice; then b took 60 s for its 30
    assert progress == ["[progress] 1/3 points done, 20 s elapsed, ~3.0 min left",
                        "[progress] 2/3 points done, 80 s elapsed, ~2.0 min left"]


def prog(**kw):
    est = {"points": {}, "measured": {}, "model_cpu": {}, "cores": 2, "build_s": 0.0, "start_s": 0.0, "tail_s": {}}
    est.update(kw)
    est["points"] = {**dict(est["measured"]), **{k: v / est["cores"] for k, v in est["model_cpu"].items()}}
    return estimate.Progress(est)


def test_time_left_is_the_measured_points_in_a_row_while_they_are_the_longer():
    # what a quick run looked like two-thirds in: most modelled points done, minutes of measured
    # points left one at a time (the old line said ~44 s left with 3.4 min to go)
    p = prog(measured={"m/e/a/rep0": 60.0, "m/e/b/rep0": 60.0, "m/e/c/rep0": 60.0},
             model_cpu={f"t/e/p{i}/rep0": 1.0 for i in range(100)})
    for i in range(90):
        assert p.finished(f"t/e/p{i}/rep0", 10.0)
    assert p.left(10.0) == pytest.approx(180.0)          # 3 x 60 s in a row > (180 + 10) / 2
    p.started("m/e/a/rep0", 10.0)
    assert p.left(40.0) == pytest.approx(150.0)           # 30 s of the running one taken
    assert p.finished("m/e/a/rep0", 130.0)                # it took 120 s for its 60: the rest 2x
    assert p.scale() == 2.0 and p.left(130.0) == pytest.approx(240.0)
    assert not p.finished("m/e/a/rep0", 131.0) and not p.finished("not/a/point/rep0", 131.0)
    assert p.line(130.0) == "[progress] 91/103 points done, 2.2 min elapsed, ~4.0 min left"


def test_time_left_spreads_modelled_points_builds_and_figures_over_the_cores():
    p = prog(measured={"m/e/a/rep0": 10.0}, model_cpu={f"t/e/p{i}/rep0": 2.0 for i in range(100)},
             build_s=40.0, start_s=10.0, tail_s={"m": 6.0, "t": 30.0})
    assert p.scale() == 1.0                               # no measured point timed yet
    assert p.left(0.0) == pytest.approx((10 + 200 + 40 + 36) / 2)
    # builds are done at the rate of the cores the measured points leave (1 of 2) after the start
    assert p.left(30.0) == pytest.approx((10 + 200 + 20 + 36) / 2)
    for i in range(100):
        p.finished(f"t/e/p{i}/rep0", 60.0)
    # family t's points are done, its tables and figures not yet: they count until its figures job ends
    assert p.left(60.0) == pytest.approx((10 + 36) / 2)
    assert p.tail_done("t") and not p.tail_done("t") and not p.tail_done("x")
    assert p.left(60.0) == pytest.approx(10)


def test_follow_without_an_estimate_only_echoes(tmp_path):
    out = io.StringIO()
    estimate.follow(tmp_path / "absent.json", io.StringIO(SNAKEMAKE_LOG), out)
    assert out.getvalue() == SNAKEMAKE_LOG


def test_cli_plan_prints_points_and_time_per_family_and_saves_it(tmp_path, capsys):
    save = tmp_path / "est.json"
    assert cli.main(["plan", "--host", "auto", "--no-probe", "--cores", "2", "--save", str(save)]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0]
    assert head.startswith("[plan] workflows/config/quick.yaml on ") and " points, ~" in head and "on 2 cores" in head
    saved = json.loads(save.read_text())
    fams = {k.split("/")[0] for k in saved["points"]}
    for fam in fams:
        assert any(ln.split()[0] == fam for ln in out.splitlines()[1:]), (fam, out)
    assert int(head.split(": ")[1].split()[0]) == len(saved["points"])


def test_cli_plan_projects_onto_another_host_profile(capsys):
    assert cli.main(["plan", "--host", "auto", "--no-probe", "--project", "hosts/icelake-2s.yaml"]) == 0
    out = capsys.readouterr().out
    assert "projected onto icelake-2s" in out and "synthetic facts of hosts/icelake-2s.yaml" in out


def test_cli_plan_bad_cores_is_one_error_line():
    r = subprocess.run([sys.executable, "-m", "workflows.harness.cli", "plan", "--no-probe", "--cores", "lots"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.strip().splitlines() == ["tierbench: error: --cores: 'lots' is not a number or 'all'"]


def test_points_measured_alone_hold_every_core_in_the_estimate_and_the_time_left(tmp_path):
    measured = [_row("fam", f"p{i}", MEMCHAR_BW) for i in range(2)]
    modelled = [_row("mod", f"m{i}", ["build/bin/tiersim", "--duration", "100"], executor="model") for i in range(40)]
    beside = estimate.estimate(_plan(measured + modelled), "h", cores=4, results=tmp_path, probe=False)
    alone = estimate.estimate(_plan(measured + modelled), "h", cores=4, results=tmp_path, probe=False,
                              measure_alone=["fam"])
    m = sum(p.seconds for p in alone.points if p.executor != "model")
    assert alone.alone_s == pytest.approx(m) and alone.serial_s == 0 and beside.alone_s == 0
    # nothing overlaps them: their seconds add to the rest spread over the cores
    assert alone.wall_s == pytest.approx(m + alone.shared_s / 4 + estimate.WORKFLOW_START_S)
    assert alone.wall_s > beside.wall_s and "measured points alone" in alone.text("plan")
    assert estimate.estimate(_plan(measured + modelled), "h", cores=4, results=tmp_path, probe=False,
                             measure_alone=["all"]).alone_s == pytest.approx(m)
    j = alone.to_json()
    assert sorted(j["alone"]) == sorted(p.key for p in alone.points if p.executor != "model")
    p = estimate.Progress(j)
    assert p.left(0.0) == pytest.approx(m + alone.shared_s / 4)  # the plan's own schedule, nothing done
    k = j["alone"][0]
    p.started(k, 0.0)
    assert p.left(1.0) == pytest.approx(p.left(0.0) - 1.0)   # the running alone point counts down


def test_measure_alone_names_families(tmp_path):
    from workflows.harness import ConfigError, profile

    cfg = profile.validate_config({"scale": "t", "measure_alone": ["tiering", "all"]})
    assert cfg["measure_alone"] == ["tiering", "all"]
    assert profile.validate_config({"scale": "t"})["measure_alone"] == []
    with pytest.raises(ConfigError, match="measure_alone: no family 'tierin'"):
        profile.validate_config({"scale": "t", "measure_alone": ["tierin"]})


@pytest.mark.parametrize("known, says", [
    (("kvm", "a KVM boot reported in 3 s"), "under KVM here (a KVM boot reported in 3 s)"),
    (("tcg", "/dev/kvm absent or not usable"), "under TCG here (/dev/kvm absent or not usable)"),
    (None, "chosen at its first boot"),
])
def test_plan_says_which_accelerator_the_guest_estimate_assumes(known, says, monkeypatch):
    from types import SimpleNamespace

    from workflows.harness import runner

    monkeypatch.setattr(runner, "launcher", lambda r: SimpleNamespace(accel_known=lambda: known))
    note = cli._guest_accel_note("qemu-numa")
    assert says in note and (("upper bound" in note) == (known is not None and known[0] == "kvm"))


def test_plan_of_a_guest_config_without_host_names_the_configs_guest(monkeypatch, capsys, tmp_path):
    # `cli plan --configfile workflows/config/qemu.yaml` (no --host) took the accelerator note's host
    # from --host: a traceback (None is not a path) after the guest had booted for its facts
    from types import SimpleNamespace

    from workflows.harness import runner

    monkeypatch.setattr(runner, "launcher", lambda r: SimpleNamespace(accel_known=lambda: ("tcg", "no KVM")))
    monkeypatch.setattr(estimate, "REPO", tmp_path)
    args = SimpleNamespace(host=None, cores="2", no_probe=True, save=None, project="none", configfile="c.yaml",
                           all_points=False)
    pl = _plan([_row("fam", "a", MEMCHAR_BW, executor="guest")])
    assert cli._plan(args, {"host": "qemu-numa"}, {"name": "qemu-numa"}, pl) == 0
    assert "note: the guest boots under TCG here (no KVM)" in capsys.readouterr().out


def test_a_guest_point_is_current_only_beside_its_batch(tmp_path):
    from workflows.harness.provenance import digest

    row = _row("fam", "g", MEMCHAR_BW, executor="guest")
    d = tmp_path / plan.key(row)
    d.mkdir(parents=True)
    (d / "result.csv").write_text("metric,value\nx,1\n")
    (d / "meta.json").write_text(json.dumps({"row_sha256": digest(row)}))
    # the batch deleted: the workflow boots the guest again and remakes every guest point from it
    assert not estimate.has_current_result(tmp_path, row)
    (tmp_path / "guest" / "batch").mkdir(parents=True)
    assert estimate.has_current_result(tmp_path, row)


def test_plan_counts_only_the_points_without_a_current_result(tmp_path):
    from workflows.harness.provenance import digest

    fam = [_row("fam", f"p{i}", MEMCHAR_BW) for i in range(3)]
    other = [_row("other", "q", MEMCHAR_BW)]
    pl = plan.Plan(families={"fam": type("FP", (), {"figures": ["f1", "f2"]})(),
                             "other": type("FP", (), {"figures": ["g"]})()},
                   points={plan.key(r): r for r in fam + other})

    def result(row, sha):
        d = tmp_path / plan.key(row)
        d.mkdir(parents=True)
        (d / "result.csv").write_text("metric,value\nx,1\n")
        (d / "meta.json").write_text(json.dumps({"row_sha256": sha}))

    result(fam[0], digest(fam[0]))           # current: not counted
    result(fam[1], "0" * 16)                 # written by another row: Snakemake reruns it
    (tmp_path / plan.key(fam[2])).mkdir(parents=True)  # a meta.json without its result.csv
    (tmp_path / plan.key(fam[2]) / "meta.json").write_text(json.dumps({"row_sha256": digest(fam[2])}))
    result(other[0], digest(other[0]))       # the family's only point is current, and its figure made:
    (tmp_path / "figures").mkdir()           # no tables or figures to count
    (tmp_path / "figures" / "g.png").write_bytes(b"png")
    assert [estimate.has_current_result(tmp_path, r) for r in fam + other] == [True, False, False, True]

    every = estimate.estimate(pl, "h", cores=2, results=tmp_path, probe=False)
    left = estimate.estimate(pl, "h", cores=2, results=tmp_path, probe=False, skip_current=True)
    assert len(every.points) == 4 and every.current == 0 and every.figures == 3
    assert sorted(p.key for p in left.points) == sorted(plan.key(r) for r in fam[1:])
    assert left.current == 2 and left.figures == 2 and set(left.families()) == {"fam"}
    assert left.wall_s < every.wall_s
    head = left.text("[plan] c on h").splitlines()[0]
    assert head.startswith("[plan] c on h: 2 of 4 points to run (2 have results), ~")
    assert every.text("[plan] c on h").splitlines()[0].startswith("[plan] c on h: 4 points, ~")
    # a current point's benchmark file still calibrates its family's points left to run
    bench = tmp_path / "benchmarks" / f"{plan.key(fam[0])}.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text(f"s\th:m:s\n{3 * estimate.measured_seconds(fam[0]):.4f}\t0:00:09\n")
    scaled = estimate.estimate(pl, "h", cores=2, results=tmp_path, probe=False, skip_current=True)
    assert {p.source for p in scaled.points} == {"durations*benchmark"}
    assert scaled.points[0].seconds == pytest.approx(3 * left.points[0].seconds, rel=1e-3)

    for r in fam[1:]:
        d = tmp_path / plan.key(r)
        (d / "result.csv").write_text("metric,value\nx,1\n")
        (d / "meta.json").write_text(json.dumps({"row_sha256": digest(r)}))
    none = estimate.estimate(pl, "h", cores=2, results=tmp_path, probe=False, skip_current=True)
    # every point done; family fam's figures not made (a run stopped before them): they are left
    assert not none.points and none.current == 4 and none.figures == 2 and none.tails_only == {"fam"}
    assert none.to_json()["tail_s"] == {"fam": pytest.approx(estimate.PER_FAMILY_S + 2 * estimate.PER_FIGURE_S)}
    assert none.wall_s == pytest.approx(estimate.WORKFLOW_START_S + (estimate.PER_FAMILY_S + 2 * estimate.PER_FIGURE_S) / 2)
    assert "left: the tables and figures of fam" in none.text("plan")
    for n in ("f1", "f2"):
        (tmp_path / "figures" / f"{n}.png").write_bytes(b"png")
    none = estimate.estimate(pl, "h", cores=2, results=tmp_path, probe=False, skip_current=True)
    assert not none.points and none.figures == 0 and not none.tails_only
    assert none.wall_s == pytest.approx(estimate.WORKFLOW_START_S)
    assert "nothing is left to run" in none.text("plan")


def test_follow_counts_a_familys_figures_until_its_figures_job_ends(tmp_path):
    f = tmp_path / "estimate.json"
    f.write_text(json.dumps({"points": {"fam/e/a/rep0": 10.0}, "measured": {"fam/e/a/rep0": 10.0}, "cores": 2,
                             "build_s": 0.0, "start_s": 0.0, "tail_s": {"fam": 40.0}}))
    log = SNAKEMAKE_LOG.split("1 of 3")[0] + """\
rule figures:
    input: results/h/fam/measurements.csv
    jobid: 12
    wildcards: host=h, family=fam
Finished jobid: 12 (Rule: figures)
localrule figure:
    jobid: 13
    wildcards: host=h, figure=x
Finished jobid: 13 (Rule: figure)
"""
    out = io.StringIO()
    ticks = iter([0.0, 0.0, 10.0, 20.0, 30.0, 31.0, 32.0])  # the start, then each job's start and end
    assert estimate.follow(f, io.StringIO(log), out, clock=lambda: next(ticks)) == 0
    progress = [ln for ln in out.getvalue().splitlines() if ln.startswith("[progress]")]
    # after the last point its family's tables and figures are left (40 s over 2 cores); then nothing
    assert progress == ["[progress] 1/1 points done, 10 s elapsed, ~20 s left",
                        "[progress] 1/1 points done, 30 s elapsed, ~0 s left"]


def test_the_busy_note_counts_what_other_work_keeps_busy_now(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal guest guest_nice, then a per-CPU line
    stat.write_text("cpu  100 0 50 1000 50 0 0 0 30 0\ncpu0 50 0 25 500 25 0 0 0 15 0\n")
    later = "cpu  250 10 90 1100 50 0 0 50 80 0\ncpu0 1 1 1 1 1 1 1 1 1 1\n"
    monkeypatch.setattr(estimate.os, "cpu_count", lambda: 2)
    # 250 of 350 jiffies busy (user, nice, system, steal; guest is inside user), on 2 CPUs
    busy = estimate.cpus_busy(0.5, stat, sleep=lambda s: stat.write_text(later))
    assert busy == pytest.approx(2 * 250 / 350)
    assert estimate.cpus_busy(0.5, tmp_path / "absent", sleep=lambda s: None) is None
    stat.write_text("intr 1 2 3\n")
    assert estimate.cpus_busy(0.5, stat, sleep=lambda s: None) is None

    monkeypatch.setattr(estimate, "cpus_busy", lambda: 1.5)
    assert estimate.busy_note(2).startswith("this machine is busy now (other work kept 1.5 of its 2 CPUs busy")
    assert estimate.busy_note(4) is None                  # not half of the 4 cores the run may use
    monkeypatch.setattr(estimate, "cpus_busy", lambda: None)
    assert estimate.busy_note(2) is None


def test_plan_counts_every_point_where_the_run_forces_reruns(monkeypatch, capsys):
    monkeypatch.setattr(estimate, "has_current_result", lambda results, row: True)
    monkeypatch.setattr(estimate, "busy_note", lambda cores: None)
    base = ["plan", "--host", "auto", "--no-probe", "--cores", "2", "--project", "none"]
    assert cli.main(base) == 0
    head = capsys.readouterr().out.splitlines()[0]
    n = int(head.split(" of ")[1].split()[0])
    assert head.split(": ", 1)[1].startswith(f"0 of {n} points to run ({n} have results)")
    assert cli.main([*base, "--all-points"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split(": ", 1)[1].startswith(f"{n} points, ~")
    # make run passes --all-points where SMK_ARGS makes Snakemake rerun current jobs
    for smk, forced in (("--forceall", True), ("-R point", True), ("--forcerun=point", True), ("-n", False), ("", False)):
        r = subprocess.run(["make", "-n", "-o", "build", "run", f"SMK_ARGS={smk}"], capture_output=True, text=True, cwd=estimate.REPO)
        assert ("--all-points" in r.stdout) == forced, (smk, r.stdout[-500:])
