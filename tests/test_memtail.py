"""memchar's latency distributions on the Python side: the quantile rows through the workload parser,
the characterize tail figures on synthetic quantiles, and the likwid-bench cross-check's parsing.
One short real memchar run checks the rows this machine produces (no timing is asserted)."""

from __future__ import annotations

import io
import subprocess

import matplotlib
import pandas as pd
import pytest
from conftest import binary

from bench import bench_likwid
from families.characterize.figures import latency_cdf, latency_tail, tails
from workloads.memchar import workload as memchar

matplotlib.use("Agg")

QS = [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0]


def _dist_rows(metric: str, base: float, tail: float, **cols: object) -> list[dict]:
    """Made-up quantiles: base at the median, growing towards tail at the max (not measured)."""
    out = []
    for q in QS:
        v = base * (0.8 + 0.4 * q) + (tail - base) * max(0.0, q - 0.99) / 0.01
        out.append({"family": "characterize", "tool": "memchar", "host": "box", "backend": "numa", "rep": 0,
                    "metric": f"{metric}_quantile", "quantile": q, "value": v, "unit": "ns", **cols})
    return out


def synthetic() -> pd.DataFrame:
    rows = []
    for mem in (0, 1):
        lat = 100 + 80 * mem
        rows += _dist_rows("idle_latency", lat, 5 * lat, cpu_node=0, mem_node=mem, target=f"node:{mem}")
        for delay, bw in ((1000, 2000.0), (100, 8000.0), (0, 15000.0 / (1 + mem))):
            grow = 1 + bw / 20000
            rows += _dist_rows("loaded_latency", lat * grow, 8 * lat * grow, cpu_node=0, mem_node=mem,
                               target=f"node:{mem}", op="read", delay=delay, bandwidth_mbps=bw)
    return pd.DataFrame(rows)


def test_nines_axis():
    assert tails.nines(0.9) == pytest.approx(1) and tails.nines(0.999) == pytest.approx(3)
    assert tails.nines(1.0) == tails.MAX_Y > tails.nines(0.9999)


def test_heaviest_picks_the_highest_bandwidth_point_per_tier():
    q = tails.quantile_rows(synthetic())
    top = tails.heaviest(q)
    # node 1 reaches more at delay 100 (8000 MB/s) than at delay 0 (7500): the bandwidth decides
    assert top.groupby("tier")["load"].first().to_dict() == {"cpu 0 \u2192 mem 0": 0.0, "cpu 0 \u2192 mem 1": 100.0}
    assert sorted(top.groupby("tier")["bandwidth_mbps"].first()) == [8000.0, 15000.0]
    assert len(top) == 2 * len(QS)


def test_repetitions_are_medians():
    d = synthetic()
    d2 = d.assign(rep=1, value=d["value"] * 3)
    d3 = d.assign(rep=2, value=d["value"] * 2)
    q = tails.quantile_rows(pd.concat([d, d2, d3]))
    one = tails.quantile_rows(d)
    assert q["value"].to_numpy() == pytest.approx(2 * one["value"].to_numpy())


@pytest.mark.parametrize("mod", [latency_cdf, latency_tail])
def test_tail_figures_draw_one_panel_per_tier(mod, tmp_path):
    fig = mod.plot(synthetic())
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert sorted(ax.get_title() for ax in panels) == ["cpu 0 \u2192 mem 0", "cpu 0 \u2192 mem 1"]
    assert all(ax.lines for ax in panels)
    fig.savefig(tmp_path / f"{mod.NAME}.png")


def test_tail_figure_lines_carry_the_quantiles():
    fig = latency_tail.plot(synthetic())
    ax = next(a for a in fig.axes if a.get_title() == "cpu 0 \u2192 mem 0")
    labels = {ln.get_label() for ln in ax.lines}
    assert {"p50", "p99", "p99.9"} <= labels
    p999 = next(ln for ln in ax.lines if ln.get_label() == "p99.9")
    p50 = next(ln for ln in ax.lines if ln.get_label() == "p50")
    assert all(a > b for a, b in zip(p999.get_ydata(), p50.get_ydata(), strict=True))


@pytest.mark.parametrize("mod", [latency_cdf, latency_tail])
def test_tail_figures_without_quantile_rows_say_so(mod):
    d = synthetic()
    fig = mod.plot(d[~d["metric"].str.endswith("_quantile")])
    assert "no " in " ".join(t.get_text() for t in fig.texts + [t for ax in fig.axes for t in ax.texts])


LIKWID = """\
Cycles:\t\t\t2985188908
Data volume (Byte):\t4096000000
MByte/s:\t\t3562.09
Cycles per update:\t5.830447
"""
MEMCHAR_BW = ("tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,target,size_bytes,buffer_bytes,delay,"
              "bandwidth_mbps,bytes_per_iter,huge_pages,flush,verified,duration_s,share,quantile,group_loads,access_bytes\n"
              "memchar,bandwidth,bandwidth,4123.5,MB/s,read,1,0,0,0,node:0,,268435456,,,64+0,thp:1.00,,1,1.0,,,,16\n")


def test_likwid_parsing():
    assert bench_likwid.parse_likwid(LIKWID) == pytest.approx(3562.09)
    with pytest.raises(ValueError):
        bench_likwid.parse_likwid("MFlops/s: 0\n")
    assert bench_likwid.parse_memchar(MEMCHAR_BW) == (pytest.approx(4123.5), 16)
    with pytest.raises(ValueError):
        bench_likwid.parse_memchar(MEMCHAR_BW.replace(",1,1.0,", ",0,1.0,"))


def test_likwid_ratios_are_of_medians():
    s = {("read", 1): {"memchar": [10.0, 30.0, 20.0], "likwid": [10.0, 100.0, 20.0]}}
    (r,) = bench_likwid.ratio_table(s)
    assert r["memchar_mbps"] == 20 and r["likwid_mbps"] == 20 and r["ratio"] == 1 and r["n"] == 3
    assert r["likwid_kernel"] == "load_sse"


@pytest.mark.parametrize("argv", [["--reps", "2"], ["--threads", "x"], ["--ops", "copy"]])
def test_likwid_bad_arguments(argv, capsys):
    assert bench_likwid.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tierbench: error:")


def test_real_run_gives_ordered_quantiles_through_the_parser(tmp_path):
    """A short real run here: the rows memchar writes pass the workload parser with one mean, 12
    non-decreasing quantiles (the max last), the interruption counts and the clock's cost."""
    out = subprocess.run([str(binary("memchar")), "latency", "--cpus", "0", "--buffer-mib", "16", "--duration", "0.2"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (tmp_path / "memchar.out").write_text(out.stdout)
    rows = pd.DataFrame(memchar.rows(tmp_path, {"stdout": "memchar.out"}, {}))
    assert set(rows["experiment"]) == {"idle_latency"}
    q = rows[rows["metric"] == "idle_latency_quantile"].astype({"quantile": float, "value": float})
    assert list(q["quantile"]) == QS
    assert q["value"].is_monotonic_increasing and (q["value"] > 0).all()
    mean = float(rows.loc[rows["metric"] == "idle_latency", "value"].iloc[0])
    assert float(q["value"].iloc[0]) <= mean * 1.05 and mean <= float(q["value"].iloc[-1])
    counts = rows[rows["metric"].isin(["idle_latency_interrupted", "idle_latency_groups"])]
    assert len(counts) == 2 and (counts["unit"] == "groups").all()
    timer = rows[rows["metric"] == "timer_cost"]
    assert "clock_gettime" in set(timer["op"]) and (timer["value"].astype(float) > 0).all()
    df = pd.read_csv(io.StringIO(out.stdout))
    assert (df.loc[df["metric"].str.startswith("idle_latency"), "group_loads"] == 16).all()


def test_tail_file_beside_the_curve(tmp_path):
    from families.characterize import curves

    d = synthetic().assign(point=lambda x: "c0-m" + x["mem_node"].astype(str), experiment="loaded_latency")
    d = pd.concat([d, d.assign(rep=1, value=d["value"] * 3)])  # median of 2 = the mean of the two
    csv = tmp_path / "result.csv"
    d.to_csv(csv, index=False)
    assert curves.main(["--out", str(tmp_path / "curves"), str(csv)]) == 0
    t = pd.read_csv(tmp_path / "curves" / "c0-m1.tail.csv")
    assert list(t.columns) == ["read_ratio", "delay", "bandwidth_mbps", "quantile", "latency_ns"]
    assert len(t) == 3 * len(QS) and set(t["read_ratio"]) == {1.0}
    src = d[(d["mem_node"] == 1) & (d["delay"] == 0) & (d["quantile"] == 0.5) & (d["metric"] == "loaded_latency_quantile")]
    got = t[(t["delay"] == 0) & (t["quantile"] == 0.5)]["latency_ns"].iloc[0]
    assert got == pytest.approx(src["value"].median(), rel=1e-5)
    # no loaded_latency rows here, so no curve points, but the curve file is still written
    assert (tmp_path / "curves" / "c0-m1.csv").exists()


def _device(tmp_path, tail: str | None) -> str:
    """A measured-looking curve X.csv (made up, reads only) and, when given, its tail file X.tail.csv."""
    curve = tmp_path / "cxl-x.csv"
    curve.write_text("read_ratio,bandwidth_mbps,latency_ns\n" + "".join(
        f"1,{bw},{lat}\n" for bw, lat in ((100, 250), (8000, 262), (16000, 290), (22000, 380), (24000, 600))))
    if tail is not None:
        (tmp_path / "cxl-x.tail.csv").write_text(tail)
    return str(curve)


TAIL = "read_ratio,delay,bandwidth_mbps,quantile,latency_ns\n" + "".join(
    f"1,{d},{bw},{q},{lat * (1 + q)}\n" for d, bw, lat in ((1600, 100.0, 250), (0, 24000.0, 600)) for q in QS)


def test_a_profile_curve_carries_its_tail(tmp_path):
    """A device's tail file beside its curve is loaded and checked with it, and its quantiles are in
    the curve's note (which `validate` and the run print for each model tier)."""
    from workflows.harness import curvecheck  # noqa: PLC0415

    c = curvecheck.load_for_tiersim(_device(tmp_path, TAIL))
    assert c.tail is not None and len(c.tail.loads) == 2
    note = c.summary()
    assert "tail cxl-x.tail.csv: 2 load points" in note
    assert f"{250 * 1.5:.4g}/{250 * 1.99:.4g}/{250 * 1.999:.4g} ns at 100 MB/s" in note  # lowest load
    assert f"{600 * 1.5:.4g}/{600 * 1.99:.4g}/{600 * 1.999:.4g} ns at 2.4e+04 MB/s" in note  # highest
    (tmp_path / "plain").mkdir()
    assert curvecheck.load(_device(tmp_path / "plain", None)).tail is None


@pytest.mark.parametrize("bad, says", [
    (TAIL.replace("read_ratio,delay", "rr,delay"), "columns"),
    (TAIL.replace(",0.5,", ",1.5,", 1), "outside (0, 1]"),
    (TAIL + "1,0,24000,0.9995,1\n", "latency falls as the quantile rises"),
    ("read_ratio,delay,bandwidth_mbps,quantile,latency_ns\n", "no quantiles"),
])
def test_a_bad_tail_file_stops_the_profile(tmp_path, bad, says):
    from workflows.harness import curvecheck  # noqa: PLC0415

    with pytest.raises(curvecheck.CurveError, match=r"tail .*cxl-x\.tail\.csv") as e:
        curvecheck.load_for_tiersim(_device(tmp_path, bad))
    assert says in str(e.value)
