"""The tiering family's section of a fleet's comparison (analysis/fleet.py): Colloid's steady-state
gain per host, system and antagonist intensity, on each host's own tiers (modelled tiers are
labelled so, with the model's error on that host where it has a score), and its figure
``colloid_gain.png``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis import fleet, frame, style
from analysis.tables import md as _md

FIGURES = ["colloid_gain"]  # what sections() writes beside the comparison (analysis/registry.py)


def _gain(df: pd.DataFrame) -> pd.DataFrame:
    """Colloid's steady-state gain per host, system and intensity (mean over repetitions)."""
    need = {"experiment", "metric", "system", "colloid", "intensity"}
    if df.empty or not need <= set(df.columns):
        return pd.DataFrame()
    s = df[(df["experiment"] == "steady_state") & (df["metric"] == "throughput") & df["t_s"].isna()].copy()
    if s.empty:
        return pd.DataFrame()
    s["colloid"] = frame.as_bool(s["colloid"])
    keys = ["host", "backend", "system", "intensity"]
    m = s.groupby(keys + ["colloid"], dropna=False)["value"].mean().unstack("colloid")
    if True not in m.columns or False not in m.columns:
        return pd.DataFrame()
    out = m.rename(columns={False: "without_mops", True: "with_colloid_mops"}).reset_index()
    out["gain"] = out["with_colloid_mops"] / out["without_mops"]
    return out


def _modelled_hosts(gain: pd.DataFrame) -> list[str]:
    return sorted(gain.loc[gain["backend"] == "model", "host"].unique()) if not gain.empty else []


def _figure_gain(gain: pd.DataFrame, out: Path, fids: dict) -> list[Path]:
    title = "Colloid's steady-state gain per host (GUPS)"
    if gain.empty:
        fig = style.no_data(title, "no host ran the tiering family's steady-state points")
    else:
        style.apply()
        systems = style.sort_systems(gain["system"].unique())
        fig, axes = style.figure(len(systems), 1, sharey=True)
        for ax, sysname in zip(axes[0], systems, strict=True):
            for i, (h, g) in enumerate(gain[gain["system"] == sysname].groupby("host")):
                g = g.sort_values("intensity")
                label = f"{h} ({fids[h].note})" if h in fids and fids[h].scored and (g["backend"] == "model").any() \
                    else h
                ax.plot(g["intensity"], g["gain"], marker="os^vD"[i % 5], label=label)
            ax.axhline(1.0, color="grey", lw=0.5)
            ax.set_title(style.system_label(sysname))
            ax.set_xlabel("antagonist intensity")
            ax.legend(fontsize=5)
        axes[0, 0].set_ylabel("throughput with / without Colloid")
        fig = style.finish(fig, title, gain)
    return fleet.save(fig, out / FIGURES[0])


def sections(df: pd.DataFrame, out: Path, fidelity: dict | None = None) -> tuple[list[str], list[Path]]:
    """The gain table and figure; ``fidelity``: host -> its model score (analysis.fidelity.HostFidelity)."""
    fids = fidelity or {}
    parts: list[str] = []
    gain = _gain(df)
    parts.append("## Colloid's steady-state gain\n")
    parts.append(_md(gain) if not gain.empty else "_no host ran the tiering family's steady-state points_\n")
    modelled = [h for h in _modelled_hosts(gain) if h in fids]
    if modelled:
        parts.append("Rows of backend `model` are simulated; " + "; ".join(f"{h}: {fids[h].note}" for h in modelled)
                     + ".\n")
    return parts, _figure_gain(gain, out, fids)
