"""What every point runner shares (standard library only): reading the spec,
the host's measurement lock, long-form rows, and the atomic write of a point's
``meta.json`` + ``result.csv`` (result last, so its presence means success)."""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from analysis.schema import COLUMNS


def read_spec(argv: list[str] | None, prog: str) -> dict | None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(f"usage: python -m workflows.harness.{prog} SPEC.json|-", file=sys.stderr)
        return None
    return json.loads(sys.stdin.read() if args[0] == "-" else Path(args[0]).read_text())


@contextmanager
def host_lock(path: Path | None):
    """Exclusive flock on the host's measurement lock; yields the seconds waited."""
    if path is None:
        yield 0.0
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        t0 = time.monotonic()
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for the measurement lock {path} ...", file=sys.stderr, flush=True)
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield time.monotonic() - t0
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def row(context: dict, **values) -> dict:
    """One long-form row: every schema column, the point's context, then the values."""
    r = {c: "" for c in COLUMNS}
    r.update({k: ("" if v is None else v) for k, v in context.items() if k in COLUMNS})
    r.update(values)
    return r


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_point(outdir: Path, rows: list[dict], meta: dict) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS)
    w.writeheader()
    w.writerows(rows)
    atomic_write(outdir / "meta.json", json.dumps(meta, indent=1, default=str) + "\n")
    atomic_write(outdir / "result.csv", buf.getvalue())
