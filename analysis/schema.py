"""The long-form schema of result.csv and measurements.csv (standard library only, so light
runners can use it without importing pandas).

The schema is open: every row has the :data:`CORE` columns, each family declares its own
parameter columns with their types (``COLUMNS`` in ``families/<name>/__init__.py``), and a row may
carry further columns a parser found (kept, typed as numbers when every value is one).
:func:`analysis.frame.typed` applies these types once, when measurements are loaded.
"""

from __future__ import annotations

# column -> type ("text", "number", "bool"), in the order every result.csv starts with
CORE: dict[str, str] = {
    "host": "text", "backend": "text", "family": "text", "experiment": "text", "workload": "text",
    "system": "text", "colloid": "bool", "intensity": "number", "rep": "number", "t_s": "number",
    "metric": "text", "value": "number", "unit": "text", "tool": "text", "target": "text", "point": "text",
}  # fmt: skip

COLUMNS = list(CORE)


def cell(v: object) -> object:
    """How a value is written to CSV: None as empty, booleans as true/false."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def columns_for(rows: list[dict], family_columns: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The columns of a point's result.csv: CORE, then the family's, then any others the rows
    carry (in the order first seen)."""
    out = list(CORE) + [c for c in family_columns if c not in CORE]
    seen = set(out)
    for r in rows:
        for k in r:
            if k not in seen:
                seen.add(k)
                out.append(k)
    return out
