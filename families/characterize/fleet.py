"""The characterize family's sections of a fleet's comparison (analysis/fleet.py): the idle-latency
matrix and the peak bandwidths each host measured."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.tables import md as _md

FIGURES: list[str] = []  # it writes no figure


def sections(df: pd.DataFrame, out: Path, fidelity: dict | None = None) -> tuple[list[str], list[Path]]:
    """Measured values only: the hosts' model scores (``fidelity``) do not apply here."""
    parts: list[str] = []
    lat = df[df["metric"] == "idle_latency"] if "metric" in df.columns else pd.DataFrame()
    parts.append("## Idle latency (ns), measured\n")
    if lat.empty:
        parts.append("_no host measured it (characterize did not run, or its tiers are modelled)_\n")
    else:
        parts.append(_md(lat.groupby(["host", "cpu_node", "mem_node"])["value"].mean().unstack("mem_node")
                         .reset_index()))
    bw = df[(df["metric"] == "bandwidth") & (df["family"] == "characterize")] if "metric" in df.columns else pd.DataFrame()
    parts.append("## Peak bandwidth (GB/s), measured\n")
    if bw.empty:
        parts.append("_no host measured it_\n")
    else:
        peak = bw.groupby(["host", "mem_node", "op"])["value"].max().unstack("op") / 1000
        parts.append(_md(peak.reset_index()))
    return parts, []
