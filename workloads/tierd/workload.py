"""tierd (colloid/tierd/): libcolloid's policies on a running process's pages on real NUMA tiers.

Protocol (an attach role): ``--pid PID`` of the workload, once it has written its pid file;
``--output FILE`` in the long form ``t_s,metric,value,unit`` every report interval; exits 0 when
its target exits or on SIGTERM.
"""

from __future__ import annotations

from pathlib import Path

from workflows.harness import ConfigError
from workflows.harness.scenario import role as scenario_role
from workflows.harness.settings import KNOWN
from workloads import read_series, tail_mean

NAME = "tierd"
BUILD = {"libs": ["lib", "colloid"], "make": ["colloid/tierd"],
         "sources": ["colloid/tierd/Makefile", "colloid/tierd/src/*.[ch]"]}
# tierd's series -> the summary rows (mean over the last average_last_s seconds) a point reports
SUMMARY = {"latency_default": "latency_default", "latency_alternate": "latency_alternate", "p": "p",
           "tierd_cpu_share": "policy_cpu_share"}


def argv(*, policy: str, colloid: bool, nodes: tuple[int, int], default_capacity: str, observe: str,
         min_mapping: str | None = None) -> list[str]:
    """``min_mapping``: the smallest anonymous mapping of the target it manages (tierd's default,
    64M, is GUPS's one buffer; an application's heap is many smaller mappings)."""
    a = ["build/bin/tierd", "--policy", policy, "--colloid", "on" if colloid else "off", "--tiers", f"{nodes[0]},{nodes[1]}",
         "--capacity", f"{default_capacity},auto"]
    if observe != "auto":
        a += ["--observe", observe]
    return a + (["--min-mapping", min_mapping] if min_mapping else [])


def role(argv_: list[str]) -> dict:
    """tierd's latency source is CHA TOR occupancy through perf uncore unless ``--latency probe``
    (colloid/tierd/src/main.c, --latency auto|cha|probe): those boxes are then its own this point."""
    lat = argv_[argv_.index("--latency") + 1] if "--latency" in argv_ else "auto"
    pmus = None if lat == "probe" else {"uncore_cha": f"tierd --latency {lat}: per-tier latency from CHA TOR occupancy"}
    return scenario_role("tierd", argv_, output="tierd.csv", target_pid="--pid", parse="workloads.tierd.workload:rows",
                         pmus=pmus)


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


KERNEL_TPP = {"numa_balancing": "2", "demotion_enabled": "true"}
KNOBS = {k: KNOWN[k] for k in KERNEL_TPP}  # what the kernel's tiering mode needs
TIERD_NOTE = "tierd"
TPP_COLLOID_NOTE = "tierd's TPP with Colloid's sign-only control (the kernel's TPP cannot take Colloid's signal)"


def system(policy: str, colloid: bool, *, nodes: tuple[int, int], default_capacity: str, observe: str,
           min_mapping: str | None = None) -> tuple[list[dict], dict, str]:
    """How a tiering system runs on real tiers: the attach roles, the settings, a note. TPP without
    Colloid is the kernel's own tiering mode (numa_balancing=2, demotion); everything else is tierd
    running the libcolloid policy (TPP with Colloid too: the kernel's TPP cannot take Colloid's
    signal from user space)."""
    if policy == "tpp" and not colloid:
        return [], dict(KERNEL_TPP), "kernel TPP (numa_balancing=2)"
    attach = [role(argv(policy=policy, colloid=colloid, nodes=nodes, default_capacity=default_capacity, observe=observe,
                        min_mapping=min_mapping))]
    note = TPP_COLLOID_NOTE if policy == "tpp" else TIERD_NOTE
    if observe == "none":
        note += "; no access samples (--observe none): only capacity-driven moves"
    return attach, {"numa_balancing": "0"}, note


def check_kernel_tpp(knob_exists, src: str, where: str) -> None:
    """The kernel's tiering mode needs its knobs; one line naming what is missing."""
    for name, path in KNOBS.items():
        if not knob_exists(path):
            raise ConfigError(f"host profile {src}: TPP needs the kernel's tiering mode but {path} ({name}) does not exist "
                              f"on this kernel (Linux >= 5.18 with NUMA balancing); drop tpp from {where}")
