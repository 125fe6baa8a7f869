"""Which CPUs the application and the antagonists get: hyperthreads and sockets.

The facts give each CPU's hardware-thread siblings (hostdetect.smt_siblings: sysfs
topology/core_cpus_list or thread_siblings_list, Documentation/ABI/stable/sysfs-devices-system-cpu)
and each node's sockets (topology/physical_package_id). The Colloid paper's setup: 15
application cores and 5/10/15 antagonist cores, all on the default tier's socket, one thread per
core. Two threads of one core share its caches and execution ports, so an antagonist on the
application's sibling thread would slow the application by more than memory contention.
"""

from __future__ import annotations

from . import ConfigError, cpulist

# The auto split keeps one core for the monitors (a tiering daemon such as tierd, the counter
# collectors) when the default node has at least this many cores, so that they do not take CPU
# time from the application or the antagonists (the Colloid paper's host: 15 application and up to
# 15 antagonist cores of a socket's 32 leave cores free). Fewer cores: no monitor core.
MONITOR_MIN_CORES = 4


def one_thread_per_core(pool: list[int], siblings: dict[int, set[int]]) -> list[int]:
    """The first CPU of ``pool`` of each core, in pool order (all of ``pool`` without SMT facts)."""
    out: list[int] = []
    taken: set[int] = set()
    for c in pool:
        if c in taken:
            continue
        out.append(c)
        taken |= siblings.get(c, set()) | {c}
    return out


def cores_of(cpus: list[int], siblings: dict[int, set[int]]) -> set[int]:
    """Every hardware thread of the cores these CPUs are on."""
    out = set(cpus)
    for c in cpus:
        out |= siblings.get(c, set())
    return out


def sockets_of_cpu(facts: dict, cpu: int) -> list[int]:
    for n in (facts.get("nodes") or {}).values():
        if cpu in n.get("cpus", []):
            return list(n.get("sockets") or [])
    return []


def check_split(app: list[int], ant: list[int], siblings: dict[int, set[int]], facts: dict, default_node: int | None,
                src: str) -> None:
    """No antagonist CPU on an application CPU's core; every CPU on the default node's socket (where
    the facts say which that is)."""
    shared = sorted(c for c in ant if siblings.get(c, set()) & set(app))
    if shared:
        pairs = ", ".join(f"{c} (with {cpulist.format(sorted(siblings[c] & set(app)))})" for c in shared)
        raise ConfigError(f"{src}: cpus/antagonist: CPU {pairs} is a hyperthread sibling of an application CPU: "
                          "the antagonist would share the application's core, not only its memory")
    home = set(((facts.get("nodes") or {}).get(str(default_node)) or {}).get("sockets") or [])
    if not home:
        return  # a CPU-less default node, or no socket facts
    for label, cpus in (("app", app), ("antagonist", ant)):
        away = [c for c in cpus if (s := sockets_of_cpu(facts, c)) and not set(s) & home]
        if away:
            raise ConfigError(f"{src}: cpus/{label}: CPU {cpulist.format(away)} is not on socket "
                              f"{cpulist.format(sorted(home))} of the default tier (node {default_node}); the paper "
                              "runs the application and the antagonists on the default tier's socket")


def check_monitor(mon: list[int], app: list[int], ant: list[int], siblings: dict[int, set[int]], src: str) -> None:
    """No monitor CPU on a core (hyperthread siblings included) of the application or an antagonist."""
    for label, cpus in (("app", app), ("antagonist", ant)):
        shared = sorted(c for c in mon if cores_of([c], siblings) & set(cpus))
        if shared:
            raise ConfigError(f"{src}: cpus/monitor: CPU {cpulist.format(shared)} shares a core with cpus/{label}: "
                              "a monitor (tierd, counter collectors) would take CPU time from it")


def notes(facts: dict, numa_nodes: list[int]) -> list[str]:
    """What a reader of the profile should know: sub-NUMA clustering, and an alternate node on
    the default node's own socket."""
    out = []
    snc = facts.get("snc") or {}
    if snc.get("enabled"):
        per = "; ".join(f"socket {s}: nodes {', '.join(map(str, ns))}" for s, ns in snc.get("socket_nodes", {}).items())
        out.append(f"sub-NUMA clustering (or NPS > 1) is on ({per})")
    if len(numa_nodes) >= 2:
        nodes = facts.get("nodes") or {}
        d, a = numa_nodes[0], numa_nodes[1]
        sd = set((nodes.get(str(d)) or {}).get("sockets") or [])
        sa = set((nodes.get(str(a)) or {}).get("sockets") or [])
        if sd and sa and sd & sa and (nodes.get(str(a)) or {}).get("cpus"):
            out.append(f"the alternate node {a} is on the default node {d}'s own socket "
                       f"{cpulist.format(sorted(sd & sa))} (a sub-NUMA cluster), not a remote socket")
    return out
