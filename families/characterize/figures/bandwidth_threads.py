"""Bandwidth against thread count, one panel per (CPU node -> memory node) tier, hue = access type."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed

NAME = "bandwidth_threads"
TITLE = "Memory bandwidth vs threads"
CAPTION = """\
Sustained memory bandwidth (GB/s, 10^9 B/s) against the number of threads streaming over a
buffer on each memory node, one panel per CPU node \u2192 memory node pair, one line per access
type (read, write, non-temporal write, read:write mixes), mean over repetitions. Black hollow
markers are published Intel MLC numbers for Optane PMem and DRAM on a 2-socket Optane server
(seed 004, ``pm-numa-io``: L = local, R = remote node); they come from different hardware and
show the published shape (e.g. remote PMem write collapsing beyond 8 cores), not a target.
"""

_REF_MARKER = {"optane": "*", "dram": "D"}
_REF_NAME = {"optane": "Optane PMem", "dram": "DRAM"}


def _ref_points(ref: pd.DataFrame | None) -> pd.DataFrame:
    """Published bandwidth-vs-cores points: columns kind, cores, gbps, tag."""
    rows = []
    for r in reference.select(ref, source="pm-numa-io", figure="bandwidth-vs-cores").itertuples():
        if str(r.unit) != "GB/s":
            continue
        cond = str(r.condition)
        loc = "L" if "local" in cond else "R" if "remote" in cond else ""
        mem = "PM" if r.system == "optane" else "DRAM"
        op = "wr" if "write" in cond else "rd"
        tag = f"{loc}-{mem} {op}" if loc else f"{mem} {op}"
        for cores, val in reference.core_points(cond, float(r.low), float(r.high)):
            rows.append({"kind": str(r.system), "cores": cores, "gbps": val, "tag": tag})
    return pd.DataFrame(rows, columns=["kind", "cores", "gbps", "tag"])


def _draw_ref(ax: Axes, pts: pd.DataFrame) -> list[Line2D]:
    handles = []
    for kind, sub in pts.groupby("kind", sort=True):
        marker = _REF_MARKER.get(str(kind), "X")
        (h,) = ax.plot(
            sub["cores"],
            sub["gbps"],
            marker=marker,
            markersize=5 if marker == "*" else 3.5,
            label=style.reference_label("seed 004 (MLC)", _REF_NAME.get(str(kind), str(kind))),
            **style.REFERENCE_STYLE,
        )
        handles.append(h)
        for x, y, tag in zip(sub["cores"], sub["gbps"], sub["tag"], strict=True):
            ax.annotate(tag, (x, y), xytext=(3, 2), textcoords="offset points", fontsize=style.FONT_PT - 2)
    return handles


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="characterize", experiment="bandwidth", metric="bandwidth")
    d = d[d["value"].notna() & d["threads"].notna()]
    if d.empty:
        return common.no_data(TITLE, "no bandwidth rows (family characterize, experiment bandwidth)", kw)
    d = common.with_tier(d).assign(tool=lambda x: x["tool"].replace("", "memchar"), gbps=lambda x: x["value"] / 1000.0)
    m = common.mean_value(d, ["tier", "tool", "op", "threads"], "gbps")
    tiers = sorted(m["tier"].unique())
    pts = _ref_points(ref) if kw.get("reference", True) else _ref_points(None)
    fig, axes = style.figure(len(tiers), 1)
    handles: dict[str, Line2D] = {}
    for ax, tier in zip(axes[0], tiers, strict=True):
        sub = m[m["tier"] == tier]
        for op in style.sort_ops(sub["op"]):
            for tool, line in sub[sub["op"] == op].groupby("tool", sort=True):
                st = style.op_style(op)
                label = op if tool == "memchar" else f"{op} ({tool})"
                if tool != "memchar":
                    st = {**st, "linestyle": (0, (1, 1))}
                style.spread(ax, line["threads"], line["lo"], line["hi"], st["color"])
                (h,) = ax.plot(line["threads"], line["gbps"], label=label, alpha=1.0 if tool == "memchar" else 0.7, **st)
                handles.setdefault(label, h)
        if not pts.empty:
            for h in _draw_ref(ax, pts):
                handles.setdefault(h.get_label(), h)
        style.log2_axis(ax, [*sub["threads"], *pts["cores"]])
        ax.set_xlabel("threads (cores)")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_ylim(bottom=0)
        ax.set_title(tier)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(4, len(handles)), frameon=False)
    return common.finish(fig, TITLE, d, kw)
