"""YCSB (site.ycsb:core:0.17.0 from Maven Central, with our bindings and runner; workloads/ycsb/):
argv, protocol, parser, build recipe; and the servers it drives (Redis), started as roles.

The runner (``src/main/java/tierbench/kv/Runner.java``) loads the store and runs YCSB's core
workloads A, C, D, E on it in one JVM (YCSB's Client exits after each phase, which loses an
in-process store). Bindings: ``null`` (YCSB's BasicDB: the driver's ceiling), ``skiplist`` (a
ConcurrentSkipListMap on the JVM heap), ``redis`` (Jedis; a private redis-server this module
starts), ``rocksdb`` (rocksdbjni) and ``lmdb`` (lmdbjava), their files on a tmpfs that ``kv-tmpfs``
mounts with a memory policy,
``memcached`` (spymemcached; a private memcached, string keys only, no scans). Keys: YCSB's "user" + 19 digits, stored as those 23 bytes (``string``) or as the number's
8-byte big-endian integer (``int``), one codec for every binding; one field of ``value_bytes``.

Protocol: ``--output FILE``, a long-form CSV ``phase,metric,op,node,value,unit`` whose last row is
``end,complete``; exit 0. The runner reads where its store's memory is from /proc/PID/numa_maps
(the JVM's own, or the server's, whose pid it asks the server for) after the load and at the end:
bytes per node of every mapping (``node_bytes``) and of the anonymous ones (``anon_node_bytes``:
heap and anonymous mmaps, where the data is; the achieved slow-tier share is computed from these,
since a binary's and its libraries' page-cache pages were mostly cached before, by other tasks,
wherever those ran: numa_memory_policy.rst has shared page-cache pages "follow task policy, if
any" only when they are read in).
Latencies are YCSB's: whole microseconds per operation (System.nanoTime()/1000), so in-process
percentiles of a few microseconds are at the resolution's floor.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from workflows.harness.scenario import role as scenario_role

NAME = "ycsb"
_SCRIPT = "workloads/ycsb/build.sh"
# build/bin/ycsb: a launcher for build/ycsb/target/ (Maven; its repository one per user, ~/.cache/tierbench/m2,
# offline once fetched: build.sh)
BUILD = {"upstream": [], "script": _SCRIPT,
         "sources": [_SCRIPT, "workloads/ycsb/pom.xml", "workloads/ycsb/src/main/java/tierbench/kv/*.java"]}
# (kv-tmpfs, the tmpfs role's script, runs from the source tree: workloads/ycsb/kv-tmpfs)
SYSTEMS = ("null", "skiplist", "redis", "rocksdb", "lmdb", "memcached")
FILES = {"rocksdb", "lmdb"}  # systems whose data is files: on a tmpfs bound to the tier (kv-tmpfs)
SERVERS = {"redis": "redis-server", "memcached": "memcached"}  # servers of their own (Debian packages)
SERVER_THREADS = {"redis": 1, "memcached": 2}  # threads serving requests: Redis's one; memcached_argv's -t 2
TEXT_KEYS_ONLY = {"memcached"}  # its clients take text keys: no 8-byte integer keys
NO_SCAN = {"memcached"}  # no ordered scan: phase e is not run
PHASES = ("load", "a", "c", "d", "e")
KEY_BYTES = {"int": 8, "string": 23}
PIDFILE = "server.pid"  # the server's, beside the client's output: how the client knows it is its point's


def argv(*, system: str, key_type: str, threads: int, records: int, operations: int, max_seconds: float,
         value_bytes: int, phases: list[str], port: int | None = None, pipeline_depths: list[int] | tuple = (),
         pipeline_seconds: float = 0.5, heap_mib: int | None = None, data_dir: str | None = None,
         cache_mib: int = 8, map_mib: int = 1024, warmup_seconds: float = 0, min_operations: int = 0) -> list[str]:
    a = ["build/bin/ycsb"] + ([f"-J-Xmx{heap_mib}m"] if heap_mib else [])
    a += ["--db", system, "--key-type", key_type, "--threads", str(threads), "--records", str(records),
          "--operations", str(operations), "--max-seconds", f"{max_seconds:g}", "--value-bytes", str(value_bytes),
          "--phases", ",".join(p for p in phases if p != "load")]
    if warmup_seconds > 0 or min_operations > 0:
        a += ["--warmup-seconds", f"{warmup_seconds:g}", "--min-operations", str(min_operations)]
    if port is not None:
        a += ["--port", str(port)]
    if data_dir is not None:
        a += ["--data-dir", data_dir] + (["--cache-mib", str(cache_mib)] if system == "rocksdb" else
                                         ["--map-mib", str(map_mib)])
    if pipeline_depths:
        a += ["--pipeline-depths", ",".join(str(d) for d in pipeline_depths), "--pipeline-seconds",
              f"{pipeline_seconds:g}"]
    return a


# cli plan's estimate before a first run (a later run's own times replace it), the development VM's (the
# quick run's ten points, 50 000 records, 1 and 2 threads, a fresh run, 2026-11-27; Runner.java reports
# each part's elapsed time): the JVM's start and end; the load per record, a server's (Redis 1.5-3.2 s,
# memcached 3.4-3.7 s) and an in-process store's (skiplist, RocksDB: 0.14-0.18 s); the null store
# (YCSB's BasicDB) at the driver's ceiling, which ends each part at --operations before --max-seconds.
# (Two vCPUs: the load's speed with more threads was not measured; none is assumed.)
JVM_S, NULL_OPS_PER_S = 0.4, 4.5e6
LOAD_S_PER_RECORD = {"server": 5e-5, "in-process": 3e-6}


def seconds(argv_: list[str]) -> float | None:
    """How long one runner takes (for cli plan), as Runner.java runs it: a warm-up and the load; per
    phase a warm-up and its timed part (--max-seconds, or until --operations where that comes first);
    per pipeline depth a warm-up and --pipeline-seconds."""
    from workloads import args_after, flag  # noqa: PLC0415

    args = args_after(argv_, "ycsb")
    if args is None:
        return None
    count = lambda name: len([x for x in (flag(args, name) or "").split(",") if x])  # noqa: E731
    w = float(flag(args, "--warmup-seconds", "0"))
    timed = float(flag(args, "--max-seconds", "0"))
    records, db = int(flag(args, "--records", "0")), flag(args, "--db")
    if db == "null":
        timed = min(timed, int(flag(args, "--operations", "0")) / NULL_OPS_PER_S)
        w = min(w, timed)
    load = (records / NULL_OPS_PER_S if db == "null" else
            LOAD_S_PER_RECORD["server" if db in SERVERS else "in-process"] * records)
    pipe = count("--pipeline-depths") * (w + float(flag(args, "--pipeline-seconds", "0")))
    return JVM_S + w + load + count("--phases") * (w + timed) + pipe


def role(argv_: list[str], opts: dict) -> dict:
    """``opts``: what the parser needs (slow_nodes, llc_bytes, records, value_bytes, key_type)."""
    return scenario_role("ycsb", argv_, output="ycsb.csv", parse="workloads.ycsb.workload:rows", opts=opts,
                         usage=True)


def redis_argv(port: int, unix: str | None = None) -> list[str]:
    """A private Redis: its own port on loopback (or only a Unix socket: ``port`` 0 and ``unix``),
    no persistence, no system service."""
    where = ["--unixsocket", unix, "--unixsocketperm", "700"] if unix else ["--bind", "127.0.0.1"]
    return ["redis-server", "--port", str(port), *where, "--save", "", "--appendonly", "no",
            "--protected-mode", "yes", "--daemonize", "no", "--logfile", ""]  # no --dir: --pidfile may be relative


def memcached_argv(port: int, memory_mib: int) -> list[str]:
    """A private memcached on loopback (no UDP), its pid written by kv-exec (memcached writes a pid
    file only as a daemon); as root it runs as Debian's memcache user."""
    a = [EXEC, "memcached", "-p", str(port), "-l", "127.0.0.1", "-U", "0", "-m", str(memory_mib), "-t",
         str(SERVER_THREADS["memcached"])]
    return a + (["-u", "memcache"] if os.geteuid() == 0 else [])


def server_role(system: str, port: int, unix: str | None = None, memory_mib: int = 64) -> dict:
    if system == "memcached":
        return scenario_role("memcached", memcached_argv(port, memory_mib), name="memcached", stdout="memcached.log",
                             output=PIDFILE, output_flag="--pid-file", parse="workloads.ycsb.workload:server_rows",
                             usage=True)
    if system != "redis":
        raise ValueError(f"no server for {system}")
    # it writes its pid to the point's directory (--pidfile): the client checks that the server on
    # the port is this point's (INFO's process_id) before it touches it
    return scenario_role("redis-server", redis_argv(port, unix), name="redis", stdout="redis.log",
                         output=PIDFILE, output_flag="--pidfile", parse="workloads.ycsb.workload:server_rows",
                         usage=True)


TMPFS = "workloads/ycsb/kv-tmpfs"
EXEC = "workloads/ycsb/kv-exec"


def tmpfs_role(directory: str, size_mib: int, mpol: str) -> dict:
    """A tmpfs for a store's files, mounted with a memory policy (``bind:N``, ``interleave:N-M``)
    once ready, unmounted when stopped (kv-tmpfs; a stale one of a killed run is unmounted first)."""
    return scenario_role("kv-tmpfs", [TMPFS, "--dir", directory, "--size-mib", str(size_mib), "--mpol", mpol],
                         name="tmpfs", ready_file="tmpfs.ready", parse="workloads.ycsb.workload:server_rows")


def server_rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return []  # its CPU time and memory are in the runner's rows (and its usage rows)


# ---- parser ---------------------------------------------------------------------------------

def parse(text: str) -> list[dict]:
    """The runner's CSV as rows (``kv_phase``, ``op``, ``node`` columns); refuses a run that did not
    complete (no ``end,complete`` row)."""
    raw = list(csv.DictReader(io.StringIO(text)))
    if not raw or raw[-1]["metric"] != "complete":
        raise ValueError("the YCSB runner did not complete (no 'end,complete' row): see the point's log")
    out = []
    for r in raw[:-1]:
        if r["metric"] == "server_pid":
            continue
        out.append({"kv_phase": r["phase"], "op": r["op"], "node": r["node"], "metric": r["metric"],
                    "value": float(r["value"]), "unit": r["unit"], "tool": "ycsb"})
    return out


def client_bound(client_us: float, store_us: float, client_threads: int = 1, store_threads: int = 1) -> bool:
    """Whether the client, not the store, is the bottleneck of a phase: the client's CPU time per
    operation over its threads exceeds the store's over its threads, i.e. the client can issue fewer
    operations per second than the store can serve (a client thread waits for the store only for
    the store's share of each operation; Redis serves from one thread, memcached here from two).
    For an in-process store: the null driver's CPU per operation against the engine's (the JVM's
    minus the driver's), both on the same threads (families/kv/tables.py)."""
    return client_us / max(1, client_threads) > store_us / max(1, store_threads)


def derived(rows: list[dict], opts: dict) -> list[dict]:
    """Per-phase CPU time per operation (the JVM's: driver plus an in-process engine; the server's;
    kv-resp's C client), where a server's was measured the client-bottleneck flag
    (:func:`client_bound`: ``client_bound`` 1/0), the store's bytes per node, its achieved slow-tier
    share, and the cache-resident flag."""
    out = []
    by_phase: dict[str, dict[str, float]] = {}
    for r in rows:
        if not r["op"] and not r["node"]:
            by_phase.setdefault(r["kv_phase"], {})[r["metric"]] = r["value"]
    for phase, m in by_phase.items():
        ops = m.get("operations", 0)
        if ops > 0 and "jvm_cpu" in m:
            out.append({"kv_phase": phase, "metric": "jvm_cpu_per_op", "value": m["jvm_cpu"] / ops * 1e6, "unit": "us"})
        if ops > 0 and "client_cpu" in m:  # kv-resp, the C client
            out.append({"kv_phase": phase, "metric": "client_cpu_per_op", "value": m["client_cpu"] / ops * 1e6,
                        "unit": "us"})
        if ops > 0 and "server_cpu" in m:
            out.append({"kv_phase": phase, "metric": "server_cpu_per_op", "value": m["server_cpu"] / ops * 1e6,
                        "unit": "us"})
            client = m.get("jvm_cpu", m.get("client_cpu"))
            if client is not None and m["server_cpu"] > 0:  # a server of ours (its CPU time was read)
                bound = client_bound(client, m["server_cpu"], int(opts.get("threads", 1)),
                                     int(opts.get("server_threads", 1)))
                out.append({"kv_phase": phase, "metric": "client_bound", "value": float(bound), "unit": "bool"})
    slow = {str(n) for n in opts.get("slow_nodes", [])}
    for when in ("mem_load", "mem_end"):
        store = {r["node"]: r["value"] for r in rows if r["kv_phase"] == when and r["op"] == "store"
                 and r["metric"] == "node_bytes"}
        anon: dict[str, float] = {}
        for r in rows:  # its anonymous memory, plus its files on its tmpfs (RocksDB) where it has them
            if r["kv_phase"] == when and r["op"] == "store" and r["metric"] in ("anon_node_bytes", "tmpfs_node_bytes"):
                anon[r["node"]] = anon.get(r["node"], 0.0) + r["value"]
        total, data = sum(store.values()), sum(anon.values())
        if total > 0:
            out.append({"kv_phase": when, "op": "store", "metric": "store_bytes", "value": total, "unit": "B"})
        if slow and data > 0:  # the store's own memory (its data), not its binary's page cache
            out.append({"kv_phase": when, "op": "store", "metric": "slow_tier_share",
                        "value": sum(v for n, v in anon.items() if n in slow) / data, "unit": "fraction"})
    return [{"op": "", "node": "", "tool": "ycsb", **r} for r in out]


def data_bytes(records: int, key_type: str, value_bytes: int) -> int:
    """The loaded records' payload (keys and values, no index or allocator overhead)."""
    return records * (KEY_BYTES[key_type] + value_bytes)


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    got = parse((outdir / role_["output"][1]).read_text())
    got += derived(got, opts)
    llc = opts.get("llc_bytes") or 0
    payload = data_bytes(int(opts["records"]), opts["key_type"], int(opts["value_bytes"]))
    got.append({"kv_phase": "", "op": "", "node": "", "metric": "data_bytes", "value": payload, "unit": "B",
                "tool": "ycsb"})
    resident = bool(llc) and payload < 4 * llc
    return [{**r, "cache_resident": resident} for r in got]
