"""Cluster execution (docs/cluster.md): host identity decided once, a fleet of host profiles in
one run with its comparison report, a conda environment file Snakemake can deploy, and the SLURM
profile on a real single-node SLURM (tests/slurm_node.py; skipped where SLURM cannot run)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, copy_tree

# make test runs these in the guest's pytest session (tests/suite.py), so that the two end together
pytestmark = pytest.mark.guest_session

SMK = [sys.executable, "-m", "snakemake"]
FLEET = ["paper-testbed", "cxl-model"]

# A small model sweep: one system, two intensities, short simulated runs (28 tiersim points over
# the two profiles: paper-testbed sweeps its four alternate curves, cxl-model its one).
TINY_MODEL = """
scale: model-tiny
characterize: {enabled: false}
storage: {enabled: false}
apps: {enabled: false}
overcommit: {enabled: false}
kv: {enabled: false}
counters: {sources: [], interval_ms: 1000}
tiering:
  enabled: true
  systems: [hemem]
  intensities: [0, 3]
  duration_s: 10
  average_last_s: 5
  best_static_fractions: []
  unloaded_latency_ns: auto
  object_bytes: []
  dynamics: {event_at_s: 5, after_event_s: 5, hotset_move_intensities: [], contention_to: 3}
  contention: {enabled: false}
"""


def smk_in(cwd, *args, timeout=900):
    return subprocess.run([*SMK, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def fleet_args(tmp_path):
    cfg = tmp_path / "tiny-model.yaml"
    cfg.write_text(TINY_MODEL)
    return ["--configfile", str(cfg), "--config", f"hosts=[{','.join(FLEET)}]"]


# the modelled rows only (the runs compared with local_fleet's, which also makes the figures and
# the fleet comparison): each host's measurements.csv as the target
ROWS_ONLY = ["--", *(f"results/{h}/tiering/measurements.csv" for h in FLEET)]


# tiersim's one measured value: the CPU time its policy code took on the node it ran on
# (colloid/sim: policy_cpu_share, and cpu_overhead which adds it); everything else is modelled
# and deterministic for a seed.
TIMED = {"policy_cpu_share", "cpu_overhead"}


def modelled_rows(root, host):
    df = pd.read_csv(root / "results" / host / "tiering" / "measurements.csv", low_memory=False)
    assert (df["backend"] == "model").all() and TIMED <= set(df["metric"])
    df = df[~df["metric"].isin(TIMED)]
    return df.sort_values(list(df.columns)).reset_index(drop=True)


# -- host identity ------------------------------------------------------------------------------

def test_job_takes_the_planned_identity(tmp_path):
    """A job process (--mode subprocess, as in a group job; remote jobs are the same) plans with the
    facts the main process decided, not with the machine it landed on: with host=auto its results
    go where the main process waits for them."""
    wd = copy_tree(tmp_path / "repo")
    facts = json.loads(subprocess.run([sys.executable, "-m", "workflows.harness.cli", "facts"], cwd=REPO,
                                      capture_output=True, text=True, check=True).stdout)
    facts["hostname"] = "planned-on-login1"
    ident = wd / ".snakemake/tierbench/identity.json"
    ident.parent.mkdir(parents=True)
    ident.write_text(json.dumps({"planned_on": "login1", "planned_at": "now", "pid": 1, "hosts": {"auto": facts}}))
    target = "results/planned-on-login1/host_facts.json"
    r = smk_in(wd, "--mode", "subprocess", "--cores", "1", "--config", "host=auto", "--", target)
    assert r.returncode == 0, r.stderr[-3000:]
    written = json.loads((wd / target).read_text())
    assert written["hostname"] == "planned-on-login1" and written["profile"]["name"] == "planned-on-login1"
    assert [p.name for p in (wd / "results").iterdir() if p.is_dir()] == ["planned-on-login1"]
    ident.unlink()
    r = smk_in(wd, "--mode", "subprocess", "--cores", "1", "--config", "host=auto", "--", target)
    assert r.returncode != 0 and "identity.json is missing" in r.stdout + r.stderr


def test_main_process_writes_identity(tmp_path):
    wd = copy_tree(tmp_path / "repo")
    r = smk_in(wd, "--cores", "1", "--config", "host=paper-testbed", "--", "results/paper-testbed/host_facts.json")
    assert r.returncode == 0, r.stderr[-3000:]
    ident = json.loads((wd / ".snakemake/tierbench/identity.json").read_text())
    facts = json.loads((wd / "results/paper-testbed/host_facts.json").read_text())
    assert set(ident["hosts"]) == {"paper-testbed"}
    assert ident["hosts"]["paper-testbed"]["hostname"] == facts["hostname"]
    assert facts["profile"]["name"] == "paper-testbed"


def test_fleet_bad_input(tmp_path):
    r = smk_in(REPO, "-n", "--cores", "1", "--config", "hosts=[paper-testbed,no-such-host]")
    assert r.returncode != 0 and "host profile 'no-such-host' not found" in r.stderr
    dup = tmp_path / "dup.yaml"
    dup.write_text((REPO / "hosts/cxl-model.yaml").read_text().replace("name: cxl-model", "name: paper-testbed")
                   .replace("curves/paper-default.csv", str(REPO / "hosts/curves/paper-default.csv")))
    r = smk_in(REPO, "-n", "--cores", "1", "--config", f"hosts=[paper-testbed,{dup}]")
    assert r.returncode != 0 and "are both named 'paper-testbed'" in r.stderr


# -- software deployment ------------------------------------------------------------------------

def _pins(lines):
    return {re.split(r"[=<>]", x, maxsplit=1)[0].lower(): x for x in (s.split("#", 1)[0].strip() for s in lines) if x}


def test_conda_environment_is_self_contained():
    """Snakemake's conda deployment copies environment.yml elsewhere: a `-r requirements.txt` there
    cannot be resolved. Every pip requirement is listed, pinned as in requirements.txt."""
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert not any(p.startswith("-") for p in pip), "no pip options (-r, -e) in environment.yml"
    req = _pins((REPO / "requirements.txt").read_text().splitlines())
    assert _pins(pip) == req
    assert all("==" in p for p in pip)


# -- a fleet, locally -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def local_fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fleet")
    wd = copy_tree(tmp / "repo")
    t0 = time.monotonic()
    r = smk_in(wd, "--cores", "2", *fleet_args(tmp))
    assert r.returncode == 0, r.stderr[-4000:]
    return wd, time.monotonic() - t0


def test_fleet_run_compares_hosts(local_fleet):
    wd, _ = local_fleet
    for h in FLEET:
        assert (wd / "results" / h / "tiering/measurements.csv").exists()
        assert json.loads((wd / "results" / h / "host_facts.json").read_text())["profile"]["name"] == h
    out = wd / "results/fleet" / "+".join(sorted(FLEET))
    md = (out / "comparison.md").read_text()
    for h in FLEET:
        assert re.search(rf"\| {re.escape(h)} \| model \| hemem \| 3 \|", md), f"Colloid's gain on {h}"
    assert "param:L0=250" in md and "curves/paper-alternate-135.csv" in md
    for h in FLEET:  # modelled hosts: nothing measured to score the model against
        assert re.search(rf"\| {re.escape(h)} \|.*\| not scored: every point on this host is modelled", md), h
    for fig in ("tier_curves", "colloid_gain"):
        assert (out / f"{fig}.png").stat().st_size > 1000


def test_model_batches_equal_single_points(local_fleet, tmp_path):
    """model_batch = 8: the fleet's modelled points run 8 to a job (rule model_batch) and are
    collected into their own directories; every modelled row equals the one-job-per-point run's."""
    local, _ = local_fleet
    wd = copy_tree(tmp_path / "repo")
    r = smk_in(wd, "--cores", "2", *fleet_args(tmp_path), "model_batch=8", *ROWS_ONLY)
    assert r.returncode == 0, r.stderr[-4000:]
    for h in FLEET:
        pd.testing.assert_frame_equal(modelled_rows(wd, h), modelled_rows(local, h))
        specs = sorted((wd / "results" / h / "model").glob("batch*.json"))
        sizes = [len(json.loads(p.read_text())["points"]) for p in specs]
        df = pd.read_csv(wd / "results" / h / "tiering" / "measurements.csv", low_memory=False)
        points = df[["experiment", "point", "rep"]].drop_duplicates()
        assert sum(sizes) == len(points) and max(sizes) <= 8 and len(specs) == -(-len(points) // 8)
        for key in json.loads(specs[0].read_text())["points"]:
            d = wd / "results" / h / key
            assert all((d / f).exists() for f in ("meta.json", "summary.csv", "raw.out", "log")), "the point's own files"
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", r.stdout + r.stderr, re.M))
    assert int(jobs["model_batch"]) == sum(len(list((wd / "results" / h / "model").glob("batch*.json"))) for h in FLEET)
    assert "model_point" not in jobs and int(jobs["model_collect"]) == 28


def test_a_failed_point_fails_its_batch_by_name(tmp_path):
    row = {"executor": "model", "run": {"argv": [str(tmp_path / "no-tiersim")]}, "context": {}, "columns": {}}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"points": {"tiering/x/ok/rep0": row, "tiering/x/bad/rep0": row}}))
    r = subprocess.run([sys.executable, "-m", "workflows.harness.modelbatch", "--jobs", "2", "--out",
                        str(tmp_path / "b"), str(spec)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 1 and "2 of 2 modelled point(s) failed: tiering/x/" in r.stderr
    assert "tiering/x/bad/rep0" in r.stderr and "tiering/x/ok/rep0" in r.stderr, "the failed points by name"
    assert not list((tmp_path / "b").rglob("result.csv")) and not (tmp_path / "b" / ".rows").exists()



def test_a_batch_stops_a_point_past_its_time_limit(tmp_path):
    """modelbatch runs each point's tiersim itself: one past the row's timeout_s is stopped (its
    process group, by pid) and fails by name with the reason in its log; the other point still
    gets its files."""
    slow = tmp_path / "slow-tiersim"
    slow.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/slow.pid\nexec sleep 60\n")
    slow.chmod(0o755)
    fake = tmp_path / "fake-tiersim"  # writes a one-row summary where --summary says
    fake.write_text("#!/bin/sh\nwhile [ \"$1\" != --summary ]; do shift; done\n"
                    "printf 't_s,metric,value,unit\\n,throughput,1,Mops/s\\n' > \"$2\"\n")
    fake.chmod(0o755)
    rows = {"tiering/x/slow/rep0": {"executor": "model", "run": {"argv": [str(slow)], "timeout_s": 1}},
            "tiering/x/ok/rep0": {"executor": "model", "run": {"argv": [str(fake)]}}}
    for r in rows.values():
        r.update({"context": {"family": "tiering"}, "columns": []})
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"points": rows}))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "workflows.harness.modelbatch", "--jobs", "2", "--out",
                        str(tmp_path / "b"), str(spec)], cwd=REPO, capture_output=True, text=True, timeout=50)
    assert time.monotonic() - t0 < 50
    assert r.returncode == 1 and "1 of 2 modelled point(s) failed: tiering/x/slow/rep0" in r.stderr, r.stderr
    assert "ran past its 1 s limit and was stopped" in (tmp_path / "b/tiering/x/slow/rep0/log").read_text()
    pid = int((tmp_path / "slow.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    ok = tmp_path / "b/tiering/x/ok/rep0"
    assert "throughput,1" in (ok / "result.csv").read_text() and json.loads((ok / "meta.json").read_text())["backend"] == "model"


# -- SLURM --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    import slurm_node

    node = slurm_node.SingleNode(tmp_path_factory.mktemp("slurm"))
    try:
        node.start()
    except slurm_node.Unavailable as e:
        pytest.skip(f"no single-node SLURM here: {e}")
    yield node
    node.stop()


def test_slurm_model_points_equal_local(slurm, local_fleet, tmp_path):
    """The fleet's modelled points through profiles/slurm on a real SLURM with model_batch = 40: they
    run as one SLURM job per host's batch, and every modelled row equals the local run's."""
    local, local_s = local_fleet
    wd = copy_tree(tmp_path / "repo")
    before = {j["id"] for j in slurm.jobs()}
    t0 = time.monotonic()
    r = smk_in(wd, "--profile", "profiles/slurm", "--cores", "2", "--local-cores", "2", *fleet_args(tmp_path),
               "model_batch=40", *ROWS_ONLY)
    slurm_s = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-4000:]
    ours = [j for j in slurm.jobs() if j["id"] not in before]
    assert ours and all(j["state"] == "COMPLETED" for j in ours), ours
    assert all("model_batch" in j["comment"] for j in ours), "only batches of modelled points go to SLURM"
    assert len(ours) == len(FLEET), "one job of up to 40 points per host"
    for h in FLEET:
        pd.testing.assert_frame_equal(modelled_rows(wd, h), modelled_rows(local, h))
    print(f"\nquick model fleet: local {local_s:.0f} s, SLURM {slurm_s:.0f} s ({len(ours)} SLURM jobs)")


STORAGE_ONLY = """
scale: node-tiny
characterize: {enabled: false}
tiering: {enabled: false}
apps: {enabled: false}
overcommit: {enabled: false}
kv: {enabled: false}
counters: {sources: [], interval_ms: 1000}
storage: {enabled: true, file_size_mib: 16, block_sizes: [4096], iodepths: [1], runtime_s: 1, ioengine: psync, direct: false}
"""


def test_slurm_fleet_host_measured_on_its_node(slurm, tmp_path):
    """A host profile with cluster/slurm_extra: its facts come from srun on its node when the run is
    planned, and its measured point runs there as a SLURM job (node_point), not where snakemake runs."""
    wd = copy_tree(tmp_path / "repo")
    prof = tmp_path / "on-node.yaml"
    prof.write_text(f"name: on-node\ndetect: true\ntiers: []\ncluster: {{slurm_extra: '--nodelist={slurm.node}'}}\n")
    cfg = tmp_path / "storage.yaml"
    cfg.write_text(STORAGE_ONLY)
    r = smk_in(wd, "--cores", "1", "--configfile", str(cfg), "--config", f"host={prof}")
    assert r.returncode != 0 and "run with --profile profiles/slurm" in r.stderr
    before = {j["id"] for j in slurm.jobs()}
    r = smk_in(wd, "--profile", "profiles/slurm", "--cores", "2", "--local-cores", "2", "--configfile", str(cfg),
               "--config", f"host={prof}")
    assert r.returncode == 0, r.stderr[-4000:]
    ours = [j for j in slurm.jobs() if j["id"] not in before]
    assert any(j["name"] == "tierbench-facts" for j in ours), "facts collected by srun on the node"
    assert any("node_point" in j["comment"] and j["state"] == "COMPLETED" for j in ours), ours
    df = pd.read_csv(wd / "results/on-node/storage/measurements.csv")
    assert (df[df["metric"] == "iops"]["value"] > 0).all()
    ident = json.loads((wd / ".snakemake/tierbench/identity.json").read_text())
    assert ident["hosts"][str(prof)]["hostname"]
