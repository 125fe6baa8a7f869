"""The model checked against its host (workflows/harness/fidelity.py, families/*/fidelity.py):
a synthetic host whose "measurements" tiersim itself made from a known curve and known lines in
flight is predicted within a tight tolerance; the calibration points are listed and kept out of
the score; a point the model cannot represent is listed with its reason; a copied results
directory is scored elsewhere; a functional host is not scored; a two-tier run is predicted."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from analysis import fidelity as analysis_fidelity
from families.characterize import OP_SLUG
from families.characterize import fidelity as char_fidelity
from families.tiering import fidelity as tiering_fidelity
from workflows.harness import fidelity, profile

REPO = Path(__file__).resolve().parents[1]
TIERSIM = REPO / "build" / "bin" / "tiersim"
pytestmark = pytest.mark.skipif(not TIERSIM.exists(), reason="build/bin/tiersim not built (make build)")

APP_MLP, ANT_MLP = 3.0, 8.0  # the synthetic host's true lines in flight
COLS = ["host", "backend", "family", "experiment", "workload", "system", "colloid", "intensity", "rep", "t_s", "metric",
        "value", "unit", "tool", "target", "point", "threads", "app_threads", "duration_s"]
GUPS = ["build/bin/gups", "--cpus", "0", "--mem-node", "0", "--working-set", "512M", "--hot-set", "128M",
        "--hot-share", "0.9", "--object-size", "64", "--op", "rmw", "--duration", "5", "--seed", "1"]


def curve_rows(wall: float, l0: float) -> list[tuple[float, float, float]]:
    """A known device: L = l0 + 20 rho / (1 - rho) at reads only, 2:1 and 1:1 (a 1:1 wall 80 %)."""
    out = []
    for rr, scale in ((1.0, 1.0), (0.6667, 0.9), (0.5, 0.8)):
        for rho in (0.02, 0.2, 0.4, 0.6, 0.8, 0.9):
            out.append((rr, rho * wall * scale, l0 + 20 * rho / (1 - rho)))
    return out


def write_curve(path: Path, wall: float = 20000, l0: float = 90) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["read_ratio", "bandwidth_mbps", "latency_ns"])
        w.writerows(curve_rows(wall, l0))


def facts(name: str = "synth", nodes: int = 1, functional: bool = False) -> dict:
    return {"cpu_nodes": list(range(nodes)), "memory_nodes": list(range(nodes)),
            "nodes": {str(n): {"cpus": [4 * n + i for i in range(4)], "memory_mib": 16384} for n in range(nodes)},
            "profile": {"name": name, "backend": "numa", "functional": functional, "cpus": {"app": [0], "antagonist": [1, 2, 3]}}}


def point_dir(host: Path, family: str, exp: str, pid: str) -> Path:
    d = host / family / exp / pid / "rep0"
    d.mkdir(parents=True, exist_ok=True)
    return d


def write_point(host: Path, family: str, exp: str, pid: str, rows: list[dict], argv: dict, ctx: dict,
                meta: dict | None = None) -> None:
    d = point_dir(host, family, exp, pid)
    base = {"host": host.name, "backend": "numa", "family": family, "experiment": exp, "rep": 0, "t_s": "", "tool": "x",
            "target": "node:0", "point": pid, "system": "none", "colloid": "", **ctx}
    pd.DataFrame([{**base, **r} for r in rows], columns=COLS).to_csv(d / "result.csv", index=False)
    (d / "meta.json").write_text(json.dumps({"point": ctx, "argv": argv, **(meta or {})}))


def write_bandwidth(host: Path, pair: str, peaks: dict[str, float]) -> None:
    """The pair's bandwidth experiment (characterize/bandwidth/<pair>/<op>): per op, memchar's
    bandwidth at 1 and 2 threads, the most ``peaks[op]`` MB/s. Its rows' point is the pair."""
    for op, mbps in peaks.items():
        d = point_dir(host, "characterize", "bandwidth", f"{pair}/{OP_SLUG[op]}")
        base = {"host": host.name, "backend": "numa", "family": "characterize", "experiment": "bandwidth", "rep": 0,
                "t_s": "", "tool": "memchar", "target": "node:0", "point": pair, "system": "none", "colloid": "",
                "workload": "", "metric": "bandwidth", "unit": "MB/s", "op": op, "cpu_node": 0, "mem_node": 0}
        pd.DataFrame([{**base, "threads": n, "value": mbps * n / 2} for n in (1, 2)],
                     columns=[*COLS, "op", "cpu_node", "mem_node"]).to_csv(d / "result.csv", index=False)
        (d / "meta.json").write_text(json.dumps({"point": {"point": pair, "op": op}, "argv": {}}))


def synthetic_host(tmp: Path, *, write_fraction: str = "50", name: str = "synth", shares: dict | None = None,
                   window_shares: dict | None = None, ant_shares: dict | None = None) -> Path:
    """results/<host>/ of a one-node host whose contention points tiersim made with APP_MLP/ANT_MLP.
    ``shares``: the CPU share GUPS got over its whole run (meta.json's usage); ``window_shares``: over
    its measured window (GUPS's own cpu_share row), which the model then reads instead;
    ``ant_shares``: the antagonist's CPU share per point (its lines in flight in proportion:
    ANT_MLP at the highest intensity's share)."""
    host = tmp / name
    host.mkdir(parents=True)
    (host / "host_facts.json").write_text(json.dumps(facts(name)))
    write_curve(host / "curves" / "c0-m0.csv")
    model = fidelity.Model({"default": {"curve": str(host / "curves" / "c0-m0.csv"), "capacity_gib": 16}}, tiersim=TIERSIM)
    write_contention(host, model, write_fraction=write_fraction, shares=shares, window_shares=window_shares,
                     ant_shares=ant_shares)
    return host


def write_contention(host: Path, model: fidelity.Model, *, write_fraction: str = "50", shares: dict | None = None,
                     window_shares: dict | None = None, ant_shares: dict | None = None) -> None:
    """The contention points (0x..3x on the default node) that tiersim makes with APP_MLP/ANT_MLP
    on ``model``'s default tier (:func:`synthetic_host` says the options)."""
    for t in (0, 1, 2, 3):
        mlp = ANT_MLP * (ant_shares[t] / ant_shares[3] if ant_shares and t else 1.0)
        true = ["--app-mlp", str(APP_MLP), "--antagonist-mlp", f"{mlp:.6g}"]
        pid = f"i{t}-t{t}"
        p = {"argv": {"gups": GUPS, "latency": ["build/bin/memchar", "latency", "--buffer-mib", "256"]}, "threads": t}
        if t:
            p["argv"]["antagonist"] = ["build/bin/antagonist", "--cpus", "1", "--write-fraction",
                                       write_fraction if t == 2 else "50", "--access-size", "64"]
        g = model.single_node(workload=tiering_fidelity.gups_workload(GUPS), app_cores=1, antagonist_threads=t, extra=true)
        probe = model.single_node(workload=tiering_fidelity.probe_workload(p["argv"]), app_cores=1, antagonist_threads=t,
                                  extra=["--antagonist-mlp", f"{mlp:.6g}", "--app-mlp", "1", "--app-think-ns", "0"])
        share = (window_shares or shares or {}).get(t, 1.0)
        rows = [{"workload": "gups", "metric": "throughput", "value": g["throughput"] * share, "unit": "Mops/s"},
                {"workload": "gups", "metric": "latency_default", "value": probe["latency_default"], "unit": "ns"},
                # GUPS's own traffic, a per-second row (the antagonist's fit reads the 0x point's)
                {"workload": "gups", "metric": "app_bandwidth", "t_s": 1.0,
                 "value": g["bandwidth_default"] - g["antagonist_bandwidth"], "unit": "MB/s"}]
        if window_shares:
            rows.append({"workload": "gups", "metric": "cpu_share", "value": share, "unit": "fraction"})
        if ant_shares and t:
            rows.append({"workload": "gups", "metric": "antagonist_cpu_share", "value": ant_shares[t], "unit": "fraction"})
        if t:
            rows.append({"workload": "gups", "metric": "antagonist_bandwidth", "value": g["antagonist_bandwidth"],
                         "unit": "MB/s"})
        usage = {"usage": {"gups": {"user_s": 4 * share, "system_s": 0, "wall_s": 4}}} if shares else None
        write_point(host, "tiering", "contention_single_node", pid, rows, p["argv"],
                    {"workload": "gups", "intensity": t, "threads": t}, usage)


def read(host: Path) -> pd.DataFrame:
    return pd.read_csv(host / "fidelity.csv")


def test_synthetic_host_is_predicted_within_a_tight_tolerance(tmp_path):
    host = synthetic_host(tmp_path)
    msg = fidelity.run(host, [], tiersim=TIERSIM)
    assert "validation" in msg
    df = read(host)
    assert list(df.columns) == fidelity.COLUMNS
    v = df[df["role"] == "validation"]
    # every GUPS intensity but the calibrating 0x, the probe at every intensity, the antagonist but its calibration point
    assert set(v[v["metric"] == "throughput_mops"]["point"]) == {"i1-t1", "i2-t2", "i3-t3"}
    assert set(v[v["metric"] == "latency_ns"]["point"]) == {"i0-t0", "i1-t1", "i2-t2", "i3-t3"}
    assert v["rel_error"].abs().max() < 2e-3, v[["point", "metric", "rel_error"]]
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    assert "latency_offset_ns" not in prof["calibration"]  # made only when asked
    assert prof["calibration"]["app_mlp"]["value"] == pytest.approx(APP_MLP, rel=2e-3)
    assert prof["calibration"]["antagonist_mlp"]["value"] == pytest.approx(ANT_MLP, rel=2e-3)
    assert prof["calibration"]["app_mlp"]["points"] == ["tiering/contention_single_node/i0-t0"]


def test_the_cpu_share_a_workload_got_scales_its_prediction(tmp_path):
    """On a shared machine GUPS got part of its CPU time (meta.json's usage): the model's throughput
    is scaled by it, at the calibration point too, so the fitted lines in flight stay the true ones."""
    host = synthetic_host(tmp_path, shares={0: 0.5, 1: 1.0, 2: 0.25, 3: 0.8})
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).query("role == 'validation' and metric == 'throughput_mops'")
    assert len(v) == 3 and v["rel_error"].abs().max() < 2e-3
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    assert prof["calibration"]["app_mlp"]["value"] == pytest.approx(APP_MLP, rel=2e-3)


def test_the_cpu_share_of_the_measured_window_is_read_before_the_whole_runs(tmp_path):
    """GUPS's own cpu_share row (its CPU time over the seconds its throughput is averaged on) scales
    the prediction; the whole run's share (meta.json, start-up included) is then not used: here it
    says 1.0 everywhere and would leave the throughputs off by the window's shares."""
    host = synthetic_host(tmp_path, window_shares={0: 0.5, 1: 1.0, 2: 0.25, 3: 0.8})
    for t in range(4):
        meta = host / "tiering" / "contention_single_node" / f"i{t}-t{t}" / "rep0" / "meta.json"
        m = json.loads(meta.read_text())
        meta.write_text(json.dumps({**m, "usage": {"gups": {"user_s": 4, "system_s": 0, "wall_s": 4}}}))
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).query("role == 'validation' and metric == 'throughput_mops'")
    assert len(v) == 3 and v["rel_error"].abs().max() < 2e-3
    cal = read(host).query("role == 'calibration' and metric == 'throughput_mops'")
    assert "the measured window" in cal["reason"].iloc[0]
    fidelity.run(host, [], tiersim=TIERSIM, ablate=("process-share",))
    v = read(host).query("role == 'validation' and metric == 'throughput_mops'")
    assert v["rel_error"].abs().max() > 0.5  # the i2 point (a quarter of its CPU) read at the whole run's 1.0


def test_the_antagonists_lines_in_flight_come_from_littles_law(tmp_path):
    """antagonist_mlp = its measured lines per ns x (think time + the curve's latency at the traffic
    measured there) per core: the true value back, its source said in the profile."""
    host = synthetic_host(tmp_path)
    fidelity.run(host, [], tiersim=TIERSIM)
    cal = yaml.safe_load((host / "model-profile.yaml").read_text())["calibration"]["antagonist_mlp"]
    assert cal["value"] == pytest.approx(ANT_MLP, rel=2e-3)
    assert "Little's law" in cal["source"] and "20 ns" in cal["source"]


def test_no_fit_reads_a_number_that_is_scored(tmp_path):
    """Calibration points only: GUPS's throughput and traffic beside the antagonist at its
    calibration point (the highest intensity) are validation numbers there, so moving them changes
    their scored rows and nothing fitted (the antagonist's lines in flight, the curve's walls)."""
    host = synthetic_host(tmp_path)
    fidelity.run(host, [], tiersim=TIERSIM)
    cal0 = yaml.safe_load((host / "model-profile.yaml").read_text())["calibration"]
    f = host / "tiering" / "contention_single_node" / "i3-t3" / "rep0" / "result.csv"
    d = pd.read_csv(f)
    for metric, k in (("app_bandwidth", 3.0), ("throughput", 0.5)):
        d.loc[(d["workload"] == "gups") & (d["metric"] == metric), "value"] *= k
    d.to_csv(f, index=False)
    before = read(host)
    fidelity.run(host, [], tiersim=TIERSIM)
    assert yaml.safe_load((host / "model-profile.yaml").read_text())["calibration"] == cal0
    after = read(host)
    gups3 = lambda df: df[(df["point"] == "i3-t3") & (df["workload"] == "gups")].iloc[0]  # noqa: E731
    assert gups3(after)["role"] == "validation"
    assert gups3(after)["measured"] == pytest.approx(0.5 * gups3(before)["measured"], rel=1e-4)
    assert gups3(after)["predicted"] == pytest.approx(gups3(before)["predicted"])


def test_a_duty_cycled_antagonist_is_the_time_weighted_mix_of_its_two_states(tmp_path):
    """A 2-core host's 1x and 2x: the one antagonist CPU streaming 1/3 and 2/3 of the time
    (--duty). Measurements made as the mix of tiersim's on and off states are predicted within
    the tolerance (throughput by time, the probe's latency by loads), and the calibration stays
    on the point where the antagonist streams all the time."""
    host = tmp_path / "duty"
    host.mkdir()
    (host / "host_facts.json").write_text(json.dumps(facts("duty")))
    write_curve(host / "curves" / "c0-m0.csv")
    model = fidelity.Model({"default": {"curve": str(host / "curves" / "c0-m0.csv"), "capacity_gib": 16}}, tiersim=TIERSIM)
    true = ["--app-mlp", str(APP_MLP), "--antagonist-mlp", str(ANT_MLP)]
    lat = {"latency": ["build/bin/memchar", "latency", "--buffer-mib", "256"]}

    def run(t: int) -> tuple[dict, dict]:
        g = model.single_node(workload=tiering_fidelity.gups_workload(GUPS), app_cores=1, antagonist_threads=t, extra=true)
        probe = model.single_node(workload=tiering_fidelity.probe_workload(lat), app_cores=1, antagonist_threads=t,
                                  extra=["--antagonist-mlp", str(ANT_MLP), "--app-mlp", "1", "--app-think-ns", "0"])
        return g, probe

    (g0, p0), (g1, p1) = run(0), run(1)
    for k in range(4):
        f = k / 3
        ant = ["build/bin/antagonist", "--cpus", "1", "--write-fraction", "50", "--access-size", "64"]
        argv = {"gups": GUPS, **lat, **({"antagonist": ant + (["--duty", f"{f:.6g}"] if k < 3 else [])} if k else {})}
        x = f * g1["throughput"] + (1 - f) * g0["throughput"]
        latency = 1 / (f / p1["latency_default"] + (1 - f) / p0["latency_default"])
        rows = [{"workload": "gups", "metric": "throughput", "value": x, "unit": "Mops/s"},
                {"workload": "gups", "metric": "latency_default", "value": latency, "unit": "ns"},
                {"workload": "gups", "metric": "app_bandwidth", "t_s": 1.0,
                 "value": (g1["bandwidth_default"] - g1["antagonist_bandwidth"]) if k == 3 else x * 128, "unit": "MB/s"}]
        if k:
            rows.append({"workload": "gups", "metric": "antagonist_bandwidth", "value": f * g1["antagonist_bandwidth"],
                         "unit": "MB/s"})
        write_point(host, "tiering", "contention_single_node", f"i{k}-t{min(k, 1)}", rows, argv,
                    {"workload": "gups", "intensity": k, "threads": min(k, 1)})
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    v = df[df["role"] == "validation"]
    assert set(v[v["metric"] == "throughput_mops"]["point"]) == {"i1-t1", "i2-t1", "i3-t1"}
    assert set(v[v["metric"] == "antagonist_bandwidth_mbps"]["point"]) == {"i1-t1", "i2-t1"}
    assert v["rel_error"].abs().max() < 2e-3, v[["point", "metric", "rel_error"]]
    cal = df[df["role"] == "calibration"]
    assert set(cal[cal["metric"] == "antagonist_bandwidth_mbps"]["point"]) == {"i3-t1"}


def test_the_antagonists_lines_in_flight_follow_its_cpu_share(tmp_path):
    """An antagonist that got 30 % and 60 % of its CPU at 1x and 2x against 90 % at its
    calibration point (3x) keeps lines in flight in proportion: predicted within the tolerance from
    its antagonist_cpu_share rows; unscaled (the ablation) its bandwidth is far off."""
    host = synthetic_host(tmp_path, ant_shares={1: 0.3, 2: 0.6, 3: 0.9})
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).query("role == 'validation'")
    assert v["rel_error"].abs().max() < 2e-3, v[["point", "metric", "rel_error"]]
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    assert "90% of its CPU time" in prof["calibration"]["antagonist_mlp"]["source"]
    fidelity.run(host, [], tiersim=TIERSIM, ablate=("antagonist-share",))
    v = read(host).query("role == 'validation' and metric == 'antagonist_bandwidth_mbps'")
    assert v["rel_error"].abs().min() > 0.2


def test_an_applications_slowdown_is_predicted_from_its_access_model(tmp_path):
    """The apps family's hook: Silo's throughput beside the antagonist (streaming all the time, and
    1/3 of the time) relative to its 0x run, each "measured" as tiersim's run of its access model
    times the CPU share Silo got there (meta.json) with the antagonist's lines in flight at the share
    it had: predicted within the tolerance; the 0x row is the reference (calibration)."""
    from families.apps import fidelity as apps_fidelity  # noqa: PLC0415

    host = synthetic_host(tmp_path, ant_shares={1: 0.9, 2: 0.9, 3: 0.9})
    model = fidelity.Model({"default": {"curve": str(host / "curves" / "c0-m0.csv"), "capacity_gib": 16}}, tiersim=TIERSIM)
    w = apps_fidelity.workload(apps_fidelity.access_models.models()["silo"])
    silo = ["build/bin/silo-dbtest", "--num-threads", "1"]
    for pid, t, duty, cpu, ant_share in (("silo-i0-t0", 0, 1.0, 0.8, None), ("silo-i1-t1", 1, 1 / 3, 0.5, 0.3),
                                         ("silo-i3-t1", 1, 1.0, 0.6, 0.45)):
        mlp = ANT_MLP * (ant_share / duty / 0.9 if ant_share else 1.0)
        x = [model.single_node(workload=w, app_cores=1, antagonist_threads=k, extra=["--antagonist-mlp", f"{mlp:.6g}"])
             ["throughput"] for k in (0, t)]
        measured = cpu * (duty * x[1] + (1 - duty) * x[0])
        ant = ["build/bin/antagonist", "--cpus", "1", "--write-fraction", "50", "--access-size", "64"]
        argv = {"silo": silo, **({"antagonist": ant + (["--duty", f"{duty:.6g}"] if duty < 1 else [])} if t else {})}
        rows = [{"workload": "silo", "metric": "throughput", "value": measured, "unit": "ops/s"}]
        if ant_share:
            rows.append({"workload": "silo", "metric": "antagonist_cpu_share", "value": ant_share, "unit": "fraction"})
        write_point(host, "apps", "contention_single_node", pid, rows, argv,
                    {"workload": "silo", "intensity": 3 * duty if t else 0, "threads": t, "app_threads": 1},
                    {"usage": {"silo": {"user_s": 4 * cpu, "system_s": 0, "wall_s": 4}}})
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    a = df[df["family"] == "apps"]
    assert set(a[a["role"] == "calibration"]["point"]) == {"silo-i0-t0"}
    v = a[a["role"] == "validation"]
    assert set(v["point"]) == {"silo-i1-t1", "silo-i3-t1"} and (v["metric"] == "slowdown_vs_0x").all()
    assert v["rel_error"].abs().max() < 2e-3, v[["point", "rel_error"]]


def test_a_wrong_curve_shows_as_error(tmp_path):
    """The score can fail: the same measurements against a device twice as slow are far off, and
    still are with the curve's level fitted to the probe (its shape is wrong too: half the wall)."""
    host = synthetic_host(tmp_path)
    write_curve(host / "curves" / "c0-m0.csv", wall=10000, l0=180)
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).query("role == 'validation'")
    assert v[v["metric"] == "latency_ns"]["rel_error"].abs().min() > 0.3
    (host / "fidelity.csv").unlink()
    fidelity.run(host, [], tiersim=TIERSIM, opt_in=("latency-offset",))
    v = read(host).query("role == 'validation'")
    assert v[v["metric"] == "latency_ns"]["rel_error"].abs().min() > 0.2
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    assert prof["calibration"]["latency_offset_ns"]["value"] == pytest.approx(-90, abs=2)


def test_the_curves_level_is_fitted_to_the_probe_alone_and_its_shape_is_tested(tmp_path):
    """A curve measured 20 ns below the contention points' own level (another buffer, another time:
    docs/fidelity.md) but of the right shape: asked for (``--with latency-offset``), the curve is
    moved by latency_offset_ns, fitted on the probe alone at 0x (a calibration row, not scored), and
    every loaded point is then predicted within the tolerance. By default the level error shows
    at every point."""
    host = synthetic_host(tmp_path)
    write_curve(host / "curves" / "c0-m0.csv", l0=70)  # the truth is l0 = 90
    fidelity.run(host, [], tiersim=TIERSIM, opt_in=("latency-offset",))
    df = read(host)
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    fit = prof["calibration"]["latency_offset_ns"]
    assert fit["value"] == pytest.approx(20, abs=0.5)
    assert fit["points"] == ["tiering/contention_single_node/i0-t0"]
    assert "tiersim_option" not in fit  # a moved curve, not an option
    assert prof["tiers"][0]["curve"] == "model-curves/c0-m0.csv"
    moved = pd.read_csv(host / "model-curves" / "c0-m0.csv")
    assert moved["latency_ns"].min() == pytest.approx(70 + 20 * 0.02 / 0.98 + fit["value"], abs=0.01)
    said = re.search(r"moved by ([+-][0-9.]+) ns", (host / "model-profile.yaml").read_text())
    assert said and float(said.group(1)) == pytest.approx(fit["value"], abs=0.01)
    cal = df[(df["role"] == "calibration") & (df["metric"] == "latency_ns")]
    assert list(cal["point"]) == ["i0-t0"] and cal["reason"].str.contains("latency_offset_ns").all()
    v = df[df["role"] == "validation"]
    assert v["rel_error"].abs().max() < 5e-3, v[["point", "metric", "rel_error"]]
    # the profile loads and resolves like any user's, with the moved curve
    _, _, loaded = profile.load_profile(str(host / "model-profile.yaml"))
    assert loaded["tiers"][0]["curve"] == "model-curves/c0-m0.csv"

    (host / "fidelity.csv").unlink()
    fidelity.run(host, [], tiersim=TIERSIM)
    assert "latency_offset_ns" not in (host / "model-profile.yaml").read_text()
    assert yaml.safe_load((host / "model-profile.yaml").read_text())["tiers"][0]["curve"] == "curves/c0-m0.csv"
    v = read(host).query("role == 'validation' and metric == 'latency_ns'")
    assert set(v["point"]) == {"i0-t0", "i1-t1", "i2-t2", "i3-t3"}
    assert (v["rel_error"] < -0.05).all()


def test_calibration_points_are_listed_and_kept_out_of_the_score(tmp_path):
    host = synthetic_host(tmp_path)
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    cal = df[df["role"] == "calibration"]
    assert {(r.point, r.metric) for r in cal.itertuples()} == {("i0-t0", "throughput_mops"),
                                                               ("i3-t3", "antagonist_bandwidth_mbps")}
    assert cal["reason"].str.startswith("fitted").all()
    scored = df[df["role"] == "validation"]
    assert not set(zip(scored["point"], scored["metric"], strict=True)) & set(zip(cal["point"], cal["metric"], strict=True))
    # the fitted values' named points are exactly the calibration rows' points
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    named = {p.split("/")[-1] for c in prof["calibration"].values() for p in c["points"]}
    assert named == set(cal["point"])


def test_an_unrepresented_point_is_listed_with_its_reason(tmp_path):
    host = synthetic_host(tmp_path, write_fraction="100")
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    u = df[df["point"] == "i2-t2"]
    assert len(u) == 3 and (u["role"] == "unrepresented").all()
    assert u["predicted"].isna().all() and u["rel_error"].isna().all()
    assert u["reason"].str.contains("--write-fraction 100").all()
    assert (df[df["point"] == "i1-t1"]["role"] == "validation").all()


def test_a_copied_results_directory_is_scored_elsewhere(tmp_path):
    host = synthetic_host(tmp_path / "here")
    # the pair's bandwidth experiment measured more than the loaded sweep reached (18 and 14.4 GB/s
    # at reads only and 1:1): the curve's walls are raised to it (rmw's, not mix1:1's, at 1:1)
    write_bandwidth(host, "c0-m0", {"read": 24000.0, "rmw": 21000.0, "mix1:1": 30000.0})
    fidelity.run(host, [], tiersim=TIERSIM)
    first = read(host)
    walls = yaml.safe_load((host / "model-profile.yaml").read_text())["calibration"]
    assert walls["wall_mbps_c0-m0_r1"]["value"] == 24000 and walls["wall_mbps_c0-m0_r0.5"]["value"] == 21000
    assert walls["wall_mbps_c0-m0_r1"]["points"] == ["characterize/bandwidth/c0-m0/read"]
    # the other machine: what docs/fidelity.md ("Elsewhere") says is copied, measurements.csv (every
    # result.csv's rows in one file), host_facts.json, curves/ and the points' meta.json, nothing else
    there = tmp_path / "there" / host.name
    there.mkdir(parents=True)
    files = sorted(host.glob("**/result.csv"))
    pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files]).to_csv(there / "measurements.csv", index=False)
    shutil.copy(host / "host_facts.json", there)
    shutil.copytree(host / "curves", there / "curves")
    for m in host.glob("**/meta.json"):
        (there / m.relative_to(host)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(m, there / m.relative_to(host))
    p = subprocess.run([sys.executable, "-m", "workflows.harness.fidelity", "--host-dir", str(there), "--tiersim", str(TIERSIM)],
                       cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
                       check=False)
    assert p.returncode == 0, p.stderr
    again = read(there)
    pd.testing.assert_frame_equal(first, again)
    # the same model: the same walls, fits and curves
    assert (there / "model-profile.yaml").read_text() == (host / "model-profile.yaml").read_text()
    assert (there / "model-curves" / "c0-m0.csv").read_text() == (host / "model-curves" / "c0-m0.csv").read_text()
    # the model profile written there is a host profile like any user's
    prof = profile.resolve(str(there / "model-profile.yaml"), facts())
    assert [t["name"] for t in prof["tiers"]] == ["default"] and prof["backend"] == "model"


def test_a_functional_host_is_not_scored(tmp_path):
    host = synthetic_host(tmp_path)
    (host / "host_facts.json").write_text(json.dumps(facts(functional=True)))
    msg = fidelity.run(host, [], tiersim=TIERSIM, expect="skipped")
    assert "not scored" in msg
    assert not (host / "fidelity.csv").exists()
    assert "functional" in (host / "fidelity.skipped").read_text()


def test_no_curves_skips_with_the_reason_and_the_rule_still_gets_its_file(tmp_path):
    host = synthetic_host(tmp_path)
    shutil.rmtree(host / "curves")
    fidelity.run(host, [], tiersim=TIERSIM, expect="csv")
    assert "loaded-latency" in (host / "fidelity.skipped").read_text()
    assert (host / "fidelity.csv").read_text().strip() == ",".join(fidelity.COLUMNS)
    # what reads the score says why (docs/fidelity.md: "not scored: <reason>")
    why = (host / "fidelity.skipped").read_text().strip()
    assert analysis_fidelity.of_results(host).summary == f"not scored: {why}"
    assert analysis_fidelity.of_csv(host / "fidelity.csv", host.name).summary == f"not scored: {why}"


def two_tier_host(tmp_path: Path, duration_s: int = 10) -> tuple[Path, fidelity.Model, dict]:
    """results/<host>/ of a two-node host (its facts and its local and far curves), the model of it
    and the argv of a GUPS run under tierd's HeMem there."""
    host = tmp_path / "two"
    host.mkdir()
    (host / "host_facts.json").write_text(json.dumps(facts("two", nodes=2)))
    write_curve(host / "curves" / "c0-m0.csv")
    write_curve(host / "curves" / "c0-m1.csv", wall=12000, l0=170)
    argv = {"gups": GUPS[:5] + ["--working-set", "1G", "--hot-set", "256M", "--hot-share", "0.9", "--object-size", "64",
                                "--op", "rmw", "--duration", str(duration_s)],
            "tierd": ["build/bin/tierd", "--policy", "hemem", "--capacity", "512M,auto"]}
    model = fidelity.Model({"default": {"curve": str(host / "curves" / "c0-m0.csv"), "capacity_gib": 16},
                            "alternate": {"curve": str(host / "curves" / "c0-m1.csv"), "capacity_gib": 16}}, tiersim=TIERSIM)
    return host, model, argv


def test_two_tier_runs_are_predicted(tmp_path):
    """A real steady-state run on a two-node host (synthetic: tiersim made its numbers) beside the
    model on the host's local and far curves."""
    host, model, argv = two_tier_host(tmp_path)
    truth = model.run(tiering_fidelity.two_tier_argv(model, "hemem", True, 0, argv["gups"], argv, "steady_state", None))
    rows = [{"workload": "gups", "metric": m, "value": truth[m], "unit": u}
            for m, u in (("throughput", "Mops/s"), ("latency_default", "ns"), ("latency_alternate", "ns"), ("p", ""))]
    write_point(host, "tiering", "steady_state", "numa-hemem-c1-i0", rows, argv,
                {"workload": "gups", "intensity": 0, "system": "hemem", "colloid": True})
    # each pair's idle latency measured alone (the far one 10 % above its curve's lightest point)
    for pair, ns in (("c0-m0", 90.0), ("c0-m1", 1.1 * 170)):
        write_point(host, "characterize", "idle_latency", pair,
                    [{"workload": "", "metric": "idle_latency", "value": ns, "unit": "ns"}], {}, {"workload": ""})
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    v = df[df["experiment"] == "steady_state"]
    assert set(v["metric"]) == {"throughput_mops", "latency_default_ns", "latency_alternate_ns", "p_default"}
    assert (v["role"] == "validation").all() and v["rel_error"].abs().max() < 1e-9
    prof = yaml.safe_load((host / "model-profile.yaml").read_text())
    assert [t["curve"] for t in prof["tiers"]] == ["curves/c0-m0.csv", "curves/c0-m1.csv"]
    # each tier's unloaded latency in the model beside the idle latency of its pair, measured alone
    idle = df[df["experiment"] == "idle_latency"].set_index("point")
    assert list(idle.index) == ["c0-m0", "c0-m1"] and (idle["role"] == "validation").all()
    assert (idle["metric"] == "latency_ns").all() and (idle["family"] == "characterize").all()
    # tiersim's one-line chase alone reads each curve near its lightest point (rho 0.02: l0 + 0.41 ns)
    assert idle.loc["c0-m0", "predicted"] == pytest.approx(90.41, rel=0.01)
    assert idle.loc["c0-m1", "predicted"] == pytest.approx(170.41, rel=0.01)
    assert list(idle["measured"]) == [90.0, 187.0]
    assert idle.loc["c0-m1", "rel_error"] == pytest.approx(-0.09, abs=0.01)



@pytest.mark.parametrize("own_row", [True, False])
def test_a_two_tier_runs_throughput_is_scaled_by_the_cpu_share_gups_got_there(tmp_path, own_row):
    """As at the contention points: GUPS's own cpu_share row, else its whole run's share from the
    point's meta.json (usage), scales the predicted throughput."""
    host, model, argv = two_tier_host(tmp_path)
    argv["gups"] = ["build/bin/gups", "--cpus", "0-1", *argv["gups"][3:]]  # two cores: the share is per core
    truth = model.run(tiering_fidelity.two_tier_argv(model, "hemem", False, 0, argv["gups"], argv, "steady_state", None))
    rows = [{"workload": "gups", "metric": "throughput", "value": truth["throughput"] * 0.5, "unit": "Mops/s"}]
    if own_row:
        rows.append({"workload": "gups", "metric": "cpu_share", "value": 0.5, "unit": "fraction"})
    usage = None if own_row else {"usage": {"gups": {"user_s": 4, "system_s": 0, "wall_s": 4}}}
    write_point(host, "tiering", "steady_state", "numa-hemem-c0-i0", rows, argv,
                {"workload": "gups", "intensity": 0, "system": "hemem", "colloid": False}, usage)
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).query("experiment == 'steady_state' and metric == 'throughput_mops'")
    assert len(v) == 1 and v["role"].iloc[0] == "validation" and abs(v["rel_error"].iloc[0]) < 1e-6


def test_gups_reports_its_hot_set_in_the_alternate_tier_and_a_two_tier_run_is_scored_on_it(tmp_path):
    """GUPS's --hot-placement column (the hot set's bytes off the default node, per second) becomes
    hot_in_alternate rows (GiB, and their mean over the seconds averaged, with duration_s), and a
    two-tier run is compared on it with tiersim's metric of the same name."""
    from workloads.gups import workload as gups  # noqa: PLC0415

    assert gups.argv(cpus=[0], node=1, working_set="1G", hot_set="256M", hot_share=0.9, object_bytes=64, op="rmw",
                     duration_s=10, seed=1, hot_placement=0)[-2:] == ["--hot-placement", "0"]
    host, model, argv = two_tier_host(tmp_path)
    truth = model.run(tiering_fidelity.two_tier_argv(model, "hemem", True, 0, argv["gups"], argv, "steady_state", None))
    gib = truth["hot_in_alternate"]
    out = tmp_path / "run"
    out.mkdir()
    lines = ["t_s,updates,updates_per_s,gbytes_per_s,bytes,phase,cpu_share,hot_off_node_bytes"]
    for t, b in ((1, 2 * gib), (2, 0.9 * gib), (3, 1.1 * gib)):  # the last 2 s averaged: gib
        lines.append(f"{t}.000,1,{truth['throughput'] * 1e6:.1f},1,1,0,1.0,{b * (1 << 30):.0f}")
    (out / "gups.csv").write_text("\n".join(lines) + "\n")
    rows = gups.rows(out, gups.role(argv["gups"]), {"average_last_s": 2})
    hot = [r for r in rows if r["metric"] == "hot_in_alternate"]
    assert [r.get("t_s") for r in hot] == ["1.000", "2.000", "3.000", None] and hot[-1]["duration_s"] == "2"
    assert float(hot[-1]["value"]) == pytest.approx(gib, rel=1e-5)
    write_point(host, "tiering", "steady_state", "numa-hemem-c1-i0",
                [{"workload": "gups", **r} for r in rows if r["metric"] in ("throughput", "hot_in_alternate")], argv,
                {"workload": "gups", "intensity": 0, "system": "hemem", "colloid": True})
    fidelity.run(host, [], tiersim=TIERSIM)
    # compared as the share of the hot set in the default tier (256M hot): 1 - GiB / 0.25
    v = read(host).query("experiment == 'steady_state' and metric == 'hot_set_in_default'")
    assert len(v) == 1 and v["role"].iloc[0] == "validation" and abs(v["rel_error"].iloc[0]) < 1e-4
    assert v["measured"].iloc[0] == pytest.approx(1 - gib / 0.25, rel=1e-4)
    # the GiB's half-range (0.1 of it) over the share
    assert v["spread"].iloc[0] == pytest.approx(0.1 * gib / 0.25 / (1 - gib / 0.25), rel=1e-3)

def test_a_two_tier_hosts_runs_are_predicted_with_what_its_default_node_calibrated(tmp_path):
    """On a two-tier host the contention points run on the default node too: GUPS alone and the
    antagonist's highest intensity there fit app_mlp and antagonist_mlp (calibration rows), and the
    real tiering runs are predicted with them (the synthetic truth: tiersim with the true values);
    without those points they are predicted with tiersim's defaults, and miss."""
    host, model, argv = two_tier_host(tmp_path)
    argv["antagonist"] = ["build/bin/antagonist", "--cpus", "1,2,3", "--mem-node", "0"]
    true = ["--app-mlp", str(APP_MLP), "--antagonist-mlp", str(ANT_MLP)]
    truth = model.run(tiering_fidelity.two_tier_argv(model, "hemem", True, 3, argv["gups"], argv, "steady_state", None)
                      + true)
    rows = [{"workload": "gups", "metric": m, "value": truth[m], "unit": u}
            for m, u in (("throughput", "Mops/s"), ("latency_default", "ns"), ("latency_alternate", "ns"), ("p", ""))]
    write_point(host, "tiering", "steady_state", "numa-hemem-c1-i3", rows, argv,
                {"workload": "gups", "intensity": 3, "system": "hemem", "colloid": True})

    def steady() -> pd.DataFrame:
        fidelity.run(host, [], tiersim=TIERSIM)
        df = read(host)
        return df[df["experiment"] == "steady_state"].set_index("metric")

    uncalibrated = steady()
    assert "calibration" not in yaml.safe_load((host / "model-profile.yaml").read_text())
    write_contention(host, model.on_tier("default"))
    calibrated = steady()
    cal = yaml.safe_load((host / "model-profile.yaml").read_text())["calibration"]
    assert cal["app_mlp"]["value"] == pytest.approx(APP_MLP, rel=5e-3)
    assert cal["antagonist_mlp"]["value"] == pytest.approx(ANT_MLP, rel=5e-3)
    assert (calibrated["role"] == "validation").all()
    assert calibrated.loc["throughput_mops", "rel_error"] == pytest.approx(0, abs=5e-3)
    assert abs(uncalibrated.loc["throughput_mops", "rel_error"]) > 0.05, "tiersim's defaults are not this host's"
    # GUPS that ran on half its CPUs (its own cpu_share row) did half the work: predicted so, as at one node
    rows[0]["value"] = truth["throughput"] / 2
    write_point(host, "tiering", "steady_state", "numa-hemem-c1-i3",
                rows + [{"workload": "gups", "metric": "cpu_share", "value": 0.5, "unit": "fraction"}], argv,
                {"workload": "gups", "intensity": 3, "system": "hemem", "colloid": True})
    assert steady().loc["throughput_mops", "rel_error"] == pytest.approx(0, abs=5e-3)


def test_a_two_tier_run_bound_to_the_far_node_starts_in_the_alternate_tier(tmp_path):
    """GUPS bound at start to its target's far node (tiering/real/start_tier: alternate, the default)
    is predicted from a tiersim run that starts in the alternate tier (``--start-tier alternate``),
    not from tiersim's first touch into the default tier, which differs over a short run; and over
    the seconds GUPS averaged (its summary's ``duration_s``)."""
    assert tiering_fidelity.start_args("1", "node:0,1") == ["--start-tier", "alternate"]
    assert tiering_fidelity.start_args("0", "node:0,1") == []
    assert tiering_fidelity.start_args(None, "node:0,1") == tiering_fidelity.start_args("1", "node:0") == []
    host, model, argv = two_tier_host(tmp_path, duration_s=4)
    argv["gups"][4] = "1"  # --mem-node 1
    args = tiering_fidelity.two_tier_argv(model, "hemem", False, 0, argv["gups"], argv, "steady_state", None, "node:0,1")
    assert args[args.index("--start-tier") + 1] == "alternate"
    first_touch = model.run(tiering_fidelity.two_tier_argv(model, "hemem", False, 0, argv["gups"], argv, "steady_state", None))
    assert abs(model.run(args)["throughput"] / first_touch["throughput"] - 1) > 0.01, "the start is seen over 4 s (1.7 %)"
    # GUPS averaged its last 2 s (its summary's duration_s): the prediction averages the same seconds
    truth = model.run(tiering_fidelity.two_tier_argv(model, "hemem", False, 0, argv["gups"], argv, "steady_state", None,
                                                     "node:0,1", 2))
    assert truth["throughput"] != model.run(args)["throughput"]
    rows = [{"workload": "gups", "metric": m, "value": truth[m], "unit": u, "duration_s": 2}
            for m, u in (("throughput", "Mops/s"), ("p", ""))]
    write_point(host, "tiering", "steady_state", "numa-hemem-c0-i0", rows, argv,
                {"workload": "gups", "intensity": 0, "system": "hemem", "colloid": False, "target": "node:0,1"})
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).query("experiment == 'steady_state'")
    assert (v["role"] == "validation").all() and v["rel_error"].abs().max() < 1e-9, v[["metric", "rel_error"]]


def test_a_contention_change_is_predicted_with_its_event_time_from_its_rows(tmp_path):
    """A real contention_change run (synthetic: tiersim made its summary and its per-second
    throughput): its event time is the point's ``event_t_s`` row, as the harness writes it
    (workflows/harness/point.py; meta.json has none), so every number it has is predicted, the
    convergence time after the event too."""
    host, model, argv = two_tier_host(tmp_path, duration_s=40)
    argv["antagonist"] = ["build/bin/antagonist", "--cpus", "1-3", "--write-fraction", "50", "--access-size", "64"]
    argv["tierd"][2] = "memtis"  # (MEMTIS with Colloid takes 2 s to settle after the antagonist starts here)
    ev = 10.0
    args = tiering_fidelity.two_tier_argv(model, "memtis", True, 0, argv["gups"], argv, "contention_change", ev)
    truth = model.run(args)
    p = subprocess.run([str(TIERSIM), *args, "--timeseries", "-", "--summary", os.devnull, "--no-timing"],
                       capture_output=True, text=True, check=True)
    series = [ln.split(",") for ln in p.stdout.splitlines()[1:]]
    rows = [{"workload": "gups", "metric": m, "value": truth[m], "unit": u}
            for m, u in (("throughput", "Mops/s"), ("latency_default", "ns"), ("latency_alternate", "ns"), ("p", ""))]
    rows += [{"workload": "gups", "metric": "throughput", "t_s": float(t), "value": float(v), "unit": u}
             for t, m, v, u in series if m == "throughput"]
    rows.append({"workload": "gups", "metric": "event_t_s", "value": ev, "unit": "s"})  # point.py's row
    pid = "numa-memtis-c1-i0-to3"
    write_point(host, "tiering", "contention_change", pid, rows, argv,
                {"workload": "gups", "intensity": 0, "system": "memtis", "colloid": True})
    assert "event_t_s" not in json.loads((point_dir(host, "tiering", "contention_change", pid) / "meta.json").read_text())
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host)
    v = v[v["experiment"] == "contention_change"]
    assert (v["role"] == "validation").all(), v[["metric", "role", "reason"]]
    assert set(v["metric"]) == {"throughput_mops", "latency_default_ns", "latency_alternate_ns", "p_default",
                                "convergence_time_s"}
    assert v["rel_error"].abs().max() < 1e-3, v[["metric", "measured", "predicted"]]
    conv = v[v["metric"] == "convergence_time_s"].iloc[0]
    assert conv["measured"] == pytest.approx(truth["convergence_time_s"]) and truth["convergence_time_s"] > 0


def test_two_tier_points_not_predicted_are_listed_with_the_reason(tmp_path):
    """On a two-tier host nothing measured is dropped in silence: a tiering run none of whose compared
    numbers is in its rows, and an application's run on real tiers with neither ratio's reference
    (no 0x run of its system and mode, no run without Colloid beside it), are each listed as
    unrepresented by the numbers they have, with the reason."""
    host, model, argv = two_tier_host(tmp_path)
    ctx = {"workload": "gups", "intensity": 0, "system": "hemem", "colloid": True}
    write_point(host, "tiering", "steady_state", "numa-hemem-c1-i0", [
        {"workload": "gups", "metric": "cpu_share", "value": 0.9, "unit": "fraction"},
        {"workload": "gups", "metric": "app_bandwidth", "t_s": 1.0, "value": 900.0, "unit": "MB/s"}], argv, ctx)
    # a contention change whose only summary row is its event time: listed by its per-second numbers
    write_point(host, "tiering", "contention_change", "numa-hemem-c1-i0to3", [
        {"workload": "gups", "metric": "event_t_s", "value": 5.0, "unit": "s"},
        {"workload": "gups", "metric": "app_bandwidth", "t_s": 1.0, "value": 800.0, "unit": "MB/s"},
        {"workload": "gups", "metric": "app_bandwidth", "t_s": 2.0, "value": 600.0, "unit": "MB/s"}], argv, ctx)
    silo = {"silo": ["numactl", "--physcpubind=0", "--membind=1", "build/bin/silo-dbtest"]}
    write_point(host, "apps", "steady_state", "numa-silo-hemem-c1-i3", [
        {"workload": "silo", "metric": "throughput", "value": 250.0, "unit": "ops/s"},
        {"workload": "silo", "metric": "footprint_mib", "value": 700.0, "unit": "MiB"}], silo,
        {**ctx, "workload": "silo", "intensity": 3})
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    t = df[(df["family"] == "tiering") & (df["experiment"] == "steady_state")]
    assert list(t["metric"]) == ["cpu_share"] and (t["role"] == "unrepresented").all() and t["measured"].iloc[0] == 0.9
    assert t["reason"].iloc[0].startswith("none of the numbers the model is compared on")
    c = df[df["experiment"] == "contention_change"]
    assert list(c["metric"]) == ["app_bandwidth"] and c["measured"].iloc[0] == 700.0 and (c["role"] == "unrepresented").all()
    a = df[df["family"] == "apps"]
    assert list(a["metric"]) == ["throughput"] and (a["role"] == "unrepresented").all()  # its metric, not its footprint
    assert a["measured"].iloc[0] == 250.0 and a["predicted"].isna().all()
    assert a["reason"].str.startswith("neither ratio has its reference here: no run of silo under hemem with Colloid at "
                                      "0x, and no run without Colloid at this intensity").all()


def test_an_applications_runs_on_real_tiers_are_predicted_as_ratios(tmp_path):
    """The apps family's runs on real tiers (synthetic: tiersim made Silo's throughput under HeMem on
    the host's two curves, with and without Colloid, alone and beside three antagonist threads,
    times the CPU share Silo got there): each is compared as its slowdown against the same mode at
    0x (that row the reference: calibration) and, with Colloid, as Colloid's speed-up at the same
    intensity, every ratio predicted within the tolerance; the working set is the run's own
    footprint, the default tier tierd's capacity, and Silo, bound to the far node at start, starts in
    the alternate tier. A one-tier model cannot predict them: each listed with the reason, the 0x references too."""
    from families.apps import fidelity as apps_fidelity  # noqa: PLC0415

    host, model, _ = two_tier_host(tmp_path)
    w = apps_fidelity.workload(apps_fidelity.access_models.models()["silo"], "717312K")  # 700.5 MiB, in whole KiB
    ant = ["build/bin/antagonist", "--cpus", "1-3", "--write-fraction", "50", "--access-size", "64"]
    for colloid in (False, True):
        for k, cpu in ((0, 0.9), (3, 0.6)):
            truth = model.run(["--system", "hemem", "--colloid", "on" if colloid else "off", "--start-tier", "alternate",
                               *model.tier_args(default_gib=233 / 1024), *w, "--app-cores", "1",
                               "--antagonist-cores-per-unit", "1", "--duration", "4", "--average-last", "4",
                               "--intensity", str(k)])
            argv = {"silo-dbtest": ["numactl", "--physcpubind=0", "--membind=1", "build/bin/silo-dbtest"],
                    "tierd": ["build/bin/tierd", "--policy", "hemem", "--capacity", "233M,auto"],
                    **({"antagonist": ant} if k else {})}
            pid = f"numa-silo-hemem-c{int(colloid)}-i{k}"
            write_point(host, "apps", "steady_state", pid, [
                {"workload": "silo", "metric": "throughput", "value": cpu * truth["throughput"] * 1e6, "unit": "ops/s"},
                {"workload": "silo", "metric": "footprint_mib", "value": 700.5, "unit": "MiB"}], argv,
                {"workload": "silo", "intensity": k, "system": "hemem", "colloid": colloid, "app_threads": 1,
                 "target": "node:0,1"},
                # its program's role; 4 s after its ready line (tierd attached then): the seconds simulated
                {"usage": {"silo-dbtest": {"user_s": 6 * cpu, "system_s": 0, "wall_s": 6,
                                           "ready": {"user_s": 2 * cpu, "system_s": 0, "wall_s": 2}}}})
    fidelity.run(host, [], tiersim=TIERSIM)
    a = read(host).query("family == 'apps'")
    cal = a[a["role"] == "calibration"]
    assert sorted(cal["point"]) == ["numa-silo-hemem-c0-i0", "numa-silo-hemem-c1-i0"]
    assert (cal["metric"] == "slowdown_vs_0x").all() and cal["reason"].str.startswith("the reference of the ratio").all()
    v = a[a["role"] == "validation"]
    assert sorted(zip(v["point"], v["metric"], strict=True)) == [
        ("numa-silo-hemem-c0-i3", "slowdown_vs_0x"), ("numa-silo-hemem-c1-i0", "colloid_speedup"),
        ("numa-silo-hemem-c1-i3", "colloid_speedup"), ("numa-silo-hemem-c1-i3", "slowdown_vs_0x")]
    assert v["rel_error"].abs().max() < 1e-6, v[["point", "metric", "measured", "predicted"]]
    slow = v[v["metric"] == "slowdown_vs_0x"]["measured"]
    assert (slow > 1.2).all(), "three antagonist threads and half the CPU slowed Silo"
    # the same runs on a one-tier model: listed, not predicted
    prof = host / "curves" / "c0-m1.csv"
    prof.rename(host / "far.csv")
    (host / "fidelity.csv").unlink()
    fidelity.run(host, [], tiersim=TIERSIM)
    a = read(host).query("family == 'apps'")  # the 0x references too: no ratio of theirs is predicted
    assert len(a) == 6 and (a["role"] == "unrepresented").all() and a["predicted"].isna().all()
    assert a["reason"].str.startswith("the host's model profile has one tier").all()


def test_real_tier_ratios_are_oriented_by_the_metric_whatever_the_columns_spelling(monkeypatch):
    """A time (PageRank's average_trial_time, lower is better): slowdown_vs_0x > 1 where the run at k
    took longer than at 0x, colloid_speedup > 1 where the run with Colloid took less time than without;
    the colloid column as its CSV spelling ('true'/'false'), the intensity as floats. tiersim's
    throughput stands in as the inverse of each run's time, so each ratio is predicted exactly."""
    from families.apps import fidelity as apps_fidelity  # noqa: PLC0415

    times = {("false", 0.0): 10.0, ("false", 3.0): 15.0, ("true", 0.0): 9.0, ("true", 3.0): 12.0}
    pid = {key: f"numa-gapbs-pr-hemem-c{int(key[0] == 'true')}-i{key[1]:g}" for key in times}
    df = pd.DataFrame([{"family": "apps", "experiment": "steady_state", "point": pid[key], "workload": "gapbs-pr",
                        "metric": "average_trial_time", "value": t, "unit": "s", "t_s": float("nan"), "system": "hemem",
                        "colloid": key[0], "intensity": key[1]} for key, t in times.items()])
    # a run without its trial time (its footprint only) is listed, not dropped
    df = pd.concat([df, df.iloc[:1].assign(point="numa-gapbs-pr-hemem-c0-i1", metric="footprint_mib", value=700.0, intensity=1.0)])
    by_pid = {pid[key]: key for key in times}

    def predict(model, g, p, app, system, colloid):
        assert colloid is (by_pid[p][0] == "true"), (p, colloid)
        return 1 / times[by_pid[p]], ""

    monkeypatch.setattr(apps_fidelity, "predict_real", predict)
    v = pd.DataFrame(apps_fidelity.two_tier_rows(df, SimpleNamespace(two_tier=True))).set_index(["point", "metric"])
    slow = v.loc[(pid["false", 3.0], "slowdown_vs_0x")]
    assert slow["measured"] == times["false", 3.0] / times["false", 0.0] > 1 and slow["role"] == "validation"
    for k in (0.0, 3.0):
        sp = v.loc[(pid["true", k], "colloid_speedup")]
        assert sp["measured"] == times["false", k] / times["true", k] > 1 and sp["role"] == "validation"
    left = v[v["role"] == "unrepresented"]
    assert list(left.index) == [("numa-gapbs-pr-hemem-c0-i1", "footprint_mib")], left
    assert left["reason"].str.startswith("gapbs-pr reported no average_trial_time at this point").all()
    assert v.drop(left.index)["rel_error"].abs().max() < 1e-12


def test_the_applications_role_is_the_one_whose_usage_is_recorded():
    """An application's program is its role (Silo's is silo-dbtest): the role whose CPU usage the
    harness recorded, whatever roles come before it; without usage, the first role that is neither
    the antagonist nor tierd."""
    from families.apps import fidelity as apps_fidelity  # noqa: PLC0415

    meta = {"argv": {"antagonist": [], "feeder": [], "silo-dbtest": [], "tierd": []}, "usage": {"silo-dbtest": {}}}
    assert apps_fidelity.role_of(meta, "silo") == "silo-dbtest"
    assert apps_fidelity.role_of({"argv": {"antagonist": [], "gapbs-pr": []}}, "gapbs-pr") == "gapbs-pr"
    assert apps_fidelity.role_of({"argv": {"antagonist": [], "silo-dbtest": [], "tierd": []}}, "silo") == "silo-dbtest"


def test_an_application_without_a_known_metric_is_listed_with_the_reason(tmp_path):
    """An application that reported neither of the apps family's metrics has no slowdown to compare:
    each of its points is listed by what it measured, role unrepresented, saying so."""
    host = synthetic_host(tmp_path)
    for pid, t in (("mystery-i0-t0", 0), ("mystery-i3-t1", 1)):
        write_point(host, "apps", "contention_single_node", pid,
                    [{"workload": "mystery", "metric": "footprint_mib", "value": 100.0 + t, "unit": "MiB"}],
                    {"mystery": ["build/bin/mystery"]}, {"workload": "mystery", "intensity": 3 * t, "threads": t})
    fidelity.run(host, [], tiersim=TIERSIM)
    df = read(host)
    a = df[df["family"] == "apps"]
    assert sorted(a["point"]) == ["mystery-i0-t0", "mystery-i3-t1"]
    assert (a["role"] == "unrepresented").all() and (a["metric"] == "footprint_mib").all()
    assert a["reason"].str.startswith("mystery reported neither of the apps family's metrics").all()
    assert sorted(a["measured"]) == [100.0, 101.0]



def test_the_spread_is_over_the_values_averaged_into_the_number():
    """spread(): over the seconds a summary says it averaged (duration_s: the series' last ones, as
    workloads.tail_mean takes them), else every value; every repetition's pooled, relative to the
    mean of the summaries; a series in another metric and order (trials)."""
    def rows(rep, series, summary, window=None, metric="throughput", series_metric=None, order="t_s"):
        out = [{"rep": rep, "t_s": float("nan"), "trial": float("nan"), "metric": metric, "value": summary,
                "duration_s": float("nan") if window is None else window}]
        for i, v in enumerate(series):
            out.append({"rep": rep, "t_s": float(i + 1) if order == "t_s" else float("nan"),
                        "trial": float(i) if order == "trial" else float("nan"), "metric": series_metric or metric,
                        "value": v, "duration_s": float("nan")})
        return out

    # the last 3 s averaged (12, 12 before them are not): 18..20 about 19, +-1/19
    d = pd.DataFrame(rows(0, [12, 12, 18, 19, 20], 19.0, window=3))
    assert fidelity.spread(d, "throughput") == pytest.approx(1 / 19)
    # a long run whose last 30 of 100 s are averaged: those, whatever the other tails' means are
    vals = [10.0 + (i % 7) for i in range(70)] + [20.0 + (i % 3) for i in range(30)]
    d = pd.DataFrame(rows(0, vals, sum(vals[-30:]) / 30, window=30))
    assert fidelity.spread(d, "throughput") == pytest.approx(1 / (sum(vals[-30:]) / 30))
    # a summary without its window (a rate over the whole run): every value
    d = pd.DataFrame(rows(0, [8, 9, 10], 9.4))
    assert fidelity.spread(d, "throughput") == pytest.approx(1 / 9.4)
    # two repetitions pooled: 10..11 and 13..14; over the mean of their summaries (12)
    d = pd.DataFrame(rows(0, [10, 11], 10.5) + rows(1, [13, 14], 13.5))
    assert fidelity.spread(d, "throughput") == pytest.approx(2 / 12)
    # trials under an average, ordered by trial
    d = pd.DataFrame(rows(0, [0.4, 0.6, 0.5], 0.5, None, "average_trial_time", "trial_time", "trial"))
    assert fidelity.spread(d, "average_trial_time", "trial_time", "trial") == pytest.approx(0.2)
    # one value, or no summary: none
    assert fidelity.spread(pd.DataFrame(rows(0, [5], 5.0)), "throughput") is None
    assert fidelity.spread(pd.DataFrame(rows(0, [5, 6], 5.5))[1:], "throughput") is None


def test_a_contention_points_rows_carry_their_measurements_spread(tmp_path):
    """GUPS's per-second values over the seconds its summary averaged give its row a spread, the
    antagonist's over its whole run; the latency probe, one value, gets none."""
    host = synthetic_host(tmp_path)
    res = host / "tiering" / "contention_single_node" / "i2-t2" / "rep0" / "result.csv"
    df = pd.read_csv(res, dtype=str, keep_default_na=False)
    summ = (df["metric"] == "throughput") & (df["t_s"] == "")
    x = float(df[summ]["value"].iloc[0])
    df.loc[summ, "duration_s"] = "2"
    extra = df[summ].assign(duration_s="")
    extra = pd.concat([extra.assign(t_s=str(t), value=str(v)) for t, v in ((1, x * 0.5), (2, x * 0.9), (3, x * 1.1))])
    ant = df[(df["metric"] == "antagonist_bandwidth") & (df["t_s"] == "")]
    b = float(ant["value"].iloc[0])
    ant = pd.concat([ant.assign(t_s=str(t), value=str(v)) for t, v in ((1, b * 0.8), (2, b * 1.2))])
    pd.concat([df, extra, ant]).to_csv(res, index=False)
    fidelity.run(host, [], tiersim=TIERSIM)
    v = read(host).set_index(["point", "metric"])
    assert v.loc[("i2-t2", "throughput_mops"), "spread"] == pytest.approx(0.1, rel=1e-3)  # its last 2 s: 0.9x, 1.1x
    assert v.loc[("i2-t2", "antagonist_bandwidth_mbps"), "spread"] == pytest.approx(0.2, rel=1e-3)
    assert pd.isna(v.loc[("i2-t2", "latency_ns"), "spread"])
    assert pd.isna(v.loc[("i1-t1", "throughput_mops"), "spread"])  # no per-second throughput there


def test_convergence_time_follows_tiersims_rule():
    t = [float(i) for i in range(1, 41)]
    x = [1.0 if ti <= 10 else (0.5 if ti <= 20 else 1.0) for ti in t]
    assert tiering_fidelity.convergence_time(t, x, event=10) == pytest.approx(10)
    # tiersim's windows end at every second (colloid/sim/src/sim.c), not every fifth: a dip of 2 s
    # after the event has passed with the window (12, 17]
    x = [1.0 if ti <= 10 or ti > 12 else 0.5 for ti in t]
    assert tiering_fidelity.convergence_time(t, x, event=10) == pytest.approx(2)
    # F is the run's own final mean where given (tiersim's --average-last), not the last window's
    # (here the run never settles near 0.5 after the dip: not converged)
    assert math.isnan(tiering_fidelity.convergence_time(t, x, event=10, final=0.5))


def test_monotone_fit_keeps_every_point_rising():
    pts = [(50, 224.0), (86, 217.0), (167, 210.0), (469, 210.0), (6410, 197.0)]
    fit = char_fidelity.monotone(pts)
    lat = [lat for _, lat in fit]
    assert all(b > a for a, b in zip(lat, lat[1:], strict=False))
    assert sum(lat) / len(lat) == pytest.approx(sum(p[1] for p in pts) / len(pts), abs=0.5)
    assert char_fidelity.monotone([(1, 100.0), (2, 110.0)]) == [(1, 100.0), (2, 110.0)]


def test_a_raised_wall_leaves_a_curve_the_model_reads(tmp_path):
    """A measured curve that passes the plausibility check at its own wall, with a dip within noise
    (this 2-core VM's sweep, a make run of this branch), once its wall is raised to the bandwidth
    experiment's peak is written as its monotone fit: without it the dip reads as implausible at the
    new wall's scale and the host was not scored at all."""
    host = tmp_path / "vm"
    (host / "curves").mkdir(parents=True)
    pd.DataFrame([(0.5, 134.5, 180.67), (0.5, 226.7, 188.9), (0.5, 854.2, 197.5), (0.5, 1107.3, 201.1),
                  (0.5, 13834.7, 195.2), (1, 40.7, 197.7), (1, 60.4, 208.0), (1, 218.3, 200.4), (1, 1815.9, 207.6),
                  (1, 11225.6, 255.5)], columns=["read_ratio", "bandwidth_mbps", "latency_ns"]
                 ).to_csv(host / "curves" / "c0-m0.csv", index=False)
    notes, walls = [], {}
    out = char_fidelity.model_curve(host, "c0-m0", notes, walls, {0.5: (34765.5, "tiering/x/i3"), 1.0: (16396.5, "p")})
    assert out is not None and set(walls) == {"wall_mbps_c0-m0_r0.5", "wall_mbps_c0-m0_r1"}
    df = pd.read_csv(out)
    for _, g in df.groupby("read_ratio"):
        lat = list(g.sort_values("bandwidth_mbps")["latency_ns"])
        assert all(b > a for a, b in zip(lat, lat[1:], strict=False)), lat
    assert df["bandwidth_mbps"].max() == pytest.approx(34765.5)
    tiers = char_fidelity.tiers(host, facts("vm"), notes, {}, [{"mem_node": 0, "read_ratio": 0.5, "mbps": 34765.5,
                                                                 "point": "tiering/x/i3"}])
    assert tiers and tiers[0]["curve"] == "model-curves/c0-m0.csv", notes


def test_every_row_the_harness_writes_is_one_the_report_reads(tmp_path):
    """A validation row whose error does not exist (measured 0 or not a number, no finite prediction)
    is written as unrepresented with the reason, and an unrepresented point with nothing measured
    (a run that did not converge) keeps an empty measured value: analysis/fidelity.py loads the file
    (it refused both before, which stopped the report, the tables and every modelled figure)."""
    from analysis import fidelity as report  # noqa: PLC0415

    common = dict(experiment="e", family="f", workload="w", metric="latency_ns", unit="ns")
    rows = [fidelity.row(point="ok", **common, measured=100.0, predicted=110.0, role="validation"),
            fidelity.row(point="zero", **common, measured=0.0, predicted=5.0, role="validation"),
            fidelity.row(point="nan", **common, measured=float("nan"), predicted=5.0, role="validation"),
            fidelity.row(point="nopred", **common, measured=100.0, predicted=float("inf"), role="validation"),
            fidelity.row(point="fit", **common, measured=0.0, predicted=0.0, role="calibration", reason="fitted x"),
            fidelity.row(point="noconv", **common, measured=float("nan"), predicted=None, role="unrepresented",
                         reason="not converged in the measured run")]
    f = tmp_path / "fidelity.csv"
    pd.DataFrame(rows, columns=fidelity.COLUMNS).to_csv(f, index=False, float_format="%.6g")
    df = report.load(f).set_index("point")
    assert df.loc["ok", "role"] == "validation" and df.loc["ok", "rel_error"] == pytest.approx(0.1)
    assert (df.drop(index="ok")["role"] == "unrepresented").all()
    assert df.loc["zero", "reason"] == "measured 0, which has no relative error"
    assert df.loc["nan", "reason"] == "nothing was measured" and pd.isna(df.loc["nan", "measured"])
    assert df.loc["nopred", "reason"] == "tiersim gave no finite prediction" and df.loc["nopred", "measured"] == 100
    assert df.loc["fit", "reason"] == "fitted x; measured 0, which has no relative error"
    assert df.drop(index="ok")[["predicted", "rel_error"]].isna().all().all()
    assert report.of_csv(f, "box").score.n == 1
