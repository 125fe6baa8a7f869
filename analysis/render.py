"""Render figures: ``python -m analysis.render --figure NAME ... --out STEM`` -> STEM.png + STEM.pdf;
``--figure A --figure B ... --out-dir DIR`` -> DIR/A.png, DIR/A.pdf, ... from one load of the
measurements (the workflow renders a family's figures in one job so: one Python start and one
load per family, not per figure; issue 27). Several figures are drawn by a pool of forked
processes, one per CPU the job may run on (at most one per figure): each draws from the frames
loaded once before the fork, and the files are the same bytes as drawn one after another."""

from __future__ import annotations

import argparse
import inspect
import json
import multiprocessing
import os
import sys
from pathlib import Path

# what a forked drawing process reads (set before the pool forks): the frame, the keywords, and per
# figure its name, output stem and reference rows
_SHARED: dict = {}


def _draw(i: int) -> list[Path]:
    from . import figures

    name, stem, ref = _SHARED["jobs"][i]
    # each figure gets its own copy: one that changed its frame would change the next one's
    return figures.render(name, _SHARED["df"].copy(), ref.copy(), stem, **_SHARED["kw"])


def _worker_start() -> None:
    """A drawing process ends when its pool terminates it (SIGTERM) or its job is interrupted: the
    parent's own handlers, which the fork copied, are not its. (A SIGTERM handler that a test had
    left installed in pytest's process, hosts/qemu/guest.py main's, was copied into the workers, and
    Pool.terminate then waited for one of them without end: make test hung.)"""
    import signal  # noqa: PLC0415

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def processes(n: int) -> int:
    """Drawing processes for ``n`` figures: one per CPU this process may run on, at most ``n``."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(n, cpus))


def main(argv: list[str] | None = None) -> int:
    from . import fidelity, figures, frame, reference

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--figure", required=True, action="append", choices=sorted(figures.FIGURES),
                    help="a figure to draw (repeat for several: then --out-dir)")
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
    out = ap.add_mutually_exclusive_group(required=True)
    out.add_argument("--out", type=Path, help="output stem (without extension) of the one --figure")
    out.add_argument("--out-dir", type=Path, help="directory for each --figure's NAME.png and NAME.pdf")
    args = ap.parse_args(argv)
    if args.out and len(args.figure) > 1:
        ap.error("--out names one figure's files: with several --figure, give --out-dir")
    try:
        note = fidelity.of_csv(args.fidelity, args.profile or "").figure_note \
            if args.fidelity and not args.functional else None
    except fidelity.FidelityError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    df = frame.load(args.measurements)
    loaded = reference.load(args.reference) if args.reference else reference.load()
    kw = {"profile": args.profile, "functional": args.functional, "tiers": args.tiers, "fidelity": note}
    accepted = inspect.signature(figures.render).parameters
    if not any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
        kw = {k: v for k, v in kw.items() if k in accepted}
    comparable = json.loads(args.comparable) if args.comparable is not None else None
    jobs = []
    for name in dict.fromkeys(args.figure):
        ref = loaded
        if comparable is not None and reference.claims(figures.FAMILY[name]):
            ref = reference.comparable(ref, comparable)
        jobs.append((name, args.out if args.out else args.out_dir / name, ref))
    _SHARED.update(df=df, kw=kw, jobs=jobs)
    n = processes(len(jobs))
    if n == 1:
        for paths in map(_draw, range(len(jobs))):
            print(*paths, sep="\n", flush=True)
        return 0
    # fork: the workers share the loaded frames (no pickling); a failure in one ends the job
    with multiprocessing.get_context("fork").Pool(n, initializer=_worker_start) as pool:
        for paths in pool.imap(_draw, range(len(jobs))):
            print(*paths, sep="\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
