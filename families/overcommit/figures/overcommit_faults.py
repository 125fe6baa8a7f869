"""Major faults and swap-ins per unit of work against the overcommit ratio (log scale)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from families.overcommit.figures import shared

NAME = "overcommit_faults"
TITLE = "Memory overcommit: faults per unit of work"
CAPTION = """\
Major page faults (left) and swap-ins (right) of each workload's memory cgroup per unit of its
work (a frame, an image, a TPC-C-like transaction, a TPC-H query) against the overcommit ratio R, log
scale; mean over repetitions. Swap-ins are the cgroup's pswpin where the kernel counts them per
cgroup (cgroup v2), otherwise its anonymous-page refaults (workingset_refault_anon, cgroup v1),
which stand in for them. A value of zero (R = 1: nothing swapped) is drawn at the axis floor.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = shared.rows(df, ["major_faults", "swapins", "work"])
    if d.empty or not (d["metric"] == "work").any():
        return common.no_data(TITLE, "no major_faults/swapins/work rows (family overcommit)", kw)
    keys = ["workload", "ratio", "rep"]
    wide = d.pivot_table(index=keys, columns="metric", values="value", aggfunc="mean").reset_index()
    fig, axes = style.figure(2, 1)
    floor = 1e-3
    for ax, metric, what in ((axes[0][0], "major_faults", "major faults"), (axes[0][1], "swapins", "swap-ins (pages)")):
        if metric not in wide:
            ax.set_axis_off()
            continue
        w = wide.assign(per=(wide[metric] / wide["work"]).clip(lower=floor))
        for wl in shared.workloads(w):
            m = common.mean_value(w[w["workload"] == wl], ["ratio"], col="per").sort_values("ratio")
            ax.plot(m["ratio"], m["per"], color=shared.color(wl), marker="o", label=shared.label(wl))
        ax.set_yscale("log")
        ax.set_xlabel("overcommit ratio R")
        ax.set_ylabel(f"{what} per unit of work")
        ax.set_xticks(sorted(w["ratio"].unique()))
    axes[0][0].legend(loc="best", frameon=False, fontsize=7)
    return common.finish(fig, TITLE, d, kw)
