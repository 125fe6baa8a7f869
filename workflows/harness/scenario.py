"""The scenario executor: how one measured point runs, on this host or inside a guest host.

A scenario is plain data (it travels in the point's row) made of roles, each a program with its
protocol, as its workload module declares it (``workloads/<name>/workload.py``):

- ``tier_setup``: a host profile's tier setup (``{"setup", "undo", "timeout_s", "nodes": [default,
  alternate]}``), first of all: its undo journaled, its setup run (a shell command, its own process
  group, output to the point's log), then the kernel's memory tiers read again; unless the default
  node is now in a strictly higher tier than the alternate, the point fails with what was found.
  Undone with the settings, whatever ended the point (this host only: a guest host has none);
- ``settings``: sysctl/sysfs values set for the point and restored after it (journaled);
- ``background``: programs that run for the whole point, e.g. the memory antagonist, started
  before the workload (and waited for until ready, then ``warmup_s``), or ``start_after_s``
  seconds after the workload is ready (a contention change);
- ``workload``: the program measured; the point fails unless it exits 0;
- ``attach``: programs started on the workload's pid once it has written its pid file (tierd);
  stopped when the workload ends, and they must exit 0;
- ``probe``: programs run one after another once the workload has ended, with the background
  still running (e.g. memchar's loaded latency of the default tier);
- ``scratch``: a directory made before the point, and files in it removed after it;
- ``swap_off``: every swap area off for the point (journaled and restored like a setting;
  a guest has none, and its point fails if it has one);
- ``swap``: a swap area on for the point (``{"target": path, "size_mib": N}``: a swapfile made and
  removed after it; ``size_mib`` null: a device, switched off after it), journaled like a setting;
- ``cgroup``: a memory cgroup ``<controller>/tierbench/<name>`` made for the point (cgroup v1 or
  v2, unlimited: the program in it sets its own limit, workflows/harness/memcg.py), journaled like
  a setting and removed after the point, whatever still runs in it ended by pid; a role whose
  ``cgroup`` names it is started inside it (a shell shim writes its pid into ``cgroup.procs``,
  then execs it: memcg.SHIM), so the memory it touches is charged there (e.g. a filler
  that a kernel mechanism's memcg filter then leaves out);
- ``dirs``: directories a role makes for the point (``{"path", "pid_file", "signal"}``: the TPC-C-like
  workload's PostgreSQL data and socket directories), journaled before any role starts (each must
  not be there yet) and removed with their contents however the point ends, a server whose pid
  file (``pid_file``, in the directory) names a process working there ended by pid first
  (``signal``, then SIGKILL: settings.Settings.dir_guard); a guest host has no such guard;
- ``vmstat``: /proc/vmstat saved just before the workload starts and just after it ends
  (``vmstat_before.txt`` / ``vmstat_after.txt``), each with every node's meminfo beside it
  (``.nodes``: what earlier points or other processes left on each tier, e.g. page cache that
  reclaim demoted and nothing promoted back); the kernel's page moves (pgpromote_*,
  pgdemote_*, pgmigrate_*) over the point become rows, and with ``expect``
  ("promote"/"demote"/"migrate") a point that moved nothing fails (workflows/harness/memtiers.py);
- ``mechanism``: a kernel tiering mechanism that a tiering system sets up for the point (plain
  data the system's own module makes, docs/extending.md), with ``module`` naming the module
  whose hooks both executors call; this module knows none by name. Set up once the background
  is ready, just before the workload (``host_start(spec, settings)`` here, journaled through the
  settings so that restoring them removes it, ConfigError failing the point; ``sh_start(spec)``:
  lib.sh commands in a guest); its state read after the workload ends into ``STATS_FILE``
  (``host_stats(spec)`` / ``sh_stats(spec, shell word of the file)``), and its rows from the
  point's files (``rows(spec, outdir)``, raising PointFailed for a point that must fail);
  ``feeder(spec, path)``: None, or a lib.sh function run while the workload runs (its own process
  group, stopped by pid) as (function, arguments, environment on this host);
- counter collectors (this host only, workflows/harness/counters.py) around all of it.

:func:`ops` turns a scenario into ONE ordered list of operations. :class:`HostRun` executes the
list here (every child in its own process group under a Supervisor, ended by pid on success,
failure and interrupt; settings restored; the host's measurement lock held), and
:func:`render_sh` writes the same list as busybox sh for a guest host (hosts/qemu/, no Python
there) using hosts/qemu/guest/lib.sh's functions. A failed operation fails the point; the
operations after it are skipped, and cleanup (stop what runs, restore settings, remove scratch
files) always runs. Each role's output is then parsed by the parser its role names, on this host,
in both cases (:func:`parse_rows`).
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from . import ConfigError, memtiers
from .procs import Child, Supervisor, stat_fields
from .settings import KNOWN, Settings

KINDS = ("background", "workload", "attach", "probe")
FEEDER = "mechanism_feeder"  # a kernel mechanism's feeder's name among a point's children
# lib.sh: the guest's shell helpers; on this host a kernel mechanism's feeder runs from it too
HOST_LIB = Path(__file__).resolve().parents[2] / "hosts" / "qemu" / "guest" / "lib.sh"
READY_TIMEOUT_S = 120
PID_TIMEOUT_S = 300
WORKLOAD_READY_TIMEOUT_S = 600
PROBE_TIMEOUT_S = 600
# A workload's run during which the hypervisor ran something else on one of this machine's CPUs
# for more than this share of the time is said in the point's log (cpu_steal in meta.json).
STEAL_WARN = 0.05


def cpu_times(path: Path = Path("/proc/stat")) -> dict[int, tuple[int, int]]:
    """Each CPU's (total, steal) time in clock ticks since boot, from /proc/stat's ``cpuN`` lines.
    proc(5): the fields are user, nice, system, idle, iowait, irq, softirq, steal ("stolen time,
    which is the time spent in other operating systems when running in a virtualized
    environment", since Linux 2.6.11), guest, guest_nice; guest time is already counted in user
    and nice (kernel/sched/cputime.c, account_guest_time()), so the total is the first eight.
    {} where the file is missing or has no steal column."""
    out: dict[int, tuple[int, int]] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return out
    for ln in lines:
        f = ln.split()
        if len(f) >= 9 and f[0].startswith("cpu") and f[0][3:].isdigit():
            v = [int(x) for x in f[1:9]]
            out[int(f[0][3:])] = (sum(v), v[7])
    return out


def steal_shares(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]) -> dict[int, float]:
    """Per CPU, the share of the time between two :func:`cpu_times` the hypervisor stole."""
    return {c: round((after[c][1] - before[c][1]) / (after[c][0] - before[c][0]), 4)
            for c in sorted(before) if c in after and after[c][0] > before[c][0]}


def group_cpu(pgid: int, proc: Path = Path("/proc")) -> tuple[float, float] | None:
    """User and system CPU seconds used so far by process group ``pgid``: every member's utime and
    stime (all its threads) and cutime and cstime (its children it has waited for), fields 14-17 of
    /proc/<pid>/stat in clock ticks (proc(5): ``pgrp`` is field 5; the fields after the command
    name, which may hold spaces, are read from its last ')'). None when no member is left."""
    tick = os.sysconf("SC_CLK_TCK")
    user = system = 0
    found = False
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        f = stat_fields(d / "stat")  # f[0] is field 3 (state)
        if f is None or int(f[2]) != pgid:  # (None: it exited meanwhile)
            continue
        found = True
        user += int(f[11]) + int(f[13])
        system += int(f[12]) + int(f[14])
    return (round(user / tick, 3), round(system / tick, 3)) if found else None


def role(tool: str, argv: list, *, parse: str, output: str | None = None, output_flag: str = "--output",
         pid_file: str | None = None, ready_file: str | None = None, ready_line: str | None = None,
         stdout: str | None = None, target_pid: str | None = None, name: str | None = None, opts: dict | None = None,
         usage: bool = False, pmus: dict[str, str] | None = None, stop_grace_s: float | None = None,
         changes: list[str] | None = None) -> dict:
    """One program of a scenario and its protocol.

    ``output``: data file it writes, passed as ``output_flag FILE``; ``stdout``: file its standard
    output goes to; ``pid_file`` / ``ready_file``: flags taking a file it writes once its pid is
    final / once it is ready; ``ready_line``: a text its standard output shows once it is ready
    (a program that writes no ready file: an attached daemon waits for it, so that it sees the
    program's memory); ``target_pid``: flag taking the workload's pid (attach roles);
    ``parse``: "module:function" turning its files into long-form rows; ``opts``: what the parser
    needs besides the files; ``usage``: also report its peak RSS, CPU and run time as rows (where
    the executor measures them: wait4(2) on a host; a workload with a ready file or line also gets
    the CPU time it had used when ready in meta.json, :meth:`HostRun.watch_ready`); ``pmus``: PMU kinds the program counts with
    itself (``{"uncore_cha": "what for"}``): the point's counter collector leaves them to it, one
    owner per PMU box. ``stop_grace_s``: on a host, how long a stop waits for the program to end
    after its stop signal before SIGKILL (default: the host executor's 3 s; the guest's script waits
    10 s for every role, hosts/qemu/guest/lib.sh stop_pid), for a program that cleans up after
    itself (a database server stopped and its cluster removed). ``changes``: sysfs/procfs values
    the program itself may change on the host: on a host each is journaled as it is before the
    program starts (those that exist), and put back when the point ends or by the next repair.
    """
    extra = {"pmus": dict(pmus)} if pmus else {}
    if changes:
        extra["changes"] = [str(c) for c in changes]
    if stop_grace_s is not None:
        extra["stop_grace_s"] = stop_grace_s
    return {**extra, "name": name or tool, "tool": tool, "argv": [str(a) for a in argv], "parse": parse,
            "output": [output_flag, output] if output else None, "stdout": stdout,
            "pid_file": pid_file, "ready_file": ready_file, "ready_line": ready_line, "target_pid": target_pid,
            "opts": opts or {}, "usage": usage}


def scenario(workload: dict, *, background: list[dict] | tuple = (), attach: list[dict] | tuple = (),
             probes: list[dict] | tuple = (), settings: dict | None = None, scratch: dict | None = None,
             warmup_s: float = 0, timeout_s: float = 900, start_after_s: dict | None = None,
             swap_off: bool = False, vmstat: dict | None = None, mechanism: dict | None = None, swap: dict | None = None,
             cgroup: str | None = None, tier_setup: dict | None = None, mounts: list[str] | tuple = (),
             dirs: list[dict] | tuple = ()) -> dict:
    """A scenario (see the module docstring). ``start_after_s``: background role name -> seconds
    after the workload is ready to start it (the others start before the workload); ``vmstat``:
    {"expect": "promote" | "demote" | "migrate" | ""} records the kernel's page moves over the point;
    ``mechanism`` (a kernel mechanism's data, with its ``module``), ``swap`` ({"target", "size_mib"})
    and ``cgroup`` (a name): resources made for the point; ``tier_setup`` ({"setup", "undo",
    "timeout_s", "nodes"}): a host profile's tier setup, run first; ``mounts``: directories a role
    mounts a filesystem on, journaled before any role starts so that they are unmounted however the
    point ends (settings.Settings.mount_guard); ``dirs`` ({"path", "pid_file": None, "signal": "TERM"}):
    directories a role makes, journaled before any role starts so that they are removed, and the
    server whose pid file is in one ended, however the point ends (settings.Settings.dir_guard),
    restored in the reverse order."""
    roles = [{**r, "kind": "background"} for r in background] + [{**workload, "kind": "workload"}]
    roles += [{**r, "kind": "attach"} for r in attach] + [{**r, "kind": "probe"} for r in probes]
    names = [r["name"] for r in roles]
    if len(set(names)) != len(names):
        raise ValueError(f"scenario roles need distinct names: {names}")
    late = dict(start_after_s or {})
    for r in roles:
        if r["kind"] == "background" and r["name"] in late:
            r["start_after_s"] = float(late.pop(r["name"]))
    if late:
        raise ValueError(f"start_after_s names no background role: {sorted(late)}")
    for r in roles:
        if r.get("cgroup") and r["cgroup"] != cgroup:
            raise ValueError(f"role {r['name']} runs in cgroup {r['cgroup']!r}, which the scenario does not make")
    sc = {"settings": dict(settings or {}), "scratch": scratch, "warmup_s": warmup_s, "timeout_s": timeout_s,
          "roles": roles}
    if swap_off:
        sc["swap_off"] = True
    if vmstat is not None:
        sc["vmstat"] = {"expect": vmstat.get("expect", "")}
    if mechanism is not None:
        if not mechanism.get("module"):
            raise ValueError("a scenario's mechanism names the module of its hooks ('module')")
        sc["mechanism"] = mechanism
    if swap is not None:
        sc["swap"] = {"target": str(swap["target"]), "size_mib": swap.get("size_mib")}
    if cgroup is not None:
        sc["cgroup"] = str(cgroup)
    if mounts:
        sc["mounts"] = [str(m) for m in mounts]
    if dirs:
        sc["dirs"] = [{"path": str(d["path"]), "pid_file": d.get("pid_file"), "signal": d.get("signal") or "TERM"}
                      for d in dirs]
    if tier_setup is not None:
        sc["tier_setup"] = {"setup": str(tier_setup["setup"]), "undo": str(tier_setup["undo"]),
                            "timeout_s": float(tier_setup["timeout_s"]), "nodes": [int(n) for n in tier_setup["nodes"]]}
    return sc


VMSTAT_BEFORE, VMSTAT_AFTER = "vmstat_before.txt", "vmstat_after.txt"


def roles_of(sc: dict, kind: str) -> list[dict]:
    return [r for r in sc["roles"] if r["kind"] == kind]


def workload_of(sc: dict) -> dict:
    (w,) = roles_of(sc, "workload")
    return w


def mechanism_of(sc: dict):
    """(the hooks' module, its data) of the scenario's kernel mechanism, or None."""
    m = sc.get("mechanism")
    return (importlib.import_module(m["module"]), m) if m else None


def has_feeder(sc: dict) -> bool:
    mech = mechanism_of(sc)
    return bool(mech) and mech[0].feeder(mech[1], str) is not None


def ops(sc: dict) -> list[tuple]:
    """The scenario as one ordered list of operations (what both backends execute)."""
    out: list[tuple] = [("tier_setup",)] if sc.get("tier_setup") else []
    out += [("set", k, str(v)) for k, v in sc["settings"].items()]
    if sc.get("swap_off"):
        out.append(("swapoff",))
    if sc.get("swap"):
        out.append(("swapon", sc["swap"]["target"], int(sc["swap"].get("size_mib") or 0)))
    if sc.get("cgroup"):
        out.append(("cgroup", sc["cgroup"]))
    out += [("mount_guard", m) for m in sc.get("mounts", [])]
    out += [("dir_guard", d["path"], d["pid_file"] or "", d["signal"]) for d in sc.get("dirs", [])]
    if sc.get("scratch"):
        out.append(("mkdir", sc["scratch"]["dir"]))
    bg = roles_of(sc, "background")
    early = [r for r in bg if r.get("start_after_s") is None]
    for r in early:
        out += [("spawn", r["name"]), ("ready", r["name"], READY_TIMEOUT_S)]
    if early and sc["warmup_s"]:
        out.append(("sleep", float(sc["warmup_s"])))
    w = workload_of(sc)
    mech, feed = mechanism_of(sc), has_feeder(sc)
    if mech:
        out.append(("mech_start",))
    if sc.get("vmstat"):
        out.append(("vmstat", VMSTAT_BEFORE))
    out.append(("spawn", w["name"]))
    for a in roles_of(sc, "attach"):
        out += [("pid", w["name"], PID_TIMEOUT_S), ("spawn", a["name"])]
    if feed:
        out.append(("mech_feed",))
    for r in bg:
        if r.get("start_after_s") is not None:  # e.g. a contention change while the workload runs
            out += [("ready", w["name"], WORKLOAD_READY_TIMEOUT_S), ("sleep", r["start_after_s"]), ("alive", w["name"]),
                    ("spawn", r["name"]), ("ready", r["name"], READY_TIMEOUT_S)]
    out.append(("wait", w["name"], float(sc["timeout_s"])))
    if sc.get("vmstat"):
        out.append(("vmstat", VMSTAT_AFTER))
    if mech:
        # the feeder stops first: its commits and the stats' refresh may each take one lock of the
        # mechanism's kernel interface, and a refused refresh leaves stale stats (the module says)
        if feed:
            out.append(("mech_feed_stop",))
        out.append(("mech_stats", mech[0].STATS_FILE))
    for a in roles_of(sc, "attach"):
        out.append(("stop", a["name"], True))  # it ends with the workload; a non-zero exit fails the point
    for p in roles_of(sc, "probe"):
        out.append(("run", p["name"], PROBE_TIMEOUT_S))
    for r in bg:
        out += [("alive", r["name"]), ("stop", r["name"], False)]
    return out


def tools(sc: dict) -> list[str]:
    return sorted({r["tool"] for r in sc["roles"]})


def role_argv(r: dict, data: Callable[[str], str], ctl: Callable[[str], str], pid: str) -> list[str]:
    """A role's command line with its protocol: its wrapper (``wrap``, e.g. numactl binding it to
    CPUs and a node), the role's argv, then its output file, pid and ready files (``data`` /
    ``ctl`` map a file name to where the backend keeps it) and the workload's pid for an attach
    role (``pid``)."""
    argv = list(r.get("wrap") or []) + list(r["argv"])
    if r["output"]:
        argv += [r["output"][0], data(r["output"][1])]
    for flag in ("pid_file", "ready_file"):
        if r[flag]:
            argv += ["--" + flag.replace("_", "-"), ctl(r[flag])]
    if r["target_pid"]:
        argv += [r["target_pid"], pid]
    return argv


class PointFailed(RuntimeError):
    """An operation of the scenario failed (the message says which and why)."""


# ---- this host --------------------------------------------------------------------------------

class LineWatch:
    """Whether a text has shown in a file a running program writes: each look reads only what was
    added since the last (keeping the last len(text) - 1 bytes, for a text split between looks)."""

    def __init__(self, path: Path, text: str):
        self.path, self.text, self.pos, self.tail = path, text.encode(), 0, b""

    def seen(self) -> bool:
        if not self.path.exists():
            return False
        with self.path.open("rb") as f:
            f.seek(self.pos)
            new = f.read()
        self.pos += len(new)
        buf = self.tail + new
        self.tail = buf[max(0, len(buf) - len(self.text) + 1):]
        return self.text in buf


class HostRun:
    """Executes a scenario's operations on this host; ``meta`` records what ran."""

    def __init__(self, sc: dict, outdir: Path, sup: Supervisor, settings: Settings, monitor_cpus: list[int] | None = None):
        """``monitor_cpus``: where attach roles (a tiering daemon) run, off the application's and the
        antagonists' cores (host profile ``cpus/monitor``); anywhere when empty."""
        self.sc, self.outdir, self.sup, self.settings = sc, outdir, sup, settings
        self.monitor_cpus = list(monitor_cpus or [])
        self.roles = {r["name"]: r for r in sc["roles"]}
        self.children: dict[str, Child] = {}
        self.meta: dict = {"argv": {}, "exit": {}}
        self._cpu_times: dict[int, tuple[int, int]] = {}  # /proc/stat when the workload started
        self.made_scratch = False  # the scratch directory did not exist before the point (op_mkdir)

    def path(self, name: str) -> Path:
        return self.outdir / name

    def clear(self) -> None:
        """Remove what a previous attempt left (control and data files of every role)."""
        for r in self.sc["roles"]:
            for f in (r["pid_file"], r["ready_file"], r["stdout"], (r["output"] or [None, None])[1]):
                if f:
                    self.path(f).unlink(missing_ok=True)

    def argv(self, r: dict) -> list[str]:
        path = lambda f: str(self.path(f))  # noqa: E731
        return role_argv(r, path, path, str(self._pid_of(workload_of(self.sc))) if r["target_pid"] else "")

    def _pid_of(self, w: dict) -> int:
        if w["pid_file"]:
            return int(self.path(w["pid_file"]).read_text().strip())
        return self.children[w["name"]].pid

    def _wait_file(self, name: str, f: str | None, timeout: float, what: str) -> None:
        if not f:
            return
        child = self.children[name]
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.path(f).exists():
                return
            if not child.alive():
                raise PointFailed(f"{name} exited (status {child.popen.returncode}) before it was {what}; see the log")
            self.sup.sleep(0.05)
        raise PointFailed(f"{name} was not {what} within {timeout:.0f} s")

    def execute(self) -> None:
        for op in ops(self.sc):
            getattr(self, "op_" + op[0])(*op[1:])

    def op_tier_setup(self) -> None:
        """The profile's tier setup (undo journaled first), then the tiers it must have made."""
        ts = self.sc["tier_setup"]
        d, a = ts["nodes"]
        self.meta["tier_setup"] = {"setup": ts["setup"], "undo": ts["undo"]}
        try:
            self.settings.command(ts["setup"], ts["undo"], ts["timeout_s"], self.sup)
        except ConfigError as e:
            raise PointFailed(f"the profile's tier setup failed: {e}") from None
        tiers = memtiers.read_tiers(memtiers.SYS)
        self.meta["tier_setup"]["memory_tiers"] = {str(t): n for t, n in sorted(tiers.items())}
        why = memtiers.placed(tiers, d, a, memtiers.read_cpu_nodes(memtiers.SYS), bool(ts.get("cpu_tiers_promote")))
        if why:
            raise PointFailed(f"the profile's tier setup ({ts['setup']}) ran, but {why}: the kernel would move no page between them, "
                              f"so the point stops here and its undo ({ts['undo']}) runs")

    def op_set(self, key: str, value: str) -> None:
        self.settings.set(key, value)

    def op_swapoff(self) -> None:
        self.meta["swap_off"] = self.settings.swap_off()

    def op_swapon(self, target: str, size_mib: int) -> None:
        self.settings.swap_on(target, size_mib or None)
        self.meta["swap_on"] = target

    def op_cgroup(self, name: str) -> None:
        self.meta["cgroup"] = str(self.settings.cgroup(name))

    def op_mount_guard(self, path: str) -> None:
        self.settings.mount_guard(path)

    def op_dir_guard(self, path: str, pid_file: str, sig: str) -> None:
        self.settings.dir_guard(path, pid_file or None, sig)

    def op_vmstat(self, name: str) -> None:
        self.path(name).write_text(Path("/proc/vmstat").read_text())
        nodes = sorted(Path("/sys/devices/system/node").glob("node[0-9]*/meminfo"))
        self.path(name + ".nodes").write_text("".join(n.read_text() for n in nodes))

    def op_mech_start(self) -> None:
        hooks, spec = mechanism_of(self.sc)
        try:
            hooks.host_start(spec, self.settings)
        except ConfigError as e:
            raise PointFailed(str(e)) from None

    def op_mech_feed(self) -> None:
        hooks, spec = mechanism_of(self.sc)
        fn, args, env = hooks.feeder(spec, lambda f: str(self.path(f)))
        sets = "".join(f"{k}={shlex.quote(v)}; " for k, v in env.items())
        argv = ["sh", "-c", f'{sets}. "$0" && {fn} "$@"', str(HOST_LIB), *map(str, args)]
        self.meta["argv"][FEEDER] = argv
        self.children[FEEDER] = self.sup.spawn(FEEDER, argv)

    def op_mech_stats(self, name: str) -> None:
        hooks, spec = mechanism_of(self.sc)
        self.path(name).write_text(hooks.host_stats(spec))

    def op_mech_feed_stop(self) -> None:
        self.meta["exit"][FEEDER] = self.sup.stop(self.children[FEEDER])

    def op_mkdir(self, path: str) -> None:
        self.made_scratch = not Path(path).exists()  # (one the point made goes again once empty)
        Path(path).mkdir(parents=True, exist_ok=True)

    def op_spawn(self, name: str) -> None:
        r = self.roles[name]
        argv = self.argv(r)
        if r.get("cgroup"):  # enter the point's cgroup (made by op_cgroup), then exec
            from .memcg import SHIM  # noqa: PLC0415

            argv = ["sh", "-c", SHIM, str(Path(self.meta["cgroup"]) / "cgroup.procs"), *argv]
        self.meta["argv"][name] = argv
        if r.get("start_after_s") is not None:
            self.meta.setdefault("started_after_s", {})[name] = r["start_after_s"]
        stdout = self.path(r["stdout"]) if r["stdout"] else None
        cpus = self.monitor_cpus if r["kind"] == "attach" else None
        if cpus:
            self.meta.setdefault("cpus", {})[name] = cpus
        if r["kind"] == "workload":
            self._cpu_times = cpu_times()
        self.settings.keep(r.get("changes", ()))  # what the program changes itself, journaled as it is now
        self.children[name] = self.sup.spawn(name, argv, stdout=stdout, cpus=cpus,  # its errors go to the job's log
                                             grace_s=r.get("stop_grace_s"))

    def op_ready(self, name: str, timeout: float) -> None:
        self._wait_file(name, self.roles[name]["ready_file"], timeout, "ready")

    def op_pid(self, name: str, timeout: float) -> None:
        r = self.roles[name]
        if r["pid_file"] or r["ready_file"] or not r.get("ready_line"):
            self._wait_file(name, r["pid_file"] or r["ready_file"], timeout, "ready (pid file)")
            return
        child, watch = self.children[name], LineWatch(self.path(r["stdout"]), r["ready_line"])
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if watch.seen():
                return
            if not child.alive():
                raise PointFailed(f"{name} exited (status {child.popen.returncode}) before it printed "
                                  f"{r['ready_line']!r}; see the log")
            self.sup.sleep(0.05)
        raise PointFailed(f"{name} did not print {r['ready_line']!r} within {timeout:.0f} s")

    def op_sleep(self, seconds: float) -> None:
        # in slices that check for a stop signal (Supervisor.sleep, as every wait here): a
        # scenario's phases last up to 100 s, and a Ctrl-C or Snakemake's SIGTERM must not wait
        # for one to end
        self.sup.sleep(seconds)

    def op_wait(self, name: str, timeout: float) -> None:
        r, child = self.roles[name], self.children[name]
        ready = None
        if r["kind"] == "workload" and r.get("usage") and (r["ready_file"] or r.get("ready_line")):
            ready, timeout = self.watch_ready(r, child, timeout)
        rc = self.sup.wait(child, timeout=timeout)
        if ready and child.usage:
            child.usage["ready"] = ready
        self.meta["exit"][name] = rc
        self.meta.setdefault("usage", {})[name] = child.usage
        if r["kind"] == "workload":
            self.record_steal(name)
        if rc != 0:
            raise PointFailed(f"{name} exited with status {rc}; see the log")

    def watch_ready(self, r: dict, child: Child, timeout: float) -> tuple[dict | None, float]:
        """Until the workload is ready (its ready file, or its ready line in its standard output) or
        has exited: then the CPU time its process group had used and the seconds since its start
        (:func:`group_cpu`), so that its share of the CPU can be taken over its measured phase alone
        (usage's ``ready``: a start-up that waits for its input on disk is not CPU taken by others).
        None where it exited first or printed nothing in time; returns it and the time left."""
        end = time.monotonic() + timeout
        if r["ready_file"]:
            seen = self.path(r["ready_file"]).exists
        elif r["stdout"]:
            seen = LineWatch(self.path(r["stdout"]), r["ready_line"]).seen
        else:
            return None, timeout
        # reap(0), not alive(): Popen.poll() would reap it without its usage
        while child.reap(0) is None and time.monotonic() < end:
            if seen():
                cpu = group_cpu(child.pid)
                if cpu is None:
                    break
                return ({"wall_s": round(time.monotonic() - child.started, 3), "user_s": cpu[0], "system_s": cpu[1],
                         "source": "/proc/<pid>/stat utime, stime, cutime, cstime of its process group (proc(5))"},
                        max(end - time.monotonic(), 0.001))
            self.sup.sleep(0.02)
        return None, max(end - time.monotonic(), 0.001)

    def record_steal(self, name: str) -> None:
        """meta.json's ``cpu_steal``: per CPU, the share of the workload's run the hypervisor ran
        something else there (0 on bare metal); a share above STEAL_WARN is said in the log, since
        the point's timings then count time its processes were not running."""
        shares = steal_shares(self._cpu_times, cpu_times())
        if not shares:
            return
        self.meta["cpu_steal"] = {"during": name, "share": {str(c): v for c, v in shares.items()},
                                  "source": "/proc/stat, steal column (proc(5))"}
        high = {c: v for c, v in shares.items() if v > STEAL_WARN}
        if high:
            print(f"point: warning: the hypervisor took {', '.join(f'{v:.0%} of CPU {c}' for c, v in high.items())} "
                  f"while {name} ran (steal time in /proc/stat): its timings count time it could not run",
                  file=sys.stderr, flush=True)

    def op_stop(self, name: str, check: bool) -> None:
        rc = self.sup.stop(self.children[name])
        self.meta["exit"][name] = rc
        if check and rc != 0:
            raise PointFailed(f"{name} exited with status {rc}; see the log")

    def op_run(self, name: str, timeout: float) -> None:
        self.op_spawn(name)
        self.op_wait(name, timeout)

    def op_alive(self, name: str) -> None:
        c = self.children[name]
        if not c.alive():
            raise PointFailed(f"{name} was no longer running when it had to be (exit status {c.popen.returncode})")

    def cleanup_scratch(self) -> None:
        s = self.sc.get("scratch")
        if s:
            for f in s.get("remove", []):
                (Path(s["dir"]) / f).unlink(missing_ok=True)
            if self.made_scratch:  # never a directory the point found (a DAX mount's)
                try:
                    Path(s["dir"]).rmdir()
                except OSError:  # not empty: what else is in it stays
                    pass


# ---- a guest host (busybox sh) ----------------------------------------------------------------

GUEST_ROOT = "/opt/tierbench"  # build/X of this tree is GUEST_ROOT/X in the guest
GUEST_BIN = f"{GUEST_ROOT}/bin"
GUEST_LIB = "/lib/tierbench/lib.sh"
GUEST_CTL = "/tmp/tb"  # control files (pid, ready): not sent back

SH_PRELUDE = """\
# Generated by workflows/harness/scenario.py (render_sh): the points of one batch, run by the
# guest's /init (busybox sh, as root). Raw output under /out/<point dir>/, with a status file.
. {lib}
BIN={bin}
FAILED=0
export SETTINGS_JOURNAL=${{SETTINGS_JOURNAL:-/tmp/settings-journal.json}}

# alive PID: running and not a zombie
alive() {{
	kill -0 "$1" 2>/dev/null && [ "$(awk '{{ print $3 }}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}}

# fail WHY: the point's first failure wins
fail() {{
	[ "$ST" = ok ] && ST=$1
	return 0
}}
"""


class _Expr(str):
    """A shell word to expand in the guest (a variable, a command substitution): double-quoted, not escaped."""


def _sh_argv(argv: list[str]) -> str:
    out = []
    for a in argv:
        if isinstance(a, _Expr):
            out.append(f'"{a}"')
        elif a.startswith("build/bin/"):
            out.append(f'"$BIN/{a[len("build/bin/"):]}"')
        elif a.startswith("build/"):  # an input file a rule made (shipped to the guest with the batch)
            out.append(shlex.quote(f"{GUEST_ROOT}/{a[len('build/'):]}"))
        else:
            out.append(shlex.quote(a))
    return " ".join(out)


def _var(name: str) -> str:
    return "P_" + "".join(c if c.isalnum() else "_" for c in name)


def render_sh(sc: dict, outdir: str, ctl_dir: str = GUEST_CTL) -> str:
    """The scenario's operations as busybox sh, raw output in ``outdir`` (in the guest), pid and
    ready files in ``ctl_dir`` (emptied first)."""
    if sc.get("tier_setup"):  # refused for guest hosts before any job (workflows/harness/profile.py)
        raise ValueError("a guest host runs no host profile tier_setup")
    roles = {r["name"]: r for r in sc["roles"]}
    q = shlex.quote
    ctl = f"{ctl_dir}/"
    lines = [f"D={q(outdir)}; mkdir -p \"$D\"; rm -f \"$D/status.tmp\"; rm -rf {q(ctl_dir)}; mkdir -p {q(ctl_dir)}",
             "ST=ok; T0=$(cut -d' ' -f1 /proc/uptime)",
             " ".join(f"{_var(n)}=" for n in [*roles, FEEDER])]

    def guard(cmd: str) -> None:
        lines.append(f"if [ \"$ST\" = ok ]; then {cmd}; fi")

    def exited(name: str, check: bool = True) -> str:
        """After a wait or a stop: record the exit status; a non-zero one fails the point (if ``check``)."""
        done = f"rc=$?; {_var(name)}=; echo exit_{name}=$rc >>\"$D/status.tmp\""
        return done + (f"; [ \"$rc\" = 0 ] || fail {name}_exit_$rc" if check else "")

    def argv_of(r: dict) -> str:
        w = workload_of(sc)
        pid = f"$(cat {ctl}{w['pid_file']})" if w["pid_file"] else f"${_var(w['name'])}"
        argv = role_argv(r, lambda f: _Expr(f"$D/{f}"), lambda f: _Expr(f"{ctl}{f}"), _Expr(pid))
        out = f" >\"$D/{r['stdout']}\"" if r["stdout"] else ""
        if r.get("cgroup"):  # enter the point's cgroup (lib.sh resource_cgroup made it), then exec
            from .memcg import SHIM  # noqa: PLC0415

            return (f"sh -c {q(SHIM)} \"$(cgroup_path {q(r['cgroup'])})/cgroup.procs\" {_sh_argv(argv)}{out} "
                    "2>>\"$D/guest.log\"")
        return f"{_sh_argv(argv)}{out} 2>>\"$D/guest.log\""

    for op in ops(sc):
        kind, name = op[0], (op[1] if len(op) > 1 else "")
        r = roles.get(name)
        if kind == "set":
            path = KNOWN.get(name, name)
            guard(f"settings_set {q(path)} {q(op[2])} 2>>\"$D/guest.log\" || fail settings_set_{name}")
        elif kind == "swapoff":  # the guest boots without swap; one there would be someone's change
            guard("[ \"$(grep -vc '^Filename' /proc/swaps)\" = 0 ] || fail swap_on_in_guest")
        elif kind == "swapon":  # lib.sh: journaled like a setting, undone by settings_restore
            guard(f"resource_swapon {q(name)} {int(op[2])} 2>>\"$D/guest.log\" || fail swapon")
        elif kind == "cgroup":
            guard(f"resource_cgroup {q(name)} 2>>\"$D/guest.log\" || fail cgroup")
        elif kind == "mount_guard":  # (no scenario planned for a guest mounts anything)
            raise ValueError(f"a scenario that mounts {name} runs on a host: the guest's lib.sh journals no mounts")
        elif kind == "dir_guard":  # (no scenario planned for a guest has one)
            raise ValueError(f"a scenario whose role makes {name} runs on a host: the guest's lib.sh journals no "
                             "such directories")
        elif kind == "vmstat":
            guard(f"cat /proc/vmstat >\"$D/{name}\"; cat /sys/devices/system/node/node*/meminfo >\"$D/{name}.nodes\"")
        elif kind == "mkdir":
            guard(f"mkdir -p {q(name)}")
        elif kind == "mech_start":
            hooks, spec = mechanism_of(sc)
            for cmd in hooks.sh_start(spec):
                guard(f"{cmd} 2>>\"$D/guest.log\" || fail mechanism_setup")
        elif kind == "mech_feed":
            hooks, spec = mechanism_of(sc)
            fn, args, _ = hooks.feeder(spec, lambda f: _Expr(f"$D/{f}"))  # the guest's lib.sh has its defaults
            guard(f"{fn} {_sh_argv(args)} 2>>\"$D/guest.log\" & {_var(FEEDER)}=$!")
        elif kind == "mech_stats":
            hooks, spec = mechanism_of(sc)
            lines.append(hooks.sh_stats(spec, f"\"$D/{name}\""))  # also after a failure: what the mechanism did
        elif kind == "mech_feed_stop":
            v = _var(FEEDER)
            lines.append(f"if [ -n \"${v}\" ]; then stop_pid \"${v}\"; {v}=; fi")
        elif kind == "spawn":
            v = _var(name)
            after = f"; echo started_after_s_{name}={r['start_after_s']:g} >>\"$D/status.tmp\"" \
                if r.get("start_after_s") is not None else ""
            guard(f"{argv_of(r)} & {v}=$!{after}")
        elif kind in ("ready", "pid"):
            f = r["ready_file"] if kind == "ready" else (r["pid_file"] or r["ready_file"])
            if f:
                guard(f"wait_for_file {q(ctl + f)} {int(op[2])} \"${_var(name)}\" || fail {name}_not_ready")
            elif kind == "pid" and r.get("ready_line"):
                guard(f"wait_for_line \"$D/{r['stdout']}\" {q(r['ready_line'])} {int(op[2])} \"${_var(name)}\" "
                      f"|| fail {name}_not_ready")
        elif kind == "sleep":
            guard(f"sleep {name:g}")
        elif kind == "wait":
            guard(f"wait \"${_var(name)}\"; {exited(name)}")
        elif kind == "stop":
            v = _var(name)
            lines.append(f"if [ -n \"${v}\" ]; then stop_pid \"${v}\"; {exited(name, op[2])}; fi")
        elif kind == "run":
            guard(f"{argv_of(r)} & {_var(name)}=$!; wait \"${_var(name)}\"; {exited(name)}")
        elif kind == "alive":
            guard(f"alive \"${_var(name)}\" || fail {name}_not_running")
        else:
            raise AssertionError(kind)
    # cleanup, whatever happened: stop what still runs (reverse order), restore, remove scratch
    if has_feeder(sc):
        lines.append(f"if [ -n \"${_var(FEEDER)}\" ]; then stop_pid \"${_var(FEEDER)}\"; {_var(FEEDER)}=; fi")
    for name in reversed(list(roles)):
        v = _var(name)
        lines.append(f"if [ -n \"${v}\" ]; then stop_pid \"${v}\"; {v}=; fi")
    lines.append("settings_restore 2>>\"$D/guest.log\" || fail settings_not_restored")
    s = sc.get("scratch")
    if s:
        for f in s.get("remove", []):
            lines.append(f"rm -f {q(str(Path(s['dir']) / f))}")
    lines.append("{ echo \"status=$ST\"; cat \"$D/status.tmp\" 2>/dev/null; echo \"start_uptime_s=$T0\"; "
                 "echo \"end_uptime_s=$(cut -d' ' -f1 /proc/uptime)\"; } >\"$D/status\"; rm -f \"$D/status.tmp\"")
    lines.append("echo \"tierbench guest: point $D: $ST\"; [ \"$ST\" = ok ] || FAILED=1")
    return "\n".join(lines) + "\n"


def render_batch(points: list[tuple[str, dict]], *, bin_dir: str = GUEST_BIN, lib: str = GUEST_LIB,
                 ctl_dir: str = GUEST_CTL) -> str:
    """One guest script for (outdir in the guest, scenario) pairs, run one after another. The paths
    default to the guest's; tests run the same script on this host with this host's."""
    parts = [SH_PRELUDE.format(bin=shlex.quote(bin_dir), lib=shlex.quote(lib))]
    for outdir, sc in points:
        parts.append(f"# ---- {outdir}\n" + render_sh(sc, outdir, ctl_dir))
    parts.append("exit \"$FAILED\"\n")
    return "\n".join(parts)


def read_status(path: Path) -> dict:
    """The key=value status file a guest point writes."""
    try:
        return dict(ln.split("=", 1) for ln in path.read_text().splitlines() if "=" in ln)
    except OSError:
        return {}


# ---- the rows ---------------------------------------------------------------------------------

def parser(spec: str):
    mod, _, fn = spec.partition(":")
    return getattr(importlib.import_module(mod), fn)


def usage_rows(r: dict, usage: dict | None) -> list[dict]:
    """A role's resource usage as rows: footprint (peak RSS), CPU time, wall time."""
    if not (r.get("usage") and usage):
        return []
    return [{"metric": "peak_rss", "value": round(usage["max_rss_kib"] / 1024, 3), "unit": "MiB", "tool": r["tool"]},
            {"metric": "cpu_time", "value": round(usage["user_s"] + usage["system_s"], 3), "unit": "s", "tool": r["tool"]},
            {"metric": "run_time", "value": usage["wall_s"], "unit": "s", "tool": r["tool"]}]


def parse_rows(sc: dict, outdir: Path, opts: dict, usage: dict | None = None) -> list[dict]:
    """Every role's long-form rows (without the point's context), in role order, with the resource
    usage of the roles that ask for it (``usage``: name -> what the executor measured). The
    workload must give some."""
    rows: list[dict] = []
    for r in sc["roles"]:
        got = parser(r["parse"])(outdir, r, {**opts, **r["opts"]})
        if r["kind"] == "workload" and not got:
            raise PointFailed(f"{r['name']} produced no rows (see its output in {outdir})")
        rows += got + usage_rows(r, (usage or {}).get(r["name"]))
    if sc.get("vmstat"):
        rows += vmstat_rows(sc, outdir)
    mech = mechanism_of(sc)
    if mech:
        rows += mech[0].rows(mech[1], outdir)
    return rows


def vmstat_rows(sc: dict, outdir: Path) -> list[dict]:
    """The kernel's page moves over the point (pgpromote_*, pgdemote_* of /proc/vmstat), as
    ``kernel_<counter>`` rows in pages; a point expected to move pages that moved none fails."""
    from . import memtiers  # noqa: PLC0415

    try:
        before, after = (outdir / VMSTAT_BEFORE).read_text(), (outdir / VMSTAT_AFTER).read_text()
    except OSError as e:
        raise PointFailed(f"the point's /proc/vmstat snapshots are missing ({e.filename})") from None
    delta = memtiers.moves_delta(before, after)
    why = memtiers.moved_nothing(delta, sc["vmstat"].get("expect", ""))
    if why:
        raise PointFailed(f"{why}: {', '.join(f'{k} +{v}' for k, v in delta.items()) or 'no such counters'}")
    return [{"metric": f"kernel_{k}", "value": v, "unit": "count" if k.startswith("numa_hint_faults") else "pages",
             "tool": "vmstat"} for k, v in delta.items()]
