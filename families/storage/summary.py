"""The storage family's section of ``tables/summary.md`` (analysis/tables.py)."""

from __future__ import annotations

import pandas as pd

from analysis.tables import md


def sections(df: pd.DataFrame) -> list[str]:
    out: list[str] = []
    st = df[df["family"] == "storage"]
    if not st.empty:
        piv = st.pivot_table(index=["block_bytes", "iodepth"], columns="metric", values="value").reset_index()
        out += [f"\n## Storage (fio random read on {st['target'].iloc[0]})\n", md(piv)]
    return out
