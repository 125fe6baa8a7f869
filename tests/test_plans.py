"""Point plans of the tiering family for a real two-tier host (synthetic facts: this machine has one node)."""

from __future__ import annotations

import pytest
from test_profiles import two_socket_facts

from families.tiering import model, real
from workflows.harness import ConfigError, plan, profile


def cfg(**tiering):
    return profile.validate_config({"scale": "t", "tiering": tiering})


def host(name="icelake-2s", root=True) -> plan.Host:
    facts = two_socket_facts()
    facts["privileges"] = {"root": root}
    return plan.Host(profile.resolve(name, facts), facts)


def by_id(rows):
    return {f"{r['experiment']}/{r['point']}": r for r in rows}


def role(row, name):
    return next((r for r in row["run"]["scenario"]["roles"] if r["name"] == name), None)


def arg(r, flag):
    return r["argv"][r["argv"].index(flag) + 1]


def test_two_tier_host_runs_real_family_not_model():
    fp = plan.build(cfg(), host()).families["tiering"]
    assert fp.info.profile == "icelake-2s" and fp.info.comparable_to == ["colloid-sosp24"]
    assert {r["executor"] for r in fp.rows} == {"host"}
    pts = by_id(fp.rows)
    assert {p["experiment"] for p in pts.values()} == {"steady_state", "hotset_move", "contention_change",
                                                       "contention_single_node"}
    # GUPS alone and beside the antagonist on the default node: what the host's model is calibrated on
    single = {k: p for k, p in pts.items() if p["experiment"] == "contention_single_node"}
    assert sorted(p["context"]["intensity"] for p in single.values()) == [0, 1, 2, 3]
    for p in single.values():
        g, a = role(p, "gups"), role(p, "antagonist")
        assert arg(g, "--mem-node") == "0" and arg(g, "--cpus") == "0-14"
        assert a is None if p["context"]["intensity"] == 0 else (arg(a, "--mem-node") == "0")
    pt = pts["steady_state/numa-hemem-c1-i3"]
    g, a, t = role(pt, "gups"), role(pt, "antagonist"), role(pt, "tierd")
    assert arg(g, "--mem-node") == "1", "GUPS starts on the alternate tier"
    assert arg(g, "--cpus") == "0-14"
    # and reports how much of its hot set is off the default node (compared with the model's)
    assert all(arg(role(p, "gups"), "--hot-placement") == "0" for k, p in pts.items()
               if p["experiment"] != "contention_single_node")
    assert all("--hot-placement" not in role(p, "gups")["argv"] for p in single.values())
    assert arg(a, "--cpus") == "15-29", "3x = 15 antagonist cores"
    assert arg(a, "--mem-node") == "0", "antagonist on the default tier"
    assert arg(t, "--tiers") == "0,1" and t["kind"] == "attach" and t["target_pid"] == "--pid"
    assert pt["run"]["scenario"]["settings"] == {"numa_balancing": "0"}
    assert role(pts["steady_state/numa-hemem-c0-i0"], "antagonist") is None
    assert pt["context"]["colloid"] is True and pts["steady_state/numa-hemem-c0-i0"]["context"]["colloid"] is False


def cxl_host(tiers=None) -> plan.Host:
    """A CXL-like host: node 0 with CPUs, CPU-less node 2 in a lower memory tier (memory_tier22 is
    what a CXL node's HMAT-derived abstract distance gives; any N above 4 is lower)."""
    facts = two_socket_facts()
    facts["privileges"] = {"root": True}
    facts["memory_tiers"] = tiers if tiers is not None else {"4": [0, 1], "22": [2]}
    facts["nodes"]["2"]["memory_mib"] = 1 << 17
    return plan.Host(profile.resolve("cxl-cpuless", facts), facts)


def test_tpp_without_colloid_is_the_kernel_tiering_mode():
    pts = by_id(real.points(cfg(), cxl_host(), knob_exists=lambda p: True))
    off, on = pts["steady_state/numa-tpp-c0-i1"], pts["steady_state/numa-tpp-c1-i1"]
    assert role(off, "tierd") is None
    sc = off["run"]["scenario"]
    assert sc["settings"] == {"numa_balancing": "2", "demotion_enabled": "true"}
    assert "--unbind-after-touch" in role(off, "gups")["argv"], "NUMA balancing skips a bound buffer"
    assert sc["swap_off"] is True and sc["vmstat"] == {"expect": "promote"}, "GUPS starts on the CXL node"
    assert arg(role(on, "tierd"), "--policy") == "tpp" and "sign-only" in on["run"]["note"]
    hemem = pts["steady_state/numa-hemem-c0-i1"]
    assert "--unbind-after-touch" not in role(hemem, "gups")["argv"] and "vmstat" not in hemem["run"]["scenario"]
    bg = [r["name"] for r in sc["roles"] if r["kind"] == "background"]
    assert bg == ["antagonist", "filler"], "the filler holds the default node once the antagonist has its buffers"
    f = role(off, "filler")["argv"]
    assert f[f.index("--mem-node") + 1] == "0" and f[f.index("--leave") + 1] == "24576M", "tierd's default_capacity"
    late = pts["contention_change/numa-tpp-c0-i0to3"]
    f = role(late, "filler")["argv"]
    assert f[f.index("--leave") + 1] == f"{24576 + 6 * 1024}M", "and room for the 3 x 2 antagonists' 1G buffers (they start late)"
    assert "held to 24G by a filler" in off["run"]["note"]
    start_default = by_id(real.points(cfg(real={"start_tier": "default", "working_set": "32G"}), cxl_host(),
                                      knob_exists=lambda p: True))
    assert start_default["steady_state/numa-tpp-c0-i1"]["run"]["scenario"]["vmstat"] == {"expect": "demote"}
    auto = by_id(real.points(cfg(real={"default_capacity": "auto"}), cxl_host(), knob_exists=lambda p: True))
    assert role(auto["steady_state/numa-tpp-c0-i1"], "filler") is None
    assert "no filler" in auto["steady_state/numa-tpp-c0-i1"]["run"]["note"]


def test_kernel_tpp_left_out_where_both_nodes_have_cpus():
    """A two-socket host: both CPU nodes in memory_tier4, so kernel TPP is left out with its reason
    (and its knobs are not needed); tierd's TPP with Colloid still runs."""
    h = host()
    h.facts["memory_tiers"] = {"4": [0, 1, 2]}
    pts = by_id(real.points(cfg(), h, knob_exists=lambda p: "demotion" not in p))
    assert "steady_state/numa-tpp-c0-i1" not in pts and "steady_state/numa-tpp-c1-i1" in pts
    fp = plan.build(cfg(), h).families["tiering"]
    why = fp.absent["tiering: kernel TPP"]
    assert "same memory tier (memory_tier4)" in why and "both nodes have CPUs" in why and "still runs" in why
    assert not any(r["point"].startswith("numa-tpp-c0") for r in fp.rows)
    # printed before any job (workflows/rules/common.smk); the other notes are kernel DAMON's (no DAMON sysfs in these facts)
    assert [n for n in fp.notes if "kernel DAMON" not in n] == [f"left out: tiering: kernel TPP: {why}"]


def test_contention_change_delays_the_antagonist():
    pt = by_id(real.points(cfg(), host(), knob_exists=lambda p: True))["contention_change/numa-memtis-c1-i0to3"]
    assert role(pt, "antagonist")["start_after_s"] == 100 and pt["run"]["event_t_s"] == 100


@pytest.mark.parametrize("setup, needle", [
    (dict(root=False), "run as root"),
    (dict(cfg_over={"intensities": [0, 4]}), "intensities/1: 4 is greater than the maximum of 3"),
])
def test_real_family_rejections(setup, needle):
    h = host(root=setup.get("root", True))
    with pytest.raises(ConfigError, match=needle):
        real.points(cfg(**setup.get("cfg_over", {})), h, knob_exists=lambda p: True)


def test_intensity_beyond_granted_cores():
    h = host("cxl-cpuless")  # 8 antagonist CPUs, 2 per unit
    c = profile.validate_config({"scale": "t"})
    c["tiering"]["intensities"] = [0, 3, 4.5]  # bypass the schema's 0-3 bound to reach the core check
    with pytest.raises(ConfigError, match=r"intensity 4.5 needs 9 antagonist cores"):
        real.points(c, h, knob_exists=lambda p: True)


def test_tpp_needs_kernel_tiering_knobs():
    with pytest.raises(ConfigError, match="demotion_enabled"):
        real.points(cfg(), cxl_host(), knob_exists=lambda p: "demotion" not in p)


def test_reps_repeat_points_and_reseed_model_runs():
    """A second repetition: rep 1 rows beside rep 0; a model point runs with seed + 1, a measured
    point repeats the same command."""
    facts = {"hostname": "h", "nodes": {"0": {"cpus": [0, 1], "memory_mib": 8192}}, "memory_nodes": [0], "cpu_nodes": [0],
             "online_cpus": [0, 1], "allowed_cpus": [0, 1], "tools": {"fio": "/usr/bin/fio"}, "privileges": {"root": True}}
    h = plan.Host(profile.resolve("auto", facts), facts)
    c = profile.validate_config({"scale": "t", "reps": 2})
    pl = plan.build(c, h)
    assert "tiering/steady_state/hemem-c1-i3/rep1" in pl.points
    r0, r1 = pl.points["tiering/steady_state/hemem-c1-i3/rep0"], pl.points["tiering/steady_state/hemem-c1-i3/rep1"]
    s0, s1 = r0["run"]["argv"], r1["run"]["argv"]
    assert int(s1[s1.index("--seed") + 1]) == int(s0[s0.index("--seed") + 1]) + 1
    assert r1["context"]["rep"] == 1 and r0["context"]["rep"] == 0
    m0, m1 = pl.points["characterize/idle_latency/c0-m0/rep0"], pl.points["characterize/idle_latency/c0-m0/rep1"]
    assert m0["run"]["scenario"] == m1["run"]["scenario"]
    assert sum(r["rep"] == 1 for r in pl.points.values()) == sum(r["rep"] == 0 for r in pl.points.values())


# tiering configs tiersim refuses, and the line the planner says (also run against tiersim --check
# in test_tiersim_check.py)
BAD_TIERING = [
    ({"duration_s": 50.5}, r"tiering/duration_s: a run lasts a whole number of simulated seconds"),
    ({"system_duration_s": {"tpp": 29.5}}, r"tiering/system_duration_s/tpp: a run lasts a whole number"),
    ({"duration_s": 1, "average_last_s": 1}, r"tiering/duration_s: a steady-state run needs at least 2 s"),
    ({"duration_s": 10, "average_last_s": 30}, r"average_last_s: 30 s is longer than the run \(duration_s: 10 s\)"),
    ({"dynamics": {"system_event_at_s": {"hemem": -5}}}, r"dynamics/system_event_at_s/hemem: the event time must be >= 0"),
    ({"dynamics": {"event_at_s": 10.5}}, r"dynamics \(event \+ after event, hemem\): a run lasts a whole number"),
    ({"workload": {"hot_set": "100G"}}, r"workload/hot_set: 100G is larger than the working set \(72G\)"),
    ({"workload": {"working_set": "1M"}}, r"workload/working_set: 1M is smaller than one region"),
    ({"workload": {"hot_set": "40G"}}, r"hot-set move needs a hot set at most half the working set"),
    ({"workload": {"working_set": "200G"}}, r"capacity_gib \(24 \+ 72 GiB\) do not hold the working set \(200G\)"),
]


@pytest.mark.parametrize("tiering, needle", BAD_TIERING)
def test_tiering_config_checked_as_tiersim_would(tiering, needle):
    """What tiersim refuses stops the run at planning, one line naming the key, not inside 240 jobs."""
    config = cfg(**tiering)
    mprof = profile.resolve("paper-testbed", {"nodes": {}})
    with pytest.raises(ConfigError, match=needle) as e:
        model.points(config, plan.Host(mprof, {"nodes": {}}), mprof)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("observe, damon_ok, perf_ok, needle", [
    ("damon", False, True, "tiering/real/observe: damon: kernel 6.1.0-27-amd64 is older than 6.2"),
    ("auto", False, False, "tiering/real/observe: auto: tierd would find neither perf samples"),
    ("auto", True, False, None),
    ("perf", False, True, None),
])
def test_tierd_observation_checked_up_front(observe, damon_ok, perf_ok, needle):
    h = cxl_host()
    h.facts["damon"] = {"sysfs": True, "usable_by_tierd": damon_ok,
                        "reason": "present" if damon_ok else "kernel 6.1.0-27-amd64 is older than 6.2: ..."}
    h.facts["perf_counters"] = {"available": perf_ok, "reason": "no hardware PMU exposed"}
    c = cfg(real={"observe": observe})
    if needle is None:
        assert real.points(c, h, knob_exists=lambda p: True)
    else:
        with pytest.raises(ConfigError, match=needle):
            real.points(c, h, knob_exists=lambda p: True)


def test_a_default_node_too_small_for_the_contention_points_leaves_them_out_and_says_why():
    """On a two-tier host the contention points only calibrate its model: where their working set
    does not fit the default node they are left out, said before any job, and the rest runs."""
    fp = plan.build(cfg(contention={"working_set": "200G", "hot_set": "1G"}), host()).families["tiering"]
    assert "contention_single_node" not in {r["experiment"] for r in fp.rows} and fp.rows
    why = fp.absent["tiering: contention_single_node"]
    assert "200G does not fit the default node 0 (131072 MiB)" in why and "not calibrated" in why
