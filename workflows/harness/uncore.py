"""Intel's uncore frequency limits: the unloaded-latency sweep of real tiers.

The Colloid paper varied a tier's unloaded latency on real hardware by lowering the uncore
frequency. Linux exposes the limits through the intel_uncore_frequency driver
(Documentation/admin-guide/pm/intel_uncore_frequency_scaling.rst): one directory per package
and die, ``/sys/devices/system/cpu/intel_uncore_frequency/package_XX_die_YY/``, with
``min_freq_khz`` / ``max_freq_khz`` (read-write: the limits), ``initial_min_freq_khz`` /
``initial_max_freq_khz`` (the limits at boot) and ``current_freq_khz`` (where the hardware
reports it). On TPMI parts (Granite Rapids; Linux 6.5+) the per-domain directories are
``uncoreNN/``, and ``package_XX_die_YY/`` stays as the control that fans out to every domain of
that die, so writing the package directories covers both. The driver programs a ratio of
100 MHz (drivers/platform/x86/intel/uncore-frequency/uncore-frequency.c:
``UNCORE_FREQ_KHZ_MULTIPLIER`` 100000), so the ladder here is in whole 100 MHz steps.

Self-contained (reads a sysfs tree; changes nothing): a point pins min = max = f through the
settings journal (workflows/harness/settings.py), which restores the original limits after it.
"""

from __future__ import annotations

import re
from pathlib import Path

DIR = "devices/system/cpu/intel_uncore_frequency"
STEP_KHZ = 100_000  # the driver's ratio unit (UNCORE_FREQ_KHZ_MULTIPLIER)
FIELDS = ("min_freq_khz", "max_freq_khz", "initial_min_freq_khz", "initial_max_freq_khz")


def domains(sys_root: Path = Path("/sys")) -> list[dict]:
    """Every package_XX_die_YY directory with its limits ({} of the ones it lacks): a list of
    {"path", "package", "die", "min_freq_khz", ...}; [] without the driver."""
    out = []
    for d in sorted((sys_root / DIR).glob("package_*_die_*")):
        m = re.fullmatch(r"package_(\d+)_die_(\d+)", d.name)
        if not m:
            continue
        dom = {"path": str(d), "package": int(m.group(1)), "die": int(m.group(2))}
        for f in FIELDS:
            try:
                dom[f] = int((d / f).read_text().strip())
            except (OSError, ValueError):
                pass
        if all(f in dom for f in FIELDS):
            out.append(dom)
    return out


def ladder(dom: dict, steps: int) -> list[int]:
    """``steps`` frequencies (kHz) from the domain's boot minimum to its boot maximum, evenly
    spaced and rounded to the driver's 100 MHz ratio, highest first, without repeats."""
    lo, hi = dom["initial_min_freq_khz"], dom["initial_max_freq_khz"]
    if steps < 2 or hi <= lo:
        return [hi]
    out: list[int] = []
    for i in range(steps):
        f = round((hi - (hi - lo) * i / (steps - 1)) / STEP_KHZ) * STEP_KHZ
        f = min(max(f, lo), hi)
        if f not in out:
            out.append(f)
    return out


def pin(doms: list[dict], khz: int) -> dict[str, str]:
    """The settings that pin every domain to ``khz`` (min = max), in an order that keeps
    min <= max at each write from the limits the facts saw: raising, max first; else min first."""
    out: dict[str, str] = {}
    for d in doms:
        lo, hi = f"{d['path']}/min_freq_khz", f"{d['path']}/max_freq_khz"
        order = (hi, lo) if khz > d["max_freq_khz"] else (lo, hi)
        for p in order:
            out[p] = str(khz)
    return out


def unavailable(facts: dict) -> str | None:
    """Why the sweep cannot run on this host (one line), or None."""
    if not facts.get("uncore_frequency"):
        return (f"no uncore frequency control (/sys/{DIR}: the intel_uncore_frequency driver, Intel "
                "Xeon with Linux >= 5.6; absent in VMs and on other CPUs)")
    if not (facts.get("privileges") or {}).get("root"):
        return f"writing /sys/{DIR}/*/min_freq_khz needs root"
    return None
