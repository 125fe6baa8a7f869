"""Upstream sources at a pinned commit, verified by checksum: ``python -m workloads.upstream fetch ARCHIVE --out FILE``.

An upstream workload (GAPBS, Silo, CacheLib) is built from a ``git archive`` tarball of its
repository at the commit tierbench pins, named ``NAME-COMMIT.tar.gz`` (it unpacks to
``NAME-COMMIT/``). The tarball is taken, in this order, from

1. the sources directory the user names (``sources:`` in the experiment config, or the
   ``TIERBENCH_SOURCES`` environment variable): the way to build on a server that cannot reach
   GitHub (copy the tarballs there once);
2. GitHub's archive of that commit (``https://codeload.github.com/OWNER/REPO/tar.gz/COMMIT``),

and is used only when its SHA-256 is the pinned one. Nothing else is downloaded, and no upstream
source is ever part of this repository. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ENV = "TIERBENCH_SOURCES"
TIMEOUT_S = 60


@dataclass(frozen=True)
class Pin:
    name: str  # archive name prefix (the repository's name)
    repo: str  # OWNER/REPO on GitHub
    commit: str
    sha256: str  # of the git-archive tarball NAME-COMMIT.tar.gz

    @property
    def archive(self) -> str:
        return f"{self.name}-{self.commit}.tar.gz"

    @property
    def url(self) -> str:
        return f"https://codeload.github.com/{self.repo}/tar.gz/{self.commit}"


def pins() -> dict[str, Pin]:
    """Every pinned archive of every registered workload, by archive file name."""
    import workloads  # noqa: PLC0415

    out: dict[str, Pin] = {}
    for name in workloads.WORKLOADS:
        for p in getattr(workloads.get(name), "PINS", []):
            out[p.archive] = p
    return out


def sources_dirs(configured: str | None = None) -> list[Path]:
    """Where to look for archives: the config's directory, then $TIERBENCH_SOURCES."""
    dirs = [configured, os.environ.get(ENV)]
    return [Path(d) for d in dirs if d]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class SourceError(RuntimeError):
    pass


def fetch(pin: Pin, out: Path, dirs: list[Path]) -> str:
    """Put the pinned archive at ``out`` (verified); returns where it came from."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    tried = []
    for d in dirs:
        src = d / pin.archive
        if not src.is_file():
            tried.append(f"not in {d}")
            continue
        got = sha256(src)
        if got != pin.sha256:
            raise SourceError(f"{src}: sha256 {got} is not the pinned {pin.sha256} ({pin.repo} at {pin.commit})")
        shutil.copyfile(src, tmp)
        os.replace(tmp, out)
        return str(src)
    try:
        import urllib.request  # noqa: PLC0415 - only a download needs it (every point hashes files)

        with urllib.request.urlopen(pin.url, timeout=TIMEOUT_S) as r, open(tmp, "wb") as f:
            shutil.copyfileobj(r, f)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        tried.append(f"download {pin.url} failed: {getattr(e, 'reason', e)}")
        raise SourceError(f"{pin.archive} ({pin.repo} at {pin.commit}): " + "; ".join(tried) +
                          f". Copy the archive into a sources directory and name it (sources: DIR in the experiment "
                          f"config, or {ENV}=DIR)") from None
    got = sha256(tmp)
    if got != pin.sha256:
        tmp.unlink()
        raise SourceError(f"{pin.url}: sha256 {got} is not the pinned {pin.sha256}")
    os.replace(tmp, out)
    return pin.url


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="put a pinned archive in place, verified")
    f.add_argument("archive", help="NAME-COMMIT.tar.gz")
    f.add_argument("--out", required=True, type=Path)
    f.add_argument("--sources", default=None, help=f"a sources directory (else ${ENV})")
    sub.add_parser("list", help="every pinned archive")
    args = ap.parse_args(argv)
    table = pins()
    if args.cmd == "list":
        for p in table.values():
            print(f"{p.archive}  {p.sha256}  {p.repo}")
        return 0
    if args.archive not in table:
        print(f"tierbench: error: no workload pins {args.archive}", file=sys.stderr)
        return 2
    try:
        where = fetch(table[args.archive], args.out, sources_dirs(args.sources))
    except SourceError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    print(f"{args.archive}: from {where}, sha256 verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
