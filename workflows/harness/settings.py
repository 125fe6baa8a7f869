"""Save and restore every sysctl / sysfs value a run changes.

    with Settings(journal=path) as s:
        s.set("/proc/sys/kernel/numa_balancing", "2")
    # restored on exit, whatever happened

Setting numa_balancing to memory-tiering mode (2) always passes through a value without that bit,
so the kernel starts its adaptive promotion threshold afresh for every point (RESET_ON_SET_BIT).

The other resources a scenario sets up for a point are journaled the same way, in the same
journal, as ``<kind>:<path>`` = the state to put back:

- ``swap:<area>`` = ``on``/``off``: ``s.swap_off()`` switches every active swap area off (for
  points that must not swap: a kernel mechanism that demotes through reclaim would swap instead); ``s.swap_on(target, size_mib)`` switches one on for the point (a swapfile it makes,
  ``swapfile:<path>`` = ``absent``, and its directory where it made it, ``dir:<path>`` =
  ``absent``; or a device the config names);
- ``cgroup:<path>`` = ``absent``: ``s.cgroup(name)``, a memory cgroup ``tierbench/<name>`` made for
  the point (cgroup v1 or v2, workflows/harness/memcg.py), removed on restore once whatever still
  runs in it (ours: we made it) is ended by pid; on cgroup v2 where the root's
  ``cgroup.subtree_control`` does not give its children the memory controller, it is given first,
  journaled as ``subtree:<that file>`` = ``-memory`` (the write that takes it back, after the
  cgroup is gone);
- ``undo:<timeout_s>:<command>`` = ``done``: ``s.command(setup, undo, timeout_s)``, a shell command of
  the user's that changes the host (a host profile's ``tier_setup``: its undo is journaled, then
  its setup runs); restoring runs the undo command (its own process group, stopped past
  ``timeout_s``), and a failed undo is a restore error like any other.
- ``tree:<path>`` = ``absent``: ``s.dir_guard(path)``, a directory a role of the point makes (the
  TPC-C-like workload's PostgreSQL data directory and socket directory), journaled before any
  role starts and only where it is not there yet (one that is there is not this run's: the point
  is refused); restoring removes it with its contents, refusing a path that is no longer what
  the run made (a symbolic link, a mount point or a filesystem mounted inside it, a path that
  now resolves elsewhere, a top-level directory). The missing directories above it are journaled
  as ``dir:<path>`` (removed when empty);
- ``server:<signal>:<pid file>`` = ``absent``: ``s.dir_guard(path, server_pid_file=...)``, a server
  that writes its pid in that directory (PostgreSQL's ``postmaster.pid``): restoring ends the
  process the file names, by pid and only where it works in that directory (so a pid the kernel
  has since given to another process is left alone), with ``<signal>``, then SIGKILL to it and
  its children (by pid) past :data:`SERVER_GRACE_S`. Journaled after its directory, so it is
  ended before the directory is removed.

Each original value is written to a journal file *before* the change, so a run
killed with SIGKILL is repaired by :func:`restore_journal`, which every measured point
calls under the host's measurement lock before it changes anything (workflows/harness/point.py).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import ConfigError
from .procs import stat_fields

# The knobs, each where it is defined: numa_balancing and numa_balancing_promote_rate_limit_MBps
# in Documentation/admin-guide/sysctl/kernel.rst; demotion_enabled in Documentation/ABI/testing/
# sysfs-kernel-mm-numa; THP's enabled and defrag in Documentation/admin-guide/mm/transhuge.rst
# (each reads back as its choices with the current one in brackets, "always [madvise] never":
# _read_file_value); nr_hugepages in Documentation/admin-guide/mm/hugetlbpage.rst and
# Documentation/admin-guide/sysctl/vm.rst.
KNOWN = {
    "numa_balancing": "/proc/sys/kernel/numa_balancing",
    "demotion_enabled": "/sys/kernel/mm/numa/demotion_enabled",
    "thp_enabled": "/sys/kernel/mm/transparent_hugepage/enabled",
    "thp_defrag": "/sys/kernel/mm/transparent_hugepage/defrag",
    "promote_rate_limit_mbps": "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps",
    "nr_hugepages": "/proc/sys/vm/nr_hugepages",
}


# Knobs whose kernel state is only reset when a bit goes from clear to set: path -> that bit.
# numa_balancing's memory-tiering mode (2) keeps an adaptive promotion hot threshold per node
# (pgdat->nbp_threshold, nbp_th_start, nbp_th_nr_cand), moved by numa_promotion_adjust_threshold()
# in kernel/sched/fair.c; sysctl_numa_balancing() in kernel/sched/core.c calls
# reset_memory_tiering() to start it again from the hot threshold (debugfs
# sched/numa_balancing/hot_threshold_ms, kernel/sched/debug.c; not a sysctl) only "if
# (!(sysctl_numa_balancing_mode & NUMA_BALANCING_MEMORY_TIERING) && (state &
# NUMA_BALANCING_MEMORY_TIERING))". A point that asks for mode 2 while the host already has it
# would inherit the threshold an earlier point (or anything before the run) left, so set() clears
# the bit first. (The promotion rate limit's window, nbp_rl_start / nbp_rl_nr_cand, restarts by
# itself after a second: numa_promotion_rate_limited(), kernel/sched/fair.c.) What this cannot put
# back: the adaptive threshold the host itself had reached before the run (no file shows it). A
# host already in mode 2 gets its threshold started afresh by the point (and, if a point set mode
# 0, once more by the restore's write of 2): the value the journal restores is the mode, not
# that kernel state.
RESET_ON_SET_BIT = {KNOWN["numa_balancing"]: 2}


def _read_file_value(path: str) -> str:
    text = read_busy(path).strip()
    if "[" in text and "]" in text:  # sysfs choice lists: "always [madvise] never"
        return text[text.index("[") + 1 : text.index("]")]
    return text


SWAP = "swap:"  # journal key prefix of a swap area switched off (or on)
SWAPFILE = "swapfile:"  # a swapfile made for a point
DIR = "dir:"  # a directory made for a swapfile, or above a tree (removed when empty)
CGROUP = "cgroup:"  # a memory cgroup made for a point
UNDO = "undo:"  # a user's command that undoes a setup command run for a point ("undo:<timeout_s>:<command>")
MOUNT = "mount:"  # a directory a role of the point mounts a filesystem on (kv-tmpfs): unmounted on restore
TREE = "tree:"  # a directory a role of the point makes (a database's data directory): removed with its contents
SERVER = "server:"  # a server's pid file in such a directory ("server:<signal>:<pid file>"): the server ended by pid
SUBTREE = "subtree:"  # a cgroup v2 cgroup.subtree_control the memory controller was enabled in: "-memory" takes it back
PRESENCE = (SWAPFILE, DIR, CGROUP, TREE)  # resources whose state is "present" or "absent"
# a journaled server is given this long to end after its signal, then it and its children get SIGKILL
# (PostgreSQL's immediate shutdown, SIGQUIT, itself sends SIGKILL to children still there after 5 s)
SERVER_GRACE_S = 10.0
TREE_WAIT_S = 30.0  # a tree's removal is tried again this long while ended processes finish exiting


def _proc_swaps(proc_swaps: str) -> list[list[str]]:
    """/proc/swaps' rows (proc(5): one per active area after a header: Filename Type Size Used
    Priority; spaces in the name as \\040), split, the name unescaped."""
    try:
        lines = Path(proc_swaps).read_text().splitlines()[1:]
    except OSError:
        return []
    return [[f[0].replace("\\040", " "), *f[1:]] for f in (ln.split() for ln in lines) if f]


def active_swaps(proc_swaps: str = "/proc/swaps") -> list[str]:
    """Active swap areas, in /proc/swaps' order."""
    return [f[0] for f in _proc_swaps(proc_swaps)]


def swap_priorities(proc_swaps: str = "/proc/swaps") -> dict[str, int]:
    """Each active swap area's priority (/proc/swaps' Priority column)."""
    return {f[0]: int(f[4]) for f in _proc_swaps(proc_swaps) if len(f) >= 5}


SWAP_PRIORITY_TOP = 32767  # swapon(8) -p: "priority ... between -1 and 32767"; higher is used first


def _swap(cmd: str, area: str, priority: int | None = None) -> None:
    # swapon(8)/swapoff(8): short-lived, in their own session (process group); swapoff can take a while.
    # swapon -p: a priority of the user's (0..32767, swapon(8)); without one the kernel gives the next
    # lower negative priority (mm/swapfile.c: --least_priority), so areas switched on again in their
    # first order keep their order
    argv = [cmd, *(["-p", str(priority)] if priority is not None and priority >= 0 else []), area]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, start_new_session=True, timeout=900)
    except subprocess.TimeoutExpired:  # (a restore error like any other, not an exception past it)
        raise OSError(errno.ETIME, f"{cmd} {area} ran past 900 s") from None
    if r.returncode != 0:
        raise OSError(r.returncode, f"{cmd} {area}: {(r.stderr or r.stdout).strip()}")


def _unmount(where: str) -> None:
    """umount(8) WHERE (lazily, ``-l``, where a process still has it open: umount(8), --lazy), then
    its directory removed if empty: what a role that mounted it does when it is stopped, done here
    for one that was killed before it could."""
    if os.path.ismount(where):
        for argv in (["umount", where], ["umount", "-l", where]):
            try:
                r = subprocess.run(argv, capture_output=True, text=True, start_new_session=True, timeout=60)
            except subprocess.TimeoutExpired:
                raise OSError(errno.ETIME, f"{' '.join(argv)} ran past 60 s") from None
            if r.returncode == 0:
                break
        else:
            raise OSError(r.returncode, f"umount {where}: {(r.stderr or r.stdout).strip()}")
    try:
        os.rmdir(where)
    except OSError:  # absent, or not empty: what else is in it stays
        pass


def _mount_points() -> list[str]:
    """Every mount point of this mount namespace (memcg.mount_table: /proc/self/mountinfo)."""
    from .memcg import mount_table  # noqa: PLC0415

    return [row[0] for row in mount_table()]


def tree_refused(where: str) -> str | None:
    """Why the directory WHERE, journaled as one a role of the point made, must not be removed
    (None: it may): a path that is not absolute and normalised or that resolves elsewhere now
    (an ancestor turned into a symbolic link), a top-level directory (``/``, ``/tmp``), a symbolic
    link, something not a directory, or a mount point or a directory with a filesystem mounted
    inside it (removing its contents would reach into that filesystem)."""
    if not os.path.isabs(where) or os.path.normpath(where) != where:
        return "not an absolute, normalised path"
    if len(Path(where).parts) < 3:
        return "a top-level directory"
    if os.path.islink(where):
        return "a symbolic link"
    if os.path.realpath(where) != where:
        return f"it resolves to {os.path.realpath(where)} now"
    if os.path.lexists(where) and not os.path.isdir(where):
        return "not a directory"
    inside = [m for m in _mount_points() if m == where or m.startswith(where + "/")]
    if inside:
        return f"a filesystem is mounted on {inside[0]}"
    return None


def _remove_tree(where: str) -> None:
    """Remove WHERE with its contents (never following a symbolic link in it), unless
    :func:`tree_refused` says why not; tried again for up to TREE_WAIT_S while processes that
    were just ended finish writing there."""
    why = tree_refused(where)
    if why:
        raise OSError(errno.EPERM, f"not removed: {why}, not a directory the run made")
    deadline = time.monotonic() + TREE_WAIT_S
    while True:
        shutil.rmtree(where, ignore_errors=True)
        if not os.path.lexists(where):
            return
        if time.monotonic() > deadline:
            raise OSError(errno.ENOTEMPTY, f"could not be removed within {TREE_WAIT_S:g} s")
        time.sleep(0.1)


def _proc_alive(pid: int) -> bool:
    """PID runs (is not gone, nor a zombie: /proc/<pid>/stat's state)."""
    f = stat_fields(Path(f"/proc/{pid}/stat"))
    return f is not None and f[0] != "Z"


def _children_of(pid: int) -> list[int]:
    """The processes whose parent is PID (/proc/<pid>/stat's fourth field)."""
    return [int(d.name) for d in Path("/proc").iterdir()
            if d.name.isdigit() and (f := stat_fields(d / "stat")) is not None and int(f[1]) == pid]


def _cwd(pid: int) -> str | None:
    """PID's working directory where it runs (and is ours to look at: nor, else, to signal)."""
    if not _proc_alive(pid):
        return None
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:  # gone, or not ours to look at
        return None


def server_pid(pid_file: str) -> int | None:
    """The process a server's pid file names (its first line; PostgreSQL's postmaster.pid holds
    a standalone backend's pid negated) if it runs with its working directory the file's own
    directory, as PostgreSQL's postmaster does (it changes to its data directory at start); else
    None: no file, no such process, or a process working elsewhere (a pid reused since)."""
    try:
        pid = abs(int(Path(pid_file).read_text().split("\n", 1)[0]))
    except (OSError, ValueError):
        return None
    return pid if pid > 1 and _cwd(pid) == os.path.realpath(os.path.dirname(pid_file)) else None


def _works_in(pid: int, where: str) -> bool:
    """PID runs with its working directory WHERE or one inside it."""
    cwd = _cwd(pid)
    return cwd is not None and (cwd == where or cwd.startswith(where + "/"))


def _stop_server(sig_name: str, pid_file: str) -> None:
    """End the server PID_FILE names (:func:`server_pid`), by pid: SIG_NAME first, then, past
    SERVER_GRACE_S, SIGKILL to it and to each of its children that works in its directory too
    (PostgreSQL's backends: each its own session leader, so not in the server's process group)."""
    pid = server_pid(pid_file)
    if pid is None:
        return
    where = os.path.realpath(os.path.dirname(pid_file))
    ours = [pid, *_children_of(pid)]
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, getattr(signal, f"SIG{sig_name}"))
    end = time.monotonic() + SERVER_GRACE_S
    while _proc_alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    left = [p for p in dict.fromkeys(ours + _children_of(pid)) if _works_in(p, where)]
    for p in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    end = time.monotonic() + 10
    while any(_proc_alive(p) for p in left):
        if time.monotonic() > end:
            raise OSError(errno.EBUSY, f"the server's processes {[p for p in left if _proc_alive(p)]} did not end")
        time.sleep(0.05)


def shell_argv(cmd: str) -> list[str]:
    """A user's shell command as argv, its standard output sent to standard error (the point's log)."""
    return ["sh", "-c", 'exec 1>&2; eval "$1"', "tierbench-command", cmd]


def run_command(name: str, cmd: str, timeout_s: float, sup=None) -> int:
    """A user's shell command (:func:`shell_argv`) in its own process group, waited for up to
    ``timeout_s``; its exit status. Past the limit its group is stopped and OSError(ETIME) raised.
    ``sup``: the point's Supervisor (an interrupt stops it with the point's children); a private
    one otherwise."""
    from .procs import Supervisor  # noqa: PLC0415

    own = sup is None
    sup = sup or Supervisor()
    try:
        return sup.run(name, shell_argv(cmd), timeout=timeout_s)
    except TimeoutError:
        raise OSError(errno.ETIME, f"{cmd!r} ran past its {timeout_s:g} s limit; its process group was stopped") from None
    finally:
        if own:
            sup.stop_all()


def _resource(key: str) -> tuple[str, str] | None:
    for prefix in (SWAP, UNDO, MOUNT, SERVER, SUBTREE, *PRESENCE):
        if key.startswith(prefix):
            return prefix, key[len(prefix):]
    return None


def _gone(path: str) -> bool:
    """A plain sysfs/procfs value whose file is no longer there (e.g. one in a directory a kernel
    interface made on request, after a reboot has dropped it): nothing of it is left to put back."""
    return _resource(path) is None and path.startswith(("/sys/", "/proc/")) and not os.path.exists(path)


def _in_tree(server_key: str, tree_key: str) -> bool:
    """Whether the journaled server's pid file lies in the journaled tree."""
    pid_file = server_key[len(SERVER):].partition(":")[2]
    tree = tree_key[len(TREE):].rstrip("/") + "/"
    return pid_file.startswith(tree)


def read_value(path: str) -> str:
    res = _resource(path)
    if res is None:
        return _read_file_value(path)
    kind, where = res
    if kind == UNDO:
        return "pending"  # what a command changed cannot be read back: restoring runs its undo
    if kind == SWAP:
        return "on" if os.path.realpath(where) in {os.path.realpath(a) for a in active_swaps()} else "off"
    if kind == MOUNT:
        return "present" if os.path.ismount(where) else "absent"
    if kind == SUBTREE:
        return "+memory" if "memory" in _read_file_value(where).split() else "-memory"
    if kind == SERVER:
        return "absent" if server_pid(where.partition(":")[2]) is None else "present"
    if kind == TREE:
        return "present" if os.path.lexists(where) else "absent"
    return "present" if os.path.exists(where) else "absent"


# A write refused with EBUSY is tried again, BUSY_TRIES times BUSY_WAIT_S apart: some kernel
# interfaces refuse a write while they are busy, e.g. DAMON's sysfs files (a kernel interface, not
# a tiering system here) take damon_sysfs_lock with mutex_trylock and return -EBUSY while a running kdamond's
# callback holds it (mm/damon/sysfs.c state_store, nr_*_store).
BUSY_TRIES, BUSY_WAIT_S = 20, 0.05


def _busy_retry(op):
    """``op()``'s result, an EBUSY refusal tried again (see BUSY_TRIES); any other error at once."""
    for n in range(BUSY_TRIES + 1):
        try:
            return op()
        except OSError as e:
            if e.errno != errno.EBUSY or n == BUSY_TRIES:
                raise
            time.sleep(BUSY_WAIT_S)
    raise AssertionError("unreachable")


def read_busy(path: str | Path) -> str:
    """A sysfs/procfs file's text, a busy refusal tried again (see BUSY_TRIES): DAMON's ``state``
    file is read under damon_sysfs_lock too, taken with mutex_trylock (mm/damon/sysfs.c
    state_show(), since "mm/damon/sysfs: fix use-after-free in state_show()", 6.17 and the
    stable kernels it went to, 6.12.y among them)."""
    return _busy_retry(lambda: Path(path).read_text())


def write_file(path: str | Path, value: str) -> None:
    """``value`` written to a sysfs/procfs file, a busy refusal tried again (see BUSY_TRIES)."""
    def write() -> None:
        with open(path, "w") as f:
            f.write(str(value))

    _busy_retry(write)


def _write(path: str, value: str) -> None:
    res = _resource(path)
    if res is None:
        write_file(path, value)
        return
    kind, where = res
    if kind == UNDO:
        timeout, _, cmd = where.partition(":")
        rc = run_command("undo", cmd, float(timeout))
        if rc != 0:
            raise OSError(rc, f"{cmd!r} exited with status {rc}")
        return
    if kind == SWAP:
        state, _, prio = value.partition(":")  # "on:<priority>" (swap_off), "on", "off"
        _swap("swapon" if state == "on" else "swapoff", where, int(prio) if prio else None)
    elif kind == SUBTREE:
        if value not in ("-memory", "+memory"):
            raise OSError(22, f"{path}: cannot restore to {value!r}")
        # "-memory" fails with EBUSY while a child cgroup enables it in its own subtree_control
        # (Documentation/admin-guide/cgroup-v2.rst, "Top-down Constraint"): one not ours, or our
        # parent that something else kept. Taking it back would break those: it stays on, said
        try:
            write_file(where, value)
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
            print(f"tierbench: {where}: the memory controller stays enabled (a cgroup below it still "
                  "enables it for its own children)", file=sys.stderr)
    elif value != "absent":  # a resource is made by its Settings method, never by a restore
        raise OSError(22, f"{path}: cannot restore to {value!r}")
    elif kind == MOUNT:
        _unmount(where)
    elif kind == SERVER:
        _stop_server(*where.split(":", 1))
    elif kind == TREE:
        _remove_tree(where)
    elif kind == SWAPFILE:
        if os.path.realpath(where) in {os.path.realpath(a) for a in active_swaps()}:
            # (its swapoff failed: unlinked, it would stay an active area, "(deleted)", to the reboot)
            raise OSError(errno.EBUSY, f"{where} is still an active swap area: not removed")
        os.unlink(where)
    elif kind == DIR:
        try:
            os.rmdir(where)
        except OSError:  # not empty: something else is in it now, and it stays
            pass
    else:
        from .memcg import remove_cgroup  # noqa: PLC0415

        try:
            remove_cgroup(Path(where))
        except RuntimeError as e:  # a process in it that would not end
            raise OSError(16, str(e)) from None


@contextlib.contextmanager
def stop_signals_deferred(raise_after: bool = True):
    """Run the block to its end through SIGINT/SIGTERM/SIGHUP: a stop signal that comes meanwhile is
    noted, and raised (procs.Interrupted) once the block is done, unless an exception unwinds from
    it or ``raise_after`` is false (the caller is itself on its way out with an exception).
    Restoring settings and removing swap areas and cgroups must not be cut short by a second Ctrl-C
    or a scheduler's SIGTERM: a swap area left on, or a journal half put back, would outlive the
    run (the next measured point repairs it, but only the next *measured* point). In a thread other
    than the main one (where Python delivers signals) the block just runs."""
    from .procs import STOP_SIGNALS, Interrupted  # noqa: PLC0415 - procs is the signal code's home

    came: list[int] = []
    old = {}
    for sig in STOP_SIGNALS:
        try:
            old[sig] = signal.signal(sig, lambda signum, _frame: came.append(signum))
        except ValueError:  # not the main thread
            break
    unwinding = False
    try:
        yield
    except BaseException:
        unwinding = True
        raise
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        if came:
            print(f"tierbench: {signal.Signals(came[0]).name} came while settings were being restored: "
                  "restored first", file=sys.stderr)
        if came and raise_after and not unwinding:
            raise Interrupted(came[0])


class Settings:
    def __init__(self, journal: Path | None = None):
        self.journal = journal
        self.saved: dict[str, str] = {}
        self.restore_errors: list[str] = []  # what __exit__ could not put back

    def __enter__(self) -> Settings:
        return self

    def __exit__(self, exc_type, *_) -> None:
        with stop_signals_deferred(raise_after=exc_type is None):
            errors = self.restore_errors = self.restore()
        if errors:  # kept in the journal: the next point repairs them before it starts, or refuses to start
            print(f"tierbench: could not restore {'; '.join(errors)} (kept in {self.journal or 'no journal'})",
                  file=sys.stderr)

    def set(self, key_or_path: str, value: str) -> None:
        path = KNOWN.get(key_or_path, key_or_path)
        if not os.path.exists(path):
            raise ConfigError(f"setting {key_or_path}: {path} does not exist on this kernel")
        if not os.access(path, os.W_OK):
            raise ConfigError(f"setting {key_or_path}: no permission to write {path} (run as root)")
        if path not in self.saved:
            self.saved[path] = read_value(path)
            self._sync_journal()
        try:
            bit = RESET_ON_SET_BIT.get(path)
            if bit is not None:
                now = int(read_value(path) or 0)
                if now & bit and int(value) & bit:  # already set: clear it so the kernel resets
                    _write(path, str(now & ~bit))
            _write(path, value)
        except OSError as e:
            raise ConfigError(f"setting {key_or_path}: writing {value!r} to {path} failed: {e.strerror}") from None

    def swap_off(self) -> list[str]:
        """Every active swap area off (journaled first); returns them."""
        areas, prio = active_swaps(), swap_priorities()
        # journaled last area first: the restore, newest first, switches them on again in their
        # order, with their priorities (proc(5) /proc/swaps)
        for area in reversed(areas):
            key = SWAP + area
            if key not in self.saved:
                self.saved[key] = f"on:{prio[area]}" if area in prio else "on"
                self._sync_journal()
        for area in areas:
            key = SWAP + area
            try:
                _write(key, "off")
            except OSError as e:
                raise ConfigError(f"setting swap off: {e.strerror}") from None
        return areas

    def keep(self, paths) -> None:
        """Journal each of ``paths`` that exists as it is now, without changing it: values a program
        of the point changes itself (put back when the point ends, or by the next repair after a kill)."""
        for path in map(str, paths):
            if os.path.exists(path):
                self._save(path, read_value(path))

    def _save_missing_dirs(self, path: str) -> None:
        """Journal ``path`` and each directory above it that is not there yet (removed when empty,
        the innermost first), before they are made."""
        missing = []
        while not os.path.lexists(path):
            missing.append(path)
            path = os.path.dirname(path)
        for d in reversed(missing):  # outermost first: restored (removed when empty) last
            self._save(DIR + d, "absent")

    def _save(self, key: str, original: str) -> None:
        if key not in self.saved:
            self.saved[key] = original
            self._sync_journal()

    def swap_on(self, target: str, size_mib: int | None = None) -> None:
        """A swap area on for the point: ``size_mib`` given, a swapfile ``target`` made (and its
        directory, where missing) and removed on restore; else the device ``target`` (a config's,
        checked before the run by its family). Each step journaled before it is taken."""
        from . import memcg  # noqa: PLC0415

        if size_mib:  # (a swapfile journaled by its absolute path: a repair may run from another directory)
            target = os.path.abspath(target)
        try:
            if size_mib:
                if os.path.lexists(target):  # (before the journal: a restore would remove what it names)
                    raise OSError(errno.EEXIST, f"{target} exists already: not made over, and not removed")
                parent = os.path.dirname(target)
                if not os.path.isdir(parent):
                    self._save_missing_dirs(parent)  # every level makedirs makes, not only the last
                    os.makedirs(parent)
                self._save(SWAPFILE + target, "absent")
                memcg.make_swapfile(Path(target), int(size_mib) << 20)
            self._save(SWAP + target, read_value(SWAP + target))
            # the highest priority (swapon(8) -p, 0..32767): the kernel swaps to the areas in
            # priority order (Documentation/admin-guide/mm/swap_numa.rst; mm/swapfile.c, an area
            # without one gets --least_priority), so a host's own swap area, switched on before,
            # would otherwise take the point's pages first
            _write(SWAP + target, f"on:{SWAP_PRIORITY_TOP}")
        except (OSError, RuntimeError) as e:
            raise ConfigError(f"swap area {target}: {e}") from None

    def cgroup(self, name: str) -> Path:
        """A memory cgroup ``<controller>/tierbench/<name>`` made for the point (journaled first),
        removed on restore; its path."""
        from . import memcg  # noqa: PLC0415

        cg = memcg.Cgroup(memcg.detect(), name)
        try:
            ctl = cg.root_control()
            if ctl is not None:  # v2: the root's children get the memory controller, journaled
                self._save(SUBTREE + str(ctl), "-memory")
                write_file(ctl, "+memory")
            self._save(CGROUP + str(cg.path), "absent")
            cg.create()
        except OSError as e:
            raise ConfigError(f"memory cgroup {cg.path}: {e}") from None
        return cg.path

    def mount_guard(self, where: str) -> str:
        """Journal that WHERE (a directory a role of the point mounts on) must not stay mounted: on
        restore, or in the next measured point's repair after a killed run, it is unmounted and its
        directory removed (:func:`_unmount`). Returns the absolute path journaled."""
        path = os.path.abspath(where)
        self._save(MOUNT + path, "absent")
        return path

    def dir_guard(self, where: str, server_pid_file: str | None = None, server_signal: str = "TERM") -> str:
        """Journal WHERE, a directory a role of the point is about to make (a database's data or
        socket directory), before any role starts: on restore, or in the next measured point's
        repair after a killed run, it is removed with its contents (:func:`_remove_tree`), and so
        are the directories above it that are missing now (``dir:``, removed when empty). With
        ``server_pid_file`` (a file name in it: PostgreSQL's ``postmaster.pid``) the server that
        file names is ended first, by pid (:func:`_stop_server`, ``server_signal`` first).
        ConfigError where WHERE is there already (not this run's: never removed) or could never be
        removed (:func:`tree_refused`). Returns the path journaled (absolute, resolved)."""
        path = os.path.realpath(where)
        why = tree_refused(path)
        if why:
            raise ConfigError(f"directory {where}: {why}: a point journals only a directory it makes")
        if os.path.lexists(path):
            raise ConfigError(f"directory {path} is there before the point made it: it is not this run's and a point "
                              "removes only what it made (a leftover of an earlier run? remove it, then run again)")
        if server_pid_file is not None and (not hasattr(signal, f"SIG{server_signal}") or "/" in server_pid_file):
            raise ValueError(f"dir_guard: signal {server_signal!r} or pid file name {server_pid_file!r}")
        self._save_missing_dirs(os.path.dirname(path))
        self._save(TREE + path, "absent")
        if server_pid_file is not None:  # after its directory: restored (ended) before it is removed
            self._save(f"{SERVER}{server_signal}:{os.path.join(path, server_pid_file)}", "absent")
        return path

    def command(self, setup: str, undo: str, timeout_s: float, sup=None) -> None:
        """Run ``setup`` (a user's shell command, :func:`run_command`) for the point, ``undo``
        journaled before it starts: restoring runs ``undo`` whether setup succeeded, failed or was
        interrupted. ConfigError when setup fails or runs past ``timeout_s``."""
        self._save(f"{UNDO}{timeout_s:g}:{undo}", "done")
        try:
            rc = run_command("setup", setup, timeout_s, sup)
        except OSError as e:
            raise ConfigError(f"setup {e.strerror}") from None
        if rc != 0:
            raise ConfigError(f"setup {setup!r} exited with status {rc}; see the log")

    def restore(self) -> list[str]:
        """Put back every journaled value, newest first; what could not be put back stays in the
        journal (and only that: an undo command that ran is not run again), and is returned."""
        errors, failed = [], set()
        for path, value in reversed(list(self.saved.items())):
            try:
                if _gone(path):
                    print(f"tierbench: {path} is gone (its kernel object with it: a reboot, or a module "
                          "unloaded): nothing to put back there", file=sys.stderr)
                elif path.startswith(TREE) and any(f.startswith(SERVER) and _in_tree(f, path) for f in failed):
                    raise OSError(errno.EBUSY, "its server could not be ended: kept")
                elif read_value(path) != (value.partition(":")[0] if path.startswith(SWAP) else value):
                    _write(path, value)
            except OSError as e:
                errors.append(f"{path}: {e.strerror}")
                failed.add(path)
        self.saved = {k: v for k, v in self.saved.items() if k in failed}
        self._sync_journal()
        return errors

    def _sync_journal(self) -> None:
        if self.journal is None:
            return
        if self.saved:
            tmp = self.journal.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.saved, indent=1))
            os.replace(tmp, self.journal)
            register_journal(self.journal)
        elif self.journal.exists():
            self.journal.unlink()
            unregister_journal(self.journal)


# ---- this machine's journals ----------------------------------------------------------------------

REGISTRY = "journals"  # in state_dir(): "<machine id>\t<journal path>" per settings journal root wrote here


def machine_dir() -> Path:
    """Where this machine's measurement lock lives (workflows/harness/point.py), the one every
    checkout, host profile and user takes: ``TIERBENCH_MACHINE_DIR``, else ``/run/lock`` (FHS 3.0,
    "/run/lock: Lock files"; Debian: world-writable, sticky), else ``/var/lock``, else the
    temporary directory."""
    env = os.environ.get("TIERBENCH_MACHINE_DIR")
    if env:
        return Path(env)
    for d in ("/run/lock", "/var/lock"):
        if os.path.isdir(d):
            return Path(d)
    import tempfile  # noqa: PLC0415

    return Path(tempfile.gettempdir())


def state_dir() -> Path:
    """Where the list of settings journals lives: ``TIERBENCH_MACHINE_DIR``, else
    ``/var/lib/tierbench`` (FHS 3.0, "/var/lib: Variable state information": it outlives a reboot,
    as a journal's swapfiles and directories do). Only root writes it (root's runs are the ones that
    change the machine), and it is read only where no other user can have written it
    (:func:`untrusted`): an entry there makes root put back whatever that journal names."""
    env = os.environ.get("TIERBENCH_MACHINE_DIR")
    return Path(env) if env else Path("/var/lib/tierbench")


@functools.cache
def machine_id() -> str:
    """This machine's id (machine-id(5): /etc/machine-id, else D-Bus's copy), else its hostname:
    on a filesystem several nodes share, a node repairs only the journals of runs made on it."""
    for f in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        with contextlib.suppress(OSError):
            got = Path(f).read_text().strip()
            if got:
                return got
    import socket  # noqa: PLC0415

    return socket.gethostname()


def untrusted(path: Path) -> str | None:
    """Why ``path`` may hold what another user wrote (a symbolic link; owned by neither root nor this
    user; writable by its group or others), or None."""
    import stat  # noqa: PLC0415

    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if st.st_uid not in (0, os.geteuid()):
        return f"owned by uid {st.st_uid}"
    if st.st_mode & 0o022:
        return "writable by its group or others"
    return None


def _registered() -> list[tuple[str, str]]:
    """The list's (machine id, journal path) entries; none where the list is not trustworthy."""
    path = state_dir() / REGISTRY
    try:
        why = untrusted(path.parent) or untrusted(path)
        if why:
            print(f"tierbench: {path} is not used: {why}", file=sys.stderr)
            return []
        lines = path.read_text().splitlines()
    except OSError:
        return []
    return [tuple(x.split("\t", 1)) for x in lines if "\t" in x]


def register_journal(journal: Path) -> None:
    """As root: add ``journal`` to this machine's list, so that a measured point of another host
    profile or checkout finds it (:func:`other_journals`). Best effort: where the list cannot be
    written, the journal's own host profile still repairs it."""
    if os.geteuid() != 0 and not os.environ.get("TIERBENCH_MACHINE_DIR"):
        return
    entry = (machine_id(), str(Path(journal).resolve()))
    listed = _registered()
    if entry not in listed:
        with contextlib.suppress(OSError):
            _write_list([*listed, entry])


def _write_list(entries: list[tuple[str, str]]) -> None:
    """The list rewritten whole (atomically; its directory made, root's, where missing)."""
    state_dir().mkdir(mode=0o755, parents=True, exist_ok=True)
    tmp = state_dir() / (REGISTRY + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write("".join("\t".join(e) + "\n" for e in entries))
    os.replace(tmp, state_dir() / REGISTRY)


def unregister_journal(journal: Path) -> None:
    """Drop ``journal`` (put back and removed) from this machine's list (best effort: the list also
    loses the journals that are gone when a point reads it)."""
    entry = (machine_id(), str(Path(journal).resolve()))
    listed = _registered()
    if entry in listed:
        with contextlib.suppress(OSError):
            _write_list([e for e in listed if e != entry])


def other_journals(own: Path | None, prune: bool = True) -> list[Path]:
    """The settings journals of this machine other than ``own`` that are still there: what runs of
    other host profiles or checkouts, killed, left changed. Measure under the machine's lock only
    after they are put back. One that another user could have written is left out, and said. With
    ``prune`` (only under the machine's lock: a point may be adding its own meanwhile otherwise)
    the list loses the journals that are gone (best effort)."""
    listed = _registered()
    there = [e for e in listed if os.path.exists(e[1])]
    if prune and len(there) < len(listed):
        with contextlib.suppress(OSError):
            _write_list(there)
    mine, me, out = str(Path(own).resolve()) if own is not None else None, machine_id(), []
    for mid, path in there:
        if mid != me or path == mine:
            continue
        why = untrusted(Path(path))
        if why:
            print(f"tierbench: not putting back {path}: {why}", file=sys.stderr)
            continue
        out.append(Path(path))
    return out


def restore_journal(journal: Path) -> dict[str, str]:
    """Put back values left changed by a run that died; returns what was restored."""
    if not journal.exists():
        return {}
    saved = json.loads(journal.read_text())
    s = Settings(journal)
    s.saved = dict(saved)
    with stop_signals_deferred():
        errors = s.restore()
    if errors:
        raise ConfigError(f"could not restore settings from {journal}: {'; '.join(errors)}")
    return saved
