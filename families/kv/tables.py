"""The kv family's tables: ``python -m families.kv.tables --measurements CSV --out DIR [--facts JSON] [--counter-table CSV]``.

- ``kv_throughput.md``: throughput (kops/s) per system, placement, key type and threads, one
  column per phase (mean over repetitions), with the cache-resident flag;
- ``kv_bottleneck.md``: where the cost goes, at the largest thread count: CPU time per operation
  of the client JVM and of the server, the engine's (the server's; for an in-process store the
  JVM's minus the null driver's), the driver's share of the cost, the store's bytes per node
  and its achieved slow-tier share (numa_maps), the payload bandwidth (throughput x record bytes)
  and, where the point's counters (perf uncore IMC, pcm-memory: the host's counters table,
  ``results/<host>/counters.csv``, analysis/counters.py) counted, the read and write bandwidth of the sockets whose memory controllers
  serve the store's nodes, the read as a share of memchar's peak — the analogue of the seed's
  bottleneck table. A node's memory is its CPUs' socket's (host facts, ``nodes[].sockets``); a
  CPU-less node (CXL, PMem) cannot be attributed, nor pmdk's pool on a DAX path, and a socket
  holding several memory nodes (SNC) is given as its total, shared: both said in the table, never
  split or guessed; pmdk's emulated points (not PMem) are named in a note under it;
- ``kv_reference.md``: the seed's published numbers (other systems on RDMA + Optane hardware),
  a separate, labelled table, never compared with ours.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from analysis import counters as counter_table
from analysis import frame, reference
from workloads.ycsb.workload import KEY_BYTES, client_bound

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


def bound(d: pd.DataFrame) -> pd.DataFrame:
    """Per point and phase (KEYS + kv_phase): whether the client, not the store, is the bottleneck
    (workloads/ycsb/workload.py client_bound): a server's points from their ``client_bound`` rows
    (mean over repetitions, flagged where most say so); an in-process store's from the null driver's
    CPU per operation against the engine's (the JVM's minus the driver's, same key type, threads and
    phase); none for null itself (it is the driver) or where the null driver did not run."""
    k = [*KEYS, "kv_phase"]
    srv = _mean(d, "client_bound", k).rename(columns={"value": "client_bound"})
    srv["client_bound"] = srv["client_bound"] > 0.5
    jvm = _mean(d[d["kv_phase"].isin(PHASES)], "jvm_cpu_per_op", k)
    null = jvm[jvm["system"] == "null"].groupby(["key_type", "threads", "kv_phase"])["value"].mean().rename("driver")
    inproc = jvm[(jvm["system"] != "null") & ~jvm.set_index(k).index.isin(srv.set_index(k).index)]
    inproc = inproc.merge(null.reset_index(), on=["key_type", "threads", "kv_phase"], how="inner")
    inproc["client_bound"] = [client_bound(dr, v - dr) for dr, v in zip(inproc["driver"], inproc["value"], strict=True)]
    return pd.concat([srv, inproc[[*k, "client_bound"]]], ignore_index=True)


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
    b = bound(d)
    b = b[b["client_bound"] & b["kv_phase"].isin(PHASES)]
    cb = b.groupby(KEYS, dropna=False)["kv_phase"].agg(lambda s: ", ".join(ph for ph in PHASES if ph in set(s)))
    p = p.merge(cb.rename("client_bound_phases").reset_index(), on=KEYS, how="left")
    p["client_bound_phases"] = p["client_bound_phases"].fillna("")
    p = p.rename(columns={ph: f"{ph} kops/s" for ph in PHASES})
    head = ("YCSB throughput in thousands of operations per second (mean over repetitions). "
            "cache_resident: the records (keys + values) are under 4x the last-level cache, so the tier "
            "hardly matters there. client_bound_phases: the phases where the client, not the store, is the "
            "bottleneck (its CPU time per operation per client thread exceeds the store's per serving thread; "
            "kv_bottleneck.md gives both): there the number measures the YCSB client more than the store.\n\n")
    return head + _md(p)


def node_peaks(chars: pd.DataFrame | None) -> dict[int, float]:
    """Each memory node's peak read bandwidth (MB/s) memchar measured on this host (characterize's
    bandwidth rows, the best over threads and CPU nodes); empty where characterize did not run."""
    if chars is None or chars.empty or not {"metric", "op", "mem_node"} <= set(chars.columns):
        return {}
    bw = chars[(chars["metric"] == "bandwidth") & (chars["op"] == "read") & chars["t_s"].isna()]
    return {int(n): float(v) for n, v in bw.groupby("mem_node")["value"].max().items() if pd.notna(n)}


NOT_NUMA = ("dax:", "emulated:")  # pmdk's mem_nodes: a pool file on a DAX path (or an emulated one), no node


def _nodes(spec: object) -> list[int]:
    """Every node a point's mem_nodes names: "0-1", "0,2", or a split's "0 (process), 1 (files)";
    none for a pool file on a DAX path ("dax:DIR", "emulated:DIR")."""
    if str(spec).startswith(NOT_NUMA):
        return []
    out = set()
    for a, b in re.findall(r"(\d+)(?:-(\d+))?", str(spec)):
        out.update(range(int(a), int(b or a) + 1))
    return sorted(out)


BANDWIDTH_SOURCES = ("perf_uncore", "pcm_memory")  # socket-scoped read/write bandwidth; the first that counted
_SOCKET = re.compile(r"S(\d+)(?:-D\d+)?")  # perf's --per-socket "S0" (per die "S0-D1": summed); pcm's SKT0 is parsed as S0


def socket_bandwidth(rows: pd.DataFrame) -> dict[int, dict[str, float]]:
    """{socket: {"read": MB/s, "write": MB/s}}: the mean over a point's samples of one source's
    socket-scoped rows (the whole point: start-up, load and every phase; the samples carry no phase)."""
    bw = rows[rows["metric"].isin(["read_bandwidth", "write_bandwidth"]) & (rows["unit"] == "MB/s")]
    sock = bw["scope"].astype(str).str.fullmatch(_SOCKET.pattern)
    bw = bw[sock].assign(socket=bw.loc[sock, "scope"].str.extract(_SOCKET, expand=False).astype(int))
    per_t = bw.groupby(["t_s", "socket", "metric"])["value"].sum().reset_index()
    out: dict[int, dict[str, float]] = {}
    for (s, m), v in per_t.groupby(["socket", "metric"])["value"].mean().items():
        out.setdefault(int(s), {})[m.removesuffix("_bandwidth")] = float(v)
    return out


def point_counters(table: pd.DataFrame) -> pd.DataFrame:
    """One row per measured point (repetition) of this family from the host's counters table
    (analysis/counters.py: every point's counter status and samples): its context, and the
    per-socket bandwidth of the first bandwidth source that ran and counted, or why there is none
    (each source's recorded reason)."""
    out = []
    t = table[table["family"] == "kv"] if "family" in table.columns else pd.DataFrame()
    for _, g in t.groupby(["experiment", "point", "rep"], sort=False, dropna=False) if not t.empty else []:
        ctx = g.iloc[0]
        found, source, why = {}, "", []
        status = {s: st for s, st in zip(g["source"], g.to_dict("records"), strict=True)}
        for src in BANDWIDTH_SOURCES:
            st = status.get(src)
            if st is None:
                continue
            if not st["available"]:
                why.append(f"{src}: {st['reason'] or 'unavailable'}")
            elif not st["ok"] or st["parse_error"]:
                why.append(f"{src}: did not complete ({st['parse_error'] or st['reason']})")
            elif not st["rows"]:
                why.append(f"{src}: no samples")
            elif not st["counted"]:
                why.append(f"{src}: {st['reason']}")
            else:
                found = socket_bandwidth(g[g["source"] == src])
                if found:
                    source = src
                    break
                why.append(f"{src}: no socket-scoped read/write bandwidth rows (e.g. AMD's data fabric counts "
                           "DRAM traffic without a read/write split)")
        if not source and not why:
            why = ["neither perf_uncore nor pcm_memory ran for the point (counters/sources)"]
        out.append({**{k: ctx.get(k) for k in KEYS}, "mem_nodes": ctx.get("mem_nodes", ""), "source": source,
                    "sockets": found, "why": "" if source else "; ".join(why)})
    df = pd.DataFrame(out, columns=[*KEYS, "mem_nodes", "source", "sockets", "why"])
    df["threads"] = pd.to_numeric(df["threads"], errors="coerce").astype(float)
    return df


def attribute(nodes: list[int], facts: dict) -> tuple[list[int], list[int], str]:
    """The sockets whose memory controllers serve ``nodes``, and every memory node behind those
    sockets (more than ``nodes`` when a socket holds several: SNC, or a node outside the placement;
    the socket's total is then shared, not split); or why ``nodes`` cannot be attributed."""
    if not nodes:
        return [], [], ("the store's data is a pool file on a DAX path (pmdk), not on a NUMA node: no socket's "
                        "counters are attributed to it")
    have = facts.get("nodes") or {}
    sockets: set[int] = set()
    for n in nodes:
        f = have.get(str(n))
        if f is None:
            return [], [], f"node {n} is not in the host facts"
        if not f.get("cpus"):
            return [], [], (f"node {n} has no CPUs (a CXL expander, or PMem): no socket's memory-controller "
                            "counters see its traffic")
        if not f.get("sockets"):
            return [], [], (f"the socket of node {n} is unknown (host facts without nodes[].sockets: "
                            "physical_package_id unreadable, or facts from an older tierbench)")
        sockets.update(f["sockets"])
    covered = sorted(int(k) for k, f in have.items()
                     if f.get("memory_mib", 0) > 0 and f.get("cpus") and set(f.get("sockets") or []) & sockets)
    return sorted(sockets), covered, ""


def counted(pc: pd.DataFrame, facts: dict | None, peaks: dict[int, float]) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Per point (KEYS): counted read and write MB/s of the sockets serving the store's nodes (mean
    over repetitions), their read as a share of memchar's peak of every node those sockets serve,
    and where the numbers come from; and, per reason, the points that have none."""
    rows, why = [], {}
    for key, g in pc.groupby(KEYS, dropna=False):
        got = g[g["source"] != ""]
        r = dict(zip(KEYS, key, strict=True))
        nodes = _nodes(g["mem_nodes"].iloc[0])
        sockets, covered, reason = attribute(nodes, facts) if facts or not nodes else ([], [], "no host facts given")
        if got.empty:
            reason = next(w for w in g["why"] if w)
        elif not reason:
            missing = [f"S{s}" for s in sockets if any(s not in b or "read" not in b[s] for b in got["sockets"])]
            if missing:
                reason = f"{got['source'].iloc[0]} counted no read bandwidth on socket {', '.join(missing)}"
        if reason:
            why.setdefault(reason, []).append(_name(r))
            rows.append(r)
            continue
        read = sum(sum(b[s]["read"] for s in sockets) for b in got["sockets"]) / len(got)
        writes = [sum(b[s].get("write", float("nan")) for s in sockets) for b in got["sockets"]]
        peak = sum(peaks.get(n, float("nan")) for n in covered) if peaks else float("nan")
        shared = sorted(set(covered) - set(nodes))
        scope = "+".join(f"S{s}" for s in sockets) + ": " + "+".join(f"N{n}" for n in covered)
        scope += f", socket total shared with {'+'.join(f'N{n}' for n in shared)}" if shared else ""
        rows.append({**r, "counted_read_MB_per_s": read, "counted_write_MB_per_s": sum(writes) / len(writes),
                     "counted_share_of_peak": read / peak, "counted_on": f"{scope} ({got['source'].iloc[0]})"})
    cols = [*KEYS, "counted_read_MB_per_s", "counted_write_MB_per_s", "counted_share_of_peak", "counted_on"]
    return pd.DataFrame(rows, columns=cols), why


def bottleneck(df: pd.DataFrame, peaks: dict[int, float] | None = None, dimms: dict[int, int] | None = None,
               counters: pd.DataFrame | None = None, facts: dict | None = None) -> str:
    """The table, and its note; ``counters``: :func:`point_counters` of the family's points
    (``None``: none read), ``facts``: the host's (for the socket of each node)."""
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
    out = out.merge(bound(d).rename(columns={"client_bound": "cb"}), on=k, how="left")
    out["bottleneck"] = out["cb"].map({True: "client", False: "store"}).where(out["system"] != "null", "(driver)")
    out["bottleneck"] = out["bottleneck"].fillna("–")
    out = out.drop(columns=["cb"])
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
    pc = counters if counters is not None else point_counters(pd.DataFrame())
    cnt, why = counted(pc[pc["threads"] == d["threads"].max()], facts, peaks or {})
    out = out.merge(cnt.assign(read=True), on=KEYS, how="left")
    unread = sorted({_name(r) for r in out[out["read"].isna()][KEYS].to_dict("records")})
    if unread:
        why["the point is not in the counters table (counters.csv)"] = unread
    out = out.drop(columns=["read"])
    out = out.drop(columns=["value_bytes"])
    out["ops_per_s"] = out["ops_per_s"] / 1e3
    out = out.rename(columns={"ops_per_s": "kops/s"})
    head = (f"Where the cost goes at {int(d['threads'].max())} client threads. CPU times are per operation "
            "(microseconds): the client JVM's (YCSB driver, plus an in-process store's engine), the server's "
            "(/proc/PID/stat); engine = the server's, or for an in-process store the JVM's minus the null "
            "driver's at the same key type, threads and phase (an estimate); driver_share = the null driver's CPU "
            "per operation over the system's total. bottleneck: client where the client's CPU time per operation per "
            "client thread exceeds the store's per serving thread (a server's: Redis 1, memcached 2; an in-process "
            "store: the null driver's against the engine's), store otherwise; a client-bound row measures the "
            "client more than the store. store_bytes_per_node: /proc/PID/numa_maps of the store's "
            "process at the end (the JVM for in-process stores: heap garbage included). payload = throughput x "
            "(key + value bytes): a lower bound of the traffic; payload_share_of_peak = payload over the peak read "
            "bandwidth memchar measured on the store's memory nodes (characterize on this host; absent where it "
            "did not run): a lower bound of the tier's load (the real traffic, with metadata, indexes, "
            "write-backs and the driver's own, is larger). counted_read/write: the memory traffic the point's "
            "counters (perf uncore IMC CAS counts, or pcm-memory) measured on the sockets whose memory "
            "controllers serve the store's nodes (a node's memory is its CPUs' socket's: counted_on names the "
            "sockets, the nodes they serve and the source), mean over the whole point (start-up, load and every "
            "phase: the samples are not split by phase, so every phase row of a point shows the same value) and "
            "over repetitions; everything that touched those nodes counts, the client JVM's traffic too where it "
            "shares them; where a socket serves nodes outside the placement (SNC), its total is shared and said "
            "so, never split. counted_share_of_peak = counted read over memchar's peak read bandwidth of every "
            "node those sockets serve. dimms: memory channels behind the store's nodes, from the host profile's "
            "tiers[].dimms where known.\n\n")
    return head + _md(out) + _absent(why, len(out.drop_duplicates(KEYS))) + _emulated(d)


def _emulated(d: pd.DataFrame) -> str:
    """The note under the table for pmdk's emulated points (a pool on a directory that is not DAX)."""
    if "placement_note" not in d.columns:
        return ""
    em = d[d["placement_note"].astype(str).str.startswith("emulated")].drop_duplicates(KEYS)
    if em.empty:
        return ""
    return ("\nemulated: not PMem: " + ", ".join(sorted({_name(r) for r in em[KEYS].to_dict("records")}))
            + f" ({em['placement_note'].iloc[0]}): a functional check of the pmdk store, not a PMem measurement.\n")


def _name(r: dict) -> str:
    return f"{r['system']}-{r['placement']}-{r['key_type']}"


def _absent(why: dict[str, list[str]], points: int) -> str:
    """The note under the table: why counted columns are empty, with the points concerned."""
    if not why:
        return ""
    lines = ["", "Counted columns empty where no counter measured them (never estimated):", ""]
    for reason, names in sorted(why.items()):
        lines.append(f"- {reason}: {'every point' if len(names) >= points else ', '.join(sorted(names))}")
    return "\n".join(lines) + "\n"


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
    ap.add_argument("--facts", type=Path, default=None, help="results/<host>/host_facts.json: each node's sockets")
    ap.add_argument("--counter-table", type=Path, default=None,
                    help="results/<host>/counters.csv: every point's counters (analysis/counters.py)")
    args = ap.parse_args(argv)
    df = frame.load(args.measurements)
    peaks = node_peaks(frame.load(args.characterize)) if args.characterize else {}
    dimms = {int(k): int(v) for k, v in json.loads(args.dimms).items()}
    ref = reference.load(args.reference) if args.reference else reference.load()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kv_throughput.md").write_text("# Key-value stores: YCSB throughput\n\n" + throughput(df))
    facts = json.loads(args.facts.read_text()) if args.facts else None
    table = counter_table.load(args.counter_table) if args.counter_table else pd.DataFrame()
    b = bottleneck(df, peaks, dimms, point_counters(table), facts)
    (args.out / "kv_bottleneck.md").write_text("# Key-value stores: bottleneck table\n\n" + b)
    (args.out / "kv_reference.md").write_text("# Seed 002's published numbers (reference only)\n\n" + reference_table(ref))
    return 0


if __name__ == "__main__":
    sys.exit(main())
