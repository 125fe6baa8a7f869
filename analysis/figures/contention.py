"""Real GUPS throughput and loaded latency against real antagonist intensity on one node."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from .. import style
from . import common

NAME = "contention"
TITLE = "GUPS under a real memory antagonist on this host's node"
CAPTION = """\
Measured on this host (no model): GUPS throughput per second (left) for each antagonist
intensity, and (right) the mean GUPS throughput over the last seconds of each run together
with the default tier's loaded latency measured by memchar while the antagonist runs. Intensity
is scaled to the antagonist CPUs the host profile grants (3x = all of them); the legend gives
the antagonist thread count. This is the loaded-latency effect Colloid builds on.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d_all = common.prepare(df)
    d = common.select(d_all, family="tiering", experiment="contention_single_node")
    if d.empty:
        return common.no_data(TITLE, "no contention_single_node rows (family tiering, backend numa)", kw)
    series = d[(d["metric"] == "throughput") & d["t_s"].notna()]
    summ = common.summary_rows(d)
    fig, axes = style.figure(2, 1)
    ax1, ax2 = axes[0]
    for k in sorted(series["intensity"].dropna().unique()):
        s = series[series["intensity"] == k].sort_values("t_s")
        threads = s["threads"].dropna()
        label = f"{k:g}x ({int(threads.iloc[0])} antagonist thread{'s' if threads.iloc[0] != 1 else ''})" if not threads.empty else f"{k:g}x"
        ax1.plot(s["t_s"], s["value"], marker="o", markersize=2, label=label)
    ax1.set_xlabel("time (s)")
    ax1.set_ylabel("GUPS throughput (Mops/s)")
    ax1.set_ylim(bottom=0)
    ax1.legend(frameon=False)
    thr = summ[summ["metric"] == "throughput"].sort_values("intensity")
    lat = summ[summ["metric"] == "latency_default"].sort_values("intensity")
    ax2.plot(thr["intensity"], thr["value"], marker="o", color="#0173b2", label="throughput")
    ax2.set_xlabel("antagonist intensity (x)")
    ax2.set_ylabel("throughput (Mops/s)", color="#0173b2")
    ax2.set_ylim(bottom=0)
    if not lat.empty:
        tw = ax2.twinx()
        tw.plot(lat["intensity"], lat["value"], marker="s", linestyle="--", color="#d55e00", label="loaded latency")
        tw.set_ylabel("default-tier latency (ns)", color="#d55e00")
        tw.set_ylim(bottom=0)
    return common.finish(fig, TITLE, d, kw)
