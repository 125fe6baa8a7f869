"""fio random reads: IOPS, and mean / p99 latency, against queue depth."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from analysis.frame import typed

NAME = "fio_iodepth"
TITLE = "Storage tier: random reads vs queue depth"
CAPTION = """\
fio random reads on the storage tier (the SSD or swap device the host profile names): IOPS
(left) and mean and 99th-percentile completion latency in microseconds (right) against the
I/O queue depth, one line per target and block size, mean over repetitions.
With several repetitions: the mean, and a shaded band for their range (min\u2013max).
"""

_SERIES_COLORS = ["#0173b2", "#d55e00", "#029e73", "#cc78bc", "#ca9161"]
_LAT = {
    "read_latency_mean": {"marker": "o", "linestyle": "-", "label": "mean"},
    "read_latency_p99": {"marker": "s", "linestyle": "--", "label": "p99"},
}


def _series(target: str, block: float) -> str:
    b = "" if pd.isna(block) else f"{int(block) // 1024} KiB" if block >= 1024 else f"{int(block)} B"
    return ", ".join(x for x in (target, b) if x) or "fio"


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = typed(df)
    d = common.select(d, family="storage", metric=["iops", *_LAT])
    d = d[d["value"].notna() & d["iodepth"].notna()]
    if d.empty:
        return common.no_data(TITLE, "no fio rows (family storage: iops, read_latency_mean/p99)", kw)
    d = d.assign(series=[_series(t, b) for t, b in zip(d["target"], d["block_bytes"], strict=True)])
    m = common.mean_value(d, ["series", "metric", "iodepth"])
    series = sorted(m["series"].unique())
    colors = {s: _SERIES_COLORS[i % len(_SERIES_COLORS)] for i, s in enumerate(series)}
    fig, axes = style.figure(2, 1)
    ax_iops, ax_lat = axes[0]
    for s in series:
        line = m[(m["series"] == s) & (m["metric"] == "iops")]
        if not line.empty:
            style.spread(ax_iops, line["iodepth"], line["lo"], line["hi"], colors[s], scale=1e-3)
            ax_iops.plot(line["iodepth"], line["value"] / 1000.0, color=colors[s], marker="o", label=s)
        for metric, st in _LAT.items():
            line = m[(m["series"] == s) & (m["metric"] == metric)]
            if line.empty:
                continue
            label = f"{s}: {st['label']}" if len(series) > 1 else st["label"]
            style.spread(ax_lat, line["iodepth"], line["lo"], line["hi"], colors[s])
            ax_lat.plot(line["iodepth"], line["value"], color=colors[s], marker=st["marker"],
                        linestyle=st["linestyle"], label=label)
    for ax in (ax_iops, ax_lat):
        style.log2_axis(ax, m["iodepth"])
        ax.set_xlabel("I/O queue depth")
        ax.set_ylim(bottom=0)
    ax_iops.set_ylabel("kIOPS")
    ax_iops.set_title("throughput")
    ax_lat.set_ylabel("read latency (\u00b5s)")
    ax_lat.set_title("completion latency")
    if len(series) > 1:
        ax_iops.legend(loc="best", frameon=False)
    ax_lat.legend(loc="best", frameon=False)
    return common.finish(fig, TITLE, d, kw)
