"""The best static placement, from the tiering family's ``best_static`` rows (its figures and scorecard)."""

from __future__ import annotations

import pandas as pd

from analysis.figures.common import mean_value, select, summary_rows


def best_static(df: pd.DataFrame) -> pd.DataFrame:
    """Best static placement per intensity: max over ``static_hot_fraction`` of mean throughput.

    Uses family tiering, experiment ``best_static``, metric ``throughput`` summary rows.
    Returns columns ``intensity, value, static_hot_fraction`` (the fraction that won).
    """
    d = summary_rows(select(df, family="tiering", experiment="best_static", metric="throughput"))
    d = d[d["intensity"].notna()]
    if d.empty:
        return pd.DataFrame(columns=["intensity", "value", "static_hot_fraction"])
    m = mean_value(d, ["intensity", "static_hot_fraction"])
    m = m[m["value"].notna()]
    best = m.loc[m.groupby("intensity")["value"].idxmax()]
    return best[["intensity", "value", "static_hot_fraction"]].reset_index(drop=True)
