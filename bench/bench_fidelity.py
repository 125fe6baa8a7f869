"""The model's error on this host: fidelity.csv's score, and what each model input changes.

    python -m bench fidelity [-- --host-dir results/HOST]

Reads a results directory that ``make run`` wrote here (default: results/<this host's profile
name>/; the measured points, host_facts.json, the curves and the points' meta.json) and runs the
fidelity driver (workflows/harness/fidelity.py) on copies of it, three ways:

- ``model``: as ``make run`` does (every read ratio the sweep measured; the curve's wall raised to
  the bandwidth experiment's peak where the sweep reached less);
- ``read-only curve``: the same with only the curves' read-only points (what a model fed only
  memchar's read-only loaded-latency curve predicts: the issue's example);
- ``no CPU share``: throughputs not scaled by the CPU share each workload got;
- ``whole-run CPU share``: GUPS's CPU share over its whole run, start-up included (meta.json's
  usage), instead of over the seconds its throughput is averaged on;
- ``antagonist fit at the wall``: ``antagonist_mlp`` fitted by matching tiersim's antagonist
  bandwidth to the measured one (ill-determined where that sits at the curve's wall) instead of
  Little's law on the measured bandwidth and curve;
- ``antagonist share unscaled``: the antagonist's fitted lines in flight used as they are at
  every point, not scaled by the CPU share it got there (its ``antagonist_cpu_share``);
- ``mix1:1 curve``: the 1:1 curve made of memchar's mix1:1 injector's points (stores to lines it
  did not read: its write-allocate reads are not counted) instead of rmw's (curves/injectors/);
- ``curve at the probe's level``: the default tier's curve moved to the level the latency probe
  measured alone at 0x (``latency_offset_ns``, fitted there; ``--with latency-offset``, not the
  default: docs/fidelity.md), so that the loaded points test the curve's shape alone;
- ``as last built``: the mix1:1 curve, the whole-run CPU share, the fit at the wall and the
  unscaled antagonist together (the model before the rmw sweep, the window's CPU share
  and the Little's-law fit);
- ``sweep only``: the curves' walls as the loaded sweep's injectors reached them (no bandwidth
  experiment, no traffic seen at the antagonist's calibration point);
- ``as first built``: the sweep's own walls, no CPU share, the mix1:1 curve and the fit at the
  wall together (the model before this host's misses were fixed).

Printed per way: per metric N, median and worst |error| of the validation rows (and the point), the
median spread of their measurements and how many errors are within it (docs/fidelity.md, "Spread"),
the calibration rows, the unrepresented rows with their reasons, the largest errors, and the
figure of merit: the median |error| of GUPS's predicted throughput over the validation
intensities (goal <= 10 %). Ratios, no verdict; nothing is measured here (the measurements are
``make run``'s).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def host_name() -> str | None:
    p = subprocess.run([sys.executable, "-m", "workflows.harness.cli", "name", "--host", "auto"], cwd=REPO,
                       capture_output=True, text=True, check=False)
    return p.stdout.strip() or None


OUTPUTS = ("fidelity.csv", "fidelity.skipped", "model-profile.yaml")  # what the fidelity driver writes


def scratch_copy(src: Path, host: Path) -> None:
    """A results directory copied for the driver to score again: without figures, logs and the
    report (the driver reads none of them), and without the driver's own outputs."""
    shutil.copytree(src, host, ignore=shutil.ignore_patterns("figures", "logs", "*.png", "*.pdf", "report.html"))
    for f in OUTPUTS:
        (host / f).unlink(missing_ok=True)


def run_driver(host: Path, args: list[str] | tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """The fidelity driver on ``host`` with this tree's tiersim (``args``: its --ablate/--with)."""
    return subprocess.run([sys.executable, "-m", "workflows.harness.fidelity", "--host-dir", str(host),
                           "--tiersim", str(REPO / "build" / "bin" / "tiersim"), *args],
                          cwd=REPO, capture_output=True, text=True, check=False)


def read_only(host: Path) -> None:
    for d in ("curves", "model-curves"):
        for f in (host / d).glob("*.csv"):
            if f.name.endswith(".tail.csv"):
                continue
            df = pd.read_csv(f)
            df[df["read_ratio"] == 1].to_csv(f, index=False)


def mix_curve(host: Path) -> None:
    """The 1:1 curve of each pair from the mix1:1 injector's points (curves/injectors/<pair>.csv)."""
    shutil.rmtree(host / "model-curves", ignore_errors=True)
    for f in (host / "curves" / "injectors").glob("*.csv"):
        inj = pd.read_csv(f)
        mix = inj[inj["op"] == "mix1:1"]
        if mix.empty:
            continue
        cur = host / "curves" / f.name
        df = pd.read_csv(cur)
        df = pd.concat([df[df["read_ratio"] != 0.5], mix[["read_ratio", "bandwidth_mbps", "latency_ns"]]])
        df.sort_values(["read_ratio", "bandwidth_mbps"]).to_csv(cur, index=False, float_format="%.6g")


def sweep_only(host: Path) -> None:
    """No bandwidth experiment: its points and its rows in measurements.csv (where the driver reads
    them when it is there) are gone."""
    shutil.rmtree(host / "characterize" / "bandwidth", ignore_errors=True)
    shutil.rmtree(host / "model-curves", ignore_errors=True)
    whole = host / "measurements.csv"
    if whole.exists():
        df = pd.read_csv(whole, dtype=str, keep_default_na=False)
        df[~((df["family"] == "characterize") & (df["experiment"] == "bandwidth"))].to_csv(whole, index=False)


def score(df: pd.DataFrame) -> None:
    v = df[df["role"] == "validation"].copy()
    v["abs"] = v["rel_error"].abs()
    if "spread" not in v.columns:  # (a fidelity.csv written before the column existed)
        v["spread"] = float("nan")
    print(f"  {'metric':28s} {'N':>3s} {'median':>8s} {'worst':>8s} {'spread':>8s} {'within':>7s}  worst point")
    for metric, g in v.groupby("metric"):
        w = g.loc[g["abs"].idxmax()]
        sp = g[g["spread"].notna()]
        within = f"{int((sp['abs'] <= sp['spread']).sum())}/{len(sp)}" if len(sp) else "-"
        med = f"{sp['spread'].median():8.1%}" if len(sp) else f"{'-':>8s}"
        print(f"  {metric:28s} {len(g):3d} {g['abs'].median():8.1%} {w['abs']:8.1%} {med} {within:>7s}  "
              f"{w['family']}/{w['point']}")
    print(f"  {'overall':28s} {len(v):3d} {v['abs'].median():8.1%}")
    for r in df[df["role"] == "calibration"].itertuples():
        print(f"  calibration: {r.family}/{r.point} {r.metric}: {r.reason}")
    for r in df[df["role"] == "unrepresented"].itertuples():
        print(f"  unrepresented: {r.family}/{r.point} {r.metric}: {r.reason}")
    print("  largest errors:")
    for r in v.sort_values("abs", ascending=False).head(5).itertuples():
        sp = f", its spread \u00b1{r.spread:.1%}" if r.spread == r.spread else ""  # (NaN: none)
        print(f"    {r.family}/{r.point} {r.metric}: measured {r.measured:.4g}, predicted {r.predicted:.4g} {r.unit} "
              f"({r.rel_error:+.1%}{sp})")
    gups = v[(v["workload"] == "gups") & (v["metric"] == "throughput_mops")]
    print(f"  GUPS throughput: median |error| {gups['abs'].median():.1%} over {len(gups)} validation intensities "
          "(goal <= 10 %)" if len(gups) else "  GUPS throughput: no validation intensity")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench fidelity", description=__doc__.splitlines()[0])
    ap.add_argument("--host-dir", type=Path, default=None, help="results/<host> (default: this host's)")
    args = ap.parse_args(argv)
    src = args.host_dir or (REPO / "results" / (host_name() or "auto"))
    if not (src / "host_facts.json").exists():
        print(f"bench fidelity: skipped: {src} has no measured results (run `make run` first)")
        return 0
    # way -> (a change to the copied results, model inputs: a name is left out (--ablate), "+name" is
    # a fit made only when asked (--with))
    ways = {"model": (None, []), "read-only curve": (read_only, []), "no CPU share": (None, ["cpu-share"]),
            "whole-run CPU share": (None, ["process-share"]),
            "antagonist fit at the wall": (None, ["antagonist-wall"]),
            "antagonist share unscaled": (None, ["antagonist-share"]),
            "mix1:1 curve": (mix_curve, []),
            "curve at the probe's level": (None, ["+latency-offset"]),
            "as last built": (mix_curve, ["process-share", "antagonist-wall", "antagonist-share"]),
            "sweep only": (sweep_only, ["observed"]),
            "as first built": (lambda h: (sweep_only(h), mix_curve(h)),
                               ["observed", "cpu-share", "antagonist-wall", "antagonist-share"])}
    with tempfile.TemporaryDirectory(prefix="bench-fidelity-") as tmp:
        for name, (change, ablate) in ways.items():
            host = Path(tmp) / name.replace(" ", "-") / src.name
            scratch_copy(src, host)
            if change:
                change(host)
            p = run_driver(host, [f"--with={a[1:]}" if a.startswith("+") else f"--ablate={a}" for a in ablate])
            print(f"== {name}: {p.stdout.strip() or p.stderr.strip()}")
            if (host / "fidelity.csv").exists():
                score(pd.read_csv(host / "fidelity.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
