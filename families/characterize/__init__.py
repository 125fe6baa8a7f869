"""The characterize family: each memory tier's idle latency, bandwidth against threads, loaded
latency (the bandwidth-latency curve the tier model consumes) and object-size latency, measured by
memchar for every (CPU node, memory node or DAX path) pair; Intel MLC beside it when the host
profile names it; and the total bandwidth as a share of a CPU node's threads stream over a slower
tier while the rest stream over the node's local memory (thread_share; seed 004's Figure 4).
Points: ``characterize/<experiment>/<pair>[/<op>]``. On a guest host (the QEMU NUMA guest) only
the experiments of :data:`GUEST` run, inside the guest's batch: idle and loaded latency (their
distributions, per tier) and thread_share.
"""

from __future__ import annotations

import math
import os

from analysis.registry import figures_of
from workflows.harness import ConfigError, cpulist, topology, uncore
from workflows.harness.plan import FamilyPlan, Host, measured, node_cpus, node_mib, point, replicate
from workflows.harness.scenario import scenario
from workloads.memchar import workload as memchar
from workloads.mlc import workload as mlc

NAME = "characterize"
SCORED = False
COLUMNS = {
    "op": "text", "threads": "number", "cpus": "text", "cpu_node": "number", "mem_node": "number",
    "size_bytes": "number", "buffer_bytes": "number", "delay": "number", "bandwidth_mbps": "number",
    "bytes_per_iter": "text", "huge_pages": "text", "flush": "text", "duration_s": "number",
    "share": "number", "quantile": "number", "group_loads": "number", "access_bytes": "number",
    "uncore_khz": "number", "uncore_sockets": "text",
}  # fmt: skip

OP_SLUG = {"read": "read", "write": "write", "ntwrite": "ntwrite", "rmw": "rmw", "mix1:1": "mix1-1", "mix2:1": "mix2-1",
           "mix3:1": "mix3-1", "write_persist": "write_persist"}
MEMCHAR_TIMEOUT_S = 900
MLC_TIMEOUT_S = 3600
# what a guest host runs: the latency distributions per tier (idle and loaded) and thread_share. A guest
# is a functional host (its timings mean nothing); under TCG the bandwidth and object-size sweeps would
# take minutes and check no path the latency points do not
GUEST = ("idle_latency", "loaded_latency", "thread_share")
FIGURES_OF = {"idle_latency": {"latency_matrix", "latency_cdf"}, "loaded_latency": {"bandwidth_latency", "latency_tail"},
              "thread_share": {"thread_share"}, "bandwidth": {"bandwidth_threads"}, "object_latency": {"object_latency"}}


def auto_threads(n: int) -> list[int]:
    """1, 2, 4, ... below n, then n."""
    out, t = [], 1
    while t < n:
        out.append(t)
        t *= 2
    out.append(n)
    return out


def core_first(facts: dict, cpus: list[int]) -> tuple[list[int], int]:
    """The node's CPUs one thread per core first, then the other threads of those cores (the
    facts' smt_siblings, hostdetect.smt_siblings), and the number of cores. memchar puts its
    latency thread on the first CPU and its injectors and bandwidth threads on the next ones, so a
    thread count up to the cores never puts two of them on one core, whose hardware threads share
    its caches and execution ports (workflows/harness/topology.py), and no injector on the latency
    thread's sibling. Without SMT facts: the CPUs in their order."""
    siblings = {int(c): set(v) for c, v in (facts.get("smt_siblings") or {}).items()}
    first = topology.one_thread_per_core(cpus, siblings)
    return first + [c for c in cpus if c not in set(first)], len(first)


def pairs(config: dict, host: Host) -> list[dict]:
    """Every (CPU node, memory target) pair to characterize (``local``: only matching nodes)."""
    facts, prof = host.facts, host.profile
    cpu_nodes = [n for n in facts["cpu_nodes"] if node_cpus(facts, n)]
    targets = []
    for t in prof["tiers"]:
        if t["kind"] == "numa":
            targets.append({"mem_node": t["node"], "target": f"node:{t['node']}", "dax": None, "id": f"m{t['node']}"})
        elif t["kind"] == "dax" and not os.path.isdir(t["path"]):  # (a directory: dax_dirs())
            targets.append({"mem_node": None, "target": f"dax:{t['path']}", "dax": t["path"], "id": f"dax-{t['name']}"})
    if prof["backend"] == "model":
        # a model-only profile: still characterize the real memory we run on
        targets = [{"mem_node": n, "target": f"node:{n}", "dax": None, "id": f"m{n}"} for n in facts["memory_nodes"]]
    out = []
    for c in cpu_nodes:
        for t in targets:
            if config[NAME]["pairs"] == "local" and t["mem_node"] not in (c, None):
                continue
            cpus, cores = core_first(facts, node_cpus(facts, c))
            out.append({**t, "id": f"c{c}-{t['id']}", "cpu_node": c, "cpus": cpus, "cores": cores})
    return out


def dax_dirs(host: Host) -> dict[str, str]:
    """The DAX tiers whose path is a directory (kv's pmdk puts its pool files there), which memchar
    cannot map (it opens the path itself: a device DAX or a file): tier name -> why left out."""
    return {t["name"]: f"tier {t['name']}'s DAX path {t['path']} is a directory: memchar maps a device DAX "
                       "(/dev/daxX.Y) or a file on the DAX filesystem; name one to characterize it"
            for t in host.profile["tiers"] if t["kind"] == "dax" and os.path.isdir(t["path"])}


def check_buffer(buffer_mib: float | None, nodes: list, host: Host, where: str) -> None:
    """A buffer no larger than the memory of each NUMA node it goes to (None: the program's own size;
    a DAX target, node None, is not checked here)."""
    for node in nodes:
        have = node_mib(host.facts, node) if buffer_mib is not None and node is not None else 0
        if have and buffer_mib > have:
            raise ConfigError(f"experiment config: characterize/{where}: {buffer_mib:.0f} MiB is more than node "
                              f"{node}'s memory ({have} MiB)")


def share_counts(shares: list[float], threads: int, where: str) -> list[tuple[float, list[float]]]:
    """The distinct thread shares memchar runs for ``shares`` of ``threads``: (count / threads, the
    configured shares that round to that count, half up as memchar does), in the configured order.
    A share outside 0..1 -> ConfigError."""
    out: dict[int, list[float]] = {}
    for s in shares:
        if not 0 <= s <= 1:
            raise ConfigError(f"experiment config: {where}/shares: {s:g} is not a fraction of the threads (0..1)")
        out.setdefault(math.floor(s * threads + 0.5), []).append(s)
    return [(k / threads, given) for k, given in out.items()]


def share_pairs(config: dict, host: Host) -> list[dict]:
    """thread_share's (CPU node, fast target, slow target) triples: the fast group on the CPU node's
    own memory (``a``), the slow group on each other tier of the profile (each other memory node on a
    model-only profile); with no other tier, on the CPU node's memory too (``single``)."""
    facts = host.facts
    every = pairs({**config, NAME: {**config[NAME], "pairs": "all"}}, host)
    out = []
    for c in sorted({p["cpu_node"] for p in every} & set(facts["memory_nodes"])):
        slow = [p for p in every if p["cpu_node"] == c and p["mem_node"] != c]
        if not slow:  # one memory node: both groups on it, labelled so
            slow = [{"mem_node": c, "target": f"node:{c}", "dax": None, "id": f"c{c}-m{c}", "cpu_node": c,
                     "cpus": node_cpus(facts, c), "single": True}]
        out += [{**p, "a": c, "id": f"c{c}-m{c}-{p['id'].split('-', 1)[1]}"} for p in slow]
    return out


def plan_thread_share(config: dict, host: Host, fp: FamilyPlan) -> list[dict]:
    """thread_share points: per (CPU node, fast, slow) triple and op, one memchar share run over the
    configured shares (fractions of the threads on the slow target)."""
    ts = config[NAME]["thread_share"]
    rows = []
    every = pairs({**config, NAME: {**config[NAME], "pairs": "all"}}, host)
    for c in sorted({p["cpu_node"] for p in every} - set(host.facts["memory_nodes"])):
        fp.absent[f"thread_share:c{c}"] = f"CPU node {c} has no memory of its own for the fast group"
    for t in share_pairs(config, host):
        check_buffer(ts["buffer_mib"], [t["a"], t["mem_node"]], host, "thread_share/buffer_mib")
        n = len(t["cpus"])
        threads = n if ts["threads"] == "auto" else ts["threads"]
        if threads > n:
            raise ConfigError(f"experiment config: characterize/thread_share/threads: {threads} threads requested but "
                              f"node {t['cpu_node']} has {n} usable CPU(s) ({cpulist.format(t['cpus'])})")
        shares = share_counts(ts["shares"], threads, "characterize/thread_share")
        for share, given in shares:
            if len(given) > 1:
                fp.absent[f"thread_share:{t['id']}:{'+'.join(f'{s:g}' for s in given)}"] = (
                    f"shares {', '.join(f'{s:g}' for s in given)} of {threads} threads all round to "
                    f"{round(share * threads)} thread(s): measured once, as share {share:g}")
        note = (f"one memory node: both groups on node {t['a']} (the slow group is not on a slower tier)"
                if t.get("single") else f"fast group on node {t['a']}, slow group on {t['target']}")
        ctx = {"host": host.name, "backend": "numa" if t["mem_node"] is not None else "dax", "cpu_node": t["cpu_node"],
               "mem_node": None, "target": f"node:{t['a']}+{t['target']}", "point": t["id"]}
        for op in ts["ops"]:
            a = memchar.share_argv(t["cpus"], {"mem_node": t["a"]}, {"mem_node": t["mem_node"], "dax": t["dax"]},
                                   op=op, threads=threads, shares=[s for s, _ in shares],
                                   duration_s=ts["duration_s"], buffer_mib=ts["buffer_mib"])
            sc = scenario(memchar.role(a), timeout_s=MEMCHAR_TIMEOUT_S)
            rows.append(point(NAME, "thread_share", f"{t['id']}/{OP_SLUG[op]}", executor=host.executor, context=ctx,
                              columns=COLUMNS, run=measured(config, host, sc, note=note)))
    return rows


def plan_uncore(config: dict, host: Host, fp: FamilyPlan) -> list[dict]:
    """uncore_latency points: per (CPU node, memory node) pair and uncore frequency of the memory
    node's socket (the CPU node's for a CPU-less node), memchar's idle latency with that socket's
    uncore pinned there (workflows/harness/uncore.py); the row is ``uncore_idle_latency`` (ns),
    the frequency the ``uncore_khz`` column."""
    why = uncore.unavailable(host.facts)
    if why:
        fp.absent[f"{NAME}:uncore_latency"] = why
        return []
    lat, steps = config[NAME]["latency"], config[NAME]["uncore"]["steps"]
    nodes = host.facts.get("nodes") or {}
    rows = []
    for p in pairs(config, host):
        if p["mem_node"] is None:
            continue  # a DAX target: no socket of its own
        socks = (nodes.get(str(p["mem_node"])) or {}).get("sockets") or (nodes.get(str(p["cpu_node"])) or {}).get("sockets") or []
        doms = [d for d in host.facts["uncore_frequency"] if d["package"] in socks]
        if not doms:
            fp.absent[f"uncore_latency:{p['id']}"] = (f"no uncore frequency domain of socket {cpulist.format(sorted(socks)) or '?'} "
                                                      f"(node {p['mem_node']}'s)")
            continue
        target = memchar.target_args(p["cpus"], p["mem_node"], p["dax"])
        ctx = {"host": host.name, "backend": "numa", "cpu_node": p["cpu_node"], "mem_node": p["mem_node"],
               "target": p["target"], "point": p["id"], "uncore_sockets": cpulist.format(sorted(socks))}
        for khz in uncore.ladder(doms[0], steps):
            role = memchar.role(memchar.argv("latency", target, buffer_mib=lat["buffer_mib"], duration=lat["duration_s"],
                                             huge=lat["huge"]), probe_metric="uncore_idle_latency")
            sc = scenario(role, settings=uncore.pin(doms, khz), timeout_s=MEMCHAR_TIMEOUT_S)
            rows.append(point(NAME, "uncore_latency", f"{p['id']}/u{khz // 1000}", executor=host.executor,
                              context={**ctx, "uncore_khz": khz}, columns=COLUMNS,
                              run=measured(config, host, sc, note=f"uncore of socket {ctx['uncore_sockets']} pinned at "
                                                                  f"{khz // 1000} MHz")))
    return rows


def plan(config: dict, host: Host) -> FamilyPlan:
    cc = config[NAME]
    if not cc["enabled"]:
        return FamilyPlan(absent={NAME: "disabled in the experiment config"})
    guest = bool(host.runner)
    fp = FamilyPlan()
    fp.absent.update({f"{NAME}:dax-{name}": why for name, why in dax_dirs(host).items()})
    if guest:
        why = (f"host {host.name} is a {host.runner['kind']} guest: only characterize/{', '.join(GUEST)} run in it "
               "(a functional host: the bandwidth and object-size sweeps would take minutes and check nothing more)")
        fp.absent.update({f"{NAME}:{e}": why for e in ("bandwidth", "object_latency", "mlc", "uncore_latency")})
    rows = []

    def add(experiment: str, pid: str, pair: dict, role: dict) -> None:
        ctx = {"host": host.name, "backend": "numa" if pair["mem_node"] is not None else "dax", "cpu_node": pair["cpu_node"],
               "mem_node": pair["mem_node"], "target": pair["target"], "point": pair["id"]}
        rows.append(point(NAME, experiment, pid, executor=host.executor, context=ctx, columns=COLUMNS,
                          run=measured(config, host, scenario(role, timeout_s=MEMCHAR_TIMEOUT_S))))

    bw, ll, ob, lat = cc["bandwidth"], cc["loaded"], cc["objsize"], cc["latency"]
    for p in pairs(config, host):
        n = len(p["cpus"])
        target = memchar.target_args(p["cpus"], p["mem_node"], p["dax"])
        check_buffer(lat["buffer_mib"], [p["mem_node"]], host, "latency/buffer_mib")
        check_buffer(ll.get("buffer_mib"), [p["mem_node"]], host, "loaded/buffer_mib")

        def mc(mode: str, target: list[str] = target, **opts: object) -> dict:
            return memchar.role(memchar.argv(mode, target, **opts))

        add("idle_latency", p["id"], p, mc("latency", buffer_mib=lat["buffer_mib"], duration=lat["duration_s"], huge=lat["huge"]))
        threads = auto_threads(n) if bw["threads"] == "auto" else list(bw["threads"])
        if max(threads) > n:
            raise ConfigError(f"experiment config: characterize/bandwidth/threads: {max(threads)} threads requested but node "
                              f"{p['cpu_node']} has {n} usable CPU(s) ({cpulist.format(p['cpus'])})")
        for op in [] if guest else bw["ops"]:
            add("bandwidth", f"{p['id']}/{OP_SLUG[op]}", p,
                mc("bandwidth", op=op, threads=threads, duration=bw["duration_s"]))
        injectors = ll["injectors"]
        if injectors == "auto":  # one per core beside the latency thread's (core_first)
            injectors = p["cores"] - 1
            if p["cores"] < 2:
                fp.absent[f"loaded_latency:{p['id']}"] = (f"node {p['cpu_node']} has 1 usable CPU; loaded latency needs a "
                                                          "latency thread plus at least one injector")
        elif injectors > n - 1:
            raise ConfigError(f"experiment config: characterize/loaded/injectors: {injectors} injectors plus the latency thread "
                              f"need {injectors + 1} CPUs but node {p['cpu_node']} has {n}")
        if injectors >= 1:
            for op in ll["ops"]:
                add("loaded_latency", f"{p['id']}/{OP_SLUG[op]}", p,
                    mc("loaded", op=op, injectors=injectors, delays=ll["delays"], duration=ll["duration_s"],
                       buffer_mib=ll.get("buffer_mib")))
                fp.outputs = [f"{host.results}/curves"]
        for op in [] if guest else ob["ops"]:
            base = "write" if op == "write_persist" else op
            add("object_latency", f"{p['id']}/{OP_SLUG[op]}", p,
                mc("objsize", op=base, sizes=ob["sizes"], duration=ob["duration_s"], persist=op == "write_persist"))
    if cc["thread_share"]["enabled"]:
        rows += plan_thread_share(config, host, fp)
    elif guest:
        fp.absent[f"{NAME}:thread_share"] = "disabled in the experiment config"
    if cc["uncore"]["enabled"] and not guest:
        rows += plan_uncore(config, host, fp)
    if not guest and host.profile["tools"].get("mlc") and cc["mlc"]["enabled"]:
        for mode in mlc.MODES:
            a = mlc.argv(host.profile["tools"]["mlc"], mode)
            ctx = {"host": host.name, "backend": "numa", "point": f"mlc-{mode}"}
            rows.append(point(NAME, "mlc", mode, executor=host.executor, context=ctx, columns=COLUMNS,
                              run=measured(config, host, scenario(mlc.role(a, mode), timeout_s=MLC_TIMEOUT_S))))
    fp.rows = replicate(rows, config["reps"])
    planned = {r["experiment"] for r in rows}
    if guest:  # only the figures of what runs there
        drawn = set().union(*(FIGURES_OF.get(e, set()) for e in planned)) if planned else set()
        fp.figures = [f for f in figures_of(NAME) if f in drawn]
    else:  # every figure (one without rows says so), thread_share's where it has points
        fp.figures = [f for f in figures_of(NAME) if f != "thread_share" or "thread_share" in planned] if rows else []
    return fp
