"""memchar's streaming kernels against likwid-bench's matching ones, in interleaved pairs.

``python -m bench likwid`` (or ``python -m bench.bench_likwid [--reps N] [--threads 1,2] ...``):
for each memchar op (read, write, ntwrite) and thread count, memchar ``bandwidth`` and the
likwid-bench kernel of the same access width run in turn, A B A B ... (so load from other jobs on a
shared machine falls on both alike), ``--reps`` times each; the medians and their ratio
(memchar / likwid-bench) are printed, with every sample. A standing cross-check: on a quiet machine
the ratios sit near 1; run it again after touching memchar's kernels.

Matching kernels (x86-64, where memchar's kernels issue 16 B SSE2 accesses, ``access_bytes``):
``read`` (movdqa loads, summed) vs ``load_sse`` (movaps loads), ``write`` (movdqa stores) vs
``store_sse`` (movaps stores), ``ntwrite`` (movntdq) vs ``store_mem_sse`` (movntpd). The likwid
kernels are generated from likwid's ``bench/x86-64/<kernel>.ptt`` files (e.g. store_mem_sse.ptt:
four ``movntpd`` of 16 B per 64 B). Both tools count only the bytes the program reads or writes
(no write-allocate traffic) and report MB/s of 10^6 B. Needs likwid-bench (Debian package
``likwid``); without it, or off x86-64, the benchmark says so and exits 0.

Page size matters more than the kernel: on the development VM (KVM, nested paging) memchar's
single-thread read on THP-backed buffers was 1.6x likwid-bench's ``load_sse`` on its 4 KiB pages,
and about 1.06x with ``--huge off``; so memchar runs with ``--huge off`` here by default (Debian's
THP default is ``madvise``; a 1 GB likwid-bench buffer showed AnonHugePages 0 in smaps_rollup).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# memchar op -> (likwid-bench kernel, its access width in bytes: likwid bench/x86-64/<kernel>.ptt)
KERNELS = {"read": ("load_sse", 16), "write": ("store_sse", 16), "ntwrite": ("store_mem_sse", 16)}
_MBPS = re.compile(r"^MByte/s:\s+([0-9.eE+-]+)\s*$", re.M)


def parse_likwid(text: str) -> float:
    """likwid-bench's ``MByte/s:`` line (10^6 B/s); ValueError when it is missing."""
    m = _MBPS.search(text)
    if not m:
        raise ValueError("no 'MByte/s:' line in likwid-bench's output")
    return float(m.group(1))


def parse_memchar(text: str) -> tuple[float, int]:
    """memchar bandwidth CSV -> (MB/s of its bandwidth row, access_bytes); a failed check is an error."""
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r.get("metric") == "bandwidth"]
    if len(rows) != 1:
        raise ValueError(f"memchar printed {len(rows)} bandwidth rows, want 1")
    if rows[0]["verified"] != "1":
        raise ValueError("memchar's result check failed")
    return float(rows[0]["value"]), int(rows[0]["access_bytes"])


def ratio_table(samples: dict[tuple[str, int], dict[str, list[float]]]) -> list[dict]:
    """Per (op, threads): medians of each side and memchar / likwid-bench."""
    out = []
    for (op, t), s in samples.items():
        a, b = statistics.median(s["memchar"]), statistics.median(s["likwid"])
        out.append({"op": op, "likwid_kernel": KERNELS[op][0], "threads": t, "memchar_mbps": a,
                    "likwid_mbps": b, "ratio": a / b if b > 0 else float("nan"), "n": len(s["memchar"])})
    return out


def _run(argv: list[str], timeout: float) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, start_new_session=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {out.returncode}: {out.stderr.strip()[-300:]}")
    return out.stdout


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench_likwid", description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3, help="pairs per point (>= 3; medians)")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--ops", default="read,write,ntwrite", help="memchar ops (read, write, ntwrite)")
    ap.add_argument("--buffer-mib", type=int, default=256, help="per thread, both tools (default 256)")
    ap.add_argument("--duration", type=float, default=1.0, help="memchar seconds per run (likwid picks its own, ~1 s)")
    ap.add_argument("--huge", default="off", choices=["auto", "on", "off", "thp", "hugetlb"],
                    help="memchar's page backing (default off: 4 KiB pages, as likwid-bench's buffers get when "
                         "THP is madvise-only, as on Debian)")
    ap.add_argument("--memchar", default=str(ROOT / "build/bin/memchar"))
    ap.add_argument("--out", type=Path, help="also write every sample as CSV here")
    a = ap.parse_args(argv)
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        threads = []
    ops = a.ops.split(",")
    bad = ([f"--reps {a.reps} (at least 3)"] if a.reps < 3 else []) + \
          ([f"--threads {a.threads!r}"] if not threads or min(threads) < 1 else []) + \
          [f"--ops: unknown op {o!r} (read, write, ntwrite)" for o in ops if o not in KERNELS]
    if bad:
        print(f"tierbench: error: {bad[0]}", file=sys.stderr)
        return 2
    if platform.machine() != "x86_64":
        print(f"bench likwid: skipped: the matching likwid-bench kernels are x86-64 ones (this is {platform.machine()})")
        return 0
    likwid = shutil.which("likwid-bench")
    if not likwid:
        print("bench likwid: skipped: no likwid-bench (Debian package likwid)")
        return 0
    if not os.access(a.memchar, os.X_OK):
        print(f"tierbench: error: no memchar at {a.memchar} (make build)", file=sys.stderr)
        return 2
    ncpu = len(os.sched_getaffinity(0))
    threads = [t for t in threads if t <= ncpu] or [1]
    samples: dict[tuple[str, int], dict[str, list[float]]] = {}
    rows = []
    print(f"memchar vs likwid-bench, {a.reps} interleaved pairs per point (memchar first), "
          f"{a.buffer_mib} MiB per thread, CPUs 0..T-1, memchar --huge {a.huge}")
    for op in ops:
        kernel, lw_width = KERNELS[op]
        for t in threads:
            s = samples.setdefault((op, t), {"memchar": [], "likwid": []})
            cpus = ",".join(map(str, range(t)))
            for rep in range(a.reps):
                mc, width = parse_memchar(_run([a.memchar, "bandwidth", "--cpus", cpus, "--op", op, "--threads", str(t),
                                                "--buffer-mib", str(a.buffer_mib), "--duration", str(a.duration),
                                                "--huge", a.huge], 300))
                # likwid-bench -w <domain>:<size>:<threads>: N is the whole node, threads on its
                # hardware threads in order (the size is all threads' together, in 10^6 B)
                lw = parse_likwid(_run([likwid, "-t", kernel, "-w", f"N:{a.buffer_mib * t}MB:{t}"], 300))
                s["memchar"].append(mc)
                s["likwid"].append(lw)
                rows += [{"tool": "memchar", "op": op, "kernel": op, "threads": t, "rep": rep, "mbps": mc,
                          "access_bytes": width},
                         {"tool": "likwid-bench", "op": op, "kernel": kernel, "threads": t, "rep": rep, "mbps": lw,
                          "access_bytes": lw_width}]
                print(f"  {op:8s} T={t} pair {rep + 1}: memchar {mc:9.0f}  {kernel:14s} {lw:9.0f} MB/s", flush=True)
    print(f"{'op':8s} {'likwid kernel':14s} {'bytes/access':>12s} {'T':>2s} {'memchar MB/s':>13s} "
          f"{'likwid MB/s':>12s} {'ratio':>6s}")
    for r in ratio_table(samples):
        width = next(x["access_bytes"] for x in rows if x["tool"] == "memchar" and x["op"] == r["op"])
        widths = f"{width} / {KERNELS[r['op']][1]}"
        print(f"{r['op']:8s} {r['likwid_kernel']:14s} {widths:>12s} {r['threads']:2d} "
              f"{r['memchar_mbps']:13.0f} {r['likwid_mbps']:12.0f} {r['ratio']:6.3f}")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
