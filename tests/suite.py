#!/usr/bin/env python3
"""make test after the build and the lint: the C tests and pytest, in three phases.

1. The C components' tests (``make c-test``) beside one build of what several tests share:
   kv-resp, and GAPBS and Silo from their pinned archives when a sources directory is here
   (tests/conftest.py's sources_dir). Two pytest sessions that each built them into the shared
   build/ could race on one binary.
2. Two pytest sessions side by side: the guest's session, started as soon as the shared builds
   are made (beside the rest of the C tests, whose programs run on one core at a time), and the
   host's, started when the C tests end. The guest's session runs at a lower priority (nice 10)
   the tests that boot the QEMU guest (``-m vm``; TCG here, most of their time is the guest's CPU)
   and the host's tests marked ``guest_session`` (workflow runs in scratch copies: the cluster
   tests and two more, ~140 s, so that the two sessions end together on 2 cores; each changes
   nothing outside its copy but SLURM's test daemons); the host's session runs the rest
   (``-m "not vm and not guest_session and not quiet"``). The guest's tests change nothing on this
   host (their settings, cgroups and swap are the guest's), and every test finds its own processes
   by ancestry (conftest.started_by), so neither session sees the other's work.
3. The tests that time a measurement against an independent tool (``-m quiet``), alone.

The guest session's output goes to build/logs/pytest-vm.log and is printed when it ends. Exit
status: the first non-zero of the phases (each phase runs even when an earlier one failed, as
pytest runs every test), except that a failed shared build stops before pytest: the sessions
would each build what it did not. SIGINT or SIGTERM ends every child's process group.

    tests/suite.py [--serial] [PYTEST_ARGS...]

--serial runs one pytest session over every test after phase 1 (``TIERBENCH_TEST_SERIAL=1``
does the same). PYTEST_ARGS go to every pytest session (PYTEST_ADDOPTS too, as pytest reads it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "build" / "logs"
# what more than one test builds into the shared build/ (the rest is make build's)
SHARED_TOOLS = ["kv-resp", "kv-wil"]
SHARED_APPS = ["gapbs-pr", "gapbs-converter", "silo-dbtest"]  # from the pinned archives
GUEST_NICE = 10
# host tests that run in the guest's session, after nothing in particular (pyproject.toml's markers)
GUEST_SESSION = "guest_session"
GUEST_MARKS = f"vm or {GUEST_SESSION}"

children: list[subprocess.Popen] = []


def start(cmd: list[str], log: Path | None = None, nice: int = 0) -> subprocess.Popen:
    """``cmd`` in its own process group (ended by pid in stop_all), its output to ``log`` or ours."""
    out = open(log, "w") if log else None  # noqa: SIM115 - closed when the child is waited for
    p = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT if out else None,
                         start_new_session=True, preexec_fn=(lambda: os.nice(nice)) if nice else None)
    p.log_file = out  # type: ignore[attr-defined]
    children.append(p)
    return p


def wait(p: subprocess.Popen) -> int:
    rc = p.wait()
    if p.log_file:  # type: ignore[attr-defined]
        p.log_file.close()  # type: ignore[attr-defined]
    return rc


def stop_all(*_) -> None:
    """SIGINT to each running child's group (pytest ends its tests and their processes), SIGKILL
    to what is left after 60 s."""
    running = [p for p in children if p.poll() is None]
    for p in running:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGINT)
    deadline = time.monotonic() + 60
    for p in running:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def shared_builds(log: Path) -> tuple[subprocess.Popen, Path]:
    """One Snakemake run in a scratch copy of the tree (build/ shared, as the tests' copies) that
    builds SHARED_TOOLS, and SHARED_APPS when a sources directory is here."""
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import copy_tree, sources_dir  # noqa: PLC0415

    scratch = Path(tempfile.mkdtemp(prefix="tierbench-shared-builds-"))
    work = copy_tree(scratch / "repo")
    src = sources_dir()
    targets = [f"build/bin/{t}" for t in SHARED_TOOLS + (SHARED_APPS if src else [])]
    cmd = [sys.executable, "-m", "snakemake", "--cores", str(os.cpu_count() or 1), "--directory", str(work),
           *(["--config", f"sources={src}"] if src else []), "--", *targets]
    print(f"[test] building what several tests share ({', '.join(Path(t).name for t in targets)}; log {log})", flush=True)
    return start(cmd, log), scratch


def ok(rc: int) -> int:
    """pytest's 5 (no test selected: e.g. -k chose none of a phase's) is not a failure."""
    return 0 if rc == 5 else rc


def pytest(args: list[str], marks: str | None, log: Path | None = None, nice: int = 0,
           cache: bool = True) -> subprocess.Popen:
    """A pytest session over tests/ (``-m marks``); ``cache=False`` for the session beside another,
    so that the two never write one .pytest_cache file."""
    cmd = [sys.executable, "-m", "pytest", *([] if cache else ["-p", "no:cacheprovider"]),
           *(["-m", marks] if marks else []), *args, "tests"]
    return start(cmd, log, nice)


def main(argv: list[str]) -> int:
    serial = "--serial" in argv or os.environ.get("TIERBENCH_TEST_SERIAL") == "1"
    args = [a for a in argv if a != "--serial"]
    LOGS.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: (stop_all(), sys.exit(143)))
    rcs = []
    try:
        t0 = time.monotonic()
        builds_log = LOGS / "test-shared-builds.log"
        builds, scratch = shared_builds(builds_log)
        ctest = start(["make", "--no-print-directory", "c-test"])
        b = wait(builds)
        shutil.rmtree(scratch, ignore_errors=True)
        if b != 0:
            print(f"[test] the shared builds failed (exit {b}); the end of {builds_log}:")
            print("".join(builds_log.read_text().splitlines(keepends=True)[-30:]), flush=True)
            return b
        vm_log = LOGS / "pytest-vm.log"
        if not serial:
            print(f"[test] shared builds: {time.monotonic() - t0:.0f} s; pytest: the guest's session (-m \"{GUEST_MARKS}\", "
                  f"nice {GUEST_NICE}; output in {vm_log} when it ends) beside the rest of the C tests, then beside "
                  "the host's session", flush=True)
            vm = pytest(args, GUEST_MARKS, vm_log, GUEST_NICE, cache=False)
        rcs.append(wait(ctest))
        print(f"[test] C tests and shared builds: {time.monotonic() - t0:.0f} s", flush=True)
        if serial:
            rcs.append(ok(wait(pytest(args, None))))
            return next((r for r in rcs if r), 0)
        t1 = time.monotonic()
        rcs.append(ok(wait(pytest(args, f"not vm and not {GUEST_SESSION} and not quiet"))))
        t_host = time.monotonic() - t1
        if vm.poll() is None:
            print("[test] waiting for the guest's session", flush=True)
        rcs.append(ok(wait(vm)))
        t_wait = time.monotonic() - t1 - t_host
        print(f"\n[test] ---- the guest's session ({vm_log}) ----", flush=True)
        sys.stdout.write(vm_log.read_text())
        print(f"[test] pytest side by side: the host's session took {t_host:.0f} s, then {t_wait:.0f} s waiting for "
              "the guest's (its own time: above)", flush=True)
        print("[test] pytest: the tests that time against an independent tool (-m quiet), alone", flush=True)
        rcs.append(ok(wait(pytest(args, "quiet"))))
        print(f"[test] C tests and pytest: {time.monotonic() - t0:.0f} s", flush=True)
    except KeyboardInterrupt:
        stop_all()
        return 130
    finally:
        stop_all()
    return next((r for r in rcs if r), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
