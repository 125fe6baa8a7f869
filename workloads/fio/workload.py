"""fio (Debian's ``fio``, or the host profile's ``tools/fio``): argv, protocol, parser.

Protocol: ``--output-format=json`` on standard output (fio may print notes before the JSON);
one job per I/O depth, run one after another (``--stonewall``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from workflows.harness import ConfigError
from workflows.harness.scenario import role as scenario_role

NAME = "fio"
BUILD = None  # a system package: apt-get install fio
DATA_FILE = "tierbench-fio.dat"


def find(profile: dict, facts: dict) -> str:
    """The fio the storage family runs: the profile's tools/fio, else fio on PATH."""
    fio = profile["tools"].get("fio") or (facts.get("tools") or {}).get("fio")
    if not fio:
        raise ConfigError("the storage family needs fio, which is not on PATH: install it (apt-get install fio), "
                          f"name it in host profile {profile['source']} (tools/fio), or set storage/enabled: false")
    return fio


def argv(fio: str, *, target: str, size_mib: int, bs: int, ioengine: str, direct: bool, runtime_s: float,
         iodepths: list[int], cpus: str | None = None) -> list[str]:
    """``cpus`` (a CPU list, "0-3,8"): fio's jobs pinned there (fio's HOWTO, ``cpus_allowed``: "a
    textual specification of the permitted CPUs ... a range of CPUs", indexed from 0)."""
    a = [fio, "--output-format=json", f"--filename={target}", f"--size={size_mib}m", "--rw=randread", f"--bs={bs}",
         f"--ioengine={ioengine}", f"--direct={int(direct)}", "--time_based", f"--runtime={runtime_s}", "--ramp_time=0",
         "--group_reporting", "--randrepeat=1", "--norandommap", *([f"--cpus_allowed={cpus}"] if cpus else [])]
    for i, d in enumerate(iodepths):
        a += [f"--name=qd{d}", f"--iodepth={d}"] + (["--stonewall"] if i else [])
    return a


def role(argv_: list[str]) -> dict:
    return scenario_role("fio", argv_, stdout="fio.out", parse="workloads.fio.workload:rows")


def _size(text: str) -> int:
    m = re.fullmatch(r"(\d+)([kKmMgG]?)[iI]?[bB]?", str(text).strip())
    if not m:
        raise ValueError(f"cannot read size {text!r}")
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]


def parse(text: str) -> list[dict]:
    """fio's JSON: one row per job and metric (read side)."""
    data = json.loads(text[text.find("{"):])
    out = []
    for job in data.get("jobs", []):
        opts = {**data.get("global options", {}), **job.get("job options", {})}
        rd = job.get("read", {})
        base = {"iodepth": int(opts.get("iodepth", 1)), "block_bytes": _size(opts.get("bs", "4k")),
                "op": opts.get("rw", "randread"), "tool": "fio"}
        lat = rd.get("clat_ns") or rd.get("lat_ns") or {}
        p99 = next((v for k, v in lat.get("percentile", {}).items() if k.startswith("99.000")), None)
        out.append({**base, "metric": "iops", "value": float(rd.get("iops", 0.0)), "unit": "IOPS"})
        out.append({**base, "metric": "bandwidth", "value": float(rd.get("bw_bytes", 0)) / 1e6, "unit": "MB/s"})
        if lat:
            out.append({**base, "metric": "read_latency_mean", "value": float(lat.get("mean", 0.0)) / 1e3, "unit": "us"})
        if p99 is not None:
            out.append({**base, "metric": "read_latency_p99", "value": float(p99) / 1e3, "unit": "us"})
    return out


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return parse((outdir / role_["stdout"]).read_text())
