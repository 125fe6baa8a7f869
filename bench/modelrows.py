"""Every modelled row the shipped configs make, run and written to one CSV; two such CSVs compared.

    python -m bench.modelrows run  --out FILE [--jobs N] [--configs quick,paper] [--host paper-testbed]
    python -m bench.modelrows diff OLD.csv NEW.csv

``run`` plans each config on the host profile (default: the paper testbed, whose model tiers every
shipped config uses), runs every ``executor: model`` point exactly as a workflow job does
(``python -m workflows.harness.point``), and writes all their result rows, sorted, to FILE: one row per
(config, family, experiment, point, rep, metric, t_s, ...). A point planned by several configs with the
same row runs once. ``diff`` says which rows differ by value, which exist on one side only, and exits 1
if any do: the check a refactor of tiersim, libcolloid or a family's planning must pass ("modelled rows
identical by value"). Rows of the simulator's own CPU time (``MEASURED``) are left out of the
comparison: they are measurements of this machine. A check, not a benchmark: it times nothing.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEY = ("family", "experiment", "point", "rep", "metric", "t_s", "tool", "tier", "role")
# rows that time the simulator itself (the policy's CPU use, measured with the process's CPU clock
# while tiersim runs): measurements of this machine, not model output, so never equal across runs
MEASURED = {"policy_cpu_share", "cpu_overhead"}


def planned(config_name: str, host: str, executor: str = "model") -> list[dict]:
    """The rows of ``config_name``'s plan on ``host`` that run with ``executor`` (model, host, guest)."""
    from workflows.harness import hostdetect, plan, profile, runner  # noqa: PLC0415 - only for `run`

    cfg = profile.load_yaml(REPO / "workflows" / "config" / f"{config_name}.yaml", "experiment config")
    cfg["host"] = host
    cfg = profile.validate_config(cfg)
    facts = runner.facts_for(host, hostdetect.detect())
    prof = profile.resolve(host, facts)
    pl = plan.build(cfg, plan.Host(prof, facts, profile.runner_of(host)))
    return [r for r in pl.points.values() if r.get("executor") == executor]


def run(out: Path, configs: list[str], host: str, jobs: int) -> int:
    todo: dict[str, dict] = {}
    for c in configs:
        for r in planned(c, host):
            todo.setdefault(json.dumps(r, sort_keys=True), r)
    print(f"modelrows: {len(todo)} distinct modelled point(s) from {', '.join(configs)} on {host}", file=sys.stderr)
    rows: list[dict] = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="modelrows-") as tmp:
        pending = list(enumerate(todo.values()))
        running: list[tuple[subprocess.Popen, Path, dict]] = []
        failed = []
        try:
            while pending or running:
                while pending and len(running) < jobs:
                    i, r = pending.pop(0)
                    d = Path(tmp) / str(i)
                    d.mkdir()
                    (d / "row.json").write_text(json.dumps(r))
                    p = subprocess.Popen([sys.executable, "-m", "workflows.harness.point", "--outdir", str(d / "out"),
                                          str(d / "row.json")], cwd=REPO, stdout=subprocess.DEVNULL,
                                         stderr=open(d / "log", "w"), start_new_session=True)
                    running.append((p, d, r))
                for item in list(running):
                    p, d, r = item
                    if p.poll() is None:
                        continue
                    running.remove(item)
                    if p.returncode != 0:
                        failed.append(f"{r['family']}/{r['experiment']}/{r['point']}")
                        continue
                    with open(d / "out" / "result.csv") as f:
                        rows.extend(csv.DictReader(f))
                time.sleep(0.01)
        finally:
            for p, _, _ in running:
                p.terminate()
                p.wait()
    if failed:
        print(f"modelrows: {len(failed)} point(s) failed: {failed[:5]}", file=sys.stderr)
        return 1
    cols = sorted({k for r in rows for k in r}, key=lambda k: (k not in KEY, KEY.index(k) if k in KEY else 0, k))
    rows.sort(key=lambda r: tuple(str(r.get(k, "")) for k in cols))
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    print(f"modelrows: {len(rows)} row(s) in {time.monotonic() - t0:.0f} s -> {out}", file=sys.stderr)
    return 0


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def diff(old: Path, new: Path) -> int:
    def load(p: Path) -> dict[tuple, dict]:
        with open(p) as f:
            rows = [r for r in csv.DictReader(f) if r.get("metric") not in MEASURED]
        return {tuple(r.get(k, "") for k in KEY): r for r in rows}

    a, b = load(old), load(new)
    only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
    changed = []
    for k in sorted(set(a) & set(b)):
        ra, rb = a[k], b[k]
        cols = [c for c in sorted(set(ra) | set(rb)) if not _same(ra.get(c, ""), rb.get(c, ""))]
        if cols:
            changed.append((k, {c: (ra.get(c, ""), rb.get(c, "")) for c in cols}))
    for k in only_a[:10]:
        print("only in old:", "/".join(k))
    for k in only_b[:10]:
        print("only in new:", "/".join(k))
    for k, d in changed[:20]:
        print("changed:", "/".join(k), d)
    print(f"modelrows: {len(a)} old, {len(b)} new; {len(only_a)} only old, {len(only_b)} only new, "
          f"{len(changed)} changed by value")
    return 1 if (only_a or only_b or changed) else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--configs", default="quick,paper")
    p.add_argument("--host", default="paper-testbed")
    p.add_argument("--jobs", type=int, default=2)
    p = sub.add_parser("diff")
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    a = ap.parse_args(argv)
    if a.cmd == "run":
        return run(a.out, a.configs.split(","), a.host, max(1, a.jobs))
    return diff(a.old, a.new)


if __name__ == "__main__":
    sys.exit(main())
