"""tiersim (colloid/sim/): the tier model that drives libcolloid's policies on modelled tiers:
its command line and build recipe. Run by the ``model`` executor (workflows/harness/point.py).

Protocol: ``--summary FILE`` (and ``--timeseries FILE``) in the long form ``t_s,metric,value,unit``,
written only when the run succeeds; exit 2 with one line on a bad argument (a curve, a size).
"""

from __future__ import annotations

import systems

NAME = "tiersim"
BUILD = {"libs": ["lib", "colloid"], "make": ["colloid/sim"], "sources": ["colloid/sim/Makefile", "colloid/sim/src/*.[ch]"]}


def fmt(x: float) -> str:
    return f"{x:g}"


def tier_args(default_curve: str, default_gib: float, alternate_curve: str, alternate_gib: float) -> list[str]:
    return ["--tier", f"default:{default_curve}:capacity={fmt(default_gib)}",
            "--tier", f"alternate:{alternate_curve}:capacity={fmt(alternate_gib)}"]


def workload_args(w: dict) -> list[str]:
    """An access model: ``kind`` gups (a hot set taking ``hot_share`` of the accesses) or zipf
    (regions ranked, rank k taking ~k^-``zipf_theta``), its working and hot set, object size, op."""
    a = ["--workload", w["kind"], "--working-set", w["working_set"], "--hot-set", w["hot_set"]]
    a += ["--hot-share", fmt(w["hot_share"])] if w["kind"] == "gups" else ["--zipf-theta", fmt(w["zipf_theta"])]
    return a + ["--object-size", str(w["object_bytes"]), "--op", w["op"]]


def argv(*, system: str, colloid: bool, delta_p: str, tiers: list[str], workload: dict, app_cores: int,
         cores_per_unit: int, intensity: float, region_size: str, duration_s: float, average_last_s: float, seed: int,
         extra: list[str] | tuple = ()) -> list[str]:
    """tiersim's command line for tiering system ``system`` (its registry entry names the libcolloid
    policy that models it; a system without Colloid, e.g. static, takes no Colloid flags)."""
    s = systems.get(system)
    a = ["build/bin/tiersim", "--system", s.policy]
    if s.colloid:
        a += ["--colloid", "on" if colloid else "off", "--delta-p", delta_p]
    a += tiers + workload_args(workload)
    a += ["--app-cores", str(app_cores), "--antagonist-cores-per-unit", str(cores_per_unit), "--intensity", fmt(intensity),
          "--region-size", region_size, "--duration", fmt(duration_s), "--average-last", fmt(average_last_s),
          "--seed", str(seed)]
    return a + list(extra)


def reseed(row: dict, rep: int) -> None:
    """Repetition ``rep`` of a model point: the same run with seed + rep (tiersim is deterministic)."""
    a = row["run"]["argv"]
    i = a.index("--seed") + 1
    a[i] = str(int(a[i]) + rep)
