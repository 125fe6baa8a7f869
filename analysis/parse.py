"""Parse raw tool outputs into the long-form schema of measurements.csv.

Every parser returns a DataFrame with exactly :data:`COLUMNS` (missing ones
empty). The identifying columns of a point (host, backend, family, experiment,
...) come from the ``context`` the workflow passes in.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd

from .schema import COLUMNS

MEMCHAR_MODES = {"latency": "idle_latency", "bandwidth": "bandwidth", "loaded": "loaded_latency", "objsize": "object_latency"}


def finish(df: pd.DataFrame, context: dict) -> pd.DataFrame:
    """Add the point's context columns and order/complete the columns."""
    df = df.copy()
    for k, v in context.items():
        if k in COLUMNS and (k not in df.columns or df[k].isna().all()):
            df[k] = v
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = pd.NA
    return df[COLUMNS]


def parse_memchar(text: str) -> pd.DataFrame:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return pd.DataFrame(columns=COLUMNS)
    df = pd.read_csv(io.StringIO("\n".join(lines)), dtype={"cpus": str, "target": str, "huge_pages": str, "flush": str})
    bad = df[df.get("verified", 1).fillna(1).astype(float) != 1] if "verified" in df else df.iloc[0:0]
    if not bad.empty:
        raise ValueError(f"memchar reported {len(bad)} unverified result(s): {bad[['metric', 'op']].to_dict('records')}")
    df["experiment"] = df["mode"].map(MEMCHAR_MODES).fillna(df["metric"])
    df["family"] = "characterize"
    return df


# -- Intel MLC -------------------------------------------------------------

def _mlc_matrix(text: str, metric: str, unit: str) -> pd.DataFrame:
    """'Numa node' matrix blocks: header row of memory nodes, one row per CPU node."""
    rows = []
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if re.match(r"^\s*Numa node\s+\d", ln):
            mem_nodes = [int(x) for x in ln.split()[2:]]
            for row in lines[i + 1 :]:
                parts = row.split()
                if not parts or not re.fullmatch(r"\d+", parts[0]):
                    break
                for m, v in zip(mem_nodes, parts[1:], strict=False):
                    try:
                        rows.append({"cpu_node": int(parts[0]), "mem_node": m, "metric": metric, "value": float(v), "unit": unit})
                    except ValueError:
                        continue
            break
    return pd.DataFrame(rows)


def parse_mlc(text: str, mode: str) -> pd.DataFrame:
    """Intel MLC output for --latency_matrix, --bandwidth_matrix or --loaded_latency."""
    if mode == "latency_matrix":
        df = _mlc_matrix(text, "idle_latency", "ns")
        df["experiment"] = "idle_latency"
        df["op"] = "read"
    elif mode == "bandwidth_matrix":
        df = _mlc_matrix(text, "bandwidth", "MB/s")
        df["experiment"] = "bandwidth"
        df["op"] = "read"
    elif mode == "loaded_latency":
        rows = []
        for ln in text.splitlines():
            m = re.match(r"^\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", ln)
            if m:
                rows.append({"delay": int(m.group(1)), "metric": "loaded_latency", "value": float(m.group(2)),
                             "unit": "ns", "bandwidth_mbps": float(m.group(3))})
        df = pd.DataFrame(rows)
        df["experiment"] = "loaded_latency"
        df["op"] = "read"
    else:
        raise ValueError(f"unknown MLC mode {mode!r}")
    if df.empty or "metric" not in df:
        return pd.DataFrame(columns=COLUMNS)
    df["tool"] = "mlc"
    df["family"] = "characterize"
    return df


# -- fio -------------------------------------------------------------------

def parse_fio(text: str) -> pd.DataFrame:
    """fio --output-format=json: one row per job and metric (read side)."""
    start = text.find("{")  # fio may print notes before the JSON
    data = json.loads(text[start:])
    rows = []
    for job in data.get("jobs", []):
        opts = {**data.get("global options", {}), **job.get("job options", {})}
        rd = job.get("read", {})
        iodepth = int(opts.get("iodepth", 1))
        bs = opts.get("bs", "4k")
        block = _size(bs)
        lat = rd.get("clat_ns") or rd.get("lat_ns") or {}
        pct = lat.get("percentile", {})
        p99 = next((v for k, v in pct.items() if k.startswith("99.000")), None)
        base = {"iodepth": iodepth, "block_bytes": block, "op": opts.get("rw", "randread")}
        rows.append({**base, "metric": "iops", "value": float(rd.get("iops", 0.0)), "unit": "IOPS"})
        rows.append({**base, "metric": "bandwidth", "value": float(rd.get("bw_bytes", 0)) / 1e6, "unit": "MB/s"})
        if lat:
            rows.append({**base, "metric": "read_latency_mean", "value": float(lat.get("mean", 0.0)) / 1e3, "unit": "us"})
        if p99 is not None:
            rows.append({**base, "metric": "read_latency_p99", "value": float(p99) / 1e3, "unit": "us"})
    df = pd.DataFrame(rows)
    df["tool"] = "fio"
    df["family"] = "storage"
    df["experiment"] = "fio_randread"
    return df


def _size(text: str) -> int:
    m = re.fullmatch(r"(\d+)([kKmMgG]?)[iI]?[bB]?", str(text).strip())
    if not m:
        raise ValueError(f"cannot read size {text!r}")
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]


# -- tiersim ---------------------------------------------------------------

def parse_tiersim(text: str) -> pd.DataFrame:
    """tiersim long-form output: t_s,metric,value,unit (t_s empty for summary rows)."""
    df = pd.read_csv(io.StringIO(text))
    df["tool"] = "tiersim"
    df["family"] = "tiering"
    return df


def parse_raw(parser: str, raw: Path, context: dict) -> pd.DataFrame:
    text = Path(raw).read_text()
    if parser == "memchar":
        df = parse_memchar(text)
    elif parser.startswith("mlc:"):
        df = parse_mlc(text, parser.split(":", 1)[1])
    elif parser == "fio":
        df = parse_fio(text)
    elif parser == "tiersim":
        df = parse_tiersim(text)
    else:
        raise ValueError(f"unknown parser {parser!r}")
    return finish(df, context)


def collect(paths: list[Path]) -> pd.DataFrame:
    """Concatenate per-point result.csv files into one long-form frame."""
    frames = [pd.read_csv(p, dtype={"cpus": str, "target": str, "point": str, "colloid": str}) for p in paths]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    df = pd.concat(frames, ignore_index=True)
    extra = [c for c in df.columns if c not in COLUMNS]
    return df[COLUMNS + extra]


def curve_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Loaded-latency rows -> the tier-model curve format (hosts/curves/README.md):
    read_ratio,bandwidth_mbps,latency_ns, sorted by bandwidth per read ratio."""
    read_ratio = {"read": 1.0, "write": 0.0, "ntwrite": 0.0, "mix1:1": 0.5, "mix2:1": 2 / 3, "mix3:1": 0.75}
    ll = df[df["metric"] == "loaded_latency"].copy()
    ll["read_ratio"] = ll["op"].map(read_ratio).astype(float).round(4)
    out = ll.rename(columns={"value": "latency_ns"})[["read_ratio", "bandwidth_mbps", "latency_ns"]]
    return out.sort_values(["read_ratio", "bandwidth_mbps"]).reset_index(drop=True)
