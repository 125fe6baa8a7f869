"""Total (and per-group) bandwidth against the share of threads on the slow tier, one panel per
(CPU node, fast + slow target), one line per op."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed

NAME = "thread_share"
TITLE = "Bandwidth vs share of threads on the slow tier"
CAPTION = """\
Bandwidth (GB/s, 10^9 B/s) while all threads of a CPU node stream at once, a share of them over
buffers on the slow target and the rest over the node's own memory (memchar ``share``), against
that share (0 = all on the fast target, 1 = all on the slow one), one panel per CPU node with its
fast + slow target, mean over repetitions. Solid: total; dashed: the fast group's part; dotted: the
slow group's part (a group with no thread has no line there; the parts add up to the total). On a
host with one memory node both groups use it: such a panel says "both shares on node N" and shows
no tier difference. Black hollow markers are the published total read bandwidth of seed 004's
Figure 4 (``pm-numa-io``: 20 cores, remote DRAM + remote Optane PMem; 34.46, 13.28 and 1.09 GB/s):
other hardware, not our result. The seed gives no share values, only smallest, middle and largest
remote-PM share, so they are drawn at the first, middle and last share of our axis.
"""

_GROUPS = {"bandwidth_total": ("total", "-", 1.4), "bandwidth_a": ("fast group", "--", 0.9),
           "bandwidth_b": ("slow group", ":", 0.9)}
_REF_ORDER = ("smallest", "middle", "largest")
REF_LABEL = ("published: reference, other hardware (seed 004: 20 cores, DRAM + Optane), total read;"
             "\nshare values not given: drawn at our first / middle / last share")


def panel_title(cpu: float, target: str) -> str:
    """'cpu 0: node:0 + node:1', or '... both shares on node 0 (one memory node)'."""
    fast, _, slow = str(target).partition("+")
    head = f"cpu {int(cpu)}: " if not pd.isna(cpu) else ""
    if fast and fast == slow:
        return f"{head}both shares on {fast.replace(':', ' ')} (one memory node)"
    return f"{head}fast {fast} + slow {slow}" if slow else f"{head}{target}"


def ref_points(ref: pd.DataFrame | None, shares: list[float]) -> pd.DataFrame:
    """The seed's three totals (GB/s) at our first, middle and last share: columns share, gbps, tag."""
    pub = reference.select(ref, source="pm-numa-io", figure="thread-share")
    xs = sorted(set(shares))
    rows = []
    for r in pub.itertuples():
        tag = next((t for t in _REF_ORDER if t in str(r.condition)), None)
        if tag is None or str(r.unit) != "GB/s" or not xs:
            continue
        x = {"smallest": xs[0], "middle": xs[len(xs) // 2], "largest": xs[-1]}[tag]
        rows.append({"share": x, "gbps": float(r.low), "tag": tag})
    return pd.DataFrame(rows, columns=["share", "gbps", "tag"])


def _draw_ref(ax: Axes, pts: pd.DataFrame) -> Line2D:
    (h,) = ax.plot(pts["share"], pts["gbps"], marker="*", markersize=6, label=REF_LABEL, **style.REFERENCE_STYLE)
    for x, y, tag in zip(pts["share"], pts["gbps"], pts["tag"], strict=True):
        ax.annotate(f"seed: {tag}", (x, y), xytext=(3, 2), textcoords="offset points", fontsize=style.FONT_PT - 2)
    return h


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="characterize", experiment="thread_share", metric=list(_GROUPS))
    d = d[d["value"].notna() & d["share"].notna()] if "share" in d else d.iloc[0:0]
    if d.empty:
        return common.no_data(TITLE, "no thread_share rows (family characterize, experiment thread_share)", kw)
    d = d.assign(gbps=d["value"] / 1000.0)
    m = common.mean_value(d, ["point", "op", "metric", "share"], "gbps")
    totals = d[d["metric"] == "bandwidth_total"].drop_duplicates("point").set_index("point")
    panels = sorted(m["point"].unique())
    fig, axes = style.figure(len(panels), 1, height=style.PANEL_HEIGHT_IN * 1.2)
    handles: dict[str, Line2D] = {}
    for ax, pid in zip(axes[0], panels, strict=True):
        sub = m[m["point"] == pid]
        for op in style.sort_ops(sub["op"]):
            st = style.op_style(op)
            for metric, (what, ls, lw) in _GROUPS.items():
                line = sub[(sub["op"] == op) & (sub["metric"] == metric)].sort_values("share")
                if line.empty:
                    continue
                if metric == "bandwidth_total":
                    style.spread(ax, line["share"], line["lo"], line["hi"], st["color"])
                (h,) = ax.plot(line["share"], line["gbps"], color=st["color"], marker=st["marker"], linestyle=ls,
                               linewidth=lw, markersize=3 if metric == "bandwidth_total" else 2, label=f"{op}, {what}")
                handles.setdefault(f"{op}, {what}", h)
        if kw.get("reference", True) and "read" in set(sub["op"]):
            pts = ref_points(ref, list(sub["share"]))
            if not pts.empty:
                handles.setdefault(REF_LABEL, _draw_ref(ax, pts))
        row = totals.loc[pid] if pid in totals.index else None
        ax.set_title(panel_title(row["cpu_node"], row["target"]) if row is not None else str(pid))
        ax.set_xlabel("share of threads on the slow target")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(bottom=0)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(3, len(handles)), frameon=False)
    return common.finish(fig, TITLE, d, kw)
