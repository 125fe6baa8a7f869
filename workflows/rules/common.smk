# Shared set-up: validate the experiment config and the host profile once, before any job, and
# plan every registered family's points (families/, workflows/harness/plan.py). Problems stop the
# run here with one message ("tierbench: error: ...") and nothing written under results/.
import json
import os
import re
import shlex
import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)

from snakemake.utils import update_config

import families
from analysis import registry as figure_registry
from workflows.harness import ConfigError, hostdetect, plan as planning, profile as host_profile, runner as guest_runner, tools
from workloads import upstream


def fail(msg):
    print(f"tierbench: error: {msg}", file=sys.stderr)
    sys.exit(1)


try:
    # A guest host (profile with `runner`, e.g. qemu-numa) is validated against the facts the
    # guest reports (booted once, cached in build/), and without --configfile uses its own
    # guest-sized experiment config; --config key=value still wins.
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
    PLAN = planning.build(config, planning.Host(PROFILE, FACTS, RUNNER))
    FIGURE_INFO = figure_registry.discover()
    BUILD = tools.recipes()
    PINS = upstream.pins()
except ConfigError as e:
    fail(e)

HOST = PROFILE["name"]
POINTS = PLAN.points
# figure name -> its family, for the figures the families' plans ask for
FIGURES = {name: fam for fam, fp in PLAN.families.items() for name in fp.figures}
ACTIVE = [f for f in families.FAMILIES if PLAN.families[f].rows]
SCORED = [f for f in ACTIVE if families.get(f).SCORED]
FAMILY_RULES = [os.path.relpath(p, workflow.basedir) for p in families.rules_files()]
# Jobs run the same Python as snakemake itself (the project's environment). The scale's name goes
# into every meta.json, and the sources directory is where pinned archives are looked for: neither
# is a rerun trigger (an archive is the same bytes wherever it comes from: its SHA-256 is pinned).
shell.prefix(f"set -euo pipefail; export PATH={os.path.dirname(sys.executable)}:$PATH; "
             f"export TIERBENCH_SCALE={shlex.quote(str(config['scale']))}; "
             + (f"export {upstream.ENV}={shlex.quote(os.path.abspath(config['sources']))}; " if config.get("sources") else ""))

onstart:
    # what loading the model tiers' curves dropped (noise, the backward bend of saturated curves)
    notes = PROFILE.get("curve_notes", []) + [n for fp in PLAN.families.values() for n in fp.info.get("curve_notes", [])]
    for note in dict.fromkeys(notes):
        print(f"tierbench: curve {note}", file=sys.stderr)


if "measure" not in workflow.global_resources:
    # Measurement points on a real host never run concurrently.
    workflow.register_resource("measure", 1)


wildcard_constraints:
    host=re.escape(HOST),
    family="|".join(families.FAMILIES),
    rep=r"\d+",


def row_of(wc):
    """The row of the point a job's wildcards name (workflows/harness/plan.py)."""
    return POINTS[f"{wc.family}/{wc.experiment}/{wc.point}/rep{wc.rep}"]


def point_inputs(wc):
    r = row_of(wc)
    if r["executor"] == "guest":  # the guest runs its own static build (hosts/qemu/)
        return {"facts": f"results/{wc.host}/host_facts.json", "batch": f"results/{wc.host}/guest/batch"}
    return {"facts": f"results/{wc.host}/host_facts.json", "tools": [f"build/bin/{t}" for t in r["tools"] if t in BUILD],
            "inputs": r["inputs"]}


def guest_batch_inputs(wc):
    """What a guest host's batch ships that the guest's own static build lacks: programs built here
    and input files rules make (workflows/harness/guestrun.py)."""
    built_in = set((FACTS.get("guest_build") or {}).get("binaries", []))
    rows = [r for r in POINTS.values() if r["executor"] == "guest"]
    tools = {f"build/bin/{t}" for r in rows for t in r["tools"] if t in BUILD and t not in built_in}
    return sorted(tools | {f for r in rows for f in r["inputs"]})


def point_results(family=None):
    return [f"results/{HOST}/{planning.key(r)}/result.csv" for r in POINTS.values() if family in (None, r["family"])]


def point_metas():
    return [str(Path(p).parent / "meta.json") for p in point_results()]


def family_info(family, key, default=None):
    return PLAN.families[family].info.get(key, default)


def scored_info(key, default=None):
    """What the scored families' plans say (e.g. the model profile they ran on), first one wins."""
    return next((PLAN.families[f].info[key] for f in SCORED if key in PLAN.families[f].info), default)


def _labels(info):
    """--tiers / --comparable options from a plan's info: the tiers its results ran on and the
    published sources its profile matches; none where the plan says neither."""
    out = []
    if info.get("tiers"):
        out.append(f"--tiers {shlex.quote(info['tiers'])}")
    if "comparable_to" in info:
        out.append(f"--comparable {shlex.quote(json.dumps(info['comparable_to']))}")
    return " ".join(out)


def figure_labels(family):
    """analysis.render's labels for a family's figures (only comparable sources are drawn as targets)."""
    return _labels(PLAN.families[family].info)


def scorecard_labels():
    """analysis.score's labels: from the first scored family whose plan names its profile."""
    return _labels(next((PLAN.families[f].info for f in SCORED if "comparable_to" in PLAN.families[f].info), {}))


def figure_code(figure):
    """A figure's code (its family's figure modules, which may share helpers) and the analysis code."""
    fam = FIGURE_INFO[figure].family
    return [os.path.relpath(p, workflow.basedir) for p in families.figure_files(fam)] + ANALYSIS_SOURCES


def all_targets():
    targets = [f"results/{HOST}/host_facts.json", f"results/{HOST}/measurements.csv"]
    targets += [f"results/{HOST}/{f}/points.tsv" for f in ACTIVE]
    targets += [f"results/{HOST}/figures/{n}.png" for n in FIGURES]
    targets += [f"results/{HOST}/tables/summary.md", f"results/{HOST}/tables/counters.md"]
    targets += [o for fp in PLAN.families.values() for o in fp.outputs]
    if SCORED:
        targets += [f"results/{HOST}/scorecard.md", f"results/{HOST}/scorecard.csv"]
    return targets


# the Python that turns results into measurements, figures, tables and the scorecard: an edit to
# it reruns those rules (cheap) instead of leaving stale figures behind
ANALYSIS_SOURCES = sorted(str(p) for p in Path("analysis").glob("*.py")) + ["analysis/figures/__init__.py",
                                                                            "analysis/figures/common.py"]
