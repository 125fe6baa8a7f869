"""A fleet's comparison: several hosts of one run side by side (``hosts: [a, b, ...]``).

    python -m analysis.fleet --host NAME=results/NAME ... --out results/fleet/A+B

Reads each host's ``host_facts.json`` (the facts and resolved profile the run planned with),
``measurements.csv`` and, where characterize ran, its measured curves (``curves/*.csv``), and
writes ``comparison.md`` plus ``tier_curves.png`` / ``colloid_gain.png`` (and ``.pdf``) beside it:

- the hosts and their tiers (unloaded latency and saturation wall of each tier's curve);
- the idle-latency matrix and peak bandwidths each host measured (characterize), if any;
- bandwidth–latency curves: measured ones (characterize's loaded latency) and model tiers' input
  curves, each labelled which it is;
- Colloid's gain per host: steady-state throughput with Colloid over without, per tiering system
  and antagonist intensity, on each host's own tiers (modelled tiers are labelled so).

Nothing here is a published number; a host with no rows of a kind says so in its section.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

import pandas as pd

from workflows.harness import curvecheck

from . import frame, style
from .tables import md as _md


def _hosts(specs: list[str]) -> dict[str, Path]:
    out = {}
    for s in specs:
        name, eq, path = s.partition("=")
        if not eq or not name:
            raise SystemExit(f"tierbench: error: --host {s!r}: expected NAME=DIR")
        out[name] = Path(path)
    return out


@functools.cache
def _curve(spec: str) -> curvecheck.Curve:
    """A tier's curve, loaded once (the tier table and the curve figure both read it; hosts share curves)."""
    return curvecheck.load(spec)


def _curve_rows(name: str, d: Path, prof: dict) -> list[dict]:
    """Bandwidth-latency points at reads only: the model tiers' input curves, then measured ones."""
    rows = []
    for t in prof.get("tiers", []):
        if t.get("kind") != "model":
            continue
        c = _curve(str(t["curve"]))
        label = f"{t['name']} (model input: {t.get('curve_source', t['curve'])})"
        if c.param:
            p = c.param
            pts = [(rho * p["bsat"], p["L0"] + p["a"] * rho ** p["k"] / (1 - rho)) for rho in
                   [i / 20 for i in range(19)] + [0.97, 0.99]]
        else:
            rr = max(c.ratios)
            pts = c.ratios[rr].kept
        rows += [{"host": name, "tier": label, "kind": "model", "bandwidth_gbps": b / 1000, "latency_ns": lat}
                 for b, lat in pts]
    for f in sorted((d / "curves").glob("*.csv")) if (d / "curves").is_dir() else []:
        c = curvecheck.load(str(f))
        rr = max(c.ratios)
        rows += [{"host": name, "tier": f"{f.stem} (measured)", "kind": "measured", "bandwidth_gbps": b / 1000,
                  "latency_ns": lat} for b, lat in c.ratios[rr].kept]
    return rows


def _tier_table(name: str, prof: dict, facts: dict) -> list[dict]:
    out = []
    for t in prof.get("tiers", []):
        row = {"host": name, "tier": t["name"], "kind": t["kind"]}
        if t["kind"] == "model":
            c = _curve(str(t["curve"]))
            row["unloaded_ns"] = curvecheck.unloaded_at(c.unloaded(), 1.0)
            row["wall_gbps"] = (c.param["bsat"] if c.param else c.ratios[max(c.ratios)].wall_mbps) / 1000
            row["source"] = t.get("curve_source", t["curve"])
        else:
            row["source"] = f"node {t.get('node', '')}".strip() if t["kind"] == "numa" else str(t.get("path", ""))
        # a model host's CPU is not the planning machine's
        row["cpu_model"] = "(modelled)" if prof.get("backend") == "model" else facts.get("cpu_model", "")
        out.append(row)
    return out


def _gain(df: pd.DataFrame) -> pd.DataFrame:
    """Colloid's steady-state gain per host, system and intensity (mean over repetitions)."""
    need = {"experiment", "metric", "system", "colloid", "intensity"}
    if df.empty or not need <= set(df.columns):
        return pd.DataFrame()
    s = df[(df["experiment"] == "steady_state") & (df["metric"] == "throughput") & df["t_s"].isna()].copy()
    if s.empty:
        return pd.DataFrame()
    s["colloid"] = frame.as_bool(s["colloid"])
    keys = ["host", "backend", "system", "intensity"]
    m = s.groupby(keys + ["colloid"], dropna=False)["value"].mean().unstack("colloid")
    if True not in m.columns or False not in m.columns:
        return pd.DataFrame()
    out = m.rename(columns={False: "without_mops", True: "with_colloid_mops"}).reset_index()
    out["gain"] = out["with_colloid_mops"] / out["without_mops"]
    return out


def _figure_curves(curves: pd.DataFrame, out: Path, hosts: list[str]) -> list[Path]:
    title = "Tier bandwidth-latency curves per host (reads)"
    if curves.empty:
        fig = style.no_data(title, "no host has a model tier or a measured curve")
    else:
        style.apply()
        fig, axes = style.figure(len(hosts), 1, sharey=True)
        for ax, h in zip(axes[0], hosts, strict=True):
            sub = curves[curves["host"] == h]
            for i, (tier, g) in enumerate(sub.groupby("tier", sort=False)):
                ls = "--" if (g["kind"] == "model").all() else "-"
                ax.plot(g["bandwidth_gbps"], g["latency_ns"], ls, marker="os^vD"[i % 5], ms=2, label=tier)
            ax.set_title(h)
            ax.set_xlabel("bandwidth (GB/s)")
            ax.legend(fontsize=5)
        axes[0, 0].set_ylabel("latency (ns)")
        fig = style.finish(fig, title, None, suffix="dashed: a model tier's input curve; solid: measured here")
    return _save(fig, out / "tier_curves")


def _figure_gain(gain: pd.DataFrame, out: Path) -> list[Path]:
    title = "Colloid's steady-state gain per host (GUPS)"
    if gain.empty:
        fig = style.no_data(title, "no host ran the tiering family's steady-state points")
    else:
        style.apply()
        systems = style.sort_systems(gain["system"].unique())
        fig, axes = style.figure(len(systems), 1, sharey=True)
        for ax, sysname in zip(axes[0], systems, strict=True):
            for i, (h, g) in enumerate(gain[gain["system"] == sysname].groupby("host")):
                g = g.sort_values("intensity")
                ax.plot(g["intensity"], g["gain"], marker="os^vD"[i % 5], label=h)
            ax.axhline(1.0, color="grey", lw=0.5)
            ax.set_title(style.system_label(sysname))
            ax.set_xlabel("antagonist intensity")
            ax.legend(fontsize=5)
        axes[0, 0].set_ylabel("throughput with / without Colloid")
        fig = style.finish(fig, title, gain)
    return _save(fig, out / "colloid_gain")


def _save(fig, stem: Path) -> list[Path]:
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    for p in paths:
        fig.savefig(p, dpi=style.DPI, bbox_inches="tight")
    return paths


def report(hosts: dict[str, Path], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    tiers, curves, frames = [], [], []
    for name, d in hosts.items():
        facts = json.loads((d / "host_facts.json").read_text())
        prof = facts.get("profile") or {}
        tiers += _tier_table(name, prof, facts)
        curves += _curve_rows(name, d, prof)
        frames.append(frame.load(d / "measurements.csv"))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    names = list(hosts)
    parts = [f"# Fleet comparison: {', '.join(names)}\n",
             "Each host's own results are under `results/<host>/`. Rows of modelled tiers are simulated by "
             "tiersim (backend `model`), not measured.\n", "## Hosts and tiers\n", _md(pd.DataFrame(tiers))]
    lat = df[df["metric"] == "idle_latency"] if "metric" in df.columns else pd.DataFrame()
    parts.append("## Idle latency (ns), measured\n")
    if lat.empty:
        parts.append("_no host measured it (characterize did not run, or its tiers are modelled)_\n")
    else:
        parts.append(_md(lat.groupby(["host", "cpu_node", "mem_node"])["value"].mean().unstack("mem_node")
                         .reset_index()))
    bw = df[(df["metric"] == "bandwidth") & (df["family"] == "characterize")] if "metric" in df.columns else pd.DataFrame()
    parts.append("## Peak bandwidth (GB/s), measured\n")
    if bw.empty:
        parts.append("_no host measured it_\n")
    else:
        peak = bw.groupby(["host", "mem_node", "op"])["value"].max().unstack("op") / 1000
        parts.append(_md(peak.reset_index()))
    gain = _gain(df)
    parts.append("## Colloid's steady-state gain\n")
    parts.append(_md(gain) if not gain.empty else "_no host ran the tiering family's steady-state points_\n")
    cdf = pd.DataFrame(curves)
    figs = _figure_curves(cdf, out, names) + _figure_gain(gain, out)
    parts.append("## Figures\n")
    parts += [f"![{p.stem}]({p.name})\n" for p in figs if p.suffix == ".png"]
    md = out / "comparison.md"
    tmp = md.with_suffix(".tmp")
    tmp.write_text("\n".join(parts))
    tmp.replace(md)
    return md


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", action="append", required=True, help="NAME=DIR (results/NAME), once per host")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    print(report(_hosts(args.host), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
