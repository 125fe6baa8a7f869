"""Idle latency matrix: CPU node x memory node, one panel per tool (memchar, then MLC)."""

from __future__ import annotations

import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed

NAME = "latency_matrix"
TITLE = "Idle load latency, CPU node \u00d7 memory node"
CAPTION = """\
Idle (unloaded) load-to-use latency in nanoseconds measured by a dependent pointer chase from
each CPU node (rows) to each memory node or DAX target (columns), median over repetitions.
The left panel is tierbench's ``memchar``; when Intel MLC is available its idle-latency matrix
is shown beside it for comparison. Darker cells are slower.
"""


def _mem_label(mem: float, target: str) -> str:
    return (target or "?") if pd.isna(mem) else str(int(mem))


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="characterize", metric="idle_latency")
    d = d[d["value"].notna()]
    if d.empty:
        return common.no_data(TITLE, "no idle_latency rows (family characterize)", kw)
    d = d.assign(
        tool=d["tool"].replace("", "memchar"),
        cpu=[("?" if pd.isna(c) else str(int(c))) for c in d["cpu_node"]],
        mem=[_mem_label(m, t) for m, t in zip(d["mem_node"], d["target"], strict=True)],
    )
    tools = sorted(d["tool"].unique(), key=lambda t: (t != "memchar", t != "mlc", t))
    vmin, vmax = float(d["value"].min()), float(d["value"].max())
    fig, axes = style.figure(len(tools), 1, height=style.PANEL_HEIGHT_IN)
    for ax, tool in zip(axes[0], tools, strict=True):
        sub = d[d["tool"] == tool]
        mat = sub.groupby(["cpu", "mem"])["value"].median().unstack("mem")
        sns.heatmap(
            mat,
            ax=ax,
            annot=True,
            fmt=".0f",
            cmap="Greys",
            vmin=vmin * 0.8,
            vmax=vmax,
            cbar_kws={"label": "idle latency (ns)"},
            linewidths=0.5,
            annot_kws={"fontsize": style.FONT_PT},
        )
        ax.set_title("MLC" if tool == "mlc" else tool)
        ax.set_xlabel("memory node")
        ax.set_ylabel("CPU node")
        ax.tick_params(axis="y", rotation=0)
    return common.finish(fig, TITLE, d, kw)
