"""Linux CPU/node list strings ("0-3,8,10-11") <-> sorted int lists."""

from __future__ import annotations

from . import ConfigError


def parse(text: str | int | list, what: str = "CPU list") -> list[int]:
    """Parse a kernel-style list. Accepts an int, a list of ints or a string."""
    if isinstance(text, bool):
        raise ConfigError(f"{what}: expected a list like '0-3,8', got {text!r}")
    if isinstance(text, int):
        text = str(text)
    if isinstance(text, list):
        out: set[int] = set()
        for item in text:
            out.update(parse(item, what))
        return sorted(out)
    text = str(text).strip()
    if not text:
        return []
    out = set()
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                lo_s, hi_s = part.split("-", 1)
                lo, hi = int(lo_s), int(hi_s)
                if lo < 0 or hi < lo:
                    raise ValueError
                out.update(range(lo, hi + 1))
            else:
                v = int(part)
                if v < 0:
                    raise ValueError
                out.add(v)
        except ValueError:
            raise ConfigError(f"{what}: malformed entry {part!r} in {text!r}") from None
    return sorted(out)


def format(cpus: list[int], sep: str = ",") -> str:  # noqa: A001 - mirrors kernel naming
    """Format a list of ints compactly: [0,1,2,5] -> '0-2,5'."""
    cpus = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return sep.join(parts)
