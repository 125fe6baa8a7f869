"""Run one tiersim point: ``python -m workflows.harness.simpoint SPEC.json|-``.

Model points are cheap and many, so this runner uses the standard library only
(no pandas import per job). It runs tiersim in its own process group, then
writes the point's long-form ``result.csv`` (summary rows, plus the per-second
time series when the spec asks for it) and ``meta.json``, atomically and only
on success. Every row is labelled ``backend=model``: a simulation, never a
measurement.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

from .point import read_spec, row, write_point
from .procs import Interrupted, Supervisor
from .provenance import config_hash, file_sha256, git_state, now


def _rows(path: Path, context: dict) -> list[dict]:
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            out.append(row(context, t_s=r.get("t_s", ""), metric=r["metric"], value=r["value"], unit=r.get("unit", ""),
                           tool="tiersim", backend="model", family="tiering"))
    return out


def run(spec: dict) -> int:
    outdir = Path(spec["outdir"])
    outdir.mkdir(parents=True, exist_ok=True)
    result, meta_path = outdir / "result.csv", outdir / "meta.json"
    for p in (result, meta_path):
        p.unlink(missing_ok=True)
    summary, series = outdir / "summary.csv", outdir / "timeseries.csv"
    argv = [str(a) for a in spec["argv"]] + ["--summary", str(summary)]
    if spec.get("timeseries"):
        argv += ["--timeseries", str(series)]
    t0 = time.monotonic()
    start = now()
    with Supervisor() as sup:
        rc = sup.run("tiersim", argv, timeout=spec.get("timeout_s", 600), stdout=outdir / "raw.out")
    if rc != 0:
        print(f"tierbench: error: tiersim exited with status {rc}; see the log", file=sys.stderr)
        return 1
    rows = _rows(summary, spec["context"])
    if spec.get("timeseries"):
        rows += _rows(series, spec["context"])
    if spec.get("event_t_s") is not None:  # when the phase event happens (configured, not a result)
        rows.append(row(spec["context"], metric="event_t_s", value=spec["event_t_s"], unit="s", tool="tiersim",
                        backend="model", family="tiering"))
    if not rows:
        print("tierbench: error: tiersim wrote no rows", file=sys.stderr)
        return 1
    meta = {
        "point": spec["context"], "argv": argv, "backend": "model",
        "note": "simulated on modelled tiers (tiersim); not a measurement",
        "git": git_state(), "config_hash": config_hash(spec.get("config", {})),
        "binary": {"path": argv[0], "sha256": file_sha256(Path(argv[0]))},
        "start": start, "end": now(), "wall_s": round(time.monotonic() - t0, 3),
        "counters": {s: {"available": False, "reason": "modelled tiers: no hardware counters apply"}
                     for s in spec.get("counters", [])},
    }
    write_point(outdir, rows, meta)
    return 0


def main(argv: list[str] | None = None) -> int:
    spec = read_spec(argv, "simpoint")
    if spec is None:
        return 2
    try:
        return run(spec)
    except Interrupted as e:
        print(f"tierbench: {e}; tiersim was stopped", file=sys.stderr)
        return 128 + e.signum


if __name__ == "__main__":
    sys.exit(main())
