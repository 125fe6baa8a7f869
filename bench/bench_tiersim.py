"""tiersim points per second at the paper scale, this tree's binary against main's before issue 27.

    python -m bench tiersim [--base-rev REV | --base-bin PATH] [--reps N] [--config quick]

The points are the config's tiering steady-state points at the paper scale (72 GiB working set, 100
simulated seconds), one per system and Colloid on/off, with their argv exactly as the plan makes them
(``build/bin/tiersim ...``). Each point runs with this tree's ``build/bin/tiersim`` and with the base
binary in turn (A, B, A, B, ...: load from other users of the machine falls on both alike), ``--reps``
times each. The base binary is built from ``--base-rev`` (default a7f7932, main before issue 27's speed-up)
into a temporary directory (``git archive``, ``make -C colloid/sim``), or taken from ``--base-bin``.
Printed per point: the wall time of each binary (median of the reps), points per second, the ratio, and
whether the two outputs agree (the measured ``policy_cpu_share``/``cpu_overhead`` rows left out). Rates,
no verdict: a timing is never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEASURED = ("policy_cpu_share", "cpu_overhead")


def paper_points(config: str) -> dict[str, list[str]]:
    """The config's tiering steady-state points at the paper scale: name -> argv (argv[0] dropped)."""
    from bench.modelrows import planned  # noqa: PLC0415 - loads the planner

    out: dict[str, list[str]] = {}
    for r in planned(config, "paper-testbed"):
        a = (r.get("run") or {}).get("argv") or []
        if not a or not a[0].endswith("tiersim") or "--event" in a:
            continue
        opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1) if a[i].startswith("--")}
        if opt.get("--duration") != "100" or not opt.get("--working-set", "").startswith("72"):
            continue
        name = opt["--system"] + ("+colloid" if opt.get("--colloid") == "on" else "")
        out.setdefault(name, a[1:])
    return out


def build_base(rev: str, into: Path) -> Path:
    src = into / "src"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    subprocess.run(["make", "-s", "-C", str(src / "colloid" / "sim"), f"BUILD={into / 'build'}"], check=True,
                   stdout=subprocess.DEVNULL)
    return into / "build" / "bin" / "tiersim"


def run_once(binary: Path, args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run([str(binary), *args], capture_output=True, text=True, cwd=REPO)
    dt = time.perf_counter() - t0
    if r.returncode:
        raise RuntimeError(f"{binary} failed ({r.returncode}): {r.stderr.strip()[-300:]}")
    kept = "".join(line for line in r.stdout.splitlines(True) if not any(m in line for m in MEASURED))
    return dt, kept


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_tiersim", description=__doc__.splitlines()[0])
    ap.add_argument("--base-rev", default="a7f7932")
    ap.add_argument("--base-bin", type=Path)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--config", default="quick")
    ap.add_argument("--only", help="one point by name, e.g. hemem+colloid")
    a = ap.parse_args(argv)
    new = REPO / "build" / "bin" / "tiersim"
    if not new.exists():
        print(f"tierbench: error: {new} is not built (make build)", file=sys.stderr)
        return 2
    points = paper_points(a.config)
    if a.only:
        points = {k: v for k, v in points.items() if k == a.only}
    if not points:
        print("tierbench: error: no paper-scale tiersim point in the plan", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-tiersim-") as tmp:
        base = a.base_bin or build_base(a.base_rev, Path(tmp))
        print(f"tiersim, paper scale (72 GiB, 100 simulated s), {a.reps} rep(s) each, new and base in turn")
        print(f"base: {a.base_bin or a.base_rev}; new: {new.relative_to(REPO)}")
        print(f"{'point':<16} {'base_s':>8} {'new_s':>8} {'base_pts/s':>10} {'new_pts/s':>10} {'ratio':>6}  same")
        ratios = []
        for name, args in points.items():
            tb, tn, same = [], [], True
            for _ in range(a.reps):
                db, ob = run_once(base, args)
                dn, on = run_once(new, args)
                tb.append(db)
                tn.append(dn)
                same &= ob == on
            mb, mn = statistics.median(tb), statistics.median(tn)
            ratios.append(mb / mn)
            print(f"{name:<16} {mb:8.3f} {mn:8.3f} {1 / mb:10.2f} {1 / mn:10.2f} {mb / mn:6.2f}  {'yes' if same else 'NO'}")
        print(f"geometric mean ratio: {statistics.geometric_mean(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
