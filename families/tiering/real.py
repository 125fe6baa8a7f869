"""The tiering family measured for real: on a host with two or more NUMA memory tiers (or inside
a guest host such as qemu-numa), and GUPS against a real antagonist on the default node of a host
measured here, one-node or two-tier (``contention_single_node``).

Each point is a scenario (workflows/harness/scenario.py): settings, the antagonist on the default
tier in the background, GUPS as the workload, tierd attached to it, a latency probe after it.
"""

from __future__ import annotations

import os

import systems
from systems import sweep
from workflows.harness import ConfigError
from workflows.harness.plan import Host, antagonist_threads, fmt, mib, node_mib
from workflows.harness.scenario import scenario
from workloads.gups import workload as gups
from workloads.memchar import workload as memchar

from . import COLUMNS


def numa_tiers(prof: dict) -> list[dict]:
    return [t for t in prof["tiers"] if t["kind"] == "numa"]


def left_out(r: sweep.Real, names: list[str]) -> dict[tuple[str, bool], str]:
    """(system, colloid) -> why its kernel mechanism cannot work between the host's two tiers."""
    return {(s, c): why for s in names for c in sweep.modes(s) if (why := r.left_out(s, c))}


def absent(config: dict, host: Host) -> dict[str, str]:
    """What the real tiering family leaves out of this host and why (FamilyPlan.absent)."""
    tc, numa = config["tiering"], numa_tiers(host.profile)
    if not (tc["enabled"] and tc["real"]["enabled"]) or host.profile["backend"] != "numa" or len(numa) < 2:
        return {}
    r = sweep.Real("tiering", config, host, (numa[0]["node"], numa[1]["node"]), tc["real"]["antagonist_buffer"], COLUMNS,
                   where="experiment config: tiering/intensities")
    out = left_out(r, tc["systems"])

    def line(s: str, c: bool, why: str) -> tuple[str, str]:
        label = systems.get(s).label
        key = f"tiering: kernel {label}{' with Colloid' if c and r.kernel(s, False) else ''}"
        still = systems.get(s).colloid and not c and (s, True) not in out
        return key, f"{why}; {label} with Colloid still runs" if still else why

    return dict(line(s, c, why) for (s, c), why in out.items())


def notes(config: dict, host: Host) -> list[str]:
    """What runs only after the host profile's tier setup (said by validate and before any job)."""
    tc, numa = config["tiering"], numa_tiers(host.profile)
    if not (tc["enabled"] and tc["real"]["enabled"]) or host.profile["backend"] != "numa" or len(numa) < 2:
        return []
    r = sweep.Real("tiering", config, host, (numa[0]["node"], numa[1]["node"]), tc["real"]["antagonist_buffer"], COLUMNS,
                   where="experiment config: tiering/intensities")
    return r.tier_setup_notes(tc["systems"], "tiering")


def check_guest(config: dict, host: Host) -> None:
    """A guest host runs only the real tiering family, sized for the guest."""
    kind = host.runner["kind"]
    tc, rc = config["tiering"], config["tiering"]["real"]
    if not (tc["enabled"] and rc["enabled"]):
        raise ConfigError(f"host profile {host.source}: a {kind} guest runs only the real tiering family, "
                          "but tiering/enabled or tiering/real/enabled is false")
    node = host.profile["tiers"][0 if rc["start_tier"] == "default" else 1]["node"]
    have = node_mib(host.facts, node)
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
        knob_exists = knob_exists or sweep.guest_knobs(facts)
    if not (tc["enabled"] and rc["enabled"]) or prof["backend"] != "numa" or len(numa) < 2:
        return []
    knob_exists = knob_exists or os.path.exists
    d, a = numa[0]["node"], numa[1]["node"]
    app = prof["cpus"]["app"]
    r = sweep.Real("tiering", config, host, (d, a), rc["antagonist_buffer"], COLUMNS,
                   where="experiment config: tiering/intensities")
    out = left_out(r, tc["systems"])
    sweep.check_real_host(host, "the real tiering family", "tiering/real/enabled", tc["intensities"],
                          "experiment config: tiering/intensities", r.knobs_needed(tc["systems"], out),
                          "tiering/systems", knob_exists)
    sweep.check_observe(host, rc["observe"], "tiering/real/observe")  # tierd runs every system with Colloid
    start = d if rc["start_tier"] == "default" else a
    # (where GUPS starts: tiering/real/start_tier)
    sweep.check_window(rc["average_last_s"], rc["duration_s"], "experiment config: tiering/real", "duration_s")
    gups.check_sizes(working_set=rc["working_set"], hot_set=rc["hot_set"], object_bytes=rc["object_bytes"],
                     threads=len(app), node=start, facts=facts, where="tiering/real")
    ev, after = rc["event_at_s"], rc["after_event_s"]
    timeout_s = rc["duration_s"] + ev + after + 900

    def gups_role(duration: float, move_hot_at_s: float | None = None, unbind: bool = False) -> dict:
        return gups.role(gups.argv(cpus=app, node=start, working_set=rc["working_set"], hot_set=rc["hot_set"],
                                   hot_share=rc["hot_share"], object_bytes=rc["object_bytes"], op=rc["op"],
                                   duration_s=duration, seed=tc["seed"], move_hot_at_s=move_hot_at_s,
                                   unbind_after_touch=unbind, hot_placement=d))

    mech: dict = {}

    def make_mechanism(s: str, c: bool) -> None:
        if (s, c) in out:
            mech[s, c] = None  # left out on this host (FamilyPlan.absent says why)
            return
        attach, settings, note = r.mechanism(s, c, default_capacity=rc["default_capacity"], observe=rc["observe"])
        kern: dict = {}
        if r.kernel(s, c):  # a kernel mechanism: the same conditions as tierd's systems
            kern, more = r.kernel_scenario(rc["default_capacity"], mib(rc["working_set"]), start, r.kernel(s, c))
            note += more
        mech[s, c] = (attach, settings, note, kern)

    def add(exp: str, s: str, c: bool, k: float, pid: str, duration: float, background: list[dict],
            event: float | None = None, move_hot_at_s: float | None = None, late_mib: float = 0,
            **kw: object) -> list[dict]:
        """``late_mib``: memory a background role started late will take on the default node (a
        kernel mechanism's filler leaves it free too)."""
        if mech[s, c] is None:
            return []  # left out on this host (FamilyPlan.absent says why)
        attach, settings, note, kern = mech[s, c]
        kernel = bool(kern)
        workload = gups_role(duration, move_hot_at_s, unbind=kernel and r.kernel(s, c).unbound)
        if kernel:  # the filler starts after the antagonists (they have their buffers by then)
            background = [*background, *r.filler(rc["default_capacity"], late_mib, r.kernel(s, c))]
        if kern.get("cgroup"):  # a mechanism's own cgroup for the point, which it leaves alone (systems.Driven):
            attach = [{**x, "cgroup": kern["cgroup"]} for x in attach]  # tierd's probe buffers are charged there
        sc = scenario(workload, background=background, attach=attach, settings=settings, warmup_s=rc["warmup_s"],
                      timeout_s=timeout_s, **kern, **kw)
        ctx = {"system": s, "colloid": c, "object_bytes": rc["object_bytes"], "workload": "gups", "target": f"node:{d},{a}",
               "intensity": k}
        return [r.point(exp, f"numa-{pid}", ctx, sc, note=note, parse={"average_last_s": rc["average_last_s"]}, event=event)]

    def cell(s: str, c: bool, k: float) -> list[dict]:
        return add("steady_state", s, c, k, sweep.pid(s, c, k), rc["duration_s"], r.antagonists(k))

    def events(s: str, c: bool) -> list[dict]:
        if not rc["dynamics"]:
            return []
        rows = [row for k in tc["dynamics"]["hotset_move_intensities"]
                for row in add("hotset_move", s, c, k, sweep.pid(s, c, k), ev + after, r.antagonists(k), ev,
                               move_hot_at_s=ev)]
        k = tc["dynamics"]["contention_to"]
        bg = r.antagonists(k)
        late = antagonist_threads(prof, k) * mib(rc["antagonist_buffer"]) if bg else 0
        return rows + add("contention_change", s, c, 0, sweep.pid(s, c, 0, suffix=f"to{fmt(k)}"), ev + after, bg,
                          ev, late_mib=late, start_after_s={"antagonist": ev} if bg else None)

    return sweep.sweep(tc["systems"], tc["intensities"], cell, events, each=make_mechanism)


def contention_left_out(config: dict, host: Host) -> str | None:
    """Why a two-tier host runs no contention points although they are enabled: its default node
    cannot hold their working set (on a one-node host that stays an error of the config, said by
    :func:`contention_points`, which the family's plan then does not call). Its model is then
    predicted with tiersim's defaults."""
    tc, cc = config["tiering"], config["tiering"]["contention"]
    node = sweep.contention_node(host)
    if not (tc["enabled"] and cc["enabled"]) or node is None or sweep.single_node(host) is not None:
        return None
    have = node_mib(host.facts, node)
    if mib(cc["working_set"]) < have:
        return None
    return (f"tiering/contention/working_set: {cc['working_set']} does not fit the default node {node} ({have:g} MiB); "
            "without these points the host's model is not calibrated (docs/fidelity.md)")


def contention_points(config: dict, host: Host) -> list[dict]:
    """Real GUPS against real antagonist intensities on the default node (:func:`systems.sweep.contention`):
    on a single-node host its one node; on a two-tier host the default tier's, beside the real tiering
    runs, where GUPS alone (0x) and the antagonist's highest intensity are the points the host's model
    is calibrated on for its predictions of those runs (docs/fidelity.md).

    Intensity k uses k x cores_per_unit antagonist threads; with ``intensities: auto`` 3x is every
    antagonist CPU the profile grants and lower levels scale down.
    """
    tc = config["tiering"]
    cc = tc["contention"]
    prof = host.profile
    node = sweep.contention_node(host)
    if not (tc["enabled"] and cc["enabled"]) or node is None:
        return []  # a guest (functional, not timed) or modelled tiers
    app = prof["cpus"]["app"]
    if not app:
        raise ConfigError(f"host profile {prof['source']}: cpus/app: no CPU left for the application")
    sweep.check_window(cc["average_last_s"], cc["duration_s"], "experiment config: tiering/contention", "duration_s")
    gups.check_sizes(working_set=cc["working_set"], hot_set=cc["hot_set"], object_bytes=cc["object_bytes"],
                     threads=len(app), node=node, facts=host.facts, where="tiering/contention")
    w = gups.role(gups.argv(cpus=app, node=node, working_set=cc["working_set"], hot_set=cc["hot_set"],
                            hot_share=cc["hot_share"], object_bytes=cc["object_bytes"], op=cc["op"],
                            duration_s=cc["duration_s"], seed=tc["seed"]))

    def probes(app_cpus: list[int], node: int) -> list[dict]:
        if cc["latency_probe_s"] <= 0:
            return []
        return [memchar.role(memchar.argv("latency", memchar.target_args(app_cpus[:1], node, None),
                                          buffer_mib=cc["latency_buffer_mib"], duration=fmt(cc["latency_probe_s"])),
                             name="latency", probe_metric="latency_default")]

    return sweep.contention("tiering", config, host, cc, COLUMNS, [("gups", w, {"object_bytes": cc["object_bytes"]})],
                            timeout_s=cc["duration_s"] + 600, prefix=False, probes=probes,
                            parse={"average_last_s": cc["average_last_s"]})
