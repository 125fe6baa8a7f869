"""Fault rate and swap use over time, per workload and overcommit ratio."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed
from families.overcommit.figures import shared

NAME = "overcommit_timeseries"
TITLE = "Memory overcommit: fault rate and swap use over time"
CAPTION = """\
For each workload (columns): the major-fault rate of its memory cgroup (top, per second) and the
swap it uses (bottom, MiB) over the run, one line per overcommit ratio R, sampled every
interval_ms (repetition 0). Time 0 is the start of the measured program (for TPC-C-like, the pgbench
driver; PostgreSQL's start-up and the data load come before it and are not shown).
"""
_SHADES = ["#1b9e77", "#7570b3", "#d95f02", "#e7298a", "#66a61e", "#e6ab02"]


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = common.select(typed(df), family="overcommit", metric=["major_fault_rate", "swap_used"])
    d = d[d["t_s"].notna() & d["value"].notna() & d["ratio"].notna()]
    d = d[d["rep"] == d["rep"].min()] if not d.empty else d
    if d.empty:
        return common.no_data(TITLE, "no major_fault_rate/swap_used time series (family overcommit)", kw)
    wls = shared.workloads(d)
    ratios = sorted(d["ratio"].unique())
    shade = {r: _SHADES[i % len(_SHADES)] for i, r in enumerate(ratios)}
    fig, axes = style.figure(len(wls), 2)
    for j, w in enumerate(wls):
        for i, (metric, what) in enumerate((("major_fault_rate", "major faults / s"), ("swap_used", "swap used (MiB)"))):
            ax = axes[i][j]
            for r in ratios:
                line = d[(d["workload"] == w) & (d["metric"] == metric) & (d["ratio"] == r)].sort_values("t_s")
                if not line.empty:
                    ax.plot(line["t_s"], line["value"], color=shade[r], label=f"R = {r:g}", linewidth=1.0)
            ax.set_xlabel("time (s)")
            ax.set_ylabel(what)
            ax.set_ylim(bottom=0)
            if i == 0:
                ax.set_title(shared.label(w))
        axes[0][j].legend(loc="best", frameon=False, fontsize=7)
    return common.finish(fig, TITLE, d, kw)
