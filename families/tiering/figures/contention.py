"""Real GUPS throughput and loaded latency against real antagonist intensity on one node."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed

NAME = "contention"
TITLE = "GUPS under a real memory antagonist on this host's node"
CAPTION = """\
Measured on this host (no model): GUPS throughput per second (left) for each antagonist
intensity, and (right) the mean GUPS throughput over the last seconds of each run together
with the default tier's loaded latency measured by memchar while the antagonist runs. Intensity
is scaled to the antagonist CPUs the host profile grants (3x = all of them); the legend gives
the antagonist thread count. This is the loaded-latency effect Colloid builds on. With several
repetitions: one line per repetition (left), the mean with a shaded min\u2013max band (right).
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d_all = typed(df)
    d = common.select(d_all, family="tiering", experiment="contention_single_node")
    if d.empty:
        return common.no_data(TITLE, "no contention_single_node rows (family tiering, backend numa)", kw)
    series = d[(d["metric"] == "throughput") & d["t_s"].notna()]
    summ = common.summary_rows(d)
    fig, axes = style.figure(2, 1)
    ax1, ax2 = axes[0]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, k in enumerate(sorted(series["intensity"].dropna().unique())):
        s = series[series["intensity"] == k]
        threads = s["threads"].dropna()
        label = f"{k:g}x ({int(threads.iloc[0])} antagonist thread{'s' if threads.iloc[0] != 1 else ''})" if not threads.empty else f"{k:g}x"
        for j, (_rep, r) in enumerate(s.groupby("rep", dropna=False, sort=True)):  # one line per repetition
            r = r.sort_values("t_s")
            ax1.plot(r["t_s"], r["value"], marker="o", markersize=2, color=colors[i % len(colors)],
                     label=label if j == 0 else "_")
    ax1.set_xlabel("time (s)")
    ax1.set_ylabel("GUPS throughput (Mops/s)")
    ax1.set_ylim(bottom=0)
    ax1.legend(frameon=False)
    thr = common.mean_value(summ[summ["metric"] == "throughput"], ["intensity"])
    lat = common.mean_value(summ[summ["metric"] == "latency_default"], ["intensity"])
    style.spread(ax2, thr["intensity"], thr["lo"], thr["hi"], "#0173b2")
    ax2.plot(thr["intensity"], thr["value"], marker="o", color="#0173b2", label="throughput")
    ax2.set_xlabel("antagonist intensity (x)")
    ax2.set_ylabel("throughput (Mops/s)", color="#0173b2")
    ax2.set_ylim(bottom=0)
    if not lat.empty:
        tw = ax2.twinx()
        style.spread(tw, lat["intensity"], lat["lo"], lat["hi"], "#d55e00")
        tw.plot(lat["intensity"], lat["value"], marker="s", linestyle="--", color="#d55e00", label="loaded latency")
        tw.set_ylabel("default-tier latency (ns)", color="#d55e00")
        tw.set_ylim(bottom=0)
    return common.finish(fig, TITLE, d, kw)
