"""DAMON-based memory tiering on real tiers, through the kernel's DAMON sysfs interface.

The kernel's own tiering with DAMON (DAMOS ``migrate_hot`` / ``migrate_cold`` with a
``target_nid``), set up the way upstream's memory-tiering sample does it
(``samples/damon/mtier.c``): two kdamonds on the physical address space (``paddr``), one
watching the alternate node's memory and promoting what is accessed to the default node, one
watching the default node's memory and demoting what is not accessed to the alternate node.

In a measured point (the ``damon`` system's points, systems/sweep.py) the plan travels as plain
data, :func:`scenario_spec` (the scenario's ``mechanism`` resource, naming this module), and each
executor of workflows/harness/scenario.py runs it through this module's hooks (:func:`host_start`,
:func:`host_stats`, :func:`sh_start`, :func:`sh_stats`, :func:`feeder`, :func:`rows`): here
:func:`apply_setup` / :func:`read_stats`; in a guest the same steps through
hosts/qemu/guest/lib.sh's ``damon_*`` functions, which also hold the Colloid feeder
``damon_feed``). :func:`preconditions` is the preflight from a host's facts. Directly:

    plan = tiering_plan(default=0, alternate=1, ranges={0: [...], 1: [...]}, release="6.12.1")
    with Damon(plan, settings) as d:   # settings: workflows.harness.settings.Settings (journaled)
        d.feed({"promote": 0.8})       # Colloid variant: L_default / L_alternate, see below
        d.stats()

Sources (every file name, keyword and unit below is from these):
- Documentation/admin-guide/mm/damon/usage.rst: the sysfs hierarchy under
  ``/sys/kernel/mm/damon/admin`` (``kdamonds/nr_kdamonds``, ``<N>/state`` taking ``on``,
  ``off``, ``commit_schemes_quota_goals``, ``update_schemes_stats``; ``contexts/<N>/operations``,
  ``monitoring_attrs/intervals/{sample_us,aggr_us,update_us}``, ``nr_regions/{min,max}``,
  ``targets/<N>/regions/<N>/{start,end}`` -- paddr regions are set by the user; ``schemes/<N>/``
  ``action``, ``target_nid`` (``migrate_hot``/``migrate_cold`` only), ``apply_interval_us``,
  ``access_pattern/{sz,nr_accesses,age}/{min,max}``, ``quotas/{ms,bytes,reset_interval_ms}``,
  ``quotas/weights/{sz_permil,nr_accesses_permil,age_permil}``, ``quotas/goals/<N>/``
  ``{target_metric,target_value,current_value,nid}``, ``filters/<N>/{type,matching}``,
  ``stats/{nr_tried,sz_tried,nr_applied,sz_applied,qt_exceeds}``).
- Documentation/mm/damon/design.rst and mm/damon/core.c (``damos_quota_score``,
  ``damon_feed_loop_next_input``): a goal's score is current_value / target_value x 10000; below
  10000 the effective quota grows, above it shrinks ("assuming the input and the score are
  positively proportional"); with several goals the highest score wins.
- samples/damon/mtier.c: sampling 5 ms, aggregation 100 ms, 10..1000 regions, promotion of
  regions with >= 1 access per aggregation and demotion of regions with none, apply interval
  1 s, quota 200 MiB per 1 s with weights nr_accesses 100 / age 100 / size 0, a ``young`` page
  filter (promotion: only young pages; demotion: only non-young ones), and, on kernels that
  have them, the goals node_mem_used_bp 9970 (promotion) and node_mem_free_bp 50 (demotion) on
  the default node. Not taken from it: its ``intervals_goal`` (access_bp 400, aggrs 3, sampling
  5 ms .. 10 s), which tunes the intervals by itself and has a sysfs file only from 6.15 (the
  ``monitoring_attrs/intervals/intervals_goal`` directory): the fixed 5 ms / 100 ms intervals
  keep one plan across the kernels this runs on.
- DAMOS filters through sysfs (usage.rst, "filters directory"; mm/damon/sysfs-schemes.c): a
  filter's ``matching`` Y *excludes* the memory of its ``type`` and N the rest ("You can write Y
  or N to matching file to filter out pages that does or does not match to the type", usage.rst
  6.3-6.13; from 6.14 a filter also has ``allow``, which starts at N -- kzalloc in
  damon_sysfs_scheme_filter_alloc -- keeping that meaning). mtier.c's in-kernel filters say the
  same through damos_new_filter(type, matching, allow): promotion allows young pages, demotion
  rejects them (and DAMON_LRU_SORT's young-page filters, in later kernels, the same). So promotion writes matching N
  (exclude non-young pages) and demotion matching Y (exclude young ones).
- The ``memcg`` filter (Linux >= 6.3, "mm/damon/sysfs-schemes: implement filter directory"):
  ``memcg_path`` is the memory cgroup's path from its hierarchy's root (what ``cgroup_path()``
  gives, e.g. ``/tierbench/b`` for /sys/fs/cgroup/tierbench/b under cgroup v2); it is turned
  into the memcg's id when the kdamond starts and a path that names no memcg makes the start
  fail with EINVAL (damon_sysfs_memcg_path_to_id); paddr matches a folio by the memcg it is
  charged to (mm/damon/paddr.c, 6.12's __damos_pa_filter_out: folio_memcg_check; a folio is
  filtered out where ``matched == filter->matching``, and by any one of the scheme's filters).

Kernel features by version (``FEATURES``): migrate_hot/migrate_cold and target_nid 6.11
("mm/damon/paddr: introduce DAMOS_MIGRATE_HOT/COLD action", its usage.rst patch), the ``young``
filter 6.10, quota goals with ``target_metric`` (``user_input``) 6.9, the node memory goal
metrics 6.16 ("mm/damon/core: introduce damos quota goal metrics for memory node utilization").

Colloid through DAMOS quota goals (``colloid=True``): each scheme gets a ``user_input`` goal
whose current value tierbench feeds from the measured per-tier loaded latencies (tierd's CHA or
probe source), with target 10000 (a ratio of 1):
- promotion (alternate -> default): current = 10000 x L_default / L_alternate. While the default
  tier is the faster one (ratio < 1) the score is below target and DAMON raises the promotion
  quota; once promotions have loaded the default tier until it is the slower one, the score
  passes the target and the quota falls to its minimum. Promoting raises L_default and lowers
  L_alternate, so the score rises with the quota, as the tuner assumes.
- a second promotion-direction scheme on the default node, ``migrate_hot`` -> alternate,
  current = 10000 x L_alternate / L_default: it moves hot regions *away* from the default tier
  only while the default tier is the slower one, the rule Colloid adds to every system ("move
  hot pages toward the lower-latency tier"; Colloid paper, section 4), here with DAMON's
  proportional controller in place of Colloid's bisection on p.
The cold-demotion scheme keeps its capacity role, as in the kernel's variant.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from workflows.harness import ConfigError
from workflows.harness.settings import write_file

ADMIN = Path("/sys/kernel/mm/damon/admin")
SYS = Path("/sys")

# feature -> first kernel (major, minor) that has it (module docstring gives the sources)
FEATURES = {"young_filter": (6, 10), "migrate_actions": (6, 11), "goal_metrics": (6, 9), "node_mem_goals": (6, 16)}
GOAL_TARGET = 10000  # a ratio of 1 in DAMOS's basis points of the score


def kernel_version(release: str) -> tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", release or "")
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def features_of(release: str) -> dict[str, bool]:
    v = kernel_version(release)
    return {k: v >= need for k, need in FEATURES.items()}


def node_ranges(node: int, sys_root: Path = SYS) -> list[tuple[int, int]]:
    """A node's physical address ranges from its memory blocks: ``nodeN/memoryM`` links and
    ``memory/block_size_bytes`` (hexadecimal) -- Documentation/admin-guide/mm/memory-hotplug.rst
    ("memoryXXX ... XXX is the memory block id"; block_size_bytes "in hexadecimal")."""
    bs_text = _read(sys_root / "devices/system/memory/block_size_bytes")
    if not bs_text:
        raise ConfigError(f"no {sys_root}/devices/system/memory/block_size_bytes: cannot find node {node}'s memory")
    bs = int(bs_text, 16)
    ids = sorted(int(p.name[len("memory"):]) for p in (sys_root / f"devices/system/node/node{node}").glob("memory[0-9]*"))
    out: list[tuple[int, int]] = []
    for i in ids:
        start, end = i * bs, (i + 1) * bs
        if out and out[-1][1] == start:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


@dataclass(frozen=True)
class Scheme:
    action: str  # migrate_hot | migrate_cold
    target_nid: int
    nr_accesses: tuple[int, int]  # per aggregation interval
    young: bool  # True: only young pages (promotion); False: only non-young ones (demotion)
    goal: str | None = None  # a user_input goal fed by name (Damon.feed), or None
    node_goal: tuple[str, int, int] | None = None  # (metric, nid, target) where the kernel has it
    quota_bytes: int = 200 << 20  # per reset interval
    reset_interval_ms: int = 1000
    apply_interval_us: int = 1_000_000
    name: str = ""  # promote | demote | relieve: the rows' names for its stats
    # Every region size and age, as the sample (min_sz_region PAGE_SIZE .. ULONG_MAX, age 0 ..
    # UINT_MAX). Written always: the sysfs ranges start at 0..0 (mm/damon/sysfs-schemes.c,
    # damon_sysfs_access_pattern_add_range_dir: damon_sysfs_ul_range_alloc(0, 0)), which no region
    # matches -- the first guest run of the plan, without them, applied nothing.
    sz: tuple[int, int] = (4096, 2**64 - 1)
    age: tuple[int, int] = (0, 2**32 - 1)
    # (memory cgroup path from its hierarchy's root, only): a memcg filter before the young one;
    # only True: the scheme acts on that cgroup's pages alone, False: never on them
    memcg: tuple[str, bool] | None = None


@dataclass(frozen=True)
class Context:
    node: int  # the node whose memory it watches
    ranges: tuple[tuple[int, int], ...] | None  # None: the node's memory, found where the plan runs
    schemes: tuple[Scheme, ...]
    sample_us: int = 5000
    aggr_us: int = 100_000
    update_us: int = 60_000_000
    nr_regions: tuple[int, int] = (10, 1000)


@dataclass(frozen=True)
class Plan:
    contexts: tuple[Context, ...]
    notes: tuple[str, ...] = field(default=())

    def goals(self) -> list[str]:
        return [s.goal for c in self.contexts for s in c.schemes if s.goal]


def tiering_plan(default: int, alternate: int, ranges: dict[int, list[tuple[int, int]]] | None, release: str,
                 colloid: bool = False, demote_memcg: tuple[str, bool] | None = None,
                 exempt_memcg: str | None = None) -> Plan:
    """The kdamonds of DAMON tiering between two nodes (samples/damon/mtier.c's shape). ``ranges``
    None: each node's memory is found where the plan runs (:func:`node_ranges`, or lib.sh's
    ``damon_set_regions`` in a guest). ``demote_memcg`` (path, only): a memcg filter on the
    cold-demotion scheme (``Scheme.memcg``): demote only that cgroup's pages, or never them.
    ``exempt_memcg`` (path): a memcg filter on every scheme that leaves that cgroup's pages alone
    (matching Y): what a point keeps out of DAMON's moves (its filler, tierd's latency probe)."""
    if demote_memcg is not None and exempt_memcg is not None:
        raise ValueError("tiering_plan: demote_memcg and exempt_memcg both filter the demotion scheme; give one")
    for path in (demote_memcg[0] if demote_memcg else None, exempt_memcg):
        if path is not None and not path.startswith("/"):
            raise ConfigError(f"DAMON: memcg filter path {path!r} must start at its hierarchy's root ('/')")
    exempt = (exempt_memcg, False) if exempt_memcg else None
    f = features_of(release)
    notes = []
    if not f["young_filter"]:
        raise ConfigError(f"kernel {release} lacks the DAMOS young filter (Linux >= 6.10)")
    for n in (default, alternate):
        if ranges is not None and not ranges.get(n):
            raise ConfigError(f"node {n} has no memory blocks in sysfs: DAMON cannot watch it")
    node_goals = f["node_mem_goals"] and not colloid
    if not node_goals and not colloid:
        notes.append(f"kernel {release} has no node_mem_used_bp/node_mem_free_bp goals (Linux >= 6.16): fixed quotas "
                     "only, as the sample without its goals")
    # A user_input goal's quota starts at one byte and is multiplied by at most 2 each reset
    # interval (mm/damon/core.c damos_set_effective_quota, damon_feed_loop_next_input): with the
    # sample's 1 s interval it would take ~28 s to reach 200 MiB. The goal-driven schemes use
    # 100 ms (apply and reset) and 20 MiB per interval: the sample's 200 MiB/s cap, tuned 10x as often.
    fed = {"quota_bytes": 20 << 20, "reset_interval_ms": 100, "apply_interval_us": 100_000} if colloid else {}
    promote = Scheme("migrate_hot", default, (1, 2**32 - 1), True, goal="promote" if colloid else None,
                     node_goal=("node_mem_used_bp", default, 9970) if node_goals else None, name="promote",
                     memcg=exempt, **fed)
    demote = Scheme("migrate_cold", alternate, (0, 0), False,
                    node_goal=("node_mem_free_bp", default, 50) if node_goals else None, name="demote",
                    memcg=demote_memcg or exempt)
    default_schemes: tuple[Scheme, ...] = (demote,)
    if colloid:
        default_schemes += (Scheme("migrate_hot", alternate, (1, 2**32 - 1), True, goal="relieve", name="relieve",
                                   memcg=exempt, **fed),)
    rng = (lambda n: tuple(ranges[n])) if ranges is not None else (lambda n: None)
    return Plan((Context(alternate, rng(alternate), (promote,)),
                 Context(default, rng(default), default_schemes)), tuple(notes))


def setup(plan: Plan) -> list[tuple[str, str, str]]:
    """The plan as (kind, path relative to admin, value) steps, in order: ``journal`` (a setting
    journaled before the change: ``nr_kdamonds`` first, each kdamond's ``state`` ``on`` last),
    ``write`` (a plain sysfs write below a kdamond, removed with it), ``regions`` (the regions
    directory of a target and the node whose memory ranges go there, found where it runs)."""
    out: list[tuple[str, str, str]] = [("journal", "kdamonds/nr_kdamonds", str(len(plan.contexts)))]
    for k, c in enumerate(plan.contexts):
        ctx = f"kdamonds/{k}/contexts"
        out.append(("write", f"{ctx}/nr_contexts", "1"))
        ctx += "/0"
        out += [("write", f"{ctx}/operations", "paddr"),
                ("write", f"{ctx}/monitoring_attrs/intervals/sample_us", str(c.sample_us)),
                ("write", f"{ctx}/monitoring_attrs/intervals/aggr_us", str(c.aggr_us)),
                ("write", f"{ctx}/monitoring_attrs/intervals/update_us", str(c.update_us)),
                ("write", f"{ctx}/monitoring_attrs/nr_regions/min", str(c.nr_regions[0])),
                ("write", f"{ctx}/monitoring_attrs/nr_regions/max", str(c.nr_regions[1])),
                ("write", f"{ctx}/targets/nr_targets", "1")]
        if c.ranges is None:
            out.append(("regions", f"{ctx}/targets/0/regions", str(c.node)))
        else:
            out.append(("write", f"{ctx}/targets/0/regions/nr_regions", str(len(c.ranges))))
            for r, (start, end) in enumerate(c.ranges):
                out += [("write", f"{ctx}/targets/0/regions/{r}/start", str(start)),
                        ("write", f"{ctx}/targets/0/regions/{r}/end", str(end))]
        out.append(("write", f"{ctx}/schemes/nr_schemes", str(len(c.schemes))))
        for s_i, s in enumerate(c.schemes):
            sd = f"{ctx}/schemes/{s_i}"
            w = [(f"{sd}/action", s.action), (f"{sd}/target_nid", str(s.target_nid)),
                 (f"{sd}/apply_interval_us", str(s.apply_interval_us)),
                 (f"{sd}/access_pattern/nr_accesses/min", str(s.nr_accesses[0])),
                 (f"{sd}/access_pattern/nr_accesses/max", str(s.nr_accesses[1])),
                 (f"{sd}/access_pattern/sz/min", str(s.sz[0])), (f"{sd}/access_pattern/sz/max", str(s.sz[1])),
                 (f"{sd}/access_pattern/age/min", str(s.age[0])), (f"{sd}/access_pattern/age/max", str(s.age[1])),
                 (f"{sd}/quotas/bytes", str(s.quota_bytes)),
                 (f"{sd}/quotas/reset_interval_ms", str(s.reset_interval_ms)),
                 (f"{sd}/quotas/weights/sz_permil", "0"),
                 (f"{sd}/quotas/weights/nr_accesses_permil", "100"),
                 (f"{sd}/quotas/weights/age_permil", "100")]
            # matching Y excludes what matches (module docstring): young pages from demotion,
            # non-young ones from promotion; a memcg filter excludes the rest (only) or the cgroup
            filters = [("memcg", s.memcg[0], "N" if s.memcg[1] else "Y")] if s.memcg else []
            filters.append(("young", None, "N" if s.young else "Y"))
            w.append((f"{sd}/filters/nr_filters", str(len(filters))))
            for f_i, (ftype, path, matching) in enumerate(filters):
                w.append((f"{sd}/filters/{f_i}/type", ftype))
                if path is not None:
                    w.append((f"{sd}/filters/{f_i}/memcg_path", path))
                w.append((f"{sd}/filters/{f_i}/matching", matching))
            goals = [g for g in (("user_input", None, GOAL_TARGET) if s.goal else None, s.node_goal) if g]
            if goals:
                w.append((f"{sd}/quotas/goals/nr_goals", str(len(goals))))
                for g_i, (metric, nid, target) in enumerate(goals):
                    gd = f"{sd}/quotas/goals/{g_i}"
                    w += [(f"{gd}/target_metric", metric), (f"{gd}/target_value", str(target))]
                    if nid is not None:
                        w.append((f"{gd}/nid", str(nid)))
                    else:  # fed by Damon.feed / lib.sh damon_feed; start at the target (a neutral score)
                        w.append((f"{gd}/current_value", str(GOAL_TARGET)))
            out += [("write", rel, v) for rel, v in w]
    out += [("journal", f"kdamonds/{k}/state", "on") for k in range(len(plan.contexts))]
    return out


def writes(plan: Plan) -> list[tuple[str, str]]:
    """Every sysfs write that sets a plan with known ranges up, in order, relative to ``admin``
    (the kdamonds' ``state`` ``on`` last)."""
    if any(c.ranges is None for c in plan.contexts):
        raise ValueError("writes() needs the plan's ranges; setup() leaves them to where it runs")
    return [(rel, v) for _, rel, v in setup(plan)]


def busy_why(kdamonds: int | None, exclusive: list[str]) -> str | None:
    """Why DAMON cannot be set up here now, in one line, or None: kdamonds someone set up through
    sysfs (``nr_kdamonds`` > 0, running or not: writing ``nr_kdamonds`` removes every kdamond
    directory below it when none is running, mm/damon/sysfs.c damon_sysfs_kdamonds_add_dirs(),
    so a user's stopped setup would be lost), or the kernel's own DAMON modules that run an
    exclusive kdamond (hostdetect.damon_exclusive: beside one, starting ours fails with EBUSY)."""
    if kdamonds:
        return (f"DAMON is in use already ({ADMIN}/kdamonds/nr_kdamonds = {kdamonds}): tierbench does not "
                "share it, or replace a setup someone left stopped (if a killed run left it: "
                "python -m workflows.harness.cli repair)")
    if exclusive:
        return (f"the kernel's own DAMON {', '.join(exclusive)} is on (/sys/module/<name>/parameters/enabled): its "
                "kdamond runs exclusive and no sysfs kdamond can start beside it (mm/damon/core.c damon_start); "
                "turn it off (echo N > that file) to run DAMON points")
    return None


def apply_setup(steps: list, settings, admin: Path = ADMIN, sys_root: Path = SYS) -> None:
    """Run :func:`setup`'s steps here: journaled ones through ``settings`` (restored in reverse:
    every kdamond off, then ``nr_kdamonds`` 0, which removes everything below), regions from this
    host's memory blocks. What the preflight read from the host's facts is read again first
    (:func:`busy_why`: kdamonds or an exclusive DAMON module someone started since), before
    anything is changed. A kernel that refuses a write (an action it lacks: EINVAL) stops it with
    one line naming the file and the value."""
    from workflows.harness.hostdetect import damon_exclusive  # noqa: PLC0415

    admin = Path(admin)
    n = _read(admin / "kdamonds/nr_kdamonds")
    why = busy_why(int(n) if n and n.isdigit() else None, damon_exclusive(sys_root))
    if why:
        raise ConfigError(why)
    for kind, rel, value in steps:
        if kind == "journal":
            settings.set(str(admin / rel), value)
        elif kind == "regions":
            ranges = node_ranges(int(value), sys_root)
            if not ranges:
                raise ConfigError(f"DAMON: node {value} has no memory blocks in sysfs: DAMON cannot watch it")
            _write(admin / rel / "nr_regions", str(len(ranges)))
            for r, (start, end) in enumerate(ranges):
                _write(admin / rel / str(r) / "start", str(start))
                _write(admin / rel / str(r) / "end", str(end))
        else:
            if rel.endswith("/operations") and "paddr" not in (_read(admin / rel.replace("operations", "avail_operations"))
                                                               or "").split():
                raise ConfigError("DAMON: the paddr operations set is not available (CONFIG_DAMON_PADDR)")
            _write(admin / rel, value)


def _write(path: Path, value: str) -> None:
    try:
        write_file(path, value)
    except OSError as e:
        raise ConfigError(f"DAMON: writing {value!r} to {path} failed: {e.strerror}") from None


def schemes_of(plan: Plan) -> list[tuple[int, int, str]]:
    """(kdamond, scheme index, name) of every scheme."""
    return [(k, s_i, s.name or f"k{k}s{s_i}") for k, c in enumerate(plan.contexts) for s_i, s in enumerate(c.schemes)]


def goal_files(plan: Plan) -> dict[str, tuple[int, str]]:
    """goal name -> (kdamond index, its current_value file relative to admin)."""
    out = {}
    for k, c in enumerate(plan.contexts):
        for s_i, s in enumerate(c.schemes):
            if s.goal:
                out[s.goal] = (k, f"kdamonds/{k}/contexts/0/schemes/{s_i}/quotas/goals/0/current_value")
    return out


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


class Damon:
    """Set a plan up, start its kdamonds, feed its goals, read its stats, and stop and remove it.

    Only ``kdamonds/nr_kdamonds`` and each kdamond's ``state`` go through ``settings`` (journaled
    before the change): restoring them, in reverse, turns every kdamond off and then removes them
    all (``nr_kdamonds`` back to 0 drops every directory below it), so a run killed at any moment
    is repaired by the settings journal like any sysctl.
    """

    def __init__(self, plan: Plan, settings, admin: Path = ADMIN):
        self.plan, self.settings, self.admin = plan, settings, Path(admin)
        self.goals = goal_files(plan)

    def __enter__(self) -> Damon:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.settings.restore()

    def _write(self, rel: str, value: str) -> None:
        _write(self.admin / rel, value)

    def start(self) -> None:
        apply_setup(setup(self.plan), self.settings, self.admin)

    def feed(self, values: dict[str, float]) -> None:
        """Set user_input goals' current values (ratios; 1 = the target) and commit them."""
        kdamonds = set()
        for name, ratio in values.items():
            k, rel = self.goals[name]
            self._write(rel, str(max(0, round(ratio * GOAL_TARGET))))
            kdamonds.add(k)
        for k in sorted(kdamonds):
            self._write(f"kdamonds/{k}/state", "commit_schemes_quota_goals")

    def stats(self) -> list[dict]:
        """Each scheme's counters (bytes tried and applied, quota exceeds), after asking the kernel
        to refresh them (``update_schemes_stats``)."""
        rows = []
        for k, c in enumerate(self.plan.contexts):
            self._write(f"kdamonds/{k}/state", "update_schemes_stats")
            for s_i, s in enumerate(c.schemes):
                d = self.admin / f"kdamonds/{k}/contexts/0/schemes/{s_i}/stats"
                row = {"kdamond": k, "node": c.node, "action": s.action, "target_nid": s.target_nid,
                       "t": time.monotonic()}
                for f in ("nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds"):
                    v = _read(d / f)
                    row[f] = int(v) if v and v.isdigit() else None
                rows.append(row)
        return rows


# ---- DAMON tiering in a measured point (workflows/harness/scenario.py's ``damon`` resource) ----

STATS = ("nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds")  # schemes/<S>/stats/ (usage.rst)
STATS_FILE, FEED_LOG = "damon_stats.txt", "damon_feed.txt"
# goal -> the ratio its current value carries: 'da' = L_default / L_alternate, 'ad' its inverse
SENSE = {"promote": "da", "relieve": "ad"}


def scenario_spec(default: int, alternate: int, release: str, colloid: bool, expect: str = "",
                  feed_csv: str | None = None, feed_period_s: float = 1.0,
                  demote_memcg: tuple[str, bool] | None = None, exempt_memcg: str | None = None) -> dict:
    """What a point running DAMON tiering carries in its scenario (plain data): the setup steps
    (:func:`setup`, regions found where it runs), the schemes whose stats become rows, and for
    the Colloid variant the goals a feeder writes from tierd's per-tier latencies (``feed_csv``:
    the data file of tierd's latency rows). ``expect`` "promote": the point fails unless the
    promotion scheme moved some bytes (sz_applied)."""
    plan = tiering_plan(default, alternate, None, release, colloid, demote_memcg, exempt_memcg)
    spec = {"module": __name__, "setup": [list(x) for x in setup(plan)], "schemes": [list(x) for x in schemes_of(plan)],
            "expect": expect}
    if colloid:
        if not feed_csv:
            raise ValueError("the Colloid variant needs the latency rows' file (feed_csv)")
        spec["feed"] = {"csv": feed_csv, "period_s": feed_period_s, "log": FEED_LOG,
                        "goals": [[name, k, rel, SENSE[name]] for name, (k, rel) in goal_files(plan).items()]}
    return spec


def stats_files(k: int, s_i: int) -> list[str]:
    """The files of one scheme's stats line, relative to admin: the STATS, then the quota's
    effective_bytes (6.9+, refreshed by ``update_schemes_effective_quotas``)."""
    sd = f"kdamonds/{k}/contexts/0/schemes/{s_i}"
    return [f"{sd}/stats/{f}" for f in STATS] + [f"{sd}/quotas/effective_bytes"]


def read_stats(spec: dict, admin: Path = ADMIN) -> str:
    """Every scheme's stats line ("K S v..." with '-' for a file that cannot be read) after asking
    each kdamond to refresh them; the same text lib.sh's damon_stats writes in a guest."""
    admin = Path(admin)
    for k in sorted({k for k, _, _ in spec["schemes"]}):
        for cmd in ("update_schemes_stats", "update_schemes_effective_quotas"):
            try:  # (write_file tries a busy refusal again: state_store takes damon_sysfs_lock with trylock)
                write_file(admin / f"kdamonds/{k}/state", cmd)
            except OSError:
                pass  # off already (the kdamond stopped), or a kernel without the command: '-' below
    lines = []
    for k, s_i, _ in spec["schemes"]:
        vals = [_read(admin / f) for f in stats_files(k, s_i)]
        lines.append(" ".join([str(k), str(s_i)] + [v if v and v.isdigit() else "-" for v in vals]))
    return "\n".join(lines) + "\n"


def stats_rows(spec: dict, text: str) -> tuple[list[dict], str | None]:
    """The stats lines as rows ``damos_<scheme>_<field>`` (bytes or a count), and why the point
    must fail (``expect`` "promote" and the promotion scheme moved nothing), or None."""
    names = {(k, s_i): n for k, s_i, n in spec["schemes"]}
    rows, got = [], {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 2 + len(STATS) + 1 or not (parts[0].isdigit() and parts[1].isdigit()):
            continue
        name = names.get((int(parts[0]), int(parts[1])))
        if name is None:
            continue
        for field_, v in zip((*STATS, "effective_bytes"), parts[2:], strict=True):
            if v.isdigit():
                got[name, field_] = int(v)
                rows.append({"metric": f"damos_{name}_{field_}", "value": int(v),
                             "unit": "bytes" if field_.startswith("sz_") or field_ == "effective_bytes" else "count",
                             "tool": "damon"})
    why = None
    if spec.get("expect") == "promote":
        applied = got.get(("promote", "sz_applied"))
        if applied is None:
            why = "DAMON: the promotion scheme's stats could not be read"
        elif applied <= 0:
            why = (f"DAMON promoted nothing (promote scheme: nr_tried {got.get(('promote', 'nr_tried'))}, sz_applied 0) "
                   "although the workload started on the alternate tier")
    return rows, why


def feed_rows(text: str) -> list[dict]:
    """The feeder's log ("t_s goal value" per write) as time-series rows ``damon_goal_<goal>``
    (the current value written: 10000 = a latency ratio of 1)."""
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].isdigit():
            rows.append({"t_s": float(parts[0]), "metric": f"damon_goal_{parts[1]}", "value": int(parts[2]),
                         "unit": "bp", "tool": "damon"})
    return rows


def real_point(nodes: tuple[int, int], release: str, colloid: bool, start_alternate: bool, *,
               feed_csv: str | None, default_capacity: str, facts: dict) -> tuple[dict, str]:
    """A real point of DAMON tiering (systems/sweep.py ``Real.kernel_scenario``): swap off, the
    kdamonds as the scenario's ``mechanism``, DAMOS stats as rows. Starting on the alternate tier
    its promotion scheme must move bytes and /proc/vmstat's pgmigrate_success must rise, except
    with Colloid, whose promotion rightly stays at its floor while the default tier is the slower
    one (DAMON's moves are migrate_pages() calls, counted there and not in pgpromote_*/pgdemote_*:
    mm/damon/paddr.c, mm/migrate.c).

    DAMON's schemes move any LRU folio of their regions (mm/damon/paddr.c damon_pa_migrate:
    isolated folios go to migrate_pages, "Migration ignores all cpuset and mempolicy settings"):
    the filler's pages, and with Colloid the buffers of tierd's latency probe, bound to their node
    with mbind. Where the host has a memory cgroup controller both run in the point's own memory
    cgroup (:data:`EXEMPT_CGROUP`, the scenario's ``cgroup`` resource; the filler through
    :func:`filler_cgroup`, tierd as an attached program of a point with that resource), and every
    scheme has a memcg filter that leaves it alone. Elsewhere there is no filler, and tierd moves
    its probe's pages back itself (colloid/tierd/README.md). Returns (scenario keywords, a note)."""
    d, a = nodes
    # with Colloid, promoting nothing is right while the default tier is the slower one
    expect = "promote" if start_alternate and not colloid else ""
    fill = default_capacity != "auto"
    cgroup, why = filler_cgroup(facts)
    if not (fill or colloid):
        cgroup = None  # nothing to keep out of DAMON's moves
    spec = scenario_spec(d, a, release, colloid, expect=expect, feed_csv=feed_csv,
                         exempt_memcg=EXEMPT_MEMCG if cgroup else None)
    kw = {"swap_off": True, "vmstat": {"expect": "migrate" if expect else ""}, "mechanism": spec}
    kept = [w for w, yes in (("a filler", fill), ("tierd's latency probe", colloid)) if yes]
    if cgroup:
        kw["cgroup"] = cgroup
        note = (f"; {' and '.join(kept)} in the point's own memory cgroup, left out of DAMON's moves by a DAMOS "
                "memcg filter on every scheme")
        if fill:
            note += f"; default tier held to {default_capacity} by the filler on node {d}"
    else:
        note = f"; {why}" if kept else ""
        if colloid:
            note += "; tierd moves its probe's pages back to their nodes (once a second)"
    if not fill:
        note += "; default_capacity: auto, so no filler: the kernel may use all of the default node"
    elif not cgroup:
        note += (f"; no filler: DAMON's schemes would move it too (paddr migration ignores mempolicy and mlock), "
                 f"so the default tier is not held to {default_capacity}")
    return kw, note


# ---- the hooks the scenario executors call for a ``mechanism`` resource of this module ---------

def host_start(spec: dict, settings) -> None:
    """Set the kdamonds up on this host, journaled through ``settings`` (ConfigError: one line)."""
    apply_setup(spec["setup"], settings, ADMIN, SYS)


def sh_start(spec: dict) -> list[str]:
    """The point's setup as lib.sh commands for a guest (:func:`setup_sh`)."""
    return setup_sh(spec["setup"])


def setup_sh(steps: list) -> list[str]:
    """:func:`setup`'s steps as lib.sh commands (journaled ones through settings_set, regions
    found in the guest by damon_set_regions)."""
    q = shlex.quote
    out = ["damon_free"]  # lib.sh: busy_why()'s check, before any change
    for step, rel, value in steps:
        if step == "journal":
            out.append(f"settings_set \"$DAMON_ADMIN\"/{q(rel)} {q(value)}")
        elif step == "regions":
            out.append(f"damon_set_regions \"$DAMON_ADMIN\"/{q(rel)} {q(value)}")
        else:
            out.append(f"damon_write {q(rel)} {q(value)}")
    return out


def feeder(spec: dict, path) -> tuple[str, list, dict] | None:
    """The Colloid variant's feeder (lib.sh ``damon_feed``) as (function, arguments, environment on
    this host); ``path`` maps a file of the point to where the executor keeps it. None without Colloid."""
    f = spec.get("feed")
    if not f:
        return None
    goals = [":".join(str(x) for x in g) for g in f["goals"]]
    return "damon_feed", [path(f["csv"]), f"{f['period_s']:g}", path(f["log"]), *goals], {"DAMON_ADMIN": str(ADMIN)}


def host_stats(spec: dict) -> str:
    return read_stats(spec, ADMIN)


def sh_stats(spec: dict, out: str) -> str:
    """lib.sh's damon_stats writing the same text as :func:`read_stats` to ``out`` (a shell word)."""
    ks = " ".join(f"{k}:{s}" for k, s, _ in spec["schemes"])
    return f"damon_stats {out} {ks}"


def rows(spec: dict, outdir: Path) -> list[dict]:
    """DAMON's scheme stats over the point (and the Colloid feeder's goal values) as rows; a point
    expected to promote whose promotion scheme moved nothing fails."""
    from workflows.harness.scenario import PointFailed  # noqa: PLC0415 - the executor imports this module

    try:
        text = (outdir / STATS_FILE).read_text()
    except OSError:
        raise PointFailed(f"the point's DAMON stats are missing ({outdir / STATS_FILE})") from None
    out, why = stats_rows(spec, text)
    if why:
        raise PointFailed(why)
    feed = spec.get("feed")
    if feed:
        log = outdir / feed["log"]
        fed = feed_rows(log.read_text()) if log.exists() else []
        if not fed:
            raise PointFailed("DAMON + Colloid: the feeder wrote no quota goal (no latency rows from tierd?)")
        out += fed
    return out


EXEMPT_CGROUP = "damon-exempt"  # what a DAMON point keeps out of DAMON's moves: <controller>/tierbench/damon-exempt
EXEMPT_MEMCG = f"/tierbench/{EXEMPT_CGROUP}"  # its path from the hierarchy's root (the memcg filters' memcg_path)


def filler_cgroup(facts: dict) -> tuple[str | None, str | None]:
    """The driver's filler hook (systems/__init__.py ``Driven``): (EXEMPT_CGROUP, None) where a
    filler can be kept out of DAMON's moves, else (None, why): :func:`filler_memcg`."""
    why = filler_memcg(facts)
    return (None, why) if why else (EXEMPT_CGROUP, None)


def filler_memcg(facts: dict) -> str | None:
    """Why nothing can be kept out of DAMON's moves on a host with these facts (one line), or
    None: it can, started in the point's own memory cgroup (the scenario's ``cgroup`` resource,
    EXEMPT_CGROUP) that every scheme's memcg filter leaves out (``exempt_memcg=EXEMPT_MEMCG``;
    the memcg filter is Linux >= 6.3, below the 6.11 the actions need). The memory cgroup
    controller is hostdetect's ``damon.memcg`` fact (v1 or v2 mounted; the QEMU guest's /init
    mounts v2 and says so in its facts, hosts/qemu/guest.py)."""
    d = facts.get("damon") or {}
    if not d.get("memcg"):
        return ("no memory cgroup controller mounted here: no cgroup of the point's own for DAMOS memcg filters "
                "to leave out of DAMON's moves")
    return None


def preconditions(facts: dict, default: int, alternate: int, colloid: bool = False) -> str | None:
    """Why DAMON tiering (``colloid``: with its user_input quota goals) cannot run between the two
    nodes of a host with these facts (hostdetect's, or a guest's), in one line, or None. What the
    facts cannot tell (CONFIG_DAMON_PADDR where no kernel config is readable) is checked when the
    point starts (``avail_operations``), and fails that point with one line."""
    release = facts.get("kernel", "")
    d = facts.get("damon") or {}
    if not d.get("sysfs"):
        return (f"DAMON's sysfs interface {ADMIN} is absent (kernel {release}: CONFIG_DAMON_SYSFS not set, "
                "or sysfs not mounted)")
    if d.get("paddr") is False:
        return f"kernel {release} was built without CONFIG_DAMON_PADDR: DAMON cannot watch physical memory"
    v = kernel_version(release)
    if v < FEATURES["migrate_actions"]:
        return (f"kernel {release} lacks DAMOS migrate_hot/migrate_cold (Linux >= 6.11): DAMON tiering cannot move "
                "pages between nodes")
    if v < FEATURES["young_filter"]:  # implied by the above today; kept for the table's sake
        return f"kernel {release} lacks the DAMOS young filter (Linux >= 6.10)"
    if colloid and v < FEATURES["goal_metrics"]:
        return f"kernel {release} lacks DAMOS quota goals with target_metric user_input (Linux >= 6.9)"
    busy = busy_why(d.get("kdamonds"), d.get("exclusive") or [])
    if busy:
        return busy
    nodes = facts.get("nodes") or {}
    for n in (default, alternate):
        if not (nodes.get(str(n)) or {}).get("memory_mib"):
            return f"node {n} has no memory on this host: DAMON tiering has nothing to watch there"
    return None
