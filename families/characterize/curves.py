"""Write measured loaded-latency curves in the tier-model curve format:
``python -m families.characterize.curves --out DIR RESULT.csv ...``.

One file per (CPU node, memory node) pair: ``{pair}.csv`` with columns
``read_ratio,bandwidth_mbps,latency_ns`` (hosts/curves/README.md), ready to be
named by a host profile's model tier (``curve:``). Beside it, ``{pair}.tail.csv``: the latency
distribution at each load point, ``read_ratio,delay,bandwidth_mbps,quantile,latency_ns`` (memchar's
``loaded_latency_quantile`` rows, median over repetitions; quantile 1 is the max), when the results
have them. The tier model uses only the curve's means; the tail file travels with the curve so a
device's profile folder keeps its distributions (docs/hardware-team.md).

Which injector made each point: ``injectors/{pair}.csv`` beside them (``read_ratio,bandwidth_mbps,
latency_ns,op,delay,injectors,in_curve``), every loaded point measured, ``in_curve`` 0 where the
curve took another op's points for that read ratio. Where two ops have the same read ratio (``rmw``
and ``mix1:1``, both 1:1), the curve is the first of :data:`PREFER`'s: ``rmw`` reads a line and
writes it back in place, so the bytes it counts are the bytes the memory moves, as for the
antagonist's and GUPS's read-modify-write traffic; ``mix1:1`` stores to lines it did not read, and
the write-allocate (RFO) read the hardware adds for each of those regular stores is not in its
count (memchar's kernels.c, header comment), so at the same counted bandwidth its memory carries
more than a read-modify-write stream does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from analysis.frame import load

# memchar's loaded-latency injector op -> the read ratio of its traffic
READ_RATIO = {"read": 1.0, "write": 0.0, "ntwrite": 0.0, "rmw": 0.5, "mix1:1": 0.5, "mix2:1": 2 / 3, "mix3:1": 0.75}
# the op whose points make a read ratio's curve where several ops share it: first in this list
PREFER = ("rmw",)


def curve_ops(ops) -> dict[float, str]:
    """Read ratio -> the op whose points make that ratio's curve (PREFER's first, else the only
    one, else the first by name)."""
    by: dict[float, list[str]] = {}
    for op in sorted(set(ops)):
        if op in READ_RATIO:
            by.setdefault(round(READ_RATIO[op], 4), []).append(op)
    rank = {op: i for i, op in enumerate(PREFER)}
    return {rr: min(v, key=lambda op: (rank.get(op, len(PREFER)), op)) for rr, v in by.items()}


def curve_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Loaded-latency rows -> the tier-model curve format (hosts/curves/README.md):
    read_ratio,bandwidth_mbps,latency_ns, sorted by bandwidth per read ratio; repetitions of a
    (op, delay) point are averaged."""
    pts = point_rows(df)
    out = pts[pts["in_curve"] == 1][["read_ratio", "bandwidth_mbps", "latency_ns"]]
    return out.sort_values(["read_ratio", "bandwidth_mbps"]).reset_index(drop=True)


def point_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Every loaded-latency point (repetitions averaged) with the injector that made it:
    read_ratio,bandwidth_mbps,latency_ns,op,delay,injectors,in_curve (1 where the read ratio's
    curve is made of this op's points: :func:`curve_ops`)."""
    cols = ["read_ratio", "bandwidth_mbps", "latency_ns", "op", "delay", "injectors", "in_curve"]
    ll = df[df["metric"] == "loaded_latency"]
    if ll.empty:
        return pd.DataFrame(columns=cols)
    ll = ll.groupby(["op", "delay"], as_index=False, dropna=False).agg(
        value=("value", "mean"), bandwidth_mbps=("bandwidth_mbps", "mean"), injectors=("threads", "max"))
    ll["read_ratio"] = ll["op"].map(READ_RATIO).astype(float).round(4)
    use = curve_ops(ll["op"])
    ll["in_curve"] = [int(use.get(rr) == op) for rr, op in zip(ll["read_ratio"], ll["op"], strict=True)]
    out = ll.rename(columns={"value": "latency_ns"})[cols]
    return out.sort_values(["read_ratio", "op", "bandwidth_mbps"]).reset_index(drop=True)


def tail_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Loaded-latency quantile rows -> read_ratio,delay,bandwidth_mbps,quantile,latency_ns (median
    over repetitions), sorted by read ratio, bandwidth and quantile; empty when there are none."""
    cols = ["read_ratio", "delay", "bandwidth_mbps", "quantile", "latency_ns"]
    if "quantile" not in df.columns:
        return pd.DataFrame(columns=cols)
    q = df[df["metric"] == "loaded_latency_quantile"]
    if q.empty:
        return pd.DataFrame(columns=cols)
    q = q.groupby(["op", "delay", "quantile"], as_index=False, dropna=False)[["value", "bandwidth_mbps"]].median()
    q["read_ratio"] = q["op"].map(READ_RATIO).astype(float).round(4)
    use = curve_ops(q["op"])
    q = q[[use.get(rr) == op for rr, op in zip(q["read_ratio"], q["op"], strict=True)]]
    out = q.rename(columns={"value": "latency_ns"})[cols]
    return out.sort_values(["read_ratio", "bandwidth_mbps", "quantile"]).reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    ap.add_argument("results", nargs="*", type=Path, help="loaded_latency result.csv files")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.results:
        (args.out / "README").write_text("no loaded-latency measurements on this host\n")
        return 0
    df = load(args.results)
    for pair, g in df.groupby("point"):
        rows = curve_rows(g)
        path = args.out / f"{pair}.csv"
        rows.to_csv(path, index=False, float_format="%.6g")
        print(f"{path}: {len(rows)} points")
        inj = args.out / "injectors" / f"{pair}.csv"
        inj.parent.mkdir(exist_ok=True)
        point_rows(g).to_csv(inj, index=False, float_format="%.6g")
        tail = tail_rows(g)
        if not tail.empty:
            tail.to_csv(args.out / f"{pair}.tail.csv", index=False, float_format="%.6g")
            print(f"{args.out / f'{pair}.tail.csv'}: {len(tail)} quantiles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
