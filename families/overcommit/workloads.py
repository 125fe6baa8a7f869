"""The overcommit family's workloads: for each, its program's argv, its native metric's parser
(``module:function`` -> metric, value, unit, higher_is_better, work done and its unit) and its
parameter columns. The programs' own modules are workloads/<name>/workload.py."""

from __future__ import annotations

import json
import os

from workflows.harness import ConfigError
from workflows.harness.memcg import FILES as RUNNER_FILES
from workflows.harness.plan import Host
from workloads.duckdb_tpch import workload as tpch
from workloads.ffmpeg import workload as ffmpeg
from workloads.pgtpcc import workload as pgtpcc
from workloads.resnet50 import train as resnet50_train
from workloads.resnet50 import workload as resnet50

FILES = {"series": "memcg.csv", **RUNNER_FILES}
KNOWN = ("ffmpeg", "tpch", "tpcc", "resnet50")


TPCH_CHECKSUMS = "tpch_checksums.json"  # the unlimited (R = 1) run's answers, checked by the R > 1 runs


def per_ratio_args(name: str, baseline_dir: str, ratio: float) -> list[str]:
    """What a workload's program takes per ratio: TPC-H's R = 1 point writes each query's row count
    and checksum, its R > 1 points check theirs against them (where DuckDB has no reference
    answers for the scale factor; ``baseline_dir``: the R = 1 point's directory)."""
    if name != "tpch":
        return []
    flag = "--checksums-out" if ratio == 1 else "--checksums-from"
    return [flag, f"{os.path.abspath(baseline_dir)}/{TPCH_CHECKSUMS}"]


def dumps(argv: list[str]) -> str:
    return json.dumps([str(a) for a in argv], separators=(",", ":"))


def threads_of(cfg: dict, cpus: list[int], key: str) -> int:
    n = len(cpus) if cfg["threads"] == "auto" else int(cfg["threads"])
    if n > max(len(cpus), 1):
        raise ConfigError(f"experiment config: {key}/threads: {n} threads but the host profile grants {len(cpus)} "
                          "application CPU(s)")
    return max(n, 1)


def spec(name: str, oc: dict, host: Host, cpus: list[int]) -> dict:
    cfg = oc.get(name)
    if name not in KNOWN or cfg is None:
        raise ConfigError(f"experiment config: overcommit/workloads: unknown workload {name!r} (known: {', '.join(KNOWN)})")
    if name == "ffmpeg":
        threads = threads_of(cfg, cpus, "overcommit/ffmpeg")
        argv = ffmpeg.argv(ffmpeg.find(host.profile, host.facts), size=cfg["size"], frames=cfg["frames"],
                           preset=cfg["preset"], threads=threads)
        return {"argv": argv, "native": "workloads.ffmpeg.workload:native", "runner_args": [],
                "context": {"work_unit": "frame"},
                "note": f"x264 {cfg['preset']} encode of {cfg['frames']} frames of testsrc2 {cfg['size']}, {threads} threads"}
    if name == "tpch":
        why = tpch.check()
        if why:
            raise ConfigError(f"experiment config: overcommit/workloads: tpch needs DuckDB and its tpch extension: {why}")
        threads = threads_of(cfg, cpus, "overcommit/tpch")
        argv = tpch.argv(sf=cfg["scale_factor"], threads=threads, memory_limit=cfg["memory_limit"], rounds=cfg["rounds"])
        return {"argv": argv, "native": "workloads.duckdb_tpch.workload:native", "runner_args": [],
                "context": {"work_unit": "query", "scale_factor": cfg["scale_factor"]},
                "note": f"TPC-H SF {cfg['scale_factor']:g} on in-memory DuckDB, 22 queries x {cfg['rounds']} round(s), "
                        f"{threads} threads, memory_limit {cfg['memory_limit']}"}
    if name == "tpcc":
        why = pgtpcc.check()
        if why:
            raise ConfigError(f"experiment config: overcommit/workloads: tpcc needs PostgreSQL: {why}")
        datadir = os.path.abspath(f"{host.results}/overcommit-scratch/tpcc")
        port = cfg["port"]
        runner = ["--prepare-json", dumps(pgtpcc.prepare_argv(datadir, port, warehouses=cfg["warehouses"],
                                                              shared_buffers=cfg["shared_buffers"])),
                  "--server-ready", dumps(pgtpcc.ready_argv(datadir, port)),
                  "--server-stop", dumps(pgtpcc.stop_argv(datadir)), "--server-signal", "INT",
                  "--cleanup-json", dumps(pgtpcc.cleanup_argv(datadir, port))]
        argv = pgtpcc.driver_argv(datadir, port, warehouses=cfg["warehouses"], clients=cfg["clients"],
                                  duration_s=cfg["duration_s"])
        return {"argv": argv, "native": "workloads.pgtpcc.workload:native", "runner_args": runner, "server": pgtpcc.server_argv(datadir, port),
                "dirs": pgtpcc.made_dirs(datadir, port),  # journaled: removed (its server ended) after a SIGKILL too
                "context": {"work_unit": "transaction", "warehouses": cfg["warehouses"]},
                "note": f"TPC-C-like (not TPC-C: docs/overcommit.md) {cfg['warehouses']} warehouse(s), {cfg['clients']} pgbench clients for {cfg['duration_s']} s; "
                        f"PostgreSQL in the cgroup (shared_buffers {cfg['shared_buffers']}), pgbench outside"}
    if name == "resnet50":
        threads = threads_of(cfg, cpus, "overcommit/resnet50")
        context = {"work_unit": "image", "batch": cfg["batch"], "dataset_mib": cfg["dataset_mib"], "resnet50_mode": cfg["mode"]}
        if cfg["mode"] == "train":
            why = resnet50_train.check()
            if why:
                raise ConfigError(f"experiment config: overcommit/resnet50/mode: train needs PyTorch: {why}")
            return {"argv": resnet50_train.argv(batch=cfg["batch"], images=cfg["images"], dataset_mib=cfg["dataset_mib"],
                                                threads=threads),
                    "native": "workloads.resnet50.workload:native", "runner_args": [], "context": context,
                    "note": f"ResNet-50 training (random weights and labels, PyTorch CPU, SGD), batch {cfg['batch']}, "
                            f"{cfg['images']} images from a {cfg['dataset_mib']} MiB in-memory dataset, {threads} threads"}
        why = resnet50.check()
        if why:
            raise ConfigError(f"experiment config: overcommit/workloads: resnet50 needs ONNX Runtime: {why}")
        model = f"{host.results}/overcommit-scratch/resnet50.onnx"
        argv = resnet50.argv(model, batch=cfg["batch"], images=cfg["images"], dataset_mib=cfg["dataset_mib"],
                             threads=threads)
        return {"argv": argv, "native": "workloads.resnet50.workload:native",
                "runner_args": ["--prepare-json", dumps(resnet50.build_argv(model)),
                                "--cleanup-json", dumps(resnet50.remove_argv(model))],
                "context": context,
                "note": f"ResNet-50 inference (random weights, ONNX Runtime), batch {cfg['batch']}, {cfg['images']} images "
                        f"from a {cfg['dataset_mib']} MiB in-memory dataset, {threads} threads"}
    raise AssertionError(name)
