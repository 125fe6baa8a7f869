"""Scorecard rules on small synthetic tiering frames."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pandas as pd
import pytest

from analysis import reference, scorecard
from analysis.frame import types

TIER = {"host": "h", "backend": "model", "family": "tiering", "workload": "gups", "rep": 0}


def steady(gains: dict[int, float], system: str = "hemem", base: float = 100.0) -> list[dict]:
    """steady_state throughput rows: without Colloid = base / (1 + i), with = that x gains[i]."""
    rows = []
    for i, g in gains.items():
        for on in (False, True):
            rows.append({**TIER, "experiment": "steady_state", "system": system, "colloid": on, "intensity": i,
                         "metric": "throughput", "unit": "Mops/s", "value": base / (1 + i) * (g if on else 1.0)})
    return rows


def frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(types()))


@pytest.fixture(scope="module")
def ref() -> pd.DataFrame:
    return reference.load()


def row(sc: pd.DataFrame, figure: str, system: str, metric: str, condition: str | None = None) -> pd.Series:
    m = (sc["figure"] == figure) & (sc["system"] == system) & (sc["metric"] == metric)
    if condition is not None:
        m &= sc["condition"] == condition
    assert m.sum() == 1, (figure, system, metric, condition)
    return sc[m].iloc[0]


def test_columns(ref: pd.DataFrame) -> None:
    sc = scorecard.build(frame([]), ref)
    assert list(sc.columns) == scorecard.COLUMNS
    assert len(sc) == len(ref)


def test_known_gain_within(ref: pd.DataFrame) -> None:
    sc = scorecard.build(frame(steady({0: 1.0, 1: 1.3, 2: 1.7, 3: 2.1})), ref)
    r = row(sc, "steady-state", "hemem", "colloid_throughput_gain", "intensity 1x-3x")
    assert r["ours_low"] == pytest.approx(1.3)
    assert r["ours_high"] == pytest.approx(2.1)
    assert r["ours"] == pytest.approx(1.7)
    assert r["ratio"] == pytest.approx(1.7 / ((1.2 + 2.3) / 2))
    assert bool(r["within"]) is True
    assert r["backend"] == "model"
    r0 = row(sc, "steady-state", "hemem", "colloid_throughput_gain", "intensity 0x")
    assert r0["ours"] == pytest.approx(1.0)
    assert bool(r0["within"]) is True


def test_gain_out_of_tolerance(ref: pd.DataFrame) -> None:
    # Colloid changes nothing: gain 1.0 at every intensity, far below the published 1.2-2.3x.
    sc = scorecard.build(frame(steady({0: 1.08, 1: 1.0, 2: 1.0, 3: 1.0})), ref)
    r = row(sc, "steady-state", "hemem", "colloid_throughput_gain", "intensity 1x-3x")
    assert r["ours"] == pytest.approx(1.0)
    assert bool(r["within"]) is False
    # Overlapping is not enough: memtis 1.30-1.60x against the published 1.29-2.3x misses the high end by 30 %.
    sc = scorecard.build(frame(steady({0: 1.08, 1: 1.0, 2: 1.0, 3: 1.0}) + steady({1: 1.3, 3: 1.6}, "memtis")), ref)
    m = row(sc, "steady-state", "memtis", "colloid_throughput_gain", "intensity 1x-3x")
    assert (m["ours_low"], m["ours_high"]) == (pytest.approx(1.3), pytest.approx(1.6))
    assert bool(m["within"]) is False
    # An 8 % gain at 0x is outside the +-5 % allowed where the paper reports none.
    r0 = row(sc, "steady-state", "hemem", "colloid_throughput_gain", "intensity 0x")
    assert r0["ours"] == pytest.approx(1.08)
    assert bool(r0["within"]) is False


def test_point_tolerance_convergence(ref: pd.DataFrame) -> None:
    rows = []
    for system, v in [("hemem", 12.0), ("memtis", 40.0)]:
        for on, val in [(True, v), (False, 99.0)]:
            rows.append({**TIER, "experiment": "contention_change", "system": system, "colloid": on,
                         "intensity": 3, "metric": "convergence_time_s", "unit": "s", "value": val})
    sc = scorecard.build(frame(rows), ref)
    hemem = row(sc, "convergence", "hemem", "convergence_time")
    assert hemem["ours"] == pytest.approx(12.0)  # the Colloid run, not the baseline's 99 s
    assert bool(hemem["within"]) is True  # 12 s vs 10 s: +20 %
    memtis = row(sc, "convergence", "memtis", "convergence_time")
    assert bool(memtis["within"]) is False  # 40 s vs 25 s: +60 %
    assert math.isnan(row(sc, "convergence", "tpp", "convergence_time")["ours"])
    assert "hot-set move" not in hemem["note"]


def test_convergence_note_names_hotset_move_but_scores_contention(ref: pd.DataFrame) -> None:
    rows = [{**TIER, "experiment": "contention_change", "system": "memtis", "colloid": True, "intensity": 0,
             "metric": "convergence_time_s", "unit": "s", "value": 5.0}]
    for i, val in [(0, 23.0), (3, 0.0)]:
        rows.append({**TIER, "experiment": "hotset_move", "system": "memtis", "colloid": True, "intensity": i,
                     "metric": "convergence_time_s", "unit": "s", "value": val})
    r = row(scorecard.build(frame(rows), ref), "convergence", "memtis", "convergence_time")
    assert r["ours"] == pytest.approx(5.0)  # scored on the contention change only
    assert "after a hot-set move at 0x 23 s" in r["note"]  # the 0x move only, not the 3x one


def test_gap_to_best_static_and_latency_ratio(ref: pd.DataFrame) -> None:
    rows = steady({0: 1.0, 1: 1.5, 2: 2.0, 3: 2.5})
    for i, frac in itertools.product([0, 1, 2, 3], [0.5, 1.0]):
        colloid_thr = 100.0 / (1 + i) * [1.0, 1.5, 2.0, 2.5][i]
        best = colloid_thr * (1.02 if i == 2 else 1.0)  # Colloid 2 % below best static at 2x
        rows.append({**TIER, "experiment": "best_static", "system": "static", "colloid": False, "intensity": i,
                     "static_hot_fraction": frac, "metric": "throughput", "value": best * (1.0 if frac == 1.0 else 0.8)})
    for system, on, i in itertools.product(["hemem", "tpp"], [False, True], [0, 3]):
        ld = 300.0 if (i == 3 and not on and system == "tpp") else 100.0
        rows.append({**TIER, "experiment": "steady_state", "system": system, "colloid": on, "intensity": i,
                     "metric": "latency_default", "value": ld})
        rows.append({**TIER, "experiment": "steady_state", "system": system, "colloid": on, "intensity": i,
                     "metric": "latency_alternate", "value": 125.0})
    sc = scorecard.build(frame(rows), ref)
    gap = row(sc, "steady-state", "hemem", "gap_to_best_static")
    assert gap["ours"] == pytest.approx(1 - 1 / 1.02)
    assert bool(gap["within"]) is True
    lat = row(sc, "motivation", "baselines", "default_over_alternate_latency")
    assert lat["ours"] == pytest.approx(300.0 / 125.0)  # max over baselines, at 3x, without Colloid
    assert "tpp" in lat["note"]
    assert bool(lat["within"]) is True


def test_heatmap_rules(ref: pd.DataFrame) -> None:
    rows = []
    for on, i, lat in itertools.product([False, True], [0, 1, 3], [135, 192]):
        g = {135: 1.5, 192: 1.3}[lat] if (on and i > 0) else 1.0
        rows.append({**TIER, "experiment": "unloaded_latency", "system": "hemem", "colloid": on, "intensity": i,
                     "alt_latency_ns": lat, "metric": "throughput", "value": 10.0 * g})
    for on, size in itertools.product([False, True], [64, 256, 1024, 4096]):
        g = 1.25 if (on and size > 256) else 1.0
        rows.append({**TIER, "experiment": "object_size", "system": "hemem", "colloid": on, "intensity": 0,
                     "object_bytes": size, "metric": "throughput", "value": 10.0 * g})
    sc = scorecard.build(frame(rows), ref)
    u = row(sc, "unloaded-latency-heatmap", "hemem", "colloid_throughput_gain")
    assert (u["ours_low"], u["ours_high"]) == (pytest.approx(1.0), pytest.approx(1.3))  # at 192 ns only
    o = row(sc, "object-size-heatmap", "hemem", "colloid_throughput_gain")
    assert (o["ours_low"], o["ours_high"]) == (pytest.approx(1.25), pytest.approx(1.25))
    assert bool(o["within"]) is True


def test_apps_and_other_sources_left_empty(ref: pd.DataFrame) -> None:
    sc = scorecard.build(frame(steady({1: 1.5})), ref)
    apps = sc[sc["figure"].str.startswith("apps-")]
    assert len(apps) == 9
    assert apps["ours"].isna().all()
    assert apps["note"].str.contains("apps").all()
    other = sc[sc["source"] != "colloid-sosp24"]
    assert other["ours"].isna().all()
    assert other["note"].str.startswith("not scored").all()


def test_no_tiering_rows_gives_no_ours(ref: pd.DataFrame) -> None:
    chars = [{"host": "h", "backend": "numa", "family": "characterize", "experiment": "idle_latency",
              "metric": "idle_latency", "cpu_node": 0, "mem_node": 0, "value": 90.0}]
    sc = scorecard.build(frame(chars), ref)
    for col in ("ours", "ours_low", "ours_high", "ratio"):
        assert sc[col].isna().all(), col
    assert sc["within"].isna().all()
    assert (sc["note"].str.len() > 0).all()


def test_ours_never_depends_on_published_values(ref: pd.DataFrame) -> None:
    """Scaling every published number leaves every 'ours' unchanged: nothing is copied from them."""
    rows = steady({0: 1.0, 1: 1.2, 2: 1.4, 3: 1.6}) + steady({1: 1.1, 3: 1.3}, system="tpp")
    rows.append({**TIER, "experiment": "cpu_overhead", "system": "hemem", "colloid": True,
                 "metric": "cpu_overhead", "value": 0.004})
    df = frame(rows)
    scaled = ref.copy()
    scaled[["low", "high"]] = scaled[["low", "high"]] * 7.0 + 3.0
    a, b = scorecard.build(df, ref), scorecard.build(df, scaled)
    for col in ("ours", "ours_low", "ours_high"):
        pd.testing.assert_series_equal(a[col], b[col])
    assert a["ours"].notna().sum() == 4  # hemem 1x-3x and 0x, tpp 1x-3x, hemem cpu overhead


def test_colloid_as_text(ref: pd.DataFrame) -> None:
    df = frame(steady({1: 1.3, 3: 1.9}))
    df["colloid"] = df["colloid"].map({True: "true", False: "false"})
    r = row(scorecard.build(df, ref), "steady-state", "hemem", "colloid_throughput_gain", "intensity 1x-3x")
    assert (r["ours_low"], r["ours_high"]) == (pytest.approx(1.3), pytest.approx(1.9))


def test_markdown(ref: pd.DataFrame, tmp_path: Path) -> None:
    df = frame(steady({0: 1.0, 1: 1.3, 3: 2.0}))
    sc = scorecard.write(df, ref, tmp_path / "scorecard.csv", tmp_path / "scorecard.md", "lab", "model")
    md = (tmp_path / "scorecard.md").read_text()
    assert "modelled tiers (profile lab)" in md
    assert "Tolerance rules" in md and "\u00b125%" in md
    assert "## Not scored" in md
    assert f"{int(sc['ours'].notna().sum())} of {len(sc)} published numbers computed" in md
    back = pd.read_csv(tmp_path / "scorecard.csv")
    assert list(back.columns) == scorecard.COLUMNS
    measured = scorecard.to_markdown(sc, "server1", "numa")
    assert "measured on server1" in measured and "modelled" not in measured


def test_migration_cost_from_frozen_runs(ref: pd.DataFrame) -> None:
    """1 - steady state / frozen, the largest over intensities; outside 0-0.7 % is flagged."""
    rows = steady({0: 1.0, 1: 1.2})
    frozen = {0: 100.0 / 0.996, 1: 50.0 * 1.2 / 0.999}  # steady state loses 0.4 % and 0.1 %
    for i, v in frozen.items():
        rows.append({**TIER, "experiment": "migration_frozen", "system": "hemem", "colloid": True, "intensity": i,
                     "metric": "throughput", "unit": "Mops/s", "value": v})
    r = row(scorecard.build(frame(rows), ref), "convergence", "hemem", "migration_throughput_cost")
    assert r["ours"] == pytest.approx(0.004)
    assert bool(r["within"]) is True
    assert "at 0x" in r["note"]
    rows[-2]["value"] = 100.0 / 0.98  # 2 % lost to migrations at 0x
    r = row(scorecard.build(frame(rows), ref), "convergence", "hemem", "migration_throughput_cost")
    assert r["ours"] == pytest.approx(0.02)
    assert bool(r["within"]) is False
    # no frozen runs: said so, not scored
    r = row(scorecard.build(frame(steady({0: 1.0})), ref), "convergence", "hemem", "migration_throughput_cost")
    assert math.isnan(r["ours"]) and "migration_frozen" in r["note"]


def test_calibration_targets_are_marked_and_counted_apart(ref: pd.DataFrame) -> None:
    """A number the model profile was fitted to is flagged and kept out of the validation count."""
    rows = steady({0: 1.0, 1: 1.3, 2: 1.7, 3: 2.1})
    for i in (0, 3):
        for m, v in (("latency_default", 80.0 + 85.0 * i), ("latency_alternate", 135.0)):
            rows.append({**TIER, "experiment": "steady_state", "system": "hemem", "colloid": False, "intensity": i,
                         "metric": m, "unit": "ns", "value": v})
    cal = [{"figure": "motivation", "metric": "default_over_alternate_latency", "parameter": "antagonist MLP 17"}]
    sc = scorecard.build(frame(rows), ref, cal)
    r = row(sc, "motivation", "baselines", "default_over_alternate_latency")
    assert bool(r["calibrated"]) is True and r["note"].startswith("calibration target (antagonist MLP 17)")
    g = row(sc, "steady-state", "hemem", "colloid_throughput_gain", "intensity 1x-3x")
    assert bool(g["calibrated"]) is False
    md = scorecard.to_markdown(sc, "h", "model", "paper-testbed")
    assert "1 of them are calibration targets" in md
    # without the profile's list nothing is marked
    assert not scorecard.build(frame(rows), ref)["calibrated"].any()


def test_apps_speedup_from_a_time_metric(ref: pd.DataFrame) -> None:
    """PageRank reports a time (lower is better): the speedup is t(alone) / t(+Colloid)."""
    rows = []
    for i, (off, on) in {0: (2.0, 1.9), 3: (3.0, 1.5)}.items():
        for colloid, t in ((False, off), (True, on)):
            rows.append({"host": "h", "backend": "model", "family": "apps", "workload": "gapbs-pr", "rep": 0,
                         "experiment": "steady_state", "system": "hemem", "colloid": colloid, "intensity": i,
                         "metric": "average_trial_time", "unit": "s", "value": t})
    sc = scorecard.build(frame(rows), ref)
    r = row(sc, "apps-gapbs-pr", "hemem", "colloid_speedup")
    assert r["ours_low"] == pytest.approx(2.0 / 1.9) and r["ours_high"] == pytest.approx(2.0)
    assert "no tiering runs" in row(sc, "apps-gapbs-pr", "tpp", "colloid_speedup")["note"]
