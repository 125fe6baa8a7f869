"""Where an application's memory accesses go, measured: ``python -m families.apps.trace -- COMMAND...``.

Runs COMMAND (single-threaded: OMP_NUM_THREADS=1) under valgrind's lackey, which reports every
load and store; keeps only the accesses that miss a 32 KiB direct-mapped filter of 64-byte lines
(so a line streamed word by word counts once, as the memory system sees it), and counts them per
4 KiB page. From that it reports, as JSON:

- ``two_level``: the hot set of a two-level model (tiersim's ``gups`` workload): the densest
  pages, as many as maximise (share of accesses - share of pages), their share of the pages
  (``hot_fraction``) and of the accesses (``hot_share``);
- ``zipf_theta``: the slope of log(accesses) against log(rank) over the pages that take 90 % of
  the accesses (tiersim's ``zipf`` workload);
- the largest contiguous segments of pages and their shares (e.g. a graph's vertex and edge
  arrays), the counts, the command and valgrind's version.

This is how families/apps/models.yaml was derived (see docs/apps-models.md). Standard library only;
it needs valgrind.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LINE, PAGE, FILTER_LINES = 6, 12, 512  # 64 B lines, 4 KiB pages, 512 lines = 32 KiB


def page_misses(lines) -> collections.Counter:
    """lackey's trace lines -> misses per page through the line filter."""
    tags = [-1] * FILTER_LINES
    counts: collections.Counter = collections.Counter()
    for line in lines:
        if line[:2] in (" L", " S", " M"):
            a = int(line[3:].split(",", 1)[0], 16)
            ln = a >> LINE
            s = ln & (FILTER_LINES - 1)
            if tags[s] != ln:
                tags[s] = ln
                counts[a >> PAGE] += 1
    return counts


def two_level(counts: dict[int, int]) -> dict:
    """The hot set that maximises share of accesses minus share of pages (the knee)."""
    c = sorted(counts.values(), reverse=True)
    total, n = sum(c), len(c)
    best, cum, best_k = -1.0, 0, 0
    for k, v in enumerate(c, 1):
        cum += v
        if cum / total - k / n > best:
            best, best_k, best_cum = cum / total - k / n, k, cum
    return {"hot_fraction": round(best_k / n, 4), "hot_share": round(best_cum / total, 4), "hot_pages": best_k}


def zipf_theta(counts: dict[int, int], cover: float = 0.9) -> float:
    c = sorted(counts.values(), reverse=True)
    total, cum, xs, ys = sum(c), 0, [], []
    for k, v in enumerate(c, 1):
        xs.append(math.log(k))
        ys.append(math.log(v))
        cum += v
        if cum >= cover * total:
            break
    if len(xs) < 2:
        return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return round(-sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs), 3)


def segments(counts: dict[int, int], top: int = 5) -> list[dict]:
    pages = sorted(counts)
    total, n = sum(counts.values()), len(pages)
    segs, start, prev = [], pages[0], pages[0]
    for p in pages[1:] + [None]:
        if p != prev + 1 if p is not None else True:
            segs.append((start, prev))
            start = p
        prev = p if p is not None else prev
    out = [{"pages": e - s + 1, "page_share": round((e - s + 1) / n, 4),
            "access_share": round(sum(counts[q] for q in range(s, e + 1) if q in counts) / total, 4)} for s, e in segs]
    return sorted(out, key=lambda x: -x["access_share"])[:top]


def analyse(counts: dict[int, int]) -> dict:
    return {"pages": len(counts), "misses": sum(counts.values()), "two_level": two_level(counts),
            "zipf_theta": zipf_theta(counts), "segments": segments(counts)}


def trace(command: list[str]) -> dict:
    if not shutil.which("valgrind"):
        raise SystemExit("tierbench: error: valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "lackey"
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        r = subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-file={log}", *command],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit(f"tierbench: error: {command[0]} exited with {r.returncode} under valgrind: {r.stderr[-500:]}")
        with open(log) as f:
            counts = page_misses(f)
    version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    return {"command": command, "valgrind": version, "filter": "32 KiB direct-mapped, 64 B lines; 4 KiB pages",
            **analyse(counts)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the program and its arguments (after --)")
    args = ap.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("give the command to trace after --")
    json.dump(trace(cmd), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
