"""The tiering family on modelled tiers: a user's own curves, determinism, labels."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pandas as pd
import pytest
from conftest import binary

TINY_TIERING = """scale: tiny-tiering
characterize: {enabled: false}
overcommit: {enabled: false}
kv: {enabled: false}
storage: {enabled: false}
tiering:
  systems: [hemem]
  intensities: [0, 3]
  duration_s: 20
  average_last_s: 5
  system_duration_s: {}
  best_static_fractions: [0, 1]
  unloaded_latency_ns: [130]
  object_bytes: [64]
  dynamics: {event_at_s: 10, after_event_s: 10, system_event_at_s: {}, system_after_event_s: {}, hotset_move_intensities: [3]}
  contention: {enabled: false}
apps: {enabled: false}
"""


def my_profile(tmp_path, name):
    # A hardware team's own measured curve (the format memchar's curves/ files use) for the
    # default tier, and the parametric fit for the alternate tier.
    curve = tmp_path / "mydevice.csv"
    rows = ["read_ratio,bandwidth_mbps,latency_ns"]
    for rr in (1.0, 0.5):
        bsat = 100000 if rr == 1.0 else 80000
        for i in range(0, 20):
            b = bsat * i / 20
            rows.append(f"{rr},{b:.1f},{70 + 20 * (b / bsat) ** 3 / (1 - b / bsat):.3f}")
    curve.write_text("\n".join(rows) + "\n")
    prof = tmp_path / f"{name}.yaml"
    prof.write_text(f"""name: {name}
tiers:
  - {{name: default, kind: model, curve: {curve}, capacity_gib: 24, unloaded_latency_ns: 70}}
  - {{name: alternate, kind: model, curve: "param:L0=130,a=20,k=3,bsat=50000", capacity_gib: 72, unloaded_latency_ns: 130}}
cpus: {{cores_per_unit: 5}}
""")
    return prof


def run(cfg, prof, cwd, *targets):
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(cfg),
                           "--config", f"host={prof}", *(["--", *targets] if targets else [])],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.guest_session  # make test: in the guest's session (tests/suite.py)
def test_own_curves_run_and_rerun_identically(tmp_path, workdir):
    binary("tiersim")
    name = "pytest-mycurves"
    out = workdir / "results" / name
    cfg = tmp_path / "t.yaml"
    cfg.write_text(TINY_TIERING)
    prof = my_profile(tmp_path, name)
    r = run(cfg, prof, workdir)
    assert r.returncode == 0, r.stderr[-3000:]
    df = pd.read_csv(out / "measurements.csv", low_memory=False)
    t = df[df["family"] == "tiering"]
    assert set(t["backend"]) == {"model"}, "simulated rows are labelled model"
    assert set(t["experiment"]) >= {"steady_state", "best_static", "hotset_move", "contention_change"}
    thr = t[(t["experiment"] == "steady_state") & (t["metric"] == "throughput") & t["t_s"].isna()]
    assert len(thr) == 4 and (thr["value"] > 0).all()
    assert set(t["target"].dropna()) == {f"model:{name}"}
    assert (out / "scorecard.md").read_text().count("modelled tiers") >= 1
    timed = ["policy_cpu_share", "cpu_overhead"]  # measured CPU time: the only non-deterministic values
    first = t[~t["metric"].isin(timed)].sort_values(["point", "metric", "t_s"]).reset_index(drop=True)
    shutil.rmtree(out)
    r = run(cfg, prof, workdir, f"results/{name}/measurements.csv")  # the rows again (figures: the first run)
    assert r.returncode == 0, r.stderr[-3000:]
    df2 = pd.read_csv(out / "measurements.csv", low_memory=False)
    t2 = df2[(df2["family"] == "tiering") & ~df2["metric"].isin(timed)]
    second = t2.sort_values(["point", "metric", "t_s"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(first, second)


def test_curve_change_changes_results(tmp_path):
    """The curve file is really used: a slower alternate tier lowers throughput at 0x with all hot data there."""
    tiersim = binary("tiersim")

    def thr(alt):
        r = subprocess.run([str(tiersim), "--system", "static", "--static-hot-fraction", "0",
                            "--tier", "default:param:L0=70,a=20,k=3,bsat=100000:capacity=24",
                            "--tier", f"alternate:{alt}:capacity=72", "--duration", "10", "--average-last", "5",
                            "--no-timing"], capture_output=True, text=True, check=True)
        s = pd.read_csv(pd.io.common.StringIO(r.stdout))
        return float(s[(s["metric"] == "throughput") & s["t_s"].isna()]["value"].iloc[0])

    assert thr("param:L0=200,a=20,k=3,bsat=50000") < thr("param:L0=130,a=20,k=3,bsat=50000")


def test_missing_model_curve_variant_is_rejected(tmp_path, workdir):
    name = "pytest-novariant"
    cfg = tmp_path / "t.yaml"
    cfg.write_text(TINY_TIERING.replace("unloaded_latency_ns: [130]", "unloaded_latency_ns: [130, 192]"))
    r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(cfg),
                        "--config", f"host={my_profile(tmp_path, name)}"], cwd=workdir, capture_output=True, text=True)
    assert not (workdir / "results" / name).exists()
    assert r.returncode != 0
    assert "no alternate-tier curve for [192] ns" in r.stderr
