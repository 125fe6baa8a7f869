"""The apps family on modelled tiers: each application's access model (families/apps/models.yaml)
run by tiersim with HeMem, TPP and MEMTIS, each with and without Colloid, at 0x-3x antagonist
intensity, on the model profile's tiers with a default tier holding a third of the working set.
Points: ``apps/steady_state/{app}-{system}-c{0|1}-i{k}``; every row is ``backend=model``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from workflows.harness import ConfigError
from workflows.harness.plan import Host, fmt, point, size_bytes
from workloads.tiersim import workload as tiersim

MODELS = Path(__file__).resolve().parent / "models.yaml"


def models() -> dict:
    with open(MODELS) as f:
        return yaml.safe_load(f)


def gib(size: str) -> float:
    return size_bytes(size) / 2**30


def points(config: dict, host: Host, columns: dict) -> tuple[list[dict], dict]:
    """Every model point (rep 0) and the model profile it runs on."""
    from families.tiering.model import model_profile_for  # noqa: PLC0415 - the same profile resolution as tiering's

    mc = config["apps"]["model"]
    mprof = model_profile_for(mc["model_profile"], host)
    tiers = {t["name"]: t for t in mprof["tiers"]}
    if "default" not in tiers or "alternate" not in tiers or any(t["kind"] != "model" for t in tiers.values()):
        raise ConfigError(f"host profile {mprof['source']}: the apps model needs model tiers named 'default' and 'alternate'")
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
        for s in mc["systems"]:
            for c in (False, True):
                for k in mc["intensities"]:
                    argv = tiersim.argv(system=s, colloid=c, delta_p=mc["delta_p"], tiers=tiers_args, workload=workload,
                                        app_cores=mc["app_cores"], cores_per_unit=mprof["cpus"]["cores_per_unit"],
                                        intensity=k, region_size=mc["region_size"], duration_s=mc["duration_s"],
                                        average_last_s=mc["average_last_s"], seed=mc["seed"])
                    ctx = {"host": host.name, "backend": "model", "workload": app, "system": s, "colloid": c,
                           "intensity": k, "target": f"model:{mprof['name']}", "object_bytes": m["object_bytes"]}
                    rows.append(point("apps", "steady_state", f"{app}-{s}-c{int(c)}-i{fmt(k)}", executor="model",
                                      context=ctx, columns=columns, tools=["tiersim"],
                                      run={"argv": argv, "timeseries": False, "event_t_s": None, "timeout_s": 600}))
    return rows, mprof
