"""Per-operation latency percentiles (p50, p99, p99.9) per system and phase."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import style
from analysis.figures import common
from families.kv.figures import kvstyle

NAME = "kv_latency"
TITLE = "Key-value stores: per-operation latency"
CAPTION = """\
YCSB's per-operation latency percentiles (p50, p99, p99.9; microseconds, log scale) for each
system and operation type, one panel per phase, at the largest thread count, each system's first
placement and the first key type measured (mean over repetitions). YCSB measures each operation as
System.nanoTime()/1000 in whole microseconds: an in-process store's operations take about a
microsecond or less, so its percentiles sit at the resolution's floor (0 or 1 us) and mean
nothing (a 0 is drawn at 0.5 on the log axis); only the server's (Redis, a network round trip of tens
of microseconds) are informative.
"""
PCT = {"latency_p50": ("p50", "o"), "latency_p99": ("p99", "s"), "latency_p999": ("p99.9", "^")}


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = kvstyle.kv(df, list(PCT), kvstyle.PHASES)
    if d.empty:
        return common.no_data(TITLE, "no kv latency rows", kw)
    d = d[(d["threads"] == d["threads"].max()) & (d["key_type"] == sorted(set(d["key_type"]))[0])]
    first = {s: kvstyle.placements(g)[0] for s, g in d.groupby("system")}  # pmdk's is its own (a DAX path)
    d = d[d["placement"] == d["system"].map(first)]
    phases = [p for p in kvstyle.PHASES if p in set(d["kv_phase"])]
    m = common.mean_value(d, ["kv_phase", "system", "op", "metric"])
    fig, axes = style.figure(len(phases), 1, height=2.2)
    fig.set_size_inches(1.9 * len(phases) + 0.4, 2.8)
    for ax, ph in zip(axes[0], phases, strict=True):
        p = m[m["kv_phase"] == ph]
        cols = [(s, op) for s in kvstyle.systems(p["system"]) for op in sorted(set(p.loc[p["system"] == s, "op"]))]
        for x, (s, op) in enumerate(cols):
            st = kvstyle.system_style(s)
            for metric, (_label, marker) in PCT.items():
                v = p[(p["system"] == s) & (p["op"] == op) & (p["metric"] == metric)]["value"]
                if len(v):
                    ax.plot([x], [max(float(v.iloc[0]), 0.5)], color=st["color"], marker=marker, linestyle="none",
                            markersize=3.5)
        ax.set_xticks(np.arange(len(cols)))
        ax.set_xticklabels([f"{s}\n{op.lower()}" for s, op in cols], rotation=60, fontsize=5)
        ax.set_yscale("log")
        ax.set_title(kvstyle.PHASE_LABEL.get(ph, ph))
        ax.axhline(1, color="grey", linewidth=0.5, linestyle=":")
    axes[0][0].set_ylabel("latency (\u00b5s; 1 \u00b5s resolution)")
    handles = [Line2D([], [], color="black", marker=mk, linestyle="none", label=lb) for lb, mk in PCT.values()]
    handles += [Line2D([], [], color=kvstyle.system_style(s)["color"], marker="o", linestyle="none",
                       label=kvstyle.system_style(s)["label"]) for s in kvstyle.systems(m["system"])]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, frameon=False)
    return common.finish(fig, TITLE, d, kw)
