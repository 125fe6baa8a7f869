"""Experiment families: each one a package ``families/<name>/`` (see docs/extending.md).

A family package holds everything of one experiment family:

- ``__init__.py``: ``NAME``, ``COLUMNS`` (its parameter columns and their types, see
  ``analysis/schema.py``), ``SCORED`` (its rows feed the scorecard), and ``plan(config, host)`` returning a
  :class:`workflows.harness.plan.FamilyPlan` (its point rows, figures, outputs and what it left out);
- ``schema.yaml``: its block of the experiment config (``config[NAME]``);
- ``figures/*.py``: one module per figure (``NAME``, ``CAPTION``, ``plot``);
- ``rules.smk`` (optional): rules of its own beyond the core's point, figure and table rules;
- ``summary.py`` (optional): ``sections(df)``, its markdown sections of ``tables/summary.md``;
- ``fleet.py`` (optional): ``sections(df, out, fidelity)``, its sections of a fleet's comparison
  (``fidelity``: host -> its model score, analysis.fidelity.HostFidelity), and ``FIGURES``, the
  names of the figures it writes there;
- ``scorecard.py`` (optional): its published-number rules (``RULES``) and the published sources
  it lists without scoring (``NOT_SCORED``) and rows for results no published number covers
  (``UNPUBLISHED``), which analysis/scorecard.py runs.

The core discovers families from :data:`FAMILIES` only: adding a family is its package plus one
line here. Importing this module is cheap (no pandas, no matplotlib).
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent

# The registered families, in report order (one line per family).
FAMILIES = [
    "characterize",
    "storage",
    "tiering",
    "apps",
    "overcommit",
    "kv",
]


def get(name: str) -> ModuleType:
    if name not in FAMILIES:
        raise KeyError(f"unknown family {name!r} (known: {', '.join(FAMILIES)})")
    return import_module(f"families.{name}")


def all_families() -> list[ModuleType]:
    return [get(n) for n in FAMILIES]


def columns() -> dict[str, str]:
    """Every family's parameter columns and their types; a column two families declare must
    have one type."""
    out: dict[str, str] = {}
    for fam in all_families():
        for col, typ in fam.COLUMNS.items():
            if out.setdefault(col, typ) != typ:
                raise TypeError(f"column {col!r}: family {fam.NAME} says {typ}, another family {out[col]}")
    return out


def modules(part: str) -> list[ModuleType]:
    """Every registered family's optional module ``families/<name>/<part>.py`` (e.g. ``scorecard``,
    ``summary``, ``fleet``), in registry order; families without one are skipped."""
    out = []
    for name in FAMILIES:
        try:
            out.append(import_module(f"families.{name}.{part}"))
        except ModuleNotFoundError as e:
            if e.name != f"families.{name}.{part}":
                raise
    return out


def schema_path(name: str) -> Path:
    return HERE / name / "schema.yaml"


def rules_files() -> list[Path]:
    return [p for p in (HERE / n / "rules.smk" for n in FAMILIES) if p.exists()]


def figure_files(name: str) -> list[Path]:
    return sorted(p for p in (HERE / name / "figures").glob("*.py") if p.name != "__init__.py")
