"""The kv family's Redis numbers beside Redis's own client: ``python -m bench.bench_kv_redis [options]``.

One private redis-server per run (its own port on loopback, no persistence; started in its own
process group and ended by its pid). The YCSB runner (``build/bin/ycsb``, the kv family's driver)
loads it with string keys in YCSB's ordered insert order ("user" + k zero-padded to 19 digits) and
runs phases A and C (and Redis pipelining, ``c-pipe<depth>``) with the kv config's warm-up, phase
length and minimum operation count; then ``redis-benchmark`` runs on the same server and the same
keys (``GET user0000000__rand_int__`` with ``-r records``: redis-benchmark writes __rand_int__ as 12
digits, so the key is "user" + 19 digits, the YCSB key) with as many connections as YCSB's client
threads and as many requests as YCSB's phase did: GET for phase C, GET and SET of a value of the
same size for phase A (its rate: the harmonic mix of the two, 50/50 like phase A), ``-P depth``
for pipelining. Differences that remain, and are said: YCSB draws keys zipfian, redis-benchmark
uniformly (the records are cache-resident at the quick scale: a hash lookup either way).

Printed: per run and phase the YCSB kops/s, redis-benchmark's, their ratio, and the CPU time per
operation of each client and of the server; then the medians. ``--baseline LAUNCHER`` interleaves a
second runner (A, B, A, B...: load from the other engineers on this machine cancels out), run with
``--baseline-seconds`` phases and no warm-up (``--baseline-warmup``: the same warm-up): e.g. the
same runner with the settings before the warm-up existed (0.5 s phases). Keyspace hits and misses
of the server (INFO stats) show that redis-benchmark read the keys YCSB loaded.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
QUICK = REPO / "workflows" / "config" / "quick.yaml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quick_kv() -> dict:
    """The kv family's settings at the quick scale (workflows/config/quick.yaml), schema defaults beside."""
    kv = yaml.safe_load(QUICK.read_text())["kv"]
    schema = yaml.safe_load((REPO / "families" / "kv" / "schema.yaml").read_text())["properties"]
    return {k: kv.get(k, schema[k].get("default")) for k in ("records", "max_seconds", "warmup_seconds",
                                                             "min_operations", "value_bytes", "heap_mib")
            if k in kv or k in schema}


class Redis:
    """A private redis-server: own process group, ended by its pid."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.dir = workdir
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--protected-mode", "yes", "--daemonize", "no", "--logfile", "", "--pidfile",
                str(workdir / "server.pid")]
        end = time.monotonic() + 10
        self.proc: subprocess.Popen | None = None
        try:  # the Popen inside: a signal right after it returns still finds the server to stop
            self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
                                         start_new_session=True)
            while not self.ping():
                if time.monotonic() > end or self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server on port {self.port} did not start")
                time.sleep(0.02)
        except BaseException:  # (Ctrl-C or SIGTERM while it starts included: no caller's finally has it yet)
            self.stop()
            raise

    def ping(self) -> bool:
        try:
            return self.cli("PING").strip() == "PONG"
        except (subprocess.CalledProcessError, OSError):
            return False

    def cli(self, *args: str) -> str:
        return subprocess.run(["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True,
                              check=True, timeout=10).stdout

    def stats(self) -> dict[str, int]:
        out = {}
        for line in self.cli("INFO", "stats").splitlines():
            k, _, v = line.partition(":")
            if k in ("keyspace_hits", "keyspace_misses"):
                out[k] = int(v)
        return out

    def cpu_s(self) -> float:
        """user + system CPU seconds (/proc/PID/stat fields 14 and 15, in clock ticks)."""
        f = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def ycsb_rows(path: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r["node"] and (not r["op"] or (r["metric"] == "operations" and "-pipe" in r["phase"])):
                out.setdefault(r["phase"], {})[r["metric"]] = float(r["value"])
    return out


def run_child(argv: list[str], timeout: float) -> tuple[str, float]:
    """Runs a client in its own process group; its output and CPU seconds (user + system, wait4)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except BaseException:  # past its time, Ctrl-C, SIGTERM (main's handler raises): its group ended
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the group it leads (a launcher script and its JVM)
        except ProcessLookupError:
            pass
        p.communicate()
        raise
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {p.returncode}: {out[-600:]}")
    return out, (ru.ru_utime + ru.ru_stime) - (before.ru_utime + before.ru_stime)


def redis_benchmark(port: int, clients: int, requests: int, records: int, command: list[str],
                    pipeline: int = 1) -> tuple[float, float, float]:
    """(requests/s, client CPU seconds, wall seconds) of one redis-benchmark run."""
    argv = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(clients), "-n", str(requests),
            "-r", str(records), "-P", str(pipeline), "--threads", "1", "--csv", *command]
    t0 = time.monotonic()
    out, cpu = run_child(argv, timeout=600)
    wall = time.monotonic() - t0
    rows = [r for r in csv.reader(out.splitlines()) if r and r[0] != "test"]
    if not rows:
        raise RuntimeError(f"redis-benchmark printed no result: {out[-400:]}")
    return float(rows[-1][1]), cpu, wall


def compare(launcher: str, *, records: int, threads: int, seconds: float, warmup: float, min_ops: int,
            value_bytes: int, depth: int, heap_mib: int, extra: list[str] | None = None,
            workdir: Path | None = None) -> dict:
    """One run: YCSB phases A, C (and c-pipe<depth>) then redis-benchmark on the same server and keys.
    Returns {phase: {ycsb, native (ops/s), ratio, ycsb_client_us, native_client_us, ycsb_server_us,
    native_server_us}} and the server's keyspace hits and misses during redis-benchmark."""
    with tempfile.TemporaryDirectory(prefix="tierbench-kvbench-", dir=workdir) as d:
        wd = Path(d)
        srv = Redis(wd)
        try:
            out = wd / "ycsb.csv"
            argv = [launcher, f"-J-Xmx{heap_mib}m", "--db", "redis", "--key-type", "string", "--threads", str(threads),
                    "--records", str(records), "--operations", "100000000", "--max-seconds", f"{seconds:g}",
                    "--value-bytes", str(value_bytes), "--phases", "a,c", "--port", str(srv.port),
                    "--insert-order", "ordered", "--pipeline-depths", str(depth), "--pipeline-seconds", f"{seconds:g}",
                    "--output", str(out)]
            if warmup > 0 or min_ops > 0:
                argv += ["--warmup-seconds", f"{warmup:g}", "--min-operations", str(min_ops)]
            argv += extra or []
            run_child(argv, timeout=600)
            y = ycsb_rows(out)
            res: dict = {}
            value = "v" * value_bytes
            key = "user0000000__rand_int__"  # __rand_int__: 12 digits -> "user" + 19 digits, YCSB's ordered keys
            hm0 = srv.stats()
            for phase, cmds, pipe in (("c", [["GET", key]], 1), ("a", [["GET", key], ["SET", key, value]], 1),
                                      (f"c-pipe{depth}", [["GET", key]], depth)):
                ops = int(y[phase]["operations"])
                n = max(ops, min_ops, 1000)
                rates, ccpu, scpu = [], 0.0, 0.0
                for c in cmds:
                    s0 = srv.cpu_s()
                    rate, cpu, _wall = redis_benchmark(srv.port, threads, n, records, c, pipe)
                    scpu += srv.cpu_s() - s0
                    ccpu += cpu
                    rates.append(rate)
                native = len(rates) / sum(1 / r for r in rates)  # 50/50 GET/SET for phase A
                total = n * len(cmds)
                res[phase] = {"ycsb": y[phase]["throughput"], "native": native,
                              "ratio": y[phase]["throughput"] / native,
                              "ycsb_client_us": y[phase]["jvm_cpu"] / ops * 1e6,
                              "ycsb_server_us": y[phase]["server_cpu"] / ops * 1e6,
                              "native_client_us": ccpu / total * 1e6, "native_server_us": scpu / total * 1e6,
                              "ycsb_ops": ops, "ycsb_seconds": y[phase]["elapsed"]}
            hm1 = srv.stats()
            res["keyspace"] = {k: hm1[k] - hm0[k] for k in hm1}
        finally:
            srv.stop()
    return res


def main(argv: list[str]) -> int:
    q = quick_kv()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs (pairs with --baseline)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--depth", type=int, default=16, help="pipeline depth of the pipelined comparison")
    ap.add_argument("--records", type=int, default=q["records"])
    ap.add_argument("--seconds", type=float, default=q["max_seconds"], help="phase length (kv/max_seconds)")
    ap.add_argument("--warmup", type=float, default=q.get("warmup_seconds", 0), help="kv/warmup_seconds")
    ap.add_argument("--min-ops", type=int, default=q.get("min_operations", 0), help="kv/min_operations")
    ap.add_argument("--ycsb", default=str(REPO / "build" / "bin" / "ycsb"))
    ap.add_argument("--baseline", default="", help="a second YCSB launcher, run in turn with the first")
    ap.add_argument("--baseline-seconds", type=float, default=None, help="its phase length (default: --seconds)")
    ap.add_argument("--baseline-warmup", action="store_true", help="pass the warm-up options to it too")
    a = ap.parse_args(argv)
    for tool in ("redis-server", "redis-benchmark", "redis-cli", "java"):
        if not _which(tool):
            print(f"bench kv_redis: skipped: {tool} is not on PATH (Debian packages redis-server, redis-tools, "
                  "default-jdk-headless)")
            return 0
    if not Path(a.ycsb).exists():
        print(f"bench kv_redis: skipped: {a.ycsb} is not built (sh workloads/ycsb/build.sh build/src/ycsb build/bin/ycsb)")
        return 0
    variants = [("new", a.ycsb, a.seconds, a.warmup, a.min_ops)]
    if a.baseline:
        bs = a.seconds if a.baseline_seconds is None else a.baseline_seconds
        variants.insert(0, ("baseline", a.baseline, bs, a.warmup if a.baseline_warmup else 0,
                            a.min_ops if a.baseline_warmup else 0))
    print(f"records {a.records}, {a.threads} client thread(s), string keys, {q['value_bytes']} B values; "
          f"redis-benchmark with -c {a.threads} on the same server and keys; runs interleaved")
    got: dict[str, list[dict]] = {v[0]: [] for v in variants}
    for i in range(a.runs):
        for name, launcher, secs, warm, mino in variants:
            r = compare(launcher, records=a.records, threads=a.threads, seconds=secs, warmup=warm, min_ops=mino,
                        value_bytes=q["value_bytes"], depth=a.depth, heap_mib=q["heap_mib"])
            got[name].append(r)
            ks = r["keyspace"]
            print(f"run {i} {name} (phase {secs:g} s, warm-up {warm:g} s, min {mino} ops): redis-benchmark keyspace "
                  f"hits {ks.get('keyspace_hits', 0)}, misses {ks.get('keyspace_misses', 0)}")
            for ph in ("a", "c", f"c-pipe{a.depth}"):
                x = r[ph]
                print(f"  {ph:8s} ycsb {x['ycsb'] / 1e3:8.1f} kops/s ({x['ycsb_ops']:.0f} ops in {x['ycsb_seconds']:.2f} s)"
                      f"  redis-benchmark {x['native'] / 1e3:8.1f} kops/s  ratio {x['ratio']:.2f}"
                      f"  client us/op {x['ycsb_client_us']:6.1f} vs {x['native_client_us']:5.1f}"
                      f"  server us/op {x['ycsb_server_us']:5.1f} vs {x['native_server_us']:5.1f}", flush=True)
    print("medians:")
    for name, runs in got.items():
        for ph in ("a", "c", f"c-pipe{a.depth}"):
            m = {k: statistics.median(r[ph][k] for r in runs) for k in ("ycsb", "native", "ratio", "ycsb_client_us",
                                                                         "ycsb_server_us")}
            print(f"  {name:8s} {ph:8s} ycsb {m['ycsb'] / 1e3:8.1f} kops/s  redis-benchmark {m['native'] / 1e3:8.1f} "
                  f"kops/s  ratio {m['ratio']:.2f}  client {m['ycsb_client_us']:.1f} us/op  server "
                  f"{m['ycsb_server_us']:.1f} us/op")
    return 0


def _which(tool: str) -> bool:
    from shutil import which  # noqa: PLC0415
    return which(tool) is not None


if __name__ == "__main__":
    from bench import stoppable  # noqa: PLC0415

    sys.exit(stoppable(main, sys.argv[1:]))
