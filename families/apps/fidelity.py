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

Listed as unrepresented, with the reason: an application that reported neither known metric, and
the family's points on real tiers (two-tier hosts, real.py), which no hook predicts yet (TWO_TIER).
"""

from __future__ import annotations

import pandas as pd

from workflows.harness import cpulist
from workflows.harness.fidelity import Fit, Model, bisect, cpu_share, listed, point_rows, row, spread

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


# What an apps point on real tiers (real.py: steady_state under a tiering system, two NUMA tiers) lacks
TWO_TIER = ("the apps family's two-tier points are not predicted yet: no hook runs an application's access model "
            "under the point's system and Colloid mode on the host's two tiers (the application starting in its "
            "start tier, the default tier held to its share of the footprint), and the application's metric is in its "
            "own units, not tiersim's operations, so it needs a measured reference to be compared as a ratio (as "
            "slowdown_vs_0x is on one node), which none of these points has yet")


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


def antagonist_options(model: Model, share: float | None, duty: float, skip: tuple[str, ...]):
    from families.tiering.fidelity import antagonist_options as same  # noqa: PLC0415 - one antagonist model

    return same(model, share, duty, skip)


def workload(m: dict) -> list[str]:
    ws = access_models.gib(m["working_set"])
    hot = f"{max(1, round(ws * 1024 * m['hot_fraction']))}M"
    a = ["--workload", m["workload"], "--working-set", m["working_set"], "--hot-set", hot]
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


def share_of(model: Model, g: pd.DataFrame, pid: str, app: str, cores_: int) -> float:
    """The CPU share the application's program got at a point (its meta.json's usage), 1 without it."""
    argv = model.meta(NAME, "contention_single_node", pid).get("argv") or {}
    role = next((r for r in argv if r != "antagonist"), app)
    reps = sorted({int(r) for r in g[g["point"] == pid]["rep"].dropna()}) or [0]
    return cpu_share(model, NAME, "contention_single_node", pid, reps, role, cores_) or 1.0


def ratio_spread(df: pd.DataFrame, app: str, metric: str, pids: list[str]) -> float | None:
    """The spread of a ratio of two points' metric: the sum of each one's (to first order), None
    unless both have one."""
    names, order = SERIES[metric]

    def one(q: str) -> float | None:
        g = point_rows(df, NAME, "contention_single_node", q)
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
    for (e, app), g in summary(df, contention=False).groupby(["experiment", "workload"], sort=False, dropna=False):
        out += unrepresented(g, str(e), "" if pd.isna(app) else str(app), TWO_TIER)
    return out
