"""Load and check a tier's bandwidth-latency curve before any job starts.

tiersim (colloid/sim/src/curve.c) is the authority on what a run reads; this module reads the
same forms with the same rules, so that a host profile with a malformed curve stops the run at
validation with one line naming the file, instead of failing inside every tiersim job. On top of
tiersim's rules it judges whether a measured curve is *plausible* (:func:`implausible`), and it
imports the other tools' output into the suite's CSV form (``python -m workflows.harness.cli
curve``). The forms (hosts/curves/README.md):

- a CSV file with the header ``read_ratio,bandwidth_mbps,latency_ns`` (memchar writes it);
- a Mess-style directory of ``bwlat_<readpct>.txt`` files (``bandwidth latency`` per line, space
  or tab separated), up to one per whole read percentage (Mess writes 51: 0, 2, ..., 100);
- ``param:L0=NS,a=NS,k=EXP,bsat=MBPS``;
- for import only: Intel MLC ``--loaded_latency`` output (one read ratio per MLC run).

Beside a CSV curve ``X.csv``, a tail file ``X.tail.csv`` (``read_ratio,delay,bandwidth_mbps,
quantile,latency_ns``: the latency distribution at each load point, as the characterize family
writes it beside the curves it measures) is loaded and checked with it (:func:`load_tail`) and
summarised in the curve's note; tiersim reads only the curve's means.

Noise: a point with a negative bandwidth (seen around idle, e.g. ``-6.44 65.8``) is dropped and
counted. Then each read ratio's curve keeps, in latency order, only the points whose bandwidth
exceeds every earlier one's, and needs at least two of them; the first kept point's latency is the
curve's unloaded latency, the last kept point its saturation wall.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

MAX_RATIOS = 101  # every whole read percentage 0..100 (colloid/sim/src/tiersim.h CURVE_MAX_RATIOS)
HEADER = "read_ratio,bandwidth_mbps,latency_ns"
TAIL_COLUMNS = ("read_ratio", "delay", "bandwidth_mbps", "quantile", "latency_ns")
TAIL_SUFFIX = ".tail.csv"
MESS_NAME = re.compile(r"bwlat_([0-9]+)\.txt")

# Plausibility of a measured curve (docs/tier-model.md, "Checking a measured curve"):
MIN_POINTS = 3          # kept points of one read ratio
FAILED_FRACTION = 0.2   # a read ratio whose wall is below this share of the device's median wall failed
REVERSAL_SHARE = 0.1    # a point whose bandwidth falls this share of the wall below an earlier,
MAX_REVERSALS = 0.25    # faster one is a reversal; more than this share of the points below the wall is implausible
UNLOADED_SPREAD = 1.5   # most the unloaded latencies of one device's read ratios may differ (max / min)


class CurveError(ValueError):
    pass


@dataclass
class Ratio:
    """One read ratio's curve: its points (MB/s, ns) as measured, and what the loader keeps."""

    ratio: float
    source: str                                   # the file (and, for a CSV, the read ratio) it came from
    points: list[tuple[float, float]]             # usable points, noise removed
    noise: int = 0                                # points with a negative bandwidth, dropped
    kept: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        best = -1.0
        for b, lat in sorted(self.points, key=lambda p: (p[1], p[0])):
            if b > best:
                self.kept.append((b, lat))
                best = b

    @property
    def unloaded_ns(self) -> float:
        return self.kept[0][1]

    @property
    def wall_mbps(self) -> float:
        return self.kept[-1][0]

    @property
    def past_wall(self) -> int:
        """Points slower than the wall and no faster: an over-saturated curve bending back (Mess)."""
        wall_lat = self.kept[-1][1]
        return sum(1 for b, lat in self.points if lat > wall_lat or (lat == wall_lat and b < self.wall_mbps))

    @property
    def reversals(self) -> int:
        """Points below the wall whose bandwidth is well below an earlier (lower-latency) point's."""
        wall_b, wall_lat = self.kept[-1]
        best, n = -1.0, 0
        for b, lat in sorted(self.points, key=lambda p: (p[1], p[0])):
            if lat >= wall_lat:
                break
            if b < best - REVERSAL_SHARE * wall_b:
                n += 1
            best = max(best, b)
        return n


@dataclass
class Tail:
    """A tail file: per load point (read ratio, delay, bandwidth), latency (ns) per quantile."""
    path: str
    loads: dict[tuple[float, float], tuple[float, dict[float, float]]] = field(default_factory=dict)

    def summary(self) -> str:
        """p50/p99/p99.9 at the lowest and the highest bandwidth of the reads-only (else the
        highest) read ratio."""
        rr = 1.0 if any(r == 1.0 for r, _ in self.loads) else max(r for r, _ in self.loads)
        pts = sorted((bw, qs) for (r, _d), (bw, qs) in self.loads.items() if r == rr)

        def q(qs: dict[float, float]) -> str:
            return "/".join(f"{qs[x]:.4g}" if x in qs else "-" for x in (0.5, 0.99, 0.999))

        (bw0, q0), (bw1, q1) = pts[0], pts[-1]
        return (f"tail {Path(self.path).name}: {len(self.loads)} load points; p50/p99/p99.9 at read ratio {rr:g}: "
                f"{q(q0)} ns at {bw0:.4g} MB/s, {q(q1)} ns at {bw1:.4g} MB/s")


def tail_path(curve: Path) -> Path:
    """Where a CSV curve's tail file lies: ``X.csv`` -> ``X.tail.csv``."""
    return curve.with_name(curve.name.removesuffix(".csv") + TAIL_SUFFIX)


def load_tail(path: Path) -> Tail:
    """A tail file, checked: its columns, a quantile in (0, 1], a positive latency, and at each load
    point a latency that does not fall as the quantile rises; CurveError naming the file otherwise."""
    rows = list(_lines(path))
    if not rows:
        raise CurveError(f"tail {path}: empty")
    head = [c.strip() for c in rows[0][1].split(",")]
    if sorted(head) != sorted(TAIL_COLUMNS):
        raise CurveError(f"tail {path}: line {rows[0][0]}: columns {','.join(head)}, expected {','.join(TAIL_COLUMNS)}")
    t = Tail(str(path))
    for n, text in rows[1:]:
        f = text.split(",")
        try:
            v = dict(zip(head, (float(x) for x in f), strict=True))
        except ValueError:
            raise CurveError(f"tail {path}: line {n}: {len(f)} fields or a non-number, expected {len(head)} numbers") from None
        if not 0 < v["quantile"] <= 1 or not v["latency_ns"] > 0 or not math.isfinite(v["latency_ns"]):
            raise CurveError(f"tail {path}: line {n}: quantile {v['quantile']:g} outside (0, 1] or latency "
                             f"{v['latency_ns']:g} ns not positive")
        bw, qs = t.loads.setdefault((v["read_ratio"], v["delay"]), (v["bandwidth_mbps"], {}))
        qs[v["quantile"]] = v["latency_ns"]
    if not t.loads:
        raise CurveError(f"tail {path}: no quantiles")
    for (rr, d), (_bw, qs) in t.loads.items():
        lat = [qs[q] for q in sorted(qs)]
        if any(b < a for a, b in zip(lat, lat[1:], strict=False)):
            raise CurveError(f"tail {path}: read ratio {rr:g}, delay {d:g}: latency falls as the quantile rises "
                             "(not a distribution)")
    return t


@dataclass
class Curve:
    spec: str
    form: str                                    # csv, mess, param, mlc
    ratios: dict[float, Ratio] = field(default_factory=dict)
    param: dict[str, float] | None = None
    tail: Tail | None = None                     # X.tail.csv beside a CSV curve X.csv

    def unloaded(self) -> dict[float, float]:
        """Unloaded latency (ns) per read ratio, as tiersim derives it."""
        if self.param:
            return {1.0: self.param["L0"]}
        return {rr: r.unloaded_ns for rr, r in sorted(self.ratios.items())}

    @property
    def noise(self) -> int:
        return sum(r.noise for r in self.ratios.values())

    def summary(self) -> str:
        """One line: what was loaded and what was dropped."""
        if self.param:
            return f"{self.spec}: parametric, L0 {self.param['L0']:g} ns, wall {self.param['bsat']:g} MB/s"
        rs = sorted(self.ratios)
        pts = sum(len(r.points) for r in self.ratios.values())
        bend = sum(r.past_wall for r in self.ratios.values())
        kept = sum(len(r.kept) for r in self.ratios.values())
        span = f"read ratio {rs[0]:g}" if len(rs) == 1 else f"{len(rs)} read ratios {rs[0]:g}..{rs[-1]:g}"
        return (f"{self.spec}: {self.form}, {span}, {pts + self.noise} points; {self.noise} dropped as noise "
                f"(negative bandwidth), {bend} past the saturation wall, {pts - bend - kept} non-increasing below "
                f"it; {kept} kept; unloaded {unloaded_at(self.unloaded(), 1.0):.4g} ns at reads only"
                + (f"; {self.tail.summary()}" if self.tail else ""))

    def to_csv(self) -> str:
        """The kept points in the suite's CSV form (hosts/curves/README.md)."""
        lines = [HEADER]
        for rr, r in sorted(self.ratios.items()):
            lines += [f"{rr:.6g},{b:.6g},{lat:.6g}" for b, lat in r.kept]
        return "\n".join(lines) + "\n"


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


def _ratio(path: Path, rr: float, raw: list[tuple[float, float]], one_ratio_file: bool) -> Ratio:
    """One read ratio's points from ``path`` (a file holding only this ratio, or a CSV of several)."""
    src = str(path) if one_ratio_file else f"{path} (read ratio {rr:g})"
    r = Ratio(rr, src, [p for p in raw if p[0] >= 0], noise=sum(1 for p in raw if p[0] < 0))
    if len(r.kept) < 2:
        raise CurveError(f"{path}: read ratio {rr:g}: fewer than 2 usable points (a point counts only if its "
                         "bandwidth exceeds that of every lower-latency point)")
    return r


def _add(curve: Curve, r: Ratio) -> None:
    if len(curve.ratios) >= MAX_RATIOS:
        raise CurveError(f"{curve.spec}: more than {MAX_RATIOS} read ratios")
    curve.ratios[r.ratio] = r


def _two_numbers(text: str) -> bool:
    """A Mess curve file's line: bandwidth and latency, two numbers."""
    parts = text.split()
    try:
        return len(parts) == 2 and all(isinstance(_num(x), float) for x in parts)
    except ValueError:
        return False


def _csv(path: Path) -> Curve:
    rows = _lines(path)
    first = next(rows, None)
    if first is None or not first[1].startswith(HEADER):
        if MESS_NAME.fullmatch(path.name) or (first and _two_numbers(first[1])):
            raise CurveError(f"{path}: this is one Mess curve file (bandwidth latency per line); name the directory "
                             "that holds its bwlat_<readpct>.txt files instead")
        raise CurveError(f"{path}: header must be {HEADER}")
    by_ratio: dict[float, list[tuple[float, float]]] = {}
    for n, text in rows:
        try:
            rr, b, lat = (_num(x) for x in text.split(","))
        except ValueError:
            raise CurveError(f"{path}: line {n}: malformed row {text!r} (three numbers expected)") from None
        if not (0 <= rr <= 1) or lat <= 0:
            raise CurveError(f"{path}: line {n}: read_ratio must be 0..1 and latency > 0, got {text!r}")
        # one read ratio: within 1e-9 of one already seen (as curve.c groups them)
        rr = next((r for r in by_ratio if abs(r - rr) <= 1e-9), rr)
        by_ratio.setdefault(rr, []).append((b, lat))
    if not by_ratio:
        raise CurveError(f"{path}: no data rows")
    curve = Curve(str(path), "csv")
    for rr, pts in by_ratio.items():
        _add(curve, _ratio(path, rr, pts, one_ratio_file=False))
    return curve


def _mess(path: Path) -> Curve:
    files = sorted(p for p in path.iterdir() if MESS_NAME.fullmatch(p.name))
    if not files:
        raise CurveError(f"{path}: no bwlat_<readpct>.txt files")
    curve = Curve(str(path), "mess")
    for f in files:
        pct = int(MESS_NAME.fullmatch(f.name).group(1))
        if pct > 100:
            raise CurveError(f"{f}: read percentage above 100")
        if pct / 100 in curve.ratios:
            raise CurveError(f"{f}: read ratio {pct / 100:g} given twice")
        pts = []
        for n, text in _lines(f):
            try:
                b, lat = (_num(x) for x in text.split())
            except ValueError:
                raise CurveError(f"{f}: line {n}: malformed line {text!r} (bandwidth latency expected)") from None
            if lat <= 0:
                raise CurveError(f"{f}: line {n}: latency must be > 0, got {text!r}")
            pts.append((b, lat))
        _add(curve, _ratio(f, pct / 100, pts, one_ratio_file=True))
    return curve


def _param(spec: str) -> Curve:
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
    return Curve(spec, "param", param=vals)


# -- Intel MLC --loaded_latency output (import only) ------------------------------------------------

_MLC_RW = re.compile(r"(\d+)\s*:\s*(\d+)\s*read[- ]write", re.IGNORECASE)


def _is_mlc(path: Path) -> bool:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:20000]
    except OSError:
        return False
    return "Inject" in head and "MB/sec" in head


def mlc_read_ratio(text: str) -> float | None:
    """The read ratio of an MLC run's traffic: 'Read-only' -> 1, 'N:M read-write' -> N/(N+M)."""
    for line in text.splitlines():
        if "traffic" not in line.lower() and "read-write" not in line.lower():
            continue
        if re.search(r"read[- ]only", line, re.IGNORECASE):
            return 1.0
        m = _MLC_RW.search(line)
        if m:
            r, w = int(m.group(1)), int(m.group(2))
            return r / (r + w)
    return None


def _mlc(path: Path, rr: float | None = None) -> Curve:
    """One MLC run: its (latency, bandwidth) rows at the read ratio of its traffic (or ``rr``)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if rr is not None and not 0 <= rr <= 1:  # (NaN fails both)
        raise CurveError(f"{path}: read ratio {rr:g} given for it is not between 0 and 1 (reads / all accesses)")
    rr = mlc_read_ratio(text) if rr is None else rr
    if rr is None:
        raise CurveError(f"{path}: MLC output without a traffic-type line this importer knows ('Using Read-only "
                         "traffic type' or 'N:M read-write'); give the read ratio (cli curve --read-ratio R)")
    from workloads.mlc import workload as mlc  # noqa: PLC0415 - MLC's own parser; workloads import the harness

    pts = [(r["bandwidth_mbps"], r["value"]) for r in mlc.parse(text, "loaded_latency")]
    curve = Curve(str(path), "mlc")
    _add(curve, _ratio(path, rr, pts, one_ratio_file=True))
    return curve


def load(spec: str, mlc_read_ratio: float | None = None) -> Curve:
    """Load a curve spec (any form above); CurveError naming the file and the problem otherwise.
    ``mlc_read_ratio`` gives the read ratio of MLC output whose traffic-type line is not known."""
    if spec.startswith("param:"):
        return _param(spec)
    p = Path(spec)
    try:
        if p.is_dir():
            return _mess(p)
        if _is_mlc(p):
            return _mlc(p, mlc_read_ratio)
        c = _csv(p)
        if tail_path(p).is_file() and tail_path(p) != p:
            c.tail = load_tail(tail_path(p))
        return c
    except OSError as e:
        raise CurveError(f"curve {spec}: {e.strerror or e}") from None


def merge(curves: list[Curve], spec: str) -> Curve:
    """Several measured curves (e.g. one MLC run per traffic type) as one, each read ratio once."""
    out = Curve(spec, "+".join(sorted({c.form for c in curves})))
    for c in curves:
        if c.param:
            raise CurveError(f"{c.spec}: a parametric curve cannot be merged with measured ones")
        for rr, r in c.ratios.items():
            if rr in out.ratios:
                raise CurveError(f"{c.spec}: read ratio {rr:g} given twice (also in {out.ratios[rr].source})")
            _add(out, r)
    return out


# Bounds on units, far outside any memory tier: idle latencies of DRAM, CXL and PMem are 10^2 ns,
# a page fault from an SSD swap device 10^4-10^5 ns; a socket's DRAM peaks below 1 TB/s (12
# channels of DDR5-6400: 12 x 51.2 GB/s = 614 GB/s). A value past them is in other units.
MAX_UNLOADED_NS = 1e7   # 10 ms
MAX_WALL_MBPS = 1e7     # 10 TB/s


def implausible(curve: Curve) -> str | None:
    """Why a measured curve cannot be right (naming the file), or None. Judged against the rest of
    the device: read ratios whose wall is far below the others' (failed measurements, e.g. whole
    files of 3-90 MB/s: all of them are named), unloaded latencies that disagree across read ratios
    (ns mixed with CPU cycles, or curves of different runs), too few points, or bandwidth not
    rising with latency."""
    if curve.param:
        return None
    rs = sorted(curve.ratios.items())
    for _, r in rs:  # units, before anything relative
        if r.unloaded_ns > MAX_UNLOADED_NS:
            return (f"{r.source}: an unloaded latency of {r.unloaded_ns:.4g} ns at read ratio {r.ratio:g} is more than "
                    f"{MAX_UNLOADED_NS / 1e6:g} ms: not in ns? (latencies are ns, bandwidths MB/s)")
        if r.wall_mbps > MAX_WALL_MBPS:
            return (f"{r.source}: a bandwidth of {r.wall_mbps:.4g} MB/s at read ratio {r.ratio:g} is more than "
                    f"{MAX_WALL_MBPS / 1e6:g} TB/s: not in MB/s? (latencies are ns, bandwidths MB/s)")
    median = statistics.median(r.wall_mbps for _, r in rs)
    failed = [r for _, r in rs if r.wall_mbps < FAILED_FRACTION * median] if len(rs) >= 2 else []
    if failed:
        names = ", ".join(Path(r.source).name if curve.form == "mess" else f"read ratio {r.ratio:g}" for r in failed)
        return (f"{curve.spec}: {len(failed)} failed measurement(s)? {names} reach at most "
                f"{max(r.wall_mbps for r in failed):.4g} MB/s, below {FAILED_FRACTION:.0%} of this device's median "
                f"wall ({median:.4g} MB/s over {len(rs)} read ratios); remove or rename them (e.g. to .failed) and "
                "the rest is used")
    lo, hi = min((r for _, r in rs), key=lambda r: r.unloaded_ns), max((r for _, r in rs), key=lambda r: r.unloaded_ns)
    if hi.unloaded_ns > UNLOADED_SPREAD * lo.unloaded_ns:
        return (f"{curve.spec}: unloaded latency differs {hi.unloaded_ns / lo.unloaded_ns:.2g}x across read ratios "
                f"({hi.source}: {hi.unloaded_ns:.4g} ns, {lo.source}: {lo.unloaded_ns:.4g} ns): latencies in CPU "
                "cycles mixed with ns, or curves of different runs? (idle latency hardly depends on the read ratio)")
    for rr, r in rs:
        if len(r.kept) < MIN_POINTS:
            return (f"{r.source}: only {len(r.kept)} usable points at read ratio {rr:g} (at least {MIN_POINTS} needed "
                    "for a measured curve)")
        below = sum(1 for _b, lat in r.points if lat < r.kept[-1][1])
        if below >= 4 and r.reversals > MAX_REVERSALS * below:
            return (f"{r.source}: bandwidth does not rise with latency at read ratio {rr:g} ({r.reversals} of {below} "
                    f"points below the wall fall more than {REVERSAL_SHARE:.0%} of the wall below a faster point): "
                    "not a loaded-latency curve")
    return None


def load_for_tiersim(spec: str) -> Curve:
    """:func:`load` for a curve tiersim reads: MLC output is refused with the command importing it."""
    c = load(spec)
    if c.form == "mlc":
        raise CurveError(f"{spec}: this is Intel MLC --loaded_latency output; import it once: python -m "
                         f"workflows.harness.cli curve {spec} --out CURVE.csv, and name CURVE.csv")
    return c


def check_curve(spec: str) -> dict[float, float]:
    """Unloaded latency (ns) per read ratio of a curve spec tiersim reads; CurveError naming the
    problem otherwise."""
    return load_for_tiersim(spec).unloaded()


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


def latency_at(curve: Curve, rr: float, mbps: float) -> float:
    """The latency (ns) tiersim reads off a tabulated curve at read ratio ``rr`` and ``mbps`` of
    traffic, as colloid/sim/src/curve.c's curve_latency does: each ratio's kept points linearly
    interpolated (the first latency below them, the last one above: the wall, where tiersim's
    closed loop takes over); between two measured ratios, each read at the same share of its
    wall, weighted by the distance in read ratio."""
    if curve.param:
        raise CurveError(f"{curve.spec}: parametric curve: no tabulated points to read")
    rs = sorted(curve.ratios)

    def one(r: Ratio, b: float) -> float:
        pts = r.kept
        if b <= pts[0][0]:
            return pts[0][1]
        if b >= pts[-1][0]:
            return pts[-1][1]
        for (b0, l0), (b1, l1) in zip(pts, pts[1:], strict=False):
            if b0 <= b <= b1:
                return l0 + (l1 - l0) * (b - b0) / (b1 - b0)
        raise AssertionError("unreachable")

    if len(rs) == 1 or rr <= rs[0]:
        return one(curve.ratios[rs[0]], mbps)
    if rr >= rs[-1]:
        return one(curve.ratios[rs[-1]], mbps)
    hi = next(i for i, r in enumerate(rs) if r >= rr)
    a, b = curve.ratios[rs[hi - 1]], curve.ratios[rs[hi]]
    t = (rr - a.ratio) / (b.ratio - a.ratio)
    u = mbps / ((1 - t) * a.wall_mbps + t * b.wall_mbps)
    return (1 - t) * one(a, u * a.wall_mbps) + t * one(b, u * b.wall_mbps)
