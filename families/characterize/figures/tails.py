"""Shared helpers of the latency-distribution figures (not a figure: no NAME)."""

from __future__ import annotations

import math

import pandas as pd

from analysis.figures import common

IDLE, LOADED = "idle_latency_quantile", "loaded_latency_quantile"
MAX_Y = 4.5  # where the max (q = 1) is drawn on the "nines" axis


def nines(q: float) -> float:
    """-log10(1 - q): 0.9 -> 1, 0.99 -> 2, 0.999 -> 3; the max (q = 1) at MAX_Y."""
    return MAX_Y if q >= 1 else -math.log10(1 - q)


def quantile_rows(d: pd.DataFrame) -> pd.DataFrame:
    """memchar's quantile rows of the characterize family, with ``tier`` and ``load`` (the
    injection delay; NaN for idle), median over repetitions per (tier, op, load, quantile), the
    point's bandwidth beside it."""
    d = common.select(d, family="characterize", metric=[IDLE, LOADED])
    d = d[d["value"].notna() & d["quantile"].notna()]
    if d.empty:
        return d
    d = common.with_tier(d).assign(tool=lambda x: x["tool"].replace("", "memchar"))
    d = d[d["tool"] == "memchar"]
    d = d.assign(op=d["op"].where(d["metric"] == LOADED, ""), load=d["delay"].where(d["metric"] == LOADED))
    keys = ["tier", "metric", "op", "load", "quantile"]
    return (d.groupby(keys, dropna=False, sort=True)
            .agg(value=("value", "median"), bandwidth_mbps=("bandwidth_mbps", "median"))
            .reset_index())


def heaviest(q: pd.DataFrame) -> pd.DataFrame:
    """Per (tier, op): the loaded point reaching the highest bandwidth."""
    ld = q[q["metric"] == LOADED]
    if ld.empty:
        return ld
    pts = ld.groupby(["tier", "op", "load"], as_index=False)["bandwidth_mbps"].max()
    top = pts.loc[pts.groupby(["tier", "op"])["bandwidth_mbps"].idxmax(), ["tier", "op", "load"]]
    return ld.merge(top, on=["tier", "op", "load"])
