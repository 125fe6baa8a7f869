"""Hardware counter collectors run alongside measurement points.

Three sources, one class each, all with the same small protocol:

``perf_uncore`` (:class:`PerfUncore`)
    ``perf stat -a --per-socket -x ';' -I <ms>`` on uncore PMU boxes found
    under ``/sys/bus/event_source/devices``: memory-controller CAS counts
    (bandwidth), CHA TOR occupancy / inserts / clockticks for LLC demand-read
    misses (per-tier loaded latency by Little's law, as Colloid measures it),
    AMD data-fabric DRAM beats.
``pcm_memory`` (:class:`PcmMemory`)
    Intel PCM ``pcm-memory <seconds> -csv=<file> -f``: per socket / channel
    DRAM (and PMem, CXL, HBM where present) read and write bandwidth in MB/s.
``ipmctl`` (:class:`Ipmctl`)
    ``ipmctl show -dimm -performance`` snapshots before and after the point;
    its counters are cumulative, so the parse is the difference.

Protocol (see :class:`CounterSource`): ``name``; ``probe(facts, profile)``
returns ``{"available": bool, "reason": str, ...}`` and only looks (sysfs,
``/proc``, ``ipmctl show -dimm``, a zero-length ``perf stat`` that opens the
chosen events); continuous sources have ``argv(outdir, interval_ms)`` and are
run by :class:`Collectors` under the :class:`~.procs.Supervisor` and stopped
by pid; snapshot sources have ``snapshot(outdir, label, supervisor)``.
``parse(outdir)`` returns a long-form frame with :data:`COLUMNS`. Parsers drop
an unterminated last line (the collector was stopped mid-write) and any row
with missing fields instead of raising.

Usage::

    with Supervisor() as sup, Collectors(cfg["counters"]["sources"], facts, profile,
                                         point_dir / "counters", interval_ms, sup) as col:
        sup.run("gups", [...])
    meta["counters"] = col.status()
    frame = col.frames()

Event choice for perf uncore, with provenance
---------------------------------------------
Encodings were checked against the Linux kernel's uncore driver
(``arch/x86/events/intel/uncore_snbep.c``: sysfs ``format`` terms and
``cas_count_read``/``cas_count_write`` aliases) and the perf vendor event
tables (``tools/perf/pmu-events/arch/x86/{skylakex,cascadelakex,icelakex,
sapphirerapids,amdzen2,amdzen3}/*.json``, as compiled into perf 6.1), and for
the CHA filter against the Colloid authors' released monitor
(``host-architecture/colloid``, ``colloid-mon/colloid-mon.c``). They were
NOT validated on hardware by this project: the machine it was written on has
no PMU. Every choice can be overridden (``options`` / profile
``counters.perf_events``), and the probe opens the events once with perf
before the point, so a wrong encoding is reported as unavailable, not as data.

* IMC CAS (``uncore_imc_<n>``; bytes = count x 64). The kernel's own alias
  ``events/cas_count_read`` / ``cas_count_write`` is used when present on SKX/ICX/SPR (the raw
  encoding is taken from it, so perf reports counts, not the alias's MiB scale). Fallback table
  (``IMC_CAS``, each entry citing its perfmon JSON event): SKX/CLX/CPX ``event=0x04,umask=0x03`` /
  ``umask=0x0c``; ICX ``event=0x04,umask=0x0f`` / ``umask=0x30``; SPR/EMR ``event=0x05,umask=0xcf``
  / ``umask=0xf0``. Granite Rapids (0xAD, 0xAE) counts each of a box's two sub-channels with its
  own event (UNC_M_CAS_COUNT_SCH0.* event 0x05, SCH1.* event 0x06): both are counted and summed,
  never the single alias. ``uncore_imc_free_running_*`` boxes are not used.
* CHA TOR (``uncore_cha_<n>``), demand data reads (DRd) from cores that
  missed the LLC. Occupancy (event 0x36) / inserts (0x35) = mean time in the
  TOR in CHA cycles; with CHA clockticks that becomes ns:
  ``1e9 * (occ/ins) / (ticks_per_box / dt)`` -- the same formula as perf's
  ``llc_demand_data_read_miss_latency_for_local_requests`` metric.

  - ICX and SPR/EMR: UNC_CHA_TOR_{OCCUPANCY,INSERTS}.IA_MISS_DRD_LOCAL
    ``umask=0xc816fe01`` and ..._DRD_REMOTE ``umask=0xc8177e01`` (extended umask: the kernel's
    ``format/umask`` must span the umask's width, checked from sysfs). On SPR/EMR with a CPU-less
    (CXL) node the local group is split into ..._LOCAL_DDR ``0xc8168601`` and ..._DRD_CXL_ACC
    ``_CXL_ACC_LOCAL`` ``0x10c8168201`` (``CHA_TOR_CXL``; a 37-bit umask that only a kernel with the widened CHA
    umask format accepts; otherwise a note says local = DDR + CXL). PMem in App Direct/Memory
    mode: ..._LOCAL_PMM ``0xc8168a01`` via ``counters.cha_groups`` in the host profile.
    Clockticks: ICX ``event=0x00``, SPR/EMR ``event=0x01``. Granite Rapids: the same TOR events
    (graniterapids_uncore.json) and clockticks ``event=0x01``.
  - SKX/CLX/CPX: ``umask=0x21`` (IA | MISS) plus the box filter, given with
    the kernel's named terms ``filter_opc0=0x202`` (DRd), ``filter_loc=1`` or
    ``filter_rem=1``, ``filter_nm=1,filter_not_nm=1``. This equals the
    FILTER1 value 0x40432 / 0x40431 that colloid-mon writes (it uses umask
    0x31, i.e. hits too). Caveat: perf's JSON up to Linux 6.10 writes this filter as
    ``config1=0x40433``, which the SKX driver masks to nothing (the filter
    fields live in config1 bits 32+; 6.11's "perf vendor events: SKX, CLX,
    SNR uncore cache event fixes" moved it to ``config1=0x4043300000000``),
    hence the named terms here, right with either perf. The SKX encodings:
    skylakex uncore-cache.json UNC_CHA_TOR_{OCCUPANCY,INSERTS}.IA_MISS_DRD (UMask 0x21,
    Filter1 0x40433); cascadelakex's are the same.
    Clockticks ``event=0x00``.
  - TOR occupancy counts on counter 0 only, and (SKX) the filter is shared per box, so one box
    counts one group: boxes are dealt to the groups round-robin, as in colloid-mon, and
    latencies are ratios within a group.
  - One owner per box: a role of the point that counts CHA itself (tierd's CHA latency source,
    declared by the role's ``pmus``) gets the CHA boxes; this collector then counts no CHA event
    and says so in its notes. Other models: give ``cha_groups`` (without a known clockticks
    encoding, occupancy and inserts are counted with no latency in ns, said in the notes).
* AMD: Zen 2/3 ``amd_df`` ``dram_channel_data_controller_0..7`` = ``event=0x07,0x47,...,0x1c7,
  umask=0x38``, 64 B per count (perf's ``nps1_die_to_dram`` metric, marked approximate there);
  read + write combined. Zen 4+ with the ``amd_umc_<n>`` PMUs (Linux >= 6.8): per-channel CAS
  counts ``umc_cas_cmd.rd`` / ``.wr`` (``event=0x0a,rdwrmask=1/2``, 64 B each). Zen 5 without
  them: DF read/write beats per DRAM channel (amdzen5/data-fabric.json, 12-bit umask).
* Multiplexing: perf's CSV gives each count's share of the enabled time it ran; below 100 %
  perf scaled the count up. Such counts become ``counter_running_pct`` rows and the source's
  status lists them under ``multiplexed``: they are estimates, never silent.
* ``pcm-memory`` beside perf: run with ``PCM_USE_UNCORE_PERF=1`` so it programs the uncore
  through perf, not by writing the boxes' MSRs under it (intel/pcm ENVVAR_README.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

if TYPE_CHECKING:
    import pandas as pd

from . import ConfigError
from .procs import Child, Interrupted, Supervisor

COLUMNS = ["t_s", "source", "scope", "metric", "value", "unit"]
RUNNING_PCT = "counter_running_pct"  # a multiplexed perf counter: the share of time it counted
SOURCE_NAMES = ("perf_uncore", "pcm_memory", "ipmctl")

SYS = Path("/sys")
PROC = Path("/proc")
DEV = Path("/dev")

PROBE_TIMEOUT_S = 30.0
SNAPSHOT_TIMEOUT_S = 60.0


# ---------------------------------------------------------------- helpers

def _pandas():
    """pandas, imported where counter rows are made: its import takes ~0.3 s here, which every
    measured point paid before its workload started, with or without a counter source (none runs
    on a machine without PMUs)."""
    import pandas  # noqa: PLC0415

    return pandas


def empty_frame() -> pd.DataFrame:
    pd = _pandas()
    return pd.DataFrame({c: pd.Series(dtype="float64" if c in ("t_s", "value") else "object") for c in COLUMNS})


def _frame(rows: Iterable[tuple]) -> pd.DataFrame:
    rows = list(rows)
    if not rows:
        return empty_frame()
    df = _pandas().DataFrame(rows, columns=COLUMNS)
    df["t_s"] = df["t_s"].astype("float64")
    df["value"] = df["value"].astype("float64")
    return df


def complete_lines(path: Path) -> list[str]:
    """Lines of a file a collector wrote; an unterminated last line is dropped."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return []
    lines = text.split("\n")
    # text ends with "\n" -> last element is "" (dropped); otherwise it is a
    # partial line written when the collector was stopped: dropped too.
    return [ln.rstrip("\r") for ln in lines[:-1]]


def find_tool(profile: dict, key: str, names: Sequence[str]) -> str | None:
    """Profile ``tools/<key>`` if given, else the first of ``names`` on PATH."""
    given = (profile.get("tools") or {}).get(key)
    if given:
        return str(given) if os.path.isfile(given) and os.access(given, os.X_OK) else None
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def _not_found(tool: str, key: str, profile: dict) -> str:
    given = (profile.get("tools") or {}).get(key)
    if given:
        return f"{tool} binary {given!r} (tools/{key}) is not an executable file"
    return f"{tool} binary not found (not on PATH; set tools/{key} in the host profile)"


def cpu_signature(cpuinfo: Path = PROC / "cpuinfo") -> dict:
    """``{"vendor": "GenuineIntel", "family": 6, "model": 143}`` from the first CPU."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return {}
    out: dict[str, Any] = {}
    for key, field, conv in (("vendor", "vendor_id", str), ("family", "cpu family", int), ("model", "model", int)):
        m = re.search(rf"^{field}\s*:\s*(\S+)", text, re.MULTILINE)
        if m:
            try:
                out[key] = conv(m.group(1))
            except ValueError:
                pass
    return out


def _tail(path: Path, n: int = 3) -> str:
    lines = [ln.strip() for ln in complete_lines(path) if ln.strip()]
    try:  # include an unterminated last line in diagnostics
        text = Path(path).read_text(errors="replace")
        if text and not text.endswith("\n"):
            lines.append(text.rsplit("\n", 1)[-1].strip())
    except OSError:
        pass
    return " | ".join(lines[-n:])


def _run_query(argv: list[str], timeout: float = PROBE_TIMEOUT_S) -> tuple[int, str]:
    """A short read-only query (probe): waited for, killed on timeout."""
    try:
        p = subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return 124, f"{Path(argv[0]).name} did not answer within {timeout:.0f} s"
    except OSError as e:
        return 127, f"cannot run {argv[0]}: {e.strerror}"
    return p.returncode, (p.stdout or "") + (p.stderr or "")


def _is_root(facts: dict) -> bool:
    priv = facts.get("privileges") or {}
    return bool(priv.get("root", os.geteuid() == 0))


# --------------------------------------------------------------- protocol

@runtime_checkable
class CounterSource(Protocol):
    name: str

    def probe(self, facts: dict, profile: dict) -> dict: ...

    def parse(self, outdir: Path) -> pd.DataFrame: ...


class ContinuousSource(CounterSource, Protocol):
    stop_signal: int

    def argv(self, outdir: Path, interval_ms: int) -> list[str]: ...


class SnapshotSource(CounterSource, Protocol):
    def snapshot(self, outdir: Path, label: str, supervisor: Supervisor | None = None) -> None: ...


# ------------------------------------------------------------ perf uncore

@dataclass(frozen=True)
class UncoreEvent:
    """One perf event on one PMU box, and what its count means."""

    pmu: str  # "uncore_imc_0"
    config: str  # "event=0x04,umask=0x03"
    metric: str  # metric name in the frame
    bytes_per_count: int = 0  # >0: reported as bandwidth (MB/s), else as a count
    group: str = ""  # CHA group ("drd_local"), for the latency derivation

    @property
    def spec(self) -> str:
        return f"{self.pmu}/{self.config}/"


# family 6 models (arch/x86/include/asm/intel-family.h: SKYLAKE_X 0x55, ICELAKE_X 0x6A, ICELAKE_D 0x6C,
# SAPPHIRERAPIDS_X 0x8F, EMERALDRAPIDS_X 0xCF, GRANITERAPIDS_X 0xAD, GRANITERAPIDS_D 0xAE)
INTEL_UARCH = {0x55: "skx", 0x6A: "icx", 0x6C: "icx", 0x8F: "spr", 0xCF: "spr", 0xAD: "gnr", 0xAE: "gnr"}

# IMC CAS counts, 64 B each: (metric, encoding) per box.
IMC_CAS: dict[str, list[tuple[str, str]]] = {
    # skylakex/uncore-memory.json UNC_M_CAS_COUNT.RD / .WR
    "skx": [("read_bandwidth", "event=0x04,umask=0x03"), ("write_bandwidth", "event=0x04,umask=0x0c")],
    # icelakex/uncore-memory.json UNC_M_CAS_COUNT.RD / .WR
    "icx": [("read_bandwidth", "event=0x04,umask=0x0f"), ("write_bandwidth", "event=0x04,umask=0x30")],
    # sapphirerapids/uncore-memory.json UNC_M_CAS_COUNT.RD / .WR
    "spr": [("read_bandwidth", "event=0x05,umask=0xcf"), ("write_bandwidth", "event=0x05,umask=0xf0")],
    # graniterapids/uncore-memory.json: each IMC box has two sub-channels, counted by two events:
    # UNC_M_CAS_COUNT_SCH0.RD (EventCode 0x05, UMask 0xcf), .WR (0x05, 0xf0) and
    # UNC_M_CAS_COUNT_SCH1.RD (0x06, 0xcf), .WR (0x06, 0xf0). A box's traffic is their sum; the
    # kernel's single cas_count_read/write alias is not used here (one sub-channel would be half).
    "gnr": [("read_bandwidth_sch0", "event=0x05,umask=0xcf"), ("write_bandwidth_sch0", "event=0x05,umask=0xf0"),
            ("read_bandwidth_sch1", "event=0x06,umask=0xcf"), ("write_bandwidth_sch1", "event=0x06,umask=0xf0")],
}
IMC_ALIAS_OK = {"skx", "icx", "spr"}  # uarchs whose kernel cas_count_read/_write alias is the whole box

_SKX_DRD = "filter_opc0=0x202,filter_nm=1,filter_not_nm=1"


def _tor(umask: str) -> dict[str, str]:
    """TOR occupancy (event 0x36) and inserts (0x35) of one request class (extended umask)."""
    return {"tor_occupancy": f"event=0x36,umask={umask}", "tor_inserts": f"event=0x35,umask={umask}"}


CHA_TOR: dict[str, dict[str, dict[str, str]]] = {
    "skx": {
        "drd_local": {"tor_occupancy": f"event=0x36,umask=0x21,{_SKX_DRD},filter_loc=1",
                      "tor_inserts": f"event=0x35,umask=0x21,{_SKX_DRD},filter_loc=1"},
        "drd_remote": {"tor_occupancy": f"event=0x36,umask=0x21,{_SKX_DRD},filter_rem=1",
                       "tor_inserts": f"event=0x35,umask=0x21,{_SKX_DRD},filter_rem=1"},
    },
    # icelakex and sapphirerapids/uncore-cache.json UNC_CHA_TOR_{OCCUPANCY,INSERTS}.IA_MISS_DRD_LOCAL
    # (UMask 0xc816fe01) and .IA_MISS_DRD_REMOTE (0xc8177e01)
    "icx": {"drd_local": _tor("0xc816fe01"), "drd_remote": _tor("0xc8177e01")},
}
# (emeraldrapids uncore-cache.json: the same events and UMasks as sapphirerapids)
CHA_TOR["spr"] = CHA_TOR["icx"]
# intel/perfmon GNR/events/graniterapids_uncore.json: UNC_CHA_TOR_{OCCUPANCY,INSERTS}.IA_MISS_DRD_LOCAL
# (EventCode 0x36/0x35, UMask 0x01, UMaskExt 0x00C816FE) and .IA_MISS_DRD_REMOTE (UMaskExt
# 0x00C8177E): the same as SPR's; the kernel's format must span the umask (checked from sysfs)
CHA_TOR["gnr"] = CHA_TOR["icx"]
# A host with a CPU-less (CXL) node, Sapphire/Emerald Rapids: the local group split into DDR and
# CXL, sapphirerapids uncore-cache.json UNC_CHA_TOR_{OCCUPANCY,INSERTS}.IA_MISS_DRD_LOCAL_DDR (UMask
# 0xc8168601) and .IA_MISS_DRD_CXL_ACC_LOCAL (UMaskExt 0x10C81682, so umask 0x10c8168201;
# occupancy EventCode 0x36, inserts 0x35): CXL memory homed on this socket. (.IA_MISS_DRD_CXL_ACC,
# UMaskExt 0x10c81782, sets the remote-home bit of .._REMOTE, 0x100, as well: it would count
# remote-homed CXL reads that drd_remote counts too.) The CXL umask has bits above the 32 that
# older kernels' CHA format/umask spans (config:8-15,32-55): the kernel's format must cover its
# width (checked from sysfs, _umask_bits), else the split is skipped with a note and the
# two-group local/remote choice is used.
CHA_TOR_CXL = {"drd_local_ddr": _tor("0xc8168601"), "drd_cxl": _tor("0x10c8168201"), "drd_remote": _tor("0xc8177e01")}
# UNC_CHA_CLOCKTICKS: skylakex/icelakex uncore-cache.json EventCode 0x00; sapphirerapids (and
# emeraldrapids) 0x01; intel/perfmon GNR/events/graniterapids_uncore.json 0x01
CHA_CLOCKTICKS = {"skx": "event=0x00", "icx": "event=0x00", "spr": "event=0x01", "gnr": "event=0x01"}
CHA_REQUIRED_TERMS = {"skx": ("event", "umask", "filter_opc0", "filter_loc", "filter_rem", "filter_nm", "filter_not_nm"),
                      "icx": ("event", "umask"), "spr": ("event", "umask"), "gnr": ("event", "umask")}

# amdzen2/amdzen3 data-fabric.json dram_channel_data_controller_0..7
AMD_DF_DRAM = [f"event={0x07 + 0x40 * ch:#x},umask=0x38" for ch in range(8)]
# amdzen5/data-fabric.json local_or_remote_socket_read_data_beats_dram_<ch> (EventCode 0x1f + 0x40*ch,
# UMask 0xffe) and local_or_remote_socket_write_data_beats_dram_<ch> (UMask 0xfff), 64 B per beat,
# channels 0..11. The 12-bit umask needs the PerfMonV2 DF format "config:8-15,24-27"
# (arch/x86/events/amd/uncore.c, umask12).
AMD_ZEN5_DF_DRAM = [(f"dram_read_bandwidth_ch{ch}", f"event={0x1f + 0x40 * ch:#x},umask=0xffe") for ch in range(12)] + \
                   [(f"dram_write_bandwidth_ch{ch}", f"event={0x1f + 0x40 * ch:#x},umask=0xfff") for ch in range(12)]
# amdzen4/memory-controller.json umc_cas_cmd.rd (EventCode 0x0a, RdWrMask 0x1) and .wr (RdWrMask 0x2) on
# the amd_umc_<n> PMUs (arch/x86/events/amd/uncore.c: format event config:0-7, rdwrmask config:8-9);
# 64 B per CAS, as amdzen4/recommended.json's umc_mem_read_bandwidth metric counts them.
AMD_UMC_CAS = [("read_bandwidth", "event=0x0a,rdwrmask=0x1"), ("write_bandwidth", "event=0x0a,rdwrmask=0x2")]


def _amd_zen23(sig: dict) -> bool:
    """Zen 2 or 3 by perf's own table, tools/perf/pmu-events/arch/x86/mapfile.csv:
    ``AuthenticAMD-23-...`` amdzen1/amdzen2 and ``AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])``
    amdzen3 (family 0x19 models 0x00-0x0f, 0x20-0x2f, 0x40-0x5f); the rest of family 0x19 is
    amdzen4 (0x10-0x1f, 0x30-0x3f, 0x60-...)."""
    fam, model = sig.get("family"), sig.get("model", -1)
    return fam == 0x17 or (fam == 0x19 and (model <= 0x0F or 0x20 <= model <= 0x2F or 0x40 <= model <= 0x5F))


def _amd_zen5(sig: dict) -> bool:
    return sig.get("vendor") == "AuthenticAMD" and sig.get("family") == 0x1A


def _format_bits(fmt: str) -> int:
    """How many bits a sysfs PMU format spans: 'config:8-15,32-55' -> 32; '' -> 0."""
    _, _, spec = fmt.partition(":")
    bits = 0
    for part in filter(None, spec.split(",")):
        lo, _, hi = part.partition("-")
        try:
            bits += int(hi or lo) - int(lo) + 1
        except ValueError:
            return 0
    return bits


def _umask_bits(config: str) -> int:
    """The width a config's umask needs: 'event=0x36,umask=0x10c8168201' -> 37."""
    v = _terms(config).get("umask")
    try:
        return int(v, 0).bit_length() if v else 0
    except ValueError:
        return 0


def _box_index(pmu: str) -> int:
    m = re.search(r"_(\d+)$", pmu)
    return int(m.group(1)) if m else 0


def _terms(config: str) -> dict[str, str]:
    out = {}
    for part in config.split(","):
        if not part:
            continue
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip()
    return out


def _norm_spec(spec: str) -> tuple[str, frozenset] | None:
    """'pmu/event=0x4,umask=0x3/' -> (pmu, {(event, 4), (umask, 3)}), for matching."""
    m = re.fullmatch(r"([^/]+)/(.*)/[a-zA-Z]*", spec.strip())
    if not m:
        return None
    norm = set()
    for k, v in _terms(m.group(2)).items():
        try:
            norm.add((k, int(v or "1", 0)))
        except ValueError:
            norm.add((k, v))
    return m.group(1), frozenset(norm)


class PerfUncore:
    """``perf stat`` on uncore PMU boxes (IMC bandwidth, CHA TOR latency, AMD DF)."""

    name = "perf_uncore"
    stop_signal = signal.SIGINT  # perf prints the last partial interval and flushes
    sep = ";"  # event specs contain commas, so perf's CSV uses ';'

    def __init__(self, events: Sequence[UncoreEvent | dict] | None = None,
                 cha_groups: dict[str, dict[str, str]] | None = None,
                 sys_root: Path = SYS, cpuinfo: Path = PROC / "cpuinfo", open_check: bool = True,
                 owned_elsewhere: dict[str, str] | None = None, cxl_split: bool | None = None):
        """``owned_elsewhere``: PMU kinds ("uncore_cha") another program of the point counts with
        (tierd's CHA latency source): left to it. ``cxl_split``: split local DDR from CXL reads
        (default: when the host facts show a CPU-less memory node)."""
        self.owned_elsewhere = dict(owned_elsewhere or {})
        self.cxl_split = cxl_split
        self.explicit = [e if isinstance(e, UncoreEvent) else UncoreEvent(**e) for e in events] if events else None
        self.cha_groups = cha_groups
        self.sys_root = Path(sys_root)
        self.cpuinfo = Path(cpuinfo)
        self.open_check = open_check
        self.binary: str | None = None
        self.events: list[UncoreEvent] = []
        self.notes: list[str] = []

    # -- event choice ----------------------------------------------------
    def _pmu_dir(self, pmu: str) -> Path:
        return self.sys_root / "bus/event_source/devices" / pmu

    def _read(self, path: Path) -> str | None:
        try:
            return path.read_text().strip()
        except OSError:
            return None

    def _has_terms(self, pmu: str, terms: Iterable[str]) -> list[str]:
        fmt = self._pmu_dir(pmu) / "format"
        return [t for t in terms if not (fmt / t).exists()]

    def choose_events(self, pmus: Sequence[str]) -> list[UncoreEvent]:
        """Events for the PMU boxes present; reasons for what is skipped go to ``notes``."""
        self.notes = []
        if self.explicit is not None:
            return list(self.explicit)
        sig = cpu_signature(self.cpuinfo)
        uarch = INTEL_UARCH.get(sig.get("model", -1)) if sig.get("vendor") == "GenuineIntel" and sig.get("family") == 6 else None
        events: list[UncoreEvent] = []

        imcs = sorted((p for p in pmus if re.fullmatch(r"uncore_imc_\d+", p)), key=_box_index)
        for pmu in imcs:
            rd = self._read(self._pmu_dir(pmu) / "events/cas_count_read")
            wr = self._read(self._pmu_dir(pmu) / "events/cas_count_write")
            if rd and wr and (uarch in IMC_ALIAS_OK or uarch is None):
                pairs = [("read_bandwidth", rd), ("write_bandwidth", wr)]
            elif uarch in IMC_CAS:
                pairs = IMC_CAS[uarch]
            else:
                self.notes.append(f"{pmu}: no cas_count_read/write alias and CPU model {sig.get('model')} not in the table; skipped")
                continue
            events.extend(UncoreEvent(pmu, cfg, metric, 64) for metric, cfg in pairs)

        chas = sorted((p for p in pmus if re.fullmatch(r"uncore_cha_\d+", p)), key=_box_index)
        if chas:
            events.extend(self._cha_events(chas, uarch, sig))
        elif any(p.startswith("uncore_cbox") for p in pmus):
            self.notes.append("uncore_cbox (pre-Skylake-SP CHA): TOR events not chosen; give them explicitly")

        umcs = sorted((p for p in pmus if re.fullmatch(r"amd_umc_\d+", p)), key=_box_index)
        for pmu in umcs:  # Zen 4 and later (PerfMonV2 UMC): per-channel CAS counts
            events.extend(UncoreEvent(pmu, cfg, metric, 64) for metric, cfg in AMD_UMC_CAS)
        if "amd_df" in pmus and not umcs:
            if _amd_zen23(sig):
                for ch, cfg in enumerate(AMD_DF_DRAM):
                    events.append(UncoreEvent("amd_df", cfg, f"dram_bandwidth_ch{ch}", 64))
            elif _amd_zen5(sig) and _format_bits(self._read(self._pmu_dir("amd_df") / "format/umask") or "") >= 12:
                events.extend(UncoreEvent("amd_df", cfg, metric, 64) for metric, cfg in AMD_ZEN5_DF_DRAM)
            else:
                self.notes.append(f"amd_df: DRAM events known for Zen 2/3 and Zen 5 (12-bit umask format) only (CPU {sig}); "
                                  "Zen 4 counts DRAM on amd_umc_<n> (Linux >= 6.8); skipped")
        return events

    def _cha_events(self, chas: list[str], uarch: str | None, sig: dict) -> list[UncoreEvent]:
        """CHA TOR occupancy/inserts/clockticks, boxes dealt round-robin to the request groups
        (TOR occupancy counts on counter 0 only, so one box serves one group)."""
        if self.owned_elsewhere.get("uncore_cha"):
            self.notes.append(f"uncore_cha: left to {self.owned_elsewhere['uncore_cha']} this point (one owner per "
                              "PMU box: TOR occupancy counts on counter 0 only)")
            return []
        groups = self.cha_groups or (CHA_TOR.get(uarch) if uarch else None)
        ticks = CHA_CLOCKTICKS.get(uarch or "")
        missing = self._has_terms(chas[0], CHA_REQUIRED_TERMS.get(uarch or "", ("event", "umask")))
        width = _format_bits(self._read(self._pmu_dir(chas[0]) / "format/umask") or "")
        if not groups:
            self.notes.append(f"uncore_cha: no TOR event encoding known for CPU {sig} (give cha_groups); skipped")
            return []
        if self.cha_groups is None and missing:
            self.notes.append(f"uncore_cha: kernel lacks format terms {missing}; TOR events skipped")
            return []
        if self.cha_groups is None and uarch == "spr" and self.cxl_split:
            need = max(_umask_bits(c) for g in CHA_TOR_CXL.values() for c in g.values())
            if width >= need:
                groups = CHA_TOR_CXL
            else:
                self.notes.append(f"uncore_cha: the CXL/DDR split needs a {need}-bit CHA umask, the kernel's format spans "
                                  f"{width} bits (a newer kernel widens it); local reads as IA_MISS_DRD_LOCAL counts them")
        if self.cha_groups is None:
            need = max(_umask_bits(c) for g in groups.values() for c in g.values())
            if uarch in ("icx", "spr", "gnr") and width < need:
                self.notes.append(f"uncore_cha: kernel umask format spans {width} bits, the TOR events need {need}; skipped")
                return []
        if not ticks:
            self.notes.append(f"uncore_cha: no CHA clockticks encoding known for CPU {sig}: TOR occupancy and inserts "
                              "only, no latency in ns")
        names = list(groups)
        events = []
        for i, pmu in enumerate(chas):
            g = names[i % len(names)]
            events.extend(UncoreEvent(pmu, cfg, f"{metric}_{g}", 0, g) for metric, cfg in groups[g].items())
            if ticks:
                events.append(UncoreEvent(pmu, ticks, "cha_clockticks", 0, g))
        return events

    # -- protocol --------------------------------------------------------
    def probe(self, facts: dict, profile: dict) -> dict:
        pmus = list(facts.get("uncore_pmus") or [])
        if not pmus:
            pc = facts.get("perf_counters") or {}
            why = pc.get("reason") or "no perf counter facts"
            return {"available": False, "reason": f"no uncore PMU under /sys/bus/event_source/devices ({why})"}
        self.binary = find_tool(profile, "perf", ["perf"])
        if not self.binary:
            return {"available": False, "reason": _not_found("perf", "perf", profile), "pmus": pmus}
        priv = facts.get("privileges") or {}
        paranoid = (facts.get("settings") or {}).get("perf_event_paranoid")
        privileged = _is_root(facts) or priv.get("cap_perfmon") or priv.get("cap_sys_admin")
        if not privileged and not (paranoid is not None and str(paranoid).lstrip("-").isdigit() and int(paranoid) <= 0):
            return {"available": False, "pmus": pmus,
                    "reason": f"system-wide uncore events need root, CAP_PERFMON or perf_event_paranoid <= 0 (it is {paranoid})"}
        if self.cxl_split is None:
            self.cxl_split = any(n.get("memory_mib", 0) > 0 and not n.get("cpus")
                                 for n in (facts.get("nodes") or {}).values())
        events = self.choose_events(pmus)
        if not events:
            return {"available": False, "pmus": pmus, "reason": "no known events for the uncore PMUs present",
                    "notes": self.notes}
        if self.open_check:
            events, err = self._open_check(events)
            if not events:
                return {"available": False, "pmus": pmus, "reason": f"perf could not open the chosen events: {err}",
                        "notes": self.notes}
        self.events = events
        return {"available": True, "reason": f"{len(events)} uncore events on {len({e.pmu for e in events})} PMU boxes",
                "binary": self.binary, "events": [e.spec for e in events], "notes": self.notes}

    def _open_check(self, events: list[UncoreEvent]) -> tuple[list[UncoreEvent], str]:
        """Open the events once (``perf stat -a ... -- true``); drop <not supported> ones."""
        assert self.binary
        rc, out = _run_query([self.binary, "stat", "-a", "-x", self.sep, "-e", ",".join(e.spec for e in events), "--", "true"])
        if rc != 0:
            first = next((ln.strip() for ln in out.splitlines() if ln.strip()), f"exit status {rc}")
            return [], first
        bad = set()
        for ln in out.splitlines():
            f = ln.split(self.sep)
            if len(f) >= 3 and f[0].strip() == "<not supported>":
                bad.add(f[2].strip())
        if bad:
            self.notes.append(f"not supported, dropped: {sorted(bad)}")
        return [e for e in events if e.spec not in bad], ""

    def files(self, outdir: Path) -> dict[str, Path]:
        return {"data": outdir / f"{self.name}.csv", "events": outdir / f"{self.name}.events.json",
                "log": outdir / f"{self.name}.log"}

    def argv(self, outdir: Path, interval_ms: int) -> list[str]:
        """The perf command; also writes the event map that :meth:`parse` reads."""
        if not self.binary or not self.events:
            raise RuntimeError("probe() first (no perf binary or no events)")
        f = self.files(outdir)
        f["events"].write_text(json.dumps({"sep": self.sep, "interval_ms": interval_ms,
                                           "events": [asdict(e) | {"spec": e.spec} for e in self.events]}, indent=1))
        return [self.binary, "stat", "-a", "--per-socket", "-x", self.sep, "-I", str(interval_ms),
                "-o", str(f["data"]), "-e", ",".join(e.spec for e in self.events)]

    def parse(self, outdir: Path) -> pd.DataFrame:
        f = self.files(outdir)
        try:
            meta = json.loads(f["events"].read_text())
            events = [UncoreEvent(**{k: v for k, v in e.items() if k != "spec"}) for e in meta.get("events", [])]
        except (OSError, ValueError, TypeError):
            events = []
        return parse_perf_stat(f["data"], events, source=self.name)


_AGGR_WITH_NR = re.compile(r"S\d+(-D\d+)?(-C\d+)?(-L\d+-ID\d+)?|N\d+")
_AGGR_NO_NR = re.compile(r"CPU\d+")


def _split_perf_fields(line: str, sep: str) -> list[str] | None:
    """Split a perf -x line; with sep ',' re-join event specs like 'pmu/a=1,b=2/'."""
    parts = line.split(sep)
    if sep != ",":
        return parts
    out: list[str] = []
    buf: str | None = None
    for x in parts:
        if buf is not None:
            buf += "," + x
            if re.search(r"/[a-zA-Z]*$", x):  # closing '/', maybe with modifiers
                out.append(buf)
                buf = None
        elif re.match(r"^[A-Za-z0-9_.\-]+/", x) and x.count("/") == 1:
            buf = x
        else:
            out.append(x)
    return None if buf is not None else out


def parse_perf_stat(path: Path, events: Sequence[UncoreEvent], source: str = "perf_uncore") -> pd.DataFrame:
    """Parse ``perf stat -x <sep> -I <ms>`` output (any aggregation mode).

    Counts become rows: bandwidth (MB/s, count x bytes / interval) for events
    with ``bytes_per_count``, raw counts per interval otherwise; per socket
    (or aggregate id) sums are added with scope ``S<n>``; for CHA groups with
    occupancy, inserts and clockticks a ``latency_<group>`` row in ns.
    ``<not counted>`` / ``<not supported>`` lines, comments and incomplete
    lines are skipped.
    """
    by_spec = {e.spec: e for e in events}
    by_norm = {}
    for e in events:
        n = _norm_spec(e.spec)
        if n:
            by_norm[n] = e
    lines = [ln for ln in complete_lines(path) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return empty_frame()
    sep = ";" if any(";" in ln for ln in lines) else ","
    prev_t: dict[tuple[str, str], float] = {}
    raw: list[dict] = []
    for ln in lines:
        f = _split_perf_fields(ln.strip(), sep)
        if not f:
            continue
        f = [x.strip() for x in f]
        try:
            t = float(f[0])
            i = 1
        except ValueError:
            t, i = None, 0
        aggr = ""
        if i < len(f) and _AGGR_WITH_NR.fullmatch(f[i]):
            aggr, i = f[i], i + 2
        elif i < len(f) and _AGGR_NO_NR.fullmatch(f[i]):
            aggr, i = f[i], i + 1
        if len(f) < i + 3:
            continue
        value_s, unit_s, event_s = f[i], f[i + 1], f[i + 2]
        rest = f[i + 3:]
        if "/" in unit_s and "/" not in event_s:  # perf without a unit column
            unit_s, event_s, rest = "", unit_s, f[i + 2:]
        # then run-time and the percentage of the enabled time the counter ran (perf-stat(1),
        # "CSV FORMAT"): below 100 the kernel multiplexed it and perf scaled the count up
        try:
            running = float(rest[1]) if len(rest) > 1 and rest[1] else 100.0
        except ValueError:
            running = 100.0
        try:
            value = float(value_s)
        except ValueError:  # <not counted>, <not supported>, garbage
            continue
        ev = by_spec.get(event_s)
        if ev is None:
            n = _norm_spec(event_s)
            ev = by_norm.get(n) if n else None
        if ev is None:
            m = re.fullmatch(r"([^/]+)/.*", event_s)
            ev = UncoreEvent(m.group(1) if m else "", event_s, event_s)
        if t is None:
            continue
        key = (aggr, event_s)
        dt = t - prev_t.get(key, 0.0)
        prev_t[key] = t
        raw.append({"t": t, "aggr": aggr, "ev": ev, "count": value, "dt": dt, "unit": unit_s, "running": running})

    rows: list[tuple] = []
    sums: dict[tuple[float, str, str, str], float] = {}
    cha: dict[tuple[float, str, str], dict[str, float]] = {}
    for r in raw:
        ev: UncoreEvent = r["ev"]
        t, aggr = round(r["t"], 6), r["aggr"]
        scope = f"{aggr}/{ev.pmu}" if aggr and ev.pmu else (ev.pmu or aggr or "all")
        if ev.bytes_per_count:
            if r["dt"] <= 0:
                continue
            if r["unit"] == "MiB":  # a sysfs alias perf already scaled (explicit events)
                value, unit = r["count"] * 1.048576 / r["dt"], "MB/s"
            else:
                value, unit = r["count"] * ev.bytes_per_count / r["dt"] / 1e6, "MB/s"
        else:
            value, unit = r["count"], r["unit"] or "count"
        rows.append((t, source, scope, ev.metric, value, unit))
        if r["running"] < 100.0:
            rows.append((t, source, f"{scope}/{ev.metric}", RUNNING_PCT, r["running"], "%"))
        sock = aggr or "all"
        metric = re.sub(r"_s?ch\d+$", "", ev.metric)
        sums[(t, sock, metric, unit)] = sums.get((t, sock, metric, unit), 0.0) + value
        if ev.group:
            d = cha.setdefault((t, sock, ev.group), {"occ": 0.0, "ins": 0.0, "ticks": 0.0, "boxes": 0.0, "dt": r["dt"]})
            if ev.metric.startswith("tor_occupancy"):
                d["occ"] += r["count"]
            elif ev.metric.startswith("tor_inserts"):
                d["ins"] += r["count"]
            elif ev.metric == "cha_clockticks":
                d["ticks"] += r["count"]
                d["boxes"] += 1
    for (t, sock, metric, unit), v in sums.items():
        rows.append((t, source, sock, metric, v, unit))
    for (t, sock, g), d in cha.items():
        if d["ins"] > 0 and d["ticks"] > 0 and d["boxes"] > 0 and d["dt"] > 0:
            freq = d["ticks"] / d["boxes"] / d["dt"]  # CHA cycles per second
            rows.append((t, source, sock, f"latency_{g}", d["occ"] / d["ins"] / freq * 1e9, "ns"))
    return _frame(rows)


# ------------------------------------------------------------- pcm-memory

_PCM_COLUMN_RULES: list[tuple[str, str, str]] = [
    # regex on the column name -> (scope suffix, metric); unit MB/s unless named
    (r"Ch(\d+)Read", "ch{0}", "read_bandwidth"),
    (r"Ch(\d+)Write", "ch{0}", "write_bandwidth"),
    (r"Ch(\d+)PMM_Read", "ch{0}", "pmm_read_bandwidth"),
    (r"Ch(\d+)PMM_Write", "ch{0}", "pmm_write_bandwidth"),
    (r"EDC_Ch(\d+)Read", "edc{0}", "hbm_read_bandwidth"),
    (r"EDC_Ch(\d+)Write", "edc{0}", "hbm_write_bandwidth"),
    (r"CXL\.mem_P(\d+)Read", "cxl{0}", "cxl_mem_read_bandwidth"),
    (r"CXL\.mem_P(\d+)Write", "cxl{0}", "cxl_mem_write_bandwidth"),
    (r"CXL\.cache_P(\d+)dv->hst", "cxl{0}", "cxl_cache_dev_to_host_bandwidth"),
    (r"CXL\.cache_P(\d+)hst->dv", "cxl{0}", "cxl_cache_host_to_dev_bandwidth"),
    (r"Mem Read \(MB/s\)|Read|DRAMRead", "", "read_bandwidth"),
    (r"Mem Write \(MB/s\)|Write|DRAMWrite", "", "write_bandwidth"),
    (r"PMM_Read \(MB/s\)|PMMREAD", "", "pmm_read_bandwidth"),
    (r"PMM_Write \(MB/s\)|PMMWrite", "", "pmm_write_bandwidth"),
    (r"Memory \(MB/s\)|Memory", "", "memory_bandwidth"),
    (r"HBM Read \(MB/s\)", "", "hbm_read_bandwidth"),
    (r"HBM Write \(MB/s\)", "", "hbm_write_bandwidth"),
    (r"HBM \(MB/s\)", "", "hbm_bandwidth"),
    (r"CXLRead", "", "cxl_read_bandwidth"),
]


def pcm_column(group: str, name: str) -> tuple[str, str, str]:
    """(scope, metric, unit) for a pcm-memory CSV column (``SKT0`` / ``Ch1Read``)."""
    group, name = group.strip(), name.strip()
    m = re.fullmatch(r"SKT(\d+)", group)
    base = f"S{m.group(1)}" if m else group.lower() or "system"
    if group == "System" and name in ("DRAMRead", "DRAMWrite"):
        return base, "dram_" + ("read" if name.endswith("Read") else "write") + "_bandwidth", "MB/s"
    for rx, suffix, metric in _PCM_COLUMN_RULES:
        mm = re.fullmatch(rx, name)
        if mm:
            scope = f"{base}/{suffix.format(*mm.groups())}" if suffix else base
            return scope, metric, "MB/s"
    unit_m = re.search(r"\(([^)]*)\)\s*$", name)
    unit = unit_m.group(1) if unit_m else ""
    metric = re.sub(r"[^a-z0-9]+", "_", re.sub(r"\([^)]*\)\s*$", "", name).lower()).strip("_")
    if unit == "T/s":
        unit = "1/s"
    elif unit == "M/s":
        unit = "1e6/s"
    return base, metric or "unnamed", unit


def parse_pcm_csv(path: Path, start_epoch: float | None = None, source: str = "pcm_memory") -> pd.DataFrame:
    """Parse ``pcm-memory -csv`` output: two header rows, then one row per sample.

    Row 1 names the group of each column (``SKT0``, ``System``), row 2 the
    column (``Date,Time,Ch0Read,...``). Times are local wall-clock; ``t_s`` is
    seconds since ``start_epoch`` (when the collector started) or, without it,
    since the first sample. Empty cells (inactive channels) are skipped.
    """
    lines = complete_lines(path)
    rows: list[tuple] = []
    h1: list[str] | None = None
    h2: list[str] | None = None
    t0 = start_epoch
    for k, ln in enumerate(lines):
        if not ln.strip():
            continue
        f = ln.split(",")
        if f[0].strip() == "Date":
            h2 = f
            h1 = lines[k - 1].split(",") if k > 0 else [""] * len(f)
            continue
        if h2 is None or len(f) < len(h2) or not f[0].strip():
            continue  # before the header, short (truncated) row, or header row 1
        try:
            ts = datetime.strptime(f"{f[0].strip()} {f[1].strip()}", "%Y-%m-%d %H:%M:%S.%f").timestamp()
        except ValueError:
            continue
        if t0 is None:
            t0 = ts
        t = round(ts - t0, 3)
        for j in range(2, len(h2)):
            name = h2[j].strip()
            if not name:
                continue
            try:
                value = float(f[j])
            except ValueError:
                continue
            group = h1[j] if h1 is not None and j < len(h1) else ""
            scope, metric, unit = pcm_column(group, name)
            rows.append((t, source, scope, metric, value, unit))
    return _frame(rows)


class PcmMemory:
    """Intel PCM ``pcm-memory`` in CSV mode."""

    name = "pcm_memory"
    stop_signal = signal.SIGINT  # pcm cleans up its PMU programming on SIGINT/SIGTERM
    # the msr driver's module parameter allow_writes (on, off, default: arch/x86/kernel/msr.c), which
    # pcm switches on to program the uncore through /dev/cpu/*/msr
    MSR_ALLOW_WRITES = SYS / "module/msr/parameters/allow_writes"

    @property
    def changes(self) -> tuple[Path, ...]:
        """What pcm changes on the host: journaled before it starts (Collectors._start)."""
        return (self.MSR_ALLOW_WRITES,)

    def __init__(self, msr_dev: Path = DEV / "cpu/0/msr", cpuinfo: Path = PROC / "cpuinfo"):
        self.msr_dev = Path(msr_dev)
        self.cpuinfo = Path(cpuinfo)
        self.binary: str | None = None
        self._allow_writes: str | None = None

    def probe(self, facts: dict, profile: dict) -> dict:
        self.binary = find_tool(profile, "pcm_memory", ["pcm-memory", "pcm-memory.x"])
        if not self.binary:
            return {"available": False, "reason": _not_found("pcm-memory", "pcm_memory", profile)}
        vendor = cpu_signature(self.cpuinfo).get("vendor") or ""
        model = facts.get("cpu_model") or ""
        if vendor != "GenuineIntel" and "Intel" not in model:
            return {"available": False, "binary": self.binary,
                    "reason": f"pcm-memory needs an Intel server CPU (this one: {model or vendor or 'unknown'})"}
        if not _is_root(facts):
            return {"available": False, "binary": self.binary, "reason": "pcm-memory needs root (MSR and PCI config access)"}
        if not self.msr_dev.exists():
            return {"available": False, "binary": self.binary,
                    "reason": f"MSR driver not loaded ({self.msr_dev} missing; `modprobe msr`)"}
        pc = facts.get("perf_counters") or {}
        if not pc.get("available", False):
            return {"available": False, "binary": self.binary,
                    "reason": f"no hardware PMU: {pc.get('reason', 'unknown')}"}
        return {"available": True, "binary": self.binary, "reason": "pcm-memory found; Intel CPU, root, MSR driver, PMU"}

    def env(self, status: dict[str, dict]) -> dict[str, str] | None:
        """Beside a running perf uncore collector, pcm programs the uncore through perf too
        (intel/pcm ENVVAR_README.md: ``PCM_USE_UNCORE_PERF=1`` "use Linux perf events API to program
        *uncore* PMUs (default is *not* to use it)"), so the kernel arbitrates the counters instead of
        pcm writing the boxes' MSRs under perf. Alone, pcm keeps its default."""
        if (status.get("perf_uncore") or {}).get("ok"):
            return {**os.environ, "PCM_USE_UNCORE_PERF": "1"}
        return None

    def files(self, outdir: Path) -> dict[str, Path]:
        return {"data": outdir / f"{self.name}.csv", "start": outdir / f"{self.name}.start",
                "log": outdir / f"{self.name}.log"}

    def argv(self, outdir: Path, interval_ms: int) -> list[str]:
        if not self.binary:
            raise RuntimeError("probe() first (no pcm-memory binary)")
        # <delay seconds> -csv=<file> -f (flush each sample: pcm leaves with _exit on signals)
        return [self.binary, f"{interval_ms / 1000:g}", f"-csv={self.files(outdir)['data']}", "-f"]

    # pcm switches the msr driver's allow_writes to "on"; put it back.
    def before_start(self, outdir: Path) -> None:
        self.files(outdir)["start"].write_text(f"{time.time():.6f}\n")
        try:
            self._allow_writes = self.MSR_ALLOW_WRITES.read_text().strip()
        except OSError:
            self._allow_writes = None

    def after_stop(self, outdir: Path) -> dict:
        if self._allow_writes is None:
            return {}
        try:
            now = self.MSR_ALLOW_WRITES.read_text().strip()
            if now != self._allow_writes:
                self.MSR_ALLOW_WRITES.write_text(self._allow_writes)
                return {"restored": {str(self.MSR_ALLOW_WRITES): self._allow_writes}}
        except OSError as e:
            return {"restore_failed": f"{self.MSR_ALLOW_WRITES}: {e.strerror}"}
        return {}

    def parse(self, outdir: Path) -> pd.DataFrame:
        f = self.files(outdir)
        try:
            start = float(f["start"].read_text().strip())
        except (OSError, ValueError):
            start = None
        return parse_pcm_csv(f["data"], start, source=self.name)


# ----------------------------------------------------------------- ipmctl

def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def parse_ipmctl_performance(text_lines: Iterable[str]) -> dict[str, dict[str, int]]:
    """``ipmctl show -dimm -performance`` (list format) -> {DimmID: {metric: value}}.

    Format (ipmctl ShowPerformanceCommand)::

        ---DimmID=0x0001---
           MediaReads=0x000000000000000000000000cc3bb004
           ...
    """
    out: dict[str, dict[str, int]] = {}
    cur: dict[str, int] | None = None
    for ln in text_lines:
        m = re.fullmatch(r"\s*-+\s*DimmI[Dd]\s*=\s*(\S+?)\s*-+\s*", ln)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        m = re.fullmatch(r"\s*([A-Za-z]+)\s*=\s*(0x[0-9a-fA-F]+|\d+)\s*", ln)
        if m and cur is not None:
            cur[_snake(m.group(1))] = int(m.group(2), 0)
    return out


class Ipmctl:
    """Optane PMem media / request counters, before and after the point."""

    name = "ipmctl"

    def __init__(self) -> None:
        self.binary: str | None = None

    def probe(self, facts: dict, profile: dict) -> dict:
        self.binary = find_tool(profile, "ipmctl", ["ipmctl"])
        if not self.binary:
            return {"available": False, "reason": _not_found("ipmctl", "ipmctl", profile)}
        if not _is_root(facts):
            return {"available": False, "binary": self.binary, "reason": "ipmctl needs root"}
        rc, out = _run_query([self.binary, "show", "-dimm"])
        dimms = [ln for ln in out.splitlines() if re.match(r"\s*(0x[0-9a-fA-F]{4}|[0-9a-fA-F]{4}-)", ln) or "DimmID=" in ln]
        if rc != 0 or not dimms:
            first = next((ln.strip() for ln in out.splitlines() if ln.strip()), f"exit status {rc}")
            return {"available": False, "binary": self.binary, "reason": f"no PMem modules (ipmctl show -dimm: {first})"}
        return {"available": True, "binary": self.binary, "reason": f"{len(dimms)} PMem module(s)"}

    def files(self, outdir: Path, label: str) -> dict[str, Path]:
        return {"data": outdir / f"{self.name}_{label}.txt", "time": outdir / f"{self.name}_{label}.time",
                "log": outdir / f"{self.name}.log"}

    def snapshot(self, outdir: Path, label: str, supervisor: Supervisor | None = None) -> None:
        """Run ``ipmctl show -dimm -performance`` into ``ipmctl_<label>.txt``; raise on failure."""
        if not self.binary:
            raise RuntimeError("probe() first (no ipmctl binary)")
        f = self.files(outdir, label)
        argv = [self.binary, "show", "-dimm", "-performance"]
        if supervisor is None:
            with Supervisor() as sup:
                rc = sup.run(f"{self.name}_{label}", argv, timeout=SNAPSHOT_TIMEOUT_S, stdout=f["data"], stderr=f["log"])
        else:
            rc = supervisor.run(f"{self.name}_{label}", argv, timeout=SNAPSHOT_TIMEOUT_S, stdout=f["data"], stderr=f["log"])
        f["time"].write_text(f"{time.time():.6f}\n")
        if rc != 0:
            raise RuntimeError(f"ipmctl show -dimm -performance exited with status {rc}: {_tail(f['log'])}")

    def parse(self, outdir: Path) -> pd.DataFrame:
        """Differences after - before per DIMM (counts), and media bandwidth in MB/s."""
        b, a = self.files(outdir, "before"), self.files(outdir, "after")
        try:
            dt = float(a["time"].read_text()) - float(b["time"].read_text())
        except (OSError, ValueError):
            return empty_frame()
        before = parse_ipmctl_performance(complete_lines(b["data"]))
        after = parse_ipmctl_performance(complete_lines(a["data"]))
        t = round(dt, 3)
        rows: list[tuple] = []
        for dimm, vals in after.items():
            prev = before.get(dimm, {})
            for metric, v in vals.items():
                if metric not in prev or v < prev[metric]:  # missing, or reset (AC cycle)
                    continue
                d = v - prev[metric]
                rows.append((t, self.name, f"dimm/{dimm}", metric, float(d), "count"))
                bw = {"media_reads": "media_read_bandwidth", "media_writes": "media_write_bandwidth"}.get(metric)
                if bw and dt > 0:  # 64-byte media accesses
                    rows.append((t, self.name, f"dimm/{dimm}", bw, d * 64 / dt / 1e6, "MB/s"))
        return _frame(rows)


# ------------------------------------------------------------- collectors

SOURCES: dict[str, type] = {"perf_uncore": PerfUncore, "pcm_memory": PcmMemory, "ipmctl": Ipmctl}


def make_source(name: str, options: dict | None = None) -> CounterSource:
    if name not in SOURCES:
        raise ConfigError(f"counters: unknown source {name!r} (known: {', '.join(SOURCES)})")
    return SOURCES[name](**(options or {}))


class Collectors:
    """Probe, start and stop the counter sources of one measurement point.

    ``sources`` are names (or source objects, e.g. with test paths). On enter
    every source is probed; available continuous ones are spawned under
    ``supervisor`` (own process group), snapshot ones take their 'before'
    snapshot. On exit continuous ones are stopped by pid (their
    ``stop_signal``, then SIGKILL after the supervisor's grace period) and
    snapshot ones take 'after'. A collector failure never raises: it becomes
    ``{"available": True, "ok": False, "reason": ...}`` in :meth:`status`.
    An interrupt (``procs.Interrupted``) still propagates, after cleanup.

    ``options`` maps a source name to constructor keywords, e.g.
    ``{"perf_uncore": {"cha_groups": {...}}}``; a profile's
    ``counters.perf_events`` (list of :class:`UncoreEvent` dicts) and
    ``counters.cha_groups`` are used for perf_uncore when given (hosts/schema.yaml).
    """

    def __init__(self, sources: Sequence[str | CounterSource], facts: dict, profile: dict, outdir: Path,
                 interval_ms: int, supervisor: Supervisor, options: dict[str, dict] | None = None,
                 settings=None):
        if not isinstance(interval_ms, int) or interval_ms < 10:
            raise ConfigError(f"counters: interval_ms must be an integer >= 10, got {interval_ms!r}")
        options = dict(options or {})
        self.monitor_cpus = list(profile.get("monitor_cpus") or [])
        prof = profile.get("counters") or {}  # hosts/schema.yaml: counters
        for key, opt in (("perf_events", "events"), ("cha_groups", "cha_groups")):
            if prof.get(key) and opt not in options.get("perf_uncore", {}):
                options["perf_uncore"] = {**options.get("perf_uncore", {}), opt: prof[key]}
        self.sources: list[CounterSource] = []
        seen = set()
        for s in sources:
            src = make_source(s, options.get(s)) if isinstance(s, str) else s
            if src.name in seen:
                raise ConfigError(f"counters: source {src.name!r} given twice")
            seen.add(src.name)
            self.sources.append(src)
        self.facts = facts
        self.profile = profile
        self.outdir = Path(outdir)
        self.interval_ms = interval_ms
        self.supervisor = supervisor
        self.settings = settings  # the point's journal (settings.Settings): what a source's program changes
        self._status: dict[str, dict] = {s.name: {"available": False, "reason": "not started"} for s in self.sources}
        self._children: dict[str, Child] = {}
        self._started: list[CounterSource] = []
        self._frames: pd.DataFrame | None = None  # parsed on exit; None: no rows (or not parsed yet)
        self._parsed = False

    # -- lifecycle -------------------------------------------------------
    def __enter__(self) -> Self:
        self.outdir.mkdir(parents=True, exist_ok=True)
        try:
            for src in self.sources:
                self._start(src)
        except BaseException:
            self._stop_all()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stop_all()
        self._frames = self._parse_all()
        self._parsed = True

    def _start(self, src: CounterSource) -> None:
        try:
            st = dict(src.probe(self.facts, self.profile))
        except Interrupted:
            raise
        except Exception as e:  # noqa: BLE001 - a probe bug must not stop the point
            st = {"available": False, "reason": f"probe failed: {type(e).__name__}: {e}"}
        self._status[src.name] = st
        if not st.get("available"):
            return
        try:
            if hasattr(src, "argv"):
                # what the program changes on the host itself (pcm: the msr driver's allow_writes),
                # journaled as it is now: put back when the point ends, or by the next repair after a kill
                if self.settings is not None:
                    self.settings.keep(getattr(src, "changes", ()))
                hook = getattr(src, "before_start", None)
                if hook:
                    hook(self.outdir)
                argv = src.argv(self.outdir, self.interval_ms)
                log = self.outdir / f"{src.name}.log"
                env_of = getattr(src, "env", None)
                env = env_of(self._status) if env_of else None
                # on the profile's monitor CPUs (cpus/monitor), off the application's and antagonists' cores
                child = self.supervisor.spawn(src.name, argv, stderr=log, env=env, cpus=self.monitor_cpus or None)
                if self.monitor_cpus:
                    st["cpus"] = self.monitor_cpus
                self._children[src.name] = child
                st.update({"ok": True, "pid": child.pid, "argv": argv})
                if env:
                    st["env"] = {k: v for k, v in env.items() if k not in os.environ or os.environ[k] != v}
            else:
                src.snapshot(self.outdir, "before", self.supervisor)
                st["ok"] = True
            self._started.append(src)
        except Interrupted:
            raise
        except Exception as e:  # noqa: BLE001
            st.update({"ok": False, "reason": f"could not start: {type(e).__name__}: {e}"})

    def _stop_all(self) -> None:
        interrupted: Interrupted | None = None
        for src in list(self._started):
            st = self._status[src.name]
            try:
                child = self._children.get(src.name)
                if child is not None:
                    early = not child.alive()
                    rc = self.supervisor.stop(child, getattr(src, "stop_signal", signal.SIGTERM))
                    st["returncode"] = rc
                    if early:
                        st.update({"ok": False, "reason": f"{src.name} exited with status {rc} before the point ended: "
                                                          f"{_tail(self.outdir / f'{src.name}.log') or 'no output'}"})
                    hook = getattr(src, "after_stop", None)
                    if hook:
                        st.update(hook(self.outdir))
                elif st.get("ok"):
                    try:
                        src.snapshot(self.outdir, "after", self.supervisor)
                    except Interrupted:
                        raise
                    except Exception as e:  # noqa: BLE001
                        st.update({"ok": False, "reason": f"'after' snapshot failed: {type(e).__name__}: {e}"})
            except Interrupted as e:
                interrupted = interrupted or e
                st.update({"ok": False, "reason": "interrupted while stopping"})
            except Exception as e:  # noqa: BLE001
                st.update({"ok": False, "reason": f"could not stop cleanly: {type(e).__name__}: {e}"})
            self._started.remove(src)
        if interrupted is not None:
            raise interrupted

    # -- results ---------------------------------------------------------
    def status(self) -> dict[str, dict]:
        """Per source: availability, reason, and (when run) ok/pid/returncode; JSON-ready."""
        return json.loads(json.dumps(self._status, default=str))

    def frames(self) -> pd.DataFrame:
        """All parsed counter rows (long form, :data:`COLUMNS`); empty frame when none.

        After the block has exited this is the frame parsed then (and counted
        in ``status()[src]["rows"]``); before, it parses what is there so far.
        """
        df = self._frames if self._parsed else self._parse_all()
        return df.copy() if df is not None else empty_frame()

    def write_csv(self, path: Path) -> bool:
        """The parsed rows (the block has exited) to ``path`` as CSV; False, writing nothing, when
        there are none (pandas is then never imported)."""
        if self._frames is None:
            return False
        self._frames.to_csv(path, index=False)
        return True

    def _parse_all(self) -> pd.DataFrame | None:
        """Every started source's rows, or None when no source has any."""
        parts = []
        for src in self.sources:
            st = self._status.get(src.name, {})
            if not st.get("available") or "ok" not in st:
                continue
            try:
                df = src.parse(self.outdir)
            except Exception as e:  # noqa: BLE001
                st["parse_error"] = f"{type(e).__name__}: {e}"
                continue
            st["rows"] = len(df)
            if not len(df) and st.get("ok"):
                st["note"] = "no samples (point shorter than the interval?)"
            if len(df):
                mux = df[df["metric"] == RUNNING_PCT]
                if len(mux):
                    # perf scaled these counts by enabled/running time: estimates, said so in meta
                    st["multiplexed"] = {sc: round(float(v), 2) for sc, v in mux.groupby("scope")["value"].min().items()}
                parts.append(df)
        return _pandas().concat(parts, ignore_index=True)[COLUMNS] if parts else None
