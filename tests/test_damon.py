"""DAMON tiering through sysfs (workflows/harness/damon.py): the plan, its writes, start/feed/stop
against a stand-in of the sysfs tree, preconditions. The kernel's behaviour itself is checked in
the >= 6.12 QEMU guest; this machine's kernel has no DAMON tiering to run against."""

from __future__ import annotations

from pathlib import Path

import pytest

from workflows.harness import ConfigError, damon
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
    assert w["kdamonds/1/contexts/0/schemes/0/filters/0/matching"] == "N"  # demote only non-young pages
    assert w["kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_metric"] == "node_mem_used_bp"
    # on 6.12 (trixie, bookworm-backports) there are no node-memory goals: fixed quotas, said so
    plan = damon.tiering_plan(0, 1, RANGES, "6.12.48+deb13-amd64")
    assert plan.contexts[0].schemes[0].node_goal is None and plan.notes
    assert "quotas/goals/nr_goals" not in " ".join(dict(damon.writes(plan)))


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


def test_missing_names_what_the_kernel_lacks(tmp_path):
    assert "absent" in damon.missing("6.12.1", False, tmp_path / "nope")
    admin = tmp_path / "admin"
    (admin / "kdamonds").mkdir(parents=True)
    (admin / "kdamonds/nr_kdamonds").write_text("0\n")
    assert "6.11" in damon.missing("6.1.0-27-amd64", False, admin)  # Debian 12's kernel
    assert damon.missing("6.12.1", True, admin) is None
    (admin / "kdamonds/nr_kdamonds").write_text("1\n")
    assert "in use" in damon.missing("6.12.1", False, admin)
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
