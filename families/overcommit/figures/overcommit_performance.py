"""Relative performance against the overcommit ratio R, per workload, with the seed's numbers."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import reference, style
from analysis.figures import common
from families.overcommit.figures import shared

NAME = "overcommit_performance"
TITLE = "Memory overcommit: performance vs overcommit ratio"
CAPTION = """\
Each workload's native metric at overcommit ratio R (its memory cgroup limited to F/R of its
swap-backed footprint F, swap unlimited behind it) relative to the same repetition's R = 1 run:
FFmpeg's frames/s, ResNet-50's images/s, TPC-C-like's committed New-Orders per minute (not tpmC), and for TPC-H the summed time of the 22
queries (inverted: 1/slowdown factor). Mean over repetitions, shaded band for their range.
Open diamonds: the numbers the seed (CXL hybrid pool, DRAM + NVMe SSD) published for its own
testbed, for comparison only: its inputs, footprints and SSD differ from this run's.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = shared.rows(df, "relative_performance")
    if d.empty:
        return common.no_data(TITLE, "no relative_performance rows (family overcommit)", kw)
    wls = shared.workloads(d)
    fig, axes = style.figure(len(wls), 1)
    for ax, w in zip(axes[0], wls, strict=True):
        m = common.mean_value(d[d["workload"] == w], ["ratio"]).sort_values("ratio")
        c = shared.color(w)
        style.spread(ax, m["ratio"], m["lo"], m["hi"], c)
        ax.plot(m["ratio"], m["value"], color=c, marker="o", label="measured (this host)")
        if kw.get("reference", True):
            pub = shared.published_relative(ref, w)
            if not pub.empty:
                ax.plot(pub["ratio"], pub["relative"], linestyle="none", marker="D", markerfacecolor="none",
                        color="black", label=style.reference_label(reference.source_label(shared.SOURCE), "its testbed"))
                for r in pub.itertuples():
                    ax.annotate(f"{r.relative:.2f}", (r.ratio, r.relative), textcoords="offset points", xytext=(4, 4),
                                fontsize=7)
        ax.set_title(shared.label(w))
        ax.set_xlabel("overcommit ratio R (demand / DRAM)")
        ax.set_ylabel("performance relative to R = 1")
        ax.set_ylim(0, 1.1)
        ax.set_xticks(sorted(set(m["ratio"]) | {1.0}))
        ax.legend(loc="lower left", frameon=False, fontsize=7)
    return common.finish(fig, TITLE, d, kw)
