"""Modelled points in batches (config ``model_batch`` > 1; profiles/slurm): one job runs many
tiersim points, so a cluster pays its per-job costs (a SLURM submission, a job step, a Snakemake
that parses the workflow: seconds each) once per batch instead of once per sub-second point.

``python -m workflows.harness.modelbatch --jobs N --out DIR SPEC.json`` (SPEC: ``{"points":
{key: row}}``, written by rule model_batch_spec) runs every point as its own ``python -m
workflows.harness.point`` process, exactly as a model_point job would (its files and log under
``DIR/<key>/``), N at a time, each child in its own process group and ended by pid on an
interrupt. The batch fails, naming the points, when any point failed; a rerun runs it again.

Each point's files are then copied from ``DIR/<key>/`` to its own directory by a local
model_collect job (workflows/rules/points.smk), as guest points are collected from their batch.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from .procs import Interrupted, Supervisor

ROWS = ".rows"  # the points' rows, one file each, in the batch directory


def run(spec: dict, out: Path, jobs: int) -> int:
    points = spec["points"]
    out.mkdir(parents=True, exist_ok=True)
    (out / ROWS).mkdir(exist_ok=True)
    todo = sorted(points)
    running: dict[str, object] = {}
    failed: list[str] = []
    t0 = time.monotonic()
    print(f"modelbatch: {len(todo)} point(s), {jobs} at a time", file=sys.stderr, flush=True)
    with Supervisor() as sup:
        while todo or running:
            while todo and len(running) < jobs:
                key = todo.pop(0)
                d = out / key
                d.mkdir(parents=True, exist_ok=True)
                row = out / ROWS / f"{len(todo)}.json"
                row.write_text(json.dumps(points[key]))
                running[key] = sup.spawn(key, [sys.executable, "-m", "workflows.harness.point", "--outdir", str(d),
                                               str(row)], stdout=d / "log", stderr=d / "log")
            for key, child in list(running.items()):
                rc = child.reap(0)
                if rc is not None:
                    sup.stop(child)
                    del running[key]
                    if rc != 0:
                        failed.append(key)
            time.sleep(0.02)
    shutil.rmtree(out / ROWS, ignore_errors=True)
    if failed:
        tails = "; ".join(f"{k}: {(out / k / 'log').read_text(errors='replace').strip().splitlines()[-1:]}"
                          for k in failed[:5])
        print(f"tierbench: error: {len(failed)} of {len(points)} modelled point(s) failed: {tails}", file=sys.stderr)
        return 1
    print(f"modelbatch: {len(points)} point(s) in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1, help="points at once (the job's threads)")
    ap.add_argument("--out", required=True, type=Path, help="the batch directory")
    ap.add_argument("spec", type=Path, help='JSON {"points": {key: row}}')
    a = ap.parse_args(argv)
    try:
        return run(json.loads(a.spec.read_text()), a.out, max(1, a.jobs))
    except Interrupted as e:
        print(f"tierbench: {e}; every point of the batch was stopped", file=sys.stderr)
        return 128 + e.signum


if __name__ == "__main__":
    sys.exit(main())
