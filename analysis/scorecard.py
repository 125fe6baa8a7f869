"""Scorecard: every published number beside ours, by an explicit rule, with a stated tolerance.

``build(df, ref)`` returns one row per published row (``analysis/reference/published_numbers.csv``).
Our value is always computed from the measurements frame by the rule below; when a rule has no
data (or no rule exists), ``ours`` stays empty and ``note`` says why. A published number is never
copied into an ``ours`` column.

The rules are the families': each family that scores published numbers declares them in
``families/<name>/scorecard.py`` (``RULES``: source, figure (a glob), metric, rule; and
``NOT_SCORED``: source -> why its rows are listed but not scored; and ``UNPUBLISHED(df, ref)``:
rows for what its results hold but no published number covers, e.g. a system no paper evaluated,
listed as not scored with the reason). A published row with no rule keeps ``ours`` empty with the
reason.

Tolerances (``within``):

- ranges (ours is a range, the published one too): within when each end of ours is within
  +-15 % of the same end of the published range (our minimum against ``low``, our maximum
  against ``high``). Mere overlap was rejected as a rule: a model with no gain at all (1.00-1.01x)
  would "overlap" a published 1.18-1.35x once widened by 15 %;
- single value against a published range ``low < high``: within ``[low * 0.85, high * 1.15]``;
  when ``low`` is 0 (an upper bound, e.g. "within 3 % of best static") only ``ours <= high * 1.15``;
- single value against a single published value: within +-25 %;
- two values against two ("64B vs 4096B"): each within +-25 % of its counterpart;
- the gain at 0x (published 1.0, "same as baseline"): within +-5 %, since +-25 % would accept a
  1.25x gain where the paper reports none.

``ratio`` = ours / published midpoint ((low + high) / 2); for a range, ours is the midpoint of
our range (``ours_low``, ``ours_high`` give its ends).
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import reference
from .frame import typed

COLUMNS = [
    "source", "figure", "system", "condition", "metric", "published_low", "published_high", "unit",
    "ours", "ours_low", "ours_high", "ratio", "tolerance", "within", "calibrated", "backend", "hardware", "note",
]  # fmt: skip
OTHER_HARDWARE = ("reference, other hardware: the profile does not declare itself comparable to this source's "
                  "testbed (comparable_to), so ours is shown beside it without a verdict")

TOL_RANGE = 0.15
TOL_POINT = 0.25
TOL_NO_GAIN = 0.05


# -- what the families' rules (families/<name>/scorecard.py) build their side with -------------

@dataclass
class Ours:
    """Our side of one scorecard row."""

    value: float = math.nan
    low: float = math.nan
    high: float = math.nan
    kind: str = ""  # range | in_range | upper | point | pair
    tolerance: float = TOL_POINT
    backend: str = ""
    note: str = ""


def missing(note: str) -> Ours:
    return Ours(note=note)


def backends(*frames: pd.DataFrame) -> str:
    vals = sorted({b for f in frames for b in f["backend"].unique() if b})
    return ",".join(vals)


def _single_kind(low: float, high: float) -> str:
    if low == high:
        return "point"
    if low == 0:
        return "upper"
    return "in_range"


def single(value: float, row: pd.Series, used: list[pd.DataFrame], note: str = "", tol: float | None = None) -> Ours:
    kind = _single_kind(row["low"], row["high"])
    if tol is None:
        tol = TOL_POINT if kind == "point" else TOL_RANGE
    return Ours(value=float(value), kind=kind, tolerance=tol, backend=backends(*used), note=note)


def ranged(values: pd.Series, used: list[pd.DataFrame], note: str = "") -> Ours:
    lo, hi = float(values.min()), float(values.max())
    return Ours(value=(lo + hi) / 2, low=lo, high=hi, kind="range", tolerance=TOL_RANGE, backend=backends(*used),
                note=note)


def _family_rules() -> tuple[list[tuple], dict[str, str]]:
    """Every registered family's scoring rules and not-scored notes (``families/<name>/scorecard.py``)."""
    import families  # noqa: PLC0415 - the family registry imports harness modules

    rules: list[tuple] = []
    not_scored: dict[str, str] = {}
    for mod in families.modules("scorecard"):
        rules += getattr(mod, "RULES", [])
        not_scored.update(getattr(mod, "NOT_SCORED", {}))
    return rules, not_scored


def _unpublished(d: pd.DataFrame, ref: pd.DataFrame) -> list[dict]:
    """The families' rows for results no published number covers (``UNPUBLISHED``): source, figure,
    system, condition, metric and the note; listed as not scored."""
    import families  # noqa: PLC0415 - the family registry imports harness modules

    out = []
    for mod in families.modules("scorecard"):
        fn = getattr(mod, "UNPUBLISHED", None)
        if fn is not None:
            out += fn(d, ref)
    return out


def _rule_for(row: pd.Series, rules: list[tuple]) -> Callable[[pd.Series, pd.DataFrame], Ours] | None:
    for source, figure, metric, rule in rules:
        if row["source"] == source and fnmatch.fnmatchcase(row["figure"], figure) and row["metric"] == metric:
            return rule
    return None


def _within(o: Ours, low: float, high: float) -> bool | None:
    t = o.tolerance
    if o.kind in ("range", "pair"):
        return bool(abs(o.low - low) <= t * abs(low) and abs(o.high - high) <= t * abs(high))
    if o.kind == "point":
        return bool(abs(o.value - low) <= t * abs(low))
    if o.kind == "upper":
        return bool(o.value <= high * (1 + t))
    if o.kind == "in_range":
        return bool(low * (1 - t) <= o.value <= high * (1 + t))
    return None


def _tolerance_text(o: Ours) -> str:
    pct = f"{o.tolerance * 100:g}%"
    return {
        "range": f"each end \u00b1{pct}",
        "pair": f"each \u00b1{pct}",
        "point": f"\u00b1{pct}",
        "upper": f"\u2264 high + {pct}",
        "in_range": f"in range \u00b1{pct}",
    }.get(o.kind, "")


def _calibration_for(row: pd.Series, calibrated: list[dict]) -> str | None:
    """The fitted parameter when the model profile was calibrated on this published number."""
    for c in calibrated:
        if c.get("source", "colloid-sosp24") != row["source"]:
            continue
        if all(c.get(k) in (None, row[k]) for k in ("figure", "metric", "system", "condition")):
            return str(c.get("parameter", "a model parameter"))
    return None


def build(df: pd.DataFrame | None, ref: pd.DataFrame | None = None,
          calibrated: list[dict] | None = None, comparable: list[str] | None = None) -> pd.DataFrame:
    """One row per published number: published range, ours, ratio, tolerance, within, note.

    ``calibrated`` lists the published numbers the model profile was fitted to (its
    ``calibrated_on``); their rows are marked, since matching them validates nothing.
    ``comparable`` lists the sources measured on hardware the profile matches (its
    ``comparable_to``; None: every source): ours is judged only against those, and the other
    sources' rows keep ours beside the published number with no ratio and no verdict
    (``hardware`` = "other").
    """
    ref = reference.load() if ref is None else ref
    d = typed(df)
    rules, not_scored = _family_rules()
    out = []
    for _, r in ref.iterrows():
        row = r.copy()
        row["low"], row["high"] = float(r["low"]), float(r["high"])
        rule = _rule_for(row, rules)
        if rule is None:
            o = missing(not_scored.get(row["source"], "no scoring rule for this figure and metric"))
        else:
            o = rule(row, d)
        computed = not pd.isna(o.value)
        other = computed and comparable is not None and row["source"] not in comparable
        fitted = _calibration_for(row, calibrated or []) if computed and not other else None
        mid = (row["low"] + row["high"]) / 2
        judged = computed and not other
        out.append({
            "source": row["source"], "figure": row["figure"], "system": row["system"],
            "condition": row["condition"], "metric": row["metric"],
            "published_low": row["low"], "published_high": row["high"], "unit": row["unit"],
            "ours": o.value if computed else math.nan,
            "ours_low": o.low if computed else math.nan,
            "ours_high": o.high if computed else math.nan,
            "ratio": o.value / mid if judged and mid != 0 else math.nan,
            "tolerance": _tolerance_text(o) if judged else "",
            "within": _within(o, row["low"], row["high"]) if judged else None,
            "calibrated": fitted is not None,
            "backend": o.backend if computed else "",
            "hardware": "other" if other else ("same" if judged else ""),
            "note": (f"calibration target ({fitted}), not a validation; {o.note}" if fitted else
                     f"{OTHER_HARDWARE}; {o.note}".rstrip("; ") if other else o.note),
        })  # fmt: skip
    for u in _unpublished(d, ref):
        out.append({**{c: math.nan for c in COLUMNS}, "tolerance": "", "within": None, "calibrated": False,
                    "backend": "", "hardware": "", **u})
    sc = pd.DataFrame(out, columns=COLUMNS)
    sc["within"] = sc["within"].astype("boolean")
    return sc


# -- markdown ----------------------------------------------------------------------------------

def _num(v: float, unit: str = "") -> str:
    """3 significant digits; fractions as percent."""
    if pd.isna(v):
        return ""
    if unit == "fraction":
        return f"{v * 100:.3g} %"
    if unit in ("", "x"):
        return f"{v:.3g}{unit}"
    return f"{v:.3g} {unit}"


def _published(r: pd.Series) -> str:
    lo, hi, u = r["published_low"], r["published_high"], r["unit"]
    if pd.isna(lo) and pd.isna(hi):
        return "none"
    if lo == hi:
        return _num(lo, u)
    sep = " vs " if " vs " in r["condition"] else "\u2013"
    return f"{_num(lo, u)}{sep}{_num(hi, u)}"


def _ours(r: pd.Series) -> str:
    if pd.isna(r["ours"]):
        return "\u2014"
    if not pd.isna(r["ours_low"]):
        sep = " vs " if " vs " in r["condition"] else "\u2013"
        return f"{_num(r['ours_low'], r['unit'])}{sep}{_num(r['ours_high'], r['unit'])}"
    return _num(r["ours"], r["unit"])


def _cell(s: object) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def to_markdown(scorecard: pd.DataFrame, host: str, backend: str, profile: str | None = None,
                tiers: str | None = None) -> str:
    """``scorecard.md``: provenance header, tolerance rules, scored rows, rows from other hardware
    (ours beside theirs, no verdict), then rows not scored."""
    kinds = {b.strip() for b in str(backend).split(",") if b.strip()}
    model = ("Our numbers come from **modelled tiers (profile {host})**: simulated by tiersim, a "
             "deterministic model driving libcolloid's policy code. They are not measurements.")
    if kinds == {"model"}:
        prov = model.format(host=profile or host)
    elif "model" in kinds:
        prov = (model.format(host=profile or host) + f" Rows whose *backend* is not `model` were **measured on {host}**; "
                "the *backend* column says which is which.")
    else:
        prov = f"Our numbers were **measured on {host}** (backend `{backend}`)."
    if tiers:
        prov += f" Tiers: {tiers}."
    other = scorecard[scorecard["ours"].notna() & (scorecard["hardware"] == "other")]
    scored = scorecard[scorecard["ours"].notna() & (scorecard["hardware"] != "other")]
    within = int(scored["within"].fillna(False).astype(bool).sum())
    fitted = scored[scored["calibrated"].fillna(False).astype(bool)]
    valid = scored.drop(fitted.index)
    vwithin = int(valid["within"].fillna(False).astype(bool).sum())
    lines = [
        f"# Scorecard: {host}",
        "",
        prov,
        "",
        (
            "Published numbers: `analysis/reference/published_numbers.csv` (sources cited in "
            "`analysis/reference/README.md`). They are shown for comparison only; every *ours* value "
            "is computed from `measurements.csv` by the rule named in `analysis/scorecard.py`."
        ),
        "",
        "Tolerance rules (*within*):",
        "",
        (
            "- our range against a published range: our minimum within "
            f"\u00b1{TOL_RANGE:.0%} of the published low, and our maximum within \u00b1{TOL_RANGE:.0%} of its high;"
        ),
        (
            f"- one value against a published range: inside it, widened by {TOL_RANGE:.0%} "
            "(an upper bound when the published low is 0);"
        ),
        (
            f"- one value against one published value: within \u00b1{TOL_POINT:.0%} "
            f"(Colloid's gain at 0x, published 1.0: \u00b1{TOL_NO_GAIN:.0%});"
        ),
        f"- two values against two (\"A vs B\"): each within \u00b1{TOL_POINT:.0%}.",
        "",
        "*ratio* = ours / published midpoint (for a range, the midpoint of ours).",
        "",
        f"**{len(scored)} of {int(scorecard['published_low'].notna().sum())} published numbers computed; {within} of "
        f"{len(scored)} within tolerance.**"
        + (f" {len(other)} more are from other hardware: listed without a verdict." if len(other) else "")
        + (f" {len(fitted)} of them are calibration targets (the model was fitted to them); of the other "
           f"{len(valid)}, the validation numbers, {vwithin} are within tolerance." if len(fitted) else ""),
        "",
        "## Scored",
        "",
    ]
    if scored.empty:
        lines += ["No published number could be computed from these results.", ""]
    else:
        lines += [
            "| source | figure | system | condition | metric | published | ours | ratio | tolerance | within | note |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for _, r in scored.iterrows():
            w = "" if pd.isna(r["within"]) else ("yes" if r["within"] else "**no**")
            cells = [r["source"], r["figure"], r["system"], r["condition"], r["metric"], _published(r), _ours(r),
                     "" if pd.isna(r["ratio"]) else f"{r['ratio']:.2f}", r["tolerance"], w, r["note"]]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    if not other.empty:
        lines += ["## Reference, other hardware", "",
                  f"{len(other)} published numbers were measured on hardware this profile does not declare itself "
                  "comparable to (host profile `comparable_to`). Ours is listed beside them for orientation; "
                  "no ratio and no verdict.", "",
                  "| source | figure | system | condition | metric | published (other hardware) | ours |",
                  "|---|---|---|---|---|---|---|"]
        for _, r in other.iterrows():
            cells = [r["source"], r["figure"], r["system"], r["condition"], r["metric"], _published(r), _ours(r)]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    rest = scorecard[scorecard["ours"].isna()]
    if not rest.empty:
        lines += ["## Not scored", "", "| source | figure | system | condition | metric | published | why |",
                  "|---|---|---|---|---|---|---|"]
        for _, r in rest.iterrows():
            cells = [r["source"], r["figure"], r["system"], r["condition"], r["metric"], _published(r), r["note"]]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write(df: pd.DataFrame, ref: pd.DataFrame | None, csv_path: Path, md_path: Path, host: str,
          backend: str) -> pd.DataFrame:
    """Build the scorecard and write ``scorecard.csv`` and ``scorecard.md``."""
    sc = build(df, ref)
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    Path(md_path).parent.mkdir(parents=True, exist_ok=True)
    sc.to_csv(csv_path, index=False)
    Path(md_path).write_text(to_markdown(sc, host, backend))
    return sc

