"""GUPS's score on this host measured again, round after round: how often the fidelity goal is met here.

    python -m bench fidelity_rounds [-- [--rounds N] [--families tiering,apps] [--host-dir results/HOST]
                                       [--config quick] [--host auto]]

``bench fidelity`` scores one ``make run``. On a host whose measurements drift, one run's score says
little about the next, so this benchmark measures the repeatability the score is judged against.
It copies a ``make run``'s results directory to a scratch directory and, ``--rounds`` times,
measures the single-node contention points of ``--families`` again there (tiering, the default:
GUPS with the latency probe after it, beside the antagonist at each intensity; apps: each
application alone and beside it), the config's points as planned, each run as its workflow job
runs it (``python -m workflows.harness.point``), the intensities in turn, and scores the round with
the fidelity driver, its calibration refitted on that round's 0x points as ``make run`` does. Every
other input (the loaded-latency curves, the bandwidth experiment) is the copied run's.

Printed per round: GUPS's measured and predicted throughput at each intensity with the error and
the probe's latencies, each application's measured and predicted slowdowns, the median |error| per
metric, and the median |error| of GUPS's throughput over the validation intensities (the issue-25
goal: <= 10 %); then in how many rounds that median met the goal, each metric's median |error|
round by round, and how far GUPS alone (0x) moved between rounds. Nothing under results/ changes. The points take the host lock of the
scratch directory only: run it with nothing else running (a ``make run`` beside it would measure
both wrong).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from bench.bench_fidelity import OUTPUTS, host_name, run_driver, scratch_copy

REPO = Path(__file__).resolve().parents[1]
EXPERIMENT = "contention_single_node"
FAMILIES = ("tiering", "apps")  # the families whose single-node contention points the model scores
GOAL = 0.10


def points(config: str, host: str, families: list[str]) -> list[dict]:
    """The config's measured single-node contention points of ``families``, in that order, each
    workload's 0x first."""
    from bench.modelrows import planned  # noqa: PLC0415 - loads the planner

    rows = [r for r in planned(config, host, "host") if r["family"] in families and r["experiment"] == EXPERIMENT]

    def order(r: dict) -> tuple:
        ctx = r.get("context") or {}
        return (families.index(r["family"]), str(ctx.get("workload", "")), float(ctx.get("intensity", 0)), r["point"],
                r["rep"])

    return sorted(rows, key=order)


def run_point(row: dict, host: Path, log: Path) -> None:
    """One measured point into ``host`` as its workflow job runs it; a stop (Ctrl-C) ends it by pid
    (the point runner stops its own children: workflows/harness/procs.py)."""
    from workflows.harness import plan  # noqa: PLC0415

    out = host / row["family"] / row["experiment"] / row["point"] / f"rep{row['rep']}"
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        p = subprocess.Popen([sys.executable, "-m", "workflows.harness.point", "--outdir", str(out), "--results", str(host),
                              "--facts", str(host / "host_facts.json"), "-"], cwd=REPO, stdin=subprocess.PIPE,
                             stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            p.communicate(plan.row_json(row).encode())
        except BaseException:
            p.send_signal(signal.SIGTERM)
            p.wait()
            raise
    if p.returncode:
        tail = log.read_text().strip().splitlines()[-5:]
        raise RuntimeError(f"point {row['point']} failed ({p.returncode}):\n  " + "\n  ".join(tail))


def score(host: Path, families: list[str]) -> pd.DataFrame:
    for f in OUTPUTS:
        (host / f).unlink(missing_ok=True)
    p = run_driver(host)
    if p.returncode or not (host / "fidelity.csv").exists():
        raise RuntimeError(f"the fidelity driver failed: {(p.stderr or p.stdout).strip()[-400:]}")
    df = pd.read_csv(host / "fidelity.csv")
    return df[df["family"].isin(families) & (df["experiment"] == EXPERIMENT)]


def show(r: int, df: pd.DataFrame) -> tuple[float | None, float | None, dict[str, float]]:
    """Print one round's rows; (GUPS's median |error| over the validation intensities, GUPS at 0x,
    metric -> the median |error| of its validation rows)."""
    gups = df[(df["workload"] == "gups") & (df["metric"] == "throughput_mops")].sort_values("point")
    probe = df[df["metric"] == "latency_ns"].set_index("point")
    apps = df[df["metric"] == "slowdown_vs_0x"]
    print(f"round {r}:")
    if len(gups):
        print(f"  {'point':10s} {'role':12s} {'GUPS Mops/s':>11s} {'predicted':>10s} {'error':>7s} {'probe ns':>9s} "
              f"{'predicted':>10s}")
    for x in gups.itertuples():
        pr = probe.loc[x.point] if x.point in probe.index else None
        lat = f"{pr['measured']:9.1f} {pr['predicted']:10.1f}" if pr is not None else f"{'-':>9s} {'-':>10s}"
        print(f"  {x.point:10s} {x.role:12s} {x.measured:11.2f} {x.predicted:10.2f} {x.rel_error:+7.1%} {lat}")
    if len(apps):
        print(f"  {'point':18s} {'role':12s} {'slowdown':>9s} {'predicted':>10s} {'error':>7s}")
    for x in apps.itertuples():
        print(f"  {x.point:18s} {x.role:12s} {x.measured:9.3f} {x.predicted:10.3f} {x.rel_error:+7.1%}")
    val = df[df["role"] == "validation"]
    per = {str(m): float(g["rel_error"].abs().median()) for m, g in val.groupby("metric")}
    if per:
        print("  median |error|: " + ", ".join(f"{m} {v:.1%}" for m, v in per.items()))
    v = gups[gups["role"] == "validation"]
    med = float(v["rel_error"].abs().median()) if len(v) else None
    alone = gups[gups["role"] == "calibration"]["measured"]
    if med is not None:
        print(f"  GUPS throughput: median |error| {med:.1%} over {len(v)} validation intensities "
              f"({'within' if med <= GOAL else 'outside'} the goal, <= {GOAL:.0%})")
    return med, (float(alone.iloc[0]) if len(alone) else None), per


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench fidelity_rounds", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the contention points (default 5)")
    ap.add_argument("--host-dir", type=Path, default=None, help="a make run's results/<host> (default: this host's)")
    ap.add_argument("--config", default="quick", help="the experiment config the run used (default quick)")
    ap.add_argument("--host", default="auto", help="the host profile the run used (default auto)")
    ap.add_argument("--families", default="tiering",
                    help=f"comma-separated families whose contention points are measured ({', '.join(FAMILIES)}; "
                         "default tiering)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    families = [f for f in args.families.split(",") if f]
    if not families or any(f not in FAMILIES for f in families):
        ap.error(f"--families: {args.families!r}: a comma-separated list of {', '.join(FAMILIES)}")
    src = args.host_dir or (REPO / "results" / (host_name() or "auto"))
    if not (src / "host_facts.json").exists():
        print(f"bench fidelity_rounds: skipped: {src} has no measured results (run `make run` first)")
        return 0
    rows = points(args.config, args.host, families)
    what = "/".join(families) + f" {EXPERIMENT}"
    if not rows:
        print(f"bench fidelity_rounds: skipped: the {args.config} config plans no measured {what} point on host "
              f"{args.host} (a model profile, a guest, or the points are disabled)")
        return 0
    meds: list[float] = []
    alone: list[float] = []
    by_metric: dict[str, list[float]] = {}
    # a stop (SIGTERM as Ctrl-C) ends the point running, by pid, and removes the scratch copy
    before = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        rc = run_rounds(args, src, rows, families, what, meds, alone, by_metric)
    except KeyboardInterrupt:
        print("bench fidelity_rounds: stopped (the point running was ended, the scratch copy removed)", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, before)
    if rc:
        return rc
    summary(meds, alone, by_metric)
    return 0


def run_rounds(args: argparse.Namespace, src: Path, rows: list[dict], families: list[str], what: str, meds: list[float],
               alone: list[float], by_metric: dict[str, list[float]]) -> int:
    """The rounds, in a scratch copy of ``src``; 1 after an error line."""
    with tempfile.TemporaryDirectory(prefix="bench-fidelity-rounds-") as tmp:
        host = Path(tmp) / src.name
        scratch_copy(src, host)
        (host / "measurements.csv").unlink(missing_ok=True)  # the driver then reads each point's result.csv
        logs = Path(tmp) / "logs"
        logs.mkdir()
        print(f"{len(rows)} point(s) of {what} ({args.config} on {args.host}), {args.rounds} round(s), "
              f"scored with {src}'s curves")
        for r in range(1, args.rounds + 1):
            t0 = time.monotonic()
            for row in rows:
                try:
                    run_point(row, host, logs / f"r{r}-{row['point']}-rep{row['rep']}.log")
                except RuntimeError as e:
                    print(f"bench fidelity_rounds: error: round {r}: {e}", file=sys.stderr)
                    return 1
            try:
                med, x0, per = show(r, score(host, families))
            except RuntimeError as e:
                print(f"bench fidelity_rounds: error: round {r}: {e}", file=sys.stderr)
                return 1
            print(f"  ({time.monotonic() - t0:.0f} s)")
            if med is not None:
                meds.append(med)
            if x0 is not None:
                alone.append(x0)
            for m, v in per.items():
                by_metric.setdefault(m, []).append(v)
    return 0


def summary(meds: list[float], alone: list[float], by_metric: dict[str, list[float]]) -> None:
    if meds:
        ok = sum(m <= GOAL for m in meds)
        print(f"GUPS median |error| per round: {', '.join(f'{m:.1%}' for m in meds)}; within {GOAL:.0%} in {ok} of "
              f"{len(meds)} rounds (median of the rounds {statistics.median(meds):.1%})")
    for m, vs in by_metric.items():
        print(f"{m}: median |error| per round {', '.join(f'{v:.1%}' for v in vs)} (median {statistics.median(vs):.1%})")
    if len(alone) > 1:
        print(f"GUPS alone (0x) across rounds: {min(alone):.2f}-{max(alone):.2f} Mops/s, the largest "
              f"{max(alone) / min(alone):.2f}x the smallest")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
