"""The model checked against its own host: ``results/<host>/fidelity.csv`` and
``results/<host>/model-profile.yaml`` (docs/fidelity.md).

    python -m workflows.harness.fidelity --host-dir results/HOST [MEASUREMENTS.csv | result.csv ...]

The host as the model sees it is a profile of model tiers made from the host's own loaded-latency
curves (a family's ``tiers`` hook says which curves: the local node's is the default tier, a far
node's the alternate one). Every registered family may have a ``families/<name>/fidelity.py`` with

- ``observed(df, host_dir) -> list[dict]``: bandwidths its calibration points saw a memory node
  carry (``mem_node``, ``read_ratio``, ``mbps``, ``point``), for the curves' walls;
- ``tiers(host_dir, facts, notes, walls, observed, df) -> list[dict] | None``: the model tiers of
  the host (one family says), what it did to the measured curves in ``notes`` and the values it
  took from other measurements (the measured rows ``df``, ``observed``) in ``walls`` (name ->
  (value, point): the profile's calibration block lists them);
- ``calibrate(df, model) -> list[Fit]``: what it fits on named calibration points of its measured
  rows (first fit of a name wins, in registry order; later families see it in ``model.calibration``);
- ``rows(df, model) -> list[dict]``: one row of :data:`COLUMNS` per measured number the model is
  compared with: ``validation`` (scored), ``calibration`` (a point a fitted value came from,
  listed, never scored) or ``unrepresented`` (with the reason the model cannot represent it).

This module runs tiersim (:class:`Model`) and writes the files; it names no family and no system.
With no measured inputs given it reads ``HOST_DIR/measurements.csv`` (a copied results directory is
scored the same way on another machine), else every ``HOST_DIR/**/result.csv``. A functional host
(an emulated guest) or a host without loaded-latency curves gets ``fidelity.skipped`` (one line: why)
instead of a score; ``fidelity.csv`` is then absent, or a header without rows where the workflow's
rule expects it (``--expect csv``): analysis/fidelity.py reads that pair as "not scored" with the reason.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from analysis.frame import load

from . import ConfigError

REPO = Path(__file__).resolve().parents[2]
COLUMNS = ["point", "experiment", "family", "workload", "metric", "unit", "measured", "predicted", "rel_error", "role",
           "reason", "spread"]
ROLES = ("calibration", "validation", "unrepresented")
TIERSIM = "build/bin/tiersim"


@dataclass
class Fit:
    """One value fitted on the host: its tiersim option, the calibration points it came from (their
    contract rows, role calibration) and how."""

    name: str  # e.g. app_mlp
    option: str  # tiersim option, e.g. --app-mlp
    value: float
    unit: str
    points: list[str]
    how: str
    rows: list[dict] = field(default_factory=list)
    scope: str = ""  # what it applies to (a workload), empty for the whole host
    basis: dict = field(default_factory=dict)  # measured inputs of the calibration point it is relative to

    def entry(self) -> dict:
        return {"value": float(f"{self.value:.6g}"), "unit": self.unit,
                **({"tiersim_option": self.option} if self.option else {}), "points": self.points, "source": self.how,
                **({"applies_to": self.scope} if self.scope else {})}


def row(*, point: str, experiment: str, family: str, workload: str, metric: str, unit: str, measured: float,
        predicted: float | None, role: str, reason: str = "", spread: float | None = None) -> dict:
    """One fidelity.csv row; ``rel_error`` = (predicted - measured) / measured; ``spread``: how far the
    measured number's own per-interval values ranged (:func:`spread`), None where it has none. An unrepresented point
    has no prediction (and may have no measured value: a run that did not converge). A calibration or
    validation row whose relative error does not exist (measured 0 or not a number, no finite
    prediction) is listed as unrepresented, the reason said, never written as a score without an
    error (analysis/fidelity.py refuses such a file)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    finite = lambda x: x is not None and math.isfinite(x)  # noqa: E731
    if role != "unrepresented":
        why = ("nothing was measured" if not finite(measured) else
               "measured 0, which has no relative error" if measured == 0 else
               "tiersim gave no finite prediction" if not finite(predicted) else "")
        if why:
            role, reason = "unrepresented", f"{reason}; {why}" if reason else why
    if role == "unrepresented":
        predicted = None
    return {"point": point, "experiment": experiment, "family": family, "workload": workload, "metric": metric,
            "unit": unit, "measured": measured if finite(measured) else None, "predicted": predicted,
            "rel_error": (predicted - measured) / measured if predicted is not None else None, "role": role,
            "reason": reason, "spread": spread if finite(spread) and finite(measured) else None}


def switched_on(v) -> bool:
    """A yes/no column's value (a bool, a nullable boolean, or its CSV spelling: 'true', 'false') as a
    bool; absent (NaN, None, '') = off."""
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1", "yes")
    return bool(v) if pd.notna(v) else False


def point_rows(df: pd.DataFrame, family: str, experiment: str, point: str) -> pd.DataFrame:
    """Every measured row of one point: its summaries and its per-interval series."""
    return df[(df["family"] == family) & (df["experiment"] == experiment) & (df["point"] == point)]


def spread(rows: pd.DataFrame, metric: str, series: str | None = None, order: str = "t_s") -> float | None:
    """How far a measured number moved while it was measured, as a fraction of it: (max - min) / 2
    over the per-interval values (per second, per trial) its program averaged into it, every
    repetition's pooled, over the mean of the repetitions' summaries. The values averaged: where the
    summary row says the seconds it is the mean of (``duration_s``: a program that averages its last
    seconds), the series' rows of those last seconds (``t_s`` > the series' last ``t_s`` minus them,
    the rule workloads.tail_mean applies); else every value (a rate over the whole run, a mean of
    trials). ``rows``: the point's rows (summaries, empty ``t_s``, and the series); ``metric``: the
    summary's; ``series``: the series' metric where it has another name (a trial time under an
    average); ``order``: the column that orders the series. None with fewer than two values.

    The spread of one point's measurement, not a confidence interval: a prediction whose error is
    within it missed by no more than the measurement moved while it was made (docs/fidelity.md,
    "Spread")."""
    if rows.empty or order not in rows.columns or "t_s" not in rows.columns:
        return None
    summ = rows[rows["t_s"].isna() & (rows["metric"] == metric) & rows["value"].notna()]
    ser = rows[rows[order].notna() & (rows["metric"] == (series or metric)) & rows["value"].notna()]
    if summ.empty or ser.empty:
        return None
    rep = (lambda d: d["rep"].fillna(0)) if "rep" in rows.columns else (lambda d: pd.Series(0, index=d.index))  # noqa: E731
    pooled: list[float] = []
    for r, sv in summ.groupby(rep(summ)):
        mine = ser[rep(ser) == r]
        w = sv["duration_s"].dropna() if "duration_s" in sv.columns else []
        if len(w) and order == "t_s" and len(mine):
            mine = mine[mine["t_s"].astype(float) > float(mine["t_s"].astype(float).max()) - float(w.iloc[0])]
        pooled += [float(v) for v in mine["value"]]
    mid = float(summ["value"].mean())
    if len(pooled) < 2 or not math.isfinite(mid) or mid == 0:
        return None
    return (max(pooled) - min(pooled)) / 2 / abs(mid)


def listed(g: pd.DataFrame, *, point: str, experiment: str, family: str, workload: str, reason: str) -> list[dict]:
    """A point the model does not predict, listed by the numbers it has: one unrepresented row per
    metric of ``g`` (that point's rows), its mean and its unit, with ``reason``."""
    out = []
    for metric, m in g.groupby("metric", sort=False):
        unit = m["unit"].dropna() if "unit" in m.columns else []
        out.append(row(point=point, experiment=experiment, family=family, workload=workload, metric=str(metric),
                       unit=str(unit.iloc[0]) if len(unit) else "", measured=float(m["value"].mean()), predicted=None,
                       role="unrepresented", reason=reason))
    return out


def bisect(f: Callable[[float], float], target: float, lo: float, hi: float, *, tol: float = 1e-4,
           steps: int = 60) -> float:
    """The x in [lo, hi] with f(x) = target for an increasing f (geometric bisection: x > 0); ``lo``
    when the target is below f's range; above it (f saturates: a curve's wall), the smallest x that
    reaches 99 % of f(hi)."""
    if f(lo) >= target:
        return lo
    top = f(hi)
    if top <= target:
        target = lo_target = 0.99 * top
        if f(lo) >= lo_target:
            return lo
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi / lo - 1 < tol:
            break
    return math.sqrt(lo * hi)


class Model:
    """tiersim on the host's model profile (``tiers``: name -> {curve, capacity_gib}), with the
    values fitted so far (``calibration``: name -> Fit) passed as their tiersim options. Runs are
    cached by argv (tiersim is deterministic), and each point's meta.json is read once (the hooks
    ask it for the argv, the footprint, the role and the usage of the same point)."""

    def __init__(self, tiers: dict[str, dict], *, tiersim: str | Path = TIERSIM, cwd: Path = REPO,
                 host_dir: Path | None = None):
        self.tiers = tiers
        self.host_dir = host_dir
        self.cpu_share = True  # scale throughputs by the CPU share each workload got (cpu_share)
        self.ablate: frozenset[str] = frozenset()  # model inputs left out (bench/bench_fidelity.py): the hooks read it
        self.opt_in: frozenset[str] = frozenset()  # fits made only when asked (bench/bench_fidelity.py)
        self.tiersim = str(tiersim)
        self.cwd = cwd
        self.calibration: dict[str, Fit] = {}
        self.notes: list[str] = []  # what a calibration did to the tiers (the profile's header says it)
        self._cache: dict[tuple, dict[str, float]] = {}
        self._metas: dict[tuple, dict] = {}

    def meta(self, family: str, experiment: str, point: str, rep: int = 0) -> dict:
        """A measured point's meta.json (its programs' argv: ``argv``), {} when it is not there; read
        once (callers only read it)."""
        if self.host_dir is None:
            return {}
        key = (family, experiment, point, rep)
        if key not in self._metas:
            p = self.host_dir / family / experiment / point / f"rep{rep}" / "meta.json"
            try:
                self._metas[key] = json.loads(p.read_text())
            except (OSError, ValueError):
                self._metas[key] = {}
        return self._metas[key]

    @property
    def two_tier(self) -> bool:
        return "alternate" in self.tiers

    def tier_args(self, default_gib: float | None = None, alternate_gib: float | None = None) -> list[str]:
        """The tiers as tiersim's options. A one-tier host: its tier is also the (empty) alternate
        one, and the default tier's capacity holds everything (``default_gib`` None = the tier's)."""
        d = self.tiers["default"]
        a = self.tiers.get("alternate", d)
        dg = d["capacity_gib"] if default_gib is None else default_gib
        ag = a["capacity_gib"] if alternate_gib is None else alternate_gib
        return ["--tier", f"default:{d['curve']}:capacity={dg:g}", "--tier", f"alternate:{a['curve']}:capacity={ag:g}"]

    def options(self, skip: tuple[str, ...] = (), scope: str = "") -> list[str]:
        """The fitted values as tiersim options (those applying to ``scope`` or to every workload),
        but ``skip`` (names)."""
        out = []
        for f in self.calibration.values():
            if f.option and f.name not in skip and f.scope in ("", scope):
                out += [f.option, f"{f.value:.6g}"]
        return out

    def on_tier(self, name: str) -> Model:
        """The same model with tier ``name`` as its only (default) tier: a workload alone on that tier's
        curve (:meth:`single_node`). Runs are shared with this model (argv names the curve)."""
        m = Model({"default": self.tiers[name]}, tiersim=self.tiersim, cwd=self.cwd, host_dir=self.host_dir)
        m._cache = self._cache
        return m

    def shift_tier(self, name: str, offset_ns: float, why: str) -> Path | None:
        """Every latency of tier ``name``'s curve moved by ``offset_ns`` (a level a family's calibration
        fitted on the host; the curve's shape is kept), written to ``HOST_DIR/model-curves/`` under the
        curve's own file name; the model and the profile then use that file. Returns it, or None (and
        nothing moved) where a latency would not stay above 0."""
        if self.host_dir is None:
            raise ValueError("shift_tier needs the model's host_dir")
        src = Path(self.tiers[name]["curve"])
        curve = pd.read_csv(src)
        curve["latency_ns"] = curve["latency_ns"] + offset_ns
        if (curve["latency_ns"] <= 0).any():
            return None
        out = self.host_dir / "model-curves" / src.name
        out.parent.mkdir(exist_ok=True)
        curve.to_csv(out, index=False, float_format="%.6g")
        self.tiers[name] = {**self.tiers[name], "curve": str(out.resolve())}
        self._cache.clear()
        self.notes.append(f"{src.stem}: model-curves/{src.name} has every latency of the {name} tier's curve moved by "
                          f"{offset_ns:+.4g} ns: {why}")
        return out

    def default(self, option: str) -> float:
        """tiersim's default of one of its options (``--help`` says "(default N)"), for a fit that
        needs a value tiersim uses but the host does not set."""
        if not hasattr(self, "_help"):
            p = subprocess.run([self.tiersim, "--help"], cwd=self.cwd, capture_output=True, text=True, check=False)
            self._help = p.stdout + p.stderr
        m = re.search(rf"--{re.escape(option)}\b[^\n]*\(default ([0-9.eE+-]+)\)", self._help)
        if not m:
            raise ConfigError(f"tiersim --help does not give the default of --{option}")
        return float(m.group(1))

    def run(self, argv: list[str]) -> dict[str, float]:
        """tiersim's summary (metric -> value) of one run: ``argv`` without the binary."""
        key = tuple(argv)
        if key not in self._cache:
            p = subprocess.run([self.tiersim, *argv, "--no-timing"], cwd=self.cwd, capture_output=True, text=True,
                               check=False)
            if p.returncode != 0:
                raise ConfigError(f"tiersim {' '.join(argv)}: {p.stderr.strip() or p.stdout.strip()}")
            out = {}
            for line in p.stdout.splitlines()[1:]:
                t, metric, value, _ = line.split(",", 3)
                if t == "":
                    out[metric] = float(value)
            self._cache[key] = out
        return self._cache[key]

    def single_node(self, *, workload: list[str], app_cores: int, antagonist_threads: int, extra: list[str] = (),
                    duration_s: int = 2) -> dict[str, float]:
        """A workload alone in the default tier (a one-node contention point): static placement,
        everything in the default tier, ``antagonist_threads`` antagonist cores on it."""
        argv = ["--system", "static", *self.tier_args(default_gib=1024, alternate_gib=1024), *workload,
                "--app-cores", str(app_cores), "--antagonist-cores-per-unit", "1",
                "--intensity", str(antagonist_threads), "--duration", str(duration_s), "--average-last", "1",
                *extra]
        return self.run(argv)

    def runs(self) -> int:
        return len(self._cache)


def cpu_share(model: Model, family: str, experiment: str, point: str, reps: list[int], role: str,
              cores: int) -> float | None:
    """The share of its CPUs a measured workload ran on, averaged over the point's repetitions: its
    CPU time (user + system, meta.json's ``usage`` of the role) over its wall time times its cores,
    at most 1; None where no repetition's meta.json has it. On a machine shared with other work a
    workload that got half its CPU time does half its work, whatever its memory does: the model's
    throughput is scaled by it (docs/fidelity.md). Where the usage says what had been used when
    the workload became ready (``ready``: scenario.HostRun.watch_ready), only what came after
    counts: the measured phase, not a start-up that waited for its input on disk."""
    if not model.cpu_share:
        return None
    out = []
    for rep in reps:
        u = (model.meta(family, experiment, point, rep).get("usage") or {}).get(role) or {}
        if (share := usage_share(u, cores)) is not None:
            out.append(share)
    return sum(out) / len(out) if out else None


# The shortest measured phase (from the ready note to the exit) whose CPU share is used: CPU times
# come in clock ticks (10 ms where USER_HZ is 100, proc(5)), two readings of them bound the share
# to within 2 % from 1 s; below it the whole run counts.
MIN_PHASE_S = 1.0


def usage_share(u: dict, cores: int) -> float | None:
    """One run's CPU share (:func:`cpu_share`) from its usage; None without a wall time."""
    cpu, wall = u.get("user_s", 0) + u.get("system_s", 0), u.get("wall_s") or 0
    r = u.get("ready") or {}
    if r.get("wall_s") is not None and wall - r["wall_s"] >= MIN_PHASE_S:
        cpu, wall = cpu - r.get("user_s", 0) - r.get("system_s", 0), wall - r["wall_s"]
    if not wall > 0:
        return None
    return min(1.0, max(cpu, 0.0) / (wall * max(cores, 1)))


def fidelity_modules() -> list:
    import families  # noqa: PLC0415 - families import the harness

    return families.modules("fidelity")


def measurements(host_dir: Path, inputs: list[Path]) -> pd.DataFrame:
    """The host's measured rows: the given files, else HOST_DIR/measurements.csv, else every
    result.csv under it."""
    if not inputs:
        whole = host_dir / "measurements.csv"
        inputs = [whole] if whole.exists() else sorted(host_dir.glob("**/result.csv"))
    if not inputs:
        return pd.DataFrame()
    for f in inputs:
        if not Path(f).is_file():
            raise ConfigError(f"{f}: " + ("not a file" if Path(f).exists() else "no such file"))
    df = load(inputs)
    return df[df["backend"] != "model"] if "backend" in df.columns else df


def skip_reason(facts: dict) -> str | None:
    prof = facts.get("profile") or {}
    if prof.get("functional"):
        return (f"host {prof.get('name')} is functional (an emulated guest): its timings mean nothing, so the model "
                "is not scored against them")
    if prof.get("backend") == "model":
        return f"host {prof.get('name')} is a model profile: nothing measured to score the model against"
    return None


def model_profile(host: str, tiers: list[dict], fits: list[Fit], notes: list[str]) -> dict:
    """``model-profile.yaml``: a host profile of model tiers that is this host (hosts/schema.yaml)."""
    prof = {"name": f"{host}-model",
            "description": f"host {host} as the tier model sees it: its own measured loaded-latency curves "
                           "(results/<host>/curves/), fitted values in calibration",
            "tiers": [{k: t[k] for k in ("name", "kind", "curve", "capacity_gib")} for t in tiers],
            "cpus": {"cores_per_unit": 1}}
    if fits:
        prof["calibration"] = {f.name: f.entry() for f in fits}
    head = "".join(f"# {n}\n" for n in notes)
    return {"text": f"# Written by workflows.harness.fidelity: {host}'s own model (docs/fidelity.md).\n{head}" +
            yaml.safe_dump(prof, sort_keys=False, width=120), "data": prof}


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def run(host_dir: Path, inputs: list[Path], *, tiersim: str | Path = TIERSIM, expect: str | None = None,
        ablate: tuple[str, ...] = (), opt_in: tuple[str, ...] = ()) -> str:
    """Write HOST_DIR/fidelity.csv and model-profile.yaml (or fidelity.skipped); returns a summary.
    ``expect``: the file the workflow's rule needs: ``skipped`` (the plan measures nothing to
    compare: skip, saying why) or ``csv`` (when it is skipped after all, fidelity.skipped says why and
    fidelity.csv is a header without rows). ``ablate`` (bench/bench_fidelity.py): ``observed`` (no
    wall raised by another family's measured bandwidth), ``cpu-share`` (throughputs not scaled by
    the CPU share the workload got); any other name is passed to the families' hooks as
    ``model.ablate``. ``opt_in``: fits the families' hooks make only when asked (``model.opt_in``;
    bench/bench_fidelity.py), e.g. ``latency-offset``."""
    facts_file = host_dir / "host_facts.json"
    if not facts_file.exists():
        raise ConfigError(f"{host_dir}: no host_facts.json (not a results directory of a host)")
    try:
        facts = json.loads(facts_file.read_text())
    except (OSError, ValueError) as e:
        raise ConfigError(f"{facts_file}: not a host facts file ({e})") from None
    if not isinstance(facts, dict):
        raise ConfigError(f"{facts_file}: not a host facts file (a JSON {type(facts).__name__}, not an object)")
    host = (facts.get("profile") or {}).get("name") or host_dir.name
    out, skipped = host_dir / "fidelity.csv", host_dir / "fidelity.skipped"
    mods = fidelity_modules()

    def skip(why: str) -> str:
        out.unlink(missing_ok=True)
        (host_dir / "model-profile.yaml").unlink(missing_ok=True)
        write_atomic(skipped, why + "\n")
        if expect == "csv":
            write_atomic(out, ",".join(COLUMNS) + "\n")
        return f"{skipped}: not scored: {why}"

    why = skip_reason(facts)
    if expect == "skipped" and not why:
        why = "no measured point of this host is one the model can be compared with (nothing planned)"
    if why:
        return skip(why)
    df = measurements(host_dir, inputs)
    observed = [o for m in mods if hasattr(m, "observed") and not df.empty and "observed" not in ablate
                for o in m.observed(df, host_dir)]
    tiers, notes, walls = None, [], {}
    for m in mods:
        if hasattr(m, "tiers"):
            tiers = m.tiers(host_dir, facts, notes, walls, observed, df)
            if tiers:
                break
    if not tiers:
        return skip("no loaded-latency curves of this host usable as model tiers" + (f" ({'; '.join(notes)})" if notes else "") + ": no model of it")
    model = Model({t["name"]: {"curve": str((host_dir / t["curve"]).resolve()), "capacity_gib": t["capacity_gib"]}
                   for t in tiers}, tiersim=tiersim, host_dir=host_dir)
    model.cpu_share = "cpu-share" not in ablate
    model.ablate = frozenset(ablate)
    model.opt_in = frozenset(opt_in)
    fits: list[Fit] = []
    for m in mods:
        if hasattr(m, "calibrate") and not df.empty:
            for f in m.calibrate(df, model):
                if f.name not in {g.name for g in fits}:
                    model.calibration[f.name] = f
                    fits.append(f)
    for t in tiers:  # a calibration that moved a tier's curve (Model.shift_tier): the profile names the moved one
        moved = Path(model.tiers[t["name"]]["curve"])
        if moved != (host_dir / t["curve"]).resolve():
            t["curve"] = str(moved.relative_to(host_dir.resolve()))
    notes += model.notes
    rows = [r for f in fits for r in f.rows]
    for m in mods:
        if hasattr(m, "rows") and not df.empty:
            rows += m.rows(df, model)
    if not rows:
        return skip("no measured point here that the model can be compared with")
    curve_fits = [Fit(name, "", v, "MB/s", [pt], "the most bandwidth measured at that read ratio on that memory: the "
                      "wall of the model's curve there, where the loaded-latency sweep reached less")
                  for name, (v, pt) in walls.items()]
    mp = model_profile(host, tiers, curve_fits + fits, notes)
    write_atomic(host_dir / "model-profile.yaml", mp["text"])
    frame = pd.DataFrame(rows, columns=COLUMNS)
    buf = frame.to_csv(index=False, float_format="%.6g")
    write_atomic(out, buf)
    skipped.unlink(missing_ok=True)
    v = frame[frame["role"] == "validation"]
    med = v["rel_error"].abs().median() if len(v) else float("nan")
    return (f"{out}: {len(frame)} rows ({len(v)} validation, {(frame['role'] == 'calibration').sum()} calibration, "
            f"{(frame['role'] == 'unrepresented').sum()} unrepresented); median |error| {med:.1%} over {len(v)} "
            f"validation rows; {model.runs()} tiersim runs")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-dir", required=True, type=Path, help="results/<host>")
    ap.add_argument("--tiersim", default=TIERSIM, help="the tiersim binary (default build/bin/tiersim)")
    ap.add_argument("--expect", choices=("csv", "skipped"), default=None,
                    help="the file the workflow's rule needs (fidelity.csv or fidelity.skipped)")
    ap.add_argument("--ablate", action="append", default=[],
                    help="leave out one model input (for bench/bench_fidelity.py; not for results): observed, "
                         "cpu-share, or a name a family's hook reads (docs/fidelity.md)")
    ap.add_argument("--with", dest="opt_in", action="append", default=[],
                    help="make one fit that is not made by default (for bench/bench_fidelity.py; not for results): "
                         "latency-offset (docs/fidelity.md)")
    ap.add_argument("inputs", nargs="*", type=Path, help="measured rows (result.csv or measurements.csv)")
    args = ap.parse_args(argv)
    try:
        print(run(args.host_dir, args.inputs, tiersim=args.tiersim, expect=args.expect, ablate=tuple(args.ablate),
                  opt_in=tuple(args.opt_in)))
    except ConfigError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
