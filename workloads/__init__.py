"""Workloads: one module per program a point runs, ``workloads/<name>/workload.py`` (the
antagonist's is ``antagonists/workload.py``). See docs/extending.md.

Each module gives, in one place:

- ``NAME``; ``BUILD``: how ``build/bin/<NAME>`` is made (``make`` directories in order, and the
  source globs whose change rebuilds it), or ``None`` for a program the system or the user
  provides (fio, Intel MLC: ``find(profile, facts)`` says where it is);
- ``argv(...)``: its command line from the point's parameters (no hard-coded CPUs or nodes);
- ``role(argv)``: its protocol in a scenario (output file, pid and ready files, stdout;
  workflows/harness/scenario.py);
- its parser(s) ``rows(outdir, role, opts) -> list[dict]``: raw output to long-form rows;
- optionally ``seconds(argv) -> float | None``: how long one run of that command line takes, for
  ``cli plan``'s estimate before a first run (workflows/harness/estimate.py: read from the module
  named by the role's ``parse``, or by ``python -m MODULE``). It gets the role's whole argv,
  wrappers included, for every role its module parses (a server's, a probe's too): None where the
  argv is not its program's (:func:`args_after`) or says nothing it can use, which leaves it to the
  durations in the argv; a number replaces those. Its constants are this project's development
  VM's; an earlier run's times replace them.

Adding a workload is its module (and its sources or pin) plus one line in :data:`WORKLOADS`.
"""

from __future__ import annotations

import csv
import io
from importlib import import_module
from pathlib import Path
from types import ModuleType

# name -> module (one line per workload)
WORKLOADS = {
    "memchar": "workloads.memchar.workload",
    "gups": "workloads.gups.workload",
    "antagonist": "antagonists.workload",
    "fio": "workloads.fio.workload",
    "mlc": "workloads.mlc.workload",
    "gapbs": "workloads.gapbs.workload",
    "silo": "workloads.silo.workload",
    "cachebench": "workloads.cachebench.workload",
    "tiersim": "workloads.tiersim.workload",
    "tierd": "workloads.tierd.workload",
    "ffmpeg": "workloads.ffmpeg.workload",
    "duckdb_tpch": "workloads.duckdb_tpch.workload",
    "pgtpcc": "workloads.pgtpcc.workload",
    "resnet50": "workloads.resnet50.workload",
    "ycsb": "workloads.ycsb.workload",
    "kv-resp": "workloads.kvresp.workload",
    "kv-pmem": "workloads.kvpmem.workload",
}


def get(name: str) -> ModuleType:
    if name not in WORKLOADS:
        raise KeyError(f"unknown workload {name!r} (known: {', '.join(WORKLOADS)})")
    return import_module(WORKLOADS[name])


def read_series(path: Path) -> list[dict]:
    """A per-interval CSV a program is still writing or was stopped while writing: a partial
    last line is dropped; a missing file is no rows."""
    if not path.exists():
        return []
    text = path.read_text()
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text)))


def tail_mean(rows: list[dict], key: str, average_last_s: float) -> float:
    """Mean of ``key`` over the rows of the last ``average_last_s`` seconds (all rows if none)."""
    t_end = max(float(r["t_s"]) for r in rows)
    last = [r for r in rows if float(r["t_s"]) > t_end - average_last_s] or rows
    return sum(float(r[key]) for r in last) / len(last)


def args_after(argv: list[str], program: str) -> list[str] | None:
    """The arguments after ``program`` in a command line that may start with wrappers (numactl,
    setpriv, ``python -m``): after its first element named ``program`` or ending in ``/program``;
    None where ``program`` is not in it (another program's argv: a server role, a wrapper's)."""
    for i, a in enumerate(argv):
        if a == program or a.endswith("/" + program):
            return argv[i + 1:]
    return None


def flag(args: list[str], name: str, default: str | None = None) -> str | None:
    """The value of ``name`` in ``args`` (``--name value`` or ``--name=value``), else ``default``."""
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default
