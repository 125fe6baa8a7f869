"""Colloid's speedup for each application, per tiering system and intensity (the paper's Figure 8 layout)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed

NAME = "app_speedup"
TITLE = "Application speedup with Colloid"
CAPTION = """\
Each application's speedup with Colloid under each tiering system (HeMem, TPP, MEMTIS, DAMON) at 0x\u20133x antagonist
intensity, the layout of the Colloid paper's Figure 8: its metric with Colloid over without
(throughput; for PageRank's mean trial time, a time, without over with). On modelled tiers
(the title says so) tiersim runs each application's access model (families/apps/models.yaml:
PageRank's measured from a trace of the real program, Silo's and CacheLib's from their workloads'
definitions) with the default tier holding a third of the working set, and the metric is its
memory-access rate; on real tiers the applications ran under tierd or the kernel's TPP. Vertical
bars at the right: the speedups the paper published for its own testbed.
"""
APP_FIGURE = {"gapbs-pr": "apps-gapbs-pr", "silo": "apps-silo", "cachelib": "apps-cachelib"}


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = common.summary_rows(common.select(typed(df), family="apps", experiment="steady_state",
                                          metric=["throughput", "average_trial_time"]))
    d = d[d["value"].notna() & d["colloid"].notna()]
    if d.empty:
        return common.no_data(TITLE, "no steady_state throughput or trial-time rows (family apps)", kw)
    parts = []
    for _app, a in d.groupby("workload"):
        metric = "throughput" if (a["metric"] == "throughput").any() else "average_trial_time"
        g = common.gain(a[a["metric"] == metric], ["workload", "system", "intensity"])
        if metric == "average_trial_time":  # a time: lower is better
            g["gain"] = 1 / g["gain"]
        parts.append(g)
    g = pd.concat(parts, ignore_index=True)
    apps = [a for a in APP_FIGURE if a in set(g["workload"])] + sorted(set(g["workload"]) - set(APP_FIGURE))
    fig, axes = style.figure(len(apps), 1)
    handles: dict[str, Line2D] = {}
    for ax, app in zip(axes[0], apps, strict=True):
        a = g[g["workload"] == app]
        systems = style.sort_systems(a["system"])
        for i, system in enumerate(systems):
            sst = style.system_style(system)
            line = a[a["system"] == system].sort_values("intensity")
            (h,) = ax.plot(line["intensity"], line["gain"], color=sst["color"], marker=sst["marker"], label=sst["label"])
            handles.setdefault(sst["label"], h)
            if kw.get("reference", True):
                pub = reference.select(ref, source="colloid-sosp24", figure=APP_FIGURE.get(app, ""), system=system,
                                       metric="colloid_speedup")
                for r in pub.itertuples():
                    x = 3.25 + 0.12 * i
                    (h,) = ax.plot([x, x], [r.low, r.high], color=sst["color"], linewidth=2.0, alpha=0.5,
                                   label=f"published ({reference.source_label('colloid-sosp24')})")
                    handles.setdefault("published, paper's testbed", h)
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.set_title(app)
        ax.set_xlabel("antagonist intensity (x)")
        ax.set_ylabel("speedup with Colloid (x)")
        ax.set_xticks(sorted(a["intensity"].unique()))
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(5, len(handles)), frameon=False)
    return common.finish(fig, TITLE, d, kw)
