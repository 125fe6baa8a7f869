"""The overcommit family: its plan and bad input, its parsers on captured output, and its
mechanism on this machine's real memory cgroups and swap (root; cgroup v1 or v2): faults and
swap-ins grow with R, the limit holds, R = 1 does not swap, and everything it made (its cgroup and
swap area: resources of the point's scenario, in the settings journal) is gone after a run, an
interrupt (SIGINT) and a kill (the journal repairs it). Never a slowdown threshold."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_profiles import two_socket_facts

from families import overcommit
from families.overcommit import parse as oc_parse
from workflows.harness import ConfigError, hostdetect, memcg, plan, profile, scenario
from workflows.harness import settings as settings_mod
from workflows.harness.settings import Settings
from workloads.duckdb_tpch import workload as tpch
from workloads.ffmpeg import workload as ffmpeg
from workloads.pgtpcc import workload as pgtpcc
from workloads.resnet50 import train as resnet50_train
from workloads.resnet50 import workload as resnet50

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
ROOT = os.geteuid() == 0
CG = memcg.detect()
needs_cgroups = pytest.mark.skipif(not (ROOT and CG.get("version") and memcg.shutil.which("swapon")),
                                   reason=f"needs root, a memory cgroup controller and swapon ({CG.get('reason', '')})")
ALLOC = """\
import random, sys, time
b = bytearray(int(sys.argv[1]) << 20)
pages = len(b) // 4096
for i in range(pages):  # touch every page once (all of F is anonymous memory)
    b[i * 4096] = 1
rnd = random.Random(1)
for _ in range(int(sys.argv[2]) * pages):  # then random pages: a miss rate that grows with R
    i = rnd.randrange(pages) * 4096
    b[i] = (b[i] + 1) & 255
time.sleep(0.3)  # F is sampled (every --interval-ms): hold the peak long enough to be seen
print("done", flush=True)
"""


def cfg(**oc):
    return profile.validate_config({"scale": "t", "overcommit": {"enabled": True, "workloads": ["ffmpeg"], **oc}})


def local_host() -> plan.Host:
    facts = hostdetect.detect()
    return plan.Host(profile.resolve("auto", facts), facts)


def oc_plan(config, host=None):
    return overcommit.plan(config, host or local_host())


# ---- the plan and its bad input ------------------------------------------------------------

@needs_cgroups
def test_plan_points_read_f_from_the_r1_point_of_their_repetition():
    c = cfg(ratios=[1, 2, 4])
    c["reps"] = 2
    fp = oc_plan(c)
    pts = {f"{r['point']}/rep{r['rep']}": r for r in fp.rows}
    assert set(pts) == {f"ffmpeg/R{r}/rep{k}" for r in (1, 2, 4) for k in (0, 1)}
    assert pts["ffmpeg/R1/rep0"]["inputs"] == []
    for k in (0, 1):
        r4 = pts[f"ffmpeg/R4/rep{k}"]
        base = f"results/{local_host().name}/overcommit/ratio_sweep/ffmpeg/R1/rep{k}/result.csv"
        assert r4["inputs"] == [base]
        argv = r4["run"]["scenario"]["roles"][0]["argv"]
        assert argv[argv.index("--footprint-from") + 1] == base
    settings = pts["ffmpeg/R2/rep0"]["run"]["scenario"]["settings"]
    assert settings["/proc/sys/vm/swappiness"] == "60" and settings["/proc/sys/vm/page-cluster"] == "3"
    if Path(overcommit.ZSWAP).exists():  # off by default, on when asked
        assert settings[overcommit.ZSWAP] == "N"
        assert oc_plan(cfg(zswap=True)).rows[0]["run"]["scenario"]["settings"][overcommit.ZSWAP] == "Y"
    assert sorted(fp.figures) == sorted(["overcommit_performance", "overcommit_faults", "overcommit_timeseries",
                                         "overcommit_cost", "overcommit_table"])


@needs_cgroups
@pytest.mark.parametrize("ratios, what", [([1, 0.5], "0.5 < 1"), ([2, 4], "must include 1"), ([1, 2, 2], "twice")])
def test_bad_ratios_are_one_line_naming_the_key(ratios, what):
    with pytest.raises(ConfigError, match=r"overcommit/ratios: .*" + what.replace(".", r"\.")):
        oc_plan(cfg(ratios=ratios))


@needs_cgroups
def test_a_swap_device_that_does_not_exist_or_is_not_a_device():
    with pytest.raises(ConfigError, match="overcommit/swap/device: swap device /dev/tierbench-none does not exist"):
        oc_plan(cfg(swap={"device": "/dev/tierbench-none"}))
    with pytest.raises(ConfigError, match="overcommit/swap/device: /etc/hostname is not a block device"):
        oc_plan(cfg(swap={"device": "/etc/hostname"}))


def test_a_swap_device_in_use(monkeypatch, tmp_path):
    monkeypatch.setattr(memcg.stat, "S_ISBLK", lambda mode: True)
    dev = tmp_path / "dev"
    dev.write_text("")
    monkeypatch.setattr(memcg, "active_swaps", lambda: [str(dev)])
    with pytest.raises(ConfigError, match="already an active swap area"):
        memcg.check_device(str(dev), "experiment config: overcommit/swap/device")
    monkeypatch.setattr(memcg, "active_swaps", lambda: [])
    monkeypatch.setattr(memcg, "_mounted_devices", lambda: {str(dev)})
    with pytest.raises(ConfigError, match="is mounted"):
        memcg.check_device(str(dev), "experiment config: overcommit/swap/device")


@needs_cgroups
def test_a_swapfile_directory_on_a_filesystem_that_cannot_hold_one(tmp_path, monkeypatch):
    """swapon needs a file's blocks on a local block device (mm/swapfile.c setup_swap_extents):
    tmpfs, overlay or NFS fail at the first point's swapon; refused before any job instead."""
    mi = tmp_path / "mountinfo"
    mi.write_text("22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                  "30 22 0:25 / /tmp rw,nosuid shared:5 - tmpfs tmpfs rw\n"
                  "31 22 0:26 / /srv/with\\040space rw shared:6 - btrfs /dev/sdb rw\n"
                  "32 22 0:27 / /srv/d\u00e4t\u00e4 rw shared:7 - xfs /dev/sdc rw\n")  # the kernel's bytes, UTF-8
    assert memcg.fs_type(Path("/tmp/x/y"), str(mi)) == "tmpfs"
    assert memcg.fs_type(Path("/tmpfoo"), str(mi)) == "ext4"
    assert memcg.fs_type(Path("/srv/with space/d"), str(mi)) == "btrfs"
    assert memcg.fs_type(Path("/srv/d\u00e4t\u00e4/swap"), str(mi)) == "xfs"
    monkeypatch.setattr(memcg, "fs_type", lambda p: "tmpfs")
    with pytest.raises(ConfigError, match=r"overcommit/swap/size_mib: .* is on tmpfs, which cannot hold a swapfile"):
        memcg.check_swapfile_room(str(tmp_path), 16, "overcommit/swap/size_mib")


def test_a_file_already_at_the_swapfile_path_is_never_made_over(tmp_path):
    """A file there that the point did not make (a user's) is neither truncated into a swapfile nor
    journaled for removal."""
    target = tmp_path / "tierbench.swap"
    target.write_text("a user's data\n")
    journal = tmp_path / "journal.json"
    with Settings(journal) as s, pytest.raises(ConfigError, match="exists already"):
        s.swap_on(str(target), 16)
    assert target.read_text() == "a user's data\n" and not journal.exists()


def test_not_enough_disk_for_the_swapfile():
    with pytest.raises(ConfigError, match=r"overcommit/swap/size_mib: a 1000000000 MiB swapfile .* MiB are free"):
        oc_plan(cfg(swap={"size_mib": 10**9}))


def test_no_memory_controller(monkeypatch):
    monkeypatch.setattr(memcg, "detect", lambda root=None: {"version": None, "reason": "no memory cgroup controller mounted"})
    host = local_host()
    host.facts["privileges"] = {"root": True}
    with pytest.raises(ConfigError, match="overcommit: memory cgroup controller unavailable: no memory cgroup"):
        oc_plan(cfg(), host)


def test_detect_reads_both_versions(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    assert memcg.detect(tmp_path) == {"version": "v2", "base": str(tmp_path)}
    (tmp_path / "cgroup.controllers").write_text("cpu io pids\n")
    assert memcg.detect(tmp_path)["version"] is None
    v1 = tmp_path / "v1"
    (v1 / "memory").mkdir(parents=True)
    (v1 / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert memcg.detect(v1)["version"] == "v1"


def two_socket_root_host(monkeypatch) -> plan.Host:
    """icelake-2s as root with cgroup v2, swapfile room and every tool on PATH."""
    facts = two_socket_facts()
    facts["privileges"] = {"root": True}
    monkeypatch.setattr(memcg, "detect", lambda root=None: {"version": "v2", "base": "/sys/fs/cgroup"})
    monkeypatch.setattr(overcommit.memcg, "check_swapfile_room", lambda *a: None)
    monkeypatch.setattr(overcommit.shutil, "which", lambda t: f"/usr/bin/{t}")
    return plan.Host(profile.resolve("icelake-2s", facts), facts)


def test_two_node_host_binds_the_pool_dram_to_the_far_node(monkeypatch):
    host = two_socket_root_host(monkeypatch)
    monkeypatch.setattr("workloads.ffmpeg.workload.find", lambda p, f: "/usr/bin/ffmpeg")
    fp = overcommit.plan(cfg(ratios=[1, 2]), host)
    r = fp.rows[1]
    prog = json.loads(r["run"]["scenario"]["roles"][0]["argv"][-1])
    assert prog[:2] == ["numactl", "--membind=1"] and r["context"]["mem_node"] == 1


def test_a_tpcc_point_journals_its_cluster_directories_and_server(monkeypatch):
    """The TPC-C-like point's scenario names the directories its preparation makes (the socket
    directory, then the data directory with the postmaster's pid file), so the harness journals
    them before any role starts: after a SIGKILL of the harness the repair ends the postmaster by
    pid (SIGQUIT: immediate shutdown) and removes both (tests/test_procs.py simulates it)."""
    host = two_socket_root_host(monkeypatch)
    monkeypatch.setattr(pgtpcc, "check", lambda: None)
    c = profile.validate_config({"scale": "t", "overcommit": {"enabled": True, "workloads": ["tpcc"], "ratios": [1, 2],
                                                             "tpcc": {"port": 54391}}})
    datadir = os.path.abspath(f"{host.results}/overcommit-scratch/tpcc")
    for r in overcommit.plan(c, host).rows:
        sc = r["run"]["scenario"]
        assert sc["dirs"] == [{"path": "/tmp/tierbench-pg-54391", "pid_file": None, "signal": "TERM"},
                              {"path": datadir, "pid_file": "postmaster.pid", "signal": "QUIT"}]
        ops = scenario.ops(sc)
        assert ops.index(("dir_guard", datadir, "postmaster.pid", "QUIT")) < ops.index(("spawn", "tpcc"))
        argv = sc["roles"][0]["argv"]
        assert datadir in argv[argv.index("--cleanup-json") + 1], "the runner's own cleanup removes the same cluster"


def test_guest_host_plans_nothing_and_says_why():
    host = plan.Host({"name": "g", "source": "x", "tiers": [], "cpus": {"app": [0]}}, {}, runner={"kind": "qemu"})
    fp = overcommit.plan(cfg(), host)
    assert fp.rows == [] and "guest" in fp.absent["overcommit"]


def test_cost_model_is_calibrated_on_the_seeds_two_numbers():
    cost = cfg()["overcommit"]["cost"]
    assert abs(overcommit.saving(1.5, cost) - 0.32) < 0.005
    assert abs(overcommit.saving(4, cost) - 0.725) < 0.005
    assert overcommit.saving(1, cost) == 0
    assert "calibrat" in cost["calibrated_on"] or "seed 003" in cost["calibrated_on"]


# ---- parsers on captured output ---------------------------------------------------------------

def test_ffmpeg_parser():
    p = ffmpeg.parse((DATA / "ffmpeg" / "benchmark.err").read_text())
    assert p["frames"] == 30 and p["rtime_s"] > 0 and p["fps"] == pytest.approx(30 / p["rtime_s"])


def test_tpcc_like_driver_parser_counts_committed_new_orders():
    p = pgtpcc.parse((DATA / "pgtpcc" / "pgbench.out").read_text())
    assert p["transactions"] == {"neworder": 1652, "neworder_rollback": 19, "payment": 1671, "orderstatus": 167,
                                 "delivery": 167, "stocklevel": 167}
    assert p["duration_s"] == 10 and p["failed"] == 0
    n = pgtpcc.native(DATA / "pgtpcc", {"stdout": "pgbench.out"})
    assert n["metric"] == "new_orders_per_min" and "TPC-C-like" in n["unit"]
    assert n["value"] == pytest.approx(1652 / 10 * 60)  # committed ones only: the 19 rolled back are apart
    checks = {c["metric"]: c["value"] for c in n["checks"]}
    assert checks["new_orders_rolled_back"] == 19 and checks["mix_payment"] == pytest.approx(1671 / 3843, abs=1e-5)
    text = (DATA / "pgtpcc" / "pgbench.out").read_text()
    with pytest.raises(ValueError, match="D_NEXT_O_ID"):  # the two counts of committed New-Orders disagree
        pgtpcc.parse(text.replace("by_district 1652", "by_district 1671"))
    with pytest.raises(ValueError, match="no transaction counts"):
        pgtpcc.parse(text[: text.index("# mix")])


def test_tpcc_like_deck_keeps_the_minimums_and_is_said_everywhere():
    deck = pgtpcc.DECK
    assert sum(deck.values()) == 23 and deck["neworder"] == deck["payment"] == 10
    for t, low in pgtpcc.MINIMUM.items():  # TPC-C 5.11 Clause 5.2.3's minimums, in every deck of 23
        assert deck[t] / 23 >= low
    script = (pgtpcc.HERE / pgtpcc.SCRIPT).read_text()
    assert "random(0, 1023) | random(1, 3000)" in script  # NURand(1023, 1, 3000)
    assert "permute(:k % 23, 23" in script and "\\set k :k + 1" in script
    argv = pgtpcc.pgbench_argv(5432, warehouses=1, clients=2, duration_s=10)
    assert argv[argv.index("-f") + 1].endswith("tpcc.sql") and "k=0" in argv
    assert all(d for d in pgtpcc.DIFFERENCES)
    for doc in (REPO / "docs" / "overcommit.md", REPO / "README.md", REPO / "families" / "overcommit" / "schema.yaml"):
        text = doc.read_text()
        assert "TPC-C-like" in text and "TPC-C on PostgreSQL" not in text and "tpmC =" not in text, doc
    from families.overcommit.figures import shared  # noqa: PLC0415
    assert "TPC-C-like" in shared.LABELS["tpcc"]


@pytest.fixture
def scratch_pg():
    """A private PostgreSQL cluster with the TPC-C-like schema and nothing loaded: yields a function
    that runs SQL (psql -c) and returns its rows; stopped and removed after."""
    why = pgtpcc.check()
    if why:
        pytest.skip(f"PostgreSQL: {why}")
    if os.geteuid() != 0:
        pytest.skip("initdb runs as the postgres user: needs root")
    import shutil  # noqa: PLC0415
    import socket  # noqa: PLC0415
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = REPO / "results" / f".test-pg-{os.getpid()}"  # pytest's tmp is 0700: not the postgres user's
    datadir = base / "data"
    b = pgtpcc.bindir()
    as_pg = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
    try:
        base.mkdir(parents=True)
        os.chmod(base, 0o755)
        sock = Path(pgtpcc.socket_dir(port))
        sock.mkdir(mode=0o700)
        shutil.chown(sock, "postgres", "postgres")
        shutil.chown(base, "postgres", "postgres")
        subprocess.run(as_pg + [f"{b}/initdb", "-D", str(datadir), "-U", "postgres", "--auth=trust", "--no-sync"],
                       check=True, capture_output=True, cwd="/")
        with open(datadir / "postgresql.conf", "a") as f:
            f.write(f"\nlisten_addresses = ''\nport = {port}\nunix_socket_directories = '{sock}'\n")
        subprocess.run(as_pg + [f"{b}/pg_ctl", "-D", str(datadir), "-w", "-l", str(base / "log"), "start"], check=True,
                       capture_output=True, cwd="/")
        psql = [f"{b}/psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", "-h", str(sock), "-p", str(port), "-U", "postgres"]
        subprocess.run(psql + ["-c", "CREATE DATABASE tpcc"], check=True, capture_output=True)
        subprocess.run(psql + ["-d", "tpcc", "-f", str(pgtpcc.HERE / "schema.sql")], check=True, capture_output=True)

        def sql(*commands: str) -> list[list[str]]:
            r = subprocess.run(psql + ["-d", "tpcc", "-A", "-t", "-F", "|", *[x for c in commands for x in ("-c", c)]],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            return [ln.split("|") for ln in r.stdout.splitlines() if ln]

        sql.port = port  # type: ignore[attr-defined]
        yield sql
    finally:
        if (datadir / "postmaster.pid").exists():
            subprocess.run(as_pg + [f"{b}/pg_ctl", "-D", str(datadir), "stop", "-m", "immediate", "-w"],
                           capture_output=True, cwd="/")
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(pgtpcc.socket_dir(port), ignore_errors=True)


def test_tpcc_like_deck_deals_each_client_the_spec_mix_per_23(scratch_pg):
    """tpcc.sql under pgbench (the five transactions replaced by stubs that log which ran, in order,
    per connection): every client's every deck of 23 holds 10 New-Order, 10 Payment and one of
    each other, in an order that changes from deck to deck and client to client."""
    log = "INSERT INTO deck_log (pid, tx) VALUES (pg_backend_pid(), '{}')"
    scratch_pg("CREATE TABLE deck_log (seq bigserial PRIMARY KEY, pid int, tx text)",
               "DROP FUNCTION tpcc_new_order, tpcc_payment, tpcc_order_status, tpcc_delivery, tpcc_stock_level",
               "CREATE OR REPLACE FUNCTION tpcc_new_order(int, int, int, int, boolean, int) RETURNS boolean "
               f"LANGUAGE sql AS $$ {log.format('neworder')}; SELECT true $$",
               "CREATE OR REPLACE FUNCTION tpcc_payment(int, int, boolean, int, int, numeric, boolean, int) RETURNS void "
               f"LANGUAGE sql AS $$ {log.format('payment')} $$",
               "CREATE OR REPLACE FUNCTION tpcc_order_status(int, int, boolean, int, int) RETURNS int "
               f"LANGUAGE sql AS $$ {log.format('orderstatus')}; SELECT 0 $$",
               "CREATE OR REPLACE FUNCTION tpcc_delivery(int, int) RETURNS int "
               f"LANGUAGE sql AS $$ {log.format('delivery')}; SELECT 0 $$",
               "CREATE OR REPLACE FUNCTION tpcc_stock_level(int, int, int) RETURNS int "
               f"LANGUAGE sql AS $$ {log.format('stocklevel')}; SELECT 0 $$")
    argv = pgtpcc.pgbench_argv(scratch_pg.port, warehouses=1, clients=3, duration_s=1)
    argv[argv.index("-T"):argv.index("-T") + 2] = ["-t", str(23 * 6)]  # six decks per client
    r = subprocess.run(argv, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = scratch_pg("SELECT pid, tx FROM deck_log ORDER BY seq")
    per_client: dict[str, list[str]] = {}
    for pid, tx in rows:
        per_client.setdefault(pid, []).append(tx)
    assert len(per_client) == 3 and all(len(v) == 23 * 6 for v in per_client.values())
    orders = set()
    for seq in per_client.values():
        for i in range(0, len(seq), 23):
            deck = seq[i:i + 23]
            assert {t: deck.count(t) for t in pgtpcc.DECK} == pgtpcc.DECK
            orders.add(tuple(deck))
    assert len(orders) > 12  # 18 decks, shuffled: not one order dealt again and again
    mix = {tx: int(n) for tx, n in scratch_pg("SELECT tx, sum(n) FROM tpcc_mix GROUP BY tx")}
    assert mix == {t: n * 6 * 3 for t, n in pgtpcc.DECK.items()}  # counted in the transactions' own statements


def test_tpcc_like_load_gives_each_district_its_own_customer_permutation(scratch_pg):
    load = (pgtpcc.HERE / "load.sql").read_text()
    start = load.index("INSERT INTO orders")
    scratch_pg(load[start:load.index(";", start) + 1].replace(":w", "2"))
    perms = {}
    for w, d, cids in scratch_pg("SELECT o_w_id, o_d_id, string_agg(o_c_id::text, ',' ORDER BY o_id) FROM orders "
                                 "GROUP BY 1, 2"):
        perms[(w, d)] = [int(c) for c in cids.split(",")]
    assert len(perms) == 20
    assert all(sorted(p) == list(range(1, 3001)) for p in perms.values())  # each a permutation of 1..3000
    assert len({tuple(p) for p in perms.values()}) == 20  # and each district its own


def test_tpch_and_resnet_parsers():
    text = "# dbgen\n" + "".join(f"0,{q},0.5\n" for q in range(1, 23)) + "".join(f"1,{q},0.25\n" for q in range(1, 23))
    with pytest.raises(ValueError, match="not checked"):  # no answers-verified line: not a result
        tpch.parse(text)
    text += "# answers verified: 44 query results against DuckDB's tpch_answers() for sf 0.1\n"
    assert tpch.parse(text) == {"queries": 22, "total_s": pytest.approx(5.5), "verified": 44,
                                "verified_how": "against DuckDB's tpch_answers() for sf 0.1"}
    with pytest.raises(ValueError):
        tpch.parse("0,1,0.5\n")
    r = resnet50.parse("# parameters=1\nimages=8\nseconds=2\nimages_per_s=4\nhot_mib=97\ncold_mib=64\n")
    assert r["images_per_s"] == 4 and r["cold_mib"] == 64


def test_tpch_answer_check_catches_a_wrong_answer():
    ref = "l_orderkey|revenue|o_orderdate\n47714|267010.5894|1995-03-11\n22276|266351.5562|1995-01-29\n"
    import datetime  # noqa: PLC0415
    from decimal import Decimal  # noqa: PLC0415
    right = [(47714, Decimal("267010.5894"), datetime.date(1995, 3, 11)),
             (22276, Decimal("266351.5562"), datetime.date(1995, 1, 29))]
    assert tpch.compare(3, right, ref) is None
    wrong = [right[0], (22276, Decimal("266351.5563"), datetime.date(1995, 1, 29))]
    why = tpch.compare(3, wrong, ref)
    assert why.startswith("TPC-H q3: row 2 column revenue") and "\n" not in why
    assert tpch.compare(3, right[:1], ref) == "TPC-H q3: 1 rows, DuckDB's reference answer has 2"
    assert tpch.compare(17, [(None,)], "avg_yearly\n\n") is None  # its NULL is an empty cell
    assert tpch.compare(1, [(0.05008133906964238 * (1 + 1e-9),)], "avg_disc\n0.05008133906964238\n") is None
    c = tpch.Checker({})  # no reference: round k must equal round 0
    c.check(0, 5, right)
    c.check(1, 5, right[::-1])  # order-independent
    with pytest.raises(tpch.WrongAnswer, match="^TPC-H q5: round 2 returned 1 rows"):
        c.check(2, 5, right[:1])
    c.check(0, 20, [])  # no rows can be right (q2, q20 at SF 0.001)
    unlimited = tpch.Checker({}, {int(q): tuple(v) for q, v in c.checksums().items()})  # the R = 1 run's
    unlimited.check(0, 5, right)
    with pytest.raises(tpch.WrongAnswer, match="^TPC-H q20: 1 rows .* the unlimited \\(R = 1\\) run returned 0"):
        unlimited.check(0, 20, right[:1])
    assert "and to the unlimited R = 1 run's" in unlimited.summary(0.02)
    from families.overcommit import workloads as oc_wl  # noqa: PLC0415
    one, two = oc_wl.per_ratio_args("tpch", "results/h/R1/rep0", 1), oc_wl.per_ratio_args("tpch", "results/h/R1/rep0", 2)
    assert one[0] == "--checksums-out" and two[0] == "--checksums-from" and one[1] == two[1]
    assert oc_wl.per_ratio_args("ffmpeg", "results/h/R1/rep0", 2) == []


@pytest.mark.skipif(tpch.check() is not None, reason=f"DuckDB: {tpch.check()}")
def test_tpch_run_with_a_tampered_reference_fails_naming_the_query(monkeypatch, capsys):
    real = tpch.references

    def tampered(con, sf):
        refs = real(con, sf)
        cols, rows = tpch.reference_rows(refs[6])
        refs[6] = "|".join(cols) + "\n" + "\n".join("|".join(r[:-1] + ["1"]) for r in rows) + "\n"
        return refs

    monkeypatch.setattr(tpch, "references", tampered)
    assert tpch.main(["--sf", "0.01", "--threads", "1"]) == 1
    out = capsys.readouterr()
    assert out.err.strip().splitlines() == [out.err.strip()] and out.err.startswith("tierbench: error: TPC-H q6: ")
    assert "answers verified" not in out.out
    monkeypatch.setattr(tpch, "references", real)
    assert tpch.main(["--sf", "0.01", "--threads", "1"]) == 0
    assert "# answers verified: 22 query results against DuckDB's tpch_answers() for sf 0.01" in capsys.readouterr().out


@needs_cgroups
def test_resnet50_train_needs_pytorch_and_plans_the_training_program(monkeypatch):
    c = cfg(workloads=["resnet50"], resnet50={"mode": "train", "batch": 2, "images": 4, "dataset_mib": 16})
    monkeypatch.setattr(resnet50_train, "check", lambda: "No module named 'torch': PyTorch is not installed")
    with pytest.raises(ConfigError, match=r"overcommit/resnet50/mode: train needs PyTorch: No module named 'torch'"):
        oc_plan(c)
    monkeypatch.setattr(resnet50_train, "check", lambda: None)
    rows = oc_plan(c).rows
    assert {r["context"]["resnet50_mode"] for r in rows} == {"train"}
    argv = json.loads(next(a for a in _runner(rows[0]) if a.startswith("[")))
    assert argv[argv.index("-m") + 1] == "workloads.resnet50.train" and argv[argv.index("--batch") + 1] == "2"
    assert "--prepare-json" not in _runner(rows[0]), "no graph to build beforehand"
    monkeypatch.setattr(resnet50, "check", lambda: None)
    assert {r["context"]["resnet50_mode"] for r in oc_plan(cfg(workloads=["resnet50"])).rows} == {"inference"}, "the default"


def _runner(row: dict) -> list[str]:
    return row["run"]["scenario"]["roles"][0]["argv"]


@pytest.mark.skipif(resnet50_train.check() is not None, reason=f"optional PyTorch: {resnet50_train.check()}")
def test_resnet50_training_runs_on_pytorch():
    """Two images in steps of one: the architecture is ResNet-50's (25 557 032 parameters with batch
    norm), and the output is what the inference parser reads."""
    assert sum(p.numel() for p in resnet50_train.model().parameters()) == 25_557_032
    out = subprocess.run([sys.executable, "-m", "workloads.resnet50.train", "--batch", "1", "--images", "2",
                          "--dataset-mib", "2", "--threads", "1"], cwd=REPO, capture_output=True, text=True, check=True)
    r = resnet50.parse(out.stdout)
    assert r["images"] == 2 and r["images_per_s"] > 0
    assert r["hot_mib"] == pytest.approx(25_557_032 * 4 * 3 / 2**20, abs=0.01), "weights, gradients and momentum"


def test_point_rows_compare_with_the_r1_point(tmp_path):
    summ = {"peak_anon_shmem": 0, "footprint_bytes": 100 << 20, "limit_bytes": 50 << 20, "pgmajfault": 10, "pgfault": 30,
            "swapin": 20, "swapout": -1, "swapin_source": "workingset_refault_anon", "host_pswpin": 20, "host_pswpout": 25,
            "swap_peak": 8 << 20, "wall_s": 2.0, "user_s": 1.0, "system_s": 0.5, "peak_usage": 50 << 20}
    (tmp_path / "memcg.json").write_text(json.dumps(summ))
    (tmp_path / "memcg.csv").write_text("t_s,anon,shmem,file,swap,usage,pgfault,pgmajfault,swapin\n"
                                        "0.1,1048576,0,0,0,1,1,0,0\n0.2,1048576,0,0,1048576,1,5,10,20\n")
    (tmp_path / "workload.err").write_text((DATA / "ffmpeg" / "benchmark.err").read_text())
    base = tmp_path / "base.csv"
    fps = ffmpeg.parse((DATA / "ffmpeg" / "benchmark.err").read_text())["fps"]
    base.write_text(f"t_s,metric,value,unit\n,fps,{2 * fps},frames/s\n")
    from families.overcommit.workloads import FILES

    rows = oc_parse.rows(tmp_path, {"tool": "ffmpeg"}, {"files": FILES, "native": "workloads.ffmpeg.workload:native",
                                                       "ratio": 2, "baseline": str(base), "cost": {"dram_per_gib": 1, "ssd_per_gib": 0}})
    m = {r["metric"]: r["value"] for r in rows if r["t_s"] == ""}
    assert m["relative_performance"] == pytest.approx(0.5, abs=1e-3) and m["slowdown"] == pytest.approx(0.5, abs=1e-3)
    assert m["footprint"] == 100 and m["dram_limit"] == 50 and m["cost_saving"] == 0.5
    assert m["major_faults"] == 10 and m["minor_faults"] == 20 and m["major_faults_per_unit"] == pytest.approx(10 / 30)
    ts = [r for r in rows if r["t_s"] != ""]
    assert {r["metric"] for r in ts} == {"swap_used", "anon_shmem", "major_fault_rate", "swapin_rate"}
    assert next(r for r in ts if r["metric"] == "major_fault_rate")["value"] == pytest.approx(100, rel=1e-6)


# ---- the mechanism, on this machine's cgroups and swap ----------------------------------------------

def ours_left(swapfile: Path) -> list[str]:
    left = [f"cgroup {p}" for p in memcg.our_cgroups() if "test-oc" in p]
    if os.path.realpath(swapfile) in {os.path.realpath(s) for s in memcg.active_swaps()}:
        left.append(f"swap {swapfile}")
    if swapfile.exists():
        left.append(f"file {swapfile}")
    return left


def runner(tmp: Path, name: str, ratio: float, mib: int, passes: int, *, footprint: Path | None = None,
           swap_mib: int = 256) -> list[str]:
    """The runner's command line; its cgroup ``test-oc-<name>`` and swap area (``tmp/swap/t.swap``)
    are the point's scenario's resources (:func:`resources`)."""
    prog = tmp / "alloc.py"
    prog.write_text(ALLOC)
    out = tmp / name
    out.mkdir(exist_ok=True)
    return [sys.executable, "-m", "workflows.harness.memcg", "run", "--name", f"test-oc-{name}", "--ratio", str(ratio),
            "--interval-ms", "50", "--swap", str(tmp / "swap" / "t.swap"), "--swap-mib", str(swap_mib),
            *(["--footprint-from", str(footprint)] if footprint else []),
            "--argv-json", json.dumps([sys.executable, str(prog), str(mib), str(passes)]), "--series", str(out / "memcg.csv")]


def resources(s: Settings, tmp: Path, name: str, swap_mib: int = 256) -> None:
    """What a point's scenario makes for the runner (scenario.HostRun's swapon and cgroup ops)."""
    s.swap_on(str(tmp / "swap" / "t.swap"), swap_mib)
    s.cgroup(f"test-oc-{name}")


@needs_cgroups
def test_faults_and_swapins_grow_with_r_and_the_limit_holds(tmp_path):
    summ = {}
    for ratio in (1, 2, 4):
        fp = None
        if ratio > 1:  # F from the R = 1 run, as the family's points do
            fp = tmp_path / "r1.csv"
            fp.write_text(f"t_s,metric,value,unit\n,footprint,{summ[1]['peak_anon_shmem'] / 2**20},MiB\n")
        with Settings(tmp_path / "journal.json") as s:
            resources(s, tmp_path, f"r{ratio}")
            # the point's area takes the pages before any area the host had on (the highest priority)
            assert settings_mod.swap_priorities().get(str(tmp_path / "swap" / "t.swap")) == 32767
            r = subprocess.run(runner(tmp_path, f"r{ratio}", ratio, 96, 2, footprint=fp), cwd=REPO, capture_output=True,
                               text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        summ[ratio] = json.loads((tmp_path / f"r{ratio}" / "memcg.json").read_text())
        assert ours_left(tmp_path / "swap" / "t.swap") == [], f"R = {ratio} left something behind"
    assert summ[1]["limit_bytes"] is None and summ[1]["peak_anon_shmem"] >= 90 << 20
    assert all(summ[r]["oom_kills"] == 0 for r in (1, 2, 4)), "read (v2 memory.events, v1 memory.oom_control), none"
    assert summ[1]["swapin"] < 100, "R = 1 has no swap-ins to speak of"
    for ratio in (2, 4):
        limit = summ[ratio]["limit_bytes"]
        assert limit == pytest.approx(summ[1]["peak_anon_shmem"] / ratio, abs=4096)
        assert summ[ratio]["peak_usage"] <= limit + (1 << 20), "the limit holds"
        assert summ[ratio]["swap_peak"] > 0
    assert summ[1]["pgmajfault"] < summ[2]["pgmajfault"] < summ[4]["pgmajfault"]
    assert summ[1]["swapin"] < summ[2]["swapin"] < summ[4]["swapin"]
    assert not (tmp_path / "journal.json").exists() and not (tmp_path / "swap").exists(), "its directory too"


@needs_cgroups
def test_a_footprint_too_small_to_limit_is_a_clear_error_with_nothing_written(tmp_path):
    fp = tmp_path / "r1.csv"
    fp.write_text("t_s,metric,value,unit\n,footprint,20,MiB\n")
    argv = runner(tmp_path, "small", 4, 8, 1, footprint=fp)
    stale = [tmp_path / "small" / f for f in memcg.FILES.values()]
    for f in stale:  # an earlier attempt's summary and logs
        f.write_text("{}\n")
    r = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "too small to limit" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert [f.name for f in stale if f.exists()] == [], "no earlier attempt's file is left beside this one's"
    assert ours_left(tmp_path / "swap" / "t.swap") == []


def test_without_its_cgroup_the_runner_says_the_scenario_makes_it(tmp_path):
    if not CG.get("version"):
        pytest.skip(f"no memory cgroup controller: {CG.get('reason')}")
    r = subprocess.run(runner(tmp_path, "nocg", 1, 8, 1), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "the point's scenario makes it" in r.stderr, r.stderr


@needs_cgroups
def test_sigint_stops_the_runner_and_its_resources_go_with_the_settings(tmp_path):
    with Settings(tmp_path / "journal.json") as s:
        resources(s, tmp_path, "int")
        p = subprocess.Popen(runner(tmp_path, "int", 1, 64, 10**6), cwd=REPO, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 60
        while not (tmp_path / "int" / "memcg.csv").exists() or not memcg.Cgroup(CG, "test-oc-int").pids():
            assert p.poll() is None and time.monotonic() < end, "the runner did not start its program"
            time.sleep(0.05)
        time.sleep(0.5)
        assert ours_left(tmp_path / "swap" / "t.swap"), "swap and cgroup are up while it runs"
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        assert p.returncode == 130, err
        assert memcg.Cgroup(CG, "test-oc-int").pids() == [], "nothing of the program is left in its cgroup"
    assert ours_left(tmp_path / "swap" / "t.swap") == [] and not (tmp_path / "journal.json").exists()
    assert not (tmp_path / "int" / "memcg.json").exists(), "an interrupted point writes no summary"


KILLED = """\
import os, sys
from pathlib import Path
from workflows.harness.settings import Settings
s = Settings(Path(sys.argv[1]))
s.swap_on(sys.argv[2], 256)
s.cgroup(sys.argv[3])
os.execv(sys.executable, [sys.executable, *sys.argv[4:]])  # the runner, holding what the journal records
"""


@needs_cgroups
def test_a_killed_run_is_repaired_from_the_journal(tmp_path):
    """SIGKILL to a point holding its cgroup and swap area: the host's settings journal records
    both, and the next measured point of any family undoes them, under the lock, before it runs."""
    results = tmp_path / "results"
    results.mkdir()
    journal = results / ".settings-journal.json"
    swapfile = tmp_path / "swap" / "t.swap"
    argv = runner(tmp_path, "kill", 1, 64, 10**6)
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(journal), str(swapfile), "test-oc-kill", *argv[1:]],
                         cwd=REPO, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not memcg.Cgroup(CG, "test-oc-kill").pids():
        assert p.poll() is None and time.monotonic() < end
        time.sleep(0.05)
    time.sleep(0.5)
    pids = memcg.Cgroup(CG, "test-oc-kill").pids()
    p.kill()  # SIGKILL: nothing can clean up (its child dies by PR_SET_PDEATHSIG, the rest stays)
    p.wait()
    kinds = [k.split(":")[0] for k in json.loads(journal.read_text())]
    assert kinds == ["dir", "swapfile", "swap", "cgroup"], kinds
    assert ours_left(swapfile), "a killed run leaves its swap area (and maybe its cgroup) behind"
    (tmp_path / "facts.json").write_text(json.dumps(hostdetect.detect()))
    sc = {"settings": {}, "scratch": None, "warmup_s": 0, "timeout_s": 30,
          "roles": [{"name": "w", "tool": "w", "argv": ["true"], "parse": "m:f", "output": None, "stdout": None,
                     "pid_file": None, "ready_file": None, "ready_line": None, "target_pid": None, "opts": {},
                     "usage": False, "kind": "workload"}]}
    row = plan.point("any", "t", "t", executor="host", context={"host": "t"}, columns=[], tools=[],
                     run={"scenario": sc, "counters": {"sources": [], "interval_ms": 1000}})
    (tmp_path / "pt").mkdir()
    r = subprocess.run([sys.executable, "-m", "workflows.harness.point", "--outdir", str(tmp_path / "pt"), "--results",
                        str(results), "--facts", str(tmp_path / "facts.json"), "-"], input=json.dumps(row), cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert "put back settings a killed run left changed" in r.stderr, r.stderr
    assert ours_left(swapfile) == [] and not journal.exists() and not swapfile.parent.exists()
    time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() and "alloc" in Path(f"/proc/{pid}/cmdline").read_text()
                   for pid in pids)


def _settings() -> dict:
    paths = [overcommit.SETTINGS["swappiness"], overcommit.SETTINGS["page_cluster"], overcommit.ZSWAP]
    return {p: Path(p).read_text() for p in paths if Path(p).exists()}


@needs_cgroups
@pytest.mark.skipif(not memcg.shutil.which("ffmpeg"), reason="ffmpeg not installed")
def test_points_through_the_executor_restore_settings(tmp_path):
    """Two real FFmpeg points through workflows.harness.point (the core executor): settings set
    and put back, and the R = 2 point reads F from the R = 1 point's result.csv."""
    host = local_host()
    c = cfg(ratios=[1, 2], swappiness=100, page_cluster=0, swap={"directory": str(tmp_path / "swap"), "size_mib": 256},
            ffmpeg={"size": "1280x720", "frames": 40, "preset": "veryfast", "threads": 1})
    before = _settings()
    rows = {r["point"]: r for r in overcommit.plan(c, host).rows}
    results = tmp_path / "results"
    results.mkdir()
    facts = results / "facts.json"
    facts.write_text(json.dumps(host.facts))
    for pid in ("ffmpeg/R1", "ffmpeg/R2"):
        row = json.loads(json.dumps(rows[pid]).replace(f"results/{host.name}/overcommit/", f"{tmp_path}/pts/overcommit/"))
        out = tmp_path / "pts" / "overcommit" / "ratio_sweep" / pid / "rep0"
        out.mkdir(parents=True)
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
        r = subprocess.run([sys.executable, "-m", "workflows.harness.point", "--outdir", str(out), "--results", str(results),
                            "--facts", str(facts), "-"], input=json.dumps(row), cwd=REPO, env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        meta = json.loads((out / "meta.json").read_text())
        assert meta["settings_set"]["/proc/sys/vm/swappiness"] == "100"
        assert _settings() == before
        with open(out / "result.csv", newline="") as f:
            got = {x["metric"]: x["value"] for x in csv.DictReader(f) if not x["t_s"]}
        assert float(got["fps"]) > 0 and "relative_performance" in got
    assert float(got["limit_enforced"]) == 1 and float(got["dram_limit"]) == pytest.approx(float(got["footprint"]) / 2, rel=1e-3)
    assert ours_left(tmp_path / "swap" / "tierbench.swap") == []
    assert not [p for p in memcg.our_cgroups() if "ffmpeg-R" in p]


def test_without_root_the_family_is_absent_with_its_reason():
    host = local_host()
    host.facts["privileges"] = {"root": False}
    fp = oc_plan(cfg(), host)
    assert fp.rows == [] and "root" in fp.absent["overcommit"]


def test_cgroup_v2_files(tmp_path, monkeypatch):
    """The v2 paths on a fixture of a v2 hierarchy (the QEMU guest does not run this family): the
    root's children given the memory controller only through Settings.cgroup, which journals it
    before the write and takes it back on restore, after the cgroup."""
    from workflows.harness.settings import Settings

    root = tmp_path / "cg"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "cgroup.subtree_control").write_text("cpu\n")
    info = memcg.detect(root)
    cg = memcg.Cgroup(info, "w-R2")
    assert cg.root_control() == root / "cgroup.subtree_control"
    orig_mkdir, detect = Path.mkdir, memcg.detect
    monkeypatch.setattr(memcg, "detect", lambda: detect(root))

    def mkdir(self, *a, **kw):  # a real v2 directory comes with its control files
        orig_mkdir(self, *a, **kw)
        for f, v in (("cgroup.subtree_control", ""), ("memory.max", "max"), ("memory.swap.max", "max"),
                     ("cgroup.procs", "")):
            if not (self / f).exists():
                (self / f).write_text(v)

    journal = tmp_path / "journal.json"
    monkeypatch.setattr(Path, "mkdir", mkdir)
    settings = Settings(journal)
    assert settings.cgroup("w-R2") == cg.path
    monkeypatch.setattr(Path, "mkdir", orig_mkdir)
    assert json.loads(journal.read_text()) == {f"subtree:{root}/cgroup.subtree_control": "-memory",
                                               f"cgroup:{cg.path}": "absent"}
    assert (root / "cgroup.subtree_control").read_text() == "+memory"
    assert (root / "tierbench" / "cgroup.subtree_control").read_text() == "+memory"
    cg.limit(50 << 20)
    assert (cg.path / "memory.max").read_text() == str(50 << 20) and (cg.path / "memory.swap.max").read_text() == "max"
    assert cg.limit_bytes() == 50 << 20
    (cg.path / "memory.stat").write_text("anon 1000\nfile 20\nshmem 5\npgfault 9\npgmajfault 3\npswpin 7\npswpout 8\n"
                                         "workingset_refault_anon 6\n")
    (cg.path / "memory.current").write_text("1025\n")
    (cg.path / "memory.swap.current").write_text("4096\n")
    (cg.path / "memory.peak").write_text("2048\n")
    (cg.path / "memory.swap.peak").write_text("8192\n")
    (cg.path / "memory.pressure").write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=123\n"
                                             "full avg10=0.00 avg60=0.00 avg300=0.00 total=45\n")
    s = cg.sample()
    assert (s["anon"], s["shmem"], s["swap"], s["swapin"], s["swapout"], s["pgmajfault"]) == (1000, 5, 4096, 7, 8, 3)
    assert cg.peaks() == {"peak_usage": 2048, "peak_swap": 8192}
    assert cg.psi() == {"psi_some_total_us": 123, "psi_full_total_us": 45}
    assert cg.wrap()[-1] == str(cg.path / "cgroup.procs")
    for f in cg.path.iterdir():  # (a real cgroupfs removes the control files with the directory)
        f.unlink()
    (root / "cgroup.subtree_control").write_text("cpu memory\n")  # as the kernel lists it after "+memory"
    assert settings.restore() == [] and not journal.exists()
    assert not cg.path.exists()
    # (a real cgroupfs would then list "cpu"; the fixture keeps the write)
    assert (root / "cgroup.subtree_control").read_text() == "-memory"


def _start_point(row: dict, host, results: Path, out: Path, timeout_s: float, why: str):
    """The point runner on ``row`` (as a job runs it), returned once it has sampled its cgroup ten times."""
    (results / "facts.json").write_text(json.dumps(host.facts))
    out.mkdir()
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    p = subprocess.Popen([sys.executable, "-m", "workflows.harness.point", "--outdir", str(out), "--results", str(results),
                          "--facts", str(results / "facts.json"), "-"], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=REPO, env=env, text=True)
    p.stdin.write(json.dumps(row))
    p.stdin.close()
    end = time.monotonic() + timeout_s
    while not (out / "memcg.csv").exists() or len((out / "memcg.csv").read_text().splitlines()) < 10:
        assert p.poll() is None and time.monotonic() < end, why
        time.sleep(0.1)
    return p, out


@needs_cgroups
@pytest.mark.skipif(not memcg.shutil.which("ffmpeg"), reason="ffmpeg not installed")
def test_sigint_to_a_point_restores_swap_cgroup_and_settings(tmp_path):
    """SIGINT to the point runner (what Ctrl-C does to a job) in the middle of an R = 2 FFmpeg point."""
    host = local_host()
    c = cfg(ratios=[1, 2], swappiness=100, page_cluster=0, swap={"directory": str(tmp_path / "swap"), "size_mib": 256},
            ffmpeg={"size": "1280x720", "frames": 100000, "preset": "veryfast", "threads": 1})
    before = _settings()
    row = next(r for r in overcommit.plan(c, host).rows if r["point"] == "ffmpeg/R2")
    base = tmp_path / "r1.csv"
    base.write_text("t_s,metric,value,unit\n,footprint,80,MiB\n,fps,100,frames/s\n")
    results = tmp_path / "results"
    results.mkdir()
    row = json.loads(json.dumps(row).replace(f"results/{host.name}/overcommit/ratio_sweep/ffmpeg/R1/rep0/result.csv", str(base)))
    p, out = _start_point(row, host, results, tmp_path / "pt", 60, "the point did not start sampling")
    assert _settings() != before and [x for x in memcg.our_cgroups() if "ffmpeg-R2" in x]
    p.send_signal(signal.SIGINT)
    err = p.stderr.read()
    p.wait(timeout=60)
    assert p.returncode == 130, err
    assert _settings() == before
    assert ours_left(tmp_path / "swap" / "tierbench.swap") == [] and not [x for x in memcg.our_cgroups() if "ffmpeg-R2" in x]
    assert not (results / ".settings-journal.json").exists() and not (out / "result.csv").exists()


def _postgres_of(datadir: str) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "postgres" in cmd and datadir in cmd:
                out.append(int(d.name))
    return out


@needs_cgroups
@pytest.mark.skipif(pgtpcc.check() is not None, reason=f"PostgreSQL: {pgtpcc.check()}")
def test_sigint_to_a_tpcc_point_leaves_no_postgresql(tmp_path):
    """The postmaster runs in the cgroup, pgbench outside; Ctrl-C in the middle leaves no server,
    no cluster directory, no socket directory."""
    host = local_host()
    port = 54391
    c = profile.validate_config({"scale": "t", "overcommit": {
        "enabled": True, "workloads": ["tpcc"], "ratios": [1], "swap": {"directory": str(tmp_path / "swap"), "size_mib": 64},
        "tpcc": {"warehouses": 1, "clients": 1, "duration_s": 120, "port": port}}})
    row = overcommit.plan(c, host).rows[0]
    datadir = os.path.abspath(f"results/{host.name}/overcommit-scratch/tpcc")
    new_dir = str(REPO / "results" / f".test-overcommit-{os.getpid()}" / "tpcc")  # pytest's tmp is 0700: not the postgres user's
    results = tmp_path / "results"
    results.mkdir()
    row = json.loads(json.dumps(row).replace(datadir, new_dir))
    p, out = _start_point(row, host, results, tmp_path / "pt", 180, "the point did not start its driver")
    assert _postgres_of(new_dir), "the server runs"
    p.send_signal(signal.SIGINT)
    err = p.stderr.read()
    p.wait(timeout=120)
    assert p.returncode == 130, err
    assert _postgres_of(new_dir) == [] and not Path(new_dir).exists() and not Path(pgtpcc.socket_dir(port)).exists(), err
    assert not Path(new_dir).parent.exists(), "the scratch directory made for it is gone too"
    assert not [x for x in memcg.our_cgroups() if "tpcc-R1" in x] and not (results / ".settings-journal.json").exists()
    assert ours_left(tmp_path / "swap" / "tierbench.swap") == []


@needs_cgroups
def test_a_swap_device_the_host_profile_names(tmp_path):
    facts = hostdetect.detect()
    prof = tmp_path / "h.yaml"
    prof.write_text("name: oc-dev\ndetect: true\ntiers: []\nstorage: {swap_device: /dev/tierbench-none}\n")
    host = plan.Host(profile.resolve(str(prof), facts), facts)
    with pytest.raises(ConfigError, match=r"host profile .*h\.yaml: storage/swap_device: swap device /dev/tierbench-none does not exist"):
        oc_plan(cfg(), host)


@needs_cgroups
def test_a_leftover_cgroup_of_the_same_name_is_replaced():
    cg = memcg.Cgroup(CG, "test-oc-leftover")
    try:
        cg.create()
        cg.create()  # the parent it removes with the leftover is made again
        assert cg.path.is_dir() and cg.pids() == []
    finally:
        cg.remove()
    assert not cg.path.exists()
