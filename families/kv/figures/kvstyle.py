"""Shared by the kv figures (not a figure): the systems' fixed colours, the placements' line
styles, the phase order, and the summary frame every kv figure starts from."""

from __future__ import annotations

import pandas as pd

from analysis.figures import common
from analysis.frame import typed

PHASES = ["load", "a", "c", "d", "e"]
PHASE_LABEL = {"load": "Load", "a": "A (50/50 r/u)", "c": "C (read)", "d": "D (read latest)", "e": "E (scan)"}
SYSTEM = {
    "null": {"color": "#555555", "marker": "D", "linestyle": "--", "label": "null (driver ceiling)"},
    "skiplist": {"color": "#0173b2", "marker": "o", "linestyle": "-", "label": "skip list (in-process)"},
    "redis": {"color": "#d55e00", "marker": "s", "linestyle": "-", "label": "Redis"},
    "rocksdb": {"color": "#029e73", "marker": "^", "linestyle": "-", "label": "RocksDB (files on tmpfs)"},
    "lmdb": {"color": "#ca9161", "marker": "D", "linestyle": "-", "label": "LMDB (file on tmpfs)"},
    "memcached": {"color": "#cc78bc", "marker": "v", "linestyle": "-", "label": "memcached"},
    "pmdk": {"color": "#56b4e9", "marker": "P", "linestyle": "-", "label": "PMDK kv-pmem (pool on DAX)"},
}
SYSTEM_ORDER = list(SYSTEM)
PLACEMENT_LINES = ["-", "--", ":", "-."]
PLACEMENT_FILL = ["full", "none", "left", "bottom"]


def system_style(s: str) -> dict:
    return dict(SYSTEM.get(s, {"color": "#949494", "marker": "v", "linestyle": "-.", "label": s}))


def systems(values) -> list[str]:
    known = {s: i for i, s in enumerate(SYSTEM_ORDER)}
    return sorted({str(v) for v in values}, key=lambda s: (known.get(s, len(known)), s))


def placements(d: pd.DataFrame) -> list[str]:
    """Placement names, the default tier first (the order the points were planned in)."""
    return list(dict.fromkeys(d["placement"].dropna()))


def kv(df: pd.DataFrame, metric: str | list[str], phases: list[str] | None = None) -> pd.DataFrame:
    d = common.select(typed(df), family="kv", metric=metric)
    if phases is not None:
        d = d[d["kv_phase"].isin(phases)]
    return d[d["value"].notna()]


def numa_placement(d: pd.DataFrame) -> pd.Series:
    """Rows whose store is on NUMA nodes (not pmdk's pool file on a DAX path or an emulated one)."""
    if "mem_nodes" not in d.columns:
        return pd.Series(True, index=d.index)
    return ~d["mem_nodes"].astype(str).str.startswith(("dax:", "emulated:"))


def placement_label(d: pd.DataFrame, p: str) -> str:
    notes = d.loc[d["placement"] == p, "placement_note"].dropna()
    notes = [n for n in notes if n]
    nodes = d.loc[d["placement"] == p, "mem_nodes"].dropna()
    if len(nodes) and str(nodes.iloc[0]).startswith(("dax:", "emulated:")):  # pmdk's pool file
        where = f" ({str(nodes.iloc[0]).split(':', 1)[1]})"
    else:
        where = f" (node {nodes.iloc[0]})" if len(nodes) else ""
    if any(str(n).startswith("emulated") for n in notes):
        return f"{p}{where} [emulated: not PMem]"
    return f"{p}{where}" + (" [one node]" if notes else "")


def resident_note(d: pd.DataFrame) -> str:
    if "cache_resident" in d and d["cache_resident"].eq(True).any():
        return "cache-resident: the records are under 4x the LLC, tier effects are muted"
    return ""
