"""The registry of tiering systems (systems/): adding a system is a policy file plus one registry
entry (docs/extending.md, "adding a tiering system").

In a scratch copy of the tree a toy system is added -- its libcolloid policy file
(``colloid/src/policy_toy.c``, here MEMTIS's policy under another name), ``systems/toy.py`` and its
name in ``systems.ORDER`` -- built into the copy's own ``build/``, and run through the config
schema, tiersim's model points of the tiering and apps families, the planning of real points (a
two-tier host from synthetic facts), a figure and the scorecard, with no other file changed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import systems

TOY = '''"""Toy: a tiering system of the test (its policy: MEMTIS's, copied under another name)."""

from systems import System

SYSTEM = System("toy", "Toy", color="#cc78bc", marker="P", policy="toy", baseline=True)
'''

DRIVER = r'''
import json, subprocess, sys
from pathlib import Path

from analysis import scorecard, style
from analysis.frame import read, typed
from families.apps import COLUMNS as APPS_COLUMNS
from families.apps import model as apps_model
from families.tiering import model, real
from families.tiering.figures import steady_state
from workflows.harness import ConfigError, plan, profile

facts = {"hostname": "big", "online_cpus": list(range(64)), "allowed_cpus": list(range(64)), "privileges": {"root": True},
         "nodes": {"0": {"cpus": list(range(32)), "memory_mib": 1 << 17}, "1": {"cpus": list(range(32, 64)), "memory_mib": 1 << 17},
                   "2": {"cpus": [], "memory_mib": 1 << 16}}}
cfg = profile.validate_config({"scale": "t", "tiering": {
    "systems": ["toy"], "intensities": [0, 3], "duration_s": 3, "average_last_s": 1, "object_bytes": [64],
    "unloaded_latency_ns": [148], "best_static_fractions": [1.0], "dynamics": {"hotset_move_intensities": []}},
    "apps": {"model": {"systems": ["toy"]}}})
out = {}
try:
    profile.validate_config({"scale": "t", "tiering": {"systems": ["nosuch"]}})
except ConfigError as e:
    out["unknown"] = str(e)
mhost = plan.Host(profile.resolve("paper-testbed", facts), facts)
rows = model.points(cfg, mhost, mhost.profile)
out["model"] = sorted(f"{r['experiment']}/{r['point']}" for r in rows)
out["argv"] = {f"{r['experiment']}/{r['point']}": r["run"]["argv"] for r in rows}
arows, _ = apps_model.points(cfg, mhost, APPS_COLUMNS)
out["apps"] = sorted({r["context"]["system"] for r in arows})
rhost = plan.Host(profile.resolve("icelake-2s", facts), facts)
out["real"] = {r["point"]: [ro["argv"] for ro in r["run"]["scenario"]["roles"] if ro["kind"] == "attach"]
               for r in real.points(cfg, rhost, knob_exists=lambda p: True) if r["experiment"] == "steady_state"}
results = []
for r in rows:
    if r["experiment"] in ("steady_state", "best_static"):
        d = Path("pts") / r["experiment"] / r["point"]
        d.mkdir(parents=True)
        p = subprocess.run([sys.executable, "-m", "workflows.harness.point", "--outdir", str(d), "-"],
                           input=json.dumps(r), capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-2000:]
        results.append(d / "result.csv")
df = typed(read(results))
fig = steady_state.plot(df)
out["titles"] = [ax.get_title() for ax in fig.axes]
fig.savefig("toy.png")
out["style"] = style.system_style("toy")
sc = scorecard.build(df)
m = sc[(sc["figure"] == "motivation") & (sc["system"] == "baselines")]
from families.tiering import scorecard as tiering_scorecard
out["baselines"] = tiering_scorecard.BASELINE_SYSTEMS
out["motivation"] = [str(x) for x in m["note"]] + [float(x) for x in m["ours"]]
print(json.dumps(out))
'''


def test_registry_lists_each_system_once():
    assert systems.names() == systems.ORDER
    for name in systems.names():
        s = systems.get(name)
        assert s.name == name and s.label and s.color.startswith("#") and s.policy
        assert s.mechanism(False) is not None and s.mechanism(True) is not None, f"{name} runs on real tiers"


def test_a_toy_system_is_one_file_and_one_registry_line(workdir):
    memtis = (workdir / "colloid/src/policy_memtis.c").read_text()
    (workdir / "colloid/src/policy_toy.c").write_text(memtis.replace("memtis", "toy").replace("MEMTIS", "TOY"))
    (workdir / "build").unlink()  # the copy builds its own tiersim, with the toy's policy in it
    for d in ("lib", "colloid", "colloid/sim"):
        subprocess.run(["make", "-s", "-C", d, f"BUILD={workdir / 'build'}"], cwd=workdir, check=True,
                       capture_output=True, timeout=600)
    (workdir / "systems/toy.py").write_text(TOY)
    init = workdir / "systems/__init__.py"
    text = init.read_text()
    line = f"ORDER = {json.dumps(systems.ORDER)}"
    assert line in text
    init.write_text(text.replace(line, f"ORDER = {json.dumps(systems.ORDER + ['toy'])}"))
    r = subprocess.run([sys.executable, "-c", DRIVER], cwd=workdir, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert f"'nosuch' is not one of {systems.ORDER + ['toy']}" in out["unknown"]
    assert "steady_state/toy-c0-i0" in out["model"] and "steady_state/toy-c1-i3" in out["model"]
    assert "migration_frozen/toy-c1-i3" in out["model"] and "contention_change/toy-c1-i0to3" in out["model"]
    a = out["argv"]["steady_state/toy-c1-i3"]
    assert a[a.index("--system") + 1] == "toy", "the toy runs the policy its entry names"
    assert out["apps"] == ["toy"]
    tierd = out["real"]["numa-toy-c1-i3"][0]
    assert tierd[0] == "build/bin/tierd" and tierd[tierd.index("--policy") + 1] == "toy"
    assert any("Toy" in t for t in out["titles"]), out["titles"]
    assert out["style"]["label"] == "Toy" and out["style"]["marker"] == "P"
    assert "toy" in out["baselines"]
    assert "(toy)" in out["motivation"][0] and out["motivation"][1] > 0, out["motivation"]


def test_a_users_command_attaches_like_tierd(monkeypatch):
    from workflows.harness import ConfigError
    from workloads.tierd import workload as tierd

    s = systems.System("mine", "Mine", color="#000000", marker="x", policy="hemem", real=systems.Command("mytier", ("--fast",)),
                       real_colloid=systems.Command("mytier", ("--colloid",)))
    monkeypatch.setitem(systems.SYSTEMS, "mine", s)
    attach, settings, note = tierd.system("mine", True, nodes=(0, 1), default_capacity="1G", observe="auto",
                                          tools={"mytier": "/opt/mytier"})
    assert attach[0]["argv"] == ["/opt/mytier", "--colloid"] and attach[0]["target_pid"] == "--pid"
    assert settings == {} and "/opt/mytier" in note
    with pytest.raises(ConfigError, match="tools/mytier"):
        tierd.system("mine", False, nodes=(0, 1), default_capacity="1G", observe="auto", tools={})


def test_kernel_mechanism_settings_and_knobs():
    from workloads.tierd import workload as tierd

    kernel = {n: s.mechanism(False) for n, s in systems.SYSTEMS.items() if isinstance(s.mechanism(False), systems.Kernel)}
    for name, m in kernel.items():
        attach, settings, _ = tierd.system(name, False, nodes=(0, 1), default_capacity="1G", observe="auto")
        assert attach == [] and settings == m.settings
        assert set(m.settings) <= set(tierd.knobs())


def test_damon_runs_in_the_model_and_is_listed_unscored(tmp_path):
    """DAMON is in the default systems (every registered one), its model points run through tiersim
    with its own policy, it appears in the steady-state figure, and the scorecard lists it as having
    no published number instead of scoring it."""
    from analysis import scorecard
    from analysis.frame import read, typed
    from families.tiering import model
    from families.tiering.figures import steady_state
    from workflows.harness import plan, profile

    facts = {"hostname": "one", "online_cpus": [0, 1], "allowed_cpus": [0, 1], "privileges": {"root": False},
             "nodes": {"0": {"cpus": [0, 1], "memory_mib": 1 << 14}}}
    cfg = profile.validate_config({"scale": "t", "tiering": {
        "intensities": [0, 3], "duration_s": 4, "average_last_s": 2, "object_bytes": [64], "unloaded_latency_ns": [148],
        "best_static_fractions": [1.0], "dynamics": {"hotset_move_intensities": []}}})
    assert cfg["tiering"]["systems"] == systems.names() and "damon" in systems.names()
    assert not systems.get("damon").baseline and "damon" not in systems.baselines()
    host = plan.Host(profile.resolve("paper-testbed", facts), facts)
    rows = [r for r in model.points(cfg, host, host.profile)
            if r["experiment"] == "steady_state" and r["context"]["system"] in ("damon", "tpp")]
    assert {r["point"] for r in rows} >= {"damon-c0-i0", "damon-c1-i3"}
    results = []
    for r in rows:
        a = r["run"]["argv"]
        assert a[a.index("--system") + 1] == systems.get(r["context"]["system"]).policy
        d = tmp_path / r["point"]
        d.mkdir()
        p = subprocess.run([sys.executable, "-m", "workflows.harness.point", "--outdir", str(d), "-"],
                           input=json.dumps(r), capture_output=True, text=True, cwd=systems.__path__[0] + "/..")
        assert p.returncode == 0, p.stderr[-2000:]
        results.append(d / "result.csv")
    df = typed(read(results))
    t = df[(df["system"] == "damon") & (df["metric"] == "throughput") & df["t_s"].isna()]
    assert len(t) == 4 and (t["value"] > 0).all()
    fig = steady_state.plot(df)
    labels = [ax.get_title() for ax in fig.axes]
    for leg in [ax.get_legend() for ax in fig.axes] + list(fig.legends):
        labels += [x.get_text() for x in leg.get_texts()] if leg else []
    assert any("DAMON" in x for x in labels), labels
    sc = scorecard.build(df)
    damon = sc[sc["system"] == "damon"]
    assert len(damon) == 1 and damon["ours"].isna().all() and damon["within"].isna().all()
    assert "no published number" in damon["note"].iloc[0]
    assert sc[(sc["system"] == "tpp") & sc["ours"].notna()].shape[0] >= 1, "TPP's rows are still scored"
    md = scorecard.to_markdown(sc, "h", "model")
    assert "| damon |" in md.split("## Not scored")[1]
