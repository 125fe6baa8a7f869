"""Concatenate result.csv files into one long-form measurements.csv (a family's, or every family's).

The columns are the union of the inputs' (the schema is open: analysis/schema.py), the core ones
first; cells are copied as they are (typing is analysis.frame's, when the file is loaded).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .frame import read


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("results", nargs="*", type=Path)
    args = ap.parse_args(argv)
    df = read(args.results)
    tmp = args.out.with_name(args.out.name + ".tmp")
    df.to_csv(tmp, index=False)
    tmp.replace(args.out)
    print(f"{len(df)} rows from {len(args.results)} files -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
