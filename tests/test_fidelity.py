"""The model's error on a host (analysis/fidelity.py): fidelity.csv checked and scored, its table
and figure, the note on modelled figures, the scorecard's header, the summary, the fleet, and the
workflow's wiring, all from synthetic fidelity.csv files that follow its columns."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from conftest import copy_tree
from matplotlib.collections import PathCollection, PolyCollection
from test_figures import synthetic_frame, tiering_rows

import analysis.figures as figs
from analysis import fidelity, fleet, render, score, tables
from analysis.figures import FIGURES

# (point, experiment, family, workload, metric, unit, measured, predicted, role, reason)
ROWS = [
    ("gups/i0", "contention_single_node", "tiering", "gups", "throughput_gbps", "GB/s", 13.0, 13.0, "calibration",
     "GUPS lines in flight per core"),
    ("antagonist/i4", "contention_single_node", "tiering", "antagonist", "throughput_gbps", "GB/s", 20.0, 30.0,
     "calibration", "antagonist lines in flight per core"),
    ("gups/i4", "contention_single_node", "tiering", "gups", "throughput_gbps", "GB/s", 8.0, 8.4, "validation", ""),
    ("gups/i8", "contention_single_node", "tiering", "gups", "throughput_gbps", "GB/s", 7.5, 6.9, "validation", ""),
    ("gups/i12", "contention_single_node", "tiering", "gups", "throughput_gbps", "GB/s", 7.0, 7.14, "validation", ""),
    ("probe/i4", "contention_single_node", "tiering", "probe", "latency_ns", "ns", 150.0, 135.0, "validation", ""),
    ("probe/i8", "contention_single_node", "tiering", "probe", "latency_ns", "ns", 180.0, 189.0, "validation", ""),
    ("pr/i4", "contention_single_node", "apps", "gapbs-pr", "slowdown_vs_0x", "ratio", 1.25, 1.2, "validation", ""),
    ("silo/i4", "contention_single_node", "apps", "silo", "slowdown_vs_0x", "ratio", 1.4, None, "unrepresented",
     "no access model for silo's load phase"),
]


def write_csv(path: Path, rows=ROWS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(fidelity.COLUMNS)
        for point, exp, fam, wl, metric, unit, m, p, role, reason in rows:
            e = "" if p is None else repr((p - m) / m)
            w.writerow([point, exp, fam, wl, metric, unit, repr(m), "" if p is None else repr(p), e, role, reason, ""])
    return path


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def fid_csv(tmp_path) -> Path:
    return write_csv(tmp_path / "fidelity.csv")


# -- the scorer ------------------------------------------------------------------------------------

def test_score_counts_validation_rows_only(fid_csv):
    hf = fidelity.of_csv(fid_csv, "box")
    s = hf.score
    assert s is not None and s.n == 6
    # |errors|: gups 5 %, 8 %, 2 %; probe 10 %, 5 %; pr 4 %: median 5 %. The calibration row
    # with a 50 % error would move both the median and the worst if it were scored.
    assert s.median == pytest.approx(0.05)
    pm = s.per_metric.set_index("metric")
    assert pm.loc["throughput_gbps", "n"] == 3
    assert pm.loc["throughput_gbps", "median"] == pytest.approx(0.05)
    assert pm.loc["throughput_gbps", "worst"] == pytest.approx(0.08)
    assert pm.loc["throughput_gbps", "worst_point"] == "gups/i8"
    assert pm.loc["latency_ns", "worst"] == pytest.approx(0.10) and pm.loc["latency_ns", "worst_point"] == "probe/i4"
    assert set(s.calibration["point"]) == {"gups/i0", "antagonist/i4"}
    assert hf.note == "model error on this host: median 5.0 % over 6 points"


def test_the_spread_of_each_measurement_is_read_and_counted(tmp_path):
    """A row's spread (the measurement's own per-interval range) is read, not scored, and counted:
    how many errors are within it; a file written before the column existed still reads."""
    path = write_csv(tmp_path / "fidelity.csv")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.loc[df["point"] == "gups/i4", "spread"] = "0.06"  # error 5 %: within
    df.loc[df["point"] == "gups/i8", "spread"] = "0.02"  # error 8 %: not within
    df.to_csv(path, index=False)
    hf = fidelity.of_csv(path, "box")
    pm = hf.score.per_metric.set_index("metric")
    assert (pm.loc["throughput_gbps", "with_spread"], pm.loc["throughput_gbps", "within"]) == (2, 1)
    assert pm.loc["throughput_gbps", "spread"] == pytest.approx(0.04)
    assert pm.loc["latency_ns", "with_spread"] == 0 and pd.isna(pm.loc["latency_ns", "spread"])
    assert hf.score.median == pytest.approx(0.05)  # the score is the same with or without spreads
    assert "1 of the 2 validation points whose measurement reported per-interval values" in fidelity.header_md(hf)
    table = fidelity.table_md(hf)
    assert "| 1 of 2 |" in table and "\u00b16.0 %" in table
    # the column as it was before: the same score, no spreads
    df.drop(columns=["spread"]).to_csv(path, index=False)
    old = fidelity.of_csv(path, "box")
    assert old.score.median == hf.score.median and old.frame["spread"].isna().all()
    # a spread below 0 is refused, with its line
    df.loc[df["point"] == "gups/i4", "spread"] = "-0.1"
    df.to_csv(path, index=False)
    with pytest.raises(fidelity.FidelityError, match="line 4: spread '-0.1' is not a finite number >= 0"):
        fidelity.load(path)

def test_unrepresented_points_listed_with_reason(fid_csv):
    hf = fidelity.of_csv(fid_csv, "box")
    assert list(hf.score.unrepresented["point"]) == ["silo/i4"]
    assert "silo/i4" not in set(hf.score.validation["point"])
    md = fidelity.table_md(hf)
    unrep = md.split("## Points the model cannot represent", 1)[1].split("##", 1)[0]
    assert "silo/i4" in unrep and "no access model for silo's load phase" in unrep
    cal = md.split("## Calibration points", 1)[1].split("##", 1)[0]
    assert "antagonist lines in flight per core" in cal and "+50.0 %" in cal


def test_no_validation_rows_is_not_scored(tmp_path):
    p = write_csv(tmp_path / "fidelity.csv", [r for r in ROWS if r[8] != "validation"])
    hf = fidelity.of_csv(p, "box")
    assert hf.score is None and hf.figure_note is None
    assert hf.summary.startswith("not scored: no validation points") and "2 calibration, 1 unrepresented" in hf.reason
    assert "**Not scored:**" in fidelity.table_md(hf) and "silo/i4" in fidelity.table_md(hf)


def _mangle(text: str, kind: str) -> str:
    lines = text.splitlines()
    if kind == "missing column":
        return "\n".join(",".join(c for i, c in enumerate(ln.split(",")) if i != 5) for ln in lines)
    if kind == "bad role":
        return text.replace(",validation,", ",valid,", 1)
    if kind == "not a number":
        return text.replace(",8.4,", ",eight,", 1)
    if kind == "no reason":
        return text.replace("no access model for silo's load phase", "")
    if kind == "no prediction":
        return text.replace(",8.4,", ",,", 1)
    if kind == "wrong error":
        return text.replace(repr((8.4 - 8.0) / 8.0), "-0.05", 1)
    if kind == "unrepresented predicted":
        return text.replace("1.4,,,unrepresented", "1.4,1.3,-0.07142857142857142,unrepresented")
    if kind == "empty":
        return ""
    raise AssertionError(kind)


@pytest.mark.parametrize("kind, needle", [
    ("missing column", "missing column(s) unit"),
    ("bad role", "line 4: role 'valid' is not one of calibration, validation, unrepresented"),
    ("not a number", "line 4: predicted 'eight' is not a number"),
    ("no reason", "line 10: an unrepresented row must say in reason why"),
    ("unrepresented predicted", "line 10: an unrepresented row must leave predicted and rel_error empty"),
    ("no prediction", "line 4: role validation needs predicted, which is empty"),
    ("wrong error", "line 4: rel_error -0.05 is not (predicted - measured) / measured"),
    ("empty", "empty file"),
])  # fmt: skip
def test_malformed_csv_one_clear_error(fid_csv, tmp_path, kind, needle):
    fid_csv.write_text(_mangle(fid_csv.read_text(), kind))
    with pytest.raises(fidelity.FidelityError) as e:
        fidelity.load(fid_csv)
    assert str(e.value).startswith(f"{fid_csv}: ") and needle in str(e.value), str(e.value)
    # the command says it in one line and writes nothing
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "analysis.fidelity", "--host", "box", "--fidelity", str(fid_csv),
                        "--md", str(out / "fidelity.md"), "--figure", str(out / "fidelity")],
                       capture_output=True, text=True)
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("tierbench: error:")]
    assert r.returncode == 1 and len(errors) == 1 and needle in errors[0], r.stderr
    assert not out.exists()


def test_more_problems_are_counted(fid_csv):
    fid_csv.write_text(fid_csv.read_text().replace(",validation,", ",valid,"))
    with pytest.raises(fidelity.FidelityError, match=r"line 4: .* \(and 5 more problems\)"):
        fidelity.load(fid_csv)


# -- the table and the figure ------------------------------------------------------------------------

def test_table_and_figure_from_a_synthetic_csv(fid_csv, tmp_path):
    md, stem = tmp_path / "tables/fidelity.md", tmp_path / "figures/fidelity"
    assert fidelity.main(["--host", "box", "--fidelity", str(fid_csv), "--md", str(md), "--figure", str(stem)]) == 0
    text = md.read_text()
    assert "**Model error on this host: median 5.0 % over 6 points**" in text
    per = text.split("## Score per metric", 1)[1].split("##", 1)[0]
    assert "| throughput_gbps | GB/s | 3 | 5.0 % | 8.0 % | gups/i8 |" in per
    assert "| latency_ns | ns | 2 | 7.5 % | 10.0 % | probe/i4 |" in per
    assert stem.with_suffix(".png").stat().st_size > 5000 and stem.with_suffix(".pdf").exists()
    fig = fidelity.plot(fidelity.of_csv(fid_csv, "box"))
    assert "model error on this host: median 5.0 % over 6 points" in fig._suptitle.get_text()
    assert "1 point the model cannot represent" in fig._suptitle.get_text()
    assert len([a for a in fig.axes if a.axison]) == 3  # one panel per metric
    thr = next(a for a in fig.axes if a.get_title().startswith("throughput_gbps"))
    # y = x, the band, the validation points and the calibration points (hollow)
    assert [ln.get_linestyle() for ln in thr.lines] == ["--"]
    points = [c.get_offsets() for c in thr.collections if isinstance(c, PathCollection)]
    assert sorted(len(o) for o in points) == [2, 3]  # 3 validation points, 2 calibration points
    assert any(isinstance(c, PolyCollection) for c in thr.collections)  # the +-10 % band
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "contention_single_node" in legend and "calibration (fitted, not scored)" in legend and "y = x" in legend
    assert fidelity.SPREAD_LABEL not in legend  # no row has a spread
    # with a spread: a horizontal bar per such point, named in the legend
    df = pd.read_csv(fid_csv, dtype=str, keep_default_na=False)
    df.loc[df["point"].isin(["gups/i4", "gups/i8"]), "spread"] = "0.05"
    df.to_csv(fid_csv, index=False)
    fig = fidelity.plot(fidelity.of_csv(fid_csv, "box"))
    thr = next(a for a in fig.axes if a.get_title().startswith("throughput_gbps"))
    bars = [c for c in thr.collections if type(c).__name__ == "LineCollection"]
    assert len(bars) == 1 and len(bars[0].get_segments()) == 2, bars
    assert fidelity.SPREAD_LABEL in [t.get_text() for t in fig.legends[0].get_texts()]


def test_not_scored_host_gets_table_and_figure_saying_why(tmp_path):
    md, stem = tmp_path / "fidelity.md", tmp_path / "fidelity"
    why = "functional host: timings not meaningful"
    assert fidelity.main(["--host", "vm", "--not-scored", why, "--md", str(md), "--figure", str(stem)]) == 0
    assert f"**Not scored:** {why}." in md.read_text()
    assert stem.with_suffix(".png").exists()


# -- the note on modelled figures ------------------------------------------------------------------------

def test_modelled_figure_note_only_with_a_score(fid_csv, tmp_path, monkeypatch):
    frame = synthetic_frame()
    note = fidelity.of_csv(fid_csv, "box").figure_note
    title = FIGURES["steady_state"].plot(frame, None, fidelity=note)._suptitle.get_text()
    assert "model error on this host: median 5.0 % over 6 points" in title
    assert "model error" not in FIGURES["steady_state"].plot(frame, None)._suptitle.get_text()
    # a figure of measured rows only never carries it
    assert "model error" not in FIGURES["latency_matrix"].plot(frame, None, fidelity=note)._suptitle.get_text()
    # through analysis.render, as the workflow calls it: with a scored fidelity.csv, and with one
    # that has no validation rows (no score, no note)
    meas = tmp_path / "m.csv"
    frame.to_csv(meas, index=False)
    unscored = write_csv(tmp_path / "unscored.csv", [r for r in ROWS if r[8] != "validation"])
    for csv_path, expect in ((fid_csv, True), (unscored, False)):
        out = tmp_path / f"fig-{expect}"
        assert render.main(["--figure", "steady_state", "--measurements", str(meas), "--fidelity", str(csv_path),
                            "--out", str(out / "steady_state")]) == 0
        assert (out / "steady_state.png").exists()
    seen = {}

    def spy(name, df, ref, out_stem, **kw):
        seen[name] = kw.get("fidelity")
        return []

    monkeypatch.setattr(figs, "render", spy)
    base = ["--figure", "steady_state", "--measurements", str(meas), "--out", str(tmp_path / "spy")]
    render.main([*base, "--fidelity", str(fid_csv)])
    assert seen["steady_state"] == note
    render.main([*base, "--fidelity", str(unscored)])
    assert seen["steady_state"] is None
    render.main([*base, "--fidelity", str(fid_csv), "--functional"])
    assert seen["steady_state"] is None, "a functional host is never scored"


# -- the scorecard's header and the summary -----------------------------------------------------------

def _tiering_csv(tmp_path: Path, host: str = "box") -> Path:
    p = tmp_path / f"{host}-tiering.csv"
    pd.DataFrame(tiering_rows(host)).to_csv(p, index=False)
    return p


def test_scorecard_header_gives_the_score(fid_csv, tmp_path):
    meas = _tiering_csv(tmp_path)
    md, out = tmp_path / "scorecard.md", tmp_path / "scorecard.csv"
    assert score.main(["--measurements", str(meas), "--md", str(md), "--csv", str(out), "--fidelity", str(fid_csv)]) == 0
    head = md.read_text().split("## Scored", 1)[0]
    assert "**Model error on this host: median 5.0 % over 6 validation points**" in head
    assert "throughput_gbps 5.0 % (N = 3, worst 8.0 % at gups/i8)" in head
    assert score.main(["--measurements", str(meas), "--md", str(md), "--csv", str(out),
                       "--not-scored", "every point on this host is modelled"]) == 0
    assert "**Model error on this host: not scored** (every point on this host is modelled)" in md.read_text()


def test_summary_has_the_score(fid_csv, tmp_path):
    df = synthetic_frame()
    text = tables.summary(df, fidelity.of_csv(fid_csv, "box"))
    assert "## Model fidelity on this host" in text and "median 5.0 % over 6 validation points" in text
    assert "Model fidelity" not in tables.summary(df)


# -- the fleet ------------------------------------------------------------------------------------------

def _results_dir(root: Path, host: str, *, functional: bool = False, rows=None) -> Path:
    """A copied results/<host>/: its facts, measurements (modelled tiering rows) and fidelity.csv."""
    d = root / host
    d.mkdir(parents=True)
    (d / "host_facts.json").write_text(json.dumps({"profile": {"name": host, "tiers": [], "functional": functional}}))
    pd.DataFrame(tiering_rows(host)).to_csv(d / "measurements.csv", index=False)
    if rows is not None:
        write_csv(d / "fidelity.csv", rows)
    return d


def test_fleet_shows_each_hosts_score(tmp_path):
    copied = tmp_path / "elsewhere"
    a = _results_dir(copied, "box-a", rows=ROWS)
    worse = [(*r[:7], r[7] * 1.2 if r[8] == "validation" else r[7], *r[8:]) for r in ROWS]
    b = _results_dir(copied, "box-b", rows=worse)
    vm = _results_dir(copied, "vm", functional=True, rows=ROWS)  # a functional host: never scored
    out = tmp_path / "fleet"
    assert fleet.main(["--host", f"box-a={a}", "--host", f"box-b={b}", "--host", f"vm={vm}", "--out", str(out)]) == 0
    text = (out / "comparison.md").read_text()
    sect = text.split("## Model error per host", 1)[1].split("\n## ", 1)[0]
    b_med = fidelity.of_csv(b / "fidelity.csv", "box-b").score.median
    assert "| box-a | (all) | 6 | 5.0 % |" in sect
    assert f"| box-b | (all) | 6 | {fidelity.pct(b_med)} |" in sect and b_med > 0.1
    assert "| vm |" in sect and "not scored: functional host: timings not meaningful" in sect
    # the tiering family's gain section names each modelled host's score
    gain = text.split("## Colloid's steady-state gain", 1)[1]
    assert "box-a: model error on this host: median 5.0 % over 6 points" in gain
    assert "vm: model error on this host: not scored: functional host" in gain
    # the run says which hosts it did not score (a stale fidelity.csv in the directory is not read)
    assert fleet.main(["--host", f"box-a={a}", "--host", f"box-b={b}", "--not-scored", "box-b=no measured points",
                       "--out", str(out)]) == 0
    assert "not scored: no measured points" in (out / "comparison.md").read_text()


def test_fleet_reasons_without_fidelity_csv(tmp_path):
    d = _results_dir(tmp_path, "skipped")
    (d / "fidelity.skipped").write_text("the model profile could not be fitted: no 0x point\n")
    assert fidelity.of_results(d).summary == "not scored: the model profile could not be fitted: no 0x point"
    m = _results_dir(tmp_path, "modelled")
    (m / "host_facts.json").write_text(json.dumps({"profile": {"name": "modelled", "backend": "model"}}))
    assert "nothing measured" in fidelity.of_results(m).reason
    assert fidelity.of_results(_results_dir(tmp_path, "bare")).reason.startswith("no fidelity.csv in ")


def test_a_header_only_csv_beside_skipped_says_why(tmp_path):
    """The workflow's rule expected fidelity.csv but the harness skipped the host (e.g. no usable
    curves): it wrote a header without rows and fidelity.skipped. The host is "not scored" with
    the skipped file's reason, not "no validation points (0 calibration, 0 unrepresented)"."""
    d = _results_dir(tmp_path, "box", rows=[])
    why = "no loaded-latency curves of this host usable as model tiers: no model of it"
    (d / "fidelity.skipped").write_text(why + "\n")
    for hf in (fidelity.of_csv(d / "fidelity.csv", "box"), fidelity.of_results(d)):
        assert hf.summary == f"not scored: {why}" and hf.figure_note is None
    assert why in fidelity.table_md(fidelity.of_csv(d / "fidelity.csv", "box"))
    assert f"**Model error on this host: not scored** ({why})" in fidelity.header_md(fidelity.of_results(d))
    # without fidelity.skipped a csv without rows is what it says
    (d / "fidelity.skipped").unlink()
    assert fidelity.of_results(d).reason.startswith("no validation points")
    # a csv with rows is read whatever a stale fidelity.skipped beside it says
    write_csv(d / "fidelity.csv")
    (d / "fidelity.skipped").write_text(why + "\n")
    assert fidelity.of_results(d).scored


def test_fleet_malformed_fidelity_stops_before_writing(tmp_path):
    a = _results_dir(tmp_path / "r", "box-a", rows=ROWS)
    (a / "fidelity.csv").write_text("point,measured\nx,1\n")
    out = tmp_path / "fleet"
    assert fleet.main(["--host", f"box-a={a}", "--out", str(out)]) == 1
    assert not out.exists()


# -- the workflow ------------------------------------------------------------------------------------------

STUB = """
# test stand-in for the rule fidelity (workflows/rules/fidelity.smk: a fixed fidelity.csv; the real rule
# predicts every measured point)
rule fidelity:
    input:
        "results/{host}/host_facts.json",
    output:
        "results/{host}/fidelity.{kind}",
    wildcard_constraints:
        kind="csv|skipped",
    log:
        "results/{host}/logs/fidelity_{kind}.log",
    shell:
        "if [ {wildcards.kind} = csv ]; then cp fixture-fidelity.csv {output}; else echo stand-in > {output}; fi 2> {log}"
"""


def test_workflow_consumes_fidelity_csv(tmp_path):
    """With the rule fidelity replaced by a stand-in, the table, its figure, the summary, the scorecard and
    the modelled figures read results/<host>/fidelity.csv; measured figures do not; a real run of
    the table writes the score."""
    wd = copy_tree(tmp_path / "repo")
    write_csv(wd / "fixture-fidelity.csv")
    (wd / "workflows/rules/fidelity.smk").write_text(STUB)  # in place of the real rule
    smk = [sys.executable, "-m", "snakemake", "--cores", "1"]
    r = subprocess.run([*smk, "-n", "--forceall"], cwd=wd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    jobs = {}
    for block in r.stdout.split("\nrule ")[1:]:
        name = block.split(":", 1)[0]
        inp = next((ln for ln in block.splitlines() if ln.strip().startswith("input:")), "")
        out = next((ln for ln in block.splitlines() if ln.strip().startswith("output:")), "")
        jobs.setdefault(name, []).append((inp, out))
    host = next(o.split("results/", 1)[1].split("/", 1)[0] for _, o in jobs["fidelity"])
    csv_path = f"results/{host}/fidelity.csv"
    for rule in ("fidelity_report", "tables", "scorecard"):
        assert rule in jobs and all(csv_path in i for i, _ in jobs[rule]), rule
    # (a family's figures render in one job, rule figures; rule figure takes each from its output)
    figs = {o.split("figures/", 1)[1].split(".render")[0]: csv_path in i for i, o in jobs["figures"]}
    assert figs["tiering"] and not figs["characterize"], figs
    made = {o.split("figures/", 1)[1].split(".png")[0]: i.split("figures/", 1)[1] for i, o in jobs["figure"]}
    assert made["steady_state"] == "tiering.render" and made["latency_matrix"] == "characterize.render", made
    r = subprocess.run([*smk, f"results/{host}/tables/fidelity.md"], cwd=wd, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "median 5.0 % over 6 points" in (wd / f"results/{host}/tables/fidelity.md").read_text()
    assert (wd / f"results/{host}/figures/fidelity.png").exists()
    # a functional host (here: this machine's facts under a profile that says functional) is never
    # scored, whatever rules exist: nothing asks for its fidelity.csv, and its table says why
    prof = tmp_path / "func.yaml"
    prof.write_text("name: pytest-functional\ndetect: true\ntiers: []\nfunctional: true\n")
    r = subprocess.run([*smk, "-n", "-p", "--forceall", "--config", f"host={prof}"], cwd=wd, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "results/pytest-functional/fidelity.csv" not in r.stdout
    assert "--host pytest-functional --not-scored 'functional host: timings not meaningful'" in r.stdout
    # the report's section (its captions are valid reStructuredText)
    report = wd / "fidelity-report.html"
    r = subprocess.run([*smk, "--report", str(report), f"results/{host}/tables/fidelity.md",
                        f"results/{host}/figures/fidelity.png"], cwd=wd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    html = report.read_text()
    assert "Model fidelity" in html and "fidelity.md" in html and "fidelity.png" in html
