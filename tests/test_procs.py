"""Process supervision and settings restore (no benchmark binaries needed)."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from workflows.harness import ConfigError, procs
from workflows.harness.procs import Interrupted, Supervisor
from workflows.harness.settings import Settings, restore_journal


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie counts as gone
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_children_get_own_process_group_and_are_stopped(tmp_path):
    pidfile = tmp_path / "grandchild"
    script = f"sleep 60 & echo $! > {pidfile}; wait"
    with Supervisor(grace_s=1) as sup:
        c = sup.spawn("sh", ["sh", "-c", script])
        for _ in range(100):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            time.sleep(0.02)
        gpid = int(pidfile.read_text())
        assert os.getpgid(c.pid) == c.pid != os.getpgid(0)
        assert os.getpgid(gpid) == c.pid
        # our session, so our scheduler autogroup: the SCHED_IDLE jobs beside it take only idle time
        assert os.getsid(c.pid) == os.getsid(0)
    assert wait_gone(c.pid) and wait_gone(gpid), "child and grandchild ended by process group"


def test_term_ignoring_child_is_killed(tmp_path):
    with Supervisor(grace_s=0.3) as sup:
        c = sup.spawn("stubborn", [sys.executable, "-c", "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])
        time.sleep(0.3)
    assert wait_gone(c.pid)


def test_a_child_with_its_own_grace_finishes_its_cleanup(tmp_path):
    """A child that takes a while to clean up after SIGTERM (a server stopped, its files removed)
    gets its own grace; without one, the Supervisor's short grace ends it with SIGKILL first."""
    prog = ("import signal, sys, time, pathlib\n"
            "def bye(*_):\n"
            "    time.sleep(1.0)\n"
            "    pathlib.Path(sys.argv[1]).write_text('done')\n"
            "    sys.exit(0)\n"
            "signal.signal(signal.SIGTERM, bye)\n"
            "pathlib.Path(sys.argv[1] + '.up').write_text('')\n"
            "time.sleep(60)\n")
    marks = {}
    for name, grace in (("own", 30.0), ("default", None)):
        marks[name] = tmp_path / name
        with Supervisor(grace_s=0.2) as sup:
            c = sup.spawn(name, [sys.executable, "-c", prog, str(marks[name])], grace_s=grace)
            for _ in range(500):
                if Path(f"{marks[name]}.up").exists():
                    break
                time.sleep(0.01)
            sup.stop(c)
        assert wait_gone(c.pid)
    assert marks["own"].read_text() == "done", "its own grace let it finish"
    assert not marks["default"].exists(), "the Supervisor's 0.2 s grace ended it first"


def test_timeout_stops_child():
    with Supervisor(grace_s=0.5) as sup:
        with pytest.raises(TimeoutError, match="ran past its"):
            sup.run("sleeper", ["sleep", "30"], timeout=0.3)
        assert not sup.children[0].alive()


def test_sigint_to_harness_stops_children(tmp_path):
    """A harness process interrupted with SIGINT leaves nothing behind."""
    pidfile = tmp_path / "child"
    prog = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(tmp_path.parents[0])!r})
        sys.path.insert(0, {os.getcwd()!r})
        from workflows.harness.procs import Supervisor, Interrupted
        try:
            with Supervisor() as sup:
                c = sup.spawn("sleep", ["sleep", "60"])
                open({str(pidfile)!r}, "w").write(str(c.pid))
                sup.sleep(60)  # as a scenario's phase (scenario.op_sleep)
        except Interrupted:
            sys.exit(130)
    """)
    p = subprocess.Popen([sys.executable, "-c", prog], cwd=os.getcwd())
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.02)
    child = int(pidfile.read_text())
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=10) == 130
    assert wait_gone(child)


class ClosesWithASignal(io.RawIOBase):
    """A file object that receives a stop signal while it is closed."""

    def close(self):
        os.kill(os.getpid(), signal.SIGINT)  # its handler runs at the next bytecode, here
        super().close()


def test_a_stop_signal_lost_in_a_finaliser_still_stops_the_block():
    """CPython's io finaliser clears whatever close() raised: the Interrupted of a SIGINT that lands
    while a dropped file object is closed is lost (the first assertion shows it). The supervisor still
    knows: the next wait for a child raises it (the child's 30 s are not waited for), a later signal
    would raise again, and the child is stopped."""
    t0 = time.monotonic()
    with pytest.raises(Interrupted), Supervisor(grace_s=1) as sup:
        c = sup.spawn("sleep", ["sleep", "30"])
        f = ClosesWithASignal()
        del f  # closed by the finaliser: the handler's Interrupted goes nowhere
        assert sup.interrupted == signal.SIGINT, "the flow went on after the signal"
        sup.wait(c)
    assert time.monotonic() - t0 < 10 and wait_gone(c.pid)


def test_a_block_that_goes_on_after_a_stop_signal_ends_interrupted():
    """Code that catches the Interrupted and goes on (or loses it) does not end the block as if it
    had completed: leaving it raises Interrupted, after its children are stopped; and another stop
    signal that comes while an exception unwinds (the first one's cleanup) is only noted."""
    with pytest.raises(Interrupted) as e, Supervisor(grace_s=1) as sup:
        c = sup.spawn("sleep", ["sleep", "30"])
        with contextlib.suppress(Interrupted):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        try:
            raise RuntimeError("a cleanup runs")
        except RuntimeError:
            os.kill(os.getpid(), signal.SIGINT)  # noted, not raised: the cleanup goes on
            time.sleep(0.05)
    assert e.value.signum == signal.SIGTERM and wait_gone(c.pid)


def test_sleep_is_sliced_and_checks_for_a_stop_signal(monkeypatch):
    """Supervisor.sleep (a scenario's phases, up to 100 s): short sleeps, so that a signal that lands
    just before one's system call waits for that one only; each checks for a lost stop signal."""
    class Clock:  # the module's time, advanced by each sleep
        now, calls = 100.0, []

        @classmethod
        def monotonic(cls):
            return cls.now

        @classmethod
        def sleep(cls, s):
            cls.calls.append(s)
            cls.now += s

    monkeypatch.setattr(procs, "time", Clock)
    sup = Supervisor()
    sup.sleep(0.35)
    assert Clock.calls == pytest.approx([0.1, 0.1, 0.1, 0.05]) and procs.SLEEP_SLICE_S == 0.1
    sup.interrupted = signal.SIGTERM  # as after a lost Interrupted
    with pytest.raises(Interrupted):
        sup.sleep(5)
    assert Clock.now == pytest.approx(100.35), "no slice slept after the signal"


@pytest.mark.parametrize("moment", ["after_fork_before_register", "before_exec"])
def test_sigint_at_spawn_leaves_no_child(tmp_path, moment):
    """The Ctrl-C race (issue 24): a SIGINT that reaches the harness while it starts a child, (a)
    after the fork but before the child is registered, or (b) while the child is still between fork
    and exec (PR_SET_PDEATHSIG not yet set), is hit on purpose here. The supervisor must still stop
    that child itself before its block ends, not leave it to run on (an orphan in its own session,
    which Ctrl-C no longer reaches)."""
    pidfile, verdict = tmp_path / "child", tmp_path / "verdict"
    prog = textwrap.dedent(f"""
        import os, signal, subprocess, sys, time
        sys.path.insert(0, {os.getcwd()!r})
        from workflows.harness import procs
        from workflows.harness.procs import Supervisor, Interrupted
        moment = {moment!r}
        if moment == "after_fork_before_register":
            class Popen(subprocess.Popen):
                def __init__(self, *a, **kw):
                    super().__init__(*a, **kw)
                    open({str(pidfile)!r}, "w").write(str(self.pid))
                    os.kill(os.getpid(), signal.SIGINT)  # lands before spawn() records the child
            procs.subprocess.Popen = Popen
        else:
            real_setup = procs._child_setup
            def setup(*a):  # in the child, before exec
                open({str(pidfile)!r}, "w").write(str(os.getpid()))
                os.kill(os.getppid(), signal.SIGINT)
                time.sleep(0.5)  # the parent, interrupted, would be gone by now
                real_setup(*a)
            procs._child_setup = setup
        try:
            with Supervisor(grace_s=2) as sup:
                sup.spawn("sleep", ["sleep", "60"])
                time.sleep(5)
        except Interrupted:
            pid = int(open({str(pidfile)!r}).read())
            try:
                st = open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[0]
            except OSError:
                st = "gone"
            open({str(verdict)!r}, "w").write("gone" if st in ("gone", "Z") else "alive")
            sys.exit(130)
        sys.exit(3)
    """)
    with open(tmp_path / "err", "w") as err:  # a file, not a pipe: a left child would hold a pipe open
        p = subprocess.run([sys.executable, "-c", prog], cwd=os.getcwd(), timeout=30, stdout=subprocess.DEVNULL,
                           stderr=err)
    child = int(pidfile.read_text())
    try:
        assert p.returncode == 130, (tmp_path / "err").read_text()[-2000:]
        assert verdict.read_text() == "gone", "the supervisor left the child it was starting running"
        assert wait_gone(child, 2.0), "the child outlived the harness"
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


def test_child_runs_on_the_cpus_it_is_given():
    """``cpus``: the child's affinity (a monitor pinned off the application's cores)."""
    cpu = sorted(os.sched_getaffinity(0))[-1]
    with Supervisor(grace_s=1) as sup:
        c = sup.spawn("sleep", ["sleep", "30"], cpus=[cpu])
        for _ in range(100):  # after exec
            if os.sched_getaffinity(c.pid) == {cpu} and open(f"/proc/{c.pid}/comm").read().strip() == "sleep":
                break
            time.sleep(0.02)
        assert os.sched_getaffinity(c.pid) == {cpu}
        free = sup.spawn("sleep", ["sleep", "30"])
        time.sleep(0.1)
        assert os.sched_getaffinity(free.pid) == os.sched_getaffinity(0)


def test_parent_death_kills_child(tmp_path):
    """If the harness is SIGKILLed (no cleanup possible) PDEATHSIG ends its children."""
    pidfile = tmp_path / "child"
    prog = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {os.getcwd()!r})
        from workflows.harness.procs import Supervisor
        sup = Supervisor()
        c = sup.spawn("sleep", ["sleep", "60"])
        open({str(pidfile)!r}, "w").write(str(c.pid))
        time.sleep(60)
    """)
    p = subprocess.Popen([sys.executable, "-c", prog], cwd=os.getcwd())
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.02)
    child = int(pidfile.read_text())
    p.kill()
    p.wait()
    assert wait_gone(child)


def test_settings_restored_and_journaled(tmp_path):
    knob = tmp_path / "numa_balancing"
    knob.write_text("0\n")
    journal = tmp_path / "journal.json"
    with Settings(journal) as s:
        s.set(str(knob), "2")
        assert knob.read_text() == "2"
        assert json.loads(journal.read_text()) == {str(knob): "0"}
    assert knob.read_text() == "0"
    assert not journal.exists()


@pytest.mark.parametrize(("before", "want"), [("0", ["2"]), ("1", ["2"]), ("2", ["0", "2"]), ("3", ["1", "3"])])
def test_tiering_mode_always_entered_afresh(tmp_path, monkeypatch, before, want):
    """numa_balancing's memory-tiering bit is cleared before it is set again, so the kernel's
    reset_memory_tiering() (kernel/sched/core.c) restarts the promotion threshold for each point;
    the original value is still what is restored."""
    from workflows.harness import settings as settings_mod

    knob = tmp_path / "numa_balancing"
    knob.write_text(before + "\n")
    monkeypatch.setitem(settings_mod.RESET_ON_SET_BIT, str(knob), 2)
    writes = []
    real = settings_mod._write

    def logged(path, value):
        writes.append(value)
        real(path, value)

    monkeypatch.setattr(settings_mod, "_write", logged)
    with Settings(tmp_path / "journal.json") as s:
        s.set(str(knob), want[-1])
        assert writes == want
    assert knob.read_text() == before


def test_settings_restored_on_error(tmp_path):
    knob = tmp_path / "enabled"
    knob.write_text("always [madvise] never\n")
    with pytest.raises(RuntimeError):
        with Settings() as s:
            s.set(str(knob), "always")
            raise RuntimeError("boom")
    assert knob.read_text() == "madvise"


@pytest.mark.parametrize("body_raises", [False, True])
def test_a_stop_signal_while_restoring_waits_for_the_restore(tmp_path, monkeypatch, capsys, body_raises):
    """A second Ctrl-C (or a scheduler's SIGTERM) while settings are put back does not cut the
    restore short (a swap area left on, a journal half put back): it is raised once they are back,
    unless the block is already on its way out with an exception of its own, which then goes on."""
    from workflows.harness import settings as settings_mod

    knobs = [tmp_path / f"k{i}" for i in range(3)]
    for k in knobs:
        k.write_text("0\n")
    journal = tmp_path / "journal.json"
    real = settings_mod._write

    def slow(path, value):  # the signal comes at the first write of the restore
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        real(path, value)

    want = KeyboardInterrupt if body_raises else Interrupted
    # Python's own SIGINT handler, whatever this session inherited (a background job's is SIG_IGN):
    # without the deferral, the signal would raise KeyboardInterrupt in the middle of the restore
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(want):
            with Settings(journal) as s:
                for k in knobs:
                    s.set(str(k), "1")
                monkeypatch.setattr(settings_mod, "_write", slow)
                if body_raises:
                    raise KeyboardInterrupt
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the handler is put back"
    finally:
        signal.signal(signal.SIGINT, before)
    assert [k.read_text().strip() for k in knobs] == ["0", "0", "0"] and not journal.exists()
    assert "SIGINT came while settings were being restored: restored first" in capsys.readouterr().err


def test_an_interrupted_point_says_whether_settings_were_restored(tmp_path):
    from workflows.harness import point

    assert point._settings_state(tmp_path) == "settings restored"
    (tmp_path / point.JOURNAL).write_text("{}")
    assert point._settings_state(tmp_path).startswith("some settings are NOT restored: they are kept in")


def test_a_mount_left_by_a_killed_role_is_unmounted_from_the_journal(tmp_path):
    """A role that mounts (kv-tmpfs) and is killed before it unmounts: the journal's mount guard
    unmounts it and removes its directory, in the point's own restore or the next point's repair."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    d = tmp_path / "kv-tmpfs"
    journal = tmp_path / "journal.json"
    s = Settings(journal)
    assert s.mount_guard(str(d)) == str(d)
    d.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tierbench-test", str(d)], check=True)
    try:
        assert os.path.ismount(d)
        assert json.loads(journal.read_text()) == {f"mount:{d}": "absent"}
        # ... the run dies here; the next measured point repairs from the journal
        assert restore_journal(journal) == {f"mount:{d}": "absent"}
        assert not os.path.ismount(d) and not d.exists() and not journal.exists()
    finally:
        if os.path.ismount(d):
            subprocess.run(["umount", "-l", str(d)], check=False)
    # a role that unmounted by itself leaves the restore nothing to do
    with Settings(journal) as s:
        s.mount_guard(str(d))
    assert not journal.exists()


# A point's harness that journals the directories its role makes (a PostgreSQL cluster's data and
# socket directories), makes them and starts their server, then is killed with SIGKILL (no handler,
# no restore). The server runs in its own session and outlives it, as a postmaster does (setpriv
# drops its death signal with its user), working in its data directory with a child (a backend)
# working there too; both ignore SIGTERM, so only SIGKILL (by pid) ends them.
KILLED_HARNESS = """
import os, subprocess, sys, time
from pathlib import Path
from workflows.harness.settings import Settings
journal, sock, data = sys.argv[1:4]
s = Settings(Path(journal))
s.dir_guard(sock)
s.dir_guard(data, server_pid_file="server.pid", server_signal="TERM")
Path(sock).mkdir()
Path(data, "base", "1").mkdir(parents=True)
Path(data, "base", "1", "16384").write_text("rows")
subprocess.Popen([sys.executable, "-c", sys.argv[4]], cwd=data, start_new_session=True)
while not Path(data, "server.pid").exists():
    time.sleep(0.02)
print("ready", flush=True)
time.sleep(600)
"""
DEAF_SERVER = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
b = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                      "time.sleep(600)"])
open("backend.pid.tmp", "w").write(str(b.pid))
os.rename("backend.pid.tmp", "backend.pid")
open("server.pid.tmp", "w").write(f"{os.getpid()}\\n{os.getcwd()}\\n")
os.rename("server.pid.tmp", "server.pid")
time.sleep(600)
"""


def test_a_server_and_directories_a_killed_harness_left_are_removed_from_the_journal(tmp_path, monkeypatch):
    """The harness is killed (SIGKILL) after its role made its directories and started its server:
    the journal names them, and its repair (the next measured point's restore_journal) ends the
    server and its child by pid (SIGTERM, ignored here, then SIGKILL) and removes the directories
    and the scratch directory made above one; a directory beside them that the run did not make
    stays."""
    from workflows.harness import settings as settings_mod  # noqa: PLC0415

    monkeypatch.setattr(settings_mod, "SERVER_GRACE_S", 0.5)
    tmp = tmp_path.resolve()
    keep = tmp / "keep"
    keep.mkdir()
    (keep / "f").write_text("not ours")
    journal, sock, data = tmp / "journal.json", tmp / "sock", tmp / "scratch" / "data"
    h = subprocess.Popen([sys.executable, "-c", KILLED_HARNESS, str(journal), str(sock), str(data), DEAF_SERVER],
                         cwd=Path(__file__).resolve().parents[1], stdout=subprocess.PIPE, text=True)
    server = backend = None
    try:
        assert h.stdout.readline().strip() == "ready"
        server = int((data / "server.pid").read_text().split()[0])
        backend = int((data / "backend.pid").read_text())
        os.kill(h.pid, signal.SIGKILL)
        h.wait(10)
        left = {f"dir:{tmp / 'scratch'}": "absent", f"tree:{sock}": "absent", f"tree:{data}": "absent",
                f"server:TERM:{data / 'server.pid'}": "absent"}
        assert json.loads(journal.read_text()) == left
        assert alive(server) and alive(backend), "the server outlived the harness"
        assert restore_journal(journal) == left
        assert wait_gone(server) and wait_gone(backend)
        assert not sock.exists() and not data.exists() and not (tmp / "scratch").exists() and not journal.exists()
        assert (keep / "f").read_text() == "not ours"
    finally:
        if h.poll() is None:
            h.kill()
            h.wait()
        for pid in (server, backend):
            if pid and alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_journaled_directory_is_removed_only_where_it_is_the_one_the_run_made(tmp_path):
    """A directory there before the point is not journaled (the point is refused); one whose path
    is a symbolic link by the time of the repair, or has a filesystem mounted inside it, is not
    removed (the journal keeps it); a pid file naming a process that works elsewhere (its pid
    reused) ends nothing; paths that are not absolute and normalised, or are top-level, are refused."""
    from workflows.harness import settings as settings_mod  # noqa: PLC0415

    tmp = tmp_path.resolve()
    there = tmp / "there"
    there.mkdir()
    (there / "f").write_text("keep")
    journal = tmp / "journal.json"
    s = Settings(journal)
    with pytest.raises(ConfigError, match="is there before the point made it"):
        s.dir_guard(str(there))
    with pytest.raises(ConfigError, match="a top-level directory"):
        s.dir_guard("/tmp")
    assert not journal.exists() and (there / "f").read_text() == "keep"
    for bad in ("relative/dir", f"{tmp}/a/../b", f"{tmp}/a/", "/", "/tmp"):
        assert settings_mod.tree_refused(bad), bad
    made = tmp / "made"
    assert s.dir_guard(str(made)) == str(made)
    made.symlink_to(there)  # ... the run dies; its path now names what it did not make
    with pytest.raises(ConfigError, match=f"tree:{made}: not removed: a symbolic link"):
        restore_journal(journal)
    assert (there / "f").read_text() == "keep" and journal.exists()
    made.unlink()
    assert restore_journal(journal) == {f"tree:{made}": "absent"} and not journal.exists()
    # a pid file whose pid is a process working elsewhere now: left alone, the directory removed
    other = subprocess.Popen(["sleep", "60"], cwd=there)
    try:
        data = Path(Settings(journal).dir_guard(str(tmp / "data"), server_pid_file="postmaster.pid", server_signal="KILL"))
        data.mkdir()
        (data / "postmaster.pid").write_text(f"{other.pid}\n{data}\n")
        assert restore_journal(journal) == {f"tree:{data}": "absent", f"server:KILL:{data / 'postmaster.pid'}": "absent"}
        assert other.poll() is None and not data.exists()
    finally:
        other.kill()
        other.wait()
    if os.geteuid() != 0:
        return
    mnt = Path(Settings(journal).dir_guard(str(tmp / "m")))
    (mnt / "sub").mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tierbench-test", str(mnt / "sub")], check=True)
    try:
        (mnt / "sub" / "f").write_text("on another filesystem")
        with pytest.raises(ConfigError, match=f"a filesystem is mounted on {mnt / 'sub'}"):
            restore_journal(journal)
        assert (mnt / "sub" / "f").exists() and journal.exists()
    finally:
        subprocess.run(["umount", "-l", str(mnt / "sub")], check=False)
    assert restore_journal(journal) == {f"tree:{mnt}": "absent"} and not mnt.exists()


@pytest.mark.parametrize("how", [
    "from workflows.harness.procs import dies_with_us as f; pre = f(); session = False",
    # the QEMU guest's launcher: QEMU in a session of its own (hosts/qemu/guest.py stands alone)
    "import importlib.util as u; spec = u.spec_from_file_location('g', 'hosts/qemu/guest.py'); "
    "g = sys.modules['g'] = u.module_from_spec(spec); spec.loader.exec_module(g); "
    "pre = g._dies_with_launcher(os.getpid()); "
    "session = True",
])
def test_a_wrappers_own_child_dies_with_it_when_it_is_killed(tmp_path, how):
    """procs.dies_with_us: a program the harness runs (the TPC-C driver) starts its own child
    (pgbench) with it; SIGKILL to the program, which no handler sees, ends the child too. The
    guest's launcher does the same for QEMU."""
    pidf = tmp_path / "child.pid"
    code = textwrap.dedent(f"""
        import os, subprocess, sys, time
        {how}
        c = subprocess.Popen(["sleep", "60"], preexec_fn=pre, start_new_session=session)
        open({str(pidf)!r}, "w").write(str(c.pid))
        time.sleep(60)
    """)
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1])
    try:
        deadline = time.monotonic() + 20
        while not (pidf.exists() and pidf.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pidf.read_text())
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        assert wait_gone(child), "the child outlived its parent's SIGKILL"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_journal_repairs_after_crash(tmp_path):
    knob = tmp_path / "demotion"
    knob.write_text("true")
    journal = tmp_path / "journal.json"
    s = Settings(journal)
    s.set(str(knob), "false")  # ... and the run dies here without restore()
    assert restore_journal(journal) == {str(knob): "true"}
    assert knob.read_text() == "true" and not journal.exists()


def test_settings_missing_knob_is_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist on this kernel"):
        Settings().set(str(tmp_path / "nope"), "1")


def test_child_error_reaches_the_job_log_without_a_log_file(capfd):
    """A tool's own message (its stderr) is what a failed job's log shows, not only 'exited with status N'."""
    with Supervisor() as sup:
        rc = sup.run("tool", [sys.executable, "-c", "import sys; sys.stderr.write('tool: error: no such NUMA node\\n'); sys.exit(2)"])
    assert rc == 2
    assert "tool: error: no such NUMA node" in capfd.readouterr().err


def test_child_stderr_goes_to_the_named_file(tmp_path, capfd):
    log = tmp_path / "child.log"
    with Supervisor() as sup:
        sup.run("tool", [sys.executable, "-c", "import sys; sys.stderr.write('only in the file\\n')"], stderr=log)
    assert "only in the file" in log.read_text()
    assert "only in the file" not in capfd.readouterr().err


def test_a_partly_failed_restore_keeps_only_what_failed(tmp_path, capfd):
    """What was put back leaves the journal (an undo that ran is not run again by the next repair);
    what failed stays, and is said."""
    knob, ran = tmp_path / "knob", tmp_path / "ran"
    knob.write_text("1")
    journal = tmp_path / "journal.json"
    with Settings(journal) as s:
        s.command("true", f"echo undo >> {ran}", 30)
        s.set(str(knob), "2")
        s.saved["undo:30:exit 3"] = "done"  # a second undo, which fails
    assert s.restore_errors == ["undo:30:exit 3: 'exit 3' exited with status 3"]
    assert knob.read_text() == "1" and ran.read_text() == "undo\n"
    assert json.loads(journal.read_text()) == {"undo:30:exit 3": "done"}
    with pytest.raises(ConfigError, match="'exit 3' exited with status 3"):
        restore_journal(journal)
    assert ran.read_text() == "undo\n", "the undo that succeeded did not run again"
    capfd.readouterr()


def test_a_kernel_file_gone_since_is_nothing_to_put_back(tmp_path, monkeypatch, capfd):
    """e.g. a DAMON kdamond's state file after a reboot: the repair goes on, and says so."""
    from workflows.harness import settings as st  # noqa: PLC0415

    gone = "/sys/kernel/mm/damon/admin/kdamonds/7/state"
    journal = tmp_path / "journal.json"
    journal.write_text(json.dumps({gone: "off"}))
    assert st._gone(gone) and not st._gone(str(tmp_path / "x"))  # (only sysfs and procfs values)
    assert restore_journal(journal) == {gone: "off"} and not journal.exists()
    assert f"tierbench: {gone} is gone" in capfd.readouterr().err


def test_a_swapfile_still_active_is_not_unlinked(tmp_path, monkeypatch):
    """Its swapoff failed: unlinked, it would stay an active area, "(deleted)", until the reboot."""
    from workflows.harness import settings as st  # noqa: PLC0415

    swapfile = tmp_path / "tierbench.swap"
    swapfile.write_bytes(b"\0" * 16)
    monkeypatch.setattr(st, "active_swaps", lambda proc_swaps="/proc/swaps": [str(swapfile)])
    s = Settings()
    s.saved = {f"swapfile:{swapfile}": "absent"}
    assert s.restore() == [f"swapfile:{swapfile}: {swapfile} is still an active swap area: not removed"]
    assert swapfile.exists() and s.saved == {f"swapfile:{swapfile}": "absent"}


def test_a_tree_whose_server_could_not_be_ended_stays(tmp_path, monkeypatch):
    from workflows.harness import settings as st  # noqa: PLC0415

    tree = tmp_path / "pgdata"
    tree.mkdir()
    monkeypatch.setattr(st, "server_pid", lambda pid_file: 4242)

    def cannot(sig_name, pid_file):
        raise OSError(errno.EPERM, "operation not permitted")

    monkeypatch.setattr(st, "_stop_server", cannot)
    s = Settings()
    s.saved = {f"tree:{tree}": "absent", f"server:SIGQUIT:{tree}/postmaster.pid": "absent"}
    errors = s.restore()
    assert errors == [f"server:SIGQUIT:{tree}/postmaster.pid: operation not permitted",
                      f"tree:{tree}: its server could not be ended: kept"]
    assert tree.is_dir() and len(s.saved) == 2


def test_swap_areas_come_back_in_their_order_with_their_priorities(tmp_path, monkeypatch):
    from workflows.harness import settings as st  # noqa: PLC0415

    swaps = tmp_path / "swaps"
    swaps.write_text("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                     "/dev/zram0                              partition\t4194300\t\t0\t\t100\n"
                     "/swap\\040file                             file\t\t1048572\t\t0\t\t-2\n"
                     "/dev/sdb2                               partition\t1048572\t\t0\t\t-3\n")
    active, prio = st.active_swaps, st.swap_priorities
    monkeypatch.setattr(st, "active_swaps", lambda proc_swaps=None: active(str(swaps)))
    monkeypatch.setattr(st, "swap_priorities", lambda proc_swaps=None: prio(str(swaps)))
    calls = []
    monkeypatch.setattr(st, "_swap", lambda cmd, area, priority=None: calls.append((cmd, area, priority)))
    s = Settings()
    assert s.swap_off() == ["/dev/zram0", "/swap file", "/dev/sdb2"]
    assert calls == [("swapoff", a, None) for a in ("/dev/zram0", "/swap file", "/dev/sdb2")]
    calls.clear()
    monkeypatch.setattr(st, "read_value", lambda path: "off")
    assert s.restore() == []
    # in their first order (the kernel gives areas without a priority of the user's the next lower
    # one), each with its priority: 100 is given again with swapon -p, a negative one is the kernel's
    assert calls == [("swapon", "/dev/zram0", 100), ("swapon", "/swap file", -2), ("swapon", "/dev/sdb2", -3)]


@pytest.mark.parametrize("priority, argv", [(100, ["swapon", "-p", "100", "/a"]), (-2, ["swapon", "/a"]),
                                            (None, ["swapon", "/a"])])
def test_swapon_gives_a_users_priority_back_only(monkeypatch, priority, argv):
    from workflows.harness import settings as st  # noqa: PLC0415

    seen = []
    monkeypatch.setattr(st.subprocess, "run", lambda a, **kw: seen.append(a) or subprocess.CompletedProcess(a, 0, "", ""))
    st._swap("swapon", "/a", priority)
    assert seen == [argv]


def test_every_directory_level_a_swapfile_needed_is_journaled(tmp_path, monkeypatch):
    from workflows.harness import memcg  # noqa: PLC0415
    from workflows.harness import settings as st  # noqa: PLC0415

    monkeypatch.setattr(memcg, "make_swapfile", lambda path, size: path.write_bytes(b"\0"))
    monkeypatch.setattr(st, "_swap", lambda cmd, area, priority=None: None)
    target = tmp_path / "a" / "b" / "swap"
    s = Settings()
    s.swap_on(str(target), 1)
    assert [k for k in s.saved if k.startswith("dir:")] == [f"dir:{tmp_path / 'a'}", f"dir:{tmp_path / 'a' / 'b'}"]
    monkeypatch.setattr(st, "active_swaps", lambda proc_swaps="/proc/swaps": [])
    assert s.restore() == [] and not (tmp_path / "a").exists()
