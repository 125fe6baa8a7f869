"""The characterize family's sections of ``tables/summary.md`` (analysis/tables.py): idle latency,
peak bandwidth, loaded-latency range, object latency and the uncore-frequency sweep's unloaded
latency per tier pair."""

from __future__ import annotations

import pandas as pd

from analysis.tables import md


def sections(df: pd.DataFrame) -> list[str]:
    out: list[str] = []
    ch = df[df["family"] == "characterize"]
    if not ch.empty:
        ch = ch.assign(pair=ch["cpu_node"].astype("Int64").astype(str) + " -> " + ch["target"].astype(str))
        idle = ch[ch["metric"] == "idle_latency"].groupby(["tool", "pair"], as_index=False)["value"].median()
        out += ["\n## Idle latency (ns)\n", md(idle.rename(columns={"value": "latency_ns"}))]
        bw = ch[ch["metric"] == "bandwidth"]
        if not bw.empty:
            peak = bw.loc[bw.groupby(["tool", "pair", "op"])["value"].idxmax(), ["tool", "pair", "op", "threads", "value"]]
            out += ["\n## Peak bandwidth (MB/s) and the thread count reaching it\n", md(peak.rename(columns={"value": "bandwidth_mbps"}))]
        ll = ch[ch["metric"] == "loaded_latency"]
        if not ll.empty:
            agg = ll.groupby(["tool", "pair", "op"], as_index=False).agg(
                min_latency_ns=("value", "min"), max_latency_ns=("value", "max"), max_bandwidth_mbps=("bandwidth_mbps", "max"))
            out += ["\n## Loaded latency range\n", md(agg)]
        ob = ch[ch["metric"] == "object_latency"]
        if not ob.empty:
            piv = ob.pivot_table(index=["pair", "op"], columns="size_bytes", values="value", aggfunc="median").reset_index()
            piv.columns = [f"{int(c)} B" if isinstance(c, (int, float)) else c for c in piv.columns]
            out += ["\n## Object access latency (ns) by object size\n", md(piv)]
        un = ch[ch["metric"] == "uncore_idle_latency"]
        if not un.empty and "uncore_khz" in un.columns:
            piv = un.pivot_table(index="pair", columns="uncore_khz", values="value", aggfunc="median").reset_index()
            piv.columns = [f"{int(c) // 1000} MHz" if isinstance(c, (int, float)) else c for c in piv.columns]
            out += ["\n## Unloaded latency (ns) by the memory socket's uncore frequency (measured)\n", md(piv)]
    return out
