"""kv-pmem (C, ours; workloads/kvpmem/): a RESP key-value server whose data lives in a libpmemobj
(PMDK) pool on a DAX path, driven by the YCSB runner's Redis binding (the kv family's ``pmdk``
system): argv, protocol, build recipe, and the pool's size.

A persistent hash table (GET, SET, MGET, DEL) and one persistent ordered index (ZADD, ZREM,
ZRANGEBYLEX ... LIMIT) in the pool, every update in a pmemobj transaction; INFO (``process_id``),
FLUSHALL, PING, CLIENT, SELECT 0; TCP on 127.0.0.1, a thread per connection (kv-pmem.c says what
it does not do). Protocol: ``--pid-file`` (the pid, once it listens: the runner compares it with
INFO's ``process_id``, as for Redis) and ``--ready-file``; SIGTERM closes the pool and exits 0.
The pool file is created per point (``--fresh`` removes one a killed run left first) and removed
after it (the scenario's scratch). On a directory that is not DAX it runs only as an emulation,
under ``PMEM_IS_PMEM_FORCE=1``, labelled so by the family.
"""

from __future__ import annotations

import ctypes.util
import shutil
import subprocess
from pathlib import Path

from workflows.harness.scenario import role as scenario_role

NAME = "kv-pmem"
BUILD = {"make": ["workloads/kvpmem"],
         "sources": ["workloads/kvpmem/Makefile", "workloads/kvpmem/*.c", "lib/build.mk"]}
PIDFILE = "server.pid"  # beside the runner's output: how it knows the server on the port is its point's
POOL = "tierbench-kv-pmem-{host}.pool"  # in the DAX directory; removed after the point
EMULATE_ENV = "PMEM_IS_PMEM_FORCE=1"  # libpmem: treat the mapping as PMem (cache flushes, no msync)
PACKAGES = "libpmemobj-dev, libpmemobj1"


def argv(*, port: int, pool: str, size_mib: int, buckets: int) -> list[str]:
    return ["build/bin/kv-pmem", "--pool", pool, "--port", str(port), "--size-mib", str(size_mib),
            "--buckets", str(buckets), "--fresh"]


def role(argv_: list[str]) -> dict:
    return scenario_role("kv-pmem", argv_, name="kv-pmem", stdout="kv-pmem.log", output=PIDFILE,
                         output_flag="--pid-file", ready_file="kv-pmem.ready",
                         parse="workloads.kvpmem.workload:rows", usage=True)


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return []  # its CPU time and memory are in the YCSB runner's rows (and its usage rows)


def buckets(records: int) -> int:
    """Hash buckets (fixed when the pool is created): the power of two at or above the records."""
    return 1 << max(10, min(30, (max(records, 1) - 1).bit_length()))


def pool_mib(records: int, key_bytes: int, value_bytes: int) -> int:
    """The pool's size for ``records`` records: about 370 B per 123-byte record measured (the entry
    and skip-list node with their allocation headers), taken twice, plus the buckets and room for
    the transactions' logs."""
    per_record = 2 * (key_bytes + value_bytes + 256)
    return max(64, (records * per_record + buckets(records) * 16) // 2**20 + 64)


def missing() -> str:
    """Why kv-pmem cannot be built or run here (libpmemobj's header and library), or ""."""
    if not ctypes.util.find_library("pmemobj"):
        return "libpmemobj is not installed"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        r = subprocess.run([cc, "-E", "-x", "c", "-"], input="#include <libpmemobj.h>\n", capture_output=True, text=True)
        if r.returncode != 0:
            return "libpmemobj.h is missing (its -dev package)"
    return ""
