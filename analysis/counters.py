"""Every point's hardware counters in one table: ``python -m analysis.counters --out CSV META...``.

``results/<host>/counters.csv`` is what the counter table (``tables/counters.md``) and the
families' own tables (e.g. a bottleneck table's counted bandwidth) read, instead of each going
through the points' files again. Long form, one block per point and counter source that its
``meta.json`` names (``counters``: what workflows/harness/counters.py recorded):

- the point's context columns (``meta.json``'s ``point``: family, experiment, point, rep and its
  family's columns);
- the source's status: ``source``, ``available``, ``ok`` (it ran to the end), ``parse_error``,
  ``rows`` (the samples it parsed), ``reason`` (why not, as recorded), ``counted`` (its samples
  are in this table);
- its samples (``t_s``, ``scope``, ``metric``, ``value``, ``unit``: the point's ``counters.csv``
  rows of that source), one row each, or a single row without a metric where it has none here.

Samples are read only where ``meta.json`` says the source ran to the end with rows: a
``counters.csv`` an earlier run left beside a point is never read as this one's. A point whose
``meta.json`` records no counters (a modelled point) has no rows; a measured point with no
source configured has one, with ``source`` empty.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

STATUS = ["source", "available", "ok", "parse_error", "rows", "reason", "counted"]
SAMPLE = ["t_s", "scope", "metric", "value", "unit"]
MISSING = "counters.csv is missing beside"  # a reason: meta.json says it counted, its file is gone


def _status(src: str, st: dict, have_csv: bool, meta: Path) -> dict:
    available = bool(st.get("available"))
    ok = available and st.get("ok", True) is not False
    rows = int(st.get("rows") or 0)
    reason = str(st.get("reason") or "")
    counted = ok and not st.get("parse_error") and rows > 0 and have_csv
    if ok and not st.get("parse_error") and rows and not have_csv:
        reason = f"{MISSING} {meta}"
    return {"source": src, "available": available, "ok": ok, "parse_error": str(st.get("parse_error") or ""),
            "rows": rows, "reason": reason, "counted": counted}


def collect(metas: list[Path]) -> pd.DataFrame:
    """The table (see the module docstring) from the points' ``meta.json`` files."""
    blocks: list[pd.DataFrame] = []
    ctx_cols: dict[str, None] = {}
    for m in map(Path, metas):
        try:
            meta = json.loads(m.read_text())
        except (OSError, ValueError):
            continue
        if "counters" not in meta:  # not a measured point
            continue
        # a measured point with no counter source configured still has its row (source "")
        status = meta["counters"] or {"": {"available": False, "reason": "no counter source configured"}}
        ctx = dict(meta.get("point") or {})
        clash = set(ctx) & set(STATUS + SAMPLE)
        if clash:
            raise ValueError(f"{m}: the point's context has columns the counters table uses: {sorted(clash)}")
        ctx_cols.update(dict.fromkeys(ctx))
        csv = m.parent / "counters.csv"
        samples = pd.read_csv(csv) if csv.exists() and any(st.get("rows") for st in status.values()) else None
        for src, st in status.items():
            head = {**ctx, **_status(src, st, samples is not None, m)}
            got = samples[samples["source"] == src] if head["counted"] else None
            if got is not None and not got.empty:
                got = got[SAMPLE].copy()
                for k, v in head.items():
                    got[k] = [v] * len(got)
                blocks.append(got)
            else:
                blocks.append(pd.DataFrame([head]))
    cols = [*ctx_cols, *STATUS, *SAMPLE]
    if not blocks:
        return pd.DataFrame(columns=cols)
    return pd.concat(blocks, ignore_index=True).reindex(columns=cols)


def load(path: Path) -> pd.DataFrame:
    """The table as :func:`collect` made it: context columns as text (as the points wrote them: a
    node list "1" stays "1"), samples' ``t_s``/``value`` and ``rows`` as numbers, the flags as
    booleans."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    for c in ("t_s", "value", "rows"):
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    df["rows"] = df["rows"].fillna(0).astype(int)
    for c in ("available", "ok", "counted"):
        df[c] = df[c].str.lower().eq("true")
    return df


def sources(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, source): its status, without the samples."""
    keys = [c for c in df.columns if c not in SAMPLE]
    return df[keys].drop_duplicates().reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("metas", nargs="*", type=Path, help="every point's meta.json (counters.csv beside it)")
    args = ap.parse_args(argv)
    df = collect(args.metas)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    df.to_csv(tmp, index=False)
    tmp.replace(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
