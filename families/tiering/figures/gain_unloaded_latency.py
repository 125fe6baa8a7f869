"""Heatmap of Colloid's gain over alternate-tier unloaded latency x intensity, per system."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from . import heatmap

NAME = "gain_unloaded_latency"
TITLE = "Colloid gain vs alternate-tier unloaded latency and contention"
CAPTION = """\
Colloid's gain, throughput with Colloid divided by throughput without it (means over
repetitions), for each alternate-tier unloaded latency (rows, ns) and antagonist intensity
(columns), one panel per tiering system. Values above 1 mean Colloid helps; the paper expects
the gain to grow with intensity and to shrink as the alternate tier gets slower. Panel titles
give the range published in the Colloid paper (SOSP'24) at its largest unloaded latency.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    return heatmap.gain_figure(
        df,
        ref,
        kw,
        experiment="unloaded_latency",
        row="alt_latency_ns",
        row_label="alternate-tier unloaded latency (ns)",
        row_fmt=lambda v: f"{v:g}",
        title=TITLE,
        published_figure="unloaded-latency-heatmap",
    )
