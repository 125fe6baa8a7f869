"""The kv family's tables: ``python -m families.kv.tables --measurements CSV --reference CSV --out DIR``.

- ``kv_throughput.md``: throughput (kops/s) per system, placement, key type and threads, one
  column per phase (mean over repetitions), with the cache-resident flag;
- ``kv_bottleneck.md``: where the cost goes, at the largest thread count: CPU time per operation
  of the client JVM and of the server, the engine's (the server's; for an in-process store the
  JVM's minus the null driver's), the driver's share of the cost, the store's bytes per node
  and its achieved slow-tier share (numa_maps), the payload bandwidth (throughput x record bytes)
  — the analogue of the seed's bottleneck table; tier bandwidth from counters is not derived;
- ``kv_reference.md``: the seed's published numbers (other systems on RDMA + Optane hardware),
  a separate, labelled table, never compared with ours.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from analysis import frame, reference
from workloads.ycsb.workload import KEY_BYTES

PHASES = ["load", "a", "c", "d", "e"]
KEYS = ["system", "placement", "key_type", "threads"]


def _md(df: pd.DataFrame) -> str:
    if df.empty:
        return "_no rows_\n"
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in r) + " |")
    return "\n".join(lines) + "\n"


def _cell(v: object) -> str:
    if isinstance(v, float):
        if pd.isna(v):
            return "–"
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def _kv(df: pd.DataFrame) -> pd.DataFrame:
    d = frame.typed(df)
    return d[(d["family"] == "kv") & d["value"].notna()]


def _mean(d: pd.DataFrame, metric: str, keys: list[str]) -> pd.DataFrame:
    x = d[d["metric"] == metric]
    return x.groupby(keys, dropna=False)["value"].mean().reset_index()


def throughput(df: pd.DataFrame) -> str:
    d = _kv(df)
    t = _mean(d[d["kv_phase"].isin(PHASES)], "throughput", [*KEYS, "kv_phase"])
    if t.empty:
        return "_no kv throughput rows_\n"
    p = t.pivot_table(index=KEYS, columns="kv_phase", values="value").reset_index()
    for ph in PHASES:
        if ph in p:
            p[ph] = p[ph] / 1e3
    p = p[[*KEYS, *[ph for ph in PHASES if ph in p]]]
    flags = d.groupby(KEYS, dropna=False)["cache_resident"].first().reset_index()
    notes = d.groupby(KEYS, dropna=False)["placement_note"].first().reset_index()
    p = p.merge(flags, on=KEYS, how="left").merge(notes, on=KEYS, how="left")
    p = p.rename(columns={ph: f"{ph} kops/s" for ph in PHASES})
    head = ("YCSB throughput in thousands of operations per second (mean over repetitions). "
            "cache_resident: the records (keys + values) are under 4x the last-level cache, so the tier "
            "hardly matters there.\n\n")
    return head + _md(p)


def node_peaks(chars: pd.DataFrame | None) -> dict[int, float]:
    """Each memory node's peak read bandwidth (MB/s) memchar measured on this host (characterize's
    bandwidth rows, the best over threads and CPU nodes); empty where characterize did not run."""
    if chars is None or chars.empty or not {"metric", "op", "mem_node"} <= set(chars.columns):
        return {}
    bw = chars[(chars["metric"] == "bandwidth") & (chars["op"] == "read") & chars["t_s"].isna()]
    return {int(n): float(v) for n, v in bw.groupby("mem_node")["value"].max().items() if pd.notna(n)}


def _nodes(spec: object) -> list[int]:
    out = []
    for part in str(spec).split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part.strip().isdigit():
            out.append(int(part))
    return out


def bottleneck(df: pd.DataFrame, peaks: dict[int, float] | None = None, dimms: dict[int, int] | None = None) -> str:
    d = _kv(df)
    if d.empty:
        return "_no kv rows_\n"
    d = d[d["threads"] == d["threads"].max()]
    k = [*KEYS, "kv_phase"]
    ph = d[d["kv_phase"].isin(PHASES)]
    out = _mean(ph, "throughput", k).rename(columns={"value": "ops_per_s"})
    for metric, name in (("jvm_cpu_per_op", "client_jvm_us_per_op"), ("server_cpu_per_op", "server_us_per_op")):
        out = out.merge(_mean(ph, metric, k).rename(columns={"value": name}), on=k, how="left")
    if "server_us_per_op" not in out:
        out["server_us_per_op"] = float("nan")
    null = out[out["system"] == "null"][["key_type", "threads", "kv_phase", "client_jvm_us_per_op"]]
    null = null.groupby(["key_type", "threads", "kv_phase"])["client_jvm_us_per_op"].mean().rename("driver_us_per_op")
    out = out.merge(null.reset_index(), on=["key_type", "threads", "kv_phase"], how="left")
    server = out["server_us_per_op"].notna()
    out["engine_us_per_op"] = out["server_us_per_op"].where(server, out["client_jvm_us_per_op"] - out["driver_us_per_op"])
    total = out["client_jvm_us_per_op"] + out["server_us_per_op"].fillna(0)
    out["driver_share"] = (out["driver_us_per_op"] / total).clip(upper=1.0)
    rec = d.groupby(KEYS, dropna=False)["value_bytes"].first().rename("value_bytes").reset_index()
    out = out.merge(rec, on=KEYS, how="left")
    out["payload_MB_per_s"] = out["ops_per_s"] * (out["key_type"].map(KEY_BYTES) + out["value_bytes"]) / 1e6
    mem = d[(d["kv_phase"] == "mem_end") & (d["metric"] == "node_bytes") & (d["op"] == "store")]
    if not mem.empty:
        nb = mem.groupby([*KEYS, "node"])["value"].mean().reset_index()
        nb["v"] = "N" + nb["node"].astype(str) + "=" + (nb["value"] / 2**20).round(1).astype(str) + "MiB"
        nodes = nb.groupby(KEYS)["v"].agg(" ".join).rename("store_bytes_per_node").reset_index()
        out = out.merge(nodes, on=KEYS, how="left")
    share = _mean(d[d["kv_phase"] == "mem_end"], "slow_tier_share", KEYS).rename(columns={"value": "slow_tier_share"})
    out = out.merge(share, on=KEYS, how="left") if not share.empty else out.assign(slow_tier_share=float("nan"))
    if "mem_nodes" in d.columns:
        where = d.groupby(KEYS, dropna=False)["mem_nodes"].first().rename("mem_nodes").reset_index()
        out = out.merge(where, on=KEYS, how="left")
        nodes = out["mem_nodes"].map(_nodes)
        if peaks:
            peak = nodes.map(lambda ns: sum(peaks.get(n, float("nan")) for n in ns) if ns else float("nan"))
            out["payload_share_of_peak"] = out["payload_MB_per_s"] / peak
        if dimms:
            out["dimms"] = nodes.map(lambda ns: "+".join(str(dimms[n]) for n in ns if n in dimms) or None)
    out = out.drop(columns=["value_bytes"])
    out["ops_per_s"] = out["ops_per_s"] / 1e3
    out = out.rename(columns={"ops_per_s": "kops/s"})
    head = (f"Where the cost goes at {int(d['threads'].max())} client threads. CPU times are per operation "
            "(microseconds): the client JVM's (YCSB driver, plus an in-process store's engine), the server's "
            "(/proc/PID/stat); engine = the server's, or for an in-process store the JVM's minus the null "
            "driver's at the same key type, threads and phase (an estimate); driver_share = the null driver's CPU "
            "per operation over the system's total. store_bytes_per_node: /proc/PID/numa_maps of the store's "
            "process at the end (the JVM for in-process stores: heap garbage included). payload = throughput x "
            "(key + value bytes): a lower bound of the traffic; payload_share_of_peak = payload over the peak read "
            "bandwidth memchar measured on the store's memory nodes (characterize on this host; absent where it "
            "did not run): a lower bound of the tier's load (the real traffic, with metadata, indexes, "
            "write-backs and the driver's own, is larger; uncore counters would measure it, not used here). "
            "dimms: memory channels behind those nodes, from the host profile's tiers[].dimms where known.\n\n")
    return head + _md(out)


def reference_table(ref: pd.DataFrame) -> str:
    r = reference.select(ref, source="disagg-pm-kv")
    if r.empty:
        return "_no disagg-pm-kv rows in the reference file_\n"
    t = r[r["metric"] == "throughput"].copy()
    t["value"] = t["low"]
    head = ("**Published numbers, not tierbench results.** Seed 002's evaluation of BonsaiKV against Sherman, "
            "PACTree + AIFM and DINOMO: other systems, on RDMA networks and Intel Optane PMem. Shown for their "
            "shape only; nothing here is compared with the measurements above.\n\n")
    ycsb = t[t["figure"].str.startswith("ycsb-")]
    tab = ycsb.pivot_table(index=["figure", "condition"], columns="system", values="value").reset_index()
    other = r[~r["figure"].str.startswith("ycsb-")][["figure", "system", "condition", "metric", "low", "unit"]]
    return head + _md(tab) + "\nOther rows (Mops/s unless stated):\n\n" + _md(other)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measurements", required=True, type=Path)
    ap.add_argument("--reference", type=Path, default=None)
    ap.add_argument("--out", required=True, type=Path, help="the tables directory")
    ap.add_argument("--characterize", type=Path, default=None,
                    help="characterize's measurements.csv on this host: memchar's peak bandwidth per node")
    ap.add_argument("--dimms", default="{}", help="JSON {node: dimms} from the host profile's tiers")
    args = ap.parse_args(argv)
    df = frame.load(args.measurements)
    peaks = node_peaks(frame.load(args.characterize)) if args.characterize else {}
    dimms = {int(k): int(v) for k, v in json.loads(args.dimms).items()}
    ref = reference.load(args.reference) if args.reference else reference.load()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kv_throughput.md").write_text("# Key-value stores: YCSB throughput\n\n" + throughput(df))
    (args.out / "kv_bottleneck.md").write_text("# Key-value stores: bottleneck table\n\n" + bottleneck(df, peaks, dimms))
    (args.out / "kv_reference.md").write_text("# Seed 002's published numbers (reference only)\n\n" + reference_table(ref))
    return 0


if __name__ == "__main__":
    sys.exit(main())
