"""TPC-C on PostgreSQL (Debian's postgresql-15), driven by pgbench: the overcommit family's OLTP
workload (seed 003). Scripts of ours (this directory): schema.sql (the nine tables and the five
transactions as PL/pgSQL functions), load.sql (the initial population for W warehouses) and one
pgbench script per transaction drawing its inputs (NURand, by-name 60 %, remote 1 % / 15 %,
1 % New-Order rollbacks), run with the 45/43/4/4/4 mix as pgbench script weights.

A point (families/overcommit) runs:
1. ``prepare``: a private cluster in a scratch directory (initdb as the ``postgres`` user, on its
   own port, socket in /tmp/tierbench-pg-PORT, trust auth, no TCP), loaded, checkpointed and stopped by pid; then
   the page cache of its data files is evicted (``posix_fadvise(DONTNEED)`` on each file: only
   this cluster's pages), so that every point starts cold;
2. the postmaster inside the point's cgroup (``server_argv``), the pgbench driver outside it
   (``driver_argv``);
3. ``pg_ctl stop -m fast`` (``stop_argv``), then ``cleanup`` removes the cluster.

Metric: tpmC = New-Order transactions per minute (those that roll back by design included),
from pgbench's per-script summary.
"""

from __future__ import annotations

import argparse
import os
import pwd
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

NAME = "pgtpcc"
BUILD = None  # Debian packages postgresql-15 (server) and postgresql-client-15 (pgbench)
HERE = Path(__file__).resolve().parent
SCRIPTS = {"neworder": 45, "payment": 43, "orderstatus": 4, "delivery": 4, "stocklevel": 4}
USER = "postgres"


def bindir() -> str | None:
    for v in ("17", "16", "15"):
        d = f"/usr/lib/postgresql/{v}/bin"
        if Path(d, "postgres").exists() and Path(d, "pgbench").exists():
            return d
    return None


def check() -> str | None:
    if not bindir():
        return "PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin (apt-get install postgresql)"
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return f"no {USER!r} user (the postgresql package creates it; the server refuses to run as root)"
    if not shutil.which("setpriv"):
        return "setpriv (util-linux) is not on PATH"
    return None


def socket_dir(port: int) -> str:
    """Where the server's Unix socket lives: short (a socket path has at most 107 bytes), per port."""
    return f"/tmp/tierbench-pg-{port}"


def _as_user() -> list[str]:
    return ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--init-groups", "--"]


def server_argv(datadir: str, port: int) -> list[str]:
    return _as_user() + [f"{bindir()}/postgres", "-D", datadir, "-p", str(port)]


def ready_argv(datadir: str, port: int) -> list[str]:
    return [f"{bindir()}/pg_isready", "-q", "-h", socket_dir(port), "-p", str(port), "-U", USER]


def stop_argv(datadir: str) -> list[str]:
    return _as_user() + [f"{bindir()}/pg_ctl", "-D", datadir, "stop", "-m", "fast", "-w", "-t", "60"]


def driver_argv(datadir: str, port: int, *, warehouses: int, clients: int, duration_s: float) -> list[str]:
    a = [f"{bindir()}/pgbench", "-n", "-h", socket_dir(port), "-p", str(port), "-U", USER, "-c", str(clients), "-j", str(clients),
         "-T", str(int(duration_s)), "--max-tries=10", "-D", f"nw={warehouses}"]
    for s, w in SCRIPTS.items():
        a += ["-f", f"{HERE}/{s}.sql@{w}"]
    return a + ["tpcc"]


def prepare_argv(datadir: str, port: int, *, warehouses: int, shared_buffers: str) -> list[str]:
    return ["python", "-m", "workloads.pgtpcc.workload", "prepare", "--datadir", datadir, "--port", str(port),
            "--warehouses", str(warehouses), "--shared-buffers", shared_buffers]


def cleanup_argv(datadir: str, port: int) -> list[str]:
    return ["python", "-m", "workloads.pgtpcc.workload", "cleanup", "--datadir", datadir, "--port", str(port)]


_SCRIPT = re.compile(r"SQL script \d+: \S*?(\w+)\.sql\n - weight: \d+ .*?\n - (\d+) transactions", re.S)
_DURATION = re.compile(r"duration: (\d+) s")


def parse(text: str) -> dict:
    """Transactions per script and the run's duration from pgbench's summary."""
    tx = {m.group(1): int(m.group(2)) for m in _SCRIPT.finditer(text)}
    dur = _DURATION.search(text)
    if "neworder" not in tx or not dur:
        raise ValueError("pgbench output has no per-script summary (SQL script N: neworder.sql ...) or duration")
    failed = re.search(r"number of failed transactions: (\d+)", text)
    return {"transactions": tx, "duration_s": int(dur.group(1)), "failed": int(failed.group(1)) if failed else 0}


def native(outdir: Path, files: dict) -> dict:
    p = parse((outdir / files["stdout"]).read_text())
    tpmc = p["transactions"]["neworder"] / p["duration_s"] * 60
    return {"metric": "tpmC", "value": round(tpmc, 3), "unit": "New-Order/min", "higher_is_better": True,
            "work": sum(p["transactions"].values()), "work_unit": "transaction"}


# ---- prepare / cleanup (run by the overcommit runner, outside the cgroup) ---------------------

def _run(argv: list[str], **kw) -> None:
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: status {r.returncode}: {(r.stderr or r.stdout).strip()[-800:]}")


def evict(datadir: Path) -> int:
    """Drop this cluster's files from the page cache; returns how many files."""
    n = 0
    for root, _dirs, files in os.walk(datadir):
        for f in files:
            p = os.path.join(root, f)
            try:
                fd = os.open(p, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                n += 1
            finally:
                os.close(fd)
    return n


def prepare(datadir: Path, port: int, warehouses: int, shared_buffers: str) -> None:
    why = check()
    if why:
        raise RuntimeError(why)
    b = bindir()
    cleanup(datadir, port)
    datadir.mkdir(parents=True)
    pw = pwd.getpwnam(USER)
    os.chown(datadir, pw.pw_uid, pw.pw_gid)
    os.chmod(datadir, 0o700)
    sock = Path(socket_dir(port))
    sock.mkdir(mode=0o700)
    os.chown(sock, pw.pw_uid, pw.pw_gid)
    t0 = time.monotonic()
    _run(_as_user() + [f"{b}/initdb", "-D", str(datadir), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
         cwd="/")
    with open(datadir / "postgresql.conf", "a") as f:
        f.write(f"\n# tierbench overcommit (workloads/pgtpcc)\nlisten_addresses = ''\nport = {port}\n"
                f"unix_socket_directories = '{sock}'\nshared_buffers = {shared_buffers}\nmax_connections = 32\n"
                "synchronous_commit = off\nhuge_pages = off\nautovacuum = on\n")
    _run(_as_user() + [f"{b}/pg_ctl", "-D", str(datadir), "-w", "-t", "120", "-l", str(datadir / "load.log"), "start"],
         cwd="/")
    try:
        psql = [f"{b}/psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", "-h", str(sock), "-p", str(port), "-U", USER]
        _run(psql + ["-c", "CREATE DATABASE tpcc"])
        _run(psql + ["-d", "tpcc", "-f", str(HERE / "schema.sql")])
        _run(psql + ["-d", "tpcc", "-v", f"w={warehouses}", "-f", str(HERE / "load.sql")])
    finally:
        _run(stop_argv(str(datadir)), cwd="/")
    n = evict(datadir)
    print(f"# prepared {warehouses} warehouse(s) in {time.monotonic() - t0:.1f} s; evicted {n} files from the page cache",
          flush=True)


def cleanup(datadir: Path, port: int) -> None:
    if (datadir / "postmaster.pid").exists():  # a server of this cluster still running: stop it
        subprocess.run(stop_argv(str(datadir)), capture_output=True, cwd="/")
    for _ in range(50):  # a server process that was just killed may still be exiting
        shutil.rmtree(datadir, ignore_errors=True)
        if not datadir.exists():
            break
        time.sleep(0.1)
    shutil.rmtree(socket_dir(port), ignore_errors=True)
    try:  # the scratch directory the family made for it, once empty
        datadir.parent.rmdir()
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="TPC-C cluster for the overcommit family")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--datadir", required=True, type=Path)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--warehouses", type=int, default=1)
    p.add_argument("--shared-buffers", default="256MB")
    c = sub.add_parser("cleanup")
    c.add_argument("--datadir", required=True, type=Path)
    c.add_argument("--port", type=int, required=True)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "prepare":
            prepare(a.datadir.resolve(), a.port, a.warehouses, a.shared_buffers)
        else:
            cleanup(a.datadir.resolve(), a.port)
    except RuntimeError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
