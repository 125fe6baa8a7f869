"""A program under a memory limit with swap behind it: a memory cgroup per point under a
``tierbench`` parent, and a swap area for the point, both journaled so that a killed run is
repaired by the next one.

- :func:`detect`: which memory controller this host has (cgroup v2: ``memory.max``,
  ``memory.swap.max``, ``memory.stat``, ``memory.peak``, PSI; cgroup v1: ``memory.limit_in_bytes``,
  ``memory.memsw.*``), or why there is none;
- :class:`Cgroup`: create, limit, enter (a shell shim writes the child's pid into ``cgroup.procs``
  before it execs the program), read (normalised counters), remove (any process still in it is
  ours: it is ended by pid, then the directory removed);
- swap: a swapfile made (``fallocate`` + ``mkswap``) and enabled, or a device a config names
  (checked: it exists, is a block device, is not mounted and is not already a swap area).

A point's cgroup and swap area are resources of its scenario (``scenario(..., swap=...,
cgroup=...)``): made before its roles start, journaled in the host's one settings journal before
each is made, and undone with its settings (workflows/harness/settings.py: ``Settings.cgroup``,
``Settings.swap_on``; a killed run is repaired by the next measured point).

``python -m workflows.harness.memcg run ... -- PROGRAM ARGS`` is the workload role of a point
that runs a program with its memory limited to its footprint F over a ratio R: it sets
everything up, runs the program inside the cgroup (and, optionally, a server inside and a driver
outside), samples the cgroup into a time series, writes a summary and
cleans up on success, failure and SIGINT/SIGTERM.

What upstream Linux can and cannot limit per tier: a memory cgroup limits a group's total
resident memory (``memory.max`` / ``memory.limit_in_bytes``) and its swap (``memory.swap.max``
on v2; ``memory.memsw.limit_in_bytes`` = memory + swap on v1), not its memory *per NUMA node*.
The seed modified cgroups for per-tier limits; with upstream Linux the tier of DRAM is chosen by
binding (``numactl --membind``, or cpuset.mems) and its amount by the memory limit, so "DRAM of the
pool = far node, limited to F/R; SSD = swap, unlimited" is expressible, but "local DRAM X plus far
DRAM Y" as two separate limits is not.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from . import ConfigError

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT = "tierbench"
# what the runner writes beside its time series (--series)
FILES = {"summary": "memcg.json", "stdout": "workload.out", "stderr": "workload.err", "server_log": "server.log",
         "prepare_log": "prepare.log"}
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MIN_LIMIT_BYTES = 16 << 20  # below this a limit mostly starves the program's own code and stacks
SHIM = 'echo $$ > "$0" && exec "$@"'  # sh -c SHIM PROCS_FILE PROGRAM ARGS: enter the cgroup, then exec


# ---- detection ------------------------------------------------------------------------------

def detect(root: Path = CGROUP_ROOT) -> dict:
    """``{"version": "v2"|"v1", "base": path}`` of the memory controller, or ``{"version": None,
    "reason": ...}``."""
    ctrl = root / "cgroup.controllers"
    if ctrl.exists():
        if "memory" in ctrl.read_text().split():
            return {"version": "v2", "base": str(root)}
        return {"version": None, "reason": f"cgroup v2 at {root} has no memory controller ({ctrl})"}
    v1 = root / "memory"
    if (v1 / "memory.limit_in_bytes").exists():
        return {"version": "v1", "base": str(v1), "memsw": (v1 / "memory.memsw.limit_in_bytes").exists()}
    return {"version": None, "reason": f"no memory cgroup controller mounted (neither {ctrl} nor {v1}/memory.limit_in_bytes)"}


def _read(path: Path) -> str:
    return path.read_text().strip()


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


# ---- the cgroup -----------------------------------------------------------------------------

class Cgroup:
    """A memory cgroup ``<base>/tierbench/<name>``."""

    def __init__(self, info: dict, name: str):
        if not info.get("version"):
            raise ConfigError(f"memory cgroup controller unavailable: {info.get('reason')}")
        self.version = info["version"]
        self.parent = Path(info["base"]) / PARENT
        self.path = self.parent / name

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def root_control(self) -> Path | None:
        """v2: the root's ``cgroup.subtree_control`` when it does not give the root's children the
        memory controller yet (a host without systemd), else None. v2 gives a controller to a
        cgroup's children by writing "+memory" to its cgroup.subtree_control, level by level from
        the root (Documentation/admin-guide/cgroup-v2.rst, "Enabling and Disabling"); v1's memory
        hierarchy needs nothing of that. The root's is a change to the host: Settings.cgroup
        journals it and makes it before :meth:`create`."""
        if self.version != "v2":
            return None
        ctl = self.parent.parent / "cgroup.subtree_control"
        return None if "memory" in _read(ctl).split() else ctl

    def create(self) -> None:
        """Make the cgroup (v2: the root must give its children the memory controller already,
        see :meth:`root_control`, or the ``tierbench`` parent's "+memory" fails; the parent gives it
        to the cgroup)."""
        if self.path.exists():  # a leftover of a killed run that the journal did not know
            self.remove()
        self.parent.mkdir(exist_ok=True)
        if self.version == "v2" and "memory" not in _read(self.parent / "cgroup.subtree_control").split():
            _write(self.parent / "cgroup.subtree_control", "+memory")
        self.path.mkdir()

    def limit(self, limit_bytes: int | None) -> None:
        """Memory limited to ``limit_bytes`` (None: unlimited); swap unlimited."""
        if self.version == "v2":
            _write(self.path / "memory.max", "max" if limit_bytes is None else str(limit_bytes))
            if (self.path / "memory.swap.max").exists():
                _write(self.path / "memory.swap.max", "max")
            return
        # v1: memory.memsw.limit_in_bytes limits memory + swap (Documentation/admin-guide/cgroup-v1/
        # memory.rst) and may never be below memory.limit_in_bytes (mem_cgroup_resize_max(): "invariant
        # rule memory.max <= memsw.max",
        # mm/memcontrol-v1.c, mm/memcontrol.c before 6.11: -EINVAL otherwise), so it is lifted first;
        # -1 is "unlimited"
        if (self.path / "memory.memsw.limit_in_bytes").exists():
            _write(self.path / "memory.memsw.limit_in_bytes", "-1")  # memory + swap: unlimited (first)
        _write(self.path / "memory.limit_in_bytes", "-1" if limit_bytes is None else str(limit_bytes))

    def limit_bytes(self) -> int | None:
        f = "memory.max" if self.version == "v2" else "memory.limit_in_bytes"
        v = _read(self.path / f)
        return None if v == "max" or int(v) >= 1 << 62 else int(v)

    def wrap(self) -> list[str]:
        """The prefix that starts a program inside this cgroup."""
        return ["sh", "-c", SHIM, str(self.procs)]

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in _read(self.procs).split()]
        except FileNotFoundError:
            return []

    def stat(self) -> dict[str, int]:
        raw = {}
        for line in (self.path / "memory.stat").read_text().splitlines():
            k, _, v = line.partition(" ")
            raw[k] = int(v)
        return raw

    def sample(self) -> dict:
        """Normalised counters (bytes and event counts) of both versions."""
        s = self.stat()
        out = {"pgfault": s.get("pgfault", 0), "pgmajfault": s.get("pgmajfault", 0),
               "shmem": s.get("shmem", 0), "refault_anon": s.get("workingset_refault_anon", 0)}
        if self.version == "v2":
            out["anon"] = s.get("anon", 0)
            out["file"] = s.get("file", 0)
            out["usage"] = int(_read(self.path / "memory.current"))
            sw = self.path / "memory.swap.current"
            out["swap"] = int(_read(sw)) if sw.exists() else 0
            # swap-ins: pswpin where the kernel counts it per cgroup, else anon refaults
            out["swapin"] = s["pswpin"] if "pswpin" in s else out["refault_anon"]
            out["swapout"] = s.get("pswpout", -1)
        else:  # v1's memory.stat keys: mm/memcontrol.c (memcontrol-v1.c from 6.11) memcg1_stat_names and
            # memcg1_events (cache, rss, shmem, swap; pgfault, pgmajfault); workingset_refault_anon is
            # v1's from 6.1 ("mm: memcg: export workingset refault stats for cgroup v1")
            out["anon"] = s.get("rss", 0)  # rss: NR_ANON_MAPPED (memcg1_stats), huge pages included
            out["file"] = s.get("cache", 0) - s.get("shmem", 0)
            out["usage"] = int(_read(self.path / "memory.usage_in_bytes"))
            out["swap"] = s.get("swap", 0)
            out["swapin"] = out["refault_anon"]  # v1 has no per-cgroup pswpin: anon refaults stand in
            out["swapout"] = -1
        return out

    def peaks(self) -> dict:
        """Peak memory (and memory + swap, or swap) as the kernel keeps it, where it does."""
        out = {}
        if self.version == "v2":
            for k, f in (("peak_usage", "memory.peak"), ("peak_swap", "memory.swap.peak")):
                if (self.path / f).exists():
                    out[k] = int(_read(self.path / f))
        else:
            out["peak_usage"] = int(_read(self.path / "memory.max_usage_in_bytes"))
            if (self.path / "memory.memsw.max_usage_in_bytes").exists():
                out["peak_memsw"] = int(_read(self.path / "memory.memsw.max_usage_in_bytes"))
        return out

    def oom_kills(self) -> int | None:
        """Processes of the cgroup the OOM killer ended: v2 memory.events ``oom_kill``
        (Documentation/admin-guide/cgroup-v2.rst: "The number of processes belonging to this cgroup
        killed by any kind of OOM killer"), v1 memory.oom_control ``oom_kill``
        (mm/memcontrol.c, memcontrol-v1.c from 6.11: mem_cgroup_oom_control_read(), "oom_kill %lu", the memcg's
        MEMCG_OOM_KILL events); None where the file has no such line."""
        f = self.path / ("memory.events" if self.version == "v2" else "memory.oom_control")
        try:
            for line in f.read_text().splitlines():
                k, _, v = line.partition(" ")
                if k == "oom_kill":
                    return int(v)
        except OSError:
            pass
        return None

    def psi(self) -> dict:
        """memory.pressure totals (microseconds stalled: some, full), v2 only."""
        f = self.path / "memory.pressure"
        out = {}
        if self.version == "v2" and f.exists():
            try:
                text = f.read_text()
            except OSError:  # PSI compiled in but disabled (psi=0)
                return {}
            for line in text.splitlines():
                kind, *fields = line.split()
                kv = dict(x.split("=") for x in fields)
                out[f"psi_{kind}_total_us"] = int(kv["total"])
        return out

    def kill_all(self, timeout: float = 10.0) -> list[int]:
        """SIGKILL every process still in the cgroup (each is ours: we made the cgroup), by pid."""
        killed = []
        end = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                return killed
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                    killed.append(p)
                except ProcessLookupError:
                    pass
            if time.monotonic() > end:
                raise RuntimeError(f"processes {pids} in {self.path} did not end")
            time.sleep(0.05)

    def remove(self) -> None:
        remove_cgroup(self.path)


def remove_cgroup(path: Path) -> None:
    """End what is left in a cgroup of ours, remove it, and its ``tierbench`` parent once empty."""
    path = Path(path)
    if path.exists():
        cg = Cgroup.__new__(Cgroup)
        cg.path, cg.parent, cg.version = path, path.parent, "v2"
        cg.kill_all()
        # rmdir of a cgroup fails with EBUSY while it has tasks (Documentation/admin-guide/cgroup-v2.rst,
        # "Creating and removing"; v1 alike), which a task just killed still is until it has exited
        for _ in range(100):  # a cgroup whose last task just died can be busy for a moment
            try:
                path.rmdir()
                break
            except OSError:
                time.sleep(0.05)
        else:
            path.rmdir()
    parent = path.parent
    if parent.name == PARENT and parent.exists() and not any(p.is_dir() for p in parent.iterdir()):
        try:
            parent.rmdir()
        except OSError:
            pass


def our_cgroups(root: Path = CGROUP_ROOT) -> list[str]:
    """Every cgroup of ours on this host (the parent and its children), for checks and tests."""
    info = detect(root)
    if not info.get("version"):
        return []
    parent = Path(info["base"]) / PARENT
    return [str(parent)] + sorted(str(p) for p in parent.iterdir() if p.is_dir()) if parent.exists() else []


# ---- swap -----------------------------------------------------------------------------------

def active_swaps() -> list[str]:
    try:
        lines = Path("/proc/swaps").read_text().splitlines()[1:]
    except OSError:
        return []
    return [ln.split()[0].replace("\\040", " ") for ln in lines if ln.strip()]


def _mounted_devices() -> set[str]:
    try:
        return {ln.split()[0] for ln in Path("/proc/mounts").read_text().splitlines()}
    except OSError:
        return set()


def check_device(device: str, what: str) -> None:
    """A swap device a config names: it exists, is a block device, is neither mounted nor in use as swap."""
    p = Path(device)
    if not p.exists():
        raise ConfigError(f"{what}: swap device {device} does not exist")
    if not stat.S_ISBLK(p.stat().st_mode):
        raise ConfigError(f"{what}: {device} is not a block device")
    real = os.path.realpath(device)
    if real in {os.path.realpath(s) for s in active_swaps()}:
        raise ConfigError(f"{what}: {device} is already an active swap area (in use)")
    if real in {os.path.realpath(m) for m in _mounted_devices() if m.startswith("/")}:
        raise ConfigError(f"{what}: {device} is mounted (in use)")


def mount_table(mountinfo: str = "/proc/self/mountinfo") -> list[tuple[str, str | None, str]]:
    """(mount point, filesystem type, super options) of every mount of this mount namespace, from
    mountinfo (Documentation/filesystems/proc.rst, "/proc/<pid>/mountinfo": field 5 the mount point,
    with spaces, tabs, newlines and backslashes as octal escapes such as \\040; after the " - "
    separator the type, the source and the super options; None and "" on a line without them); []
    where it cannot be read."""
    try:
        lines = Path(mountinfo).read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        pre, sep, post = line.partition(" - ")
        f, g = pre.split(" "), post.split() if sep else []
        if len(f) > 4:
            out.append((re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), f[4]),
                        g[0] if g else None, g[2] if len(g) > 2 else ""))
    return out


def mount_of(path: Path | str, mountinfo: str = "/proc/self/mountinfo") -> tuple[str, str | None, str] | None:
    """The mount holding ``path`` (:func:`mount_table`'s row): the longest mount point that is a
    prefix of its real path."""
    real = os.path.realpath(path)
    best = None
    for row in mount_table(mountinfo):
        mp = row[0]
        if row[1] and (real == mp or real.startswith(mp.rstrip("/") + "/")) and (best is None or len(mp) >= len(best[0])):
            best = row
    return best


def fs_type(path: Path, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The filesystem type of the mount holding ``path`` (:func:`mount_of`)."""
    m = mount_of(path, mountinfo)
    return m[1] if m else None


# Filesystems a swapfile cannot be on: swapon(2) needs the file's blocks on a block device, through
# the filesystem's swap_activate or bmap (mm/swapfile.c setup_swap_extents(): a_ops->swap_activate,
# else generic_swapfile_activate(), which maps each page with bmap()); tmpfs and ramfs have neither
# (memory itself), overlayfs passes no swap_activate through, and network and FUSE filesystems have
# no local blocks to map. btrfs can (fs/btrfs/inode.c btrfs_swap_activate()) but only for a file that
# is not copy-on-write ("swapfile must not be copy-on-write"): make_swapfile() marks it so.
NO_SWAPFILE_FS = {"tmpfs", "ramfs", "overlay", "nfs", "nfs4", "cifs", "smb3", "9p", "virtiofs", "squashfs", "fuse",
                  "fuseblk", "ceph", "glusterfs", "zfs"}


def check_swapfile_room(directory: str, size_mib: int, what: str) -> None:
    d = Path(directory)
    while not d.exists():
        d = d.parent
    kind = fs_type(d)
    if kind in NO_SWAPFILE_FS or (kind or "").startswith("fuse."):
        raise ConfigError(f"{what}: {directory} is on {kind}, which cannot hold a swapfile (swapon needs the file's "
                          "blocks on a local block device): name a directory on ext4, XFS or btrfs "
                          "(overcommit/swap/directory) or a swap device (overcommit/swap/device)")
    free = shutil.disk_usage(d).free / 2**20
    if free < size_mib + 256:
        raise ConfigError(f"{what}: a {size_mib} MiB swapfile in {directory} needs {size_mib + 256} MiB free "
                          f"(with 256 MiB to spare); {free:.0f} MiB are free")


def _run(argv: list[str]) -> None:
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed (status {r.returncode}): {(r.stderr or r.stdout).strip()}")


# include/uapi/linux/fs.h: FS_IOC_GETFLAGS _IOR('f', 1, long), FS_IOC_SETFLAGS _IOW('f', 2, long)
# (x86-64 and the other 64-bit ABIs), FS_NOCOW_FL 0x00800000 ("Do not cow file"); chattr(1) +C
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_NOCOW_FL = 0x80086601, 0x40086602, 0x00800000


def _no_cow(fd: int, path: Path) -> None:
    """btrfs: the empty file made not copy-on-write, which a btrfs swapfile must be (fs/btrfs/inode.c
    btrfs_swap_activate(); the flag only takes on a file with no data yet, as chattr(1) says of +C)."""
    import array  # noqa: PLC0415
    import fcntl  # noqa: PLC0415

    flags = array.array("l", [0])
    try:
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        flags[0] |= FS_NOCOW_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags, True)
    except OSError as e:
        raise RuntimeError(f"{path}: cannot make it not copy-on-write for a btrfs swapfile (chattr +C): {e.strerror}") \
            from None


def make_swapfile(path: Path, size_bytes: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_EXCL: never a file of someone else's made over (Settings.swap_on refuses one before its journal)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        if fs_type(path) == "btrfs":
            _no_cow(fd, path)
        try:
            os.posix_fallocate(fd, 0, size_bytes)
        except OSError:  # a filesystem without fallocate: write zeros
            chunk = b"\0" * (1 << 20)
            for _ in range(size_bytes // len(chunk)):
                os.write(fd, chunk)
    finally:
        os.close(fd)
    _run(["mkswap", str(path)])




# ---- the runner: python -m workflows.harness.memcg run ... -- PROGRAM ARGS ----------------------

def footprint_of(result_csv: Path) -> int:
    """F (bytes) from the R = 1 point's result.csv: its ``footprint`` row."""
    with open(result_csv, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] == "footprint" and not r.get("t_s"):
                return int(float(r["value"]) * 2**20)
    raise RuntimeError(f"{result_csv} has no footprint row")


def _vmstat() -> dict[str, int]:
    out = {}
    for ln in Path("/proc/vmstat").read_text().splitlines():
        k, _, v = ln.partition(" ")
        if k in ("pswpin", "pswpout", "pgmajfault"):
            out[k] = int(v)
    return out


def run(args: argparse.Namespace) -> int:
    from .procs import Interrupted, Supervisor  # noqa: PLC0415

    # what an earlier attempt of this point left beside its series (an interrupted one writes no
    # summary, and a stale one would then be read beside the new, partial series)
    for f in FILES:
        Path(getattr(args, f)).unlink(missing_ok=True)
    info = detect()
    if not info.get("version"):
        print(f"tierbench: error: memory cgroup controller unavailable: {info['reason']}", file=sys.stderr)
        return 2
    summary: dict = {"ratio": args.ratio, "cgroup": info["version"]}
    limit = None
    if args.ratio > 1:
        if not args.footprint_from:
            print("tierbench: error: a ratio above 1 needs --footprint-from", file=sys.stderr)
            return 2
        try:
            fp = footprint_of(Path(args.footprint_from))
        except (OSError, ValueError, RuntimeError) as e:
            print(f"tierbench: error: F (the footprint) from the R = 1 point: {e}", file=sys.stderr)
            return 2
        limit = int(fp / args.ratio) // PAGE * PAGE
        summary["footprint_bytes"] = fp
        if limit < MIN_LIMIT_BYTES:
            print(f"tierbench: error: footprint {fp / 2**20:.1f} MiB / R {args.ratio:g} = {limit / 2**20:.1f} MiB is too "
                  f"small to limit (at least {MIN_LIMIT_BYTES >> 20} MiB): use a larger input", file=sys.stderr)
            return 2
        need = fp - limit
        if args.swap_mib and need > args.swap_mib * 2**20 * 0.9:
            print(f"tierbench: error: the swap area ({args.swap_mib} MiB) is too small for {need / 2**20:.0f} MiB "
                  f"swapped out at R = {args.ratio:g}: give the point a larger swap area", file=sys.stderr)
            return 2
    summary["limit_bytes"] = limit
    if args.swap:
        summary["swap"] = args.swap
    cg = Cgroup(info, args.name)
    if not cg.path.is_dir():
        print(f"tierbench: error: memory cgroup {cg.path} does not exist: the point's scenario makes it "
              "(scenario(..., cgroup=NAME))", file=sys.stderr)
        return 2
    series_f = open(args.series, "w", newline="")
    cols = ["t_s", "anon", "shmem", "file", "swap", "usage", "pgfault", "pgmajfault", "swapin"]
    w = csv.writer(series_f)
    w.writerow(cols)
    rc = 1
    try:
        # a short grace: all of this must be undone within the point runner's own grace period
        with Supervisor(grace_s=1.0) as sup:
            server = None
            try:
                if args.prepare_json:  # before the limit: loading is not measured
                    prep = sup.spawn("prepare", _python(json.loads(args.prepare_json)), stdout=Path(args.prepare_log))
                    if sup.wait(prep, timeout=args.prepare_timeout_s) != 0:
                        raise RuntimeError("the preparation failed; see the log")
                cg.limit(limit)
                vm0 = _vmstat()
                if args.server:
                    server = sup.spawn("server", cg.wrap() + json.loads(args.server), stdout=Path(args.server_log),
                                       stderr=Path(args.server_log))
                    if args.server_ready:
                        ready = json.loads(args.server_ready)
                        end = time.monotonic() + 120
                        while subprocess.run(ready, capture_output=True).returncode != 0:
                            if not server.alive() or time.monotonic() > end:
                                raise RuntimeError("the server did not become ready; see its log")
                            time.sleep(0.2)
                # the measured program: in the cgroup, or (a driver of the server) outside it
                argv = _python(json.loads(args.argv_json))
                prog = argv if args.server else cg.wrap() + argv
                t0 = time.monotonic()
                child = sup.spawn("workload", prog, stdout=Path(args.stdout), stderr=Path(args.stderr))
                peak_as = 0
                last = None
                while True:
                    done = child.reap(args.interval_ms / 1000.0)
                    s = cg.sample()
                    peak_as = max(peak_as, s["anon"] + s["shmem"])
                    w.writerow([round(time.monotonic() - t0, 3)] + [s[c] for c in cols[1:]])
                    series_f.flush()
                    last = s
                    if done is not None:
                        break
                rc = child.popen.returncode
                sup.stop(child)
                wall = time.monotonic() - t0
                server_usage: dict = {}
                if server is not None:  # the server's own shutdown (e.g. pg_ctl stop) first
                    if args.server_stop:
                        subprocess.run(json.loads(args.server_stop), capture_output=True, timeout=60)
                    server.reap(30)  # wait4: its CPU time, its reaped children's (backends) included
                    server_usage = server.usage or {}
                    sup.stop(server)
                    last = cg.sample()
                    peak_as = max(peak_as, last["anon"] + last["shmem"])
                vm1 = _vmstat()
                usage = child.usage or {}
                if server is not None:  # the CPU time of what runs in the cgroup; the driver's apart
                    usage, summary["driver_user_s"], summary["driver_system_s"] = (
                        server_usage, usage.get("user_s"), usage.get("system_s"))
                summary.update({
                    "exit": rc, "wall_s": round(wall, 3), "peak_anon_shmem": peak_as, **cg.peaks(), **cg.psi(),
                    "pgfault": last["pgfault"], "pgmajfault": last["pgmajfault"], "swapin": last["swapin"],
                    "swapin_source": "pswpin" if last["swapout"] >= 0 else "workingset_refault_anon",
                    "swapout": last["swapout"], "refault_anon": last["refault_anon"],
                    "host_pswpin": vm1["pswpin"] - vm0["pswpin"], "host_pswpout": vm1["pswpout"] - vm0["pswpout"],
                    "user_s": usage.get("user_s"), "system_s": usage.get("system_s"),
                    "limit_kernel": cg.limit_bytes(), "oom_kills": cg.oom_kills(), "swap_peak": None})
                swap_col = [row for row in _series_swap(Path(args.series))]
                summary["swap_peak"] = max(swap_col) if swap_col else 0
            finally:  # on any way out: a server ends with its own fast-shutdown signal first
                if server is not None and server.alive():
                    sup.stop(server, sig=getattr(signal, f"SIG{args.server_signal}"))
    except Interrupted as e:
        print(f"tierbench: {e}; the workload was stopped (its cgroup and swap area go with the point's settings)",
              file=sys.stderr)
        rc = 128 + e.signum
    except (OSError, RuntimeError, ConfigError) as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        rc = 1
    finally:
        series_f.close()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # release whatever arrives now
            signal.signal(sig, signal.SIG_IGN)
        errors = []
        try:
            cg.kill_all()  # what the program left in its cgroup, before its cleanup runs
        except RuntimeError as e:
            errors.append(str(e))
        if args.cleanup_json:
            r = subprocess.run(_python(json.loads(args.cleanup_json)), capture_output=True, text=True)
            if r.returncode != 0:
                errors.append(f"cleanup: {r.stderr.strip()}")
        if errors:
            print(f"tierbench: error: could not clean up: {errors}", file=sys.stderr)
            rc = rc or 1
    if rc == 0:
        tmp = Path(args.summary + ".tmp")
        tmp.write_text(json.dumps(summary, indent=1) + "\n")
        os.replace(tmp, args.summary)
    return rc


def _python(argv: list[str]) -> list[str]:
    """A Python program of ours ("python -m ..."): run by the interpreter running this."""
    return [sys.executable, *argv[1:]] if argv and argv[0] == "python" else argv


def _series_swap(path: Path) -> list[int]:
    with open(path, newline="") as f:
        return [int(r["swap"]) for r in csv.DictReader(f)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="run a program in a memory cgroup limited to F/R, with swap behind")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--name", required=True, help="the cgroup, made by the point's scenario: <controller>/tierbench/NAME")
    r.add_argument("--ratio", type=float, required=True, help="ratio R = memory demand / memory given (1: unlimited)")
    r.add_argument("--footprint-from", help="the R = 1 point's result.csv (its footprint row is F)")
    r.add_argument("--swap", help="the point's swap area (its scenario's), for the summary")
    r.add_argument("--swap-mib", type=int, default=0, help="its size, to refuse an R it cannot hold (0: not checked)")
    r.add_argument("--interval-ms", type=int, default=200)
    r.add_argument("--prepare-timeout-s", type=float, default=1800)
    r.add_argument("--series", required=True, help="the time series (CSV); the other files go beside it")
    r.add_argument("--argv-json", required=True, help="the program's argv, as a JSON list")
    r.add_argument("--prepare-json", help="JSON argv run to completion first, outside the cgroup (e.g. load a database)")
    r.add_argument("--cleanup-json", help="JSON argv run last, after the cgroup is gone (e.g. remove the database)")
    r.add_argument("--server", help="JSON argv of a server started inside the cgroup (the program then runs outside)")
    r.add_argument("--server-ready", help="JSON argv that exits 0 once the server is ready")
    r.add_argument("--server-stop", help="JSON argv that stops the server cleanly")
    r.add_argument("--server-signal", default="TERM", help="the signal that stops the server fast (PostgreSQL: INT)")
    args = ap.parse_args(argv)
    d = Path(args.series).parent
    for k, f in FILES.items():
        setattr(args, k, str(d / f))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
