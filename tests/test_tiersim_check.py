"""The Python copies of tiersim's validation agree with tiersim itself.

Validation runs before anything is built, so two checks are written in Python as well as in C:
``workflows/harness/curvecheck.py`` (a model tier's curve, as colloid/sim/src/curve.c loads it) and
``families/tiering/model.check`` (tiering config values tiersim would refuse). Here both are run
against ``tiersim --check-curve`` / ``tiersim --check`` on one shared fixture of good and bad
inputs: same verdict, and for curves the same unloaded latency per read ratio.
"""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, binary
from test_plans import BAD_TIERING

from families.tiering import model
from workflows.harness import ConfigError, curvecheck, plan, profile

HEADER = "read_ratio,bandwidth_mbps,latency_ns"


def _curve(rows: list[tuple]) -> str:
    return HEADER + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


GOOD = [(1.0, 0, 80), (1.0, 10000, 90), (1.0, 20000, 140), (0.5, 0, 85), (0.5, 8000, 100), (0.5, 15000, 160)]

# name -> files to write (path relative to the case directory -> text); the spec is the case dir
# itself when it holds bwlat files, else its curve.csv; a str value is a spec as it is
CASES: dict[str, dict[str, str] | str] = {
    "csv good": {"curve.csv": _curve(GOOD)},
    "csv comments and blank lines": {"curve.csv": "# measured\n" + _curve(GOOD).replace("\n1,10000", "\n\n1,10000")},
    "csv unsorted, a noisy point dropped": {"curve.csv": _curve([(1.0, 20000, 140), (1.0, 0, 80), (1.0, 5, 120),
                                                                  (1.0, 10000, 90)])},
    "csv header": {"curve.csv": "rr,bw,lat\n1,0,80\n1,10,90\n"},
    "csv malformed row": {"curve.csv": HEADER + "\n1,0\n1,10,90\n"},
    "csv text value": {"curve.csv": HEADER + "\n1,zero,80\n1,10,90\n"},
    "csv read ratio above 1": {"curve.csv": _curve([(1.5, 0, 80), (1.5, 10, 90)])},
    "csv negative bandwidth is noise, dropped": {"curve.csv": _curve([(1.0, -6.44, 65.8), (1.0, 0, 70), (1.0, 10, 90)])},
    "csv only noise left": {"curve.csv": _curve([(1.0, -6.44, 65.8), (1.0, 10, 90)])},
    "csv zero latency": {"curve.csv": _curve([(1.0, 0, 0), (1.0, 10, 90)])},
    "csv one usable point": {"curve.csv": _curve([(1.0, 100, 80), (1.0, 50, 90)])},
    "csv no rows": {"curve.csv": HEADER + "\n"},
    "csv 102 read ratios": {"curve.csv": _curve([(r / 101, b, 80 + b / 100) for r in range(102) for b in (0, 100)])},
    "csv 101 read ratios": {"curve.csv": _curve([(r / 100, b, 80 + b / 100) for r in range(101) for b in (0, 100)])},
    "mess good": {"bwlat_100.txt": "0 80\n10000 90\n20000 140\n", "bwlat_50.txt": "0 85\n8000 100\n"},
    "mess tab separated": {"bwlat_100.txt": "0\t80\n10000\t90\n"},
    "mess CRLF and tabs": {"bwlat_100.txt": "0\t80\r\n10000\t90\r\n"},
    "mess negative bandwidth at idle": {"bwlat_100.txt": "-6.44 65.8\n0 80\n10000 90\n"},
    "mess read percentage above 100": {"bwlat_101.txt": "0 80\n10 90\n"},
    "mess ratio given twice": {"bwlat_50.txt": "0 80\n10 90\n", "bwlat_050.txt": "0 80\n10 90\n"},
    "mess malformed line": {"bwlat_100.txt": "0 80 3\n10 90\n"},
    "mess one usable point": {"bwlat_100.txt": "10 80\n5 90\n"},
    "mess no files": {"notes.txt": "nothing\n"},
    "mess other files beside": {"bwlat_100.txt": "0 80\n10 90\n", "bwlat_x.txt": "junk\n", "README": "x\n"},
    "mess 51 files (Mess: 0, 2, ..., 100)": {f"bwlat_{p}.txt": f"0 {80 + p / 10}\n10 90\n" for p in range(0, 101, 2)},
    "mess 102 files, one ratio twice": {**{f"bwlat_{p}.txt": "0 80\n10 90\n" for p in range(101)}, "bwlat_050.txt": "0 80\n10 90\n"},
    "csv one ratio written two ways": {"curve.csv": HEADER + "\n0.6666666667,0,80\n0.66666666667,10,90\n"},
    "param good": "param:L0=80,a=20,k=3,bsat=100000",
    "param empty item and trailing comma": "param:L0=80,,a=20,k=3,bsat=100000,",
    "param missing bsat": "param:L0=80,a=20,k=3",
    "param unknown name": "param:L0=80,a=20,k=3,bsat=1,z=2",
    "param not a number": "param:L0=eighty,a=20,k=3,bsat=100000",
    "param not name=value": "param:L0",
    "missing file": "/nonexistent/curve.csv",
}


def spec_of(name: str, tmp_path: Path) -> str:
    case = CASES[name]
    if isinstance(case, str):
        return case
    d = tmp_path / name.replace(" ", "_")
    d.mkdir()
    for f, text in case.items():
        (d / f).write_text(text)
    return str(d / "curve.csv") if "curve.csv" in case else str(d)


def python_verdict(spec: str) -> dict[float, float] | None:
    try:
        return curvecheck.check_curve(spec)
    except curvecheck.CurveError:
        return None


def tiersim_verdict(tiersim: Path, spec: str) -> dict[float, float] | None:
    r = subprocess.run([str(tiersim), "--check-curve", spec], capture_output=True, text=True, timeout=60)
    if r.returncode == 2:
        assert r.stderr.count("\n") == 1 and "error" in r.stderr, r.stderr
        return None
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert rows and list(rows[0]) == ["read_ratio", "unloaded_latency_ns"], r.stdout
    return {float(x["read_ratio"]): float(x["unloaded_latency_ns"]) for x in rows}


def assert_same(py: dict[float, float], c: dict[float, float]) -> None:
    """The same read ratios with the same unloaded latencies (tiersim prints 6 digits)."""
    for (rp, lp), (rc, lc) in zip(sorted(py.items()), sorted(c.items()), strict=True):
        assert rp == pytest.approx(rc, rel=1e-5) and lp == pytest.approx(lc, rel=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_curve_check_agrees_with_tiersim(name, tmp_path):
    tiersim = binary("tiersim")
    spec = spec_of(name, tmp_path)
    py, c = python_verdict(spec), tiersim_verdict(tiersim, spec)
    assert (py is None) == (c is None), f"python: {py}, tiersim: {c}"
    if py is not None:
        assert_same(py, c)


@pytest.mark.parametrize("curve", sorted(str(p) for p in (REPO / "hosts/curves").glob("*.csv")))
def test_shipped_curves_agree(curve):
    py, c = python_verdict(curve), tiersim_verdict(binary("tiersim"), curve)
    assert py is not None and c is not None
    assert_same(py, c)


SMALL = {"systems": ["hemem", "tpp"], "intensities": [0, 3], "best_static_fractions": [0, 1],
         "unloaded_latency_ns": [135], "object_bytes": [64]}


def tiersim_refuses(tiersim: Path, argvs: list[list[str]]) -> list[str]:
    """The first line tiersim --check prints for each argv it refuses."""
    out = []
    for a in argvs:
        r = subprocess.run([str(tiersim), *a[1:], "--check"], capture_output=True, text=True, timeout=60, cwd=REPO)
        assert r.returncode in (0, 2), r.stderr
        if r.returncode == 2:
            out.append(r.stderr.strip())
    return out


def model_argvs(tiering: dict) -> list[list[str]]:
    mprof = profile.resolve("paper-testbed", {"nodes": {}})
    config = profile.validate_config({"scale": "t", "tiering": {**SMALL, **tiering}})
    return [r["run"]["argv"] for r in model.points(config, plan.Host(mprof, {"nodes": {}}), mprof, checked=False)]


def test_tiersim_accepts_every_point_the_planner_accepts():
    tiersim = binary("tiersim")
    mprof = profile.resolve("paper-testbed", {"nodes": {}})
    config = profile.validate_config({"scale": "t"})
    rows = model.points(config, plan.Host(mprof, {"nodes": {}}), mprof)
    assert len(rows) > 200
    assert tiersim_refuses(tiersim, [r["run"]["argv"] for r in rows]) == []


@pytest.mark.parametrize("tiering, needle", BAD_TIERING)
def test_planner_refuses_what_tiersim_refuses(tiering, needle):
    """Each config the planner refuses has a point tiersim --check refuses too (so the Python
    check is no stricter than tiersim), and the planner's message names the config key."""
    tiersim = binary("tiersim")
    with pytest.raises(ConfigError, match=needle):
        mprof = profile.resolve("paper-testbed", {"nodes": {}})
        model.points(profile.validate_config({"scale": "t", "tiering": {**SMALL, **tiering}}),
                     plan.Host(mprof, {"nodes": {}}), mprof)
    refused = tiersim_refuses(tiersim, model_argvs(tiering))
    assert refused, "the planner refuses a config tiersim would run"
