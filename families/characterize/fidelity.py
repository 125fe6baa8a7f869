"""The host as the tier model sees it (workflows/harness/fidelity.py's ``tiers`` hook): the model
tiers made from this family's measured loaded-latency curves (``results/<host>/curves/``, written by
the tier_curves rule, one ``c{cpu}-m{mem}.csv`` per pair and read ratio inside).

Default tier: the application CPUs' node's own memory (its local pair); alternate tier: the far
memory node with the lowest unloaded latency from that CPU node, where there is one. Capacity: the
node's memory (host facts).

The model reads a curve as measured where it is a curve: latency rising with bandwidth. Where a
read ratio's points are noise around a flat line, or other measurements saw the memory carry more
than the sweep reached (a small host whose few injectors cannot load its memory), the model's input
is ``results/<host>/model-curves/<pair>.csv``, per read ratio:

1. the least-squares non-decreasing fit of latency over bandwidth (pool adjacent violators), ties
   then raised by 0.1 ns per step (far below memchar's noise) so that every point is kept;
2. where another measurement saw the memory carry more than the loaded sweep reached at that read
   ratio (the bandwidth experiment of the same pair, ``characterize/bandwidth``, read from the
   host's measured rows, the op of the nearest read ratio, its most threads; or a family's
   ``observed`` bandwidth, e.g. the antagonist's own at its calibration point), one point at that
   bandwidth with the last latency plus 0.1 ns: the curve's wall is then the most the memory was
   measured to carry instead of what the sweep's few injectors reached (no latency rise is invented
   past the last measured point; tiersim's closed-loop wall applies beyond it).

Both are said in the profile's header, and the wall's source is in its ``calibration`` block.

Compared (``rows``): each model tier's unloaded latency, tiersim's one-line chase alone on the
tier's curve, beside the pair's idle latency measured alone (``idle_latency``, memchar's chase with
nothing else running). The curve's lightest point and the idle latency measure the same number in
two experiments; where they disagree, every latency the model predicts on that tier carries it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from workflows.harness import curvecheck
from workflows.harness.fidelity import Model, row

from . import NAME, OP_SLUG
from .curves import READ_RATIO, curve_ops

PAIR = re.compile(r"^c(\d+)-m(\d+)\.csv$")


def app_node(facts: dict) -> int | None:
    """The NUMA node of the profile's first application CPU (else the first CPU node)."""
    app = ((facts.get("profile") or {}).get("cpus") or {}).get("app") or []
    for n, info in (facts.get("nodes") or {}).items():
        if app and app[0] in (info.get("cpus") or []):
            return int(n)
    nodes = facts.get("cpu_nodes") or []
    return nodes[0] if nodes else None


STEP_NS = 0.1


def monotone(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """(bandwidth, latency) sorted by bandwidth -> the least-squares non-decreasing latency fit (pool
    adjacent violators), ties raised by STEP_NS per point so that latency strictly rises."""
    blocks: list[list[float]] = []  # [sum, count]
    for _, lat in points:
        blocks.append([lat, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    fit = [b[0] / b[1] for b in blocks for _ in range(int(b[1]))]
    out, last = [], -1.0
    for (bw, _), lat in zip(points, fit, strict=True):
        lat = max(lat, last + STEP_NS)
        out.append((bw, round(lat, 3)))
        last = lat
    return out


def peaks(df: pd.DataFrame | None, pair: str) -> dict[float, tuple[float, str]]:
    """Read ratio -> (the bandwidth experiment's peak MB/s, its point) for a pair, from the host's
    measured rows (the driver's frame: measurements.csv, which a copied results directory carries,
    or the points' result.csv). The experiment's rows name the pair as their point, each op's
    (``characterize/bandwidth/<pair>/<op>``) apart by its ``op`` column."""
    need = {"family", "experiment", "point", "metric", "value", "op"}
    if df is None or df.empty or not need <= set(df.columns):
        return {}
    df = df[(df["family"] == NAME) & (df["experiment"] == "bandwidth") & (df["point"] == pair)
            & (df["metric"] == "bandwidth") & df["value"].notna() & df["op"].notna()]
    if df.empty:
        return {}
    use = curve_ops(df["op"])  # the op that makes the ratio's curve (rmw before mix1:1)
    out = {}
    for op, g in df.groupby("op"):
        if op in READ_RATIO and use.get(round(READ_RATIO[op], 4)) == op:
            out[round(READ_RATIO[op], 4)] = (float(g["value"].max()), f"characterize/bandwidth/{pair}/{OP_SLUG[op]}")
    return out


def model_curve(host_dir: Path, pair: str, notes: list[str], walls: dict,
                observed: dict[float, tuple[float, str]] | None = None, df: pd.DataFrame | None = None) -> Path | None:
    """The model's input curve of a pair (see the module's doc), or None when the measured one is
    already one the model reads as it is and nothing measured more bandwidth than its wall.
    ``observed``: read ratio -> (MB/s, point) that other measurements saw this memory carry;
    ``df``: the host's measured rows (the pair's bandwidth experiment is read from them)."""
    src = host_dir / "curves" / f"{pair}.csv"
    try:
        plausible = not curvecheck.implausible(curvecheck.load_for_tiersim(str(src)))
    except curvecheck.CurveError:
        plausible = False
    raw = pd.read_csv(src)
    pk = peaks(df, pair)
    per_ratio, raised = [], []
    for rr, g in raw.groupby("read_ratio"):
        pts = sorted(zip(g["bandwidth_mbps"], g["latency_ns"], strict=True))
        cands = []
        near = min(pk, key=lambda r: abs(r - rr)) if pk else None
        if near is not None:
            cands.append(pk[near])
        cands += [v for r, v in (observed or {}).items() if min(raw["read_ratio"].unique(), key=lambda x: abs(x - r)) == rr]
        top = max(cands, default=None)
        wall = None
        if top is not None and top[0] > max(b for b, _ in pts):
            wall = top
            walls[f"wall_mbps_{pair}_r{rr:g}"] = top
            raised.append(f"{rr:g}: {top[1]}")
        per_ratio.append((rr, pts, wall))
    if plausible and not raised:
        return None
    # a curve the model reads as written: the monotone fit wherever it is rewritten (a wall raised
    # past a measured curve whose points dip within noise would otherwise read as implausible at
    # the new wall's scale)
    rows = []
    for rr, pts, wall in per_ratio:
        pts = monotone(pts)
        if wall is not None:
            pts.append((wall[0], round(max(lat for _, lat in pts) + STEP_NS, 3)))
        rows += [(rr, b, lat) for b, lat in pts]
    out = host_dir / "model-curves" / f"{pair}.csv"
    out.parent.mkdir(exist_ok=True)
    pd.DataFrame(rows, columns=["read_ratio", "bandwidth_mbps", "latency_ns"]).to_csv(out, index=False, float_format="%.6g")
    notes.append(f"{pair}: model-curves/{pair}.csv is the measured curve's monotone fit" +
                 ("" if plausible else " (latency does not rise with bandwidth in the measured one)") +
                 (f", its wall raised to the most bandwidth measured at read ratio {'; '.join(raised)}" if raised else ""))
    return out


def tiers(host_dir: Path, facts: dict, notes: list[str], walls: dict | None = None,
          observed: list[dict] | None = None, df: pd.DataFrame | None = None) -> list[dict] | None:
    """``observed``: bandwidths other measurements saw a memory node carry (``mem_node``,
    ``read_ratio``, ``mbps``, ``point``): each raises that node's local pair's wall where it is
    above it. ``df``: the host's measured rows (the driver's frame), whose bandwidth experiment
    raises each pair's walls likewise (None: no bandwidth experiment)."""
    walls = {} if walls is None else walls
    curves = host_dir / "curves"
    pairs = {(int(m.group(1)), int(m.group(2))): p for p in sorted(curves.glob("c*-m*.csv")) if (m := PAIR.match(p.name))}
    for key, p in list(pairs.items()):
        seen: dict[float, tuple[float, str]] = {}
        for o in observed or []:
            # measured beside a workload on its own node (None: the node is not in the rows)
            if o["mem_node"] in (key[1], None) and key[0] == key[1]:
                seen[o["read_ratio"]] = max(seen.get(o["read_ratio"], (0.0, "")), (o["mbps"], o["point"]))
        fixed = model_curve(host_dir, p.stem, notes, walls, seen, df)
        if fixed is not None:
            pairs[key] = fixed
    node = app_node(facts)
    if node is None or (node, node) not in pairs:
        notes.append(f"no loaded-latency curve of node {node}'s own memory in {curves}")
        return None
    unloaded = {}
    for (c, m), p in pairs.items():
        if c != node:
            continue
        try:
            curve = curvecheck.load_for_tiersim(str(p))
        except curvecheck.CurveError as e:
            notes.append(f"{p.name}: not a curve the model can use ({e})")
            continue
        bad = curvecheck.implausible(curve)
        if bad:
            notes.append(f"{p.name}: implausible, not used ({bad})")
            continue
        unloaded[m] = curvecheck.unloaded_at(curve.unloaded(), 1.0)
        ratios = ", ".join(f"{r:g}" for r in sorted(curve.ratios))
        notes.append(f"c{c}-m{m}: read ratios {ratios}; unloaded {unloaded[m]:.4g} ns at reads only")
    if node not in unloaded:
        return None

    def gib(n: int) -> float:
        return round(((facts.get("nodes") or {}).get(str(n)) or {}).get("memory_mib", 1024) / 1024, 3) or 1.0

    def rel(m: int) -> str:
        return str(pairs[node, m].relative_to(host_dir))

    out = [{"name": "default", "kind": "model", "curve": rel(node), "capacity_gib": gib(node)}]
    far = sorted((u, m) for m, u in unloaded.items() if m != node and u > unloaded[node])
    if far:
        m = far[0][1]
        out.append({"name": "alternate", "kind": "model", "curve": rel(m), "capacity_gib": gib(m)})
    else:
        notes.append(f"one memory node reachable from node {node}: no alternate tier (single-node contention only)")
    return out


def chase_alone(model: Model, tier: str, buffer_mib: int) -> float:
    """tiersim's latency of a dependent chase (one line in flight, no think time, reads only) alone
    on ``tier``'s curve: the model's unloaded latency of that tier."""
    workload = ["--workload", "gups", "--working-set", f"{buffer_mib}M", "--hot-set", f"{buffer_mib}M",
                "--hot-share", "1", "--object-size", "64", "--op", "read"]
    alone = model.on_tier(tier).single_node(workload=workload, app_cores=1, antagonist_threads=0,
                                            extra=["--app-mlp", "1", "--app-think-ns", "0"])
    return alone["latency_default"]


def rows(df: pd.DataFrame, model: Model) -> list[dict]:
    idle = df[(df["family"] == "characterize") & (df["experiment"] == "idle_latency") & (df["metric"] == "idle_latency")
              & df["value"].notna()]
    out = []
    for tier in ("default", "alternate"):
        if tier not in model.tiers:
            continue
        pair = Path(model.tiers[tier]["curve"]).stem
        g = idle[idle["point"] == pair]
        if g.empty:
            continue
        size = g["buffer_bytes"].dropna() if "buffer_bytes" in g else pd.Series(dtype=float)
        mib = int(size.iloc[0]) // 2**20 if len(size) else 512  # (the row names it; tiersim has no cache: any size)
        out.append(row(point=pair, experiment="idle_latency", family="characterize", workload="memchar",
                       metric="latency_ns", unit="ns", measured=float(g["value"].mean()),
                       predicted=chase_alone(model, tier, mib), role="validation"))
    return out
