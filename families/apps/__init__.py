"""The apps family: real applications from pinned upstream sources, as the Colloid paper runs them
(GAPBS PageRank, Silo YCSB-C, CacheLib's CacheBench with the HeMemKV workload). On a single-node
host each runs at small scale alone and beside the memory antagonist on the one node there is
(``contention_single_node``, measured): its metric (PageRank's mean trial time, Silo's throughput,
CacheBench's get rate), footprint (peak RSS) and run time. On
modelled tiers (model.py) each application's access model runs under HeMem, TPP, MEMTIS and DAMON with
and without Colloid (``steady_state``, simulated), for the paper's Figure 8 and scorecard rows. Points: ``apps/contention_single_node/{app}-i{k}-t{threads}``.
"""

from __future__ import annotations

from pathlib import Path

from analysis.registry import figures_of
from systems import sweep
from workflows.harness import ConfigError, bootstrap, cpulist
from workflows.harness.plan import FamilyPlan, Host, node_mib, replicate
from workloads.cachebench import workload as cachebench
from workloads.gapbs import workload as gapbs
from workloads.silo import workload as silo
from workloads.tiersim import workload as tiersim

from . import model, real

REPO = Path(__file__).resolve().parents[2]
NAME = "apps"
SCORED = True
COLUMNS = {"threads": "number", "mem_node": "number", "trial": "number", "graph": "text", "footprint_mib": "number",
           "app_threads": "number", "scale_factor": "number", "zipf_theta": "number", "object_bytes": "number",
           "keys": "number", "beyond_curve": "text"}
DEFAULT_APPS = ["gapbs-pr", "silo"]  # "auto": these, and cachelib where the host profile names a cachebench


def apps_of(config: dict, host: Host) -> list[str]:
    """The applications this host runs: the config's list, or for "auto" GAPBS and Silo, and
    CacheLib where the host profile names a cachebench binary (building CacheLib's chain takes an
    hour or more on a small machine: list cachelib to have the workflow build it)."""
    apps = config[NAME]["apps"]
    if apps != "auto":
        return list(apps)
    return DEFAULT_APPS + (["cachelib"] if host.profile["tools"].get("cachebench") and not host.runner else [])


def cachebench_binary(host: Host) -> str:
    """The host profile's cachebench, or the one the workflow builds (checking first that it can)."""
    given = host.profile["tools"].get("cachebench")
    if given:
        return given
    if host.runner:
        raise ConfigError(f"experiment config: apps/apps: cachelib does not run in the guest host {host.name} "
                          "(its static build has no CacheLib)")
    missing = missing_packages(cachebench.debian_packages(REPO))
    if missing:
        raise ConfigError(f"experiment config: apps/apps: cachelib is built here from its pinned sources, which needs "
                          f"Debian packages {' '.join(missing)} (make setup-cachebench), or name your cachebench "
                          f"binary in the host profile ({host.profile['source']}: tools/cachebench)")
    return cachebench.BUILT


def missing_packages(packages: list[str]) -> list[str]:
    return bootstrap.missing_debian(packages)  # not Debian: none; the build script names what it lacks


def gapbs_footprint_mib(graph: str) -> float:
    """What PageRank's resident set will be, roughly: the graph (CSR out and in edges, 4 B each,
    offsets 8 B per vertex) and three 4-8 B arrays per vertex; measured peak RSS is reported too."""
    if graph.startswith("kron:"):
        n = 2 ** int(graph[5:])
        return (n * gapbs.DEGREE * 2 * 4 + n * 8 * 2 + n * 24) / 2**20
    return 1.3 * Path(graph).stat().st_size / 2**20


def check_graph(graph: str) -> None:
    if graph.startswith("kron:"):
        scale = graph[5:]
        if not scale.isdigit() or not 8 <= int(scale) <= 31:
            raise ConfigError(f"experiment config: apps/gapbs-pr/graph: {graph!r}: kron:SCALE takes a scale of 8..31")
        return
    p = Path(graph)
    if p.suffix not in (".sg", ".el"):
        raise ConfigError(f"experiment config: apps/gapbs-pr/graph: {graph!r} is neither kron:SCALE nor a .sg/.el file")
    if not p.is_file():
        raise ConfigError(f"experiment config: apps/gapbs-pr/graph: {graph!r} does not exist")


def app_threads(app: str, cfg: dict, app_cpus: list[int]) -> int:
    threads = len(app_cpus) if cfg["threads"] == "auto" else cfg["threads"]
    if threads > len(app_cpus):
        raise ConfigError(f"experiment config: apps/{app}/threads: {threads} workers but the host profile "
                          f"grants {len(app_cpus)} application CPU(s)")
    return threads


def app_role(app: str, cfg: dict, app_cpus: list[int], host: Host) -> tuple[dict, list[str], dict]:
    """The application's scenario role, the files it needs, its parameter columns."""
    if app == "cachelib":
        threads = app_threads(app, cfg, app_cpus)
        keys = cachebench.keys_of(cfg["size_mib"])
        shape = {"keys": keys, "ops_per_thread": cfg["ops_per_thread"], "threads": threads}
        conf = cachebench.config_file(**shape)
        role = cachebench.role(cachebench.argv(cachebench_binary(host), conf))
        return {**role, "usage": True}, [conf], {"app_threads": threads, "keys": keys, "object_bytes": cachebench.VALUE_BYTES,
                                                 "footprint_mib": round(cachebench.footprint_mib(**shape), 1)}
    if app == "silo":
        threads = app_threads(app, cfg, app_cpus)
        role = silo.role(silo.argv(threads=threads, scale_factor=cfg["scale_factor"], runtime_s=cfg["runtime_s"],
                                   zipf_theta=cfg["zipf_theta"]))
        return {**role, "usage": True}, [], {"app_threads": threads, "scale_factor": cfg["scale_factor"],
                                             "zipf_theta": cfg["zipf_theta"],
                                             "footprint_mib": round(silo.footprint_mib(cfg["scale_factor"]), 1)}
    if app == "gapbs-pr":
        check_graph(cfg["graph"])
        graph = cfg["graph"]
        inputs = [gapbs.graph_file(graph)] if graph.startswith("kron:") else []
        role = gapbs.role(gapbs.argv(graph=graph, trials=cfg["trials"]))
        return {**role, "usage": True}, inputs, {"graph": graph, "footprint_mib": round(gapbs_footprint_mib(graph), 1)}
    raise ConfigError(f"experiment config: apps/apps: unknown application {app!r}")


def contention_points(config: dict, host: Host) -> tuple[list[dict], dict]:
    """Measured: each application alone and beside the antagonist on a one-node host
    (:func:`systems.sweep.contention`)."""
    ac, prof = config[NAME], host.profile
    node = sweep.single_node(host)
    if not ac["contention"]["enabled"] or node is None:
        return [], {}
    have = node_mib(host.facts, node)
    app_cpus = prof["cpus"]["app"]
    workloads, inputs = [], {}
    for app in apps_of(config, host):
        role, inputs[app], params = app_role(app, ac[app], app_cpus, host)
        if params["footprint_mib"] > 0.8 * have:
            raise ConfigError(f"experiment config: apps/{app}: about {params['footprint_mib']:.0f} MiB does not fit node "
                              f"{node} ({have} MiB); use a smaller input")
        role["wrap"] = ["numactl", f"--physcpubind={cpulist.format(app_cpus)}", f"--membind={node}"]
        workloads.append((app, role, params))
    cc = ac["contention"]
    return sweep.contention(NAME, config, host, cc, COLUMNS, workloads, timeout_s=cc["timeout_s"], inputs=inputs), {}


def plan(config: dict, host: Host) -> FamilyPlan:
    ac = config[NAME]
    if not ac["enabled"]:
        return FamilyPlan()
    fp = FamilyPlan()
    contention, fp.absent = contention_points(config, host)
    measured_tiers = real.points(config, host, apps_of(config, host), app_role, COLUMNS)
    if measured_tiers:  # a system whose kernel mechanism cannot run the applications here: said before any job
        out = real.absent(config, host, COLUMNS)
        fp.absent.update(out)
        fp.notes += [f"left out: {what}: {why}" for what, why in out.items()]
    rows = contention + measured_tiers
    mc = ac["model"]
    if mc["enabled"] and not measured_tiers and not host.runner:  # no two real tiers here: the model's
        sweep.check_window(mc["average_last_s"], mc["duration_s"], "experiment config: apps/model", "duration_s")
        mprof = sweep.model_profile_for(mc["model_profile"], host, "apps/model/model_profile")
        if why := sweep.one_tier(mprof):
            fp.absent[f"{NAME}: model"] = why
        else:
            modelled, mprof = model.points(config, host, COLUMNS)
            rows += modelled
            fp.info = sweep.plan_info(mprof)
    elif measured_tiers:
        fp.info = sweep.plan_info(host.profile)
    fp.rows = replicate(rows, config["reps"], reseed=lambda r, k: tiersim.reseed(r, k) if r["executor"] == "model" else None)
    fp.figures = [f for f in figures_of(NAME) if (f == "app_contention" and contention) or
                  (f == "app_speedup" and len(rows) > len(contention))]
    return fp
