"""TPP (Maruf et al., ASPLOS 2023): NUMA-balancing hint faults promote, kswapd-style reclaim demotes;
libcolloid's ``tpp`` policy (colloid/src/policy_tpp.c) on modelled tiers.

On real tiers without Colloid it is the kernel's own tiering mode: ``numa_balancing=2`` (NUMA
balancing in memory-tiering mode) and ``demotion_enabled=true`` (Linux >= 6.1, the first with
memory tiers, mm/memory-tiers.c; the knobs themselves are older,
Documentation/admin-guide/sysctl/kernel.rst "numa_balancing", and
Documentation/ABI/testing/sysfs-kernel-mm-numa "demotion_enabled"). With Colloid it is tierd's
TPP: the kernel's TPP cannot take Colloid's signal from user space.

Kernel TPP needs the two nodes in different memory tiers, the alternate's below every tier
holding a node with CPUs (:func:`kernel_preconditions`, from the host's facts; the tiers
themselves and the top-tier rule: workflows/harness/memtiers.py): mm/mprotect.c
(``change_pte_range``/``change_huge_pmd``): with ``numa_balancing`` in memory tiering mode (2)
the NUMA-hinting scan skips pages on top-tier nodes, and demotion (mm/vmscan.c,
``next_demotion_node``) only targets lower tiers. Two nodes in one tier (a two-socket server:
both have CPUs, and every node with CPUs is top tier, mm/memory-tiers.c) therefore give kernel
TPP nothing to promote or demote.
"""

from systems import Kernel, System, Tierd
from workflows.harness import memtiers


def kernel_preconditions(facts: dict, default_node: int, alternate_node: int) -> str | None:
    """None when kernel TPP (numa_balancing=2) can promote from ``alternate_node`` to
    ``default_node`` and demote the other way: the default node is in a strictly higher memory
    tier (smaller N) than the alternate. Else one line: what the tiers are and why."""
    tiers = memtiers.tiers_of(facts)
    d, a = default_node, alternate_node
    if not tiers:
        return (f"kernel {facts.get('kernel') or '?'} shows no memory tiers (/sys/{memtiers.TIERS_DIR}: Linux >= 6.1 with "
                "NUMA), so kernel TPP has no tier to promote from")
    td, ta = memtiers.tier_of(tiers, d), memtiers.tier_of(tiers, a)
    if td is None or ta is None:
        missing = ", ".join(f"node {n}" for n, t in ((d, td), (a, ta)) if t is None)
        return f"{missing} is in no memory tier (/sys/{memtiers.TIERS_DIR}), so kernel TPP cannot move its pages"
    nodes = facts.get("nodes") or {}
    if td < ta:
        cpu_nodes = [int(n) for n, v in nodes.items() if v.get("cpus")]
        return memtiers.placed(tiers, d, a, cpu_nodes)
    cpus = {n: bool((nodes.get(str(n)) or {}).get("cpus")) for n in (d, a)}
    if td == ta:
        if cpus[d] and cpus[a]:
            why = ("both nodes have CPUs, and the kernel puts every node with CPUs in the top tier "
                   "(mm/memory-tiers.c), so numa_balancing=2 has no demotion target and scans no page of either")
        elif not cpus[a]:
            why = (f"node {a} has no CPUs but no driver gave it a lower tier (no HMAT/CXL/dax-kmem abstract distance), "
                   "so numa_balancing=2 treats both as top tier")
        else:
            why = "numa_balancing=2 treats both as top tier"
        return f"nodes {d} and {a} are in the same memory tier (memory_tier{td}): {why}"
    return (f"the default node {d} (memory_tier{td}) is in a lower memory tier than the alternate node {a} "
            f"(memory_tier{ta}): kernel TPP would promote the other way")


SYSTEM = System(
    "tpp", "TPP", color="#de8f05", marker="s", policy="tpp", baseline=True,
    real=Kernel({"numa_balancing": "2", "demotion_enabled": "true"}, note="kernel TPP (numa_balancing=2)",
                needs="Linux >= 6.1 with NUMA balancing (memory tiers)",
                # the default node must be in a higher memory tier than the alternate, and NUMA
                # balancing never scans a range bound with mbind (kernel_preconditions above);
                # a host profile's tier_setup may place the nodes (hosts/README.md)
                preflight=kernel_preconditions, unbound=True, tier_setup=True),
    real_colloid=Tierd(note="tierd's TPP with Colloid's sign-only control (the kernel's TPP cannot take Colloid's signal)"),
)
