# Shared set-up: validate the experiment config and the host profile once, before any job, and
# plan every registered family's points (families/, workflows/harness/plan.py). Problems stop the
# run here with one message ("tierbench: error: ...") and nothing written under results/.
import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)

from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config

import families
from analysis import registry as figure_registry
from workflows.harness import ConfigError, hostdetect, identity, plan as planning, profile as host_profile, runner as guest_runner, schedpasses, tools
from workloads import upstream


def fail(msg):
    print(f"tierbench: error: {msg}", file=sys.stderr)
    sys.exit(1)


from collections import Counter, namedtuple

# One planned host of the run: its profile argument, resolved profile, facts, runner (guest hosts)
# and the plan of every family on it.
HostRun = namedtuple("HostRun", "arg profile facts runner plan figures active scored slurm_extra")
# Jobs of a cluster run (--mode remote) and of group jobs (--mode subprocess) parse this file again
# on their node: they take the host identity the main process decided (workflows/harness/identity.py)
# instead of detecting the machine they landed on.
JOB_PROCESS = workflow.remote_exec or workflow.subprocess_exec

try:
    if config.get("host", "auto") in (None, ""):
        raise ConfigError("--config host= needs a host profile name or a path to one (e.g. host=auto)")
    HOST_ARGS = host_profile.host_args(config)
    # A guest host (profile with `runner`, e.g. qemu-numa) is validated against the facts the
    # guest reports (booted once, cached in build/), and without --configfile uses its own
    # guest-sized experiment config; --config key=value still wins. (A single host only: a fleet
    # shares one config.)
    RUNNERS = {a: host_profile.runner_of(a) for a in HOST_ARGS}
    guest_cfg = (RUNNERS[HOST_ARGS[0]] or {}).get("config") if len(HOST_ARGS) == 1 else None
    if guest_cfg and not workflow.config_settings.configfiles:
        guest_config = host_profile.load_yaml(Path(guest_cfg), "experiment config")
        update_config(guest_config, dict(workflow.config_settings.config))
        config.clear()
        config.update(guest_config)
    config.update(host_profile.validate_config(config))
    # fleet hosts on SLURM nodes (host profile cluster/slurm_extra): facts from srun on the node
    NODE_EXTRA = {a: e for a in HOST_ARGS if (e := host_profile.cluster_of(a))}
    if JOB_PROCESS:
        ARG_FACTS = identity.read(HOST_ARGS)
    else:
        detected = hostdetect.detect()
        ARG_FACTS = {a: identity.node_facts(a, NODE_EXTRA[a]) if a in NODE_EXTRA
                     else guest_runner.guest_facts(RUNNERS[a], detected) if RUNNERS[a] else detected for a in HOST_ARGS}
    HOSTS = {}
    for arg in HOST_ARGS:
        prof = host_profile.resolve(arg, ARG_FACTS[arg])
        if prof["name"] in HOSTS:
            raise ConfigError(f"hosts: {HOSTS[prof['name']].arg!r} and {arg!r} are both named {prof['name']!r} "
                              "(results/<name>/ would be shared)")
        pl = planning.build(config, planning.Host(prof, ARG_FACTS[arg], RUNNERS[arg], job=JOB_PROCESS))
        figs = {name: fam for fam, fp in pl.families.items() for name in fp.figures}
        active = [f for f in families.FAMILIES if pl.families[f].rows]
        HOSTS[prof["name"]] = HostRun(arg, prof, ARG_FACTS[arg], RUNNERS[arg], pl, figs, active,
                                      [f for f in active if families.get(f).SCORED], NODE_EXTRA.get(arg))
    nothing = planning.nothing_planned(config, {n: h.plan for n, h in HOSTS.items()})
    if nothing:
        raise ConfigError(nothing)
    FIGURE_INFO = figure_registry.discover()
    FLEET_FIGURES = figure_registry.fleet_figures()  # the figures the families' fleet sections declare
    BUILD = tools.recipes()
    PINS = upstream.pins()
except ConfigError as e:
    fail(e)

FLEET = host_profile.fleet_name(list(HOSTS)) if len(HOSTS) > 1 else None
FAMILY_RULES = [os.path.relpath(p, workflow.basedir) for p in families.rules_files()]
# Jobs run the same Python as snakemake itself (the project's environment), unless software is
# deployed per rule (--sdm conda or apptainer; each rule's `conda` environment, or a container,
# provides it on whatever node the job lands on). The scale's name goes into every meta.json, and
# the sources directory is where pinned archives are looked for: neither is a rerun trigger (an
# archive is the same bytes wherever it comes from: its SHA-256 is pinned).
SDM = {str(m).lower() for m in workflow.deployment_settings.deployment_method}
shell.prefix("set -euo pipefail; "
             + ("" if SDM & {"conda", "apptainer"} else f"export PATH={os.path.dirname(sys.executable)}:$PATH; ")
             + f"export TIERBENCH_SCALE={shlex.quote(str(config['scale']))}; "
             + (f"export {upstream.ENV}={shlex.quote(os.path.abspath(config['sources']))}; " if config.get("sources") else ""))

onstart:
    # (here, not while parsing: only now are the executor known and the working directory locked)
    if NODE_EXTRA and workflow.local_exec:
        fail(f"host profile {next(iter(NODE_EXTRA))} is measured on its SLURM node (cluster/slurm_extra): "
             "run with --profile profiles/slurm (or -n for a dry run)")
    identity.write(ARG_FACTS)
    n_model = sum(1 for h in HOSTS.values() for r in h.plan.points.values() if r["executor"] == "model")
    if not workflow.local_exec and MODEL_BATCH == 1 and n_model > 50:
        print(f"tierbench: {n_model} modelled points go to the cluster in jobs (or group jobs) of one point each; "
              "--config model_batch=40 runs them 40 to a job (workflows/config/model.yaml sets it; docs/cluster.md)",
              file=sys.stderr)
    # what loading the model tiers' curves dropped (noise, the backward bend of saturated curves)
    notes = [n for h in HOSTS.values() for n in h.profile.get("curve_notes", [])
             + [n for fp in h.plan.families.values() if fp.info for n in fp.info.curve_notes]]
    for note in dict.fromkeys(notes):
        print(f"tierbench: curve {note}", file=sys.stderr)
    # what a family leaves out of a host that the user would expect to run (e.g. a kernel mechanism
    # that cannot work there): one line each, before any job
    for name, h in HOSTS.items():
        for fp in h.plan.families.values():
            for note in fp.notes:
                print(f"tierbench: {name}: {note}", file=sys.stderr)


if "measure" not in workflow.global_resources:
    # Measurement points on a real host never run concurrently.
    workflow.register_resource("measure", 1)


# -- jobs that measure nothing yield the CPU to those that do ------------------------------------
# A measured point pins its application, antagonist and probe to the host's cores, and Snakemake
# fills the cores with jobs that measure nothing (builds, modelled points, the model's predictions,
# tables, figures): on this 2-core VM a contention point's GUPS got 83 % of its core and the
# antagonist at full duty 83 % of its own while they ran. So where this run measures points here,
# every such job starts with `sh workflows/harness/yield_cpu.sh $$`, which puts the job's shell (and
# so all it starts) under SCHED_IDLE; the measured points' own processes stay in Snakemake's session
# (workflows/harness/procs.py: a process group each, not a session, which would be an autogroup of
# its own that the scheduler shares its CPU with fairly). The switch is an environment variable the
# jobs inherit, not a param: whether a run measures must not change a job's params and rerun it.
YIELDS_CPU = any(r["executor"] == "host" for h in HOSTS.values() for r in h.plan.points.values())
if YIELDS_CPU:
    os.environ.update(TIERBENCH_YIELD_CPU="1")  # set for the jobs, not read from the user (no envvars:)
    if not JOB_PROCESS:
        print("tierbench: jobs that measure nothing run under SCHED_IDLE beside the measured points "
              "(docs/workflow.md, Measurement discipline)", file=sys.stderr)
else:
    os.environ.pop("TIERBENCH_YIELD_CPU", None)

# Some point is measured alone here (config measure_alone): host_facts then takes every core (host.smk)
ALONE_FIRST = any(planning.measures_alone(config["measure_alone"], r) for h in HOSTS.values() for r in h.plan.points.values())

# Snakemake's scheduler itself took a measured point's CPU: each job event added a once-a-second
# chain of scheduling passes that never ended (4 min of CPU in a quick run). One pending
# re-evaluation at a time does what the chains did (workflows/harness/schedpasses.py).
if not schedpasses.coalesce():
    print("tierbench: note: Snakemake's scheduler is not the one workflows/harness/schedpasses.py "
          "knows; its re-evaluation passes are left as they are", file=sys.stderr)


wildcard_constraints:
    host="|".join(re.escape(h) for h in HOSTS),
    family="|".join(families.FAMILIES),
    rep=r"\d+",


def route(hosts, executors):
    """The {host} wildcard of a point rule: one of ``hosts`` followed by the key of one of its
    points whose row names one of ``executors`` ("(?!)" matches nothing). Each point's job is
    routed by the executor its row names, never by its family or experiment."""
    return "|".join(f"{re.escape(h)}(?=/{planning.keys_regex(k for k, r in HOSTS[h].plan.points.items() if r['executor'] in executors)}/[^/]+$)"
                    for h in hosts) or "(?!)"


# Modelled points (executor model, tiersim) may run anywhere: rule model_point, or batches of
# model_batch points (rule model_batch). Measured points (executor host or guest) run where they
# are planned: where snakemake runs (rule point, a local rule), or for a fleet host measured on
# its SLURM node, on that node (rule node_point).
MODEL_POINTS_RE = route(HOSTS, ("model",))
LOCAL_POINTS_RE = route([h for h, r in HOSTS.items() if not r.slurm_extra], ("host", "guest"))
NODE_POINTS_RE = route([h for h, r in HOSTS.items() if r.slurm_extra], ("host", "guest"))

# Modelled points per job (config model_batch): 1, a job per point (rule model_point runs it);
# N > 1, rule model_batch runs N in one job (workflows/harness/modelbatch.py) and each
# model_collect job copies its point from the batch. Batches are consecutive runs of the
# sorted point keys of each host, so a changed sweep regroups (and reruns) the batches after the change.
MODEL_BATCH = config["model_batch"]
MODEL_CHUNKS = {h: {k: i // MODEL_BATCH for i, k in enumerate(sorted(k for k, r in HOSTS[h].plan.points.items()
                                                                     if r["executor"] == "model"))}
                for h in HOSTS} if MODEL_BATCH > 1 else {}


def model_batch_threads() -> int:
    """Threads of one model_batch job: up to 8 and --cores, but one core fewer where this run also
    measures points here, so that a measured point (one core, the measure resource) never waits for
    a batch to end on a small host (2 cores: one batch thread beside the measured points, as a job
    per point would run); a run of modelled points only uses every core. 8 where --cores is not
    given (a dry run)."""
    try:
        cores = int(workflow.cores)
    except WorkflowError:
        return 8
    measured = any(r["executor"] != "model" for h in HOSTS.values() for r in h.plan.points.values())
    return max(1, min(8, cores - 1 if measured else cores))


def point_key(wc):
    """The plan's key of the point a job's wildcards name."""
    return f"{wc.family}/{wc.experiment}/{wc.point}/rep{wc.rep}"


def row_of(wc):
    """The row of the point a job's wildcards name (workflows/harness/plan.py)."""
    return HOSTS[wc.host].plan.points[point_key(wc)]


def all_cores():
    """Every core this run gives its jobs (--cores; without it, e.g. a cluster run's main process,
    this machine's CPUs, which Snakemake caps at the cores it runs local jobs on)."""
    try:
        return max(1, workflow.cores)
    except WorkflowError:
        return os.cpu_count() or 1


def point_threads(wc):
    """A point's cores: every core for a point measured alone (config measure_alone: Snakemake
    starts no other job beside it), else one."""
    return all_cores() if planning.measures_alone(config["measure_alone"], row_of(wc)) else 1


def model_batch_rows(host, chunk):
    return {k: HOSTS[host].plan.points[k] for k, c in MODEL_CHUNKS[host].items() if c == int(chunk)}


def model_batch_inputs(wc):
    rows = model_batch_rows(wc.host, wc.chunk).values()
    return sorted({f"build/bin/{t}" for r in rows for t in r["tools"] if t in BUILD} | {f for r in rows for f in r["inputs"]})


def model_batch_of(wc):
    return f"results/{wc.host}/model/batch{MODEL_CHUNKS[wc.host][f'{wc.family}/{wc.experiment}/{wc.point}/rep{wc.rep}']}"


def point_inputs(wc):
    r = row_of(wc)
    if r["executor"] == "guest":  # the guest runs its own static build (hosts/qemu/)
        return {"facts": f"results/{wc.host}/host_facts.json", "batch": f"results/{wc.host}/guest/batch"}
    return {"facts": f"results/{wc.host}/host_facts.json", "tools": [f"build/bin/{t}" for t in r["tools"] if t in BUILD],
            "inputs": r["inputs"]}


def write_host_facts(host, path):
    """The facts the plan used and the resolved profile. (Not a param of host_facts: a fact that
    changes later, e.g. a sysctl, must not rerun every point.)"""
    h = HOSTS[host]
    Path(path).write_text(json.dumps(dict(h.facts, profile=h.profile), indent=1, default=str) + "\n")


def guest_rows(host):
    return {k: r for k, r in HOSTS[host].plan.points.items() if r["executor"] == "guest"}


def guest_batch_inputs(wc):
    """What a guest host's batch ships that the guest's own static build lacks: programs built here
    and input files rules make (workflows/harness/guestrun.py)."""
    built_in = set((HOSTS[wc.host].facts.get("guest_build") or {}).get("binaries", []))
    rows = guest_rows(wc.host).values()
    tools = {f"build/bin/{t}" for r in rows for t in r["tools"] if t in BUILD and t not in built_in}
    return sorted(tools | {f for r in rows for f in r["inputs"]})


def point_results(host, family=None):
    return [f"results/{host}/{planning.key(r)}/result.csv" for r in HOSTS[host].plan.points.values()
            if family in (None, r["family"])]


def point_metas(host):
    return [str(Path(p).parent / "meta.json") for p in point_results(host)]


def family_info(host, family, key, default=None):
    info = HOSTS[host].plan.families[family].info
    return getattr(info, key) if info else default


def scored_info(host, key, default=None):
    """What the scored families' plans say (e.g. the model profile they ran on), first one wins."""
    h = HOSTS[host]
    return next((getattr(h.plan.families[f].info, key) for f in h.scored if h.plan.families[f].info), default)


def _labels(info):
    """--tiers / --comparable options from a plan's info: the tiers its results ran on and the
    published sources its profile matches; none where the plan says neither."""
    if info is None:
        return ""
    out = [f"--tiers {shlex.quote(info.tiers)}"] if info.tiers else []
    out.append(f"--comparable {shlex.quote(json.dumps(info.comparable_to))}")
    return " ".join(out)


def figure_labels(host, family):
    """analysis.render's labels for a family's figures (only comparable sources are drawn as targets)."""
    return _labels(HOSTS[host].plan.families[family].info)


def scorecard_labels(host):
    """analysis.score's labels: from the first scored family whose plan names its profile."""
    h = HOSTS[host]
    return _labels(next((h.plan.families[f].info for f in h.scored if h.plan.families[f].info), None))


def functional(host):
    return "--functional" if HOSTS[host].profile.get("functional") else ""


def figure_code(fam):
    """A family's figure code (its figure modules, which may share helpers, and its scoring rules,
    which figures draw beside) and the analysis code."""
    return [os.path.relpath(p, workflow.basedir) for p in families.figure_files(fam)] + SCORECARD_SOURCES.get(fam, []) \
        + ANALYSIS_SOURCES


# -- the model's error on each host ---------------------------------------------------------------
# Rule `fidelity` (workflows/rules/fidelity.smk; workflows/harness/fidelity.py, docs/fidelity.md)
# writes results/{host}/fidelity.csv: every measured point of the host beside tiersim's prediction
# on the host's own model profile; a host fidelity_not_scored() rules out gets fidelity.skipped
# (one line: why) instead. The table, the figure, the summary, the scorecard's header, the
# modelled figures' note and the fleet comparison read the csv (analysis/fidelity.py).


def fidelity_families(host):
    """The active families with a fidelity hook (families/<name>/fidelity.py)."""
    return [f for f in HOSTS[host].active if Path(f"families/{f}/fidelity.py").exists()]


# Builds and the inputs measured points read come before modelled points and figures (the
# priorities below): the quick run's measured points waited ~1 min for silo-dbtest and the PageRank
# graph, which had started behind a dozen modelled batches. Measured points come before builds
# (priorities above).
BUILD_PRIORITY = 4
# Batches of modelled points come after builds and before tables and figures (priority 0): a
# family's figures wait for all of its batches, and other families' figures taking the free core
# first left batches to run after the last measured point, then the figures after them (the quick
# run's last 20 s: three tiering batches, then the tiering figures).
MODEL_BATCH_PRIORITY = 3
# What figures read (a family's measurements.csv, the model's fidelity.csv) before figures, and the
# figures that read fidelity.csv (figures_priority) before the others: those can start only after
# the last point measured alone, at a run's end, and the tiering family's are the longest (a
# 48-panel figure). At 0 with the rest, they started last there: the quick run's last 31 s were
# every other family's measurements and figures, then the tiering family's.
ANALYSIS_INPUT_PRIORITY = 2


def figures_priority(wc):
    """1 for a family whose figures carry the model's error (family_fidelity: they wait for
    fidelity.csv), 0 for the others."""
    return 1 if family_fidelity(wc.host, wc.family) else 0

# The measured points of each host in the order they run: host -> point key -> Snakemake priority.
MEASURE_ORDER = {}
# An input made under the measure resource (it must not run beside a measured point, e.g. a graph a
# family generates) runs before the next measured point: at BUILD_PRIORITY it would wait for every
# measured point that does not read it, and so would the points that do, their family's figures
# and the model's score. Above every measured point's priority (measure_order) but those measured
# alone.
MEASURED_INPUT_PRIORITY = BUILD_PRIORITY + 1 + max(
    (sum(r["executor"] == "host" for r in h.plan.points.values()) for h in HOSTS.values()), default=0)


def measure_order(host):
    """Each measured point's priority on a host (higher runs first; filled once per host). Measured
    points run one at a time, and a family's tables and figures start only when all its points are
    done, so the points of one family run together: first the families whose points the model's
    score reads (every modelled figure waits for fidelity.csv), then those with more figures, so
    that their figures render beside the points still to run rather than all at the end (issue 27:
    the quick run's last minute was figures of every family). Within a family they run in plan
    order, each experiment's points back to back (issue 25: the GUPS contention point the model is
    calibrated on ran 75 s after the others, between other families' points, on a machine whose
    memory latency drifts by the minute; now the experiment's points run one after the other, 0x
    first). Families measured alone (config measure_alone) come before all others: such a point
    needs every core free, which Snakemake finds at the start (after host_facts, and each such
    point after the one before) and otherwise only when nothing else is left to start. Priorities
    count down from BUILD_PRIORITY + the number of measured points, so they stay above the builds'
    and below host_facts' (it runs before anything)."""
    if host not in MEASURE_ORDER:
        h = HOSTS[host]
        fid = set(fidelity_families(host))
        figures = Counter(h.figures.values())
        alone = {f for f in families.FAMILIES if planning.alone_family(config["measure_alone"], f)}
        rank = {f: (f not in alone, f not in fid, -figures[f], i) for i, f in enumerate(families.FAMILIES)}
        # a stable sort: within a family, plan order
        keys = sorted((k for k, r in h.plan.points.items() if r["executor"] == "host"),
                      key=lambda k: rank[h.plan.points[k]["family"]])
        # A point measured alone must also outbid any set of jobs that fits in the cores it needs
        # (Snakemake's scheduler maximises the sum of the started jobs' priorities): the next
        # measured point and builds on the other cores.
        lift = (BUILD_PRIORITY + len(keys)) * (all_cores() + 1)
        MEASURE_ORDER[host] = {k: BUILD_PRIORITY + len(keys) - i + (lift if h.plan.points[k]["family"] in alone else 0)
                               for i, k in enumerate(keys)}
    return MEASURE_ORDER[host]


def point_priority(wc):
    """A point's Snakemake priority: :func:`measure_order` for a measured point; 0 for modelled and
    guest points."""
    if row_of(wc)["executor"] != "host":
        return 0
    return measure_order(wc.host)[point_key(wc)]


def fidelity_not_scored(host):
    """Why the model is not scored on a host in this run ('' when it is: rule fidelity writes its
    fidelity.csv)."""
    h = HOSTS[host]
    if h.profile.get("functional") or h.runner:
        return "functional host: timings not meaningful"
    if h.profile["backend"] == "model" or not any(r["executor"] != "model" for r in h.plan.points.values()):
        return "every point on this host is modelled: nothing measured to compare the model with"
    if not any(r["executor"] != "model" for f in fidelity_families(host) for r in h.plan.rows(f)):
        return "no measured point of this run has a model prediction (no family with a fidelity hook measured)"
    return ""


def fidelity_target(host):
    """results/{host}/fidelity.csv where the host is scored, else fidelity.skipped."""
    return f"results/{host}/fidelity.{'skipped' if fidelity_not_scored(host) else 'csv'}"


def fidelity_csv(host):
    """[results/{host}/fidelity.csv] where the host has a score, else []."""
    return [] if fidelity_not_scored(host) else [f"results/{host}/fidelity.csv"]


def fidelity_args(host):
    """The analysis commands' fidelity option: --fidelity CSV, or --not-scored REASON."""
    why = fidelity_not_scored(host)
    return f"--not-scored {shlex.quote(why)}" if why else f"--fidelity results/{host}/fidelity.csv"


def place_figure(render_dir, outputs, log):
    """Rule figure: copy a figure's files from its family's rule figures output, and say so."""
    for out in outputs:
        shutil.copyfile(Path(render_dir) / Path(out).name, out)
    Path(log).write_text(f"{', '.join(outputs)}: from {render_dir} (rule figures, whose log is "
                         f"logs/figures_{Path(render_dir).stem}.log)\n")


def family_figures(host, fam):
    """The figures a family draws on a host, in plan order."""
    return [n for n, f in HOSTS[host].figures.items() if f == fam]


def family_fidelity(host, fam):
    """A family's figures' fidelity.csv input: only the figures of a family with modelled points on
    the host carry the model's error (a figure of measured rows alone never changes with it)."""
    modelled = any(r["family"] == fam and r["executor"] == "model" for r in HOSTS[host].plan.points.values())
    return fidelity_csv(host) if modelled else []


def fidelity_inputs(host):
    """(the measured point results of the fidelity families, their own further outputs)."""
    fams = fidelity_families(host)
    if fidelity_not_scored(host):
        return [], []
    h = HOSTS[host]
    points = [f"results/{host}/{planning.key(r)}/result.csv" for f in fams for r in h.plan.rows(f) if r["executor"] != "model"]
    return points, [o for f in fams for o in h.plan.families[f].outputs]


def host_targets(host):
    h = HOSTS[host]
    targets = [f"results/{host}/host_facts.json", f"results/{host}/measurements.csv"]
    targets += [f"results/{host}/{f}/points.tsv" for f in h.active]
    targets += [f"results/{host}/figures/{n}.png" for n in h.figures]
    targets += [f"results/{host}/tables/summary.md", f"results/{host}/tables/counters.md"]
    targets += [f"results/{host}/tables/fidelity.md", f"results/{host}/figures/fidelity.png"]
    targets += [o for fp in h.plan.families.values() for o in fp.outputs]
    targets.append(fidelity_target(host))
    if h.scored:
        targets += [f"results/{host}/scorecard.md", f"results/{host}/scorecard.csv"]
    # a point whose result or meta is missing (deleted by hand, to measure it again) is asked for by
    # name: Snakemake does not remake a missing file that only up-to-date outputs need ("Nothing to
    # be done": snakemake/snakemake#1978), so its family's figures, tables and the report would keep
    # the old values. Asked for, it runs, and what reads it is then older than its input and reruns.
    # A guest host's points are collected from its batch: a deleted batch boots the guest again.
    batch = [f"results/{host}/guest/batch"] if guest_rows(host) else []
    targets += [p for p in point_results(host) + point_metas(host) + batch if not os.path.exists(p)]
    return targets


def all_targets():
    targets = [t for h in HOSTS for t in host_targets(h)]
    if FLEET:
        targets.append(f"results/fleet/{FLEET}/comparison.md")
    return targets


# the Python that turns results into measurements, figures, tables and the scorecard: an edit to
# it reruns those rules (cheap) instead of leaving stale figures behind
ANALYSIS_SOURCES = sorted(str(p) for p in Path("analysis").glob("*.py")) + ["analysis/figures/__init__.py",
                                                                            "analysis/figures/common.py"]
# each family's published-number rules (families/<name>/scorecard.py), run by the scorecard
SCORECARD_SOURCES = {n: [f"families/{n}/scorecard.py"] for n in families.FAMILIES if Path(f"families/{n}/scorecard.py").exists()}
# each family's sections of tables/summary.md (families/<name>/summary.py)
SUMMARY_SOURCES = [f"families/{n}/summary.py" for n in families.FAMILIES if Path(f"families/{n}/summary.py").exists()]
# each family's sections of a fleet's comparison (families/<name>/fleet.py)
FLEET_SOURCES = [f"families/{n}/fleet.py" for n in families.FAMILIES if Path(f"families/{n}/fleet.py").exists()]
