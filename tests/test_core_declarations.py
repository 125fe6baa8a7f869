"""What the core takes from the families' declarations instead of naming them: the fleet figures
(``FIGURES`` of ``families/<name>/fleet.py``) and the routing of each point's job by its
executor (``plan.keys_regex``)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from analysis import fleet, registry
from workflows.harness.plan import keys_regex


def test_fleet_figures_are_what_the_families_write(tmp_path):
    """The fleet rule's outputs are the families' declared figures, and they are exactly what their
    sections write (here on a fleet without rows: each says so in its figure)."""
    declared = registry.fleet_figures()
    wrote = [p.stem for sections in fleet.family_sections() for p in sections(pd.DataFrame(), tmp_path)[1]
             if p.suffix == ".png"]
    assert sorted(wrote) == sorted(declared) and all((tmp_path / f"{n}.png").exists() for n in declared)
    with pytest.raises(SystemExit, match="declare"):
        fleet._declared([tmp_path / "undeclared.png"])


def test_keys_regex_matches_exactly_its_keys():
    keys = ["f/e/p/rep0", "f/e/p/rep1", "f/e/a/b/rep0", "f/e/a/rep0", "f/x.y/p/rep0"]
    rx = re.compile(keys_regex(keys))
    assert all(rx.fullmatch(k) for k in keys)
    for other in ("f/e/p/rep2", "f/e/a", "f/e/a/b/rep1", "f/e/p/rep0/x", "f/xzy/p/rep0", "g/e/p/rep0"):
        assert not rx.fullmatch(other), other
    assert not re.fullmatch(keys_regex([]), ""), "no keys: matches nothing"


@pytest.mark.vm  # its guest facts: the guest built (and booted once) by the session that boots it
def test_jobs_are_routed_by_each_rows_executor(tmp_path):
    """A fleet whose experiments are measured on one host (the QEMU guest: executor guest) and
    modelled on the other (cxl-model: executor model): each point's job follows its own row, so the
    modelled points of an experiment that is also measured elsewhere still go to model_point (the
    jobs that may leave the machine), never to the local point rule."""
    from conftest import guest_facts_or_skip  # noqa: PLC0415
    from test_workflow import smk  # noqa: PLC0415

    guest_facts_or_skip("qemu-numa")
    short = tmp_path / "short.yaml"
    short.write_text("tiering:\n  average_last_s: 2\n")  # the guest config's runs are seconds long
    # (a job per modelled point: quick.yaml batches them, and batches are test_cluster's)
    r = smk("-n", "--forceall", "--cores", "1", "--configfile", "workflows/config/qemu.yaml", str(short),
            "--config", "hosts=[qemu-numa,cxl-model]", "model_batch=1")
    assert r.returncode == 0, r.stderr[-2000:]
    jobs = re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    output: ([^,\n]+/result\.csv)", r.stdout, re.M)
    rules: dict[tuple[str, str], set] = {}  # (host, family) -> the rules of its points' jobs
    for rule, out in jobs:
        rules.setdefault(tuple(out.split("/")[1:3]), set()).add(rule)
    # the guest measures its tiering points; cxl-model models its own, and measures this machine's
    # characterization points here: each job by its row's executor
    assert rules[("qemu-numa", "tiering")] == {"point"} and rules[("cxl-model", "tiering")] == {"model_point"}, rules
    assert rules[("cxl-model", "characterize")] == {"point"}, rules
    measured = {tuple(o.split("/")[2:4]) for _, o in jobs if o.startswith("results/qemu-numa/")}
    modelled = {tuple(o.split("/")[2:4]) for _, o in jobs if o.startswith("results/cxl-model/")}
    assert ("tiering", "steady_state") in measured & modelled, "an experiment both measured and modelled"


# ---- the core names no tiering system --------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]
# The core: what runs any family's points with any system (docs/extending.md). Docs (*.md) may name
# systems; so may the experiment configs (workflows/config/: user input that chooses systems by
# name) and the published numbers (analysis/reference/: data, each row names the system a paper
# measured).
CORE = ("Snakefile", "workflows", "analysis", "colloid/sim/src", "colloid/tierd/src")
NOT_CORE = ("workflows/config", "analysis/reference")
# Kernel interfaces that share a system's name without being the system (docs/extending.md, "A
# kernel mechanism"): file -> (the name it may use, at most how many lines, why). A new line there
# naming it must be one of these uses too: then raise the count here, with the change's reason.
KERNEL_INTERFACES = {
    "colloid/tierd/src/obs_damon.c": ("damon", None, "tierd's DAMON observation source: the kernel's access "
                                      "monitor read as samples for any policy"),
    "colloid/tierd/src/sources.c": ("damon", 10, "that source's entry in the observation operations table"),
    "colloid/tierd/src/tierd.h": ("damon", 13, "that source's declarations"),
    "colloid/tierd/src/main.c": ("damon", 32, "--observe damon and --damon-us: choosing and setting up that source"),
    "workflows/harness/hostdetect.py": ("damon", 23, "the host's facts about DAMON's sysfs interface, and the "
                                        "kernel's own DAMON modules that are on (their exclusive kdamonds)"),
    "workflows/harness/memtiers.py": ("damon", 1, "a kernel source (mm/damon/paddr.c): which /proc/vmstat "
                                      "counters count the DAMOS migrations"),
    "workflows/harness/settings.py": ("damon", 6, "a kernel source (mm/damon/sysfs.c): why a sysfs write, "
                                      "or a read of a state file, refused as busy is tried again"),
    "colloid/sim/src/sim.c": ("damon", 1, "a kernel source (mm/damon/paddr.c) of the accessed-bit checks"),
    "colloid/tierd/src/latency.c": ("damon", 1, "a kernel source (mm/damon/paddr.c): a migration by physical "
                                    "address ignores the latency probe buffer's mempolicy"),
}


def system_names_in_core(root: Path, names: list[str]) -> dict[str, dict[str, list[str]]]:
    """file -> system name -> the lines of the core under ``root`` that name it (case-insensitive,
    not inside a longer word on its left: ``getppid`` is no ``tpp``, ``obs_damon`` is a ``damon``)."""
    rx = re.compile(r"(?<![a-z])(" + "|".join(map(re.escape, names)) + ")", re.I)
    out: dict[str, dict[str, list[str]]] = {}
    for top in CORE:
        base = root / top
        for f in sorted([base] if base.is_file() else base.rglob("*")):
            rel = f.relative_to(root).as_posix()
            if not f.is_file() or f.suffix in (".md", ".pyc") or rel.startswith(NOT_CORE):
                continue
            try:
                text = f.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            for line in text.splitlines():
                for m in {m.group(1).lower() for m in rx.finditer(line)}:
                    out.setdefault(rel, {}).setdefault(m, []).append(line.strip())
    return out


def unexplained(hits: dict[str, dict[str, list[str]]]) -> list[str]:
    """The hits no entry of KERNEL_INTERFACES explains, one line each."""
    bad = []
    for rel, by_name in hits.items():
        name, most, _ = KERNEL_INTERFACES.get(rel, (None, 0, ""))
        for n, lines in by_name.items():
            if n != name:
                bad += [f"{rel}: names the system {n!r}: {ln}" for ln in lines]
            elif most is not None and len(lines) > most:
                bad.append(f"{rel}: {len(lines)} lines name {n!r}, {most} allowed as a kernel interface "
                           f"(tests/test_core_declarations.py KERNEL_INTERFACES)")
    return bad


def test_the_core_names_no_tiering_system():
    """A tiering system is one place (systems/, its policy file, docs, tests): the core does not
    name one, except the kernel interfaces listed, each with its reason."""
    import systems  # noqa: PLC0415

    bad = unexplained(system_names_in_core(REPO, systems.names()))
    assert not bad, "\n".join(bad[:20])
    for rel in KERNEL_INTERFACES:
        assert (REPO / rel).is_file(), f"KERNEL_INTERFACES names {rel}, which does not exist"


def test_a_system_named_in_the_core_is_found(tmp_path):
    """The check fails on a system's name added to the core: a branch on it, or one more line in a
    kernel-interface file."""
    import systems  # noqa: PLC0415

    (tmp_path / "workflows/harness").mkdir(parents=True)
    (tmp_path / "workflows/harness/point.py").write_text('pid = os.getppid()\nif system == "tpp":\n    pass\n')
    (tmp_path / "workflows/config").mkdir()
    (tmp_path / "workflows/config/quick.yaml").write_text("systems: [tpp]\n")  # a config may choose systems
    (tmp_path / "workflows/README.md").write_text("TPP\n")
    (tmp_path / "colloid/sim/src").mkdir(parents=True)
    (tmp_path / "colloid/sim/src/sim.c").write_text("/* mm/damon/paddr.c */\n")
    hits = system_names_in_core(tmp_path, systems.names())
    assert hits == {"workflows/harness/point.py": {"tpp": ['if system == "tpp":']},
                    "colloid/sim/src/sim.c": {"damon": ["/* mm/damon/paddr.c */"]}}
    assert unexplained(hits) == ['workflows/harness/point.py: names the system \'tpp\': if system == "tpp":']
    (tmp_path / "colloid/sim/src/sim.c").write_text('/* mm/damon/paddr.c */\nif (!strcmp(sys, "damon"))\n')
    assert unexplained(system_names_in_core(tmp_path, systems.names()))[1].startswith("colloid/sim/src/sim.c: 2 lines")


# Quoted words of the core that are a family's name but mean something else: file -> (word, why).
NOT_A_FAMILY = {"workflows/harness/profile.py": ("storage", "the host profile's storage block (a host fact)")}


def test_the_core_names_no_family():
    """No string of the core is a family's name (the core runs whatever families/ registers)."""
    import families  # noqa: PLC0415

    rx = re.compile(r"[\"'](" + "|".join(map(re.escape, families.FAMILIES)) + r")[\"']")
    bad = []
    for top in CORE:
        base = REPO / top
        for f in sorted([base] if base.is_file() else base.rglob("*")):
            rel = f.relative_to(REPO).as_posix()
            if f.suffix not in (".py", ".smk", "") or not f.is_file() or rel.startswith(NOT_CORE):
                continue
            for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                for m in rx.finditer(line):
                    if NOT_A_FAMILY.get(rel, ("", ""))[0] != m.group(1):
                        bad.append(f"{rel}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad[:20])
