"""``python -m bench``: bad names and misplaced options are refused before any benchmark runs; a
benchmark stopped by a signal cleans up."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

bench_main = importlib.import_module("bench.__main__").main


@pytest.mark.parametrize("argv, says", [
    (["tiersim", "--reps", "3"], "'--reps' is not a benchmark; a benchmark's own options go after --"),
    (["tiersim", "nosuch"], "no benchmark 'nosuch'"),
    (["tiersim", "fidelity", "--", "--reps", "3"], "arguments after -- go to one benchmark"),
])
def test_bad_arguments_stop_before_any_benchmark_runs(argv, says, capsys, monkeypatch):
    ran = []
    monkeypatch.setattr(importlib, "import_module", lambda name: ran.append(name))
    assert bench_main(argv) == 2
    assert says in capsys.readouterr().err and ran == []


def test_fidelity_rounds_scores_gups_on_its_validation_intensities_only(capsys, tmp_path):
    """bench fidelity_rounds: a round's figure of merit is the median |error| of GUPS's throughput over
    the validation intensities (the calibrating 0x row, whose error is 0 by its fit, and the probe are
    not in it); a results directory without measurements is skipped, saying so, before anything runs."""
    import pandas as pd  # noqa: PLC0415

    rounds = importlib.import_module("bench.bench_fidelity_rounds")
    df = pd.DataFrame([
        ("i0-t0", "gups", "throughput_mops", 20.0, 20.0, 0.0, "calibration"),
        ("i1-t1", "gups", "throughput_mops", 18.0, 19.8, 0.1, "validation"),
        ("i2-t1", "gups", "throughput_mops", 16.0, 17.6, 0.1, "validation"),
        ("i3-t1", "gups", "throughput_mops", 10.0, 15.0, 0.5, "validation"),
        ("i3-t1", "probe", "latency_ns", 200.0, 100.0, -0.5, "validation"),
    ], columns=["point", "workload", "metric", "measured", "predicted", "rel_error", "role"])
    df = pd.concat([df, pd.DataFrame([
        ("silo-i0-t0", "silo", "slowdown_vs_0x", 1.0, 1.0, 0.0, "calibration"),
        ("silo-i3-t1", "silo", "slowdown_vs_0x", 2.0, 1.5, -0.25, "validation"),
    ], columns=df.columns)])
    med, alone, per = rounds.show(1, df)
    assert med == pytest.approx(0.1) and alone == 20.0
    assert per == {"latency_ns": 0.5, "slowdown_vs_0x": 0.25, "throughput_mops": pytest.approx(0.1)}
    out = capsys.readouterr().out
    assert "median |error| 10.0% over 3 validation intensities (within the goal" in out
    assert "silo-i3-t1" in out and "-25.0%" in out
    assert rounds.main(["--host-dir", str(tmp_path)]) == 0
    assert "skipped" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # an unknown family: refused before anything runs
        rounds.main(["--families", "tiering,nosuch", "--host-dir", str(tmp_path)])


def test_a_benchmark_stopped_with_sigterm_cleans_up_and_says_so(tmp_path):
    """``python -m bench`` (bench.stoppable): SIGTERM raises in the benchmark, so its finally blocks
    run (bench_kv_redis ends its redis-server and clients there), a second one meanwhile does not
    cut them short, then one line and status 143."""
    ready, cleaned = tmp_path / "ready", tmp_path / "cleaned"
    code = ("import sys, time\nfrom pathlib import Path\nfrom bench import stoppable\n"
            "def main(argv):\n"
            "    try:\n"
            f"        Path({str(ready)!r}).touch()\n"
            "        time.sleep(60)\n"
            "    finally:\n"
            f"        Path({str(ready)!r}).unlink()\n"
            "        time.sleep(1)\n"
            f"        Path({str(cleaned)!r}).touch()\n"
            "sys.exit(stoppable(main, []))\n")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < end:
            time.sleep(0.05)
        os.kill(p.pid, signal.SIGTERM)
        while ready.exists() and time.monotonic() < end:  # its clean-up has begun
            time.sleep(0.02)
        os.kill(p.pid, signal.SIGTERM)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 128 + signal.SIGTERM and cleaned.exists()
    assert err.strip() == "bench: interrupted by SIGTERM"
