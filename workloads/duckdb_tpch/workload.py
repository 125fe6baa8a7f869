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

Every answer is checked (a run under memory pressure that returned wrong rows must not be reported
as a fast one): against DuckDB's reference answers (``tpch_answers()``, which the extension has for
scale factors 0.01, 0.1 and 1) where it has them for ``--sf``; elsewhere internally (each query's
row count and an order-independent checksum of its rows in every round must equal round 0's and,
with ``--checksums-from``, an unlimited run's: the overcommit family's R = 1 point writes them
with ``--checksums-out``). A wrong answer ends the run with one ``tierbench: error: TPC-H qN:
...`` line and a non-zero status; a run that completes prints ``# answers verified: ...``.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import hashlib
import json
import math
import os
import re
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
    verified = re.search(r"^# answers verified: (\d+) query results (.*)$", text, re.M)
    if not verified:
        raise ValueError("TPC-H output has no '# answers verified' line: the answers were not checked")
    return {"queries": len(times), "total_s": sum(times), "verified": int(verified.group(1)),
            "verified_how": verified.group(2)}


def native(outdir: Path, files: dict) -> dict:
    p = parse((outdir / files["stdout"]).read_text())
    return {"metric": "query_time", "value": round(p["total_s"], 5), "unit": "s", "higher_is_better": False,
            "work": p["queries"], "work_unit": "query",
            "answers": f"answers verified {p['verified_how']}",
            "checks": [{"metric": "answers_verified", "value": p["verified"], "unit": "query"}]}


REL_TOL = 1e-6  # DOUBLE columns (averages): a parallel sum's order changes the last digits


def _cell(v) -> str:
    """A value as tpch_answers() writes it (its answers are pipe-separated text)."""
    if v is None:
        return ""  # its NULL (TPC-H q17 at sf 0.01: avg_yearly)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _same(got: str, want: str) -> bool:
    """Cells equal; a DOUBLE's (its text has an exponent or many digits) within REL_TOL. DECIMAL,
    integer, text and date cells must be equal as text (see compare)."""
    if got == want:
        return True
    try:
        g, w = float(got), float(want)
    except ValueError:
        return False
    return math.isclose(g, w, rel_tol=REL_TOL, abs_tol=1e-9)


def _same_exact(got: str, want: str) -> bool:
    """DECIMAL cells equal as numbers (the reference drops trailing zeros: 380456 for 380456.00)."""
    try:
        return decimal.Decimal(got) == decimal.Decimal(want)
    except decimal.InvalidOperation:
        return False


def reference_rows(answer: str) -> tuple[list[str], list[list[str]]]:
    """tpch_answers()'s text: a header line of column names, then one line per row, '|' between cells."""
    lines = (answer[:-1] if answer.endswith("\n") else answer).split("\n")  # an empty line is a row of NULL
    return lines[0].split("|"), [ln.split("|") for ln in lines[1:]]


def compare(query: int, got: list[tuple], answer: str) -> str | None:
    """Why a query's rows differ from DuckDB's reference answer (one line), or None. Rows are compared
    in order, and again sorted where only the order of tied rows differs."""
    cols, want = reference_rows(answer)
    have = [[_cell(v) for v in r] for r in got]
    doubles = {j for r in got for j, v in enumerate(r) if isinstance(v, float)}  # the only inexact columns
    if len(have) != len(want):
        return f"TPC-H q{query}: {len(have)} rows, DuckDB's reference answer has {len(want)}"
    if have and len(have[0]) != len(cols):
        return f"TPC-H q{query}: {len(have[0])} columns, DuckDB's reference answer has {len(cols)}"

    def first_diff(a: list[list[str]], b: list[list[str]]) -> str | None:
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            for j, (g, w) in enumerate(zip(x, y, strict=False)):
                if g != w and not (_same(g, w) if j in doubles else _same_exact(g, w)):
                    return f"row {i + 1} column {cols[j]}: {g}, DuckDB's reference answer has {w}"
        return None

    why = first_diff(have, want)
    if why and first_diff(sorted(have), sorted(want)) is None:
        return None  # tied rows in another order
    return f"TPC-H q{query}: {why}" if why else None


def checksum(rows: list[tuple]) -> tuple[int, str]:
    """Row count and an order-independent checksum of a result (DOUBLEs rounded to 6 significant
    digits: a parallel sum's order moves their last digits from run to run)."""
    acc = 0
    for r in rows:
        text = "|".join(f"{v:.6g}" if isinstance(v, float) else _cell(v) for v in r)
        acc ^= int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return len(rows), f"{acc:016x}"


def references(con, sf: float) -> dict[int, str]:
    """DuckDB's reference answers for this scale factor (query -> text), or {} where it has none."""
    got = con.execute("SELECT query_nr, answer FROM tpch_answers() WHERE scale_factor = ?", [sf]).fetchall()
    return {int(q): a for q, a in got}


class WrongAnswer(Exception):
    pass


class Checker:
    """Checks each query's rows: against the reference answers where there are some; else
    internally: its row count and checksum in every round equal round 0's and, where given, those
    of an unlimited run of the same scale factor (``unlimited``: query -> [rows, checksum], the
    overcommit family's R = 1 point's). A query may return no rows (q2, q20 at SF 0.001)."""

    def __init__(self, refs: dict[int, str], unlimited: dict[int, tuple[int, str]] | None = None):
        self.refs = refs
        self.unlimited = unlimited or {}
        self.first: dict[int, tuple[int, str]] = {}
        self.checked = 0

    def check(self, rnd: int, query: int, rows: list[tuple]) -> None:
        n, c = checksum(rows)
        self.first.setdefault(query, (n, c))
        why = None
        if query in self.refs:
            why = compare(query, rows, self.refs[query])
        elif self.first[query] != (n, c):
            why = (f"TPC-H q{query}: round {rnd} returned {n} rows (checksum {c}), round 0 returned "
                   f"{self.first[query][0]} (checksum {self.first[query][1]})")
        elif query in self.unlimited and tuple(self.unlimited[query]) != (n, c):
            u = self.unlimited[query]
            why = (f"TPC-H q{query}: {n} rows (checksum {c}), the unlimited (R = 1) run returned {u[0]} "
                   f"(checksum {u[1]})")
        if why:
            raise WrongAnswer(why)
        self.checked += 1

    def checksums(self) -> dict[str, list]:
        return {str(q): list(v) for q, v in sorted(self.first.items())}

    def summary(self, sf: float) -> str:
        if self.refs:
            how = f"against DuckDB's tpch_answers() for sf {sf:g}"
        else:
            how = ("internally (row counts and checksums equal across rounds"
                   + (" and to the unlimited R = 1 run's" if self.unlimited else "")
                   + f"; tpch_answers() has none for sf {sf:g})")
        return f"# answers verified: {self.checked} query results {how}"


def main(args: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="TPC-H on in-memory DuckDB")
    ap.add_argument("--sf", type=float, required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--memory-limit", default="64GB")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--checksums-out", type=Path, default=None,
                    help="write each query's row count and checksum here (JSON): the unlimited run's")
    ap.add_argument("--checksums-from", type=Path, default=None,
                    help="an unlimited run's --checksums-out: every answer must equal it (where no reference)")
    a = ap.parse_args(args)
    unlimited = None
    if a.checksums_from is not None and not a.checksums_from.exists():  # e.g. a guest boot without R = 1's files
        print(f"# the unlimited run's checksums {a.checksums_from} are absent: not compared", flush=True)
    elif a.checksums_from is not None:
        try:
            unlimited = {int(q): tuple(v) for q, v in json.loads(a.checksums_from.read_text()).items()}
        except (OSError, ValueError) as e:
            print(f"tierbench: error: TPC-H: cannot read the unlimited run's checksums {a.checksums_from}: {e}",
                  file=sys.stderr)
            return 1
    import duckdb  # noqa: PLC0415

    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.execute(f"SET threads = {a.threads}")
    con.execute(f"SET memory_limit = '{a.memory_limit}'")
    con.execute("SET temp_directory = ''")
    con.execute(f"LOAD '{extension_path()}'")
    t0 = time.monotonic()
    con.execute(f"CALL dbgen(sf = {a.sf})")
    print(f"# dbgen sf={a.sf:g} {time.monotonic() - t0:.3f} s pid {os.getpid()}", flush=True)
    checker = Checker(references(con, a.sf), unlimited)
    for rnd in range(a.rounds):
        for q in range(1, QUERIES + 1):
            t = time.monotonic()
            got = con.execute(f"PRAGMA tpch({q})").fetchall()
            print(f"{rnd},{q},{time.monotonic() - t:.6f}", flush=True)
            try:
                checker.check(rnd, q, got)
            except WrongAnswer as e:
                print(f"tierbench: error: {e}", file=sys.stderr, flush=True)
                return 1
    if a.checksums_out is not None:
        a.checksums_out.parent.mkdir(parents=True, exist_ok=True)
        a.checksums_out.write_text(json.dumps(checker.checksums()) + "\n")
    print(checker.summary(a.sf), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
