"""Redis (and pmdk's kv-pmem) pipelining: YCSB-C throughput against GETs per round trip (the seed's
pipelining ablation)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import style
from analysis.figures import common
from families.kv.figures import kvstyle

NAME = "kv_pipeline"
TITLE = "Redis: YCSB-C throughput vs pipeline depth"
CAPTION = """\
Redis read throughput (thousands of GETs per second, zipfian YCSB-C keys) against the number of
GETs each client thread sends per round trip (Jedis pipeline), one line per placement of the
server's memory (pmdk's kv-pmem, which speaks the same protocol, beside it: its placement is its
pool's DAX path), at the largest thread count and the first key type. Depth 1 is the synchronous
client; the rise with depth is what batching round trips buys, the analogue of the seed's
coroutine pipelining ablation (its numbers are other systems on RDMA and Optane: not drawn).
"""


def plot(df: pd.DataFrame, ref: pd.DataFrame | None = None, **kw: object) -> Figure:
    d = kvstyle.kv(df, "throughput")
    d = d[d["kv_phase"].astype(str).str.startswith("c-pipe")]
    if d.empty:
        return common.no_data(TITLE, "no Redis pipelining rows (kv/redis/pipeline_depths empty, or redis not run)", kw)
    d = d.assign(depth=d["kv_phase"].str[len("c-pipe"):].astype(float))
    m = common.mean_value(d, ["system", "placement", "depth"])
    fig, axes = style.figure(1, 1)
    ax = axes[0][0]
    for pi, p in enumerate(kvstyle.placements(d)):
        for s in kvstyle.systems(m.loc[m["placement"] == p, "system"]):
            line = m[(m["placement"] == p) & (m["system"] == s)].sort_values("depth")
            st = kvstyle.system_style(s)
            style.spread(ax, line["depth"], line["lo"], line["hi"], st["color"], scale=1e-3)
            ax.plot(line["depth"], line["value"] / 1e3, color=st["color"], marker=st["marker"],
                    linestyle=kvstyle.PLACEMENT_LINES[pi % 4],
                    label=(f"{s}, " if s != "redis" else "") + kvstyle.placement_label(d, p))
    style.log2_axis(ax, m["depth"])
    ax.set_xlabel("GETs per round trip (pipeline depth)")
    ax.set_ylabel("kops/s")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, title="server memory")
    return common.finish(fig, TITLE, d, kw)
