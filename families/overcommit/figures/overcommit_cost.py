"""The cost model: saving in total cost of memory against R, and performance against saving."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import reference, style
from analysis.figures import common
from families.overcommit.figures import shared

NAME = "overcommit_cost"
TITLE = "Memory overcommit: cost of memory"
CAPTION = """\
Left: the saving in total cost of memory at overcommit ratio R, saving(R) = (1 - 1/R)(1 -
p_ssd/p_dram), with the prices of the experiment config (overcommit/cost; a model, not a
measurement). Its default price ratio p_ssd/p_dram = 0.0344 was fitted to the seed's two
published savings (open diamonds: 32 % at R = 1.5, 72.5 % at R = 4), so that it reproduces them is
a calibration, not a validation. Right: each workload's measured performance relative to R = 1
against that saving (one point per R, mean over repetitions): the trade-off between what memory
costs and what the workload loses.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = shared.rows(df, ["cost_saving", "relative_performance"])
    if d.empty or not (d["metric"] == "cost_saving").any():
        return common.no_data(TITLE, "no cost_saving rows (family overcommit)", kw)
    fig, axes = style.figure(2, 1)
    ax, ax2 = axes[0]
    s = common.mean_value(d[d["metric"] == "cost_saving"], ["ratio"]).sort_values("ratio")
    # the model's curve between the points: saving = (1 - 1/R) * k, k from the points themselves
    k = float(np.nanmedian([v / (1 - 1 / r) for r, v in zip(s["ratio"], s["value"], strict=True) if r > 1] or [np.nan]))
    rr = np.linspace(1, max(4.0, float(s["ratio"].max())), 100)
    if not np.isnan(k):
        ax.plot(rr, (1 - 1 / rr) * k * 100, color="#555555", linewidth=1.0, label=f"model, 1 - p_ssd/p_dram = {k:.3f}")
    ax.plot(s["ratio"], s["value"] * 100, linestyle="none", marker="o", color="#0173b2", label="the points run")
    if kw.get("reference", True):
        pub = shared.published_saving(ref)
        if not pub.empty:
            ax.plot(pub["ratio"], pub["saving"] * 100, linestyle="none", marker="D", markerfacecolor="none",
                    color="black", label=style.reference_label(reference.source_label(shared.SOURCE), "calibrated on"))
    ax.set_xlabel("overcommit ratio R")
    ax.set_ylabel("saving in total cost of memory (%)")
    ax.set_ylim(0, 100)
    ax.legend(loc="lower right", frameon=False, fontsize=7)
    wide = d.pivot_table(index=["workload", "ratio", "rep"], columns="metric", values="value").reset_index()
    for w in shared.workloads(wide):
        m = wide[wide["workload"] == w].groupby("ratio")[["cost_saving", "relative_performance"]].mean().reset_index()
        m = m.sort_values("ratio")
        ax2.plot(m["cost_saving"] * 100, m["relative_performance"], color=shared.color(w), marker="o",
                 label=shared.label(w))
    ax2.set_xlabel("saving in total cost of memory (%)")
    ax2.set_ylabel("performance relative to R = 1")
    ax2.set_ylim(0, 1.1)
    ax2.legend(loc="lower left", frameon=False, fontsize=7)
    return common.finish(fig, TITLE, d, kw)
