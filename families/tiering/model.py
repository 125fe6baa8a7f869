"""The tiering family on modelled tiers: one tiersim point per (system, Colloid, intensity, ...).

Point ids are stable and readable: ``{system}-c{0|1}-i{k}[-l{ns}][-o{bytes}]``,
``static-f{fraction}-i{k}``. ``migration_frozen`` repeats each steady-state Colloid point with the
policy stopped for the averaging window, for the throughput cost of steady-state migrations.
"""

from __future__ import annotations

from systems import sweep
from workflows.harness import ConfigError
from workflows.harness.plan import Host, fmt, size_bytes
from workloads.tiersim import workload as tiersim

from . import COLUMNS

model_profile_for = sweep.model_profile_for


plan_info = sweep.plan_info


def event_times(dyn: dict, system: str) -> tuple[float, float]:
    """A system's dynamics run: (event time, seconds after it)."""
    return (dyn["system_event_at_s"].get(system, dyn["event_at_s"]),
            dyn["system_after_event_s"].get(system, dyn["after_event_s"]))


def check(tc: dict, tiers: dict, src: str) -> None:
    """What tiersim would refuse, said before any job starts (one line, naming the config key).
    tests/test_tiersim_check.py proves these against ``tiersim --check``."""
    where = "experiment config: tiering"
    dyn, w = tc["dynamics"], tc["workload"]
    systems = [s for s in tc["systems"] if s != "static"]
    runs = {"duration_s": tc["duration_s"], **{f"system_duration_s/{s}": v for s, v in tc["system_duration_s"].items()}}
    for s in systems:
        ev, after = event_times(dyn, s)
        key = "dynamics/" + (f"system_event_at_s/{s}" if s in dyn["system_event_at_s"] else "event_at_s")
        if not ev >= 0:
            raise ConfigError(f"{where}/{key}: the event time must be >= 0, got {ev:g}")
        if not after > 0:
            raise ConfigError(f"{where}/dynamics: {s} needs a positive time after the event, got {after:g}")
        runs[f"dynamics (event + after event, {s})"] = ev + after
    for key, v in runs.items():
        if v != int(v) or v < 1:
            raise ConfigError(f"{where}/{key}: a run lasts a whole number of simulated seconds (>= 1), got {v:g}")
        if v < 2 and not key.startswith("dynamics"):
            raise ConfigError(f"{where}/{key}: a steady-state run needs at least 2 s (its migration-cost twin stops "
                              "the policy before the averaging window, at 1 s or later)")
        sweep.check_window(tc["average_last_s"], v, where, key)
    ws, hot, region = size_bytes(w["working_set"]), size_bytes(w["hot_set"]), size_bytes(w["region_size"])
    if ws < region:
        raise ConfigError(f"{where}/workload/working_set: {w['working_set']} is smaller than one region ({w['region_size']})")
    if hot > ws:
        raise ConfigError(f"{where}/workload/hot_set: {w['hot_set']} is larger than the working set ({w['working_set']})")
    if dyn["hotset_move_intensities"] and 2 * hot > ws:
        raise ConfigError(f"{where}/workload/hot_set: a hot-set move needs a hot set at most half the working set "
                          f"({w['hot_set']} of {w['working_set']}); or set dynamics/hotset_move_intensities: []")
    held = sum(int(tiers[n]["capacity_gib"] * (1 << 30) / region + 1e-9) for n in ("default", "alternate"))
    if held < -(-ws // region):
        raise ConfigError(f"host profile {src}: the model tiers' capacity_gib "
                          f"({fmt(tiers['default']['capacity_gib'])} + {fmt(tiers['alternate']['capacity_gib'])} GiB) "
                          f"do not hold the working set ({w['working_set']})")


def points(config: dict, host: Host, mprof: dict, checked: bool = True) -> list[dict]:
    """Every tiersim point (rep 0). ``checked=False`` skips :func:`check` (tests compare it with tiersim's own)."""
    tc = config["tiering"]
    tiers = sweep.model_tiers(mprof, "the tiering model")
    for name in ("default", "alternate"):
        if "capacity_gib" not in tiers[name]:
            raise ConfigError(f"host profile {mprof['source']}: tiers/{name}: a model tier needs capacity_gib")
    if checked:
        check(tc, tiers, mprof["source"])
    base_lat = round(tiers["alternate"]["unloaded_latency_ns"])
    curves = {base_lat: tiers["alternate"]["curve"], **mprof.get("alternate_variants", {})}
    latencies = sorted(curves) if tc["unloaded_latency_ns"] == "auto" else tc["unloaded_latency_ns"]
    missing = [ns for ns in latencies if ns not in curves]
    if missing:
        raise ConfigError(f"experiment config: tiering/unloaded_latency_ns: no alternate-tier curve for {missing} ns in host "
                          f"profile {mprof['source']} (it has {sorted(curves)}; 'auto' sweeps what the profile has)")
    w = tc["workload"]
    d, a = tiers["default"], tiers["alternate"]

    def tier_args(alt_ns: int) -> list[str]:
        return tiersim.tier_args(d["curve"], d["capacity_gib"], curves[alt_ns], a["capacity_gib"])

    def steady_s(system: str) -> float:
        return tc["system_duration_s"].get(system, tc["duration_s"])

    m = sweep.Model("tiering", host, mprof, tier_args(base_lat), {"kind": "gups", **w}, columns=COLUMNS,
                    params={"delta_p": tc["delta_p"], "app_cores": w["app_cores"], "region_size": w["region_size"],
                            "duration_s": tc["duration_s"], "average_last_s": tc["average_last_s"], "seed": tc["seed"]})

    def argv(s: str, c: bool, k: float, alt_ns: int = base_lat, obj: int | None = None, duration: float | None = None,
             extra: list[str] | None = None) -> list[str]:
        return m.argv(s, c, k, tiers=tier_args(alt_ns), workload={"kind": "gups", **w, "object_bytes": obj or w["object_bytes"]},
                      duration=steady_s(s) if duration is None else duration, extra=extra)

    def ctx(system, colloid, k, alt=base_lat, obj=None):
        return {"workload": "gups", "system": system, "colloid": colloid, "intensity": k, "alt_latency_ns": alt,
                "object_bytes": obj or w["object_bytes"]}

    def cell(s: str, c: bool, k: float) -> list[dict]:
        pid = sweep.pid(s, c, k)
        rows = [m.point("steady_state", pid, ctx(s, c, k), argv(s, c, k))]
        if c:
            # the same run with the policy stopped when the averaging window opens:
            # same seed, same placement at that moment, no migrations after it
            freeze = fmt(max(steady_s(s) - tc["average_last_s"], 1))
            rows.append(m.point("migration_frozen", pid, ctx(s, c, k), argv(s, c, k, extra=["--freeze-at", freeze])))
        rows += [m.point("unloaded_latency", f"{pid}-l{ns}", ctx(s, c, k, ns), argv(s, c, k, ns))
                 for ns in latencies if ns != base_lat]
        rows += [m.point("object_size", f"{pid}-o{ob}", ctx(s, c, k, obj=ob), argv(s, c, k, obj=ob))
                 for ob in tc["object_bytes"] if ob != w["object_bytes"]]
        return rows

    def events(s: str, c: bool) -> list[dict]:
        ev, after = event_times(tc["dynamics"], s)
        at = fmt(ev)
        rows = [m.point("hotset_move", sweep.pid(s, c, k), ctx(s, c, k),
                        argv(s, c, k, duration=ev + after, extra=["--event", f"hotset_move@{at}"]), series=True, event=ev)
                for k in tc["dynamics"]["hotset_move_intensities"]]
        to = tc["dynamics"]["contention_to"]
        rows.append(m.point("contention_change", sweep.pid(s, c, 0, suffix=f"to{fmt(to)}"), ctx(s, c, 0),
                            argv(s, c, 0, duration=ev + after, extra=["--event", f"intensity@{at}={fmt(to)}"]),
                            series=True, event=ev))
        return rows

    rows = sweep.sweep(tc["systems"], tc["intensities"], cell, events)
    for k in tc["intensities"]:
        for f in tc["best_static_fractions"]:
            rows.append(m.point("best_static", f"static-f{fmt(f)}-i{fmt(k)}", {**ctx("static", False, k), "static_hot_fraction": f},
                                argv("static", False, k, extra=["--static-hot-fraction", fmt(f)])))
    return rows
