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
