"""The registry of tiering systems: one module per system in this package, nothing else lists them.

A system module (``systems/<name>.py``) defines ``SYSTEM = System(...)``: its name (what configs,
rows and point ids say), display label, colour and marker, whether it is one of the baselines the
published numbers compare against, the libcolloid policy that models it (tiersim ``--system``) and
that tierd runs, and how it runs on real tiers (:class:`Tierd`, :class:`Kernel`, :class:`Driven` or :class:`Command`,
each with and without Colloid). What the model needs to know of the system's monitor (sampling
periods, scan rates, quantum) is its policy's own, stated by libcolloid's
``colloid_policy_info()``: the registry does not repeat it. Schema enums (``families/*/schema.yaml`` through :func:`fill_schema`),
figure styles (``analysis/style.py``), the scorecard, tierd's workload module and the sweep
(``systems/sweep.py``) read this registry. ``REFERENCES`` are series the figures draw beside the
systems (a static placement, the best of them) but a config does not choose.

Adding a system: ``systems/<name>.py`` (copy ``systems/memtis.py``) and its name in :data:`ORDER`;
its policy ``colloid/src/policy_<policy>.c`` (docs/extending.md, "adding a tiering system").

Importing this module is cheap (no pandas, no matplotlib) and names no family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module

# The registered systems, in figure and report order (one line per system).
ORDER = ["hemem", "tpp", "memtis", "damon"]


@dataclass(frozen=True)
class Tierd:
    """tierd (colloid/tierd/) attached to the workload, running ``policy`` (the system's own when None)."""

    policy: str | None = None
    note: str = "tierd"
    settings: dict = field(default_factory=lambda: {"numa_balancing": "0"})  # tierd moves pages, the kernel must not


@dataclass(frozen=True)
class Kernel:
    """A kernel mechanism: settings (workflows/harness/settings.py KNOWN names) set before the point
    and restored after it; each must exist on the host (``needs``: the kernel that has them).

    ``preflight(facts, default_node, alternate_node)``: why the mechanism cannot move pages between
    the host's two tiers (one line), or None; a system it refuses is left out of the host with that
    line, before any job. ``unbound``: the mechanism scans the workload's own memory, which must
    then not be bound to a node (GUPS drops its policy after the first touch; an application bound
    with numactl cannot). A kernel mechanism's points run under the same conditions as tierd's
    systems: swap off, the default tier held to the same capacity (a filler), and the kernel's page
    moves counted from /proc/vmstat (systems/sweep.py, ``Real.kernel``).

    ``tier_setup``: what the preflight refuses is the kernel's placement of the nodes in memory
    tiers, which a host profile's ``tier_setup`` (a command of the user's) may change: with one in
    the profile the mechanism is planned anyway (where the kernel has memory tiers at all), and
    each of its points runs that setup first and checks the tiers it made
    (workflows/harness/scenario.py)."""

    settings: dict
    note: str
    needs: str = ""
    preflight: Callable[[dict, int, int], str | None] | None = None
    unbound: bool = False
    tier_setup: bool = False


@dataclass(frozen=True)
class Driven(Kernel):
    """A kernel mechanism that a driver module of the system's own sets up for each point and
    removes after it, journaled (the scenario's ``mechanism`` resource; docs/extending.md, "A
    kernel mechanism"; e.g. systems/damon/). Its points run under the kernel-mechanism conditions
    (swap off, /proc/vmstat moves). ``driver``: that module, whose
    ``real_point(nodes, release, colloid, start_alternate, feed_csv, default_capacity)`` returns
    the point's scenario keywords and a note for its meta (systems/sweep.py ``Real.kernel_scenario``).
    ``filler``: False for a mechanism that would move a filler's pages too, so that the default
    tier is not held to a capacity; a driver whose mechanism can leave a filler alone where it runs
    in a cgroup of its own says which with ``filler_cgroup(facts) -> (cgroup, why)`` (the cgroup
    the filler runs in, or why there can be no filler on this host; systems/sweep.py ``filler``).
    The programs attached to the workload (tierd) run in the cgroup the driver makes for the
    point too (its ``real_point`` keyword ``cgroup``), so the mechanism leaves their memory
    alone as well (families/tiering/real.py). ``colloid``: Colloid's signal reaches the mechanism through the
    driver's feeder from tierd's per-tier latencies (tierd ``--dry-run`` running ``meter``, the
    system's own policy when None, moves nothing)."""

    driver: str = ""
    filler: bool = True
    colloid: bool = False
    meter: str | None = None


@dataclass(frozen=True)
class Command:
    """A program of the user's, named in the host profile's ``tools:`` under ``tool``, attached to the
    workload like tierd (``--pid PID`` appended); ``args`` before it."""

    tool: str
    args: tuple = ()
    note: str = ""


Mechanism = Tierd | Kernel | Driven | Command


@dataclass(frozen=True)
class System:
    """One tiering system (see the module docstring)."""

    name: str
    label: str
    color: str
    marker: str
    policy: str  # libcolloid's policy name: tiersim --system and tierd --policy
    linestyle: str = "-"
    baseline: bool = False  # a baseline of the published numbers (the scorecard's "baselines")
    colloid: bool = True  # runs with and without Colloid (False: only without)
    real: Mechanism | None = field(default_factory=Tierd)  # on real tiers without Colloid; None: model only
    real_colloid: Mechanism | None = None  # on real tiers with Colloid: defaults to tierd with the policy
    doc: str = ""

    def mechanism(self, colloid: bool) -> Mechanism | None:
        """How this system runs on real tiers with or without Colloid (None: it does not)."""
        if colloid:
            return self.real_colloid or (Tierd() if self.real is not None else None)
        return self.real


def _load() -> dict[str, System]:
    out = {}
    for name in ORDER:
        s = import_module(f"systems.{name}").SYSTEM
        if s.name != name:
            raise TypeError(f"systems/{name}.py: SYSTEM.name is {s.name!r}, not {name!r}")
        out[name] = s
    return out


SYSTEMS: dict[str, System] = _load()

# Series the figures draw beside the systems; no config chooses them.
REFERENCES: dict[str, System] = {
    "static": System("static", "static", "#555555", "D", policy="static", linestyle="--", colloid=False, real=None,
                     doc="a fixed placement (tiersim --system static --static-hot-fraction F)"),
    "best-static": System("best-static", "best static", "#222222", "D", policy="static", linestyle="--", colloid=False,
                          real=None, doc="the best static placement at each intensity"),
}


def names() -> list[str]:
    """Every registered system, in figure order."""
    return list(SYSTEMS)


def baselines() -> list[str]:
    return [n for n, s in SYSTEMS.items() if s.baseline]


def get(name: str) -> System:
    """A system or reference series by name; KeyError naming the known ones."""
    s = SYSTEMS.get(name) or REFERENCES.get(name)
    if s is None:
        raise KeyError(f"unknown tiering system {name!r} (known: {', '.join(list(SYSTEMS) + list(REFERENCES))})")
    return s


def all_styled() -> dict[str, System]:
    """Systems then reference series, in figure order (analysis/style.py)."""
    return {**SYSTEMS, **REFERENCES}


def fill_schema(node):
    """A family's schema block with the registry's names put in: ``"$systems"`` becomes the list of
    every registered system, ``"$baselines"`` the baselines (e.g. ``items: {enum: $systems}``,
    ``default: $baselines``, ``propertyNames: {enum: $systems}``)."""
    if isinstance(node, dict):
        return {k: fill_schema(v) for k, v in node.items()}
    if isinstance(node, list):
        return [fill_schema(v) for v in node]
    if node == "$systems":
        return names()
    if node == "$baselines":
        return baselines()
    return node
