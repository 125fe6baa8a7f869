"""The characterize family: each memory tier's idle latency, bandwidth against threads, loaded
latency (the bandwidth-latency curve the tier model consumes) and object-size latency, measured by
memchar for every (CPU node, memory node or DAX path) pair; Intel MLC beside it when the host
profile names it. Points: ``characterize/<experiment>/<pair>[/<op>]``.
"""

from __future__ import annotations

from analysis.registry import figures_of
from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import FamilyPlan, Host, measured, node_cpus, point, replicate
from workflows.harness.scenario import scenario
from workloads.memchar import workload as memchar
from workloads.mlc import workload as mlc

NAME = "characterize"
SCORED = False
TOOLS: list = []
COLUMNS = {
    "op": "text", "threads": "number", "cpus": "text", "cpu_node": "number", "mem_node": "number",
    "size_bytes": "number", "buffer_bytes": "number", "delay": "number", "bandwidth_mbps": "number",
    "bytes_per_iter": "text", "huge_pages": "text", "flush": "text", "duration_s": "number",
}  # fmt: skip

OP_SLUG = {"read": "read", "write": "write", "ntwrite": "ntwrite", "mix1:1": "mix1-1", "mix2:1": "mix2-1",
           "mix3:1": "mix3-1", "write_persist": "write_persist"}
MEMCHAR_TIMEOUT_S = 900
MLC_TIMEOUT_S = 3600


def auto_threads(n: int) -> list[int]:
    """1, 2, 4, ... below n, then n."""
    out, t = [], 1
    while t < n:
        out.append(t)
        t *= 2
    out.append(n)
    return out


def pairs(config: dict, host: Host) -> list[dict]:
    """Every (CPU node, memory target) pair to characterize (``local``: only matching nodes)."""
    facts, prof = host.facts, host.profile
    cpu_nodes = [n for n in facts["cpu_nodes"] if node_cpus(facts, n)]
    targets = []
    for t in prof["tiers"]:
        if t["kind"] == "numa":
            targets.append({"mem_node": t["node"], "target": f"node:{t['node']}", "dax": None, "id": f"m{t['node']}"})
        elif t["kind"] == "dax":
            targets.append({"mem_node": None, "target": f"dax:{t['path']}", "dax": t["path"], "id": f"dax-{t['name']}"})
    if prof["backend"] == "model":
        # a model-only profile: still characterize the real memory we run on
        targets = [{"mem_node": n, "target": f"node:{n}", "dax": None, "id": f"m{n}"} for n in facts["memory_nodes"]]
    out = []
    for c in cpu_nodes:
        for t in targets:
            if config[NAME]["pairs"] == "local" and t["mem_node"] not in (c, None):
                continue
            out.append({**t, "id": f"c{c}-{t['id']}", "cpu_node": c, "cpus": node_cpus(facts, c)})
    return out


def plan(config: dict, host: Host) -> FamilyPlan:
    cc = config[NAME]
    if host.runner:
        why = f"host {host.name} is a {host.runner['kind']} guest: only the real tiering family runs in it"
        return FamilyPlan(absent={NAME: why})
    if not cc["enabled"]:
        return FamilyPlan(absent={NAME: "disabled in the experiment config"})
    fp = FamilyPlan()
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

        def mc(mode: str, target: list[str] = target, **opts: object) -> dict:
            return memchar.role(memchar.argv(mode, target, **opts))

        add("idle_latency", p["id"], p, mc("latency", buffer_mib=lat["buffer_mib"], duration=lat["duration_s"], huge=lat["huge"]))
        threads = auto_threads(n) if bw["threads"] == "auto" else list(bw["threads"])
        if max(threads) > n:
            raise ConfigError(f"experiment config: characterize/bandwidth/threads: {max(threads)} threads requested but node "
                              f"{p['cpu_node']} has {n} usable CPU(s) ({cpulist.format(p['cpus'])})")
        for op in bw["ops"]:
            add("bandwidth", f"{p['id']}/{OP_SLUG[op]}", p,
                mc("bandwidth", op=op, threads=threads, duration=bw["duration_s"]))
        injectors = ll["injectors"]
        if injectors == "auto":
            injectors = n - 1
            if n < 2:
                fp.absent[f"loaded_latency:{p['id']}"] = (f"node {p['cpu_node']} has 1 usable CPU; loaded latency needs a "
                                                          "latency thread plus at least one injector")
        elif injectors > n - 1:
            raise ConfigError(f"experiment config: characterize/loaded/injectors: {injectors} injectors plus the latency thread "
                              f"need {injectors + 1} CPUs but node {p['cpu_node']} has {n}")
        if injectors >= 1:
            for op in ll["ops"]:
                add("loaded_latency", f"{p['id']}/{OP_SLUG[op]}", p,
                    mc("loaded", op=op, injectors=injectors, delays=ll["delays"], duration=ll["duration_s"]))
                fp.outputs = [f"{host.results}/curves"]
        for op in ob["ops"]:
            base = "write" if op == "write_persist" else op
            add("object_latency", f"{p['id']}/{OP_SLUG[op]}", p,
                mc("objsize", op=base, sizes=ob["sizes"], duration=ob["duration_s"], persist=op == "write_persist"))
    if host.profile["tools"].get("mlc") and cc["mlc"]["enabled"]:
        for mode in mlc.MODES:
            a = mlc.argv(host.profile["tools"]["mlc"], mode)
            ctx = {"host": host.name, "backend": "numa", "point": f"mlc-{mode}"}
            rows.append(point(NAME, "mlc", mode, executor=host.executor, context=ctx, columns=COLUMNS,
                              run=measured(config, host, scenario(mlc.role(a, mode), timeout_s=MLC_TIMEOUT_S))))
    fp.rows = replicate(rows, config["reps"])
    fp.figures = figures_of(NAME) if rows else []
    return fp

