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
  runs in it (ours: we made it) is ended by pid;
- ``undo:<timeout_s>:<command>`` = ``done``: ``s.command(setup, undo, timeout_s)``, a shell command of
  the user's that changes the host (a host profile's ``tier_setup``: its undo is journaled, then
  its setup runs); restoring runs the undo command (its own process group, stopped past
  ``timeout_s``), and a failed undo is a restore error like any other.

Each original value is written to a journal file *before* the change, so a run
killed with SIGKILL is repaired by :func:`restore_journal`, which every measured point
calls under the host's measurement lock before it changes anything (workflows/harness/point.py).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import ConfigError

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
# reset_memory_tiering() to start it again from numa_balancing_hot_threshold_ms only "if
# (!(sysctl_numa_balancing_mode & NUMA_BALANCING_MEMORY_TIERING) && (state &
# NUMA_BALANCING_MEMORY_TIERING))". A point that asks for mode 2 while the host already has it
# would inherit the threshold an earlier point (or anything before the run) left, so set() clears
# the bit first. (The promotion rate limit's window, nbp_rl_start / nbp_rl_nr_cand, restarts by
# itself after a second: numa_promotion_rate_limited(), kernel/sched/fair.c.)
RESET_ON_SET_BIT = {KNOWN["numa_balancing"]: 2}


def _read_file_value(path: str) -> str:
    text = Path(path).read_text().strip()
    if "[" in text and "]" in text:  # sysfs choice lists: "always [madvise] never"
        return text[text.index("[") + 1 : text.index("]")]
    return text


SWAP = "swap:"  # journal key prefix of a swap area switched off (or on)
SWAPFILE = "swapfile:"  # a swapfile made for a point
DIR = "dir:"  # a directory made for a swapfile (removed when empty)
CGROUP = "cgroup:"  # a memory cgroup made for a point
UNDO = "undo:"  # a user's command that undoes a setup command run for a point ("undo:<timeout_s>:<command>")
MOUNT = "mount:"  # a directory a role of the point mounts a filesystem on (kv-tmpfs): unmounted on restore
PRESENCE = (SWAPFILE, DIR, CGROUP)  # resources whose state is "present" or "absent"


def active_swaps(proc_swaps: str = "/proc/swaps") -> list[str]:
    """Active swap areas (proc(5): /proc/swaps, one per line after a header; spaces as \\040)."""
    try:
        lines = Path(proc_swaps).read_text().splitlines()[1:]
    except OSError:
        return []
    return [ln.split()[0].replace("\\040", " ") for ln in lines if ln.strip()]


def _swap(cmd: str, area: str) -> None:
    # swapon(8)/swapoff(8): short-lived, in their own session (process group); swapoff can take a while
    r = subprocess.run([cmd, area], capture_output=True, text=True, start_new_session=True, timeout=900)
    if r.returncode != 0:
        raise OSError(r.returncode, f"{cmd} {area}: {(r.stderr or r.stdout).strip()}")


def _unmount(where: str) -> None:
    """umount(8) WHERE (lazily, ``-l``, where a process still has it open: umount(8), --lazy), then
    its directory removed if empty: what a role that mounted it does when it is stopped, done here
    for one that was killed before it could."""
    if os.path.ismount(where):
        for argv in (["umount", where], ["umount", "-l", where]):
            r = subprocess.run(argv, capture_output=True, text=True, start_new_session=True, timeout=60)
            if r.returncode == 0:
                break
        else:
            raise OSError(r.returncode, f"umount {where}: {(r.stderr or r.stdout).strip()}")
    try:
        os.rmdir(where)
    except OSError:  # absent, or not empty: what else is in it stays
        pass


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
    for prefix in (SWAP, UNDO, MOUNT, *PRESENCE):
        if key.startswith(prefix):
            return prefix, key[len(prefix):]
    return None


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
    return "present" if os.path.exists(where) else "absent"


# A write refused with EBUSY is tried again, BUSY_TRIES times BUSY_WAIT_S apart: some kernel
# interfaces refuse a write while they are busy, e.g. DAMON's sysfs files (a kernel interface, not
# a tiering system here) take damon_sysfs_lock with mutex_trylock and return -EBUSY while a running kdamond's
# callback holds it (mm/damon/sysfs.c state_store, nr_*_store).
BUSY_TRIES, BUSY_WAIT_S = 20, 0.05


def write_file(path: str | Path, value: str) -> None:
    """``value`` written to a sysfs/procfs file, a busy refusal tried again (see BUSY_TRIES)."""
    for n in range(BUSY_TRIES + 1):
        try:
            with open(path, "w") as f:
                f.write(str(value))
            return
        except OSError as e:
            if e.errno != errno.EBUSY or n == BUSY_TRIES:
                raise
            time.sleep(BUSY_WAIT_S)


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
        _swap("swapon" if value == "on" else "swapoff", where)
    elif value != "absent":  # a resource is made by its Settings method, never by a restore
        raise OSError(22, f"{path}: cannot restore to {value!r}")
    elif kind == MOUNT:
        _unmount(where)
    elif kind == SWAPFILE:
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

    def __enter__(self) -> Settings:
        return self

    def __exit__(self, exc_type, *_) -> None:
        with stop_signals_deferred(raise_after=exc_type is None):
            errors = self.restore()
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
        areas = active_swaps()
        for area in areas:
            key = SWAP + area
            if key not in self.saved:
                self.saved[key] = "on"
                self._sync_journal()
            try:
                _write(key, "off")
            except OSError as e:
                raise ConfigError(f"setting swap off: {e.strerror}") from None
        return areas

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
                parent = os.path.dirname(target)
                if not os.path.isdir(parent):
                    self._save(DIR + parent, "absent")
                    os.makedirs(parent)
                self._save(SWAPFILE + target, "absent")
                memcg.make_swapfile(Path(target), int(size_mib) << 20)
            self._save(SWAP + target, read_value(SWAP + target))
            _write(SWAP + target, "on")
        except (OSError, RuntimeError) as e:
            raise ConfigError(f"swap area {target}: {e}") from None

    def cgroup(self, name: str) -> Path:
        """A memory cgroup ``<controller>/tierbench/<name>`` made for the point (journaled first),
        removed on restore; its path."""
        from . import memcg  # noqa: PLC0415

        cg = memcg.Cgroup(memcg.detect(), name)
        self._save(CGROUP + str(cg.path), "absent")
        try:
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
        errors = []
        for path, value in reversed(list(self.saved.items())):
            try:
                if read_value(path) != value:
                    _write(path, value)
            except OSError as e:
                errors.append(f"{path}: {e.strerror}")
        if not errors:
            self.saved.clear()
            self._sync_journal()
        return errors

    def _sync_journal(self) -> None:
        if self.journal is None:
            return
        if self.saved:
            tmp = self.journal.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.saved, indent=1))
            os.replace(tmp, self.journal)
        elif self.journal.exists():
            self.journal.unlink()


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
