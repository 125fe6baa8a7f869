"""The real-hardware unloaded-latency sweep: Intel's uncore frequency limits (stand-in sysfs
trees, since this machine has no intel_uncore_frequency driver) and the characterize family's
uncore_latency points."""

from __future__ import annotations

from pathlib import Path

from test_profiles import two_socket_facts

import families.characterize as characterize
from workflows.harness import plan, profile, uncore
from workflows.harness.plan import FamilyPlan


def tree(root: Path) -> Path:
    """Two packages of one die each (as on a 2-socket Ice Lake / Sapphire Rapids), limits in kHz,
    and a TPMI per-domain directory that the sweep leaves alone."""
    for pkg, (lo, hi) in enumerate([(800000, 2400000), (800000, 2400000)]):
        d = root / uncore.DIR / f"package_{pkg:02d}_die_00"
        d.mkdir(parents=True)
        for f, v in (("initial_min_freq_khz", lo), ("initial_max_freq_khz", hi), ("min_freq_khz", lo),
                     ("max_freq_khz", hi), ("current_freq_khz", 1800000)):
            (d / f).write_text(f"{v}\n")
    (root / uncore.DIR / "uncore00").mkdir()
    return root


def test_domains_ladder_and_pin_order(tmp_path):
    doms = uncore.domains(tree(tmp_path))
    assert [(d["package"], d["die"]) for d in doms] == [(0, 0), (1, 0)], "package directories only"
    assert doms[0]["initial_max_freq_khz"] == 2400000
    lad = uncore.ladder(doms[0], 4)
    assert lad == [2400000, 1900000, 1300000, 800000], "100 MHz steps (the driver's ratio), highest first"
    assert all(f % uncore.STEP_KHZ == 0 for f in lad)
    assert uncore.ladder(doms[0], 40)[:3] == [2400000, 2300000, 2200000] and len(uncore.ladder(doms[0], 40)) == 17
    d0 = doms[0]
    # lowering from max 2.4 GHz: min first, then max (min <= max at every write)
    assert list(uncore.pin([d0], 1300000)) == [f"{d0['path']}/min_freq_khz", f"{d0['path']}/max_freq_khz"]
    # above the present max (a host whose limit was lowered): max first
    low = {**d0, "max_freq_khz": 1000000}
    assert list(uncore.pin([low], 2400000)) == [f"{d0['path']}/max_freq_khz", f"{d0['path']}/min_freq_khz"]
    assert set(uncore.pin(doms, 800000).values()) == {"800000"} and len(uncore.pin(doms, 800000)) == 4
    assert uncore.domains(tmp_path / "none") == []


def facts_with(doms: list[dict], root: bool = True) -> dict:
    f = two_socket_facts(nodes=2)
    f["nodes"]["0"]["sockets"], f["nodes"]["1"]["sockets"] = [0], [1]
    f["uncore_frequency"] = doms
    f["privileges"] = {"root": root}
    return f


def test_uncore_latency_points(tmp_path):
    doms = uncore.domains(tree(tmp_path))
    facts = facts_with(doms)
    h = plan.Host(profile.resolve("icelake-2s", facts), facts)
    cfg = profile.validate_config({"scale": "t", "characterize": {"uncore": {"steps": 3}}})
    fp = FamilyPlan()
    rows = characterize.plan_uncore(cfg, h, fp)
    ids = {r["point"] for r in rows}
    assert {"c0-m1/u2400", "c0-m1/u1600", "c0-m1/u800", "c1-m0/u800"} <= ids, ids
    r = next(r for r in rows if r["point"] == "c0-m1/u800")
    sc = r["run"]["scenario"]
    pkg1 = doms[1]["path"]
    assert list(sc["settings"]) == [f"{pkg1}/min_freq_khz", f"{pkg1}/max_freq_khz"], "node 1's socket, min first"
    assert r["context"]["uncore_khz"] == 800000 and r["context"]["uncore_sockets"] == "1"
    (w,) = [x for x in sc["roles"] if x["kind"] == "workload"]
    assert w["opts"] == {"metric": "uncore_idle_latency"} and "latency" in w["argv"]
    assert not fp.absent


def test_uncore_latency_left_out_with_the_reason():
    fp = FamilyPlan()
    facts = facts_with([])
    h = plan.Host(profile.resolve("icelake-2s", facts), facts)
    assert characterize.plan_uncore(profile.validate_config({"scale": "t"}), h, fp) == []
    assert "intel_uncore_frequency" in fp.absent["characterize:uncore_latency"]
    assert "needs root" in uncore.unavailable(facts_with([{"package": 0}], root=False))


def test_summary_table_of_the_sweep():
    import pandas as pd

    from families.characterize.summary import sections

    df = pd.DataFrame([{"family": "characterize", "metric": "uncore_idle_latency", "cpu_node": 0, "target": "node:1",
                        "value": v, "uncore_khz": k, "tool": "memchar"} for v, k in [(130, 2400000), (150, 800000)]])
    text = "\n".join(sections(df))
    assert "| 0 -> node:1 | 150 | 130 |" in text and "800 MHz" in text
