"""tierbench figures: the machinery every figure shares. The figures themselves live with their
family, one module each, ``families/<family>/figures/<name>.py`` with ``NAME``, ``CAPTION`` and
``plot`` (found by :func:`analysis.registry.discover`; the caption is what the report shows).

``plot(df, ref=None, **kw) -> Figure`` takes the long-form measurements frame (it filters what
it needs) and the published-numbers frame (:func:`analysis.reference.load`). Keyword options
every figure understands:

- ``profile``: host-profile name for the "modelled tiers (profile NAME)" title suffix
  (default: the ``host`` column);
- ``functional``: mark the figure "functional host: timings not meaningful" (default: a true
  ``functional`` column in the frame, if any);
- ``reference``: draw published reference marks (default True);
- ``tiers``: the tiers the results ran on, with their curve sources, for a title line;
- ``fidelity``: the model's error on this host ("model error on this host: median X % over N
  points", :attr:`analysis.fidelity.HostFidelity.figure_note`), a title line of every figure that
  shows modelled rows; None (the default) where the host has no score;
- ``event_s`` (``dynamics`` only): event time in seconds, or {experiment: seconds}.

A figure whose data is absent still renders, with a centred "no data: <reason>" note, so a
workflow never fails on an optional source that did not run.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from types import ModuleType

import matplotlib.pyplot as plt
import pandas as pd

from ..registry import discover

INFO = discover()
FIGURES: dict[str, ModuleType] = {name: import_module(info.module) for name, info in INFO.items()}
FAMILY = {name: info.family for name, info in INFO.items()}

FORMATS = ("png", "pdf")
DPI = 200


def render(name: str, df: pd.DataFrame, ref: pd.DataFrame | None, out_stem: str | Path, **kw: object) -> list[Path]:
    """Draw figure ``name`` and write ``out_stem.png`` (200 dpi) and ``out_stem.pdf``.

    Returns the paths written. Unknown names raise KeyError listing the known ones.
    """
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r} (known: {', '.join(FIGURES)})")
    fig = FIGURES[name].plot(df, ref, **kw)
    stem = Path(out_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    try:
        for ext in FORMATS:
            path = stem.with_name(f"{stem.name}.{ext}")
            # No timestamps in the files, so identical data gives identical bytes.
            meta = {"CreationDate": None} if ext == "pdf" else {"Software": None}
            fig.savefig(path, dpi=DPI, format=ext, metadata=meta)
            paths.append(path)
    finally:
        plt.close(fig)
    return paths
