"""The programs the workflow builds into build/bin/, and the shared C libraries they link.

Each workload's and each family's tool module declares its ``BUILD`` recipe: ``libs`` (the shared
libraries below it links), ``make`` (its own directories, in order) and ``sources`` (the globs
whose change rebuilds it). The libraries are built by jobs of their own, which the tool jobs take
as inputs: parallel tool builds never race on a shared library, and a library change relinks
every tool that uses it.
"""

from __future__ import annotations

from glob import glob

# shared C libraries: the directory make builds them in, what it builds, what they are made of
LIBRARIES = {
    "lib": {"outputs": ["build/lib/libtbutil.a"],
            "sources": ["lib/Makefile", "lib/build.mk", "lib/include/*.h", "lib/src/*.c"]},
    "colloid": {"outputs": ["build/lib/libcolloid.a", "build/lib/libcolloid-mech.a"],
                "sources": ["colloid/Makefile", "colloid/include/*.h", "colloid/src/*.[ch]", "colloid/mech/*.[ch]",
                            "lib/build.mk"]},
}


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
            unknown = set(m.BUILD.get("libs", [])) - set(LIBRARIES)
            if unknown:
                raise ValueError(f"tool {m.NAME}: unknown libraries {sorted(unknown)}")
            out[m.NAME] = m.BUILD
    return out


def sources(globs: list[str]) -> list[str]:
    return sorted({f for pattern in globs for f in glob(pattern)})


def inputs(recipe: dict) -> list[str]:
    """A tool's build inputs: its sources and the libraries it links."""
    return sources(recipe["sources"]) + [o for lib in recipe.get("libs", []) for o in LIBRARIES[lib]["outputs"]]
