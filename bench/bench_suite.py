"""The suite's own costs: one QEMU guest boot (boot to result), and the quick run's job time per family.

    python -m bench.bench_suite [--boots N] [--no-boot] [--results results/<host>] [--run]

- guest: N boots of the QEMU NUMA guest (hosts/qemu/guest.py) with an empty script (only /init's
  facts), each timed from QEMU's start to the guest's result line (``boot_to_result_s``) and in
  wall time, with the accelerator it used (KVM where a boot with it reports, else TCG: the line
  says which and why). Skipped, with the reason, where the guest cannot be built here.
- quick run: the job time per family from a quick run's Snakemake benchmark files
  (``results/<host>/benchmarks/``: measured points one by one, modelled points summed as CPU-side
  job time, builds absent: they have no benchmark file), beside what ``cli plan`` estimates for the
  same points now (the estimate's error per family). ``--run`` first runs the quick config in a
  scratch copy of the checkout (minutes); otherwise the newest results of this host are read.

Rates and ratios only; no verdict (bench/README.md).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def guest_boots(n: int) -> int:
    from workflows.harness import profile, runner  # noqa: PLC0415

    r = profile.runner_of("qemu-numa")
    g = runner.launcher(r)
    try:
        g.build(install=False)
    except g.GuestUnavailable as e:
        print(f"guest: skipped: QEMU guest unavailable on this machine: {e}")
        return 0
    accel, why = g.pick_accel()  # the launcher's own choice, as every boot of a run makes it
    print(f"guest: accelerator {accel} ({why})")
    for i in range(n):
        with tempfile.TemporaryDirectory(prefix="bench-boot-", dir=g.CACHE) as tmp:
            script = Path(tmp) / "empty.sh"
            script.write_text("# only /init's facts.txt\ntrue\n")
            t0 = time.monotonic()
            res = g.run(timeout=600, script=script, out=Path(tmp) / "run", accel=accel, stream=False)
            wall = time.monotonic() - t0
        print(f"guest boot {i + 1}/{n}: outcome {res.outcome}, boot to result {res.boot_to_result_s:.1f} s, "
              f"wall {wall:.1f} s ({accel})")
    return 0


def quick_run(results: Path | None, run: bool) -> int:
    from workflows.harness import cli, estimate  # noqa: PLC0415

    ns = argparse.Namespace(configfile="workflows/config/quick.yaml", host="auto")
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        config, prof, pl = cli._resolve(ns, cli._config(ns), ns.host)
    finally:
        os.chdir(cwd)
    results = results or REPO / "results" / prof["name"]
    if run:
        results = run_quick_in_copy()
    history = estimate.read_benchmarks(results)
    if not history:
        print(f"quick run: no benchmark files in {results}/benchmarks (run `make run` or pass --run)")
        return 0
    est = estimate.estimate(pl, prof["name"], len(os.sched_getaffinity(0)), results=Path(os.devnull), probe=True,
                            model_batch=config.get("model_batch", 1), measure_alone=config.get("measure_alone"))
    measured: dict[str, float] = defaultdict(float)
    n: dict[str, int] = defaultdict(int)
    for k, s in history.items():
        measured[k.split("/")[0]] += s
        n[k.split("/")[0]] += 1
    batches = sorted((results / "benchmarks").glob("model_batch*.tsv"))
    model_s = sum(estimate.benchmark_seconds(f) or 0.0 for f in batches)
    guest = results / "benchmarks" / "guest_batch.tsv"
    said = defaultdict(float)  # the estimate of the same jobs (those with a benchmark file)
    for p in est.points:
        if p.key in history:
            said[p.family] += p.seconds
    print(f"quick run ({results}): job time per family, from its benchmark files; beside it, cli plan's "
          "estimate from durations alone")
    for fam in sorted(measured):
        e = said.get(fam, 0.0)
        err = f"{(e - measured[fam]) / measured[fam]:+.0%}" if measured[fam] > 0 and e else "-"
        print(f"  {fam:<13} {n[fam]:>4} jobs  {measured[fam]:8.1f} s   estimate {e:8.1f} s ({err})")
    if batches:
        print(f"  {'model batches':<13} {len(batches):>4} jobs  {model_s:8.1f} s")
    if guest.exists():
        print(f"  {'guest batch':<13} {1:>4} job   {estimate.benchmark_seconds(guest) or 0:8.1f} s")
    print(f"  {'total':<13} {sum(n.values()):>4} jobs  {sum(measured.values()) + model_s:8.1f} s of job time")
    return 0


def run_quick_in_copy() -> Path:
    """The quick config in a scratch copy of the checkout (build/ shared by a link); its results dir."""
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import copy_tree  # noqa: PLC0415

    scratch = Path(tempfile.mkdtemp(prefix="bench-quick-"))
    # mkdtemp makes it 0700; the TPC-C-like points' server runs as postgres, which must enter every
    # directory above its data directory (results/<host>/overcommit-scratch): without this, initdb
    # failed with "Permission denied" and the quick run stopped after 78 s
    scratch.chmod(0o755)
    work = copy_tree(scratch / "repo")
    src = REPO.parent / "shared" / "upstream"
    cmd = [sys.executable, "-m", "snakemake", "--cores", "all", "--configfile", "workflows/config/quick.yaml"]
    if src.is_dir():
        cmd += ["--config", f"sources={src}"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    print(f"quick run in {work}: exit {p.returncode} after {time.monotonic() - t0:.0f} s wall")
    hosts = [d for d in (work / "results").iterdir() if (d / "benchmarks").is_dir()]
    return hosts[0] if hosts else work / "results"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boots", type=int, default=1, help="guest boots to time (default 1)")
    ap.add_argument("--no-boot", action="store_true", help="skip the guest boots")
    ap.add_argument("--results", type=Path, default=None, help="a quick run's results/<host> (default: this host's)")
    ap.add_argument("--run", action="store_true", help="run the quick config first, in a scratch copy (minutes)")
    a = ap.parse_args(argv)
    if not a.no_boot:
        guest_boots(a.boots)
    return quick_run(a.results, a.run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
