"""Markdown tables for the report: a characterization summary and the counter sources.

``summary.md`` lists, per tier pair, the idle latency, the peak bandwidth per
operation and the storage results; ``counters.md`` lists every counter source with
what it recorded or why it is absent (taken from the points' meta.json files), and
every measurement that was left out with its reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from . import frame


def _cell(v: object) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    return str(v)


def _md(df: pd.DataFrame) -> str:
    if df.empty:
        return "_no data_\n"
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def summary(df: pd.DataFrame) -> str:
    host = df["host"].iloc[0] if not df.empty else "?"
    out = [f"# Characterization summary: {host}\n", "All values measured on this host (no model).\n"]
    ch = df[df["family"] == "characterize"]
    if not ch.empty:
        ch = ch.assign(pair=ch["cpu_node"].astype("Int64").astype(str) + " -> " + ch["target"].astype(str))
        idle = ch[ch["metric"] == "idle_latency"].groupby(["tool", "pair"], as_index=False)["value"].median()
        out += ["\n## Idle latency (ns)\n", _md(idle.rename(columns={"value": "latency_ns"}))]
        bw = ch[ch["metric"] == "bandwidth"]
        if not bw.empty:
            peak = bw.loc[bw.groupby(["tool", "pair", "op"])["value"].idxmax(), ["tool", "pair", "op", "threads", "value"]]
            out += ["\n## Peak bandwidth (MB/s) and the thread count reaching it\n", _md(peak.rename(columns={"value": "bandwidth_mbps"}))]
        ll = ch[ch["metric"] == "loaded_latency"]
        if not ll.empty:
            agg = ll.groupby(["tool", "pair", "op"], as_index=False).agg(
                min_latency_ns=("value", "min"), max_latency_ns=("value", "max"), max_bandwidth_mbps=("bandwidth_mbps", "max"))
            out += ["\n## Loaded latency range\n", _md(agg)]
        ob = ch[ch["metric"] == "object_latency"]
        if not ob.empty:
            piv = ob.pivot_table(index=["pair", "op"], columns="size_bytes", values="value", aggfunc="median").reset_index()
            piv.columns = [f"{int(c)} B" if isinstance(c, (int, float)) else c for c in piv.columns]
            out += ["\n## Object access latency (ns) by object size\n", _md(piv)]
    st = df[df["family"] == "storage"]
    if not st.empty:
        piv = st.pivot_table(index=["block_bytes", "iodepth"], columns="metric", values="value").reset_index()
        out += [f"\n## Storage (fio random read on {st['target'].iloc[0]})\n", _md(piv)]
    out += beyond_curve(df)
    return "\n".join(out)


def beyond_curve(df: pd.DataFrame) -> list[str]:
    """The modelled points whose demand ran a tier past the end of its curve (latency extrapolated
    from the saturation wall): a section listing them, or saying there are none."""
    if "beyond_curve" not in df.columns or df[df["backend"] == "model"].empty:
        return []
    flag = df["beyond_curve"].fillna("").astype(str).replace("nan", "")
    past = df[flag != ""].assign(tiers=flag[flag != ""]).drop_duplicates(["family", "experiment", "point"])
    head = "\n## Modelled points past the end of a tier's curve\n"
    if past.empty:
        return [head, "None: every modelled point stayed within its tiers' measured curves.\n"]
    n = df[df["backend"] == "model"].drop_duplicates(["family", "experiment", "point"]).shape[0]
    return [head, f"{len(past)} of {n} modelled points drove a tier past its curve's last point; their latency there is "
                  "extrapolated from the saturation wall (Little's law), not read from the curve.\n",
            _md(past[["family", "experiment", "point", "tiers"]])]


def counters(metas: list[Path], absent: dict) -> str:
    rows: dict[str, dict] = {}
    for m in metas:
        try:
            meta = json.loads(m.read_text())
        except (OSError, ValueError):
            continue
        for src, st in (meta.get("counters") or {}).items():
            r = rows.setdefault(src, {"source": src, "points": 0, "available": st.get("available"), "ok": 0, "reason": st.get("reason", "")})
            r["points"] += 1
            r["ok"] += int(bool(st.get("available")) and st.get("ok", True) is not False)
            if not st.get("available"):
                r["reason"] = st.get("reason", "")
    out = ["# Counter sources\n", "Counters run alongside every measurement point where the host supports them.\n",
           _md(pd.DataFrame(list(rows.values()), columns=["source", "points", "available", "ok", "reason"]))]
    out += ["\n# Measurements left out\n"]
    if absent:
        out.append(_md(pd.DataFrame([{"measurement": k, "reason": v} for k, v in sorted(absent.items())])))
    else:
        out.append("None: every configured measurement ran.\n")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measurements", required=True, type=Path, nargs="+", help="every family's measurements.csv")
    ap.add_argument("--summary", required=True, type=Path)
    ap.add_argument("--counters", required=True, type=Path)
    ap.add_argument("--absent", default="{}", help="JSON object: measurement -> reason it was left out")
    ap.add_argument("metas", nargs="*", type=Path)
    args = ap.parse_args(argv)
    df = frame.load(args.measurements)
    args.summary.parent.mkdir(parents=True, exist_ok=True)
    args.summary.write_text(summary(df))
    args.counters.write_text(counters(args.metas, json.loads(args.absent)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
