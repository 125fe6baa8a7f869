"""The overcommit family (seed 003, a CXL hybrid memory pool of DRAM plus NVMe SSD): real
applications with their DRAM limited to F/R of their demand and swap behind it.

Each point runs its workload inside its own memory cgroup ``tierbench/<workload>-R<R>`` (cgroup v2
or v1; workflows/harness/memcg.py) with the memory limit F/R and swap unlimited, with a swap area
enabled for the point and disabled after it (a swapfile made and removed, or the device the
config names). The cgroup and the swap area are resources of the point's scenario
(``scenario(..., swap=..., cgroup=...)``): made, journaled and undone with its settings
(vm.swappiness / vm.page-cluster / zswap) by the core's one settings journal.

F, the workload's swap-backed footprint (peak anon + shmem, not page cache), is measured by the
R = 1 point, which runs unlimited and is also the baseline: each R > 1 point of repetition k has
the R = 1 point of repetition k as an input (its result.csv: Snakemake runs it first), reads F
and the native metric from it, and reports relative performance and slowdown against it.

Points: ``overcommit/ratio_sweep/<workload>/R<R>``. On a host with two or more memory nodes the
workload's memory is bound to the far node (``numactl --membind``): the pool's DRAM.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from analysis.registry import figures_of
from workflows.harness import ConfigError, cpulist, memcg
from workflows.harness.plan import FamilyPlan, Host, measured, point, replicate
from workflows.harness.scenario import role, scenario

from . import workloads as wl

NAME = "overcommit"
SCORED = False
COLUMNS = {"ratio": "number", "cgroup": "text", "swap_target": "text", "mem_node": "number",
           "work_unit": "text", "swapin_source": "text", "scale_factor": "number", "warehouses": "number",
           "batch": "number", "dataset_mib": "number", "resnet50_mode": "text", "answers": "text"}
EXPERIMENT = "ratio_sweep"
# the time a stopped runner gets to stop its server and clean up (memcg.py's way out: the server's
# fast shutdown, pg_ctl stop -t 60 when its pid file is left, the cluster removed within 30 s)
STOP_GRACE_S = 120
# zswap's switch: Documentation/admin-guide/mm/zswap.rst; swappiness and page-cluster:
# Documentation/admin-guide/sysctl/vm.rst
ZSWAP = "/sys/module/zswap/parameters/enabled"
SETTINGS = {"swappiness": "/proc/sys/vm/swappiness", "page_cluster": "/proc/sys/vm/page-cluster"}


def saving(ratio: float, cost: dict) -> float:
    """Saving in total cost of memory at overcommit ratio R: a demand D costs D*p_dram in DRAM
    only; with D/R in DRAM and the rest on SSD it costs (D/R)*p_dram + D(1-1/R)*p_ssd."""
    return (1 - 1 / ratio) * (1 - cost["ssd_per_gib"] / cost["dram_per_gib"])


def point_dir(host: Host, workload: str, ratio: float, rep: int = 0) -> str:
    return f"{host.results}/{NAME}/{EXPERIMENT}/{workload}/R{ratio:g}/rep{rep}"


def _check(config: dict, host: Host) -> tuple[dict, dict, dict]:
    """Bad input -> one ConfigError naming the key; returns the cgroup facts, the swap area
    (``{"target", "size_mib"}``, a scenario resource) and the settings."""
    oc = config[NAME]
    key = f"experiment config: {NAME}"
    bad = [r for r in oc["ratios"] if r < 1]
    if bad:
        raise ConfigError(f"{key}/ratios: {bad[0]:g} < 1 (R = memory demand / DRAM given is at least 1)")
    if 1 not in oc["ratios"]:
        raise ConfigError(f"{key}/ratios: must include 1 (the unlimited run that measures F and is the baseline)")
    if len(set(oc["ratios"])) != len(oc["ratios"]):
        raise ConfigError(f"{key}/ratios: {oc['ratios']} lists a ratio twice")
    info = memcg.detect()
    if not info.get("version"):
        raise ConfigError(f"{key}: memory cgroup controller unavailable: {info['reason']} (or set {NAME}/enabled: false)")
    if info["version"] == "v1" and not info.get("memsw"):
        raise ConfigError(f"{key}: cgroup v1 without swap accounting (no memory.memsw.* files: a kernel without "
                          "swap or memcg swap accounting, or one booted with swapaccount=0)")
    for tool in ("mkswap", "swapon", "swapoff"):
        if not shutil.which(tool):
            raise ConfigError(f"{key}/swap: {tool} is not on PATH (Debian: util-linux)")
    sw = oc["swap"]
    device, what = sw["device"], f"{key}/swap/device"
    if not device and (host.profile.get("storage") or {}).get("swap_device"):
        device, what = host.profile["storage"]["swap_device"], f"host profile {host.source}: storage/swap_device"
    # live state (a swap area in use, free disk) is checked by the process that plans the run, for
    # this machine: not again in a job process, where this run's own swap is active (plan.Host.live)
    if device:
        if host.live:
            memcg.check_device(device, what)
        swap = {"target": device, "size_mib": None}
    else:
        directory = sw["directory"] or f"{host.results}/{NAME}-swap"
        target = f"{directory}/tierbench.swap"
        if host.live:
            memcg.check_swapfile_room(directory, sw["size_mib"], f"{key}/swap/size_mib")
        if host.live and os.path.realpath(target) in {os.path.realpath(s) for s in memcg.active_swaps()}:
            raise ConfigError(f"{key}/swap/directory: {target} is already an active swap area (in use; if a killed "
                              "run left it: python -m workflows.harness.cli repair)")
        if host.live and os.path.lexists(target):
            raise ConfigError(f"{key}/swap/directory: {target} exists already: the family makes and removes its own "
                              "swapfile there and never one it did not make (if a killed run left it: "
                              "python -m workflows.harness.cli repair; else remove it or name another directory)")
        swap = {"target": target, "size_mib": sw["size_mib"]}
    settings = {SETTINGS["swappiness"]: str(oc["swappiness"]), SETTINGS["page_cluster"]: str(oc["page_cluster"])}
    if Path(ZSWAP).exists():
        settings[ZSWAP] = "Y" if oc["zswap"] else "N"
    elif oc["zswap"]:
        raise ConfigError(f"{key}/zswap: this kernel has no zswap ({ZSWAP} is missing)")
    return info, swap, settings


def far_node(host: Host) -> int | None:
    """The pool's DRAM on a host with two or more memory nodes: the slowest (last listed) NUMA tier."""
    numa = [t for t in host.profile["tiers"] if t["kind"] == "numa"]
    return numa[-1]["node"] if len(numa) >= 2 else None


def bind(prog: list[str], node: int | None, cpus: list[int]) -> list[str]:
    """The program on the application CPUs, its memory on the far node where there is one."""
    if node is not None:  # the pool's DRAM: the far node
        return ["numactl", f"--membind={node}", f"--physcpubind={cpulist.format(cpus)}", *prog]
    return ["taskset", "-c", cpulist.format(cpus), *prog] if cpus else list(prog)


def plan(config: dict, host: Host) -> FamilyPlan:
    oc = config[NAME]
    if not oc["enabled"]:
        return FamilyPlan()
    if host.runner:
        return FamilyPlan(absent={NAME: f"host {host.name} is a {host.runner['kind']} guest: the overcommit family "
                                        "runs on real hosts only (a guest batch is one boot, but an R > 1 point needs "
                                        "the R = 1 point's F first; tests/test_overcommit_guest.py runs its points in the "
                                        "guest boot by boot)"})
    if not host.facts.get("privileges", {}).get("root", os.geteuid() == 0):
        return FamilyPlan(absent={NAME: "cgroups and swap need root: run as root to run this family"})
    info, swap, settings = _check(config, host)
    cpus = host.profile["cpus"]["app"]
    node = far_node(host)
    target = swap["target"]
    swap_args = ["--swap", target, *(["--swap-mib", str(swap["size_mib"])] if swap["size_mib"] else [])]
    rows = []
    for name in oc["workloads"]:
        spec = wl.spec(name, oc, host, cpus)
        for ratio in sorted(oc["ratios"]):
            base = None if ratio == 1 else f"{point_dir(host, name, 1)}/result.csv"
            cgroup = f"{name}-R{ratio:g}"
            argv = ["python", "-m", "workflows.harness.memcg", "run", "--name", cgroup,
                    "--ratio", f"{ratio:g}", "--interval-ms", str(oc["interval_ms"]),
                    *swap_args, *(["--footprint-from", base] if base else []), *spec["runner_args"]]
            if spec.get("server"):  # a server in the cgroup (bound), its driver outside (unbound memory)
                argv += ["--server", wl.dumps(bind(spec["server"], node, cpus))]
                prog = [*spec["argv"], *wl.per_ratio_args(name, point_dir(host, name, 1), ratio)]
                # the driver (pgbench) off the server's CPUs: on the antagonist CPUs, which this family
                # does not use (taskset(1) -c), so that it never takes the server's CPU time
                driver_cpus = host.profile["cpus"].get("antagonist") or []
                if driver_cpus:
                    prog = ["taskset", "-c", cpulist.format(driver_cpus), *prog]
            else:
                prog = bind([*spec["argv"], *wl.per_ratio_args(name, point_dir(host, name, 1), ratio)], node, cpus)
            prepares = "--prepare-json" in spec["runner_args"]  # its own limit, on top of the point's
            if prepares:
                argv += ["--prepare-timeout-s", f"{oc['prepare_timeout_s']:g}"]
            argv += ["--argv-json", wl.dumps(prog)]
            # a runner that stops a server (pg_ctl stop: up to 60 s) and runs a cleanup (the cluster
            # removed, up to 30 s) gets the time for it when the point is stopped (Ctrl-C): under
            # load, 3 s once ended it before the cluster was removed
            cleans_up = bool(spec.get("server")) or "--cleanup-json" in spec["runner_args"]
            r = role(name, argv, output="memcg.csv", output_flag="--series", parse="families.overcommit.parse:rows",
                     opts={"native": spec["native"], "ratio": ratio, "baseline": base, "cost": dict(oc["cost"]),
                           "files": wl.FILES, "info": spec.get("info", {})}, stop_grace_s=STOP_GRACE_S if cleans_up else None)
            # the point's cgroup and swap area, and the directories its workload makes (TPC-C-like: the
            # cluster's): resources of its scenario, journaled with its settings
            sc = scenario(r, settings=settings, swap=swap, cgroup=cgroup, dirs=spec.get("dirs", ()),
                          timeout_s=oc["timeout_s"] + (oc["prepare_timeout_s"] if prepares else 0))
            ctx = {"host": host.name, "backend": "numa", "workload": name, "system": "linux-swap", "ratio": ratio,
                   "cgroup": info["version"], "swap_target": target, "target": f"node:{node}" if node is not None
                   else "local", "mem_node": node, **spec["context"]}
            rows.append(point(NAME, EXPERIMENT, f"{name}/R{ratio:g}", executor=host.executor, context=ctx,
                              columns=COLUMNS, run=measured(config, host, sc, note=spec.get("note", "")), tools=[],
                              inputs=[base] if base else []))
    reps = config["reps"] if oc["reps"] == "auto" else max(config["reps"], oc["reps"])
    return FamilyPlan(rows=replicate(rows, reps, reseed=_rep), figures=figures_of(NAME))


def _rep(row: dict, k: int) -> None:
    """Repetition k of an R > 1 point reads F and its baseline from the R = 1 point of repetition k."""
    def fix(s: str) -> str:
        return s.replace("/R1/rep0/", f"/R1/rep{k}/")

    row["inputs"] = [fix(s) for s in row["inputs"]]
    for r in row["run"]["scenario"]["roles"]:
        r["argv"] = [fix(a) for a in r["argv"]]
        if r["opts"].get("baseline"):
            r["opts"]["baseline"] = fix(r["opts"]["baseline"])
