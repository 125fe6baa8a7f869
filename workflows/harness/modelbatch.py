"""Modelled points in batches (config ``model_batch`` > 1; profiles/slurm): one job runs many
tiersim points, so a cluster pays its per-job costs (a SLURM submission, a job step, a Snakemake
that parses the workflow: seconds each) once per batch instead of once per sub-second point.

``python -m workflows.harness.modelbatch --jobs N --out DIR SPEC.json`` (SPEC: ``{"points":
{key: row}}``, written by rule model_batch_spec) runs every point exactly as a model_point job's
``python -m workflows.harness.point`` would (its files and log under ``DIR/<key>/``), N at a time,
but without a Python process per point: this process starts each point's tiersim itself (its own
process group, ended by pid on an interrupt or past the row's ``timeout_s``) and writes the point's
files with the same code (workflows/harness/point.py: ``model_argv``, ``model_finish``; the tree's
git state, which meta.json records, taken once for the batch). A row of
another executor runs as its own ``workflows.harness.point`` process. The batch fails, naming the
points, when any point failed; a rerun runs it again.

Each point's files are then copied from ``DIR/<key>/`` to its own directory by a local
model_collect job (workflows/rules/points.smk), as guest points are collected from their batch.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

from . import ConfigError
from . import point as pt
from .procs import Interrupted, Supervisor

ROWS = ".rows"  # the points' rows, one file each, in the batch directory


class _Model:
    """One modelled point run in this process: its tiersim child, then its files."""

    def __init__(self, sup: Supervisor, row: dict, d: Path, scale: str | None, git: dict):
        self.row, self.d, self.scale, self.git = row, d, scale, git
        pt.clear(d)
        (d / "log").write_bytes(b"")
        self.argv = pt.model_argv(row, d)
        self.t0, self.start = time.monotonic(), pt.now()
        self.timeout = row["run"].get("timeout_s", 600)
        self.child = None
        try:
            self.child = sup.spawn("tiersim", self.argv, stdout=d / "raw.out", stderr=d / "log")
        except OSError as e:
            self._log(f"tierbench: error: {e}")

    def _log(self, line: str) -> None:
        with open(self.d / "log", "a") as f:
            f.write(line + "\n")

    def reap(self, sup: Supervisor) -> int | None:
        """The point's exit status once done (its files written), None while tiersim runs."""
        if self.child is None:
            return 1
        rc = self.child.reap(0)
        if rc is None:
            if time.monotonic() - self.child.started <= self.timeout:
                return None
            sup.stop(self.child)
            self._log(f"tierbench: error: tiersim (pid {self.child.pid}) ran past its {self.timeout:.0f} s limit "
                      "and was stopped")
            return 1
        sup.stop(self.child)  # leader exited: end anything it left in its group, once
        with open(self.d / "log", "a") as f, contextlib.redirect_stderr(f):
            try:
                return pt.model_finish(self.row, self.d, self.scale, self.argv, rc, self.t0, self.start, self.git)
            except (ConfigError, RuntimeError, OSError, ValueError) as e:
                print(f"tierbench: error: {e}", file=sys.stderr)
                return 1


class _Process:
    """One point of another executor: its own workflows.harness.point process."""

    def __init__(self, sup: Supervisor, row: dict, d: Path, rowfile: Path):
        rowfile.write_text(json.dumps(row))
        self.child = sup.spawn("point", [sys.executable, "-m", "workflows.harness.point", "--outdir", str(d),
                                         str(rowfile)], stdout=d / "log", stderr=d / "log")

    def reap(self, sup: Supervisor) -> int | None:
        rc = self.child.reap(0)
        if rc is not None:
            sup.stop(self.child)
        return rc


def run(spec: dict, out: Path, jobs: int) -> int:
    points = spec["points"]
    out.mkdir(parents=True, exist_ok=True)
    (out / ROWS).mkdir(exist_ok=True)
    scale = os.environ.get("TIERBENCH_SCALE")  # as workflows.harness.point reads it
    git = pt.git_state()  # once for the batch: one job, one tree
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
                row = points[key]
                running[key] = (_Model(sup, row, d, scale, git) if row.get("executor") == "model"
                                else _Process(sup, row, d, out / ROWS / f"{len(todo)}.json"))
            for key, p in list(running.items()):
                rc = p.reap(sup)
                if rc is not None:
                    del running[key]
                    if rc != 0:
                        failed.append(key)
            time.sleep(0.005)
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
