"""Heatmap of Colloid's gain over object size x intensity, per system."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from . import heatmap

NAME = "gain_object_size"
TITLE = "Colloid gain vs object size and contention"
CAPTION = """\
Colloid's gain, throughput with Colloid divided by throughput without it (means over
repetitions), for each GUPS object size (rows, bytes) and antagonist intensity (columns), one
panel per tiering system. Large objects load the memory interconnect even without an
antagonist, so the paper reports gains already at 0x for objects above 256 B; panel titles give
those published ranges (Colloid paper, SOSP'24).
"""


def _size(v: float) -> str:
    return f"{int(v) // 1024} KiB" if v >= 1024 and int(v) % 1024 == 0 else f"{int(v)} B"


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    return heatmap.gain_figure(
        df,
        ref,
        kw,
        experiment="object_size",
        row="object_bytes",
        row_label="object size",
        row_fmt=_size,
        title=TITLE,
        published_figure="object-size-heatmap",
    )
