"""Data helpers shared by the figure modules and the scorecard.

They take a typed long-form measurements frame (:func:`analysis.frame.typed`: numbers numeric,
text stripped, ``colloid`` boolean) and never modify it.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from .. import style


def colloid_is(df: pd.DataFrame, on: bool) -> pd.Series:
    """Plain boolean mask of rows whose ``colloid`` equals ``on`` (unknown counts as no)."""
    return df["colloid"].eq(on).fillna(False).astype(bool)


def select(df: pd.DataFrame, **eq: object) -> pd.DataFrame:
    """Rows of a prepared frame whose columns equal the given values; a list means 'any of'."""
    mask = pd.Series(True, index=df.index)
    for col, val in eq.items():
        if val is None:
            continue
        if isinstance(val, (list, tuple, set)):
            mask &= df[col].isin(list(val))
        else:
            mask &= df[col] == val
    return df[mask]


def summary_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Steady-state summary rows: those without a time stamp (``t_s`` empty)."""
    return df[df["t_s"].isna()]


def mean_value(df: pd.DataFrame, keys: list[str], col: str = "value") -> pd.DataFrame:
    """Mean of ``col`` over repetitions (and anything not in ``keys``), with its spread: ``lo`` and
    ``hi`` (min and max) and ``n`` (rows averaged); NaN keys kept."""
    if df.empty:
        return pd.DataFrame(columns=[*keys, col, "lo", "hi", "n"])
    g = df.groupby(keys, dropna=False, sort=True)[col]
    return g.agg(**{col: "mean", "lo": "min", "hi": "max", "n": "count"}).reset_index()


def gain(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Throughput with Colloid over throughput without, per ``keys`` (means over repetitions).

    Returns columns ``keys + [on, off, gain]``; only keys where both exist.
    """
    d = df[df["colloid"].notna()]
    m = mean_value(d, [*keys, "colloid"])
    if m.empty:
        return pd.DataFrame(columns=[*keys, "on", "off", "gain"])
    m["colloid"] = m["colloid"].astype(bool)
    on = m[m["colloid"]].drop(columns="colloid").rename(columns={"value": "on"})
    off = m[~m["colloid"]].drop(columns="colloid").rename(columns={"value": "off"})
    g = on.merge(off, on=keys, how="inner")
    g = g[(g["off"] > 0) & g["on"].notna()]
    g["gain"] = g["on"] / g["off"]
    return g.reset_index(drop=True)


def tier_label(row_cpu: float, row_mem: float, target: str = "") -> str:
    """'cpu 0 -> mem 1' for a (cpu_node, mem_node) pair; the target name when there is no node."""
    if pd.isna(row_cpu) and pd.isna(row_mem) and not target:
        return "nodes not recorded"
    cpu = "?" if pd.isna(row_cpu) else str(int(row_cpu))
    mem = (target or "?") if pd.isna(row_mem) else str(int(row_mem))
    return f"cpu {cpu} \u2192 mem {mem}"


def with_tier(df: pd.DataFrame) -> pd.DataFrame:
    """Add a ``tier`` column (cpu node -> memory node, or -> target for DAX/storage)."""
    out = df.copy()
    out["tier"] = [tier_label(c, m, t) for c, m, t in zip(out["cpu_node"], out["mem_node"], out["target"], strict=True)]
    return out


def locality(cpu: float, mem: float) -> str:
    """'local' when the CPU node is the memory node, 'remote' when not, 'unknown' otherwise."""
    if pd.isna(cpu) or pd.isna(mem):
        return "unknown"
    return "local" if int(cpu) == int(mem) else "remote"


def fmt_range(low: float, high: float, unit: str = "", digits: int = 2) -> str:
    """'1.20–2.30x' or '2.50x' (low == high)."""
    u = unit if unit in ("", "x", "%") else f" {unit}"
    if pd.isna(low) and pd.isna(high):
        return "—"
    if pd.isna(high) or low == high:
        return f"{low:.{digits}f}{u}"
    return f"{low:.{digits}f}\u2013{high:.{digits}f}{u}"



def finish(fig: Figure, title: str, shown: pd.DataFrame, kw: dict) -> Figure:
    """:func:`analysis.style.finish` with the figure keyword options (profile, functional, tiers,
    fidelity)."""
    return style.finish(fig, title, shown, profile=kw.get("profile"), functional=kw.get("functional"),
                        tiers=kw.get("tiers"), fidelity=kw.get("fidelity"))


def no_data(title: str, reason: str, kw: dict, shown: pd.DataFrame | None = None) -> Figure:
    """:func:`analysis.style.no_data` with the figure keyword options."""
    return style.no_data(title, reason, df=shown, profile=kw.get("profile"), functional=kw.get("functional"),
                         tiers=kw.get("tiers"), fidelity=kw.get("fidelity"))
