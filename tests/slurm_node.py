"""A real single-node SLURM cluster on this machine, for tests/test_cluster.py.

What it sets up, and takes down again (nothing else):

- Debian's ``slurm-wlm`` and ``munge`` (``python -m workflows.harness.bootstrap --slurm``, the list in
  ``profiles/slurm/debian-packages.txt``): installed once and left installed, like every package
  the project's setup installs;
- ``/etc/slurm/slurm.conf``: SLURM's job steps drop ``SLURM_CONF`` from their environment, so the
  configuration must be at the compiled-in path; an existing file is kept aside and put back;
- munged, slurmctld and slurmd as background processes of ours (no systemd), each in its own
  process group, with their sockets, state, spool, logs and pid files in a scratch directory;
  stopped by pid (SIGTERM, then SIGKILL) when the test ends.

No accounting daemon: job status comes from ``squeue`` (``MinJobAge`` keeps finished jobs
visible for an hour, long enough for Snakemake's status checks).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONF = Path("/etc/slurm/slurm.conf")
DAEMONS = ("munged", "slurmctld", "slurmd")
PORTS = (6817, 6818)


class Unavailable(RuntimeError):
    """SLURM cannot run here; the message says why (the test skips with it)."""


def _port_busy(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return True
    return False


def install() -> None:
    """The packages, with the project's own setup (apt-get as root)."""
    if all(shutil.which(d) for d in DAEMONS) and shutil.which("sbatch"):
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise Unavailable("SLURM is not installed and cannot be (needs root and apt-get: "
                          "python -m workflows.harness.bootstrap --slurm)")
    r = subprocess.run([sys.executable, "-m", "workflows.harness.bootstrap", "--slurm"], cwd=REPO,
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or not all(shutil.which(d) for d in DAEMONS):
        raise Unavailable(f"installing slurm-wlm and munge failed: {(r.stderr or r.stdout).strip()[-300:]}")


class SingleNode:
    def __init__(self, scratch: Path):
        self.dir = scratch
        self.node = socket.gethostname().split(".")[0]
        self.procs: dict[str, subprocess.Popen] = {}
        self.saved_conf: bytes | None = None
        self.wrote_conf = False

    def conf(self) -> str:
        d = self.dir
        mem_mib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
        return "\n".join([
            "ClusterName=tierbench-test",
            f"SlurmctldHost={self.node}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={d}/munge.socket",
            "ProctrackType=proctrack/linuxproc",   # no cgroup plugin: works under cgroup v1 and v2
            "TaskPlugin=task/none",
            "SwitchType=switch/none",
            "MpiDefault=none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU_Memory",
            "SchedulerType=sched/backfill",
            f"StateSaveLocation={d}/state",
            f"SlurmdSpoolDir={d}/spool",
            f"SlurmctldPidFile={d}/slurmctld.pid",
            f"SlurmdPidFile={d}/slurmd.pid",
            f"SlurmctldLogFile={d}/slurmctld.log",
            f"SlurmdLogFile={d}/slurmd.log",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MinJobAge=3600",
            "ReturnToService=2",
            f"NodeName={self.node} CPUs={os.cpu_count()} RealMemory={int(mem_mib * 0.8)} State=UNKNOWN",
            f"PartitionName=main Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]) + "\n"

    def start(self) -> None:
        install()
        if os.geteuid() != 0:
            raise Unavailable("the SLURM daemons run as root here (SlurmUser=root); run the tests as root")
        busy = [p for p in PORTS if _port_busy(p)]
        if busy:
            raise Unavailable(f"port {busy[0]} is in use: another SLURM runs here; not touching it")
        if not Path("/etc/munge/munge.key").exists():
            raise Unavailable("/etc/munge/munge.key is missing (the munge package creates it)")
        for sub in ("state", "spool"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        CONF.parent.mkdir(parents=True, exist_ok=True)
        if CONF.exists():
            self.saved_conf = CONF.read_bytes()
        CONF.write_text(self.conf())
        self.wrote_conf = True
        d = self.dir
        try:
            self._spawn("munged", ["munged", "--foreground", "--force", f"--socket={d}/munge.socket",
                                   f"--log-file={d}/munged.log", f"--pid-file={d}/munged.pid",
                                   f"--seed-file={d}/munged.seed"])
            self._wait(lambda: (d / "munge.socket").exists(), "munged's socket", 10)
            self._spawn("slurmctld", ["slurmctld", "-D", "-i"])
            self._spawn("slurmd", ["slurmd", "-D"])
            self._wait(self._idle, f"node {self.node} idle in sinfo", 30)
        except Exception:
            self.stop()
            raise

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.dir / f"{name}.out", "w")  # noqa: SIM115 - the daemon keeps it
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)

    def _idle(self) -> bool:
        r = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True, timeout=10)
        return r.returncode == 0 and r.stdout.strip() in ("idle", "mixed", "allocated")

    def _wait(self, ok, what: str, timeout_s: float) -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead:
                out = (self.dir / f"{dead[0]}.out").read_text()[-600:]
                raise Unavailable(f"{dead[0]} exited with status {self.procs[dead[0]].returncode}: {out}")
            if ok():
                return
            time.sleep(0.3)
        raise Unavailable(f"no {what} after {timeout_s:.0f} s")

    def jobs(self) -> list[dict]:
        """Every job slurmctld still knows (MinJobAge): id, name, state, comment."""
        r = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i|%j|%T|%k"], capture_output=True, text=True,
                           timeout=10)
        return [dict(zip(("id", "name", "state", "comment"), line.split("|", 3), strict=True))
                for line in r.stdout.splitlines() if line.count("|") == 3]

    def stop(self) -> None:
        """Cancel what is left, end the daemons by pid (their process groups), put slurm.conf back."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            subprocess.run(["scancel", "--full", "--partition", "main"], capture_output=True, timeout=10)
        for name in reversed(DAEMONS):
            p = self.procs.get(name)
            if p is None or p.poll() is not None:
                continue
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=5)
        if self.wrote_conf:
            if self.saved_conf is None:
                CONF.unlink(missing_ok=True)
            else:
                CONF.write_bytes(self.saved_conf)
            self.wrote_conf = False
