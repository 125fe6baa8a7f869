"""Run one real-host tiering point: ``python -m workflows.harness.realrun SPEC|-``.

Sequence, every child in its own process group under one Supervisor, with the
host's measurement lock held and changed settings journaled and restored:

1. apply the point's sysctl/sysfs settings (e.g. numa_balancing), if any;
2. start the antagonist (k x cores-per-unit pinned streaming threads on the
   default tier's node) and wait until it streams, then warm up;
3. run GUPS on the application CPUs (per-second CSV); attach tierd to it when
   the point has a tiering daemon;
4. with the antagonist still running, measure the loaded latency of the
   default tier with memchar on the application CPU (a separate phase: GUPS
   and the probe never share a CPU);
5. stop everything by pid (also on failure and SIGINT/SIGTERM), restore the
   settings, and write ``result.csv`` + ``meta.json`` atomically on success.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import time
from pathlib import Path

from . import ConfigError
from .counters import Collectors
from .point import host_lock, read_spec, write_point
from .point import row as new_row
from .procs import Interrupted, Supervisor
from .provenance import config_hash, file_sha256, git_state, now
from .settings import Settings


def _wait_file(path: Path, child, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists():
            return
        if not child.alive():
            raise RuntimeError(f"{what} exited (status {child.popen.returncode}) before it was ready; see the log")
        time.sleep(0.05)
    raise RuntimeError(f"{what} was not ready within {timeout:.0f} s")


def _read_csv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    text = path.read_text()
    if not text.endswith("\n"):  # drop a partial last line
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text)))


def _tail_mean(rows: list[dict], key: str, average_last_s: float) -> float | None:
    """Mean of ``key`` over the rows of the last ``average_last_s`` seconds (all rows if none)."""
    if not rows:
        return None
    t_end = max(float(r["t_s"]) for r in rows)
    last = [r for r in rows if float(r["t_s"]) > t_end - average_last_s] or rows
    return sum(float(r[key]) for r in last) / len(last)


def rows_from_outputs(outdir: Path, context: dict, average_last_s: float, event_t_s: float | None = None) -> list[dict]:
    """Long-form rows from gups.csv, antagonist.csv, latency.csv and tierd.csv."""
    out: list[dict] = []

    def row(t_s, metric, value, unit, **extra):
        out.append(new_row(context, t_s=t_s, metric=metric, value=value, unit=unit, **extra))

    gups = _read_csv(outdir / "gups.csv")
    for g in gups:
        row(g["t_s"], "throughput", f"{float(g['updates_per_s']) / 1e6:.6g}", "Mops/s", tool="gups")
        row(g["t_s"], "app_bandwidth", f"{float(g['gbytes_per_s']) * 1e3:.6g}", "MB/s", tool="gups")
    ant = _read_csv(outdir / "antagonist.csv")
    for a in ant:
        row(a["t_s"], "antagonist_bandwidth", a["mbytes_per_s"], "MB/s", tool="antagonist")
    # summary rows (t_s empty): averages over the last `average_last_s` seconds, as the paper does
    if gups:
        row("", "throughput", f"{_tail_mean(gups, 'updates_per_s', average_last_s) / 1e6:.6g}", "Mops/s", tool="gups")
    if ant:
        row("", "antagonist_bandwidth", f"{sum(float(a['mbytes_per_s']) for a in ant) / len(ant):.6g}", "MB/s", tool="antagonist")
    for lat in _read_csv(outdir / "latency.csv"):
        if lat.get("metric") == "idle_latency":
            row("", "latency_default", lat["value"], "ns", tool="memchar")
    tierd = _read_csv(outdir / "tierd.csv")
    for t in tierd:
        row(t["t_s"], t["metric"], t["value"], t.get("unit", ""), tool="tierd")
    for metric, name in (("latency_default", "latency_default"), ("latency_alternate", "latency_alternate"),
                         ("p", "p"), ("tierd_cpu_share", "policy_cpu_share")):
        series = [t for t in tierd if t["metric"] == metric]
        if series:
            row("", name, f"{_tail_mean(series, 'value', average_last_s):.6g}", series[0].get("unit", ""), tool="tierd")
    if event_t_s is not None:  # when the phase event happened (configured, not a result)
        row("", "event_t_s", event_t_s, "s")
    return out


def run(spec: dict) -> int:
    outdir = Path(spec["outdir"])
    outdir.mkdir(parents=True, exist_ok=True)
    result, meta_path = outdir / "result.csv", outdir / "meta.json"
    for p in (result, meta_path, outdir / "antagonist.ready", outdir / "gups.ready", outdir / "gups.pid"):
        p.unlink(missing_ok=True)
    facts = json.loads(Path(spec["facts"]).read_text())
    meta: dict = {"point": spec["context"], "note": spec.get("note", ""), "host_facts": facts, "host_profile": spec.get("profile", {}),
                  "git": git_state(), "config_hash": config_hash(spec.get("config", {})), "binaries": {}}
    log = Path(spec["stderr"]) if spec.get("stderr") else None
    journal = Path(spec["journal"]) if spec.get("journal") else None
    # Exit order matters: children stopped first, then the lock released, then settings restored.
    with Settings(journal) as settings, host_lock(Path(spec["lock"])), Supervisor(registry=outdir / "children") as sup:
        meta["start"] = now()
        for key, value in (spec.get("settings") or {}).items():
            settings.set(key, str(value))
        meta["settings_changed"] = dict(settings.saved)
        coll = Collectors(spec.get("counters", []), facts, spec.get("profile", {}), outdir, spec.get("interval_ms", 1000), sup)
        with coll:
            ant = None
            delay = spec.get("antagonist_delay_s")

            def start_antagonist():
                argv = [*spec["antagonist"], "--ready-file", str(outdir / "antagonist.ready"), "--output", str(outdir / "antagonist.csv")]
                meta["antagonist_argv"] = argv
                child = sup.spawn("antagonist", argv, stderr=log)
                _wait_file(outdir / "antagonist.ready", child, 120, "the antagonist")
                return child

            if spec.get("antagonist") and delay is None:
                ant = start_antagonist()
                time.sleep(spec.get("warmup_s", 0))
            gargv = [*spec["gups"], "--output", str(outdir / "gups.csv"), "--pid-file", str(outdir / "gups.pid"),
                     "--ready-file", str(outdir / "gups.ready")]
            meta["gups_argv"] = gargv
            g = sup.spawn("gups", gargv, stderr=log)
            tierd = None
            if spec.get("tierd"):
                _wait_file(outdir / "gups.pid", g, 300, "GUPS")
                targv = [*spec["tierd"], "--pid", (outdir / "gups.pid").read_text().strip(), "--output", str(outdir / "tierd.csv")]
                meta["tierd_argv"] = targv
                tierd = sup.spawn("tierd", targv, stderr=log)
            if spec.get("antagonist") and delay is not None:
                # contention change: the antagonist starts `delay` s into GUPS's timed phase
                _wait_file(outdir / "gups.ready", g, 600, "GUPS")
                time.sleep(delay)
                if g.alive():
                    ant = start_antagonist()
                    meta["antagonist_started_after_s"] = delay
            rc = sup.wait(g, timeout=spec.get("timeout_s", 900))
            if tierd is not None:
                meta["tierd_exit"] = sup.stop(tierd)
            if rc != 0:
                raise RuntimeError(f"GUPS exited with status {rc}; see the log")
            if spec.get("latency_probe"):
                meta["latency_argv"] = spec["latency_probe"]
                lrc = sup.run("memchar", spec["latency_probe"], timeout=600, stdout=outdir / "latency.csv", stderr=log)
                if lrc != 0:
                    raise RuntimeError(f"memchar latency probe exited with status {lrc}; see the log")
            if ant is not None:
                if not ant.alive():
                    raise RuntimeError(f"the antagonist died during the run (status {ant.popen.returncode})")
                meta["antagonist_exit"] = sup.stop(ant)
        meta["counters"] = coll.status()
        meta["end"] = now()
    for name in ("gups", "antagonist", "memchar", "tierd"):
        b = Path("build/bin") / name
        if b.exists():
            meta["binaries"][name] = file_sha256(b)
    rows = rows_from_outputs(outdir, spec["context"], spec.get("average_last_s", 30), spec.get("event_t_s"))
    if not any(r["metric"] == "throughput" for r in rows):
        raise RuntimeError("GUPS reported no throughput rows")
    write_point(outdir, rows, meta)
    return 0


def main(argv: list[str] | None = None) -> int:
    spec = read_spec(argv, "realrun")
    if spec is None:
        return 2
    try:
        return run(spec)
    except Interrupted as e:
        print(f"tierbench: {e}; every child was stopped and settings restored", file=sys.stderr)
        return 128 + e.signum
    except KeyboardInterrupt:
        print("tierbench: interrupted; settings restored", file=sys.stderr)
        return 130
    except (ConfigError, RuntimeError, TimeoutError) as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
