"""DAMON-based memory tiering (Linux >= 6.11: DAMOS ``migrate_hot`` / ``migrate_cold`` with a
``target_nid``), set up as upstream's ``samples/damon/mtier.c``; libcolloid's ``damon`` policy
(colloid/src/policy_damon.c: DAMON's monitor with adaptive regions, the two schemes with their
quotas, prioritization and quota goals) on modelled tiers. With Colloid, Colloid's rule through
DAMOS ``user_input`` quota goals fed the latency ratio (docs/damon.md). No published number
compares against it: the scorecard marks it unscored.

On real tiers it is, for now, tierd running the ``damon`` policy (``Tierd()``); the kernel's own
mechanism (the kdamonds of workflows/harness/damon.py, journaled, with its preconditions) is
attached here by the real-tier work on DAMON (branch ``dreal``).
"""

from systems import System, Tierd

SYSTEM = System("damon", "DAMON", color="#ca9161", marker="X", policy="damon", baseline=False, colloid=True,
                real=Tierd())
