"""The QEMU guest's two topologies on its >= 6.12 kernel (hosts/qemu/guest.py --topology):

- ``cxl``: a CPU-less node with HMAT values, which the kernel puts in a lower memory tier; kernel
  TPP (numa_balancing=2) really promotes an unbound GUPS's pages from it (pgpromote_success rises);
- ``2s``: two sockets, one node each, two cores of two SMT threads per socket: the memory-tier
  preflight refuses kernel TPP with its one line, and the auto profile's CPU split keeps the
  application's hyperthread sibling from the antagonists.

Marked ``vm`` (each boots the guest once, with KVM where a KVM boot reports, else TCG:
hosts/qemu/guest.py pick_accel); they skip with the reason where the guest
cannot be built here. The unmarked tests check the QEMU command lines and the facts parsing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import guest_built_or_skip, guest_facts_or_skip
from test_qemu_guest import BOOT_TIMEOUT_S, GUEST_DIR, _context, guest

from systems import tpp
from workflows.harness import memtiers, profile

REPO = Path(__file__).resolve().parents[1]


def test_qemu_command_per_topology(tmp_path):
    k, i, c, d = (tmp_path / n for n in ("k", "i", "c", "d"))
    cxl = " ".join(guest.qemu_command(k, i, c, d, "tcg", (512, 512)))
    assert "hmat=on" in cxl and "node,nodeid=1,memdev=m1,initiator=0" in cxl and "-smp 2 " in cxl
    two = " ".join(guest.qemu_command(k, i, c, d, "tcg", (512, 512), topology="2s"))
    assert "sockets=2,cores=2,threads=2" in two and "node,nodeid=1,cpus=4-7,memdev=m1" in two and "hmat" not in two
    assert two.endswith(cxl[cxl.index("-kernel"):]), "the same boot arguments"
    with pytest.raises(guest.GuestError, match="unknown topology"):
        guest.qemu_command(k, i, c, d, "tcg", (512, 512), topology="numa3")


FACTS_2S = "functional=true\nkernel=6.12.95+deb12-amd64\nnodes_online=0-1\nnode0_cpus=0-3\nnode0_mem_kB=500000\n" \
    "node1_cpus=4-7\nnode1_mem_kB=500000\nmemory_tier4_nodes=0-1\ncpus_online=0-7\n" + \
    "".join(f"cpu{c}_siblings={c & ~1}-{c | 1}\ncpu{c}_package={c // 4}\n" for c in range(8))


def check_two_socket(facts: dict) -> None:
    """What the two-socket-like guest must give: kernel TPP refused in one line, and the auto
    split gives one thread per core: CPU 0 to the application, CPU 2 to the antagonists, never
    CPU 1 (CPU 0's sibling)."""
    assert facts["memory_tiers"] == {"4": [0, 1]}
    why = tpp.kernel_preconditions(facts, 0, 1)
    assert why and "both nodes have CPUs" in why and "\n" not in why
    assert facts["smt_siblings"]["0"] == [0, 1] and facts["nodes"]["1"]["sockets"] == [1]
    prof = profile.resolve("auto", {**facts, "privileges": {"root": True}, "tools": {}})
    assert prof["cpus"]["app"] == [0] and prof["cpus"]["antagonist"] == [2]
    assert not facts["snc"]["enabled"]


def test_two_socket_facts_parse():
    check_two_socket(guest.guest_facts(FACTS_2S))


def test_kernel_version_floor():
    assert guest.kernel_version_ok("6.12.95-1~bpo12+1") and guest.kernel_version_ok("6.16.3-1")
    assert not guest.kernel_version_ok("6.1.158-1") and not guest.kernel_version_ok("")


def boot(tmp_path_factory, topology: str, script: Path | None, env: str = ""):
    guest_built_or_skip(guest)
    out = tmp_path_factory.mktemp(f"qemu-{topology}")
    res = guest.run(timeout=BOOT_TIMEOUT_S, out=out, stream=False, topology=topology, script=script, append=env)
    assert res.outcome == "exited", _context(res)
    return res


def vmstat_delta(res) -> dict[str, int]:
    f = res.files
    return memtiers.moves_delta(Path(f["vmstat_before.txt"]).read_text(), Path(f["vmstat_after.txt"]).read_text())


@pytest.mark.vm
def test_cxl_guest_kernel_tpp_promotes_unbound_gups(tmp_path_factory):
    res = boot(tmp_path_factory, "cxl", GUEST_DIR / "guest" / "tpp.sh")
    facts = guest.guest_facts(Path(res.files["facts.txt"]).read_text())
    assert tpp.kernel_preconditions(facts, 0, 1) is None, facts.get("memory_tiers")
    # the tiers and HMAT values hosts/qemu/README.md states: node 1 in memory_tier17 below node 0's
    # memory_tier4, from the latencies the command gives (both access classes: node 0 holds the CPUs)
    assert facts["memory_tiers"] == {"4": [0], "17": [1]}, facts["memory_tiers"]
    h = facts["hmat"]
    assert h["1"]["read_latency"] > h["0"]["read_latency"] and h["1"]["cpu"]["read_latency"] == h["1"]["read_latency"]
    assert "problem.txt" not in res.files, Path(res.files["problem.txt"]).read_text()
    assert Path(res.files["gups.rc"]).read_text().strip() == "0", Path(res.files["gups.err"]).read_text()
    delta = vmstat_delta(res)
    assert memtiers.moved_nothing(delta, "promote") is None, delta
    assert Path(res.files["numa_balancing_after.txt"]).read_text().strip() == facts["settings"]["numa_balancing"]


@pytest.mark.vm
def test_two_socket_guest_refuses_kernel_tpp_and_splits_by_core(tmp_path_factory, tmp_path):
    script = tmp_path / "facts.sh"
    script.write_text("# only /init's facts.txt is needed\ntrue\n")
    res = boot(tmp_path_factory, "2s", script)
    check_two_socket(guest.guest_facts(Path(res.files["facts.txt"]).read_text()))


@pytest.mark.vm
def test_kernel_tpp_points_in_the_cxl_guest(tmp_path):
    """The tiering family's kernel-TPP points for real in the guest, through the workflow's own path
    (guestrun's batch, each point parsed as its job would): GUPS starts on node 0 with a working set
    twice the default capacity that the filler leaves it, so the kernel must demote (a point that
    moved nothing fails); swap is off, the kernel's moves are rows, settings are restored."""
    import json

    import yaml

    from analysis.frame import load
    from families.tiering import real
    from workflows.harness import guestrun, plan
    from workflows.harness.point import run_guest

    r, facts = guest_facts_or_skip()
    assert tpp.kernel_preconditions(facts, 0, 1) is None, facts.get("memory_tiers")
    cfg = profile.validate_config(yaml.safe_load((REPO / "workflows/config/qemu.yaml").read_text()))
    host = plan.Host(profile.resolve("qemu-numa", facts), facts, r)
    rows = [x for x in real.points(cfg, host) if x["experiment"] == "steady_state" and x["point"].startswith("numa-tpp-c0")]
    assert rows and all(x["run"]["scenario"]["vmstat"] == {"expect": "demote"} for x in rows)
    batch = tmp_path / "batch"
    assert guestrun.run({"runner": r, "points": {plan.key(x): x for x in rows}}, batch, tmp_path / "results") == 0
    (tmp_path / "facts.json").write_text(json.dumps(facts))
    for row in rows:
        out = tmp_path / plan.key(row)
        out.mkdir(parents=True)
        assert run_guest(row, out, batch, tmp_path / "facts.json", "qemu") == 0
        df = load(out / "result.csv").set_index("metric")["value"]
        moved = sum(v for k, v in df.items() if str(k).startswith("kernel_pgdemote_"))
        assert moved > 0 and df["filler_held"] > 0, df.to_dict()
        print(row["point"], {k: v for k, v in df.items() if str(k).startswith(("kernel_", "filler_"))})


def test_qemu_2s_profile_leaves_kernel_tpp_out(capsys):
    """hosts/qemu-2s.yaml against the two-socket-like guest's facts: validate says what runs and
    that kernel TPP is left out, and why."""
    from workflows.harness import cli, runner

    facts = guest.guest_facts(FACTS_2S)
    assert profile.runner_of("qemu-2s")["topology"] == "2s"
    orig = runner.facts_for
    runner.facts_for = lambda name, local: {**facts, "privileges": {"root": True}, "tools": {}}
    try:
        assert cli.main(["validate", "--host", "qemu-2s", "--configfile", "workflows/config/qemu.yaml"]) == 0
    finally:
        runner.facts_for = orig
    out = capsys.readouterr().out
    assert "cpus: application 0, antagonist 2" in out
    assert "left out: tiering: kernel TPP: nodes 0 and 1 are in the same memory tier (memory_tier4): both nodes have CPUs" in out
    assert "runs: tiering: tpp with Colloid (guest" in out
