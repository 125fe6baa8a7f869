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

import systems
from systems import sweep
from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import Host, node_mib
from workflows.harness.scenario import scenario

# An application runs under `numactl --membind` (a task policy without MPOL_F_MOF): NUMA balancing
# scans no VMA of such a task (Linux mm/mempolicy.c, vma_policy_mof()), so a kernel mechanism that
# scans the workload's memory (a registry entry's Kernel(unbound=True): the kernel's TPP) could
# move none of it; GUPS drops its policy after the first touch (--unbind-after-touch), an
# application cannot.
APP_BOUND = ("the application is bound with numactl --membind, and NUMA balancing never scans a bound task's "
             "memory (mm/mempolicy.c: no MPOL_F_MOF), so the kernel mechanism could move none of it")


# A kernel mechanism with a per-point driver (systems.Driven) is set up only by the tiering family's
# points so far.
APP_DRIVEN = ("the apps family does not yet set up a kernel mechanism's per-point driver for an application "
              "(the tiering family's points do)")


def _real(config: dict, host: Host, columns: dict) -> sweep.Real | None:
    rc = config["apps"]["real"]
    numa = [t for t in host.profile["tiers"] if t["kind"] == "numa"]
    if not rc["enabled"] or host.profile["backend"] != "numa" or len(numa) < 2:
        return None
    return sweep.Real("apps", config, host, (numa[0]["node"], numa[1]["node"]), rc["antagonist_buffer"], columns,
                      where="experiment config: apps/real/intensities")


def left_out(r: sweep.Real, names: list[str]) -> dict[tuple[str, bool], str]:
    """(system, colloid) -> why its kernel mechanism does not run the applications on this host."""
    out = {}
    for s in names:
        for c in sweep.modes(s):
            k = r.kernel(s, c)
            why = k and (r.left_out(s, c) or (APP_DRIVEN if isinstance(k, systems.Driven) else None)
                         or (APP_BOUND if k.unbound else None))
            if why:
                out[s, c] = why
    return out


def absent(config: dict, host: Host, columns: dict) -> dict[str, str]:
    """What the apps family leaves out of this host's real tiers and why (FamilyPlan.absent)."""
    r = _real(config, host, columns)
    if r is None:
        return {}
    out = left_out(r, config["apps"]["real"]["systems"])

    def line(s: str, c: bool, why: str) -> tuple[str, str]:
        label = systems.get(s).label
        key = f"apps: kernel {label}{' with Colloid' if c and r.kernel(s, False) else ''}"
        still = systems.get(s).colloid and not c and (s, True) not in out
        return key, f"{why}; {label} with Colloid still runs" if still else why

    return dict(line(s, c, why) for (s, c), why in out.items())


def points(config: dict, host: Host, apps: list[str], app_role, columns: dict, knob_exists=None) -> list[dict]:
    ac, rc = config["apps"], config["apps"]["real"]
    prof, facts = host.profile, host.facts
    r = _real(config, host, columns)
    if r is None:
        return []
    if host.runner:
        knob_exists = knob_exists or sweep.guest_knobs(facts)
    knob_exists = knob_exists or os.path.exists
    d, a = r.nodes
    start = d if rc["start_tier"] == "default" else a
    app_cpus = prof["cpus"]["app"]
    out = left_out(r, rc["systems"])
    sweep.check_real_host(host, "the apps family on real tiers", "apps/real/enabled", rc["intensities"],
                          "experiment config: apps/real/intensities",
                          r.knobs_needed(rc["systems"], out),
                          "apps/real/systems", knob_exists)
    sweep.check_observe(host, rc["observe"], "apps/real/observe")
    have = node_mib(facts, start)
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
            mech[s, c] = None if (s, c) in out else r.mechanism(s, c, default_capacity=capacity, observe=rc["observe"],
                                                                min_mapping="2M")  # an application's heap: many mappings

        def cell(s: str, c: bool, k: float, app=app, role=role, inputs=inputs, params=params, mech=mech) -> list[dict]:
            if mech[s, c] is None:
                return []  # left out on this host (FamilyPlan.absent says why)
            attach, settings, note = mech[s, c]
            sc = scenario(role, background=r.antagonists(k), attach=attach, settings=settings, warmup_s=rc["warmup_s"],
                          timeout_s=ac["contention"]["timeout_s"])
            ctx = {"workload": app, "system": s, "colloid": c, "intensity": k, "target": f"node:{d},{a}", **params}
            return [r.point("steady_state", sweep.pid(s, c, k, prefix=f"numa-{app}-"), ctx, sc, note=note, inputs=inputs)]

        rows += sweep.sweep(rc["systems"], rc["intensities"], cell, each=make_mechanism)
    return rows
