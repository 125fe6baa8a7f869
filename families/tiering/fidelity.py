"""The tiering family's measured points beside tiersim's prediction for them
(workflows/harness/fidelity.py's hooks; docs/fidelity.md).

Contention (``contention_single_node``): GUPS alone and beside the antagonist on one node (a
one-node host's, or a two-tier host's default node), each point run again in tiersim with its own
parameters (GUPS's CPUs, working and hot set, hot share, object size and op; the antagonist's
threads), everything in the default tier (the node's own curves). Compared: GUPS's throughput, the latency probe's (a one-line pointer chase run
after GUPS, beside the antagonist: in the model a workload of one core with one line in flight and
no think time) and the antagonist's bandwidth.

Calibrated here, on named points only: ``app_mlp`` (GUPS's lines in flight per core) from the
throughput of the 0x point, and ``antagonist_mlp`` (lines in flight per antagonist core) from the
antagonist's own measured bandwidth at the highest intensity. Those rows are role calibration.
When asked (bench fidelity), ``latency_offset_ns`` too: the default tier's curve moved to the level of
the latency probe alone at 0x (:func:`latency_offset`).

Two-tier hosts (steady_state, hotset_move, contention_change measured with tierd or a kernel
mechanism): tiersim with the point's system, Colloid mode, intensity and event, on the host's
local (default) and far (alternate) curves; compared: throughput, each tier's latency, the default
tier's share of accesses (``p``) and, after an event, the convergence time (tiersim's rule,
docs/tier-model.md, applied to GUPS's measured per-second throughput).
"""

from __future__ import annotations

import math

import pandas as pd

import systems
from workflows.harness import cpulist, curvecheck
from workflows.harness.fidelity import Fit, Model, bisect, cpu_share, listed, point_rows, row, spread, switched_on
from workflows.harness.plan import size_bytes
from workloads import flag

NAME = "tiering"
# tiersim's antagonist: 64 B lines, read-modify-write (every line read and written back: 50 % of
# the accesses writes), docs/tier-model.md "Traffic fixed point" (s_b = 128 bytes per line)
MODEL_ANTAGONIST = {"--write-fraction": "50", "--access-size": "64"}
LINE_BYTES = 128  # bytes per antagonist line in tiersim's traffic: 64 read + 64 written back
PROBE = "probe"


def summary(df: pd.DataFrame, family: str, experiments: tuple[str, ...]) -> pd.DataFrame:
    d = df[(df["family"] == family) & df["experiment"].isin(experiments)]
    return d[d["t_s"].isna() & d["value"].notna()] if "t_s" in d.columns else d


def mean(d: pd.DataFrame, point: str, metric: str) -> float | None:
    v = d[(d["point"] == point) & (d["metric"] == metric)]["value"]
    return float(v.mean()) if len(v) else None


def meta_argv(model: Model, family: str, experiment: str, point: str) -> dict:
    """The programs' argv of a measured point (its rep 0 meta.json), {} when it is not there."""
    m = model.meta(family, experiment, point)
    return m.get("argv") or {}


def antagonist_problem(argv: dict) -> str | None:
    a = argv.get("antagonist")
    if not a:
        return None
    for name, want in MODEL_ANTAGONIST.items():
        if flag(a, name, want) != want:
            return (f"the antagonist runs {name} {flag(a, name)}, but tiersim's antagonist is 64 B lines read and "
                    "written back (write fraction 50, access size 64): docs/tier-model.md")
    return None


def duty_of(argv: dict) -> float:
    """The share of each period the point's antagonist streamed (its ``--duty``; 1 without it)."""
    return float(flag(argv.get("antagonist") or [], "--duty", "1"))


def mixed(on: dict[str, float], off: dict[str, float], duty: float) -> dict[str, float]:
    """tiersim's summary for a duty-cycled antagonist: the time-weighted mix of its two steady
    states (streaming ``duty`` of each period, idle the rest; a period of 100 ms is long beside the
    memory's time scales, so each part is a steady state). Rates (throughput, bandwidths) average
    over time; a latency is averaged over the loads, which complete at 1/L in each part:
    1 / (duty / L_on + (1 - duty) / L_off)."""
    if duty >= 1:
        return on
    out = {k: duty * v + (1 - duty) * off.get(k, 0.0) for k, v in on.items()}
    for k in ("latency_default", "latency_alternate"):
        if on.get(k) and off.get(k):
            out[k] = 1 / (duty / on[k] + (1 - duty) / off[k])
    return out


def gups_workload(g: list[str]) -> list[str]:
    return ["--workload", "gups", "--working-set", flag(g, "--working-set"), "--hot-set", flag(g, "--hot-set"),
            "--hot-share", flag(g, "--hot-share", "0.9"), "--object-size", flag(g, "--object-size", "64"),
            "--op", flag(g, "--op", "rmw")]


def probe_workload(argv: dict) -> list[str]:
    """The latency probe as a tiersim workload: a dependent chase, one line in flight, reads only."""
    mibs = flag(argv.get("latency") or [], "--buffer-mib", "256")
    return ["--workload", "gups", "--working-set", f"{mibs}M", "--hot-set", f"{mibs}M", "--hot-share", "1",
            "--object-size", "64", "--op", "read"]


def points(df: pd.DataFrame, model: Model) -> list[dict]:
    """Each contention point once: id, antagonist threads, its argv (or None), why the model cannot
    represent it (or None)."""
    d = summary(df, NAME, ("contention_single_node",))
    out = []
    for pid, g in d.groupby("point", sort=False):
        argv = meta_argv(model, NAME, "contention_single_node", pid)
        why = None
        if not argv.get("gups"):
            why = "GUPS's arguments (the point's meta.json) are not in the results directory"
        else:
            why = antagonist_problem(argv)
        p = {"point": pid, "threads": int(g["threads"].iloc[0]), "intensity": float(g["intensity"].iloc[0]),
             "argv": argv, "why": why, "rows": g, "share": 1.0, "share_of": "none", "duty": duty_of(argv),
             "ant_share": mean(g, pid, "antagonist_cpu_share")}
        if why is None:
            series = point_rows(df, NAME, "contention_single_node", pid)
            series = series[series["t_s"].notna() & (series["metric"] == "app_bandwidth")]
            if len(series):  # GUPS's own traffic: its per-second rows, averaged per repetition, then over them
                p["app_mbps"] = float(series.groupby("rep")["value"].mean().mean())
        if why is None and (got := gups_share(model, g, pid, "contention_single_node", app_cores(p))):
            p["share"], p["share_of"] = got
        out.append(p)
    return sorted(out, key=lambda p: (p["threads"], p["intensity"]))


def gups_share(model: Model, s: pd.DataFrame, pid: str, exp: str, cores: int) -> tuple[float, str] | None:
    """The share of its CPUs GUPS got at a point, and over what: its own ``cpu_share`` row (its CPU
    time over the seconds its throughput is averaged on), else its whole run's from the point's
    meta.json (start-up included); None without either, or when the CPU share is ablated. ``s``:
    the point's summary rows."""
    if not model.cpu_share:
        return None
    window = mean(s, pid, "cpu_share")
    if window is not None and "process-share" not in model.ablate:
        return min(1.0, window), "the measured window"
    reps = sorted({int(r) for r in s["rep"].dropna()}) or [0]
    share = cpu_share(model, NAME, exp, pid, reps, "gups", cores)
    return (share, "the whole run, start-up included") if share is not None else None


def app_cores(p: dict) -> int:
    return len(cpulist.parse(flag(p["argv"]["gups"], "--cpus")))


def antagonist_options(model: Model, share: float | None, duty: float, skip: tuple[str, ...] = ()) -> \
        tuple[tuple[str, ...], list[str]]:
    """(names to leave out of the fitted options, options to add) for a point whose antagonist got
    the CPU share ``share`` (its ``antagonist_cpu_share``, over its whole duty cycle): the fitted
    lines in flight scaled by its share while streaming (``share / duty``, at most 1) over the share
    it had at the calibration point. A program that ran on half its CPU keeps half as many lines in
    flight on average. Unscaled where either share is not measured, or ablated."""
    fit = model.calibration.get("antagonist_mlp")
    ref = fit.basis.get("antagonist_cpu_share") if fit else None
    if "antagonist_mlp" in skip or not ref or share is None or "antagonist-share" in model.ablate:
        return skip, []
    scaled = fit.value * min(1.0, share / duty) / ref
    return (*skip, "antagonist_mlp"), ["--antagonist-mlp", f"{scaled:.6g}"]


def predict_gups(model: Model, p: dict, skip: tuple[str, ...] = (), extra: list[str] = ()) -> dict[str, float]:
    """tiersim's summary for a GUPS point (a duty-cycled antagonist: :func:`mixed`), its throughput
    scaled by the CPU share GUPS got there (the antagonist's lines in flight by its own:
    :func:`antagonist_options`)."""
    skip, ant = antagonist_options(model, p.get("ant_share"), p["duty"], skip)

    def at(threads: int) -> dict[str, float]:
        return model.single_node(workload=gups_workload(p["argv"]["gups"]), app_cores=app_cores(p),
                                 antagonist_threads=threads, extra=[*model.options(skip, "gups"), *ant, *extra])

    out = mixed(at(p["threads"]), at(0), p["duty"]) if p["duty"] < 1 else at(p["threads"])
    return {**out, "throughput": out["throughput"] * p["share"]}


def predict_probe(model: Model, p: dict) -> dict[str, float]:
    skip, ant = antagonist_options(model, p.get("ant_share"), p["duty"], ("app_mlp", "app_think_ns"))

    def at(threads: int) -> dict[str, float]:
        return model.single_node(workload=probe_workload(p["argv"]), app_cores=1, antagonist_threads=threads,
                                 extra=[*model.options(skip, PROBE), *ant, "--app-mlp", "1", "--app-think-ns", "0"])

    return mixed(at(p["threads"]), at(0), p["duty"]) if p["duty"] < 1 else at(p["threads"])


def observed(df: pd.DataFrame, host_dir) -> list[dict]:
    """The traffic measured at the antagonist's calibration point (the highest intensity): the
    antagonist's own bandwidth, 64 B lines read and written back (read ratio 0.5), what the default
    node was measured to carry. (GUPS's traffic beside it is not counted: it goes with GUPS's
    throughput there, a validation number that no fit reads.)"""
    model = Model({}, host_dir=host_dir)
    pts = [p for p in points(df, model) if p["why"] is None and p["threads"] > 0 and p["duty"] == 1
           and mean(p["rows"], p["point"], "antagonist_bandwidth")]
    if not pts:
        return []
    top = pts[-1]
    d = df[(df["family"] == NAME) & (df["experiment"] == "contention_single_node") & (df["point"] == top["point"])]
    per_rep = []  # the most of the repetitions: what the memory was seen to carry
    for _, r in d.groupby("rep"):
        ant = r[r["t_s"].isna() & (r["metric"] == "antagonist_bandwidth")]["value"]
        if len(ant):
            per_rep.append(float(ant.mean()))
    node = top["rows"]["mem_node"].dropna() if "mem_node" in top["rows"] else []
    return [{"mem_node": int(node.iloc[0]) if len(node) else None, "read_ratio": 0.5, "mbps": max(per_rep),
             "point": f"{NAME}/contention_single_node/{top['point']}"}] if per_rep else []


def latency_offset(model: Model, base: dict) -> Fit | None:
    """``latency_offset_ns``, made only when asked (``model.opt_in``; bench fidelity's "curve at the
    probe's level"): the default tier's curve moved so that the latency probe alone (the 0x point)
    reads as measured there; every prediction after it uses the moved curve.

    The loaded-latency sweep's lightest point and the probe alone measure the same unloaded latency,
    in other buffers, minutes apart; where they differ (on a 16-core KVM guest the sweep read 160 ns
    and the probe 136.7 ns, the probe again 136.7 in the next run; docs/fidelity.md) the model
    carries that difference into every latency it predicts. With the level fitted, the loaded
    points test the curve's shape alone. Not the default: it moves one tier only (on a two-tier
    host it would change the tiers' gap on the evidence of one probe on one of them), and on this
    project's 2-core VM it made the score worse (docs/fidelity.md)."""
    lat0 = mean(base["rows"], base["point"], "latency_default")
    if lat0 is None or "latency-offset" not in model.opt_in or model.host_dir is None:
        return None
    pred0 = predict_probe(model, base)["latency_default"]
    off = lat0 - pred0
    pt = f"{NAME}/contention_single_node/{base['point']}"
    if model.shift_tier("default", off, f"the latency probe alone measured {lat0:.4g} ns at {pt}, the curve gave "
                                        f"{pred0:.4g} ns (calibration latency_offset_ns)") is None:
        return None
    f = Fit("latency_offset_ns", "", off, "ns", [pt],
            f"the latency probe alone (0x): measured {lat0:.4g} ns, the default tier's curve gave {pred0:.4g} ns; every "
            "latency of the curve moved by the difference (its shape kept)")
    f.rows = [row(point=base["point"], experiment="contention_single_node", family=NAME, workload=PROBE,
                  metric="latency_ns", unit="ns", measured=lat0, predicted=predict_probe(model, base)["latency_default"],
                  role="calibration", reason=f"fitted latency_offset_ns = {off:+.3g} ns from this point: the default "
                                             f"tier's curve gave {pred0:.4g} ns alone")]
    return f


def calibrate(df: pd.DataFrame, model: Model) -> list[Fit]:
    pts = [p for p in points(df, model) if p["why"] is None]
    fits = []
    base = next((p for p in pts if p["threads"] == 0 and mean(p["rows"], p["point"], "throughput")), None)
    if base and (f := latency_offset(model, base)):
        fits.append(f)
        model.calibration[f.name] = f
    if base:
        x0 = mean(base["rows"], base["point"], "throughput")
        v = bisect(lambda m: predict_gups(model, base, ("app_mlp",), ["--app-mlp", f"{m:.6g}"])["throughput"], x0, 0.05, 256)
        f = Fit("app_mlp", "--app-mlp", v, "lines", [f"{NAME}/contention_single_node/{base['point']}"],
                "GUPS's measured throughput alone (0x) on the default tier's curve", scope="gups")
        pred = predict_gups(model, base, ("app_mlp",), ["--app-mlp", f"{v:.6g}"])["throughput"]
        f.rows = [row(point=base["point"], experiment="contention_single_node", family=NAME, workload="gups",
                      metric="throughput_mops", unit="Mops/s", measured=x0, predicted=pred, role="calibration",
                      spread=spread(point_rows(df, NAME, "contention_single_node", base["point"]), "throughput"),
                      reason=f"fitted app_mlp = {v:.3g} lines in flight per GUPS core from this point "
                             f"(GUPS had {base['share']:.0%} of its CPU time over {base['share_of']})")]
        fits.append(f)
        model.calibration[f.name] = f
    loaded = [p for p in pts if p["threads"] > 0 and p["duty"] == 1 and mean(p["rows"], p["point"], "antagonist_bandwidth")]
    if loaded and base:
        top = loaded[-1]
        bw = mean(top["rows"], top["point"], "antagonist_bandwidth")
        if "antagonist-wall" in model.ablate:
            v = bisect(lambda m: predict_gups(model, top, ("antagonist_mlp",),
                                              ["--antagonist-mlp", f"{m:.6g}"])["antagonist_bandwidth"], bw, 0.05, 1024)
            how = "the antagonist's own measured bandwidth beside GUPS at the highest intensity, matched by tiersim"
        else:
            v, how = little(model, top, bw, base)
        f = Fit("antagonist_mlp", "--antagonist-mlp", v, "lines", [f"{NAME}/contention_single_node/{top['point']}"],
                how)
        if top.get("ant_share"):
            f.basis["antagonist_cpu_share"] = top["ant_share"]
            f.how += (f"; the antagonist had {top['ant_share']:.0%} of its CPU time there, and at another point its "
                      "lines in flight are scaled by the share it had there")
        pred = predict_gups(model, top, ("antagonist_mlp",), ["--antagonist-mlp", f"{v:.6g}"])["antagonist_bandwidth"]
        past = (f"; the measured bandwidth is past the model curve's wall, so the fit stops where the antagonist "
                f"reaches it ({pred:.4g} MB/s)") if "antagonist-wall" in model.ablate and pred < 0.95 * bw else ""
        f.how += past
        f.rows = [row(point=top["point"], experiment="contention_single_node", family=NAME, workload="antagonist",
                      metric="antagonist_bandwidth_mbps", unit="MB/s", measured=bw, predicted=pred, role="calibration",
                      spread=spread(point_rows(df, NAME, "contention_single_node", top["point"]), "antagonist_bandwidth"),
                      reason=f"fitted antagonist_mlp = {v:.3g} lines in flight per antagonist core from this point{past}")]
        fits.append(f)
    return fits


def app_traffic_at(curve, base: dict, ant_mbps: float, think_ns: float, rounds: int = 50) -> tuple[float, float]:
    """GUPS's traffic beside the antagonist at its calibration point (MB/s), from GUPS's own
    calibration point alone (0x, ``base``): with its lines in flight fixed (Little's law) its traffic
    is the 0x one times (think + L0) / (think + L), L the default tier's 1:1 curve at the antagonist's
    measured bandwidth plus that traffic (a fixed point, a few rounds), L0 the curve at the 0x traffic.
    GUPS's traffic measured there is not read: it goes with GUPS's throughput there, a validation
    number. Returns (GUPS's traffic, the latency L)."""
    wall = max(r.wall_mbps for r in curve.ratios.values())
    at = lambda mbps: curvecheck.latency_at(curve, 0.5, min(mbps, wall))  # noqa: E731
    t0 = base.get("app_mbps") or 0.0  # (0 where GUPS reported no traffic of its own: the antagonist's alone)
    l0, g = at(t0), t0
    for _ in range(rounds):  # g falls as the latency rises with it: a few rounds settle it
        g, last = t0 * (think_ns + l0) / (think_ns + at(ant_mbps + g)), g
        if abs(g - last) <= 1e-6 * max(t0, 1.0):
            break
    return g, at(ant_mbps + g)


def little(model: Model, p: dict, bw: float, base: dict) -> tuple[float, str]:
    """``antagonist_mlp`` from Little's law on the calibration points' measurements only: the
    antagonist's lines per ns (its measured bandwidth over tiersim's 128 B per line, 64 read + 64
    written back: MODEL_ANTAGONIST) times its time per line (tiersim's antagonist think time plus the
    latency the default tier's curve gives at the traffic there, at the 1:1 read ratio of both: the
    antagonist's measured bandwidth and GUPS's from its 0x point, :func:`app_traffic_at`), per
    antagonist core. It does not swing with where the fixed point sits near the curve's wall
    (docs/fidelity.md)."""
    curve = curvecheck.load_for_tiersim(model.tiers["default"]["curve"])
    g, lat = app_traffic_at(curve, base, bw, model.default("app-think-ns"))
    z = model.default("antagonist-think-ns")
    lines_per_ns = bw * 1e6 / LINE_BYTES / 1e9
    v = lines_per_ns * (z + lat) / max(p["threads"], 1)
    how = (f"Little's law on the highest intensity: the antagonist's measured {bw:.4g} MB/s over {LINE_BYTES} B per "
           f"line, times (its think time {z:g} ns + {lat:.4g} ns, the default tier's 1:1 curve at {bw + g:.4g} MB/s: "
           f"its own and GUPS's {g:.4g} MB/s from GUPS's 0x point), over its {p['threads']} cores")
    return v, how


def calibration_points(model: Model) -> set[tuple[str, str]]:
    """(point, metric) pairs already listed as calibration rows."""
    return {(r["point"], r["metric"]) for f in model.calibration.values() for r in f.rows if r["family"] == NAME}


def contention_rows(df: pd.DataFrame, model: Model) -> list[dict]:
    out = []
    done = calibration_points(model)
    exp = "contention_single_node"
    for p in points(df, model):
        measured = {"throughput_mops": ("gups", "throughput", "Mops/s"),
                    "latency_ns": (PROBE, "latency_default", "ns"),
                    "antagonist_bandwidth_mbps": ("antagonist", "antagonist_bandwidth", "MB/s")}
        for metric, (workload, src, unit) in measured.items():
            v = mean(p["rows"], p["point"], src)
            if v is None or (p["point"], metric) in done:
                continue
            base = dict(point=p["point"], experiment=exp, family=NAME, workload=workload, metric=metric, unit=unit, measured=v,
                        spread=spread(point_rows(df, NAME, exp, p["point"]), src))
            if p["why"]:
                out.append(row(**base, predicted=None, role="unrepresented", reason=p["why"]))
                continue
            if "app_mlp" not in model.calibration:
                out.append(row(**base, predicted=None, role="unrepresented",
                               reason="no 0x GUPS point here to fit GUPS's lines in flight from"))
                continue
            if workload == PROBE:
                pred = predict_probe(model, p)["latency_default"]
            else:
                pred = predict_gups(model, p)["throughput" if workload == "gups" else "antagonist_bandwidth"]
            out.append(row(**base, predicted=pred, role="validation"))
    return out


def convergence_time(t: list[float], x: list[float], event: float, window: float = 5, within: float = 0.05,
                     final: float | None = None) -> float:
    """tiersim's convergence rule (docs/tier-model.md, Outputs; colloid/sim/src/sim.c) on a measured
    per-second series: with F the final throughput (``final``: the run's own mean over its last
    seconds, as tiersim's --average-last; else the mean of the last ``window`` seconds), the windows
    (e - ``window``, e] ending at each measured second e and lying wholly after the event; the start
    of the first window from which every later one's mean is within ``within`` of F, minus the
    event time. NaN where no window qualifies."""
    s = sorted((ti, xi) for ti, xi in zip(t, x, strict=True) if ti > event)
    if not s:
        return math.nan

    def mean_to(e: float) -> float:
        v = [xi for ti, xi in s if e - window < ti <= e + 1e-9]
        return sum(v) / len(v) if v else math.nan

    ends = sorted({ti for ti, _ in s}, reverse=True)
    f = mean_to(ends[0]) if final is None else final
    first = None
    for e in ends:
        if e - window < event - 1e-9:
            break
        if not abs(mean_to(e) - f) <= within * abs(f):
            break
        first = e
    return math.nan if first is None else first - window - event


def event_time(s: pd.DataFrame, gargv: list[str] | None) -> float | None:
    """When a two-tier run's event happened (s): the point's ``event_t_s`` row, as
    the harness writes it for every point with a phase event (workflows/harness/point.py), both a
    hot set's move and a contention change; else GUPS's own ``--move-hot-at`` (a hot set's move of a
    run without that row). None where neither is there."""
    v = s[s["metric"] == "event_t_s"]["value"].dropna()
    if len(v):
        return float(v.iloc[0])
    at = flag(gargv or [], "--move-hot-at")
    return float(at) if at is not None else None


def uncompared(s: pd.DataFrame, g: pd.DataFrame, pid: str, exp: str, why: str | None) -> list[dict]:
    """A two-tier run none of whose compared numbers (:func:`two_tier_rows`' metrics) is in its rows:
    listed by the numbers it has (its summary rows ``s``, else all its rows ``g``, the per-second ones
    averaged), with the reason. The event time is the point's configuration, not a result: listed
    only where it is all there is."""
    result = lambda d: d[d["metric"] != "event_t_s"]  # noqa: E731
    have = s if len(result(s)) else g
    have = result(have) if len(result(have)) else have
    have = have[have["value"].notna()] if have["value"].notna().any() else have  # numbers, where it has any
    lack = ("none of the numbers the model is compared on (throughput, latency_default, latency_alternate, p, "
            "hot_in_alternate, or a throughput series after the event) is in this run's rows")
    return listed(have, point=pid, experiment=exp, family=NAME, workload="gups", reason=f"{lack}; {why}" if why else lack)


def two_tier_rows(df: pd.DataFrame, model: Model) -> list[dict]:
    """Real tiering runs on a two-tier host, each beside its tiersim run on the host's own curves."""
    exps = ("steady_state", "hotset_move", "contention_change")
    d = df[(df["family"] == NAME) & df["experiment"].isin(exps)]
    if d.empty:
        return []
    out = []
    metrics = {"throughput": ("throughput_mops", "Mops/s"), "latency_default": ("latency_default_ns", "ns"),
               "latency_alternate": ("latency_alternate_ns", "ns"), "p": ("p_default", "fraction"),
               "hot_in_alternate": ("hot_set_in_default", "fraction")}
    for (exp, pid), g in d.groupby(["experiment", "point"], sort=False):
        s = g[g["t_s"].isna()]
        first = g.iloc[0]
        system, k = str(first["system"]), float(first["intensity"])
        colloid = switched_on(first["colloid"]) if "colloid" in g.columns else False
        argv = meta_argv(model, NAME, exp, pid)
        why = None
        gargv = argv.get("gups")
        if not model.two_tier:
            why = "the host's model profile has one tier (no far node's curve): a two-tier run needs both"
        elif not gargv:
            why = "GUPS's arguments (the point's meta.json) are not in the results directory"
        elif system not in systems.names():
            why = f"system {system!r} is not in the registry (systems/): tiersim has no policy for it"
        else:
            why = antagonist_problem(argv)
        compare: list[tuple[str, float, str]] = []
        hot_gib = size_bytes(flag(gargv, "--hot-set")) / 2**30 if gargv and flag(gargv, "--hot-set") else None
        for src, (metric, _unit) in metrics.items():
            v = s[s["metric"] == src]["value"]
            if len(v) and (src != "hot_in_alternate" or hot_gib):
                compare.append((src, in_default(float(v.mean()), hot_gib) if src == "hot_in_alternate" else float(v.mean()),
                                metric))
        ev = None
        if exp != "steady_state":
            ev = event_time(s, gargv)
            ser = g[(g["metric"] == "throughput") & g["t_s"].notna()]
            if ev is not None and len(ser):
                final = next((v for src, v, _ in compare if src == "throughput"), None)  # tiersim's F: the same mean
                compare.append(("convergence_time_s",
                                convergence_time(list(ser["t_s"]), list(ser["value"]), ev, final=final),
                                "convergence_time_s"))
            elif ev is None:
                why = why or ("the event time of this run is not in its rows (no event_t_s row) nor in GUPS's "
                              "arguments (--move-hot-at)")
        if not compare:  # listed all the same: nothing of this run is dropped in silence
            out += uncompared(s, g, pid, exp, why)
            continue
        pred: dict[str, float] = {}
        if why is None:
            window = s[s["metric"] == "throughput"]["duration_s"].dropna() if "duration_s" in s.columns else []
            pred = dict(model.run(two_tier_argv(model, system, colloid, k, gargv, argv, exp, ev, target_of(g),
                                                float(window.iloc[0]) if len(window) else None)))
            got = gups_share(model, s, pid, exp, len(cpulist.parse(flag(gargv, "--cpus") or "0")))
            if got and "throughput" in pred:  # the share of its CPUs GUPS ran on, as at the contention points
                pred["throughput"] *= got[0]
            if "hot_in_alternate" in pred and hot_gib:
                pred["hot_in_alternate"] = in_default(pred["hot_in_alternate"], hot_gib)
        for src, v, metric in compare:
            unit = metrics.get(src, (None, "s"))[1]
            sp = spread(g, src) if src in metrics else None
            if sp is not None and src == "hot_in_alternate":  # the GiB's half-range (the GiB: (1 - v) x hot set), over v
                sp = sp * (1 - v) / v if v else None
            base = dict(point=pid, experiment=exp, family=NAME, workload="gups", metric=metric, unit=unit, measured=v,
                        spread=sp)
            if why:
                out.append(row(**base, predicted=None, role="unrepresented", reason=why))
            elif src not in pred or not math.isfinite(v):
                out.append(row(**base, predicted=None, role="unrepresented",
                               reason="not converged in the measured run" if not math.isfinite(v) else
                               f"tiersim does not report {src} for this run"))
            else:
                out.append(row(**base, predicted=pred[src], role="validation"))
    return out


def in_default(alt_gib: float, hot_gib: float) -> float:
    """The share of GUPS's hot set in the default tier, from the GiB of it in the alternate one
    (GUPS's hot_in_alternate, tiersim's metric of the same name). Compared as this share, not as
    the GiB: where the policy works the GiB is near 0 (GUPS samples 1024 pages: a step of 1/1024 of
    the hot set), where a relative error means nothing, and the share near 1."""
    return 1.0 - alt_gib / hot_gib


def start_args(bound: str | None, target: str | None) -> list[str]:
    """tiersim's ``--start-tier alternate`` for a workload whose memory was bound at start to the far
    node of its point's ``target`` (``node:DEFAULT,ALTERNATE``): it starts in the alternate tier and
    the policy promotes from there (GUPS's ``--mem-node``, an application's ``numactl --membind``:
    the families' ``start_tier``). Else none: tiersim's first touch, default tier first."""
    nodes = str(target).removeprefix("node:").split(",") if target else []
    return ["--start-tier", "alternate"] if bound is not None and len(nodes) == 2 and str(bound) == nodes[1] else []


def target_of(rows: pd.DataFrame) -> str | None:
    """A point's target (``node:DEFAULT,ALTERNATE`` for a run on real tiers), from its rows."""
    t = rows["target"].dropna() if "target" in rows.columns else []
    return str(t.iloc[0]) if len(t) else None


def antagonist_threads(argv: dict) -> int:
    """The point's antagonist threads: its CPUs (0 without an antagonist)."""
    return len(cpulist.parse(flag(argv["antagonist"], "--cpus"))) if argv.get("antagonist") else 0


def on_real_tiers(model: Model, system: str, colloid: bool, argv: dict, bound: str | None, target: str | None) -> list[str]:
    """tiersim's options for a run on real tiers, before its workload's: the point's system and
    Colloid mode, the workload starting where it was bound (:func:`start_args`), and the host's two
    tiers with the default one held to tierd's ``--capacity`` (else the node's)."""
    s = systems.get(system)
    cap = flag(argv.get("tierd") or [], "--capacity", "auto,auto").split(",")[0]
    dgib = size_bytes(cap) / 2**30 if cap != "auto" else None
    return ["--system", s.policy, *(["--colloid", "on" if colloid else "off"] if s.colloid else []),
            *start_args(bound, target), *model.tier_args(default_gib=dgib)]


def two_tier_argv(model: Model, system: str, colloid: bool, k: float, gargv: list[str], argv: dict, exp: str,
                  event: float | None, target: str | None = None, average_s: float | None = None) -> list[str]:
    """tiersim's argv for a real two-tier run: the point's system, Colloid, intensity (antagonist
    threads), GUPS's parameters, the default tier held to tierd's ``--capacity`` (else the node's),
    GUPS starting in the alternate tier where it was bound to the far node of ``target``, and the
    summary over the last ``average_s`` seconds (GUPS's own window, its summary's ``duration_s``;
    without it the last 30, at most all but the first)."""
    threads = antagonist_threads(argv)
    dur = float(flag(gargv, "--duration", "100"))
    d = max(2, round(dur))
    avg = min(d, max(1, round(average_s))) if average_s else min(30, max(1, round(dur) - 1))
    a = on_real_tiers(model, system, colloid, argv, flag(gargv, "--mem-node"), target) + gups_workload(gargv)
    a += ["--app-cores", str(len(cpulist.parse(flag(gargv, "--cpus")))), "--antagonist-cores-per-unit", "1",
          "--intensity", str(threads if exp != "contention_change" else 0), "--duration", f"{d:d}",
          "--average-last", f"{avg:d}", *model.options(scope="gups")]
    if exp == "hotset_move" and event is not None:
        a += ["--event", f"hotset_move@{event:g}"]
    if exp == "contention_change" and event is not None:
        a += ["--event", f"intensity@{event:g}={threads}"]
    return a


def rows(df: pd.DataFrame, model: Model) -> list[dict]:
    return contention_rows(df, model) + two_tier_rows(df, model)

