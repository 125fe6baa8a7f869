"""Set up what `make run` / `make test` need, using only the standard library.

1. System packages (Debian names): C and C++ compilers (g++ with OpenMP builds GAPBS),
   make, libnuma headers, numactl, fio, python3-venv, ffmpeg (workloads/ffmpeg), postgresql-15
   (workloads/pgtpcc), libpmemobj-dev (workloads/kvpmem), and what Silo's build needs (jemalloc,
   Berkeley DB C++, libaio, OpenSSL, zlib headers; patch, autoconf, automake, libtool; ccache, which
   its build goes through). Missing ones are installed with apt-get when we are root;
   otherwise the exact command is printed and we stop.
2. Measurement tools, where this CPU can use them (each one skipped is named, with why):
   linux-perf (perf: the perf_uncore collector), pcm (pcm-memory; Intel only), ipmctl (Optane
   PMem; Cascade Lake, Ice Lake-SP and Sapphire Rapids only), msr-tools (rdmsr/wrmsr; x86).
   They are optional: without root the command is printed and setup goes on.
3. A Python environment: an already active virtualenv/conda environment that has
   every requirement is used as it is; otherwise ``.venv`` is created (or
   refreshed when requirements.txt changed) and filled from requirements.txt: by uv (pinned;
   installed into the first venv, then kept in ~/.cache/tierbench for the next clones, whose venv
   then needs no pip of its own), with pip's package sources passed on, and by pip where uv cannot
   be had, fails, or pip is configured in a way uv does not follow.
   ``TIERBENCH_INSTALLER=pip`` always uses pip.

Prints the chosen interpreter to ``build/python`` for the Makefile.

``--cachebench`` instead installs the Debian packages CacheLib's dependency chain builds against
(workloads/cachebench/debian-packages.txt; about 1 GB, so not part of the default setup).
``--slurm`` installs a single-node SLURM's packages (profiles/slurm/debian-packages.txt) for the
cluster test (tests/test_cluster.py).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".venv"
REQ = REPO / "requirements.txt"
MODULES = ["snakemake", "pandas", "seaborn", "matplotlib", "yaml", "jsonschema", "pytest"]
# (how to tell it is present, Debian package)
SYSTEM = [
    (lambda: shutil.which("cc") or shutil.which("gcc"), "gcc"),
    (lambda: shutil.which("g++"), "g++"),
    (lambda: shutil.which("make"), "make"),
    (lambda: Path("/usr/include/numa.h").exists(), "libnuma-dev"),
    (lambda: shutil.which("numactl"), "numactl"),
    (lambda: shutil.which("fio"), "fio"),
    # Silo (workloads/silo/build.sh)
    (lambda: Path("/usr/include/jemalloc/jemalloc.h").exists(), "libjemalloc-dev"),
    (lambda: Path("/usr/include/db_cxx.h").exists(), "libdb5.3++-dev"),
    (lambda: Path("/usr/include/libaio.h").exists(), "libaio-dev"),
    (lambda: Path("/usr/include/openssl/ssl.h").exists(), "libssl-dev"),
    (lambda: Path("/usr/include/zlib.h").exists(), "zlib1g-dev"),
    # Silo's build compiles through ccache where it can (lib/ccache.sh): a rebuild of the
    # pinned sources (a second clone) takes ~8 s instead of ~55 s, the same bytes
    (lambda: shutil.which("ccache"), "ccache"),
    (lambda: shutil.which("patch"), "patch"),
    (lambda: shutil.which("autoreconf"), "autoconf"),
    (lambda: shutil.which("automake"), "automake"),
    (lambda: shutil.which("libtoolize"), "libtool"),
    (lambda: _has_ensurepip(), "python3-venv"),
    # workloads/ycsb: the YCSB driver is built with Maven and runs on a JDK; Redis is a
    # private instance per point (the package's system service is never used)
    (lambda: shutil.which("javac"), "default-jdk-headless"),
    (lambda: shutil.which("mvn"), "maven"),
    (lambda: shutil.which("redis-server"), "redis-server"),
    (lambda: shutil.which("memcached"), "memcached"),
    # workloads/kvpmem: kv-pmem is built against PMDK's libpmemobj and runs on it
    (lambda: Path("/usr/include/libpmemobj.h").exists(), "libpmemobj-dev"),
    (lambda: any(Path("/usr/lib").glob("*/libpmemobj.so.1")) or Path("/usr/lib/libpmemobj.so.1").exists(), "libpmemobj1"),
    # workloads/ffmpeg: FFmpeg (x264); workloads/pgtpcc: PostgreSQL 15 and pgbench (a private cluster
    # per point, the package's system service is never used); mkswap/swapon/swapoff/setpriv
    # (util-linux: swap areas of a scenario, workflows/harness/memcg.py)
    (lambda: shutil.which("ffmpeg"), "ffmpeg"),
    (lambda: any(Path("/usr/lib/postgresql").glob("*/bin/pgbench")), "postgresql-15"),
    (lambda: shutil.which("swapon") and shutil.which("setpriv"), "util-linux"),
]


# Intel server CPUs by /proc/cpuinfo "model" (family 6), from the kernel's
# arch/x86/include/asm/intel-family.h: INTEL_SKYLAKE_X 0x55 (Skylake/Cascade/Cooper Lake-SP),
# INTEL_ICELAKE_X 0x6A, INTEL_ICELAKE_D 0x6C, INTEL_SAPPHIRERAPIDS_X 0x8F, INTEL_EMERALDRAPIDS_X 0xCF,
# INTEL_GRANITERAPIDS_X 0xAD, INTEL_GRANITERAPIDS_D 0xAE, INTEL_ATOM_CRESTMONT_X 0xAF (Sierra Forest).
PMEM_MODELS = {0x55: "Cascade Lake", 0x6A: "Ice Lake-SP", 0x6C: "Ice Lake-D", 0x8F: "Sapphire Rapids"}
NEWER_THAN_PCM_202302 = {0xCF: "Emerald Rapids", 0xAD: "Granite Rapids", 0xAE: "Granite Rapids-D",
                         0xAF: "Sierra Forest"}
PCM_DEBIAN = "202302"  # Debian 12's pcm package version


def cpu_identity(cpuinfo: str) -> tuple[str, int | None, int | None]:
    """(vendor_id, cpu family, model) of the first CPU in a /proc/cpuinfo text."""
    vendor, family, model = "", None, None
    for line in cpuinfo.splitlines():
        key, _, val = line.partition(":")
        key, val = key.strip(), val.strip()
        if key == "vendor_id" and not vendor:
            vendor = val
        elif key == "cpu family" and family is None and val.isdigit():
            family = int(val)
        elif key == "model" and model is None and val.isdigit():
            model = int(val)
        elif not line.strip() and vendor:
            break
    return vendor, family, model


def measurement_tools(cpuinfo: str, machine: str, have_perf_events: bool) -> tuple[list[str], dict[str, str], list[str]]:
    """(Debian packages this CPU can use, {package: why skipped}, notes)."""
    vendor, family, model = cpu_identity(cpuinfo)
    x86 = machine in ("x86_64", "amd64", "i686")
    intel = vendor == "GenuineIntel" and family == 6
    want: list[str] = []
    skip: dict[str, str] = {}
    notes: list[str] = []
    if have_perf_events:
        want.append("linux-perf")
    else:
        skip["linux-perf"] = "this kernel has no perf events (/proc/sys/kernel/perf_event_paranoid is missing)"
    if intel and x86:
        want.append("pcm")
        if model in NEWER_THAN_PCM_202302:
            notes.append(f"pcm {PCM_DEBIAN} (Debian's) predates {NEWER_THAN_PCM_202302[model]} and CXL memory output: "
                         "give a newer pcm-memory in the host profile (tools: {pcm_memory: /path/to/pcm-memory})")
    else:
        skip["pcm"] = f"pcm-memory programs Intel's uncore memory controllers; this CPU is {vendor or 'unknown'} ({machine})"
    if intel and x86 and model in PMEM_MODELS:
        want.append("ipmctl")
    else:
        skip["ipmctl"] = ("Optane PMem modules exist only on Intel Cascade Lake, Ice Lake-SP and Sapphire Rapids; "
                          f"this CPU is {vendor or 'unknown'} family {family} model {model if model is None else hex(model)}")
    if x86:
        want.append("msr-tools")
    else:
        skip["msr-tools"] = f"rdmsr/wrmsr read x86 model-specific registers; this machine is {machine}"
    return want, skip, notes


def tool_packages() -> None:
    """The measurement tools this CPU can use (optional: setup goes on without them)."""
    import platform  # noqa: PLC0415

    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        cpuinfo = ""
    want, skip, notes = measurement_tools(cpuinfo, platform.machine(), Path("/proc/sys/kernel/perf_event_paranoid").exists())
    for pkg, why in sorted(skip.items()):
        say(f"skipping {pkg}: {why}")
    for n in notes:
        say(f"note: {n}")
    missing = missing_debian(want)
    if not missing:
        if want:
            say(f"measurement tools present: {' '.join(want)}")
        return
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    if not shutil.which("apt-get") or os.geteuid() != 0:
        say(f"optional measurement tools missing: {' '.join(missing)}; as root: apt-get update && {' '.join(cmd)}")
        return
    say(f"installing {' '.join(missing)} with apt-get")
    r = subprocess.run(cmd, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if r.returncode != 0:
        say(f"could not install {' '.join(missing)} (apt-get status {r.returncode}); the counters they give are "
            "left out, with the reason, where a point asks for them")


def _has_ensurepip() -> bool:
    r = subprocess.run([sys.executable, "-c", "import ensurepip, venv"], capture_output=True)
    return r.returncode == 0


def say(msg: str) -> None:
    print(f"[setup] {msg}", flush=True)


def missing_debian(packages: list[str]) -> list[str]:
    """Those of ``packages`` dpkg does not list as installed (none where there is no dpkg)."""
    if not shutil.which("dpkg-query"):
        return []
    r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\\n", *packages], capture_output=True, text=True)
    have = {line.split()[0] for line in r.stdout.splitlines() if line.endswith("install ok installed")}
    return [p for p in packages if p not in have]


def apt_install(missing: list[str]) -> None:
    """Install Debian packages with apt-get when we are root; otherwise print the command and stop."""
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    if not shutil.which("apt-get"):
        sys.exit(f"tierbench: error: missing system packages (Debian names): {' '.join(missing)}; "
                 "install their equivalents with your package manager and rerun")
    if os.geteuid() != 0:
        sys.exit(f"tierbench: error: missing system packages: {' '.join(missing)}\n"
                 f"run as root:  sudo apt-get update && sudo {' '.join(cmd)}\nthen rerun make")
    say(f"installing {' '.join(missing)} with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for c in (["apt-get", "update", "-qq"], cmd):
        r = subprocess.run(c, env=env)
        if r.returncode != 0:
            sys.exit(f"tierbench: error: '{' '.join(c)}' failed with status {r.returncode}")


def system_packages() -> None:
    missing = [pkg for ok, pkg in SYSTEM if not ok()]
    if not missing:
        say("system packages present")
        return
    apt_install(missing)
    still = [pkg for ok, pkg in SYSTEM if not ok()]
    if still:
        sys.exit(f"tierbench: error: still missing after apt-get: {' '.join(still)}")


def debian_packages(listing: Path) -> None:
    """Install the Debian packages a listing names (one per line, '#' comments) that are missing."""
    wanted = [w for line in listing.read_text().splitlines() for w in line.split("#", 1)[0].split()]
    missing = missing_debian(wanted)
    if missing:
        apt_install(missing)
    else:
        say(f"the packages of {listing.relative_to(REPO)} are present")


def _has_modules(python: str) -> bool:
    code = "import " + ", ".join(MODULES)
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def _req_hash() -> str:
    return hashlib.sha256(REQ.read_bytes()).hexdigest()[:16]


def python_env() -> str:
    active = os.environ.get("VIRTUAL_ENV") or os.environ.get("CONDA_PREFIX")
    if active and Path(sys.executable).resolve() != (VENV / "bin/python").resolve() and _has_modules(sys.executable):
        say(f"using the active environment {active}")
        return sys.executable
    py = VENV / "bin/python"
    stamp = VENV / ".tierbench-requirements"
    if py.exists() and stamp.exists() and stamp.read_text() == _req_hash() and _has_modules(str(py)):
        say(f"using {VENV.relative_to(REPO)} (up to date)")
        return str(py)
    if sys.version_info < (3, 11):  # noqa: UP036 - bootstrap runs under any system python3
        sys.exit(f"tierbench: error: Python >= 3.11 is needed (snakemake 9), this is {sys.version.split()[0]}")
    if not py.exists():
        say(f"creating virtualenv {VENV.relative_to(REPO)}")
        # without pip where the kept uv fills it: ensurepip took 6.6 s of a fresh clone's setup here
        # (2 cores, 2026-11-28), more beside the C builds; pip joins it later where it is needed
        venv.EnvBuilder(with_pip=_installer() == "pip" or kept_uv() is None).create(VENV)
    install_requirements(str(py))
    if not _has_modules(str(py)):
        sys.exit(f"tierbench: error: requirements.txt was installed into {VENV.relative_to(REPO)}, but its Python "
                 f"cannot import {', '.join(MODULES)}")
    stamp.write_text(_req_hash())
    return str(py)


def _installer() -> str:
    return os.environ.get("TIERBENCH_INSTALLER", "")


def install_requirements(py: str) -> None:
    """requirements.txt into the venv of ``py``: by uv, else (or with TIERBENCH_INSTALLER=pip) by pip."""
    if _installer() == "pip" or not _install_with_uv(py):
        say("installing Python requirements (requirements.txt) with pip; this takes a minute the first time")
        ensure_pip(py)
        for c in ([py, "-m", "pip", "install", "-q", "--upgrade", "pip"],
                  [py, "-m", "pip", "install", "-q", "-r", str(REQ)]):
            r = subprocess.run(c)
            if r.returncode != 0:
                sys.exit(f"tierbench: error: '{' '.join(c)}' failed with status {r.returncode}")


# uv installs the same pinned wheels as pip, from its own cache, in ~12 s with their bytecode (pip:
# ~26 s on the 2-core development VM, most of `make run`'s setup); pinned like every other requirement
UV = "uv==0.13.9"
# pip's settings that say where packages come from, and uv's equivalents (uv reads neither pip.conf
# nor PIP_*: docs.astral.sh/uv/reference/environment/; SSL_CERT_FILE: docs.astral.sh/uv/concepts/
# authentication/certificates). find-links: pip separates several by
# whitespace, uv by commas.
PIP_TO_UV = {"index-url": "UV_INDEX_URL", "extra-index-url": "UV_EXTRA_INDEX_URL", "find-links": "UV_FIND_LINKS",
             "cert": "SSL_CERT_FILE"}


def uv_env(pip_config: str, environ: dict[str, str]) -> dict[str, str] | None:
    """The environment for uv that keeps pip's package sources (``pip config list``'s output, whose
    ``:env:`` lines are the PIP_* variables), or None where pip is set up in a way uv cannot follow
    (no-index, a config of its own): pip is used there."""
    env = dict(environ)
    for line in pip_config.splitlines():
        key, _, value = line.partition("=")
        name = key.rsplit(".", 1)[-1].strip()
        value = value.strip().strip("'\"")
        if name in ("no-index", "config-file", "trusted-host", "index", "proxy", "client-cert"):
            return None
        uv = PIP_TO_UV.get(name)
        if uv and value and uv not in environ:
            env[uv] = ",".join(value.split()) if name == "find-links" else " ".join(value.split())
    return env


def ensure_pip(py: str) -> None:
    """pip in the venv of ``py`` (one made without it, for the kept uv, gets it where pip is needed)."""
    if subprocess.run([py, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "ensurepip", "--upgrade", "--default-pip"], stdout=subprocess.DEVNULL)


def pip_config(py: str) -> subprocess.CompletedProcess:
    """`pip config list` as the venv's pip would print it: its own; in a venv made without pip, that
    of the pip this bootstrap runs under where that one reads no file the venv's would not (pip reads
    the same global and user files from any interpreter, and its site file, pip.conf, from
    sys.prefix: pip.pypa.io/en/stable/topics/configuration/#location); else pip is put into the venv
    to ask it."""
    cfg = subprocess.run([py, "-m", "pip", "config", "list"], capture_output=True, text=True)
    if cfg.returncode == 0:
        return cfg
    if not (Path(sys.prefix) / "pip.conf").exists():
        cfg = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
        if cfg.returncode == 0:
            return cfg
    ensure_pip(py)
    return subprocess.run([py, "-m", "pip", "config", "list"], capture_output=True, text=True)


def kept_home() -> Path:
    """Where a setup keeps what this user's next clones can reuse (the pinned uv, bytecode)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "tierbench"


def uv_home() -> Path:
    """Where the pinned uv is kept for this user's next clones."""
    return kept_home() / UV.replace("==", "-")


def kept_uv() -> str | None:
    """The pinned uv kept by an earlier setup (keep_uv), where it runs and is that version."""
    exe = uv_home() / "uv"
    try:
        r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return str(exe) if r.returncode == 0 and r.stdout.split()[:2] == UV.split("==") else None


def keep_uv(py: str) -> None:
    """The uv binary that `pip install uv` put into the venv, kept for this user's next clones (a
    copy, renamed into place, so that setups running at once never see half a file); not kept is no
    error."""
    src = Path(py).parent / "uv"
    dst = uv_home() / "uv"
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(f".uv.{os.getpid()}")
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    except OSError:
        pass


def _install_with_uv(py: str) -> bool:
    """requirements.txt into the venv by uv (the kept one, else installed into the venv first and
    then kept); False, after saying why, where uv cannot be had or fails (pip then does it)."""
    uv = kept_uv()
    cfg = pip_config(py)
    env = uv_env(cfg.stdout, dict(os.environ)) if cfg.returncode == 0 else None
    if env is None:
        say("pip is configured in a way uv does not follow (pip config list); installing with pip")
        return False
    say("installing Python requirements (requirements.txt) with uv")
    if uv is None:
        r = subprocess.run([py, "-m", "pip", "install", "-q", UV], env=env)
        if r.returncode != 0:
            say(f"'pip install {UV}' failed with status {r.returncode}; installing with pip instead")
            return False
        keep_uv(py)
    install = [*([uv] if uv else [py, "-m", "uv"]), "pip", "install", "-q", "--python", py, "-r", str(REQ)]
    # From uv's cache alone first (--offline: docs.astral.sh/uv/reference/cli/#uv-pip-install): the
    # pins are exact, so where every wheel is cached the index has nothing to add and the install
    # need not wait on it (by hand here: 11.3 s asking the index, 7.7-8.9 s offline while uv also
    # compiled the bytecode; without that, 0.6 s offline, 2026-11-28). A cache that lacks a wheel
    # says so at once (kept quiet) and the install asks the index.
    if subprocess.run([*install, "--offline"], env=env, capture_output=True).returncode != 0:
        r = subprocess.run(install, env=env)
        if r.returncode != 0:
            say(f"'uv {' '.join(install[install.index('pip'):])}' failed with status {r.returncode}; installing with pip instead")
            return False
    compile_bytecode(py)
    return True


# The packages' own test suites, which no job imports: a third of the installed files (1569 of 5452
# here); compiling the rest took 9.8 s where uv's --compile-bytecode, which compiles every file, took
# 12.7 s (2 cores, 2026-11-28)
UNUSED = r"[/\\]tests?[/\\]"


def compile_bytecode(py: str) -> None:
    """The installed packages' bytecode, as pip writes it: with PYTHONDONTWRITEBYTECODE set (as on the
    development VM and in many containers) nothing would ever compile them, and every job would pay for
    it. Files that do not compile (templates that only look like Python) are left as they are.

    The bytecode an earlier setup compiled for the same requirements and Python is unpacked first
    (keep_bytecode): compileall then compiles only what it lacks or what is stale: a .pyc records
    its source's mtime, and compileall recompiles one whose mtime does not match (CPython
    Lib/compileall.py, compile_file; the import system checks the size too and ignores a stale one:
    PEP 552). uv links the installed files from its cache, so a later clone's sources are the same
    files, with the same mtimes. Here that took the step from 10.8 s to
    ~1.3 s (2 cores, 2026-11-28)."""
    code = ("import sys, sysconfig; p = sysconfig.get_paths(); "
            "print(sys.version.splitlines()[0]); print(p['purelib']); print(p['platlib'])")
    out = subprocess.run([py, "-c", code], capture_output=True, text=True).stdout.splitlines()
    if len(out) == 3:  # compileall without a directory would compile sys.path
        compile_dirs(py, out[0], sorted(set(out[1:3])))


def compile_dirs(py: str, version: str, dirs: list[str]) -> None:
    """compile_bytecode for the package directories ``dirs`` of ``py`` (Python ``version``)."""
    # not keyed by the clone's own directory: a .pyc's file name is set from where it is imported
    # (importlib's SourceLoader.get_code, _imp._fix_co_filename)
    tails = ["/".join(Path(d).parts[-3:]) for d in dirs]
    key = hashlib.sha256("\n".join([_req_hash(), version, UNUSED, *tails]).encode()).hexdigest()[:16]
    mine = f"bytecode-py{version.split()[0]}-"  # this Python's archives
    kept = [kept_home() / f"{mine}{key}-{i}.tar" for i in range(len(dirs))]
    unpacked = all(k.is_file() for k in kept) and all(
        subprocess.run(["tar", "-xf", str(k), "-C", d], capture_output=True).returncode == 0 for k, d in zip(kept, dirs, strict=True))
    # checking what was unpacked wants one process (-j 0 took 3.0 s for it, -j 1 0.8 s); compiling, all
    subprocess.run([py, "-m", "compileall", "-q", "-j", "1" if unpacked else "0", "-x", UNUSED, *dirs],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not unpacked:
        keep_bytecode(dirs, kept, mine)


def keep_bytecode(dirs: list[str], kept: list[Path], mine: str) -> None:
    """Every .pyc under ``dirs`` into the archives ``kept`` (one per directory) for this user's next
    clones, each written aside and renamed into place; this Python's archives (``mine``*) of other
    requirements are removed (~75 MB each). Not kept is no error."""
    try:
        kept[0].parent.mkdir(parents=True, exist_ok=True)
        for old in kept[0].parent.glob(f"{mine}*.tar"):
            if old not in kept:
                old.unlink(missing_ok=True)
        for d, k in zip(dirs, kept, strict=True):
            names = [str(Path(root, f).relative_to(d)) for root, _, files in os.walk(d)
                     if Path(root).name == "__pycache__" for f in files if f.endswith(".pyc")]
            tmp = k.with_name(f".{k.name}.{os.getpid()}")
            r = subprocess.run(["tar", "-cf", str(tmp), "-C", d, "--null", "-T", "-"],
                               input="\0".join(names).encode(), capture_output=True)
            if r.returncode == 0:
                os.replace(tmp, k)
            else:
                tmp.unlink(missing_ok=True)
    except OSError:
        pass


def main() -> int:
    """Everything (no argument); ``--system``: the Debian packages the builds and the measurements
    need; ``--python``: the Python environment (build/python names its interpreter). `make build`
    runs the two parts apart, the C components compiling beside the Python install (they need the
    compilers, not Python)."""
    listings = {"--cachebench": "workloads/cachebench/debian-packages.txt", "--slurm": "profiles/slurm/debian-packages.txt"}
    part = sys.argv[1] if len(sys.argv) == 2 else None
    if part in listings:
        debian_packages(REPO / listings[part])
        return 0
    if part not in (None, "--system", "--python"):
        sys.exit(f"tierbench: error: bootstrap takes no argument or one of --system, --python, {', '.join(listings)}; "
                 f"not {' '.join(sys.argv[1:])!r}")
    if part != "--python":
        system_packages()
        tool_packages()
    if part == "--system":
        return 0
    python = python_env()
    out = REPO / "build/python"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(python + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
