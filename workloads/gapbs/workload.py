"""GAPBS (github.com/sbeamer/gapbs, pinned; built from its archive by build.sh): PageRank ``pr``
and the graph ``converter``: argv, protocol, parser, build recipe.

The graph is a parameter: ``kron:SCALE`` (a Kronecker graph of 2^SCALE vertices, degree 16, made
once by ``converter -g SCALE -k 16 -b`` into build/graphs/; the Colloid paper used the Twitter
graph) or a path to a user's ``.sg`` (serialized) or ``.el`` (edge list) file.

Protocol: ``pr -f GRAPH -n TRIALS`` prints ``Read Time``/``Build Time``, one ``Trial Time: S``
line per trial and ``Average Time: S`` (the mean trial time, the metric the paper reports);
exit 0.
"""

from __future__ import annotations

import re
from pathlib import Path

from workflows.harness.scenario import role as scenario_role
from workloads.upstream import Pin

NAME = "gapbs"
PINS = [Pin("gapbs", "sbeamer/gapbs", "b5e3e19c2845f22fb338f4a4bc4b1ccee861d026",
            "684f525a22b9f5b3395cd654ac17b119f2455b6189f66b0ec59a53431f65390a")]
_SCRIPT = "workloads/gapbs/build.sh"
# tool -> how build/bin/<tool> is made from the pinned archive (one job each)
BUILDS = {f"gapbs-{prog}": {"upstream": [PINS[0].archive], "script": _SCRIPT, "args": [prog], "sources": [_SCRIPT]}
          for prog in ("pr", "converter")}
DEGREE = 16
GRAPH_DIR = "build/graphs"


def graph_file(graph: str) -> str:
    """Where a graph parameter's file is: kron:SCALE is made into build/graphs/; else the user's path."""
    if graph.startswith("kron:"):
        return f"{GRAPH_DIR}/kron{int(graph[5:])}-k{DEGREE}.sg"
    return graph


def converter_argv(scale: int, out: str) -> list[str]:
    return ["build/bin/gapbs-converter", "-g", str(scale), "-k", str(DEGREE), "-b", out]


def argv(*, graph: str, trials: int) -> list[str]:
    a = ["build/bin/gapbs-pr", "-f", graph_file(graph), "-n", str(trials)]
    return a + (["-s"] if graph.endswith(".el") else [])  # an edge list may hold each edge once


# cli plan's estimate before a first run (a later run's own times replace it): seconds per arc of the
# graph to read it, and per arc per PageRank trial, on the development VM (kron:20, 2^20 x 16 x 2 arcs:
# 0.09-0.13 s read, 0.42-0.50 s per trial alone, a fresh quick run, 2026-11-27)
READ_S_PER_ARC, TRIAL_S_PER_ARC = 3.5e-9, 1.3e-8


def seconds(argv_: list[str]) -> float | None:
    """How long ``pr -f GRAPH -n TRIALS`` takes (for cli plan): read plus trials, in proportion to the
    graph's arcs (a kron graph's from its name; a serialized ``.sg`` file's from its size, about 4
    bytes per arc; None for an edge list, whose text says less of its arcs)."""
    from workloads import args_after, flag  # noqa: PLC0415

    args = args_after(argv_, "gapbs-pr")
    if args is None:
        return None
    graph, trials = flag(args, "-f"), flag(args, "-n", "16")  # (pr's default trial count: gapbs command_line.h)
    m = re.search(r"kron(\d+)-k(\d+)\.sg$", graph or "")
    if m:
        arcs = 2 ** int(m.group(1)) * int(m.group(2)) * 2
    elif graph and graph.endswith(".sg") and Path(graph).is_file():
        arcs = Path(graph).stat().st_size / 4
    else:
        return None
    return arcs * (READ_S_PER_ARC + int(trials) * TRIAL_S_PER_ARC)


def role(argv_: list[str]) -> dict:
    # ready once the graph is in memory (an attached policy daemon then sees all of it)
    return scenario_role("gapbs-pr", argv_, stdout="gapbs-pr.out", ready_line="Read Time:",
                         parse="workloads.gapbs.workload:rows")


TIME = re.compile(r"^(Read|Generate|Build|Trial|Average) Time:\s+([0-9.eE+-]+)\s*$")


def parse(text: str) -> list[dict]:
    """One row per trial (``trial`` 0, 1, ...), the average trial time, and the graph load times."""
    out, trial = [], 0
    for line in text.splitlines():
        m = TIME.match(line.strip())
        if not m:
            continue
        what, value = m.group(1), m.group(2)
        if what == "Trial":
            out.append({"metric": "trial_time", "value": value, "unit": "s", "trial": trial, "tool": "gapbs-pr"})
            trial += 1
        elif what == "Average":
            out.append({"metric": "average_trial_time", "value": value, "unit": "s", "tool": "gapbs-pr"})
        else:
            out.append({"metric": f"{what.lower()}_time", "value": value, "unit": "s", "tool": "gapbs-pr"})
    return out


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return parse((outdir / role_["stdout"]).read_text())
