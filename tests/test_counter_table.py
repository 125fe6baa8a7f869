"""The host's counters table (analysis/counters.py): every point's counters in one table, which the
counters table (analysis/tables.py) and the families' own tables read."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from analysis import counters, tables

SAMPLES = [(1.0, "perf_uncore", "S0", "read_bandwidth", 100.0, "MB/s"),
           (2.0, "perf_uncore", "S0", "read_bandwidth", 300.0, "MB/s"),
           (1.0, "pcm_memory", "S0", "read_bandwidth", 7.0, "MB/s")]


def _point(root: Path, name: str, ctx: dict, status: dict | None, samples: list[tuple] | None = None) -> Path:
    d = root / name
    d.mkdir(parents=True)
    meta = {"point": {"family": "fam", "experiment": "e", "point": name, "rep": 0, **ctx}}
    if status is not None:
        meta["counters"] = status
    (d / "meta.json").write_text(json.dumps(meta))
    if samples is not None:
        pd.DataFrame(samples, columns=["t_s", "source", "scope", "metric", "value", "unit"]).to_csv(
            d / "counters.csv", index=False)
    return d / "meta.json"


def _roundtrip(metas: list[Path], tmp: Path) -> pd.DataFrame:
    out = tmp / "counters.csv"
    assert counters.main(["--out", str(out), *map(str, metas)]) == 0
    return counters.load(out)


def test_one_table_of_every_points_counters(tmp_path):
    ok = {"available": True, "ok": True, "rows": 2}
    metas = [
        # counted: its samples of that source, the other source (failed) a status row only
        _point(tmp_path, "counted", {"mem_nodes": "1"},
               {"perf_uncore": ok, "pcm_memory": {"available": True, "ok": False, "reason": "exited 1"}}, SAMPLES),
        # no PMU: a stale counters.csv an earlier run left is not read as this run's
        _point(tmp_path, "nopmu", {"mem_nodes": "0-1"},
               {"perf_uncore": {"available": False, "reason": "no uncore PMU"}}, SAMPLES),
        # said it counted, but its file is gone
        _point(tmp_path, "gone", {}, {"perf_uncore": ok}),
        _point(tmp_path, "nosource", {}, {}),  # measured, no source configured
        _point(tmp_path, "model", {}, None),  # a modelled point: no counters at all
    ]
    df = _roundtrip(metas, tmp_path)
    assert set(df["point"]) == {"counted", "nopmu", "gone", "nosource"}
    got = df[(df["point"] == "counted") & (df["source"] == "perf_uncore")]
    assert got["counted"].all() and got["value"].tolist() == [100.0, 300.0]
    pcm = df[(df["point"] == "counted") & (df["source"] == "pcm_memory")]
    assert len(pcm) == 1 and not pcm["ok"].any() and pcm["metric"].tolist() == [""], "a failed source's rows are not read"
    nopmu = df[df["point"] == "nopmu"]
    assert len(nopmu) == 1 and not nopmu["available"].any() and nopmu["reason"].tolist() == ["no uncore PMU"]
    assert nopmu["mem_nodes"].tolist() == ["0-1"] and df[df["point"] == "counted"]["mem_nodes"].eq("1").all(), \
        "context stays text: node 1 is not read back as 1.0"
    gone = df[df["point"] == "gone"]
    assert not gone["counted"].any() and gone["reason"].iloc[0].startswith(counters.MISSING)
    assert df[df["point"] == "nosource"]["source"].tolist() == [""]
    # the counters table reads the same table: per source, points, available and ok
    md = tables.counters(df, {"x/y": "why not"})
    lines = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]] for ln in md.splitlines()
             if ln.startswith("| ") and "source" not in ln and "measurement" not in ln}
    assert lines["perf_uncore"][:3] == ["3", "True", "2"]
    assert lines["pcm_memory"][:3] == ["1", "True", "0"]
    assert "" not in lines and "why not" in md


def test_no_measured_points_is_an_empty_table(tmp_path):
    df = _roundtrip([_point(tmp_path, "model", {}, None)], tmp_path)
    assert df.empty and {"source", "counted", "metric", "value"} <= set(df.columns)
    assert "_no data_" in tables.counters(df, {})
