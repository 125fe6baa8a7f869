"""Write measured loaded-latency curves in the tier-model curve format:
``python -m families.characterize.curves --out DIR RESULT.csv ...``.

One file per (CPU node, memory node) pair: ``{pair}.csv`` with columns
``read_ratio,bandwidth_mbps,latency_ns`` (hosts/curves/README.md), ready to be
named by a host profile's model tier (``curve:``). Beside it, ``{pair}.tail.csv``: the latency
distribution at each load point, ``read_ratio,delay,bandwidth_mbps,quantile,latency_ns`` (memchar's
``loaded_latency_quantile`` rows, median over repetitions; quantile 1 is the max), when the results
have them. The tier model uses only the curve's means; the tail file travels with the curve so a
device's profile folder keeps its distributions (docs/hardware-team.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from analysis.frame import load

# memchar's loaded-latency injector op -> the read ratio of its traffic
READ_RATIO = {"read": 1.0, "write": 0.0, "ntwrite": 0.0, "mix1:1": 0.5, "mix2:1": 2 / 3, "mix3:1": 0.75}


def curve_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Loaded-latency rows -> the tier-model curve format (hosts/curves/README.md):
    read_ratio,bandwidth_mbps,latency_ns, sorted by bandwidth per read ratio; repetitions of a
    (op, delay) point are averaged."""
    ll = df[df["metric"] == "loaded_latency"]
    ll = ll.groupby(["op", "delay"], as_index=False, dropna=False)[["value", "bandwidth_mbps"]].mean()
    ll["read_ratio"] = ll["op"].map(READ_RATIO).astype(float).round(4)
    out = ll.rename(columns={"value": "latency_ns"})[["read_ratio", "bandwidth_mbps", "latency_ns"]]
    return out.sort_values(["read_ratio", "bandwidth_mbps"]).reset_index(drop=True)


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
        tail = tail_rows(g)
        if not tail.empty:
            tail.to_csv(args.out / f"{pair}.tail.csv", index=False, float_format="%.6g")
            print(f"{args.out / f'{pair}.tail.csv'}: {len(tail)} quantiles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
