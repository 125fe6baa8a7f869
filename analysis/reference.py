"""Published numbers that figures and the scorecard compare against.

The table lives in ``analysis/reference/published_numbers.csv`` (sources cited in the README
beside it). These numbers are for comparison only: they are drawn as labelled reference marks
and listed in the scorecard's "published" columns, never reported as results.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

DEFAULT_PATH = Path(__file__).resolve().parent / "reference" / "published_numbers.csv"
COLUMNS = ["source", "figure", "system", "condition", "metric", "low", "high", "unit", "note"]

# Short labels for figure legends ("published: WHAT, LABEL").
SOURCE_LABEL = {
    "colloid-sosp24": "Colloid paper, SOSP'24",
    "cxl-hybrid-pool": "CXL hybrid pool, seed 003",
    "pm-numa-io": "seed 004",
}


def load(path: str | Path | None = None) -> pd.DataFrame:
    """Read the published-numbers table; ``low``/``high`` as floats, text columns as str."""
    p = Path(path) if path is not None else DEFAULT_PATH
    ref = pd.read_csv(p, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in ref.columns]
    if missing:
        raise ValueError(f"{p}: missing column(s) {', '.join(missing)}")
    for c in ("low", "high"):
        ref[c] = pd.to_numeric(ref[c], errors="raise").astype(float)
    return ref[COLUMNS].reset_index(drop=True)


def empty() -> pd.DataFrame:
    """An empty table with the reference columns (for callers that have none)."""
    return pd.DataFrame({c: pd.Series(dtype=float if c in ("low", "high") else str) for c in COLUMNS})


def select(ref: pd.DataFrame | None, **eq: str) -> pd.DataFrame:
    """Rows of ``ref`` whose columns equal the given values, e.g. ``select(ref, source=..., figure=...)``."""
    if ref is None or ref.empty:
        return empty()
    mask = pd.Series(True, index=ref.index)
    for col, val in eq.items():
        mask &= ref[col].astype(str) == str(val)
    return ref[mask]


def claims(family: str) -> bool:
    """Whether a family's figures hold ours *against* published numbers (a scored family: its
    published ranges read as targets), rather than drawing them as labelled references from other
    hardware (e.g. seed 004's PMem numbers beside memchar's)."""
    from families import get  # noqa: PLC0415 - families import analysis

    return bool(get(family).SCORED)


def comparable(ref: pd.DataFrame, sources: list[str]) -> pd.DataFrame:
    """The rows of sources measured on hardware the profile matches (its ``comparable_to``)."""
    return ref[ref["source"].isin(list(sources))].reset_index(drop=True)


def source_label(source: str) -> str:
    return SOURCE_LABEL.get(source, source)


_CORES = re.compile(r"(\d+)\s*(?:vs\s*(\d+)\s*)?cores")
_BYTES = re.compile(r"(\d+)\s*B\b")


def core_points(condition: str, low: float, high: float) -> list[tuple[int, float]]:
    """(cores, value) points of a bandwidth-vs-cores row.

    "remote read peak (8 cores)" -> [(8, low)] (and (8, high) if it differs);
    "remote write 8 vs 28 cores" -> [(8, low), (28, high)].
    """
    m = _CORES.search(condition)
    if not m:
        return []
    if m.group(2):
        return [(int(m.group(1)), low), (int(m.group(2)), high)]
    pts = [(int(m.group(1)), low)]
    if high != low:
        pts.append((int(m.group(1)), high))
    return pts


def object_size(condition: str) -> int | None:
    """Object size in bytes named by a latency-by-size condition ("256B remote read" -> 256)."""
    m = _BYTES.search(condition)
    return int(m.group(1)) if m else None
