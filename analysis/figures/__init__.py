"""tierbench figures: one module per figure, each with ``NAME``, ``CAPTION`` and ``plot``.

``plot(df, ref=None, **kw) -> Figure`` takes the long-form measurements frame (it filters what
it needs) and the published-numbers frame (:func:`analysis.reference.load`). Keyword options
every figure understands:

- ``profile``: host-profile name for the "modelled tiers (profile NAME)" title suffix
  (default: the ``host`` column);
- ``functional``: mark the figure "functional host: timings not meaningful" (default: a true
  ``functional`` column in the frame, if any);
- ``reference``: draw published reference marks (default True);
- ``event_s`` (``dynamics`` only): event time in seconds, or {experiment: seconds}.

A figure whose data is absent still renders, with a centred "no data: <reason>" note, so a
workflow never fails on an optional source that did not run.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import matplotlib.pyplot as plt
import pandas as pd

from . import (
    bandwidth_latency,
    bandwidth_threads,
    contention,
    cpu_overhead,
    dynamics,
    fio_iodepth,
    gain_object_size,
    gain_unloaded_latency,
    hot_and_latency,
    latency_matrix,
    object_latency,
    steady_state,
)

_MODULES: list[ModuleType] = [
    latency_matrix,
    bandwidth_threads,
    bandwidth_latency,
    object_latency,
    fio_iodepth,
    steady_state,
    hot_and_latency,
    gain_unloaded_latency,
    gain_object_size,
    dynamics,
    cpu_overhead,
    contention,
]
FIGURES: dict[str, ModuleType] = {m.NAME: m for m in _MODULES}

# Which figures belong to which family (for workflow rules that render per family).
FAMILY = {
    "latency_matrix": "characterize",
    "bandwidth_threads": "characterize",
    "bandwidth_latency": "characterize",
    "object_latency": "characterize",
    "fio_iodepth": "storage",
    "steady_state": "tiering",
    "hot_and_latency": "tiering",
    "gain_unloaded_latency": "tiering",
    "gain_object_size": "tiering",
    "dynamics": "tiering",
    "cpu_overhead": "tiering",
    "contention": "tiering",
}

FORMATS = ("png", "pdf")
DPI = 200


def render(
    name: str,
    df: pd.DataFrame,
    ref: pd.DataFrame | None,
    out_stem: str | Path,
    **kw: object,
) -> list[Path]:
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


def render_all(df: pd.DataFrame, ref: pd.DataFrame | None, out_dir: str | Path, **kw: object) -> list[Path]:
    """Render every registered figure into ``out_dir/NAME.{png,pdf}``."""
    out: list[Path] = []
    for name in FIGURES:
        out += render(name, df, ref, Path(out_dir) / name, **kw)
    return out


def caption(name: str) -> str:
    """The RST caption of figure ``name`` (for the Snakemake report)."""
    return FIGURES[name].CAPTION
