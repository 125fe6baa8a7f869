"""The tiering family: GUPS under 0x-3x antagonist intensity with HeMem, TPP, MEMTIS and DAMON, each with
and without Colloid; best static placement; unloaded-latency and object-size sweeps; hot-set move
and contention change; CPU overhead; the cost of steady-state migrations. For real on hosts with
two NUMA memory tiers (tierd, kernel TPP; real.py), on modelled tiers elsewhere (tiersim;
model.py), and GUPS against a real antagonist on the default node of a host measured here, one-node
or two-tier (real.py; on a two-tier host what its model is calibrated on).
"""

from __future__ import annotations

NAME = "tiering"
SCORED = True
COLUMNS = {"threads": "number", "mem_node": "number", "alt_latency_ns": "number", "object_bytes": "number",
           "static_hot_fraction": "number", "beyond_curve": "text"}

from analysis.registry import figures_of  # noqa: E402 - COLUMNS first: model/real import it
from systems import sweep  # noqa: E402
from workflows.harness.plan import FamilyPlan, Host, replicate  # noqa: E402
from workloads.tiersim import workload as tiersim  # noqa: E402

from . import model, real  # noqa: E402


def plan(config: dict, host: Host) -> FamilyPlan:
    tc = config[NAME]
    fp = FamilyPlan()
    left_out = real.contention_left_out(config, host)
    contention = [] if left_out else real.contention_points(config, host)
    measured = real.points(config, host)
    if left_out:
        fp.absent[f"{NAME}: contention_single_node"] = left_out
    if measured:  # a system whose kernel mechanism cannot work here: left out, said before any job
        fp.absent.update(real.absent(config, host))
        fp.notes += real.notes(config, host)
    fp.notes = [f"left out: {what}: {why}" for what, why in fp.absent.items()] + fp.notes
    rows = contention + measured
    if tc["enabled"] and not measured and not host.runner:
        # no two real tiers here (or a model profile): the family runs on modelled tiers
        mprof = model.model_profile_for(tc["model_profile"], host, "tiering/model_profile")
        if why := sweep.one_tier(mprof):
            fp.absent[f"{NAME}: model"] = why
        else:
            fp.info = model.plan_info(mprof)
            rows += model.points(config, host, mprof)
    elif measured:
        fp.info = model.plan_info(host.profile)
    fp.rows = replicate(rows, config["reps"], reseed=lambda r, k: tiersim.reseed(r, k) if r["executor"] == "model" else None)
    # the contention figure shows the contention_single_node runs, every other figure the tiering systems
    fp.figures = [f for f in figures_of(NAME) if (f == "contention" and contention) or
                  (f != "contention" and len(rows) > len(contention))]
    return fp
