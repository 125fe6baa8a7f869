"""What every checkout and host profile on one machine shares (settings.machine_dir): the machine's
measurement lock, taken after the host's, and the list of settings journals, from which a measured
point or ``cli repair`` puts back what a killed run of *another* host profile left changed."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from workflows.harness import cli, point, settings


def test_two_host_profiles_do_not_measure_at_once(tmp_path, capsys):
    """Two results directories (two host profiles, or two checkouts) have two host locks; the
    machine's lock still keeps their points apart: the second waits, and says why."""
    a, b = tmp_path / "results" / "a", tmp_path / "results" / "b"
    order = []

    def second():
        with point.host_lock(b):
            order.append("b")

    with point.host_lock(a):
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.5)
        assert point.lock_busy(b), "b's host lock is free, the machine's is not"
        order.append("a")
    t.join(10)
    assert order == ["a", "b"]
    assert "waiting for this machine's measurement lock" in capsys.readouterr().err
    assert not point.lock_busy(b) and (settings.machine_dir() / point.MACHINE_LOCK).exists()


def test_a_journal_is_listed_and_dropped_from_the_list_once_gone(tmp_path):
    knob = tmp_path / "knob"
    knob.write_text("1")
    journal = tmp_path / "results" / "other" / point.JOURNAL
    journal.parent.mkdir(parents=True)
    s = settings.Settings(journal)
    s._save(str(knob), "1")  # what set() journals before its write
    assert settings.other_journals(tmp_path / "mine.json") == [journal.resolve()]
    assert settings.other_journals(journal) == []
    knob.write_text("2")
    assert s.restore() == [] and knob.read_text() == "1" and not journal.exists()
    assert settings.other_journals(None) == []
    assert (settings.machine_dir() / settings.REGISTRY).read_text() == ""


def test_repair_puts_back_what_a_killed_run_of_another_profile_left(tmp_path, monkeypatch, capsys):
    """``cli repair`` for this host also puts back another host profile's journal on this machine
    (a run of it was killed); so does every measured point before it changes anything."""
    from workflows.harness import hostdetect  # noqa: PLC0415

    monkeypatch.setattr(cli, "RESULTS", tmp_path / "results")
    (tmp_path / "results" / hostdetect.safe_hostname()).mkdir(parents=True)
    knob = tmp_path / "knob"
    knob.write_text("2")
    other = tmp_path / "results" / "icelake-2s" / point.JOURNAL
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({str(knob): "1"}))
    settings.register_journal(other)
    if os.geteuid() != 0:
        assert cli.main(["repair", "--host", "auto"]) == 1
        assert "putting them back needs root" in capsys.readouterr().err
        pytest.skip("putting settings back needs root")
    assert cli.main(["repair", "--host", "auto"]) == 0
    out = capsys.readouterr().out
    assert f"{knob} ({other.resolve()})" in out
    assert knob.read_text() == "1" and not other.exists()
    assert point.repair_journals(tmp_path / "results" / "x" / point.JOURNAL) == {}
