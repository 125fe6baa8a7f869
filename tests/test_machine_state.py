"""What every checkout and host profile on one machine shares: the machine's measurement lock
(settings.machine_dir), taken after the host's, and the list of settings journals root wrote
(settings.state_dir), from which a measured point or ``cli repair`` puts back what a killed run of
*another* host profile or checkout left changed; never a journal another user could have written."""

from __future__ import annotations

import errno
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


def test_a_lock_that_is_not_a_regular_file_is_refused(tmp_path):
    """(a FIFO put in its place would block the open forever)"""
    os.mkfifo(settings.machine_dir() / point.MACHINE_LOCK)
    with pytest.raises(OSError, match="is not a regular file: remove it"), point.host_lock(tmp_path / "r"):
        pass


def _journal(tmp_path, profile: str, knob, value: str = "1"):
    journal = tmp_path / "results" / profile / point.JOURNAL
    journal.parent.mkdir(parents=True)
    s = settings.Settings(journal)
    s._save(str(knob), value)  # what set() journals before its write
    return journal, s


def test_a_journal_is_listed_with_this_machine_and_dropped_once_gone(tmp_path):
    knob = tmp_path / "knob"
    knob.write_text("1")
    journal, s = _journal(tmp_path, "other", knob)
    listed = (settings.state_dir() / settings.REGISTRY).read_text()
    assert listed == f"{settings.machine_id()}\t{journal.resolve()}\n"
    assert settings.other_journals(tmp_path / "mine.json") == [journal.resolve()]
    assert settings.other_journals(journal) == []
    knob.write_text("2")
    assert s.restore() == [] and knob.read_text() == "1" and not journal.exists()
    assert (settings.state_dir() / settings.REGISTRY).read_text() == "", "put back and removed: dropped from the list"
    journal.write_text("{}")
    settings.register_journal(journal)
    journal.unlink()  # (gone some other way: the list drops it when read)
    assert settings.other_journals(None) == []
    assert (settings.state_dir() / settings.REGISTRY).read_text() == ""


def test_another_profiles_journal_is_put_back_unless_its_host_measures(tmp_path):
    knob = tmp_path / "knob"
    knob.write_text("1")
    other, _ = _journal(tmp_path, "icelake-2s", knob)
    knob.write_text("2")
    mine = tmp_path / "results" / "mine" / point.JOURNAL
    with point._flock(other.parent / point.LOCK, ""):  # its host's points run (another node, one filesystem)
        assert point.repair_journals(mine) == {} and other.exists() and knob.read_text() == "2"
    assert point.repair_journals(mine) == {f"{knob} ({other.resolve()})": "1"}
    assert knob.read_text() == "1" and not other.exists()


def test_journals_another_user_could_have_written_are_never_put_back(tmp_path, capsys):
    """An entry makes root write what the journal says: a list or a journal that is a symbolic link,
    or writable by others, or another machine's entry (a shared filesystem), is left alone."""
    knob = tmp_path / "knob"
    knob.write_text("2")
    other, _ = _journal(tmp_path, "other", knob)
    other.chmod(0o666)
    assert settings.other_journals(None) == [] and f"not putting back {other.resolve()}: writable by its group " \
                                                   "or others" in capsys.readouterr().err
    other.chmod(0o644)
    listed = settings.state_dir() / settings.REGISTRY
    listed.chmod(0o666)
    assert settings.other_journals(None) == [] and "is not used: writable by its group or others" in capsys.readouterr().err
    listed.write_text(f"another-machine\t{other.resolve()}\n")
    listed.chmod(0o644)
    assert settings.other_journals(None) == []
    assert knob.read_text() == "2"


def test_a_controller_a_cgroup_below_still_uses_stays_on_and_is_said(tmp_path, monkeypatch, capsys):
    """Taking "+memory" back from the root's subtree_control fails with EBUSY while a cgroup below
    enables it for its own children: that is no restore error (the machine's every later point
    would refuse); it stays on, said."""
    ctl = tmp_path / "cgroup.subtree_control"
    ctl.write_text("cpu memory\n")

    def busy(path, value):
        raise OSError(errno.EBUSY, "Device or resource busy")

    monkeypatch.setattr(settings, "write_file", busy)
    s = settings.Settings(tmp_path / "journal.json")
    s._save(settings.SUBTREE + str(ctl), "-memory")
    assert s.restore() == [] and not (tmp_path / "journal.json").exists()
    assert "the memory controller stays enabled" in capsys.readouterr().err


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
        return
    assert cli.main(["repair", "--host", "auto"]) == 0
    out = capsys.readouterr().out
    assert f"{knob} ({other.resolve()})" in out
    assert knob.read_text() == "1" and not other.exists()
