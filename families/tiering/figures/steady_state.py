"""GUPS steady-state throughput against antagonist intensity, per system, with and without Colloid."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed
from families.tiering import scorecard as tiering_rules

NAME = "steady_state"
TITLE = "Steady-state GUPS throughput vs memory contention"
CAPTION = """\
GUPS throughput (mean over the last 30 s of each run, then over repetitions) against the
memory antagonist's intensity (0x\u20133x; 1x = one unit of antagonist cores on the default tier),
one panel per tiering system, without Colloid (dotted, hollow markers) and with Colloid (solid).
The dashed black line is the best static placement: for each intensity, the highest
throughput over the swept share of the hot set kept in the default tier. Panel titles give
Colloid's gain (throughput with / without) at 1x\u20133x, ours beside the range published in the
Colloid paper (SOSP'24). With several repetitions, a shaded band shows their range (min\u2013max).
"""

BASELINES = ("static", "best-static", "best_static")


def _gain_text(system: str, gains: pd.DataFrame, ref: pd.DataFrame | None) -> str:
    parts = []
    g = gains[(gains["system"] == system) & (gains["intensity"] >= 1) & (gains["intensity"] <= 3)]
    if not g.empty:
        parts.append(f"ours {common.fmt_range(g['gain'].min(), g['gain'].max(), 'x')}")
    pub = reference.select(ref, source="colloid-sosp24", figure="steady-state", system=system,
                           metric="colloid_throughput_gain", condition="intensity 1x-3x")
    for r in pub.itertuples():
        parts.append(f"published {common.fmt_range(r.low, r.high, 'x')}")
    return "gain 1x\u20133x: " + ", ".join(parts) if parts else ""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d_all = typed(df)
    d = common.summary_rows(common.select(d_all, family="tiering", experiment="steady_state", metric="throughput"))
    d = d[d["value"].notna() & d["intensity"].notna() & d["colloid"].notna() & ~d["system"].isin(BASELINES)]
    if d.empty:
        return common.no_data(TITLE, "no steady_state throughput rows (family tiering)", kw)
    best = tiering_rules.best_static(d_all)
    gains = common.gain(d, ["system", "intensity"])
    m = common.mean_value(d, ["system", "colloid", "intensity"])
    unit = next((u for u in d["unit"] if u), "Mops/s")
    systems = style.sort_systems(m["system"])
    fig, axes = style.figure(len(systems), 1)
    handles: dict[str, Line2D] = {}
    for ax, system in zip(axes[0], systems, strict=True):
        sst = style.system_style(system)
        for on in (False, True):
            line = m[(m["system"] == system) & (m["colloid"] == on)].sort_values("intensity")
            if line.empty:
                continue
            cst = style.colloid_style(on)
            label = f"{sst['label']} {'+ Colloid' if on else ''}".strip()
            style.spread(ax, line["intensity"], line["lo"], line["hi"], sst["color"])
            (h,) = ax.plot(line["intensity"], line["value"], color=sst["color"], marker=sst["marker"],
                           linestyle=cst["linestyle"], fillstyle=cst["fillstyle"], label=label)
            handles.setdefault(label, h)
        if not best.empty:
            bst = style.system_style("best-static")
            (h,) = ax.plot(best["intensity"], best["value"], color=bst["color"], linestyle=bst["linestyle"],
                           marker=bst["marker"], fillstyle="none", label=bst["label"])
            handles.setdefault(bst["label"], h)
        text = _gain_text(system, gains, ref)
        ax.set_title(f"{sst['label']}\n{text}" if text else sst["label"])
        ax.set_xlabel("antagonist intensity (x)")
        ax.set_ylabel(f"throughput ({unit})")
        ax.set_xticks(sorted(m["intensity"].unique()))
        ax.set_ylim(bottom=0)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(7, len(handles)), frameon=False)
    shown = pd.concat([d, common.select(d_all, family="tiering", experiment="best_static")])
    return common.finish(fig, TITLE, shown, kw)
