"""Small command-line entry points used by the Makefile and by users.

    python -m workflows.harness.cli name --host auto       # results/<name>/
    python -m workflows.harness.cli validate --host FILE   # check a profile (and plan the quick config on it):
                                                           # per system what runs and what is left out, and why
    python -m workflows.harness.cli validate --host FILE --facts F  # ... against another machine's facts
                                                           # (`facts > F` there), e.g. a two-socket server
    python -m workflows.harness.cli curve SRC... [--out F]  # load, check and import a tier curve
    python -m workflows.harness.cli points --host auto     # what would run, one line per point
    python -m workflows.harness.cli facts                  # print detected host facts
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from . import ConfigError, cpulist, curvecheck, hostdetect, plan, profile, runner


def _resolve(args) -> tuple[dict, dict, plan.Plan]:
    config = profile.load_yaml(profile.Path(args.configfile), "experiment config") if args.configfile else {"scale": "cli"}
    if args.host:
        config["host"] = args.host
    config = profile.validate_config(config)
    r = profile.runner_of(config["host"])
    if getattr(args, "facts", None):
        try:
            facts = json.loads(profile.Path(args.facts).read_text())
        except (OSError, ValueError) as e:
            raise ConfigError(f"--facts {args.facts}: not a facts file ({e})") from None
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
        tmp.write_text(c.to_csv())
        tmp.replace(args.out)
        print(f"wrote {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("name", "validate", "points"):
        p = sub.add_parser(name)
        p.add_argument("--host", default=None)
        p.add_argument("--configfile", default="workflows/config/quick.yaml")
        if name == "points":
            p.add_argument("--family", default=None, help="only this family's points")
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
        config, prof, pl = _resolve(args)
    except (ConfigError, curvecheck.CurveError) as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
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
                  f"{cpulist.format(prof['cpus']['antagonist']) or 'none'}")
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
    return out


if __name__ == "__main__":
    sys.exit(main())
