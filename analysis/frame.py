"""The one loader of long-form results: every column typed once, by the schema.

:func:`typed` gives each column its type: the core columns' (``analysis/schema.py``), each
family's declared columns (``families/<name>/__init__.py: COLUMNS``), and, for any other column a
parser kept, number when every non-empty value is one, else text. ``colloid`` becomes a nullable
boolean (written as true/false). :func:`load` reads result.csv / measurements.csv files with it.
A typed frame is marked (``attrs["typed"]``) so that figures and the scorecard, which accept any
frame, do not type it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .schema import CORE

_TRUE = {"true", "1", "1.0", "yes", "on"}
_FALSE = {"false", "0", "0.0", "no", "off"}


def types() -> dict[str, str]:
    import families  # noqa: PLC0415 - the registry is cheap; kept out of module import for light users

    return {**families.columns(), **CORE}


def _by_value(col: pd.Series, conv) -> pd.Series:
    """``conv`` (a Series -> Series transform that maps each value on its own) applied to each
    distinct value of ``col`` once and spread back: a results column holds a few distinct values in
    tens of thousands of rows (the quick run's tiering family: 72 573 rows), so typing took a
    second per load that every figure, table and scorecard job paid. Missing values are converted
    as one more value."""
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    if 2 * (len(uniques) + 1) > len(col):
        return conv(col)
    values = pd.Series(list(uniques) + [None], dtype=object)
    done = conv(values)
    return done.take(codes).set_axis(col.index).astype(done.dtype).rename(col.name)


def as_bool(s: pd.Series) -> pd.Series:
    """True/False/"true"/"false"/1/0 -> nullable boolean; anything else is <NA>."""

    def conv(v: object) -> object:
        if isinstance(v, bool):
            return v
        t = str(v).strip().lower()
        if t in _TRUE:
            return True
        if t in _FALSE:
            return False
        return pd.NA

    return _by_value(s, lambda c: c.map(conv).astype("boolean"))


def _text(col: pd.Series) -> pd.Series:
    return _by_value(col, lambda c: c.where(c.notna(), "").astype(str).str.strip()
                     .replace({"nan": "", "<NA>": "", "None": ""}))


def typed(df: pd.DataFrame | None) -> pd.DataFrame:
    """A typed copy: every known column present, numbers numeric, text stripped, colloid boolean."""
    if df is not None and df.attrs.get("typed"):
        return df
    out = pd.DataFrame() if df is None else df.copy()
    n = len(out)
    known = types()
    for c in known:
        if c not in out.columns:
            out[c] = pd.Series([pd.NA] * n, index=out.index, dtype="object")
    for c in out.columns:
        t = known.get(c)
        if t is None:  # a column a parser kept: a number when every value is one
            num = pd.to_numeric(out[c], errors="coerce")
            t = "number" if (num.notna() | _text(out[c]).eq("")).all() and num.notna().any() else "text"
        if t == "number":
            out[c] = _by_value(out[c], lambda v: pd.to_numeric(v, errors="coerce").astype(float))
        elif t == "bool":
            out[c] = as_bool(out[c])
        else:
            out[c] = _text(out[c])
    out.attrs["typed"] = True
    return out


def read(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Concatenated CSV files, every cell as text (typing is :func:`typed`'s)."""
    frames = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=list(CORE))
    df = pd.concat(frames, ignore_index=True).fillna("")
    first = [c for c in CORE if c in df.columns]
    return df[first + [c for c in df.columns if c not in first]]


def load(paths: str | Path | Iterable[str | Path]) -> pd.DataFrame:
    """Typed long-form measurements from one or more CSV files."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return typed(read(paths))
