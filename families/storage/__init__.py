"""The storage family: fio 4 KiB (and optionally larger) random reads over a range of I/O depths
on the host profile's storage directory or device (an SSD, or the swap device's filesystem).
Points: ``storage/fio_randread/bs<bytes>``; the I/O depths run one after another in each.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from analysis.registry import figures_of
from workflows.harness import ConfigError, cpulist
from workflows.harness.plan import FamilyPlan, Host, measured, point, replicate
from workflows.harness.scenario import scenario
from workloads.fio import workload as fio

NAME = "storage"
SCORED = False
COLUMNS = {"op": "text", "iodepth": "number", "block_bytes": "number"}


def check_room(scratch: str, size_mib: int, host: Host) -> None:
    """fio's data file can be written in ``scratch`` (or the nearest directory above it that
    exists, where the run makes it): writable, with room for ``size_mib`` (a stale one of an
    earlier run is replaced, so its size counts as free)."""
    d = Path(scratch)
    while not d.exists():
        d = d.parent
    if not os.access(d, os.W_OK | os.X_OK):
        what = (f"host profile {host.profile['source']}: storage/directory"
                if (host.profile.get("storage") or {}).get("directory") else "storage")
        raise ConfigError(f"{what}: fio cannot write its data file in {scratch} ({d} is not writable by this user)")
    stale = Path(scratch) / fio.DATA_FILE
    free = (shutil.disk_usage(d).free + (stale.stat().st_size if stale.is_file() else 0)) // 2**20
    if free < size_mib:
        raise ConfigError(f"experiment config: storage/file_size_mib: fio's {size_mib} MiB data file does not fit in "
                          f"{scratch} ({free} MiB free)")


def plan(config: dict, host: Host) -> FamilyPlan:
    st = config[NAME]
    if host.runner:
        return FamilyPlan(absent={NAME: f"host {host.name} is a {host.runner['kind']} guest: only the real tiering "
                                        "family runs in it"})
    if not st["enabled"]:
        return FamilyPlan()
    binary = fio.find(host.profile, host.facts)
    where = host.profile.get("storage") or {}
    scratch = where.get("directory") or f"{host.results}/storage-scratch"
    device = where.get("device")
    target = device or f"{scratch}/{fio.DATA_FILE}"
    engine = "libaio" if st["ioengine"] == "auto" else st["ioengine"]
    if not device and host.live:  # (not in a job, where the run's file may be there by now)
        check_room(scratch, st["file_size_mib"], host)
    rows = []
    for bs in st["block_sizes"]:
        # on the application CPUs, as every measured workload: not wherever the scheduler puts it
        # (on a two-socket host possibly the socket away from the device)
        app = (host.profile.get("cpus") or {}).get("app") or []
        argv = fio.argv(binary, target=target, size_mib=st["file_size_mib"], bs=bs, ioengine=engine, direct=st["direct"],
                        runtime_s=st["runtime_s"], iodepths=st["iodepths"], cpus=cpulist.format(app) if app else None)
        sc = scenario(fio.role(argv), timeout_s=60 + len(st["iodepths"]) * (st["runtime_s"] + 30),
                      scratch=None if device else {"dir": scratch, "remove": [fio.DATA_FILE]})
        ctx = {"host": host.name, "backend": "storage", "target": device or scratch}
        rows.append(point(NAME, "fio_randread", f"bs{bs}", executor=host.executor, context=ctx, columns=COLUMNS,
                          run=measured(config, host, sc)))
    return FamilyPlan(rows=replicate(rows, config["reps"]), figures=figures_of(NAME))
