"""The kernel's memory tiers and the page moves it counts: kernel interfaces, not a tiering system.

Self-contained (reads sysfs / procfs text or a facts dict; changes nothing). A tiering system
whose kernel mechanism needs the tiers in a given order checks them from the facts in its own
registry module (systems/<name>.py, its ``preflight``); the scenario executor counts the kernel's
moves over a point with :func:`moves_delta` and :func:`moved_nothing`.

Sources (Linux, torvalds/linux):

- Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers: each memory tier is
  ``/sys/devices/virtual/memory_tiering/memory_tierN/``, "N is derived based on abstract
  distance", and "a smaller value of N implies a higher (faster) memory tier". The ABI text names
  the node file ``nodes``; mm/memory-tiers.c creates it as ``nodelist`` (``DEVICE_ATTR_RO(nodelist)``,
  renamed before the interface was merged in 6.1), so both are read.
- mm/memory-tiers.c: every node with memory starts in the default DRAM type
  (``MEMTIER_ADISTANCE_DRAM`` = 4.5 chunks: ``memory_tier4``); only a driver that registers another
  abstract distance (dax/kmem for CXL or PMem, HMAT-derived for dax/kmem nodes since about 6.7 and
  for CPU-less nodes present at boot since 6.10, "memory tier: create CPUless memory tiers after
  obtaining HMAT info") puts a node lower.
  ``node_is_toptier()`` is true for every tier at or above the lowest tier holding a node with
  CPUs (``top_tier_adistance``), so a node with CPUs is always top tier: establish_demotion_targets()
  walks the tiers from the lowest up (``list_for_each_entry_reverse``) and stops at the first that
  holds a node of ``node_states[N_CPU]`` ("Once we detect such a memory tier, we consider that
  tier as top tier from which promotion is not allowed"). NUMA balancing in tiering mode never
  scans a top-tier node's pages (mm/mprotect.c), so nothing is promoted from such a node, whatever
  tier a module moved it to. (The Colloid artifact's Linux 6.3 fork replaces that loop:
  "colloid: Overriding top_tier_adistance to always be default dram adistance. This enables
  putting normal NUMA nodes (with CPUs) into lower memory tiers", its mm/memory-tiers.c; a host
  profile says it runs such a kernel with ``tier_setup: {cpu_tiers_promote: true}``.)
- Documentation/ABI/stable/sysfs-devices-node: ``/sys/devices/system/node/has_cpu``, "Nodes that
  have one or more CPUs" (node_states[N_CPU]).
"""

from __future__ import annotations

import re
from pathlib import Path

from . import cpulist

TIERS_DIR = "devices/virtual/memory_tiering"
SYS = Path("/sys")  # where a point reads the tiers again after a profile's tier setup (tests: a stand-in tree)

# /proc/vmstat counters of the kernel's page moves (mm/vmstat.c vmstat_text): NUMA balancing's
# promotions (migrate_misplaced_folio: "pgpromote_success" (5.18), "pgpromote_candidate" (6.0)) and
# reclaim's demotions ("pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged" (6.2+),
# "pgdemote_proactive" (6.15, "split proactive reclaim statistics from direct reclaim
# statistics"); counted in demote_folio_list(), in shrink_folio_list() in later kernels); any other
# migrate_pages() call, such as the DAMOS migrate actions' (mm/damon/paddr.c), counts only
# "pgmigrate_success" / "pgmigrate_fail" (mm/migrate.c migrate_pages). And NUMA balancing's scan
# itself ("numa_pte_updates", "numa_hint_faults", "numa_pages_migrated": CONFIG_NUMA_BALANCING),
# which tells a point that promoted nothing whether its range was scanned at all.
MOVE_PREFIXES = ("pgpromote_", "pgdemote_", "pgmigrate_", "numa_pte_updates", "numa_huge_pte_updates",
                 "numa_hint_faults", "numa_pages_migrated")


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


def tiers_text(tiers: dict[int, list[int]]) -> str:
    """The memory tiers as one line: ``memory_tier4: 0-1, memory_tier22: 2``."""
    return ", ".join(f"memory_tier{t}: {cpulist.format(n) or 'no node'}" for t, n in sorted(tiers.items())) or \
        f"no memory tiers under /sys/{TIERS_DIR}"


def read_cpu_nodes(sys_root: Path = Path("/sys")) -> list[int] | None:
    """The nodes with CPUs (``devices/system/node/has_cpu``), or None where it cannot be read."""
    try:
        return cpulist.parse((sys_root / "devices/system/node/has_cpu").read_text().strip())
    except OSError:
        return None


def lowest_cpu_tier(tiers: dict[int, list[int]], cpu_nodes) -> int | None:
    """The largest tier id (the lowest tier) holding a node with CPUs: it and every tier above it
    are top tier (mm/memory-tiers.c top_tier_adistance, module docstring); None when no tier has one."""
    have = [t for t, nodes in tiers.items() if set(nodes) & set(cpu_nodes or ())]
    return max(have) if have else None


def placed(tiers: dict[int, list[int]], default_node: int, alternate_node: int, cpu_nodes=None,
           cpu_tiers_promote: bool = False) -> str | None:
    """None when the default node is in a strictly higher memory tier (smaller N) than the
    alternate, and the alternate's tier is below every tier holding a node with CPUs
    (``cpu_nodes``; unless ``cpu_tiers_promote``, a kernel that lets them promote): what a mechanism
    promoting between memory tiers needs. Else what was found, in one line (after a host profile's
    ``tier_setup``, which is to have put them so)."""
    td, ta = tier_of(tiers, default_node), tier_of(tiers, alternate_node)
    if td is None or ta is None or td >= ta:
        return (f"the default node {default_node} is not in a higher memory tier than the alternate node "
                f"{alternate_node} ({tiers_text(tiers)})")
    top = None if cpu_tiers_promote else lowest_cpu_tier(tiers, cpu_nodes)
    if top is not None and ta <= top:
        return (f"the alternate node {alternate_node} (memory_tier{ta}) is in or above memory_tier{top}, the lowest "
                f"tier holding a node with CPUs ({tiers_text(tiers)}): the kernel counts every such tier as top tier "
                "and promotes from none of them (mm/memory-tiers.c top_tier_adistance); a kernel that lets them "
                "promote (the Colloid artifact's fork) is named with tier_setup: {cpu_tiers_promote: true}")
    return None


# ---- what the kernel moved ---------------------------------------------------------------------

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
    """One line when a point whose kernel mechanism should have moved pages moved none:
    ``expect`` is "promote" (pages start on the alternate tier: pgpromote_success must rise),
    "demote" (they start on a default tier held to a capacity: some pgdemote_* must rise),
    "migrate" (a mechanism counted only as migrations, starting on the alternate tier:
    pgmigrate_success must rise) or ""."""
    if expect == "promote":
        if "pgpromote_success" not in delta:
            return "/proc/vmstat has no pgpromote_success (kernel < 5.18?): its moves cannot be checked"
        if delta["pgpromote_success"] <= 0:
            return ("the kernel promoted no page (pgpromote_success did not rise) although the workload started on the "
                    "alternate tier")
    elif expect == "migrate":  # moves that count only here (see MOVE_PREFIXES)
        if delta.get("pgmigrate_success", 0) <= 0:
            return "the kernel migrated no page (pgmigrate_success did not rise) although the workload started on the " \
                "alternate tier"
    elif expect == "demote":
        if sum(v for k, v in delta.items() if k.startswith("pgdemote_")) <= 0:
            return ("the kernel demoted no page (no pgdemote_* rose) although the workload started on the default tier "
                    "beyond its capacity")
    return None
