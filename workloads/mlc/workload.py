"""Intel Memory Latency Checker (the user's binary, named by the host profile's ``tools/mlc``;
MLC's license does not allow us to ship it): argv, protocol, parser.

Protocol: ``mlc --latency_matrix | --bandwidth_matrix | --loaded_latency``, text on standard output.
"""

from __future__ import annotations

import re
from pathlib import Path

from workflows.harness.scenario import role as scenario_role

NAME = "mlc"
BUILD = None  # the user's own binary
MODES = ("latency_matrix", "bandwidth_matrix", "loaded_latency")


def argv(mlc: str, mode: str) -> list[str]:
    return [mlc, f"--{mode}"]


def role(argv_: list[str], mode: str) -> dict:
    return scenario_role("mlc", argv_, stdout="mlc.out", parse="workloads.mlc.workload:rows", opts={"mode": mode})


def _matrix(text: str, metric: str, unit: str) -> list[dict]:
    """'Numa node' matrix blocks: header row of memory nodes, one row per CPU node."""
    rows = []
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if re.match(r"^\s*Numa node\s+\d", ln):
            mem_nodes = [int(x) for x in ln.split()[2:]]
            for row in lines[i + 1:]:
                parts = row.split()
                if not parts or not re.fullmatch(r"\d+", parts[0]):
                    break
                for m, v in zip(mem_nodes, parts[1:], strict=False):
                    try:
                        rows.append({"cpu_node": int(parts[0]), "mem_node": m, "metric": metric, "value": float(v),
                                     "unit": unit})
                    except ValueError:
                        continue
            break
    return rows


def parse(text: str, mode: str) -> list[dict]:
    """MLC's output for one mode; no rows when it holds none."""
    if mode == "latency_matrix":
        rows = [{**r, "experiment": "idle_latency"} for r in _matrix(text, "idle_latency", "ns")]
    elif mode == "bandwidth_matrix":
        rows = [{**r, "experiment": "bandwidth"} for r in _matrix(text, "bandwidth", "MB/s")]
    elif mode == "loaded_latency":
        rows = []
        for ln in text.splitlines():
            m = re.match(r"^\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", ln)
            if m:
                rows.append({"delay": int(m.group(1)), "metric": "loaded_latency", "value": float(m.group(2)),
                             "unit": "ns", "bandwidth_mbps": float(m.group(3)), "experiment": "loaded_latency"})
    else:
        raise ValueError(f"unknown MLC mode {mode!r}")
    return [{**r, "op": "read", "tool": "mlc"} for r in rows]


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return parse((outdir / role_["stdout"]).read_text(), opts["mode"])
