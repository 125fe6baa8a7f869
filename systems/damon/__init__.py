"""DAMON-based memory tiering (Linux >= 6.11: DAMOS ``migrate_hot`` / ``migrate_cold`` with a
``target_nid``), set up as upstream's ``samples/damon/mtier.c``. No published number compares
against it: the scorecard marks it unscored.

On modelled tiers: libcolloid's ``damon`` policy (colloid/src/policy_damon.c: DAMON's monitor with
adaptive regions, the two schemes with their quotas, prioritization and quota goals).

On real tiers: the kernel's own (its driver: systems/damon/kernel.py; docs/damon.md); with Colloid the
promotion quota follows a DAMOS ``user_input`` quota goal fed with the per-tier latency ratio that
tierd measures (Linux >= 6.9 for the goals' target_metric, 6.11 for the actions).
"""

from functools import partial

from systems import Driven, System
from systems.damon.kernel import preconditions


def _damon(**kw) -> Driven:
    """The kernel's DAMON tiering, set up by systems/damon/kernel.py for each point (its kdamonds
    journaled like settings). DAMON's schemes would move a filler's pages and tierd's probe
    buffers too (paddr migration ignores mempolicy and mlock), so both run in a memory cgroup of
    the point's own that a DAMOS memcg filter on every scheme leaves out, where the host has a
    memory cgroup controller; elsewhere there is no filler (kernel.py ``real_point``;
    docs/damon.md). NUMA balancing off, as for
    tierd: in its default mode it would move the workload's pages to the accessing CPU's node
    itself (the first guest run promoted through it, not DAMON)."""
    return Driven(settings={"numa_balancing": "0"}, driver="systems.damon.kernel", filler=True,
                  needs="Linux >= 6.11 with CONFIG_DAMON_PADDR and CONFIG_DAMON_SYSFS", unbound=True, **kw)


SYSTEM = System(
    "damon", "DAMON", color="#ca9161", marker="X", policy="damon", baseline=False,
    # DAMON's paddr operations move pages whatever their mempolicy (mm/damon/paddr.c: "Migration
    # ignores all cpuset and mempolicy settings"); unbound anyway, so that DAMON and kernel TPP
    # run the very same workload (GUPS --unbind-after-touch) and differ only in the mechanism.
    real=_damon(note="the kernel's DAMON tiering (DAMOS migrate_hot/migrate_cold, as samples/damon/mtier.c)",
                preflight=partial(preconditions, colloid=False)),
    # with Colloid: the promotion quota follows a user_input quota goal whose current value is the
    # per-tier latency ratio tierd measures, fed by lib.sh's damon_feed (systems/damon/kernel.py)
    real_colloid=_damon(note="the kernel's DAMON tiering, its promotion quota driven by a user_input quota goal fed "
                             "with tierd's per-tier latency ratio (Colloid's rule)",
                        preflight=partial(preconditions, colloid=True), colloid=True),
)
