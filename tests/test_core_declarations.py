"""What the core takes from the families' declarations instead of naming them: the fleet figures
(``FIGURES`` of ``families/<name>/fleet.py``) and the routing of each point's job by its
executor (``plan.keys_regex``)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from analysis import fleet, registry
from workflows.harness.plan import keys_regex


def test_fleet_figures_are_what_the_families_write(tmp_path):
    """The fleet rule's outputs are the families' declared figures, and they are exactly what their
    sections write (here on a fleet without rows: each says so in its figure)."""
    declared = registry.fleet_figures()
    wrote = [p.stem for sections in fleet.family_sections() for p in sections(pd.DataFrame(), tmp_path)[1]
             if p.suffix == ".png"]
    assert sorted(wrote) == sorted(declared) and all((tmp_path / f"{n}.png").exists() for n in declared)
    with pytest.raises(SystemExit, match="declare"):
        fleet._declared([tmp_path / "undeclared.png"])


def test_keys_regex_matches_exactly_its_keys():
    keys = ["f/e/p/rep0", "f/e/p/rep1", "f/e/a/b/rep0", "f/e/a/rep0", "f/x.y/p/rep0"]
    rx = re.compile(keys_regex(keys))
    assert all(rx.fullmatch(k) for k in keys)
    for other in ("f/e/p/rep2", "f/e/a", "f/e/a/b/rep1", "f/e/p/rep0/x", "f/xzy/p/rep0", "g/e/p/rep0"):
        assert not rx.fullmatch(other), other
    assert not re.fullmatch(keys_regex([]), ""), "no keys: matches nothing"


def test_jobs_are_routed_by_each_rows_executor(tmp_path):
    """A fleet whose experiments are measured on one host (the QEMU guest: executor guest) and
    modelled on the other (cxl-model: executor model): each point's job follows its own row, so the
    modelled points of an experiment that is also measured elsewhere still go to model_point (the
    jobs that may leave the machine), never to the local point rule."""
    from conftest import guest_facts_or_skip  # noqa: PLC0415
    from test_workflow import smk  # noqa: PLC0415

    guest_facts_or_skip("qemu-numa")
    short = tmp_path / "short.yaml"
    short.write_text("tiering:\n  average_last_s: 2\n")  # the guest config's runs are seconds long
    r = smk("-n", "--forceall", "--cores", "1", "--configfile", "workflows/config/qemu.yaml", str(short),
            "--config", "hosts=[qemu-numa,cxl-model]")
    assert r.returncode == 0, r.stderr[-2000:]
    jobs = re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    output: ([^,\n]+/result\.csv)", r.stdout, re.M)
    rules: dict[tuple[str, str], set] = {}  # (host, family) -> the rules of its points' jobs
    for rule, out in jobs:
        rules.setdefault(tuple(out.split("/")[1:3]), set()).add(rule)
    # the guest measures its tiering points; cxl-model models its own, and measures this machine's
    # characterization points here: each job by its row's executor
    assert rules[("qemu-numa", "tiering")] == {"point"} and rules[("cxl-model", "tiering")] == {"model_point"}, rules
    assert rules[("cxl-model", "characterize")] == {"point"}, rules
    measured = {tuple(o.split("/")[2:4]) for _, o in jobs if o.startswith("results/qemu-numa/")}
    modelled = {tuple(o.split("/")[2:4]) for _, o in jobs if o.startswith("results/cxl-model/")}
    assert ("tiering", "steady_state") in measured & modelled, "an experiment both measured and modelled"
