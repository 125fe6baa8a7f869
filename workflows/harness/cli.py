"""Small command-line entry points used by the Makefile and by users.

    python -m workflows.harness.cli name --host auto       # results/<name>/
    python -m workflows.harness.cli validate --host FILE   # check a profile + config
    python -m workflows.harness.cli points --host auto     # what would run, one line per point
    python -m workflows.harness.cli facts                  # print detected host facts
"""

from __future__ import annotations

import argparse
import json
import sys

from . import ConfigError, hostdetect, plan, profile, runner


def _resolve(args) -> tuple[dict, dict, plan.Plan]:
    config = profile.load_yaml(profile.Path(args.configfile), "experiment config") if args.configfile else {"scale": "cli"}
    if args.host:
        config["host"] = args.host
    config = profile.validate_config(config)
    r = profile.runner_of(config["host"])
    facts = runner.facts_for(config["host"], hostdetect.detect())
    prof = profile.resolve(config["host"], facts)
    return config, prof, plan.build(config, plan.Host(prof, facts, r))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("name", "validate", "points"):
        p = sub.add_parser(name)
        p.add_argument("--host", default=None)
        p.add_argument("--configfile", default="workflows/config/quick.yaml")
        if name == "points":
            p.add_argument("--family", default=None, help="only this family's points")
    p = sub.add_parser("facts", help="detected facts (+ the resolved profile with --host)")
    p.add_argument("--host", default=None)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "facts":
            facts = hostdetect.detect()
            if args.host:  # a guest host (profile with `runner`): the guest's facts
                facts = runner.facts_for(args.host, facts)
                facts["profile"] = profile.resolve(args.host, facts)
            print(json.dumps(facts, indent=1))
            return 0
        config, prof, pl = _resolve(args)
    except ConfigError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    if args.cmd == "name":
        print(prof["name"])
    elif args.cmd == "points":
        rows = [r for r in pl.points.values() if args.family in (None, r["family"])]
        sys.stdout.write(plan.table(rows))
    else:
        counts = ", ".join(f"{f} {len(fp.rows)}" for f, fp in pl.families.items())
        print(f"ok: host profile {prof['source']} -> {prof['name']} ({prof['backend']}, tiers: "
              f"{', '.join(t['name'] + '=' + t['kind'] for t in prof['tiers'])}); config scale {config['scale']}; "
              f"points: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
