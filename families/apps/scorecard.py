"""The apps family's published-number rule (analysis/scorecard.py runs it):

apps-WORKLOAD / colloid_speedup                range over intensities of T(+Colloid)/T(alone)
                                               for family ``apps``, ``workload`` = WORKLOAD (or
                                               t(alone)/t(+Colloid) for a time, PageRank's
                                               ``average_trial_time``)
"""

from __future__ import annotations

import pandas as pd

from analysis.figures import common
from analysis.scorecard import Ours, missing, ranged


def _apps_speedup(row: pd.Series, d: pd.DataFrame) -> Ours:
    workload = row["figure"].removeprefix("apps-")
    a = common.summary_rows(common.select(d, family="apps", workload=workload, system=row["system"]))
    a = a[a["value"].notna() & a["colloid"].notna()]
    if a.empty:
        return missing(f"no apps rows for workload {workload!r} under {row['system']} with and without Colloid "
                        "(the apps family has no tiering runs for it)")
    if (a["metric"] == "throughput").any():
        g = common.gain(a[a["metric"] == "throughput"], ["intensity"])
        vals = g["gain"]
    elif (a["metric"] == "average_trial_time").any():  # a time: lower is better
        g = common.gain(a[a["metric"] == "average_trial_time"], ["intensity"])
        vals = 1 / g["gain"]
    else:
        return missing(f"apps rows for {workload!r} have neither throughput nor average_trial_time")
    if vals.empty:
        return missing(f"no apps rows for {workload!r} with and without Colloid at the same intensity")
    return ranged(vals, [a], f"{len(vals)} intensities")


RULES = [("colloid-sosp24", "apps-*", "colloid_speedup", _apps_speedup)]
