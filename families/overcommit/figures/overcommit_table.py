"""A table of each point: F, the DRAM limit, the native metric, its slowdown, faults and swap."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from families.overcommit.figures import shared

NAME = "overcommit_table"
TITLE = "Memory overcommit: footprints, limits and results"
CAPTION = """\
One row per workload and overcommit ratio R (means over repetitions): F, the swap-backed
footprint (peak anonymous + shared memory of the cgroup in the unlimited R = 1 run), the DRAM
limit F/R, the workload's native metric, its performance relative to R = 1 and slowdown factor,
major faults and swap-ins per unit of work, the peak swap used, and the saving in total cost of
memory the cost model gives for R. ResNet-50's row also says how much of F its rarely-touched
dataset is (cold share).
"""
NATIVE = ["fps", "images_per_s", "new_orders_per_min", "query_time"]
METRICS = ["footprint", "dram_limit", *NATIVE, "relative_performance", "slowdown_factor", "major_faults", "swapins",
           "work", "swap_peak", "cost_saving", "cold_share"]


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = shared.rows(df, METRICS)
    if d.empty:
        return common.no_data(TITLE, "no overcommit summary rows", kw)
    units = d.drop_duplicates("metric").set_index("metric")["unit"].to_dict()
    wide = d.pivot_table(index=["workload", "ratio"], columns="metric", values="value", aggfunc="mean").reset_index()
    head = ["workload", "R", "F (MiB)", "limit (MiB)", "metric", "rel. perf.", "slowdown (x)", "major faults/unit",
            "swap-ins/unit", "swap peak (MiB)", "saving"]
    cells = []
    for w in shared.workloads(wide):
        for r in wide[wide["workload"] == w].sort_values("ratio").itertuples():
            rd = r._asdict()
            nat = next((m for m in NATIVE if m in rd and pd.notna(rd[m])), None)
            work = rd.get("work") or float("nan")
            cells.append([w + (f" (cold {rd['cold_share']:.0%})" if pd.notna(rd.get("cold_share", float("nan"))) else ""),
                          f"{r.ratio:g}", f"{rd.get('footprint', float('nan')):.0f}",
                          f"{rd.get('dram_limit', float('nan')):.0f}",
                          f"{rd[nat]:.4g} {units.get(nat, '')}" if nat else "—",
                          f"{rd.get('relative_performance', float('nan')):.3f}",
                          f"{rd.get('slowdown_factor', float('nan')):.2f}",
                          f"{rd.get('major_faults', float('nan')) / work:.3g}",
                          f"{rd.get('swapins', float('nan')) / work:.3g}",
                          f"{rd.get('swap_peak', float('nan')):.0f}", f"{rd.get('cost_saving', float('nan')):.1%}"])
    fig, axes = style.figure(2, 1, height=0.3 * (len(cells) + 2))
    gs = axes[0][0].get_gridspec()
    for a in axes[0]:
        a.remove()
    ax = fig.add_subplot(gs[0, :])
    ax.set_axis_off()
    t = ax.table(cellText=cells, colLabels=head, loc="center", cellLoc="right")
    t.auto_set_font_size(False)
    t.set_fontsize(7)
    t.auto_set_column_width(list(range(len(head))))
    return common.finish(fig, TITLE, d, kw)
