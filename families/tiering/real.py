"""The tiering family measured for real: on a host with two or more NUMA memory tiers (or inside
a guest host such as qemu-numa), and, on a single-node host, GUPS against a real antagonist on the
one node there is (``contention_single_node``).

Each point is a scenario (workflows/harness/scenario.py): settings, the antagonist on the default
tier in the background, GUPS as the workload, tierd attached to it, a latency probe after it.
"""

from __future__ import annotations

import os

from antagonists import workload as antagonist
from workflows.harness import ConfigError, memtiers
from workflows.harness.plan import Host, antagonist_threads, fmt, intensity_levels, measured, mib, point
from workflows.harness.scenario import scenario
from workloads.gups import workload as gups
from workloads.memchar import workload as memchar
from workloads.tierd import workload as tierd

from . import COLUMNS


def numa_tiers(prof: dict) -> list[dict]:
    return [t for t in prof["tiers"] if t["kind"] == "numa"]


def guest_knobs(facts: dict):
    """The guest's kernel settings as its /init read them (present and readable = the knob exists)."""
    present = {tierd.KNOBS[k] for k, v in (facts.get("settings") or {}).items() if k in tierd.KNOBS and v not in (None, "")}
    return lambda p: p in present


def check_real_host(host: Host, what: str, enable_key: str, intensities: list, intensities_where: str,
                    systems: list, systems_where: str, knob_exists) -> None:
    """What a family running tierd on a host's real tiers needs of the host: an application CPU,
    root, antagonist CPUs for every intensity, and the kernel's TPP knobs where TPP is asked for."""
    prof, src = host.profile, host.profile["source"]
    if not prof["cpus"]["app"]:
        raise ConfigError(f"host profile {src}: cpus/app: no CPU for the application")
    if not host.facts.get("privileges", {}).get("root", os.geteuid() == 0):
        raise ConfigError(f"host profile {src}: {what} moves another process's pages and sets "
                          f"numa_balancing; run as root (or set {enable_key}: false)")
    for k in intensities:
        antagonist_threads(prof, k, intensities_where)
    if "tpp" in systems:
        tierd.check_kernel_tpp(knob_exists, src, systems_where)


def tier_nodes(host: Host) -> tuple[int, int]:
    """The default and the alternate tier's nodes of a two-tier NUMA host."""
    numa = numa_tiers(host.profile)
    return numa[0]["node"], numa[1]["node"]


def kernel_tpp_left_out(host: Host, systems: list, nodes: tuple[int, int]) -> str | None:
    """Why kernel TPP (tpp without Colloid) is left out on this host's two tiers, or None
    (workflows/harness/memtiers.py; tierd's TPP with Colloid still runs)."""
    return memtiers.kernel_tpp_preconditions(host.facts, *nodes) if "tpp" in systems else None


def check_observe(host: Host, observe: str, where: str) -> None:
    """tierd's access observation must be one this host has (hostdetect's ``damon`` and
    ``perf_counters`` facts), checked before any job: tierd itself finds out only at run time."""
    facts, src = host.facts, host.profile["source"]
    damon = facts.get("damon")
    if damon is None:
        return  # facts without it (a guest's, older ones): tierd says so at run time
    perf = (facts.get("perf_counters") or {})
    if observe == "damon" and not damon.get("usable_by_tierd"):
        raise ConfigError(f"experiment config: {where}: damon: {damon.get('reason')}; use perf or none (host profile {src})")
    if observe == "auto" and not damon.get("usable_by_tierd") and not perf.get("available"):
        raise ConfigError(f"experiment config: {where}: auto: tierd would find neither perf samples "
                          f"({perf.get('reason', 'no PMU')}) nor DAMON ({damon.get('reason')}); use none "
                          f"(latency only, capacity-driven moves) on host profile {src}")


def check_guest(config: dict, host: Host) -> None:
    """A guest host runs only the real tiering family, sized for the guest."""
    kind = host.runner["kind"]
    tc, rc = config["tiering"], config["tiering"]["real"]
    if not (tc["enabled"] and rc["enabled"]):
        raise ConfigError(f"host profile {host.source}: a {kind} guest runs only the real tiering family, "
                          "but tiering/enabled or tiering/real/enabled is false")
    node = host.profile["tiers"][0 if rc["start_tier"] == "default" else 1]["node"]
    have = (host.facts["nodes"].get(str(node)) or {}).get("memory_mib", 0)
    if mib(rc["working_set"]) >= have:
        raise ConfigError(f"experiment config: tiering/real/working_set: {rc['working_set']} does not fit node {node} of the "
                          f"{kind} guest ({have} MiB); use a guest-sized config (workflows/config/qemu.yaml)")


def points(config: dict, host: Host, knob_exists=None) -> list[dict]:
    """The tiering family for real on a host with >= 2 NUMA memory tiers.

    GUPS starts on the alternate tier (the policy promotes what it finds hot; or on the default
    tier with tiering/real/start_tier: default); the antagonist streams on the default tier; tierd
    runs the policy. TPP without Colloid is the kernel's own tiering mode (numa_balancing=2,
    demotion_enabled=true); TPP with Colloid is tierd's TPP with Colloid's sign-only control,
    because the kernel's TPP cannot take Colloid's signal from user space (stated in every such
    point's meta).
    """
    tc, rc = config["tiering"], config["tiering"]["real"]
    prof, facts = host.profile, host.facts
    numa = numa_tiers(prof)
    if host.runner:
        check_guest(config, host)
        knob_exists = knob_exists or guest_knobs(facts)
    if not (tc["enabled"] and rc["enabled"]) or prof["backend"] != "numa" or len(numa) < 2:
        return []
    knob_exists = knob_exists or os.path.exists
    d, a = numa[0]["node"], numa[1]["node"]
    app, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"]
    tpp_out = kernel_tpp_left_out(host, tc["systems"], (d, a))
    check_real_host(host, "the real tiering family", "tiering/real/enabled", tc["intensities"],
                    "experiment config: tiering/intensities", [s for s in tc["systems"] if not (tpp_out and s == "tpp")],
                    "tiering/systems", knob_exists)
    check_observe(host, rc["observe"], "tiering/real/observe")  # tierd runs every system with Colloid
    start = d if rc["start_tier"] == "default" else a
    if mib(rc["hot_set"]) > mib(rc["working_set"]):
        raise ConfigError(f"experiment config: tiering/real/hot_set: {rc['hot_set']} is larger than the working set ({rc['working_set']})")
    have = (facts["nodes"].get(str(start)) or {}).get("memory_mib", 0)
    if mib(rc["working_set"]) >= have:
        raise ConfigError(f"experiment config: tiering/real/working_set: {rc['working_set']} does not fit node {start} "
                          f"({have} MiB), where GUPS starts (tiering/real/start_tier: {rc['start_tier']}); "
                          "use a smaller working set")
    ev, after = rc["event_at_s"], rc["after_event_s"]
    timeout_s = rc["duration_s"] + ev + after + 900

    def gups_role(duration: float, move_hot_at_s: float | None = None, unbind: bool = False) -> dict:
        return gups.role(gups.argv(cpus=app, node=start, working_set=rc["working_set"], hot_set=rc["hot_set"],
                                   hot_share=rc["hot_share"], object_bytes=rc["object_bytes"], op=rc["op"],
                                   duration_s=duration, seed=tc["seed"], move_hot_at_s=move_hot_at_s,
                                   unbind_after_touch=unbind))

    def antagonist_roles(k: float) -> list[dict]:
        n = antagonist_threads(prof, k)
        return [antagonist.role(antagonist.argv(cpus=ant[:n], node=d, buffer=rc["antagonist_buffer"]))] if n else []

    rows: list[dict] = []
    for s in tc["systems"]:
        for c in (False, True):
            kernel = s == "tpp" and not c  # the kernel's own tiering mode
            if kernel and tpp_out:
                continue
            attach, settings, note = tierd.system(s, c, nodes=(d, a), default_capacity=rc["default_capacity"],
                                                  observe=rc["observe"])
            # kernel TPP: GUPS unbound after first touch (NUMA balancing skips a bound range), swap off,
            # the same default-tier capacity as tierd's (a filler holds the rest of the node), and its
            # moves counted: starting on the alternate tier it must promote, starting on a default tier
            # too small for the working set it must demote
            fill = kernel and rc["default_capacity"] != "auto"
            expect = "promote" if start == a else ("demote" if fill and mib(rc["working_set"]) > mib(rc["default_capacity"])
                                                   else "")
            kern = {"swap_off": True, "vmstat": {"expect": expect}} if kernel else {}
            if kernel:
                note += (f"; default tier held to {rc['default_capacity']} by a filler on node {d}" if fill else
                         "; default_capacity: auto, so no filler: the kernel may use all of the default node")
            base = {"host": host.name, "backend": "numa", "system": s, "colloid": c, "object_bytes": rc["object_bytes"],
                    "workload": "gups", "target": f"node:{d},{a}"}

            def sc(workload: dict, background: list[dict], late_mib: float = 0, **kw: object) -> dict:
                """``late_mib``: memory a late background role will take on the default node (the
                filler leaves it free as well)."""
                # the filler starts after the antagonists (they have their buffers by then)
                if fill:  # noqa: B023
                    leave = f"{round(mib(rc['default_capacity']) + late_mib)}M"
                    background = [*background, antagonist.filler_role(antagonist.filler_argv(node=d, leave=leave))]
                return scenario(workload, background=background, attach=attach, settings=settings,  # noqa: B023
                                warmup_s=rc["warmup_s"], timeout_s=timeout_s, **kern, **kw)  # noqa: B023

            made = [("steady_state", f"{s}-c{int(c)}-i{fmt(k)}", k,
                     sc(gups_role(rc["duration_s"], unbind=kernel), antagonist_roles(k)), None) for k in tc["intensities"]]
            if rc["dynamics"]:
                made += [("hotset_move", f"{s}-c{int(c)}-i{fmt(k)}", k,
                          sc(gups_role(ev + after, ev, unbind=kernel), antagonist_roles(k)), ev)
                         for k in tc["dynamics"]["hotset_move_intensities"]]
                k = tc["dynamics"]["contention_to"]
                bg = antagonist_roles(k)
                late = antagonist_threads(prof, k) * mib(rc["antagonist_buffer"]) if bg else 0
                made.append(("contention_change", f"{s}-c{int(c)}-i0to{fmt(k)}", 0,
                             sc(gups_role(ev + after, unbind=kernel), bg, late_mib=late,
                                start_after_s={"antagonist": ev} if bg else None), ev))
            for exp, pid, k, scen, event in made:
                run = measured(config, host, scen, note=note, parse={"average_last_s": rc["average_last_s"]},
                               event_t_s=event)
                rows.append(point("tiering", exp, f"numa-{pid}", executor=host.executor, context={**base, "intensity": k},
                                  run=run, columns=COLUMNS))
    return rows


def contention_points(config: dict, host: Host) -> list[dict]:
    """Real GUPS against real antagonist intensities on the default node (single-node hosts).

    Intensity k uses k x cores_per_unit antagonist threads; with ``intensities: auto`` 3x is every
    antagonist CPU the profile grants and lower levels scale down.
    """
    tc = config["tiering"]
    cc = tc["contention"]
    prof = host.profile
    if not (tc["enabled"] and cc["enabled"]) or prof["backend"] != "numa" or host.runner:
        return []
    numa = numa_tiers(prof)
    if len(numa) != 1:
        return []  # two-tier hosts run the real tiering family instead
    node = numa[0]["node"]
    app, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"]
    if not app:
        raise ConfigError(f"host profile {prof['source']}: cpus/app: no CPU left for the application")
    rows = []
    for k, threads in intensity_levels(prof, cc["intensities"], "experiment config: tiering/contention/intensities"):
        pid = f"i{k:.3g}-t{threads}"
        w = gups.role(gups.argv(cpus=app, node=node, working_set=cc["working_set"], hot_set=cc["hot_set"],
                                hot_share=cc["hot_share"], object_bytes=cc["object_bytes"], op=cc["op"],
                                duration_s=cc["duration_s"], seed=tc["seed"]))
        bg = [antagonist.role(antagonist.argv(cpus=ant[:threads], node=node, buffer=cc["antagonist_buffer"],
                                              write_fraction=cc["write_fraction"], access_size=cc["access_size"]))] if threads else []
        probes = []
        if cc["latency_probe_s"] > 0:
            probes = [memchar.role(memchar.argv("latency", memchar.target_args(app[:1], node, None),
                                                buffer_mib=cc["latency_buffer_mib"], duration=fmt(cc["latency_probe_s"])),
                                   name="latency", probe_metric="latency_default")]
        sc = scenario(w, background=bg, probes=probes, warmup_s=cc["warmup_s"], timeout_s=cc["duration_s"] + 600)
        ctx = {"host": host.name, "backend": "numa", "workload": "gups", "system": "none", "intensity": k,
               "threads": threads, "mem_node": node, "object_bytes": cc["object_bytes"], "target": f"node:{node}"}
        rows.append(point("tiering", "contention_single_node", pid, executor=host.executor, context=ctx, columns=COLUMNS,
                          run=measured(config, host, sc, parse={"average_last_s": cc["average_last_s"]})))
    return rows

