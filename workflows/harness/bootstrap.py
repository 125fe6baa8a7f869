"""Set up what `make run` / `make test` need, using only the standard library.

1. System packages (Debian names): C and C++ compilers (g++ with OpenMP builds GAPBS),
   make, libnuma headers, numactl, fio, python3-venv, ffmpeg and postgresql-15 (overcommit family), libpmemobj-dev (kv family's
   pmdk), and what Silo's build needs (jemalloc,
   Berkeley DB C++, libaio, OpenSSL, zlib headers; patch, autoconf, automake, libtool). Missing ones are installed with apt-get when we are root;
   otherwise the exact command is printed and we stop.
2. A Python environment: an already active virtualenv/conda environment that has
   every requirement is used as it is; otherwise ``.venv`` is created (or
   refreshed when requirements.txt changed) and filled from requirements.txt.

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
    (lambda: shutil.which("patch"), "patch"),
    (lambda: shutil.which("autoreconf"), "autoconf"),
    (lambda: shutil.which("automake"), "automake"),
    (lambda: shutil.which("libtoolize"), "libtool"),
    (lambda: _has_ensurepip(), "python3-venv"),
    # kv family (workloads/ycsb): the YCSB driver is built with Maven and runs on a JDK; Redis is a
    # private instance per point (the package's system service is never used)
    (lambda: shutil.which("javac"), "default-jdk-headless"),
    (lambda: shutil.which("mvn"), "maven"),
    (lambda: shutil.which("redis-server"), "redis-server"),
    (lambda: shutil.which("memcached"), "memcached"),
    # kv family, system pmdk: kv-pmem (workloads/kvpmem) is built against PMDK's libpmemobj and runs on it
    (lambda: Path("/usr/include/libpmemobj.h").exists(), "libpmemobj-dev"),
    (lambda: any(Path("/usr/lib").glob("*/libpmemobj.so.1")) or Path("/usr/lib/libpmemobj.so.1").exists(), "libpmemobj1"),
    # overcommit family: FFmpeg (x264); PostgreSQL 15 and pgbench for TPC-C (a private cluster per
    # point, the package's system service is never used); mkswap/swapon/swapoff/setpriv (util-linux)
    (lambda: shutil.which("ffmpeg"), "ffmpeg"),
    (lambda: any(Path("/usr/lib/postgresql").glob("*/bin/pgbench")), "postgresql-15"),
    (lambda: shutil.which("swapon") and shutil.which("setpriv"), "util-linux"),
]


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
        venv.EnvBuilder(with_pip=True).create(VENV)
    say("installing Python requirements (requirements.txt); this takes a minute the first time")
    for c in ([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"],
              [str(py), "-m", "pip", "install", "-q", "-r", str(REQ)]):
        r = subprocess.run(c)
        if r.returncode != 0:
            sys.exit(f"tierbench: error: '{' '.join(c)}' failed with status {r.returncode}")
    stamp.write_text(_req_hash())
    return str(py)


def main() -> int:
    listings = {"--cachebench": "workloads/cachebench/debian-packages.txt", "--slurm": "profiles/slurm/debian-packages.txt"}
    if len(sys.argv) == 2 and sys.argv[1] in listings:
        debian_packages(REPO / listings[sys.argv[1]])
        return 0
    system_packages()
    python = python_env()
    out = REPO / "build/python"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(python + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
