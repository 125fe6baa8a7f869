"""Adding a family and a workload is new files plus one registry line each (docs/extending.md).

In a scratch copy of the tree: a workload module (a shell one-liner standing in for a program),
a family (its plan, config schema block and one figure), one line in each registry. The workflow
then plans, runs, collects and draws them, with no other file changed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from analysis.frame import load

WORKLOAD = '''"""demo: prints a CSV of made-up operation rates (a stand-in for a real program)."""

import csv
from pathlib import Path

from workflows.harness.scenario import role as scenario_role

NAME = "demo"
BUILD = None  # a program the system provides: sh


def argv(*, size: int) -> list[str]:
    return ["sh", "-c", f"echo t_s,ops; for t in 1 2 3; do echo $t,$(( {size} * t )); done"]


def role(argv_: list[str]) -> dict:
    return scenario_role("demo", argv_, stdout="demo.out", parse="workloads.demo.workload:rows")


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    with open(outdir / role_["stdout"]) as f:
        return [{"t_s": r["t_s"], "metric": "ops", "value": r["ops"], "unit": "ops/s", "tool": "demo"}
                for r in csv.DictReader(f)]
'''

FAMILY = '''"""A demo family: the demo workload at a few sizes."""

from analysis.registry import figures_of
from workflows.harness.plan import FamilyPlan, measured, point, replicate
from workflows.harness.scenario import scenario
from workloads.demo import workload as demo

NAME = "demo"
SCORED = False
COLUMNS = {"size_bytes": "number"}


def plan(config, host):
    if not config[NAME]["enabled"] or host.runner:
        return FamilyPlan()
    rows = [point(NAME, "rates", f"s{s}", executor=host.executor, columns=COLUMNS,
                  context={"host": host.name, "backend": "numa", "workload": "demo", "size_bytes": s},
                  run=measured(config, host, scenario(demo.role(demo.argv(size=s)), timeout_s=60)))
            for s in config[NAME]["sizes"]]
    return FamilyPlan(rows=replicate(rows, config["reps"]), figures=figures_of(NAME))
'''

SCHEMA = '''type: object
additionalProperties: false
description: The demo family.
properties:
  enabled: {type: boolean, default: false}
  sizes: {type: array, items: {type: integer, minimum: 1}, default: [1, 2]}
'''

FIGURE = '''"""Demo rates against size."""

import matplotlib.pyplot as plt

from analysis.frame import typed

NAME = "demo_rates"
CAPTION = """Made-up operation rates of the demo workload against its size (a test of the layout)."""


def plot(df, ref=None, **kw):
    d = typed(df)
    d = d[(d["family"] == "demo") & (d["metric"] == "ops")]
    fig, ax = plt.subplots()
    ax.plot(d["size_bytes"], d["value"], "o")
    return fig
'''

CONFIG = """scale: demo
characterize: {enabled: false}
overcommit: {enabled: false}
kv: {enabled: false}
storage: {enabled: false}
tiering: {enabled: false}
apps: {enabled: false}
demo: {enabled: true, sizes: [3, 5]}
"""


def add_line(path, after: str, line: str) -> None:
    text = path.read_text()
    assert after in text
    path.write_text(text.replace(after, after + line, 1))


@pytest.mark.guest_session  # make test: in the guest's session (tests/suite.py)
def test_a_new_family_and_workload_are_new_files_and_two_registry_lines(workdir, tmp_path):
    (workdir / "workloads/demo").mkdir()
    (workdir / "workloads/demo/workload.py").write_text(WORKLOAD)
    add_line(workdir / "workloads/__init__.py", "WORKLOADS = {\n", '    "demo": "workloads.demo.workload",\n')
    (workdir / "families/demo/figures").mkdir(parents=True)
    (workdir / "families/demo/__init__.py").write_text(FAMILY)
    (workdir / "families/demo/schema.yaml").write_text(SCHEMA)
    (workdir / "families/demo/figures/demo_rates.py").write_text(FIGURE)
    add_line(workdir / "families/__init__.py", '    "tiering",\n', '    "demo",\n')
    cfg = tmp_path / "demo.yaml"
    cfg.write_text(CONFIG)
    host = tmp_path / "h.yaml"
    host.write_text("name: demo-host\ndetect: true\ntiers: []\n")
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(cfg), "--config",
                        f"host={host}"], cwd=workdir, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = workdir / "results/demo-host"
    df = load(out / "demo/measurements.csv")
    assert set(df["point"]) == {"s3", "s5"} and set(df["size_bytes"]) == {3.0, 5.0}
    assert sorted(df[df["point"] == "s5"]["value"]) == [5.0, 10.0, 15.0]
    assert (out / "figures/demo_rates.png").stat().st_size > 1000
    assert (out / "demo/points.tsv").read_text().count("\n") == 3
    r = subprocess.run([sys.executable, "-m", "workflows.harness.cli", "points", "--family", "demo", "--host", str(host),
                        "--configfile", str(cfg)], cwd=workdir, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "demo\trates\ts3\t0\thost" in r.stdout, r.stderr
