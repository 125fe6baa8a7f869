"""memchar (this directory's C program): argv per subcommand, protocol, parsers, build recipe.

Protocol: one run per invocation, a CSV on standard output (one row per measured value; columns
``tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,target,size_bytes,buffer_bytes,
delay,bandwidth_mbps,bytes_per_iter,huge_pages,flush,verified,duration_s``); exit 0, or 1 when a
result could not be verified (which the parser refuses too).
"""

from __future__ import annotations

import csv
from pathlib import Path

from workflows.harness.scenario import role as scenario_role

NAME = "memchar"
BUILD = {"libs": ["lib"], "make": ["workloads/memchar"],
         "sources": ["workloads/memchar/Makefile", "workloads/memchar/src/*.[ch]"]}

# memchar subcommand -> the experiment its rows belong to
EXPERIMENT = {"latency": "idle_latency", "bandwidth": "bandwidth", "loaded": "loaded_latency", "objsize": "object_latency"}
DROPPED = ("mode", "verified")  # mode becomes the experiment; verified is checked


def target_args(cpus: list[int], mem_node: int | None, dax: str | None) -> list[str]:
    a = ["--cpus", ",".join(map(str, cpus))]
    return a + (["--mem-node", str(mem_node)] if mem_node is not None else ["--dax", str(dax)])


def argv(mode: str, target: list[str], **opts: object) -> list[str]:
    """``memchar MODE TARGET --opt value ...``: keyword ``buffer_mib`` becomes ``--buffer-mib``;
    a list becomes a comma list; True is a bare flag."""
    a = ["build/bin/memchar", mode, *target]
    for k, v in opts.items():
        if v is None or v is False:
            continue
        a.append("--" + k.replace("_", "-"))
        if v is not True:
            a.append(",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v))
    return a


def role(argv_: list[str], *, name: str = "memchar", probe_metric: str | None = None) -> dict:
    """As the point's workload (its rows are the result), or as a probe whose idle latency is
    reported as ``probe_metric`` (e.g. latency_default under an antagonist)."""
    if probe_metric:
        return scenario_role("memchar", argv_, name=name, stdout=f"{name}.csv",
                             parse="workloads.memchar.workload:probe_rows", opts={"metric": probe_metric})
    return scenario_role("memchar", argv_, name=name, stdout="memchar.out", parse="workloads.memchar.workload:rows")


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if any(v.strip() for v in r.values() if v)]


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """memchar's rows as they are, the subcommand as ``experiment``; an unverified result is an error."""
    data = _read(outdir / role_["stdout"])
    bad = [f"{r['metric']}/{r.get('op', '')}" for r in data if r.get("verified", "1") not in ("1", "")]
    if bad:
        raise ValueError(f"memchar reported {len(bad)} unverified result(s): {', '.join(bad)}")
    return [{**{k: v for k, v in r.items() if k not in DROPPED}, "experiment": EXPERIMENT.get(r.get("mode", ""), r["metric"])}
            for r in data]


def probe_rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """The probe's idle latency as one summary row named ``opts['metric']``."""
    return [{"metric": opts["metric"], "value": r["value"], "unit": "ns", "tool": "memchar"}
            for r in _read(outdir / role_["stdout"]) if r.get("metric") == "idle_latency"]
