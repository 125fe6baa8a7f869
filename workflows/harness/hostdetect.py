"""Detect the facts of the machine we run on (the ``auto`` host profile).

Everything here only *reads* the system (sysfs, procfs, one perf_event_open
probe); nothing is changed. The result is a plain JSON-serialisable dict that
is written to ``results/{host}/host_facts.json`` and embedded in every
``meta.json``.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import re
import shutil
import socket
from pathlib import Path

from . import ConfigError, cpulist, memtiers, uncore

SYS = Path("/sys")
PROC = Path("/proc")


def _read(path: Path, default: str | None = None) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return default


def _bracketed(text: str | None) -> str | None:
    """'always [madvise] never' -> 'madvise'."""
    if not text:
        return None
    m = re.search(r"\[([^\]]+)\]", text)  # (THP defrag's "[defer+madvise]" too)
    return m.group(1) if m else text


def cpu_socket(cpu: int, sys_root: Path = SYS) -> int | None:
    """The socket (physical package) of a CPU; None where sysfs does not say (unreadable, or -1)."""
    v = _read(sys_root / f"devices/system/cpu/cpu{cpu}/topology/physical_package_id")
    return int(v) if v and v.isdigit() else None


def _sockets(cpus: list[int], sys_root: Path) -> list[int]:
    return sorted({s for c in cpus if (s := cpu_socket(c, sys_root)) is not None})


def _memtotal_kib(proc_root: Path) -> int:
    m = re.search(r"MemTotal:\s+(\d+) kB", _read(proc_root / "meminfo", "") or "")
    return int(m.group(1)) if m else 0


def detect_nodes(sys_root: Path = SYS, proc_root: Path = PROC) -> dict[int, dict]:
    """Per NUMA node: cpus, memory (MiB), and the sockets of its CPUs (its memory's memory
    controllers, for socket-scoped counters; empty for a CPU-less node, or where sysfs does not
    say). A machine without NUMA sysfs is one node.

    A machine of one node has all its memory there: its memory is the larger of the node's sysfs
    MemTotal and /proc/meminfo's. The node's is the sum of its zones' managed pages
    (drivers/base/node.c node_read_meminfo -> mm/show_mem.c si_meminfo_node), /proc/meminfo's the
    kernel's totalram_pages (fs/proc/meminfo.c -> si_meminfo); on this project's Firecracker guests
    (Linux 6.18) the node's read 5.3 GB of a 24 GB machine and grew to 13 GB once 8 GiB were touched
    bound to it (``numactl --membind=0``), while /proc/meminfo said 24 GB throughout: the node's
    alone refused working sets that fit."""
    base = sys_root / "devices/system/node"
    nodes: dict[int, dict] = {}
    for d in sorted(base.glob("node[0-9]*"), key=lambda p: int(p.name[4:])):
        nid = int(d.name[4:])
        cpus = cpulist.parse(_read(d / "cpulist", "") or "")
        mem_kib = 0
        meminfo = _read(d / "meminfo", "") or ""
        m = re.search(r"MemTotal:\s+(\d+) kB", meminfo)
        if m:
            mem_kib = int(m.group(1))
        nodes[nid] = {"cpus": cpus, "memory_mib": mem_kib // 1024, "sockets": _sockets(cpus, sys_root)}
    if not nodes:
        online = cpulist.parse(_read(sys_root / "devices/system/cpu/online", "0") or "0")
        nodes[0] = {"cpus": online, "memory_mib": 0, "sockets": _sockets(online, sys_root)}
    if len(nodes) == 1:
        (only,) = nodes.values()
        only["memory_mib"] = max(only["memory_mib"], _memtotal_kib(proc_root) // 1024)
    return nodes


# HMAT values the kernel shows per memory node for its nearest initiators
# (Documentation/ABI/stable/sysfs-devices-node and Documentation/admin-guide/mm/numaperf.rst:
# nodeN/accessY/initiators/{read,write}_{latency,bandwidth}, latency in nanoseconds, bandwidth in
# MB/s (the ABI; numaperf.rst says MiB/second)). access0 is the nearest initiator of any kind,
# access1 the nearest CPU (include/linux/node.h: ACCESS_COORDINATE_LOCAL "correlates to ACCESS
# CLASS 0", ACCESS_COORDINATE_CPU to class 1); the kernel's memory tiers take their abstract
# distances from the CPU class (drivers/acpi/numa/hmat.c hmat_calculate_adistance(),
# "acpi,hmat: Use ACCESS_COORDINATE_CPU when appropriate"), so its values are kept too ("cpu").
HMAT_KEYS = ("read_latency", "write_latency", "read_bandwidth", "write_bandwidth")


def _hmat_class(ini: Path) -> dict | None:
    vals = {k: int(v) for k in HMAT_KEYS if (v := _read(ini / k)) is not None and v.isdigit()}
    if not vals:
        return None
    return {**vals, "initiators": sorted(int(p.name[4:]) for p in ini.glob("node[0-9]*"))}


def hmat(sys_root: Path = SYS) -> dict[str, dict]:
    """Node -> its HMAT access0 values, and its access1 (CPU) values under "cpu" where the kernel
    shows them ({} where the firmware gives no HMAT)."""
    out: dict[str, dict] = {}
    for d in sorted((sys_root / "devices/system/node").glob("node[0-9]*"), key=lambda p: int(p.name[4:])):
        a0, a1 = _hmat_class(d / "access0/initiators"), _hmat_class(d / "access1/initiators")
        if a0:
            out[d.name[4:]] = {**a0, **({"cpu": a1} if a1 else {})}
    return out


def _kernel_version(release: str) -> tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


# DAMON, the kernel's data access monitor, as an interface of the kernel (a fact of the host, like
# NUMA balancing): tierd reads it as an access observation source, and a tiering system that drives
# it checks these facts in its own preflight (systems/). Its sysfs interface is
# /sys/kernel/mm/damon/admin (Documentation/admin-guide/mm/damon/usage.rst, Linux 5.18+); tierd's DAMON observation needs 6.2+ (the kernel where the sysfs interface gained the
# access-pattern schemes' tried regions that it reads: mm/damon/sysfs-schemes.c, "tried_regions").
DAMON_MIN_KERNEL = (6, 2)


def damon_exclusive(sys_root: Path = SYS) -> list[str]:
    """The kernel's own DAMON modules that are on here (``damon_stat``, ``damon_reclaim``,
    ``damon_lru_sort``, the samples): each starts its kdamond exclusive (mm/damon/stat.c,
    reclaim.c, lru_sort.c: ``damon_start(..., 1, true)``), which no ``nr_kdamonds`` counts and
    beside which the sysfs interface cannot start one (mm/damon/core.c damon_start(): "-EBUSY" if
    ``!exclusive && running_exclusive_ctxs``). Read from each module's ``enabled`` parameter,
    /sys/module/<MODULE_PARAM_PREFIX>/parameters/enabled ("Y" when on), as modules or built in;
    DAMON_STAT is on by default where built (mm/damon/Kconfig DAMON_STAT_ENABLED_DEFAULT, 6.17)."""
    out = []
    for p in sorted((sys_root / "module").glob("damon_*/parameters/enabled")):
        if (_read(p) or "").strip() in ("Y", "1"):
            out.append(p.parents[1].name)
    return out


def damon(sys_root: Path = SYS, release: str | None = None) -> dict:
    """Whether tierd's DAMON observation can run here: the sysfs interface and the kernel version."""
    release = release if release is not None else platform.release()
    admin = sys_root / "kernel/mm/damon/admin"
    present = admin.is_dir()
    new_enough = _kernel_version(release) >= DAMON_MIN_KERNEL
    if not present:
        why = f"{admin} does not exist (kernel without CONFIG_DAMON_SYSFS, or older than 5.18)"
    elif not new_enough:
        why = (f"kernel {release} is older than {DAMON_MIN_KERNEL[0]}.{DAMON_MIN_KERNEL[1]}: tierd's DAMON observation "
               "needs the schemes' tried regions (6.2+)")
    else:
        why = "DAMON sysfs interface present"
    # for a system that drives DAMON itself (its preflight): kdamonds someone runs already
    # (read only: nr_kdamonds), and CONFIG_DAMON_PADDR where the kernel's config is readable
    n = (_read(admin / "kdamonds/nr_kdamonds") or "") if present else ""
    # the memory cgroup controller mounted here (v1/v2, None): a memcg filter can keep what runs in
    # a cgroup of the point's own (a filler, tierd) out of a mechanism's moves (its filler_cgroup)
    from . import memcg  # noqa: PLC0415

    return {"sysfs": present, "usable_by_tierd": present and new_enough, "reason": why,
            "kdamonds": int(n) if n.isdigit() else None, "exclusive": damon_exclusive(sys_root),
            "paddr": kernel_config(release).get("CONFIG_DAMON_PADDR"),
            "memcg": memcg.detect(sys_root / "fs/cgroup").get("version")}


def kernel_config(release: str, boot: Path = Path("/boot")) -> dict[str, bool]:
    """CONFIG_* -> built in or a module (y/m: True, "is not set": False) from /boot/config-RELEASE,
    where the distribution installs it (Debian: linux-image-*); empty when it is not there."""
    try:
        text = (boot / f"config-{release}").read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"(CONFIG_\w+)=([ym])", line) or re.fullmatch(r"# (CONFIG_\w+) is not set", line)
        if m:
            out[m.group(1)] = bool(m.lastindex == 2)
    return out


def smt_siblings(cpus: list[int], sys_root: Path = SYS) -> dict[str, list[int]]:
    """CPU -> the hardware threads of its core, itself included
    (Documentation/ABI/stable/sysfs-devices-system-cpu: topology/thread_siblings_list; the
    newer name core_cpus_list is read first)."""
    out = {}
    for c in cpus:
        topo = sys_root / f"devices/system/cpu/cpu{c}/topology"
        text = _read(topo / "core_cpus_list") or _read(topo / "thread_siblings_list")
        out[str(c)] = cpulist.parse(text) if text else [c]
    return out


def snc(nodes: dict[int, dict]) -> dict:
    """Sub-NUMA clustering (or AMD NPS > 1): more than one node with CPUs on one socket. Then a
    "remote" node may be a node of the same socket; ``socket_nodes`` says which share one."""
    by_socket: dict[int, list[int]] = {}
    for nid, n in nodes.items():
        if n["cpus"]:
            for s in n["sockets"]:
                by_socket.setdefault(s, []).append(nid)
    per = {str(s): sorted(ns) for s, ns in sorted(by_socket.items())}
    return {"enabled": any(len(ns) > 1 for ns in per.values()), "socket_nodes": per}


def cpu_model() -> str:
    text = _read(PROC / "cpuinfo", "") or ""
    for key in ("model name", "Model", "cpu model"):
        m = re.search(rf"^{key}\s*:\s*(.+)$", text, re.M)
        if m:
            return m.group(1).strip()
    return platform.processor() or "unknown"


def llc_bytes(sys_root: Path = SYS, level_only: int | None = None) -> int | None:
    """The highest-level cache of cpu0 (sysfs cpu/cpu0/cache/index*: the first listed at that level),
    or with ``level_only`` the largest cache of that level (memchar's rule for its default buffers:
    lib/src/cpu.c, cpu_cache_bytes(3, 3)); None where sysfs lists none."""
    caches = _caches(sys_root)
    if level_only is not None:
        caches = [(lv, v) for lv, v in caches if lv == level_only]
        return max(v for _, v in caches) if caches else None
    if not caches:
        return None
    top = max(lv for lv, _ in caches)
    return next(v for lv, v in caches if lv == top)


def _caches(sys_root: Path) -> list[tuple[int, int]]:
    """(level, bytes) of every cache sysfs lists for cpu0."""
    out = []
    for idx in sorted((sys_root / "devices/system/cpu/cpu0/cache").glob("index*")):
        level, size = _read(idx / "level"), _read(idx / "size")
        m = re.match(r"(\d+)([KMG]?)", size or "")
        if level and m:
            out.append((int(level), int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]))
    return out


class _PerfEventAttr(ctypes.Structure):
    # Only the leading fields are needed; the kernel accepts any size it knows
    # (PERF_ATTR_SIZE_VER0 = 64) as long as the rest is zero.
    _fields_ = [
        ("type", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("config", ctypes.c_uint64),
        ("sample_period", ctypes.c_uint64),
        ("sample_type", ctypes.c_uint64),
        ("read_format", ctypes.c_uint64),
        ("flags", ctypes.c_uint64),
        ("pad", ctypes.c_uint8 * 64),
    ]


_PERF_SYSCALL = {"x86_64": 298, "aarch64": 241, "ppc64le": 319, "riscv64": 241}


def probe_perf_counters() -> dict:
    """Try to open a hardware instructions counter for this process.

    Returns {"available": bool, "reason": str}. This is what ``perf stat -e
    instructions`` needs; on VMs without a virtual PMU it fails with ENOENT or
    EOPNOTSUPP ("not supported").
    """
    nr = _PERF_SYSCALL.get(platform.machine())
    if nr is None:
        return {"available": False, "reason": f"perf_event_open probe not implemented for {platform.machine()}"}
    libc = ctypes.CDLL(None, use_errno=True)
    attr = _PerfEventAttr()
    attr.type = 0  # PERF_TYPE_HARDWARE
    attr.size = 64
    attr.config = 1  # PERF_COUNT_HW_INSTRUCTIONS
    attr.flags = 1 | (1 << 5) | (1 << 6)  # disabled, exclude_kernel, exclude_hv
    fd = libc.syscall(nr, ctypes.byref(attr), 0, -1, -1, 0)
    if fd >= 0:
        os.close(fd)
        return {"available": True, "reason": "hardware instructions counter opened"}
    err = ctypes.get_errno()
    paranoid = _read(PROC / "sys/kernel/perf_event_paranoid")
    why = {
        errno.ENOENT: "no hardware PMU exposed (virtual machine without vPMU?)",
        errno.EOPNOTSUPP: "hardware counters not supported",
        errno.EACCES: f"permission denied (perf_event_paranoid={paranoid})",
        errno.EPERM: f"operation not permitted (perf_event_paranoid={paranoid})",
        errno.ENODEV: "no PMU device",
    }.get(err, os.strerror(err))
    return {"available": False, "reason": f"perf_event_open(instructions) failed: {why}"}


def uncore_pmus(sys_root: Path = SYS) -> list[str]:
    base = sys_root / "bus/event_source/devices"
    try:
        return sorted(p.name for p in base.iterdir() if p.name.startswith(("uncore", "amd_df", "amd_l3")))
    except OSError:
        return []


def capabilities() -> dict:
    status = _read(PROC / "self/status", "") or ""
    m = re.search(r"^CapEff:\s*([0-9a-f]+)", status, re.M)
    eff = int(m.group(1), 16) if m else 0
    return {
        "euid": os.geteuid(),
        "root": os.geteuid() == 0,
        "cap_sys_admin": bool(eff >> 21 & 1),
        "cap_sys_nice": bool(eff >> 23 & 1),
        "cap_perfmon": bool(eff >> 38 & 1),
    }


def sysctl_snapshot() -> dict:
    return {
        "numa_balancing": _read(PROC / "sys/kernel/numa_balancing"),
        "demotion_enabled": _read(SYS / "kernel/mm/numa/demotion_enabled"),
        "thp_enabled": _bracketed(_read(SYS / "kernel/mm/transparent_hugepage/enabled")),
        "thp_defrag": _bracketed(_read(SYS / "kernel/mm/transparent_hugepage/defrag")),
        "nr_hugepages": _read(PROC / "sys/vm/nr_hugepages"),
        "perf_event_paranoid": _read(PROC / "sys/kernel/perf_event_paranoid"),
        # what NUMA balancing's tiering mode promotes under (kernel/sched/fair.c should_numa_migrate_memory():
        # the rate limit, a sysctl since 6.0, Documentation/admin-guide/sysctl/kernel.rst
        # numa_balancing_promote_rate_limit_MBps; the starting hot threshold, a debugfs file,
        # kernel/sched/debug.c "hot_threshold_ms" under sched/numa_balancing, None where debugfs is not mounted)
        "numa_balancing_promote_rate_limit_MBps": _read(PROC / "sys/kernel/numa_balancing_promote_rate_limit_MBps"),
        "numa_balancing_hot_threshold_ms": _read(SYS / "kernel/debug/sched/numa_balancing/hot_threshold_ms"),
    }


def tools() -> dict:
    names = ["fio", "numactl", "perf", "pcm-memory", "ipmctl", "mlc", "ndctl", "daxctl"]
    return {n: shutil.which(n) for n in names}


def safe_hostname() -> str:
    name = socket.gethostname().split(".")[0] or "localhost"
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)


def allowed_mems(proc_root: Path = PROC) -> list[int] | None:
    """The memory nodes this process's cpuset allows (``Mems_allowed_list`` in /proc/self/status,
    Documentation/filesystems/proc.rst): a task's memory policy is narrowed to them ("the
    intersection ... is used", Documentation/admin-guide/mm/numa_memory_policy.rst), a numactl
    --membind outside them fails, and move_pages() to a node outside them fails with EACCES. None
    where it cannot be read."""
    text = _read(proc_root / "self/status") or ""
    for line in text.splitlines():
        if line.startswith("Mems_allowed_list:"):
            try:
                return cpulist.parse(line.split(":", 1)[1].strip())
            except ConfigError:
                return None
    return None


def detect() -> dict:
    """All facts about this machine, as stored in host_facts.json."""
    nodes = detect_nodes()
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        allowed = sorted(c for n in nodes.values() for c in n["cpus"])
    release = platform.release()
    return {
        "hostname": safe_hostname(),
        "arch": platform.machine(),
        "cpu_model": cpu_model(),
        "kernel": release,
        "nodes": {str(k): v for k, v in nodes.items()},
        "memory_tiers": {str(k): v for k, v in memtiers.read_tiers(SYS).items()},
        "hmat": hmat(),
        "damon": damon(SYS, release),
        "smt_siblings": smt_siblings(sorted(c for n in nodes.values() for c in n["cpus"])),
        "snc": snc(nodes),
        "memory_nodes": [k for k, v in nodes.items() if v["memory_mib"] > 0],
        "cpu_nodes": [k for k, v in nodes.items() if v["cpus"]],
        "online_cpus": cpulist.parse(_read(SYS / "devices/system/cpu/online", "") or ""),
        "allowed_cpus": allowed,
        "allowed_mems": allowed_mems(),
        "llc_bytes": llc_bytes(),
        "settings": sysctl_snapshot(),
        "perf_counters": probe_perf_counters(),
        "uncore_pmus": uncore_pmus(),
        "uncore_frequency": uncore.domains(SYS),
        "privileges": capabilities(),
        "dax_devices": sorted(str(p) for p in Path("/dev").glob("dax*")),
        "tools": tools(),
    }


def node_of_cpu(facts: dict, cpu: int) -> int | None:
    for nid, n in facts["nodes"].items():
        if cpu in n["cpus"]:
            return int(nid)
    return None
