"""Process supervision: every child in its own process group, ended by pid.

Usage::

    with Supervisor() as sup:
        ant = sup.spawn("antagonist", [...], stdout=path)
        sup.run("gups", [...], stdout=path, timeout=120)   # waits
    # leaving the block (success, exception or SIGINT/SIGTERM) stops every
    # child still running: SIGTERM to its process group, SIGKILL after a grace
    # period, then waits for it. Only pids this supervisor started are signalled.

Children also get PR_SET_PDEATHSIG(SIGKILL), so if the harness itself is
killed with SIGKILL (which no handler can catch) they die with it.

Starting a child is one step as far as the stop signals are concerned: SIGINT, SIGTERM and SIGHUP
are blocked from before the fork until the child is registered (the child unblocks them just
before exec), so an interrupt that lands while a child starts is handled once the supervisor
knows the child, and stops it. Without that, a Ctrl-C arriving after the fork but before the
child was recorded raised out of ``spawn`` and left the child running in its own process group,
where no Ctrl-C reaches it; and a harness that exited before its child had set PR_SET_PDEATHSIG never
sent it the death signal either (the child now checks its parent after prctl, as prctl(2)
advises for this race).

The first stop signal raises ``Interrupted`` where the main thread is. Python runs a signal's
handler at its next check for signals, and that can be inside the close of a file object that its
last reference let go of; CPython's finaliser of io objects then clears whatever close() raised,
without a word outside Python's development mode (Modules/_io/iobase.c, ``iobase_finalize``:
"Silencing I/O errors is bad, but printing spurious tracebacks is equally as bad"; test_io's
IOBASE_EMITS_UNRAISABLE). A stop signal that landed there was lost, and the
handler had already set the stop signals to be ignored, so no later Ctrl-C or SIGTERM stopped the
run (tests/test_procs.py's interrupted harness hung 4 times in about 4,000 tries under load). Now the
supervisor remembers the signal: a later one raises again unless an exception is already unwinding
(the first one's cleanup), waiting for or starting a child or :meth:`Supervisor.sleep` raises
``Interrupted`` in a flow that went on as if none had come, and a block that ends without an
exception after a stop signal raises it once its children are stopped. While ``__exit__`` stops
the children, stop signals are only noted.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PR_SET_PDEATHSIG = 1
# the signals that stop a run (Supervisor handles them); held while a child starts
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SLEEP_SLICE_S = 0.1  # Supervisor.sleep: the longest a stop signal waits for its handler


def _child_setup(parent: int, cpus: tuple[int, ...] = ()) -> None:  # in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except OSError:
        pass
    if os.getppid() != parent:
        # The harness exited before prctl: the death signal will never come (prctl(2),
        # PR_SET_PDEATHSIG: compare the parent's pid after the call). Do not start.
        os._exit(1)
    # Default signal dispositions (Python sets SIGINT to a handler, SIGPIPE ignored; a supervisor
    # cleaning up ignores the stop signals), then unblock what spawn() blocked across the fork.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    if cpus:  # the CPUs it may run on (sched_setaffinity(2); inherited by its threads and children)
        os.sched_setaffinity(0, cpus)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def stat_fields(stat: Path) -> list[str] | None:
    """The fields of a /proc/<pid>/stat file from its third (the state) on: proc(5) numbers them
    from 1, the command name (field 2) is in parentheses and may hold spaces and ')', so the rest
    is read after its last ')'. None where the process is gone (or the file unreadable)."""
    try:
        text = stat.read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def dies_with_us() -> Callable[[], None]:
    """A ``preexec_fn`` for a plain subprocess of a program the harness runs (a wrapper's own child:
    pgbench under the TPC-C driver): the child gets PR_SET_PDEATHSIG(SIGKILL) and default signal
    dispositions, as a Supervisor's children do. The harness's death signal reaches only its own
    children (prctl(2), PR_SET_PDEATHSIG: sent when the caller's parent thread dies), and a
    grandchild started without this outlives a harness killed with SIGKILL (a review found pgbench
    still running); with it, each generation dies with the one above."""
    return functools.partial(_child_setup, os.getpid())


class Interrupted(Exception):
    """Raised in the main thread when SIGINT/SIGTERM arrives under a Supervisor."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum


@dataclass
class Child:
    name: str
    argv: list[str]
    popen: subprocess.Popen
    started: float = field(default_factory=time.monotonic)
    files: list = field(default_factory=list)
    stopped: bool = False  # set once its group was cleaned up: never signal that pid again
    usage: dict | None = None  # once reaped by Supervisor.wait: peak RSS, CPU and wall time
    grace_s: float | None = None  # its own time from the stop signal to SIGKILL (None: the Supervisor's)

    def reap(self, timeout: float | None, poll: Callable[[], None] | None = None) -> int | None:
        """Wait up to ``timeout`` seconds for the child to exit and reap it with wait4(2), keeping
        its resource usage; returns its exit status (as Popen's returncode), None while it runs.
        ``poll`` is called between checks (Supervisor.check: it may raise)."""
        end = None if timeout is None else time.monotonic() + timeout
        while self.popen.returncode is None:
            if poll:
                poll()
            try:
                pid, status, ru = os.wait4(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                return self.popen.wait()
            if pid:
                self.popen.returncode = os.waitstatus_to_exitcode(status)
                self.usage = {"max_rss_kib": ru.ru_maxrss, "user_s": round(ru.ru_utime, 3),
                              "system_s": round(ru.ru_stime, 3), "wall_s": round(time.monotonic() - self.started, 3)}
                break
            if end is not None and time.monotonic() >= end:
                return None
            time.sleep(0.02)
        return self.popen.returncode

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None


class Supervisor:
    def __init__(self, grace_s: float = 3.0, registry: Path | None = None):
        self.grace_s = grace_s
        self.children: list[Child] = []
        self.registry = registry  # optional file listing running children (name pid)
        self._old_handlers: dict[int, object] = {}
        self.interrupted: int | None = None  # the first stop signal, once one came (the module's text)
        self._stopping = False

    # -- lifecycle -------------------------------------------------------
    def __enter__(self) -> Supervisor:
        for sig in STOP_SIGNALS:
            try:
                self._old_handlers[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not in the main thread
                pass
        return self

    def __exit__(self, exc_type, *_) -> None:
        self._stopping = True
        try:
            self.stop_all()
        finally:
            for sig, h in self._old_handlers.items():
                signal.signal(sig, h)
            self._old_handlers.clear()
            self._stopping = False
        if exc_type is None and self.interrupted is not None:
            raise Interrupted(self.interrupted)  # the block went on after a stop signal: its caller hears it

    def _on_signal(self, signum, _frame) -> None:
        # Raise in the main flow, unless the children are being stopped or an exception already
        # unwinds (the cleanup after the first): then only note it (the handler returns; an
        # interrupted system call is retried, PEP 475).
        if self.interrupted is None:
            self.interrupted = signum
        elif sys.exc_info()[0] is not None:
            return
        if not self._stopping:
            raise Interrupted(signum)

    def check(self) -> None:
        """Raise ``Interrupted`` if a stop signal came and no exception unwinds: its own was lost
        (the module's text)."""
        if self.interrupted is not None and not self._stopping and sys.exc_info()[0] is None:
            raise Interrupted(self.interrupted)

    def sleep(self, seconds: float) -> None:
        """``time.sleep`` in slices of SLEEP_SLICE_S, checking for a stop signal before each: a signal
        that lands after Python's last check and before a sleep's system call waits for that whole
        call (nothing interrupts a call the signal came before), and a lost one raises here."""
        end = time.monotonic() + seconds
        while True:
            self.check()
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, SLEEP_SLICE_S))

    def _write_registry(self) -> None:
        if self.registry is None:
            return
        live = [c for c in self.children if c.alive()]
        tmp = self.registry.with_suffix(".tmp")
        tmp.write_text("".join(f"{c.name} {c.pid}\n" for c in live))
        tmp.replace(self.registry)

    # -- starting ---------------------------------------------------------
    def spawn(self, name: str, argv: list[str], stdout: Path | None = None, stderr: Path | None = None,
              env: dict | None = None, cwd: Path | None = None, cpus: list[int] | None = None,
              grace_s: float | None = None) -> Child:
        """Start argv in a process group of its own, in our session; return at once. ``cpus``: the CPUs it
        (and every thread and child of it) may run on; all of ours when None or empty. ``grace_s``:
        how long :meth:`stop` waits after the stop signal before SIGKILL, for a child that cleans up
        after itself on the way out (the Supervisor's ``grace_s`` when None).

        Without ``stderr`` the child writes its errors to ours (the job's log), so a tool's own message
        ("no such NUMA node", a malformed curve) is what the log shows when it fails."""
        self.check()  # a stop signal whose exception was lost is raised here, before another child
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        err = open(stderr, "ab") if stderr else None
        opened = [f for f in (out, err) if f is not None and f is not subprocess.DEVNULL]
        # Fork to registration without a stop signal in between (see the module's text): a
        # signal that arrives meanwhile stays pending and is handled when the mask is put back.
        old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            try:
                p = subprocess.Popen(
                    [str(a) for a in argv], stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                    # A process group of its own (setpgid: Ctrl-C in the terminal reaches only the
                    # foreground group, so the supervisor stops it), not a session of its own: a new
                    # session is a new autogroup (kernel/sys.c, ksys_setsid() calls
                    # sched_autogroup_create_attach(); kernel/sched/autogroup.c), and the
                    # scheduler shares a CPU fairly between autogroups, so a pinned benchmark in its own
                    # session got half its core against the SCHED_IDLE jobs of Snakemake's session
                    # (workflows/harness/yield_cpu.sh). In one autogroup they take only idle time.
                    env=env, cwd=cwd, process_group=0,
                    preexec_fn=functools.partial(_child_setup, os.getpid(), tuple(cpus or ())),
                )
            except FileNotFoundError:
                for f in opened:
                    f.close()
                raise
            child = Child(name, [str(a) for a in argv], p, files=opened, grace_s=grace_s)
            self.children.append(child)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        self._write_registry()
        return child

    def wait(self, child: Child, timeout: float | None = None) -> int:
        """Wait for a child (its resource usage kept in ``child.usage``); on timeout stop it and
        raise TimeoutError."""
        rc = child.reap(timeout, self.check)
        if rc is None:
            self.stop(child)
            raise TimeoutError(f"{child.name} (pid {child.pid}) ran past its {timeout:.0f} s limit and was stopped") from None
        self.stop(child)  # leader exited: end anything it left in its group, once
        return rc

    def run(self, name: str, argv: list[str], timeout: float | None = None, **kw) -> int:
        return self.wait(self.spawn(name, argv, **kw), timeout)

    # -- stopping ---------------------------------------------------------
    def stop(self, child: Child, sig: int = signal.SIGTERM) -> int | None:
        """Signal the child's process group (pgid == its pid), escalate to SIGKILL."""
        if child.stopped:
            return child.popen.returncode
        if child.alive():
            try:
                os.killpg(child.pid, sig)
            except ProcessLookupError:
                pass
            try:
                child.popen.wait(timeout=self.grace_s if child.grace_s is None else child.grace_s)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                child.popen.wait()
        else:
            # The leader exited; anything it left in its group still goes.
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        child.stopped = True
        self._close(child)
        self._write_registry()
        return child.popen.returncode

    def stop_all(self) -> None:
        for child in reversed(self.children):
            self.stop(child)

    @staticmethod
    def _close(child: Child) -> None:
        for f in child.files:
            try:
                f.close()
            except OSError:
                pass
        child.files = []
