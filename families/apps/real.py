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

from antagonists import workload as antagonist
from families.tiering.real import check_observe, check_real_host, guest_knobs, kernel_tpp_left_out
from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import Host, antagonist_threads, fmt, measured, point
from workflows.harness.scenario import scenario
from workloads.tierd import workload as tierd

# An application runs under `numactl --membind` (a task policy without MPOL_F_MOF): NUMA balancing
# scans no VMA of such a task (Linux mm/mempolicy.c, vma_policy_mof()), so the kernel's TPP could
# not move its pages; GUPS drops its policy after the first touch (--unbind-after-touch), an
# application cannot.
APP_BOUND = ("the application is bound with numactl --membind, and NUMA balancing never scans a bound task's "
             "memory (mm/mempolicy.c: no MPOL_F_MOF), so the kernel's TPP could move none of it")


def kernel_tpp_absent(config: dict, host: Host) -> str | None:
    """Why the apps family leaves kernel TPP (tpp without Colloid) out on this host, or None."""
    rc = config["apps"]["real"]
    numa = [t for t in host.profile["tiers"] if t["kind"] == "numa"]
    if not rc["enabled"] or host.profile["backend"] != "numa" or len(numa) < 2 or "tpp" not in rc["systems"]:
        return None
    return kernel_tpp_left_out(host, rc["systems"], (numa[0]["node"], numa[1]["node"])) or APP_BOUND


def points(config: dict, host: Host, apps: list[str], app_role, columns: dict, knob_exists=None) -> list[dict]:
    ac, rc = config["apps"], config["apps"]["real"]
    prof, facts = host.profile, host.facts
    numa = [t for t in prof["tiers"] if t["kind"] == "numa"]
    if not rc["enabled"] or prof["backend"] != "numa" or len(numa) < 2:
        return []
    if host.runner:
        knob_exists = knob_exists or guest_knobs(facts)
    knob_exists = knob_exists or os.path.exists
    d, a = numa[0]["node"], numa[1]["node"]
    start = d if rc["start_tier"] == "default" else a
    app_cpus, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"]
    tpp_out = kernel_tpp_absent(config, host)
    check_real_host(host, "the apps family on real tiers", "apps/real/enabled", rc["intensities"],
                    "experiment config: apps/real/intensities", [s for s in rc["systems"] if not (tpp_out and s == "tpp")],
                    "apps/real/systems", knob_exists)
    check_observe(host, rc["observe"], "apps/real/observe")
    have = (facts["nodes"].get(str(start)) or {}).get("memory_mib", 0)
    rows = []
    for app in apps:
        role, inputs, params = app_role(app, ac[app], app_cpus, host)
        if params["footprint_mib"] > 0.8 * have:
            raise ConfigError(f"experiment config: apps/{app}: about {params['footprint_mib']:.0f} MiB does not fit node "
                              f"{start} ({have} MiB), where it starts (apps/real/start_tier: {rc['start_tier']}); "
                              "use a smaller input")
        role["wrap"] = ["numactl", f"--physcpubind={cpulist.format(app_cpus)}", f"--membind={start}"]
        capacity = f"{max(1, round(params['footprint_mib'] * rc['default_fraction']))}M"
        for s in rc["systems"]:
            for c in (False, True):
                if s == "tpp" and not c and tpp_out:
                    continue
                attach, settings, note = tierd.system(s, c, nodes=(d, a), default_capacity=capacity, observe=rc["observe"],
                                                      min_mapping="2M")  # an application's heap: many mappings
                for k in rc["intensities"]:
                    n = antagonist_threads(prof, k, "experiment config: apps/real/intensities")
                    bg = [antagonist.role(antagonist.argv(cpus=ant[:n], node=d, buffer=rc["antagonist_buffer"]))] if n else []
                    sc = scenario(role, background=bg, attach=attach, settings=settings, warmup_s=rc["warmup_s"],
                                  timeout_s=ac["contention"]["timeout_s"])
                    ctx = {"host": host.name, "backend": "numa", "workload": app, "system": s, "colloid": c, "intensity": k,
                           "target": f"node:{d},{a}", **params}
                    rows.append(point("apps", "steady_state", f"numa-{app}-{s}-c{int(c)}-i{fmt(k)}", executor=host.executor,
                                      context=ctx, columns=columns, inputs=inputs, run=measured(config, host, sc, note=note)))
    return rows
