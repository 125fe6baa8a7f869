"""``make bench`` / ``python -m bench [NAME...]``: run each benchmark (``bench/bench_*.py``) in turn.

A benchmark prints ratios and figures of merit (points per second, seconds per family, ratios of
paired runs), never a pass/fail verdict on a timing: speed targets are judged by reading them.
Each module has ``main(argv) -> int``; ``NAME`` runs ``bench/bench_NAME.py`` alone, and
``NAME -- ARGS...`` passes ARGS to it (e.g. ``python -m bench fidelity -- --host-dir results/HOST``).
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    args: list[str] = []
    if "--" in argv:
        argv, args = argv[: argv.index("--")], argv[argv.index("--") + 1:]
        if len(argv) != 1:
            print("tierbench: error: arguments after -- go to one benchmark: python -m bench NAME -- ARGS",
                  file=sys.stderr)
            return 2
    names = argv or sorted(p.stem[len("bench_"):] for p in here.glob("bench_*.py"))
    if not names:
        print("bench: no benchmarks (bench/bench_*.py)")
        return 0
    for name in names:  # every name checked before any benchmark runs
        if name.startswith("-"):
            print(f"tierbench: error: {name!r} is not a benchmark; a benchmark's own options go after --: "
                  f"python -m bench NAME -- {name} ...", file=sys.stderr)
            return 2
        if not (here / f"bench_{name}.py").exists():
            print(f"tierbench: error: no benchmark {name!r} (bench/bench_{name}.py)", file=sys.stderr)
            return 2
    worst = 0
    for name in names:
        print(f"== bench {name}", flush=True)
        t0 = time.monotonic()
        rc = importlib.import_module(f"bench.bench_{name}").main(args)
        print(f"== bench {name}: exit {rc} after {time.monotonic() - t0:.0f} s", flush=True)
        worst = max(worst, rc)
    return worst


if __name__ == "__main__":
    from bench import stoppable  # noqa: PLC0415

    sys.exit(stoppable(main, sys.argv[1:]))
