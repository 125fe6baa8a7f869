"""p50 / p99 / p99.9 of the load latency against the achieved bandwidth, per tier."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed
from families.characterize.figures import tails

NAME = "latency_tail"
TITLE = "Latency percentiles vs bandwidth"
CAPTION = """\
The median (p50), p99 and p99.9 of the load-to-use latency of memchar's pointer chase against
the total bandwidth the loaded-latency injectors and the chase reach (GB/s), one panel per CPU
node \u2192 memory node pair, one line per percentile and injector access type (solid: read;
other access types dashed); the idle point is drawn at 0 GB/s. Values per load of 16-load
groups, the clock's cost subtracted, interrupted and preempted groups left out (counted in
measurements.csv as ``*_interrupted``); median over repetitions. A tail that grows faster than
the median under load is queueing at the device or its link, not the idle latency.
"""

PCTS = {0.5: ("p50", "#0173b2"), 0.99: ("p99", "#de8f05"), 0.999: ("p99.9", "#d55e00")}


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    q = tails.quantile_rows(typed(df))
    q = q[q["quantile"].round(6).isin(list(PCTS))] if not q.empty else q
    if q.empty or (q["metric"] == tails.LOADED).sum() == 0:
        return common.no_data(TITLE, "no loaded_latency quantile rows (memchar loaded, family characterize)", kw)
    tiers = sorted(q["tier"].unique())
    fig, axes = style.figure(len(tiers), 1)
    handles: dict = {}
    for ax, tier in zip(axes[0], tiers, strict=True):
        t = q[q["tier"] == tier]
        idle = t[t["metric"] == tails.IDLE]
        ld = t[t["metric"] == tails.LOADED]
        for qq, (name, color) in PCTS.items():
            i = idle[idle["quantile"].round(6) == qq]
            if not i.empty:
                ax.plot([0.0], [float(i["value"].iloc[0])], marker="o", color=color, linestyle="none",
                        markerfacecolor="none")
            for op in style.sort_ops(ld["op"]):
                line = ld[(ld["op"] == op) & (ld["quantile"].round(6) == qq)].sort_values("bandwidth_mbps")
                label = name if op == "read" else f"{name} ({op})"
                (h,) = ax.plot(line["bandwidth_mbps"] / 1000.0, line["value"], color=color, marker=".",
                               linestyle="-" if op == "read" else "--", label=label)
                handles.setdefault(label, h)
        ax.set_xlabel("bandwidth (GB/s)")
        ax.set_ylabel("latency per load (ns)")
        ax.set_xlim(left=-0.2)
        ax.set_ylim(bottom=0)
        ax.set_title(tier)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(3, len(handles)),
               frameon=False)
    return common.finish(fig, TITLE, q, kw)
