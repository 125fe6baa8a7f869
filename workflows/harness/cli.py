"""Small command-line entry points used by the Makefile and by users.

    python -m workflows.harness.cli name --host auto       # results/<name>/
    python -m workflows.harness.cli validate --host FILE   # check a profile (and plan the quick config on it):
                                                           # per system what runs and what is left out, and why
    python -m workflows.harness.cli validate --host FILE --facts F  # ... against another machine's facts
                                                           # (`facts > F` there), e.g. a two-socket server
    python -m workflows.harness.cli curve SRC... [--out F]  # load, check and import a tier curve
    python -m workflows.harness.cli points --host auto     # what would run, one line per point
    python -m workflows.harness.cli facts                  # print detected host facts
    python -m workflows.harness.cli plan --host auto       # points and expected wall time, per family
    python -m workflows.harness.cli repair --host auto     # put back what a killed run left changed (its journal)

Without --host, name, validate, points and plan cover the config's ``host``, or each host of its
fleet (``hosts: [a, b]``) in turn, every profile found before anything is planned.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from . import ConfigError, cpulist, curvecheck, estimate, hostdetect, plan, profile, runner


def _config(args) -> dict:
    """The experiment config as the workflow reads it (workflows/rules/common.smk; ``make run
    [CONFIG=F]`` passes the same): with --configfile F, F merged over the Snakefile's own
    configfile, quick.yaml (profile.merge_config, as Snakemake merges); without, quick.yaml, or for a
    guest host whose runner names a config (qemu-numa: qemu.yaml), that config alone. Its name is
    left in ``args.config_name`` for the plan's first line."""
    config = profile.load_yaml(profile.QUICK_CONFIG, "experiment config")
    args.config_name = str(profile.QUICK_CONFIG.relative_to(profile.REPO))
    if args.configfile:
        args.config_name = args.configfile
        f = Path(args.configfile)
        if not (f.exists() and f.resolve() == profile.QUICK_CONFIG.resolve()):
            config = profile.merge_config(config, profile.load_yaml(f, "experiment config"))
        return config
    own = (profile.runner_of(args.host or str(config.get("host") or "auto")) or {}).get("config")
    if own:  # (an absolute path: runner_of resolves it)
        own = Path(own)
        args.config_name = str(own.relative_to(profile.REPO) if own.is_relative_to(profile.REPO) else own)
        config = profile.load_yaml(own, "experiment config")
    return config


def _config_name(args) -> str:
    return getattr(args, "config_name", None) or args.configfile


def _hosts(args, config: dict) -> list[str]:
    """The host profiles a command covers: --host, else the config's fleet (``hosts``) or ``host``,
    each found before anything is planned (as the workflow does: profile.host_args)."""
    if args.host:
        return [args.host]
    return profile.host_args(dict(config))


def _check_facts(facts, src: str) -> dict:
    """Facts as `facts` prints them (hostdetect.detect()), at least what planning reads of them."""
    def bad(why: str) -> ConfigError:
        return ConfigError(f"--facts {src}: not a facts file ({why}; write one with `python -m "
                           "workflows.harness.cli facts > F` on the machine the profile describes)")
    if not isinstance(facts, dict):
        raise bad(f"a JSON {type(facts).__name__}, not an object")
    missing = [k for k in ("hostname", "nodes", "online_cpus", "memory_nodes", "cpu_nodes") if k not in facts]
    if missing:
        raise bad(f"no {', '.join(missing)}")
    if not isinstance(facts["nodes"], dict) or not facts["nodes"]:
        raise bad("nodes: not an object of NUMA nodes")
    for k, v in facts["nodes"].items():
        if not str(k).isdigit() or not isinstance(v, dict) or not isinstance(v.get("cpus"), list) \
                or not isinstance(v.get("memory_mib"), (int, float)):
            raise bad(f"nodes/{k}: not a node with cpus (a list) and memory_mib (a number)")
    for k in ("online_cpus", "memory_nodes", "cpu_nodes"):
        if not isinstance(facts[k], list):
            raise bad(f"{k}: not a list")
    return facts


def _resolve(args, config: dict, host: str) -> tuple[dict, dict, plan.Plan]:
    """The config (as read from --configfile) validated for HOST, the host's profile and the plan."""
    config = profile.validate_config({**config, "host": host})
    r = profile.runner_of(config["host"])
    if getattr(args, "facts", None):
        try:
            facts = json.loads(profile.Path(args.facts).read_text())
        except (OSError, ValueError) as e:
            raise ConfigError(f"--facts {args.facts}: not a facts file ({e})") from None
        facts = _check_facts(facts, args.facts)
    else:
        facts = runner.facts_for(config["host"], hostdetect.detect())
    prof = profile.resolve(config["host"], facts)
    return config, prof, plan.build(config, plan.Host(prof, facts, r))


def _curve(args) -> int:
    """``curve``: each source loaded and judged as a host profile's model tier would be; merged and
    written in the suite's CSV form with --out (exit 1 and no file when one is implausible)."""
    curves = []
    for src in args.sources:
        c = curvecheck.load(src, mlc_read_ratio=args.read_ratio)
        print(f"curve: {c.summary()}")
        curves.append(c)
    c = curves[0] if len(curves) == 1 else curvecheck.merge(curves, " + ".join(args.sources))
    bad = curvecheck.implausible(c)
    if bad:
        raise ConfigError(f"implausible curve: {bad}")
    print("read_ratio,unloaded_latency_ns,wall_mbps")
    for rr, r in sorted(c.ratios.items()):
        print(f"{rr:g},{r.unloaded_ns:.4g},{r.wall_mbps:.6g}")
    if args.out:
        if c.param:
            raise ConfigError("a parametric curve is used as it is: name it in the profile (param:...)")
        tmp = profile.Path(args.out + ".tmp")
        try:
            tmp.write_text(c.to_csv())
            tmp.replace(args.out)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise ConfigError(f"--out {args.out}: cannot write: {e.strerror}") from None
        print(f"wrote {args.out}")
    return 0


def _cores(spec: str | None) -> int:
    if spec in (None, "", "all"):
        return len(os.sched_getaffinity(0))
    try:
        n = int(spec)
    except ValueError:
        raise ConfigError(f"--cores: {spec!r} is not a number or 'all'") from None
    if n < 1:
        raise ConfigError(f"--cores: {n} is not a positive number")
    return n


def _plan_cmd(args, config: dict, host: str) -> int:
    """``plan`` with the projection printed even where this host cannot run the config (a config
    that is itself wrong is said once, and nothing is projected)."""
    try:
        checked, prof, pl = _resolve(args, config, host)
    except ConfigError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        try:
            here = profile.validate_config({**config, "host": host})
        except ConfigError:
            return 1
        if args.project or here.get("scale") == "paper":
            _project(args, here, {})
        return 1
    return _plan(args, checked, prof, pl)


def _project(args, config: dict, per: dict[str, float]) -> None:
    target = args.project or (PAPER_PROJECTION if config.get("scale") == "paper" else None)
    if not target or target == "none":
        return
    facts = estimate.facts_for_profile(target, hostdetect.detect())
    tprof = profile.resolve(target, facts)
    notes = []
    try:
        tpl = plan.build(config, plan.Host(tprof, facts, profile.runner_of(target)))
    except ConfigError as e:
        if "tools/cachebench" not in str(e):
            raise
        # (whether CacheLib builds is a fact of this machine, not of the projected host)
        tprof["tools"]["cachebench"] = "cachebench"
        notes.append("assumes the projected host names its cachebench binary (tools/cachebench)")
        tpl = plan.build(config, plan.Host(tprof, facts, profile.runner_of(target)))
    tcores = len(facts["online_cpus"])
    test = estimate.estimate(tpl, tprof["name"], tcores, probe=not args.no_probe and not per, model_per_point=per,
                             model_batch=config.get("model_batch", 1), measure_alone=config.get("measure_alone"))
    test.notes += notes
    test.builds = {}
    test.notes.append(f"projected: synthetic facts of {target} ({tcores} CPUs); modelled points at this "
                      "host's speed per core, builds not counted")
    sys.stdout.write(test.text(f"[plan] {_config_name(args)} projected onto {tprof['name']}"))


def _plan(args, config: dict, prof: dict, pl: plan.Plan) -> int:
    """``plan``: the number of points and the expected wall time per family and in total on this
    host (workflows/harness/estimate.py says where each number comes from); with --save, the
    estimate as JSON for ``estimate follow``; for the paper config (or --project PROFILE), the same
    plan projected onto another host profile."""
    cores = _cores(args.cores)
    nothing = plan.nothing_planned(config, {prof["name"]: pl})
    if nothing:  # (as the workflow says it, before make run writes anything)
        raise ConfigError(nothing)
    est = estimate.estimate(pl, prof["name"], cores, probe=not args.no_probe, model_batch=config.get("model_batch", 1),
                            measure_alone=config.get("measure_alone"), skip_current=not args.all_points)
    if est.guest_s:
        est.notes.append(_guest_accel_note(config["host"]))  # (--host, else the config's own)
    if busy := estimate.busy_note(cores):
        est.notes.append(busy)
    sys.stdout.write(est.text(f"[plan] {_config_name(args)} on {prof['name']}"))
    if args.save:
        out = Path(args.save)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(est.to_json()))
        except OSError as e:
            raise ConfigError(f"--save {args.save}: cannot write it: {e.strerror}") from None
    _project(args, config, dict(est.model_per_point))
    return 0


def _guest_accel_note(host: str) -> str:
    """What the estimate's guest lines assume, beside what the guest's launcher has chosen here (its
    choice is made at the first boot: `plan` boots nothing)."""
    r = profile.runner_of(host)
    known = getattr(runner.launcher(r), "accel_known", lambda: None)() if r else None
    if known and known[0] == "kvm":
        return (f"the guest boots under KVM here ({known[1]}); its boot and points are estimated at TCG's "
                "speed, so that part is an upper bound")
    if known:
        return f"the guest boots under {known[0].upper()} here ({known[1]})"
    return "the guest's accelerator is chosen at its first boot (KVM where a KVM boot reports); estimated as TCG"


PAPER_PROJECTION = "hosts/icelake-2s.yaml"
RESULTS = profile.REPO / "results"  # results/<host>/ (repair's journal)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("name", "validate", "points", "plan", "repair"):
        p = sub.add_parser(name)
        p.add_argument("--host", default=None)
        p.add_argument("--configfile", default=None, help="merged over quick.yaml, as snakemake --configfile "
                       "(default: quick.yaml, or a guest host's own config)")
        if name == "points":
            p.add_argument("--family", default=None, help="only this family's points")
        if name == "plan":
            p.add_argument("--cores", default="all", help="cores the run may use (as make run's CORES)")
            p.add_argument("--save", default=None, help="write the estimate as JSON (for estimate follow)")
            p.add_argument("--project", default=None, help="also project onto this host profile ('none': "
                                                           f"not even the paper config's {PAPER_PROJECTION})")
            p.add_argument("--no-probe", action="store_true", help="do not time one modelled point per family")
            p.add_argument("--all-points", action="store_true", help="count every planned point, also those whose "
                           "results are there (make run passes it where SMK_ARGS forces reruns)")
        if name == "validate":
            p.add_argument("--facts", default=None, help="validate against these facts (JSON from `facts` on the "
                                                         "machine the profile describes) instead of this machine's")
    p = sub.add_parser("facts", help="detected facts (+ the resolved profile with --host)")
    p.add_argument("--host", default=None)
    p = sub.add_parser("curve", help="load and check tier curves (CSV, Mess directory, param:, Intel MLC "
                                     "--loaded_latency output); with --out, write them as one curve CSV")
    p.add_argument("sources", nargs="+", help="curve specs; several are merged (each read ratio once)")
    p.add_argument("--out", default=None, help="write the kept points as read_ratio,bandwidth_mbps,latency_ns")
    p.add_argument("--read-ratio", type=float, default=None, help="the read ratio of MLC output whose traffic "
                                                                    "type line is not known")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "curve":
            return _curve(args)
        if args.cmd == "facts":
            facts = hostdetect.detect()
            if args.host:  # a guest host (profile with `runner`): the guest's facts
                facts = runner.facts_for(args.host, facts)
                facts["profile"] = profile.resolve(args.host, facts)
            print(json.dumps(facts, indent=1))
            return 0
        config = _config(args)
        hosts = _hosts(args, config)
        if args.cmd == "points" and args.family is not None:
            import families  # noqa: PLC0415 - the registry imports family modules, which import the harness

            if args.family not in families.FAMILIES:
                raise ConfigError(f"--family {args.family!r}: no such family (families: {', '.join(families.FAMILIES)})")
    except (ConfigError, curvecheck.CurveError) as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    rc = 0
    for host in hosts:  # a fleet config (hosts: [a, b]) without --host: each of its hosts in turn
        if len(hosts) > 1 and args.cmd != "name":  # (name: one name per line, for scripts)
            print(f"== host {host} (of the config's fleet: {', '.join(hosts)})", flush=True)
        try:
            rc = max(rc, _plan_cmd(args, config, host) if args.cmd == "plan" else _one(args, config, host))
        except (ConfigError, curvecheck.CurveError) as e:
            print(f"tierbench: error: {e}", file=sys.stderr)
            rc = 1
    return rc


def _repair(host: str) -> int:
    """``repair``: what a measured run killed before it could restore (SIGKILL, a power cut) left
    changed on this machine, put back from its journal (results/<host>/.settings-journal.json),
    and from any other journal on this machine (another host profile's or checkout's), under the
    measurement locks, as the next measured point would do before it starts; run
    before planning (make run does), whose checks of live state (a swap area in use, a kernel
    mechanism still running) would otherwise refuse what the run itself left."""
    from .point import JOURNAL, LOCK, host_lock, repair_journals  # noqa: PLC0415
    from .settings import other_journals  # noqa: PLC0415

    if profile.runner_of(host):
        print(f"repair: {host} is a guest: its journal lives and is repaired in the guest")
        # (this machine's other journals are put back by its guest runs, under the machine's lock)
        results = RESULTS / Path(host).stem
    else:
        results = RESULTS / profile.resolve(host, hostdetect.detect())["name"]
    journal = results / JOURNAL
    shown = journal.relative_to(profile.REPO) if journal.is_relative_to(profile.REPO) else journal
    others = other_journals(journal, prune=False)  # (pruned under the lock, below)
    if not journal.exists() and not others:
        print(f"repair: nothing to put back ({shown} is not there)")
        return 0
    if os.geteuid() != 0:
        held = ", ".join(str(p) for p in ([shown] if journal.exists() else []) + others)
        raise ConfigError(f"{held} hold(s) settings a killed run left changed; "
                          "putting them back needs root (sudo make run, or python -m workflows.harness.cli repair)")
    with host_lock(results / LOCK):
        put = repair_journals(journal)
    print(f"repair: put back what a killed run left changed: {', '.join(put) if put else 'nothing (done meanwhile)'}")
    return 0


def _one(args, config: dict, host: str) -> int:
    """``name``, ``points`` or ``validate`` for one host profile."""
    if args.cmd == "repair":
        return _repair(host)
    config, prof, pl = _resolve(args, config, host)
    if args.cmd == "name":
        print(prof["name"])
    elif args.cmd == "points":
        rows = [r for r in pl.points.values() if args.family in (None, r["family"])]
        sys.stdout.write(plan.table(rows))
    else:
        for note in prof.get("curve_notes", []):
            print(f"curve: {note}")
        for note in prof.get("topology_notes", []):
            print(f"topology: {note}")
        if prof["cpus"]["app"]:
            print(f"cpus: application {cpulist.format(prof['cpus']['app'])}, antagonist "
                  f"{cpulist.format(prof['cpus']['antagonist']) or 'none'}, monitor "
                  f"{cpulist.format(prof['cpus'].get('monitor') or []) or 'none (anywhere)'}")
        print(f"tiers: {profile.tiers_text(prof)}")
        counts = ", ".join(f"{f} {len(fp.rows)}" for f, fp in pl.families.items())
        print(f"ok: host profile {prof['source']} -> {prof['name']} ({prof['backend']}, tiers: "
              f"{', '.join(t['name'] + '=' + t['kind'] for t in prof['tiers'])}); config scale {config['scale']}; "
              f"points: {counts}")
        for line in systems_text(pl):
            print(line)
    return 0


def systems_text(pl: plan.Plan) -> list[str]:
    """Per family, each tiering system that runs (with or without Colloid, where, how many points,
    how: the point's note), then what is left out and why."""
    out = []
    for f, fp in pl.families.items():
        runs = Counter((r["context"]["system"], r["context"].get("colloid"), r["executor"], r["run"].get("note") or "")
                       for r in fp.rows if r["context"].get("system") not in (None, "none"))
        for (system, colloid, where, note), n in sorted(runs.items(), key=lambda kv: tuple(map(str, kv[0]))):
            c = "" if colloid is None else (" with Colloid" if colloid else " without Colloid")
            out.append(f"runs: {f}: {system}{c} ({where}, {n} points){': ' + note if note else ''}")
        for what, why in sorted(fp.absent.items()):
            out.append(f"left out: {what}: {why}")
        out += [n for n in fp.notes if not n.startswith("left out: ")]  # e.g. what runs after a profile's tier setup
    return out


if __name__ == "__main__":
    sys.exit(main())
