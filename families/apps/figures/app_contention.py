"""Each application's metric against the antagonist's intensity on this host's one node."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed

NAME = "app_contention"
TITLE = "Applications under memory contention (one node)"
CAPTION = """\
Measured on this host (no model): each application's own metric (GAPBS PageRank: the mean time of
its trials, lower is better; Silo YCSB-C: transactions per second; CacheBench HeMemKV: gets per
second; higher is better) beside the memory antagonist at 0x to 3x on the one node there is,
relative to the same application alone (0x), with its absolute value and its footprint (peak
resident set) in the panel title. Intensity is scaled to the antagonist CPUs the host profile
grants (3x = all of them). With several repetitions: the mean, and a shaded band for their range
(min\u2013max).
"""
HIGHER_IS_BETTER = {"average_trial_time": False, "throughput": True}


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = common.summary_rows(common.select(typed(df), family="apps", experiment="contention_single_node"))
    d = d[d["value"].notna() & d["intensity"].notna() & d["metric"].isin(list(HIGHER_IS_BETTER))]
    if d.empty:
        return common.no_data(TITLE, "no contention_single_node rows (family apps)", kw)
    apps = sorted(d["workload"].unique())
    fig, axes = style.figure(len(apps), 1)
    for ax, app in zip(axes[0], apps, strict=True):
        a = d[d["workload"] == app]
        metric = a["metric"].iloc[0]
        m = common.mean_value(a[a["metric"] == metric], ["intensity"]).sort_values("intensity")
        base = m["value"].iloc[0]
        style.spread(ax, m["intensity"], m["lo"] / base, m["hi"] / base, "#0173b2")
        ax.plot(m["intensity"], m["value"] / base, marker="o", color="#0173b2")
        unit = next((u for u in a["unit"] if u), "")
        rss = common.summary_rows(common.select(typed(df), family="apps", workload=app, metric="peak_rss"))["value"]
        foot = f", peak RSS {rss.max():.0f} MiB" if not rss.empty else ""
        ax.set_title(f"{app}\n{metric} at 0x: {base:.4g} {unit}{foot}")
        ax.set_xlabel("antagonist intensity (x)")
        better = "higher is better" if HIGHER_IS_BETTER[metric] else "lower is better"
        ax.set_ylabel(f"{metric} / at 0x ({better})")
        ax.set_xticks(sorted(m["intensity"].unique()))
    return common.finish(fig, TITLE, d, kw)
