"""tierd (colloid/tierd/): libcolloid's policies on a running process's pages on real NUMA tiers.

Protocol (an attach role): ``--pid PID`` of the workload, once it has written its pid file;
``--output FILE`` in the long form ``t_s,metric,value,unit`` every report interval; exits 0 when
its target exits or on SIGTERM.
"""

from __future__ import annotations

from pathlib import Path

from workflows.harness.scenario import role as scenario_role
from workloads import read_series, tail_mean

NAME = "tierd"
BUILD = {"libs": ["lib", "colloid"], "make": ["colloid/tierd"],
         "sources": ["colloid/tierd/Makefile", "colloid/tierd/src/*.[ch]"]}
# tierd's series -> the summary rows (mean over the last average_last_s seconds) a point reports
SUMMARY = {"latency_default": "latency_default", "latency_alternate": "latency_alternate", "p": "p",
           "tierd_cpu_share": "policy_cpu_share"}


def argv(*, policy: str, colloid: bool, nodes: tuple[int, int], default_capacity: str, observe: str) -> list[str]:
    a = ["build/bin/tierd", "--policy", policy, "--colloid", "on" if colloid else "off", "--tiers", f"{nodes[0]},{nodes[1]}",
         "--capacity", f"{default_capacity},auto"]
    if observe != "auto":
        a += ["--observe", observe]
    return a


def role(argv_: list[str]) -> dict:
    return scenario_role("tierd", argv_, output="tierd.csv", target_pid="--pid", parse="workloads.tierd.workload:rows")


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    series = read_series(outdir / role_["output"][1])
    out = [{"t_s": t["t_s"], "metric": t["metric"], "value": t["value"], "unit": t.get("unit", ""), "tool": "tierd"}
           for t in series]
    for metric, name in SUMMARY.items():
        s = [t for t in series if t["metric"] == metric]
        if s:
            out.append({"metric": name, "value": f"{tail_mean(s, 'value', opts.get('average_last_s', 30)):.6g}",
                        "unit": s[0].get("unit", ""), "tool": "tierd"})
    return out
