"""CPU/node plans and the points of each family, computed from the validated
config, the resolved host profile and the machine's facts.

No core or node number is hard-coded anywhere: every CPU list comes from here.
"""

from __future__ import annotations

from . import ConfigError, cpulist

OP_SLUG = {"read": "read", "write": "write", "ntwrite": "ntwrite", "mix1:1": "mix1-1", "mix2:1": "mix2-1",
           "mix3:1": "mix3-1", "write_persist": "write_persist"}


def node_cpus(facts: dict, node: int) -> list[int]:
    allowed = set(facts.get("allowed_cpus") or [])
    cpus = facts["nodes"][str(node)]["cpus"]
    return [c for c in cpus if not allowed or c in allowed]


def auto_threads(n: int) -> list[int]:
    out, t = [], 1
    while t < n:
        out.append(t)
        t *= 2
    out.append(n)
    return out


def characterize_points(config: dict, prof: dict, facts: dict) -> dict:
    cc = config["characterize"]
    if not cc["enabled"]:
        return {"pairs": [], "threads": {}, "injectors": {}, "absent": {"characterize": "disabled in the experiment config"}}
    cpu_nodes = [n for n in facts["cpu_nodes"] if node_cpus(facts, n)]
    targets = []
    for t in prof["tiers"]:
        if t["kind"] == "numa":
            targets.append({"mem_node": t["node"], "target": f"node:{t['node']}", "tier": t["name"], "id": f"m{t['node']}"})
        elif t["kind"] == "dax":
            targets.append({"mem_node": None, "target": f"dax:{t['path']}", "tier": t["name"], "id": f"dax-{t['name']}"})
    if prof["backend"] == "model":
        # Model-only profile: still characterize the real memory we run on.
        targets = [{"mem_node": n, "target": f"node:{n}", "tier": f"node{n}", "id": f"m{n}"} for n in facts["memory_nodes"]]
    pairs = []
    for c in cpu_nodes:
        cpus = node_cpus(facts, c)
        for t in targets:
            if cc["pairs"] == "local" and t["mem_node"] not in (c, None):
                continue
            pairs.append({**t, "id": f"c{c}-{t['id']}", "cpu_node": c, "cpus": cpus})
    absent: dict[str, str] = {}
    bw = cc["bandwidth"]
    threads = {}
    for p in pairs:
        n = len(p["cpus"])
        ts = auto_threads(n) if bw["threads"] == "auto" else list(bw["threads"])
        too_many = [t for t in ts if t > n]
        if too_many:
            raise ConfigError(f"experiment config: characterize/bandwidth/threads: {max(too_many)} threads requested but node {p['cpu_node']} has {n} usable CPU(s) ({cpulist.format(p['cpus'])})")
        threads[p["id"]] = ts
    inj = {}
    for p in pairs:
        n = len(p["cpus"])
        want = cc["loaded"]["injectors"]
        if want == "auto":
            if n < 2:
                absent[f"loaded_latency:{p['id']}"] = f"node {p['cpu_node']} has 1 usable CPU; loaded latency needs a latency thread plus at least one injector"
                continue
            want = n - 1
        elif want > n - 1:
            raise ConfigError(f"experiment config: characterize/loaded/injectors: {want} injectors plus the latency thread need {want + 1} CPUs but node {p['cpu_node']} has {n}")
        inj[p["id"]] = want
    return {"pairs": pairs, "threads": threads, "injectors": inj, "absent": absent}


def build(config: dict, prof: dict, facts: dict) -> dict:
    if (prof.get("runner") or {}).get("kind"):
        return guest_plan(config, prof, facts)
    plan = {"characterize": characterize_points(config, prof, facts), "tiering": {}, "model_profile": None,
            "contention": contention_points(config, prof, facts)}
    if config["storage"]["enabled"]:
        plan["fio"] = fio_binary(prof, facts)
    plan["real_tiering"] = real_tiering_points(config, prof, facts)
    if config["tiering"]["enabled"] and not plan["real_tiering"]:
        # No two real tiers here (or a model profile): the family runs on modelled tiers.
        mprof = model_profile_for(config, prof, facts)
        plan["model_profile"] = mprof
        plan["tiering"] = tiering_points(config, mprof)
    return plan


def fio_binary(prof: dict, facts: dict) -> str:
    """The fio the storage family runs: the profile's tools/fio, else fio on PATH."""
    fio = prof["tools"].get("fio") or (facts.get("tools") or {}).get("fio")
    if not fio:
        raise ConfigError("the storage family needs fio, which is not on PATH: install it (apt-get install fio), "
                          f"name it in host profile {prof['source']} (tools/fio), or set storage/enabled: false")
    return fio


def guest_plan(config: dict, prof: dict, facts: dict) -> dict:
    """A guest host (profile with ``runner``): only the real tiering family runs, inside the
    guest. Characterization and storage would measure this machine, not the guest; the
    contention and modelled-tier families need no guest."""
    kind = prof["runner"]["kind"]
    why = f"host {prof['name']} is a {kind} guest: only the real tiering family runs in it"
    if not (config["tiering"]["enabled"] and config["tiering"]["real"]["enabled"]):
        raise ConfigError(f"host profile {prof['source']}: a {kind} guest runs only the real tiering family, "
                          "but tiering/enabled or tiering/real/enabled is false")
    rc = config["tiering"]["real"]
    node = prof["tiers"][0 if rc["start_tier"] == "default" else 1]["node"]
    have = (facts["nodes"].get(str(node)) or {}).get("memory_mib", 0)
    if _mib(rc["working_set"]) >= have:
        raise ConfigError(f"experiment config: tiering/real/working_set: {rc['working_set']} does not fit node {node} of the "
                          f"{kind} guest ({have} MiB); use a guest-sized config (workflows/config/qemu.yaml)")
    # the guest's kernel settings as its /init read them (present and readable = the knob exists)
    present = {KNOBS[k] for k, v in (facts.get("settings") or {}).items() if k in KNOBS and v not in (None, "")}
    return {"characterize": {"pairs": [], "threads": {}, "injectors": {}, "absent": {"characterize": why}},
            "tiering": {}, "model_profile": None, "contention": {}, "storage": False,
            "real_tiering": real_tiering_points(config, prof, facts, knob_exists=lambda p: p in present)}


def _mib(size: str) -> float:
    return float(size[:-1]) * {"K": 1 / 1024, "M": 1, "G": 1024}[size[-1]]


def _fmt(x: float) -> str:
    return f"{x:g}"


def _bytes(size: str) -> float:
    return _mib(size) * (1 << 20)


def _event_times(dyn: dict, system: str) -> tuple[float, float]:
    """A system's dynamics run: (event time, seconds after it)."""
    return (dyn["system_event_at_s"].get(system, dyn["event_at_s"]),
            dyn["system_after_event_s"].get(system, dyn["after_event_s"]))


def _check_tiering(tc: dict, tiers: dict, src: str) -> None:
    """What tiersim would refuse, said before any job starts (one line, naming the config key)."""
    where = "experiment config: tiering"
    dyn, w = tc["dynamics"], tc["workload"]
    systems = [s for s in tc["systems"] if s != "static"]
    runs = {"duration_s": tc["duration_s"], **{f"system_duration_s/{s}": v for s, v in tc["system_duration_s"].items()}}
    for s in systems:
        ev, after = _event_times(dyn, s)
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
        if tc["average_last_s"] > v:
            raise ConfigError(f"{where}/average_last_s: {tc['average_last_s']:g} s is longer than the run ({key}: {v:g} s)")
    ws, hot, region = _bytes(w["working_set"]), _bytes(w["hot_set"]), _bytes(w["region_size"])
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
                          f"({_fmt(tiers['default']['capacity_gib'])} + {_fmt(tiers['alternate']['capacity_gib'])} GiB) "
                          f"do not hold the working set ({w['working_set']})")


def antagonist_threads(prof: dict, k: float, what: str = "experiment config: tiering/intensities") -> int:
    """Antagonist threads for intensity k: k x cores_per_unit, or with cores_per_unit
    "auto" k/3 of the antagonist CPUs granted (3x = all of them). Too many -> ConfigError."""
    ant = prof["cpus"]["antagonist"]
    cpu = prof["cpus"]["cores_per_unit"]
    if cpu == "auto":
        return round(k * len(ant) / 3)
    n = round(k * cpu)
    if n > len(ant):
        raise ConfigError(f"{what}: intensity {k:g} needs {n} antagonist cores ({k:g} x {cpu} per unit) but host "
                          f"profile {prof['source']} grants {len(ant)} ({cpulist.format(ant) or 'none'})")
    return n


def model_profile_for(config: dict, prof: dict, facts: dict) -> dict:
    """The profile whose model tiers the tiering family runs on."""
    if prof["backend"] == "model":
        return prof
    from . import profile as host_profile  # noqa: PLC0415 - avoid an import cycle at module load

    return host_profile.resolve(config["tiering"]["model_profile"], facts)


def tiering_points(config: dict, mprof: dict) -> dict:
    """Every tiersim point: id -> {experiment, context, args, timeseries}.

    The point ids are stable and readable: {system}-c{0|1}-i{k}[-l{ns}][-o{bytes}],
    static-f{fraction}-i{k}. ``migration_frozen`` repeats each steady-state Colloid point with the
    policy stopped for the averaging window, for the throughput cost of steady-state migrations.
    """
    tc = config["tiering"]
    if not tc["enabled"]:
        return {}
    tiers = {t["name"]: t for t in mprof["tiers"]}
    if "default" not in tiers or "alternate" not in tiers or any(t["kind"] != "model" for t in tiers.values()):
        raise ConfigError(f"host profile {mprof['source']}: the tiering model needs model tiers named 'default' and 'alternate'")
    for name in ("default", "alternate"):
        if "capacity_gib" not in tiers[name]:
            raise ConfigError(f"host profile {mprof['source']}: tiers/{name}: a model tier needs capacity_gib")
    _check_tiering(tc, tiers, mprof["source"])
    base_lat = int(tiers["alternate"].get("unloaded_latency_ns", 135))
    curves = {base_lat: tiers["alternate"]["curve"], **mprof.get("alternate_variants", {})}
    missing = [ns for ns in tc["unloaded_latency_ns"] if ns not in curves]
    if missing:
        raise ConfigError(f"experiment config: tiering/unloaded_latency_ns: no alternate-tier curve for {missing} ns in host profile {mprof['source']} (has {sorted(curves)})")
    w = tc["workload"]

    def tier_args(alt_ns: int) -> list[str]:
        d, a = tiers["default"], tiers["alternate"]
        return ["--tier", f"default:{d['curve']}:capacity={_fmt(d['capacity_gib'])}",
                "--tier", f"alternate:{curves[alt_ns]}:capacity={_fmt(a['capacity_gib'])}"]

    def steady_s(system: str) -> float:
        return tc["system_duration_s"].get(system, tc["duration_s"])

    def argv(system: str, colloid: bool, intensity: float, alt_ns: int = base_lat, obj: int | None = None,
             duration: float | None = None, extra: list[str] | None = None) -> list[str]:
        a = ["build/bin/tiersim", "--system", system]
        if system != "static":
            a += ["--colloid", "on" if colloid else "off", "--delta-p", tc["delta_p"]]
        a += tier_args(alt_ns)
        if duration is None:
            duration = steady_s(system)
        a += ["--workload", "gups", "--working-set", w["working_set"], "--hot-set", w["hot_set"],
              "--hot-share", _fmt(w["hot_share"]), "--object-size", str(obj or w["object_bytes"]), "--op", w["op"],
              "--app-cores", str(w["app_cores"]), "--antagonist-cores-per-unit", str(mprof["cpus"]["cores_per_unit"]),
              "--intensity", _fmt(intensity), "--region-size", w["region_size"],
              "--duration", _fmt(duration), "--average-last", _fmt(tc["average_last_s"]),
              "--seed", str(tc["seed"])]
        return a + (extra or [])

    pts: dict[str, dict] = {}

    def add(exp: str, pid: str, ctx: dict, args: list[str], series: bool = False, event: float | None = None) -> None:
        pts[f"{exp}/{pid}"] = {"experiment": exp, "id": pid, "argv": args, "timeseries": series, "event_t_s": event,
                               "context": {"experiment": exp, "point": pid, "workload": "gups",
                                           "target": f"model:{mprof['name']}", **ctx}}

    def ctx(system, colloid, k, alt=base_lat, obj=None):
        return {"system": system, "colloid": "true" if colloid else "false", "intensity": k,
                "alt_latency_ns": alt, "object_bytes": obj or w["object_bytes"]}

    for s in tc["systems"]:
        for c in (False, True):
            for k in tc["intensities"]:
                add("steady_state", f"{s}-c{int(c)}-i{_fmt(k)}", ctx(s, c, k), argv(s, c, k))
                if c:
                    # the same run with the policy stopped when the averaging window opens:
                    # same seed, same placement at that moment, no migrations after it
                    freeze = _fmt(max(steady_s(s) - tc["average_last_s"], 1))
                    add("migration_frozen", f"{s}-c1-i{_fmt(k)}", ctx(s, c, k),
                        argv(s, c, k, extra=["--freeze-at", freeze]))
                for ns in tc["unloaded_latency_ns"]:
                    if ns != base_lat:
                        add("unloaded_latency", f"{s}-c{int(c)}-i{_fmt(k)}-l{ns}", ctx(s, c, k, ns), argv(s, c, k, ns))
                for ob in tc["object_bytes"]:
                    if ob != w["object_bytes"]:
                        add("object_size", f"{s}-c{int(c)}-i{_fmt(k)}-o{ob}", ctx(s, c, k, obj=ob), argv(s, c, k, obj=ob))
            dyn = tc["dynamics"]
            ev, after = _event_times(dyn, s)
            total = ev + after
            at = _fmt(ev)
            for k in dyn["hotset_move_intensities"]:
                add("hotset_move", f"{s}-c{int(c)}-i{_fmt(k)}", ctx(s, c, k),
                    argv(s, c, k, duration=total, extra=["--event", f"hotset_move@{at}"]), series=True, event=ev)
            add("contention_change", f"{s}-c{int(c)}-i0to{_fmt(dyn['contention_to'])}", ctx(s, c, 0),
                argv(s, c, 0, duration=total, extra=["--event", f"intensity@{at}={_fmt(dyn['contention_to'])}"]),
                series=True, event=ev)
    for k in tc["intensities"]:
        for f in tc["best_static_fractions"]:
            add("best_static", f"static-f{_fmt(f)}-i{_fmt(k)}",
                {"system": "static", "colloid": "false", "intensity": k, "alt_latency_ns": base_lat,
                 "object_bytes": w["object_bytes"], "static_hot_fraction": f},
                argv("static", False, k, extra=["--static-hot-fraction", _fmt(f)]))
    return pts


def contention_points(config: dict, prof: dict, facts: dict) -> dict:
    """Real GUPS vs real antagonist intensity on the default node (single-node hosts).

    Returns id -> {intensity, threads, argv pieces}. Intensity k uses
    k x cores_per_unit antagonist threads; with ``intensities: auto`` 3x is
    every antagonist CPU the profile grants and lower levels scale down.
    """
    tc = config["tiering"]
    cc = tc["contention"]
    if not (tc["enabled"] and cc["enabled"]) or prof["backend"] != "numa":
        return {}
    numa = [t for t in prof["tiers"] if t["kind"] == "numa"]
    if len(numa) != 1:
        return {}  # two-tier hosts run the real tiering family instead
    node = numa[0]["node"]
    app, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"]
    if not app:
        raise ConfigError(f"host profile {prof['source']}: cpus/app: no CPU left for the application")
    if cc["intensities"] == "auto":
        n = len(ant)
        levels = sorted({(round(k * n / 3), k) for k in (0, 1, 2, 3)}, key=lambda x: x[1])
        seen, chosen = set(), []
        for threads, _k in levels:
            if threads not in seen:
                seen.add(threads)
                chosen.append((3 * threads / n if n else 0.0, threads))
    else:
        chosen = [(float(k), antagonist_threads(prof, k, "experiment config: tiering/contention/intensities"))
                  for k in cc["intensities"]]
    pts = {}
    for k, threads in chosen:
        pid = f"i{k:.3g}-t{threads}"
        gups = ["build/bin/gups", "--cpus", cpulist.format(app), "--mem-node", str(node), "--working-set", cc["working_set"],
                "--hot-set", cc["hot_set"], "--hot-share", _fmt(cc["hot_share"]), "--object-size", str(cc["object_bytes"]),
                "--op", cc["op"], "--duration", _fmt(cc["duration_s"]), "--seed", str(tc["seed"])]
        antv = None
        if threads:
            antv = ["build/bin/antagonist", "--cpus", cpulist.format(ant[:threads]), "--mem-node", str(node),
                    "--buffer", cc["antagonist_buffer"], "--write-fraction", str(cc["write_fraction"]),
                    "--access-size", str(cc["access_size"])]
        probe = None
        if cc["latency_probe_s"] > 0:
            probe = ["build/bin/memchar", "latency", "--cpus", str(app[0]), "--mem-node", str(node),
                     "--buffer-mib", str(cc["latency_buffer_mib"]), "--duration", _fmt(cc["latency_probe_s"])]
        pts[pid] = {"intensity": k, "threads": threads, "gups": gups, "antagonist": antv, "latency_probe": probe,
                    "node": node}
    return pts


KNOBS = {"numa_balancing": "/proc/sys/kernel/numa_balancing", "demotion_enabled": "/sys/kernel/mm/numa/demotion_enabled"}


def real_tiering_points(config: dict, prof: dict, facts: dict, knob_exists=None) -> dict:
    """The tiering family for real on a host with >= 2 NUMA memory tiers.

    GUPS starts on the alternate tier (the policy promotes what it finds hot; or on the
    default tier with tiering/real/start_tier: default); the
    antagonist streams on the default tier; tierd runs the policy. TPP without Colloid
    is the kernel's own tiering mode (numa_balancing=2, demotion_enabled=true); TPP with
    Colloid is tierd's TPP with Colloid's sign-only control, because the kernel's TPP
    cannot take Colloid's signal from user space (stated in every such point's meta).
    """
    import os  # noqa: PLC0415

    tc = config["tiering"]
    rc = tc["real"]
    numa = [t for t in prof["tiers"] if t["kind"] == "numa"]
    if not (tc["enabled"] and rc["enabled"]) or prof["backend"] != "numa" or len(numa) < 2:
        return {}
    knob_exists = knob_exists or (lambda p: os.path.exists(p))
    d, a = numa[0]["node"], numa[1]["node"]
    app, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"]
    src = prof["source"]
    if not app:
        raise ConfigError(f"host profile {src}: cpus/app: no CPU for the application")
    if not facts.get("privileges", {}).get("root", os.geteuid() == 0):
        raise ConfigError(f"host profile {src}: the real tiering family moves another process's pages and sets "
                          "numa_balancing; run as root (or set tiering/real/enabled: false)")
    for k in tc["intensities"]:
        antagonist_threads(prof, k)
    if "tpp" in tc["systems"]:
        for name, path in KNOBS.items():
            if not knob_exists(path):
                raise ConfigError(f"host profile {src}: TPP needs the kernel's tiering mode but {path} ({name}) does not exist "
                                  "on this kernel (Linux >= 5.18 with NUMA balancing); drop tpp from tiering/systems")
    dur, ev, after = rc["duration_s"], rc["event_at_s"], rc["after_event_s"]

    start = d if rc["start_tier"] == "default" else a
    if _mib(rc["hot_set"]) > _mib(rc["working_set"]):
        raise ConfigError(f"experiment config: tiering/real/hot_set: {rc['hot_set']} is larger than the working set ({rc['working_set']})")
    have = (facts["nodes"].get(str(start)) or {}).get("memory_mib", 0)
    if _mib(rc["working_set"]) >= have:
        raise ConfigError(f"experiment config: tiering/real/working_set: {rc['working_set']} does not fit node {start} "
                          f"({have} MiB), where GUPS starts (tiering/real/start_tier: {rc['start_tier']}); "
                          "use a smaller working set")

    def gups(duration, extra=()):
        return ["build/bin/gups", "--cpus", cpulist.format(app), "--mem-node", str(start), "--working-set", rc["working_set"],
                "--hot-set", rc["hot_set"], "--hot-share", _fmt(rc["hot_share"]), "--object-size", str(rc["object_bytes"]),
                "--op", rc["op"], "--duration", _fmt(duration), "--seed", str(tc["seed"]), *extra]

    def antagonist(k):
        n = antagonist_threads(prof, k)
        if n == 0:
            return None
        return ["build/bin/antagonist", "--cpus", cpulist.format(ant[:n]), "--mem-node", str(d), "--buffer", rc["antagonist_buffer"],
                "--write-fraction", "50", "--access-size", "64"]

    def daemon(system, colloid):
        settings = {"numa_balancing": "0"}
        if system == "tpp" and not colloid:
            return None, {"numa_balancing": "2", "demotion_enabled": "true"}, "kernel TPP (numa_balancing=2)"
        argv = ["build/bin/tierd", "--policy", system, "--colloid", "on" if colloid else "off", "--tiers", f"{d},{a}",
                "--capacity", f"{rc['default_capacity']},auto"]
        note = "tierd's TPP with Colloid's sign-only control (the kernel's TPP cannot take Colloid's signal)" if system == "tpp" else "tierd"
        if rc["observe"] != "auto":
            argv += ["--observe", rc["observe"]]
            if rc["observe"] == "none":
                note += "; no access samples (--observe none): only capacity-driven moves"
        return argv, settings, note

    pts = {}
    for s in tc["systems"]:
        for c in (False, True):
            targv, settings, note = daemon(s, c)
            base = {"system": s, "colloid": "true" if c else "false", "object_bytes": rc["object_bytes"],
                    "workload": "gups", "target": f"node:{d},{a}"}
            for k in tc["intensities"]:
                pid = f"{s}-c{int(c)}-i{_fmt(k)}"
                pts[f"steady_state/{pid}"] = {"experiment": "steady_state", "id": pid, "gups": gups(dur),
                                              "antagonist": antagonist(k), "tierd": targv, "settings": settings,
                                              "note": note, "context": {**base, "intensity": k}}
            if rc["dynamics"]:
                for k in tc["dynamics"]["hotset_move_intensities"]:
                    pid = f"{s}-c{int(c)}-i{_fmt(k)}"
                    pts[f"hotset_move/{pid}"] = {"experiment": "hotset_move", "id": pid,
                                                 "gups": gups(ev + after, ["--move-hot-at", _fmt(ev)]),
                                                 "antagonist": antagonist(k), "tierd": targv, "settings": settings,
                                                 "note": note, "event_t_s": ev, "context": {**base, "intensity": k}}
                k = tc["dynamics"]["contention_to"]
                pid = f"{s}-c{int(c)}-i0to{_fmt(k)}"
                pts[f"contention_change/{pid}"] = {"experiment": "contention_change", "id": pid, "gups": gups(ev + after),
                                                   "antagonist": antagonist(k), "antagonist_delay_s": ev, "tierd": targv,
                                                   "settings": settings, "note": note, "event_t_s": ev,
                                                   "context": {**base, "intensity": 0}}
    for pt in pts.values():
        pt["context"].update({"experiment": pt["experiment"], "point": pt["id"], "backend": "numa", "family": "tiering"})
    return pts
