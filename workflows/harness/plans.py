"""CPU/node plans and the points of each family, computed from the validated
config, the resolved host profile and the machine's facts.

No core or node number is hard-coded anywhere: every CPU list comes from here.
"""

from __future__ import annotations

from . import ConfigError, cpulist

OP_SLUG = {"read": "read", "write": "write", "ntwrite": "ntwrite", "mix1:1": "mix1-1", "mix2:1": "mix2-1",
           "mix3:1": "mix3-1", "write_persist": "write_persist"}


def node_cpus(facts: dict, node: int) -> list[int]:
    allowed = set(facts.get("allowed_cpus") or [])
    cpus = facts["nodes"][str(node)]["cpus"]
    return [c for c in cpus if not allowed or c in allowed]


def auto_threads(n: int) -> list[int]:
    out, t = [], 1
    while t < n:
        out.append(t)
        t *= 2
    out.append(n)
    return out


def characterize_points(config: dict, prof: dict, facts: dict) -> dict:
    cc = config["characterize"]
    if not cc["enabled"]:
        return {"pairs": [], "absent": {"characterize": "disabled in the experiment config"}}
    cpu_nodes = [n for n in facts["cpu_nodes"] if node_cpus(facts, n)]
    targets = []
    for t in prof["tiers"]:
        if t["kind"] == "numa":
            targets.append({"mem_node": t["node"], "target": f"node:{t['node']}", "tier": t["name"], "id": f"m{t['node']}"})
        elif t["kind"] == "dax":
            targets.append({"mem_node": None, "target": f"dax:{t['path']}", "tier": t["name"], "id": f"dax-{t['name']}"})
    if prof["backend"] == "model":
        # Model-only profile: still characterize the real memory we run on.
        targets = [{"mem_node": n, "target": f"node:{n}", "tier": f"node{n}", "id": f"m{n}"} for n in facts["memory_nodes"]]
    pairs = []
    for c in cpu_nodes:
        cpus = node_cpus(facts, c)
        for t in targets:
            if cc["pairs"] == "local" and t["mem_node"] not in (c, None):
                continue
            pairs.append({**t, "id": f"c{c}-{t['id']}", "cpu_node": c, "cpus": cpus})
    absent: dict[str, str] = {}
    bw = cc["bandwidth"]
    threads = {}
    for p in pairs:
        n = len(p["cpus"])
        ts = auto_threads(n) if bw["threads"] == "auto" else list(bw["threads"])
        too_many = [t for t in ts if t > n]
        if too_many:
            raise ConfigError(f"experiment config: characterize/bandwidth/threads: {max(too_many)} threads requested but node {p['cpu_node']} has {n} usable CPU(s) ({cpulist.format(p['cpus'])})")
        threads[p["id"]] = ts
    inj = {}
    for p in pairs:
        n = len(p["cpus"])
        want = cc["loaded"]["injectors"]
        if want == "auto":
            if n < 2:
                absent[f"loaded_latency:{p['id']}"] = f"node {p['cpu_node']} has 1 usable CPU; loaded latency needs a latency thread plus at least one injector"
                continue
            want = n - 1
        elif want > n - 1:
            raise ConfigError(f"experiment config: characterize/loaded/injectors: {want} injectors plus the latency thread need {want + 1} CPUs but node {p['cpu_node']} has {n}")
        inj[p["id"]] = want
    return {"pairs": pairs, "threads": threads, "injectors": inj, "absent": absent}


def build(config: dict, prof: dict, facts: dict) -> dict:
    return {"characterize": characterize_points(config, prof, facts)}
