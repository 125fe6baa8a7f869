"""The kv family (seed 002): YCSB Load/A/C/D/E with integer and string keys, over client threads,
against key-value stores whose memory is placed on each tier: the tiered-memory user's version of
a disaggregated persistent-memory KV store's evaluation (docs/kv.md).
Points: ``kv/ycsb/{system}-{placement}-{key}-t{threads}``; in a guest host ``kv/resp/redis-{placement}-{key}-t1``.

One JVM per point (workloads/ycsb) loads the store and runs the phases in order. Systems:
``null`` (YCSB's BasicDB: the driver's ceiling; one placement, beside the others), ``skiplist``
(in-process ordered index: the JVM is bound to the placement), ``redis`` and ``memcached``
(private servers on their own ports under numactl on the placement, started and ended by pid; the
client JVM on the default tier: "client on the compute node, data on the memory node"),
``rocksdb`` and ``lmdb`` (their files on a tmpfs mounted with the placement's mpol, the JVM bound
too; root), ``pmdk`` (kv-pmem, workloads/kvpmem: a libpmemobj pool file on each DAX tier of the
host profile, driven by the same Redis binding; on a directory that is not DAX only with
``kv/pmdk/emulate_on``, and labelled "emulated: not PMem").
Placements: each tier (``--membind``), ``interleave`` (round robin, or the kernel's weighted
interleave through kv-wil) and ``split`` (rocksdb, lmdb: process on the default tier, files on
the slowest). NUMA balancing and demotion are off for these static placements (journaled, restored
after each point). Where the memory landed is read from /proc/PID/numa_maps (and tmpfs Shmem per
node): bytes per node and the achieved slow-tier share. A guest host (no JVM) runs Redis driven by
kv-resp (workloads/kvresp).
"""
from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

from analysis.registry import figures_of
from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import FamilyPlan, Host, measured, node_mib, point, replicate
from workflows.harness.scenario import scenario
from workloads.kvpmem import workload as kvpmem
from workloads.kvresp import workload as kvresp
from workloads.ycsb import workload as ycsb

NAME = "kv"
SCORED = False
COLUMNS = {"kv_phase": "text", "op": "text", "node": "text", "key_type": "text",
           "threads": "number", "placement": "text", "mem_nodes": "text", "placement_note": "text",
           "records": "number", "value_bytes": "number", "cache_resident": "bool"}
STATIC_SETTINGS = {"numa_balancing": "0", "demotion_enabled": "false"}  # workflows/harness/settings.py KNOWN
SYSTEMS = (*ycsb.SYSTEMS, "pmdk")  # pmdk: kv-pmem (workloads/kvpmem), driven by the YCSB Redis binding
EMULATED = "emulated: not PMem"  # every emulated pmdk row's placement_note starts so


SEED_THREADS = (1, 6, 12, 18, 24, 30, 36)


def thread_counts(cfg: dict, cpus: list[int]) -> list[int]:
    """kv/threads, with auto = the seed's counts up to the CPUs granted, and that count."""
    if cfg["threads"] != "auto":
        return list(cfg["threads"])
    n = len(cpus)
    return sorted({t for t in SEED_THREADS if t <= n} | {n})


def granted_cpus(prof: dict) -> list[int]:
    """The CPUs this family may use: the profile's application and antagonist CPUs (it runs no antagonist)."""
    return sorted(set(prof["cpus"]["app"]) | set(prof["cpus"]["antagonist"]))


def client_server_cpus(prof: dict, client_threads: int) -> tuple[list[int], list[int]]:
    """The CPUs of a store's client and of its server process (Redis, memcached, kv-pmem): the
    application CPUs and the antagonist CPUs, so that neither waits for a CPU the other holds
    (numactl(8) --physcpubind: "Only execute process on cpus"; both on one set, a single-threaded
    server waits behind t client threads, and the client's CPU time cannot show it), where the
    application CPUs hold the most client threads the sweep runs. Elsewhere (a profile with no
    antagonist CPUs, or fewer application CPUs than client threads, as on a 2-CPU VM) both share
    every granted CPU: t client threads squeezed onto fewer CPUs would measure the client. An
    embedded store (the client is the store) keeps every granted CPU."""
    app, ant = sorted(prof["cpus"]["app"]), sorted(prof["cpus"]["antagonist"])
    if app and ant and len(app) >= client_threads:
        return app, ant
    return granted_cpus(prof), granted_cpus(prof)


def placements(cfg: dict, tiers: list[dict], systems: list[str] | tuple = (),
               dax: list[str] | tuple = ()) -> list[tuple[str, list[int], list[int], str]]:
    """(name, process nodes, file nodes, note) per placement the config asks for: a tier (both on
    its node), ``interleave`` (every tier's node), ``split`` (the process on the default tier, a
    file-backed store's files on the slowest: "offload data, keep metadata in DRAM"); a tier the
    host lacks is an error; a DAX tier's name (``dax``) is pmdk's (:func:`pmdk_places`), not
    these. ``auto``: every tier, and interleave and (for a file-backed system in ``systems``)
    split on a host with two or more."""
    by_name = {t["name"]: t["node"] for t in tiers}
    nodes = [t["node"] for t in tiers]
    wanted = cfg["placements"]
    if wanted == "auto":
        many = len(set(nodes)) > 1
        wanted = [t["name"] for t in tiers] + (["interleave"] if many else [])
        wanted += ["split"] if many and set(systems) & ycsb.FILES else []
    one = len(set(nodes)) == 1
    note = f"one-node host: every placement is node {nodes[0]}" if one else ""
    out = []
    for p in wanted:
        if p == "interleave":
            out.append((p, sorted(set(nodes)), sorted(set(nodes)), note))
        elif p == "split":
            out.append((p, [nodes[0]], [nodes[-1]], note))
        elif p in by_name:
            out.append((p, [by_name[p]], [by_name[p]], note))
        elif p not in dax:
            raise ConfigError(f"experiment config: kv/placements: {p!r} names no tier of this host (its tiers: "
                              f"{', '.join([*by_name, *dax])}; or interleave, split)")
    return out


def numactl_mem(nodes: list[int]) -> str:
    return f"--interleave={cpulist.format(nodes)}" if len(nodes) > 1 else f"--membind={nodes[0]}"


def interleave_wrap(cfg: dict, tiers: list[dict], cpus: list[int], nodes: list[int]) -> tuple[list[str], dict]:
    """numactl's words for a process interleaved over ``nodes`` (weighted by kv/interleave_weights
    through kv-wil where given), and the settings that needs."""
    pin = ["numactl", f"--physcpubind={cpulist.format(cpus)}"]
    w = cfg["interleave_weights"]
    if not w:
        return [*pin, numactl_mem(nodes)], {}
    weights = {t["node"]: w[i] for i, t in enumerate(tiers) if t["node"] in nodes}
    have_auto = os.path.exists(f"{kvresp.WIL_SYSFS}/auto")
    return [*pin, *kvresp.wil_wrap(nodes)], kvresp.wil_settings(weights, have_auto)


def check_weights(cfg: dict, tiers: list[dict], host: Host) -> None:
    w = cfg["interleave_weights"]
    if not w:
        return
    if len(w) != len(tiers):
        raise ConfigError(f"experiment config: kv/interleave_weights: {len(w)} weights for {len(tiers)} tiers "
                          f"({', '.join(t['name'] for t in tiers)}): one per tier")
    if host.runner:
        raise ConfigError("experiment config: kv/interleave_weights: not in a guest host (its kernel may lack "
                          "weighted interleave): leave it empty")
    if not os.path.isdir(kvresp.WIL_SYSFS):
        raise ConfigError(f"experiment config: kv/interleave_weights: this kernel has no weighted interleave "
                          f"({kvresp.WIL_SYSFS} is missing: Linux 6.9+); leave it empty for plain interleave")


def tmpfs_mpol(nodes: list[int]) -> str:
    return f"interleave:{cpulist.format(nodes)}" if len(nodes) > 1 else f"bind:{nodes[0]}"


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def measuring(results: str) -> bool:
    """Whether a measured point runs now: this host's or this machine's measurement lock is held,
    or any tierbench point runs on this machine (of another checkout or host profile): its server
    may own the port. Then the port is not checked here; the client checks at run time that the
    server on it is its point's."""
    from workflows.harness.point import lock_busy  # noqa: PLC0415 - the runner's module, for its locks

    if lock_busy(Path(results)):
        return True
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if b"workflows.harness.point" in (d / "cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


def check(cfg: dict, host: Host, cpus: list[int]) -> None:
    """Bad input, one line each, before any job: the config, then what this host must have."""
    for s in cfg["systems"]:
        if s not in SYSTEMS:
            raise ConfigError(f"experiment config: kv/systems: unknown system {s!r} (known: {', '.join(SYSTEMS)})")
    for w in cfg["workloads"]:
        if w not in ycsb.PHASES:
            raise ConfigError(f"experiment config: kv/workloads: unknown workload {w!r} (known: {', '.join(ycsb.PHASES)})")
    over = [t for t in thread_counts(cfg, cpus) if t > len(cpus)]
    if over:
        raise ConfigError(f"experiment config: kv/threads: {max(over)} threads but host profile {host.source} grants "
                          f"{len(cpus)} CPUs ({cpulist.format(cpus)}: cpus/app and cpus/antagonist)")
    if host.runner:  # the guest runs kv-resp (built here) and a shipped redis-server
        return
    for tool, pkg in (("java", "default-jdk-headless"), ("mvn", "maven")):
        if not shutil.which(tool):
            raise ConfigError(f"the kv family needs {tool} (Debian package {pkg}: make setup), or set kv/enabled: false")
    for s in cfg["systems"]:
        server = ycsb.SERVERS.get(s)
        if server and not shutil.which(server):
            raise ConfigError(f"experiment config: kv/systems: {s} needs {server} on PATH (Debian package {server}: "
                              "make setup), or leave it out")
    ports = {s: (cfg["redis"]["port"] if s == "redis" else cfg["memcached"]["port"]) for s in cfg["systems"]
             if s in ycsb.SERVERS}
    if "pmdk" in cfg["systems"] and pmdk_places(cfg, host)[0]:  # only where it will run
        ports["pmdk"] = cfg["pmdk"]["port"]
    if len(set(ports.values())) < len(ports):
        raise ConfigError(f"experiment config: {' and '.join(f'kv/{s}/port' for s in ports)}: the same port for two "
                          "servers")
    for s, port in ports.items():
        if host.live and not measuring(host.results) and not port_free(port):
            raise ConfigError(f"experiment config: kv/{s}/port: port {port} on 127.0.0.1 is in use; choose a free one")


def dax_names(prof: dict) -> list[str]:
    return [t["name"] for t in prof["tiers"] if t["kind"] == "dax"]


def no_dax_reason(host: Host) -> str:
    return (f"host profile {host.source} has no DAX tier (PMem in App Direct mode on a filesystem mounted with "
            "-o dax: a tiers[] entry with kind: dax and its path); kv/pmdk/emulate_on: DIR runs it emulated, "
            "labelled not PMem")


def pmdk_places(cfg: dict, host: Host) -> tuple[list[dict], dict]:
    """Where pmdk's pool goes, one placement each: every DAX tier of the host profile that
    kv/placements names (auto: all of them), a directory on its filesystem (a tier whose path is a
    file: that file's directory); and, with kv/pmdk/emulate_on, that directory as "emulated" (not
    PMem: PMEM_IS_PMEM_FORCE=1). And why a DAX tier is left out (device DAX). Bad paths are errors."""
    wanted = cfg["placements"]
    places, absent = [], {}
    for t in host.profile["tiers"]:
        if t["kind"] != "dax" or (wanted != "auto" and t["name"] not in wanted):
            continue
        path = Path(t["path"])
        if not path.exists():
            raise ConfigError(f"host profile {host.source}: tiers: the DAX path {t['path']!r} of tier {t['name']} "
                              "does not exist (kv/systems: pmdk puts its pool there)")
        if not (path.is_dir() or path.is_file()):
            absent[f"kv: pmdk on {t['name']}"] = (f"{t['path']} is device DAX: kv-pmem's pool is a file on a DAX "
                                                  "filesystem (fsdax namespace mounted with -o dax)")
            continue
        d = str(path if path.is_dir() else path.parent)
        places.append({"name": t["name"], "dir": d, "where": f"dax:{d}", "note": "", "emulated": False})
    em = cfg["pmdk"]["emulate_on"]
    if em:
        if not Path(em).is_dir():
            raise ConfigError(f"experiment config: kv/pmdk/emulate_on: {em!r} is not a directory (the pool of the "
                              "emulated, not-PMem pmdk points goes there)")
        d = str(Path(em).resolve())
        places.append({"name": "emulated", "dir": d, "where": f"emulated:{d}", "emulated": True,
                       "note": f"{EMULATED} (a pool file on {d}, PMEM_IS_PMEM_FORCE=1)"})
    return places, absent


def check_pmdk(cfg: dict, host: Host, places: list[dict], records: int, key_bytes: int) -> None:
    """What pmdk needs where it runs: libpmemobj, and room for its pool in each directory (the
    room only in the main process: the run itself fills it)."""
    why = kvpmem.missing()
    if why:
        raise ConfigError(f"experiment config: kv/systems: pmdk needs libpmemobj ({why}; Debian packages "
                          f"{kvpmem.PACKAGES}: make setup), or leave it out")
    for p in places:
        if not os.access(p["dir"], os.W_OK | os.X_OK):
            raise ConfigError(f"experiment config: kv/pmdk: cannot create the pool in {p['dir']} (not writable by "
                              "this user)")
    if not host.live:
        return
    need = pool_mib(cfg, records, key_bytes)
    for p in places:
        stale = Path(p["dir"]) / kvpmem.POOL.format(host=host.name)  # a killed run's: replaced by this run's
        free = (shutil.disk_usage(p["dir"]).free + (stale.stat().st_size if stale.is_file() else 0)) // 2**20
        if free < need:
            raise ConfigError(f"experiment config: kv/pmdk: the pool needs {need} MiB but {p['dir']} has {free} MiB "
                              "free (kv/pmdk/pool_mib, kv/records)")


def check_memory(cfg: dict, host: Host, places: list[tuple], systems: list[str]) -> None:
    """The records fit where the stores keep them: their payload alone (keys and values without any
    store's overhead: a lower bound) is no more than the memory of each placement's nodes, nor, for
    the skip list, which keeps them on the JVM heap, than kv/heap_mib. Said before any job: past it
    a point would fail half-way through the run, or the kernel's OOM killer end the store."""
    n = max_records(cfg)
    kt = max(cfg["key_types"], key=lambda k: ycsb.KEY_BYTES[k])
    need = ycsb.data_bytes(n, kt, cfg["value_bytes"]) / 2**20
    what = f"{n} records of {kt} keys and {cfg['value_bytes']} B values are {need:.0f} MiB of payload"
    for pname, nodes, files, _note in places:
        where = sorted(set(nodes) | set(files))
        have = sum(node_mib(host.facts, x) for x in where)
        if have and need > have:
            raise ConfigError(f"experiment config: kv/records: {what}, more than the memory of placement {pname} "
                              f"(node(s) {cpulist.format(where)}: {have} MiB)")
    if "skiplist" in systems and cfg.get("heap_mib") and need > cfg["heap_mib"]:
        raise ConfigError(f"experiment config: kv/heap_mib: the skiplist store keeps its records on the JVM heap: "
                          f"{what}, more than its {cfg['heap_mib']} MiB")


def pool_mib(cfg: dict, records: int, key_bytes: int) -> int:
    return cfg["pmdk"]["pool_mib"] or kvpmem.pool_mib(records, key_bytes, cfg["value_bytes"])


def max_records(cfg: dict) -> int:
    """The records a point may hold: the load's, and at most 5 % of each inserting phase's operations."""
    return cfg["records"] + sum(cfg["operations"] // 20 for p in cfg["workloads"] if p in ("d", "e"))


def pmdk_rows(config: dict, host: Host, places: list[dict], threads: list[int], settings: dict) -> list[dict]:
    """pmdk's points: kv-pmem with its pool on each place (created per point, removed after it: the
    scenario's scratch; a killed run's is replaced by the next: --fresh), its process on the
    default tier, driven by the YCSB Redis binding (the client on the default tier)."""
    cfg, prof = config[NAME], host.profile
    pc, rcfg = cfg["pmdk"], cfg["redis"]
    client, server = client_server_cpus(prof, max(threads))
    default = [t["node"] for t in prof["tiers"] if t["kind"] == "numa"][0]
    bind = ["numactl", f"--physcpubind={cpulist.format(server)}", numactl_mem([default])]
    client_bind = ["numactl", f"--physcpubind={cpulist.format(client)}", numactl_mem([default])]
    n = max_records(cfg)
    rows = []
    for pl in places:
        pool = f"{pl['dir']}/{kvpmem.POOL.format(host=host.name)}"
        for kt in cfg["key_types"]:
            for th in threads:
                pipe = rcfg["pipeline_depths"] if kt == cfg["key_types"][0] and th == max(threads) else []
                a = ycsb.argv(system="redis", key_type=kt, threads=th, records=cfg["records"],
                              operations=cfg["operations"], max_seconds=cfg["max_seconds"],
                              value_bytes=cfg["value_bytes"], phases=list(cfg["workloads"]), port=pc["port"],
                              pipeline_depths=pipe, pipeline_seconds=rcfg["pipeline_seconds"], heap_mib=cfg["heap_mib"],
                              warmup_seconds=cfg["warmup_seconds"], min_operations=cfg["min_operations"])
                opts = {"slow_nodes": [], "llc_bytes": host.facts.get("llc_bytes") or 0, "records": cfg["records"],
                        "value_bytes": cfg["value_bytes"], "key_type": kt,  # no NUMA slow tier: no slow-tier share
                        "threads": th, "server_threads": th}  # kv-pmem: a thread per connection
                w = ycsb.role(a, opts)
                w["wrap"] = list(client_bind)
                srv = kvpmem.role(kvpmem.argv(port=pc["port"], pool=pool, size_mib=pool_mib(cfg, n, ycsb.KEY_BYTES[kt]),
                                              buckets=kvpmem.buckets(n)))
                srv["wrap"] = (["env", kvpmem.EMULATE_ENV] if pl["emulated"] else []) + bind
                sc = scenario(w, background=[srv], settings=settings, timeout_s=cfg["timeout_s"],
                              scratch={"dir": pl["dir"], "remove": [Path(pool).name]})
                ctx = {"host": host.name, "backend": "dax-emulated" if pl["emulated"] else "dax", "workload": "ycsb",
                       "system": "pmdk", "target": pl["where"], "key_type": kt, "threads": th, "placement": pl["name"],
                       "mem_nodes": pl["where"], "placement_note": pl["note"], "records": cfg["records"],
                       "value_bytes": cfg["value_bytes"]}
                rows.append(point(NAME, "ycsb", f"pmdk-{pl['name']}-{kt}-t{th}", executor=host.executor, context=ctx,
                                  columns=COLUMNS, run=measured(config, host, sc, note=pl["note"]),
                                  tools=sorted({r["tool"] for r in sc["roles"]})))
    return rows


def counters_absent(config: dict, facts: dict) -> str:
    """Why no point can count tier traffic (perf uncore needs an uncore PMU, pcm-memory a PMU), or ""
    where one may: whether it did is each point's meta.json's to say (kv_bottleneck.md)."""
    if not {"perf_uncore", "pcm_memory"} & set(config["counters"]["sources"]):
        return "counters/sources names neither perf_uncore nor pcm_memory"
    pmu = facts.get("perf_counters") or {}
    if not facts.get("uncore_pmus") and not pmu.get("available"):
        return f"no uncore PMU and no PMU on this host: {pmu.get('reason', 'not detected')}"
    return ""


def settings_for(facts: dict) -> dict:
    """NUMA balancing and demotion off (journaled): only where the host (or guest) has the knob
    and it is not off already."""
    now = facts.get("settings") or {}
    return {k: v for k, v in STATIC_SETTINGS.items() if now.get(k) not in (None, "", v)}


GUEST_SOCKET = "/tmp/tierbench-kv-redis.sock"


def guest_points(config: dict, host: Host, tiers: list[dict]) -> tuple[list[dict], dict]:
    """A guest host (no JVM there): Redis under numactl on each placement, loaded and read by
    kv-resp (C, ours) through a Unix socket (the guest's loopback is down); one client thread."""
    cfg = config[NAME]
    absent = {}
    if [s for s in cfg["systems"] if s != "redis"]:
        absent["kv: in the guest"] = (f"host {host.name} is a {host.runner['kind']} guest without a JVM: only Redis runs "
                                      "there, driven by kv-resp (load + uniform reads, not YCSB)")
    if "redis" not in cfg["systems"]:
        return [], absent
    if not shutil.which("redis-server"):  # optional in the guest: say why, plan nothing
        absent["kv"] = ("redis in the guest needs redis-server on this machine's PATH (it is shipped into the guest "
                        "with its libraries; Debian package redis-server)")
        return [], absent
    prof, facts = host.profile, host.facts
    client, server = client_server_cpus(prof, 1)  # one client thread (kv-resp)
    default = tiers[0]["node"]
    slow = sorted({t["node"] for t in tiers[1:]} - {default})
    rows = []
    for pname, nodes, _files, note in placements(cfg, tiers, dax=dax_names(host.profile)):
        if pname == "split":
            continue  # Redis keeps index and data in one allocator
        bind = [numactl_mem(nodes)]
        for kt in cfg["key_types"]:
            opts = {"slow_nodes": slow, "llc_bytes": facts.get("llc_bytes") or 0, "records": cfg["records"],
                    "value_bytes": cfg["value_bytes"], "key_type": kt, "threads": 1, "server_threads": 1}
            w = kvresp.role(kvresp.argv(unix=GUEST_SOCKET, records=cfg["records"], value_bytes=cfg["value_bytes"],
                                        key_type=kt, seconds=cfg["max_seconds"]), opts)
            w["wrap"] = ["numactl", f"--physcpubind={cpulist.format(client)}", f"--membind={default}"]
            srv = ycsb.server_role("redis", 0, unix=GUEST_SOCKET)
            srv["wrap"] = ["numactl", f"--physcpubind={cpulist.format(server)}", *bind]
            sc = scenario(w, background=[srv], settings=settings_for(facts), timeout_s=cfg["timeout_s"])
            ctx = {"host": host.name, "backend": "numa", "workload": "kv-resp", "system": "redis",
                   "target": f"node:{cpulist.format(nodes)}", "key_type": kt, "threads": 1, "placement": pname,
                   "mem_nodes": cpulist.format(nodes), "placement_note": note, "records": cfg["records"],
                   "value_bytes": cfg["value_bytes"]}
            rows.append(point(NAME, "resp", f"redis-{pname}-{kt}-t1", executor=host.executor, context=ctx,
                              columns=COLUMNS, run=measured(config, host, sc, note="kv-resp driver (not YCSB)")))
    return rows, absent


def plan(config: dict, host: Host) -> FamilyPlan:
    cfg = config[NAME]
    if not cfg["enabled"]:
        return FamilyPlan()
    prof, facts = host.profile, host.facts
    tiers = [t for t in prof["tiers"] if t["kind"] == "numa"]
    if prof.get("backend") != "numa" or not tiers:
        return FamilyPlan(absent={NAME: f"host profile {host.source} has no NUMA tiers: a store's memory cannot be placed "
                                        "on a modelled tier"})
    check(cfg, host, granted_cpus(prof))
    check_weights(cfg, tiers, host)
    # a placement naming a tier the host lacks; records that cannot fit
    check_memory(cfg, host, placements(cfg, tiers, cfg["systems"], dax_names(prof)),
                 ["redis"] if host.runner else cfg["systems"])
    if host.runner:
        rows, absent = guest_points(config, host, tiers)
        return FamilyPlan(rows=replicate(rows, config["reps"]), figures=figures_of(NAME) if rows else [], absent=absent,
                          outputs=tables_of(host) if rows else [])
    cpus = granted_cpus(prof)
    places = placements(cfg, tiers, cfg["systems"], dax_names(prof))
    default = tiers[0]["node"]
    slow = sorted({t["node"] for t in tiers[1:]} - {default})
    phases = list(cfg["workloads"])
    settings = settings_for(facts)
    rcfg = cfg["redis"]
    threads = thread_counts(cfg, cpus)
    client_cpus, server_cpus = client_server_cpus(prof, max(threads))
    absent = {}
    pm_places, pm_absent = pmdk_places(cfg, host)
    if not dax_names(prof) and not pm_places:  # said whether or not kv/systems asks for it
        absent["kv: pmdk"] = no_dax_reason(host)
    elif "pmdk" not in cfg["systems"]:
        absent["kv: pmdk"] = "not in kv/systems (add pmdk to run it with its pool on the host's DAX tier)"
    elif pm_places:
        absent.update(pm_absent)
        check_pmdk(cfg, host, pm_places, max_records(cfg), max(ycsb.KEY_BYTES[k] for k in cfg["key_types"]))
    else:
        absent.update(pm_absent or {"kv: pmdk": "kv/placements names none of the host's DAX tiers "
                                                f"({', '.join(dax_names(prof))})"})
    why = counters_absent(config, facts)
    if why:
        absent["kv: tier traffic from counters"] = (f"not measured ({why}): kv_bottleneck.md gives the payload "
                                                    "bandwidth, a lower bound, as a share of memchar's peak")
    systems = [x for x in cfg["systems"] if x != "pmdk"]  # pmdk's placements are its own (pmdk_rows)
    for fs in [x for x in systems if x in ycsb.FILES]:
        if not (facts.get("privileges") or {}).get("root"):
            systems.remove(fs)
            absent[f"kv: {fs}"] = "its files go on a tmpfs bound to the tier, which only root can mount: run as root"
    if "memcached" in systems:
        absent["kv: memcached"] = ("string keys only (its clients take text keys: no 8-byte integer keys) and no "
                                   "phase e (memcached has no ordered scan)")
    if any(p[0] == "split" for p in places) and not set(systems) & ycsb.FILES:
        absent["kv: split placement"] = "needs a store whose data are files (rocksdb, lmdb), kept on the slow tier"
    rows = []
    for system in systems:
        for pname, nodes, files, note in places:
            if system == "null" and pname != places[0][0]:
                continue  # the driver's ceiling: its memory is the driver's, one placement is enough
            if pname == "split" and system not in ycsb.FILES:
                continue  # index and data in one heap (skiplist) or one allocator (redis): nothing to split
            tmpfs = f"{host.results}/kv-tmpfs" if system in ycsb.FILES else None
            for kt in cfg["key_types"]:
                size = max(256, 4 * ycsb.data_bytes(cfg["records"], kt, cfg["value_bytes"]) // 2**20)  # tmpfs, MiB
                for th in threads:
                    server = ycsb.SERVERS.get(system)
                    if system in ycsb.TEXT_KEYS_ONLY and kt == "int":
                        continue
                    pipe = (rcfg["pipeline_depths"] if system == "redis" and kt == cfg["key_types"][0]
                            and th == max(threads) else [])
                    a = ycsb.argv(system=system, key_type=kt, threads=th, records=cfg["records"],
                                  operations=cfg["operations"], max_seconds=cfg["max_seconds"],
                                  value_bytes=cfg["value_bytes"],
                                  phases=[p for p in phases if not (p == "e" and system in ycsb.NO_SCAN)],
                                  port=(rcfg["port"] if system == "redis" else cfg["memcached"]["port"]) if server
                                  else None, pipeline_depths=pipe,
                                  pipeline_seconds=rcfg["pipeline_seconds"], heap_mib=cfg["heap_mib"],
                                  data_dir=tmpfs, cache_mib=cfg["rocksdb"]["cache_mib"], map_mib=size,
                                  warmup_seconds=cfg["warmup_seconds"], min_operations=cfg["min_operations"])
                    opts = {"slow_nodes": slow, "llc_bytes": facts.get("llc_bytes") or 0, "records": cfg["records"],
                            "value_bytes": cfg["value_bytes"], "key_type": kt, "threads": th,
                            "server_threads": ycsb.SERVER_THREADS.get(system, 1)}
                    w = ycsb.role(a, opts)
                    # a server's process on its CPUs, the client on its own (client_server_cpus); an
                    # embedded store, which is the client, on every granted CPU
                    store_cpus = server_cpus if server else cpus
                    placed, extra = interleave_wrap(cfg, tiers, store_cpus, nodes) if pname == "interleave" else (
                        ["numactl", f"--physcpubind={cpulist.format(store_cpus)}", numactl_mem(nodes)], {})
                    w["wrap"] = (["numactl", f"--physcpubind={cpulist.format(client_cpus)}", numactl_mem([default])]
                                 if server else placed)
                    bg = []
                    if server:
                        port = rcfg["port"] if system == "redis" else cfg["memcached"]["port"]
                        mem = max(64, 4 * ycsb.data_bytes(cfg["records"], kt, cfg["value_bytes"]) // 2**20)
                        srv = ycsb.server_role(system, port, memory_mib=mem)
                        srv["wrap"] = placed
                        bg.append(srv)
                    if tmpfs:
                        bg.append(ycsb.tmpfs_role(tmpfs, size, tmpfs_mpol(files)))
                    sc = scenario(w, background=bg, settings={**settings, **extra}, timeout_s=cfg["timeout_s"],
                                  mounts=[tmpfs] if tmpfs else ())  # (unmounted even where kv-tmpfs was killed)
                    tools = sorted({r["tool"] for r in sc["roles"]} | ({"kv-wil"} if extra else set()))
                    where = (cpulist.format(nodes) if files == nodes
                             else f"{cpulist.format(nodes)} (process), {cpulist.format(files)} (files)")
                    ctx = {"host": host.name, "backend": "numa", "workload": "ycsb", "system": system,
                           "target": f"node:{cpulist.format(sorted(set(nodes) | set(files)))}", "key_type": kt,
                           "threads": th, "placement": pname, "mem_nodes": where, "placement_note": note,
                           "records": cfg["records"], "value_bytes": cfg["value_bytes"]}
                    if extra:
                        ctx["placement_note"] = (note + "; " if note else "") + "weighted interleave " + ":".join(
                            str(x) for x in cfg["interleave_weights"])
                        if tmpfs:  # a file store's files: on its tmpfs, whose mpol= interleaves evenly
                            ctx["placement_note"] += " (the process; its files on the tmpfs interleaved evenly)"
                    rows.append(point(NAME, "ycsb", f"{system}-{pname}-{kt}-t{th}", executor=host.executor,
                                      context=ctx, columns=COLUMNS, run=measured(config, host, sc), tools=tools))
    if "pmdk" in cfg["systems"]:
        rows += pmdk_rows(config, host, pm_places, threads, settings)
    return FamilyPlan(rows=replicate(rows, config["reps"]), figures=figures_of(NAME), absent=absent,
                      outputs=tables_of(host) if rows else [])


def tables_of(host: Host) -> list[str]:
    """The family's tables (its rules.smk makes them from its measurements)."""
    return [f"{host.results}/tables/kv_{t}.md" for t in ("throughput", "bottleneck", "reference")]
