"""The apps family on modelled tiers: each application's access model (families/apps/models.yaml)
run by tiersim with HeMem, TPP, MEMTIS and DAMON, each with and without Colloid, at 0x-3x antagonist
intensity, on the model profile's tiers with a default tier holding a third of the working set.
Points: ``apps/steady_state/{app}-{system}-c{0|1}-i{k}``; every row is ``backend=model``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from systems import sweep
from workflows.harness.plan import Host, size_bytes
from workloads.tiersim import workload as tiersim

MODELS = Path(__file__).resolve().parent / "models.yaml"


def models() -> dict:
    with open(MODELS) as f:
        return yaml.safe_load(f)


def gib(size: str) -> float:
    return size_bytes(size) / 2**30


def points(config: dict, host: Host, columns: dict) -> tuple[list[dict], dict]:
    """Every model point (rep 0) and the model profile it runs on."""
    mc = config["apps"]["model"]
    mprof = sweep.model_profile_for(mc["model_profile"], host, "apps/model/model_profile")
    tiers = sweep.model_tiers(mprof, "the apps model")
    table = models()
    rows = []
    for app in mc["apps"]:
        m = table[app]
        ws = gib(m["working_set"])
        hot = f"{max(1, round(ws * 1024 * m['hot_fraction']))}M"
        workload = {"kind": m["workload"], "working_set": m["working_set"], "hot_set": hot, "object_bytes": m["object_bytes"],
                    "op": m["op"], **({"hot_share": m["hot_share"]} if m["workload"] == "gups" else {"zipf_theta": m["zipf_theta"]})}
        default_gib = round(ws * mc["default_fraction"], 3)
        tiers_args = tiersim.tier_args(tiers["default"]["curve"], default_gib, tiers["alternate"]["curve"], ws)
        b = sweep.Model("apps", host, mprof, tiers_args, workload, columns=columns,
                        params={k: mc[k] for k in ("delta_p", "app_cores", "region_size", "duration_s", "average_last_s", "seed")})

        def cell(s: str, c: bool, k: float, app=app, m=m, b=b) -> list[dict]:
            ctx = {"workload": app, "system": s, "colloid": c, "intensity": k, "object_bytes": m["object_bytes"]}
            return [b.point("steady_state", sweep.pid(s, c, k, prefix=f"{app}-"), ctx, b.argv(s, c, k))]

        rows += sweep.sweep(mc["systems"], mc["intensities"], cell)
    return rows, mprof
