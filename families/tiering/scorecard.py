"""The tiering family's published-number rules: how the scorecard (analysis/scorecard.py)
computes ours for each row of the Colloid paper's figures, from the tiering family's rows.

Rules (source ``colloid-sosp24``; "T" = GUPS ``throughput`` steady-state summary rows, i.e. rows
with empty ``t_s``, averaged over repetitions; gain = T(system + Colloid) / T(system alone) at the
same point):

=============================================  ===============================================
figure / metric (condition)                    ours
=============================================  ===============================================
steady-state / colloid_throughput_gain         range (min..max) of the gain at intensities 1, 2,
(intensity 1x-3x)                              3 (experiment ``steady_state``)
steady-state / colloid_throughput_gain (0x)    the gain at intensity 0
steady-state / gap_to_best_static              max over intensities of 1 - T(system + Colloid) /
                                               best static, best static = max over
                                               ``static_hot_fraction`` of T (``best_static``)
motivation / default_over_alternate_latency    max over HeMem, TPP, MEMTIS without Colloid of
                                               ``latency_default`` / ``latency_alternate`` at the
                                               highest intensity (``steady_state``)
unloaded-latency-heatmap / gain                range of the gain over all intensities at our
                                               largest ``alt_latency_ns`` (``unloaded_latency``)
object-size-heatmap / gain (object >256B, 0x)  range of the gain over ``object_bytes`` > 256 at
                                               intensity 0 (``object_size``)
object-size-heatmap / default_over_alternate   ``latency_default`` / ``latency_alternate`` of
(4096B at 0x)                                  the system alone, 4096 B objects, intensity 0
object-size-heatmap / alternate_bandwidth_     metric ``alternate_bandwidth_utilization`` (if a
utilization (64B vs 4096B at 3x)               run reports it) with Colloid at 3x: 64 B, 4096 B
cpu-overhead / cpu_overhead                    mean ``cpu_overhead`` with Colloid
                                               (``steady_state``): measured policy CPU plus the
                                               modelled monitor core, per app core
convergence / convergence_time                 mean ``convergence_time_s`` with Colloid in
                                               ``contention_change`` (the note adds the
                                               hot-set move at 0x, not scored)
convergence / migration_throughput_cost        largest over intensities of 1 - X(steady_state)
                                               / X(migration_frozen), with Colloid: the same
                                               seeded run with the policy stopped for the
                                               averaging window
=============================================  ===============================================

Tolerances and the scorecard's layout are analysis/scorecard.py's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pandas as pd

import systems
from analysis import reference
from analysis.figures import common
from analysis.figures.common import mean_value, select, summary_rows
from analysis.scorecard import TOL_NO_GAIN, TOL_POINT, Ours, backends, missing, ranged, single

SOURCE = "colloid-sosp24"
BASELINE_SYSTEMS = systems.baselines()  # the "baselines" rows: the registry's (systems/)


def best_static(df: pd.DataFrame) -> pd.DataFrame:
    """Best static placement per intensity: max over ``static_hot_fraction`` of mean throughput.

    Uses family tiering, experiment ``best_static``, metric ``throughput`` summary rows.
    Returns columns ``intensity, value, static_hot_fraction`` (the fraction that won).
    """
    d = summary_rows(select(df, family="tiering", experiment="best_static", metric="throughput"))
    d = d[d["intensity"].notna()]
    if d.empty:
        return pd.DataFrame(columns=["intensity", "value", "static_hot_fraction"])
    m = mean_value(d, ["intensity", "static_hot_fraction"])
    m = m[m["value"].notna()]
    best = m.loc[m.groupby("intensity")["value"].idxmax()]
    return best[["intensity", "value", "static_hot_fraction"]].reset_index(drop=True)


def _throughput(d: pd.DataFrame, experiment: str, system: str | None = None) -> pd.DataFrame:
    t = common.summary_rows(common.select(d, family="tiering", experiment=experiment, metric="throughput", system=system))
    return t[t["value"].notna() & t["colloid"].notna()]


def _at_intensity(cond: str) -> int | None:
    m = re.search(r"at (\d+)x", cond)
    return int(m.group(1)) if m else None


def _steady_gain(row: pd.Series, d: pd.DataFrame) -> Ours:
    m = re.search(r"intensity (\d+)x(?:\s*-\s*(\d+)x)?", row["condition"])
    if not m:
        return missing(f"condition {row['condition']!r} names no intensity")
    lo = int(m.group(1))
    hi = int(m.group(2)) if m.group(2) else lo
    t = _throughput(d, "steady_state", row["system"])
    g = common.gain(t, ["intensity"])
    g = g[(g["intensity"] >= lo) & (g["intensity"] <= hi)]
    if g.empty:
        return missing(f"no steady_state throughput of {row['system']} with and without Colloid at {lo}x-{hi}x")
    ints = ", ".join(f"{i:g}x" for i in g["intensity"])
    if lo == hi:
        tol = TOL_NO_GAIN if row["low"] == row["high"] == 1.0 else None
        return single(g["gain"].mean(), row, [t], f"gain at {ints}", tol)
    return ranged(g["gain"], [t], f"gain at {ints}")


def _gap_to_best_static(row: pd.Series, d: pd.DataFrame) -> Ours:
    best = best_static(d)
    if best.empty:
        return missing("no best_static throughput rows")
    t = _throughput(d, "steady_state", row["system"])
    on = common.mean_value(t[common.colloid_is(t, True)], ["intensity"])
    m = on.merge(best, on="intensity", suffixes=("_on", "_best"))
    m = m[m["value_best"] > 0]
    if m.empty:
        return missing(f"no steady_state throughput of {row['system']} + Colloid at a best_static intensity")
    gap = 1 - m["value_on"] / m["value_best"]
    worst = m.loc[gap.idxmax(), "intensity"]
    used = [t, common.select(d, family="tiering", experiment="best_static")]
    return single(gap.max(), row, used, f"max over {len(m)} intensities, at {worst:g}x")


def _ratio_ld_la(t: pd.DataFrame) -> pd.DataFrame:
    """latency_default / latency_alternate per system (means over reps)."""
    m = common.mean_value(t, ["system", "metric"]).pivot_table(index="system", columns="metric", values="value")
    if not {"latency_default", "latency_alternate"} <= set(m.columns):
        return pd.DataFrame(columns=["system", "ratio"])
    m = m[m["latency_alternate"] > 0]
    return (m["latency_default"] / m["latency_alternate"]).rename("ratio").reset_index()


def _systems_for(row: pd.Series) -> list[str] | str:
    """The published row's system, or all three baselines for the "baselines" rows."""
    return BASELINE_SYSTEMS if row["system"] == "baselines" else row["system"]


def _motivation_latency(row: pd.Series, d: pd.DataFrame) -> Ours:
    t = common.summary_rows(common.select(d, family="tiering", experiment="steady_state",
                                          metric=["latency_default", "latency_alternate"], system=_systems_for(row)))
    t = t[t["value"].notna() & common.colloid_is(t, False) & t["intensity"].notna()]
    if t.empty:
        return missing("no steady_state latency_default/latency_alternate rows of the baselines without Colloid")
    top = t["intensity"].max()
    t = t[t["intensity"] == top]
    r = _ratio_ld_la(t)
    if r.empty:
        return missing(f"no latency_default and latency_alternate pair at {top:g}x")
    best = r.loc[r["ratio"].idxmax()]
    return single(best["ratio"], row, [t], f"max over baselines at {top:g}x ({best['system']})")


def _unloaded_latency_gain(row: pd.Series, d: pd.DataFrame) -> Ours:
    t = _throughput(d, "unloaded_latency", row["system"])
    t = t[t["alt_latency_ns"].notna()]
    if t.empty:
        return missing(f"no unloaded_latency throughput rows of {row['system']}")
    top = t["alt_latency_ns"].max()
    t = t[t["alt_latency_ns"] == top]
    g = common.gain(t, ["intensity"])
    if g.empty:
        return missing(f"no unloaded_latency rows with and without Colloid at {top:g} ns")
    return ranged(g["gain"], [t], f"our largest alternate latency, {top:g} ns; {len(g)} intensities")


def _object_gain(row: pd.Series, d: pd.DataFrame) -> Ours:
    cond = row["condition"]
    i = _at_intensity(cond)
    t = _throughput(d, "object_size", row["system"])
    t = t[t["object_bytes"].notna()]
    if i is not None:
        t = t[t["intensity"] == i]
    m = re.search(r">\s*(\d+)\s*B", cond)
    if m:
        t = t[t["object_bytes"] > int(m.group(1))]
    else:
        size = reference.object_size(cond)
        if size is not None:
            t = t[t["object_bytes"] == size]
    g = common.gain(t, ["object_bytes"])
    if g.empty:
        return missing(f"no object_size throughput rows of {row['system']} with and without Colloid for {cond!r}")
    sizes = ", ".join(f"{int(s)} B" for s in g["object_bytes"])
    if len(g) == 1:
        return single(g["gain"].iloc[0], row, [t], sizes)
    return ranged(g["gain"], [t], sizes)


def _object_latency_ratio(row: pd.Series, d: pd.DataFrame) -> Ours:
    cond = row["condition"]
    size, i = reference.object_size(cond), _at_intensity(cond)
    t = common.summary_rows(common.select(d, family="tiering", experiment="object_size", system=row["system"],
                                          metric=["latency_default", "latency_alternate"]))
    t = t[t["value"].notna() & common.colloid_is(t, False)]
    if size is not None:
        t = t[t["object_bytes"] == size]
    if i is not None:
        t = t[t["intensity"] == i]
    r = _ratio_ld_la(t)
    if r.empty:
        return missing(f"no object_size latency_default/latency_alternate rows of {row['system']} alone for {cond!r}")
    return single(r["ratio"].iloc[0], row, [t], f"{row['system']} without Colloid")


def _object_alt_bandwidth(row: pd.Series, d: pd.DataFrame) -> Ours:
    cond = row["condition"]
    sizes = [int(s) for s in re.findall(r"(\d+)\s*B", cond)]
    i = _at_intensity(cond)
    # 64 B objects are the steady-state point; the object_size sweep does not repeat it
    t = common.summary_rows(common.select(d, family="tiering", experiment=["object_size", "steady_state"],
                                          system=row["system"], metric="alternate_bandwidth_utilization"))
    t = t[t["value"].notna() & common.colloid_is(t, True)]
    if i is not None:
        t = t[t["intensity"] == i]
    if t.empty or len(sizes) != 2:
        return missing("no alternate_bandwidth_utilization rows (a metric the tiering schema does not require)")
    vals = [t.loc[t["object_bytes"] == s, "value"].mean() for s in sizes]
    if any(pd.isna(v) for v in vals):
        return missing(f"alternate_bandwidth_utilization missing for {sizes[0]} B or {sizes[1]} B")
    return Ours(value=(vals[0] + vals[1]) / 2, low=vals[0], high=vals[1], kind="pair", tolerance=TOL_POINT,
                backend=backends(t), note=f"{sizes[0]} B then {sizes[1]} B, with Colloid")


def _metric_with_colloid(metric: str, experiments: list[str], what: str) -> Callable[[pd.Series, pd.DataFrame], Ours]:
    def rule(row: pd.Series, d: pd.DataFrame) -> Ours:
        t = common.select(d, family="tiering", metric=metric, system=row["system"])
        t = t[t["value"].notna() & common.colloid_is(t, True)]
        for exp in experiments:
            if (t["experiment"] == exp).any():
                t = t[t["experiment"] == exp]
                break
        if t.empty:
            return missing(f"no {metric} rows of {row['system']} + Colloid ({what})")
        exps = ",".join(sorted(t["experiment"].unique()))
        return single(t["value"].mean(), row, [t], f"mean of {len(t)} row(s), {exps}")

    return rule


def _convergence(row: pd.Series, d: pd.DataFrame) -> Ours:
    """Scored on the contention change (0x -> 3x); the hot-set move at 0x, which the paper calls about the same,
    is named in the note beside it."""
    ours = _metric_with_colloid("convergence_time_s", ["contention_change"], "contention_change")(row, d)
    t = common.select(d, family="tiering", metric="convergence_time_s", system=row["system"],
                      experiment="hotset_move")
    t = t[t["value"].notna() & common.colloid_is(t, True) & (t["intensity"] == 0)]
    if not math.isnan(ours.value) and not t.empty:
        ours.note += f"; not scored: after a hot-set move at 0x {t['value'].mean():g} s"
    return ours


def _migration_cost(row: pd.Series, d: pd.DataFrame) -> Ours:
    """1 - X(steady state) / X(same run, policy stopped for the averaging window); largest over intensities."""
    t = common.summary_rows(common.select(d, family="tiering", metric="throughput", system=row["system"],
                                          experiment=["steady_state", "migration_frozen"]))
    t = t[t["value"].notna() & common.colloid_is(t, True)]
    p = t.pivot_table(index="intensity", columns="experiment", values="value", aggfunc="mean")
    if not {"steady_state", "migration_frozen"} <= set(p.columns):
        return missing(f"no migration_frozen and steady_state throughput rows of {row['system']} + Colloid "
                        "(runs with the policy stopped for the averaging window)")
    cost = (1 - p["steady_state"] / p["migration_frozen"]).dropna()
    if cost.empty:
        return missing(f"no intensity with both a steady-state and a frozen run of {row['system']} + Colloid")
    worst = cost.idxmax()
    return single(float(cost.max()), row, [t], f"largest over {len(cost)} intensities, at {worst:g}x; "
                   "1 - steady state / same run with migrations stopped")


RULES = [(SOURCE, figure, metric, rule) for (figure, metric), rule in {
    ("steady-state", "colloid_throughput_gain"): _steady_gain,
    ("steady-state", "gap_to_best_static"): _gap_to_best_static,
    ("motivation", "default_over_alternate_latency"): _motivation_latency,
    ("unloaded-latency-heatmap", "colloid_throughput_gain"): _unloaded_latency_gain,
    ("object-size-heatmap", "colloid_throughput_gain"): _object_gain,
    ("object-size-heatmap", "default_over_alternate_latency"): _object_latency_ratio,
    ("object-size-heatmap", "alternate_bandwidth_utilization"): _object_alt_bandwidth,
    ("cpu-overhead", "cpu_overhead"): _metric_with_colloid("cpu_overhead", ["steady_state"],
                                                           "cpu_overhead: policy CPU + monitor core per app core"),
    ("convergence", "convergence_time"): _convergence,
    ("convergence", "migration_throughput_cost"): _migration_cost,
}.items()]


def _unpublished(d: pd.DataFrame, ref: pd.DataFrame) -> list[dict]:
    """A registered system in the tiering results that no published row names (e.g. DAMON, which
    the Colloid paper predates): one row, "no published number", not scored."""
    t = common.select(d, family="tiering")
    if t.empty or "system" not in t:
        return []
    named = set(ref["system"].astype(str)) | (set(BASELINE_SYSTEMS) if "baselines" in set(ref["system"]) else set())
    out = []
    for name in systems.names():
        if name in named or not (t["system"] == name).any():
            continue
        out.append({"source": SOURCE, "figure": "all", "system": name, "condition": "any", "metric": "any",
                    "unit": "", "note": f"no published number: {SOURCE} evaluates "
                    f"{', '.join(systems.get(b).label for b in BASELINE_SYSTEMS)}; {systems.get(name).label}'s rows "
                    "are in the figures and tables, not scored"})
    return out


UNPUBLISHED = _unpublished
