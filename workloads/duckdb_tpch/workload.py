"""TPC-H on DuckDB (pip ``duckdb`` and ``duckdb-extension-tpch``, both pinned in requirements.txt):
the overcommit family's data-analytics workload (seed 003). argv, the program, its parser.

``python -m workloads.duckdb_tpch.workload --sf SF --threads N --memory-limit L`` opens an
in-memory database (its tables are anonymous memory: swap-backed, what the family limits), loads
the tpch extension from the pinned wheel (``LOAD 'path'``: DuckDB checks its signature; nothing is
downloaded, so it works offline), generates the data with ``CALL dbgen(sf=SF)``, then runs the 22
queries (``PRAGMA tpch(q)``) ``--rounds`` times and prints ``round,query,seconds`` lines and a
``total_s`` line on standard output. ``memory_limit`` is set explicitly (DuckDB would otherwise
size itself from the cgroup limit, 80 % of it, and spill to disk instead of swapping), and
``temp_directory`` is disabled. The metric is the summed query time of the last round (lower is
better).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

NAME = "duckdb_tpch"
BUILD = None  # Python packages (requirements.txt)
QUERIES = 22


def extension_path() -> str:
    import duckdb  # noqa: PLC0415
    import duckdb_extension_tpch  # noqa: PLC0415

    base = Path(duckdb_extension_tpch.__file__).parent / "extensions"
    want = base / f"v{duckdb.__version__}" / "tpch.duckdb_extension"
    if not want.exists():
        have = sorted(p.name for p in base.iterdir())
        raise RuntimeError(f"duckdb-extension-tpch has no build for duckdb {duckdb.__version__} (it has {have}): "
                           "pin the same version of both")
    return str(want)


def check() -> str | None:
    """Why this workload cannot run here (packages missing), or None."""
    try:
        extension_path()
    except (ImportError, RuntimeError, OSError) as e:
        return f"{e} (pip install -r requirements.txt)"
    return None


def argv(*, sf: float, threads: int, memory_limit: str, rounds: int) -> list[str]:
    return ["python", "-m", "workloads.duckdb_tpch.workload", "--sf", f"{sf:g}", "--threads", str(threads),
            "--memory-limit", memory_limit, "--rounds", str(rounds)]


def parse(text: str) -> dict:
    rows = [ln.split(",") for ln in text.splitlines() if ln and ln[0].isdigit()]
    if not rows:
        raise ValueError("TPC-H output has no query lines")
    last = max(int(r[0]) for r in rows)
    times = [float(r[2]) for r in rows if int(r[0]) == last]
    if len(times) != QUERIES:
        raise ValueError(f"TPC-H output: round {last} has {len(times)} of {QUERIES} queries")
    return {"queries": len(times), "total_s": sum(times)}


def native(outdir: Path, files: dict) -> dict:
    p = parse((outdir / files["stdout"]).read_text())
    return {"metric": "query_time", "value": round(p["total_s"], 5), "unit": "s", "higher_is_better": False,
            "work": p["queries"], "work_unit": "query"}


def main(args: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="TPC-H on in-memory DuckDB")
    ap.add_argument("--sf", type=float, required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--memory-limit", default="64GB")
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args(args)
    import duckdb  # noqa: PLC0415

    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.execute(f"SET threads = {a.threads}")
    con.execute(f"SET memory_limit = '{a.memory_limit}'")
    con.execute("SET temp_directory = ''")
    con.execute(f"LOAD '{extension_path()}'")
    t0 = time.monotonic()
    con.execute(f"CALL dbgen(sf = {a.sf})")
    print(f"# dbgen sf={a.sf:g} {time.monotonic() - t0:.3f} s pid {os.getpid()}", flush=True)
    for rnd in range(a.rounds):
        for q in range(1, QUERIES + 1):
            t = time.monotonic()
            con.execute(f"PRAGMA tpch({q})").fetchall()
            print(f"{rnd},{q},{time.monotonic() - t:.6f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
