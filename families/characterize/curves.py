"""Write measured loaded-latency curves in the tier-model curve format:
``python -m families.characterize.curves --out DIR RESULT.csv ...``.

One file per (CPU node, memory node) pair: ``{pair}.csv`` with columns
``read_ratio,bandwidth_mbps,latency_ns`` (hosts/curves/README.md), ready to be
named by a host profile's model tier (``curve:``).
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
