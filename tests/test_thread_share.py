"""characterize/thread_share (memchar share, seed 004's Figure 4): argv, the parser on captured real
output (tests/data/memchar/), planning on one-node and two-node hosts, and the figure.

The guest run (node 0 + node 1 in the QEMU NUMA guest) is in tests/test_qemu_workflow.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from test_profiles import FACTS, config
from test_profiles import two_socket_facts as two_socket

from analysis import frame as loader
from analysis import reference
from analysis.figures import FIGURES, render
from families import characterize
from workflows.harness import ConfigError, plan, profile
from workflows.harness.point import with_context
from workloads.memchar import workload as memchar

matplotlib.use("Agg")

DATA = Path(__file__).resolve().parent / "data" / "memchar"

ONE_NODE = {
    "hostname": "laptop", "nodes": {"0": {"cpus": [0, 1], "memory_mib": 16384}}, "memory_nodes": [0],
    "cpu_nodes": [0], "online_cpus": [0, 1], "allowed_cpus": [0, 1], "tools": {},
}  # fmt: skip


def share_rows(fp: plan.FamilyPlan) -> dict[str, dict]:
    return {r["point"]: r for r in fp.rows if r["experiment"] == "thread_share"}


def argv_of(row: dict) -> list[str]:
    return row["run"]["scenario"]["roles"][0]["argv"]


def arg(a: list[str], flag: str) -> str:
    return a[a.index(flag) + 1]


def fam(c: dict, facts: dict, name: str = "auto") -> plan.FamilyPlan:
    return characterize.plan(c, plan.Host(profile.resolve(name, facts), facts))


# --------------------------------------------------------------------------- argv and parser


def test_share_argv():
    a = memchar.share_argv([0, 1], {"mem_node": 0}, {"mem_node": 1}, op="read", shares=[0, 0.5, 1.0],
                           duration_s=0.5, threads=2)
    assert a == ["build/bin/memchar", "share", "--cpus", "0,1", "--mem-node", "0", "--mem-node-b", "1",
                 "--op", "read", "--threads", "2", "--shares", "0,0.5,1", "--duration", "0.5"]
    d = memchar.share_argv([3], {"mem_node": 0}, {"dax": "/dev/dax0.0"}, op="write", shares=[1], duration_s=1,
                           buffer_mib=16)
    assert d[d.index("--dax-b") + 1] == "/dev/dax0.0" and arg(d, "--buffer-mib") == "16" and "--threads" not in d


@pytest.mark.parametrize("op", ["read", "write"])
def test_parser_on_captured_output(op, tmp_path):
    """Real memchar share output (both groups on node 0): per share a total, and each non-empty
    group; a + b = total; share and the group's own target kept as columns."""
    shutil.copy(DATA / f"share-node0-{op}.stdout", tmp_path / "memchar.out")
    rows = memchar.rows(tmp_path, memchar.role(["build/bin/memchar", "share"]), {})
    ctx = {"family": "characterize", "experiment": "thread_share", "point": "c0-m0-m0", "cpu_node": 0,
           "mem_node": None, "target": "node:0+node:0", "host": "vm", "backend": "numa", "rep": 0}
    df = loader.typed(pd.DataFrame(with_context(ctx, rows)))
    assert set(df["experiment"]) == {"thread_share"} and set(df["op"]) == {op}
    assert set(df["metric"]) == set(memchar.SHARE_METRICS) and set(df["unit"]) == {"MB/s"}
    assert sorted(df["share"].unique()) == [0.0, 0.5, 1.0]
    per = df.pivot_table(index="share", columns="metric", values="value")
    assert per.loc[0.0].isna()["bandwidth_b"] and per.loc[1.0].isna()["bandwidth_a"], "an empty group has no row"
    both = per.loc[0.5]
    assert abs(both["bandwidth_a"] + both["bandwidth_b"] - both["bandwidth_total"]) < 0.01 * both["bandwidth_total"]
    assert (df["value"] > 0).all()
    total = df[df["metric"] == "bandwidth_total"]
    assert set(total["target"]) == {"node:0+node:0"} and total["mem_node"].isna().all()
    groups = df[df["metric"] != "bandwidth_total"]
    assert set(groups["target"]) == {"node:0"} and set(groups["mem_node"]) == {0}
    assert set(total["threads"]) == {2} and set(groups[groups["share"] == 0.5]["threads"]) == {1}


def test_parser_refuses_unverified(tmp_path):
    text = (DATA / "share-node0-read.stdout").read_text().replace(",1,0.5040,0.5000", ",0,0.5040,0.5000", 1)
    (tmp_path / "memchar.out").write_text(text)
    with pytest.raises(ValueError, match="unverified.*bandwidth_"):
        memchar.rows(tmp_path, memchar.role(["build/bin/memchar", "share"]), {})


# --------------------------------------------------------------------------- planning


def test_single_node_host_runs_both_groups_on_node_0():
    fp = fam(config(), ONE_NODE)
    pts = share_rows(fp)
    assert list(pts) == ["c0-m0-m0/read"]
    r = pts["c0-m0-m0/read"]
    a = argv_of(r)
    assert a[1] == "share" and arg(a, "--mem-node") == "0" and arg(a, "--mem-node-b") == "0"
    assert arg(a, "--threads") == "2" and arg(a, "--cpus") == "0,1", "auto = the CPU node's CPUs"
    assert arg(a, "--shares") == "0,0.5,1", "0.25 and 0.75 of 2 threads round to 1 and 2: run once"
    assert "both groups on node 0" in r["run"]["note"]
    assert r["context"]["target"] == "node:0+node:0" and r["context"]["mem_node"] is None
    assert any("measured once" in why for k, why in fp.absent.items() if k.startswith("thread_share:"))
    assert "share" in r["columns"]


def test_two_node_host_pairs_fast_node_0_with_slow_node_1():
    fp = fam(config(), FACTS)  # node 0: CPUs + memory, node 1: memory only, node 2: CPUs only
    pts = share_rows(fp)
    assert list(pts) == ["c0-m0-m1/read"]
    a = argv_of(pts["c0-m0-m1/read"])
    assert (arg(a, "--mem-node"), arg(a, "--mem-node-b"), arg(a, "--threads")) == ("0", "1", "4")
    assert arg(a, "--shares") == "0,0.25,0.5,0.75,1"
    assert "no memory of its own" in fp.absent["thread_share:c2"]


def test_two_socket_host_each_node_with_the_other_tiers():
    facts = two_socket(nodes=2)
    pts = share_rows(fam(config(characterize={"thread_share": {"ops": ["read", "write"], "threads": 8}}), facts))
    assert sorted(pts) == ["c0-m0-m1/read", "c0-m0-m1/write", "c1-m1-m0/read", "c1-m1-m0/write"]
    a = argv_of(pts["c1-m1-m0/write"])
    assert (arg(a, "--mem-node"), arg(a, "--mem-node-b"), arg(a, "--op"), arg(a, "--threads")) == ("1", "0", "write", "8")


def test_disabled_plans_nothing_and_no_figure():
    fp = fam(config(characterize={"thread_share": {"enabled": False}}), ONE_NODE)
    assert not share_rows(fp) and "thread_share" not in fp.figures
    assert "thread_share" in fam(config(), ONE_NODE).figures


@pytest.mark.parametrize("over, needle", [
    ({"shares": [0, 1.5]}, r"characterize/thread_share/shares/1: 1\.5 is greater than the maximum of 1"),
    ({"shares": [0, -0.5]}, r"characterize/thread_share/shares/1: -0\.5 is less than the minimum of 0"),
    ({"ops": ["ntwrite"]}, "characterize/thread_share/ops/0"),
])
def test_bad_config_is_one_line(over, needle):
    with pytest.raises(ConfigError, match=needle) as e:
        config(characterize={"thread_share": over})
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("over, needle", [
    ({"shares": [0, 1.25]}, r"characterize/thread_share/shares: 1\.25 is not a fraction of the threads \(0\.\.1\)"),
    ({"threads": 3}, "3 threads requested but node 0 has 2 usable CPU"),
])
def test_plan_rejects_with_one_line(over, needle):
    c = config()
    c["characterize"]["thread_share"].update(over)  # past the schema, as a program could
    with pytest.raises(ConfigError, match=needle) as e:
        fam(c, ONE_NODE)
    assert "\n" not in str(e.value)


def test_shipped_configs_plan_thread_share():
    import yaml

    root = Path(__file__).resolve().parents[1] / "workflows" / "config"
    for name, shares in (("quick", "0,0.5,1"), ("paper", "0,0.5,1")):
        c = profile.validate_config(yaml.safe_load((root / f"{name}.yaml").read_text()))
        a = argv_of(share_rows(fam(c, ONE_NODE))["c0-m0-m0/read"])
        assert arg(a, "--shares") == shares


# --------------------------------------------------------------------------- figure


def synthetic(n_reps: int = 1) -> pd.DataFrame:
    """Made-up rows (not published numbers): a one-node pair and a two-node pair, read and write."""
    rows = []
    base = {"host": "box", "backend": "numa", "family": "characterize", "experiment": "thread_share", "tool": "memchar",
            "unit": "MB/s", "cpu_node": 0}
    for rep in range(n_reps):
        for pid, target, slow in (("c0-m0-m0", "node:0+node:0", 1.0), ("c0-m0-m1", "node:0+node:1", 0.3)):
            for op in ("read", "write"):
                for share in (0, 0.25, 0.5, 0.75, 1):
                    k = 1.0 if op == "read" else 0.6
                    fast, slowbw = k * 20000.0 * (1 - share), k * 20000.0 * share * slow * (1 + 0.05 * rep)
                    ctx = {**base, "rep": rep, "point": pid, "op": op, "share": share, "threads": 4}
                    rows.append({**ctx, "metric": "bandwidth_total", "value": fast + slowbw, "target": target})
                    if share < 1:
                        rows.append({**ctx, "metric": "bandwidth_a", "value": fast, "target": "node:0", "mem_node": 0})
                    if share > 0:
                        rows.append({**ctx, "metric": "bandwidth_b", "value": slowbw, "target": target.split("+")[1],
                                     "mem_node": int(target[-1])})
    return pd.DataFrame(rows, columns=list(loader.types()))


def _texts(fig) -> str:
    parts = [fig._suptitle.get_text() if fig._suptitle else ""]
    for ax in fig.axes:
        parts += [ax.get_title(), *[t.get_text() for t in ax.texts]]
    parts += [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    return "\n".join(parts)


def test_figure_renders_with_labelled_reference(tmp_path):
    ref = reference.load()
    fig = FIGURES["thread_share"].plot(synthetic(), ref)
    text = _texts(fig)
    assert len(fig.axes) == 2 and "no data" not in text
    assert "both shares on node 0 (one memory node)" in text and "fast node:0 + slow node:1" in text
    assert "read, total" in text and "write, slow group" in text
    assert "other hardware (seed 004: 20 cores, DRAM + Optane)" in text and "share values not given" in text
    refs = [ln for ax in fig.axes for ln in ax.lines if ln.get_label() == FIGURES["thread_share"].REF_LABEL]
    assert len(refs) == 2, "the seed's marks in each panel with read"
    xs, ys = refs[0].get_data()
    assert list(xs) == [0, 0.5, 1] and list(ys) == [34.46, 13.28, 1.09], "first / middle / last share of our axis"
    paths = render("thread_share", synthetic(), ref, tmp_path / "thread_share")
    assert all(p.stat().st_size > 0 for p in paths)
    plt.close("all")


def test_figure_reference_only_where_published_rows_exist():
    fig = FIGURES["thread_share"].plot(synthetic(), None)
    assert "seed 004" not in _texts(fig)
    only_write = synthetic()
    only_write = only_write[only_write["op"] == "write"]
    assert "seed 004" not in _texts(FIGURES["thread_share"].plot(only_write, reference.load()))
    plt.close("all")


def test_figure_ref_points_are_the_reference_table():
    pts = FIGURES["thread_share"].ref_points(reference.load(), [0, 0.25, 0.5, 0.75, 1])
    assert pts.to_dict("records") == [{"share": 0, "gbps": 34.46, "tag": "smallest"},
                                      {"share": 0.5, "gbps": 13.28, "tag": "middle"},
                                      {"share": 1, "gbps": 1.09, "tag": "largest"}]


def test_figure_functional_host_and_repetitions():
    from matplotlib.collections import PolyCollection

    fig = FIGURES["thread_share"].plot(synthetic(2), None, functional=True)
    assert "functional host" in _texts(fig)
    assert any(isinstance(c, PolyCollection) for ax in fig.axes for c in ax.collections), "range over repetitions"
    plt.close("all")


def test_real_rows_render(tmp_path):
    """The captured real output, through the parser, renders (one panel, both groups on node 0)."""
    frames = []
    for op in ("read", "write"):
        d = tmp_path / op
        d.mkdir()
        shutil.copy(DATA / f"share-node0-{op}.stdout", d / "memchar.out")
        ctx = {"family": "characterize", "experiment": "thread_share", "point": "c0-m0-m0", "cpu_node": 0,
               "mem_node": None, "target": "node:0+node:0", "host": "vm", "backend": "numa", "rep": 0}
        frames.append(pd.DataFrame(with_context(ctx, memchar.rows(d, memchar.role(["build/bin/memchar", "share"]), {}))))
    fig = FIGURES["thread_share"].plot(pd.concat(frames, ignore_index=True), reference.load())
    assert len(fig.axes) == 1 and "both shares on node 0" in _texts(fig)
    plt.close("all")

