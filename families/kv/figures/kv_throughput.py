"""Throughput against client threads: rows key type, columns YCSB phase, colour system, line
style placement (the seed's ten YCSB tables as one figure)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullFormatter

from analysis import style
from analysis.figures import common
from analysis.frame import typed
from families.kv.figures import kvstyle
from families.kv.tables import bound

NAME = "kv_throughput"
TITLE = "Key-value stores: YCSB throughput vs client threads"
CAPTION = """\
YCSB throughput (thousands of operations per second) against client threads: one row per key
type (8-byte integer, 23-byte string), one column per phase (Load, then A, C, D, E on the loaded
store, in one JVM), one colour per system (null = YCSB's BasicDB, the driver's ceiling), one line
style per placement of the store's memory (a tier, or interleaved); log scale, since the
systems span orders of magnitude. On a one-node host every
placement is node 0, and the legend says so. Mean over repetitions, with their range shaded.
Points whose records are under 4x the last-level cache are cache-resident (the title says so):
there, tier effects are muted. Published numbers of other systems on other hardware are not drawn
here; they are in the separate table kv_reference.md. A point ringed in black is client-bound: the
YCSB client spends more CPU time per operation (per client thread) than the store (per serving
thread), so its number measures the client more than the store (kv_bottleneck.md).
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = kvstyle.kv(df, "throughput", kvstyle.PHASES)
    if d.empty:
        return common.no_data(TITLE, "no kv throughput rows", kw)
    keys = [k for k in ("int", "string") if k in set(d["key_type"])] or sorted(set(d["key_type"]))
    phases = [p for p in kvstyle.PHASES if p in set(d["kv_phase"])]
    places = kvstyle.placements(d)
    m = common.mean_value(d, ["key_type", "kv_phase", "system", "placement", "threads"])
    b = bound(typed(df)[lambda x: x["family"] == "kv"])
    ringed = {tuple(r) for r in b[b["client_bound"]][["key_type", "kv_phase", "system", "placement", "threads"]]
              .itertuples(index=False)}
    fig, axes = style.figure(len(phases), len(keys), height=1.9)
    fig.set_size_inches(1.7 * len(phases) + 0.5, 1.6 * len(keys) + 0.9)
    handles: dict[str, Line2D] = {}
    for i, k in enumerate(keys):
        for j, ph in enumerate(phases):
            ax = axes[i][j]
            for s in kvstyle.systems(m["system"]):
                st = kvstyle.system_style(s)
                for pi, p in enumerate(places):
                    line = m[(m["key_type"] == k) & (m["kv_phase"] == ph) & (m["system"] == s) & (m["placement"] == p)]
                    if line.empty:
                        continue
                    line = line.sort_values("threads")
                    style.spread(ax, line["threads"], line["lo"], line["hi"], st["color"], scale=1e-3)
                    (h,) = ax.plot(line["threads"], line["value"] / 1e3, color=st["color"], marker=st["marker"],
                                   linestyle=kvstyle.PLACEMENT_LINES[pi % 4],
                                   fillstyle=kvstyle.PLACEMENT_FILL[pi % 4], markersize=3)
                    handles.setdefault(st["label"], Line2D([], [], color=st["color"], marker=st["marker"]))
                    cb = line[[(k, ph, s, p, t) in ringed for t in line["threads"]]]
                    if not cb.empty:
                        ax.plot(cb["threads"], cb["value"] / 1e3, linestyle="none", marker="o", markersize=7,
                                markerfacecolor="none", markeredgecolor="black", markeredgewidth=0.7)
                        handles.setdefault("client-bound (measures the client)",
                                           Line2D([], [], linestyle="none", marker="o", markerfacecolor="none",
                                                  markeredgecolor="black"))
            for pi, p in enumerate(places):
                handles.setdefault("placement " + kvstyle.placement_label(d, p),
                                   Line2D([], [], color="black", linestyle=kvstyle.PLACEMENT_LINES[pi % 4]))
            ax.set_yscale("log")
            ax.yaxis.set_minor_formatter(NullFormatter())
            ax.set_xticks(sorted(set(m["threads"])))
            if i == 0:
                ax.set_title(kvstyle.PHASE_LABEL.get(ph, ph))
            if i == len(keys) - 1:
                ax.set_xlabel("client threads")
            if j == 0:
                ax.set_ylabel(f"{k} keys\nkops/s")
    fig.legend(list(handles.values()), list(handles.keys()), loc="outside lower center", ncol=3, frameon=False)
    title = TITLE + (f"\n{kvstyle.resident_note(d)}" if kvstyle.resident_note(d) else "")
    return common.finish(fig, title, d, kw)
