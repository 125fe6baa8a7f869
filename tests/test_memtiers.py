"""Memory tiers and kernel TPP's preconditions (workflows/harness/memtiers.py), the host facts
read from synthetic sysfs trees (workflows/harness/hostdetect.py), swap off as a journaled
setting, and a scenario's /proc/vmstat moves."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from systems import tpp
from workflows.harness import hostdetect, memtiers, scenario, settings


def sysfs(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")
    return root


MT = "devices/virtual/memory_tiering"


def test_read_tiers_nodelist_and_the_abi_name(tmp_path):
    root = sysfs(tmp_path, {f"{MT}/memory_tier4/nodelist": "0-1", f"{MT}/memory_tier22/nodes": "2",
                            f"{MT}/memory_tier8/nodelist": ""})
    assert memtiers.read_tiers(root) == {4: [0, 1], 8: [], 22: [2]}
    assert memtiers.read_tiers(tmp_path / "nothing") == {}


def facts(tiers, cpus2=False):
    return {"kernel": "6.12.9", "memory_tiers": tiers,
            "nodes": {"0": {"cpus": [0, 1]}, "1": {"cpus": [2, 3]}, "2": {"cpus": [4] if cpus2 else []}}}


@pytest.mark.parametrize("tiers, d, a, cpus2, needle", [
    ({"4": [0], "22": [2]}, 0, 2, False, None),
    ({"4": [0, 1]}, 0, 1, False, "both nodes have CPUs"),
    ({"4": [0, 2]}, 0, 2, False, "node 2 has no CPUs but no driver gave it a lower tier"),
    ({"4": [2], "22": [0]}, 0, 2, False, "lower memory tier than the alternate node 2"),
    ({"4": [0]}, 0, 2, False, "node 2 is in no memory tier"),
    ({}, 0, 1, False, "kernel 6.12.9 shows no memory tiers"),
])
def test_kernel_tpp_preconditions(tiers, d, a, cpus2, needle):
    why = tpp.kernel_preconditions(facts(tiers, cpus2), d, a)
    if needle is None:
        assert why is None
    else:
        assert needle in why and "\n" not in why


VM0 = "nr_free_pages 10\npgpromote_success 5\npgpromote_candidate 9\npgdemote_kswapd 1\npgdemote_direct 0\n"


def test_vmstat_moves_and_the_check():
    after = VM0.replace("pgpromote_success 5", "pgpromote_success 105").replace("pgdemote_direct 0", "pgdemote_direct 7")
    d = memtiers.moves_delta(VM0, after + "pgdemote_khugepaged 3\n")
    assert d == {"pgdemote_direct": 7, "pgdemote_khugepaged": 3, "pgdemote_kswapd": 0, "pgpromote_candidate": 0,
                 "pgpromote_success": 100}
    assert memtiers.moved_nothing(d, "promote") is None and memtiers.moved_nothing(d, "demote") is None
    still = memtiers.moves_delta(VM0, VM0)
    assert "promoted no page" in memtiers.moved_nothing(still, "promote")
    assert "demoted no page" in memtiers.moved_nothing(still, "demote")
    assert memtiers.moved_nothing(still, "") is None
    assert "no pgpromote_success" in memtiers.moved_nothing({}, "promote")


# ---- host facts from synthetic sysfs --------------------------------------------------------

def two_socket_smt(tmp_path: Path, snc: bool = False) -> Path:
    """2 sockets x 2 cores x 2 threads: CPUs 0-3 on socket 0, 4-7 on socket 1, CPUs 2k and 2k+1
    one core. With ``snc`` socket 0 is split into nodes 0 and 2."""
    files = {}
    for c in range(8):
        files[f"devices/system/cpu/cpu{c}/topology/physical_package_id"] = str(c // 4)
        files[f"devices/system/cpu/cpu{c}/topology/thread_siblings_list"] = f"{c & ~1}-{c | 1}"
    if snc:
        files |= {"devices/system/node/node0/cpulist": "0-1", "devices/system/node/node2/cpulist": "2-3"}
    else:
        files["devices/system/node/node0/cpulist"] = "0-3"
    files["devices/system/node/node1/cpulist"] = "4-7"
    for n in (0, 1, 2) if snc else (0, 1):
        files[f"devices/system/node/node{n}/meminfo"] = f"Node {n} MemTotal:       8388608 kB"
    return sysfs(tmp_path, files)


def test_smt_siblings_and_snc(tmp_path):
    root = two_socket_smt(tmp_path / "plain")
    sib = hostdetect.smt_siblings(list(range(8)), root)
    assert sib["0"] == [0, 1] and sib["5"] == [4, 5]
    nodes = hostdetect.detect_nodes(root)
    assert hostdetect.snc(nodes) == {"enabled": False, "socket_nodes": {"0": [0], "1": [1]}}
    split = hostdetect.detect_nodes(two_socket_smt(tmp_path / "snc", snc=True))
    assert hostdetect.snc(split) == {"enabled": True, "socket_nodes": {"0": [0, 2], "1": [1]}}
    assert hostdetect.smt_siblings([3], tmp_path / "none") == {"3": [3]}, "no topology: a CPU is its own core"


def test_one_node_has_all_the_machines_memory(tmp_path):
    """One node: the larger of its sysfs MemTotal and /proc/meminfo's (on Firecracker guests the
    node's counts only pages touched so far); two nodes: each its own; no NUMA sysfs: /proc's."""
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "meminfo").write_text("MemTotal:       24684096 kB\nMemFree:        23158424 kB\n")
    one = sysfs(tmp_path / "one", {"devices/system/node/node0/cpulist": "0-1",
                                   "devices/system/node/node0/meminfo": "Node 0 MemTotal:        5466328 kB"})
    assert hostdetect.detect_nodes(one, proc)[0]["memory_mib"] == 24684096 // 1024
    two = two_socket_smt(tmp_path / "two")
    assert [n["memory_mib"] for n in hostdetect.detect_nodes(two, proc).values()] == [8192, 8192]
    assert hostdetect.detect_nodes(tmp_path / "bare", proc)[0]["memory_mib"] == 24684096 // 1024


def test_hmat_values(tmp_path):
    ini = "devices/system/node/node2/access0/initiators"
    root = sysfs(tmp_path, {f"{ini}/read_latency": "250", f"{ini}/read_bandwidth": "20000", f"{ini}/node0": "",
                            "devices/system/node/node0/cpulist": "0-1"})
    assert hostdetect.hmat(root) == {"2": {"read_latency": 250, "read_bandwidth": 20000, "initiators": [0]}}
    # the CPU class (access1), what the kernel's memory tiers are made from, kept beside it
    a1 = "devices/system/node/node2/access1/initiators"
    sysfs(tmp_path, {f"{a1}/read_latency": "300", f"{a1}/node0": ""})
    assert hostdetect.hmat(root)["2"]["cpu"] == {"read_latency": 300, "initiators": [0]}


@pytest.mark.parametrize("present, release, usable, needle", [
    (True, "6.1.0-27-amd64", False, "older than 6.2"),
    (True, "6.12.9+bpo-amd64", True, "present"),
    (False, "6.12.9", False, "does not exist"),
])
def test_damon_availability(tmp_path, present, release, usable, needle):
    if present:
        (tmp_path / "kernel/mm/damon/admin").mkdir(parents=True)
    d = hostdetect.damon(tmp_path, release)
    assert d["usable_by_tierd"] is usable and d["sysfs"] is present and needle in d["reason"]


def test_detect_records_the_new_facts():
    f = hostdetect.detect()
    assert {"memory_tiers", "hmat", "damon", "smt_siblings", "snc"} <= set(f)
    json.dumps(f)


# ---- swap off, journaled --------------------------------------------------------------------

def test_swap_off_is_journaled_and_restored(tmp_path, monkeypatch):
    on = {"/dev/sdz2", "/swap file"}
    calls = []

    def fake_swap(cmd, area, priority=None):
        calls.append((cmd, area))
        (on.add if cmd == "swapon" else on.discard)(area)

    monkeypatch.setattr(settings, "active_swaps", lambda *a: sorted(on))
    monkeypatch.setattr(settings, "swap_priorities", lambda *a: {})  # (a priority comes back: test_procs)
    monkeypatch.setattr(settings, "_swap", fake_swap)
    journal = tmp_path / "j.json"
    with settings.Settings(journal) as s:
        assert s.swap_off() == ["/dev/sdz2", "/swap file"]
        assert not on and json.loads(journal.read_text()) == {"swap:/dev/sdz2": "on", "swap:/swap file": "on"}
    assert on == {"/dev/sdz2", "/swap file"} and not journal.exists()
    # a killed run: the next point's repair switches them on again
    s = settings.Settings(journal)
    s.swap_off()
    assert not on
    assert settings.restore_journal(journal) == {"swap:/dev/sdz2": "on", "swap:/swap file": "on"}
    assert on == {"/dev/sdz2", "/swap file"}


# ---- a scenario's vmstat snapshots ------------------------------------------------------------

def kernel_tpp_scenario(expect: str) -> dict:
    w = scenario.role("w", ["true"], parse="tests.test_memtiers:one_row")
    return scenario.scenario(w, settings={}, swap_off=True, vmstat={"expect": expect})


def one_row(outdir, role, opts):
    return [{"metric": "throughput", "value": 1, "unit": "Mops/s", "tool": "w"}]


def test_ops_and_rows_of_a_kernel_tpp_scenario(tmp_path):
    sc = kernel_tpp_scenario("promote")
    ops = scenario.ops(sc)
    assert ops[0] == ("swapoff",)
    assert ops.index(("vmstat", "vmstat_before.txt")) + 1 == ops.index(("spawn", "w"))
    assert ops.index(("vmstat", "vmstat_after.txt")) == ops.index(("wait", "w", 900.0)) + 1
    (tmp_path / "vmstat_before.txt").write_text(VM0)
    (tmp_path / "vmstat_after.txt").write_text(VM0.replace("pgpromote_success 5", "pgpromote_success 8"))
    rows = {r["metric"]: r["value"] for r in scenario.parse_rows(sc, tmp_path, {})}
    assert rows["kernel_pgpromote_success"] == 3 and rows["kernel_pgdemote_kswapd"] == 0
    (tmp_path / "vmstat_after.txt").write_text(VM0)
    with pytest.raises(scenario.PointFailed, match="promoted no page"):
        scenario.parse_rows(sc, tmp_path, {})
    assert scenario.parse_rows(kernel_tpp_scenario(""), tmp_path, {})  # nothing expected: rows, no failure
    (tmp_path / "vmstat_after.txt").unlink()
    with pytest.raises(scenario.PointFailed, match="snapshots are missing"):
        scenario.parse_rows(sc, tmp_path, {})


def test_guest_rendering_snapshots_vmstat_and_refuses_swap(tmp_path):
    """The busybox rendering, run here: the snapshots are written, and a swap area that is on
    fails the point (this machine's own /proc/swaps decides which case runs)."""
    sc = kernel_tpp_scenario("")
    out = tmp_path / "out"
    text = scenario.render_batch([(str(out), sc)], bin_dir=str(REPO / "build/bin"),
                                 lib=str(REPO / "hosts/qemu/guest/lib.sh"), ctl_dir=str(tmp_path / "ctl"))
    assert "fail swap_on_in_guest" in text
    (tmp_path / "run.sh").write_text(text)
    env = {**os.environ, "SETTINGS_JOURNAL": str(tmp_path / "journal.json"), "_SETTINGS_SAVED": str(tmp_path / "saved.tsv")}
    subprocess.run(["sh", str(tmp_path / "run.sh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    st = scenario.read_status(out / "status")
    if settings.active_swaps():
        assert st["status"] == "swap_on_in_guest"
    else:
        assert st["status"] == "ok", st
        assert "nr_free_pages" in (out / "vmstat_after.txt").read_text()
        assert "MemFree" in (out / "vmstat_before.txt.nodes").read_text(), "each node's meminfo beside it"


def test_host_snapshot_keeps_every_nodes_meminfo(tmp_path):
    """What sits on each tier when a kernel-TPP point starts (pages earlier points or other
    processes left there) is kept beside the vmstat snapshot."""
    hr = scenario.HostRun(kernel_tpp_scenario(""), tmp_path, None, None)
    hr.op_vmstat("vmstat_before.txt")
    nodes = (tmp_path / "vmstat_before.txt.nodes").read_text()
    assert nodes.count("MemFree") == len(list(Path("/sys/devices/system/node").glob("node[0-9]*/meminfo")))


# ---- validate: per system, what runs and what is left out -------------------------------------

@pytest.mark.parametrize("profile_name, tiers, runs, left_out", [
    ("icelake-2s", {"4": [0, 1, 2]}, "runs: tiering: tpp with Colloid (host",
     "left out: tiering: kernel TPP: nodes 0 and 1 are in the same memory tier (memory_tier4): both nodes have CPUs"),
    ("cxl-cpuless", {"4": [0, 1], "22": [2]}, "runs: tiering: tpp without Colloid (host", "left out: apps: kernel TPP: "),
])
def test_validate_states_what_runs_per_system(tmp_path, capsys, profile_name, tiers, runs, left_out):
    from test_profiles import two_socket_facts

    from workflows.harness import cli

    f = two_socket_facts()
    f["nodes"]["2"]["memory_mib"] = 1 << 17
    f |= {"privileges": {"root": True}, "memory_tiers": tiers, "kernel": "6.12.9"}
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(f))
    assert cli.main(["validate", "--host", f"hosts/{profile_name}.yaml", "--facts", str(facts)]) == 0
    out = capsys.readouterr().out
    assert runs in out and left_out in out, out
    if profile_name == "cxl-cpuless":
        assert "left out: tiering: kernel TPP" not in out


def test_validate_with_a_bad_facts_file(tmp_path, capsys):
    from workflows.harness import cli

    (tmp_path / "f.json").write_text("{not json")
    assert cli.main(["validate", "--host", "hosts/icelake-2s.yaml", "--facts", str(tmp_path / "f.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tierbench: error: --facts") and err.count("\n") == 1


# ---- topology: one thread per core, the default tier's socket, SNC ------------------------------

def smt_facts(snc: bool = False) -> dict:
    """2 sockets x 32 cores x 2 threads, Linux's numbering: socket 0 = CPUs 0-31 and their siblings
    64-95 (node 0), socket 1 = 32-63 and 96-127 (node 1); with ``snc``, node 2 is socket 0's second half."""
    from test_profiles import two_socket_facts

    f = two_socket_facts(nodes=2)
    sib = {c: [c % 64, c % 64 + 64] for c in range(128)}
    f["smt_siblings"] = {str(c): v for c, v in sib.items()}
    f["online_cpus"] = f["allowed_cpus"] = list(range(128))
    f["nodes"]["0"] = {"cpus": list(range(32)) + list(range(64, 96)), "memory_mib": 1 << 17, "sockets": [0]}
    f["nodes"]["1"] = {"cpus": list(range(32, 64)) + list(range(96, 128)), "memory_mib": 1 << 17, "sockets": [1]}
    if snc:
        f["nodes"]["0"]["cpus"] = list(range(16)) + list(range(64, 80))
        f["nodes"]["2"] = {"cpus": list(range(16, 32)) + list(range(80, 96)), "memory_mib": 1 << 16, "sockets": [0]}
        f["snc"] = {"enabled": True, "socket_nodes": {"0": [0, 2], "1": [1]}}
    return f


def test_auto_split_never_gives_the_antagonist_an_application_sibling():
    from workflows.harness import profile

    p = profile.resolve("auto", smt_facts())
    app, ant, mon = p["cpus"]["app"], p["cpus"]["antagonist"], p["cpus"]["monitor"]
    assert mon == [31], "the last core kept for the monitors"
    assert app == list(range(16)) and ant == list(range(16, 31)), "one thread per core, the other cores split in two"
    assert not {c + 64 for c in app} & set(ant)
    assert not {c + 64 for c in mon} & set(app + ant)


def test_monitor_core_of_an_explicit_split():
    """icelake-2s names app 0-14 and antagonists 15-29: the monitors get core 30 (one thread)."""
    from workflows.harness import profile

    p = profile.resolve(str(REPO / "hosts/icelake-2s.yaml"), smt_facts())
    assert p["cpus"]["monitor"] == [30]


@pytest.mark.parametrize("cpus, needle", [
    ({"app": "0-14", "antagonist": "64-68"}, "CPU 64 (with 0), 65 (with 1)"),
    ({"app": "0-14", "antagonist": "32-36"}, "cpus/antagonist: CPU 32-36 is not on socket 0"),
    ({"monitor": "64"}, "cpus/monitor: CPU 64 shares a core with cpus/app"),
    ({"monitor": "79"}, "cpus/monitor: CPU 79 shares a core with cpus/antagonist"),
])
def test_explicit_cpu_lists_are_checked(tmp_path, cpus, needle):
    import yaml

    from workflows.harness import ConfigError, profile

    text = (REPO / "hosts/icelake-2s.yaml").read_text()
    data = yaml.safe_load(text)
    data["cpus"].update(cpus)
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        profile.resolve(str(path), smt_facts())


def test_antagonist_given_app_auto_takes_other_cores(tmp_path):
    import yaml

    from workflows.harness import profile

    data = yaml.safe_load((REPO / "hosts/icelake-2s.yaml").read_text())
    data["cpus"] = {"app": "auto", "antagonist": "16-30", "cores_per_unit": 5}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(data))
    p = profile.resolve(str(tmp_path / "p.yaml"), smt_facts())
    assert p["cpus"]["app"] == list(range(16)) + [31], "no sibling (80-94) of an antagonist core"


def test_snc_notes_an_alternate_node_on_the_same_socket(tmp_path):
    import yaml

    from workflows.harness import profile

    data = yaml.safe_load((REPO / "hosts/icelake-2s.yaml").read_text())
    data["tiers"][1]["node"] = 2
    data["cpus"] = {"app": "0-7", "antagonist": "8-15", "cores_per_unit": 5}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(data))
    notes = profile.resolve(str(tmp_path / "p.yaml"), smt_facts(snc=True))["topology_notes"]
    assert any("sub-NUMA clustering" in n for n in notes)
    assert any("alternate node 2 is on the default node 0's own socket 0" in n for n in notes)
    assert profile.resolve("icelake-2s", smt_facts())["topology_notes"] == []


# ---- setup: which measurement tools this CPU can use ----------------------------------------------

def cpuinfo(vendor: str, family: int, model: int) -> str:
    return f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n\nprocessor\t: 1\n"


@pytest.mark.parametrize("info, machine, want, skipped, note", [
    (cpuinfo("GenuineIntel", 6, 0x6A), "x86_64", ["linux-perf", "pcm", "ipmctl", "msr-tools"], {}, None),
    (cpuinfo("GenuineIntel", 6, 0xAD), "x86_64", ["linux-perf", "pcm", "msr-tools"], {"ipmctl": "Optane PMem"},
     "predates Granite Rapids"),
    (cpuinfo("AuthenticAMD", 25, 17), "x86_64", ["linux-perf", "msr-tools"],
     {"pcm": "this CPU is AuthenticAMD", "ipmctl": "family 25 model 0x11"}, None),
    ("", "aarch64", ["linux-perf"], {"msr-tools": "this machine is aarch64"}, None),
])
def test_measurement_tools_per_cpu(info, machine, want, skipped, note):
    from workflows.harness import bootstrap

    got, skip, notes = bootstrap.measurement_tools(info, machine, True)
    assert got == want
    for pkg, needle in skipped.items():
        assert needle in skip[pkg]
    assert (note is None and not notes) or (note and note in notes[0] and "tools: {pcm_memory:" in notes[0])
    assert "linux-perf" in bootstrap.measurement_tools(info, machine, False)[1]


def test_attach_roles_run_on_the_monitor_cpus(tmp_path):
    """A tiering daemon attached to the workload runs pinned to the profile's cpus/monitor; the
    workload does not."""
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    cpu = sorted(os.sched_getaffinity(0))[-1]
    dump = 'grep Cpus_allowed_list /proc/self/status > "$0"'
    # the workload ends 0.5 s after the daemon's last command (was: 0.5 s after its own start, which
    # on a busy 2-core host once left the daemon unstarted, stopped with SIGTERM); 20 s at most
    wait_a = f'for i in $(seq 400); do [ -e "{tmp_path}/a.done" ] && break; sleep 0.05; done; sleep 0.5'
    w = scenario.role("w", ["sh", "-c", f"{dump}; {wait_a}", str(tmp_path / "w.txt")], parse="tests.test_memtiers:one_row")
    a = scenario.role("a", ["sh", "-c", f'{dump}; touch "$0.done"', str(tmp_path / "a")], parse="tests.test_memtiers:one_row")
    sc = scenario.scenario(w, attach=[a], settings={})
    with Supervisor(grace_s=1) as sup:
        hr = scenario.HostRun(sc, tmp_path, sup, Settings(None), monitor_cpus=[cpu])
        hr.execute()
    assert (tmp_path / "a").read_text().split()[-1] == str(cpu)
    assert (tmp_path / "w.txt").read_text().split()[-1] != str(cpu) or len(os.sched_getaffinity(0)) == 1
    assert hr.meta["cpus"] == {"a": [cpu]}


def test_the_alternate_must_be_below_every_tier_holding_a_node_with_cpus():
    """mm/memory-tiers.c: the lowest tier holding a node with CPUs and every tier above it are top
    tier, and NUMA balancing promotes from none of them; kernel TPP's preflight says so."""
    tiers = {4: [0], 22: [1]}
    assert memtiers.placed(tiers, 0, 1, cpu_nodes=[0]) is None  # a CPU-less alternate (CXL)
    why = memtiers.placed(tiers, 0, 1, cpu_nodes=[0, 1])
    assert "memory_tier22" in why and "top tier" in why
    assert memtiers.placed(tiers, 0, 1, cpu_nodes=[0, 1], cpu_tiers_promote=True) is None
    assert memtiers.placed({4: [0], 22: [1], 30: [2]}, 0, 2, cpu_nodes=[0, 1]) is None  # below node 1's tier
    facts = {"kernel": "6.12.1", "memory_tiers": {"4": [0], "22": [1]},
             "nodes": {"0": {"cpus": [0, 1]}, "1": {"cpus": [2, 3]}}}
    assert "top tier" in tpp.kernel_preconditions(facts, 0, 1)
    facts["nodes"]["1"]["cpus"] = []
    assert tpp.kernel_preconditions(facts, 0, 1) is None


def test_numa_balancing_scan_counters_are_kept_and_allocation_stats_are_not():
    """A kernel-TPP point that promoted nothing says whether its range was scanned at all."""
    text = "numa_hit 10\nnuma_miss 2\nnuma_pte_updates 7\nnuma_hint_faults 5\nnuma_hint_faults_local 3\n" \
           "numa_pages_migrated 1\npgpromote_success 0\n"
    assert memtiers.vmstat_moves(text) == {"numa_pte_updates": 7, "numa_hint_faults": 5, "numa_hint_faults_local": 3,
                                           "numa_pages_migrated": 1, "pgpromote_success": 0}


def test_thp_defrag_with_a_plus_is_read_whole():
    assert hostdetect._bracketed("always defer [defer+madvise] madvise never") == "defer+madvise"
    assert hostdetect._bracketed("always [madvise] never") == "madvise"
