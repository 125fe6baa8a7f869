"""Object access latency against object size (64 B - 4 KiB), hue = operation, style = local/remote."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed

NAME = "object_latency"
TITLE = "Object access latency vs object size"
CAPTION = """\
Mean latency (ns) of reading, writing, and writing-then-persisting (cache-line write-back and
fence) one object of 64 B to 4 KiB, from a single thread, on memory of the same node (local,
solid lines) or another node (remote, dashed), mean over repetitions; log scales. Black hollow
markers are the published PMDK object latencies on remote Intel Optane PMem (seed 004,
``pm-numa-io``); they come from different hardware and show the published growth with size.
With several repetitions: the mean, and a shaded band for their range (min\u2013max).
"""

_LOC_STYLE = {
    "local": {"linestyle": "-", "fillstyle": "full"},
    "remote": {"linestyle": "--", "fillstyle": "none"},
}
_OTHER_LINESTYLES = [":", "-.", (0, (5, 1, 1, 1))]
_REF_MARKER = {"read_latency": "*", "write_latency": "X"}


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="characterize", metric="object_latency")
    d = d[d["value"].notna() & d["size_bytes"].notna() & (d["size_bytes"] > 0)]
    if d.empty:
        return common.no_data(TITLE, "no object_latency rows (family characterize)", kw)
    d = d.assign(
        where=[
            common.locality(c, m) if common.locality(c, m) != "unknown" else (t or "unknown")
            for c, m, t in zip(d["cpu_node"], d["mem_node"], d["target"], strict=True)
        ]
    )
    m = common.mean_value(d, ["where", "op", "size_bytes"])
    fig, axes = style.figure(1, 1, height=style.PANEL_HEIGHT_IN * 1.4)
    ax = axes[0, 0]
    handles: dict[str, Line2D] = {}
    others = [w for w in sorted(m["where"].unique()) if w not in _LOC_STYLE]
    for where in [w for w in ("local", "remote") if w in set(m["where"])] + others:
        ls = _LOC_STYLE.get(where) or {"linestyle": _OTHER_LINESTYLES[others.index(where) % len(_OTHER_LINESTYLES)]}
        for op in style.sort_ops(m.loc[m["where"] == where, "op"]):
            line = m[(m["where"] == where) & (m["op"] == op)]
            st = {**style.op_style(op), **ls}
            style.spread(ax, line["size_bytes"], line["lo"], line["hi"], st["color"])
            (h,) = ax.plot(line["size_bytes"], line["value"], label=f"{op}, {where}", **st)
            handles[f"{op}, {where}"] = h
    if kw.get("reference", True):
        pub = reference.select(ref, source="pm-numa-io", figure="latency-by-size")
        for metric, sub in pub.groupby("metric", sort=True):
            xs, ys = [], []
            for r in sub.itertuples():
                size = reference.object_size(str(r.condition))
                if size is None:
                    continue
                xs.append(size)
                ys.append(float(r.low))
            if xs:
                what = "Optane PMem remote " + str(metric).replace("_latency", "")
                (h,) = ax.plot(
                    xs,
                    ys,
                    marker=_REF_MARKER.get(str(metric), "P"),
                    markersize=5,
                    label=style.reference_label("seed 004 (PMDK)", what),
                    **style.REFERENCE_STYLE,
                )
                handles[h.get_label()] = h
    style.log2_axis(ax, [64, 4096, *m["size_bytes"]])
    ax.set_yscale("log")
    ax.set_xlabel("object size (B)")
    ax.set_ylabel("latency (ns)")
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=2, frameon=False)
    return common.finish(fig, TITLE, d, kw)

