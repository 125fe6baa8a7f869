"""Per-tier distributions of the load-to-use latency, idle and at the highest load."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from analysis import style
from analysis.figures import common
from analysis.frame import typed
from families.characterize.figures import tails

NAME = "latency_cdf"
TITLE = "Latency distribution per tier, idle and at the highest load"
CAPTION = """\
Distribution of the load-to-use latency of memchar's dependent pointer chase, one panel per
CPU node \u2192 memory node pair: idle (black) and, per injector access type, at the load point
reaching the highest bandwidth (the smallest injection delay). The vertical axis counts nines
(0.9, 0.99, 0.999, 0.9999), the top marker is the maximum. Each value is a group of 16
dependent loads timed together and divided by 16, the clock's own cost subtracted; groups
interrupted (longer than 8\u00d7 the median) or in a chunk where the thread was preempted are
counted apart, not drawn (workloads/memchar/README.md, "Latency distributions"). Median over
repetitions per quantile.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    q = tails.quantile_rows(typed(df))
    if q.empty:
        return common.no_data(TITLE, "no latency quantile rows (memchar latency/loaded, family characterize)", kw)
    tiers = sorted(q["tier"].unique())
    top = tails.heaviest(q)
    fig, axes = style.figure(len(tiers), 1)
    handles: dict = {}
    for ax, tier in zip(axes[0], tiers, strict=True):
        idle = q[(q["tier"] == tier) & (q["metric"] == tails.IDLE)].sort_values("quantile")
        if not idle.empty:
            (h,) = ax.plot(idle["value"], [tails.nines(x) for x in idle["quantile"]], color="black", marker="o",
                           markersize=2.5, label="idle")
            handles.setdefault("idle", h)
        sub = top[top["tier"] == tier]
        for op in style.sort_ops(sub["op"]):
            line = sub[sub["op"] == op].sort_values("quantile")
            label = f"{op}, highest load"
            (h,) = ax.plot(line["value"], [tails.nines(x) for x in line["quantile"]], label=label,
                           **{**style.op_style(op), "markersize": 2.5})
            handles.setdefault(label, h)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_yticks([0, 1, 2, 3, 4, tails.MAX_Y], ["0", "0.9", "0.99", "0.999", "0.9999", "max"])
        ax.set_xlabel("latency per load (ns)")
        ax.set_ylabel("cumulative fraction")
        ax.set_title(tier)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(4, len(handles)),
               frameon=False)
    return common.finish(fig, TITLE, q, kw)
