"""Throughput against the achieved slow-tier share of the store's memory (numa_maps)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from families.kv.figures import kvstyle

NAME = "kv_slow_share"
TITLE = "Key-value stores: throughput vs achieved slow-tier share"
CAPTION = """\
Throughput of each phase (colour: system; panel: phase) against the share of the store's
resident memory that was on the slow tier(s) at the end of the run, as /proc/PID/numa_maps
reported it for the store's process (the JVM for in-process stores, the server for Redis):
the placement that was asked for, checked. Largest thread count, every key type. A one-node host
has no slow tier: no data.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = kvstyle.kv(df, ["throughput", "slow_tier_share"])
    share = d[(d["metric"] == "slow_tier_share") & (d["kv_phase"] == "mem_end")]
    if share.empty:
        return common.no_data(TITLE, "no slow tier on this host (one memory node): no slow-tier share", kw, d)
    keys = ["point", "rep"]
    tp = d[(d["metric"] == "throughput") & d["kv_phase"].isin(kvstyle.PHASES)]
    tp = tp[tp["threads"] == tp["threads"].max()]
    j = tp.merge(share[[*keys, "value"]].rename(columns={"value": "slow_share"}), on=keys)
    phases = [p for p in kvstyle.PHASES if p in set(j["kv_phase"])]
    fig, axes = style.figure(len(phases), 1, height=2.0)
    fig.set_size_inches(1.8 * len(phases) + 0.4, 2.6)
    for ax, ph in zip(axes[0], phases, strict=True):
        for s in kvstyle.systems(j["system"]):
            st = kvstyle.system_style(s)
            p = j[(j["kv_phase"] == ph) & (j["system"] == s)]
            ax.plot(p["slow_share"], p["value"] / 1e3, color=st["color"], marker=st["marker"], linestyle="none",
                    label=st["label"], markersize=3.5)
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(bottom=0)
        ax.set_title(kvstyle.PHASE_LABEL.get(ph, ph))
        ax.set_xlabel("slow-tier share")
    axes[0][0].set_ylabel("kops/s")
    axes[0][0].legend(frameon=False)
    return common.finish(fig, TITLE, j, kw)
