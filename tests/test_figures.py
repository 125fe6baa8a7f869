"""Figures render from a small synthetic long-form frame, and from an empty one."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.figure import Figure

import families
from analysis import frame as loader
from analysis import reference, registry, style
from analysis.figures import FIGURES, INFO, render

matplotlib.use("Agg")

COLUMNS = list(loader.types())
# Figures the synthetic frame below has data for (the characterization and Colloid figures).
SYNTHETIC_FIGURES = [
    "latency_matrix", "bandwidth_threads", "bandwidth_latency", "object_latency", "fio_iodepth",
    "steady_state", "hot_and_latency", "gain_unloaded_latency", "gain_object_size", "dynamics",
    "cpu_overhead", "thread_share",
]  # fmt: skip


def _rows(base: dict, **vary: list) -> list[dict]:
    keys = list(vary)
    return [{**base, **dict(zip(keys, combo, strict=True))} for combo in itertools.product(*vary.values())]


def synthetic_frame() -> pd.DataFrame:
    """A few rows per figure, with made-up but plausible values (not published numbers)."""
    rows: list[dict] = []
    meas = {"host": "box", "backend": "numa", "family": "characterize", "tool": "memchar", "rep": 0}
    for cpu, mem in itertools.product([0, 1], [0, 1]):
        rows.append({**meas, "experiment": "idle_latency", "metric": "idle_latency", "unit": "ns",
                     "cpu_node": cpu, "mem_node": mem, "value": 80 + 60 * (cpu != mem)})
        rows.append({**meas, "tool": "mlc", "experiment": "idle_latency", "metric": "idle_latency", "unit": "ns",
                     "cpu_node": cpu, "mem_node": mem, "value": 85 + 55 * (cpu != mem)})
    for r in _rows({**meas, "experiment": "bandwidth", "metric": "bandwidth", "unit": "MB/s", "cpu_node": 0},
                   mem_node=[0, 1], op=["read", "write", "mix2:1"], threads=[1, 2, 4]):
        r["value"] = 9000.0 * r["threads"] / (1 + r["mem_node"]) / (1.5 if r["op"] == "write" else 1)
        rows.append(r)
    for r in _rows({**meas, "experiment": "loaded_latency", "metric": "loaded_latency", "unit": "ns", "cpu_node": 0},
                   mem_node=[0, 1], op=["read", "mix1:1"], delay=[0, 100, 400, 1600]):
        bw = 20000.0 / (1 + r["delay"] / 200) / (1 + r["mem_node"])
        r.update(bandwidth_mbps=bw, value=90 + 40 * r["mem_node"] + 3000 / (1 + r["delay"]))
        rows.append(r)
    for r in _rows({**meas, "experiment": "object_latency", "metric": "object_latency", "unit": "ns", "cpu_node": 0},
                   mem_node=[0, 1], op=["read", "write", "write_persist"], size_bytes=[64, 256, 1024, 4096]):
        r["value"] = (90 + 50 * r["mem_node"]) * (1 + r["size_bytes"] / 512)
        rows.append(r)
    share = {**meas, "experiment": "thread_share", "unit": "MB/s", "cpu_node": 0, "point": "c0-m0-m1", "op": "read",
             "threads": 4}
    for x in [0, 0.5, 1]:  # fast group 12 GB/s at share 0, slow group 4 GB/s at share 1; an empty group has no row
        fast, slow = 12000.0 * (1 - x), 4000.0 * x
        rows.append({**share, "share": x, "metric": "bandwidth_total", "target": "node:0+node:1", "value": fast + slow})
        if x < 1:
            rows.append({**share, "share": x, "metric": "bandwidth_a", "target": "node:0", "mem_node": 0, "value": fast})
        if x > 0:
            rows.append({**share, "share": x, "metric": "bandwidth_b", "target": "node:1", "mem_node": 1, "value": slow})
    fio = {"host": "box", "backend": "storage", "family": "storage", "experiment": "fio_randread", "tool": "fio",
           "target": "ssd", "block_bytes": 4096, "rep": 0}
    for qd in [1, 4, 16, 32]:
        rows.append({**fio, "iodepth": qd, "metric": "iops", "unit": "IOPS", "value": 10000.0 * min(qd, 16)})
        rows.append({**fio, "iodepth": qd, "metric": "read_latency_mean", "unit": "us", "value": 80.0 + 2 * qd})
        rows.append({**fio, "iodepth": qd, "metric": "read_latency_p99", "unit": "us", "value": 150.0 + 5 * qd})
    rows += tiering_rows()
    return pd.DataFrame(rows, columns=COLUMNS)


def tiering_rows(host: str = "auto-model") -> list[dict]:
    """Model-backend tiering rows: throughput falls with intensity, Colloid recovers part of it."""
    rows: list[dict] = []
    tier = {"host": host, "backend": "model", "family": "tiering", "workload": "gups", "rep": 0}
    systems = ["hemem", "tpp", "memtis"]
    for system, on, i in itertools.product(systems, [False, True], [0, 1, 2, 3]):
        base = {**tier, "experiment": "steady_state", "system": system, "colloid": on, "intensity": i}
        thr = 100.0 / (1 + 0.5 * i) * (1 + 0.2 * i if on else 1)
        rows.append({**base, "metric": "throughput", "unit": "Mops/s", "value": thr})
        rows.append({**base, "metric": "hot_in_alternate", "unit": "GiB", "value": 2.0 + 4 * i * on})
        rows.append({**base, "metric": "latency_default", "unit": "ns", "value": 80 + 60 * i * (0.4 if on else 1)})
        rows.append({**base, "metric": "latency_alternate", "unit": "ns", "value": 140.0 + 5 * i})
        rows.append({**base, "experiment": "cpu_overhead", "metric": "cpu_overhead", "unit": "fraction",
                     "value": 0.005 + 0.003 * on})
    for i, frac in itertools.product([0, 1, 2, 3], [0.5, 0.75, 1.0]):
        rows.append({**tier, "experiment": "best_static", "system": "static", "colloid": False, "intensity": i,
                     "static_hot_fraction": frac, "metric": "throughput", "unit": "Mops/s",
                     "value": 100.0 / (1 + 0.5 * i) * (1 + 0.22 * i) * (0.9 + 0.1 * frac)})
    for system, on, i, lat in itertools.product(systems, [False, True], [0, 1, 2, 3], [135, 168, 192]):
        rows.append({**tier, "experiment": "unloaded_latency", "system": system, "colloid": on, "intensity": i,
                     "alt_latency_ns": lat, "metric": "throughput", "unit": "Mops/s",
                     "value": 50.0 * (1 + 0.1 * i * 135 / lat if on else 1)})
    for system, on, i, size in itertools.product(systems, [False, True], [0, 3], [64, 256, 1024, 4096]):
        rows.append({**tier, "experiment": "object_size", "system": system, "colloid": on, "intensity": i,
                     "object_bytes": size, "metric": "throughput", "unit": "Mops/s",
                     "value": 50.0 * (1 + (0.05 * i + size / 16384) if on else 1)})
    for exp, system, on in itertools.product(["hotset_move", "contention_change"], systems, [False, True]):
        for i in ([0, 3] if exp == "hotset_move" else [3]):
            for t in range(0, 200, 10):
                base = {**tier, "experiment": exp, "system": system, "colloid": on, "intensity": i, "t_s": t}
                dip = 0.5 if 100 <= t < 130 else 1.0
                rows.append({**base, "metric": "throughput", "unit": "Mops/s", "value": 40 * dip * (1.2 if on else 1)})
                rows.append({**base, "metric": "migration_rate", "unit": "MB/s", "value": 500.0 * (dip < 1)})
        if exp == "contention_change":
            rows.append({**tier, "experiment": exp, "system": system, "colloid": on, "intensity": 3,
                         "metric": "convergence_time_s", "unit": "s", "value": 12.0 if on else 30.0})
    return rows


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return synthetic_frame()


@pytest.fixture(scope="module")
def ref() -> pd.DataFrame:
    return reference.load()


def _texts(fig: Figure) -> str:
    parts = [t.get_text() for t in fig.texts]
    if fig._suptitle is not None:
        parts.append(fig._suptitle.get_text())
    for ax in fig.axes:
        parts += [ax.get_title(), *[t.get_text() for t in ax.texts]]
    return "\n".join(parts)


def test_registry_complete() -> None:
    assert set(SYNTHETIC_FIGURES) <= set(FIGURES)
    for name, mod in FIGURES.items():
        assert mod.NAME == name
        assert isinstance(mod.CAPTION, str) and len(mod.CAPTION) > 40
        assert INFO[name].caption == mod.CAPTION.strip(), "the report shows the module's own caption"
        assert mod.__file__.endswith(f"families/{INFO[name].family}/figures/{name}.py")
    assert "heatmap" not in FIGURES, "a shared helper module is not a figure"


def test_figures_are_found_in_a_family_without_importing_them(tmp_path, monkeypatch) -> None:
    """A family's figures/ module with NAME, CAPTION and plot is registered; the registry reads
    them without importing (Snakemake reads it while planning)."""
    fam = tmp_path / "families"
    (fam / "newfam" / "figures").mkdir(parents=True)
    (fam / "newfam" / "figures" / "my_fig.py").write_text(
        'import no_such_module\nNAME = "my_fig"\nCAPTION = """What it shows."""\n\n\ndef plot(df, ref=None, **kw):\n    pass\n')
    (fam / "newfam" / "figures" / "helper.py").write_text("def plot_helper():\n    pass\n")
    monkeypatch.setattr(families, "HERE", fam)
    monkeypatch.setattr(families, "FAMILIES", ["newfam"])
    found = registry.discover()
    assert list(found) == ["my_fig"] and found["my_fig"].family == "newfam"
    assert found["my_fig"].caption == "What it shows." and found["my_fig"].module == "families.newfam.figures.my_fig"


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_renders_png_and_pdf(name: str, frame: pd.DataFrame, ref: pd.DataFrame, tmp_path: Path) -> None:
    paths = render(name, frame, ref, tmp_path / name)
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths[1].read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("name", SYNTHETIC_FIGURES)
def test_synthetic_frame_has_data_for_every_figure(name: str, frame: pd.DataFrame, ref: pd.DataFrame) -> None:
    fig = FIGURES[name].plot(frame, ref)
    assert "no data" not in _texts(fig)
    assert len(fig.axes) >= 1


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_empty_frame_gives_no_data_note(name: str, ref: pd.DataFrame, tmp_path: Path) -> None:
    empty = pd.DataFrame(columns=COLUMNS)
    fig = FIGURES[name].plot(empty, ref)
    assert "no data:" in _texts(fig)
    paths = render(name, empty, None, tmp_path / name)
    assert all(p.stat().st_size > 0 for p in paths)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_frame_without_columns_or_reference(name: str) -> None:
    fig = FIGURES[name].plot(pd.DataFrame({"host": ["x"], "metric": ["other"], "value": [1.0]}))
    assert "no data:" in _texts(fig)


def test_model_backend_title(frame: pd.DataFrame, ref: pd.DataFrame) -> None:
    fig = FIGURES["steady_state"].plot(frame, ref)
    assert "modelled tiers (profile auto-model)" in fig._suptitle.get_text()
    fig = FIGURES["steady_state"].plot(frame, ref, profile="paper-testbed")
    assert "modelled tiers (profile paper-testbed)" in fig._suptitle.get_text()
    fig = FIGURES["latency_matrix"].plot(frame, ref)
    assert "measured on box" in fig._suptitle.get_text()
    assert "modelled" not in fig._suptitle.get_text()


def test_functional_note(frame: pd.DataFrame) -> None:
    fig = FIGURES["bandwidth_threads"].plot(frame, None, functional=True)
    assert style.FUNCTIONAL_NOTE in _texts(fig)
    fig = FIGURES["bandwidth_threads"].plot(frame, None)
    assert style.FUNCTIONAL_NOTE not in _texts(fig)


def test_colloid_as_strings(frame: pd.DataFrame) -> None:
    """measurements.csv read back gives 'true'/'false' text; the figures accept that too."""
    text = frame.copy()
    text["colloid"] = text["colloid"].map({True: "true", False: "false"})
    fig = FIGURES["gain_object_size"].plot(text, None)
    assert "no data" not in _texts(fig)


def test_reference_marks_labelled(frame: pd.DataFrame, ref: pd.DataFrame) -> None:
    fig = FIGURES["bandwidth_threads"].plot(frame, ref)
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any("published" in s and "seed 004" in s for s in labels)
    fig = FIGURES["object_latency"].plot(frame, ref)
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any("published: Optane PMem" in s for s in labels)


def test_style_tables() -> None:
    assert style.title_suffix("model", "h", "p") == "modelled tiers (profile p)"
    assert style.title_suffix("numa", "h") == "measured on h"
    for s in ("hemem", "tpp", "memtis", "static", "best-static"):
        assert {"color", "marker", "linestyle"} <= set(style.system_style(s))
    markers = {style.system_style(s)["marker"] for s in ("hemem", "tpp", "memtis")}
    assert len(markers) == 3  # systems stay apart in grayscale


@pytest.mark.parametrize("name", ["steady_state", "hot_and_latency", "dynamics", "bandwidth_threads", "object_latency",
                                  "fio_iodepth", "thread_share"])
def test_repetitions_show_their_spread(name: str, frame: pd.DataFrame) -> None:
    """With two repetitions that differ, a figure shades their range; with one, it shades nothing."""
    from matplotlib.collections import PolyCollection

    def bands(fig: Figure) -> int:
        return sum(isinstance(c, PolyCollection) and not c.get_label().startswith("published")
                   for ax in fig.axes for c in ax.collections)

    one = FIGURES[name].plot(frame, None, reference=False)
    assert bands(one) == 0
    other = frame.assign(rep=1, value=frame["value"] * 1.1)
    two = FIGURES[name].plot(pd.concat([frame, other], ignore_index=True), None, reference=False)
    assert bands(two) > 0


def test_cli_renders_several_figures_as_it_renders_each(frame: pd.DataFrame, tmp_path: Path, monkeypatch) -> None:
    """``analysis.render`` with several --figure and --out-dir (the workflow's one job per family,
    drawn by a pool of forked processes: two here, whatever the CPUs) writes each figure's files
    byte for byte as a run for that figure alone; --out names one figure."""
    from analysis import render as cli

    assert cli.processes(1) == 1 and cli.processes(10**6) >= 1
    monkeypatch.setattr(cli, "processes", lambda n: min(n, 2))
    csv = tmp_path / "m.csv"
    frame.to_csv(csv, index=False)
    names = ["steady_state", "cpu_overhead"]
    assert cli.main(["--measurements", str(csv), *[a for n in names for a in ("--figure", n)],
                     "--out-dir", str(tmp_path / "all")]) == 0
    for n in names:
        assert cli.main(["--measurements", str(csv), "--figure", n, "--out", str(tmp_path / "one" / n)]) == 0
        for ext in ("png", "pdf"):
            assert (tmp_path / "all" / f"{n}.{ext}").read_bytes() == (tmp_path / "one" / f"{n}.{ext}").read_bytes()
    with pytest.raises(SystemExit) as e:
        cli.main(["--measurements", str(csv), "--figure", names[0], "--figure", names[1], "--out", str(tmp_path / "x")])
    assert e.value.code == 2
