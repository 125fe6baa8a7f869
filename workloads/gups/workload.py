"""GUPS (this directory's C program): argv, protocol, parser and build recipe.

Protocol: ``--output FILE`` per-second CSV (``t_s,updates_per_s,gbytes_per_s,...``), ``--pid-file``
once its buffer is allocated and touched (a policy daemon attaches then), ``--ready-file`` when
the timed phase starts. Exits 0 after ``--duration`` seconds.
"""

from __future__ import annotations

from pathlib import Path

from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import mib, node_mib
from workflows.harness.scenario import role as scenario_role

from .. import read_series, tail_mean

NAME = "gups"
BUILD = {"libs": ["lib"], "make": ["workloads/gups"], "sources": ["workloads/gups/Makefile", "workloads/gups/*.[ch]"]}


def argv(*, cpus: list[int], node: int, working_set: str, hot_set: str, hot_share: float, object_bytes: int,
         op: str, duration_s: float, seed: int, move_hot_at_s: float | None = None,
         unbind_after_touch: bool = False, hot_placement: int | None = None) -> list[str]:
    """``unbind_after_touch``: the buffer starts on ``node`` but is not bound there once touched,
    so that NUMA balancing (kernel TPP) may move it (a bound range is never scanned).
    ``hot_placement``: a node (a tiered run's default tier) whose share of the hot set GUPS reports
    every second (``--hot-placement``: the hot set's bytes elsewhere, :func:`rows`' hot_in_alternate)."""
    a = ["build/bin/gups", "--cpus", cpulist.format(cpus), "--mem-node", str(node), "--working-set", working_set,
         "--hot-set", hot_set, "--hot-share", f"{hot_share:g}", "--object-size", str(object_bytes),
         "--op", op, "--duration", f"{duration_s:g}", "--seed", str(seed)]
    if move_hot_at_s is not None:
        a += ["--move-hot-at", f"{move_hot_at_s:g}"]
    if hot_placement is not None:
        a += ["--hot-placement", str(hot_placement)]
    return a + (["--unbind-after-touch"] if unbind_after_touch else [])


def check_sizes(*, working_set: str, hot_set: str, object_bytes: int, threads: int, node: int, facts: dict,
                where: str) -> None:
    """Refuse, before any job, the sizes gups.c's own checks would refuse when the point runs
    (workloads/gups/gups.c, "Sizes"): a hot set at least as large as the working set, or smaller than
    one object per thread, or a working set the node does not hold (here: with no room left for
    anything else). ``where``: the config key of the sizes (e.g. ``tiering/contention``)."""
    ws, hot = mib(working_set), mib(hot_set)
    have = node_mib(facts, node)
    if hot >= ws:
        raise ConfigError(f"experiment config: {where}/hot_set: {hot_set} is not smaller than the working set "
                          f"({working_set}); GUPS needs a hot set smaller than its working set")
    if hot * (1 << 20) < object_bytes * threads:
        raise ConfigError(f"experiment config: {where}/hot_set: {hot_set} holds less than one {object_bytes}-byte "
                          f"object for each of GUPS's {threads} threads")
    if ws >= have:
        raise ConfigError(f"experiment config: {where}/working_set: {working_set} does not fit node {node} "
                          f"({have:g} MiB), where GUPS allocates it; use a smaller working set")


def role(argv_: list[str]) -> dict:
    return scenario_role("gups", argv_, output="gups.csv", pid_file="gups.pid", ready_file="gups.ready",
                         parse="workloads.gups.workload:rows")


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    """Per-second throughput and bandwidth, and the throughput averaged over the last
    ``average_last_s`` seconds (a summary row: empty ``t_s``), as the paper reports it; with it
    ``cpu_share`` over the same seconds (the CPU time GUPS got there over the time times its threads);
    both summaries say the seconds averaged in ``duration_s``. With ``--hot-placement N`` also
    ``hot_in_alternate``: the GiB of the hot set not on node N (the default tier: on a two-tier host
    the alternate one holds them; gups.c asks move_pages(2) where its pages are), per second and over
    the same seconds, tiersim's metric of the same name."""
    series = read_series(outdir / role_["output"][1])
    out = []
    for g in series:
        out.append({"t_s": g["t_s"], "metric": "throughput", "value": f"{float(g['updates_per_s']) / 1e6:.6g}",
                    "unit": "Mops/s", "tool": "gups"})
        out.append({"t_s": g["t_s"], "metric": "app_bandwidth", "value": f"{float(g['gbytes_per_s']) * 1e3:.6g}",
                    "unit": "MB/s", "tool": "gups"})
    if series:
        w = opts.get("average_last_s", 30)
        mean = tail_mean(series, "updates_per_s", w)
        # duration_s: the seconds averaged (tail_mean's window; the fidelity's spread reads the same ones)
        out.append({"metric": "throughput", "value": f"{mean / 1e6:.6g}", "unit": "Mops/s", "tool": "gups",
                    "duration_s": f"{w:g}"})
        if all(g.get("cpu_share") not in (None, "") for g in series):
            # the share of its CPUs GUPS ran on over the same window as its throughput
            share = tail_mean(series, "cpu_share", w)
            out.append({"metric": "cpu_share", "value": f"{share:.4g}", "unit": "fraction", "tool": "gups",
                        "duration_s": f"{w:g}"})
        placed = [g for g in series if g.get("hot_off_node_bytes") not in (None, "")]
        for g in placed:
            out.append({"t_s": g["t_s"], "metric": "hot_in_alternate",
                        "value": f"{float(g['hot_off_node_bytes']) / (1 << 30):.6g}", "unit": "GiB", "tool": "gups"})
        if placed:
            hot = tail_mean(placed, "hot_off_node_bytes", w) / (1 << 30)
            out.append({"metric": "hot_in_alternate", "value": f"{hot:.6g}", "unit": "GiB", "tool": "gups",
                        "duration_s": f"{w:g}"})
    return out
