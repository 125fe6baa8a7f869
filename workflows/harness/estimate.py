"""How long a run will take, said before it starts, and how far it is while it runs.

    python -m workflows.harness.cli plan [--host auto] [--configfile F] [--cores N] [--project PROFILE]
    snakemake ... 2>&1 | python -m workflows.harness.estimate follow results/<host>/.estimate.json

Every point's expected time comes, in this order, from

1. an earlier run's Snakemake ``benchmark:`` file of that very point
   (``results/<host>/benchmarks/<family>/<experiment>/<point>/rep<rep>.tsv``, its ``s`` column);
2. the point's own durations: what each role's workload says one run takes (its module's optional
   ``seconds(argv)``, :func:`workload_seconds`), else the duration-like arguments of the role
   (``--duration``, ``--max-seconds``, ``--runtime``, pgbench ``-T``...) times the sweeps that
   repeat them (``--threads 1,2``, ``--delays``, ``--sizes``, ``--shares``, ``--phases``, fio's
   jobs), plus the waits before the workload starts (:func:`waits`) and the harness's own cost per
   point; a role whose length neither says counts ``UNKNOWN_ROLE_S`` (R times that under memcg at
   ratio R); then scaled, family by family, by what the family's points with benchmark files took
   against what their durations said (so one earlier run, even a partial one, corrects the rest);
3. modelled points (tiersim): one point of each family is run here, timed, before the estimate
   (``probe``; ``--no-probe``: ``MODEL_POINT_S``), and scaled by each point's simulated duration,
   plus the Python harness around tiersim (``MODEL_HARNESS_S``) once per job: once per point, or
   once per ``model_batch`` points where the config batches them.

Measured points run one at a time (the ``measure`` resource), each holding one core; builds,
modelled points and each family's tables and figures share all the cores, beside them. The wall
time is therefore the longer of the measured points in a row and all of that work spread over
the cores (a list schedule's bound: ``max(serial, (serial + shared) / cores)``), plus Snakemake's
start. Absent binaries and generated inputs add their build steps (``BUILD_S``, defaults
measured on a 2-core VM, upstream sources from a local directory).

A point whose results are already there for this very configuration (``result.csv`` beside a
``meta.json`` whose ``row_sha256`` is the hash of the point's row as planned now) is not counted,
nor are the tables and figures of a family with no point left and its figures made: a run after
an interrupted one, or after a config change, is estimated for what Snakemake will run, and one
with nothing left says so (:func:`has_current_result`; ``plan`` only, not a projection).

A projection onto another host profile (``--project hosts/icelake-2s.yaml``; by default the
paper config is projected onto icelake-2s) plans the config for that profile with synthetic
facts (its tiers' nodes and CPU lists) and prices its points the same way, at this host's
speed for modelled points (the projection says so): what changes is which points run where.
"""

from __future__ import annotations

import csv
import importlib
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import plan, provenance

REPO = Path(__file__).resolve().parents[2]

# Defaults where neither an earlier run nor the point's workload or arguments say (seconds): this
# 2-core VM's, each from the run its comment names; any earlier run's benchmark files replace them
# family by family.
POINT_OVERHEAD_S = 0.15     # the harness around a point (processes started, result.csv written): its benchmark
                            # seconds less its meta.json wall_s, median 0.10 s (0.07-0.35, fio 1.07) over the 50
                            # measured points of a fresh quick run here (2026-11-27, after the harness stopped
                            # importing pandas for counters it has none of); was 0.6 (0.34-0.69 s then), before that 2
BACKGROUND_READY_S = 0.45   # a background role started and ready before the workload: 0.44 s for the quick run's
                            # (a fresh run here, 2026-11-27)
UNKNOWN_ROLE_S = 4.0        # a role whose length neither its workload (seconds()) nor its argv says,
                            # at R = 1 where memcg runs it (role_seconds scales it by R): the quick run's 13 such
                            # points took 3.0-3.6 s each beyond the rest of their estimate so counted (five fresh
                            # runs here, 2026-11-27); with 4, overcommit's 12 points come to 138 s (measured
                            # 141-159 s); was 5 (fitted before the R scaling, with R4's swapping in it), before that 15
MODEL_POINT_S = 1.2         # one modelled point (100 simulated seconds) without a probe
MODEL_HARNESS_S = 0.35      # the point harness around tiersim (Python start, parse): 0.2-0.45 s CPU here
# Build steps: the quick `make run` of a fresh clone here (2026-11-26, sources=../shared/upstream),
# from build/logs' times: ycsb 18 s, gapbs-converter + gapbs-pr 12 s each, the kron20 graph 7 s,
# silo-dbtest 176 s (beside points; 69-86 s since it is built without debug info, workloads/silo/patches/0003);
# cachebench is CacheLib's own build (an hour is its docs' order).
BUILD_S = {"make": 10.0, "script": 20.0, "upstream": 30.0, "input": 10.0}
BUILD_S_BY_TOOL = {"cachebench": 3600.0, "silo-dbtest": 80.0, "ycsb": 20.0}
GUEST_BOOT_S = 90.0         # one TCG boot with its tests (issue 27: 89 s)
WORKFLOW_START_S = 15.0     # Snakemake parses, plans, writes host_facts before the first point
PER_FAMILY_S = 3.0          # a family's measurements.csv and points table
PER_FIGURE_S = 1.5          # one figure rendered, in its family's one job (rule figures): the quick run's 27
                            # took 40 s of CPU here in their 6 jobs (2026-11-26), 71 s as 27 processes

# (--warmup-seconds: the kv driver's untimed warm-up before each timed phase, workloads/ycsb's Runner.java)
DURATION_FLAGS = {"--duration", "--max-seconds", "--runtime", "--duration-s", "-T", "--seconds", "--pipeline-seconds",
                  "--warmup-seconds"}
SWEEP_FLAGS = {"--threads", "--delays", "--sizes", "--shares", "--phases", "--pipeline-depths"}
STEP_RE = re.compile(r"^(\d+) of (\d+) steps \((?:\d+(?:\.\d+)?)%\) done")
FINISHED_RE = re.compile(r"Finished job(?:id)?:? (\d+)\b")  # Snakemake 9: "Finished jobid: 12 (Rule: point)"
JOBID_RE = re.compile(r"^\s*jobid: (\d+)")
RULE_RE = re.compile(r"^\s*(?:local)?rule (\w+):")
TAIL_RULE = "figures"  # a family's figures job (workflows/rules/report.smk), the last of its own jobs
WILDCARDS_RE = re.compile(r"^\s*wildcards: (.*)")


@dataclass
class PointEstimate:
    key: str
    family: str
    executor: str
    seconds: float
    source: str  # "benchmark", "durations", "probe", "default"
    alone: bool = False  # measured with no other job beside it (config measure_alone)


@dataclass
class Estimate:
    host: str
    cores: int
    points: list[PointEstimate] = field(default_factory=list)
    builds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    model_per_point: dict[str, float] = field(default_factory=dict)  # family -> s per 100 simulated s
    figures: int = 0
    current: int = 0  # planned points not counted: their results are there already (has_current_result)
    # families with no point left to run whose figures are still to make (an interrupted run)
    tails_only: set[str] = field(default_factory=set)

    def families(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for p in self.points:
            f = out.setdefault(p.family, {"points": 0, "measured_s": 0.0, "model_cpu_s": 0.0, "sources": set()})
            f["points"] += 1
            f["model_cpu_s" if p.executor == "model" else "measured_s"] += p.seconds
            f["sources"].add(p.source)
        for f in out.values():
            f["wall_s"] = f["measured_s"] + f["model_cpu_s"] / self.cores
        return out

    @property
    def build_s(self) -> float:
        return sum(self.builds.values())

    @property
    def guest_s(self) -> float:
        return GUEST_BOOT_S if any(p.executor == "guest" for p in self.points) else 0.0

    @property
    def workflow_s(self) -> float:
        """What is not a point or a build: Snakemake's start, each family's tables, the figures."""
        return (WORKFLOW_START_S + PER_FAMILY_S * len(self.families().keys() | self.tails_only)
                + PER_FIGURE_S * self.figures)

    @property
    def alone_s(self) -> float:
        """Measured points with nothing beside them (config measure_alone): they hold every core."""
        return sum(p.seconds for p in self.points if p.alone)

    @property
    def serial_s(self) -> float:
        """Work done one job at a time beside the rest: the other measured points (and the guest's
        boot, a measured job)."""
        return self.guest_s + sum(f["measured_s"] for f in self.families().values()) - self.alone_s

    @property
    def shared_s(self) -> float:
        """Work spread over the cores beside it: builds, modelled points (CPU seconds) and each
        family's tables and figures (jobs of their own, made as soon as a family's points are done)."""
        return (self.build_s + sum(f["model_cpu_s"] for f in self.families().values())
                + self.workflow_s - WORKFLOW_START_S)

    @property
    def wall_s(self) -> float:
        busy = self.alone_s + max(self.serial_s, (self.serial_s + self.shared_s) / self.cores)
        return busy + WORKFLOW_START_S

    def to_json(self) -> dict:
        """What ``follow`` needs: each point's key and seconds (``points``: its share of the wall
        time, for the count), the measured points' seconds (one at a time) and the modelled
        points' CPU seconds apart, the builds, and each family's tables and figures."""
        pts = {p.key: (p.seconds / self.cores if p.executor == "model" else p.seconds) for p in self.points}
        fams = self.families().keys() | self.tails_only
        each = PER_FIGURE_S * self.figures / max(1, len(fams))
        return {"host": self.host, "cores": self.cores, "wall_s": self.wall_s, "points": pts,
                "measured": {p.key: p.seconds for p in self.points if p.executor != "model"},
                "model_cpu": {p.key: p.seconds for p in self.points if p.executor == "model"},
                "alone": sorted(p.key for p in self.points if p.alone),
                "build_s": self.build_s + self.guest_s, "start_s": WORKFLOW_START_S,
                "tail_s": {f: PER_FAMILY_S + each for f in fams}}

    def text(self, title: str) -> str:
        count = (f"{len(self.points)} of {len(self.points) + self.current} points to run "
                 f"({self.current} have results)" if self.current else f"{len(self.points)} points")
        lines = [f"{title}: {count}, ~{human(self.wall_s)} on {self.cores} cores"]
        for name, f in sorted(self.families().items()):
            parts = []
            if f["measured_s"]:
                parts.append(f"measured {human(f['measured_s'])}")
            if f["model_cpu_s"]:
                parts.append(f"modelled {human(f['model_cpu_s'])} CPU")
            lines.append(f"  {name:<13} {f['points']:>5} points  ~{human(f['wall_s']):>8}  "
                         f"({', '.join(parts)}; from {'+'.join(sorted(f['sources']))})")
        if self.builds:
            lines.append(f"  {'builds':<13} {len(self.builds):>5} steps   ~{human(self.build_s):>8}  "
                         f"({', '.join(sorted(self.builds))}; defaults)")
        lines.append(f"  {'workflow':<13} {self.figures:>5} figures ~{human(self.workflow_s):>8}  "
                     "(start, each family's tables, figures; defaults)")
        if self.guest_s:
            lines.append(f"  {'guest boot':<13} {1:>5} boot    ~{human(self.guest_s):>8}  (TCG default)")
        alone = (f"measured points alone (measure_alone) ~{human(self.alone_s)}, nothing beside them; the other "
                 if self.alone_s else "")
        lines.append(f"  schedule: {alone}measured points one at a time ~{human(self.serial_s)}; builds, modelled points, "
                     f"tables and figures ~{human(self.shared_s)} CPU beside {'those' if alone else 'them'} on "
                     f"{self.cores} cores")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines) + "\n"


def human(s: float) -> str:
    s = max(0.0, s)
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def _num(x: str) -> float | None:
    try:
        v = float(x)
    except ValueError:
        return None
    return v if math.isfinite(v) and v >= 0 else None


def _json_argv(args: list[str], flag: str) -> list[str] | None:
    try:
        inner = json.loads(args[args.index(flag) + 1]) if flag in args else None
    except (IndexError, ValueError):
        return None
    return [str(x) for x in inner] if isinstance(inner, list) else None


def workload_seconds(argv: list[str], parse: str | None = None) -> float | None:
    """What a workload says one run of ``argv`` takes: the optional ``seconds(argv)`` of the module
    that parses the role (``parse``: "module:function") or that ``argv`` runs (``python -m
    MODULE``); None where there is none or it does not say."""
    mods = [parse.partition(":")[0]] if parse else []
    mods += [argv[i + 2] for i, a in enumerate(argv[:-2]) if Path(a).name.startswith("python") and argv[i + 1] == "-m"]
    for mod in mods:
        try:
            fn = getattr(importlib.import_module(mod), "seconds", None)
        except ImportError:
            continue
        try:  # an estimate: a hook that cannot read this argv leaves it to the durations
            s = fn(argv) if callable(fn) else None
        except (ValueError, TypeError, IndexError, KeyError):
            s = None
        if s is not None:
            return float(s)
    return None


def role_seconds(argv: list[str], parse: str | None = None) -> float | None:
    """The length one role's argv says it runs (None: it does not say). ``--flag=value`` counts like
    ``--flag value``. A ``--argv-json`` (a wrapper: memcg) is read for its inner command. Given
    ``--ratio R`` (memcg: the program gets 1/R of the memory it needs), an inner command of fixed
    work whose length its argv does not say counts ``UNKNOWN_ROLE_S`` x R: such a program swaps,
    and it ran 1.6-2.5x longer at R = 2 and 3.3-5.5x at R = 4 in the quick run's overcommit points
    here (FFmpeg, DuckDB TPC-H, ResNet-50; four fresh runs, 2026-11-27); one that runs for a set
    time does not. A ``--prepare-json`` run first counts what its workload says
    (:func:`workload_seconds`), else nothing. Before the argv's flags, the workload is asked
    (:func:`workload_seconds`, ``parse`` the role's parser)."""
    own = workload_seconds(argv, parse)
    if own is not None:
        return own
    args: list[str] = []
    for a in argv:
        args += a.split("=", 1) if a.startswith("--") and "=" in a else [a]
    inner = _json_argv(args, "--argv-json")
    if inner is not None:
        s = role_seconds(inner)
        ratio = _num(args[args.index("--ratio") + 1]) if "--ratio" in args[:-1] else None
        if s is None and ratio:
            s = UNKNOWN_ROLE_S * max(1.0, ratio)
        prep = _json_argv(args, "--prepare-json")
        if s is not None and prep is not None:
            s += workload_seconds(prep) or 0.0
        return s
    dur = None
    repeat = 1
    for i, a in enumerate(args[:-1]):
        nxt = args[i + 1]
        if a in DURATION_FLAGS and _num(nxt) is not None:
            dur = (dur or 0.0) + _num(nxt)
        elif a in SWEEP_FLAGS and "," in nxt:
            repeat *= len([x for x in nxt.split(",") if x])
    if dur is None:
        return None
    jobs = sum(1 for a in args if a == "--name") or 1  # fio: one runtime per job
    return dur * repeat * jobs


def waits(sc: dict) -> float:
    """What the scenario waits before its workload starts (scenario.ops, as the executor runs it):
    its warm-up sleep, which it takes only with a background role running, and each such role's
    start until ready."""
    from .scenario import ops, workload_of  # noqa: PLC0415

    bg = {r["name"] for r in sc["roles"] if r["kind"] == "background"}
    workload = workload_of(sc)["name"]
    total = 0.0
    for op in ops(sc):
        if op[0] == "spawn" and op[1] == workload:
            break
        if op[0] == "sleep":
            total += float(op[1])
        elif op[0] == "ready" and op[1] in bg:
            total += BACKGROUND_READY_S
    return total


def measured_seconds(row: dict) -> float:
    sc = row["run"]["scenario"]
    total = waits(sc) + POINT_OVERHEAD_S
    for role in sc["roles"]:
        if role["kind"] == "background":
            continue
        s = role_seconds(role["argv"], role.get("parse"))
        total += UNKNOWN_ROLE_S if s is None else s
    return total


def model_seconds(row: dict, per_point: dict[str, float], model_batch: int = 1) -> float:
    """One modelled point's CPU seconds: tiersim's (``per_point``: per 100 simulated seconds, probed
    here) scaled by the point's simulated duration, plus its share of the harness (one harness per
    job of ``model_batch`` points); ``MODEL_POINT_S``, harness included, where there is no probe."""
    argv = row["run"]["argv"]
    d = role_seconds(argv) or 100.0
    if row["family"] not in per_point:
        return MODEL_POINT_S * d / 100.0
    return per_point[row["family"]] * d / 100.0 + MODEL_HARNESS_S / max(1, model_batch)


def probe_model(rows: list[dict], results: Path) -> dict[str, float]:
    """Seconds of one 100-simulated-second modelled point per family, timed here (one point each)."""
    out = {}
    for fam in sorted({r["family"] for r in rows}):
        row = next(r for r in rows if r["family"] == fam)
        argv = list(row["run"]["argv"])
        exe = REPO / argv[0]
        if not exe.exists():
            continue
        # CPU time, not wall time: a point's cost on this host, not this minute's load from others
        with tempfile.TemporaryDirectory() as d:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            rc = subprocess.run([str(exe), *argv[1:]], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "TMPDIR": d}, timeout=120).returncode
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            dt = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if rc == 0:
            out[fam] = dt * 100.0 / (role_seconds(argv) or 100.0)
    return out


def read_benchmarks(results: Path) -> dict[str, float]:
    """Point key -> seconds, from an earlier run's Snakemake benchmark files (results/<host>/benchmarks/)."""
    out: dict[str, float] = {}
    root = results / "benchmarks"
    if not root.is_dir():
        return out
    for f in root.rglob("rep*.tsv"):
        rel = f.relative_to(root).with_suffix("")
        parts = rel.parts
        if len(parts) < 4:
            continue
        s = benchmark_seconds(f)
        if s is not None:
            out["/".join(parts)] = s
    return out


def benchmark_seconds(f: Path) -> float | None:
    """The ``s`` column of a Snakemake benchmark file (the mean when it holds several repeats)."""
    try:
        rows = list(csv.DictReader(f.read_text().splitlines(), delimiter="\t"))
        vals = [float(r["s"]) for r in rows if r.get("s") not in (None, "", "NA")]
    except (OSError, ValueError, KeyError):
        return None
    return sum(vals) / len(vals) if vals else None


def builds(rows: list[dict], recipes: dict) -> dict[str, float]:
    """Build steps the run will take: binaries absent from build/bin, inputs not yet made."""
    need: dict[str, float] = {}
    for r in rows:
        for t in r["tools"]:
            if t in recipes and not (REPO / "build/bin" / t).exists():
                rec = recipes[t]
                kind = "upstream" if rec.get("upstream") else "script" if rec.get("script") else "make"
                need[t] = BUILD_S_BY_TOOL.get(t, BUILD_S[kind])
        for i in r.get("inputs", []):  # (results/...: another point's result, not a build step)
            if not i.startswith("results/") and not (REPO / i).exists():
                need[i] = BUILD_S["input"]
    return need


BUSY_SAMPLE_S = 0.5


def cpus_busy(interval: float = BUSY_SAMPLE_S, stat: Path = Path("/proc/stat"), sleep=time.sleep) -> float | None:
    """How many CPUs' worth of time the machine spent busy over ``interval`` seconds, from now on:
    what else runs beside the run about to start (this process sleeps meanwhile; a load average
    would also count the setup, build and probe that ``make run`` has just finished). From the
    aggregate ``cpu`` line of /proc/stat (proc(5): user, nice, system, idle, iowait, irq, softirq,
    steal, guest, guest_nice, in USER_HZ; guest time is already in user, so it is not added again;
    steal counts as busy: a hypervisor's other guests held the CPU). None where it cannot be read."""
    def sample() -> tuple[int, int] | None:
        try:
            f = stat.read_text().splitlines()[0].split()
            v = [int(x) for x in f[1:9]]
        except (OSError, IndexError, ValueError):
            return None
        if f[0] != "cpu" or len(v) < 8:
            return None
        idle = v[3] + v[4]                 # idle + iowait
        return sum(v) - idle, sum(v)
    a = sample()
    if a is None:
        return None
    sleep(interval)
    b = sample()
    if b is None or b[1] <= a[1]:
        return None
    return (b[0] - a[0]) / (b[1] - a[1]) * (os.cpu_count() or 1)


def busy_note(cores: int) -> str | None:
    """A note for the plan where other work keeps more than half of the run's cores busy now."""
    busy = cpus_busy()
    if busy is None or busy <= 0.5 * cores:
        return None
    return (f"this machine is busy now (other work kept {busy:.1f} of its {os.cpu_count()} CPUs busy over the "
            f"next {BUSY_SAMPLE_S} s): the estimate is for an idle host; expect longer")


def has_current_result(results: Path, row: dict) -> bool:
    """Has this point's result for this very row: its ``result.csv``, and a ``meta.json`` whose
    ``row_sha256`` (workflows/harness/point.py) is the row's hash now? (Snakemake reruns a point
    whose row, a param of its rule, changed; one with a result written by an older row is stale.)
    A guest point also needs its host's batch (``guest/batch``, one boot for all of them): the
    workflow remakes a deleted batch (workflows/rules/common.smk, host_targets), and the points with
    it."""
    d = results / plan.key(row)
    if not (d / "result.csv").is_file():
        return False
    if row.get("executor") == "guest" and not (results / "guest" / "batch").is_dir():
        return False
    try:
        meta = json.loads((d / "meta.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("row_sha256") == provenance.digest(row)


def estimate(pl: plan.Plan, host: str, cores: int, results: Path | None = None, probe: bool = True,
             model_per_point: dict[str, float] | None = None, model_batch: int = 1,
             measure_alone: list[str] | None = None, skip_current: bool = False) -> Estimate:
    """The estimate of ``pl`` on this host (the module's docstring says how); with ``skip_current``,
    of what is left of it: points with current results in ``results`` are counted apart
    (``Estimate.current``), and so are the tables and figures of families with none left whose
    figures are all there (``results/figures/<name>.png``)."""
    from . import tools

    rows = planned = list(pl.points.values())
    results = results or REPO / "results" / host
    est = Estimate(host=host, cores=max(1, cores))
    figures_of = {f: getattr(fp, "figures", None) or [] for f, fp in pl.families.items()}  # family -> names
    if skip_current:
        left = [r for r in rows if not has_current_result(results, r)]
        est.current = len(rows) - len(left)
        finished = {r["family"] for r in rows} - {r["family"] for r in left}
        # (a run stopped after a family's last point and before its figures makes them next time)
        est.tails_only = {f for f in finished if f in figures_of and not all(
            (results / "figures" / f"{n}.png").is_file() for n in figures_of[f])}
        finished -= est.tails_only
        rows = left
    else:
        finished = set()
    history = read_benchmarks(results)
    model_rows = [r for r in rows if r["executor"] == "model"]
    per_point = dict(model_per_point or {})
    if model_rows and probe and not per_point:
        per_point = probe_model(model_rows, results)
    est.model_per_point = per_point
    if model_rows:
        est.notes.append("modelled points: " + (", ".join(f"{f} {s:.2f} s/point" for f, s in sorted(per_point.items()))
                                                 + " (CPU time of one tiersim point each, timed here) + the harness "
                                                 f"{MODEL_HARNESS_S / max(1, model_batch):.2f} s/point"
                                                 + (f" (one per {model_batch} points: config model_batch)" if model_batch > 1 else "")
                                                 if per_point else
                                                 f"{MODEL_POINT_S} s/point (default; not timed here)"))
    # each family's ratio of benchmark seconds to what its durations said, where both are known
    # (the points not left to run count too)
    said: dict[str, list[float]] = {}
    for r in planned:
        k = plan.key(r)
        if k in history and r["executor"] != "model":
            said.setdefault(r["family"], []).append(history[k] / measured_seconds(r))
    scale = {f: sum(v) / len(v) for f, v in said.items()}
    for r in rows:
        k = plan.key(r)
        if k in history and r["executor"] != "model":
            s, src = history[k], "benchmark"
        elif r["executor"] == "model":
            s = model_seconds(r, per_point, model_batch)
            src = "probe" if r["family"] in per_point else "default"
        else:
            s = measured_seconds(r) * scale.get(r["family"], 1.0)
            src = "durations*benchmark" if r["family"] in scale else "durations"
        est.points.append(PointEstimate(k, r["family"], r["executor"], s, src,
                                        plan.measures_alone(measure_alone, r)))
    est.builds = builds(planned, tools.recipes())  # an absent build reruns what needs it
    est.figures = sum(len(names) for f, names in figures_of.items() if f not in finished)
    where = results.relative_to(REPO) if results.is_relative_to(REPO) else results
    if history:
        est.notes.append(f"{len(history)} benchmark files of an earlier run in {where}")
    if est.current:
        est.notes.append(f"{est.current} points already have their results in {where} for this configuration "
                         "(meta.json's row hash): not counted, as Snakemake does not rerun them"
                         + ("" if est.points else
                            f"; left: the tables and figures of {', '.join(sorted(est.tails_only))}" if est.tails_only else
                            "; nothing is left to run"))
    return est


def facts_for_profile(prof_path: str, base: dict) -> dict:
    """Synthetic facts a host profile resolves against: its tiers' NUMA nodes, the CPUs its lists name."""
    from . import profile

    _, _, data = profile.load_profile(prof_path)
    nodes = sorted({int(t["node"]) for t in data.get("tiers", []) if t.get("kind") == "numa" and "node" in t} | {0})
    top = 0
    for spec in (data.get("cpus") or {}).values():
        for part in re.findall(r"\d+", str(spec)):
            top = max(top, int(part))
    per = max(32, top + 1)
    f = dict(base)
    f["nodes"] = {str(n): {"cpus": list(range(i * per, (i + 1) * per)), "memory_mib": 1 << 17} for i, n in enumerate(nodes)}
    f["memory_nodes"] = nodes
    f["cpu_nodes"] = nodes
    f["online_cpus"] = f["allowed_cpus"] = list(range(per * len(nodes)))
    f["allowed_mems"] = nodes  # (this machine's cpuset is not the projected host's)
    f["hostname"] = data.get("name", "projected")
    f["privileges"] = {"euid": 0, "root": True}
    return f


# --- progress during a run ----------------------------------------------------------------


def follow(est_file: Path, stream=sys.stdin, out=sys.stdout, clock=time.monotonic) -> int:
    """Echo Snakemake's output; after each finished point, and each family's finished figures job,
    one line: points done / total and the time left (:class:`Progress`)."""
    try:
        prog = Progress(json.loads(Path(est_file).read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        prog = None
    t0 = clock()
    jobs: dict[str, str | None] = {}  # jobid -> point key (Snakemake prints rule, jobid, then wildcards)
    tails: dict[str, str] = {}        # jobid -> family, for the families' figures jobs
    rule: str | None = None
    last_job: str | None = None
    for line in stream:
        out.write(line)
        if prog is None:
            continue
        try:
            m = RULE_RE.match(line)
            if m:
                rule, last_job = m.group(1), None
                continue
            m = JOBID_RE.match(line)
            if m:
                last_job = m.group(1)
                continue
            m = WILDCARDS_RE.match(line)
            if m and last_job is not None:
                jobs[last_job] = _key_of(m.group(1))
                prog.started(jobs[last_job], clock() - t0)
                if rule == TAIL_RULE and (fam := _wildcards(m.group(1)).get("family")):
                    tails[last_job] = fam
                last_job = None
                continue
            m = FINISHED_RE.search(line)
            if m and (prog.finished(jobs.get(m.group(1)), t := clock() - t0)
                      or (m.group(1) in tails and prog.tail_done(tails.pop(m.group(1))))):
                out.write(prog.line(t) + "\n")
                out.flush()
        except Exception:  # progress is a courtesy: never break the run's output
            prog = None
    return 0


def _wildcards(wildcards: str) -> dict[str, str]:
    return dict(p.split("=", 1) for p in re.split(r",\s*", wildcards.strip()) if "=" in p)


def _key_of(wildcards: str) -> str | None:
    wc = _wildcards(wildcards)
    if {"family", "experiment", "point", "rep"} <= wc.keys():
        return f"{wc['family']}/{wc['experiment']}/{wc['point']}/rep{wc['rep']}"
    return None


class Progress:
    """Points done and the time left during a run, by the plan's own schedule (:class:`Estimate`):
    the measured points left, one at a time, or all the work left spread over the cores, whichever
    is longer. The measured points' estimates are scaled by how long the done ones took against
    theirs (each timed from its job's start to its end; once 10 s of their estimates are done;
    within 0.5x-4x), less what the running one has already taken. The work beside them: the
    modelled points not done (CPU seconds), the builds not yet done (counted as done at the rate
    of the cores the measured points leave, after Snakemake's start) and the tables and figures
    of each family until its figures job (which follows its last point) is done.

    An estimate saved before the points were split (only ``points`` and ``build_s``) is read as
    all measured."""

    def __init__(self, est: dict):
        self.points: dict[str, float] = est["points"]
        self.measured: dict[str, float] = est.get("measured", self.points)
        self.model_cpu: dict[str, float] = est.get("model_cpu", {})
        self.cores = max(1, int(est.get("cores", 1)))
        self.build_s = float(est.get("build_s", 0.0))
        self.start_s = float(est.get("start_s", 0.0))
        self.tail_s: dict[str, float] = est.get("tail_s", {})
        self.alone: set[str] = set(est.get("alone", []))
        self.done: set[str] = set()
        self.tails_done: set[str] = set()    # families whose figures job has finished
        self.running: dict[str, float] = {}  # measured point -> when its job started
        self.took = self.took_est = 0.0      # the done measured points: seconds taken, estimated

    def started(self, key: str | None, t: float) -> None:
        if key in self.measured:
            self.running[key] = t

    def finished(self, key: str | None, t: float) -> bool:
        """Count a point done; False for a job that is not a point or is counted already."""
        if key not in self.points or key in self.done:
            return False
        self.done.add(key)
        if key in self.running:
            self.took += t - self.running.pop(key)
            self.took_est += self.measured[key]
        return True

    def tail_done(self, family: str) -> bool:
        """A family's figures job finished; False where it is not a family of the estimate."""
        if family not in self.tail_s or family in self.tails_done:
            return False
        self.tails_done.add(family)
        return True

    def scale(self) -> float:
        r = self.took / self.took_est if self.took_est >= 10 else 1.0
        return min(max(r, 0.5), 4.0)

    def left(self, t: float) -> float:
        r = self.scale()
        run = {k: min(t - t0, r * self.measured[k]) for k, t0 in self.running.items()}
        todo = {k: r * v - run.get(k, 0.0) for k, v in self.measured.items() if k not in self.done}
        alone = sum(v for k, v in todo.items() if k in self.alone)
        serial = sum(todo.values()) - alone
        shared = (sum(v for k, v in self.model_cpu.items() if k not in self.done)
                  + max(0.0, self.build_s - max(0.0, t - self.start_s) * max(1, self.cores - 1))
                  + sum(v for f, v in self.tail_s.items() if f not in self.tails_done))
        return alone + max(serial, (serial + shared) / self.cores)

    def line(self, t: float) -> str:
        return (f"[progress] {len(self.done)}/{len(self.points)} points done, {human(t)} elapsed, "
                f"~{human(self.left(t))} left")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "follow":
        # an interrupt (Ctrl-C reaches the whole pipeline) is Snakemake's to handle: keep echoing
        # its last lines until it closes the pipe
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return follow(Path(argv[1]))
    print("usage: python -m workflows.harness.estimate follow ESTIMATE_JSON  (estimates: cli plan)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Estimate", "PointEstimate", "Progress", "estimate", "follow", "role_seconds"]
