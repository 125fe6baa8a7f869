"""``python -m bench``: bad names and misplaced options are refused before any benchmark runs."""

from __future__ import annotations

import importlib

import pytest

bench_main = importlib.import_module("bench.__main__").main


@pytest.mark.parametrize("argv, says", [
    (["tiersim", "--reps", "3"], "'--reps' is not a benchmark; a benchmark's own options go after --"),
    (["tiersim", "nosuch"], "no benchmark 'nosuch'"),
    (["tiersim", "fidelity", "--", "--reps", "3"], "arguments after -- go to one benchmark"),
])
def test_bad_arguments_stop_before_any_benchmark_runs(argv, says, capsys, monkeypatch):
    ran = []
    monkeypatch.setattr(importlib, "import_module", lambda name: ran.append(name))
    assert bench_main(argv) == 2
    assert says in capsys.readouterr().err and ran == []
