"""Real-host runner: antagonist + GUPS + latency probe under one supervisor.

Runs on this machine's node 0 (tiny sizes); SIGINT midway must leave no
antagonist, GUPS or collector behind and every changed setting restored.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, alive, binary, started_by

from workflows.harness import hostdetect, profile


def spec(tmp_path: Path, duration: float, knob: Path | None = None) -> dict:
    for b in ("gups", "antagonist", "memchar"):
        binary(b)
    facts = hostdetect.detect()
    (tmp_path / "facts.json").write_text(json.dumps(facts))
    prof = profile.resolve("auto", facts)
    node = prof["tiers"][0]["node"]
    app, ant = prof["cpus"]["app"], prof["cpus"]["antagonist"] or prof["cpus"]["app"]
    return {
        "outdir": str(tmp_path / "point"),
        "facts": str(tmp_path / "facts.json"),
        "profile": prof,
        "lock": str(tmp_path / "lock"),
        "journal": str(tmp_path / "journal.json"),
        "settings": {str(knob): "2"} if knob else {},
        "gups": ["build/bin/gups", "--cpus", str(app[0]), "--mem-node", str(node), "--working-set", "64M",
                 "--hot-set", "16M", "--duration", str(duration)],
        "antagonist": ["build/bin/antagonist", "--cpus", str(ant[0]), "--mem-node", str(node), "--buffer", "64M"],
        "latency_probe": ["build/bin/memchar", "latency", "--cpus", str(app[0]), "--mem-node", str(node),
                          "--buffer-mib", "32", "--duration", "0.2"],
        "warmup_s": 0.2,
        "average_last_s": 2,
        "counters": ["perf_uncore", "pcm_memory", "ipmctl"],
        "context": {"host": "t", "backend": "numa", "family": "tiering", "experiment": "contention_single_node",
                    "intensity": 3, "point": "t"},
    }


def test_point_writes_rows_and_meta(tmp_path):
    s = spec(tmp_path, 2)
    r = subprocess.run([sys.executable, "-m", "workflows.harness.realrun", "-"], input=json.dumps(s), text=True,
                       capture_output=True, cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(Path(s["outdir"]) / "result.csv")
    series = df[df["t_s"].notna() & (df["metric"] == "throughput")]
    assert len(series) >= 2 and (series["value"] > 0).all()
    summ = df[df["t_s"].isna()].set_index("metric")["value"]
    assert summ["throughput"] > 0 and summ["antagonist_bandwidth"] > 0 and summ["latency_default"] > 5
    meta = json.loads((Path(s["outdir"]) / "meta.json").read_text())
    assert meta["counters"]["perf_uncore"]["available"] in (True, False)
    assert "antagonist_argv" in meta and meta["binaries"]["gups"]


def test_sigint_midway_stops_everything_and_restores_settings(tmp_path):
    knob = tmp_path / "numa_balancing"
    knob.write_text("0\n")
    s = spec(tmp_path, 60, knob)
    p = subprocess.Popen([sys.executable, "-m", "workflows.harness.realrun", "-"], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=REPO)
    p.stdin.write(json.dumps(s))
    p.stdin.close()
    ready = Path(s["outdir"]) / "gups.ready"
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert p.poll() is None, p.stderr.read()
        assert time.monotonic() < deadline, "GUPS never started"
        time.sleep(0.05)
    assert knob.read_text() == "2", "the setting was applied during the run"
    started = started_by(p.pid)
    assert len(started) >= 2, "antagonist and GUPS were running"
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=30) == 128 + signal.SIGINT
    time.sleep(0.3)
    left = {pid for pid in started if alive(pid)}
    assert not left, f"left behind: {left}"
    assert knob.read_text().strip() == "0", "setting restored"
    assert not Path(s["journal"]).exists()
    assert not (Path(s["outdir"]) / "result.csv").exists(), "no half-written result"


def test_intensity_needing_more_cores_is_rejected(tmp_path):
    from workflows.harness import ConfigError, plans

    facts = hostdetect.detect()
    p = tmp_path / "five.yaml"
    p.write_text("name: five\ndetect: true\ntiers: []\ncpus: {cores_per_unit: 5}\n")
    prof = profile.resolve(str(p), facts)
    cfg = profile.validate_config({"scale": "t", "tiering": {"contention": {"intensities": [0, 3]}}})
    if len(prof["tiers"]) != 1:
        pytest.skip("single-node experiment; this host has several memory nodes")
    with pytest.raises(ConfigError, match=r"intensity 3 needs 15 antagonist cores .* grants"):
        plans.contention_points(cfg, prof, facts)


def test_auto_cores_per_unit_scales_to_granted_cpus():
    from workflows.harness import plans

    facts = hostdetect.detect()
    prof = profile.resolve("auto", facts)
    assert prof["cpus"]["cores_per_unit"] == "auto"
    n = len(prof["cpus"]["antagonist"])
    assert plans.antagonist_threads(prof, 3) == n and plans.antagonist_threads(prof, 0) == 0
