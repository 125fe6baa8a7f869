"""The memory-bandwidth antagonist (this directory's C program): argv, protocol, parser, build.

Protocol: one pinned streaming thread per CPU, each on its own buffer bound to ``--mem-node``;
``--ready-file`` once every thread streams; ``--output FILE`` per-second CSV
(``t_s,mbytes_per_s,...``); runs until SIGTERM (a scenario's background role).
"""

from __future__ import annotations

from pathlib import Path

from workflows.harness import cpulist
from workflows.harness.scenario import role as scenario_role
from workloads import read_series

NAME = "antagonist"
BUILD = {"libs": ["lib"], "make": ["antagonists"], "sources": ["antagonists/Makefile", "antagonists/*.[ch]"]}


def argv(*, cpus: list[int], node: int, buffer: str, write_fraction: int = 50, access_size: int = 64) -> list[str]:
    return ["build/bin/antagonist", "--cpus", cpulist.format(cpus), "--mem-node", str(node), "--buffer", buffer,
            "--write-fraction", str(write_fraction), "--access-size", str(access_size)]


def role(argv_: list[str]) -> dict:
    return scenario_role("antagonist", argv_, output="antagonist.csv", ready_file="antagonist.ready",
                         parse="antagonists.workload:rows")


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """Per-second bandwidth and its mean over the run (a summary row)."""
    series = read_series(outdir / role_["output"][1])
    out = [{"t_s": a["t_s"], "metric": "antagonist_bandwidth", "value": a["mbytes_per_s"], "unit": "MB/s",
            "tool": "antagonist"} for a in series]
    if series:
        mean = sum(float(a["mbytes_per_s"]) for a in series) / len(series)
        out.append({"metric": "antagonist_bandwidth", "value": f"{mean:.6g}", "unit": "MB/s", "tool": "antagonist"})
    return out
