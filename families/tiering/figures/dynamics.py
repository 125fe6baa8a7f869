"""Time series after a hot-set move (0x, 3x) and an antagonist step 0x -> 3x: throughput, migration rate."""

from __future__ import annotations

import math

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import style
from analysis.figures import common
from analysis.frame import typed

NAME = "dynamics"
TITLE = "Dynamics: hot-set move and contention change"
CAPTION = """\
Per-quantum time series of GUPS throughput and page-migration rate (MB/s) with and without
Colloid (solid / dotted), one column per tiering system, mean over repetitions. Rows come in
pairs: the hot set moves to other pages at the vertical line with no antagonist (0x) and under
3x contention, and the antagonist steps from 0x to 3x at the vertical line. Where the run
reports it, the time Colloid needed to converge after the event is given in the panel.
The event time comes from the caller, a metric ``event_t_s``, or the step in the ``intensity``
time series; 100 s (the paper's) is assumed only when none gives it and the series spans it.
With several repetitions: the mean, and a shaded band for their range (min\u2013max).
"""

METRICS = {"throughput": "throughput", "migration_rate": "migration rate (MB/s)"}
PAPER_EVENT_S = 100.0


def _scenarios(d: pd.DataFrame) -> list[tuple[str, float | None, str]]:
    out: list[tuple[str, float | None, str]] = []
    hm = d[d["experiment"] == "hotset_move"]
    for i in sorted(hm["intensity"].dropna().unique()):
        out.append(("hotset_move", float(i), f"hot-set move at {i:g}x"))
    if hm["intensity"].isna().any():
        out.append(("hotset_move", math.nan, "hot-set move"))
    if (d["experiment"] == "contention_change").any():
        out.append(("contention_change", None, "antagonist 0x \u2192 3x"))
    return out


def _pick(d: pd.DataFrame, experiment: str, intensity: float | None) -> pd.DataFrame:
    sub = d[d["experiment"] == experiment]
    if intensity is None:
        return sub
    if math.isnan(intensity):
        return sub[sub["intensity"].isna()]
    return sub[sub["intensity"] == intensity]


def _event_time(d_all: pd.DataFrame, sub: pd.DataFrame, experiment: str, kw: dict) -> float | None:
    ev = kw.get("event_s")
    if isinstance(ev, dict):
        ev = ev.get(experiment)
    if ev is not None:
        return float(ev)
    rows = common.select(d_all, family="tiering", experiment=experiment, metric="event_t_s")
    rows = rows[rows["value"].notna()]
    if not rows.empty:
        return float(rows["value"].median())
    step = _intensity_step(d_all, experiment)
    if step is not None:
        return step
    if not sub.empty and sub["t_s"].min() < PAPER_EVENT_S < sub["t_s"].max():
        return PAPER_EVENT_S
    return None


def _intensity_step(d_all: pd.DataFrame, experiment: str) -> float | None:
    """First time the antagonist intensity time series (metric ``intensity``) changes."""
    ts = common.select(d_all, family="tiering", experiment=experiment, metric="intensity")
    ts = ts[ts["t_s"].notna() & ts["value"].notna()]
    if ts.empty:
        return None
    series = ts.groupby("t_s")["value"].median().sort_index()
    changed = [k for k, step in enumerate(series.diff().fillna(0)) if step != 0]
    if not changed:
        return None
    # A sample at t_s covers the second before it: the change happened at the previous stamp.
    k = changed[0]
    return float(series.index[k - 1] if k > 0 else series.index[k])


def _convergence(d_all: pd.DataFrame, experiment: str, intensity: float | None, system: str) -> str:
    rows = common.select(d_all, family="tiering", experiment=experiment, metric="convergence_time_s", system=system)
    rows = rows[rows["value"].notna() & rows["colloid"].notna()]
    if intensity is not None and not math.isnan(intensity):
        rows = rows[rows["intensity"].isna() | (rows["intensity"] == intensity)]
    parts = []
    for on in (True, False):
        v = rows.loc[rows["colloid"] == on, "value"]
        if not v.empty:
            parts.append(f"{'+Colloid' if on else 'alone'} {v.mean():.0f} s")
    return ("converged: " + ", ".join(parts)) if parts else ""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d_all = typed(df)
    d = common.select(d_all, family="tiering", experiment=["hotset_move", "contention_change"], metric=list(METRICS))
    d = d[d["t_s"].notna() & d["value"].notna() & d["colloid"].notna()]
    if d.empty:
        return common.no_data(TITLE, "no hotset_move / contention_change time series (family tiering)", kw)
    scen = _scenarios(d)
    systems = style.sort_systems(d["system"])
    fig, axes = style.figure(len(systems), 2 * len(scen), height=style.PANEL_HEIGHT_IN * 0.62)
    handles: dict[str, Line2D] = {}
    for s_i, (experiment, intensity, label) in enumerate(scen):
        sub = _pick(d, experiment, intensity)
        event = _event_time(d_all, sub, experiment, kw)
        for col, system in enumerate(systems):
            sst = style.system_style(system)
            for m_i, (metric, ylabel) in enumerate(METRICS.items()):
                ax = axes[2 * s_i + m_i, col]
                part = sub[(sub["system"] == system) & (sub["metric"] == metric)]
                series = common.mean_value(part, ["colloid", "t_s"])
                for on in (False, True):
                    line = series[series["colloid"] == on].sort_values("t_s")
                    if line.empty:
                        continue
                    cst = style.colloid_style(on)
                    name = f"{sst['label']}{' + Colloid' if on else ''}"
                    style.spread(ax, line["t_s"], line["lo"], line["hi"], sst["color"])
                    (h,) = ax.plot(line["t_s"], line["value"], color=sst["color"], linestyle=cst["linestyle"],
                                   linewidth=0.9, label=name)
                    handles.setdefault(name, h)
                if event is not None:
                    h = ax.axvline(event, color="black", linewidth=0.7, linestyle="--", label="event")
                    handles.setdefault("event", h)
                ax.set_ylim(bottom=0)
                if m_i == 0:
                    unit = next((u for u in part["unit"] if u), "Mops/s")
                    ax.set_ylabel(f"{ylabel} ({unit})")
                    head = f"{sst['label']}: {label}"
                    if event is None:
                        head += " (event time unknown)"
                    conv = _convergence(d_all, experiment, intensity, system)
                    ax.set_title(f"{head}\n{conv}" if conv else head)
                else:
                    ax.set_ylabel(ylabel)
                    ax.set_xlabel("time (s)")
                if part.empty:
                    ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(7, len(handles)), frameon=False)
    return common.finish(fig, TITLE, d, kw)
