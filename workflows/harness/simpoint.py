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
import json
import os
import sys
import time
from pathlib import Path

from analysis.schema import COLUMNS

from .procs import Interrupted, Supervisor
from .provenance import config_hash, file_sha256, git_state, now


def _rows(path: Path, context: dict) -> list[dict]:
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {c: "" for c in COLUMNS}
            row.update({k: ("" if v is None else v) for k, v in context.items() if k in COLUMNS})
            row.update({"t_s": r.get("t_s", ""), "metric": r["metric"], "value": r["value"], "unit": r.get("unit", ""),
                        "tool": "tiersim", "backend": "model", "family": "tiering"})
            out.append(row)
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
        ev = {c: "" for c in COLUMNS}
        ev.update({k: v for k, v in spec["context"].items() if k in COLUMNS})
        ev.update({"metric": "event_t_s", "value": spec["event_t_s"], "unit": "s", "tool": "tiersim",
                   "backend": "model", "family": "tiering"})
        rows.append(ev)
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
    tmp = result.with_name("result.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    mtmp = meta_path.with_name("meta.json.tmp")
    mtmp.write_text(json.dumps(meta, indent=1) + "\n")
    os.replace(mtmp, meta_path)
    os.replace(tmp, result)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m workflows.harness.simpoint SPEC.json|-", file=sys.stderr)
        return 2
    spec = json.loads(sys.stdin.read() if args[0] == "-" else Path(args[0]).read_text())
    try:
        return run(spec)
    except Interrupted as e:
        print(f"tierbench: {e}; tiersim was stopped", file=sys.stderr)
        return 128 + e.signum


if __name__ == "__main__":
    sys.exit(main())
