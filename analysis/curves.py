"""Write measured loaded-latency curves in the tier-model curve format.

One file per (CPU node, memory node) pair: ``{pair}.csv`` with columns
``read_ratio,bandwidth_mbps,latency_ns`` (hosts/curves/README.md), ready to be
named by a host profile's model tier (``curve:``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from .parse import curve_rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    ap.add_argument("results", nargs="*", type=Path, help="loaded_latency result.csv files")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    frames = [pd.read_csv(p) for p in args.results]
    if not frames:
        (args.out / "README").write_text("no loaded-latency measurements on this host\n")
        return 0
    df = pd.concat(frames, ignore_index=True)
    for pair, g in df.groupby("point"):
        rows = curve_rows(g)
        path = args.out / f"{pair}.csv"
        rows.to_csv(path, index=False, float_format="%.6g")
        print(f"{path}: {len(rows)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
