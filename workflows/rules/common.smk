# Shared set-up: validate the experiment config and the host profile once, before
# any job, and compute the points of every family. Problems stop the run here with
# one message ("tierbench: error: ...") and nothing written under results/.
import json
import os
import sys
from glob import glob
from pathlib import Path

sys.path.insert(0, workflow.basedir)

from snakemake.utils import update_config

from workflows.harness import ConfigError, hostdetect, plans, profile as host_profile, runner as guest_runner
from workflows.harness.provenance import config_hash


def fail(msg):
    print(f"tierbench: error: {msg}", file=sys.stderr)
    sys.exit(1)


try:
    # A guest host (profile with `runner`, e.g. qemu-numa) is validated against the facts
    # the guest reports (booted once, cached in build/), and without --configfile uses its
    # own guest-sized experiment config; --config key=value still wins.
    if config.get("host", "auto") in (None, ""):
        raise ConfigError("--config host= needs a host profile name or a path to one (e.g. host=auto)")
    RUNNER = host_profile.runner_of(str(config.get("host", "auto")))
    if RUNNER and RUNNER.get("config") and not workflow.config_settings.configfiles:
        guest_config = host_profile.load_yaml(Path(RUNNER["config"]), "experiment config")
        update_config(guest_config, dict(workflow.config_settings.config))
        config.clear()
        config.update(guest_config)
    config.update(host_profile.validate_config(config))
    FACTS = hostdetect.detect()
    if RUNNER:
        FACTS = guest_runner.guest_facts(RUNNER, FACTS)
    PROFILE = host_profile.resolve(str(config["host"]), FACTS)
    PLAN = plans.build(config, PROFILE, FACTS)
except ConfigError as e:
    fail(e)

HOST = PROFILE["name"]
# Jobs run the same Python as snakemake itself (the project's environment).
shell.prefix(f"set -euo pipefail; export PATH={os.path.dirname(sys.executable)}:$PATH; ")
BACKEND = PROFILE["backend"]
CONFIG_HASH = config_hash(config)

if "measure" not in workflow.global_resources:
    # Measurement points on a real host never run concurrently.
    workflow.register_resource("measure", 1)


wildcard_constraints:
    host=HOST.replace(".", r"\."),


def spec_json(outdir, tool, argv, parser, context, timeout_s, counters=True):
    """The JSON spec handed to workflows.harness.measure (see that module)."""
    return json.dumps(
        {
            "outdir": outdir,
            "tool": tool,
            "argv": argv,
            "parser": parser,
            "context": {"host": HOST, **context},
            "facts": f"results/{HOST}/host_facts.json",
            "profile": PROFILE,
            "config": config,
            "lock": f"results/{HOST}/.measure.lock",
            "timeout_s": timeout_s,
            "counters": config["counters"]["sources"] if counters else [],
            "interval_ms": config["counters"]["interval_ms"],
        }
    )


def all_targets():
    targets = [
        f"results/{HOST}/host_facts.json",
        f"results/{HOST}/measurements.csv",
    ]
    targets += figure_targets()
    return targets


# ---- characterize family: points and specs
CH = config["characterize"]
CH_PLAN = PLAN["characterize"]
PAIRS = {p["id"]: p for p in CH_PLAN["pairs"]}


def memchar_target(p):
    args = ["--cpus", ",".join(map(str, p["cpus"]))]
    if p["mem_node"] is not None:
        args += ["--mem-node", str(p["mem_node"])]
    else:
        args += ["--dax", p["target"].split(":", 1)[1]]
    return args


def pair_context(p, experiment):
    return {
        "backend": "numa" if p["mem_node"] is not None else "dax",
        "family": "characterize",
        "experiment": experiment,
        "cpu_node": p["cpu_node"],
        "mem_node": p["mem_node"],
        "target": p["target"],
        "point": p["id"],
    }


def memchar_spec(wc, output, mode):
    p = PAIRS[wc.pair]
    op = OPS_BY_SLUG.get(getattr(wc, "op", ""), "")
    argv = [f"build/bin/memchar", mode] + memchar_target(p)
    if mode == "latency":
        argv += ["--buffer-mib", CH["latency"]["buffer_mib"], "--duration", CH["latency"]["duration_s"], "--huge", CH["latency"]["huge"]]
        exp = "idle_latency"
    elif mode == "bandwidth":
        argv += ["--op", op, "--threads", ",".join(map(str, CH_PLAN["threads"][p["id"]])), "--duration", CH["bandwidth"]["duration_s"]]
        exp = "bandwidth"
    elif mode == "loaded":
        argv += ["--op", op, "--injectors", CH_PLAN["injectors"][p["id"]], "--delays", ",".join(map(str, CH["loaded"]["delays"])), "--duration", CH["loaded"]["duration_s"]]
        exp = "loaded_latency"
    else:
        base = "write" if op == "write_persist" else op
        argv += ["--op", base, "--sizes", ",".join(map(str, CH["objsize"]["sizes"])), "--duration", CH["objsize"]["duration_s"]]
        argv += ["--persist"] if op == "write_persist" else []
        exp = "object_latency"
    return spec_json(str(Path(output[0]).parent), "memchar", [str(a) for a in argv], "memchar", pair_context(p, exp), timeout_s=900)


OPS_BY_SLUG = {v: k for k, v in plans.OP_SLUG.items()}


def characterize_results():
    out = []
    for pid, p in PAIRS.items():
        base = f"results/{HOST}/characterize"
        out.append(f"{base}/idle_latency/{pid}/result.csv")
        out += [f"{base}/bandwidth/{pid}/{plans.OP_SLUG[o]}/result.csv" for o in CH["bandwidth"]["ops"]]
        if pid in CH_PLAN["injectors"]:
            out += [f"{base}/loaded_latency/{pid}/{plans.OP_SLUG[o]}/result.csv" for o in CH["loaded"]["ops"]]
        out += [f"{base}/object_latency/{pid}/{plans.OP_SLUG[o]}/result.csv" for o in CH["objsize"]["ops"]]
        if PROFILE["tools"].get("mlc") and CH["mlc"]["enabled"]:
            out += [f"{base}/mlc/{m}/result.csv" for m in ("latency_matrix", "bandwidth_matrix", "loaded_latency")]
    return sorted(set(out))


def mlc_spec(wc, output):
    argv = [PROFILE["tools"]["mlc"], f"--{wc.mode}"]
    ctx = {"backend": "numa", "family": "characterize", "point": f"mlc-{wc.mode}"}
    return spec_json(str(Path(output[0]).parent), "mlc", argv, f"mlc:{wc.mode}", ctx, timeout_s=3600)



# ---- storage family (fio)
ST = config["storage"]
STORAGE_DIR = (PROFILE.get("storage") or {}).get("directory") or f"results/{HOST}/storage-scratch"
STORAGE_DEV = (PROFILE.get("storage") or {}).get("device")


def fio_argv(wc):
    fio = PLAN["fio"]
    engine = "libaio" if ST["ioengine"] == "auto" else ST["ioengine"]
    target = STORAGE_DEV or f"{STORAGE_DIR}/tierbench-fio.dat"
    argv = [fio, "--output-format=json", f"--filename={target}", f"--size={ST['file_size_mib']}m",
            "--rw=randread", f"--bs={wc.bs}", f"--ioengine={engine}", f"--direct={int(ST['direct'])}",
            "--time_based", f"--runtime={ST['runtime_s']}", "--ramp_time=0", "--group_reporting",
            "--randrepeat=1", "--norandommap"]
    for i, d in enumerate(ST["iodepths"]):
        argv += [f"--name=qd{d}", f"--iodepth={d}"] + (["--stonewall"] if i else [])
    return argv


def fio_spec(wc, output):
    ctx = {"backend": "storage", "family": "storage", "experiment": "fio_randread",
           "target": STORAGE_DEV or STORAGE_DIR, "point": f"bs{wc.bs}"}
    return spec_json(str(Path(output[0]).parent), "fio", fio_argv(wc), "fio", ctx,
                     timeout_s=60 + len(ST["iodepths"]) * (ST["runtime_s"] + 30))


STORAGE_ON = ST["enabled"] and PLAN.get("storage", True)


def storage_results():
    if not STORAGE_ON:
        return []
    return [f"results/{HOST}/storage/fio_randread/bs{bs}/result.csv" for bs in ST["block_sizes"]]



# ---- aggregation, figures, tables
CHARACTERIZE_FIGURES = ["latency_matrix", "bandwidth_threads", "bandwidth_latency", "object_latency"]
STORAGE_FIGURES = ["fio_iodepth"]
TIERING_FIGURES = ["steady_state", "hot_and_latency", "gain_unloaded_latency", "gain_object_size", "dynamics", "cpu_overhead"]


def point_results():
    return characterize_results() + storage_results() + tiering_results()


def figure_names():
    names = []
    if config["characterize"]["enabled"] and not RUNNER:
        names += CHARACTERIZE_FIGURES
    if STORAGE_ON:
        names += STORAGE_FIGURES
    if TIER_POINTS or REAL_TIERING:
        names += TIERING_FIGURES
    if CONTENTION:
        names.append("contention")
    return names


def figure_targets():
    out = [f"results/{HOST}/figures/{n}.png" for n in figure_names()]
    out += [f"results/{HOST}/tables/summary.md", f"results/{HOST}/tables/counters.md"]
    if CH_PLAN["injectors"]:
        out.append(f"results/{HOST}/curves")
    if TIER_POINTS or REAL_TIERING:
        out += [f"results/{HOST}/scorecard.md", f"results/{HOST}/scorecard.csv"]
    return out



# ---- build: which component directories make each binary, and the sources it needs
LIBCOLLOID = ["colloid/Makefile", "colloid/include/*.h", "colloid/src/*.[ch]"]
TOOL_DIRS = {
    "memchar": ["workloads/memchar"],
    "gups": ["workloads/gups"],
    "antagonist": ["antagonists"],
    "tiersim": ["colloid", "colloid/sim"],
    "tierd": ["colloid", "colloid/tierd"],
}
TOOL_SOURCES = {
    "memchar": ["workloads/memchar/Makefile", "workloads/memchar/src/*.[ch]"],
    "gups": ["workloads/gups/Makefile", "workloads/gups/*.[ch]", "workloads/lib/*.[ch]", "workloads/lib/*.mk"],
    "antagonist": ["antagonists/Makefile", "antagonists/*.[ch]", "workloads/lib/*.[ch]", "workloads/lib/*.mk"],
    "tiersim": LIBCOLLOID + ["colloid/sim/Makefile", "colloid/sim/src/*.[ch]"],
    "tierd": LIBCOLLOID + ["colloid/tierd/Makefile", "colloid/tierd/src/*.[ch]"],
}


def tool_sources(tool):
    return sorted({f for pattern in TOOL_SOURCES[tool] for f in glob(pattern)})


# the Python that turns results into measurements, figures, tables and the scorecard: an
# edit to it reruns those rules (cheap) instead of leaving stale figures behind
ANALYSIS_SOURCES = sorted(glob("analysis/*.py") + glob("analysis/figures/*.py"))


# ---- tiering family (modelled tiers)
TIER_POINTS = PLAN["tiering"]
MODEL_PROFILE = PLAN["model_profile"]


CONTENTION = PLAN["contention"]
REAL_TIERING = PLAN["real_tiering"]


def tiering_results():
    out = [f"results/{HOST}/tiering/{key}/result.csv" for key in sorted(TIER_POINTS)]
    out += [f"results/{HOST}/tiering/contention_single_node/{pid}/result.csv" for pid in CONTENTION]
    out += [f"results/{HOST}/tiering/{pt['experiment']}/numa-{pt['id']}/result.csv" for pt in REAL_TIERING.values()]
    return out


def real_tiering_spec(wc, output):
    pt = REAL_TIERING[f"{wc.experiment}/{wc.point}"]
    rc = config["tiering"]["real"]
    return json.dumps(
        {
            "outdir": str(Path(output.result).parent),
            "facts": f"results/{HOST}/host_facts.json",
            "profile": PROFILE,
            "config": config,
            "lock": f"results/{HOST}/.measure.lock",
            "journal": f"results/{HOST}/.settings-journal.json",
            "settings": pt["settings"],
            "gups": pt["gups"],
            "antagonist": pt["antagonist"],
            "antagonist_delay_s": pt.get("antagonist_delay_s"),
            "tierd": pt["tierd"],
            "note": pt["note"],
            "event_t_s": pt.get("event_t_s"),
            "warmup_s": rc["warmup_s"],
            "average_last_s": rc["average_last_s"],
            "timeout_s": rc["duration_s"] + rc["event_at_s"] + rc["after_event_s"] + 900,
            "counters": config["counters"]["sources"],
            "interval_ms": config["counters"]["interval_ms"],
            "context": {"host": HOST, **pt["context"], "point": f"numa-{pt['id']}"},
        }
    )


def guest_batch_spec(wc, output):
    """All real tiering points in one guest boot (workflows.harness.guestrun)."""
    rc = config["tiering"]["real"]
    points = []
    for key in sorted(REAL_TIERING):
        pt = REAL_TIERING[key]
        points.append(
            {
                "outdir": f"results/{HOST}/tiering/{pt['experiment']}/numa-{pt['id']}",
                "gups": pt["gups"],
                "antagonist": pt["antagonist"],
                "antagonist_delay_s": pt.get("antagonist_delay_s"),
                "tierd": pt["tierd"],
                "settings": pt["settings"],
                "note": pt["note"],
                "event_t_s": pt.get("event_t_s"),
                "context": {"host": HOST, **pt["context"], "point": f"numa-{pt['id']}"},
            }
        )
    return json.dumps(
        {
            "runner": RUNNER,
            "batch_dir": f"results/{HOST}/tiering/guest-batch",
            "facts": f"results/{HOST}/host_facts.json",
            "profile": PROFILE,
            "config": config,
            "lock": f"results/{HOST}/.measure.lock",
            "warmup_s": rc["warmup_s"],
            "average_last_s": rc["average_last_s"],
            "counters": config["counters"]["sources"],
            "points": points,
        }
    )


def contention_spec(wc, output):
    pt = CONTENTION[wc.point]
    cc = config["tiering"]["contention"]
    return json.dumps(
        {
            "outdir": str(Path(output.result).parent),
            "facts": f"results/{HOST}/host_facts.json",
            "profile": PROFILE,
            "config": config,
            "lock": f"results/{HOST}/.measure.lock",
            "journal": f"results/{HOST}/.settings-journal.json",
            "gups": pt["gups"],
            "antagonist": pt["antagonist"],
            "latency_probe": pt["latency_probe"],
            "warmup_s": cc["warmup_s"],
            "average_last_s": cc["average_last_s"],
            "timeout_s": cc["duration_s"] + 600,
            "counters": config["counters"]["sources"],
            "interval_ms": config["counters"]["interval_ms"],
            "context": {
                "host": HOST,
                "backend": "numa",
                "family": "tiering",
                "experiment": "contention_single_node",
                "workload": "gups",
                "system": "none",
                "intensity": pt["intensity"],
                "threads": pt["threads"],
                "mem_node": pt["node"],
                "object_bytes": cc["object_bytes"],
                "target": f"node:{pt['node']}",
                "point": wc.point,
            },
        }
    )


def tiersim_spec(wc, output):
    pt = TIER_POINTS[f"{wc.experiment}/{wc.point}"]
    return json.dumps(
        {
            "outdir": str(Path(output.result).parent),
            "argv": pt["argv"],
            "context": {"host": HOST, **pt["context"]},
            "timeseries": pt["timeseries"],
            "event_t_s": pt["event_t_s"],
            "config": config,
            "counters": config["counters"]["sources"],
            "timeout_s": 600,
        }
    )
