"""Provenance recorded in every meta.json: git state, the point row's hash, binaries, times."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from pathlib import Path

from workloads import upstream

# the repository (as workflows.harness.profile's REPO), without importing profile (jsonschema): every
# modelled point's process imports this module
REPO = Path(__file__).resolve().parents[2]


def git_state(repo: Path = REPO) -> dict:
    def git(*args: str) -> str | None:
        try:
            r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def digest(data: object) -> str:
    """A short, stable hash of JSON-able data (a point's row: its whole configuration slice)."""
    blob = json.dumps(data, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def file_sha256(path: Path) -> str | None:
    try:
        return upstream.sha256(path)
    except OSError:
        return None


def tool_version(argv0: str) -> str | None:
    for flag in ("--version", "-v"):
        try:
            r = subprocess.run([argv0, flag], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        text = (r.stdout or r.stderr).strip().splitlines()
        if r.returncode == 0 and text:
            return text[0][:200]
    return None


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
