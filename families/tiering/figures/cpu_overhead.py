"""CPU overhead of tiering, per system, with and without Colloid, as a share of the application's cores."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed

NAME = "cpu_overhead"
TITLE = "CPU overhead of tiering decisions"
CAPTION = """\
CPU spent on placement per second, as a share of the application's cores: the placement
policy's decisions (libcolloid time, measured on this machine) plus, for TPP + Colloid, the core
that the released colloid-mon spends spin-polling the latency counters (modelled, not measured).
Per tiering system, without Colloid (hatched) and with it (solid), mean over runs; error bars
span the runs. Black brackets are the ranges published in the Colloid paper (SOSP'24) for each
system with Colloid.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="tiering", metric="cpu_overhead")
    # static placement has no policy: nothing to show
    d = d[d["value"].notna() & d["colloid"].notna() & ~d["system"].isin(["", "static"])]
    if d.empty:
        return common.no_data(TITLE, "no cpu_overhead rows (family tiering)", kw)
    d = common.summary_rows(d) if d["t_s"].isna().any() else d
    agg = d.groupby(["system", "colloid"])["value"].agg(["mean", "min", "max"]).reset_index()
    systems = style.sort_systems(agg["system"])
    fig, axes = style.figure(1, 1, height=style.PANEL_HEIGHT_IN)
    ax = axes[0, 0]
    width = 0.36
    pub = reference.select(ref, source="colloid-sosp24", figure="cpu-overhead", metric="cpu_overhead")
    ref_handle = None
    for i, system in enumerate(systems):
        sst = style.system_style(system)
        for j, on in enumerate((False, True)):
            row = agg[(agg["system"] == system) & (agg["colloid"] == on)]
            if row.empty:
                continue
            x = i + (j - 0.5) * width
            r = row.iloc[0]
            ax.bar(x, 100 * r["mean"], width=width * 0.95, color=sst["color"] if on else "white",
                   edgecolor=sst["color"], hatch=None if on else "////", linewidth=0.8)
            if r["max"] > r["min"]:
                ax.errorbar(x, 100 * r["mean"], yerr=[[100 * (r["mean"] - r["min"])], [100 * (r["max"] - r["mean"])]],
                            color="#333333", capsize=2, linewidth=0.7)
        for p in pub[pub["system"] == system].itertuples():
            x = i + 0.5 * width + width * 0.62
            lo, hi = 100 * float(p.low), 100 * float(p.high)
            (ref_handle,) = ax.plot([x, x], [lo, hi], marker="_", markersize=6, color="black", linewidth=1.0,
                                    label=style.reference_label(reference.source_label("colloid-sosp24"), "system + Colloid"))
    ax.set_xticks(np.arange(len(systems)), [style.system_label(s) for s in systems])
    ax.set_ylabel("CPU overhead (% of app cores)")
    handles = [
        Patch(facecolor="white", edgecolor="#333333", hatch="////", label="without Colloid"),
        Patch(facecolor="#333333", edgecolor="#333333", label="with Colloid"),
    ]
    if ref_handle is not None:
        handles.append(ref_handle)
    # headroom above the tallest bar or bracket for the legend
    tops = [100 * float(agg["max"].max()), *(100 * float(h) for h in pub["high"])]
    ax.set_ylim(0, max(tops) * 1.6 if max(tops) > 0 else 1)
    ax.legend(handles=handles, loc="upper left", frameon=False)
    return common.finish(fig, TITLE, d, kw)
