"""Point plans for a real two-tier host (synthetic facts: this machine has one node)."""

from __future__ import annotations

import pytest
from test_profiles import two_socket_facts

from workflows.harness import ConfigError, plans, profile


def cfg(**tiering):
    return profile.validate_config({"scale": "t", "tiering": tiering})


def resolve(name="icelake-2s", root=True):
    facts = two_socket_facts()
    facts["privileges"] = {"root": root}
    return profile.resolve(name, facts), facts


def test_two_tier_host_runs_real_family_not_model():
    prof, facts = resolve()
    plan = plans.build(cfg(), prof, facts)
    assert plan["tiering"] == {} and plan["model_profile"] is None
    real = plan["real_tiering"]
    assert {p["experiment"] for p in real.values()} == {"steady_state", "hotset_move", "contention_change"}
    pt = real["steady_state/hemem-c1-i3"]
    assert pt["gups"][pt["gups"].index("--mem-node") + 1] == "1", "GUPS starts on the alternate tier"
    assert pt["gups"][pt["gups"].index("--cpus") + 1] == "0-14"
    assert pt["antagonist"][pt["antagonist"].index("--cpus") + 1] == "15-29", "3x = 15 antagonist cores"
    assert pt["antagonist"][pt["antagonist"].index("--mem-node") + 1] == "0", "antagonist on the default tier"
    assert pt["tierd"][pt["tierd"].index("--tiers") + 1] == "0,1"
    assert pt["settings"] == {"numa_balancing": "0"}
    assert real["steady_state/hemem-c0-i0"]["antagonist"] is None


def test_tpp_without_colloid_is_the_kernel_tiering_mode():
    prof, facts = resolve()
    real = plans.real_tiering_points(cfg(), prof, facts, knob_exists=lambda p: True)
    off, on = real["steady_state/tpp-c0-i1"], real["steady_state/tpp-c1-i1"]
    assert off["tierd"] is None and off["settings"] == {"numa_balancing": "2", "demotion_enabled": "true"}
    assert on["tierd"][on["tierd"].index("--policy") + 1] == "tpp" and "sign-only" in on["note"]


def test_contention_change_delays_the_antagonist():
    prof, facts = resolve()
    pt = plans.real_tiering_points(cfg(), prof, facts, knob_exists=lambda p: True)["contention_change/memtis-c1-i0to3"]
    assert pt["antagonist_delay_s"] == 100 and pt["event_t_s"] == 100


@pytest.mark.parametrize("setup, needle", [
    (dict(root=False), "run as root"),
    (dict(cfg_over={"intensities": [0, 4]}), "intensities/1: 4 is greater than the maximum of 3"),
])
def test_real_family_rejections(setup, needle):
    prof, facts = resolve(root=setup.get("root", True))
    with pytest.raises(ConfigError, match=needle):
        plans.real_tiering_points(cfg(**setup.get("cfg_over", {})), prof, facts, knob_exists=lambda p: True)


def test_intensity_beyond_granted_cores():
    prof, facts = resolve("cxl-cpuless")  # 8 antagonist CPUs, 2 per unit
    c = profile.validate_config({"scale": "t"})
    c["tiering"]["intensities"] = [0, 3, 4.5]  # bypass the schema's 0-3 bound to reach the core check
    with pytest.raises(ConfigError, match=r"intensity 4.5 needs 9 antagonist cores"):
        plans.real_tiering_points(c, prof, facts, knob_exists=lambda p: True)


def test_tpp_needs_kernel_tiering_knobs():
    prof, facts = resolve()
    with pytest.raises(ConfigError, match="demotion_enabled"):
        plans.real_tiering_points(cfg(), prof, facts, knob_exists=lambda p: "demotion" not in p)


@pytest.mark.parametrize(
    "tiering, needle",
    [
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
    ],
)
def test_tiering_config_checked_as_tiersim_would(tiering, needle):
    """What tiersim refuses stops the run at planning, one line naming the key, not inside 240 jobs."""
    config = cfg(**tiering)
    mprof = profile.resolve("paper-testbed", {"nodes": {}})
    with pytest.raises(ConfigError, match=needle) as e:
        plans.tiering_points(config, mprof)
    assert "\n" not in str(e.value)
