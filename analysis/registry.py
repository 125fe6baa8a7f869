"""Where the figures are, and their captions, without importing them (standard library only:
Snakemake reads this while it plans the run).

A figure is a module ``families/<family>/figures/<name>.py`` defining ``NAME`` (= <name>),
``CAPTION`` (reStructuredText, shown under the figure in the report) and ``plot``; other modules
there (shared helpers) are not figures.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import families


@dataclass(frozen=True)
class FigureInfo:
    name: str
    family: str
    path: Path
    caption: str

    @property
    def module(self) -> str:
        return f"families.{self.family}.figures.{self.path.stem}"


def _constants(path: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
        elif isinstance(node, ast.FunctionDef):
            out[node.name] = node
    return out


def figures_of(family: str) -> list[str]:
    """The names of a family's figures (its figures/ modules that are figures), in file order."""
    return [name for name, info in discover().items() if info.family == family]


def fleet_figures() -> list[str]:
    """The figures the families' fleet sections write (``FIGURES`` of ``families/<name>/fleet.py``:
    names of ``<name>.png`` beside a fleet's comparison), in registry order."""
    out: list[str] = []
    for fam in families.FAMILIES:
        path = families.HERE / fam / "fleet.py"
        if path.exists():
            out += [str(n) for n in _constants(path).get("FIGURES", [])]
    return out


def discover() -> dict[str, FigureInfo]:
    """Every registered family's figures, name -> FigureInfo (names are unique across families)."""
    out: dict[str, FigureInfo] = {}
    for fam in families.FAMILIES:
        for path in families.figure_files(fam):
            c = _constants(path)
            if not {"NAME", "CAPTION", "plot"} <= c.keys():
                continue
            name = str(c["NAME"])
            if name != path.stem:
                raise ValueError(f"{path}: NAME {name!r} must be the module's name")
            if name in out:
                raise ValueError(f"figure {name!r} is in families {out[name].family} and {fam}")
            out[name] = FigureInfo(name, fam, path, str(c["CAPTION"]).strip())
    return out
