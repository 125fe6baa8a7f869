"""The model's error on a host: ``results/<host>/fidelity.csv`` loaded, checked and scored.

A host's ``fidelity.csv`` (written by the workflow's rule ``fidelity``) lists every measured point
beside what tiersim predicted for it on the host's own model profile. Its columns, in this order:

- ``point``, ``experiment``, ``family``, ``workload``: the measured point;
- ``metric``, ``unit``: what is compared (``throughput_gbps`` in GB/s, ``latency_ns`` in ns, ...);
- ``measured`` (empty only for an unrepresented point where nothing was measured: a run that did
  not converge); ``predicted`` and ``rel_error`` = (predicted - measured) / measured, both empty
  when the model cannot represent the point (also where the error does not exist: measured 0);
- ``role``: ``calibration`` (a model constant was fitted on it: listed, never scored),
  ``validation`` (scored) or ``unrepresented`` (the model cannot represent it);
- ``reason``: for calibration what was fitted from it, for unrepresented why; empty for validation;
- ``spread`` (optional: a file written before it existed lacks the column): how far the measured
  number's own per-interval values (per second, per trial) ranged while it was measured, as a
  fraction of it, (max - min) / 2 (workflows/harness/fidelity.py, ``spread``); empty where the
  program reported one value or no series the family reads.

The score, over validation rows only: per metric N, median and worst |rel_error| (with the point
it belongs to), the median spread and how many errors are within their own point's spread;
overall N and median |rel_error|. A host without a score is "not scored" with the
reason: no ``fidelity.csv``, or one without rows, beside a ``fidelity.skipped`` file (its line says
why), a functional host (the QEMU guest: no timing from it is ever scored), or no validation rows.

    python -m analysis.fidelity --host NAME (--csv results/NAME/fidelity.csv | --not-scored REASON)
        --md results/NAME/tables/fidelity.md --figure results/NAME/figures/fidelity

The core of the fidelity report: it names no family and no system; the table, the figure, the
scorecard's header, the characterization summary, the fleet comparison and the note on every
modelled figure all come from here.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from . import style

COLUMNS = ["point", "experiment", "family", "workload", "metric", "unit", "measured", "predicted", "rel_error",
           "role", "reason", "spread"]  # fmt: skip
OPTIONAL = ("spread",)  # a column a file may lack (written before it existed): read as empty
ROLES = ("calibration", "validation", "unrepresented")
TEXT = ("point", "experiment", "family", "workload", "metric", "unit", "role", "reason")
NUMBERS = ("measured", "predicted", "rel_error", "spread")
# rel_error must agree with (predicted - measured) / measured to this (absolute + relative) slack:
# enough for a writer that rounds its numbers, not for a sign or a swapped ratio
REL_ERROR_SLACK = (1e-3, 1e-2)
BAND = 0.10  # the figure's band around y = x: +-10 %
FIGURE_NAME = "fidelity"
NOTE_PREFIX = "model error on this host"


class FidelityError(ValueError):
    """A fidelity.csv that does not follow its columns (the message names the file and the problem)."""


# -- loading --------------------------------------------------------------------------------------

def _float(v: str) -> float | None:
    try:
        return float(v)
    except ValueError:
        return None


def validate(raw: pd.DataFrame, name: str) -> pd.DataFrame:
    """A checked, typed copy of a fidelity frame read as text (every cell a string); raises
    :class:`FidelityError` naming ``name`` and the first problem (and how many more there are)."""
    cols = list(raw.columns)
    if cols == [c for c in COLUMNS if c not in OPTIONAL]:
        raw = raw.assign(**{c: "" for c in OPTIONAL})
        cols = list(raw.columns)
    if cols != COLUMNS:
        missing = [c for c in COLUMNS if c not in cols and c not in OPTIONAL]
        extra = [c for c in cols if c not in COLUMNS]
        if missing:
            why = f"missing column(s) {', '.join(missing)}"
        elif extra:
            why = f"unexpected column(s) {', '.join(extra)}"
        else:
            why = "columns out of order"
        raise FidelityError(f"{name}: {why} (expected the header {','.join(COLUMNS)})")
    df = raw.fillna("").astype(str).apply(lambda c: c.str.strip())
    problems: list[str] = []
    out_rows = []
    for i, r in enumerate(df.to_dict("records")):
        where = f"line {i + 2}"  # the header is line 1
        row: dict[str, object] = {c: r[c] for c in TEXT}
        role = r["role"]
        for c in ("point", "experiment", "metric"):
            if not r[c]:
                problems.append(f"{where}: {c} is empty")
        if role not in ROLES:
            problems.append(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
        nums = {c: (_float(r[c]) if r[c] else None) for c in NUMBERS}
        for c in NUMBERS:
            if r[c] and nums[c] is None:
                problems.append(f"{where}: {c} {r[c]!r} is not a number")
        m, p, e = nums["measured"], nums["predicted"], nums["rel_error"]
        if not r["measured"]:
            if role != "unrepresented":  # (an unrepresented point may have nothing measured: a run that did not converge)
                problems.append(f"{where}: measured is empty")
        elif m is not None and not math.isfinite(m):
            problems.append(f"{where}: measured {r['measured']!r} is not a finite number")
        if nums["spread"] is not None and not (math.isfinite(nums["spread"]) and nums["spread"] >= 0):
            problems.append(f"{where}: spread {r['spread']!r} is not a finite number >= 0")
        if role in ("calibration", "validation"):
            for c in ("predicted", "rel_error"):
                if not r[c]:
                    problems.append(f"{where}: role {role} needs {c}, which is empty")
                elif nums[c] is not None and not math.isfinite(nums[c]):
                    problems.append(f"{where}: {c} {r[c]!r} is not a finite number"
                                    + (" (measured 0 has no relative error)" if c == "rel_error" and m == 0 else ""))
            if role == "calibration" and not r["reason"]:
                problems.append(f"{where}: a calibration row must say in reason what was fitted from it")
            if (m and p is not None and e is not None and math.isfinite(m) and math.isfinite(p) and math.isfinite(e)):
                want = (p - m) / m
                if abs(e - want) > REL_ERROR_SLACK[0] + REL_ERROR_SLACK[1] * abs(want):
                    problems.append(f"{where}: rel_error {e:g} is not (predicted - measured) / measured = {want:g}")
        elif role == "unrepresented":
            if any(r[c] and not (nums[c] is not None and math.isnan(nums[c])) for c in ("predicted", "rel_error")):
                problems.append(f"{where}: an unrepresented row must leave predicted and rel_error empty")
            if not r["reason"]:
                problems.append(f"{where}: an unrepresented row must say in reason why the model cannot represent it")
        row.update({c: (nums[c] if nums[c] is not None else math.nan) for c in NUMBERS})
        out_rows.append(row)
    if problems:
        more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else ""
        raise FidelityError(f"{name}: {problems[0]}{more}")
    out = pd.DataFrame(out_rows, columns=COLUMNS)
    for c in NUMBERS:
        out[c] = out[c].astype(float)
    return out


def load(path: str | Path) -> pd.DataFrame:
    """A host's fidelity.csv, checked (:func:`validate`) and typed; raises :class:`FidelityError`."""
    p = Path(path)
    try:
        raw = pd.read_csv(p, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise FidelityError(f"{p}: no such file") from None
    except OSError as e:
        raise FidelityError(f"{p}: cannot read: {e.strerror}") from None
    except pd.errors.EmptyDataError:
        raise FidelityError(f"{p}: empty file (expected the header {','.join(COLUMNS)})") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise FidelityError(f"{p}: not a CSV file of the fidelity columns ({str(e).strip()})") from None
    return validate(raw, str(p))


# -- the score --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Score:
    """The score of one host: validation rows only; calibration and unrepresented rows listed."""

    n: int  # validation points
    median: float  # median |rel_error| over them
    per_metric: pd.DataFrame  # metric, unit, n, median, worst, worst_point, worst_experiment, spread, with_spread, within
    per_experiment: pd.DataFrame  # experiment, metric, n, median, worst
    validation: pd.DataFrame
    calibration: pd.DataFrame
    unrepresented: pd.DataFrame


def _units(s: pd.Series) -> str:
    return ", ".join(sorted({u for u in s if u}))


def score(df: pd.DataFrame) -> Score:
    """Score a checked fidelity frame (:func:`load`): per metric and overall, over validation rows."""
    val = df[df["role"] == "validation"].copy()
    val["abs_error"] = val["rel_error"].abs()
    rows = []
    for metric, g in val.groupby("metric", sort=True):
        w = g.loc[g["abs_error"].idxmax()]
        sp = g[g["spread"].notna()]
        rows.append({"metric": metric, "unit": _units(g["unit"]), "n": len(g), "median": float(g["abs_error"].median()),
                     "worst": float(w["abs_error"]), "worst_point": w["point"], "worst_experiment": w["experiment"],
                     "spread": float(sp["spread"].median()) if len(sp) else math.nan, "with_spread": len(sp),
                     "within": int((sp["abs_error"] <= sp["spread"]).sum())})
    per_metric = pd.DataFrame(rows, columns=["metric", "unit", "n", "median", "worst", "worst_point",
                                             "worst_experiment", "spread", "with_spread", "within"])
    per_exp = (val.groupby(["experiment", "metric"], sort=True)["abs_error"]
               .agg(n="count", median="median", worst="max").reset_index()) if not val.empty else \
        pd.DataFrame(columns=["experiment", "metric", "n", "median", "worst"])
    return Score(n=len(val), median=float(val["abs_error"].median()) if len(val) else math.nan,
                 per_metric=per_metric, per_experiment=per_exp,
                 validation=val.sort_values("abs_error", ascending=False, kind="stable"),
                 calibration=df[df["role"] == "calibration"], unrepresented=df[df["role"] == "unrepresented"])


def pct(x: float) -> str:
    """A relative error as a percentage: '4.2 %', '120 %'."""
    if pd.isna(x):
        return ""
    v = abs(x) * 100
    return f"{v:.0f} %" if v >= 100 else f"{v:.1f} %"


@dataclass(frozen=True)
class HostFidelity:
    """A host's fidelity: its score, or why it has none."""

    host: str
    score: Score | None = None
    reason: str = ""  # why not scored (score is None)
    source: str = ""  # the fidelity.csv it came from
    frame: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COLUMNS))

    @property
    def scored(self) -> bool:
        return self.score is not None

    @property
    def summary(self) -> str:
        """'median 4.2 % over 24 points' or 'not scored: REASON'."""
        if self.score is None:
            return f"not scored: {self.reason}"
        return f"median {pct(self.score.median)} over {self.score.n} point{'s' if self.score.n != 1 else ''}"

    @property
    def note(self) -> str:
        """'model error on this host: median 4.2 % over 24 points' (or ': not scored: REASON')."""
        return f"{NOTE_PREFIX}: {self.summary}"

    @property
    def figure_note(self) -> str | None:
        """The line a modelled figure made on this host carries: only when the host has a score."""
        return self.note if self.scored else None


def not_scored(host: str, reason: str) -> HostFidelity:
    return HostFidelity(host, None, reason or "no reason given")


def of_frame(host: str, df: pd.DataFrame, source: str = "") -> HostFidelity:
    """A host's fidelity from its checked frame: scored when it has validation rows."""
    if not (df["role"] == "validation").any():
        counts = ", ".join(f"{(df['role'] == r).sum()} {r}" for r in ("calibration", "unrepresented"))
        return HostFidelity(host, None, f"no validation points in {source or 'fidelity.csv'} ({counts})", source, df)
    return HostFidelity(host, score(df), "", source, df)


def skipped_reason(skipped: Path) -> str:
    """The line of a ``fidelity.skipped`` (why the host was not scored)."""
    line = next((ln.strip() for ln in skipped.read_text().splitlines() if ln.strip()), "")
    return line or f"{skipped} gives no reason"


def of_csv(path: str | Path, host: str) -> HostFidelity:
    """A host's fidelity from its fidelity.csv (raises :class:`FidelityError` when malformed). A
    csv without rows beside a ``fidelity.skipped`` is the file the workflow's rule expected from a
    host the model then did not score (workflows/harness/fidelity.py, ``--expect csv``): the host
    is "not scored" with the skipped file's reason."""
    df = load(path)
    skipped = Path(path).with_name("fidelity.skipped")
    if df.empty and skipped.exists():
        return HostFidelity(host, None, skipped_reason(skipped), str(path), df)
    return of_frame(host, df, str(path))


def of_results(d: str | Path, host: str | None = None) -> HostFidelity:
    """A host's fidelity from its results directory, e.g. one copied from another machine
    (``host_facts.json``, ``fidelity.csv``, ``fidelity.skipped``). A functional host is never
    scored; one without fidelity.csv, or with one without rows, says why (fidelity.skipped's line,
    or what its facts say)."""
    d = Path(d)
    prof: dict = {}
    try:
        prof = json.loads((d / "host_facts.json").read_text()).get("profile") or {}
    except (OSError, ValueError):
        pass
    host = host or str(prof.get("name") or d.name)
    if prof.get("functional"):
        return not_scored(host, style.FUNCTIONAL_NOTE)
    if (d / "fidelity.csv").exists():
        return of_csv(d / "fidelity.csv", host)
    skipped = d / "fidelity.skipped"
    if skipped.exists():
        return not_scored(host, skipped_reason(skipped))
    if prof.get("backend") == "model":
        return not_scored(host, "every point on this host is modelled: nothing measured to compare the model with")
    return not_scored(host, f"no fidelity.csv in {d}")


# -- markdown -------------------------------------------------------------------------------------------

def md_table(df: pd.DataFrame) -> str:
    """A markdown table; a ``|`` in a cell (a reason, a point id) is escaped."""
    from .tables import md  # noqa: PLC0415 - analysis.tables imports the family registry

    return md(df.apply(lambda c: c.map(lambda v: v.replace("|", "\\|") if isinstance(v, str) else v)))


def _num(v: float) -> str:
    if pd.isna(v):
        return ""
    return f"{v:.4g}"


def header_md(hf: HostFidelity, where: str = "tables/fidelity.md") -> str:
    """The score in a paragraph (the scorecard's header, the characterization summary)."""
    if hf.score is None:
        return (f"**Model error on this host: not scored** ({hf.reason}). The model's predictions are "
                "compared with this host's own measurements only where it has some.\n")
    s = hf.score
    per = "; ".join(f"{r.metric} {pct(r.median)} (N = {r.n}, worst {pct(r.worst)} at {r.worst_point})"
                    for r in s.per_metric.itertuples())
    with_spread = int(s.per_metric["with_spread"].sum())
    within = (f" {int(s.per_metric['within'].sum())} of the {with_spread} validation points whose measurement reported "
              "per-interval values were predicted within the spread of those values (the most the measurement moved "
              "while it was made).") if with_spread else ""
    return (f"**Model error on this host: median {pct(s.median)} over {s.n} validation points** (tiersim on the "
            f"host's own model profile against its measured points; |predicted - measured| / measured). "
            f"Per metric: {per}.{within} {len(s.calibration)} calibration points (fitted, not scored) and "
            f"{len(s.unrepresented)} points the model cannot represent are listed in `{where}`.\n")


def table_md(hf: HostFidelity) -> str:
    """``tables/fidelity.md``: the score per metric and per experiment, the calibration points and
    what was fitted from them, the unrepresented points with their reasons, every validation point."""
    out = [f"# Model fidelity: {hf.host}\n",
           "Each measured point the model can represent is predicted by tiersim on this host's own model "
           "profile (`model-profile.yaml`) with the point's own parameters; "
           "error = (predicted - measured) / measured. The score counts validation points only: calibration "
           "points (where a model constant was fitted) are listed but never scored.\n"]
    if hf.score is None:
        out.append(f"**Not scored:** {hf.reason}.\n")
        if hf.frame.empty:
            return "\n".join(out)
    s = hf.score
    if s is not None:
        out.append(f"**{hf.note[0].upper()}{hf.note[1:]}** (source: `{Path(hf.source).name or 'fidelity.csv'}`).\n")
        out.append("## Score per metric (validation points)\n")
        pm = s.per_metric.assign(median=s.per_metric["median"].map(pct), worst=s.per_metric["worst"].map(pct),
                                 spread=s.per_metric["spread"].map(pct),
                                 within=[f"{r.within} of {r.with_spread}" if r.with_spread else ""
                                         for r in s.per_metric.itertuples()]).drop(columns=["with_spread"])
        out.append(md_table(pm.rename(columns={"n": "N", "median": "median abs. error", "worst": "worst abs. error",
                                          "worst_point": "worst at point", "worst_experiment": "its experiment",
                                          "spread": "median spread", "within": "error within spread"})))
        out.append("Spread: how far the measured number's own per-interval values (per second, per trial) ranged "
                   "while it was measured, (max - min) / 2 as a fraction of it; for a ratio of two runs, the sum of "
                   "both. An error within it is no larger than the measurement's own movement.\n")
        out.append("## Score per experiment and metric\n")
        pe = s.per_experiment.assign(median=s.per_experiment["median"].map(pct),
                                     worst=s.per_experiment["worst"].map(pct))
        out.append(md_table(pe.rename(columns={"n": "N", "median": "median abs. error", "worst": "worst abs. error"})))
    df = hf.frame
    cal = df[df["role"] == "calibration"]
    unrep = df[df["role"] == "unrepresented"]
    out.append("## Calibration points (fitted, not scored)\n")
    if cal.empty:
        out.append("None: nothing was fitted on this host's measurements.\n")
    else:
        out.append(md_table(pd.DataFrame({"point": cal["point"], "experiment": cal["experiment"],
                                     "workload": cal["workload"], "metric": cal["metric"], "unit": cal["unit"],
                                     "measured": cal["measured"].map(_num), "predicted": cal["predicted"].map(_num),
                                     "error": cal["rel_error"].map(lambda e: f"{e * 100:+.1f} %"),
                                     "what was fitted": cal["reason"]})))
    out.append("## Points the model cannot represent\n")
    if unrep.empty:
        out.append("None: the model predicted every measured point listed.\n")
    else:
        out.append(md_table(pd.DataFrame({"point": unrep["point"], "experiment": unrep["experiment"],
                                     "workload": unrep["workload"], "metric": unrep["metric"],
                                     "measured": unrep["measured"].map(_num), "why": unrep["reason"]})))
    if s is not None:
        v = s.validation
        out.append("## Validation points (largest error first)\n")
        out.append(md_table(pd.DataFrame({"point": v["point"], "experiment": v["experiment"], "workload": v["workload"],
                                     "metric": v["metric"], "unit": v["unit"], "measured": v["measured"].map(_num),
                                     "predicted": v["predicted"].map(_num),
                                     "error": v["rel_error"].map(lambda e: f"{e * 100:+.1f} %"),
                                     "spread": v["spread"].map(lambda x: "" if pd.isna(x) else f"\u00b1{pct(x)}")})))
    return "\n".join(out)


# -- the figure -----------------------------------------------------------------------------------------

TITLE = "Model vs measurement"
CAPTION = ("Predicted against measured for every point of this host the model can represent, one panel per "
           "metric, coloured by experiment, a horizontal bar the measurement's own spread (the range of its "
           "per-interval values); the dashed line is y = x and the band +-10 %. Calibration points "
           "(hollow black) were used to fit the model and are not scored; the points the model cannot "
           "represent are listed in tables/fidelity.md with their reasons.")
_MARKERS = "osD^vP*Xh<>"
SPREAD_LABEL = "spread of the measurement (its per-interval values)"


def _experiment_styles(experiments: list[str]) -> dict[str, dict]:
    import seaborn as sns  # noqa: PLC0415 - style already imports it; kept local to the figure

    pal = sns.color_palette("colorblind", max(len(experiments), 1))
    return {e: {"color": pal[i % len(pal)], "marker": _MARKERS[i % len(_MARKERS)]} for i, e in enumerate(experiments)}


def plot(hf: HostFidelity) -> Figure:
    """Predicted vs measured per metric (y = x, +-10 % band, coloured by experiment)."""
    title = f"{TITLE} on {hf.host}"
    df = hf.frame
    shown = df[df["role"].isin(["validation", "calibration"])]
    if shown.empty:
        return style.no_data(title, hf.summary if hf.score is None else "no predicted points")
    style.apply()
    metrics = sorted(shown["metric"].unique())
    ncols = min(3, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    fig, axes = style.figure(ncols, nrows)
    exps = _experiment_styles(sorted(df.loc[df["role"] == "validation", "experiment"].unique()))
    handles: dict[str, object] = {}
    for k, metric in enumerate(metrics):
        ax = axes[k // ncols, k % ncols]
        g = shown[shown["metric"] == metric]
        vals = pd.concat([g["measured"], g["predicted"]])  # (the range from the points; a spread's bar may leave it)
        lo, hi = float(vals.min()), float(vals.max())
        log = lo > 0 and hi / lo > 20
        if lo > 0:  # at least +-15 % around the points, so that the +-10 % band reads as a band
            mid = math.sqrt(lo * hi)
            lo, hi = min(lo / 1.05, mid / (1 + 1.5 * BAND)), max(hi * 1.05, mid * (1 + 1.5 * BAND))
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            xs = pd.Series([lo * (hi / lo) ** (i / 50) for i in range(51)])
        else:
            pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1.0
            xs = pd.Series([lo - pad + (hi - lo + 2 * pad) * i / 50 for i in range(51)])
        band = ax.fill_between(xs, xs * (1 - BAND), xs * (1 + BAND), color="grey", alpha=0.2, linewidth=0)
        (ident,) = ax.plot(xs, xs, "--", color="black", linewidth=0.6)
        handles.setdefault(f"\u00b1{BAND:.0%} of measured", band)
        handles.setdefault("y = x", ident)
        for exp, e in g[g["role"] == "validation"].groupby("experiment", sort=True):
            st = exps[exp]
            h = ax.scatter(e["measured"], e["predicted"], s=10, color=st["color"], marker=st["marker"], zorder=3,
                           linewidths=0.3)
            eb = e[e["spread"].notna()]
            if len(eb):  # the measurement's own spread: a horizontal bar (its low end kept above 0 for a log axis)
                m = eb["measured"].abs()
                lo_err = (m * eb["spread"]).clip(upper=m * 0.999) if log else m * eb["spread"]
                bars = ax.errorbar(eb["measured"], eb["predicted"], xerr=[lo_err, m * eb["spread"]], fmt="none",
                                   ecolor=st["color"], elinewidth=0.6, alpha=0.7, zorder=2)
                handles.setdefault(SPREAD_LABEL, bars)
            handles.setdefault(exp, h)
        c = g[g["role"] == "calibration"]
        if not c.empty:
            h = ax.scatter(c["measured"], c["predicted"], s=16, facecolors="none", edgecolors="black", marker="o",
                           zorder=4, linewidths=0.7)
            handles.setdefault("calibration (fitted, not scored)", h)  # (the legend's last entry)
        ax.set_xlim(float(xs.iloc[0]), float(xs.iloc[-1]))  # the same range on both axes: y = x at 45 degrees
        ax.set_ylim(float(xs.iloc[0]), float(xs.iloc[-1]))
        unit = _units(g["unit"])
        ax.set_xlabel(f"measured ({unit})" if unit else "measured")
        ax.set_ylabel(f"predicted ({unit})" if unit else "predicted")
        pm = hf.score.per_metric if hf.score is not None else pd.DataFrame(columns=["metric"])
        row = pm[pm["metric"] == metric]
        sub = f"median {pct(row['median'].iloc[0])} over {int(row['n'].iloc[0])}" if not row.empty else "not scored"
        ax.set_title(f"{metric}: {sub}")
    for k in range(len(metrics), nrows * ncols):
        axes[k // ncols, k % ncols].set_axis_off()
    cal = "calibration (fitted, not scored)"
    order = [k for k in handles if k not in exps and k != cal] + [e for e in exps if e in handles] + \
        ([cal] if cal in handles else [])
    fig.legend([handles[k] for k in order], order, loc="outside lower center", ncol=min(4, len(order)),
               fontsize=style.FONT_PT - 1, frameon=False)
    unrep = int((df["role"] == "unrepresented").sum())
    suffix = hf.note + (f"; {unrep} point{'s' if unrep != 1 else ''} the model cannot represent "
                        "(tables/fidelity.md)" if unrep else "")
    return style.finish(fig, title, None, suffix=suffix)


def save(fig: Figure, stem: Path) -> list[Path]:
    """The figure as ``stem``.png and .pdf, without timestamps (identical data, identical bytes)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415

    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    try:
        for ext in ("png", "pdf"):
            p = stem.with_name(f"{stem.name}.{ext}")
            tmp = p.with_name(p.name + ".tmp")
            fig.savefig(tmp, dpi=style.DPI, format=ext, metadata={"CreationDate": None} if ext == "pdf"
                        else {"Software": None})
            paths.append((tmp, p))
    finally:
        plt.close(fig)
    for tmp, p in paths:
        tmp.replace(p)
    return [p for _, p in paths]


# -- command line ---------------------------------------------------------------------------------------

def add_arguments(ap: argparse.ArgumentParser) -> None:
    """``--fidelity CSV`` / ``--not-scored REASON``: the options every report command takes."""
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--fidelity", type=Path, default=None, help="the host's fidelity.csv (the model's error there)")
    g.add_argument("--not-scored", default=None, help="why the host has no model score (no fidelity.csv)")


def from_arguments(args: argparse.Namespace, host: str) -> HostFidelity | None:
    """The host's fidelity from :func:`add_arguments`' options (None when neither is given);
    raises :class:`FidelityError` for a malformed fidelity.csv."""
    if args.fidelity is not None:
        return of_csv(args.fidelity, host)
    if args.not_scored is not None:
        return not_scored(host, args.not_scored)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", required=True)
    add_arguments(ap)
    ap.add_argument("--md", required=True, type=Path, help="tables/fidelity.md")
    ap.add_argument("--figure", required=True, type=Path, help="output stem of the figure (without extension)")
    args = ap.parse_args(argv)
    try:
        hf = from_arguments(args, args.host) or not_scored(args.host, "no fidelity.csv given")
    except FidelityError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1
    text = table_md(hf)
    paths = save(plot(hf), args.figure)
    args.md.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.md.with_name(args.md.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(args.md)
    print(f"{hf.host}: {hf.note} -> {args.md}, {', '.join(map(str, paths))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
