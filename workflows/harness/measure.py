"""Run one measurement point: ``python -m workflows.harness.measure SPEC.json``.

The spec (written by the Snakemake rule) names the command, where raw output
goes, how to parse it and the columns that identify the point. The runner

1. takes the host's measurement lock (points on a real host never overlap,
   even across concurrent snakemake invocations);
2. starts the available counter collectors, each in its own process group;
3. runs the command in its own process group under a timeout;
4. stops everything by pid (success, failure, SIGINT/SIGTERM);
5. parses the raw output into long-form ``result.csv`` and writes
   ``meta.json`` — both atomically, and only when the point succeeded.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import ConfigError
from .counters import Collectors
from .point import atomic_write, host_lock
from .procs import Interrupted, Supervisor
from .provenance import config_hash, file_sha256, git_state, now, tool_version


def run(spec: dict) -> int:
    from analysis import parse  # noqa: PLC0415 - heavy import only when running

    outdir = Path(spec["outdir"])
    outdir.mkdir(parents=True, exist_ok=True)
    result = outdir / "result.csv"
    meta_path = outdir / "meta.json"
    raw = outdir / spec.get("raw", "raw.out")
    for p in (result, meta_path):
        if p.exists():
            p.unlink()
    facts = json.loads(Path(spec["facts"]).read_text())
    argv = [str(a) for a in spec["argv"]]
    meta: dict = {
        "point": spec["context"],
        "argv": argv,
        "host_profile": spec.get("profile", {}),
        "host_facts": facts,
        "git": git_state(),
        "config_hash": config_hash(spec.get("config", {})),
        "scale": spec.get("config", {}).get("scale"),
        "binary": {"path": argv[0], "sha256": file_sha256(Path(argv[0])), "version": tool_version(argv[0])},
        "workloads": spec.get("workloads", {}),
    }
    lock = Path(spec["lock"]) if spec.get("lock") else None
    with Supervisor(registry=outdir / "children") as sup:
        with host_lock(lock) as waited:
            meta["lock_wait_s"] = round(waited or 0.0, 3)
            meta["start"] = now()
            t0 = time.monotonic()
            coll = Collectors(spec.get("counters", []), facts, spec.get("profile", {}), outdir,
                              spec.get("interval_ms", 1000), sup)
            try:
                with coll:
                    rc = sup.run(spec["tool"], argv, timeout=spec.get("timeout_s"), stdout=raw,
                                 stderr=Path(spec["stderr"]) if spec.get("stderr") else None)
            except TimeoutError as e:
                print(f"tierbench: error: {e}", file=sys.stderr)
                return 1
            meta["counters"] = coll.status()
            counters_df = coll.frames()
            meta["end"] = now()
            meta["wall_s"] = round(time.monotonic() - t0, 3)
    meta["exit_code"] = rc
    if rc != 0:
        print(f"tierbench: error: {spec['tool']} exited with status {rc}; see {raw} and this log", file=sys.stderr)
        return 1
    df = parse.parse_raw(spec["parser"], raw, spec["context"])
    if df.empty:
        print(f"tierbench: error: {spec['tool']} produced no rows in {raw}", file=sys.stderr)
        return 1
    if not counters_df.empty:
        counters_df.to_csv(outdir / "counters.csv", index=False)
    atomic_write(meta_path, json.dumps(meta, indent=1, default=str) + "\n")
    atomic_write(result, df.to_csv(index=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", help="JSON spec file (or '-' for stdin)")
    args = ap.parse_args(argv)
    text = sys.stdin.read() if args.spec == "-" else Path(args.spec).read_text()
    spec = json.loads(text)
    try:
        return run(spec)
    except Interrupted as e:
        print(f"tierbench: {e}; every child was stopped", file=sys.stderr)
        return 128 + e.signum
    except ConfigError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"tierbench: error: {e.filename}: not found", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
