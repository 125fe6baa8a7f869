"""Planning: every family's points, computed once from the validated config, the resolved host
profile and the machine's facts, before any job runs.

A point is a plain row (a JSON-serialisable dict) that says everything its job needs:

- ``family``, ``experiment``, ``point`` (a readable id, may contain ``/``) and ``rep``: where it
  lives, ``results/{host}/{family}/{experiment}/{point}/rep{rep}/``;
- ``executor``: ``model`` (tiersim on modelled tiers, runs in parallel), ``host`` (a scenario
  measured on this machine, one at a time) or ``guest`` (a scenario measured inside the guest
  host's batch, collected here);
- ``context``: the long-form identifying columns every row of its result.csv carries;
- ``columns``: the family's parameter columns (result.csv's header);
- ``tools``: the programs it runs (those the workflow builds are its ``build/bin/<tool>`` inputs);
- ``run``: what the executor runs (tiersim's argv, or a scenario; workflows/harness/scenario.py).

The row is the point's whole slice of the configuration: it is the only ``params`` of the
point's rule, so Snakemake reruns a point exactly when its row changes. No core or node number
is hard-coded anywhere: every CPU list comes from the profile and the facts.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from analysis.schema import cell

from . import ConfigError, cpulist

EXECUTORS = ("model", "host", "guest")


@dataclass(frozen=True)
class Host:
    """The host a run is planned for: its resolved profile, its facts, and its runner (guest
    hosts, e.g. qemu-numa) or None. ``job``: planned again inside a job process (a cluster job, a
    group job, a ``run:`` job): the main process has checked the machine's state before any job
    started, and a check of live state (a swap area in use, free disk) must not run again here,
    where the run itself has changed it."""

    profile: dict
    facts: dict
    runner: dict | None = None
    job: bool = False

    @property
    def name(self) -> str:
        return self.profile["name"]

    @property
    def source(self) -> str:
        return self.profile["source"]

    @property
    def executor(self) -> str:
        """Where this host's measured points run: here, or in the guest's batch."""
        return "guest" if self.runner else "host"

    @property
    def results(self) -> str:
        return f"results/{self.name}"

    @property
    def live(self) -> bool:
        """Whether this machine's live state (free disk, a swap area in use) is the host's: planned
        by the process that starts the run (not a job, see above) for this very machine, whose
        hostname its facts carry; not a projection (cli plan), another machine's facts (cli
        validate --facts), a guest or a fleet host's SLURM node (facts without a hostname: this one's)."""
        from .hostdetect import safe_hostname  # noqa: PLC0415

        here = safe_hostname()
        return not self.job and not self.runner and self.facts.get("hostname", here) == here


@dataclass(frozen=True)
class PlanInfo:
    """What a family's plan says about the profile its results ran on (:attr:`FamilyPlan.info`;
    :func:`workflows.harness.profile.plan_info` makes it): its name, its tiers as text, the
    published numbers it was calibrated on, the published sources its hardware matches (only those
    are scored) and what loading its curves dropped."""

    profile: str
    tiers: str
    calibrated_on: list = field(default_factory=list)
    comparable_to: list = field(default_factory=list)
    curve_notes: list = field(default_factory=list)


@dataclass
class FamilyPlan:
    """What a family's ``plan(config, host)`` returns."""

    rows: list[dict] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)  # figure names (its figures/ modules) to render
    outputs: list[str] = field(default_factory=list)  # further targets its own rules make
    absent: dict[str, str] = field(default_factory=dict)  # measurement -> why it was left out
    info: PlanInfo | None = None  # the profile its results ran on, where it says (figure titles, scorecard)
    notes: list[str] = field(default_factory=list)  # said before any job: what a user would expect to run and won't


def point(family: str, experiment: str, pid: str, *, executor: str, context: dict, run: dict,
          columns: dict | list, tools: list[str] | None = None, inputs: list[str] | None = None) -> dict:
    """One point row (rep 0; :func:`replicate` makes the others). ``tools``: the programs it runs
    (a scenario's roles' by default, but for a binary named by its path); those the workflow builds
    are its build inputs. ``inputs``:
    further files it needs (e.g. a graph a rule makes)."""
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}")
    if tools is None:  # a role running a binary the user named (an absolute path) needs no build
        tools = [r["tool"] for r in run["scenario"]["roles"] if not r["argv"][0].startswith("/")]
    ctx = {"family": family, "experiment": experiment, "point": pid, "rep": 0, **context}
    return {"family": family, "experiment": experiment, "point": pid, "rep": 0, "executor": executor,
            "context": ctx, "columns": list(columns), "tools": sorted(set(tools)), "inputs": list(inputs or []),
            "run": run}


def replicate(rows: list[dict], reps: int, reseed: Callable[[dict, int], None] | None = None) -> list[dict]:
    """Rows for repetitions 0..reps-1; ``reseed(row, rep)`` changes what a repetition must change
    (tiersim's seed: a repetition of a deterministic model run with the same seed is the same run)."""
    out = []
    for k in range(reps):
        for r in rows:
            c = copy.deepcopy(r)
            c["rep"] = c["context"]["rep"] = k
            if reseed is not None and k:
                reseed(c, k)
            out.append(c)
    return out


def alone_family(measure_alone: list[str] | None, family: str) -> bool:
    """Whether config ``measure_alone`` (family names or "all") names a family."""
    return bool(measure_alone) and ("all" in measure_alone or family in measure_alone)


def measures_alone(measure_alone: list[str] | None, row: dict) -> bool:
    """Whether a point is measured here with no other job beside it (:func:`alone_family`; a
    modelled or guest point never is)."""
    return row["executor"] == "host" and alone_family(measure_alone, row["family"])


def key(row: dict) -> str:
    return f"{row['family']}/{row['experiment']}/{row['point']}/rep{row['rep']}"


def keys_regex(keys) -> str:
    """A regular expression matching exactly ``keys`` (point keys, :func:`key`), as a trie of their
    ``/``-separated parts (a few hundred keys stay a cheap match); ``(?!)`` (matches nothing)
    where there are none. The workflow routes each point's job by its row's executor with it."""
    trie: dict = {}
    for k in keys:
        node = trie
        for part in k.split("/"):
            node = node.setdefault(part, {})
        node[None] = {}

    def alts(node: dict) -> str:
        out = []
        for part in sorted(p for p in node if p is not None):
            child = node[part]
            rest = alts(child) if len(child) > (None in child) else ""
            tail = "" if not rest else f"(?:/{rest})?" if None in child else f"/{rest}"
            out.append(re.escape(part) + tail)
        return out[0] if len(out) == 1 else f"(?:{'|'.join(out)})"

    return alts(trie) if trie else "(?!)"


def row_json(row: dict) -> str:
    """The row as its rule's params: canonical JSON, so an unchanged row is an unchanged param."""
    return json.dumps(row, sort_keys=True, separators=(",", ":"))


@dataclass
class Plan:
    families: dict[str, FamilyPlan]
    points: dict[str, dict]  # key(row) -> row

    def rows(self, family: str) -> list[dict]:
        return self.families[family].rows


def build(config: dict, host: Host) -> Plan:
    """Every registered family's plan; a problem raises ConfigError naming it."""
    import families  # noqa: PLC0415 - the registry imports family modules, which import this one

    fams = {}
    points: dict[str, dict] = {}
    for fam in families.all_families():
        fp = fam.plan(config, host)
        fams[fam.NAME] = fp
        for r in fp.rows:
            k = key(r)
            if k in points:  # e.g. `intensities: [1, 1]`: each of a list's values names its points
                raise ConfigError(f"experiment config: {fam.NAME}: point {k} is planned twice: does one of the "
                                  f"{fam.NAME} block's lists repeat a value?")
            points[k] = r
    return Plan(fams, points)


def nothing_planned(config: dict, plans: dict[str, Plan]) -> str | None:
    """Why a run plans no point on any of its hosts (``plans``: host name -> its plan), in one line,
    or None when one has a point: the families the config turns off, and each other family's first
    reason for leaving its points out."""
    if any(pl.points for pl in plans.values()):
        return None
    off = [f for f in next(iter(plans.values())).families if not (config.get(f) or {}).get("enabled", True)]
    why = [f"{f}: {next(iter(fp.absent.items()), ('', 'no point planned'))[1]}"
           for pl in plans.values() for f, fp in pl.families.items() if f not in off]
    return (f"nothing to run on {', '.join(plans)}: "
            + "; ".join(([f"off in the config ({', '.join(off)}: enabled: false)"] if off else []) + list(dict.fromkeys(why)))
            + " (`python -m workflows.harness.cli validate --host H` says what each family leaves out and why)")


# ---- helpers the families share -----------------------------------------------------------

def node_cpus(facts: dict, node: int) -> list[int]:
    allowed = set(facts.get("allowed_cpus") or [])
    cpus = facts["nodes"][str(node)]["cpus"]
    return [c for c in cpus if not allowed or c in allowed]


def node_mib(facts: dict, node: int) -> int:
    """The memory of ``node`` (MiB) in the host's facts; 0 for a node the facts do not list."""
    return (facts["nodes"].get(str(node)) or {}).get("memory_mib", 0)


def mib(size: str) -> float:
    """'72G', '512M', '4K' -> MiB."""
    return float(size[:-1]) * {"K": 1 / 1024, "M": 1, "G": 1024}[size[-1]]


def size_bytes(size: str) -> float:
    return mib(size) * (1 << 20)


def fmt(x: float) -> str:
    return f"{x:g}"


def antagonist_threads(prof: dict, k: float, what: str = "experiment config: intensities") -> int:
    """Antagonist threads for intensity k: k x cores_per_unit, or with cores_per_unit
    "auto" k/3 of the antagonist CPUs granted (3x = all of them). Too many -> ConfigError."""
    ant = prof["cpus"]["antagonist"]
    cpu = prof["cpus"]["cores_per_unit"]
    if cpu == "auto":
        return round(k * len(ant) / 3)
    n = round(k * cpu)
    if n > len(ant):
        raise ConfigError(f"{what}: intensity {k:g} needs {n} antagonist cores ({k:g} x {cpu} per unit) but host "
                          f"profile {prof['source']} grants {len(ant)} ({cpulist.format(ant) or 'none'})")
    return n


def intensity_levels(prof: dict, intensities: str | list, what: str) -> list[tuple[float, int, float]]:
    """(intensity, antagonist threads, duty) for a single-node contention sweep: ``auto`` is 0x..3x
    scaled to the antagonist CPUs the profile grants (3x = all of them; levels that round to the
    same thread count are run once), or the listed intensities (k x cores_per_unit threads). With
    fewer than 3 antagonist CPUs, ``auto``'s 1x and 2x would round onto 0x and 3x: they run on all
    of them with a duty cycle instead (the antagonist's ``--duty k/3``: streaming k/3 of every
    period, so k/3 of the 3x load on average). Duty 1 everywhere else."""
    if intensities == "auto":
        n = len(prof["cpus"]["antagonist"])
        if 0 < n < 3:
            return [(0.0, 0, 1.0)] + [(float(k), n, k / 3) for k in (1, 2, 3)]
        levels = sorted({(round(k * n / 3), k) for k in (0, 1, 2, 3)}, key=lambda x: x[1])
        seen, chosen = set(), []
        for threads, _k in levels:
            if threads not in seen:
                seen.add(threads)
                chosen.append((3 * threads / n if n else 0.0, threads, 1.0))
        return chosen
    return [(float(k), antagonist_threads(prof, k, what), 1.0) for k in intensities]


def measured(config: dict, host: Host, sc: dict, *, note: str = "", parse: dict | None = None,
             event_t_s: float | None = None) -> dict:
    """The ``run`` of a measured point (executor host or guest): its scenario, the counter
    sources run beside it, the profile's name and tools (counters need them), its monitor CPUs
    (where attached daemons and collectors run: profile ``cpus/monitor``), and what the
    parsers need (``parse``: e.g. ``average_last_s``)."""
    prof = host.profile
    return {"scenario": sc, "counters": dict(config["counters"]), "note": note, "parse": dict(parse or {}),
            "event_t_s": event_t_s, "profile": {"name": prof["name"], "source": prof["source"], "tools": prof["tools"],
                                                "monitor_cpus": list((prof.get("cpus") or {}).get("monitor") or [])}}


def command(row: dict) -> str:
    """A point's command line(s), as a user would type them: tiersim's argv, or each role of a
    scenario as ``kind name: argv``."""
    run = row["run"]
    if "argv" in run:
        return " ".join(run["argv"])
    return "; ".join(f"{r['kind']} {r['name']}: {' '.join(r['argv'])}" for r in run["scenario"]["roles"])


def table(rows: list[dict]) -> str:
    """Points as a tab-separated table: where each lives, its context columns, its command."""
    fixed = ["family", "experiment", "point", "rep", "executor"]
    ctx: list[str] = []
    for r in rows:
        ctx += [k for k in r["context"] if k not in fixed and k not in ctx]
    lines = ["\t".join(fixed + ctx + ["command"])]
    for r in rows:
        cells = [str(r[k]) for k in fixed] + [str(cell(r["context"].get(k))) for k in ctx] + [command(r)]
        lines.append("\t".join(c.replace("\t", " ") for c in cells))
    return "\n".join(lines) + "\n"

