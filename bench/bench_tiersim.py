"""tiersim points per second at the paper scale, this tree's binary against main's before issue 27.

    python -m bench tiersim [-- [--base-rev REV | --base-bin PATH] [--reps N] [--config quick]]

The points are the config's tiering steady-state points at the paper scale (72 GiB working set, 100
simulated seconds), one per system and Colloid on/off, with their argv exactly as the plan makes them
(``build/bin/tiersim ...``). Each point runs with this tree's ``build/bin/tiersim`` and with the base
binary in turn (A, B, A, B, ...: load from other users of the machine falls on both alike), ``--reps``
times each. The base binary is built from ``--base-rev`` (default a7f7932, main before issue 27's speed-up)
into a temporary directory (``git archive``, ``make -C colloid/sim``), or taken from ``--base-bin``.
Printed per point: the CPU seconds of each binary (user + system, median of the reps; on a shared
machine the wall time also counts waiting for a CPU, so it is printed beside them but not used),
points per CPU second, the ratio, and whether the two outputs agree (the measured
``policy_cpu_share``/``cpu_overhead`` rows left out). Rates,
no verdict: a timing is never asserted.
"""

from __future__ import annotations

import argparse
import os
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


def run_once(binary: Path, args: list[str]) -> tuple[float, float, str]:
    """One run: its wall seconds, its CPU seconds (user + system, from wait4) and its output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen([str(binary), *args], stdout=out, stderr=err, cwd=REPO)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, msg = out.read().decode(), err.read().decode()
    if p.returncode:
        raise RuntimeError(f"{binary} failed ({p.returncode}): {msg.strip()[-300:]}")
    kept = "".join(line for line in text.splitlines(True) if not any(m in line for m in MEASURED))
    return wall, ru.ru_utime + ru.ru_stime, kept


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
        print("points/s from CPU seconds (user + system of the run: waiting for a shared CPU does not count);"
              " wall seconds beside them")
        print(f"{'point':<16} {'base_cpu_s':>10} {'new_cpu_s':>10} {'base_pts/s':>10} {'new_pts/s':>10} {'ratio':>6}"
              f" {'base_wall_s':>11} {'new_wall_s':>10}  same")
        ratios = []
        for name, args in points.items():
            wb, wn, cb, cn, same = [], [], [], [], True
            try:  # a system the base predates (damon before a7f7932's successors): this tree's rate alone
                run_once(base, [*args, "--check"])
            except RuntimeError as e:
                for _ in range(a.reps):
                    w, c, _out = run_once(new, args)
                    wn.append(w)
                    cn.append(c)
                mn = statistics.median(cn)
                print(f"{name:<16} {'n/a':>10} {mn:10.3f} {'n/a':>10} {1 / mn:10.2f} {'n/a':>6} {'n/a':>11}"
                      f" {statistics.median(wn):10.3f}  (base cannot run it: {str(e).splitlines()[-1][-80:]})")
                continue
            for _ in range(a.reps):
                w, c, ob = run_once(base, args)
                wb.append(w)
                cb.append(c)
                w, c, on = run_once(new, args)
                wn.append(w)
                cn.append(c)
                same &= ob == on
            mb, mn = statistics.median(cb), statistics.median(cn)
            ratios.append(mb / mn)
            print(f"{name:<16} {mb:10.3f} {mn:10.3f} {1 / mb:10.2f} {1 / mn:10.2f} {mb / mn:6.2f}"
                  f" {statistics.median(wb):11.3f} {statistics.median(wn):10.3f}  {'yes' if same else 'NO'}")
        if ratios:
            print(f"geometric mean ratio (CPU, the points both binaries run): {statistics.geometric_mean(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
