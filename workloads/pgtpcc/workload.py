"""A TPC-C-like workload on PostgreSQL (Debian's postgresql-15), driven by pgbench: the overcommit
family's OLTP workload (seed 003). **TPC-C-like, not TPC-C**: not audited, and it differs from the
specification (TPC-C 5.11) in what :data:`DIFFERENCES` lists; its metric is therefore not called
tpmC. Scripts of ours (this directory): schema.sql (the nine tables, the five transactions as
PL/pgSQL functions, and ``tpcc_mix``, the count of each transaction), load.sql (the initial
population for W warehouses) and tpcc.sql, one pgbench script that deals each client's
transactions from a shuffled deck of 23 cards (10 New-Order, 10 Payment, 1 each of Order-Status,
Delivery, Stock-Level: the card deck of Clause 5.2.4.2) and draws their inputs (NURand, by-name
60 %, remote 1 % / 15 %, 1 % New-Order rollbacks).

A point (families/overcommit) runs:
1. ``prepare``: a private cluster in a scratch directory (initdb as the ``postgres`` user, on its
   own port, socket in /tmp/tierbench-pg-PORT, trust auth, no TCP), loaded, checkpointed and stopped by pid; then
   the page cache of its data files is evicted (``posix_fadvise(DONTNEED)`` on each file: only
   this cluster's pages), so that every point starts cold;
2. the postmaster inside the point's cgroup (``server_argv``), the pgbench driver outside it
   (``driver_argv``);
   The driver is ``drive``: pgbench, then the count of each transaction type from ``tpcc_mix``
   (and, as a check, the committed New-Orders from the districts' D_NEXT_O_ID);
3. ``pg_ctl stop -m fast`` (``stop_argv``), then ``cleanup`` removes the cluster.

The data and socket directories are journaled before the point starts (``made_dirs``, the
scenario's ``dirs``; workflows/harness/settings.py ``Settings.dir_guard``): where the harness is
killed (SIGKILL) before ``cleanup`` runs, the point's restore or the next measured point's repair
ends the server ``postmaster.pid`` names, by pid (SIGQUIT, then SIGKILL), and removes both.

Metric: ``new_orders_per_min``, committed New-Order transactions per minute of the run. TPC-C 5.11
Clause 5.4 (the throughput rating) defines its throughput (tpmC) as the orders processed per minute,
counted as New-Order transactions completed in the measurement interval; a New-Order that rolls back
by design (Clause 2.4.1.4: 1 % of them, an unused item number) processes no order, and is counted
apart (``new_orders_rolled_back``), as is every other type (``mix_<type>``: its share of all
transactions), so a reader who counts the rolled-back ones too can add them.

Clause numbers. The specification's text (tpc.org's tpc-c_v5.11.0.pdf) could not be read from the
machine this was written on; each number was checked against public implementations that cite it:
5.2.3 (the mix minimums) and 5.2.5 (keying and think times, 5.2.5.7; 90th-percentile response times,
5.2.5.3) in DBT-2's doc/tpc.rst (github.com/osdldbt/dbt2), which also cites 2.7.2.1 (deferred
Delivery), 5.5-5.6 and 8-9; 5.2.4.2 (the 23-card deck) in CMU NoisePage's TPC-C deck
("suggested by section 5.2.4.2"); 2.4.1.4 (rbk, the 1 % rollbacks) in the spec's own Clause 2.4.1.5
text as quoted by several implementations ("If this is the last item on the order and rbk = 1 (see
Clause 2.4.1.4), then the item number is set to an unused value"). Not verified: which sub-clause of
5.4 defines tpmC (one derived kit cites 5.4.3) and whether it counts rolled-back New-Orders; hence
both counts are reported. (The kits disagree: DBT-2's src/scripts/dbt2-post-process.r computes its
NOTPM from every New-Order of the steady state, its rolled-back ones, status "R", included; ours
excludes them, as an order rolled back processes no order.)
"""

from __future__ import annotations

import argparse
import hashlib
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
SCRIPT = "tpcc.sql"
DECK = {"neworder": 10, "payment": 10, "orderstatus": 1, "delivery": 1, "stocklevel": 1}  # Clause 5.2.4.2
MINIMUM = {"payment": 0.43, "orderstatus": 0.04, "delivery": 0.04, "stocklevel": 0.04}  # Clause 5.2.3
TYPES = (*DECK, "neworder_rollback")  # tpcc_mix's tx values: New-Orders rolled back by design apart
DIFFERENCES = (
    "no terminals, keying or think times (Clause 5.2.5): each client runs its next transaction at once, so one "
    "warehouse runs far above the specification's cap of about 12.9 New-Orders per minute per warehouse",
    "Delivery runs in the client's turn, not queued and deferred (Clause 2.7)",
    "synchronous_commit = off: a commit is not durable when acknowledged (Clause 3.5)",
    "no measurement interval after a ramp-up, no checkpoint rules (Clause 5.5), no response-time constraints "
    "(Clause 5.2.5.3)",
    "not audited, no full disclosure report (Clauses 8, 9): its metric is new_orders_per_min, not tpmC",
)
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


def made_dirs(datadir: str, port: int) -> list[dict]:
    """The directories ``prepare`` makes, for the scenario's ``dirs`` (journaled before any role
    starts; restored in reverse): the socket directory, then the data directory with the
    postmaster's pid file, so that a server left running is ended (by pid: SIGQUIT, PostgreSQL's
    immediate shutdown, without a checkpoint: its files are removed next) before its directory is
    removed."""
    return [{"path": socket_dir(port)}, {"path": datadir, "pid_file": "postmaster.pid", "signal": "QUIT"}]


def _as_user() -> list[str]:
    return ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--init-groups", "--"]


def server_argv(datadir: str, port: int) -> list[str]:
    return _as_user() + [f"{bindir()}/postgres", "-D", datadir, "-p", str(port)]


def ready_argv(datadir: str, port: int) -> list[str]:
    return [f"{bindir()}/pg_isready", "-q", "-h", socket_dir(port), "-p", str(port), "-U", USER]


def stop_argv(datadir: str) -> list[str]:
    return _as_user() + [f"{bindir()}/pg_ctl", "-D", datadir, "stop", "-m", "fast", "-w", "-t", "60"]


def pgbench_argv(port: int, *, warehouses: int, clients: int, duration_s: float) -> list[str]:
    return [f"{bindir()}/pgbench", "-n", "-h", socket_dir(port), "-p", str(port), "-U", USER, "-c", str(clients),
            "-j", str(clients), "-T", str(int(duration_s)), "--max-tries=10", "-D", f"nw={warehouses}", "-D", "k=0",
            "-f", str(HERE / SCRIPT), "tpcc"]


def driver_argv(datadir: str, port: int, *, warehouses: int, clients: int, duration_s: float) -> list[str]:
    """``drive``: pgbench, then the counts of each transaction type (printed after pgbench's summary)."""
    return ["python", "-m", "workloads.pgtpcc.workload", "drive", "--port", str(port), "--warehouses", str(warehouses),
            "--clients", str(clients), "--duration-s", f"{int(duration_s)}"]


def psql_argv(port: int) -> list[str]:
    return [f"{bindir()}/psql", "-q", "-X", "-A", "-t", "-F", " ", "-v", "ON_ERROR_STOP=1", "-h", socket_dir(port),
            "-p", str(port), "-U", USER, "-d", "tpcc"]


MIX_SQL = "SELECT tx, sum(n) FROM tpcc_mix GROUP BY tx ORDER BY tx"
# committed New-Orders, independently of tpcc_mix: each advanced its district's D_NEXT_O_ID (load.sql: 3001)
DISTRICT_SQL = "SELECT sum(d_next_o_id - 3001) FROM district"


def drive(port: int, warehouses: int, clients: int, duration_s: int) -> int:
    """Runs pgbench (its output on ours), then prints ``# mix TYPE N`` per transaction type and
    ``# committed_new_orders_by_district N``."""
    from workflows.harness.procs import dies_with_us  # noqa: PLC0415

    # (preexec_fn: this driver runs one thread) each child dies with it
    rc = subprocess.run(pgbench_argv(port, warehouses=warehouses, clients=clients, duration_s=duration_s),
                        preexec_fn=dies_with_us()).returncode
    sys.stdout.flush()
    if rc != 0:
        return rc
    mix = subprocess.run(psql_argv(port) + ["-c", MIX_SQL], capture_output=True, text=True, preexec_fn=dies_with_us())
    dist = subprocess.run(psql_argv(port) + ["-c", DISTRICT_SQL], capture_output=True, text=True, preexec_fn=dies_with_us())
    if mix.returncode != 0 or dist.returncode != 0:
        print(f"tierbench: error: reading tpcc_mix: {(mix.stderr or dist.stderr).strip()[-400:]}", file=sys.stderr)
        return 1
    for line in mix.stdout.split("\n"):
        if line.strip():
            tx, n = line.split()
            print(f"# mix {tx} {n}")
    print(f"# committed_new_orders_by_district {dist.stdout.strip()}", flush=True)
    return 0


def prepare_argv(datadir: str, port: int, *, warehouses: int, shared_buffers: str) -> list[str]:
    return ["python", "-m", "workloads.pgtpcc.workload", "prepare", "--datadir", datadir, "--port", str(port),
            "--warehouses", str(warehouses), "--shared-buffers", shared_buffers]


# cli plan's estimate of ``prepare`` before a first run (a later run's own times replace it): initdb, the
# load, a checkpoint and the server stopped took about 5.5 s per warehouse here (the quick run's TPC-C
# points, 1 warehouse: 16.2-18.4 s for a 10 s pgbench run, 2026-11-27; how it splits between initdb's
# fixed cost and the load's per warehouse was not measured)
PREPARE_S_PER_WAREHOUSE = 5.5


def seconds(argv_: list[str]) -> float | None:
    """How long ``prepare`` takes (for cli plan); None for the other subcommands (the driver's
    ``-T`` says its length)."""
    from workloads import args_after, flag  # noqa: PLC0415

    args = args_after(argv_, "workloads.pgtpcc.workload")
    if not args or args[0] != "prepare":
        return None
    return PREPARE_S_PER_WAREHOUSE * int(flag(args, "--warehouses", "1"))


def cleanup_argv(datadir: str, port: int) -> list[str]:
    return ["python", "-m", "workloads.pgtpcc.workload", "cleanup", "--datadir", datadir, "--port", str(port)]


_DURATION = re.compile(r"duration: (\d+) s")
_MIX = re.compile(r"^# mix (\w+) (\d+)$", re.M)
_DISTRICT = re.compile(r"^# committed_new_orders_by_district (\d+)$", re.M)


def parse(text: str) -> dict:
    """The count of each transaction type (``drive``'s lines after pgbench's summary), the committed
    New-Orders counted from the districts (must equal tpcc_mix's), and the run's duration."""
    tx = {t: 0 for t in TYPES} | {m.group(1): int(m.group(2)) for m in _MIX.finditer(text)}
    dur = _DURATION.search(text)
    dist = _DISTRICT.search(text)
    if not _MIX.search(text) or not dur or not dist:
        raise ValueError("TPC-C-like driver output has no transaction counts ('# mix TYPE N' lines, "
                         "'# committed_new_orders_by_district N') or no pgbench duration")
    if int(dist.group(1)) != tx["neworder"]:
        raise ValueError(f"TPC-C-like driver: {tx['neworder']} committed New-Orders counted in tpcc_mix but "
                         f"{dist.group(1)} by the districts' D_NEXT_O_ID")
    failed = re.search(r"number of failed transactions: (\d+)", text)
    return {"transactions": tx, "duration_s": int(dur.group(1)), "failed": int(failed.group(1)) if failed else 0}


def mix_shares(tx: dict[str, int]) -> dict[str, float]:
    """Each type's share of all transactions (a New-Order rolled back by design is a New-Order)."""
    total = sum(tx.values())
    n = {t: tx.get(t, 0) for t in DECK}
    n["neworder"] += tx.get("neworder_rollback", 0)
    return {t: (v / total if total else 0.0) for t, v in n.items()}


def native(outdir: Path, files: dict) -> dict:
    p = parse((outdir / files["stdout"]).read_text())
    tx = p["transactions"]
    per_min = tx["neworder"] / p["duration_s"] * 60
    checks = [{"metric": "new_orders_rolled_back", "value": tx["neworder_rollback"], "unit": "transaction"}]
    checks += [{"metric": f"mix_{t}", "value": round(s, 5), "unit": "fraction"} for t, s in mix_shares(tx).items()]
    return {"metric": "new_orders_per_min", "value": round(per_min, 3), "unit": "New-Order/min (TPC-C-like)",
            "higher_is_better": True, "work": sum(tx.values()), "work_unit": "transaction", "checks": checks}


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


# Prepared clusters kept for the next point (issue 27: `make run`'s three TPC-C points each spent
# ~6 s of their ~20 s on initdb and the load): build/cache/pgtpcc-<key>, a copy of a cluster as
# prepare leaves it (loaded, stopped, checkpointed by the shutdown), named by everything that makes
# it (the schema and load scripts, the server binaries' version, the configuration appended to
# postgresql.conf, the warehouses). A point copies it with `cp -a` (owner, modes, times kept) instead
# of making its own: every point of a run starts from the same rows (load.sql draws them with
# random(), so before each point had rows of its own). TIERBENCH_PGTPCC_TEMPLATE=0: no template.
TEMPLATES = HERE.parents[1] / "build" / "cache"
_TEMPLATE_PREFIX = "pgtpcc-"
_TEMPLATE_DONE = ".tierbench-template"


def _conf_lines(port: int, sock: Path, shared_buffers: str) -> str:
    return (f"\n# tierbench overcommit (workloads/pgtpcc)\nlisten_addresses = ''\nport = {port}\n"
            f"unix_socket_directories = '{sock}'\nshared_buffers = {shared_buffers}\nmax_connections = 32\n"
            "synchronous_commit = off\nhuge_pages = off\nautovacuum = on\n")


def template_dir(b: str, port: int, warehouses: int, shared_buffers: str) -> Path:
    """Where the prepared cluster of these inputs is kept (see TEMPLATES)."""
    version = subprocess.run([f"{b}/postgres", "--version"], capture_output=True, text=True).stdout.strip()
    h = hashlib.sha256()
    for part in ((HERE / "schema.sql").read_bytes(), (HERE / "load.sql").read_bytes(), b.encode(), version.encode(),
                 _conf_lines(port, Path(socket_dir(port)), shared_buffers).encode(), str(warehouses).encode()):
        h.update(hashlib.sha256(part).digest())
    return TEMPLATES / f"{_TEMPLATE_PREFIX}w{warehouses}-{h.hexdigest()[:16]}"


def _keep_template(datadir: Path, tpl: Path) -> None:
    """Copy the cluster just prepared to @tpl (whole or not at all: a copy under a temporary name,
    renamed), and drop the templates of other inputs. A failure only costs the next point its copy."""
    tmp = tpl.with_name(f"{tpl.name}.tmp{os.getpid()}")
    try:
        TEMPLATES.mkdir(parents=True, exist_ok=True)
        for old in TEMPLATES.glob(f"{_TEMPLATE_PREFIX}*"):
            if old != tpl:
                shutil.rmtree(old, ignore_errors=True)
        _run(["cp", "-a", str(datadir), str(tmp)])
        (tmp / _TEMPLATE_DONE).write_text("")
        os.rename(tmp, tpl)
    except (OSError, RuntimeError) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"# no template kept ({e}): the next point prepares its own cluster", flush=True)


def prepare(datadir: Path, port: int, warehouses: int, shared_buffers: str) -> None:
    why = check()
    if why:
        raise RuntimeError(why)
    b = bindir()
    cleanup(datadir, port)
    pw = pwd.getpwnam(USER)
    sock = Path(socket_dir(port))
    t0 = time.monotonic()
    use_template = os.environ.get("TIERBENCH_PGTPCC_TEMPLATE", "1") != "0"
    tpl = template_dir(b, port, warehouses, shared_buffers) if use_template else None
    datadir.parent.mkdir(parents=True, exist_ok=True)
    sock.mkdir(mode=0o700)
    os.chown(sock, pw.pw_uid, pw.pw_gid)
    if tpl and (tpl / _TEMPLATE_DONE).exists():
        _run(["cp", "-a", str(tpl), str(datadir)])
        (datadir / _TEMPLATE_DONE).unlink()
        how = f"copied {tpl.name} (build/cache)"
    else:
        datadir.mkdir()
        os.chown(datadir, pw.pw_uid, pw.pw_gid)
        os.chmod(datadir, 0o700)
        _run(_as_user() + [f"{b}/initdb", "-D", str(datadir), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
             cwd="/")
        with open(datadir / "postgresql.conf", "a") as f:
            f.write(_conf_lines(port, sock, shared_buffers))
        _run(_as_user() + [f"{b}/pg_ctl", "-D", str(datadir), "-w", "-t", "120", "-l", str(datadir / "load.log"),
                           "start"], cwd="/")
        try:
            psql = [f"{b}/psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", "-h", str(sock), "-p", str(port), "-U", USER]
            _run(psql + ["-c", "CREATE DATABASE tpcc"])
            _run(psql + ["-d", "tpcc", "-f", str(HERE / "schema.sql")])
            _run(psql + ["-d", "tpcc", "-v", f"w={warehouses}", "-f", str(HERE / "load.sql")])
        finally:
            _run(stop_argv(str(datadir)), cwd="/")
        how = "initdb and load"
        if tpl:
            _keep_template(datadir, tpl)
    n = evict(datadir)
    print(f"# prepared {warehouses} warehouse(s) in {time.monotonic() - t0:.1f} s ({how}); evicted {n} files from "
          "the page cache", flush=True)


def cleanup(datadir: Path, port: int) -> None:
    if (datadir / "postmaster.pid").exists():  # a server of this cluster still running: stop it
        subprocess.run(stop_argv(str(datadir)), capture_output=True, cwd="/")
    # a server process that was just ended may still be exiting, writing its last files (under load
    # for more than the 5 s this once waited: a make test's Ctrl-C test found the cluster left)
    deadline = time.monotonic() + 30
    while True:
        shutil.rmtree(datadir, ignore_errors=True)
        if not datadir.exists() or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    shutil.rmtree(socket_dir(port), ignore_errors=True)
    try:  # the scratch directory the family made for it, once empty
        datadir.parent.rmdir()
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="TPC-C-like cluster and driver for the overcommit family")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--datadir", required=True, type=Path)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--warehouses", type=int, default=1)
    p.add_argument("--shared-buffers", default="256MB")
    dr = sub.add_parser("drive")
    dr.add_argument("--port", type=int, required=True)
    dr.add_argument("--warehouses", type=int, default=1)
    dr.add_argument("--clients", type=int, default=1)
    dr.add_argument("--duration-s", type=int, required=True)
    c = sub.add_parser("cleanup")
    c.add_argument("--datadir", required=True, type=Path)
    c.add_argument("--port", type=int, required=True)
    a = ap.parse_args(argv)
    if a.cmd == "drive":
        return drive(a.port, a.warehouses, a.clients, a.duration_s)
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
