"""Write scorecard.md / scorecard.csv: each published number, ours, ratio, within tolerance."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from . import fidelity, frame, reference, scorecard

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--measurements", required=True, type=Path, nargs="+", help="measurements.csv of the scored families")
    ap.add_argument("--reference", type=Path, default=None)
    ap.add_argument("--md", required=True, type=Path)
    ap.add_argument("--csv", required=True, type=Path)
    ap.add_argument("--profile", default=None, help="model host profile name, for the provenance line")
    ap.add_argument("--functional", action="store_true", help="the host's timings are not meaningful (an emulated guest)")
    ap.add_argument("--calibration", default="[]",
                    help="JSON list: the model profile's calibrated_on entries (published numbers it was fitted to)")
    ap.add_argument("--comparable", default=None,
                    help="JSON list: the published sources the profile's hardware matches (its comparable_to); "
                         "the others get no verdict")
    ap.add_argument("--tiers", default=None, help="the tiers the results ran on, for the provenance line")
    fidelity.add_arguments(ap)
    args = ap.parse_args(argv)
    df = frame.load(args.measurements)
    host = str(df["host"].iloc[0]) if not df.empty else "?"
    try:
        fid = fidelity.from_arguments(args, host)
    except fidelity.FidelityError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    ref = reference.load(args.reference) if args.reference else reference.load()
    comparable = json.loads(args.comparable) if args.comparable is not None else None
    card = scorecard.build(df, ref, json.loads(args.calibration), comparable)
    backend = ", ".join(sorted(b for b in df["backend"].unique() if b)) or "none"  # of the scored families' rows
    card.to_csv(args.csv, index=False)
    text = scorecard.to_markdown(card, host, backend, args.profile, args.tiers)
    if args.functional:
        title, rest = text.split("\n", 1)
        text = (f"{title}\n\n**Functional host: timings not meaningful.** This host emulates its tiers (both nodes "
                "are the same physical memory), so *ours* below exercises the pipeline only; the comparison with "
                "published numbers is no verdict.\n" + rest)
    if fid is not None:  # the model's own error on this host, measured here: the header's second paragraph
        title, rest = text.split("\n", 1)
        text = f"{title}\n\n{fidelity.header_md(fid)}{rest}"
    args.md.write_text(text)
    print(f"scorecard: {len(card)} published numbers, {int(card['within'].fillna(False).astype(bool).sum())} within "
          f"tolerance, {int((card['hardware'] == 'other').sum())} from other hardware (no verdict)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
