"""Check a model tier's curve before any job starts, with the rules tiersim's loader applies.

tiersim (colloid/sim/src/curve.c) is the authority; this is the same check in Python so that a
host profile with a malformed curve stops the run at validation, with one line naming the file,
instead of failing inside every tiersim job. The forms (hosts/curves/README.md):

- a CSV file with the header ``read_ratio,bandwidth_mbps,latency_ns``;
- a Mess-style directory of ``bwlat_<readpct>.txt`` files (``bandwidth latency`` per line);
- ``param:L0=NS,a=NS,k=EXP,bsat=MBPS``.

Each read ratio's curve keeps, in latency order, only the points whose bandwidth exceeds every
earlier one's, and needs at least two of them. :func:`check_curve` returns the unloaded latency
per read ratio (the first kept point's), which :func:`unloaded_at` interpolates as tiersim does.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

MAX_RATIOS = 16
HEADER = "read_ratio,bandwidth_mbps,latency_ns"


class CurveError(ValueError):
    pass


def _lines(path: Path):
    """(line number, text) of the lines that are not blank or comments."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if s and not s.startswith("#"):
                yield n, s


def _num(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(text)
    return v


def _unloaded(src: str, ratio: float, pts: list[tuple[float, float]]) -> float:
    kept, best = [], -1.0
    for b, lat in sorted(pts, key=lambda p: (p[1], p[0])):
        if b > best:
            kept.append(lat)
            best = b
    if len(kept) < 2:
        raise CurveError(f"{src}: read ratio {ratio:g}: fewer than 2 usable points (a point counts only if its "
                         "bandwidth exceeds that of every lower-latency point)")
    return kept[0]


def _csv(path: Path) -> dict[float, float]:
    rows = _lines(path)
    first = next(rows, None)
    if first is None or not first[1].startswith(HEADER):
        raise CurveError(f"{path}: header must be {HEADER}")
    by_ratio: dict[float, list[tuple[float, float]]] = {}
    for n, text in rows:
        try:
            rr, b, lat = (_num(x) for x in text.split(","))
        except ValueError:
            raise CurveError(f"{path}: line {n}: malformed row {text!r} (three numbers expected)") from None
        if not (0 <= rr <= 1) or b < 0 or lat <= 0:
            raise CurveError(f"{path}: line {n}: read_ratio must be 0..1, bandwidth >= 0 and latency > 0, got {text!r}")
        # one read ratio: within 1e-9 of one already seen (as curve.c groups them)
        rr = next((r for r in by_ratio if abs(r - rr) <= 1e-9), rr)
        by_ratio.setdefault(rr, []).append((b, lat))
    if not by_ratio:
        raise CurveError(f"{path}: no data rows")
    if len(by_ratio) > MAX_RATIOS:
        raise CurveError(f"{path}: more than {MAX_RATIOS} read ratios")
    return {rr: _unloaded(str(path), rr, pts) for rr, pts in by_ratio.items()}


def _mess(path: Path) -> dict[float, float]:
    files = sorted(p for p in path.iterdir() if re.fullmatch(r"bwlat_[0-9]+\.txt", p.name))
    if not files:
        raise CurveError(f"{path}: no bwlat_<readpct>.txt files")
    if len(files) > MAX_RATIOS:
        raise CurveError(f"{path}: more than {MAX_RATIOS} bwlat_*.txt files")
    out: dict[float, float] = {}
    for f in files:
        pct = int(f.name[6:-4])
        if pct > 100:
            raise CurveError(f"{f}: read percentage above 100")
        if pct / 100 in out:
            raise CurveError(f"{f}: read ratio {pct / 100:g} given twice")
        pts = []
        for n, text in _lines(f):
            try:
                b, lat = (_num(x) for x in text.split())
            except ValueError:
                raise CurveError(f"{f}: line {n}: malformed line {text!r} (bandwidth latency expected)") from None
            if b < 0 or lat <= 0:
                raise CurveError(f"{f}: line {n}: bandwidth must be >= 0 and latency > 0, got {text!r}")
            pts.append((b, lat))
        out[pct / 100] = _unloaded(str(f), pct / 100, pts)
    return out


def _param(spec: str) -> dict[float, float]:
    vals: dict[str, float] = {}
    for tok in spec[len("param:"):].split(","):
        if not tok:  # an empty item (",," or a trailing comma) is skipped, as curve.c does
            continue
        name, eq, value = tok.partition("=")
        if not eq:
            raise CurveError(f"parametric curve {spec!r}: {tok!r} is not name=value")
        if name not in ("L0", "a", "k", "bsat"):
            raise CurveError(f"parametric curve {spec!r}: unknown parameter {name!r} (L0, a, k, bsat)")
        try:
            vals[name] = _num(value)
        except ValueError:
            raise CurveError(f"parametric curve {spec!r}: bad value for {name}") from None
    if not (vals.get("L0", 0) > 0 and vals.get("a", -1) >= 0 and vals.get("k", 0) > 0 and vals.get("bsat", 0) > 0):
        raise CurveError(f"parametric curve {spec!r} needs L0>0, a>=0, k>0, bsat>0 (MB/s)")
    return {1.0: vals["L0"]}


def check_curve(spec: str) -> dict[float, float]:
    """Unloaded latency (ns) per read ratio of a curve spec; CurveError naming the problem otherwise."""
    if spec.startswith("param:"):
        return _param(spec)
    p = Path(spec)
    try:
        return _mess(p) if p.is_dir() else _csv(p)
    except OSError as e:
        raise CurveError(f"curve {spec}: {e.strerror or e}") from None


def unloaded_at(curve: dict[float, float], ratio: float) -> float:
    """Linear in read ratio between the given curves, the nearest one outside them."""
    rs = sorted(curve)
    if ratio <= rs[0]:
        return curve[rs[0]]
    if ratio >= rs[-1]:
        return curve[rs[-1]]
    for lo, hi in zip(rs, rs[1:], strict=False):
        if lo <= ratio <= hi:
            f = (ratio - lo) / (hi - lo)
            return curve[lo] + f * (curve[hi] - curve[lo])
    raise AssertionError("unreachable")
