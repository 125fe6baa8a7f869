"""Hot data left in the alternate tier, and per-tier loaded latency, against intensity."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed

NAME = "hot_and_latency"
TITLE = "Hot data in the alternate tier and per-tier latency vs contention"
CAPTION = """\
Top row: GiB of the hot set resident in the alternate tier at steady state against antagonist
intensity; bottom row: loaded latency of the default tier (circles) and of the alternate tier
(squares, gray) in ns. One column per tiering system, without Colloid (dotted, hollow) and with
Colloid (solid); means over repetitions. The black star marks the published observation that a
baseline's default-tier latency can reach 2.5\u00d7 the alternate tier's under high contention
(Colloid paper, SOSP'24), drawn at 2.5\u00d7 our baseline's alternate-tier latency at the highest
intensity.
With several repetitions: the mean, and a shaded band for their range (min\u2013max).
"""

METRICS = ["hot_in_alternate", "latency_default", "latency_alternate"]
_TIER = {
    "latency_default": {"marker": "o", "label": "default tier"},
    "latency_alternate": {"marker": "s", "label": "alternate tier", "color": "#666666"},
}


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.summary_rows(common.select(d, family="tiering", experiment="steady_state", metric=METRICS))
    d = d[d["value"].notna() & d["intensity"].notna() & d["colloid"].notna() & ~d["system"].isin(["static", ""])]
    if d.empty:
        return common.no_data(TITLE, "no steady_state hot_in_alternate / latency rows (family tiering)", kw)
    m = common.mean_value(d, ["system", "colloid", "intensity", "metric"])
    systems = style.sort_systems(m["system"])
    fig, axes = style.figure(len(systems), 2, height=style.PANEL_HEIGHT_IN * 0.9, sharex="col")
    pub = reference.select(ref, source="colloid-sosp24", figure="motivation", metric="default_over_alternate_latency")
    handles: dict[str, Line2D] = {}
    for col, system in enumerate(systems):
        sst = style.system_style(system)
        ax_hot, ax_lat = axes[0, col], axes[1, col]
        for on in (False, True):
            cst = style.colloid_style(on)
            sel = m[(m["system"] == system) & (m["colloid"] == on)]
            line = sel[sel["metric"] == "hot_in_alternate"].sort_values("intensity")
            if not line.empty:
                style.spread(ax_hot, line["intensity"], line["lo"], line["hi"], sst["color"])
                ax_hot.plot(line["intensity"], line["value"], color=sst["color"], marker=sst["marker"],
                            linestyle=cst["linestyle"], fillstyle=cst["fillstyle"])
            for metric, tst in _TIER.items():
                line = sel[sel["metric"] == metric].sort_values("intensity")
                if line.empty:
                    continue
                label = f"{tst['label']}, {cst['label']}"
                style.spread(ax_lat, line["intensity"], line["lo"], line["hi"], tst.get("color", sst["color"]))
                (h,) = ax_lat.plot(line["intensity"], line["value"], color=tst.get("color", sst["color"]),
                                   marker=tst["marker"], linestyle=cst["linestyle"], fillstyle=cst["fillstyle"],
                                   label=label)
                handles.setdefault(f"{tst['label']}, {cst['label']}", h)
        base = m[(m["system"] == system) & (~m["colloid"].astype(bool)) & (m["metric"] == "latency_alternate")]
        if not pub.empty and not base.empty:
            top = base.loc[base["intensity"].idxmax()]
            r = pub.iloc[0]
            (h,) = ax_lat.plot([top["intensity"]], [float(r.high) * top["value"]], marker="*", markersize=6,
                               label=style.reference_label(reference.source_label("colloid-sosp24"),
                                                           f"L_D = {float(r.high):g}\u00d7 L_A"),
                               **style.REFERENCE_STYLE)
            handles.setdefault(h.get_label(), h)
        ax_hot.set_title(sst["label"])
        ax_hot.set_ylabel("hot data in alternate tier (GiB)")
        ax_hot.set_ylim(bottom=0)
        ax_lat.set_ylabel("loaded latency (ns)")
        ax_lat.set_xlabel("antagonist intensity (x)")
        ax_lat.set_ylim(bottom=0)
        ax_lat.set_xticks(sorted(m["intensity"].unique()))
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(3, len(handles)), frameon=False)
    return common.finish(fig, TITLE, d, kw)
