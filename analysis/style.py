"""The one figure style of tierbench.

Every figure module calls :func:`apply` (idempotent) before drawing, takes its colours,
markers and line styles from the tables here, and finishes with :func:`finish`, which adds
the title with its provenance suffix ("modelled tiers (profile NAME)" or "measured on HOST"),
for a figure showing modelled rows on a host whose model has a score the line "model error on
this host: median X % over N points" (:mod:`analysis.fidelity`), and, for a functional host, a
last title line "functional host: timings not meaningful".

Paper style: about 3.5 in per panel, 7 pt fonts, and every series distinguishable in
grayscale (each has its own marker and line style as well as a colour).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

import systems

# Figures are only ever written to files; pyplot picks its backend lazily, so this holds.
matplotlib.use("Agg")

PANEL_WIDTH_IN = 3.5
PANEL_HEIGHT_IN = 2.5
FONT_PT = 7
DPI = 200

FUNCTIONAL_NOTE = "functional host: timings not meaningful"
MODEL_LABEL = "modelled tiers"

# Each tiering system's colour, marker, line style and label come from its registry entry
# (systems/): the seaborn "colorblind" palette plus distinct markers and line styles, so systems
# stay apart when printed in grayscale.
SYSTEM_STYLE: dict[str, dict[str, str]] = {
    name: {"color": s.color, "marker": s.marker, "linestyle": s.linestyle, "label": s.label}
    for name, s in systems.all_styled().items()
}
SYSTEM_ORDER = list(systems.all_styled())
_SYSTEM_FALLBACK = {"color": "#949494", "marker": "v", "linestyle": "-."}

# Colloid on: solid line, filled marker; off: dotted line, hollow marker.
COLLOID_STYLE: dict[bool, dict[str, str]] = {
    False: {"linestyle": ":", "fillstyle": "none", "label": "without Colloid"},
    True: {"linestyle": "-", "fillstyle": "full", "label": "with Colloid"},
}

OP_STYLE: dict[str, dict[str, str]] = {
    "read": {"color": "#0173b2", "marker": "o", "linestyle": "-"},
    "write": {"color": "#d55e00", "marker": "s", "linestyle": "--"},
    "ntwrite": {"color": "#cc78bc", "marker": "v", "linestyle": "-."},
    "write_persist": {"color": "#cc78bc", "marker": "v", "linestyle": "-."},
    "mix1:1": {"color": "#029e73", "marker": "^", "linestyle": ":"},
    "mix2:1": {"color": "#ca9161", "marker": "D", "linestyle": (0, (5, 1, 1, 1))},
    "mix3:1": {"color": "#56b4e9", "marker": "P", "linestyle": (0, (1, 2))},
}
OP_ORDER = ["read", "write", "ntwrite", "write_persist", "mix1:1", "mix2:1", "mix3:1"]
_OP_FALLBACK_COLORS = ["#949494", "#fbafe4", "#ece133", "#000000"]
_OP_FALLBACK_MARKERS = ["X", "*", "h", "p"]

# Published reference marks: black, hollow, never a system's colour.
REFERENCE_STYLE: dict[str, object] = {
    "color": "black",
    "markerfacecolor": "none",
    "markeredgewidth": 0.9,
    "linestyle": "none",
    "zorder": 5,
}

_applied = False


def apply() -> None:
    """Set the seaborn theme once per process (paper context, 7 pt fonts, Agg backend)."""
    global _applied
    if _applied:
        return
    sns.set_theme(
        context="paper",
        style="whitegrid",
        font="DejaVu Sans",
        rc={
            "font.size": FONT_PT,
            "axes.titlesize": FONT_PT,
            "axes.labelsize": FONT_PT,
            "xtick.labelsize": FONT_PT - 0.5,
            "ytick.labelsize": FONT_PT - 0.5,
            "legend.fontsize": FONT_PT - 1,
            "legend.title_fontsize": FONT_PT - 1,
            "figure.titlesize": FONT_PT + 1,
            "lines.linewidth": 1.0,
            "lines.markersize": 3.5,
            "grid.linewidth": 0.4,
            "axes.linewidth": 0.6,
            "savefig.dpi": DPI,
            "savefig.bbox": "tight",
            "pdf.fonttype": 42,
            "ps.fonttype": 42,
            "svg.hashsalt": "tierbench",
        },
    )
    _applied = True


def figure(ncols: int = 1, nrows: int = 1, *, height: float = PANEL_HEIGHT_IN, **kw) -> tuple[Figure, object]:
    """A figure of ``nrows`` x ``ncols`` paper-width panels; returns (fig, axes array)."""
    apply()
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(PANEL_WIDTH_IN * ncols, height * nrows),
        squeeze=False,
        layout="constrained",
        **kw,
    )
    return fig, axes


def system_style(system: str) -> dict[str, str]:
    """Colour, marker, line style and display label of a tiering system."""
    key = str(system).lower().replace("_", "-")
    style = SYSTEM_STYLE.get(key)
    if style is None:
        return {**_SYSTEM_FALLBACK, "label": str(system)}
    return dict(style)


def system_label(system: str) -> str:
    return system_style(system)["label"]


def sort_systems(systems: Iterable[str]) -> list[str]:
    """Systems in the fixed figure order (the registry's, then static, best static, then the rest by name)."""
    known = {s: i for i, s in enumerate(SYSTEM_ORDER)}
    return sorted({str(s) for s in systems}, key=lambda s: (known.get(s.lower(), len(known)), s))


def colloid_style(on: bool) -> dict[str, str]:
    return dict(COLLOID_STYLE[bool(on)])


def op_style(op: str) -> dict[str, object]:
    """Colour, marker and line style of an access type (read, write, mix2:1, ...)."""
    style = OP_STYLE.get(str(op))
    if style is not None:
        return dict(style)
    i = sum(ord(c) for c in str(op))
    return {
        "color": _OP_FALLBACK_COLORS[i % len(_OP_FALLBACK_COLORS)],
        "marker": _OP_FALLBACK_MARKERS[i % len(_OP_FALLBACK_MARKERS)],
        "linestyle": "-",
    }


def sort_ops(ops: Iterable[str]) -> list[str]:
    known = {s: i for i, s in enumerate(OP_ORDER)}
    return sorted({str(o) for o in ops}, key=lambda o: (known.get(o, len(known)), o))


def title_suffix(backend: str | None, host: str | None, profile: str | None = None) -> str:
    """'modelled tiers (profile NAME)' for backend model, else 'measured on HOST'."""
    if backend == "model":
        return f"{MODEL_LABEL} (profile {profile or host or 'unknown'})"
    return f"measured on {host or 'unknown host'}"


def provenance(df: pd.DataFrame, profile: str | None = None) -> str:
    """Title suffix for the rows a figure shows: one entry per (backend, host) pair present."""
    if df is None or df.empty or "backend" not in df.columns:
        return ""
    hosts = df["host"] if "host" in df.columns else pd.Series([None] * len(df), index=df.index)
    pairs = sorted(
        {(_clean(b), _clean(h)) for b, h in zip(df["backend"], hosts, strict=True)},
        key=lambda p: (p[0] != "model", p[0] or "", p[1] or ""),
    )
    return "; ".join(title_suffix(b, h, profile if b == "model" else None) for b, h in pairs)


def _clean(v: object) -> str | None:
    if v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA:
        return None
    s = str(v)
    return s if s and s.lower() != "nan" else None


def is_functional(df: pd.DataFrame | None, functional: bool | None = None) -> bool:
    """True when the caller says so, or when the frame carries a true ``functional`` column."""
    if functional is not None:
        return bool(functional)
    if df is None or df.empty or "functional" not in df.columns:
        return False
    return bool(df["functional"].astype(str).str.lower().isin(["true", "1", "yes"]).any())


def functional_suffix(functional: bool) -> str:
    """The line added under a figure title for a functional (emulated) host, else ''."""
    return f"[{FUNCTIONAL_NOTE}]" if functional else ""


def beyond_curve_note(df: pd.DataFrame | None) -> str:
    """'[N of M points past the end of the alternate tier's curve ...]' when some shown points ran a
    tier past its curve's last point (the ``beyond_curve`` column of modelled points), else ''."""
    if df is None or df.empty or "beyond_curve" not in df.columns:
        return ""
    flag = df["beyond_curve"].map(_clean)
    past = df[flag.notna()]
    if past.empty:
        return ""
    key = "point" if "point" in df.columns else None
    n, m = (past[key].nunique(), df[key].nunique()) if key else (len(past), len(df))
    tiers = sorted({t for v in flag.dropna() for t in str(v).split("+") if t})
    return (f"[{n} of {m} points ran past the end of the {' and '.join(tiers)} tier's curve: latency there is "
            "extrapolated from its saturation wall]")


def shows_model(df: pd.DataFrame | None) -> bool:
    """True when the rows a figure shows include modelled ones (``backend`` model)."""
    if df is None or df.empty or "backend" not in df.columns:
        return False
    return bool(df["backend"].map(_clean).eq("model").any())


def finish(
    fig: Figure,
    title: str,
    df: pd.DataFrame | None,
    *,
    profile: str | None = None,
    functional: bool | None = None,
    suffix: str | None = None,
    tiers: str | None = None,
    fidelity: str | None = None,
) -> Figure:
    """Add the title with its provenance suffix, the tiers it ran on (``tiers``: names and curve
    sources), the model's error on this host (``fidelity``: "model error on this host: median X %
    over N points", shown only when the figure shows modelled rows) and the functional-host mark
    if needed."""
    if suffix is None:
        suffix = provenance(df, profile) if df is not None else ""
    lines = [title, suffix, f"tiers: {tiers}" if tiers else "", fidelity if fidelity and shows_model(df) else "",
             beyond_curve_note(df), functional_suffix(is_functional(df, functional))]
    fig.suptitle("\n".join(x for x in lines if x))
    return fig


def no_data(
    title: str,
    reason: str,
    *,
    df: pd.DataFrame | None = None,
    profile: str | None = None,
    functional: bool | None = None,
    tiers: str | None = None,
    fidelity: str | None = None,
) -> Figure:
    """A one-panel figure with a centred 'no data: REASON' note (never raises)."""
    fig, axes = figure(1, 1, height=PANEL_HEIGHT_IN * 0.6)
    ax = axes[0, 0]
    ax.set_axis_off()
    ax.text(0.5, 0.5, f"no data: {reason}", ha="center", va="center", wrap=True, transform=ax.transAxes)
    return finish(fig, title, df, profile=profile, functional=functional, tiers=tiers, fidelity=fidelity)


def log2_axis(ax: Axes, values: Iterable[float], axis: str = "x") -> None:
    """Log-2 scale with plain tick labels (1, 2, 4, ... or 64, 256, ...) at powers of two covering ``values``."""
    vals = [float(v) for v in values if v is not None and not pd.isna(v) and float(v) > 0]
    a = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    if vals:
        lo, hi = math.floor(math.log2(min(vals))), math.ceil(math.log2(max(vals)))
        step = max(1, math.ceil((hi - lo + 1) / 8))
        a.set_major_locator(FixedLocator([2.0**k for k in range(lo, hi + 1, step)]))
    a.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    a.set_minor_locator(NullLocator())


def reference_label(source: str, what: str) -> str:
    """Legend label of a published reference mark, e.g. 'published: Optane PMem, seed 004'."""
    return f"published: {what}, {source}"


def spread(ax: Axes, x, lo, hi, color: str, scale: float = 1.0) -> None:
    """Shade the range over repetitions (``lo``..``hi``, min and max) behind a line, where there is
    one (a single repetition has none)."""
    x, lo, hi = (pd.Series(list(v), dtype=float) for v in (x, lo, hi))
    if len(x) and (hi - lo).abs().max() > 0:
        ax.fill_between(x, lo * scale, hi * scale, color=color, alpha=0.2, linewidth=0, zorder=1,
                        label="_range over repetitions")
