"""A fleet's comparison: several hosts of one run side by side (``hosts: [a, b, ...]``).

    python -m analysis.fleet --host NAME=results/NAME ... --out results/fleet/A+B

Reads each host's ``host_facts.json`` (the facts and resolved profile the run planned with),
``measurements.csv`` and, where a family measured them, its curves (``curves/*.csv``), and
writes ``comparison.md`` plus ``tier_curves.png`` (and ``.pdf``) and the families' figures beside it:

- the hosts and their tiers (unloaded latency and saturation wall of each tier's curve);
- the model's error on each host (``fidelity.csv``: median and worst per metric over its
  validation points, :mod:`analysis.fidelity`), or why a host is not scored;
- bandwidth–latency curves: measured ones (``curves/*.csv``) and model tiers' input curves, each
  labelled which it is;
- the sections the families declare (``families/<name>/fleet.py``: e.g. the idle-latency matrix
  and peak bandwidths each host measured; Colloid's steady-state gain per host, system and
  intensity, with its figure). Each is handed every host's fidelity note ("model error on this
  host: median X % over N points", or "...: not scored: REASON") to put beside modelled rows.

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

from . import fidelity, frame, style
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


def _save(fig, stem: Path) -> list[Path]:
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    for p in paths:
        fig.savefig(p, dpi=style.DPI, bbox_inches="tight")
    return paths


def family_sections() -> list:
    """The registered families' fleet sections (``families/<name>/fleet.py``: ``sections(df, out,
    fidelity)`` returning markdown blocks and the figures it wrote under ``out``; ``fidelity`` maps
    each host to its :class:`analysis.fidelity.HostFidelity`), in registry order."""
    import families  # noqa: PLC0415 - the family registry imports harness modules

    return [m.sections for m in families.modules("fleet")]


def _declared(figs: list[Path]) -> list[Path]:
    """The families' fleet figures, checked against what they declare (``FIGURES``, the
    workflow's outputs: analysis/registry.py)."""
    from .registry import fleet_figures  # noqa: PLC0415

    got = sorted({p.stem for p in figs})
    if got != sorted(fleet_figures()):
        raise SystemExit(f"tierbench: error: the families' fleet sections wrote {got}, "
                         f"but declare {sorted(fleet_figures())} (FIGURES in families/<name>/fleet.py)")
    return figs


def save(fig, stem: Path) -> list[Path]:
    """A fleet figure as ``stem``.png and .pdf."""
    return _save(fig, stem)


def fidelity_table(fids: dict[str, fidelity.HostFidelity]) -> str:
    """One row per host: the model's error there (N, median, worst per metric, and the median spread
    of the measurements: docs/fidelity.md, "Spread") or why not scored."""
    rows = []
    for name, hf in fids.items():
        if hf.score is None:
            rows.append({"host": name, "metric": "", "N": "", "median abs. error": "", "worst abs. error": "",
                         "worst at point": "", "median spread": "", "score": hf.summary})
            continue
        rows.append({"host": name, "metric": "(all)", "N": hf.score.n, "median abs. error": fidelity.pct(hf.score.median),
                     "worst abs. error": "", "worst at point": "", "median spread": "", "score": hf.summary})
        for r in hf.score.per_metric.itertuples():
            rows.append({"host": name, "metric": r.metric, "N": r.n, "median abs. error": fidelity.pct(r.median),
                         "worst abs. error": fidelity.pct(r.worst), "worst at point": r.worst_point,
                         "median spread": fidelity.pct(r.spread), "score": ""})
    return fidelity.md_table(pd.DataFrame(rows))


def report(hosts: dict[str, Path], out: Path, not_scored: dict[str, str] | None = None) -> Path:
    """The comparison of ``hosts`` (name -> results directory) under ``out``; ``not_scored``: hosts
    whose model the run did not score, with the reason (their directory's fidelity.csv, if any,
    is older than this run)."""
    # every host's fidelity first: a malformed fidelity.csv stops the comparison before it writes
    skip = not_scored or {}
    fids = {name: fidelity.not_scored(name, skip[name]) if name in skip else fidelity.of_results(d, name)
            for name, d in hosts.items()}
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
             "tiersim (backend `model`), not measured.\n", "## Hosts and tiers\n", _md(pd.DataFrame(tiers)),
             "## Model error per host\n",
             "tiersim on each host's own model profile against that host's measured points (`fidelity.csv`, "
             "validation points only; calibration points are not scored): |predicted - measured| / measured.\n",
             fidelity_table(fids)]
    family_figs: list[Path] = []
    for sections in family_sections():
        more, figs = sections(df, out, fids)
        parts += more
        family_figs += figs
    cdf = pd.DataFrame(curves)
    figs = _figure_curves(cdf, out, names) + _declared(family_figs)
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
    ap.add_argument("--not-scored", action="append", default=[],
                    help="NAME=REASON: the run scores no model on this host (once per such host)")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    not_scored = {}
    for spec in args.not_scored:
        name, eq, why = spec.partition("=")
        if not eq or not name:
            raise SystemExit(f"tierbench: error: --not-scored {spec!r}: expected NAME=REASON")
        not_scored[name] = why
    try:
        print(report(_hosts(args.host), args.out, not_scored))
    except fidelity.FidelityError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
