"""Helpers of the overcommit figures (not a figure): the family's summary rows, the workloads in
a fixed order and colour, and the seed's published numbers as relative performance."""

from __future__ import annotations

import pandas as pd

from analysis import reference
from analysis.figures import common
from analysis.frame import typed

ORDER = ["ffmpeg", "resnet50", "tpcc", "tpch"]
COLORS = {"ffmpeg": "#0173b2", "resnet50": "#029e73", "tpcc": "#d55e00", "tpch": "#cc78bc"}
LABELS = {"ffmpeg": "FFmpeg (x264)", "resnet50": "ResNet-50 (inference)", "tpcc": "TPC-C-like (PostgreSQL)",
          "tpch": "TPC-H (DuckDB)"}
SOURCE = "cxl-hybrid-pool"


def rows(df: pd.DataFrame, metric: str | list[str]) -> pd.DataFrame:
    d = common.summary_rows(common.select(typed(df), family="overcommit", metric=metric))
    return d[d["value"].notna() & d["ratio"].notna()]


def workloads(d: pd.DataFrame) -> list[str]:
    have = set(d["workload"].dropna())
    return [w for w in ORDER if w in have] + sorted(have - set(ORDER))


def color(w: str) -> str:
    return COLORS.get(w, "#555555")


def label(w: str) -> str:
    return LABELS.get(w, w)


def published_relative(ref: pd.DataFrame | None, workload: str) -> pd.DataFrame:
    """The seed's numbers for a workload as (ratio, relative performance): a slowdown s is 1 - s,
    a slowdown factor f (a time) is 1/f."""
    pub = reference.select(ref, source=SOURCE, figure="overcommit", system=workload)
    out = []
    for r in pub.itertuples():
        ratio = float(str(r.condition).split("=")[1])
        if r.metric == "slowdown":
            out.append((ratio, 1 - r.low))
        elif r.metric == "slowdown_factor":
            out.append((ratio, 1 / r.low))
    return pd.DataFrame(out, columns=["ratio", "relative"])


def published_saving(ref: pd.DataFrame | None) -> pd.DataFrame:
    pub = reference.select(ref, source=SOURCE, figure="overcommit", metric="cost_saving")
    return pd.DataFrame([(float(str(r.condition).split("=")[1]), r.low) for r in pub.itertuples()],
                        columns=["ratio", "saving"])
