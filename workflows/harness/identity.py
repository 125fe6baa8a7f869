"""Host identity, decided once per run by the process that plans it.

On a cluster every job is a new Snakemake process on some compute node that parses the workflow
again. Were each of them to detect "its" host, a job on node ``c17`` of a run planned on the
login node ``login1`` with ``host=auto`` would write ``results/c17/...`` while the main process
waits for ``results/login1/...``; and each would validate the machine it landed on rather than
the host under test. So the planning process (Snakemake's main process) writes what it decided
here: for each host profile argument of the run, the facts it resolved the profile against (this
machine's, a guest's, or those collected on a fleet host's node). Jobs in a remote or subprocess
Snakemake (``--mode remote|subprocess``) read this file instead of detecting anything; the file
lives in the working directory, which a cluster run shares between nodes anyway (Snakemake's
own ``.snakemake/`` is there too), and Snakemake's directory lock keeps two runs from writing it
at once.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import ConfigError

PATH = Path(".snakemake/tierbench/identity.json")


def write(hosts: dict[str, dict], path: Path = PATH) -> None:
    """``hosts``: host profile argument -> the facts the plan resolved it against."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"planned_on": socket.gethostname(), "planned_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "pid": os.getpid(), "hosts": hosts}
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(doc, sort_keys=True))
    tmp.replace(path)


def read(args: list[str], path: Path = PATH) -> dict[str, dict]:
    """The facts the planning process decided for each of ``args`` (a job's view of the run)."""
    if not path.exists():
        raise ConfigError(f"{path} is missing: a remote job needs the host identity its main process writes "
                          "(run snakemake from the shared working directory)")
    doc = json.loads(path.read_text())
    missing = [a for a in args if a not in doc["hosts"]]
    if missing:
        raise ConfigError(f"{path} was written for hosts {sorted(doc['hosts'])}, not {missing} "
                          f"(planned on {doc['planned_on']} at {doc['planned_at']})")
    return {a: doc["hosts"][a] for a in args}


def node_facts(arg: str, slurm_extra: str, timeout_s: float = 600) -> dict:
    """A fleet host's facts, detected on its node (``srun SLURM_EXTRA python -m ... facts``), once,
    by the planning process."""
    if not shutil.which("srun"):
        raise ConfigError(f"host profile {arg}: cluster/slurm_extra names a SLURM node, but srun is not on PATH")
    argv = ["srun", "--ntasks=1", "--job-name=tierbench-facts", *shlex.split(slurm_extra),
            sys.executable, "-m", "workflows.harness.cli", "facts"]
    print(f"tierbench: collecting the facts of host {arg} on its node: {shlex.join(argv)}", file=sys.stderr, flush=True)
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise ConfigError(f"host profile {arg}: srun for its facts did not finish in {timeout_s:.0f} s "
                          f"(cluster/slurm_extra {slurm_extra!r})") from None
    if r.returncode != 0:
        raise ConfigError(f"host profile {arg}: srun for its facts failed ({r.returncode}): "
                          f"{(r.stderr.strip().splitlines() or ['no output'])[-1]}")
    try:
        return json.loads(r.stdout)
    except ValueError:
        raise ConfigError(f"host profile {arg}: srun for its facts printed no JSON: {r.stdout[:200]!r}") from None
