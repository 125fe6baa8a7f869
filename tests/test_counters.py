"""Counter collectors: parsers on synthetic samples, probes, and process lifecycle."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO

from workflows.harness import ConfigError, hostdetect
from workflows.harness.counters import (
    COLUMNS,
    Collectors,
    Ipmctl,
    PcmMemory,
    PerfUncore,
    UncoreEvent,
    complete_lines,
    make_source,
    parse_pcm_csv,
    parse_perf_stat,
    pcm_column,
)
from workflows.harness.procs import Supervisor

DATA = Path(__file__).resolve().parent / "data" / "counters"


def value(df: pd.DataFrame, **where) -> float:
    sel = df
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"{where}: {len(sel)} rows\n{df}"
    return float(sel["value"].iloc[0])


def copy_data(tmp_path: Path, *names: str) -> Path:
    for n in names:
        shutil.copy(DATA / n, tmp_path / n)
    return tmp_path


# ------------------------------------------------------------------ parsers

def test_complete_lines_drops_unterminated_tail(tmp_path):
    p = tmp_path / "f"
    p.write_text("a\nb\nc")
    assert complete_lines(p) == ["a", "b"]
    p.write_text("a\nb\n")
    assert complete_lines(p) == ["a", "b"]
    assert complete_lines(tmp_path / "missing") == []


def test_perf_uncore_parse(tmp_path):
    df = PerfUncore().parse(copy_data(tmp_path, "perf_uncore.csv", "perf_uncore.events.json"))
    assert list(df.columns) == COLUMNS
    assert set(df["source"]) == {"perf_uncore"}
    assert set(df["t_s"]) == {1.0, 2.0}  # the truncated t=3 line is dropped
    for t in (1.0, 2.0):
        # IMC: count x 64 B per 1 s interval
        assert value(df, t_s=t, scope="S0/uncore_imc_0", metric="read_bandwidth") == pytest.approx(1000.0)
        assert value(df, t_s=t, scope="S0/uncore_imc_1", metric="read_bandwidth") == pytest.approx(500.0)
        assert value(df, t_s=t, scope="S0", metric="read_bandwidth") == pytest.approx(1500.0)
        assert value(df, t_s=t, scope="S0", metric="write_bandwidth") == pytest.approx(250.0 + 100.0)
        # CHA: 200 / 300 cycles per DRd miss at 2 GHz
        assert value(df, t_s=t, scope="S0", metric="latency_drd_local") == pytest.approx(100.0)
        assert value(df, t_s=t, scope="S0", metric="latency_drd_remote") == pytest.approx(150.0)
        assert value(df, t_s=t, scope="S1", metric="latency_drd_local") == pytest.approx(100.0)
        assert value(df, t_s=t, scope="S0/uncore_cha_0", metric="tor_inserts_drd_local") == 1e6
    units = dict(zip(df["metric"], df["unit"], strict=False))
    assert units["read_bandwidth"] == "MB/s" and units["latency_drd_local"] == "ns"
    assert units["tor_occupancy_drd_local"] == "count"
    # <not counted> (S1 imc_1 write) and <not supported> (S1 cha_1 ticks) give no rows,
    # and S1 remote latency cannot be computed without clockticks
    assert df[(df.scope == "S1/uncore_imc_1") & (df.metric == "write_bandwidth")].empty
    assert df[(df.scope == "S1") & (df.metric == "latency_drd_remote")].empty
    assert df["value"].notna().all()


def test_perf_stat_comma_separator_same_result(tmp_path):
    meta = json.loads((DATA / "perf_uncore.events.json").read_text())
    events = [UncoreEvent(**{k: v for k, v in e.items() if k != "spec"}) for e in meta["events"]]
    semi = parse_perf_stat(DATA / "perf_uncore.csv", events)
    comma = parse_perf_stat(DATA / "perf_stat_comma.txt", events)
    key = ["t_s", "scope", "metric"]
    pd.testing.assert_frame_equal(semi.sort_values(key).reset_index(drop=True),
                                  comma.sort_values(key).reset_index(drop=True))


def test_perf_parse_without_event_map_and_garbage(tmp_path):
    df = parse_perf_stat(DATA / "perf_stat_comma.txt", [])
    assert not df.empty  # unknown events become raw counts named by their spec
    assert set(df["unit"]) == {"count"}
    bad = tmp_path / "bad.csv"
    bad.write_text("garbage\n1.0;S0\n;;;;\n\n#comment\n")
    assert parse_perf_stat(bad, []).empty
    assert list(PerfUncore().parse(tmp_path).columns) == COLUMNS  # nothing there


def test_pcm_memory_parse(tmp_path):
    start = datetime(2024, 5, 6, 10, 0, 0).timestamp()  # pcm prints local time
    df = parse_pcm_csv(DATA / "pcm_memory.csv", start_epoch=start)
    assert list(df.columns) == COLUMNS
    assert set(df["t_s"]) == {1.0, 2.0}  # truncated third row dropped
    assert value(df, t_s=1.0, scope="S0/ch0", metric="read_bandwidth") == 600.0
    assert value(df, t_s=1.0, scope="S0/ch1", metric="write_bandwidth") == 100.0
    assert value(df, t_s=2.0, scope="S0", metric="read_bandwidth") == 1200.0
    assert value(df, t_s=2.0, scope="S0", metric="memory_bandwidth") == 1700.0
    assert value(df, t_s=1.0, scope="S0", metric="p_write") == 12345.0
    assert value(df, t_s=1.0, scope="system", metric="memory_bandwidth") == 1375.0
    assert df[df.scope == "S1/ch1"].empty  # inactive channel: empty cells
    assert set(df[df.metric == "read_bandwidth"]["unit"]) == {"MB/s"}
    # without a start time, t_s counts from the first sample
    assert set(parse_pcm_csv(DATA / "pcm_memory.csv")["t_s"]) == {0.0, 1.0}
    # through the source, with the start time written beside the data
    copy_data(tmp_path, "pcm_memory.csv")
    (tmp_path / "pcm_memory.start").write_text(f"{start}\n")
    assert set(PcmMemory().parse(tmp_path)["t_s"]) == {1.0, 2.0}


def test_pcm_column_names():
    assert pcm_column("SKT1", "Ch3Read") == ("S1/ch3", "read_bandwidth", "MB/s")
    assert pcm_column("SKT0", "Ch2PMM_Write") == ("S0/ch2", "pmm_write_bandwidth", "MB/s")
    assert pcm_column("SKT0", " PMM_Write (MB/s)") == ("S0", "pmm_write_bandwidth", "MB/s")
    assert pcm_column("System", "DRAMRead") == ("system", "dram_read_bandwidth", "MB/s")
    assert pcm_column("SKT0", "CXL.mem_P1Read") == ("S0/cxl1", "cxl_mem_read_bandwidth", "MB/s")
    assert pcm_column("SKT0", "NM hits (M/s)") == ("S0", "nm_hits", "1e6/s")


def test_ipmctl_parse_difference(tmp_path):
    copy_data(tmp_path, "ipmctl_before.txt", "ipmctl_after.txt")
    (tmp_path / "ipmctl_before.time").write_text("1000.0\n")
    (tmp_path / "ipmctl_after.time").write_text("1010.0\n")
    df = Ipmctl().parse(tmp_path)
    assert list(df.columns) == COLUMNS
    assert set(df["t_s"]) == {10.0}
    assert value(df, scope="dimm/0x0001", metric="media_reads") == 1562500
    assert value(df, scope="dimm/0x0001", metric="media_read_bandwidth") == pytest.approx(10.0)
    assert value(df, scope="dimm/0x0001", metric="media_write_bandwidth") == pytest.approx(5.0)
    assert value(df, scope="dimm/0x0001", metric="total_media_reads") == 1562500
    assert value(df, scope="dimm/0x0101", metric="read_requests") == 5
    # DIMM 0x0101's MediaReads went backwards (reset): no row rather than a negative one
    assert df[(df.scope == "dimm/0x0101") & (df.metric == "media_reads")].empty
    # no 'after' snapshot -> nothing
    (tmp_path / "ipmctl_after.time").unlink()
    assert Ipmctl().parse(tmp_path).empty


# ------------------------------------------------------------ event choice

def fake_sysfs(root: Path, pmus: dict[str, dict[str, str]]) -> Path:
    """root/bus/event_source/devices/<pmu>/<relpath> = content."""
    for pmu, files in pmus.items():
        for rel, content in files.items():
            p = root / "bus/event_source/devices" / pmu / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content + "\n")
    return root


def fake_cpuinfo(path: Path, vendor: str, family: int, model: int) -> Path:
    path.write_text(f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n")
    return path


def test_event_choice_spr(tmp_path):
    cha_fmt = {"format/event": "config:0-7", "format/umask": "config:8-15,32-55"}
    sysfs = fake_sysfs(tmp_path / "sys", {
        "uncore_imc_0": {"events/cas_count_read": "event=0x05,umask=0xcf", "events/cas_count_write": "event=0x05,umask=0xf0"},
        "uncore_imc_1": {"format/event": "config:0-7"},  # no alias: table for SPR
        **{f"uncore_cha_{i}": cha_fmt for i in range(4)},
    })
    src = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 143))
    ev = src.choose_events(["uncore_cha_0", "uncore_cha_1", "uncore_cha_2", "uncore_cha_3", "uncore_imc_0", "uncore_imc_1"])
    specs = {e.spec: e for e in ev}
    assert specs["uncore_imc_0/event=0x05,umask=0xcf/"].metric == "read_bandwidth"
    assert specs["uncore_imc_1/event=0x05,umask=0xf0/"].bytes_per_count == 64
    # even boxes local, odd boxes remote; clockticks event 0x01 on SPR
    assert specs["uncore_cha_2/event=0x36,umask=0xc816fe01/"].metric == "tor_occupancy_drd_local"
    assert specs["uncore_cha_3/event=0x35,umask=0xc8177e01/"].metric == "tor_inserts_drd_remote"
    assert specs["uncore_cha_1/event=0x01/"].group == "drd_remote"
    assert len(ev) == 4 + 4 * 3
    # argv and the event map parse() reads
    src.binary, src.events = "/usr/bin/perf", ev
    argv = src.argv(tmp_path, 250)
    assert argv[:2] == ["/usr/bin/perf", "stat"] and "--per-socket" in argv
    assert argv[argv.index("-I") + 1] == "250" and argv[argv.index("-x") + 1] == ";"
    assert argv[argv.index("-o") + 1] == str(tmp_path / "perf_uncore.csv")
    assert len(json.loads((tmp_path / "perf_uncore.events.json").read_text())["events"]) == len(ev)


def test_event_choice_skx_needs_filter_terms(tmp_path):
    cpu = fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 85)
    full = {f"format/{t}": "config1:33" for t in ("event", "umask", "filter_opc0", "filter_loc", "filter_rem", "filter_nm", "filter_not_nm")}
    sysfs = fake_sysfs(tmp_path / "a", {"uncore_cha_0": full, "uncore_cha_1": full})
    ev = PerfUncore(sys_root=sysfs, cpuinfo=cpu).choose_events(["uncore_cha_0", "uncore_cha_1"])
    assert "uncore_cha_0/event=0x36,umask=0x21,filter_opc0=0x202,filter_nm=1,filter_not_nm=1,filter_loc=1/" in {e.spec for e in ev}
    assert any("filter_rem=1" in e.spec and e.pmu == "uncore_cha_1" for e in ev)
    # an old kernel without the filter terms: no CHA events, and a note saying why
    sysfs = fake_sysfs(tmp_path / "b", {"uncore_cha_0": {"format/event": "config:0-7"}})
    src = PerfUncore(sys_root=sysfs, cpuinfo=cpu)
    assert src.choose_events(["uncore_cha_0"]) == []
    assert "filter_opc0" in " ".join(src.notes)


def test_event_choice_amd_and_explicit(tmp_path):
    src = PerfUncore(sys_root=tmp_path, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "AuthenticAMD", 0x19, 0x01))
    ev = src.choose_events(["amd_df"])
    assert [e.config for e in ev][:2] == ["event=0x7,umask=0x38", "event=0x47,umask=0x38"]
    assert ev[-1].config == "event=0x1c7,umask=0x38" and ev[-1].bytes_per_count == 64
    zen4 = PerfUncore(sys_root=tmp_path, cpuinfo=fake_cpuinfo(tmp_path / "c4", "AuthenticAMD", 0x19, 0x11))
    assert zen4.choose_events(["amd_df"]) == [] and zen4.notes
    mine = [{"pmu": "uncore_cha_0", "config": "event=0x36,umask=0x1", "metric": "tor_occupancy_x", "group": "x"}]
    assert PerfUncore(events=mine).choose_events(["uncore_imc_0"])[0].spec == "uncore_cha_0/event=0x36,umask=0x1/"


# -------------------------------------------------------- probes (this host)

@pytest.fixture(scope="module")
def facts() -> dict:
    return hostdetect.detect()


def test_probe_perf_uncore_on_this_machine(facts):
    if facts["uncore_pmus"]:
        pytest.skip(f"this machine has uncore PMUs {facts['uncore_pmus']}")
    st = PerfUncore().probe(facts, {"tools": {}})
    assert st["available"] is False
    assert "PMU" in st["reason"]


@pytest.mark.parametrize("source,binaries", [("pcm_memory", ["pcm-memory", "pcm-memory.x"]), ("ipmctl", ["ipmctl"])])
def test_probe_missing_binaries(facts, source, binaries):
    if any(shutil.which(b) for b in binaries):
        pytest.skip(f"{binaries[0]} is installed here")
    st = make_source(source).probe(facts, {"tools": {}})
    assert st == {"available": False, "reason": st["reason"]}
    assert "not found" in st["reason"]


def test_unknown_source_and_bad_interval(tmp_path):
    with Supervisor() as sup:
        with pytest.raises(ConfigError, match="likwid"):
            Collectors(["perf_uncore", "likwid"], {}, {}, tmp_path, 1000, sup)
        with pytest.raises(ConfigError, match="interval_ms"):
            Collectors(["ipmctl"], {}, {}, tmp_path, 0, sup)


# ------------------------------------------------------ process lifecycle

FAKE_FACTS = {
    "cpu_model": "Intel(R) Xeon(R) (test)",
    "privileges": {"root": True},
    "perf_counters": {"available": True, "reason": "test"},
    "uncore_pmus": [],
}

FAKE_PCM = r"""#!/bin/sh
# test stand-in for pcm-memory: <delay> -csv=<file> -f
for a in "$@"; do case "$a" in -csv=*) out="${a#-csv=}";; esac; done
echo "fake pcm-memory starting" >&2
printf ',,SKT0,SKT0,System,System,System\nDate,Time,Mem Read (MB/s),Mem Write (MB/s),Read,Write,Memory\n' > "$out"
while :; do
    printf '%s,%s,  100.00,   50.00,  100.00,   50.00,  150.00\n' "$(date +%Y-%m-%d)" "$(date +%H:%M:%S.%3N)" >> "$out"
    sleep 0.1
done
"""


def write_script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is pgid."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(d.name))
    return out


def pcm_source(tmp_path: Path) -> PcmMemory:
    msr = tmp_path / "msr"
    msr.write_text("")
    src = PcmMemory(msr_dev=msr, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 143))
    src.MSR_ALLOW_WRITES = tmp_path / "allow_writes"  # never touch the real one in a test
    return src


def test_collectors_start_and_stop_by_pid(tmp_path):
    fake = write_script(tmp_path / "pcm-memory", FAKE_PCM)
    out = tmp_path / "counters"
    profile = {"tools": {"pcm_memory": str(fake), "ipmctl": str(tmp_path / "no-ipmctl")}}
    with Supervisor(grace_s=2.0) as sup:
        with Collectors([pcm_source(tmp_path), "perf_uncore", "ipmctl"], FAKE_FACTS, profile, out, 100, sup) as col:
            pid = col.status()["pcm_memory"]["pid"]
            time.sleep(0.5)
            assert running(pid) and os.getpgid(pid) == pid  # own process group
            t_exit = time.monotonic()
        assert time.monotonic() - t_exit < 1.5  # SIGINT sufficed, no wait for the SIGKILL grace
        assert not running(pid)
        assert group_members(pid) == []
        status = col.status()
    json.dumps(status)  # meta.json-ready
    st = status["pcm_memory"]
    assert st["available"] is True and st["ok"] is True, st
    assert st["argv"][1:] == ["0.1", f"-csv={out / 'pcm_memory.csv'}", "-f"]
    assert status["perf_uncore"]["available"] is False and "PMU" in status["perf_uncore"]["reason"]
    assert status["ipmctl"] == {"available": False, "reason": status["ipmctl"]["reason"]}
    df = col.frames()
    assert list(df.columns) == COLUMNS and not df.empty
    assert set(df["source"]) == {"pcm_memory"}
    assert set(df[df.scope == "S0"]["metric"]) == {"read_bandwidth", "write_bandwidth"}
    assert (df["t_s"] > 0).all() and (df["t_s"] < 5).all()
    assert st["rows"] == len(df)


def test_collector_that_exits_at_once_is_not_ok(tmp_path):
    fake = write_script(tmp_path / "pcm-memory", "#!/bin/sh\necho 'PCM Error: cannot access PMU' >&2\nexit 3\n")
    with Supervisor(grace_s=1.0) as sup:
        with Collectors([pcm_source(tmp_path)], FAKE_FACTS, {"tools": {"pcm_memory": str(fake)}},
                        tmp_path / "c", 100, sup) as col:
            time.sleep(0.3)
        st = col.status()["pcm_memory"]
    assert st["available"] is True and st["ok"] is False
    assert "status 3" in st["reason"] and "cannot access PMU" in st["reason"]
    assert not running(st["pid"]) and group_members(st["pid"]) == []
    assert col.frames().empty and list(col.frames().columns) == COLUMNS
    assert not col.write_csv(tmp_path / "counters.csv") and not (tmp_path / "counters.csv").exists()


def test_point_without_counter_rows_never_imports_pandas(tmp_path):
    """A measured point whose counter sources have no rows (none runs on a machine without PMUs)
    must not pay pandas' import (~0.3 s before its workload, on every measured point): the
    collectors' module, a run of them, and write_csv all without it, in a fresh interpreter."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from workflows.harness.counters import Collectors\n"
        "from workflows.harness.procs import Supervisor\n"
        f"out = Path({str(tmp_path)!r})\n"
        "with Supervisor() as sup, Collectors(['perf_uncore', 'pcm_memory', 'ipmctl'],"
        " {'perf_counters': {'available': False, 'reason': 'none'}, 'uncore_pmus': [], 'tools': {}}, {}, out / 'c', 100, sup) as col:\n"
        "    pass\n"
        "assert not col.write_csv(out / 'counters.csv')\n"
        "print('pandas' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
    assert not (tmp_path / "counters.csv").exists()


def test_collector_that_cannot_start_is_not_ok(tmp_path):
    src = pcm_source(tmp_path)
    src.argv = lambda outdir, interval_ms: [str(tmp_path / "vanished")]  # type: ignore[method-assign]
    fake = write_script(tmp_path / "pcm-memory", "#!/bin/sh\nexit 0\n")
    with Supervisor() as sup, Collectors([src], FAKE_FACTS, {"tools": {"pcm_memory": str(fake)}},
                                         tmp_path / "c", 100, sup) as col:
        pass
    st = col.status()["pcm_memory"]
    assert st["available"] is True and st["ok"] is False and "could not start" in st["reason"]


FAKE_IPMCTL = r"""#!/bin/sh
# test stand-in for ipmctl: a DIMM table, and a MediaReads counter that grows by 1000 per call
state="$(dirname "$0")/ipmctl.state"
case "$*" in
    "show -dimm") printf ' DimmID | Capacity  | HealthState\n==============================\n 0x0001 | 126.4 GiB | Healthy\n' ;;
    "show -dimm -performance")
        n=$(cat "$state" 2>/dev/null || echo 0); n=$((n + 1000)); echo "$n" > "$state"
        printf -- '---DimmID=0x0001---\n   MediaReads=0x%032x\n' "$n" ;;
    *) echo "unexpected: $*" >&2; exit 2 ;;
esac
"""


def test_snapshot_source_before_and_after(tmp_path):
    fake = write_script(tmp_path / "ipmctl", FAKE_IPMCTL)
    with Supervisor() as sup, Collectors(["ipmctl"], FAKE_FACTS, {"tools": {"ipmctl": str(fake)}},
                                         tmp_path / "c", 1000, sup) as col:
        time.sleep(0.1)
    st = col.status()["ipmctl"]
    assert st["available"] is True and st["ok"] is True, st
    df = col.frames()
    assert value(df, scope="dimm/0x0001", metric="media_reads") == 1000
    assert value(df, scope="dimm/0x0001", metric="media_read_bandwidth") > 0


# ---------------------------------------- newer targets, ownership, multiplexing

def test_event_choice_granite_rapids_counts_both_subchannels(tmp_path):
    # a kernel alias exists, but on GNR it would be one sub-channel: the table's two are used
    sysfs = fake_sysfs(tmp_path / "sys", {"uncore_imc_0": {"events/cas_count_read": "event=0x05,umask=0xcf",
                                                           "events/cas_count_write": "event=0x05,umask=0xf0"}})
    src = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 0xAD))
    specs = {e.spec: e.metric for e in src.choose_events(["uncore_imc_0"])}
    assert specs == {"uncore_imc_0/event=0x05,umask=0xcf/": "read_bandwidth_sch0",
                     "uncore_imc_0/event=0x05,umask=0xf0/": "write_bandwidth_sch0",
                     "uncore_imc_0/event=0x06,umask=0xcf/": "read_bandwidth_sch1",
                     "uncore_imc_0/event=0x06,umask=0xf0/": "write_bandwidth_sch1"}


def test_granite_rapids_cha_latency_has_its_clock(tmp_path):
    """GNR's TOR events and UNC_CHA_CLOCKTICKS (EventCode 0x01, graniterapids_uncore.json): the
    latency needs the clock; given cha_groups of a model with no known clock, the notes say there
    is no latency in ns rather than leaving it out silently."""
    cha_fmt = {"format/event": "config:0-7", "format/umask": "config:8-15,32-63"}
    sysfs = fake_sysfs(tmp_path / "sys", {f"uncore_cha_{i}": cha_fmt for i in range(2)})
    src = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 0xAD))
    specs = {e.spec: e.metric for e in src.choose_events(["uncore_cha_0", "uncore_cha_1"])}
    assert specs["uncore_cha_0/event=0x36,umask=0xc816fe01/"] == "tor_occupancy_drd_local"
    assert specs["uncore_cha_1/event=0x35,umask=0xc8177e01/"] == "tor_inserts_drd_remote"
    assert specs["uncore_cha_0/event=0x01/"] == "cha_clockticks"
    # an unknown model with the user's groups: counted, and said to have no clock
    groups = {"drd_local": {"tor_occupancy": "event=0x36,umask=0xc816fe01", "tor_inserts": "event=0x35,umask=0xc816fe01"}}
    src = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo2", "GenuineIntel", 6, 0xDD),
                     cha_groups=groups)
    ev = src.choose_events(["uncore_cha_0"])
    assert {e.metric for e in ev} == {"tor_occupancy_drd_local", "tor_inserts_drd_local"}
    assert any("no latency in ns" in n for n in src.notes)


def test_gnr_subchannels_sum_per_socket(tmp_path):
    events = [UncoreEvent("uncore_imc_0", "event=0x05,umask=0xcf", "read_bandwidth_sch0", 64),
              UncoreEvent("uncore_imc_0", "event=0x06,umask=0xcf", "read_bandwidth_sch1", 64)]
    data = tmp_path / "p.csv"
    data.write_text("     1.000000000;S0;1;1000000;;uncore_imc_0/event=0x05,umask=0xcf/;1000000000;100.00;;\n"
                    "     1.000000000;S0;1;3000000;;uncore_imc_0/event=0x06,umask=0xcf/;1000000000;100.00;;\n")
    df = parse_perf_stat(data, events)
    assert value(df, scope="S0", metric="read_bandwidth") == pytest.approx(4e6 * 64 / 1e6)
    assert df[df.metric == "counter_running_pct"].empty


def _spr_cha(tmp_path, umask_fmt: str, cxl: bool):
    cha_fmt = {"format/event": "config:0-7", "format/umask": umask_fmt}
    sysfs = fake_sysfs(tmp_path / umask_fmt.replace(":", "_"), {f"uncore_cha_{i}": cha_fmt for i in range(3)})
    src = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 0x8F), cxl_split=cxl)
    return src, src.choose_events([f"uncore_cha_{i}" for i in range(3)])


def test_spr_cxl_split_needs_the_wide_umask_format(tmp_path):
    # a kernel whose CHA umask spans 8 + 32 bits takes the 37-bit CXL_ACC_LOCAL umask: three
    # disjoint groups (CXL_ACC, 0x10c8178201, would also count the remote-homed reads drd_remote does)
    src, ev = _spr_cha(tmp_path, "config:8-15,32-63", cxl=True)
    assert {e.group for e in ev} == {"drd_local_ddr", "drd_cxl", "drd_remote"}
    assert "uncore_cha_1/event=0x36,umask=0x10c8168201/" in {e.spec for e in ev}
    # the older format (8 + 24 bits): no CXL group, said in a note
    src, ev = _spr_cha(tmp_path, "config:8-15,32-55", cxl=True)
    assert {e.group for e in ev} == {"drd_local", "drd_remote"}
    assert any("CXL/DDR split needs a 37-bit" in n for n in src.notes)
    # no CPU-less node: the two groups, whatever the kernel
    src, ev = _spr_cha(tmp_path, "config:8-15,32-63", cxl=False)
    assert {e.group for e in ev} == {"drd_local", "drd_remote"}
    # a kernel whose umask has no extended bits at all: no TOR events
    src, ev = _spr_cha(tmp_path, "config:8-15", cxl=False)
    assert ev == [] and "spans 8 bits" in " ".join(src.notes)


def test_cha_left_to_its_owner(tmp_path):
    cha_fmt = {"format/event": "config:0-7", "format/umask": "config:8-15,32-55"}
    sysfs = fake_sysfs(tmp_path / "sys", {"uncore_cha_0": cha_fmt,
                                          "uncore_imc_0": {"events/cas_count_read": "event=0x05,umask=0xcf",
                                                           "events/cas_count_write": "event=0x05,umask=0xf0"}})
    src = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "cpuinfo", "GenuineIntel", 6, 0x8F),
                     owned_elsewhere={"uncore_cha": "tierd (CHA latency)"})
    ev = src.choose_events(["uncore_cha_0", "uncore_imc_0"])
    assert {e.pmu for e in ev} == {"uncore_imc_0"}
    assert any("left to tierd (CHA latency)" in n for n in src.notes)


def test_tierd_role_claims_cha_unless_probe():
    from workloads.tierd import workload as tierd

    auto = tierd.role(tierd.argv(policy="hemem", colloid=True, nodes=(0, 1), default_capacity="1G", observe="auto"))
    assert {"uncore_cha", "amd_l3"} <= set(auto["pmus"]), "auto: CHA on Intel, the L3 PMU on AMD Zen 4/5"
    assert set(tierd.role(["build/bin/tierd", "--latency", "amd-l3"])["pmus"]) == {"amd_l3"}
    probe = tierd.role(["build/bin/tierd", "--latency", "probe"])
    assert "pmus" not in probe


def test_amd_zen4_umc_and_zen5_df(tmp_path):
    z4 = PerfUncore(sys_root=tmp_path, cpuinfo=fake_cpuinfo(tmp_path / "c4", "AuthenticAMD", 0x19, 0x11))
    ev = z4.choose_events(["amd_df", "amd_umc_0", "amd_umc_1"])
    assert [(e.pmu, e.config, e.metric) for e in ev][:2] == [("amd_umc_0", "event=0x0a,rdwrmask=0x1", "read_bandwidth"),
                                                              ("amd_umc_0", "event=0x0a,rdwrmask=0x2", "write_bandwidth")]
    assert len(ev) == 4 and all(e.bytes_per_count == 64 for e in ev)
    sysfs = fake_sysfs(tmp_path / "z5", {"amd_df": {"format/umask": "config:8-15,24-27"}})
    z5 = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "c5", "AuthenticAMD", 0x1A, 0x02))
    ev = z5.choose_events(["amd_df"])
    assert ev[0].config == "event=0x1f,umask=0xffe" and ev[11].config == "event=0x2df,umask=0xffe"
    assert ev[12].metric == "dram_write_bandwidth_ch0" and ev[12].config == "event=0x1f,umask=0xfff"
    # a DF whose umask format is 8 bits cannot take the 12-bit umask: nothing, and why
    sysfs = fake_sysfs(tmp_path / "z5old", {"amd_df": {"format/umask": "config:8-15"}})
    old = PerfUncore(sys_root=sysfs, cpuinfo=fake_cpuinfo(tmp_path / "c6", "AuthenticAMD", 0x1A, 0x02))
    assert old.choose_events(["amd_df"]) == [] and old.notes


def test_multiplexed_counts_are_reported(tmp_path):
    events = [UncoreEvent("uncore_imc_0", "event=0x05,umask=0xcf", "read_bandwidth", 64)]
    data = tmp_path / "perf_uncore.csv"
    data.write_text("     1.000000000;S0;1;1000000;;uncore_imc_0/event=0x05,umask=0xcf/;500000000;50.00;;\n"
                    "     2.000000000;S0;1;1000000;;uncore_imc_0/event=0x05,umask=0xcf/;1000000000;100.00;;\n")
    df = parse_perf_stat(data, events)
    mux = df[df.metric == "counter_running_pct"]
    assert list(mux["value"]) == [50.0] and list(mux["t_s"]) == [1.0]
    assert mux["scope"].iloc[0] == "S0/uncore_imc_0/read_bandwidth"


def test_pcm_uses_perf_for_the_uncore_beside_perf():
    pcm = PcmMemory()
    assert pcm.env({"perf_uncore": {"available": True, "ok": True}})["PCM_USE_UNCORE_PERF"] == "1"
    assert pcm.env({"perf_uncore": {"available": False}}) is None


def test_profile_counter_overrides_reach_the_collector(tmp_path):
    from workflows.harness import profile as host_profile

    _, src, data = host_profile.load_profile("icelake-2s")
    groups = {"ddr": {"tor_occupancy": "event=0x36,umask=0x1", "tor_inserts": "event=0x35,umask=0x1"}}
    raw = host_profile.load_yaml(host_profile.find("icelake-2s"), "host profile")
    checked = host_profile.validate_schema({**raw, "counters": {"cha_groups": groups}}, host_profile.SCHEMA, src)
    assert checked["counters"]["cha_groups"] == groups
    with pytest.raises(ConfigError, match="counters"):
        host_profile.validate_schema({**raw, "counters": {"cha_groups": {"ddr": {"tor_occupancy": "x"}}}},
                                     host_profile.SCHEMA, src)
    # and the collector takes them as its CHA groups
    with Supervisor() as sup:
        coll = Collectors(["perf_uncore"], {}, {"counters": {"cha_groups": groups}}, tmp_path, 1000, sup)
    assert coll.sources[0].cha_groups == groups


def test_what_pcm_changes_is_journaled_before_it_starts(tmp_path):
    """pcm switches the msr driver's allow_writes on; a harness killed while it runs left it on
    (after_stop puts it back only in the same process): the point's journal now holds it."""
    from workflows.harness.settings import Settings, restore_journal  # noqa: PLC0415

    src = pcm_source(tmp_path)
    src.MSR_ALLOW_WRITES.write_text("off\n")
    fake = write_script(tmp_path / "pcm-memory", f"#!/bin/sh\necho on > {src.MSR_ALLOW_WRITES}\nexec sleep 30\n")
    journal = tmp_path / "journal.json"
    s = Settings(journal)
    with Supervisor(grace_s=1.0) as sup, \
            Collectors([src], FAKE_FACTS, {"tools": {"pcm_memory": str(fake)}}, tmp_path / "c", 100, sup, settings=s):
        deadline = time.monotonic() + 10
        while src.MSR_ALLOW_WRITES.read_text().strip() != "on" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert json.loads(journal.read_text()) == {str(src.MSR_ALLOW_WRITES): "off"}
        killed = journal.read_text()  # as a SIGKILL here would leave it
    src.MSR_ALLOW_WRITES.write_text("on\n")
    journal.write_text(killed)
    assert restore_journal(journal) == {str(src.MSR_ALLOW_WRITES): "off"}
    assert src.MSR_ALLOW_WRITES.read_text().strip() == "off"
