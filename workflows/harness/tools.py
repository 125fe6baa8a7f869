"""The programs the workflow builds into build/bin/, and the shared C libraries they link.

Each workload's and each family's tool module declares how its programs are built: ``BUILD``
(one program, named like the module) or ``BUILDS`` (program name -> recipe). A recipe is either

- ours, built with make: ``libs`` (shared libraries below it links), ``make`` (its directories,
  in order), ``sources`` (the globs whose change rebuilds it); or
- upstream, built from pinned archives (workloads/upstream.py) by a script of ours: ``upstream``
  (archive names), ``script`` (run as ``SCRIPT ARCHIVE... WORKDIR ARGS... OUT``), ``args``,
  ``sources`` (the script and its patches).

The libraries are built by jobs of their own, which the tool jobs take as inputs: parallel tool
builds never race on a shared library, and a library change relinks every tool that uses it.
"""

from __future__ import annotations

import shlex
from glob import glob

# shared C libraries: the directory make builds them in, what it builds, what they are made of
LIBRARIES = {
    "lib": {"outputs": ["build/lib/libtbutil.a"],
            "sources": ["lib/Makefile", "lib/build.mk", "lib/include/*.h", "lib/src/*.c"]},
    "colloid": {"outputs": ["build/lib/libcolloid.a", "build/lib/libcolloid-mech.a"],
                "sources": ["colloid/Makefile", "colloid/include/*.h", "colloid/src/*.[ch]", "colloid/mech/*.[ch]",
                            "lib/build.mk"]},
}
ARCHIVES = "build/src/archives"


def _builds(m) -> dict[str, dict]:
    if getattr(m, "BUILDS", None):
        return dict(m.BUILDS)
    return {m.NAME: m.BUILD} if getattr(m, "BUILD", None) else {}


def recipes() -> dict[str, dict]:
    import workloads  # noqa: PLC0415

    mods = [workloads.get(n) for n in workloads.WORKLOADS]
    out: dict[str, dict] = {}
    for m in mods:
        for tool, recipe in _builds(m).items():
            if tool in out:
                raise ValueError(f"tool {tool} has two build recipes")
            unknown = set(recipe.get("libs", [])) - set(LIBRARIES)
            if unknown:
                raise ValueError(f"tool {tool}: unknown libraries {sorted(unknown)}")
            out[tool] = recipe
    return out


def sources(globs: list[str]) -> list[str]:
    return sorted({f for pattern in globs for f in glob(pattern)})


def inputs(recipe: dict) -> list[str]:
    """A tool's build inputs: its sources, the libraries it links, the archives it is built from."""
    return (sources(recipe["sources"]) + [o for lib in recipe.get("libs", []) for o in LIBRARIES[lib]["outputs"]]
            + [f"{ARCHIVES}/{a}" for a in recipe.get("upstream", [])])


def command(tool: str, recipe: dict) -> str:
    """The shell command that builds build/bin/<tool>."""
    if "script" in recipe:
        args = [recipe["script"], *(f"{ARCHIVES}/{a}" for a in recipe["upstream"]), f"build/src/{tool}",
                *recipe.get("args", []), f"build/bin/{tool}"]
        return " ".join(shlex.quote(a) for a in args)
    # the tool's own target in its (last) directory: the other programs of that Makefile are other jobs
    dirs = recipe["make"]
    return "; ".join(f"make --no-print-directory -C {shlex.quote(d)}" + (f" prog-{shlex.quote(tool)}" if i == len(dirs) - 1 else "")
                     for i, d in enumerate(dirs))
