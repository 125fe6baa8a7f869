"""The apps family on real tiers: each application under HeMem, TPP and MEMTIS, with and without
Colloid, at 0x-3x antagonist intensity, on a host with two NUMA memory tiers (or inside a guest
host such as qemu-numa). Points: ``apps/steady_state/numa-{app}-{system}-c{0|1}-i{k}``.

The application starts with its memory bound to the alternate tier (``start_tier``; the policy
promotes what it finds hot) and the policy may keep a share of its footprint in the default tier
(``default_fraction``: the Colloid paper gives GAPBS a third); the antagonist streams on the
default tier; tierd attaches to the application once it has its data in memory (its ready line).
"""

from __future__ import annotations

import os

from systems import sweep
from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import Host
from workflows.harness.scenario import scenario


def points(config: dict, host: Host, apps: list[str], app_role, columns: dict, knob_exists=None) -> list[dict]:
    ac, rc = config["apps"], config["apps"]["real"]
    prof, facts = host.profile, host.facts
    numa = [t for t in prof["tiers"] if t["kind"] == "numa"]
    if not rc["enabled"] or prof["backend"] != "numa" or len(numa) < 2:
        return []
    if host.runner:
        knob_exists = knob_exists or sweep.guest_knobs(facts)
    knob_exists = knob_exists or os.path.exists
    d, a = numa[0]["node"], numa[1]["node"]
    start = d if rc["start_tier"] == "default" else a
    app_cpus = prof["cpus"]["app"]
    sweep.check_real_host(host, "the apps family on real tiers", "apps/real/enabled", rc["intensities"],
                          "experiment config: apps/real/intensities", rc["systems"], "apps/real/systems", knob_exists)
    have = (facts["nodes"].get(str(start)) or {}).get("memory_mib", 0)
    r = sweep.Real("apps", config, host, (d, a), rc["antagonist_buffer"], columns, where="experiment config: apps/real/intensities")
    rows = []
    for app in apps:
        role, inputs, params = app_role(app, ac[app], app_cpus, host)
        if params["footprint_mib"] > 0.8 * have:
            raise ConfigError(f"experiment config: apps/{app}: about {params['footprint_mib']:.0f} MiB does not fit node "
                              f"{start} ({have} MiB), where it starts (apps/real/start_tier: {rc['start_tier']}); "
                              "use a smaller input")
        role["wrap"] = ["numactl", f"--physcpubind={cpulist.format(app_cpus)}", f"--membind={start}"]
        capacity = f"{max(1, round(params['footprint_mib'] * rc['default_fraction']))}M"
        mech: dict = {}

        def make_mechanism(s: str, c: bool, capacity=capacity, mech=mech) -> None:
            mech[s, c] = r.mechanism(s, c, default_capacity=capacity, observe=rc["observe"],
                                     min_mapping="2M")  # an application's heap: many mappings

        def cell(s: str, c: bool, k: float, app=app, role=role, inputs=inputs, params=params, mech=mech) -> list[dict]:
            attach, settings, note = mech[s, c]
            sc = scenario(role, background=r.antagonists(k), attach=attach, settings=settings, warmup_s=rc["warmup_s"],
                          timeout_s=ac["contention"]["timeout_s"])
            ctx = {"workload": app, "system": s, "colloid": c, "intensity": k, "target": f"node:{d},{a}", **params}
            return [r.point("steady_state", sweep.pid(s, c, k, prefix=f"numa-{app}-"), ctx, sc, note=note, inputs=inputs)]

        rows += sweep.sweep(rc["systems"], rc["intensities"], cell, each=make_mechanism)
    return rows
