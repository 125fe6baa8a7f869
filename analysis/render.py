"""Render one figure: ``python -m analysis.render --figure NAME ...`` -> NAME.png + NAME.pdf."""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from . import fidelity, figures, frame, reference

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--figure", required=True, choices=sorted(figures.FIGURES))
    ap.add_argument("--measurements", required=True, type=Path)
    ap.add_argument("--reference", type=Path, default=None)
    ap.add_argument("--profile", default=None, help="host profile name, for the title")
    ap.add_argument("--functional", action="store_true", help="mark 'functional host: timings not meaningful'")
    ap.add_argument("--tiers", default=None, help="the tiers the results ran on (names, curve sources), for the title")
    ap.add_argument("--comparable", default=None,
                    help="JSON list: published sources measured on hardware the profile matches; a scored family's "
                         "figures draw only those (the others are other hardware: no range to be judged against)")
    ap.add_argument("--fidelity", type=Path, default=None,
                    help="the host's fidelity.csv: a figure showing modelled rows says the model's error on this host")
    ap.add_argument("--out", required=True, type=Path, help="output stem (without extension)")
    args = ap.parse_args(argv)
    try:
        note = fidelity.of_csv(args.fidelity, args.profile or "").figure_note \
            if args.fidelity and not args.functional else None
    except fidelity.FidelityError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    df = frame.load(args.measurements)
    ref = reference.load(args.reference) if args.reference else reference.load()
    if args.comparable is not None and reference.claims(figures.FAMILY[args.figure]):
        ref = reference.comparable(ref, json.loads(args.comparable))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    kw = {"profile": args.profile, "functional": args.functional, "tiers": args.tiers, "fidelity": note}
    accepted = inspect.signature(figures.render).parameters
    if not any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
        kw = {k: v for k, v in kw.items() if k in accepted}
    paths = figures.render(args.figure, df, ref, args.out, **kw)
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
