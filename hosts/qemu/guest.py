#!/usr/bin/env python3
"""A two-node NUMA test guest for tierbench: QEMU (KVM or TCG) with a CPU-less memory node.

    guest.py check                       what is present, what is missing
    guest.py build [--refresh]           fetch Debian packages, build static binaries, make the initramfs
    guest.py run [--timeout S] [--script FILE] [--out DIR] [--accel auto|kvm|tcg]
                                         boot, run the script, copy results out, power off

Everything the guest boots comes from Debian packages fetched with apt-get
(linux-image-* >= 6.12 from bookworm-backports through a private apt
configuration under build/qemu/apt, busybox-static) plus tierbench's own binaries linked
statically; nothing else is downloaded. Node 0 has both CPUs, node 1 is
memory only, and HMAT entries describe node 1 as slower (as a CXL expander
appears). Timings in the guest mean nothing: it is a functional host. It boots
under KVM where /dev/kvm is usable and a KVM boot of it reports, under TCG
otherwise (`run --accel`; run.json says which and why).

Output: the guest's /init runs the script with OUT=/out; test lines
("TEST name PASS|FAIL|SKIP detail") and every file under /out come back over a
second serial port (the data channel), so kernel messages on the console
never mix with results. Cache: build/qemu/ (never committed). Standard
library only.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import fcntl
import gzip
import hashlib
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GUEST_SRC = HERE / "guest"
CACHE = REPO / "build" / "qemu"
STATIC_BUILD = REPO / "build" / "static"
QEMU = "qemu-system-x86_64"

KERNEL_META = "linux-image-amd64"
# The guest's kernel comes from this suite, through a private apt configuration under build/qemu/apt
# (its own sources list and package lists: the machine's apt sources are never changed). Debian 12's
# own 6.1 is too old for what the guest stands in for: a CPU-less node gets a lower memory tier from
# its HMAT values only since Linux 6.10 (mm/memory-tiers.c, "create CPUless memory tiers after
# obtaining HMAT info"), so on 6.1 both nodes share memory_tier4 and kernel TPP moves nothing; and
# tierd's DAMON observation needs 6.2+.
KERNEL_SUITE = "bookworm-backports"
KERNEL_MIRROR = "http://deb.debian.org/debian"
KERNEL_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
KERNEL_MIN = (6, 12)
BUSYBOX_PKG = "busybox-static"
QEMU_PKG = "qemu-system-x86"
# (component directory, binaries it provides for the guest); in build order
COMPONENTS = [
    ("colloid", []),
    ("colloid/tierd", ["tierd"]),
    ("workloads/memchar", ["memchar"]),
    ("workloads/gups", ["gups"]),
    ("antagonists", ["antagonist", "filler"]),
]
REQUIRED = {"memchar", "gups", "antagonist"}
C_FLAGS = ["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"]

# Guest NUMA layout: node 0 = CPUs + "DRAM", node 1 = memory only ("CXL").
# HMAT: node 1 about 1.9x the latency and half the bandwidth of node 0
# (the Colloid paper's alternate tier); only labels, the memory is the same.
HMAT = {0: ("100", "20G"), 1: ("190", "10G")}  # latency ns, bandwidth B/s
KERNEL_CMDLINE = "console=ttyS0 quiet panic=-1 rdinit=/init"

TEST_RE = re.compile(r"^TEST (\S+) (PASS|FAIL|SKIP)(?: (.*))?$")


class GuestError(Exception):
    """A failure with one clear message (printed as 'guest.py: error: ...')."""


class GuestUnavailable(GuestError):
    """This machine cannot build or boot the guest (no QEMU, no apt, no package mirror)."""


class Interrupted(Exception):
    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def say(msg: str) -> None:
    print(f"[qemu-guest] {msg}", file=sys.stderr, flush=True)


def _rel(p: Path) -> str:
    try:
        return str(p.relative_to(REPO))
    except ValueError:
        return str(p)


# --------------------------------------------------------------------------- check

def _kvm_state() -> str:
    if not os.path.exists("/dev/kvm"):
        return "absent: TCG (software emulation) is used"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "present but not accessible: TCG is used"
    known = _accel_cached()
    if known:
        return f"present; --accel auto uses {known[0]} ({known[1]})"
    return "present; --accel auto (the default) tries one KVM boot before the first run and uses TCG if it does not report"


def check() -> list[tuple[str, bool, str]]:
    """(item, ok, detail) for everything build and run need."""
    rows: list[tuple[str, bool, str]] = []
    q = shutil.which(QEMU)
    if q:
        ver = subprocess.run([q, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
        rows.append((QEMU, True, f"{q} ({ver[0] if ver else '?'})"))
    else:
        rows.append((QEMU, False, f"missing: apt-get install --no-install-recommends {QEMU_PKG}"))
    for tool, pkg in (("apt-get", "apt"), ("apt-cache", "apt"), ("dpkg-deb", "dpkg"), ("make", "make"), ("cc", "gcc")):
        p = shutil.which(tool)
        rows.append((tool, bool(p), p or f"missing (Debian package {pkg})"))
    cc = shutil.which(os.environ.get("CC", "cc"))
    libnuma = subprocess.run([cc, "-print-file-name=libnuma.a"], capture_output=True, text=True).stdout.strip() if cc else ""
    ok = os.path.isabs(libnuma)  # cc prints the bare name when it finds no such file
    rows.append(("libnuma.a", ok, libnuma if ok else "missing (static link of the guest binaries): apt-get install libnuma-dev"))
    man = _manifest()
    if man.get("kernel"):
        rows.append(("kernel package", True, f"{man['kernel']['package']} {man['kernel']['version']} (cached)"))
    else:
        rows.append(("kernel package", True, f"not fetched yet ({KERNEL_META} -> linux-image-*; `guest.py build`)"))
    if man.get("busybox"):
        rows.append(("busybox package", True, f"{BUSYBOX_PKG} {man['busybox']['version']} (cached)"))
    else:
        rows.append(("busybox package", True, f"not fetched yet ({BUSYBOX_PKG}; `guest.py build`)"))
    initrd = CACHE / "initramfs.cpio.gz"
    if initrd.exists():
        missing = man.get("missing", {})
        rows.append(("initramfs", True, f"{_rel(initrd)}; binaries: {', '.join(man.get('binaries', []))}"
                     + (f"; missing: {', '.join(missing)}" if missing else "")))
    else:
        rows.append(("initramfs", True, "not built yet (`guest.py build`)"))
    rows.append(("KVM", True, _kvm_state()))
    return rows


# --------------------------------------------------------------------------- build

def _manifest() -> dict:
    p = CACHE / "manifest.json"
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


def _run_logged(cmd: list[str], log: Path, cwd: Path | None = None, env: dict | None = None) -> int:
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as f:
        f.write(("$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env,
                              stdin=subprocess.DEVNULL).returncode


def _tail(log: Path, n: int = 3) -> str:
    try:
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def ensure_qemu(install: bool) -> None:
    if shutil.which(QEMU):
        return
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", QEMU_PKG]
    if not install:
        raise GuestUnavailable(f"{QEMU} not found; install it: {' '.join(cmd)}")
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise GuestUnavailable(f"{QEMU} not found; as root run: apt-get update && {' '.join(cmd)}")
    say(f"installing {QEMU_PKG} with apt-get")
    log = CACHE / "logs" / "apt.log"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if _run_logged(cmd, log, env=env) != 0:
        _run_logged(["apt-get", "update", "-qq"], log, env=env)
        if _run_logged(cmd, log, env=env) != 0:
            raise GuestUnavailable(f"'{' '.join(cmd)}' failed: {_tail(log)}")


def private_apt(refresh: bool = False) -> list[str]:
    """apt options for the kernel's suite alone: a sources list, package lists and a cache under
    build/qemu/apt (apt.conf(5): Dir::Etc::sourcelist, Dir::Etc::sourceparts, Dir::State::Lists,
    Dir::Cache); the lists are fetched once (or again with ``refresh``)."""
    base = CACHE / "apt"
    lists = base / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    (base / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    src = base / "sources.list"
    line = f"deb [signed-by={KERNEL_KEYRING}] {KERNEL_MIRROR} {KERNEL_SUITE} main\n"
    if not src.exists() or src.read_text() != line:
        src.write_text(line)
        refresh = True
    opts = ["-o", f"Dir::Etc::sourcelist={src}", "-o", "Dir::Etc::sourceparts=-",
            "-o", f"Dir::State::Lists={lists}", "-o", f"Dir::Cache={base / 'cache'}"]
    if os.geteuid() == 0:  # apt's sandbox user cannot write into build/
        opts += ["-o", "APT::Sandbox::User=root"]
    if refresh or not any(lists.glob("*_Packages")):
        log = CACHE / "logs" / "apt.log"
        if _run_logged(["apt-get", *opts, "update", "-qq"], log) != 0:
            raise GuestUnavailable(f"apt-get update of the private {KERNEL_SUITE} list failed: {_tail(log)}")
    return opts


def kernel_version_ok(version: str) -> bool:
    """A Debian kernel package version (6.12.95-1~bpo12+1) at least KERNEL_MIN."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= KERNEL_MIN


def _apt_download(pkg: str, dest: Path, opts: list[str] | None = None) -> Path:
    """apt-get download PKG into dest; returns the .deb (apt-get update once if needed). ``opts``:
    a private apt configuration (private_apt()); without it the machine's own."""
    dest.mkdir(parents=True, exist_ok=True)
    log = CACHE / "logs" / "apt.log"
    cmd = ["apt-get", *(opts or []), "download", "-q"]
    if os.geteuid() == 0 and not opts:  # apt's sandbox user cannot write into build/
        cmd += ["-o", "APT::Sandbox::User=root"]
    before = set(dest.glob("*.deb"))
    rc = _run_logged(cmd + [pkg], log, cwd=dest)
    if rc != 0 and os.geteuid() == 0 and not opts:
        _run_logged(["apt-get", "update", "-qq"], log)
        rc = _run_logged(cmd + [pkg], log, cwd=dest)
    if rc != 0:
        raise GuestUnavailable(f"apt-get download {pkg} failed: {_tail(log)}")
    new = [p for p in dest.glob(f"{pkg}_*.deb") if p not in before] or sorted(dest.glob(f"{pkg}_*.deb"))
    if not new:
        raise GuestUnavailable(f"apt-get download {pkg} left no {pkg}_*.deb in {_rel(dest)}")
    return max(new, key=lambda p: p.stat().st_mtime)


def _deb_field(deb: Path, field: str) -> str:
    return subprocess.run(["dpkg-deb", "--field", str(deb), field], capture_output=True, text=True,
                          check=True).stdout.strip()


def _kernel_package(opts: list[str]) -> str:
    """The linux-image-<abi>-amd64 package the meta package of KERNEL_SUITE points to."""
    r = subprocess.run(["apt-cache", *opts, "depends", KERNEL_META], capture_output=True, text=True)
    m = re.search(r"Depends:\s*(linux-image-\d\S*)", r.stdout)
    if not m:
        raise GuestUnavailable(f"apt-cache depends {KERNEL_META} ({KERNEL_SUITE}) names no linux-image-* package "
                               "(pass --kernel-package)")
    return m.group(1)


def _extract(deb: Path, members: dict[str, Path]) -> dict[str, Path]:
    """Extract files from a .deb's data archive: {regex on member name: destination dir}."""
    found: dict[str, Path] = {}
    p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert p.stdout is not None
    with tarfile.open(fileobj=p.stdout, mode="r|") as tar:
        for m in tar:
            for pat, dest in members.items():
                if m.isfile() and re.fullmatch(pat, m.name):
                    dest.mkdir(parents=True, exist_ok=True)
                    src = tar.extractfile(m)
                    assert src is not None
                    out = dest / Path(m.name).name
                    out.write_bytes(src.read())
                    out.chmod(0o755 if m.mode & 0o111 else 0o644)
                    found[pat] = out
    p.wait()
    if p.returncode != 0:
        raise GuestError(f"dpkg-deb --fsys-tarfile {deb.name} failed")
    return found


def fetch_packages(refresh: bool, kernel_package: str | None) -> dict:
    """Kernel and busybox from Debian packages, cached in build/qemu/debs/."""
    debs = CACHE / "debs"
    man = _manifest()
    out: dict = {}
    t0 = time.monotonic()

    kdeb = Path(man["kernel"]["deb"]) if man.get("kernel") else None
    stale = not kernel_version_ok((man.get("kernel") or {}).get("version", ""))  # e.g. a cached Debian 12 6.1
    if kernel_package or refresh or stale or not (kdeb and (CACHE / kdeb).exists()):
        opts = private_apt(refresh)
        pkg = kernel_package or _kernel_package(opts)
        say(f"fetching {pkg} ({KERNEL_SUITE}, apt-get download with a private apt configuration)")
        kpath = _apt_download(pkg, debs, opts)
        for old in debs.glob("linux-image-*.deb"):  # keep one kernel
            if old != kpath:
                old.unlink()
    else:
        kpath = CACHE / kdeb
    bdeb = Path(man["busybox"]["deb"]) if man.get("busybox") else None
    if refresh or not (bdeb and (CACHE / bdeb).exists()):
        say(f"fetching {BUSYBOX_PKG} (apt-get download)")
        bpath = _apt_download(BUSYBOX_PKG, debs)
        for old in debs.glob(f"{BUSYBOX_PKG}_*.deb"):
            if old != bpath:
                old.unlink()
    else:
        bpath = CACHE / bdeb
    out["fetch_s"] = round(time.monotonic() - t0, 2)

    kver = _deb_field(kpath, "Version")
    if not kernel_version_ok(kver) and not kernel_package:
        raise GuestUnavailable(f"{kpath.name}: kernel {kver} is older than {KERNEL_MIN[0]}.{KERNEL_MIN[1]} "
                               f"(the {KERNEL_SUITE} suite should have a newer one)")
    kdir = CACHE / "kernel"
    if man.get("kernel", {}).get("sha256") != _sha256(kpath) or not (kdir / "vmlinuz").exists():
        say(f"extracting the kernel from {kpath.name}")
        shutil.rmtree(kdir, ignore_errors=True)
        got = _extract(kpath, {r"\./boot/vmlinuz-.*": kdir, r"\./boot/config-.*": kdir})
        vmlinuz = got.get(r"\./boot/vmlinuz-.*")
        if not vmlinuz:
            raise GuestError(f"{kpath.name} has no ./boot/vmlinuz-*")
        (kdir / "release").write_text(vmlinuz.name[len("vmlinuz-"):] + "\n")
        vmlinuz.rename(kdir / "vmlinuz")
    config = next(iter(kdir.glob("config-*")), None)
    if config:
        text = config.read_text()
        for opt in ("CONFIG_NUMA", "CONFIG_MIGRATION", "CONFIG_ACPI_HMAT", "CONFIG_SERIAL_8250_CONSOLE",
                    "CONFIG_BLK_DEV_INITRD", "CONFIG_RD_GZIP", "CONFIG_DEVTMPFS"):
            if f"\n{opt}=y" not in text:
                raise GuestError(f"kernel {kpath.name}: {opt} is not built in; the guest needs it")
    bdir = CACHE / "busybox"
    if man.get("busybox", {}).get("sha256") != _sha256(bpath) or not (bdir / "busybox").exists():
        shutil.rmtree(bdir, ignore_errors=True)
        if not _extract(bpath, {r"\./bin/busybox": bdir}):
            raise GuestError(f"{bpath.name} has no ./bin/busybox")
    out["kernel"] = {"package": _deb_field(kpath, "Package"), "version": kver,
                     "release": (kdir / "release").read_text().strip(),
                     "deb": str(kpath.relative_to(CACHE)), "sha256": _sha256(kpath)}
    out["busybox"] = {"package": BUSYBOX_PKG, "version": _deb_field(bpath, "Version"),
                      "deb": str(bpath.relative_to(CACHE)), "sha256": _sha256(bpath)}
    return out


def build_static() -> tuple[dict[str, Path], dict[str, str]]:
    """make STATIC=1 BUILD=build/static for each component; (binaries, missing -> reason)."""
    bins: dict[str, Path] = {}
    missing: dict[str, str] = {}
    jobs = str(max(1, os.cpu_count() or 1))
    for comp, provides in COMPONENTS:
        mk = REPO / comp / "Makefile"
        if not mk.exists():
            for b in provides:
                missing[b] = f"{comp}/Makefile does not exist yet"
            continue
        log = CACHE / "logs" / f"static-{comp.replace('/', '-')}.log"
        log.unlink(missing_ok=True)
        rc = _run_logged(["make", "--no-print-directory", "-C", str(REPO / comp), f"-j{jobs}", "STATIC=1",
                          f"BUILD={STATIC_BUILD}"], log)
        if rc != 0:
            reason = f"make -C {comp} STATIC=1 failed (see {_rel(log)}): {_tail(log, 2)}"
            if not provides:
                say(f"warning: {reason}")
            for b in provides:
                missing[b] = reason
            continue
        for b in provides:
            p = STATIC_BUILD / "bin" / b
            if p.exists():
                bins[b] = p
            else:
                missing[b] = f"make -C {comp} STATIC=1 produced no bin/{b}"
    # the guest's own probe (move_pages status and migrate_pages without tierd)
    src = GUEST_SRC / "tbprobe.c"
    exe = CACHE / "bin" / "tbprobe"
    exe.parent.mkdir(parents=True, exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        log = CACHE / "logs" / "static-tbprobe.log"
        log.unlink(missing_ok=True)
        cc = os.environ.get("CC", "cc")
        if _run_logged([cc, *C_FLAGS, "-static", "-o", str(exe), str(src)], log) != 0:
            raise GuestError(f"building tbprobe failed: {_tail(log)}")
    bins["tbprobe"] = exe
    bad = sorted(REQUIRED & set(missing))
    if bad:
        raise GuestError("; ".join(f"{b}: {missing[b]}" for b in bad))
    return bins, missing


# newc cpio, written here so no cpio tool is needed; entries sorted, mtime 0
def _cpio(entries: list[tuple[str, int, bytes, tuple[int, int]]]) -> bytes:
    out = io.BytesIO()

    def pad(n: int) -> None:
        out.write(b"\0" * ((4 - n % 4) % 4))

    for ino, (name, mode, data, rdev) in enumerate([*entries, ("TRAILER!!!", 0, b"", (0, 0))], start=1):
        nb = name.encode() + b"\0"
        fields = [ino if name != "TRAILER!!!" else 0, mode, 0, 0, 2 if mode & 0o040000 else 1, 0,
                  len(data), 0, 0, rdev[0], rdev[1], len(nb), 0]
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        out.write(hdr + nb)
        pad(len(hdr) + len(nb))
        out.write(data)
        pad(len(data))
    return out.getvalue()


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)


def _stripped(path: Path) -> bytes:
    strip = shutil.which("strip")
    if not strip:
        return path.read_bytes()
    tmp = CACHE / "tmp-strip"
    r = subprocess.run([strip, "-o", str(tmp), str(path)], capture_output=True)
    data = (tmp if r.returncode == 0 else path).read_bytes()
    tmp.unlink(missing_ok=True)
    return data


def make_initramfs(bins: dict[str, Path], missing: dict[str, str]) -> Path:
    """build/qemu/initramfs.cpio.gz: busybox, /init, lib.sh, the static binaries."""
    dirs = ["bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp", "out", "etc",
            "etc/tierbench", "lib", "lib/tierbench", "opt", "opt/tierbench", "opt/tierbench/bin", "root"]
    entries: list[tuple[str, int, bytes, tuple[int, int]]] = [(d, 0o040755, b"", (0, 0)) for d in dirs]
    entries.append(("dev/console", 0o020600, b"", (5, 1)))
    entries.append(("bin/busybox", 0o100755, (CACHE / "busybox" / "busybox").read_bytes(), (0, 0)))
    entries.append(("bin/sh", 0o120777, b"busybox", (0, 0)))
    entries.append(("init", 0o100755, (GUEST_SRC / "init").read_bytes(), (0, 0)))
    entries.append(("lib/tierbench/lib.sh", 0o100644, (GUEST_SRC / "lib.sh").read_bytes(), (0, 0)))
    for name, path in sorted(bins.items()):
        entries.append((f"opt/tierbench/bin/{name}", 0o100755, _stripped(path), (0, 0)))
    miss = "".join(f"{b} {why}\n" for b, why in sorted(missing.items()))
    entries.append(("etc/tierbench/missing", 0o100644, miss.encode(), (0, 0)))
    entries.sort(key=lambda e: e[0])
    data = _gzip(_cpio(entries))
    return _write_atomic(CACHE / "initramfs.cpio.gz", data)


def _write_atomic(out: Path, data: bytes) -> Path:
    """Write a file of the shared build cache so that a concurrent reader (another job or test
    building or reading the guest) sees the old or the new file, never a partial one."""
    tmp = out.with_name(f"{out.name}.tmp.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    return out


def _sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build(refresh: bool = False, kernel_package: str | None = None, install: bool = True) -> dict:
    """Fetch, extract, build, pack; cached and incremental. Returns the manifest. One build at a
    time: Snakemake re-reads the workflow (and so builds the guest) in each job it runs as a
    subprocess, and tests share build/ with the checkout."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(refresh, kernel_package, install)


def _build(refresh: bool, kernel_package: str | None, install: bool) -> dict:
    t0 = time.monotonic()
    ensure_qemu(install)
    for tool in ("apt-get", "apt-cache", "dpkg-deb", "make"):
        if not shutil.which(tool):
            raise GuestUnavailable(f"{tool} not found (the guest is built from Debian packages with apt)")
    pk = fetch_packages(refresh, kernel_package)
    t1 = time.monotonic()
    say("building static binaries (make STATIC=1 BUILD=build/static)")
    bins, missing = build_static()
    for b, why in sorted(missing.items()):
        say(f"note: {b} not in the guest: {why}")
    t2 = time.monotonic()
    inputs = hashlib.sha256()
    for p in [CACHE / "busybox" / "busybox", GUEST_SRC / "init", GUEST_SRC / "lib.sh", *sorted(bins.values())]:
        inputs.update(p.name.encode() + _sha256(p).encode())
    inputs.update(json.dumps(missing, sort_keys=True).encode())
    man = _manifest()
    initrd = CACHE / "initramfs.cpio.gz"
    if man.get("inputs") != inputs.hexdigest() or not initrd.exists():
        say("packing the initramfs")
        make_initramfs(bins, missing)
    t3 = time.monotonic()
    man = {**pk, "binaries": sorted(bins), "missing": missing, "inputs": inputs.hexdigest(),
           "initramfs_bytes": initrd.stat().st_size,
           "timings_s": {"fetch_extract": round(t1 - t0, 2), "static_build": round(t2 - t1, 2),
                         "initramfs": round(t3 - t2, 2), "total": round(t3 - t0, 2)}}
    _write_atomic(CACHE / "manifest.json", (json.dumps(man, indent=1) + "\n").encode())
    say(f"guest ready: kernel {man['kernel']['package']} {man['kernel']['version']}, "
        f"initramfs {man['initramfs_bytes'] // 1024} KiB, binaries {', '.join(man['binaries'])} "
        f"({man['timings_s']['total']} s)")
    return man


# --------------------------------------------------------------------------- run

@dataclasses.dataclass
class GuestTest:
    name: str
    status: str
    detail: str


@dataclasses.dataclass
class RunResult:
    outcome: str                  # "exited" (script finished), "timeout", "crashed"
    exit_status: int | None       # the script's exit status when it finished
    tests: list[GuestTest]
    files: dict[str, Path]
    boot_to_result_s: float
    out: Path
    problems: list[str]
    accel: str = "tcg"            # the accelerator this boot used
    accel_why: str = ""           # why (pick_accel's reason, or the --accel asked for)

    @property
    def returncode(self) -> int:
        if self.outcome == "timeout":
            return 124
        if self.exit_status is None:
            return 1
        return self.exit_status


def parse_data(text: str) -> tuple[list[GuestTest], dict[str, bytes], int | None, list[str]]:
    """Parse the data channel: TEST lines, FILE blocks, the EXIT line; plus problems found."""
    tests: list[GuestTest] = []
    files: dict[str, bytes] = {}
    problems: list[str] = []
    exit_status: int | None = None
    cur: tuple[str, int] | None = None
    chunks: list[str] = []
    for raw in text.splitlines():
        line = raw.strip("\r\n\0 ")
        if cur is not None:
            if line.startswith("ENDFILE "):
                name, size = cur
                data = base64.b64decode("".join(chunks))
                digest = line.split()[-1]
                if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
                    problems.append(f"file {name} arrived damaged ({len(data)} of {size} bytes)")
                else:
                    files[name] = data
                cur, chunks = None, []
            else:
                chunks.append(line)
            continue
        if m := TEST_RE.match(line):
            tests.append(GuestTest(m.group(1), m.group(2), m.group(3) or ""))
        elif line.startswith("FILE "):
            parts = line.split()
            cur, chunks = (parts[1], int(parts[2])), []
        elif line.startswith("EXIT "):
            exit_status = int(line.split()[1])
    if cur is not None:
        problems.append(f"file {cur[0]} was cut off")
    return tests, files, exit_status, problems


# The guest's topologies: "cxl" (the default): node 0 with both CPUs, node 1 memory only and slower
# by its HMAT values, so a >= 6.10 kernel puts it in a lower memory tier (what a CXL expander or
# PMem in KMEM-DAX mode looks like); "2s": two sockets, each one node with two cores of two SMT
# threads (CPUs 0-3 node 0, 4-7 node 1; Linux numbers a core's threads next to each other here:
# 0-1 one core): what a two-socket server looks like, both nodes in one memory tier.
TOPOLOGIES = ("cxl", "2s")


def qemu_command(kernel: Path, initrd: Path, console: Path, data: Path, accel: str,
                 mem_mib: tuple[int, int], append: str = "", topology: str = "cxl") -> list[str]:
    n0, n1 = mem_mib
    if topology not in TOPOLOGIES:
        raise GuestError(f"unknown topology {topology!r} (one of {', '.join(TOPOLOGIES)})")
    mem = ["-m", f"{n0 + n1}M", "-object", f"memory-backend-ram,size={n0}M,id=m0",
           "-object", f"memory-backend-ram,size={n1}M,id=m1"]
    if topology == "2s":
        return [QEMU, "-accel", accel, "-machine", "q35", "-cpu", "max", "-smp", "8,sockets=2,cores=2,threads=2",
                *mem, "-numa", "node,nodeid=0,cpus=0-3,memdev=m0", "-numa", "node,nodeid=1,cpus=4-7,memdev=m1",
                *_boot_args(kernel, initrd, console, data, append)]
    cmd = [QEMU, "-accel", accel, "-machine", "q35,hmat=on", "-cpu", "max", "-smp", "2", *mem,
           "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
           "-numa", "node,nodeid=1,memdev=m1,initiator=0"]
    for node, (lat, bw) in HMAT.items():
        cmd += ["-numa", f"hmat-lb,initiator=0,target={node},hierarchy=memory,data-type=access-latency,latency={lat}",
                "-numa", f"hmat-lb,initiator=0,target={node},hierarchy=memory,data-type=access-bandwidth,bandwidth={bw}"]
    return cmd + _boot_args(kernel, initrd, console, data, append)


def _boot_args(kernel: Path, initrd: Path, console: Path, data: Path, append: str) -> list[str]:
    cmd: list[str] = []
    cmd += ["-kernel", str(kernel), "-initrd", str(initrd),
            "-append", f"{KERNEL_CMDLINE} {append}".strip(),
            "-display", "none", "-nodefaults", "-no-reboot",
            "-serial", f"file:{console}", "-serial", f"file:{data}"]
    return cmd


def _stop(proc: subprocess.Popen) -> None:
    """Stop QEMU by its pid: SIGTERM, then SIGKILL after 5 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def with_libraries(files: dict[str, Path]) -> dict[str, Path]:
    """``files`` (path in the guest -> file here) plus the shared libraries and the dynamic loader
    each dynamically linked one needs (``ldd``), at the paths the loader looks for them."""
    out = dict(files)
    for path in list(files.values()):
        r = subprocess.run(["ldd", str(path)], capture_output=True, text=True)
        if r.returncode != 0:  # a static binary, or not an ELF file at all
            continue
        for line in r.stdout.splitlines():
            m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if m:
                out.setdefault(m.group(1).lstrip("/"), Path(m.group(1)))
    return out


# what a shipped Python leaves out of its standard library: tests, GUIs, the static library
PY_SKIP = {"test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "pydoc_data", "site-packages",
           "dist-packages", "__pycache__", "venv"}
PY_PATH = "/opt/tierbench/py:/opt/tierbench/site"  # PYTHONPATH in the guest: tierbench's packages, then others


def python_runtime(packages: list[str], site: list[str]) -> dict[str, Path]:
    """This machine's Python for the guest (the guest's /usr/bin/python; Debian's amd64 build, as
    the guest's own packages are): the interpreter, its standard library, the shared libraries of
    both, tierbench's ``packages`` (repository directories, e.g. ``workflows/harness``) under
    /opt/tierbench/py and the installed modules ``site`` (top-level names, e.g. ``duckdb``) under
    /opt/tierbench/site. The guest's scripts set ``PYTHONPATH={PY_PATH}``. Python finds its
    standard library from the interpreter's own path (prefix /usr), so it needs nothing else."""
    import importlib.metadata  # noqa: PLC0415
    import importlib.util  # noqa: PLC0415
    import sysconfig  # noqa: PLC0415

    exe = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    stdlib = Path(sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["stdlib"])
    elf = {"usr/bin/python": exe}
    files: dict[str, Path] = {}
    for p in stdlib.rglob("*"):
        rel = p.relative_to(stdlib)
        if p.is_file() and not (set(rel.parts) & PY_SKIP) and not rel.parts[0].startswith("config-") \
                and not p.name.startswith(("_tkinter", "_test", "_xxtest")):
            (elf if p.suffix == ".so" else files)[f"usr/lib/{stdlib.name}/{rel}"] = p
    for pkg in packages:
        base = REPO / pkg
        for p in [base, *base.parents]:  # the package and its parents' __init__.py
            if p == REPO:
                break
            if (p / "__init__.py").exists():
                files[f"opt/tierbench/py/{p.relative_to(REPO)}/__init__.py"] = p / "__init__.py"
        for p in base.rglob("*.py"):
            files[f"opt/tierbench/py/{p.relative_to(REPO)}"] = p
    for name in site:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            raise GuestError(f"the Python module {name} is not installed here; it cannot be shipped to the guest")
        top = Path(spec.origin).parent if spec.submodule_search_locations else Path(spec.origin)
        root = top.parent
        # its distributions' metadata too (packages read their own version from it)
        dists = [d.replace("-", "_") for d in importlib.metadata.packages_distributions().get(name, [])]
        meta = [p for d in dists for p in root.glob(f"{d}-*.dist-info/*")]
        for p in ([top] if top.is_file() else list(top.rglob("*"))) + meta:
            if p.is_file() and "__pycache__" not in p.parts:
                (elf if p.suffix == ".so" else files)[f"opt/tierbench/site/{p.relative_to(root)}"] = p
    return {**files, **with_libraries(elf)}


# -------------------------------------------------------------------- accelerator

ACCELS = ("auto", "kvm", "tcg")
# A KVM boot of this guest with an empty script reports within seconds where KVM works; where it
# does not, QEMU either aborts at once (a paravirtual /dev/kvm refusing an MSR of `-cpu max`:
# "failed to set MSR 0x10a") or stops the VM (below), and a boot may also hang, so the try is
# bounded.
ACCEL_TRY_S = 60
# Where KVM takes a vCPU exit it cannot handle, QEMU prints "KVM internal error. Suberror: N" and
# stops the VM without exiting (accel/kvm/kvm-all.c: kvm_handle_internal_error() returns -1 and
# kvm_cpu_exec() then calls vm_stop(RUN_STATE_INTERNAL_ERROR)); the guest never runs again, so a
# KVM boot whose QEMU says this is stopped at once, not at its timeout. Seen on both paravirtual
# KVMs this project has met (the development VM with -cpu max,-arch-capabilities, the 16-core
# device with -cpu max): Suberror 1, an emulation failure at the kernel decompressor's BMI2 shlx,
# which KVM's emulator does not decode (hosts/qemu/README.md). A failed VM entry stops it the same
# way, with "KVM: entry failed, hardware error 0x..." (target/i386/kvm/kvm.c, KVM_EXIT_FAIL_ENTRY:
# the handler returns -1, and QEMU stays alive with the VM stopped).
KVM_STOPPED = (b"KVM internal error", b"KVM: entry failed")
ACCEL_CACHE = CACHE / "accel.json"
_ACCEL: dict[str, tuple[str, str]] = {}


def _first_line(log: Path) -> str:
    """The first line QEMU wrote to its log (its own error, where it had one), at most 160 characters."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[0][:160] if lines else ""


def _head(log: Path, size: int = 65536) -> bytes:
    """The first ``size`` bytes of a log QEMU is writing (polled while it runs: not read whole)."""
    try:
        with open(log, "rb") as f:
            return f.read(size)
    except OSError:
        return b""


def _accel_key() -> str:
    """What the KVM try's answer depends on: this boot of the host (/proc/sys/kernel/random/boot_id,
    proc(5)), the QEMU binary and the guest build."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = "?"
    q = shutil.which(QEMU)
    st = os.stat(q) if q else None
    man = _manifest()
    qemu = f"{q}:{st.st_size}:{st.st_mtime_ns}" if st else "-"
    return f"{boot}|{qemu}|{man.get('inputs', '')}|{man.get('kernel', {}).get('sha256', '')}"


def _accel_cached(key: str | None = None) -> tuple[str, str] | None:
    key = key or _accel_key()
    if key in _ACCEL:
        return _ACCEL[key]
    try:
        d = json.loads(ACCEL_CACHE.read_text())
    except (OSError, ValueError):
        return None
    if d.get("key") == key and d.get("accel") in ("kvm", "tcg"):
        return d["accel"], d.get("why", "")
    return None


def accel_known() -> tuple[str, str] | None:
    """The accelerator already chosen on this host for this QEMU and guest build, and why (None
    where none is yet): what :func:`pick_accel` returns without its try."""
    return _accel_cached()


def pick_accel() -> tuple[str, str]:
    """(accelerator, why): KVM where /dev/kvm is usable and one KVM boot of this guest reports, TCG
    otherwise. Decided once per host boot, QEMU binary and guest build, and kept in
    build/qemu/accel.json, so that a workflow's boots (the facts, each batch: separate processes) try
    it once; a try costs a second where QEMU refuses KVM at once, up to ACCEL_TRY_S where a boot
    hangs, a few seconds where it works."""
    key = _accel_key()
    known = _accel_cached(key)
    if known:
        return known
    accel, why = "tcg", "/dev/kvm absent or not usable"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        import tempfile  # noqa: PLC0415

        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="kvm-try-", dir=CACHE) as tmp:
            script = Path(tmp) / "try.sh"
            script.write_text("true\n")
            say(f"trying one KVM boot (up to {ACCEL_TRY_S} s) to choose the accelerator")
            try:
                res = _boot(timeout=ACCEL_TRY_S, script=script, out=Path(tmp) / "run", accel="kvm",
                            mem_mib=(512, 512), append="", stream=False, files=None, topology="cxl")
                if res.outcome == "exited":
                    accel, why = "kvm", f"a KVM boot reported in {res.boot_to_result_s:g} s"
                else:
                    said = _first_line(Path(tmp) / "run" / "qemu.log")
                    why = (f"a KVM boot did not report ({res.outcome}"
                           + (f": QEMU said {said!r}" if said else "") + ")")
            except GuestUnavailable:
                raise
            except GuestError as e:
                why = f"a KVM boot failed: {str(e)[:160]}"
    _ACCEL[key] = (accel, why)
    tmpf = ACCEL_CACHE.with_name(f".accel-{os.getpid()}.json")
    try:
        ACCEL_CACHE.parent.mkdir(parents=True, exist_ok=True)
        tmpf.write_text(json.dumps({"key": key, "accel": accel, "why": why}) + "\n")
        os.replace(tmpf, ACCEL_CACHE)
    except OSError as e:  # kept for this process only: the next one tries again
        say(f"cannot keep the accelerator's choice in {_rel(ACCEL_CACHE)}: {e}")
    say(f"accelerator: {accel} ({why})")
    return accel, why


def _built() -> bool:
    """Whether `build` has made what a boot needs (the manifest, the kernel, the initramfs)."""
    return bool(_manifest()) and (CACHE / "kernel" / "vmlinuz").exists() and (CACHE / "initramfs.cpio.gz").exists()


def run(timeout: float = 300, script: Path | None = None, out: Path | None = None, accel: str = "auto",
        mem_mib: tuple[int, int] = (512, 512), append: str = "", stream: bool = True,
        files: dict[str, Path] | None = None, topology: str = "cxl") -> RunResult:
    """Boot the guest, run SCRIPT (default guest/tests.sh), collect results into OUT. ``files``:
    further files for this boot (path in the guest -> file here, e.g. from :func:`with_libraries`),
    added beside the script. A boot whose kernel panicked is said, its console kept as
    console-panic.log, and the guest booted once more (a second panic is the result): under TCG
    here about one boot in fifty oopses at an instruction the kernel is patching at that moment
    (a static key flipped: 3 s in, in the idle path's sched_clock_cpu(); or 3 minutes into a
    workflow's batch, in migrate_task_rq_fair(), its RIP inside a two-byte jmp), which is the
    emulator's, not the guest's points'. Every boot starts from the same initramfs, so the second
    runs every point again from scratch, whether or not /init had sent anything. ``accel``: kvm,
    tcg, or auto (:func:`pick_accel`); run.json records the one used and why."""
    if accel not in ACCELS:
        raise GuestError(f"unknown accelerator {accel!r} (one of {', '.join(ACCELS)})")
    why = f"--accel {accel}"
    if accel == "auto":  # (an unbuilt guest: no try; the boot below says it is not built)
        accel, why = pick_accel() if _built() else ("tcg", "the guest is not built")
    kw = dict(timeout=timeout, script=script, out=out, accel=accel, mem_mib=mem_mib, append=append,
              stream=stream, files=files, topology=topology, accel_why=why)
    res = _boot(**kw)
    if res.outcome != "crashed":
        return res
    console, data = res.out / "console.log", res.out / "data.log"
    if console.exists() and b"Kernel panic" in console.read_bytes():
        ran = data.exists() and data.read_bytes().strip()
        shutil.copyfile(console, res.out / "console-panic.log")
        say(f"the guest kernel panicked {'while /init ran the script' if ran else 'before /init ran anything'} "
            f"(see {_rel(res.out / 'console-panic.log')}); booting once more")
        res = _boot(**kw)
    return res


def _boot(timeout: float, script: Path | None, out: Path | None, accel: str, mem_mib: tuple[int, int],
          append: str, stream: bool, files: dict[str, Path] | None, topology: str, accel_why: str = "") -> RunResult:
    """One boot of :func:`run`."""
    man = _manifest()
    kernel = CACHE / "kernel" / "vmlinuz"
    base = CACHE / "initramfs.cpio.gz"
    if not _built():
        raise GuestError("the guest is not built; run `hosts/qemu/guest.py build` first")
    if not shutil.which(QEMU):
        raise GuestUnavailable(f"{QEMU} not found; apt-get install --no-install-recommends {QEMU_PKG}")
    script = script or GUEST_SRC / "tests.sh"
    if not script.is_file():
        raise GuestError(f"script {script} " + ("is not a file" if script.exists() else "does not exist"))
    out = (out or CACHE / "run").resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise GuestError(f"--out {out}: cannot make the directory: {e.strerror}") from None
    for old in ("console.log", "data.log", "results.txt", "run.json", "qemu.log"):
        (out / old).unlink(missing_ok=True)
    shutil.rmtree(out / "files", ignore_errors=True)

    # the script goes in a second cpio appended to the cached one (the kernel
    # unpacks concatenated archives in order)
    entries = [("run.sh", 0o100755, script.read_bytes(), (0, 0))]
    dirs: set[str] = set()
    for gpath, hpath in sorted((files or {}).items()):
        parts = gpath.split("/")[:-1]
        dirs.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        mode = 0o100755 if os.access(hpath, os.X_OK) else 0o100644
        entries.append((gpath, mode, Path(hpath).read_bytes(), (0, 0)))
    entries += [(d, 0o040755, b"", (0, 0)) for d in dirs]
    extra = _gzip(_cpio(sorted(entries, key=lambda e: e[0])))
    initrd = out / "initrd.img"
    initrd.write_bytes(base.read_bytes() + extra)
    console, data = out / "console.log", out / "data.log"
    cmd = qemu_command(kernel, initrd, console, data, accel, mem_mib, append, topology)
    (out / "qemu-command.txt").write_text(" ".join(cmd) + "\n")

    t0 = time.monotonic()
    with open(out / "qemu.log", "wb") as qlog:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qlog, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=_dies_with_launcher(os.getpid()))
    say(f"booting ({accel}, " + ("2 CPUs on node 0, node 1 memory-only" if topology == "cxl" else
        "2 sockets x 2 cores x 2 threads, a node each") + f"; pid {proc.pid}); "
        f"timeout {timeout:g} s; console: {_rel(console)}")
    outcome = "crashed"
    problems_seen: list[str] = []
    t_result = None
    pos = 0
    partial = b""
    try:
        while True:
            done = proc.poll() is not None
            if stream and console.exists():
                with open(console, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
                    pos += len(chunk)
                lines = (partial + chunk).split(b"\n")
                partial = lines.pop()
                for ln in lines:
                    text = ln.decode(errors="replace").rstrip("\r")
                    if text.strip():
                        print(f"  guest| {text}", file=sys.stderr, flush=True)
            if t_result is None and data.exists() and b"\nEXIT " in b"\n" + data.read_bytes():
                t_result = time.monotonic() - t0
            if done:
                break
            if accel == "kvm" and any(m in _head(out / "qemu.log") for m in KVM_STOPPED):
                problems_seen.append(f"QEMU stopped the guest: {_first_line(out / 'qemu.log')} "
                                     "(KVM cannot run this guest here; --accel tcg can)")
                say(f"{problems_seen[-1]}: stopping QEMU (pid {proc.pid})")
                _stop(proc)
                break
            if time.monotonic() - t0 > timeout:
                outcome = "timeout"
                say(f"timeout after {timeout:g} s: stopping QEMU (pid {proc.pid})")
                _stop(proc)
                break
            time.sleep(0.2)
    except (KeyboardInterrupt, Interrupted):
        say(f"interrupted: stopping QEMU (pid {proc.pid})")
        _stop(proc)
        raise
    finally:
        initrd.unlink(missing_ok=True)
    wall = time.monotonic() - t0

    text = data.read_bytes().decode(errors="replace") if data.exists() else ""
    tests, blobs, exit_status, problems = parse_data(text)
    problems = problems_seen + problems
    if exit_status is not None and outcome != "timeout":
        outcome = "exited"
    elif outcome == "crashed" and not problems_seen:
        said = _first_line(out / "qemu.log") if proc.returncode else ""
        problems.append(f"the guest stopped without reporting an exit status (QEMU exit {proc.returncode}"
                        + (f": QEMU said {said!r}" if said else "") + f"); see {_rel(console)} and {_rel(out / 'qemu.log')}")
    files: dict[str, Path] = {}
    for name, blob in blobs.items():
        p = (out / "files" / name).resolve()
        if (out / "files").resolve() not in p.parents:
            problems.append(f"file name {name!r} leaves the output directory; dropped")
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(blob)
        files[name] = p
    (out / "results.txt").write_text("".join(f"TEST {t.name} {t.status} {t.detail}\n" for t in tests))
    res = RunResult(outcome, exit_status, tests, files, round(t_result if t_result else wall, 2), out, problems,
                    accel, accel_why)
    (out / "run.json").write_text(json.dumps({
        "functional_host": "timings not meaningful", "outcome": outcome, "exit_status": exit_status,
        "boot_to_result_s": res.boot_to_result_s, "wall_s": round(wall, 2), "accel": accel, "accel_why": accel_why,
        "mem_mib": list(mem_mib), "topology": topology, "kernel": man.get("kernel", {}).get("version"),
        "tests": {s: sum(t.status == s for t in tests) for s in ("PASS", "FAIL", "SKIP")},
        "problems": problems}, indent=1) + "\n")
    return res


def _memtotal_mib() -> int | None:
    """This host's memory (MemTotal, proc(5) /proc/meminfo), in MiB; None where it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cpus(spec: str) -> list[int]:
    out: list[int] = []
    for part in filter(None, spec.strip().split(",")):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def _damon_facts(kv: dict) -> dict | None:
    """hostdetect's ``damon`` facts from the guest's damon_* lines (None: facts from an /init
    that did not record them). CONFIG_DAMON_PADDR is not readable in the guest: None (unknown),
    checked when a point writes ``paddr`` to a context's operations. ``memcg``: "v2" where /init
    mounted cgroup v2 with the memory controller (``damon_memcg``), else None."""
    if "damon_sysfs" not in kv:
        return None
    present = kv["damon_sysfs"] == "1"
    release = kv.get("kernel", "")
    m = re.match(r"(\d+)\.(\d+)", release)
    new_enough = bool(m) and (int(m.group(1)), int(m.group(2))) >= (6, 2)  # hostdetect.DAMON_MIN_KERNEL
    n = kv.get("damon_nr_kdamonds", "")
    return {"sysfs": present, "usable_by_tierd": present and new_enough,
            "reason": "DAMON sysfs interface present" if present and new_enough else
            ("no /sys/kernel/mm/damon/admin in the guest" if not present else f"kernel {release} is older than 6.2"),
            "kdamonds": int(n) if n.isdigit() else None,
            "exclusive": [m for m in kv.get("damon_exclusive", "").split(",") if m], "paddr": None,
            "memcg": "v2" if kv.get("damon_memcg") == "v2" else None}


def guest_facts(facts_txt: str) -> dict:
    """The guest's facts.txt (key=value) in workflows/harness/hostdetect.py's shape, so a
    host profile (hosts/qemu-numa.yaml) can be resolved against the guest, not this machine."""
    kv = dict(line.split("=", 1) for line in facts_txt.splitlines() if "=" in line)
    nodes = {}
    for n in _cpus(kv.get("nodes_online", "")):
        nodes[str(n)] = {"cpus": _cpus(kv.get(f"node{n}_cpus", "")),
                         "memory_mib": int(kv.get(f"node{n}_mem_kB", "0") or 0) // 1024}
    online = _cpus(kv.get("cpus_online", ""))
    siblings = {m.group(1): _cpus(v) for k, v in kv.items() if (m := re.fullmatch(r"cpu(\d+)_siblings", k)) and v}
    package = {int(m.group(1)): int(v) for k, v in kv.items() if (m := re.fullmatch(r"cpu(\d+)_package", k)) and v.isdigit()}
    for n in nodes.values():
        n["sockets"] = sorted({package[c] for c in n["cpus"] if c in package})
    by_socket: dict[str, list[int]] = {}
    for nid, n in nodes.items():
        for sk in n["sockets"]:
            by_socket.setdefault(str(sk), []).append(int(nid))
    hmat: dict[str, dict] = {}  # hostdetect's shape: node -> {read_latency: ns, read_bandwidth: MB/s, ...}
    for k, v in kv.items():
        m = re.fullmatch(r"node(\d+)_hmat_(\w+)", k)
        if m and v.isdigit():
            hmat.setdefault(m.group(1), {})[m.group(2)] = int(v)
    for k, v in kv.items():  # access1 (CPU initiators) under "cpu", as hostdetect.hmat keeps it
        m = re.fullmatch(r"node(\d+)_hmatcpu_(\w+)", k)
        if m and v.isdigit() and m.group(1) in hmat:
            hmat[m.group(1)].setdefault("cpu", {})[m.group(2)] = int(v)
    return {
        "hostname": "qemu-numa", "arch": "x86_64", "kernel": kv.get("kernel", ""),
        "functional": kv.get("functional") == "true",
        "nodes": nodes,
        "memory_nodes": [int(k) for k, v in nodes.items() if v["memory_mib"] > 0],
        "cpu_nodes": [int(k) for k, v in nodes.items() if v["cpus"]],
        "online_cpus": online, "allowed_cpus": online,
        "hmat": hmat,
        "memory_tiers": {k[len("memory_tier"):-len("_nodes")]: _cpus(v) for k, v in kv.items()
                         if k.startswith("memory_tier") and k.endswith("_nodes")},
        "settings": {k: kv[k] for k in ("numa_balancing", "demotion_enabled", "thp_enabled") if k in kv},
        "damon": _damon_facts(kv),
        "smt_siblings": siblings,
        "snc": {"enabled": any(len(v) > 1 for v in by_socket.values()), "socket_nodes": by_socket},
    }


# --------------------------------------------------------------------------- CLI

def _raise_interrupted(signum, _frame):
    raise Interrupted(signum)


def _dies_with_launcher(parent: int):
    """A ``preexec_fn``: QEMU (in a session of its own, where no Ctrl-C reaches it) gets SIGKILL when
    the launcher dies, whatever kills it (prctl(2), PR_SET_PDEATHSIG: sent when the thread that
    forked it exits; a launcher gone before the call never sends it, so QEMU then does not start:
    prctl(2) says to compare the parent's pid after the call). As workflows/harness/procs.py gives
    the harness's own children; this file stands alone (it is also run as a script)."""
    def setup() -> None:
        import ctypes  # noqa: PLC0415

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except OSError:
            return
        if os.getppid() != parent:
            os._exit(1)
    return setup


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="guest.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check", help="print what is present and what is missing")
    b = sub.add_parser("build", help="fetch packages, build static binaries, make the initramfs (cached)")
    b.add_argument("--refresh", action="store_true", help="fetch the packages again (newest versions)")
    b.add_argument("--kernel-package", help=f"kernel package to use (default: what {KERNEL_META} depends on)")
    b.add_argument("--no-install", action="store_true", help=f"never apt-get install {QEMU_PKG}")
    r = sub.add_parser("run", help="boot the guest, run a script, copy results out")
    r.add_argument("--timeout", type=float, default=300, help="seconds before QEMU is stopped (default 300)")
    r.add_argument("--script", type=Path, help="busybox sh script to run as root in the guest "
                   "(default hosts/qemu/guest/tests.sh); files it writes to $OUT come back")
    r.add_argument("--out", type=Path, help="directory for console.log, results.txt, run.json, files/ "
                   "(default build/qemu/run)")
    r.add_argument("--accel", choices=ACCELS, default="auto",
                   help="QEMU accelerator: auto (default) uses KVM where /dev/kvm is usable and one KVM boot "
                        "of this guest reports (decided once per host boot, kept in build/qemu/accel.json), TCG otherwise")
    r.add_argument("--mem-mib", default="512,512", help="memory of node 0 and node 1 in MiB (default 512,512)")
    r.add_argument("--append", default="", help="extra kernel command line arguments")
    r.add_argument("--topology", choices=TOPOLOGIES, default="cxl",
                   help="cxl: node 1 CPU-less and slower (HMAT), in a lower memory tier (default); "
                        "2s: two sockets, one node each, two cores of two SMT threads per socket")
    r.add_argument("--quiet", action="store_true", help="do not stream the guest console")
    a = ap.parse_args(argv)
    # QEMU runs in its own session: stop it by pid, also on SIGHUP (a closed terminal, an ssh session
    # gone); and it dies with the launcher (_dies_with_launcher). The handlers are put back on
    # return: main() is also called in-process, by tests, and a handler left behind is inherited by
    # every later fork.
    old = {sig: signal.signal(sig, _raise_interrupted) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        return _main(a)
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _main(a) -> int:
    try:
        if a.cmd == "check":
            rows = check()
            for item, ok, detail in rows:
                print(f"{'ok ' if ok else 'MISSING'} {item}: {detail}")
            return 0 if all(ok for _, ok, _ in rows) else 1
        if a.cmd == "build":
            build(a.refresh, a.kernel_package, install=not a.no_install)
            return 0
        try:
            n0, n1 = (int(x) for x in a.mem_mib.split(","))
            if n0 < 256 or n1 < 128:
                raise ValueError
        except ValueError:
            print("guest.py: error: --mem-mib must be N0,N1 in MiB (node 0 >= 256, node 1 >= 128)", file=sys.stderr)
            return 2
        total = _memtotal_mib()
        if total and n0 + n1 > total:
            print(f"guest.py: error: --mem-mib {n0},{n1}: {n0 + n1} MiB in all is more than this host's memory "
                  f"({total} MiB, MemTotal in /proc/meminfo)", file=sys.stderr)
            return 2
        if not (math.isfinite(a.timeout) and a.timeout > 0):
            print("guest.py: error: --timeout must be a positive number of seconds", file=sys.stderr)
            return 2
        res = run(a.timeout, a.script, a.out, a.accel, (n0, n1), a.append, stream=not a.quiet, topology=a.topology)
        for t in res.tests:
            print(f"TEST {t.name} {t.status} {t.detail}")
        for p in res.problems:
            say(f"problem: {p}")
        counts = {s: sum(t.status == s for t in res.tests) for s in ("PASS", "FAIL", "SKIP")}
        say(f"{res.outcome}: exit status {res.exit_status}, {counts['PASS']} passed, {counts['FAIL']} failed, "
            f"{counts['SKIP']} skipped; {res.accel}; boot to result {res.boot_to_result_s} s "
            f"(functional host: timings not meaningful); results in {_rel(res.out)}")
        return res.returncode
    except GuestError as e:
        print(f"guest.py: error: {e}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Interrupted) as e:
        return 128 + (e.signum if isinstance(e, Interrupted) else signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
