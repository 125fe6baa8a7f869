"""kv-resp (C, ours; workloads/kvresp/): a Redis load generator for hosts without a JVM (the QEMU
guest): argv, protocol, parser, build recipe.

It loads N records (SET) and reads uniformly random ones back (GET) for S seconds, with the YCSB
runner's key codec (workloads/ycsb) and output format, so the same parser reads both; it is not
YCSB (no CoreWorkload, no zipfian keys), and its phase "c" is labelled so by the tool column.
Protocol: ``--output FILE`` (the runner's CSV, last row ``end,complete``); exit 0.
"""

from __future__ import annotations

from pathlib import Path

from workflows.harness.scenario import role as scenario_role
from workloads.ycsb import workload as ycsb

NAME = "kv-resp"
_RECIPE = {"make": ["workloads/kvresp"], "sources": ["workloads/kvresp/Makefile", "workloads/kvresp/*.c", "lib/build.mk"]}
# kv-resp, and kv-wil: the weighted-interleave launcher (MPOL_WEIGHTED_INTERLEAVE; Debian's numactl lacks it)
BUILDS = {"kv-resp": _RECIPE, "kv-wil": _RECIPE}
WIL = "build/bin/kv-wil"
# Documentation/ABI/testing/sysfs-kernel-mm-mempolicy-weighted-interleave: nodeN, a node's weight
# (1-255; writing one switches the system to manual mode), and auto (true: the kernel recalculates
# every weight from bandwidth data, overwriting them). Restored newest first, the weights go back
# before auto does, so an auto that was on recalculates them itself.
WIL_SYSFS = "/sys/kernel/mm/mempolicy/weighted_interleave"


def wil_wrap(nodes: list[int]) -> list[str]:
    """The launcher's words before a program: weighted interleave over ``nodes``."""
    return [WIL, "--nodes", ",".join(str(n) for n in nodes), "--"]


def wil_settings(weights: dict[int, int], have_auto: bool) -> dict[str, str]:
    """The system-wide weights as journaled settings (restored after the point): auto mode off
    first (kernels that have it), then each node's weight."""
    out = {f"{WIL_SYSFS}/auto": "false"} if have_auto else {}
    return {**out, **{f"{WIL_SYSFS}/node{n}": str(w) for n, w in weights.items()}}


def argv(*, unix: str | None = None, port: int | None = None, records: int, value_bytes: int, key_type: str,
         seconds: float) -> list[str]:
    where = ["--unix", unix] if unix else ["--port", str(port)]
    return ["build/bin/kv-resp", *where, "--records", str(records), "--value-bytes", str(value_bytes),
            "--key-type", key_type, "--seconds", f"{seconds:g}"]


def role(argv_: list[str], opts: dict) -> dict:
    return scenario_role("kv-resp", argv_, name="kv-resp", output="kv-resp.csv", parse="workloads.kvresp.workload:rows",
                         opts=opts, usage=True)


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return [{**r, "tool": "kv-resp"} for r in ycsb.rows(outdir, role_, opts)]
