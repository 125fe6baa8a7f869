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
FILLER = "filler"  # the same directory's second program
_RECIPE = {"libs": ["lib"], "make": ["antagonists"], "sources": ["antagonists/Makefile", "antagonists/*.[ch]"]}
BUILDS = {NAME: _RECIPE, FILLER: _RECIPE}


def argv(*, cpus: list[int], node: int, buffer: str, write_fraction: int = 50, access_size: int = 64,
         duty: float = 1.0) -> list[str]:
    """``duty`` < 1: stream that share of every 100 ms period (``--duty``), idle the rest."""
    return ["build/bin/antagonist", "--cpus", cpulist.format(cpus), "--mem-node", str(node), "--buffer", buffer,
            "--write-fraction", str(write_fraction), "--access-size", str(access_size)] + \
        (["--duty", f"{duty:.6g}"] if duty < 1 else [])


def role(argv_: list[str]) -> dict:
    return scenario_role("antagonist", argv_, output="antagonist.csv", ready_file="antagonist.ready",
                         parse="antagonists.workload:rows")


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """Per-second bandwidth and its mean over the run (a summary row), with the CPU share it got
    over the same seconds (``antagonist_cpu_share``)."""
    series = read_series(outdir / role_["output"][1])
    out = [{"t_s": a["t_s"], "metric": "antagonist_bandwidth", "value": a["mbytes_per_s"], "unit": "MB/s",
            "tool": "antagonist"} for a in series]
    if series:
        mean = sum(float(a["mbytes_per_s"]) for a in series) / len(series)
        out.append({"metric": "antagonist_bandwidth", "value": f"{mean:.6g}", "unit": "MB/s", "tool": "antagonist"})
        if all(a.get("cpu_share") not in (None, "") for a in series):
            # the share of its CPUs it ran on over the same seconds (its fitted lines in flight scale with it)
            share = sum(float(a["cpu_share"]) for a in series) / len(series)
            out.append({"metric": "antagonist_cpu_share", "value": f"{share:.4g}", "unit": "fraction",
                        "tool": "antagonist"})
    return out


# ---- filler: a node's free memory held (locked) but for --leave bytes ---------------------------

def filler_argv(*, node: int, leave: str) -> list[str]:
    return ["build/bin/filler", "--mem-node", str(node), "--leave", leave]


def filler_role(argv_: list[str]) -> dict:
    """A background role: holds the node's memory from when it is ready until it is stopped."""
    return scenario_role(FILLER, argv_, output="filler.csv", ready_file="filler.ready",
                         parse="antagonists.workload:filler_rows")


def filler_rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """What the filler held and what the node had free before and after (MiB)."""
    series = read_series(outdir / role_["output"][1])
    if not series:
        return []
    r = series[0]
    return [{"metric": f"filler_{k}", "value": round(int(r[f"{k}_bytes"]) / 2**20, 3), "unit": "MiB", "tool": FILLER}
            for k in ("held", "free_before", "leave", "free_after")]
