"""The programs the workflow builds into build/bin/: each workload's and each family's tool
module declares its ``BUILD`` recipe (``make`` directories in order, the source globs it depends
on); this collects them for the build rule."""

from __future__ import annotations

from glob import glob


def recipes() -> dict[str, dict]:
    import families  # noqa: PLC0415
    import workloads  # noqa: PLC0415

    mods = [workloads.get(n) for n in workloads.WORKLOADS]
    mods += [m for fam in families.all_families() for m in getattr(fam, "TOOLS", [])]
    out: dict[str, dict] = {}
    for m in mods:
        if m.BUILD is not None:
            if m.NAME in out:
                raise ValueError(f"tool {m.NAME} has two build recipes")
            out[m.NAME] = m.BUILD
    return out


def sources(recipe: dict) -> list[str]:
    return sorted({f for pattern in recipe["sources"] for f in glob(pattern)})
