"""FFmpeg (Debian's ``ffmpeg``): an x264 encode of a generated source (lavfi ``testsrc2``), the
overcommit family's video-processing workload (seed 003). argv and parser.

Protocol: ``ffmpeg -benchmark`` encodes ``frames`` frames of a ``size`` test pattern with libx264
to the null muxer (no input or output file: nothing but the encoder's own memory is touched),
and prints progress lines (``frame=  N ...``) and ``bench: utime=..s stime=..s rtime=..s`` on
standard error; exit 0. The metric is frames per second of wall time, frames / rtime.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from workflows.harness import ConfigError

NAME = "ffmpeg"
BUILD = None  # a system package: apt-get install ffmpeg


def find(profile: dict, facts: dict) -> str:
    path = (facts.get("tools") or {}).get("ffmpeg") or shutil.which("ffmpeg")
    if not path:
        raise ConfigError("experiment config: overcommit/workloads: ffmpeg is not on PATH: install it "
                          "(apt-get install ffmpeg, or make setup) or leave ffmpeg out of the list")
    return path


def argv(ffmpeg: str, *, size: str, frames: int, preset: str, threads: int) -> list[str]:
    return [ffmpeg, "-hide_banner", "-nostdin", "-benchmark", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30",
            "-frames:v", str(frames), "-c:v", "libx264", "-preset", preset, "-threads", str(threads), "-f", "null", "-"]


_BENCH = re.compile(r"bench: utime=([\d.]+)s stime=([\d.]+)s rtime=([\d.]+)s")
_FRAME = re.compile(r"frame=\s*(\d+)")


def parse(text: str) -> dict:
    """frames, rtime (s) and fps from ffmpeg's standard error."""
    bench = _BENCH.findall(text)
    frames = _FRAME.findall(text)
    if not bench or not frames:
        raise ValueError("ffmpeg's output has no 'frame=' or 'bench: ... rtime=' line")
    rtime = float(bench[-1][2])
    n = int(frames[-1])
    return {"frames": n, "rtime_s": rtime, "fps": n / rtime}


def native(outdir: Path, files: dict) -> dict:
    """The overcommit family's native metric: frames per second (higher is better), per frame."""
    p = parse((outdir / files["stderr"]).read_text(errors="replace"))
    return {"metric": "fps", "value": round(p["fps"], 4), "unit": "frames/s", "higher_is_better": True,
            "work": p["frames"], "work_unit": "frame"}
