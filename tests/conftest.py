"""Shared fixtures. Tests that need hardware this machine lacks skip with the reason."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
BIN = REPO / "build" / "bin"


@pytest.fixture(autouse=True)
def stop_signal_handlers_kept():
    """Every test leaves the stop signals' handlers as it found them. An entry point's main() called
    in-process may install its own; one left behind is copied into every later fork of the session
    (analysis.render's pool), where it changed how SIGTERM ends a worker and make test hung."""
    import signal  # noqa: PLC0415

    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {sig: signal.getsignal(sig) for sig in sigs}
    yield
    changed = [signal.Signals(sig).name for sig in sigs if signal.getsignal(sig) != before[sig]]
    for sig, h in before.items():
        signal.signal(sig, h)
    assert not changed, f"the test left handlers of {', '.join(changed)} changed"


@pytest.fixture(autouse=True)
def machine_dir_of_the_test(tmp_path_factory, monkeypatch):
    """Each test its own machine-wide state (settings.machine_dir: the machine's measurement lock and
    its list of settings journals), inherited by the workflows it runs: its measured points neither
    wait for a real run's or the other pytest session's, nor repair journals earlier tests left in
    their temporary directories on purpose."""
    monkeypatch.setenv("TIERBENCH_MACHINE_DIR", str(tmp_path_factory.mktemp("machine")))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def binary(name: str) -> Path:
    p = BIN / name
    if not p.exists():
        pytest.skip(f"{p.relative_to(REPO)} not built (run `make build`)")
    return p


@pytest.fixture(scope="session")
def cc_build(tmp_path_factory):
    """Compile a test-only C program from tests/independent/."""
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("cbin")

    def build(name: str) -> Path:
        exe = out / name
        if not exe.exists():
            subprocess.run(["cc", "-O2", "-std=c11", "-Wall", "-o", str(exe), str(REPO / "tests/independent" / f"{name}.c")], check=True)
        return exe

    return build


def descendants_of_bin(start_time: float | None = None) -> list[tuple[int, str]]:
    """Processes whose executable lives in build/bin (our benchmarks), as (pid, exe)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            exe = os.readlink(d / "exe")
        except OSError:
            continue
        if exe.startswith(str(BIN)):
            found.append((int(d.name), exe))
    return found


def ancestors(pid: int) -> list[int]:
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        out.append(pid)
    return out


def started_by(root: int) -> set[int]:
    """Our benchmark processes (build/bin/*) that descend from process ``root``."""
    return {pid for pid, _ in descendants_of_bin() if root in ancestors(pid)}


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def copy_tree(dst: Path) -> Path:
    """The repository's files as they are in the working tree (tracked, and untracked but not
    ignored), modification times kept, into ``dst``; ``build/`` (binaries, the QEMU guest's cache)
    is shared by a link, so nothing is rebuilt."""
    names = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, names):
        src = REPO / name
        if src.is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    (dst / "build").symlink_to(REPO / "build", target_is_directory=True)
    return dst


@pytest.fixture
def workdir(tmp_path) -> Path:
    """A scratch copy of the repository to run the workflow in: its results/ and .snakemake/ are
    the copy's, never the checkout's."""
    return copy_tree(tmp_path / "repo")


# ---- the QEMU guest, booted as few times as the session needs ----------------------------------
#
# Under TCG one boot of the guest costs a minute or more. The whole workflow on the guest
# (test_qemu_workflow: workflows/config/qemu.yaml, one boot) already runs characterize's
# latency and thread_share points and kv's Redis point through the workflow's own path (guestrun's batch,
# then each point parsed by its job); the tests of those points read them from that run when it
# is part of the session, and otherwise share one boot of their own (guest_points).

QEMU_WORKFLOW_TEST = "test_workflow_in_qemu_guest"
VM_WORKFLOW_TIMEOUT_S = float(os.environ.get("TIERBENCH_VM_WORKFLOW_TIMEOUT", "600"))


def sources_dir() -> Path | None:
    """The applications' pinned archives: $TIERBENCH_SOURCES or ../shared/upstream beside the checkout."""
    return next((Path(d) for d in (os.environ.get("TIERBENCH_SOURCES"), REPO.parent / "shared" / "upstream")
                 if d and Path(d).is_dir()), None)


def guest_unavailable() -> str | None:
    """Why the QEMU guest cannot be built or booted here (None: it can be tried)."""
    import platform  # noqa: PLC0415

    if platform.machine() != "x86_64" or sys.platform != "linux":
        return "the QEMU guest is built from Debian amd64 packages (x86-64 Linux only)"
    if not shutil.which("apt-get"):
        return "no apt-get: the guest is built from Debian packages"
    return None


def guest_built_or_skip(g) -> None:
    """Build the QEMU guest with launcher module ``g`` (hosts/qemu/guest.py), or skip the test with
    the reason the guest cannot be built or booted here."""
    why = guest_unavailable()
    if why:
        pytest.skip(why)
    try:
        g.build(install=os.geteuid() == 0)
    except g.GuestUnavailable as e:
        pytest.skip(f"QEMU guest unavailable on this machine: {e}")


def guest_facts_or_skip(name: str = "qemu-numa") -> tuple[dict, dict]:
    """The guest host profile's runner and the guest's facts (building the guest and booting it
    once per build, cached), or skip the test with the reason the guest cannot run here."""
    from workflows.harness import ConfigError, profile, runner  # noqa: PLC0415

    why = guest_unavailable()
    if why:
        pytest.skip(why)
    r = profile.runner_of(name)
    try:
        return r, runner.guest_facts(r)
    except ConfigError as e:
        pytest.skip(f"QEMU guest unavailable on this machine: {e}")


class QemuWorkflow:
    """The outcome of one ``snakemake --configfile workflows/config/qemu.yaml --config host=qemu-numa``
    in a scratch copy: ``skip`` (why it did not run), or ``proc`` and ``results``."""

    def __init__(self, skip: str | None = None, proc=None, results: Path | None = None):
        self.skip, self.proc, self.results = skip, proc, results

    @property
    def ok(self) -> bool:
        return self.skip is None and self.proc is not None and self.proc.returncode == 0


QEMU_TEST_CONFIG = "workflows/config/qemu-test.yaml"  # written into the scratch copy only


def qemu_test_config() -> dict:
    """qemu.yaml with shorter measured phases: every point, system, Colloid mode, intensity and
    event of the guest's config, each run for less time (under TCG what the numbers are means
    nothing; that each point runs, moves pages and parses does). The 34 points' guest time was
    about 200 s with qemu.yaml's own lengths (issue 27). The tiering family's points are shorter;
    the applications, characterize and kv are qemu.yaml's own (the guest-point tests read
    characterize's and kv's points from this run)."""
    cfg = yaml.safe_load((REPO / "workflows/config/qemu.yaml").read_text())
    real = cfg["tiering"]["real"]
    real.update(duration_s=3, average_last_s=2, warmup_s=0.5, after_event_s=1.5)  # (event_at_s kept: 3)
    cfg["tiering"]["dynamics"]["after_event_s"] = 1.5
    # (the applications keep qemu.yaml's lengths: with Silo at 2 s and 2 PageRank trials tierd once
    # moved no application page in any point, which the test asserts it does)
    return cfg


@pytest.fixture(scope="session")
def qemu_workflow(tmp_path_factory) -> QemuWorkflow:
    """The whole workflow on the QEMU guest, run once per session (one guest boot for every
    guest point of qemu.yaml); test_qemu_workflow checks it, the guest-point tests reuse it."""
    why = guest_unavailable()
    if why:
        return QemuWorkflow(skip=why)
    from workflows.harness import profile, runner  # noqa: PLC0415

    r = profile.runner_of("qemu-numa")
    g = runner.launcher(r)
    try:
        g.build(install=os.geteuid() == 0)
    except g.GuestUnavailable as e:
        return QemuWorkflow(skip=f"QEMU guest unavailable on this machine: {e}")
    src = sources_dir()
    if src is None:
        return QemuWorkflow(skip="no sources directory with the applications' pinned archives "
                                 "(../shared/upstream or TIERBENCH_SOURCES)")
    work = copy_tree(tmp_path_factory.mktemp("qemu-workflow") / "repo")
    (work / QEMU_TEST_CONFIG).write_text(yaml.safe_dump(qemu_test_config()))
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", QEMU_TEST_CONFIG,
           "--config", "host=qemu-numa", f"sources={src}"]
    t0 = time.monotonic()
    p = run_group(cmd, work, VM_WORKFLOW_TIMEOUT_S)
    record_boot("qemu.yaml workflow (guestrun's batch; the whole snakemake run)", guest_accel(g), None, time.monotonic() - t0)
    return QemuWorkflow(proc=p, results=work / "results" / "qemu-numa")


def run_group(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """``cmd`` in its own process group; past ``timeout`` the group gets SIGINT (Snakemake ends its
    jobs, the guest among them), then SIGKILL for what is left 60 s later; returncode 124 and a line in stderr say so."""
    import signal  # noqa: PLC0415

    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # what is left of the group it started
        out, err = proc.communicate()
        return subprocess.CompletedProcess(cmd, 124, out, (err or "") + f"\n[test] stopped after {timeout:g} s "
                                           "(TIERBENCH_VM_WORKFLOW_TIMEOUT)\n")


@pytest.fixture(scope="session")
def guest_points(request, tmp_path_factory):
    """``get(rows) -> {key: dir}``: each guest point's directory (result.csv, meta.json, as its
    job writes them). From the session's qemu_workflow run when test_qemu_workflow is selected
    and the run passed; otherwise every small guest point of qemu.yaml (characterize, kv) runs
    in one guest batch, booted once for all the tests that ask, and is parsed as its job would."""
    from workflows.harness import ConfigError, plan  # noqa: PLC0415

    state: dict = {}

    def from_workflow(rows) -> dict[str, Path] | None:
        if not any(i.name == QEMU_WORKFLOW_TEST for i in request.session.items):
            return None
        try:
            wf = request.getfixturevalue("qemu_workflow")
        except Exception:  # noqa: BLE001 - test_qemu_workflow reports it; these tests boot their own batch
            return None
        if not wf.ok:
            return None
        dirs = {plan.key(x): wf.results / plan.key(x) for x in rows}
        return dirs if all((d / "result.csv").exists() and (d / "meta.json").exists() for d in dirs.values()) else None

    def own_batch() -> dict:
        if "batch" in state:
            return state["batch"]
        import families.kv as kv  # noqa: PLC0415
        from families import characterize  # noqa: PLC0415
        from workflows.harness import guestrun, profile, runner  # noqa: PLC0415
        from workflows.harness.point import run_guest  # noqa: PLC0415

        r = profile.runner_of("qemu-numa")
        try:
            facts = runner.guest_facts(r)  # builds the guest, boots once per guest build (cached)
        except ConfigError as e:
            state["batch"] = {"skip": f"QEMU guest unavailable on this machine: {e}"}
            return state["batch"]
        cfg = profile.validate_config(yaml.safe_load((REPO / "workflows/config/qemu.yaml").read_text()))
        host = plan.Host(profile.resolve("qemu-numa", facts), facts, r)
        rows = list(characterize.plan(cfg, host).rows)
        if shutil.which("redis-server"):
            if not (REPO / "build/bin/kv-resp").exists():
                subprocess.run(["make", "--no-print-directory", "-C", "workloads/kvresp"], cwd=REPO, check=True)
            rows += kv.plan(cfg, host).rows
        tmp = tmp_path_factory.mktemp("guest-points")
        batch = tmp / "batch"
        cwd = os.getcwd()
        os.chdir(REPO)  # guestrun ships build/bin/... relative to the checkout
        t0 = time.monotonic()
        try:
            rc = guestrun.run({"runner": r, "points": {plan.key(x): x for x in rows}}, batch, tmp / "results")
        finally:
            os.chdir(cwd)
        record_boot(f"guest points ({', '.join(plan.key(x) for x in rows)}; guestrun's batch)",
                    json.loads((batch / "run.json").read_text())["accel"], None, time.monotonic() - t0)
        (tmp / "facts.json").write_text(json.dumps(facts))
        dirs, parsed = {}, {}
        for row in rows:
            out = tmp / "points" / plan.key(row)
            out.mkdir(parents=True)
            parsed[plan.key(row)] = run_guest(row, out, batch, tmp / "facts.json", "qemu")
            dirs[plan.key(row)] = out
        state["batch"] = {"rc": rc, "dirs": dirs, "parsed": parsed}
        return state["batch"]

    def get(rows) -> dict[str, Path]:
        dirs = from_workflow(rows)
        if dirs is not None:
            return dirs
        b = own_batch()
        if "skip" in b:
            pytest.skip(b["skip"])
        assert b["rc"] == 0, "the guest batch failed"
        missing = [plan.key(x) for x in rows if plan.key(x) not in b["dirs"]]
        assert not missing, f"not in the guest batch: {missing}"
        bad = {plan.key(x): b["parsed"][plan.key(x)] for x in rows if b["parsed"][plan.key(x)] != 0}
        assert not bad, f"run_guest failed: {bad}"
        return {plan.key(x): b["dirs"][plan.key(x)] for x in rows}

    return get


# ---- which accelerator the guest boots used, and how many there were --------------------------

GUEST_BOOTS: list[tuple[str, str, float | None, float]] = []  # (what, accel, boot_to_result_s, wall_s)
_ACCEL: dict = {}


def guest_accel(g) -> str:
    """The accelerator the session's boots use: the launcher's own choice (guest.py pick_accel: KVM
    where /dev/kvm is usable and one boot with it reports, TCG otherwise; decided once per host boot),
    its reason kept for the session's summary."""
    if "accel" not in _ACCEL:
        accel, why = g.pick_accel()
        _ACCEL.update(accel=accel, why=why)
    return _ACCEL["accel"]


def record_boot(what: str, accel: str, boot_to_result_s: float | None, wall_s: float) -> None:
    GUEST_BOOTS.append((what, accel, boot_to_result_s, wall_s))


def pytest_terminal_summary(terminalreporter):
    if not GUEST_BOOTS:
        return
    tr = terminalreporter
    tr.section("QEMU guest boots")
    if _ACCEL:
        tr.write_line(f"accelerator: {_ACCEL['accel']} ({_ACCEL['why']})")
    for what, accel, btr, wall in GUEST_BOOTS:
        tr.write_line(f"{what}: {accel}, boot to result {'-' if btr is None else f'{btr:.1f} s'}, wall {wall:.1f} s")
