"""The apps family's single-node contention beside tiersim's prediction for it
(workflows/harness/fidelity.py's hooks; docs/fidelity.md).

Each application's measured metric at intensity k relative to its own 0x run (``slowdown_vs_0x``:
the 0x performance over the k performance, > 1 = slower; PageRank's metric is a time, Silo's and
CacheBench's a rate) beside the same ratio of tiersim's throughput for the application's access
model (families/apps/models.yaml: workload, object size, op) with the application's threads as
cores and the point's antagonist threads, everything in the default tier (the node's own curves).
The application's lines in flight and think time are the access models' (tiersim's defaults, as
the apps family models them: not fitted here); the antagonist's lines in flight are the host's
fitted value. The 0x row is the ratio's reference (1 by definition): listed as calibration.

On a two-tier host the family's runs on real tiers (real.py: each application under a tiering
system, with and without Colloid, at each intensity) are compared as two ratios of the application's
own metric, each beside the same ratio of tiersim's throughput for its access model under that
system on the host's two tiers (the default tier held to tierd's ``--capacity``, the working set the
point's own footprint, its threads as cores, the antagonist's threads on the default tier):
``slowdown_vs_0x`` (a point against the same system and Colloid mode at 0x, whose row is the ratio's
reference: calibration) and ``colloid_speedup`` (with Colloid against without, at the same
intensity: the Colloid paper's own comparison). An application bound to the alternate tier at start
(real.py's ``start_tier``) starts there in tiersim too (``--start-tier alternate``), so the policy's
first promotions are in both.

Listed as unrepresented, with the reason: an application that reported neither known metric, and a
run on real tiers with neither ratio (no 0x run of its system and mode, no run of the other mode) or
without the metric its application's other runs reported.
"""

from __future__ import annotations

import pandas as pd

import systems
from workflows.harness import cpulist
from workflows.harness.fidelity import (
    MIN_PHASE_S,
    Fit,
    Model,
    bisect,
    cpu_share,
    listed,
    point_rows,
    row,
    spread,
    switched_on,
)

from . import model as access_models

NAME = "apps"
# each application's measured metric and whether higher is better (figures/app_contention.py's)
METRICS = {"average_trial_time": False, "throughput": True}
# the per-interval values each metric comes from (the first series a point has: Silo's per-second
# throughput, CacheBench's op_throughput between progress lines), and the column that orders them (its spread)
SERIES = {"average_trial_time": (("trial_time",), "trial"), "throughput": (("throughput", "op_throughput"), "t_s")}


def summary(df: pd.DataFrame, contention: bool = True) -> pd.DataFrame:
    """The family's measured summary rows: of its single-node contention points, else of every other
    experiment (its runs on real tiers)."""
    d = df[(df["family"] == NAME) & ((df["experiment"] == "contention_single_node") == contention)]
    if "backend" in d.columns:
        d = d[d["backend"] != "model"]
    return d[d["t_s"].isna() & d["value"].notna()]


REAL = "steady_state"  # the experiment of the family's runs on real tiers (real.py)


def unrepresented(g: pd.DataFrame, experiment: str, app: str, why: str) -> list[dict]:
    """Each point of ``g`` listed (role unrepresented, with ``why``) by the application's metric where
    it reported one (METRICS), else by every number it has."""
    out = []
    for pid, gp in g.groupby("point", sort=False):
        known = gp[gp["metric"].isin(list(METRICS))]
        out += listed(known if len(known) else gp, point=str(pid), experiment=experiment, family=NAME, workload=app,
                      reason=why)
    return out


def cores(argv: dict, d: pd.DataFrame) -> int | None:
    """The application's threads: its app_threads column, else the CPUs it is bound to."""
    if "app_threads" in d.columns and d["app_threads"].notna().any():
        return int(d["app_threads"].dropna().iloc[0])
    for a in argv.values():
        for x in a:
            if str(x).startswith("--physcpubind="):
                return len(cpulist.parse(str(x).split("=", 1)[1]))
    return None


def antagonist_problem(argv: dict) -> str | None:
    from families.tiering.fidelity import antagonist_problem as same  # noqa: PLC0415 - one antagonist model

    return same(argv)


def duty_of(argv: dict) -> float:
    from families.tiering.fidelity import duty_of as same  # noqa: PLC0415 - one antagonist model

    return same(argv)


def on_real_tiers(model: Model, system: str, colloid: bool, argv: dict, bound: str | None, target: str | None) -> list[str]:
    from families.tiering.fidelity import on_real_tiers as same  # noqa: PLC0415 - one rule for runs on real tiers

    return same(model, system, colloid, argv, bound, target)


def antagonist_options(model: Model, share: float | None, duty: float, skip: tuple[str, ...]):
    from families.tiering.fidelity import antagonist_options as same  # noqa: PLC0415 - one antagonist model

    return same(model, share, duty, skip)


def workload(m: dict, working_set: str | None = None) -> list[str]:
    """tiersim's workload options for access model ``m`` (its working set, or ``working_set``: a
    point's own footprint, the hot set the same share of it)."""
    ws_arg = working_set or m["working_set"]
    ws = access_models.gib(ws_arg)
    hot = f"{max(1, round(ws * 1024 * m['hot_fraction']))}M"
    a = ["--workload", m["workload"], "--working-set", ws_arg, "--hot-set", hot]
    a += ["--hot-share", f"{m['hot_share']:g}"] if m["workload"] == "gups" else ["--zipf-theta", f"{m['zipf_theta']:g}"]
    return a + ["--object-size", str(m["object_bytes"]), "--op", m["op"]]


def calibrate(df: pd.DataFrame, model: Model) -> list[Fit]:
    """The antagonist's lines in flight, from its own bandwidth at the highest intensity beside the
    first application, where no other family fitted it."""
    if "antagonist_mlp" in model.calibration:
        return []
    d = summary(df)
    bw = d[d["metric"] == "antagonist_bandwidth"]
    table = access_models.models()
    for app, g in bw.sort_values(["threads", "intensity"], ascending=False).groupby("workload", sort=False):
        top = g.iloc[0]
        argv = model.meta(NAME, "contention_single_node", top["point"]).get("argv") or {}
        if duty_of(argv) < 1:
            continue
        n = cores(argv, d[d["point"] == top["point"]])
        if app not in table or n is None or antagonist_problem(argv) or int(top["threads"]) == 0:
            continue
        target = float(g[g["point"] == top["point"]]["value"].mean())

        def bw_at(m: float, app=app, n=n, top=top) -> float:
            return model.single_node(workload=workload(table[app]), app_cores=n, antagonist_threads=int(top["threads"]),
                                     extra=["--antagonist-mlp", f"{m:.6g}"])["antagonist_bandwidth"]

        v = bisect(bw_at, target, 0.05, 1024)
        f = Fit("antagonist_mlp", "--antagonist-mlp", v, "lines", [f"{NAME}/contention_single_node/{top['point']}"],
                f"the antagonist's own measured bandwidth beside {app} at the highest intensity")
        f.rows = [row(point=top["point"], experiment="contention_single_node", family=NAME, workload="antagonist",
                      metric="antagonist_bandwidth_mbps", unit="MB/s", measured=target, predicted=bw_at(v),
                      role="calibration", reason=f"fitted antagonist_mlp = {v:.3g} lines in flight per antagonist core",
                      spread=spread(point_rows(df, NAME, "contention_single_node", top["point"]), "antagonist_bandwidth"))]
        return [f]
    return []


def role_of(meta: dict, app: str) -> str:
    """The application's role in a point's meta.json (its program's name: silo's is silo-dbtest): the
    one role whose CPU usage the harness records (families/apps: only the application's role asks for
    it), else the first that is neither the antagonist nor tierd."""
    argv, usage = meta.get("argv") or {}, meta.get("usage") or {}
    if app in argv:
        return app
    measured = [r for r in argv if r in usage]
    return measured[0] if len(measured) == 1 else next((r for r in argv if r not in ("antagonist", "tierd")), app)


def share_of(model: Model, g: pd.DataFrame, pid: str, app: str, cores_: int, exp: str = "contention_single_node") -> float:
    """The CPU share the application's program got at a point (its meta.json's usage), 1 without it."""
    role = role_of(model.meta(NAME, exp, pid), app)
    reps = sorted({int(r) for r in g[g["point"] == pid]["rep"].dropna()}) or [0]
    return cpu_share(model, NAME, exp, pid, reps, role, cores_) or 1.0


def ratio_spread(df: pd.DataFrame, app: str, metric: str, pids: list[str], exp: str = "contention_single_node") -> float | None:
    """The spread of a ratio of two points' metric: the sum of each one's (to first order), None
    unless both have one."""
    names, order = SERIES[metric]

    def one(q: str) -> float | None:
        g = point_rows(df, NAME, exp, q)
        g = g[g["workload"] == app]
        return next((x for n in names if (x := spread(g, metric, n, order)) is not None), None)

    s = [one(q) for q in pids]
    return None if None in s else sum(s)


def rows(df: pd.DataFrame, model: Model) -> list[dict]:
    d = summary(df)
    table = access_models.models()
    out = []
    exp = "contention_single_node"
    for app, g in d.groupby("workload", sort=False):
        metric = next((m for m in METRICS if (g["metric"] == m).any()), None)
        if metric is None:
            out += unrepresented(g, exp, app, f"{app} reported neither of the apps family's metrics "
                                              f"({', '.join(METRICS)}): no slowdown_vs_0x to compare with the model")
            continue
        perf = g[g["metric"] == metric].groupby("point", sort=False).agg(value=("value", "mean"), threads=("threads", "first"))
        base = perf[perf["threads"] == 0]
        for pid, r in perf.sort_values("threads").iterrows():
            k = int(r["threads"])
            common = dict(point=pid, experiment=exp, family=NAME, workload=app, metric="slowdown_vs_0x", unit="ratio")
            if base.empty:
                out.append(row(**common, measured=float("nan"), predicted=None, role="unrepresented",
                               reason=f"no 0x run of {app} to relate this point to"))
                continue
            x0 = float(base["value"].iloc[0])
            measured = (x0 / r["value"]) if METRICS[metric] else (r["value"] / x0)
            if k == 0:
                out.append(row(**common, measured=measured, predicted=1.0, role="calibration",
                               reason=f"the reference of the ratio: {app} alone ({metric} {x0:.4g}); 1 by definition"))
                continue
            argv = model.meta(NAME, exp, pid).get("argv") or {}
            n = cores(argv, g[g["point"] == pid])
            why = None
            if app not in table:
                why = f"{app} has no access model in families/apps/models.yaml"
            elif n is None:
                why = f"{app}'s threads are not in its rows nor in its meta.json"
            else:
                why = antagonist_problem(argv)
            if why:
                out.append(row(**common, measured=measured, predicted=None, role="unrepresented", reason=why))
                continue
            w = workload(table[app])
            duty = duty_of(argv)  # a duty-cycled antagonist: the time-weighted mix of its two states
            ant_share = g[(g["point"] == pid) & (g["metric"] == "antagonist_cpu_share")]["value"]
            skip, ant = antagonist_options(model, float(ant_share.mean()) if len(ant_share) else None, duty, ("app_mlp",))
            opts = [*model.options(skip, app), *ant]
            x = [model.single_node(workload=w, app_cores=n, antagonist_threads=t, extra=opts)["throughput"] for t in (0, k)]
            x[1] = duty * x[1] + (1 - duty) * x[0]
            # each run's throughput scaled by the CPU share the application got there (docs/fidelity.md)
            share = [share_of(model, g, q, app, n) for q in (base.index[0], pid)]
            out.append(row(**common, measured=measured, predicted=(x[0] * share[0]) / (x[1] * share[1]), role="validation",
                           spread=ratio_spread(df, app, metric, [base.index[0], pid])))
    return out + two_tier_rows(df, model)


ONE_TIER = "the host's model profile has one tier (no far node's curve): a run on two tiers needs both"


def footprint_mib(model: Model, g: pd.DataFrame, pid: str) -> float | None:
    """The point's footprint: its rows' ``footprint_mib`` column or row, else its meta.json's."""
    p = g[g["point"] == pid]
    if "footprint_mib" in p.columns and p["footprint_mib"].notna().any():
        return float(p["footprint_mib"].dropna().iloc[0])
    row_ = p[p["metric"] == "footprint_mib"]["value"]
    if len(row_):
        return float(row_.iloc[0])
    v = (model.meta(NAME, REAL, pid).get("point") or {}).get("footprint_mib")
    return float(v) if v else None


def predict_real(model: Model, g: pd.DataFrame, pid: str, app: str, system: str, colloid: bool) -> tuple[float | None, str]:
    """tiersim's throughput for one run of ``app`` on real tiers (its access model under the run's
    system and Colloid mode on the host's two tiers: the run's threads, footprint, antagonist and
    default-tier capacity), times the CPU share the application got there; or (None, why not)."""
    meta = model.meta(NAME, REAL, pid)
    argv = meta.get("argv") or {}
    table = access_models.models()
    n = cores(argv, g[g["point"] == pid])
    fp = footprint_mib(model, g, pid)
    if not model.two_tier:
        return None, ONE_TIER
    if system not in systems.names():
        return None, f"system {system!r} is not in the registry (systems/): tiersim has no policy for it"
    if app not in table:
        return None, f"{app} has no access model in families/apps/models.yaml"
    if n is None:
        return None, f"{app}'s threads are not in its rows nor in its meta.json"
    if not fp:
        return None, f"{app}'s footprint is not in its rows nor in its meta.json: the model's working set is the run's own"
    why = antagonist_problem(argv)
    if why:
        return None, why
    from families.tiering.fidelity import antagonist_threads, target_of  # noqa: PLC0415 - one antagonist model

    threads = antagonist_threads(argv)
    duty = duty_of(argv)
    ant_share = g[(g["point"] == pid) & (g["metric"] == "antagonist_cpu_share")]["value"]
    skip, ant = antagonist_options(model, float(ant_share.mean()) if len(ant_share) else None, duty, ("app_mlp",))
    # simulated for the application's measured phase, every second averaged: its wall time (meta.json's
    # usage) after its ready line, when tierd attached (scenario.py: the attach roles start once the
    # workload is ready) and from when its CPU share counts (usage_share); its whole wall time without
    # one; 10 s where a run records none, as a guest's do
    role = role_of(meta, app)
    u = (meta.get("usage") or {}).get(role) or {}
    wall, ready = u.get("wall_s"), (u.get("ready") or {}).get("wall_s")
    if wall and ready is not None and wall - ready >= MIN_PHASE_S:
        wall -= ready
    dur = max(2, round(float(wall))) if wall else 10
    bound = next((str(x).split("=", 1)[1] for x in argv.get(role) or [] if str(x).startswith("--membind=")), None)
    base = [*on_real_tiers(model, system, colloid, argv, bound, target_of(g[g["point"] == pid])),
            *workload(table[app], f"{round(fp * 1024)}K"), "--app-cores", str(n),
            "--antagonist-cores-per-unit", "1", "--duration", str(dur), "--average-last", str(dur),
            *model.options(skip, app), *ant]

    def x(t: int) -> float:
        return model.run([*base, "--intensity", str(t)])["throughput"]

    on = x(threads)
    mixed = on if duty >= 1 or not threads else duty * on + (1 - duty) * x(0)
    return mixed * share_of(model, g, pid, app, n, REAL), ""


def two_tier_rows(df: pd.DataFrame, model: Model) -> list[dict]:
    """The family's runs on real tiers, each application's metric as two ratios beside tiersim's
    (module docstring): ``slowdown_vs_0x`` against the same system and mode at 0x, and
    ``colloid_speedup`` against the same system without Colloid at the same intensity."""
    out = []
    for (exp, app), g in summary(df, contention=False).groupby(["experiment", "workload"], sort=False, dropna=False):
        exp, app = str(exp), ("" if pd.isna(app) else str(app))
        metric = next((m for m in METRICS if (g["metric"] == m).any()), None)
        if metric is None:
            out += unrepresented(g, exp, app, f"{app} reported neither of the apps family's metrics ({', '.join(METRICS)}): "
                                              "no ratio to compare with the model")
        elif exp != REAL:
            out += unrepresented(g, exp, app, f"the apps family's {exp} runs have no fidelity hook (only {REAL})")
        else:
            out += real_rows(df, model, app, g, metric)
    return out


def real_rows(df: pd.DataFrame, model: Model, app: str, g: pd.DataFrame, metric: str) -> list[dict]:
    """:func:`two_tier_rows` for one application's runs on real tiers (``g``: its summary rows)."""
    m = g[g["metric"] == metric].groupby("point", sort=False)
    perf = pd.DataFrame({"value": m["value"].mean(), "system": m["system"].first().astype(str),
                         "colloid": m["colloid"].first().map(switched_on), "k": m["intensity"].first().astype(float)})
    pred: dict[str, tuple[float | None, str]] = {}

    def better(a: str, b: str) -> float:
        """How much better (faster) point ``b`` ran than point ``a``, by the application's metric."""
        va, vb = perf.at[a, "value"], perf.at[b, "value"]
        return vb / va if METRICS[metric] else va / vb

    def predicted(pid: str) -> tuple[float | None, str]:
        if pid not in pred:
            pred[pid] = predict_real(model, g, pid, app, perf.at[pid, "system"], bool(perf.at[pid, "colloid"]))
        return pred[pid]

    def compare(pid: str, ref: str, name: str) -> dict:
        # slowdown_vs_0x: how much better the 0x reference ran; colloid_speedup: how much better this one did
        measured = better(pid, ref) if name == "slowdown_vs_0x" else better(ref, pid)
        common = dict(point=pid, experiment=REAL, family=NAME, workload=app, metric=name, unit="ratio", measured=measured,
                      spread=ratio_spread(df, app, metric, [ref, pid], REAL))
        (xp, why_p), (xr, why_r) = predicted(pid), predicted(ref)
        if xp is None or xr is None:
            return row(**common, predicted=None, role="unrepresented", reason=why_p or why_r)
        return row(**common, predicted=xr / xp if name == "slowdown_vs_0x" else xp / xr, role="validation")

    # a point of the application's without its metric (its other points have it): listed, not dropped
    out = unrepresented(g[~g["point"].isin(perf.index)], REAL, app,
                        f"{app} reported no {metric} at this point (its other runs did): no ratio to compare with the model")
    for pid, r in perf.iterrows():
        pid = str(pid)
        mode = f"{r['system']} {'with' if r['colloid'] else 'without'} Colloid"
        ref = perf[(perf["system"] == r["system"]) & (perf["colloid"] == r["colloid"]) & (perf["k"] == 0)]
        twin = perf[(perf["system"] == r["system"]) & ~perf["colloid"] & (perf["k"] == r["k"])]
        mine = []
        if r["k"] == 0 and not model.two_tier:  # no ratio of this family's is predicted: nor is its reference
            mine.append(row(point=pid, experiment=REAL, family=NAME, workload=app, metric="slowdown_vs_0x", unit="ratio",
                            measured=1.0, predicted=None, role="unrepresented", reason=ONE_TIER))
        elif r["k"] == 0:
            mine.append(row(point=pid, experiment=REAL, family=NAME, workload=app, metric="slowdown_vs_0x", unit="ratio",
                            measured=1.0, predicted=1.0, role="calibration",
                            reason=f"the reference of the ratio: {app} under {mode} at 0x ({metric} {r['value']:.4g}); "
                                   "1 by definition"))
        elif len(ref):
            mine.append(compare(pid, str(ref.index[0]), "slowdown_vs_0x"))
        if r["colloid"] and len(twin):
            mine.append(compare(pid, str(twin.index[0]), "colloid_speedup"))
        out += mine or unrepresented(g[g["point"] == pid], REAL, app,
                                     f"neither ratio has its reference here: no run of {app} under {mode} at 0x, and "
                                     f"{'no run without Colloid at this intensity' if r['colloid'] else 'it ran without Colloid'}")
    return out
