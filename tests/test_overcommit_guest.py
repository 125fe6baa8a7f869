"""The overcommit family under cgroup v2: the QEMU guest (hosts/qemu/, Debian's 6.1 kernel, TCG,
node 1 memory-only) runs the family's own points, TPC-H on DuckDB at R = 1 and R = 2, with swap.

Nothing here is a twin of the family: the points are the ones ``families.overcommit.plan`` makes
for the guest's profile (its memory bound to the far node, node 1, as on any two-node host), their
scenarios are rendered by the scenario executor's shell backend, as guestrun renders a batch, and
they run the real runner (``python -m workflows.harness.memcg run``) on this machine's Python,
shipped into the guest with DuckDB (``guest.python_runtime``). Each point is then parsed here by
the job's own code (``point.run_guest``). As in the workflow, R = 2 reads F from the R = 1 point's
result.csv, so the two points take a boot each.

The guest has no block device driver built in: the test ships the kernel's ``loop.ko`` (from the
same kernel package) and names a loop device over a tmpfs file as the family's swap device. Swap in
RAM under TCG is functional only (timings mean nothing); what is checked is the mechanism: the v2
limit holds, major faults and swap-ins appear at R = 2 and not at R = 1, the memory sits on node 1,
and nothing is left after the run.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import guest_accel, record_boot
from test_qemu_guest import BOOT_TIMEOUT_S, guest
from test_qemu_workflow import GUEST_FACTS, _guest_config

from analysis.frame import load
from families import overcommit
from workflows.harness import memcg, plan, profile, scenario
from workflows.harness.point import run_guest

REPO = Path(__file__).resolve().parents[1]
SWAP_MIB = 192
MEM_MIB = (1024, 512)  # node 0 holds the shipped Python and DuckDB (about 135 MiB) and the swap file
SCALE_FACTOR = 0.02  # F of about 50-90 MiB: R = 2 is well above the runner's 16 MiB floor
SETUP = f"""\
cd /  # the points' relative paths (results/qemu-numa/...) resolve under /
export PYTHONPATH={guest.PY_PATH} PYTHONDONTWRITEBYTECODE=1
say() {{ echo "$1" >>"$OUT/setup.log"; }}
[ -e /sys/fs/cgroup/cgroup.controllers ] || mount -t cgroup2 none /sys/fs/cgroup || say "cgroup2 mount failed"
insmod /tb/loop.ko || say "insmod loop failed"
mkdir -p /swapfs && mount -t tmpfs -o size={SWAP_MIB + 8}m tmpfs /swapfs
dd if=/dev/zero of=/swapfs/swap.img bs=1M count={SWAP_MIB} 2>/dev/null
[ -e /dev/loop0 ] || mknod /dev/loop0 b 7 0
losetup /dev/loop0 /swapfs/swap.img || say "losetup failed"
mkswap /dev/loop0 >/dev/null || say "mkswap failed"
"""
AFTER = """\
{
	echo "parent_left=$([ -d /sys/fs/cgroup/tierbench ] && echo yes || echo no)"
	echo "swaps=$(tail -n +2 /proc/swaps | wc -l)"
	echo "python_left=$(for p in /proc/[0-9]*; do tr '\\0' ' ' <"$p/cmdline" 2>/dev/null; echo; done | grep -c '^/usr/bin/python')"
	echo "journal_left=$([ -e "$SETTINGS_JOURNAL" ] && echo yes || echo no)"
} >"$OUT/after.txt"
losetup -d /dev/loop0
"""


def _kv(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _loop_ko(tmp: Path) -> Path:
    """loop.ko from the guest's kernel package (the guest has no block driver built in)."""
    debs = sorted((Path(guest.CACHE) / "debs").glob("linux-image-*.deb"))
    if not debs:
        pytest.skip("the guest's kernel package is not in build/qemu/debs")
    deb = debs[-1]
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    path = next((ln.split()[-1] for ln in listing.splitlines() if ln.endswith("/kernel/drivers/block/loop.ko")), None)
    if path is None:
        pytest.skip(f"{deb.name} has no uncompressed loop.ko")
    tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp), path], input=tar, check=True)
    return tmp / path


def _rows(monkeypatch) -> list[dict]:
    """The family's points for the guest: planned as for any root host with cgroup v2 and a swap
    device (both are the guest's, so their live checks, which look at this machine, are skipped)."""
    cfg = _guest_config()
    cfg["overcommit"] = {**cfg["overcommit"], "enabled": True, "workloads": ["tpch"], "ratios": [1, 2], "reps": 1,
                         "swap": {**cfg["overcommit"]["swap"], "device": "/dev/loop0"},
                         "tpch": {**cfg["overcommit"]["tpch"], "scale_factor": SCALE_FACTOR, "threads": 1,
                                  "memory_limit": "400MB", "rounds": 1}}
    monkeypatch.setattr(memcg, "detect", lambda root=None: {"version": "v2", "base": "/sys/fs/cgroup"})
    monkeypatch.setattr(memcg, "check_device", lambda device, what: None)
    host = plan.Host(profile.resolve("qemu-numa", GUEST_FACTS), GUEST_FACTS, None)
    return overcommit.plan(cfg, host).rows


def _boot(row: dict, tmp: Path, files: dict[str, Path]) -> Path:
    """One point in one boot; its batch directory (what guestrun would leave)."""
    batch = tmp / f"batch-R{row['context']['ratio']:g}"
    text = scenario.render_batch([(f"/out/{plan.key(row)}", row["run"]["scenario"])])
    end = 'exit "$FAILED"\n'
    assert text.endswith(end)
    script = tmp / f"{batch.name}.sh"
    script.write_text(SETUP + text[: -len(end)] + AFTER + end)
    accel = guest_accel(guest)
    t0 = time.monotonic()
    res = guest.run(timeout=BOOT_TIMEOUT_S, script=script, out=batch, stream=False, files=files, mem_mib=MEM_MIB,
                    accel=accel)
    record_boot(f"test_overcommit_guest ({plan.key(row)})", accel, res.boot_to_result_s, time.monotonic() - t0)
    (batch / "res.json").write_text(json.dumps({"outcome": res.outcome, "problems": res.problems}))
    return batch


@pytest.fixture(scope="module")
def v2_points(tmp_path_factory):
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the QEMU guest is built from Debian amd64 packages (x86-64 Linux only)")
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        pytest.skip("no apt-get/dpkg-deb: the guest is built from Debian packages")
    if not shutil.which("numactl"):
        pytest.skip("numactl is not installed (make setup): the points bind their memory to node 1 with it")
    from workloads.duckdb_tpch import workload as tpch  # noqa: PLC0415

    if tpch.check():
        pytest.skip(f"DuckDB is not installed: {tpch.check()}")
    try:
        guest.build(install=os.geteuid() == 0)
    except guest.GuestUnavailable as e:
        pytest.skip(f"QEMU guest unavailable on this machine: {e}")
    tmp = tmp_path_factory.mktemp("oc-guest")
    mp = pytest.MonkeyPatch()
    try:
        rows = _rows(mp)
    finally:
        mp.undo()
    numactl = shutil.which("numactl")
    files = {**guest.python_runtime(["workflows/harness", "workloads/duckdb_tpch"],
                                    ["duckdb", "_duckdb", "duckdb_extension_tpch"]),
             **guest.with_libraries({numactl.lstrip("/"): Path(numactl)}), "tb/loop.ko": _loop_ko(tmp)}
    (tmp / "facts.json").write_text(json.dumps(GUEST_FACTS))
    cwd = os.getcwd()
    os.chdir(tmp)  # the points' relative paths (results/qemu-numa/...) resolve here, as in the guest under /
    out = {}
    try:
        for row in rows:
            for f in row["inputs"]:  # R = 2's input: R = 1's result.csv, made here by its job's parse
                files[f] = tmp / f
            batch = _boot(row, tmp, files)
            d = tmp / "results" / "qemu-numa" / plan.key(row)  # where its job writes result.csv
            d.mkdir(parents=True, exist_ok=True)
            try:
                rc = run_guest(row, d, batch, tmp / "facts.json", "quick")
            except Exception as e:  # noqa: BLE001 - reported by the tests with the guest's logs
                rc = f"{type(e).__name__}: {e}"
            out[row["context"]["ratio"]] = {"row": row, "batch": batch, "dir": d, "rc": rc}
    finally:
        os.chdir(cwd)
    return out


def _guest_file(p: dict, name: str) -> str:
    f = p["batch"] / "files" / name
    if not f.exists():
        res = json.loads((p["batch"] / "res.json").read_text())
        logs = {n: (p["batch"] / "files" / n).read_text()[-2000:] for n in ("setup.log",)
                if (p["batch"] / "files" / n).exists()}
        guest_log = p["batch"] / "files" / plan.key(p["row"]) / "guest.log"
        pytest.fail(f"the guest wrote no {name} ({res}); {logs}; guest.log: "
                    f"{guest_log.read_text()[-3000:] if guest_log.exists() else '-'}")
    return f.read_text()


@pytest.mark.vm
def test_family_points_run_under_cgroup_v2_with_swap(v2_points):
    r1, r2 = v2_points[1], v2_points[2]
    for p in (r1, r2):
        assert p["rc"] == 0, (p["rc"], _guest_file(p, f"{plan.key(p['row'])}/guest.log"))
        assert not (p["batch"] / "files" / "setup.log").exists(), _guest_file(p, "setup.log")
    s1 = json.loads((r1["dir"] / "memcg.json").read_text())
    s2 = json.loads((r2["dir"] / "memcg.json").read_text())
    assert s1["cgroup"] == s2["cgroup"] == "v2" and s2["swap"] == "/dev/loop0"
    f = s2["footprint_bytes"]
    d1 = load(r1["dir"] / "result.csv")
    fp = d1[(d1["metric"] == "footprint") & d1["t_s"].isna()]["value"]
    assert f == int(fp.iloc[0] * 2**20), "F is the R = 1 point's footprint row"
    assert s1["limit_bytes"] is None and s1["limit_kernel"] is None
    assert s2["limit_bytes"] == s2["limit_kernel"] == f // 2 // 4096 * 4096, "memory.max is F/2"
    assert s2["peak_usage"] <= s2["limit_bytes"] + (1 << 20), "the limit holds (memory.peak)"
    assert s1["swap_peak"] == 0 < s2["swap_peak"]
    assert s1["pgmajfault"] < s2["pgmajfault"]
    assert s1["swapin"] < 100 <= s2["swapin"], "R = 1 has no swap-ins to speak of; R = 2 has"
    assert "psi_some_total_us" in s2, "PSI (memory.pressure) is read under v2"


@pytest.mark.vm
def test_family_rows_and_memory_on_node1(v2_points):
    r2 = v2_points[2]
    df = load(r2["dir"] / "result.csv")
    rel = df[(df["metric"] == "relative_performance") & df["t_s"].isna()]
    assert len(rel) == 1 and rel["value"].iloc[0] > 0, "relative performance against the R = 1 point"
    assert {"major_faults", "swapins", "swap_peak", "cost_saving"} <= set(df["metric"])
    assert df["t_s"].notna().any(), "the time series of fault rate and swap use"
    argv = json.loads((r2["dir"] / "meta.json").read_text())["argv"]
    assert any("--membind=1" in a for a in sum(argv.values(), [])), "the pool's DRAM is the far node"


@pytest.mark.vm
def test_nothing_left_in_the_guest(v2_points):
    for p in v2_points.values():
        assert _kv(_guest_file(p, "after.txt")) == {"parent_left": "no", "swaps": "0", "python_left": "0",
                                                    "journal_left": "no"}
