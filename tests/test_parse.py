"""Parsers (each in its workload module): raw tool output -> long-form rows (synthetic inputs +
a real fio run); the typed loader; result.csv's open columns."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from analysis import frame, schema
from families.characterize.curves import curve_rows, point_rows
from workflows.harness.point import result_csv, with_context
from workloads.fio import workload as fio
from workloads.memchar import workload as memchar
from workloads.mlc import workload as mlc

MEMCHAR = """tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,target,size_bytes,buffer_bytes,delay,bandwidth_mbps,bytes_per_iter,huge_pages,flush,verified,duration_s
memchar,latency,idle_latency,92.5,ns,read,1,0,0,0,node:0,,268435456,,,,thp:0.99,,1,1.0
memchar,bandwidth,bandwidth,11000.5,MB/s,read,1,0,0,0,node:0,,67108864,,,64,thp:1.00,,1,0.5
memchar,bandwidth,bandwidth,19000.0,MB/s,read,2,0-1,0,0,node:0,,134217728,,,64,thp:1.00,,1,0.5
memchar,loaded,loaded_latency,120.0,ns,read,1,0-1,0,0,node:0,,268435456,0,15000.0,64,thp:1.00,,1,0.5
memchar,loaded,loaded_latency,95.0,ns,read,1,0-1,0,0,node:0,,268435456,1600,3000.0,64,thp:1.00,,1,0.5
"""

MLC_LAT = """Intel(R) Memory Latency Checker - v3.11
Command line parameters: --latency_matrix

Using buffer size of 2000.000MiB
Measuring idle latencies for random access (in ns)...
\t\tNuma node
Numa node\t     0\t     1\t
       0\t  81.2\t 135.9\t
       1\t 137.0\t  80.7\t
"""

MLC_LOADED = """Intel(R) Memory Latency Checker - v3.11
Using Read-only traffic type
Inject\tLatency\tBandwidth
Delay\t(ns)\tMB/sec
==========================
 00000\t261.65\t 225060.9
 00002\t261.63\t 225040.5
 00100\t112.40\t 101210.3
"""


def memchar_rows(tmp_path: Path, text: str = MEMCHAR) -> list[dict]:
    (tmp_path / "memchar.out").write_text(text)
    return memchar.rows(tmp_path, memchar.role(["build/bin/memchar", "latency"]), {})


def as_frame(rows: list[dict], columns=()) -> pd.DataFrame:
    return frame.typed(pd.read_csv(io.StringIO(result_csv(rows, list(columns))), dtype=str, keep_default_na=False))


def test_memchar_rows_carry_context(tmp_path):
    ctx = {"host": "h", "backend": "numa", "family": "characterize", "experiment": "bandwidth", "point": "c0-m0"}
    df = as_frame(with_context(ctx, memchar_rows(tmp_path)))
    assert list(df.columns)[: len(schema.COLUMNS)] == schema.COLUMNS
    assert "mode" not in df.columns and "verified" not in df.columns
    assert {"buffer_bytes", "huge_pages", "cpus"} <= set(df.columns), "memchar's own columns are kept"
    assert (df["host"] == "h").all()
    lat = df[df["metric"] == "idle_latency"]
    assert lat["experiment"].iloc[0] == "idle_latency", "experiment follows memchar's mode, not the context"
    assert lat["value"].iloc[0] == 92.5 and lat["unit"].iloc[0] == "ns"
    bw = df[df["metric"] == "bandwidth"].sort_values("threads")
    assert bw["threads"].tolist() == [1, 2]


def test_memchar_unverified_result_is_an_error(tmp_path):
    bad = MEMCHAR.replace(",thp:1.00,,1,0.5\nmemchar,bandwidth,bandwidth,19000.0", ",thp:1.00,,0,0.5\nmemchar,bandwidth,bandwidth,19000.0", 1)
    with pytest.raises(ValueError, match="unverified"):
        memchar_rows(tmp_path, bad)


def test_memchar_probe_reports_its_metric(tmp_path):
    (tmp_path / "latency.csv").write_text(MEMCHAR)
    role = memchar.role(["build/bin/memchar", "latency"], name="latency", probe_metric="latency_default")
    assert memchar.probe_rows(tmp_path, role, role["opts"]) == [
        {"metric": "latency_default", "value": "92.5", "unit": "ns", "tool": "memchar"}]


def test_curve_rows_from_loaded_latency(tmp_path):
    cur = curve_rows(as_frame(memchar_rows(tmp_path)))
    assert list(cur.columns) == ["read_ratio", "bandwidth_mbps", "latency_ns"]
    assert cur["bandwidth_mbps"].is_monotonic_increasing
    assert cur["read_ratio"].eq(1.0).all() and len(cur) == 2


def test_mlc_latency_matrix():
    df = pd.DataFrame(mlc.parse(MLC_LAT, "latency_matrix"))
    got = {(r.cpu_node, r.mem_node): r.value for r in df.itertuples()}
    assert got == {(0, 0): 81.2, (0, 1): 135.9, (1, 0): 137.0, (1, 1): 80.7}
    assert (df["tool"] == "mlc").all() and (df["metric"] == "idle_latency").all()


def test_the_1_1_curve_is_rmws_and_every_points_injector_is_recorded(tmp_path):
    """Where rmw and mix1:1 both measured the 1:1 read ratio, the curve is rmw's points (its counted
    bytes are what the memory moves); the injector table keeps every point with its op, delay,
    injector threads and whether the curve took it."""
    head, *_ = MEMCHAR.splitlines()
    extra = [f"memchar,loaded,loaded_latency,{lat},ns,{op},1,0-1,0,0,node:0,,268435456,{d},{bw},x,thp:1.00,,1,0.5"
             for op, d, bw, lat in (("mix1:1", 0, 24000.0, 280.0), ("mix1:1", 100, 4000.0, 200.0),
                                    ("rmw", 0, 22000.0, 199.0), ("rmw", 10, 9000.0, 190.0), ("rmw", 100, 2000.0, 185.0))]
    df = as_frame(memchar_rows(tmp_path, "\n".join([MEMCHAR.rstrip("\n"), *extra]) + "\n"))
    cur = curve_rows(df)
    half = cur[cur["read_ratio"] == 0.5]
    assert list(half["bandwidth_mbps"]) == [2000.0, 9000.0, 22000.0] and list(half["latency_ns"]) == [185.0, 190.0, 199.0]
    assert len(cur[cur["read_ratio"] == 1.0]) == 2
    pts = point_rows(df)
    assert list(pts.columns) == ["read_ratio", "bandwidth_mbps", "latency_ns", "op", "delay", "injectors", "in_curve"]
    assert len(pts) == 7 and (pts["injectors"] == 1).all()
    got = {(r.op, int(r.delay)): int(r.in_curve) for r in pts.itertuples()}
    assert got[("mix1:1", 0)] == 0 and got[("rmw", 0)] == 1 and got[("read", 1600)] == 1
    # without rmw, mix1:1 makes the 1:1 curve as before
    only_mix = df[df["op"] != "rmw"]
    assert list(curve_rows(only_mix).query("read_ratio == 0.5")["bandwidth_mbps"]) == [4000.0, 24000.0]


def test_mlc_loaded_latency():
    df = pd.DataFrame(mlc.parse(MLC_LOADED, "loaded_latency"))
    assert df["delay"].tolist() == [0, 2, 100]
    assert df["bandwidth_mbps"].iloc[-1] == pytest.approx(101210.3)


def test_mlc_garbage_gives_no_rows():
    assert mlc.parse("nothing useful\n", "latency_matrix") == []


@pytest.mark.skipif(not shutil.which("fio"), reason="fio not installed")
def test_fio_real_output(tmp_path):
    out = subprocess.run(
        ["fio", "--output-format=json", f"--filename={tmp_path}/f", "--size=8m", "--rw=randread", "--bs=4k",
         "--ioengine=psync", "--time_based", "--runtime=0.3", "--name=qd1", "--iodepth=1",
         "--name=qd2", "--iodepth=2", "--stonewall"],
        capture_output=True, text=True, check=True).stdout
    df = pd.DataFrame(fio.parse(out))
    iops = df[df["metric"] == "iops"]
    assert iops["iodepth"].tolist() == [1, 2]
    assert (iops["value"] > 0).all()
    assert set(df["metric"]) >= {"iops", "bandwidth", "read_latency_mean"}
    assert (df["block_bytes"] == 4096).all()


def test_result_csv_is_open_and_typed_once(tmp_path):
    """A family's columns come after the core ones, a parser's extra column is kept, colloid is
    written true/false and read back as a boolean; an extra numeric column is typed a number."""
    rows = [{"host": "h", "colloid": True, "metric": "m", "value": 1.5, "my_param": 7, "object_bytes": 64},
            {"host": "h", "colloid": False, "metric": "m", "value": 2, "my_param": 8, "note": "x"}]
    text = result_csv(rows, ["object_bytes", "alt_latency_ns"])
    header = next(csv.reader(io.StringIO(text)))
    assert header[: len(schema.COLUMNS)] == schema.COLUMNS
    assert header[len(schema.COLUMNS):] == ["object_bytes", "alt_latency_ns", "my_param", "note"]
    assert "true" in text and "false" in text
    p = tmp_path / "result.csv"
    p.write_text(text)
    df = frame.load([p, p])
    assert len(df) == 4 and str(df["colloid"].dtype) == "boolean" and df["colloid"].tolist() == [True, False] * 2
    assert df["my_param"].dtype == float and df["note"].tolist() == ["", "x"] * 2
    assert frame.typed(df) is df, "a typed frame is not typed again"
    assert frame.load([]).empty


def test_typing_a_long_frame_by_its_distinct_values_changes_no_cell(monkeypatch):
    """frame.typed converts each distinct value of a long column once (analysis/frame.py,
    _by_value): every cell and dtype as converting every cell, missing values and odd spellings
    included."""
    odd = [" 1 ", "2.50", "nan", "", "x", None, "true", "0", "False", "<NA>", "None", " y ", "1e3"]
    n = 20 * len(odd)
    df = pd.DataFrame({"host": ["h"] * n, "value": [odd[i % len(odd)] for i in range(n)],
                       "colloid": [odd[(i * 7) % len(odd)] for i in range(n)],
                       "metric": [odd[(i * 5) % len(odd)] for i in range(n)],
                       "extra_num": [str(i % 3) for i in range(n)],
                       "extra_text": [odd[(i * 3) % len(odd)] for i in range(n)]})
    fast = frame.typed(df)
    monkeypatch.setattr(frame, "_by_value", lambda col, conv: conv(col))  # every cell converted
    slow = frame.typed(df)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert fast["value"].isna().sum() == 20 * 9 and fast["extra_num"].dtype == float
    assert fast["colloid"].tolist()[:8] == [True, False, pd.NA, False, pd.NA, pd.NA, pd.NA, pd.NA]
