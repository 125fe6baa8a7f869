"""An overcommit point's rows: the workload's native metric (its workload module's ``native``), the
runner's summary (workflows/harness/memcg.py: faults, swap, CPU time, PSI, F and the limit), the
comparison with the R = 1 point of the same repetition, the cost model, and a time series of the
fault rate and swap use."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from workflows.harness.scenario import parser

MIB = 2**20


def baseline_value(path: str, metric: str) -> float:
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] == metric and not r.get("t_s"):
                return float(r["value"])
    raise ValueError(f"{path} has no {metric} row (the R = 1 point)")


def series_rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        samples = list(csv.DictReader(f))
    out = []
    prev = None
    for s in samples:
        t = float(s["t_s"])
        out += [{"t_s": t, "metric": "swap_used", "value": round(int(s["swap"]) / MIB, 3), "unit": "MiB"},
                {"t_s": t, "metric": "anon_shmem", "value": round((int(s["anon"]) + int(s["shmem"])) / MIB, 3),
                 "unit": "MiB"}]
        if prev is not None and t > float(prev["t_s"]):
            dt = t - float(prev["t_s"])
            out += [{"t_s": t, "metric": "major_fault_rate",
                     "value": round((int(s["pgmajfault"]) - int(prev["pgmajfault"])) / dt, 3), "unit": "1/s"},
                    {"t_s": t, "metric": "swapin_rate", "value": round((int(s["swapin"]) - int(prev["swapin"])) / dt, 3),
                     "unit": "pages/s"}]
        prev = s
    return out


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    files = opts["files"]
    summ = json.loads((outdir / files["summary"]).read_text())
    nat = parser(opts["native"])(outdir, files)
    ratio = float(opts["ratio"])
    f_bytes = summ["peak_anon_shmem"] if ratio == 1 else summ["footprint_bytes"]
    work = float(nat["work"])
    mb = lambda b: round(b / MIB, 3)  # noqa: E731
    out = [{"metric": nat["metric"], "value": nat["value"], "unit": nat["unit"]},
           {"metric": "work", "value": work, "unit": nat["work_unit"]},
           {"metric": "footprint", "value": mb(f_bytes), "unit": "MiB"},
           {"metric": "dram_limit", "value": mb(f_bytes / ratio), "unit": "MiB"},
           {"metric": "limit_enforced", "value": 0 if summ["limit_bytes"] is None else 1, "unit": "bool"},
           {"metric": "peak_anon_shmem", "value": mb(summ["peak_anon_shmem"]), "unit": "MiB"},
           {"metric": "major_faults", "value": summ["pgmajfault"], "unit": "count"},
           {"metric": "minor_faults", "value": summ["pgfault"] - summ["pgmajfault"], "unit": "count"},
           {"metric": "swapins", "value": summ["swapin"], "unit": "pages"},
           # every refault of an evicted anonymous page (workingset_refault_anon), zswap loads included,
           # which a per-cgroup pswpin (swap-device reads only, mm/page_io.c) leaves out
           {"metric": "anon_refaults", "value": summ.get("refault_anon"), "unit": "pages"},
           {"metric": "host_swapins", "value": summ["host_pswpin"], "unit": "pages"},
           {"metric": "host_swapouts", "value": summ["host_pswpout"], "unit": "pages"},
           {"metric": "swap_peak", "value": mb(summ["swap_peak"]), "unit": "MiB"},
           {"metric": "wall_time", "value": summ["wall_s"], "unit": "s"},
           {"metric": "major_faults_per_unit", "value": summ["pgmajfault"] / work if work else None,
            "unit": f"1/{nat['work_unit']}"}]
    if summ.get("oom_kills") is not None:  # a process the cgroup's OOM killer ended (a PostgreSQL backend...)
        out.append({"metric": "oom_kills", "value": summ["oom_kills"], "unit": "count"})
    out += [dict(r) for r in nat.get("checks") or []]  # what the workload checked (TPC-H: its answers)
    extra = nat.get("extra") or {}
    for k, v in extra.items():
        out.append({"metric": k, "value": v, "unit": "MiB"})
    if "cold_mib" in extra and f_bytes:  # the rarely-touched share of F (ResNet-50's dataset)
        out.append({"metric": "cold_share", "value": round(min(1.0, extra["cold_mib"] * MIB / f_bytes), 4),
                    "unit": "fraction"})
    if summ.get("swapout", -1) >= 0:
        out.append({"metric": "swapouts", "value": summ["swapout"], "unit": "pages"})
    for k in ("peak_usage", "peak_swap", "peak_memsw"):
        if summ.get(k) is not None:
            out.append({"metric": k, "value": mb(summ[k]), "unit": "MiB"})
    for k, m in (("user_s", "user_time"), ("system_s", "system_time"), ("driver_user_s", "driver_user_time"),
                 ("driver_system_s", "driver_system_time")):
        if summ.get(k) is not None:
            out.append({"metric": m, "value": summ[k], "unit": "s"})
    for k in ("psi_some_total_us", "psi_full_total_us"):
        if k in summ:
            out.append({"metric": k[:-len("_total_us")], "value": summ[k], "unit": "us"})
    if ratio == 1:
        rel = 1.0
    else:
        base = baseline_value(opts["baseline"], nat["metric"])
        rel = nat["value"] / base if nat["higher_is_better"] else base / nat["value"]
    out += [{"metric": "relative_performance", "value": round(rel, 5), "unit": "fraction"},
            {"metric": "slowdown", "value": round(1 - rel, 5), "unit": "fraction"},
            {"metric": "slowdown_factor", "value": round(1 / rel, 5), "unit": "x"}]
    cost = opts["cost"]
    s = (1 - 1 / ratio) * (1 - cost["ssd_per_gib"] / cost["dram_per_gib"])
    out.append({"metric": "cost_saving", "value": round(s, 5), "unit": "fraction", "tool": "cost_model"})
    for r in out:
        r.setdefault("tool", role_["tool"])
        r["t_s"] = ""
        r["work_unit"] = nat["work_unit"]
        r["swapin_source"] = summ["swapin_source"]
        if nat.get("answers"):  # how the workload checked its answers (TPC-H)
            r["answers"] = nat["answers"]
    series = outdir / Path(files["series"]).name
    out += [{**r, "tool": "memcg", "swapin_source": summ["swapin_source"]} for r in series_rows(series)]
    return out
