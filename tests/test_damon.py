"""DAMON tiering through sysfs (systems/damon/kernel.py): the plan, its writes, start/feed/stop
against a stand-in of the sysfs tree, preconditions. The kernel's behaviour itself is checked in
the >= 6.12 QEMU guest; this machine's kernel has no DAMON tiering to run against."""

from __future__ import annotations

from pathlib import Path

import pytest

from systems.damon import kernel as damon
from workflows.harness import ConfigError
from workflows.harness.settings import Settings

RANGES = {0: [(0, 1 << 30)], 1: [(1 << 32, (1 << 32) + (1 << 29))]}


def fake_admin(root: Path, plan: damon.Plan) -> Path:
    """What the kernel creates on the plan's nr_* writes, made up front: every file the plan
    writes, each kdamond's state (off) and avail_operations, and stats files."""
    admin = root / "admin"
    (admin / "kdamonds").mkdir(parents=True)
    (admin / "kdamonds/nr_kdamonds").write_text("0\n")
    for rel, _ in damon.writes(plan):
        p = admin / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists():
            p.write_text("0\n")
    for k, c in enumerate(plan.contexts):
        (admin / f"kdamonds/{k}/state").write_text("off\n")
        (admin / f"kdamonds/{k}/contexts/0/avail_operations").write_text("vaddr fvaddr paddr\n")
        for s_i in range(len(c.schemes)):
            st = admin / f"kdamonds/{k}/contexts/0/schemes/{s_i}/stats"
            st.mkdir(parents=True, exist_ok=True)
            for f in ("nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds"):
                (st / f).write_text("7\n")
    return admin


def test_plan_follows_the_upstream_sample():
    plan = damon.tiering_plan(0, 1, RANGES, "6.16.3")
    promo, demo = plan.contexts
    assert promo.node == 1 and promo.schemes[0].action == "migrate_hot" and promo.schemes[0].target_nid == 0
    assert demo.node == 0 and demo.schemes[0].action == "migrate_cold" and demo.schemes[0].target_nid == 1
    assert promo.schemes[0].node_goal == ("node_mem_used_bp", 0, 9970)
    assert demo.schemes[0].node_goal == ("node_mem_free_bp", 0, 50)
    assert (promo.sample_us, promo.aggr_us) == (5000, 100_000)
    w = dict(damon.writes(plan))
    assert w["kdamonds/nr_kdamonds"] == "2"
    assert w["kdamonds/0/contexts/0/operations"] == "paddr"
    assert w["kdamonds/0/contexts/0/targets/0/regions/0/start"] == str(1 << 32)
    # a filter's matching Y excludes what matches (usage.rst): promotion excludes non-young
    # pages, demotion young ones (mtier.c's allow/reject filters; lru_sort.c's reject filters)
    assert w["kdamonds/0/contexts/0/schemes/0/filters/0/type"] == "young"
    assert w["kdamonds/0/contexts/0/schemes/0/filters/0/matching"] == "N"
    assert w["kdamonds/1/contexts/0/schemes/0/filters/0/matching"] == "Y"
    assert w["kdamonds/1/contexts/0/schemes/0/filters/nr_filters"] == "1"
    assert w["kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_metric"] == "node_mem_used_bp"
    # on 6.12 (trixie, bookworm-backports) there are no node-memory goals: fixed quotas, said so
    plan = damon.tiering_plan(0, 1, RANGES, "6.12.48+deb13-amd64")
    assert plan.contexts[0].schemes[0].node_goal is None and plan.notes
    assert "quotas/goals/nr_goals" not in " ".join(dict(damon.writes(plan)))


def test_demotion_memcg_filter_only_or_except_a_cgroup():
    """A memcg filter on the demotion scheme, before its young filter: 'only' excludes every page
    outside the cgroup (matching N), 'except' the cgroup's own pages (matching Y); promotion has none."""
    for only, matching in ((True, "N"), (False, "Y")):
        plan = damon.tiering_plan(0, 1, RANGES, "6.12.1", demote_memcg=("/tierbench/b", only))
        w = damon.writes(plan)
        d = dict(w)
        f = "kdamonds/1/contexts/0/schemes/0/filters"
        assert d[f"{f}/nr_filters"] == "2" and d[f"{f}/0/type"] == "memcg" and d[f"{f}/0/matching"] == matching
        assert d[f"{f}/0/memcg_path"] == "/tierbench/b"
        assert d[f"{f}/1/type"] == "young" and d[f"{f}/1/matching"] == "Y"
        # each filter's type first: the kernel keeps memcg_path and matching per filter directory
        rels = [r for r, _ in w]
        assert rels.index(f"{f}/0/type") < rels.index(f"{f}/0/memcg_path") < rels.index(f"{f}/1/type")
        assert d["kdamonds/0/contexts/0/schemes/0/filters/nr_filters"] == "1"
    with pytest.raises(ConfigError, match="hierarchy's root"):
        damon.tiering_plan(0, 1, RANGES, "6.12.1", demote_memcg=("sys/fs/cgroup/b", True))
    spec = damon.scenario_spec(0, 1, "6.12.1", False, demote_memcg=("/b", True))
    assert ["write", "kdamonds/1/contexts/0/schemes/0/filters/0/memcg_path", "/b"] in spec["setup"]


def test_colloid_variant_feeds_user_input_goals():
    plan = damon.tiering_plan(0, 1, RANGES, "6.12.1", colloid=True)
    assert plan.goals() == ["promote", "relieve"]
    w = dict(damon.writes(plan))
    assert w["kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_metric"] == "user_input"
    assert w["kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_value"] == "10000"
    # the relieving scheme moves hot default-tier regions to the alternate node
    assert w["kdamonds/1/contexts/0/schemes/1/action"] == "migrate_hot"
    assert w["kdamonds/1/contexts/0/schemes/1/target_nid"] == "1"


def test_start_feed_stats_and_restore(tmp_path):
    plan = damon.tiering_plan(0, 1, RANGES, "6.12.1", colloid=True)
    admin = fake_admin(tmp_path, plan)
    journal = tmp_path / "journal.json"
    with Settings(journal) as s, damon.Damon(plan, s, admin) as d:
        assert (admin / "kdamonds/nr_kdamonds").read_text() == "2"
        assert (admin / "kdamonds/1/state").read_text() == "on"
        assert journal.exists()  # written before the change
        d.feed({"promote": 0.8, "relieve": 1.25})  # default tier faster: promote more, relieve less
        goal = admin / "kdamonds/0/contexts/0/schemes/0/quotas/goals/0/current_value"
        assert goal.read_text() == "8000"
        assert (admin / "kdamonds/1/contexts/0/schemes/1/quotas/goals/0/current_value").read_text() == "12500"
        assert (admin / "kdamonds/0/state").read_text() == "commit_schemes_quota_goals"
        rows = d.stats()
        assert len(rows) == 3 and rows[0]["sz_applied"] == 7
    assert (admin / "kdamonds/0/state").read_text() == "off"
    assert (admin / "kdamonds/nr_kdamonds").read_text() == "0"
    assert not journal.exists()


@pytest.mark.parametrize("busy", ["kdamonds", "damon_stat"])
def test_a_point_refuses_damon_someone_took_since_the_preflight(tmp_path, busy):
    """What the preflight read from the host's facts is read again when the point starts, before
    any change: a kdamond someone set up since (writing nr_kdamonds would drop a stopped one's
    directories: mm/damon/sysfs.c damon_sysfs_kdamonds_add_dirs), or an exclusive in-kernel DAMON."""
    plan = damon.tiering_plan(0, 1, RANGES, "6.17.1")
    admin = fake_admin(tmp_path, plan)
    sys_root = tmp_path / "sys"
    if busy == "kdamonds":
        (admin / "kdamonds/nr_kdamonds").write_text("1\n")
    else:
        param = sys_root / "module/damon_stat/parameters/enabled"
        param.parent.mkdir(parents=True)
        param.write_text("Y\n")
    journal = tmp_path / "journal.json"
    with Settings(journal) as s, pytest.raises(ConfigError, match="in use already" if busy == "kdamonds" else "damon_stat"):
        damon.apply_setup(damon.setup(plan), s, admin, sys_root)
    assert not journal.exists()
    assert (admin / "kdamonds/nr_kdamonds").read_text().strip() == ("1" if busy == "kdamonds" else "0")
    assert (admin / "kdamonds/0/state").read_text() == "off\n"


def test_host_facts_feed_the_preconditions(tmp_path):
    """hostdetect's DAMON facts from a stand-in /sys (never this host's own DAMON) drive the preflight."""
    from workflows.harness import hostdetect

    nodes = {"0": {"memory_mib": 1024}, "1": {"memory_mib": 512}}

    def facts(release: str) -> dict:
        return {"kernel": release, "damon": hostdetect.damon(tmp_path, release), "nodes": nodes}

    assert "absent" in damon.preconditions(facts("6.12.1"), 0, 1)
    admin = tmp_path / "kernel/mm/damon/admin"
    (admin / "kdamonds").mkdir(parents=True)
    (admin / "kdamonds/nr_kdamonds").write_text("0\n")
    assert "6.11" in damon.preconditions(facts("6.1.0-27-amd64"), 0, 1, False)  # Debian 12's kernel
    assert damon.preconditions(facts("6.12.1"), 0, 1, True) is None
    (admin / "kdamonds/nr_kdamonds").write_text("1\n")  # e.g. a platform's own kdamond
    assert "in use" in damon.preconditions(facts("6.12.1"), 0, 1, False)
    (admin / "kdamonds/nr_kdamonds").write_text("0\n")
    # the kernel's own DAMON_STAT (6.17+, on by default where built): exclusive, in no nr_kdamonds
    param = tmp_path / "module/damon_stat/parameters/enabled"
    param.parent.mkdir(parents=True)
    param.write_text("N\n")
    (tmp_path / "module/damon_reclaim/parameters").mkdir(parents=True)
    assert damon.preconditions(facts("6.17.1"), 0, 1, False) is None
    param.write_text("Y\n")
    assert hostdetect.damon(tmp_path, "6.17.1")["exclusive"] == ["damon_stat"]
    why = damon.preconditions(facts("6.17.1"), 0, 1, False)
    assert "damon_stat" in why and "exclusive" in why
    with pytest.raises(ConfigError, match="young filter"):
        damon.tiering_plan(0, 1, RANGES, "6.9.0")


def test_node_ranges_from_memory_blocks(tmp_path):
    sysfs = tmp_path / "sys"
    (sysfs / "devices/system/memory").mkdir(parents=True)
    (sysfs / "devices/system/memory/block_size_bytes").write_text("8000000\n")  # 128 MiB, hexadecimal
    for node, blocks in ((0, (0, 1, 2)), (1, (8, 9, 11))):
        d = sysfs / f"devices/system/node/node{node}"
        d.mkdir(parents=True)
        for b in blocks:
            (d / f"memory{b}").mkdir()
    bs = 0x8000000
    assert damon.node_ranges(0, sysfs) == [(0, 3 * bs)]
    assert damon.node_ranges(1, sysfs) == [(8 * bs, 10 * bs), (11 * bs, 12 * bs)]


# ---- DAMON tiering as a real-tier system: preflight, the point's scenario, both executors ------

import os  # noqa: E402
import subprocess  # noqa: E402

import systems  # noqa: E402
from workflows.harness import memtiers, scenario  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GUEST_LIB = REPO / "hosts/qemu/guest/lib.sh"

# The facts a Debian 12 (bookworm) host or guest gives: its kernel 6.1 has DAMON's sysfs
# interface (5.18+) but no migrate_hot/migrate_cold (6.11). Written in the guest's facts.txt form
# (hosts/qemu/guest/init), not captured from a 6.1 boot: the guest now boots only >= 6.12.
FACTS_61 = ("functional=true\nkernel=6.1.0-27-amd64\nnodes_online=0-1\nnode0_cpus=0-1\nnode0_mem_kB=500000\n"
            "node1_cpus=\nnode1_mem_kB=500000\nmemory_tier4_nodes=0-1\ncpus_online=0-1\n"
            "numa_balancing=1\ndamon_sysfs=1\ndamon_nr_kdamonds=0\n")


def guest_facts(text: str) -> dict:
    from hosts.qemu import guest

    return guest.guest_facts(text)


@pytest.fixture
def with_damon(monkeypatch):
    """The damon system registered (systems/damon/), whether or not systems.ORDER names it yet."""
    from systems import damon as damon_system

    monkeypatch.setitem(systems.SYSTEMS, "damon", damon_system.SYSTEM)
    return damon_system.SYSTEM


def test_preconditions_refuse_debian12_kernel_in_one_line():
    facts = guest_facts(FACTS_61)
    assert facts["damon"]["sysfs"] and facts["damon"]["kdamonds"] == 0
    for colloid in (False, True):
        why = damon.preconditions(facts, 0, 1, colloid)
        assert why and "6.1.0-27-amd64" in why and "migrate_hot/migrate_cold (Linux >= 6.11)" in why and "\n" not in why
    ok = guest_facts(FACTS_61.replace("6.1.0-27-amd64", "6.12.95+deb12-amd64"))
    assert damon.preconditions(ok, 0, 1) is None and damon.preconditions(ok, 0, 1, True) is None
    assert "in use already" in damon.preconditions({**ok, "damon": {**ok["damon"], "kdamonds": 1}}, 0, 1)
    assert "absent" in damon.preconditions({**ok, "damon": {"sysfs": False}}, 0, 1)
    assert "CONFIG_DAMON_PADDR" in damon.preconditions({**ok, "damon": {**ok["damon"], "paddr": False}}, 0, 1)
    assert "node 2 has no memory" in damon.preconditions(ok, 0, 2)
    old = guest_facts(FACTS_61.replace("damon_sysfs=1\ndamon_nr_kdamonds=0\n", ""))
    assert old["damon"] is None and "absent" in damon.preconditions(old, 0, 1)
    # the guest's /init mounts cgroup v2 and says so when it has the memory controller
    assert ok["damon"]["memcg"] is None and damon.filler_memcg(ok)
    v2 = guest_facts(FACTS_61.replace("damon_nr_kdamonds=0\n", "damon_nr_kdamonds=0\ndamon_memcg=v2\n"))
    assert v2["damon"]["memcg"] == "v2" and damon.filler_memcg(v2) is None


def test_kernel_config_read_from_boot(tmp_path):
    from workflows.harness import hostdetect

    (tmp_path / "config-6.12.1").write_text("CONFIG_DAMON=y\nCONFIG_DAMON_PADDR=y\n# CONFIG_DAMON_VADDR is not set\n")
    c = hostdetect.kernel_config("6.12.1", tmp_path)
    assert c == {"CONFIG_DAMON": True, "CONFIG_DAMON_PADDR": True, "CONFIG_DAMON_VADDR": False}
    assert hostdetect.kernel_config("6.1.0", tmp_path) == {}


def test_damon_counts_in_pgmigrate_not_pgpromote():
    before = "pgpromote_success 5\npgmigrate_success 100\npgmigrate_fail 0\n"
    after = "pgpromote_success 5\npgmigrate_success 612\npgmigrate_fail 3\n"
    delta = memtiers.moves_delta(before, after)
    assert delta == {"pgmigrate_fail": 3, "pgmigrate_success": 512, "pgpromote_success": 0}
    assert memtiers.moved_nothing(delta, "migrate") is None
    assert "migrated no page" in memtiers.moved_nothing(memtiers.moves_delta(before, before), "migrate")
    assert memtiers.moved_nothing(delta, "promote")  # what kernel TPP is held to: DAMON does not count there


def test_stats_and_feed_rows():
    spec = damon.scenario_spec(0, 1, "6.12.1", True, expect="promote", feed_csv="tierd.csv")
    assert [n for _, _, n in spec["schemes"]] == ["promote", "demote", "relieve"]
    text = "0 0 10 4096 5 2048 1 1048576\n1 0 3 8192 3 8192 0 -\n1 1 0 0 0 0 0 1\n"
    rows, why = damon.stats_rows(spec, text)
    got = {r["metric"]: r["value"] for r in rows}
    assert why is None and got["damos_promote_sz_applied"] == 2048 and got["damos_demote_nr_applied"] == 3
    assert got["damos_promote_effective_bytes"] == 1048576 and "damos_demote_effective_bytes" not in got
    _, why = damon.stats_rows(spec, text.replace("0 0 10 4096 5 2048", "0 0 10 4096 0 0"))
    assert why and "promoted nothing" in why
    fed = damon.feed_rows("12.5 promote 5000\n12.5 relieve 20000\nbad line\n")
    assert [(r["metric"], r["value"]) for r in fed] == [("damon_goal_promote", 5000), ("damon_goal_relieve", 20000)]


def standin(root: Path, spec: dict, nodes: dict[int, list[int]]) -> tuple[Path, Path]:
    """A stand-in of /sys: the DAMON admin tree with every file the setup writes (regions for up to
    4 ranges), states off, stats files; memory blocks of 128 MiB per node."""
    admin, sys_root = root / "admin", root / "sys"
    (admin / "kdamonds").mkdir(parents=True)
    (admin / "kdamonds/nr_kdamonds").write_text("0\n")
    for kind, rel, _ in spec["setup"]:
        rels = [rel] if kind != "regions" else [f"{rel}/nr_regions"] + [f"{rel}/{i}/{e}" for i in range(4)
                                                                          for e in ("start", "end")]
        for r in rels:
            p = admin / r
            p.parent.mkdir(parents=True, exist_ok=True)
            if not p.exists():
                p.write_text("off\n" if r.endswith("/state") else "0\n")
        if rel.endswith("/operations"):
            (admin / rel).parent.joinpath("avail_operations").write_text("vaddr fvaddr paddr\n")
    for k, s_i, _ in spec["schemes"]:
        for f in damon.stats_files(k, s_i):
            (admin / f).parent.mkdir(parents=True, exist_ok=True)
            (admin / f).write_text(f"{k * 10 + s_i + 1}\n")
    (sys_root / "devices/system/memory").mkdir(parents=True)
    (sys_root / "devices/system/memory/block_size_bytes").write_text("8000000\n")
    for n, blocks in nodes.items():
        for b in blocks:
            (sys_root / f"devices/system/node/node{n}/memory{b}").mkdir(parents=True)
    return admin, sys_root


def feeding_scenario(spec: dict) -> dict:
    """A point of the Colloid variant with stand-ins: the workload sleeps, an attach role writes
    tierd's two latency rows (L_default 50 ns, L_alternate 100 ns) and waits."""
    w = scenario.role("w", ["sleep", "2.5"], parse="tests.test_memtiers:one_row")
    meter = scenario.role("tierd", ["sh", "-c", 'printf "0.5,latency_default,50,ns\\n0.5,latency_alternate,100,ns\\n" '
                                    '>"$2"; sleep 60 & trap \'kill $! 2>/dev/null; exit 0\' TERM; wait', "meter"], output="tierd.csv", parse="tests.test_memtiers:one_row")
    return scenario.scenario(w, attach=[meter], mechanism=spec)


def check_standin_after(admin: Path, out: Path, spec: dict) -> None:
    assert (admin / "kdamonds/nr_kdamonds").read_text().strip() == "0"  # restored: removes everything below
    assert all((admin / f"kdamonds/{k}/state").read_text().strip() == "off" for k in (0, 1))
    regions = admin / "kdamonds/0/contexts/0/targets/0/regions"  # node 1: blocks 8, 9 and 11
    assert (regions / "nr_regions").read_text().strip() == "2"
    assert [(regions / f"{i}/{e}").read_text().strip() for i in (0, 1) for e in ("start", "end")] == \
        [str(8 << 27), str(10 << 27), str(11 << 27), str(12 << 27)]
    assert (admin / "kdamonds/0/contexts/0/schemes/0/action").read_text().strip() == "migrate_hot"
    # the feeder: promote's goal gets 10000 x 50/100, relieve's 10000 x 100/50, then a commit
    assert (admin / "kdamonds/0/contexts/0/schemes/0/quotas/goals/0/current_value").read_text().strip() == "5000"
    assert (admin / "kdamonds/1/contexts/0/schemes/1/quotas/goals/0/current_value").read_text().strip() == "20000"
    rows = scenario.parse_rows(feeding_scenario(spec), out, {})
    got = {r["metric"]: r["value"] for r in rows}
    assert got["damos_promote_nr_tried"] == 1 and got["damos_relieve_qt_exceeds"] == 12
    assert got["damon_goal_promote"] == 5000 and got["damon_goal_relieve"] == 20000


def test_guest_rendering_sets_up_feeds_reads_and_removes_damon(tmp_path):
    """The busybox rendering of a DAMON + Colloid point, run here against a stand-in sysfs (lib.sh's
    damon_* helpers, the settings journal): set up, fed from tierd's rows, stats read, restored."""
    spec = damon.scenario_spec(0, 1, "6.12.1", True, expect="promote", feed_csv="tierd.csv", feed_period_s=0.3)
    admin, sys_root = standin(tmp_path, spec, {0: [0, 1, 2], 1: [8, 9, 11]})
    out = tmp_path / "out"
    sc = feeding_scenario(spec)
    text = scenario.render_batch([(str(out), sc)], bin_dir=str(REPO / "build/bin"), lib=str(GUEST_LIB),
                                 ctl_dir=str(tmp_path / "ctl"))
    (tmp_path / "run.sh").write_text(text)
    env = {**os.environ, "SETTINGS_JOURNAL": str(tmp_path / "journal.json"), "_SETTINGS_SAVED": str(tmp_path / "saved.tsv"),
           "DAMON_ADMIN": str(admin), "DAMON_SYS": str(sys_root)}
    p = subprocess.run(["sh", str(tmp_path / "run.sh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    st = scenario.read_status(out / "status")
    assert st["status"] == "ok", (st, p.stdout, p.stderr, (out / "guest.log").read_text())
    assert not (tmp_path / "journal.json").exists()
    check_standin_after(admin, out, spec)


@pytest.mark.parametrize("busy", ["kdamonds", "damon_stat"])
def test_guest_rendering_refuses_damon_in_use_before_any_change(tmp_path, busy):
    """lib.sh's damon_free, the setup's first step in a guest: a kdamond someone set up, or the
    kernel's own exclusive DAMON module on, fails the point with one line before any change."""
    spec = damon.scenario_spec(0, 1, "6.17.1", False, expect="promote")
    admin, sys_root = standin(tmp_path, spec, {0: [0, 1, 2], 1: [8, 9, 11]})
    if busy == "kdamonds":
        (admin / "kdamonds/nr_kdamonds").write_text("1\n")
    else:
        (sys_root / "module/damon_stat/parameters").mkdir(parents=True)
        (sys_root / "module/damon_stat/parameters/enabled").write_text("Y\n")
    out = tmp_path / "out"
    sc = scenario.scenario(scenario.role("w", ["sleep", "0.1"], parse="tests.test_memtiers:one_row"), mechanism=spec)
    text = scenario.render_batch([(str(out), sc)], bin_dir=str(REPO / "build/bin"), lib=str(GUEST_LIB),
                                 ctl_dir=str(tmp_path / "ctl"))
    (tmp_path / "run.sh").write_text(text)
    env = {**os.environ, "SETTINGS_JOURNAL": str(tmp_path / "journal.json"), "_SETTINGS_SAVED": str(tmp_path / "saved.tsv"),
           "DAMON_ADMIN": str(admin), "DAMON_SYS": str(sys_root)}
    subprocess.run(["sh", str(tmp_path / "run.sh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    st = scenario.read_status(out / "status")
    assert st["status"] != "ok"
    log = (out / "guest.log").read_text()
    assert ("in use already" if busy == "kdamonds" else "exclusive kdamond") in log
    assert (admin / "kdamonds/nr_kdamonds").read_text().strip() == ("1" if busy == "kdamonds" else "0")
    assert (admin / "kdamonds/0/contexts/0/operations").read_text().strip() == "0"  # nothing written


def test_host_run_sets_up_feeds_reads_and_removes_damon(tmp_path, monkeypatch):
    """The same point through this host's executor (HostRun, the Supervisor, the settings journal)."""
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    spec = damon.scenario_spec(0, 1, "6.12.1", True, expect="promote", feed_csv="tierd.csv", feed_period_s=0.3)
    admin, sys_root = standin(tmp_path, spec, {0: [0, 1, 2], 1: [8, 9, 11]})
    monkeypatch.setattr(damon, "ADMIN", admin)
    monkeypatch.setattr(damon, "SYS", sys_root)
    out = tmp_path / "out"
    out.mkdir()
    journal = tmp_path / "journal.json"
    sc = feeding_scenario(spec)
    with Settings(journal) as s, Supervisor() as sup:
        hr = scenario.HostRun(sc, out, sup, s)
        hr.execute()
        import json

        saved = json.loads(journal.read_text())  # journaled before the change: restored to these
        assert saved == {str(admin / "kdamonds/nr_kdamonds"): "0", str(admin / "kdamonds/0/state"): "off",
                         str(admin / "kdamonds/1/state"): "off"}
        feeder = hr.children[scenario.FEEDER]
        assert not feeder.alive()  # stopped by pid once the workload ended
    assert not journal.exists()
    check_standin_after(admin, out, spec)


def test_a_kernel_refusing_a_write_fails_the_point_in_one_line(tmp_path, monkeypatch):
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    spec = damon.scenario_spec(0, 1, "6.12.1", False)
    admin, sys_root = standin(tmp_path, spec, {0: [0], 1: [8]})
    (admin / "kdamonds/0/contexts/0/avail_operations").write_text("vaddr fvaddr\n")
    monkeypatch.setattr(damon, "ADMIN", admin)
    monkeypatch.setattr(damon, "SYS", sys_root)
    w = scenario.role("w", ["true"], parse="tests.test_memtiers:one_row")
    with Settings(tmp_path / "j.json") as s, Supervisor() as sup, \
            pytest.raises(scenario.PointFailed, match=r"paddr operations set is not available \(CONFIG_DAMON_PADDR\)"):
        scenario.HostRun(scenario.scenario(w, mechanism=spec), tmp_path, sup, s).execute()
    assert (admin / "kdamonds/nr_kdamonds").read_text().strip() == "0"


def qemu_host(facts: dict):
    import yaml

    from workflows.harness import plan, profile

    cfg = profile.validate_config(yaml.safe_load((REPO / "workflows/config/qemu.yaml").read_text()))
    cfg["tiering"]["systems"] = ["damon"]
    cfg["tiering"]["real"]["dynamics"] = False
    runner = profile.runner_of("qemu-numa")
    return cfg, plan.Host(profile.resolve("qemu-numa", facts), facts, runner)


def test_real_points_run_damon_as_the_kernel_mechanism(with_damon):
    from families.tiering import real

    facts = guest_facts(FACTS_61.replace("6.1.0-27-amd64", "6.12.95+deb12-amd64"))
    cfg, host = qemu_host(facts)
    cfg["tiering"]["real"]["start_tier"] = "alternate"
    rows = {r["point"]: r for r in real.points(cfg, host)}
    c0, c1 = rows["numa-damon-c0-i0"]["run"]["scenario"], rows["numa-damon-c1-i0"]["run"]["scenario"]
    assert c0["vmstat"] == {"expect": "migrate"} and c0["mechanism"]["expect"] == "promote"
    assert c1["vmstat"] == {"expect": ""} and c1["mechanism"]["expect"] == ""  # Colloid may rightly promote nothing
    for sc in (c0, c1):
        assert sc["swap_off"]
        assert not [r for r in sc["roles"] if r["tool"] == "filler"]  # DAMON would demote it
        assert "--unbind-after-touch" in scenario.workload_of(sc)["argv"]
        assert ["journal", "kdamonds/nr_kdamonds", "2"] in sc["mechanism"]["setup"] and sc["settings"] == {"numa_balancing": "0"}
    assert not [r for r in c0["roles"] if r["kind"] == "attach"] and "feed" not in c0["mechanism"]
    (meter,) = [r for r in c1["roles"] if r["kind"] == "attach"]
    assert meter["tool"] == "tierd" and "--dry-run" in meter["argv"] and meter["argv"][meter["argv"].index("--observe") + 1] == "none"
    assert c1["mechanism"]["feed"]["csv"] == meter["output"][1]
    ops = scenario.ops(c1)
    names = [o[0] for o in ops]
    assert names.index("mech_start") < names.index("vmstat") < names.index("spawn") < names.index("mech_feed")
    # the feeder stops before the stats are refreshed: both take damon_sysfs_lock (trylock)
    assert names.index("wait") < names.index("mech_feed_stop") < names.index("mech_stats")


def test_a_damon_point_keeps_its_filler_and_probe_out_of_damon_where_the_host_has_memcg(with_damon):
    """With a memory cgroup controller (hostdetect's damon.memcg) a DAMON point holds the default
    tier to default_capacity like kernel TPP's: the filler runs in the point's own cgroup (the
    scenario's resource), with Colloid tierd (whose probe buffers DAMON would move too) as well,
    and every scheme's memcg filter leaves that cgroup out (matching Y). Without a filler the
    cgroup is made for tierd alone, and not at all for plain DAMON. Without a controller (a
    guest's facts) there is no filler and no cgroup, and the point's note says why."""
    from families.tiering import real

    base = guest_facts(FACTS_61.replace("6.1.0-27-amd64", "6.12.95+deb12-amd64"))
    schemes = {"numa-damon-c0-i0": ["kdamonds/0/contexts/0/schemes/0", "kdamonds/1/contexts/0/schemes/0"],
               "numa-damon-c1-i0": ["kdamonds/0/contexts/0/schemes/0", "kdamonds/1/contexts/0/schemes/0",
                                    "kdamonds/1/contexts/0/schemes/1"]}
    for memcg_version, capacity in (("v1", "64M"), ("v2", "auto"), (None, "64M")):
        facts = {**base, "damon": {**base["damon"], "memcg": memcg_version}}
        cfg, host = qemu_host(facts)
        cfg["tiering"]["real"].update(start_tier="alternate", default_capacity=capacity)
        rows = {r["point"]: r for r in real.points(cfg, host)}
        for pid, colloid in (("numa-damon-c0-i0", False), ("numa-damon-c1-i0", True)):
            run = rows[pid]["run"]
            sc = run["scenario"]
            fillers = [r for r in sc["roles"] if r["tool"] == "filler"]
            meters = [r for r in sc["roles"] if r["kind"] == "attach"]
            assert len(meters) == colloid
            setup = {rel: v for kind, rel, v in sc["mechanism"]["setup"] if kind == "write"}
            exempt = memcg_version and (capacity != "auto" or colloid)
            for sd in schemes[pid]:
                f = f"{sd}/filters"
                if exempt:
                    assert setup[f"{f}/0/type"] == "memcg" and setup[f"{f}/0/memcg_path"] == damon.EXEMPT_MEMCG
                    assert setup[f"{f}/0/matching"] == "Y" and setup[f"{f}/1/type"] == "young"
                else:
                    assert setup[f"{f}/nr_filters"] == "1" and setup[f"{f}/0/type"] == "young"
            if exempt:
                assert sc["cgroup"] == damon.EXEMPT_CGROUP
                assert "left out of DAMON's moves by a DAMOS memcg filter on every scheme" in str(run)
                assert all(m["cgroup"] == damon.EXEMPT_CGROUP for m in meters)
            else:
                assert "cgroup" not in sc and not any("cgroup" in m for m in meters)
            if memcg_version and capacity != "auto":
                (filler,) = fillers
                assert filler["cgroup"] == damon.EXEMPT_CGROUP
                assert "--leave" in filler["argv"] or any("64" in a for a in filler["argv"])
            else:
                assert not fillers
            if not memcg_version:
                assert "no memory cgroup controller" in str(run)
                assert ("moves its probe's pages back" in str(run)) == colloid
    assert damon.filler_memcg({"damon": {"memcg": "v2"}}) is None


def test_host_facts_name_the_memory_cgroup_controller(tmp_path):
    from workflows.harness import hostdetect

    assert hostdetect.damon(tmp_path, "6.12.1")["memcg"] is None
    (tmp_path / "fs/cgroup").mkdir(parents=True)
    (tmp_path / "fs/cgroup/cgroup.controllers").write_text("cpu memory pids\n")
    assert hostdetect.damon(tmp_path, "6.12.1")["memcg"] == "v2"


def filler_point(tmp_path: Path, version: str = "v2") -> tuple[dict, dict, Path, Path]:
    """A DAMON point with a filler and an attached program (tierd's place) in the point's own
    cgroup, against stand-ins: DAMON's sysfs (standin) and a cgroup hierarchy at tmp_path/cg (v2:
    a directory with cgroup.controllers; v1: one with memory/memory.limit_in_bytes). The stand-in
    filler and meter check that their pid is in the cgroup's cgroup.procs, the filler writes its
    ready file, and both wait; at their end they take themselves out of cgroup.procs (remove the
    file), as the kernel does for a task that exits."""
    spec = damon.scenario_spec(0, 1, "6.12.1", False, exempt_memcg=damon.EXEMPT_MEMCG)
    admin, sys_root = standin(tmp_path, spec, {0: [0, 1], 1: [8]})
    cg_root = tmp_path / "cg"
    base = cg_root if version == "v2" else cg_root / "memory"
    base.mkdir(parents=True)
    if version == "v2":
        (cg_root / "cgroup.controllers").write_text("cpu memory pids\n")
        (cg_root / "cgroup.subtree_control").write_text("\n")
    else:
        (base / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    procs = base / "tierbench" / damon.EXEMPT_CGROUP / "cgroup.procs"
    # its arguments: --out FILE --ready-file FILE ($1..$4, the role's protocol)
    body = (f'grep -qx "$$" {procs} && echo in >"$2"; sleep 60 & s=$!; trap "kill $s; rm -f {procs}; exit 0" TERM; '
            'touch "$4"; wait')
    filler = scenario.role("filler", ["sh", "-c", body, "filler"], output="seen.txt", output_flag="--out",
                           ready_file="filler.ready", parse="tests.test_memtiers:one_row")
    filler["cgroup"] = damon.EXEMPT_CGROUP
    # --out FILE --pid PID
    body = f'grep -qx "$$" {procs} && echo in >"$2"; sleep 60 & s=$!; trap "kill $s; rm -f {procs}; exit 0" TERM; wait'
    meter = scenario.role("meter", ["sh", "-c", body, "meter"], output="meter.txt", output_flag="--out",
                          target_pid="--pid", parse="tests.test_memtiers:one_row")
    meter["cgroup"] = damon.EXEMPT_CGROUP
    w = scenario.role("w", ["sleep", "0.5"], parse="tests.test_memtiers:one_row")
    sc = scenario.scenario(w, background=[filler], attach=[meter], mechanism=spec, cgroup=damon.EXEMPT_CGROUP)
    return sc, spec, admin, sys_root


def check_filler_point(out: Path, admin: Path, tmp_path: Path) -> None:
    assert (out / "seen.txt").read_text().strip() == "in"  # the filler ran inside its cgroup
    assert (out / "meter.txt").read_text().strip() == "in"  # and so did the attached program
    for k in (0, 1):  # promotion and demotion leave the cgroup alone
        f = admin / f"kdamonds/{k}/contexts/0/schemes/0/filters"
        assert (f / "0/memcg_path").read_text().strip() == damon.EXEMPT_MEMCG
        assert (f / "0/matching").read_text().strip() == "Y"
    assert (admin / "kdamonds/nr_kdamonds").read_text().strip() == "0"  # DAMON removed
    assert not list((tmp_path / "cg").rglob(damon.EXEMPT_CGROUP))  # the cgroup removed
    assert not (tmp_path / "journal.json").exists()


def test_host_run_runs_the_filler_and_meter_in_their_cgroup_beside_damon(tmp_path, monkeypatch):
    """The same point through this host's executor (HostRun, Settings.cgroup, the journal) on a
    cgroup v1 stand-in: the filler and the attached meter are started inside the cgroup, it and
    DAMON are undone after the point."""
    from workflows.harness import memcg
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    sc, spec, admin, sys_root = filler_point(tmp_path, "v1")
    real_detect = memcg.detect
    monkeypatch.setattr(memcg, "detect", lambda root=None: real_detect(tmp_path / "cg"))
    monkeypatch.setattr(damon, "ADMIN", admin)
    monkeypatch.setattr(damon, "SYS", sys_root)
    out = tmp_path / "out"
    out.mkdir()
    with Settings(tmp_path / "journal.json") as s, Supervisor() as sup:
        hr = scenario.HostRun(sc, out, sup, s)
        hr.execute()
        assert hr.meta["argv"]["filler"][:2] == ["sh", "-c"] and hr.meta["argv"]["filler"][3].endswith(
            f"memory/tierbench/{damon.EXEMPT_CGROUP}/cgroup.procs")
    check_filler_point(out, admin, tmp_path)


def test_guest_rendering_runs_the_filler_and_meter_in_their_cgroup_beside_damon(tmp_path):
    sc, spec, admin, sys_root = filler_point(tmp_path)
    out = tmp_path / "out"
    text = scenario.render_batch([(str(out), sc)], bin_dir=str(REPO / "build/bin"), lib=str(GUEST_LIB),
                                 ctl_dir=str(tmp_path / "ctl"))
    (tmp_path / "run.sh").write_text(text)
    env = {**os.environ, "SETTINGS_JOURNAL": str(tmp_path / "journal.json"), "_SETTINGS_SAVED": str(tmp_path / "saved.tsv"),
           "DAMON_ADMIN": str(admin), "DAMON_SYS": str(sys_root), "CGROUP_ROOT": str(tmp_path / "cg")}
    p = subprocess.run(["sh", str(tmp_path / "run.sh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    st = scenario.read_status(out / "status")
    assert st["status"] == "ok", (st, p.stdout, p.stderr, (out / "guest.log").read_text())
    check_filler_point(out, admin, tmp_path)


def test_debian12_leaves_damon_out_before_any_job(with_damon):
    from families.tiering import real

    cfg, host = qemu_host(guest_facts(FACTS_61))
    assert [r for r in real.points(cfg, host) if r["point"].startswith("numa-damon")] == []
    absent = real.absent(cfg, host)
    assert set(absent) == {"tiering: kernel DAMON", "tiering: kernel DAMON with Colloid"}
    assert all("lacks DAMOS migrate_hot/migrate_cold (Linux >= 6.11)" in v and "still runs" not in v
               for v in absent.values())


# ---- the kernel's DAMON in the >= 6.12 QEMU guest (cxl topology, TCG: behaviour only) ----------

GUPS_S = 30  # each GUPS's timed phase in the guest
# at their ends: A's pages on node 0 at least half of its 8192, B's on node 1 at least half of its
# 30720 cold ones (120 MiB) and B's on node 0 at least half of its 2048 hot ones (8 MiB). Four
# runs as the test is now (TCG, this loaded 2-core VM): 7168-8192, 30720-31232, 1536-2048 (docs/damon.md)
A_PROMOTED_MIN, B_DEMOTED_MIN, B_HOT_KEPT_MIN = 8192 // 2, 30720 // 2, 2048 // 2
FEED_STEPS = 12  # quota samples per fed ratio, FEED_PERIOD_S apart
FEED_PERIOD_S = 0.5


B_CGROUP = "gupsb"  # lib.sh resource_cgroup: /sys/fs/cgroup/tierbench/gupsb (cgroup v2)
B_MEMCG = f"/tierbench/{B_CGROUP}"  # its path from the hierarchy's root: the memcg filter's memcg_path


def guest_setup(plan: damon.Plan) -> str:
    """A plan's setup as a guest script's lines (lib.sh), each failure said in $OUT."""
    return "\n".join(f"{c} 2>>\"$OUT/damon.err\" || echo damon_setup >>\"$OUT/problem.txt\""
                     for c in damon.setup_sh(damon.setup(plan)))


def guest_script() -> str:
    """One boot: (1) DAMON tiering as a point sets it up (NUMA balancing off, as the mechanism's
    setting) (damon.setup, lib.sh) with two unbound GUPS: A's 32 MiB, all of it hot, first touched
    on the CPU-less node 1 (to promote), B's 128 MiB on node 0 with all accesses in its first 8 MiB
    (the rest cold: to demote), B in its own memory cgroup and the demotion scheme filtered to that
    cgroup's pages (a memcg filter: the guest's other cold memory of node 0 stays); numa_maps every
    second, /proc/vmstat and the DAMOS stats before/after; removed. (2) The Colloid variant's
    kdamonds fed a latency ratio L_D/L_A of 0.5 and then 2 by lib.sh's damon_feed from a stand-in
    of tierd's rows, each scheme's effective quota sampled every FEED_PERIOD_S; removed."""
    plain = damon.tiering_plan(0, 1, None, "6.12", colloid=False, demote_memcg=(B_MEMCG, True))
    coll = damon.tiering_plan(0, 1, None, "6.12", colloid=True)
    spec = damon.scenario_spec(0, 1, "6.12", True, feed_csv="lat.csv")
    goals = " ".join(":".join(str(x) for x in g) for g in spec["feed"]["goals"])
    eff = " ".join(f"$(cat $DAMON_ADMIN/kdamonds/{k}/contexts/0/schemes/{s}/quotas/effective_bytes)"
                   for k, s, _ in damon.schemes_of(coll) if _ in ("promote", "relieve"))
    g = f'"$BIN/gups" --unbind-after-touch --object-size 64 --op rmw --duration {GUPS_S} --seed 1'
    return f"""# generated by tests/test_damon.py (guest_script)
. /lib/tierbench/lib.sh
BIN=/opt/tierbench/bin
echo "$(cat $DAMON_ADMIN/kdamonds/nr_kdamonds)" >"$OUT/nr_kdamonds_before.txt"
settings_set /proc/sys/kernel/numa_balancing 0 || echo numa_balancing >>"$OUT/problem.txt"
# B's memory cgroup (cgroup v2: the guest kernel has CONFIG_MEMCG, not CONFIG_MEMCG_V1), made
# before DAMON starts (the filter's path is resolved then) and removed after it (the journal's order)
[ -e /sys/fs/cgroup/cgroup.controllers ] || mount -t cgroup2 none /sys/fs/cgroup || echo cgroup2 >>"$OUT/problem.txt"
resource_cgroup {B_CGROUP} 2>>"$OUT/damon.err" || echo cgroup >>"$OUT/problem.txt"
{g} --cpus 0 --mem-node 1 --working-set 32M --hot-set 0 --pid-file /tmp/ga.pid >"$OUT/ga.csv" 2>"$OUT/ga.err" &
ga=$!
# B joins its cgroup before it allocates (a page is charged to the memcg of the task faulting it)
sh -c 'echo $$ >"$0" && exec "$@"' "$CGROUP_ROOT/tierbench/{B_CGROUP}/cgroup.procs" \\
	{g} --cpus 1 --mem-node 0 --working-set 128M --hot-set 8M --hot-share 1 --pid-file /tmp/gb.pid >"$OUT/gb.csv" 2>"$OUT/gb.err" &
gb=$!
wait_for_file /tmp/ga.pid 120 "$ga" && wait_for_file /tmp/gb.pid 120 "$gb" || echo gups_not_ready >>"$OUT/problem.txt"
# DAMON starts once both have first-touched their memory. Started before (one run), it demoted
# B's pages while B was still touching them (12288 on node 1 when B was ready; all cold until its
# timed phase) and B's count on node 1 then stuck at half its cold pages, presumably as its hot
# pages came back to node 0 scattered among its cold ones, whose regions then stayed "accessed"
cat "/proc/$ga/numa_maps" >"$OUT/ga_start.txt"; cat "/proc/$gb/numa_maps" >"$OUT/gb_start.txt"
cat /proc/vmstat >"$OUT/vmstat_before.txt"
{guest_setup(plain)}
for k in 0 1; do
	cat $DAMON_ADMIN/kdamonds/$k/state >>"$OUT/states_on.txt"
	r=$DAMON_ADMIN/kdamonds/$k/contexts/0/targets/0/regions
	for i in $(seq 0 $(($(cat $r/nr_regions) - 1))); do echo "$k $(cat $r/$i/start) $(cat $r/$i/end)" >>"$OUT/regions.txt"; done
done
# the last readable numa_maps of each while it runs (a zombie's is empty)
running() {{ s=$(awk '{{ print $3 }}' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ]; }}
while running "$ga" || running "$gb"; do
	for p in ga:$ga gb:$gb; do
		if cat "/proc/${{p#*:}}/numa_maps" >/tmp/nm 2>/dev/null && [ -s /tmp/nm ]; then
			cp /tmp/nm "$OUT/${{p%%:*}}_end.txt"
			{{ echo "@ $(cut -d' ' -f1 /proc/uptime)"; cat /tmp/nm; }} >>"$OUT/${{p%%:*}}_series.txt"
		fi
	done
	# B's cgroup's own count of its anonymous memory per node (bytes), each second while B runs
	# (a sample taken while it exits would show its memory half freed: the test takes the largest)
	running "$gb" && grep '^anon ' "$CGROUP_ROOT/tierbench/{B_CGROUP}/memory.numa_stat" >>"$OUT/gb_numa_stat.txt"
	sleep 1
done
wait "$ga"; echo "$?" >"$OUT/ga.rc"
wait "$gb"; echo "$?" >"$OUT/gb.rc"
cat /proc/vmstat >"$OUT/vmstat_after.txt"
damon_stats "$OUT/damon_stats.txt" {" ".join(f"{k}:{s}" for k, s, _ in damon.schemes_of(plain))}
settings_restore || echo settings_not_restored >>"$OUT/problem.txt"
echo "$(cat $DAMON_ADMIN/kdamonds/nr_kdamonds)" >"$OUT/nr_kdamonds_after.txt"
# (2) the Colloid variant's quotas under a fed latency ratio
{guest_setup(coll)}
printf '0,latency_default,50,ns\\n0,latency_alternate,100,ns\\n' >/tmp/lat.csv
damon_feed /tmp/lat.csv {FEED_PERIOD_S} "$OUT/feed.txt" {goals} &
f=$!
for phase in below above; do
	i=0
	while [ $i -lt {FEED_STEPS} ]; do
		sleep {FEED_PERIOD_S}
		for k in 0 1; do echo update_schemes_effective_quotas >$DAMON_ADMIN/kdamonds/$k/state; done
		echo "$(cut -d' ' -f1 /proc/uptime) $phase {eff}" >>"$OUT/quota.txt"
		i=$((i + 1))
	done
	printf '1,latency_default,100,ns\\n1,latency_alternate,50,ns\\n' >/tmp/lat.csv
done
stop_pid "$f"
settings_restore || echo settings_not_restored >>"$OUT/problem.txt"
echo "$(cat $DAMON_ADMIN/kdamonds/nr_kdamonds)" >>"$OUT/nr_kdamonds_after.txt"
"""


def node_pages(numa_maps: str, node: int) -> tuple[int, int]:
    """(pages on node, pages) of the largest mapping of a numa_maps snapshot."""
    best = (0, 0)
    for line in numa_maps.splitlines():
        nodes = {int(k[1:]): int(v) for k, _, v in (w.partition("=") for w in line.split()[2:])
                 if k[:1] == "N" and k[1:].isdigit() and v.isdigit()}
        if sum(nodes.values()) > best[1]:
            best = (nodes.get(node, 0), sum(nodes.values()))
    return best


def last_whole(f: dict, name: str, node: int, pages: int) -> tuple[int, int]:
    """The last snapshot of the series showing the whole mapping (one taken while the process
    exits can show it partly unmapped), else the last one."""
    snaps = [node_pages(x, node) for x in f[f"{name}_series.txt"].read_text().split("@")[1:]]
    return next((x for x in reversed(snaps) if x[1] == pages), snaps[-1] if snaps else (0, 0))


@pytest.mark.vm
def test_damon_tiering_and_its_colloid_quota_in_the_cxl_guest(tmp_path_factory, tmp_path):
    import time

    from conftest import guest_built_or_skip
    from test_qemu_guest import BOOT_TIMEOUT_S, _context, guest

    guest_built_or_skip(guest)
    script = tmp_path / "damon.sh"
    script.write_text(guest_script())
    t0 = time.monotonic()
    # DAMON's adaptive regions find A's 32 MiB hot area within node 1's 512 MiB by sampling; in one
    # loaded make test (2026-11-26) they never did in A's 30 s under TCG (A stayed on node 1 while
    # the promotion scheme moved 40 MiB of other hot memory of node 1): such a boot is reported and
    # the guest booted once more, the second boot's result asserted
    for attempt in (1, 2):
        res = guest.run(timeout=BOOT_TIMEOUT_S, out=tmp_path_factory.mktemp("qemu-damon"), stream=False, topology="cxl",
                        script=script)
        assert res.outcome == "exited", _context(res)
        f = {k: Path(v) for k, v in res.files.items()}
        facts = guest.guest_facts(f["facts.txt"].read_text())
        assert damon.preconditions(facts, 0, 1) is None and damon.preconditions(facts, 0, 1, True) is None
        assert "problem.txt" not in f, (f["problem.txt"].read_text(), f.get("damon.err") and f["damon.err"].read_text())
        assert f["states_on.txt"].read_text().split() == ["on", "on"]
        assert f["ga.rc"].read_text().strip() == "0" and f["gb.rc"].read_text().strip() == "0", f["ga.err"].read_text()
        # (1) promoted and demoted: GUPS A's pages reached node 0, B's cold pages node 1, in the
        # kernel's own counts (DAMOS stats, pgmigrate_success) and in the processes' numa_maps
        spec = damon.scenario_spec(0, 1, "6.12", False, expect="promote")
        rows, why = damon.stats_rows(spec, f["damon_stats.txt"].read_text())
        got = {r["metric"]: r["value"] for r in rows}
        assert why is None and got["damos_demote_sz_applied"] > 0, (got, f["regions.txt"].read_text())
        delta = memtiers.moves_delta(f["vmstat_before.txt"].read_text(), f["vmstat_after.txt"].read_text())
        assert memtiers.moved_nothing(delta, "migrate") is None, delta
        # nothing else moved pages: NUMA balancing was off (no pgpromote_*), node 0 never short of
        # memory (no reclaim demotion, pgdemote_*): every move is DAMON's
        assert not any(v for k, v in delta.items() if k.startswith(("pgpromote_", "pgdemote_"))), delta
        # A was placed on node 1 and B on node 0 by their binding before the unbind: a page of A on
        # node 0 was promoted, a page of B on node 1 demoted (first snapshot once both were ready,
        # before DAMON started; the last whole one before each exited)
        a0, a1 = node_pages(f["ga_start.txt"].read_text(), 0), last_whole(f, "ga", 0, 8192)
        if a1[0] >= A_PROMOTED_MIN or attempt == 2:
            break
        print(f"damon guest: boot {attempt}: {a1[0]} of A's {a1[1]} pages on node 0 (promotion applied "
              f"{got['damos_promote_sz_applied'] >> 10} KiB of other memory); booting once more")
    b0, b1 = node_pages(f["gb_start.txt"].read_text(), 1), last_whole(f, "gb", 1, 32768)
    b_series = [node_pages(x, 1)[0] for x in f["gb_series.txt"].read_text().split("@")[1:]]
    assert a1[1] == 8192 and a1[0] >= A_PROMOTED_MIN and b1[1] == 32768, (a0, a1, b0, b1)
    # B's own cold pages reached node 1. Before, its young filter was written inverted (it kept
    # only young pages: B's cold ones never qualified, other recently touched memory of node 0
    # did); the memcg filter now also keeps the scheme on B's pages alone
    assert b1[0] >= B_DEMOTED_MIN, (b0, b1, b_series, got)
    # its hot pages (young) stayed while its cold ones went: at the last whole snapshot, or at one
    # once the demotion had moved at least B_DEMOTED_MIN pages (under TCG the accessed bits are
    # sampled seldom, and one run kept 1536-2048 hot pages through the demotion and 512 at the end)
    kept = [b1[1] - n for n in [*b_series, b1[0]] if n >= B_DEMOTED_MIN]
    assert max(kept) >= B_HOT_KEPT_MIN, (b0, b1, b_series)
    # every page of B that reached node 1 went there through the demotion scheme (NUMA balancing off)
    assert got["damos_demote_sz_applied"] >= (b1[0] - b0[0]) * 4096, (got, b0, b1)
    anon_n1 = [int(dict(kv.split("=") for kv in ln.split()[1:]).get("N1", 0))
               for ln in f["gb_numa_stat.txt"].read_text().splitlines()]
    assert max(anon_n1) >= B_DEMOTED_MIN * 4096, anon_n1  # the cgroup's own count agrees
    assert f["nr_kdamonds_after.txt"].read_text().split() == ["0", "0"]  # removed after each part
    # (2) the Colloid variant: fed L_D/L_A = 0.5 the promotion quota grows and the relieving one
    # stays at its floor; fed 2 the promotion quota falls back and the relieving one grows
    fed = damon.feed_rows(f["feed.txt"].read_text())
    assert {r["value"] for r in fed if r["metric"] == "damon_goal_promote"} >= {5000, 20000}
    q = [ln.split() for ln in f["quota.txt"].read_text().splitlines()]
    below = [(int(p), int(r)) for _, ph, p, r in q if ph == "below"]
    above = [(int(p), int(r)) for _, ph, p, r in q if ph == "above"]
    peak_p, peak_r = max(p for p, _ in below), max(r for _, r in above)
    assert peak_p > 100 * max(below[0][0], 1) and above[-1][0] < peak_p / 100, (below, above)
    assert max(r for _, r in below) < peak_r / 100 and peak_r > 100 * max(above[0][1], 1), (below, above)
    print(f"damon guest: {time.monotonic() - t0:.0f} s; promote {got['damos_promote_sz_applied'] >> 10} KiB "
          f"({a0[0]}->{a1[0]} of {a1[1]} pages of A on node 0), demote {got['damos_demote_sz_applied'] >> 10} KiB "
          f"({b0[0]}->{b1[0]} of {b1[1]} pages of B on node 1; each second: {b_series}; B's cgroup anon "
          f"N1 at most {max(anon_n1) >> 20} MiB), pgmigrate_success +{delta.get('pgmigrate_success')}; "
          f"promote quota below 1: {below[0][0]} -> {peak_p} B, above 1: -> {above[-1][0]} B; "
          f"relieve quota above 1: {above[0][1]} -> {peak_r} B")


EXEMPT_GUEST = "exempta"  # the exempt test's cgroup: /sys/fs/cgroup/tierbench/exempta (cgroup v2)


def exempt_script() -> str:
    """One boot: two unbound GUPS of 32 MiB, all of it hot, first touched on the CPU-less node 1:
    A in a memory cgroup of its own, C not; DAMON tiering with ``exempt_memcg`` on A's cgroup
    (a real point's filter for its filler and tierd); numa_maps every second, the DAMOS stats."""
    plan = damon.tiering_plan(0, 1, None, "6.12", colloid=False, exempt_memcg=f"/tierbench/{EXEMPT_GUEST}")
    g = f'"$BIN/gups" --unbind-after-touch --object-size 64 --op rmw --duration {GUPS_S} --seed 1 --mem-node 1 ' \
        '--working-set 32M --hot-set 0'
    return f"""# generated by tests/test_damon.py (exempt_script)
. /lib/tierbench/lib.sh
BIN=/opt/tierbench/bin
settings_set /proc/sys/kernel/numa_balancing 0 || echo numa_balancing >>"$OUT/problem.txt"
[ -e /sys/fs/cgroup/cgroup.controllers ] || mount -t cgroup2 none /sys/fs/cgroup || echo cgroup2 >>"$OUT/problem.txt"
resource_cgroup {EXEMPT_GUEST} 2>>"$OUT/damon.err" || echo cgroup >>"$OUT/problem.txt"
sh -c 'echo $$ >"$0" && exec "$@"' "$CGROUP_ROOT/tierbench/{EXEMPT_GUEST}/cgroup.procs" \\
	{g} --cpus 0 --pid-file /tmp/ga.pid >"$OUT/ga.csv" 2>"$OUT/ga.err" &
ga=$!
{g} --cpus 1 --pid-file /tmp/gc.pid >"$OUT/gc.csv" 2>"$OUT/gc.err" &
gc=$!
wait_for_file /tmp/ga.pid 120 "$ga" && wait_for_file /tmp/gc.pid 120 "$gc" || echo gups_not_ready >>"$OUT/problem.txt"
{guest_setup(plan)}
running() {{ s=$(awk '{{ print $3 }}' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ]; }}
while running "$ga" || running "$gc"; do
	for p in ga:$ga gc:$gc; do
		if cat "/proc/${{p#*:}}/numa_maps" >/tmp/nm 2>/dev/null && [ -s /tmp/nm ]; then
			{{ echo "@ $(cut -d' ' -f1 /proc/uptime)"; cat /tmp/nm; }} >>"$OUT/${{p%%:*}}_series.txt"
		fi
	done
	sleep 1
done
wait "$ga"; echo "$?" >"$OUT/ga.rc"
wait "$gc"; echo "$?" >"$OUT/gc.rc"
damon_stats "$OUT/damon_stats.txt" {" ".join(f"{k}:{s}" for k, s, _ in damon.schemes_of(plan))}
settings_restore || echo settings_not_restored >>"$OUT/problem.txt"
"""


@pytest.mark.vm
def test_damon_leaves_an_exempt_cgroup_alone_in_the_cxl_guest(tmp_path_factory, tmp_path):
    """What keeps a DAMON point's filler and tierd's probe buffers where they are, on the guest's
    6.12 kernel: two equally hot GUPS on node 1, A in the exempt cgroup and C not. DAMON promotes
    C and leaves every page of A on node 1 (two boots here: A 0 of 8192 pages on node 0 both
    times, C 7680 and 8192). DAMON's regions may miss a hot area under TCG (see the test above):
    a boot where C was not promoted proves nothing about A, so it is booted once more."""
    from conftest import guest_built_or_skip
    from test_qemu_guest import BOOT_TIMEOUT_S, _context, guest

    guest_built_or_skip(guest)
    script = tmp_path / "exempt.sh"
    script.write_text(exempt_script())
    for attempt in (1, 2):
        res = guest.run(timeout=BOOT_TIMEOUT_S, out=tmp_path_factory.mktemp("qemu-damon-exempt"), stream=False,
                        topology="cxl", script=script)
        assert res.outcome == "exited", _context(res)
        f = {k: Path(v) for k, v in res.files.items()}
        assert "problem.txt" not in f, (f["problem.txt"].read_text(), f.get("damon.err") and f["damon.err"].read_text())
        assert f["ga.rc"].read_text().strip() == "0" and f["gc.rc"].read_text().strip() == "0", f["ga.err"].read_text()
        a, c = last_whole(f, "ga", 0, 8192), last_whole(f, "gc", 0, 8192)
        if c[0] >= A_PROMOTED_MIN or attempt == 2:
            break
        print(f"damon exempt guest: boot {attempt}: {c[0]} of C's {c[1]} pages on node 0; booting once more")
    stats = f["damon_stats.txt"].read_text()
    assert c == (c[0], 8192) and c[0] >= A_PROMOTED_MIN, (a, c, stats)  # DAMON promoted the hot memory it may move
    assert a == (0, 8192), (a, c, stats)  # and none of the exempt cgroup's
    print(f"damon exempt guest: A (exempt) {a[0]} of {a[1]} pages on node 0, C {c[0]} of {c[1]}; stats {stats!r}")


@pytest.mark.vm
def test_damon_points_through_the_workflow_in_the_cxl_guest(with_damon, monkeypatch, tmp_path):
    """The tiering family's DAMON points, without and with Colloid, for real in the guest through
    the workflow's own path (guestrun's batch, each point parsed as its job would): GUPS starts
    on the alternate node, so the promotion scheme must move bytes and pgmigrate_success rise (a
    point that moved nothing fails); with Colloid, tierd --dry-run measures the tiers' latencies
    (its probe source: no PMU under TCG) and the feeder writes them into the goals (whether it
    then promotes follows the ratio, which TCG makes arbitrary)."""
    import dataclasses
    import json

    from conftest import guest_facts_or_skip

    from analysis.frame import load
    from families.tiering import real
    from workflows.harness import guestrun, plan
    from workflows.harness.point import run_guest

    if not (REPO / "colloid/src/policy_damon.c").exists():  # the model policy tierd would run dry
        s = with_damon
        monkeypatch.setitem(systems.SYSTEMS, "damon", dataclasses.replace(
            s, real_colloid=dataclasses.replace(s.real_colloid, meter="tpp")))
    r, facts = guest_facts_or_skip()
    assert damon.preconditions(facts, 0, 1, True) is None, facts.get("damon")
    cfg, host = qemu_host(facts)
    cfg["tiering"]["intensities"] = [0]
    cfg["tiering"]["real"].update(start_tier="alternate", duration_s=10)
    rows = [x for x in real.points(cfg, host) if x["point"].startswith("numa-damon")]
    assert [x["point"] for x in rows] == ["numa-damon-c0-i0", "numa-damon-c1-i0"]
    # the guest's /init mounts cgroup v2: the filler, and with Colloid tierd, run in the exempt cgroup
    assert facts["damon"]["memcg"] == "v2"
    for row in rows:
        sc = row["run"]["scenario"]
        assert sc["cgroup"] == damon.EXEMPT_CGROUP
        assert [r["tool"] for r in sc["roles"] if r.get("cgroup")] == ["filler"] + ["tierd"] * row["context"]["colloid"]
    batch = tmp_path / "batch"
    assert guestrun.run({"runner": r, "points": {plan.key(x): x for x in rows}}, batch, tmp_path / "results") == 0
    (tmp_path / "facts.json").write_text(json.dumps(facts))
    for row in rows:
        out = tmp_path / plan.key(row)
        out.mkdir(parents=True)
        assert run_guest(row, out, batch, tmp_path / "facts.json", "qemu") == 0
        df = load(out / "result.csv")
        v = df[df["t_s"].isna()].set_index("metric")["value"] if "t_s" in df else df.set_index("metric")["value"]
        if not row["context"]["colloid"]:
            assert v["damos_promote_sz_applied"] > 0 and v["kernel_pgmigrate_success"] > 0, v.to_dict()
        else:  # what it promotes follows the measured latencies (TCG: any ratio); the feedback ran
            goals = df[df["metric"] == "damon_goal_promote"]["value"]
            assert len(goals) >= 2 and (goals > 0).all(), df[df["metric"].str.startswith("damon_goal")]
            assert v["latency_default"] > 0 and v["latency_alternate"] > 0
        moved_back = [ln for ln in (out / "guest.log").read_text().splitlines() if "probe buffer" in ln] \
            if (out / "guest.log").exists() else []
        print(row["point"], moved_back or "", {k: x for k, x in v.items() if str(k).startswith(("damos_promote", "damos_demote_sz",
                                                                               "kernel_pgmigrate_success"))},
              "goals" if row["context"]["colloid"] else "", list(df[df["metric"] == "damon_goal_promote"]["value"])[:6])


def test_a_failed_point_stops_the_feeder_and_removes_damon(tmp_path, monkeypatch):
    """The workload fails while DAMON runs and the feeder writes: the point fails, the feeder is
    stopped by pid and the kdamonds are turned off and removed (the settings journal) all the same."""
    from workflows.harness.procs import Supervisor
    from workflows.harness.settings import Settings

    spec = damon.scenario_spec(0, 1, "6.12.1", True, feed_csv="tierd.csv", feed_period_s=0.2)
    admin, sys_root = standin(tmp_path, spec, {0: [0], 1: [8]})
    monkeypatch.setattr(damon, "ADMIN", admin)
    monkeypatch.setattr(damon, "SYS", sys_root)
    sc = feeding_scenario(spec)
    scenario.workload_of(sc)["argv"] = ["sh", "-c", "sleep 1; exit 3"]
    journal = tmp_path / "journal.json"
    with pytest.raises(scenario.PointFailed, match="status 3"):
        with Settings(journal) as s, Supervisor() as sup:
            hr = scenario.HostRun(sc, tmp_path, sup, s)
            try:
                hr.execute()
            finally:
                feeder = hr.children[scenario.FEEDER]
    assert not feeder.alive() and not journal.exists()
    assert (admin / "kdamonds/nr_kdamonds").read_text().strip() == "0"
    assert all((admin / f"kdamonds/{k}/state").read_text().strip() == "off" for k in (0, 1))


def test_a_busy_sysfs_read_is_tried_again(tmp_path, monkeypatch):
    """DAMON's state file is read under damon_sysfs_lock too (state_show(), with trylock since
    "mm/damon/sysfs: fix use-after-free in state_show()"): journaling or restoring a kdamond's
    state tries a busy read again instead of failing with a traceback."""
    import errno

    from workflows.harness import settings

    f = tmp_path / "state"
    f.write_text("on\n")
    refusals = [3]
    real = Path.read_text

    def fake(self, *a, **k):
        if self == f and refusals[0] > 0:
            refusals[0] -= 1
            raise OSError(errno.EBUSY, "Device or resource busy")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "read_text", fake)
    monkeypatch.setattr(settings, "BUSY_WAIT_S", 0)
    assert settings.read_value(str(f)) == "on" and refusals[0] == 0
    refusals[0] = 10**6
    with pytest.raises(OSError) as e:
        settings.read_value(str(f))
    assert e.value.errno == errno.EBUSY


def test_a_busy_sysfs_write_is_tried_again_and_other_errors_are_not(tmp_path, monkeypatch):
    """DAMON's sysfs files return EBUSY while a running kdamond holds damon_sysfs_lock
    (mm/damon/sysfs.c: mutex_trylock in state_store): settings.write_file tries such a write
    again (what the guest's lib.sh sysfs_write does too), a lasting EBUSY and any other error
    still fail."""
    import builtins
    import errno

    from workflows.harness import settings

    refusals = {"busy": 3, "stuck": 10**6, "bad": 0}
    real = builtins.open

    def fake(path, mode="r", *a, **k):
        name = Path(path).name
        if "w" in mode and name == "bad":
            raise OSError(errno.EINVAL, "Invalid argument")
        if "w" in mode and refusals.get(name, 0) > 0:
            refusals[name] -= 1
            raise OSError(errno.EBUSY, "Device or resource busy")
        return real(path, mode, *a, **k)

    monkeypatch.setattr(settings, "open", fake, raising=False)
    monkeypatch.setattr(settings, "BUSY_WAIT_S", 0)
    settings.write_file(tmp_path / "busy", "on")
    assert (tmp_path / "busy").read_text() == "on" and refusals["busy"] == 0
    with pytest.raises(OSError) as e:
        settings.write_file(tmp_path / "stuck", "on")
    assert e.value.errno == errno.EBUSY and refusals["stuck"] == 10**6 - settings.BUSY_TRIES - 1
    with pytest.raises(OSError) as e:
        settings.write_file(tmp_path / "bad", "on")
    assert e.value.errno == errno.EINVAL
