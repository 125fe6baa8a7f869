"""Concatenate per-point result.csv files into results/{host}/measurements.csv."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .parse import collect


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("results", nargs="*", type=Path)
    args = ap.parse_args(argv)
    df = collect(args.results)
    tmp = args.out.with_name(args.out.name + ".tmp")
    df.to_csv(tmp, index=False)
    tmp.replace(args.out)
    print(f"{len(df)} rows from {len(args.results)} points -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
