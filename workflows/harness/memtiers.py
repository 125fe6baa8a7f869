"""The kernel's memory tiers and what its own tiering mode (kernel TPP) needs of them.

Self-contained (reads sysfs / procfs text or a facts dict; changes nothing), so that whatever
decides which tiering systems run on a host can call one function:

    reason = kernel_tpp_preconditions(facts, default_node, alternate_node)
    # None: kernel TPP can move pages between these nodes; else one line saying why not

Sources (Linux, torvalds/linux):

- Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers: each memory tier is
  ``/sys/devices/virtual/memory_tiering/memory_tierN/``, "N is derived based on abstract
  distance", and "a smaller value of N implies a higher (faster) memory tier". The ABI text names
  the node file ``nodes``; mm/memory-tiers.c creates it as ``nodelist`` (``DEVICE_ATTR_RO(nodelist)``,
  renamed before the interface was merged in 6.1), so both are read.
- mm/memory-tiers.c: every node with memory starts in the default DRAM type
  (``MEMTIER_ADISTANCE_DRAM`` = 4 chunks: ``memory_tier4``); only a driver that registers another
  abstract distance (dax/kmem for CXL or PMem, HMAT-derived since 6.9) puts a node lower.
  ``node_is_toptier()`` is true for every tier at or above the lowest tier holding a node with
  CPUs (``top_tier_adistance``), so a node with CPUs is always top tier.
- mm/mprotect.c (``change_pte_range``/``change_huge_pmd``): with ``numa_balancing`` in memory
  tiering mode (2) the NUMA-hinting scan skips pages on top-tier nodes, and demotion
  (mm/vmscan.c, ``next_demotion_node``) only targets lower tiers. Two nodes in one tier (a
  two-socket server: both have CPUs) therefore give kernel TPP nothing to promote or demote.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import cpulist

TIERS_DIR = "devices/virtual/memory_tiering"
SYS = Path("/sys")  # where a point reads the tiers again after a profile's tier setup (tests: a stand-in tree)

# /proc/vmstat counters of kernel TPP's moves (mm/vmstat.c vmstat_text: "pgpromote_success",
# "pgpromote_candidate" (6.1+), "pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged" (6.2+),
# "pgdemote_proactive" (6.13+)).
# DAMON's migrate_hot/migrate_cold are migrate_pages(..., MR_DAMON) calls (mm/damon/paddr.c), which
# count "pgmigrate_success"/"pgmigrate_fail" (mm/migrate.c migrate_pages) and no pgpromote_*/pgdemote_*
# (those are NUMA balancing's migrate_misplaced_folio and reclaim's demote_folio_list).
MOVE_PREFIXES = ("pgpromote_", "pgdemote_", "pgmigrate_")


def read_tiers(sys_root: Path = Path("/sys")) -> dict[int, list[int]]:
    """Memory tier id -> its nodes, from sysfs; {} where the kernel has no memory tiers (< 6.1,
    or no NUMA)."""
    out: dict[int, list[int]] = {}
    base = sys_root / TIERS_DIR
    for d in sorted(base.glob("memory_tier[0-9]*")):
        for f in ("nodelist", "nodes"):
            try:
                text = (d / f).read_text().strip()
            except OSError:
                continue
            out[int(d.name[len("memory_tier"):])] = cpulist.parse(text) if text else []
            break
    return out


def tiers_of(facts: dict) -> dict[int, list[int]]:
    """The memory tiers recorded in host facts (hostdetect's ``memory_tiers``: {"4": [0, 1]})."""
    return {int(k): list(v) for k, v in (facts.get("memory_tiers") or {}).items()}


def tier_of(tiers: dict[int, list[int]], node: int) -> int | None:
    for t, nodes in tiers.items():
        if node in nodes:
            return t
    return None


def kernel_tpp_preconditions(facts: dict, default_node: int, alternate_node: int) -> str | None:
    """None when kernel TPP (numa_balancing=2) can promote from ``alternate_node`` to
    ``default_node`` and demote the other way: the default node is in a strictly higher memory
    tier (smaller N) than the alternate. Else one line: what the tiers are and why."""
    tiers = tiers_of(facts)
    d, a = default_node, alternate_node
    if not tiers:
        return (f"kernel {facts.get('kernel') or '?'} shows no memory tiers (/sys/{TIERS_DIR}: Linux >= 6.1 with "
                "NUMA), so kernel TPP has no tier to promote from")
    td, ta = tier_of(tiers, d), tier_of(tiers, a)
    if td is None or ta is None:
        missing = ", ".join(f"node {n}" for n, t in ((d, td), (a, ta)) if t is None)
        return f"{missing} is in no memory tier (/sys/{TIERS_DIR}), so kernel TPP cannot move its pages"
    if td < ta:
        return None
    nodes = facts.get("nodes") or {}
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


def tiers_text(tiers: dict[int, list[int]]) -> str:
    """The memory tiers as one line: ``memory_tier4: 0-1, memory_tier22: 2``."""
    return ", ".join(f"memory_tier{t}: {cpulist.format(n) or 'no node'}" for t, n in sorted(tiers.items())) or \
        f"no memory tiers under /sys/{TIERS_DIR}"


def placed(tiers: dict[int, list[int]], default_node: int, alternate_node: int) -> str | None:
    """None when the default node is in a strictly higher memory tier (smaller N) than the
    alternate (what kernel TPP needs, see :func:`kernel_tpp_preconditions`); else what was found,
    in one line (after a host profile's ``tier_setup``, which is to have put them so)."""
    td, ta = tier_of(tiers, default_node), tier_of(tiers, alternate_node)
    if td is not None and ta is not None and td < ta:
        return None
    return (f"the default node {default_node} is not in a higher memory tier than the alternate node {alternate_node} "
            f"({tiers_text(tiers)})")


# ---- what kernel TPP moved --------------------------------------------------------------------

def vmstat_moves(text: str) -> dict[str, int]:
    """The pgpromote_* / pgdemote_* / pgmigrate_* counters of a /proc/vmstat text."""
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if m and m.group(1).startswith(MOVE_PREFIXES):
            out[m.group(1)] = int(m.group(2))
    return out


def moves_delta(before: str, after: str) -> dict[str, int]:
    """Counter -> increase over a point (counters only the ``after`` text has count from 0)."""
    b, a = vmstat_moves(before), vmstat_moves(after)
    return {k: v - b.get(k, 0) for k, v in sorted(a.items())}


def moved_nothing(delta: dict[str, int], expect: str) -> str | None:
    """One line when a point that claims kernel TPP moved nothing while it should have:
    ``expect`` is "promote" (pages start on the alternate tier: pgpromote_success must rise),
    "demote" (they start on a default tier held to a capacity: some pgdemote_* must rise),
    "migrate" (DAMON, starting on the alternate tier: pgmigrate_success must rise) or ""."""
    if expect == "promote":
        if "pgpromote_success" not in delta:
            return "kernel TPP: /proc/vmstat has no pgpromote_success (kernel < 5.18?): its moves cannot be checked"
        if delta["pgpromote_success"] <= 0:
            return ("kernel TPP promoted no page (pgpromote_success did not rise) although the workload started on the "
                    "alternate tier")
    elif expect == "migrate":  # DAMON: its moves count only here (see MOVE_PREFIXES)
        if delta.get("pgmigrate_success", 0) <= 0:
            return "the kernel migrated no page (pgmigrate_success did not rise) although the workload started on the " \
                "alternate tier"
    elif expect == "demote":
        if sum(v for k, v in delta.items() if k.startswith("pgdemote_")) <= 0:
            return ("kernel TPP demoted no page (no pgdemote_* rose) although the workload started on the default tier "
                    "beyond its capacity")
    return None
