"""tierd (colloid/tierd/): libcolloid's policies on a running process's pages on real NUMA tiers.

Protocol (an attach role): ``--pid PID`` of the workload, once it has written its pid file;
``--output FILE`` in the long form ``t_s,metric,value,unit`` every report interval; exits 0 when
its target exits or on SIGTERM.
"""

from __future__ import annotations

from pathlib import Path

import systems
from workflows.harness import ConfigError
from workflows.harness.scenario import role as scenario_role
from workflows.harness.settings import KNOWN
from workloads import read_series, tail_mean

NAME = "tierd"
OUTPUT = "tierd.csv"  # its data file in a point's directory
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


# tierd's DAMON observation (--observe damon, or auto without PEBS: colloid/tierd/src/obs_damon.c)
# adds a kdamond by raising nr_kdamonds (Documentation/admin-guide/mm/damon/usage.rst) and lowers it
# again when it exits; killed, it cannot. Its kdamond watches the workload's address space (vaddr)
# and stops once that process is gone (mm/damon/core.c kdamond_need_stop(), the operations'
# target_valid: mm/damon/vaddr.c), so the journaled count can be written back then.
DAMON_NR_KDAMONDS = "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"


def role(argv_: list[str]) -> dict:
    """tierd's latency source is CHA TOR occupancy through perf uncore (Intel) or the L3 PMU's XI
    sampled latency (AMD Zen 4/5) unless ``--latency probe`` (colloid/tierd/src/main.c, --latency
    auto|cha|amd-l3|probe): those boxes are then its own this point."""
    lat = argv_[argv_.index("--latency") + 1] if "--latency" in argv_ else "auto"
    pmus = {}
    if lat in ("auto", "cha"):
        pmus["uncore_cha"] = f"tierd --latency {lat}: per-tier latency from CHA TOR occupancy"
    if lat in ("auto", "amd-l3"):
        pmus["amd_l3"] = f"tierd --latency {lat}: per-tier latency from the L3 XI sampled latency"
    pmus = pmus or None
    return scenario_role("tierd", argv_, output=OUTPUT, target_pid="--pid", parse="workloads.tierd.workload:rows",
                         pmus=pmus, changes=[DAMON_NR_KDAMONDS])


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    series = read_series(outdir / role_["output"][1])
    out = [{"t_s": t["t_s"], "metric": t["metric"], "value": t["value"], "unit": t.get("unit", ""), "tool": "tierd"}
           for t in series]
    w = opts.get("average_last_s", 30)
    for metric, name in SUMMARY.items():
        s = [t for t in series if t["metric"] == metric]
        if s:  # duration_s: the seconds averaged (tail_mean's window)
            out.append({"metric": name, "value": f"{tail_mean(s, 'value', w):.6g}", "unit": s[0].get("unit", ""),
                        "tool": "tierd", "duration_s": f"{w:g}"})
    return out


def no_rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """A user's tiering command reports nothing the harness reads."""
    return []


def system(name: str, colloid: bool, *, nodes: tuple[int, int], default_capacity: str, observe: str,
           min_mapping: str | None = None, tools: dict | None = None) -> tuple[list[dict], dict, str]:
    """How a tiering system (its registry entry, systems/) runs on real tiers: the attach roles, the
    settings, a note. A kernel mechanism is its settings alone; tierd runs the system's libcolloid
    policy; a command of the user's (host profile ``tools:``) is attached like tierd."""
    s = systems.get(name)
    m = s.mechanism(colloid)
    if m is None:
        raise ConfigError(f"tiering system {name!r} does not run on real tiers{' with Colloid' if colloid else ''}")
    if isinstance(m, systems.Driven) and m.colloid:
        # tierd measures the per-tier latencies (its CHA or probe source) and moves nothing
        # (--dry-run, --observe none); the mechanism driver's feeder reads its rows
        meter = argv(policy=m.meter or s.policy, colloid=True, nodes=nodes, default_capacity="auto", observe="none") + ["--dry-run"]
        return [role(meter)], dict(m.settings), m.note
    if isinstance(m, systems.Kernel):
        return [], dict(m.settings), m.note
    if isinstance(m, systems.Command):
        exe = (tools or {}).get(m.tool)
        if not exe:
            raise ConfigError(f"tiering system {name!r} runs the host profile's tools/{m.tool}, which it does not name")
        attach = [scenario_role(name, [exe, *m.args], target_pid="--pid", parse="workloads.tierd.workload:no_rows")]
        return attach, {}, m.note or f"{name}: {exe}"
    attach = [role(argv(policy=m.policy or s.policy, colloid=colloid, nodes=nodes, default_capacity=default_capacity,
                        observe=observe, min_mapping=min_mapping))]
    note = m.note
    if observe == "none":
        note += "; no access samples (--observe none): only capacity-driven moves"
    return attach, dict(m.settings), note


def check_kernel(names: list[str], knob_exists, src: str, where: str) -> None:
    """A kernel mechanism needs its settings' knobs; one line naming what is missing."""
    for name in names:
        s = systems.get(name)
        for m in (s.mechanism(False), s.mechanism(True)):
            if not isinstance(m, systems.Kernel):
                continue
            for key in m.settings:
                path = KNOWN[key]
                if not knob_exists(path):
                    raise ConfigError(f"host profile {src}: {s.label} needs the kernel's tiering mode but {path} ({key}) "
                                      f"does not exist on this kernel ({m.needs}); drop {name} from {where}")


def knobs() -> dict[str, str]:
    """Every kernel setting a registered system's kernel mechanism needs: name -> path."""
    out = {}
    for s in systems.SYSTEMS.values():
        for m in (s.mechanism(False), s.mechanism(True)):
            if isinstance(m, systems.Kernel):
                out.update({k: KNOWN[k] for k in m.settings})
    return out
