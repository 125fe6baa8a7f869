"""Shared fixtures. Tests that need hardware this machine lacks skip with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
BIN = REPO / "build" / "bin"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def binary(name: str) -> Path:
    p = BIN / name
    if not p.exists():
        pytest.skip(f"{p.relative_to(REPO)} not built (run `make build`)")
    return p


@pytest.fixture(scope="session")
def cc_build(tmp_path_factory):
    """Compile a test-only C program from tests/independent/."""
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("cbin")

    def build(name: str) -> Path:
        exe = out / name
        if not exe.exists():
            subprocess.run(["cc", "-O2", "-std=c11", "-Wall", "-o", str(exe), str(REPO / "tests/independent" / f"{name}.c")], check=True)
        return exe

    return build


def descendants_of_bin(start_time: float | None = None) -> list[tuple[int, str]]:
    """Processes whose executable lives in build/bin (our benchmarks), as (pid, exe)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            exe = os.readlink(d / "exe")
        except OSError:
            continue
        if exe.startswith(str(BIN)):
            found.append((int(d.name), exe))
    return found


def ancestors(pid: int) -> list[int]:
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        out.append(pid)
    return out


def started_by(root: int) -> set[int]:
    """Our benchmark processes (build/bin/*) that descend from process ``root``."""
    return {pid for pid, _ in descendants_of_bin() if root in ancestors(pid)}


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def copy_tree(dst: Path) -> Path:
    """The repository's files as they are in the working tree (tracked, and untracked but not
    ignored), modification times kept, into ``dst``; ``build/`` (binaries, the QEMU guest's cache)
    is shared by a link, so nothing is rebuilt."""
    names = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, names):
        src = REPO / name
        if src.is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    (dst / "build").symlink_to(REPO / "build", target_is_directory=True)
    return dst


@pytest.fixture
def workdir(tmp_path) -> Path:
    """A scratch copy of the repository to run the workflow in: its results/ and .snakemake/ are
    the copy's, never the checkout's."""
    return copy_tree(tmp_path / "repo")
