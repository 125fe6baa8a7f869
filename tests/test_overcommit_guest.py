"""The overcommit mechanism under cgroup v2: the QEMU guest (hosts/qemu/, Debian's 6.1 kernel,
TCG) runs GUPS, a tierbench workload, at R = 1 and R = 2 in a memory cgroup with swap behind it
(families/overcommit/guest.sh, the busybox-sh twin of workflows/harness/memcg.py's runner).

The guest has no block device driver built in and no Python: the test ships the kernel's
``loop.ko`` (from the same kernel package) and swaps to a loop device over a tmpfs file. Swap in
RAM is functional only (timings mean nothing); what is checked is the mechanism: the limit holds,
major faults and swap-ins appear at R = 2 and not at R = 1, every v2 file memcg.py reads is there
and memcg.py's reader gives the same numbers, and nothing is left after the run.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest
from test_qemu_guest import BOOT_TIMEOUT_S, guest

from workflows.harness import memcg

REPO = Path(__file__).resolve().parents[1]
GUEST_SH = REPO / "families" / "overcommit" / "guest.sh"
WORKING_SET_MIB = 96

SCRIPT = f"""\
BIN=/opt/tierbench/bin
. /tb/overcommit.sh
say() {{ echo "$1" >>"$OUT/overcommit/log.txt"; }}
mkdir -p "$OUT/overcommit"
insmod /tb/loop.ko 2>>"$OUT/overcommit/log.txt" || say "insmod loop failed"
mkdir -p /swapfs && mount -t tmpfs -o size=200m tmpfs /swapfs
dd if=/dev/zero of=/swapfs/swap.img bs=1M count=160 2>/dev/null
[ -e /dev/loop0 ] || mknod /dev/loop0 b 7 0
losetup /dev/loop0 /swapfs/swap.img || say "losetup failed"
mkswap /dev/loop0 >/dev/null || say "mkswap failed"
oc_mount || say "no cgroup v2 memory controller"
cat /sys/fs/cgroup/cgroup.controllers >"$OUT/overcommit/controllers"
run_gups() {{
	oc_run "gups-R$1" "$1" "$2" /dev/loop0 "$OUT/overcommit/R$1" "$BIN/gups" --working-set {WORKING_SET_MIB}M --threads 1 \\
		--cpus 0 --mem-node 0 --huge off --duration 3 --report-interval 1 --summary "$OUT/overcommit/R$1/gups-summary.csv"
}}
run_gups 1 0 || say "R1 failed"
F=$(awk -F= '$1 == "peak_anon_shmem" {{ print $2 }}' "$OUT/overcommit/R1/summary.txt")
run_gups 2 "$F" || say "R2 failed"
rmdir /sys/fs/cgroup/tierbench 2>/dev/null
echo "parent_left=$([ -d /sys/fs/cgroup/tierbench ] && echo yes || echo no)" >"$OUT/overcommit/after.txt"
echo "swaps=$(tail -n +2 /proc/swaps | wc -l)" >>"$OUT/overcommit/after.txt"
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


@pytest.fixture(scope="module")
def v2_run(tmp_path_factory):
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the QEMU guest is built from Debian amd64 packages (x86-64 Linux only)")
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        pytest.skip("no apt-get/dpkg-deb: the guest is built from Debian packages")
    try:
        guest.build(install=os.geteuid() == 0)
    except guest.GuestUnavailable as e:
        pytest.skip(f"QEMU guest unavailable on this machine: {e}")
    tmp = tmp_path_factory.mktemp("oc-guest")
    script = tmp / "overcommit.sh"
    script.write_text(SCRIPT)
    files = {"tb/overcommit.sh": GUEST_SH, "tb/loop.ko": _loop_ko(tmp)}
    res = guest.run(timeout=BOOT_TIMEOUT_S, script=script, out=tmp / "out", stream=False, files=files)
    return res


def _file(res, name: str) -> str:
    p = res.out / "files" / "overcommit" / name
    if not p.exists():
        log = res.out / "files" / "overcommit" / "log.txt"
        pytest.fail(f"the guest wrote no {name} (outcome {res.outcome}, {res.problems}); "
                    f"log: {log.read_text() if log.exists() else '-'}")
    return p.read_text()


@pytest.mark.vm
def test_v2_limit_swap_and_faults_in_the_guest(v2_run):
    assert v2_run.outcome == "exited", v2_run.problems
    log = (v2_run.out / "files" / "overcommit" / "log.txt")
    assert not log.exists() or not log.read_text().strip(), log.read_text()
    assert "memory" in _file(v2_run, "controllers").split()
    r1, r2 = _kv(_file(v2_run, "R1/summary.txt")), _kv(_file(v2_run, "R2/summary.txt"))
    assert r1["exit"] == "0" and r2["exit"] == "0"
    f = int(r1["peak_anon_shmem"])
    assert f >= WORKING_SET_MIB << 20, "F covers GUPS's working set"
    assert r1["limit_read"] == "max" and int(r2["limit_read"]) == int(r2["limit_bytes"]) == f // 2 // 4096 * 4096
    assert int(r2["peak_usage"]) <= int(r2["limit_bytes"]) + (1 << 20), "the limit holds (memory.peak)"
    assert int(r2["peak_swap"]) > 0 and int(r1["peak_swap"]) == 0
    assert int(r1["pgmajfault"]) < int(r2["pgmajfault"])
    swapins = "pswpin" if int(r2["pswpin"]) > 0 else "workingset_refault_anon"
    assert int(r1[swapins]) < 100 <= int(r2[swapins]), "R = 1 has no swap-ins to speak of; R = 2 has"
    assert int(r2["psi_some_total_us"]) >= int(r1["psi_some_total_us"] or 0)
    assert r1["left"] == "" and r2["left"] == ""
    after = _kv(_file(v2_run, "after.txt"))
    assert after == {"parent_left": "no", "swaps": "0"}


@pytest.mark.vm
def test_memcg_reads_the_guests_v2_files(v2_run, tmp_path):
    """workflows/harness/memcg.py's v2 reader on the memory.stat the guest's kernel wrote."""
    stat = _file(v2_run, "R2/memory.stat")
    keys = {ln.split()[0] for ln in stat.splitlines()}
    assert {"anon", "shmem", "file", "pgfault", "pgmajfault", "workingset_refault_anon"} <= keys
    root = tmp_path / "cg"
    (root / "tierbench" / "x").mkdir(parents=True)
    (root / "cgroup.controllers").write_text("memory\n")
    d = root / "tierbench" / "x"
    (d / "memory.stat").write_text(stat)
    (d / "memory.current").write_text("0\n")
    (d / "memory.swap.current").write_text("0\n")
    s = memcg.Cgroup(memcg.detect(root), "x").sample()
    r2 = _kv(_file(v2_run, "R2/summary.txt"))
    assert s["pgmajfault"] == int(r2["pgmajfault"])
    assert s["swapin"] == int(r2["pswpin"] if "pswpin" in keys else r2["workingset_refault_anon"])
