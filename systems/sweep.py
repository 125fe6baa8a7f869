"""One sweep of tiering systems: system x Colloid x intensity, and the event runs, written once,
with a model backend (:class:`Model`: tiersim on modelled tiers) and a real backend (:class:`Real`:
each system's mechanism from its registry entry, systems/, on a host's NUMA tiers). A family names
only its workload and its experiments: it passes :func:`sweep` what one cell (and one event run)
makes, and builds each point with a backend. ``contention_single_node`` (a workload alone and
beside the antagonist on one node, no tiering system: :func:`contention_node`) is :func:`contention`
here too.

Point ids: ``{prefix}{system}-c{0|1}-i{k}{suffix}`` (:func:`pid`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

import systems
from antagonists import workload as antagonist
from workflows.harness import ConfigError
from workflows.harness.plan import Host, antagonist_threads, fmt, intensity_levels, measured, mib, node_mib, point
from workflows.harness.scenario import scenario
from workloads.tierd import workload as tierd
from workloads.tiersim import workload as tiersim


def modes(system: str) -> tuple[bool, ...]:
    """Colloid off and on, or only off for a system that does not take Colloid."""
    return (False, True) if systems.get(system).colloid else (False,)


def pid(system: str, colloid: bool, k: float, prefix: str = "", suffix: str = "") -> str:
    return f"{prefix}{system}-c{int(colloid)}-i{fmt(k)}{suffix}"


def sweep(names: list[str], intensities: list[float], cell: Callable[[str, bool, float], list[dict]],
          events: Callable[[str, bool], list[dict]] | None = None,
          each: Callable[[str, bool], None] | None = None) -> list[dict]:
    """Rows of ``cell(system, colloid, k)`` for every system, Colloid mode and intensity, each
    system's and mode's ``events(system, colloid)`` after its intensities; ``each(system, colloid)``
    runs first for every system and mode (e.g. to make a backend's mechanism once)."""
    rows: list[dict] = []
    for s in names:
        for c in modes(s):
            if each:
                each(s, c)
            for k in intensities:
                rows += cell(s, c, k)
            if events:
                rows += events(s, c)
    return rows


@dataclass
class Model:
    """The model backend: tiersim runs of one family on a model profile's tiers."""

    family: str
    host: Host
    mprof: dict
    tiers: list[str]  # tiersim.tier_args(...)
    workload: dict  # tiersim.workload_args' access model
    params: dict  # delta_p, app_cores, region_size, duration_s, average_last_s, seed
    columns: dict

    def argv(self, system: str, colloid: bool, k: float, *, tiers: list[str] | None = None, workload: dict | None = None,
             duration: float | None = None, extra: list[str] | None = None) -> list[str]:
        p = self.params
        return tiersim.argv(system=system, colloid=colloid, delta_p=p["delta_p"], tiers=tiers or self.tiers,
                            workload=workload or self.workload, app_cores=p["app_cores"],
                            cores_per_unit=self.mprof["cpus"]["cores_per_unit"], intensity=k, region_size=p["region_size"],
                            duration_s=p["duration_s"] if duration is None else duration,
                            average_last_s=p["average_last_s"], seed=p["seed"], extra=extra or [])

    def point(self, experiment: str, point_id: str, context: dict, argv: list[str], *, series: bool = False,
              event: float | None = None) -> dict:
        ctx = {"host": self.host.name, "backend": "model", "target": f"model:{self.mprof['name']}", **context}
        run = {"argv": argv, "timeseries": series, "event_t_s": event, "timeout_s": 600}
        return point(self.family, experiment, point_id, executor="model", context=ctx, run=run, tools=["tiersim"],
                     columns=self.columns)


def model_tiers(mprof: dict, what: str) -> dict:
    """A model profile's tiers by name; it must have model tiers 'default' and 'alternate'."""
    tiers = {t["name"]: t for t in mprof["tiers"]}
    if "default" not in tiers or "alternate" not in tiers or any(t["kind"] != "model" for t in tiers.values()):
        raise ConfigError(f"host profile {mprof['source']}: {what} needs model tiers named 'default' and 'alternate'")
    return tiers


def one_tier(mprof: dict) -> str | None:
    """Why a model profile of one tier (a one-node host's own model, results/<host>/model-profile.yaml)
    runs no tiering model, or None."""
    tiers = [t for t in mprof["tiers"] if t["kind"] == "model"]
    if len(tiers) == 1 and len(mprof["tiers"]) == 1:
        return (f"host profile {mprof['source']} has one model tier ({tiers[0]['name']}): modelled tiering needs a "
                "default and an alternate tier")
    return None


def model_profile_for(name: str, host: Host, where: str) -> dict:
    """The profile whose model tiers a family runs on: the host's own (a model profile), or ``name``
    (the config's ``where``, e.g. tiering/model_profile, which a problem with it names)."""
    if host.profile["backend"] == "model":
        return host.profile
    from workflows.harness import profile as host_profile  # noqa: PLC0415 - profile imports families

    try:
        mprof = host_profile.resolve(name, host.facts)
    except ConfigError as e:
        raise ConfigError(f"experiment config: {where}: {name!r}: {e}") from None
    if mprof["backend"] != "model":
        raise ConfigError(f"experiment config: {where}: {name!r} is not a profile of model tiers (its tiers: "
                          f"{host_profile.tiers_text(mprof)}): name one such as paper-testbed")
    return mprof


def guest_knobs(facts: dict):
    """The guest's kernel settings as its /init read them (present and readable = the knob exists)."""
    knobs = tierd.knobs()
    present = {knobs[k] for k, v in (facts.get("settings") or {}).items() if k in knobs and v not in (None, "")}
    return lambda p: p in present


def check_real_host(host: Host, what: str, enable_key: str, intensities: list, intensities_where: str,
                    systems: list, systems_where: str, knob_exists) -> None:
    """What a family running tierd on a host's real tiers needs of the host: an application CPU,
    root, antagonist CPUs for every intensity, and the kernel's knobs of every system asked for that
    runs as a kernel mechanism (systems/)."""
    prof, src = host.profile, host.profile["source"]
    if not prof["cpus"]["app"]:
        raise ConfigError(f"host profile {src}: cpus/app: no CPU for the application")
    if not host.facts.get("privileges", {}).get("root", os.geteuid() == 0):
        raise ConfigError(f"host profile {src}: {what} moves another process's pages and sets "
                          f"numa_balancing; run as root (or set {enable_key}: false)")
    for k in intensities:
        antagonist_threads(prof, k, intensities_where)
    tierd.check_kernel(systems, knob_exists, src, systems_where)


def check_observe(host: Host, observe: str, where: str) -> None:
    """tierd's access observation must be one this host has (hostdetect's ``damon`` and
    ``perf_counters`` facts), checked before any job: tierd itself finds out only at run time."""
    facts, src = host.facts, host.profile["source"]
    damon = facts.get("damon")
    if damon is None:
        return  # facts without it (a guest's, older ones): tierd says so at run time
    perf = facts.get("perf_counters") or {}
    if observe == "damon" and not damon.get("usable_by_tierd"):
        raise ConfigError(f"experiment config: {where}: damon: {damon.get('reason')}; use perf or none (host profile {src})")
    if observe == "auto" and not damon.get("usable_by_tierd") and not perf.get("available"):
        raise ConfigError(f"experiment config: {where}: auto: tierd would find neither perf samples "
                          f"({perf.get('reason', 'no PMU')}) nor DAMON ({damon.get('reason')}); use none "
                          f"(latency only, capacity-driven moves) on host profile {src}")


def plan_info(prof: dict) -> dict:
    """:func:`workflows.harness.profile.plan_info` of the profile a sweep ran on (FamilyPlan.info)."""
    from workflows.harness import profile as host_profile  # noqa: PLC0415 - profile imports families

    return host_profile.plan_info(prof)


def check_window(average_last_s: float, run_s: float, where: str, run_key: str) -> None:
    """A run's averaging window fits in the run (``where``: the config block, ``run_key``: the key
    that set the run's length), for the model's runs and the measured ones alike."""
    if average_last_s > run_s:
        raise ConfigError(f"{where}/average_last_s: {average_last_s:g} s is longer than the run ({run_key}: {run_s:g} s)")


def check_antagonist_room(host: Host, node: int, buffer: str, threads: int, where: str) -> None:
    """The antagonist's buffers (one of ``buffer`` per thread, antagonists/workload.py) fit in
    ``node``'s memory: ``where`` is the config key of the buffer, for the message."""
    have, need = node_mib(host.facts, node), threads * mib(buffer)
    if threads and have and need > have:
        raise ConfigError(f"experiment config: {where}: {threads} antagonist thread{'s' * (threads > 1)} of {buffer} each need "
                          f"{need:.0f} MiB, more than node {node}'s memory ({have:g} MiB)")


@dataclass
class Real:
    """The real backend: each system's mechanism (systems/) on a host's two NUMA tiers, the
    antagonist on the default tier."""

    family: str
    config: dict
    host: Host
    nodes: tuple[int, int]  # default, alternate
    antagonist_buffer: str
    columns: dict
    where: str  # config key of the intensities, for messages

    def antagonists(self, k: float) -> list[dict]:
        prof = self.host.profile
        n = antagonist_threads(prof, k, self.where)
        check_antagonist_room(self.host, self.nodes[0], self.antagonist_buffer, n,
                              f"{self.family}/real/antagonist_buffer")
        ant = prof["cpus"]["antagonist"]
        return [antagonist.role(antagonist.argv(cpus=ant[:n], node=self.nodes[0], buffer=self.antagonist_buffer))] if n else []

    def mechanism(self, system: str, colloid: bool, *, default_capacity: str, observe: str,
                  min_mapping: str | None = None) -> tuple[list[dict], dict, str]:
        return tierd.system(system, colloid, nodes=self.nodes, default_capacity=default_capacity, observe=observe,
                            min_mapping=min_mapping, tools=self.host.profile["tools"])

    def kernel(self, system: str, colloid: bool) -> systems.Kernel | None:
        """The system's kernel mechanism in this mode, or None (tierd or a command of the user's)."""
        m = systems.get(system).mechanism(colloid)
        return m if isinstance(m, systems.Kernel) else None

    def left_out(self, system: str, colloid: bool) -> str | None:
        """Why this system's kernel mechanism cannot move pages between the host's two tiers
        (its registry entry's ``preflight``), or None. A mechanism that takes the host profile's
        ``tier_setup`` (:meth:`tier_setup`) is planned whatever the kernel's tiers are now, unless
        the kernel has no memory tiers at all (no command of the user's adds that interface)."""
        k = self.kernel(system, colloid)
        why = k.preflight(self.host.facts, *self.nodes) if k and k.preflight else None
        if why and self.tier_setup(k):
            if self.host.facts.get("memory_tiers"):
                return None
            return f"{why} (the profile's tier_setup cannot give a kernel memory tiers)"
        return why

    def tier_setup(self, mech: systems.Kernel | None) -> dict | None:
        """The host profile's ``tier_setup`` where this kernel mechanism takes it, else None."""
        ts = self.host.profile.get("tier_setup")
        return ts if ts and isinstance(mech, systems.Kernel) and mech.tier_setup else None

    def tier_setup_notes(self, names: list[str], family: str) -> list[str]:
        """One line per kernel mechanism of ``names`` that runs after the profile's tier setup
        (said by validate and before any job)."""
        out = []
        for s in names:
            for c in modes(s):
                k = self.kernel(s, c)
                if self.tier_setup(k) and not self.left_out(s, c):
                    out.append(f"{family}: kernel {systems.get(s).label}: runs after the profile's tier setup "
                               f"({self.host.profile['tier_setup']['setup']})")
        return out

    def knobs_needed(self, names: list[str], out: dict[tuple[str, bool], str]) -> list[str]:
        """The systems whose kernel knobs must exist: all but those whose every kernel mechanism is
        left out (``out``: (system, colloid) -> why)."""
        return [s for s in names if not all((s, c) in out for c in modes(s) if self.kernel(s, c))]

    def kernel_scenario(self, default_capacity: str, working_set_mib: float, start: int,
                        mech: systems.Kernel | None = None) -> tuple[dict, str]:
        """What a kernel mechanism's point runs under, so that it matches tierd's systems: swap off
        (journaled), the default tier held to ``default_capacity`` (:meth:`filler`; ``auto``: the
        kernel may use the whole node), and the kernel's page moves counted from /proc/vmstat, the
        point failing when it should have moved pages and moved none: starting on the alternate tier
        it must promote; starting on a default tier held below the working set it must demote.
        ``mech`` a :class:`systems.Driven`: its driver's ``real_point`` says what the point runs
        under (its own resource for the point, its rows, what it must have moved: e.g.
        systems/damon/kernel.py). A mechanism that takes the host profile's ``tier_setup``
        (:meth:`tier_setup`): the scenario's ``tier_setup`` resource, run before everything else.
        Returns (scenario keywords, a note for the point's meta)."""
        d, a = self.nodes
        if isinstance(mech, systems.Driven):
            return import_module(mech.driver).real_point(
                self.nodes, self.host.facts.get("kernel", ""), mech.colloid, start == a,
                feed_csv=tierd.OUTPUT if mech.colloid else None, default_capacity=default_capacity,
                facts=self.host.facts)
        fill = default_capacity != "auto"
        expect = "promote" if start == a else ("demote" if fill and working_set_mib > mib(default_capacity) else "")
        note = (f"; default tier held to {default_capacity} by a filler on node {d}" if fill else
                "; default_capacity: auto, so no filler: the kernel may use all of the default node")
        kw: dict = {"swap_off": True, "vmstat": {"expect": expect}}
        ts = self.tier_setup(mech)
        if ts:
            kw["tier_setup"] = {**ts, "nodes": [d, a]}
            note += f"; runs after the profile's tier setup ({ts['setup']}), undone after the point ({ts['undo']})"
        return kw, note

    def filler(self, default_capacity: str, late_mib: float = 0, mech: systems.Kernel | None = None) -> list[dict]:
        """The background role that holds the default node's free memory but ``default_capacity``
        (and ``late_mib`` that a background role started later will take), started after the
        antagonists have their buffers; none for ``auto``, and none for a mechanism that would move
        the filler's pages as well (``mech`` a :class:`systems.Driven` with ``filler=False``); a
        driver with a ``filler_cgroup`` hook says the cgroup the filler runs in, which its mechanism
        leaves alone (e.g. DAMON's schemes with DAMOS memcg filters: systems/damon/), or why
        there can be none on this host."""
        cgroup = None
        if isinstance(mech, systems.Driven):
            hook = getattr(import_module(mech.driver), "filler_cgroup", None) if mech.filler else None
            cgroup, why = hook(self.host.facts) if hook else (None, None)
            if not mech.filler or why:
                return []
        if default_capacity == "auto":
            return []
        leave = f"{round(mib(default_capacity) + late_mib)}M"
        role = antagonist.filler_role(antagonist.filler_argv(node=self.nodes[0], leave=leave))
        if cgroup:
            role["cgroup"] = cgroup  # started inside it: its pages are charged there
        return [role]

    def point(self, experiment: str, point_id: str, context: dict, sc: dict, *, note: str, parse: dict | None = None,
              event: float | None = None, inputs: list[str] | None = None) -> dict:
        ctx = {"host": self.host.name, "backend": "numa", **context}
        run = measured(self.config, self.host, sc, note=note, parse=parse, event_t_s=event)
        return point(self.family, experiment, point_id, executor=self.host.executor, context=ctx, run=run,
                     columns=self.columns, inputs=inputs)


def single_node(host: Host) -> int | None:
    """The one NUMA node of a single-node host measured where snakemake runs (None elsewhere):
    where ``contention_single_node`` runs."""
    prof = host.profile
    numa = [t for t in prof["tiers"] if t["kind"] == "numa"]
    return numa[0]["node"] if prof["backend"] == "numa" and len(numa) == 1 and not host.runner else None


def contention_node(host: Host) -> int | None:
    """The node ``contention_single_node`` runs on, measured where snakemake runs (None in a guest
    or on modelled tiers): a single-node host's one node, or the default tier's node of a host with
    more (there its points are what the model of that host is calibrated on: docs/fidelity.md)."""
    prof = host.profile
    first = prof["tiers"][0] if prof["tiers"] else {}
    return first["node"] if prof["backend"] == "numa" and first.get("kind") == "numa" and not host.runner else None


def contention(family: str, config: dict, host: Host, cc: dict, columns: dict, workloads: list[tuple[str, dict, dict]],
               *, timeout_s: float, prefix: bool = True, probes: Callable[[list[int], int], list[dict]] | None = None,
               parse: dict | None = None, inputs: dict | None = None) -> list[dict]:
    """``contention_single_node``: each workload (name, scenario role bound to the node, its
    parameter columns) alone and beside the antagonist on one node (:func:`contention_node`: a
    single-node host's, a two-tier host's default node), at the intensities of ``cc`` (a family's ``contention`` block:
    intensities, antagonist_buffer, write_fraction, access_size, warmup_s; a level below 3x on a
    host with fewer than 3 antagonist CPUs is a duty-cycled antagonist: ``intensity_levels``).
    Point ids ``{workload}-i{k}-t{threads}``, or ``i{k}-t{threads}`` without ``prefix``."""
    prof = host.profile
    node = contention_node(host)
    ant = prof["cpus"]["antagonist"]
    rows = []
    for name, role, params in workloads:
        for k, threads, duty in intensity_levels(prof, cc["intensities"],
                                                 f"experiment config: {family}/contention/intensities"):
            check_antagonist_room(host, node, cc["antagonist_buffer"], threads, f"{family}/contention/antagonist_buffer")
            bg = [antagonist.role(antagonist.argv(cpus=ant[:threads], node=node, buffer=cc["antagonist_buffer"],
                                                  write_fraction=cc["write_fraction"], access_size=cc["access_size"],
                                                  duty=duty))] \
                if threads else []
            sc = scenario(role, background=bg, probes=probes(prof["cpus"]["app"], node) if probes else (),
                          warmup_s=cc["warmup_s"], timeout_s=timeout_s)
            ctx = {"host": host.name, "backend": "numa", "workload": name, "system": "none", "intensity": k,
                   "threads": threads, "mem_node": node, "target": f"node:{node}", **params}
            rows.append(point(family, "contention_single_node", f"{name + '-' if prefix else ''}i{k:.3g}-t{threads}",
                              executor=host.executor, context=ctx, columns=columns,
                              run=measured(config, host, sc, parse=parse), inputs=(inputs or {}).get(name)))
    return rows
