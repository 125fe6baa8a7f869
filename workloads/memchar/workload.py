"""memchar (this directory's C program): argv per subcommand, protocol, parsers, build recipe.

Protocol: one run per invocation, a CSV on standard output (one row per measured value; columns
``tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,target,size_bytes,buffer_bytes,
delay,bandwidth_mbps,bytes_per_iter,huge_pages,flush,verified,duration_s,share,quantile,group_loads,
access_bytes``); exit 0, or 1 when a result could not be verified (which the parser refuses too).
``latency``/``loaded`` rows also give the distribution per point: ``<metric>_quantile`` rows
(``quantile`` in (0, 1], ns per load), ``<metric>_interrupted`` and ``<metric>_groups`` (counts), and
``timer_cost`` rows (ns per clock read). ``share`` rows: per share of the
threads on target B, ``bandwidth_a`` and ``bandwidth_b`` (each non-empty group, its own target and
CPUs) and ``bandwidth_total`` (target ``A+B``), MB/s (10^6 B/s) over one window, a + b = total.
"""

from __future__ import annotations

import csv
from pathlib import Path

from workflows.harness.scenario import role as scenario_role

NAME = "memchar"
BUILD = {"libs": ["lib"], "make": ["workloads/memchar"],
         "sources": ["workloads/memchar/Makefile", "workloads/memchar/src/*.[ch]"]}

# memchar subcommand -> the experiment its rows belong to
EXPERIMENT = {"latency": "idle_latency", "bandwidth": "bandwidth", "loaded": "loaded_latency", "objsize": "object_latency",
              "share": "thread_share"}
SHARE_METRICS = ("bandwidth_total", "bandwidth_a", "bandwidth_b")  # share mode's metrics, MB/s
DROPPED = ("mode", "verified")  # mode becomes the experiment; verified is checked


def target_args(cpus: list[int], mem_node: int | None, dax: str | None) -> list[str]:
    a = ["--cpus", ",".join(map(str, cpus))]
    return a + (["--mem-node", str(mem_node)] if mem_node is not None else ["--dax", str(dax)])


def share_target_args(mem_node_b: int | None, dax_b: str | None) -> list[str]:
    """Target B of ``memchar share`` (target A is :func:`target_args`'s)."""
    return ["--mem-node-b", str(mem_node_b)] if mem_node_b is not None else ["--dax-b", str(dax_b)]


def share_argv(cpus: list[int], a: dict, b: dict, *, op: str, shares: list[float], duration_s: float,
               threads: int | None = None, buffer_mib: int | None = None) -> list[str]:
    """``memchar share``: ``threads`` (default: every CPU of ``cpus``) stream together, the fraction
    ``share`` of them (each of ``shares``, 0..1) over target ``b`` and the rest over target ``a``;
    a target is ``{"mem_node": M}`` or ``{"dax": PATH}``; ``duration_s`` is timed per share."""
    target = target_args(cpus, a.get("mem_node"), a.get("dax")) + share_target_args(b.get("mem_node"), b.get("dax"))
    return argv("share", target, op=op, threads=threads, shares=[f"{s:g}" for s in shares], duration=duration_s,
                buffer_mib=buffer_mib)


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


# cli plan's estimate before a first run (a later run's own times replace it), the development VM's
# (a fresh quick run, 2026-11-27): a pointer chain built, verified and walked once before it is timed,
# per MiB (latency over 256 MiB, 1 s timed: 2.5 s, 3.3 s before the chain's build and check used an
# index array; loaded's chain 1.0-1.5 s), and the warm-ups per point
# (loaded: min(d/5, 0.2 s) per delay, mode_loaded.c; objsize: min(d/10, 0.2 s) per size,
# mode_objsize.c, and its objects laid out: about 0.3 s)
CHAIN_S_PER_MIB, CHAIN_MIB, OBJSIZE_SETUP_S = 5.5e-3, 256, 0.3


def seconds(argv_: list[str]) -> float | None:
    """How long one memchar run takes (for cli plan), for the modes whose set-up is a large part of
    it (latency, loaded, objsize); None for the others (their ``--duration`` x the sweep says it).
    The chain's size is ``--buffer-mib`` or memchar's default, max(256, 8 x LLC) MiB
    (src/util.c, mc_default_chain_bytes), LLC the largest level-3 cache as memchar reads it
    (memchar.h, mc_llc_bytes), of the machine the plan runs on: the run's own where the plan runs
    where the points will (not a QEMU guest's or another host's a plan projects onto)."""
    from workflows.harness.hostdetect import llc_bytes  # noqa: PLC0415
    from workloads import args_after, flag  # noqa: PLC0415

    args = args_after(argv_, "memchar")
    if args is None:
        return None
    mode, d = (args[0] if args else ""), float(flag(args, "--duration", "1"))
    mib = flag(args, "--buffer-mib")
    chain = CHAIN_S_PER_MIB * (float(mib) if mib else max(CHAIN_MIB, 8 * (llc_bytes(level_only=3) or 0) / (1 << 20)))
    if mode == "latency":
        return chain + d
    if mode == "loaded":
        n = len([x for x in (flag(args, "--delays") or "").split(",") if x]) or 8  # (opts.c: 8 default delays)
        return chain + n * (d + min(d / 5, 0.2))
    if mode == "objsize":
        n = len([x for x in (flag(args, "--sizes") or "").split(",") if x]) or 7  # (opts.c: 7 default sizes)
        return OBJSIZE_SETUP_S + n * (d + min(d / 10, 0.2))
    return None


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
