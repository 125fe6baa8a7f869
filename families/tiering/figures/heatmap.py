"""Colloid-gain heatmaps (one panel per system), shared by gain_unloaded_latency and gain_object_size."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from analysis import reference, style
from analysis.figures import common
from analysis.frame import typed


def gain_figure(
    df: pd.DataFrame,
    ref: pd.DataFrame | None,
    kw: dict,
    *,
    experiment: str,
    row: str,
    row_label: str,
    row_fmt: Callable[[float], str],
    title: str,
    published_figure: str,
) -> Figure:
    """Heatmap of gain = throughput(Colloid) / throughput(no Colloid) over ``row`` x intensity.

    The workflow does not rerun the steady-state point (64 B objects, the profile's own alternate
    tier) inside the sweeps, so its steady_state rows fill that row of the heatmap.
    """
    d = typed(df)
    d = common.summary_rows(common.select(d, family="tiering", experiment=[experiment, "steady_state"],
                                          metric="throughput"))
    d = d[d["value"].notna() & d["intensity"].notna() & d[row].notna() & d["colloid"].notna()]
    g = common.gain(d, ["system", row, "intensity"]) if not d.empty else pd.DataFrame()
    if g.empty:
        return common.no_data(title, f"no {experiment} throughput rows with and without Colloid (family tiering)", kw)
    systems = style.sort_systems(g["system"])
    lo, hi = min(1.0, float(g["gain"].min())), max(1.0, float(g["gain"].max()))
    fig, axes = style.figure(len(systems), 1, height=style.PANEL_HEIGHT_IN)
    pub = reference.select(ref, source="colloid-sosp24", figure=published_figure, metric="colloid_throughput_gain")
    for i, (ax, system) in enumerate(zip(axes[0], systems, strict=True)):
        sub = g[g["system"] == system]
        mat = sub.pivot_table(index=row, columns="intensity", values="gain", aggfunc="mean").sort_index(ascending=False)
        mat.index = [row_fmt(v) for v in mat.index]
        mat.columns = [f"{c:g}x" for c in mat.columns]
        sns.heatmap(
            mat,
            ax=ax,
            annot=True,
            fmt=".2f",
            cmap="Blues",
            vmin=lo,
            vmax=hi,
            linewidths=0.5,
            cbar=i == len(systems) - 1,
            cbar_kws={"label": "Colloid gain (\u00d7)"},
            annot_kws={"fontsize": style.FONT_PT - 0.5},
        )
        rows = pub[pub["system"] == system]
        head = style.system_label(system)
        for r in rows.itertuples():
            head += f"\npublished {common.fmt_range(r.low, r.high, 'x')} ({r.condition})"
        ax.set_title(head)
        ax.set_xlabel("antagonist intensity")
        ax.set_ylabel(row_label if i == 0 else "")
        ax.tick_params(axis="y", rotation=0)
    return common.finish(fig, title, d, kw)
