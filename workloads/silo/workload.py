"""Silo (github.com/stephentu/silo with its masstree submodule, pinned; built from the archives by
build.sh with our patches): ``dbtest --bench ycsb``: argv, protocol, parser, build recipe.

YCSB-C as the Colloid paper runs it: 100 % reads (Silo's own ``--workload-mix 100,0,0,0``) with
Zipfian keys, θ = 0.5 (our patch 0002: ``--zipf-theta``), and a throughput report every second
(``--report-interval-s``). Protocol: stdout has one
``tierbench-throughput t_s=T ops=N ops_per_s=R`` line per interval, then Silo's summary line
``agg_throughput agg_persist_throughput avg_latency_ms avg_persist_latency_ms agg_abort_rate``;
exit 0. See README.md (footprint: about 14 MB + 153 B per key, 1000 keys per scale-factor unit).
"""

from __future__ import annotations

import re
from pathlib import Path

from workflows.harness.scenario import role as scenario_role
from workloads.upstream import Pin

NAME = "silo"
PINS = [Pin("silo", "stephentu/silo", "cc11ca1ea949ef266ee12a9b1c310392519d9e3b",
            "06350ff3adc3b2f23ea4bdab4e05417ea8781c0edbc7cc838b3970c1f8ecebc9"),
        Pin("masstree-beta", "kohler/masstree-beta", "1150824e6a10a0384ba4bfed6b916ce62f96315f",
            "5c4aec9ebd8b3215bc23a6b331b10f581a41c21cab56de643d8e42ff0fa0b596")]
_SCRIPT = "workloads/silo/build.sh"
BUILDS = {"silo-dbtest": {"upstream": [p.archive for p in PINS], "script": _SCRIPT,
                          "sources": [_SCRIPT, "lib/ccache.sh", "workloads/silo/patches/*.patch"]}}


def footprint_mib(scale_factor: int) -> float:
    return 14 + 153 * 1000 * scale_factor / 2**20


def argv(*, threads: int, scale_factor: int, runtime_s: float, zipf_theta: float) -> list[str]:
    bench = f"--workload-mix 100,0,0,0 --zipf-theta {zipf_theta:g}"
    return ["build/bin/silo-dbtest", "--bench", "ycsb", "--num-threads", str(threads), "--scale-factor",
            str(scale_factor), "--runtime", f"{runtime_s:g}", "--report-interval-s", "1", "--bench-opts", bench]


# cli plan's estimate before a first run (a later run's own times replace it): loading the table, per
# scale-factor unit (1000 keys), on the development VM (scale factor 600: its first report 2.2 s after
# the start, 1 s into the run, a fresh quick run, 2026-11-27)
LOAD_S_PER_SCALE = 2e-3


def seconds(argv_: list[str]) -> float | None:
    """How long a run takes (for cli plan): the table's load, then ``--runtime``."""
    from workloads import args_after, flag  # noqa: PLC0415

    args = args_after(argv_, "silo-dbtest")
    if args is None:
        return None
    runtime, scale = flag(args, "--runtime"), flag(args, "--scale-factor", "1")
    return None if runtime is None else float(runtime) + LOAD_S_PER_SCALE * float(scale)


def role(argv_: list[str]) -> dict:
    # ready once loaded: the first throughput report, one interval into the measured phase
    return scenario_role("silo-dbtest", argv_, stdout="silo.out", ready_line="tierbench-throughput",
                         parse="workloads.silo.workload:rows")


REPORT = re.compile(r"^tierbench-throughput t_s=([0-9.]+) ops=(\d+) ops_per_s=([0-9.eE+-]+)$")
SUMMARY = ("throughput", "persist_throughput", "avg_latency", "avg_persist_latency", "abort_rate")
UNITS = ("ops/s", "ops/s", "ms", "ms", "aborts/s")


def parse(text: str) -> list[dict]:
    """Per-interval throughput rows (t_s), and the summary line's throughput, latency and abort rate."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        m = REPORT.match(line)
        if m:
            out.append({"t_s": m.group(1), "metric": "throughput", "value": m.group(3), "unit": "ops/s", "tool": "silo"})
            continue
        parts = line.split()
        if len(parts) == 5:
            try:
                vals = [float(p) for p in parts]
            except ValueError:
                continue
            out += [{"metric": n, "value": f"{v:.6g}", "unit": u, "tool": "silo"}
                    for n, v, u in zip(SUMMARY, vals, UNITS, strict=True) if n in ("throughput", "avg_latency", "abort_rate")]
    return out


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return parse((outdir / role_["stdout"]).read_text())
