"""The real-NUMA path in a QEMU guest with a CPU-less memory node (hosts/qemu/).

Tests marked ``vm`` build the guest from Debian packages (cached in build/qemu/),
boot it once (KVM where a KVM boot reports, else TCG: ~20-60 s) and check every line the guest reports: tierd
moving GUPS's pages node 0 -> 1 -> 0, memchar and antagonist on both nodes,
sysctl save/restore of the kernel tiering settings. Select them with
``pytest -m vm tests/test_qemu_guest.py`` (``make test-vm``). They skip with
the reason when this machine cannot install QEMU or fetch the packages.

The unmarked tests need no VM: they prove the placement checks fail when
pages did not move, with the exact shell code the guest runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import guest_accel, guest_built_or_skip, record_boot

REPO = Path(__file__).resolve().parents[1]
GUEST_DIR = REPO / "hosts" / "qemu"
LIB_SH = GUEST_DIR / "guest" / "lib.sh"
BOOT_TIMEOUT_S = float(os.environ.get("TIERBENCH_VM_TIMEOUT", "400"))

# Every test the default guest script reports; a missing line is a failure.
GUEST_TESTS = [
    "topology", "hmat",
    "gups_bound_node0", "noop_move_caught",
    "tierd_move_0_to_1", "tierd_move_1_to_0",
    "kernel_migrate_0_to_1", "kernel_migrate_1_to_0", "gups_checksum", "gups_hot_placement",
    "memchar_latency_node0", "memchar_latency_node1",
    "antagonist_node0", "antagonist_node1",
    "settings_numa_balancing", "settings_demotion_enabled",
    "settings_numa_balancing_promote_rate_limit_MBps",
]


def _load_guest():
    spec = importlib.util.spec_from_file_location("tierbench_qemu_guest", GUEST_DIR / "guest.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses need the module registered
    spec.loader.exec_module(mod)
    return mod


guest = _load_guest()


# --------------------------------------------------------------------------- placement checks

def largest_mapping(numa_maps: str) -> dict[int, int]:
    """Pages per node of the mapping with the most pages (host-side re-check)."""
    best: dict[int, int] = {}
    for line in numa_maps.splitlines():
        nodes = {}
        for field in line.split()[1:]:
            key, _, val = field.partition("=")
            if key[:1] == "N" and key[1:].isdigit() and val.isdigit():
                nodes[int(key[1:])] = int(val)
        if sum(nodes.values()) > sum(best.values()):
            best = nodes
    return best


def on_node(numa_maps: str, node: int, min_share: float = 0.99, min_pages: int = 1024) -> bool:
    pages = largest_mapping(numa_maps)
    total = sum(pages.values())
    return total >= min_pages and pages.get(node, 0) >= min_share * total


STAYED_ON_N0 = """\
55d0c0a00000 default file=/opt/tierbench/bin/gups mapped=40 N0=40 kernelpagesize_kB=4
7f2825a00000 bind:0 anon=16384 dirty=16384 active=0 N0=16384 kernelpagesize_kB=4
7ffd1c000000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4
"""
HALF_MOVED = STAYED_ON_N0.replace("N0=16384", "N0=8192 N1=8192")
MOVED = STAYED_ON_N0.replace("N0=16384", "N1=16384")
# the small mappings moved, the big buffer did not
SMALL_ONES_MOVED = STAYED_ON_N0.replace("N0=40", "N1=40").replace("N0=3 ", "N1=3 ")


BUSYBOX = REPO / "build" / "qemu" / "busybox" / "busybox"


def _shells() -> list[str]:
    # the guest's own shell too, always listed (make test's guest session builds the guest beside
    # this one: whether it existed at collection time varied the count by six between runs); a run
    # before the guest is built skips it with the reason
    return [s for s in ("/bin/sh",) if os.path.exists(s)] + ["busybox sh"]


def _check_on_node_sh(shell: str, text: str, node: int, tmp_path: Path) -> int:
    f = tmp_path / "numa_maps"
    f.write_text(text)
    cmd = f'. "{LIB_SH}"; check_on_node "{f}" {node} 0.99'
    return subprocess.run([*shell.split(), "-c", cmd], capture_output=True, timeout=30).returncode


@pytest.mark.parametrize("shell", _shells())
@pytest.mark.parametrize("sample,node,ok", [
    (STAYED_ON_N0, 1, False),       # the migration did not happen
    (HALF_MOVED, 1, False),         # half of it did
    (SMALL_ONES_MOVED, 1, False),   # only the small mappings moved
    ("", 1, False),                 # the process was gone
    (MOVED, 1, True),
    (STAYED_ON_N0, 0, True),
])
def test_guest_placement_check_catches_missing_migration(shell, sample, node, ok, tmp_path):
    """The guest's check_on_node (lib.sh) fails when the pages are not on the node."""
    if shell == "busybox sh":
        if not os.access(BUSYBOX, os.X_OK):  # (made executable once written: guest.py _extract)
            pytest.skip(f"the guest's busybox is not unpacked yet ({BUSYBOX.relative_to(REPO)}: hosts/qemu/guest.py build)")
        shell = f"{BUSYBOX} sh"
    assert (_check_on_node_sh(shell, sample, node, tmp_path) == 0) is ok
    assert on_node(sample, node) is ok, "host-side re-check agrees"


def test_move_pages_line_is_checked_like_numa_maps(tmp_path):
    """tbprobe's move_pages line uses the numa_maps shape, so the same check applies."""
    assert _check_on_node_sh("/bin/sh", "move_pages N0=16384 absent=0\n", 1, tmp_path) != 0
    assert _check_on_node_sh("/bin/sh", "move_pages N1=16384 absent=0\n", 1, tmp_path) == 0
    assert _check_on_node_sh("/bin/sh", "move_pages absent=16384\n", 1, tmp_path) != 0


def test_settings_functions_mirror_harness(tmp_path):
    """lib.sh's settings_set/restore: journal before change (settings.py's JSON), reverse restore."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("1\n")
    b.write_text("always [madvise] never\n")
    journal = tmp_path / "journal.json"
    script = f"""
        . "{LIB_SH}"
        SETTINGS_JOURNAL={journal} _SETTINGS_SAVED={tmp_path}/saved.tsv
        settings_set {a} 2 && settings_set {b} never && settings_set {a} 3 || exit 1
        cp {journal} {tmp_path}/mid.json
        settings_restore
    """
    r = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "mid.json").read_text()) == {str(a): "1", str(b): "madvise"}
    assert a.read_text().strip() == "1" and b.read_text().strip() == "madvise"
    assert not journal.exists(), "journal removed after a full restore"
    from workflows.harness.settings import read_value
    assert read_value(str(b)) == "madvise"


def test_parse_data_channel():
    """Launcher side: TEST lines, files checked by size and sha256, cut-off output reported."""
    import base64
    import hashlib
    blob = b"x,y\n1,2\n"
    enc = base64.b64encode(blob).decode()
    text = (f"BEGIN tierbench-guest 2.0\r\nTEST a PASS fine\r\nTEST b SKIP why not\r\n"
            f"FILE d/r.csv {len(blob)}\r\n{enc}\r\nENDFILE d/r.csv {hashlib.sha256(blob).hexdigest()}\r\n"
            f"EXIT 0 9.1\r\n")
    tests, files, rc, problems = guest.parse_data(text)
    assert [(t.name, t.status, t.detail) for t in tests] == [("a", "PASS", "fine"), ("b", "SKIP", "why not")]
    assert files == {"d/r.csv": blob} and rc == 0 and not problems
    tests, files, rc, problems = guest.parse_data(text.split("ENDFILE")[0])
    assert rc is None and not files and problems == ["file d/r.csv was cut off"]
    bad = text.replace(enc, base64.b64encode(b"x,y\n9,9\n").decode())
    assert guest.parse_data(bad)[3] == ["file d/r.csv arrived damaged (8 of 8 bytes)"]


PANIC = "[ 3.3] Kernel panic - not syncing: Fatal exception in interrupt\n"


@pytest.mark.parametrize("console, data, crashes, boots, outcome", [
    (PANIC, "", 1, 2, "exited"),                 # nothing of ours ran
    (PANIC, "TEST x PASS\n", 1, 2, "exited"),    # mid-script (TCG's oops while the kernel patches itself)
    (PANIC, "TEST x PASS\n", 2, 2, "crashed"),   # a second panic is the result: booted twice, no more
    ("[ 3.3] reboot: Power down\n", "", 1, 1, "crashed"),  # crashed, but no panic: said, not retried
])
def test_a_boot_whose_kernel_panicked_boots_once_more(tmp_path, monkeypatch, console, data, crashes, boots, outcome):
    calls = []

    def fake_boot(**kw):
        calls.append(kw)
        (tmp_path / "console.log").write_text(console)
        (tmp_path / "data.log").write_text(data)
        out = "crashed" if len(calls) <= crashes else "exited"
        return guest.RunResult(out, None if out == "crashed" else 0, [], {}, 1.0, tmp_path, [])

    monkeypatch.setattr(guest, "_boot", fake_boot)
    res = guest.run(script=tmp_path / "s.sh", out=tmp_path, stream=False, accel="tcg")
    assert len(calls) == boots and res.outcome == outcome
    assert (tmp_path / "console-panic.log").exists() == (boots == 2)


_real_boot = guest._boot


@pytest.fixture
def accel_cache(tmp_path, monkeypatch):
    """pick_accel's cache and try directory in tmp_path; its boots recorded, not run."""
    monkeypatch.setattr(guest, "CACHE", tmp_path)
    monkeypatch.setattr(guest, "ACCEL_CACHE", tmp_path / "accel.json")
    monkeypatch.setattr(guest, "_ACCEL", {})
    boots = []

    def boot_as(outcome, problems=(), qemu_said=""):
        def fake_boot(**kw):
            boots.append(kw)
            kw["out"].mkdir(parents=True, exist_ok=True)
            (kw["out"] / "qemu.log").write_text(qemu_said)
            return guest.RunResult(outcome, 0 if outcome == "exited" else None, [], {}, 2.5, kw["out"], list(problems))
        monkeypatch.setattr(guest, "_boot", fake_boot)
    return boots, boot_as


def test_auto_accel_uses_kvm_only_where_a_kvm_boot_reports(accel_cache, monkeypatch):
    boots, boot_as = accel_cache
    real = os.access
    monkeypatch.setattr(guest.os, "access", lambda p, mode: p == "/dev/kvm" or real(p, mode))
    boot_as("crashed", qemu_said="qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69\nassert\n")
    accel, why = guest.pick_accel()
    assert accel == "tcg" and "did not report" in why and "MSR 0x10a" in why
    assert [b["accel"] for b in boots] == ["kvm"] and boots[0]["timeout"] == guest.ACCEL_TRY_S
    # decided once per host boot, QEMU and guest build: kept on disk, read by the next process
    monkeypatch.setattr(guest, "_ACCEL", {})
    assert guest.pick_accel() == (accel, why) and len(boots) == 1
    # another host boot (or QEMU, or guest build) tries again; a boot that reports picks KVM
    monkeypatch.setattr(guest, "_accel_key", lambda: "another boot")
    boot_as("exited")
    accel, why = guest.pick_accel()
    assert accel == "kvm" and why == "a KVM boot reported in 2.5 s" and len(boots) == 2
    assert json.loads((guest.ACCEL_CACHE).read_text()) == {"key": "another boot", "accel": "kvm", "why": why}


@pytest.mark.parametrize("said", ["KVM internal error. Suberror: 1", "KVM: entry failed, hardware error 0x80000021"])
def test_a_kvm_boot_whose_qemu_stopped_the_vm_is_ended_at_once(accel_cache, tmp_path, monkeypatch, said):
    """QEMU that says "KVM internal error" (seen on the device) or "KVM: entry failed" has stopped
    the VM and stays alive: the boot ends then, by QEMU's pid, not at its timeout, and the try
    picks TCG saying why."""
    monkeypatch.setattr(guest, "_boot", _real_boot)
    (tmp_path / "kernel").mkdir()
    (tmp_path / "kernel" / "vmlinuz").write_bytes(b"k")
    (tmp_path / "initramfs.cpio.gz").write_bytes(b"i")
    (tmp_path / "manifest.json").write_text('{"inputs": "test"}')
    fake = tmp_path / "bin" / guest.QEMU
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho '{said}' >&2\n"
                    "echo 'extra data[0]: 0x0000000000000000' >&2\nexec sleep 300\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    real = os.access
    monkeypatch.setattr(guest.os, "access", lambda p, mode: p == "/dev/kvm" or real(p, mode))
    t0 = time.monotonic()
    accel, why = guest.pick_accel()
    assert time.monotonic() - t0 < guest.ACCEL_TRY_S / 2, "waited for the timeout"
    assert accel == "tcg" and why == f"a KVM boot did not report (crashed: QEMU said '{said}')"
    res = guest.run(script=tmp_path / "manifest.json", out=tmp_path / "o", stream=False, accel="kvm", timeout=120)
    assert res.outcome == "crashed" and res.problems == [
        f"QEMU stopped the guest: {said} (KVM cannot run this guest here; --accel tcg can)"]
    assert json.loads((tmp_path / "o" / "run.json").read_text())["problems"] == res.problems


def test_auto_accel_without_a_usable_dev_kvm_boots_nothing(accel_cache, monkeypatch):
    boots, boot_as = accel_cache
    real = os.access
    monkeypatch.setattr(guest.os, "access", lambda p, mode: False if p == "/dev/kvm" else real(p, mode))
    boot_as("exited")
    assert guest.pick_accel() == ("tcg", "/dev/kvm absent or not usable") and boots == []


def test_auto_accel_for_a_guest_not_built_tries_nothing_and_says_not_built(accel_cache, monkeypatch):
    boots, boot_as = accel_cache
    real = os.access
    monkeypatch.setattr(guest.os, "access", lambda p, mode: p == "/dev/kvm" or real(p, mode))
    monkeypatch.setattr(guest, "pick_accel", lambda: pytest.fail("a KVM try for a guest that is not built"))
    with pytest.raises(guest.GuestError, match="the guest is not built"):
        guest.run(script=guest.GUEST_SRC / "tests.sh", stream=False)


def test_run_records_the_accelerator_it_used(accel_cache, tmp_path, monkeypatch):
    boots, boot_as = accel_cache
    monkeypatch.setattr(guest, "pick_accel", lambda: ("tcg", "a KVM boot did not report (timeout)"))
    monkeypatch.setattr(guest, "_built", lambda: True)
    boot_as("exited")
    guest.run(script=tmp_path / "s.sh", out=tmp_path / "o", stream=False)
    assert boots[-1]["accel"] == "tcg" and boots[-1]["accel_why"] == "a KVM boot did not report (timeout)"
    guest.run(script=tmp_path / "s.sh", out=tmp_path / "o", stream=False, accel="kvm")
    assert boots[-1]["accel"] == "kvm" and boots[-1]["accel_why"] == "--accel kvm"
    with pytest.raises(guest.GuestError, match="unknown accelerator 'hvf'"):
        guest.run(script=tmp_path / "s.sh", out=tmp_path / "o", stream=False, accel="hvf")


def test_qemu_command_describes_two_nodes(tmp_path):
    cmd = " ".join(guest.qemu_command(Path("k"), Path("i"), tmp_path / "c", tmp_path / "d", "tcg", (512, 256)))
    assert "-numa node,nodeid=0,cpus=0-1,memdev=m0" in cmd
    assert "-numa node,nodeid=1,memdev=m1,initiator=0" in cmd, "node 1 has no CPUs"
    assert "hmat=on" in cmd and "target=1,hierarchy=memory,data-type=access-latency" in cmd
    assert "-no-reboot" in cmd and "-m 768M" in cmd


# --------------------------------------------------------------------------- the VM


@pytest.fixture(scope="module")
def guest_run(tmp_path_factory):
    guest_built_or_skip(guest)
    out = tmp_path_factory.mktemp("qemu-guest")
    accel = guest_accel(guest)
    t0 = time.monotonic()
    res = guest.run(timeout=BOOT_TIMEOUT_S, out=out, stream=False, accel=accel)
    record_boot("test_qemu_guest (the guest's own tests)", accel, res.boot_to_result_s, time.monotonic() - t0)
    return res


def _context(res) -> str:
    console = (res.out / "console.log")
    tail = console.read_text(errors="replace").splitlines()[-15:] if console.exists() else []
    return (f"guest outcome={res.outcome} exit={res.exit_status} problems={res.problems}\n"
            f"console tail ({console}):\n" + "\n".join(tail))


@pytest.mark.vm
def test_guest_finished(guest_run):
    assert guest_run.outcome == "exited", _context(guest_run)
    assert not guest_run.problems, _context(guest_run)
    other_failures = [f"{t.name}: {t.detail}" for t in guest_run.tests
                      if t.name not in GUEST_TESTS and t.status == "FAIL"]  # e.g. tierd_exit_0_to_1
    assert not other_failures, other_failures
    reported = {t.name for t in guest_run.tests}
    assert reported >= set(GUEST_TESTS), f"missing: {sorted(set(GUEST_TESTS) - reported)}\n{_context(guest_run)}"


@pytest.mark.vm
@pytest.mark.parametrize("name", GUEST_TESTS)
def test_guest(guest_run, name):
    found = [t for t in guest_run.tests if t.name == name]
    if not found:
        pytest.fail(f"the guest did not report {name}\n{_context(guest_run)}")
    t = found[-1]
    if t.status == "SKIP":
        pytest.skip(f"{name}: {t.detail}")
    assert t.status == "PASS", f"{name}: {t.detail}"


@pytest.mark.vm
@pytest.mark.parametrize("snapshot,node", [
    ("numa_maps.start", 0),
    ("numa_maps.tierd-0-1", 1), ("numa_maps.tierd-1-0", 0),
    ("numa_maps.kernel-0-1", 1), ("numa_maps.kernel-1-0", 0),
    ("numa_maps.antagonist-node0", 0), ("numa_maps.antagonist-node1", 1),
])
def test_guest_snapshots_rechecked_on_host(guest_run, snapshot, node):
    """The numa_maps the guest copied out, re-checked here in Python (not only in the guest)."""
    f = guest_run.files.get(snapshot)
    if f is None:
        tierd = next((t for t in guest_run.tests if t.name == "tierd_move_0_to_1"), None)
        if snapshot.startswith("numa_maps.tierd") and tierd is not None and tierd.status == "SKIP":
            pytest.skip(f"tierd did not run: {tierd.detail}")
        pytest.fail(f"{snapshot} not copied out of the guest\n{_context(guest_run)}")
    text = f.read_text()
    assert on_node(text, node), f"{snapshot}: largest mapping {largest_mapping(text)} not on N{node}"
    mp = guest_run.files.get(snapshot + ".move_pages")
    if mp is not None:
        assert on_node(mp.read_text(), node), f"move_pages status: {mp.read_text().strip()}"


@pytest.mark.vm
def test_guest_settings_journal_is_harness_format(guest_run):
    """The journal the guest wrote mid-change is what settings.restore_journal reads."""
    from workflows.harness.settings import KNOWN
    journals = {n: p for n, p in guest_run.files.items() if n.startswith("settings-journal.")}
    assert len(journals) == 3, sorted(guest_run.files)
    facts = dict(line.split("=", 1) for line in guest_run.files["facts.txt"].read_text().splitlines() if "=" in line)
    for p in journals.values():
        saved = json.loads(p.read_text())
        assert isinstance(saved, dict) and len(saved) == 1, saved
        (path, value), = saved.items()
        assert path in KNOWN.values(), f"{path} is not a setting the harness knows"
        key = Path(path).name
        if key in facts:
            assert facts[key] == value, f"journal holds {value!r}, boot value was {facts[key]!r}"


@pytest.mark.vm
def test_guest_is_functional_host(guest_run):
    facts = guest_run.files["facts.txt"].read_text()
    assert "functional=true" in facts
    assert "node1_cpus=\n" in facts, "node 1 must be memory-only"
    run = json.loads((guest_run.out / "run.json").read_text())
    assert run["functional_host"] == "timings not meaningful"


@pytest.mark.vm
def test_qemu_numa_profile_resolves_against_guest_facts(guest_run):
    """hosts/qemu-numa.yaml describes the guest: it resolves against the facts the guest reported."""
    from workflows.harness import profile
    facts = guest.guest_facts(guest_run.files["facts.txt"].read_text())
    assert facts["memory_nodes"] == [0, 1] and facts["cpu_nodes"] == [0]
    assert facts["hmat"]["1"]["read_latency"] > facts["hmat"]["0"]["read_latency"]
    prof = profile.resolve("qemu-numa", facts)
    assert prof["functional"] is True and prof["backend"] == "numa"
    assert [t["node"] for t in prof["tiers"]] == [0, 1]
    assert prof["cpus"]["app"] == [0] and prof["cpus"]["antagonist"] == [1]
