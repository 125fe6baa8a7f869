"""Run one point from its row: ``python -m workflows.harness.point --outdir DIR --results DIR ROW|-``.

The row (workflows/harness/plan.py) names its executor:

- ``model``: tiersim on modelled tiers (standard library only: many cheap jobs); every row is
  labelled ``backend=model``, a simulation, never a measurement;
- ``host``: a scenario measured on this host (workflows/harness/scenario.py) with the host's
  measurement lock held, counter collectors around it, changed settings journaled and restored,
  every child in its own process group and ended by pid on success, failure and interrupt;
- ``guest``: a scenario the guest host ran in its batch (workflows/harness/guestrun.py): its raw
  output is taken from the batch directory and parsed here exactly as a host point's is.

``result.csv`` (long form, workflows/harness/plan.py's context columns on every row) and
``meta.json`` (provenance) are written atomically and only on success: ``meta.json`` first,
``result.csv`` last, so its presence means the point succeeded.
"""

from __future__ import annotations

import argparse
import csv
import errno
import fcntl
import io
import json
import os
import shutil
import signal
import sys
import time
from contextlib import chdir, contextmanager
from pathlib import Path

from analysis.schema import cell, columns_for

from . import ConfigError
from .plan import key
from .procs import Interrupted, Supervisor
from .provenance import digest, file_sha256, git_state, now, tool_version

JOURNAL = ".settings-journal.json"  # results/<host>/: settings and resources a measured point changed
LOCK = ".measure.lock"  # results/<host>/: held by whatever measures on the host, one at a time
MACHINE_LOCK = "tierbench-measure.lock"  # in settings.machine_dir(): held too, by every checkout and host profile


def machine_lock() -> Path:
    """This machine's measurement lock: two runs of different host profiles, or of two checkouts,
    on one machine would otherwise measure at once and put back each other's settings."""
    from .settings import machine_dir  # noqa: PLC0415

    return machine_dir() / MACHINE_LOCK


def _open_lock(path: Path) -> int:
    """A descriptor to flock: the file opened read-only (flock needs no more), made when missing.
    Never O_CREAT on a file that is there: in a world-writable sticky directory (/run/lock) that is
    refused for another user's file where fs.protected_regular is set (Documentation/admin-guide/
    sysctl/fs.rst, "protected_regular"; fs/namei.c, may_create_in_sticky()), even with O_RDONLY."""
    import stat  # noqa: PLC0415

    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW  # (a FIFO put there would block)
    while True:
        try:
            fd = os.open(path, flags)
            break
        except FileNotFoundError:
            pass
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue  # made meanwhile by another run: open it
        except PermissionError:
            raise ConfigError(f"cannot make the measurement lock {path} (its directory is not writable by this user: "
                              "a root run makes it, or set TIERBENCH_MACHINE_DIR to a directory every user of this "
                              "machine can write)") from None
        os.fchmod(fd, 0o644)  # (not narrowed by a umask: other users open it too)
        return fd
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"measurement lock {path} is not a regular file: remove it")
    return fd


@contextmanager
def _flock(path: Path, waiting: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _open_lock(path)
    try:
        t0 = time.monotonic()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(waiting, file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield time.monotonic() - t0
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def host_lock(path: Path | None):
    """Exclusive flock on the host's measurement lock, then on this machine's (:func:`machine_lock`),
    always in that order; yields the seconds waited."""
    if path is None:
        yield 0.0
        return
    mine = machine_lock()
    with _flock(path, f"waiting for the measurement lock {path} ...") as a, \
            _flock(mine, f"waiting for this machine's measurement lock {mine} (a run of another host profile or "
                         "checkout measures here) ...") as b:
        yield a + b


def _held(path: Path) -> bool:
    """Whether someone holds the lock ``path`` (this process too: flock locks an open file)."""
    if not path.is_file():
        return False
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def lock_busy(results: Path | None) -> bool:
    """Whether a measured point runs now: the host's lock (under ``results``) or this machine's is
    held by someone."""
    return (results is not None and _held(Path(results) / LOCK)) or _held(machine_lock())


def repair_journals(journal: Path) -> dict[str, str]:
    """Under the locks: put back what killed runs left changed, from this host's ``journal`` and
    from every other journal on this machine (other host profiles, other checkouts:
    settings.other_journals); what was put back, by key (another journal's keys name it)."""
    from .settings import other_journals, restore_journal  # noqa: PLC0415

    repaired = restore_journal(journal)
    for other in other_journals(journal):
        if _held(other.parent / LOCK):  # its host measures now (elsewhere on a shared filesystem): not ours
            continue
        # from its checkout (results/<host>/ is two levels down): a tier_setup's undo command is
        # relative to it
        with chdir(other.parents[2] if len(other.parents) > 2 else other.parent):
            repaired.update({f"{k} ({other})": v for k, v in restore_journal(other).items()})
    return repaired


def guest_repair(results: Path) -> None:
    """Under the locks, before a guest's batch (guestrun): this machine's journals of other host
    profiles and checkouts put back, as root (the guest's own journal lives in the guest); without
    root, said instead: the batch runs, its QEMU process on a machine left changed."""
    from .settings import other_journals  # noqa: PLC0415

    if os.geteuid() == 0:
        put = repair_journals(results / JOURNAL)
        if put:
            print(f"tierbench: put back settings a killed run left changed: {put}", file=sys.stderr)
    elif others := other_journals(None, prune=False):
        print(f"tierbench: warning: {', '.join(map(str, others))} hold settings a killed run left changed on this "
              "machine; putting them back needs root (python -m workflows.harness.cli repair)", file=sys.stderr)


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def result_csv(rows: list[dict], family_columns: list[str]) -> str:
    cols = columns_for(rows, family_columns)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, restval="", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: cell(v) for k, v in r.items()})
    return buf.getvalue()


def write_point(outdir: Path, rows: list[dict], meta: dict, family_columns: list[str]) -> None:
    atomic_write(outdir / "meta.json", json.dumps(meta, indent=1, default=str) + "\n")
    atomic_write(outdir / "result.csv", result_csv(rows, family_columns))


def with_context(context: dict, rows: list[dict]) -> list[dict]:
    """The point's context columns on every row; a value a row has itself wins (e.g. memchar's
    own cpu_node), except where the row leaves it empty."""
    return [{**context, **{k: v for k, v in r.items() if v not in (None, "") or k not in context}} for r in rows]


def base_meta(row: dict, scale: str | None, git: dict | None = None) -> dict:
    """The provenance every point's meta.json starts with (``git``: the tree's state if already known)."""
    return {"point": row["context"], "executor": row["executor"], "scale": scale, "git": git or git_state(),
            "row_sha256": digest(row)}


def binaries(sc: dict) -> dict:
    """Each program a scenario ran: its path, sha256 and version line (ours in build/bin, or a
    system's or the user's, e.g. fio, Intel MLC)."""
    out = {}
    for r in sc["roles"]:
        exe = r["argv"][0]
        path = shutil.which(exe) if "/" not in exe else exe
        if r["tool"] not in out and path:
            out[r["tool"]] = {"path": exe, "sha256": file_sha256(Path(path)), "version": tool_version(path)}
    return out


def clear(outdir: Path) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    for p in (outdir / "result.csv", outdir / "meta.json"):
        p.unlink(missing_ok=True)


# ---- model: tiersim ---------------------------------------------------------------------------

def _metric_rows(path: Path, tool: str) -> list[dict]:
    with open(path, newline="") as f:
        return [{"t_s": r.get("t_s", ""), "metric": r["metric"], "value": r["value"], "unit": r.get("unit", ""),
                 "tool": tool} for r in csv.DictReader(f)]


def beyond_curve(rows: list[dict]) -> str:
    """The tiers whose demand went past the end of their curve in the averaging window (tiersim's
    summary ``<tier>_beyond_curve`` > 0): their latency there is extrapolated from the saturation
    wall, not read from the curve. Every row of the point carries it, "" when none."""
    return "+".join(t for t in ("default", "alternate")
                    if any(r["metric"] == f"{t}_beyond_curve" and r["t_s"] == "" and float(r["value"]) > 0 for r in rows))


def model_argv(row: dict, outdir: Path) -> list[str]:
    """tiersim's argv for a modelled point writing into ``outdir``."""
    run = row["run"]
    argv = [str(a) for a in run["argv"]] + ["--summary", str(outdir / "summary.csv")]
    if run.get("timeseries"):
        argv += ["--timeseries", str(outdir / "timeseries.csv")]
    return argv


def model_finish(row: dict, outdir: Path, scale: str | None, argv: list[str], rc: int, t0: float,
                 start: str, git: dict | None = None) -> int:
    """A modelled point's files from tiersim's (exit status ``rc``, started at monotonic ``t0``;
    ``git``: the tree's state, taken once for a batch)."""
    run = row["run"]
    summary, series = outdir / "summary.csv", outdir / "timeseries.csv"
    if rc != 0:
        print(f"tierbench: error: tiersim exited with status {rc}; see the log", file=sys.stderr)
        return 1
    rows = _metric_rows(summary, "tiersim")
    if run.get("timeseries"):
        rows += _metric_rows(series, "tiersim")
    if run.get("event_t_s") is not None:  # when the phase event happens (configured, not a result)
        rows.append({"metric": "event_t_s", "value": run["event_t_s"], "unit": "s", "tool": "tiersim"})
    if not rows:
        print("tierbench: error: tiersim wrote no rows", file=sys.stderr)
        return 1
    beyond = beyond_curve(rows)
    rows = [{**r, "beyond_curve": beyond} for r in rows]
    meta = {**base_meta(row, scale, git), "argv": argv, "backend": "model",
            "note": "simulated on modelled tiers (tiersim); not a measurement; no hardware counters apply",
            "binary": {"path": argv[0], "sha256": file_sha256(Path(argv[0]))},
            "start": start, "end": now(), "wall_s": round(time.monotonic() - t0, 3)}
    write_point(outdir, with_context(row["context"], rows), meta, row["columns"])
    return 0


def run_model(row: dict, outdir: Path, scale: str | None) -> int:
    argv = model_argv(row, outdir)
    t0, start = time.monotonic(), now()
    with Supervisor() as sup:
        rc = sup.run("tiersim", argv, timeout=row["run"].get("timeout_s", 600), stdout=outdir / "raw.out")
    return model_finish(row, outdir, scale, argv, rc, t0, start)


# ---- host: a scenario measured here -------------------------------------------------------------

def run_host(row: dict, outdir: Path, results: Path, facts_path: Path, scale: str | None) -> int:
    from .counters import Collectors  # noqa: PLC0415
    from .scenario import HostRun
    from .settings import Settings

    run = row["run"]
    sc = run["scenario"]
    facts = json.loads(facts_path.read_text())
    meta = {**base_meta(row, scale), "note": run.get("note", ""), "host_facts": facts,
            "host_profile": run.get("profile", {})}
    counters = run.get("counters") or {"sources": [], "interval_ms": 1000}
    journal = results / JOURNAL
    t0 = time.monotonic()
    # The lock first: under it, a run killed earlier has its settings put back from the journal
    # before this point saves any; on the way out children are stopped, then settings restored,
    # then the lock released, so the next point never sees this one's settings.
    with host_lock(results / LOCK) as waited:
        repaired = repair_journals(journal)  # settings, and resources a scenario made (cgroups, swap areas)
        if repaired:
            print(f"tierbench: put back settings a killed run left changed: {repaired}", file=sys.stderr)
            meta["settings_repaired"] = repaired
        hr = None
        try:
            with Settings(journal) as settings, Supervisor(registry=outdir / "children") as sup:
                meta["lock_wait_s"] = round(waited or 0.0, 3)
                meta["start"] = now()
                hr = HostRun(sc, outdir, sup, settings, monitor_cpus=run.get("profile", {}).get("monitor_cpus"))
                hr.clear()
                owned = {k: f"{r['name']} ({v})" for r in sc["roles"] for k, v in (r.get("pmus") or {}).items()}
                with Collectors(counters["sources"], facts, run.get("profile", {}), outdir, counters["interval_ms"],
                                sup, options={"perf_uncore": {"owned_elsewhere": owned}} if owned else None,
                                settings=settings) as coll:
                    hr.execute()
                meta["settings_set"] = settings_set(sc)
                meta["settings_original"] = dict(settings.saved)
                meta["counters"] = coll.status()
                meta.update(hr.meta)
                meta["end"] = now()
                meta["wall_s"] = round(time.monotonic() - t0, 3)
        finally:
            if hr is not None:  # after every child has stopped (one might still write there)
                hr.cleanup_scratch()
        if settings.restore_errors:  # no result: the job fails, and the user hears the host is changed
            raise RuntimeError(f"the host is left changed: could not restore {'; '.join(settings.restore_errors)} "
                               f"(kept in {journal}: the next measured point puts them back first, or refuses "
                               "to start)")
    meta["binaries"] = binaries(sc)
    coll.write_csv(outdir / "counters.csv")
    return write_scenario_point(row, outdir, meta)


def settings_set(sc: dict) -> dict:
    """The sysctl/sysfs values a scenario sets, by path."""
    from .settings import KNOWN  # noqa: PLC0415

    return {KNOWN.get(k, k): v for k, v in sc["settings"].items()}


def write_scenario_point(row: dict, outdir: Path, meta: dict) -> int:
    """Every role's rows (its parser's), the event time if any, the point's context: result.csv and meta.json."""
    from .scenario import parse_rows  # noqa: PLC0415

    run = row["run"]
    rows = parse_rows(run["scenario"], outdir, run.get("parse", {}), meta.get("usage"))
    if run.get("event_t_s") is not None:  # when the phase event happened (configured, not a result)
        rows.append({"metric": "event_t_s", "value": run["event_t_s"], "unit": "s"})
    write_point(outdir, with_context(row["context"], rows), meta, row["columns"])
    return 0


# ---- guest: a scenario the guest's batch ran ----------------------------------------------------

def run_guest(row: dict, outdir: Path, batch: Path, facts_path: Path, scale: str | None) -> int:
    from .scenario import GUEST_BIN, PointFailed, read_status, role_argv

    run = row["run"]
    sc = run["scenario"]
    src = batch / "files" / key(row)
    st = read_status(src / "status")
    if not st:
        raise PointFailed(f"the guest batch has no status for this point ({src / 'status'} missing: it did not run)")
    for f in outdir.iterdir():  # raw files of an earlier run (the job's own log stays)
        if f.is_file() and f.name != "log":
            f.unlink()
    for f in src.iterdir():
        if f.is_file():
            shutil.copyfile(f, outdir / f.name)
    if st.get("status") != "ok":
        raise PointFailed(f"the point failed in the guest: {st.get('status')}; see {outdir / 'guest.log'}")
    facts = json.loads(facts_path.read_text())
    run_json = batch / "run.json"
    runner = json.loads(run_json.read_text()) if run_json.exists() else {}
    exits = {k[len("exit_"):]: int(v) for k, v in st.items() if k.startswith("exit_")}
    after = {k[len("started_after_s_"):]: float(v) for k, v in st.items() if k.startswith("started_after_s_")}
    guest = f"/out/{key(row)}"

    def where(f: str) -> str:
        return f"{guest}/{f}"

    def in_guest(argv: list[str]) -> list[str]:
        return [GUEST_BIN + a[len("build/bin"):] if a.startswith("build/bin/") else a for a in argv]

    meta = {**base_meta(row, scale), "note": run.get("note", ""), "functional": True,
            "functional_note": "functional host: timings not meaningful", "host_facts": facts,
            "host_profile": run.get("profile", {}),
            "runner": {k: runner.get(k) for k in ("outcome", "boot_to_result_s", "wall_s", "accel", "accel_why", "kernel")},
            "guest_status": st, "exit": exits, "started_after_s": after,
            "start_uptime_s": st.get("start_uptime_s"), "end_uptime_s": st.get("end_uptime_s"),
            "settings_set": settings_set(sc),
            "argv": {r["name"]: in_guest(role_argv(r, where, where, "<the workload's pid>")) for r in sc["roles"]},
            "binaries": facts.get("guest_build", {}).get("binaries", []),
            "counters": {s: {"available": False, "reason": "guest host (TCG): no hardware counters"}
                         for s in (run.get("counters") or {}).get("sources", [])}}
    return write_scenario_point(row, outdir, meta)


@contextmanager
def stop_signals_raise():
    """SIGTERM and SIGHUP raise Interrupted in the main flow for the whole point, as SIGINT raises
    KeyboardInterrupt. A Supervisor puts back the handlers it found when it exits: with the default
    ones (terminate), a stop signal between its exit and the settings' restore (which defers stop
    signals itself) ended the point without restoring anything; raised there, the restore runs.
    Put back on the way out (main() is also called in-process, by tests)."""
    def _raise(signum, _frame):
        raise Interrupted(signum)

    old = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            old[sig] = signal.signal(sig, _raise)
        except ValueError:  # not the main thread
            break
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _settings_state(results: Path | None) -> str:
    """What became of the settings of an interrupted point: restored, or kept in the host's journal
    (run_host's) for the next measured point to put back first."""
    journal = results / JOURNAL if results else None
    if journal is not None and journal.exists():
        return (f"some settings are NOT restored: they are kept in {journal}, and the next measured point of "
                "this host puts them back before it starts")
    return "settings restored"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outdir", required=True, type=Path, help="the point's directory")
    ap.add_argument("--results", type=Path, help="results/<host> (lock and settings journal)")
    ap.add_argument("--facts", type=Path, help="results/<host>/host_facts.json")
    ap.add_argument("--batch", type=Path, help="the guest batch directory (executor guest)")
    ap.add_argument("row", help="the point's row as JSON, or '-' for stdin")
    args = ap.parse_args(argv)
    row = json.loads(sys.stdin.read() if args.row == "-" else Path(args.row).read_text())
    clear(args.outdir)
    scale = os.environ.get("TIERBENCH_SCALE")  # the config's scale, for meta.json (the workflow sets it)
    try:
        if row["executor"] == "model":
            return run_model(row, args.outdir, scale)
        if row["executor"] == "host":
            with stop_signals_raise():
                return run_host(row, args.outdir, args.results, args.facts, scale)
        return run_guest(row, args.outdir, args.batch, args.facts, scale)
    except Interrupted as e:
        print(f"tierbench: {e}; every child was stopped and {_settings_state(args.results)}", file=sys.stderr)
        return 128 + e.signum
    except KeyboardInterrupt:
        print(f"tierbench: interrupted; every child was stopped and {_settings_state(args.results)}", file=sys.stderr)
        return 130
    except (ConfigError, RuntimeError, TimeoutError, OSError, ValueError) as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
