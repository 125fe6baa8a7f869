"""Markdown tables for the report: a characterization summary and the counter sources.

``summary.md`` holds the sections the families declare (``families/<name>/summary.py``, e.g.
characterize's idle latency and peak bandwidth per tier pair, storage's results), the
modelled points past their curves and the model's error on this host (or why it is not scored;
:mod:`analysis.fidelity`, in full in ``fidelity.md``); ``counters.md`` lists every counter source
with what it recorded or why it is absent (from the host's counters table, ``counters.csv``:
analysis/counters.py), and every measurement that was left out with its reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from . import counters as counter_table
from . import fidelity, frame


def _cell(v: object) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    return str(v)


def md(df: pd.DataFrame) -> str:
    if df.empty:
        return "_no data_\n"
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def family_summaries() -> list:
    """The registered families' summary sections (``families/<name>/summary.py``: ``sections(df)``
    returning markdown blocks), in registry order."""
    import families  # noqa: PLC0415 - the family registry imports harness modules

    return [m.sections for m in families.modules("summary")]


def summary(df: pd.DataFrame, fid: fidelity.HostFidelity | None = None) -> str:
    host = df["host"].iloc[0] if not df.empty else "?"
    out = [f"# Characterization summary: {host}\n", "All values measured on this host (no model).\n"]
    for sections in family_summaries():
        out += sections(df)
    out += beyond_curve(df)
    if fid is not None:
        out += ["\n## Model fidelity on this host\n", fidelity.header_md(fid, "tables/fidelity.md")]
    return "\n".join(out)


def beyond_curve(df: pd.DataFrame) -> list[str]:
    """The modelled points whose demand ran a tier past the end of its curve (latency extrapolated
    from the saturation wall): a section listing them, or saying there are none."""
    if "beyond_curve" not in df.columns or df[df["backend"] == "model"].empty:
        return []
    # text, empty where not flagged (a column read as all-NaN floats must not be filled with text)
    flag = df["beyond_curve"].astype(object).where(df["beyond_curve"].notna(), "").astype(str).replace("nan", "")
    past = df[flag != ""].assign(tiers=flag[flag != ""]).drop_duplicates(["family", "experiment", "point"])
    head = "\n## Modelled points past the end of a tier's curve\n"
    if past.empty:
        return [head, "None: every modelled point stayed within its tiers' measured curves.\n"]
    n = df[df["backend"] == "model"].drop_duplicates(["family", "experiment", "point"]).shape[0]
    return [head, f"{len(past)} of {n} modelled points drove a tier past its curve's last point; their latency there is "
                  "extrapolated from the saturation wall (Little's law), not read from the curve.\n",
            md(past[["family", "experiment", "point", "tiers"]])]


def counters(table: pd.DataFrame, absent: dict) -> str:
    """Every counter source: the points it ran for, whether it was available, how many ran to the
    end, and why not (from the counters table, analysis/counters.py)."""
    rows: dict[str, dict] = {}
    for st in counter_table.sources(table).to_dict("records") if not table.empty else []:
        src = st["source"]
        if not src:  # a point with no counter source configured
            continue
        r = rows.setdefault(src, {"source": src, "points": 0, "available": st["available"], "ok": 0, "reason": st["reason"]})
        r["points"] += 1
        r["ok"] += int(bool(st["ok"]))
        if not st["available"]:
            r["reason"] = st["reason"]
    out = ["# Counter sources\n", "Counters run alongside every measurement point where the host supports them.\n",
           md(pd.DataFrame(list(rows.values()), columns=["source", "points", "available", "ok", "reason"]))]
    out += ["\n# Measurements left out\n"]
    if absent:
        out.append(md(pd.DataFrame([{"measurement": k, "reason": v} for k, v in sorted(absent.items())])))
    else:
        out.append("None: every configured measurement ran.\n")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measurements", required=True, type=Path, nargs="+", help="every family's measurements.csv")
    ap.add_argument("--summary", required=True, type=Path)
    ap.add_argument("--counters", required=True, type=Path)
    ap.add_argument("--absent", default="{}", help="JSON object: measurement -> reason it was left out")
    ap.add_argument("--counter-table", required=True, type=Path, help="results/<host>/counters.csv (analysis/counters.py)")
    fidelity.add_arguments(ap)
    args = ap.parse_args(argv)
    df = frame.load(args.measurements)
    try:
        fid = fidelity.from_arguments(args, str(df["host"].iloc[0]) if not df.empty else "?")
    except fidelity.FidelityError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    args.summary.parent.mkdir(parents=True, exist_ok=True)
    args.summary.write_text(summary(df, fid))
    args.counters.write_text(counters(counter_table.load(args.counter_table), json.loads(args.absent)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
