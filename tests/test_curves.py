"""A hardware team's own device: real-shaped curve folders load, implausible ones stop the run
before any job, the tier's unloaded latency comes from its curve, published numbers are judged
only on comparable hardware, and points past the end of a curve are flagged.

The folders here are synthetic imitations of real Mess output (51 files, bwlat_0..bwlat_100,
space- or tab-separated, a negative bandwidth at idle, the backward bend of a saturated
measurement, a failed read ratio); tests/test_tiersim_check.py holds tiersim to the same rules.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, binary
from test_profiles import FACTS, write
from test_scorecard import frame, steady

from analysis import reference, scorecard, style, tables
from workflows.harness import ConfigError, cli, curvecheck, plan, point, profile


def mess_folder(d: Path, unloaded: float, peak_mbps: float, *, failed_pct: int | None = None, noise: bool = True,
                bend: bool = True) -> Path:
    """A Mess-style folder of 51 files: latency rising towards a wall, a negative-bandwidth point at
    idle, two over-saturated points bending back, every other file tab-separated."""
    d.mkdir(parents=True)
    for pct in range(0, 101, 2):
        wall = peak_mbps * (0.6 + 0.4 * pct / 100)
        pts = [(wall * i / 29, unloaded + 0.4 * unloaded * (i / 30) ** 4 / (1.02 - i / 30)) for i in range(30)]
        if noise:
            pts.append((-6.44, unloaded - 0.5))
        if bend:
            pts += [(wall * 0.99, 10 * unloaded), (wall * 0.97, 12 * unloaded)]
        if pct == failed_pct:  # a failed run: 3-64 MB/s at one latency
            pts = [(3 + 2 * i, 1.5 * unloaded + 0.01 * i) for i in range(31)]
        sep = "\t" if pct % 4 else " "
        (d / f"bwlat_{pct}.txt").write_text("".join(f"{b:.3f}{sep}{lat:.3f}\n" for b, lat in reversed(pts)))
    return d


def device_profile(tmp_path: Path, alt: Path, extra: str = "", alt_label: str = "") -> str:
    ddr = mess_folder(tmp_path / "ddr", 75, 120000, noise=False, bend=False)
    return write(tmp_path, "name: my-device\ntiers:\n"
                 f"  - {{name: default, kind: model, curve: '{ddr}', capacity_gib: 24}}\n"
                 f"  - {{name: alternate, kind: model, curve: '{alt}', capacity_gib: 72{alt_label}}}\n"
                 "cpus: {cores_per_unit: 5}\n" + extra)


def test_a_real_shaped_mess_folder_loads_and_says_what_it_dropped(tmp_path):
    c = curvecheck.load(str(mess_folder(tmp_path / "cxl", 107, 60000)))
    assert len(c.ratios) == 51 and min(c.ratios) == 0 and max(c.ratios) == 1
    assert c.noise == 51 and sum(r.past_wall for r in c.ratios.values()) == 102
    assert curvecheck.implausible(c) is None
    assert c.unloaded()[1.0] == pytest.approx(107)
    s = c.summary()
    assert "51 read ratios" in s and "51 dropped as noise" in s and "102 past the saturation wall" in s


def test_device_profile_runs_the_default_config(tmp_path):
    """The documented command's profile alone: the latency sweep follows the profile (auto)."""
    prof = profile.resolve(device_profile(tmp_path, mess_folder(tmp_path / "cxl", 107, 60000)), FACTS)
    alt = next(t for t in prof["tiers"] if t["name"] == "alternate")
    assert alt["unloaded_latency_ns"] == pytest.approx(107)
    assert any("51 dropped as noise" in n for n in prof["curve_notes"])
    config = profile.validate_config(profile.load_yaml(REPO / "workflows/config/quick.yaml", "experiment config"))
    pl = plan.build(config, plan.Host(prof, {**FACTS, "memory_nodes": [0]}, None))
    lat = {r["context"]["alt_latency_ns"] for r in pl.points.values() if r["family"] == "tiering"}
    assert lat == {107}
    info = pl.families["tiering"].info
    assert info.comparable_to == [] and "alternate = " in info.tiers and "(107 ns)" in info.tiers


@pytest.mark.parametrize("what, setup, needle", [
    ("failed read ratio", lambda t: dict(alt=mess_folder(t / "cxl", 107, 60000, failed_pct=50)),
     "1 failed measurement(s)? bwlat_50.txt reach at most 63 MB/s, below 20% of this device's median wall"),
    ("contradicting label", lambda t: dict(alt=mess_folder(t / "cxl", 107, 60000), alt_label=", unloaded_latency_ns: 135"),
     "unloaded_latency_ns 135 contradicts its curve, whose unloaded latency at reads only is 107 ns"),
    ("one file for a folder", lambda t: dict(alt=mess_folder(t / "cxl", 107, 60000) / "bwlat_100.txt"),
     "this is one Mess curve file (bandwidth latency per line); name the directory"),
])
def test_bad_device_curves_get_one_line_before_any_job(tmp_path, what, setup, needle):
    with pytest.raises(ConfigError) as e:
        profile.resolve(device_profile(tmp_path, **setup(tmp_path)), FACTS)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and "host.yaml: tiers/1 (alternate)" in msg, what


def test_every_failed_read_ratio_is_named_at_once(tmp_path):
    d = mess_folder(tmp_path / "cxl", 107, 60000, failed_pct=50)
    (d / "bwlat_20.txt").write_text("".join(f"{3 + i} {160 + i / 100}\n" for i in range(20)))
    bad = curvecheck.implausible(curvecheck.load(str(d)))
    assert "2 failed measurement(s)? bwlat_20.txt, bwlat_50.txt" in bad
    (d / "bwlat_20.txt").rename(d / "bwlat_20.txt.failed")  # renamed, the rest is used
    (d / "bwlat_50.txt").rename(d / "bwlat_50.txt.failed")
    c = curvecheck.load(str(d))
    assert len(c.ratios) == 49 and curvecheck.implausible(c) is None


def test_latencies_in_cycles_mixed_with_ns_are_implausible(tmp_path):
    """Mess's PROFET writer can write CPU cycles (ns x GHz): a folder mixing both is refused."""
    d = mess_folder(tmp_path / "cxl", 107, 60000)
    cycles = mess_folder(tmp_path / "cyc", 107 * 2.1, 60000)
    for pct in (0, 2, 4):
        (cycles / f"bwlat_{pct}.txt").replace(d / f"bwlat_{pct}.txt")
    with pytest.raises(ConfigError, match=r"unloaded latency differs 2.1x across read ratios .*bwlat_\d\.txt: 224.7 ns"):
        profile.resolve(device_profile(tmp_path, d), FACTS)


def test_non_monotone_curve_is_implausible(tmp_path):
    d = tmp_path / "zigzag"
    d.mkdir()
    (d / "bwlat_100.txt").write_text("".join(f"{(i % 2) * 40000 + i * 10} {100 + i}\n" for i in range(20)))
    with pytest.raises(ConfigError, match="bandwidth does not rise with latency"):
        profile.resolve(device_profile(tmp_path, d), FACTS)


MLC = """Intel(R) Memory Latency Checker - v3.11
Command line parameters: --loaded_latency

Measuring Loaded Latencies for the system
Using all the threads from each core if Hyper-threading is enabled
Using Read-only traffic type
Inject	Latency	Bandwidth
Delay	(ns)	MB/sec
==========================
 00000	261.65	 225060.9
 00100	130.10	 120000.0
 01000	 95.20	  30000.0
 09000	 88.00	   4000.0
"""


def test_mlc_output_imports_through_the_same_path(tmp_path, capsys):
    src = tmp_path / "mlc.txt"
    src.write_text(MLC)
    out = tmp_path / "mlc.csv"
    assert cli.main(["curve", str(src), "--out", str(out)]) == 0
    c = curvecheck.load(str(out))
    assert c.form == "csv" and list(c.ratios) == [1.0] and c.unloaded()[1.0] == pytest.approx(88)
    assert "mlc, read ratio 1" in capsys.readouterr().out
    # named directly in a profile, it is refused with the import command
    with pytest.raises(ConfigError, match="Intel MLC --loaded_latency output; import it once"):
        profile.resolve(device_profile(tmp_path, src), FACTS)


def test_cli_curve_refuses_an_implausible_curve_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "x.csv"
    rc = cli.main(["curve", str(mess_folder(tmp_path / "f", 107, 60000, failed_pct=50)), "--out", str(out)])
    assert rc == 1 and not out.exists()
    assert "tierbench: error: implausible curve:" in capsys.readouterr().err


# -- published numbers on other hardware ------------------------------------------------------------

def test_scorecard_gives_no_verdict_on_other_hardware():
    ref = reference.load()
    rows = frame(steady({0: 1.0, 1: 1.3, 2: 1.7, 3: 2.1}))
    same = scorecard.build(rows, ref, comparable=["colloid-sosp24"])
    other = scorecard.build(rows, ref, comparable=[])
    m = (same["figure"] == "steady-state") & (same["system"] == "hemem") & (same["condition"] == "intensity 1x-3x")
    assert bool(same[m]["within"].iloc[0]) is True and same[m]["hardware"].iloc[0] == "same"
    o = other[m].iloc[0]
    assert pd.isna(o["within"]) and pd.isna(o["ratio"]) and o["hardware"] == "other"
    assert o["ours"] == pytest.approx(1.7) and "reference, other hardware" in o["note"]
    md = scorecard.to_markdown(other, "h", "model", "my-device", "default = ddr (75 ns); alternate = cxl (107 ns)")
    assert "0 of 0 published numbers computed" not in md and "## Reference, other hardware" in md
    assert "within tolerance.**" in md and "Tiers: default = ddr" in md
    scored = md.split("## Scored")[1].split("##")[0]
    assert "colloid_throughput_gain" not in scored


def test_scored_figures_draw_only_comparable_sources():
    ref = reference.load()
    assert reference.claims("tiering") and not reference.claims("characterize")
    assert set(reference.comparable(ref, ["colloid-sosp24"])["source"]) == {"colloid-sosp24"}
    assert reference.comparable(ref, []).empty


# -- points past the end of a curve ------------------------------------------------------------------

def test_tiersim_flags_demand_past_the_end_of_a_curve(tmp_path):
    tiersim = binary("tiersim")
    lo = tmp_path / "low.csv"  # an alternate tier with a low wall
    lo.write_text("read_ratio,bandwidth_mbps,latency_ns\n1,0,150\n1,1000,160\n1,2000,200\n")

    def beyond(alt: str, intensity: str) -> dict:
        out = tmp_path / f"s{intensity}.csv"
        subprocess.run([str(tiersim), "--system", "hemem", "--tier", f"default:{REPO}/hosts/curves/paper-default.csv",
                        "--tier", f"alternate:{alt}", "--intensity", intensity, "--duration", "4", "--average-last",
                        "2", "--summary", str(out), "--no-timing"], check=True, capture_output=True, timeout=120)
        rows = [dict(zip(["t_s", "metric", "value", "unit"], ln.split(","), strict=True))
                for ln in out.read_text().splitlines()[1:]]
        return {"flag": point.beyond_curve(rows), **{r["metric"]: float(r["value"]) for r in rows}}

    past = beyond(str(lo), "0")
    assert past["alternate_beyond_curve"] > 0 and "alternate" in past["flag"]
    within = beyond(f"{REPO}/hosts/curves/paper-alternate-135.csv", "0")
    assert within["alternate_beyond_curve"] == 0 and within["default_beyond_curve"] == 0 and within["flag"] == ""


def test_flagged_points_are_named_in_figures_and_tables():
    base = {"host": "h", "backend": "model", "family": "tiering", "experiment": "steady_state", "metric": "throughput",
            "value": 1.0}
    df = pd.DataFrame([{**base, "point": "a", "beyond_curve": "alternate"}, {**base, "point": "b", "beyond_curve": None},
                       {**base, "point": "c", "beyond_curve": ""}])
    note = style.beyond_curve_note(df)
    assert note.startswith("[1 of 3 points ran past the end of the alternate tier's curve")
    assert style.beyond_curve_note(df[df["point"] != "a"]) == ""
    text = "\n".join(tables.beyond_curve(df))
    assert "1 of 3 modelled points" in text and "| a |" in text.replace("  ", " ")
