"""Slow-tier over fast-tier throughput, per system, key type and phase (a heatmap)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from families.kv.figures import kvstyle

NAME = "kv_tier_ratio"
TITLE = "Key-value stores: slow-tier / fast-tier throughput"
CAPTION = """\
Each store's throughput with its memory on the slowest tier divided by its throughput on the
default (fast) tier, at the largest thread count (mean over repetitions): 1 means the store does
not notice the slow tier; below 1, it does. Rows: system and key type; columns: YCSB phase. Needs
a host with two or more memory tiers (on a one-node host there is no slow tier: no data). pmdk's
pool on a DAX path is not a NUMA tier and is left out here.
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = kvstyle.kv(df, "throughput", kvstyle.PHASES)
    d = d[~d["placement"].isin(["interleave", "split"]) & kvstyle.numa_placement(d)] if not d.empty else d
    places = kvstyle.placements(d) if not d.empty else []
    if d.empty or len(places) < 2 or d["placement_note"].astype(str).str.len().gt(0).all():
        return common.no_data(TITLE, "one memory tier only: no slow tier to compare with", kw, d)
    fast, slow = places[0], places[-1]
    d = d[d["threads"] == d["threads"].max()]
    m = common.mean_value(d, ["system", "key_type", "kv_phase", "placement"])
    piv = m.pivot_table(index=["system", "key_type"], columns=["kv_phase", "placement"], values="value")
    phases = [p for p in kvstyle.PHASES if (p, fast) in piv.columns and (p, slow) in piv.columns]
    rows = [r for r in piv.index if r[0] != "null"]
    if not phases or not rows:
        return common.no_data(TITLE, "no system measured on both the fast and the slow tier", kw, d)
    ratio = np.array([[piv.loc[r, (p, slow)] / piv.loc[r, (p, fast)] for p in phases] for r in rows], dtype=float)
    fig, axes = style.figure(1, 1, height=0.35 * len(rows) + 1.2)
    ax = axes[0][0]
    ax.grid(False)
    im = ax.imshow(ratio, cmap="viridis", vmin=0, vmax=max(1.0, float(np.nanmax(ratio))), aspect="auto")
    for i in range(len(rows)):
        for j in range(len(phases)):
            if np.isfinite(ratio[i, j]):
                ax.text(j, i, f"{ratio[i, j]:.2f}", ha="center", va="center", color="white" if ratio[i, j] < 0.6 else "black")
    ax.set_xticks(range(len(phases)))
    ax.set_xticklabels([kvstyle.PHASE_LABEL.get(p, p) for p in phases], rotation=30)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{s}, {k}" for s, k in rows])
    fig.colorbar(im, ax=ax, label=f"throughput {slow} / {fast}")
    return common.finish(fig, TITLE, d, kw)
