"""tiersim (colloid/sim/): the tier model that drives libcolloid's policies on modelled tiers.

Protocol: ``--summary FILE`` (and ``--timeseries FILE``) in the long form ``t_s,metric,value,unit``,
written only when the run succeeds; exit 2 with one line on a bad argument (a curve, a size).
Run by the ``model`` executor (workflows/harness/point.py).
"""

from __future__ import annotations

NAME = "tiersim"
BUILD = {"libs": ["lib", "colloid"], "make": ["colloid/sim"], "sources": ["colloid/sim/Makefile", "colloid/sim/src/*.[ch]"]}
