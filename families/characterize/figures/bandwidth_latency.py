"""Loaded latency against bandwidth, one panel per tier, one curve per access type / read ratio."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed

NAME = "bandwidth_latency"
TITLE = "Loaded latency vs bandwidth"
CAPTION = """\
Bandwidth\u2013latency curves: the latency (ns) of a dependent pointer chase while injector threads
load the same memory node, against the total bandwidth they reach (GB/s), one panel per
CPU node \u2192 memory node pair, one curve per injector access type or read:write ratio. Points
run from the largest injection delay (lightest load) to none; mean over repetitions. These are
the curves a ``model`` tier is described by.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="characterize", metric="loaded_latency")
    d = d[d["value"].notna() & d["bandwidth_mbps"].notna()]
    if d.empty:
        return common.no_data(TITLE, "no loaded_latency rows with bandwidth_mbps (family characterize)", kw)
    d = common.with_tier(d).assign(tool=lambda x: x["tool"].replace("", "memchar"))
    # One load point = one injection delay (or thread count when no delay was swept).
    d["load"] = d["delay"].where(d["delay"].notna(), -d["threads"].fillna(0))
    m = (
        d.groupby(["tier", "tool", "op", "load"], sort=True)
        .agg(latency=("value", "mean"), gbps=("bandwidth_mbps", "mean"))
        .reset_index()
    )
    m["gbps"] = m["gbps"] / 1000.0
    tiers = sorted(m["tier"].unique())
    fig, axes = style.figure(len(tiers), 1)
    handles: dict = {}
    for ax, tier in zip(axes[0], tiers, strict=True):
        sub = m[m["tier"] == tier]
        for op in style.sort_ops(sub["op"]):
            for tool, line in sub[sub["op"] == op].groupby("tool", sort=True):
                line = line.sort_values("load", ascending=False)
                st = style.op_style(op)
                label = (op or "all") if tool == "memchar" else f"{op} ({tool})"
                if tool != "memchar":
                    st = {**st, "linestyle": (0, (1, 1))}
                (h,) = ax.plot(line["gbps"], line["latency"], label=label, **st)
                handles.setdefault(label, h)
        ax.set_xlabel("bandwidth (GB/s)")
        ax.set_ylabel("loaded latency (ns)")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.set_title(tier)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(4, len(handles)),
               title="injector access type", frameon=False)
    return common.finish(fig, TITLE, d, kw)
