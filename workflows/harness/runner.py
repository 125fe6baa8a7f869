"""Guest hosts (a host profile with a ``runner`` block, e.g. hosts/qemu-numa.yaml).

The profile describes the guest, not this machine, so it is validated against the
facts the guest reports at boot: :func:`guest_facts` builds the guest with its
launcher (hosts/qemu/guest.py, cached and incremental), boots it once with an empty
script and keeps the facts in ``build/qemu/facts-<guest build>.json``; the next run
with the same guest build reads them from there. A machine that cannot build or boot
the guest stops the run here with one :class:`ConfigError`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from . import ConfigError

_LOADED: dict[str, ModuleType] = {}


def launcher(runner: dict) -> ModuleType:
    """The runner's launcher module (guest.py), loaded from its path once."""
    path = runner["launcher"]
    if path not in _LOADED:
        spec = importlib.util.spec_from_file_location("tierbench_guest_launcher", path)
        if spec is None or spec.loader is None:
            raise ConfigError(f"{runner.get('source', 'host profile')}: runner/launcher: cannot load {path}")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # its dataclasses need the module registered
        spec.loader.exec_module(mod)
        _LOADED[path] = mod
    return _LOADED[path]


def _quiet(fn, *args, **kw):
    """Run a launcher step with its progress lines going to stderr (never stdout)."""
    old = sys.stdout
    sys.stdout = sys.stderr
    try:
        return fn(*args, **kw)
    finally:
        sys.stdout = old


def ensure_built(runner: dict) -> dict:
    """Build the guest (cached); returns the launcher's manifest. Unavailable -> ConfigError."""
    g = launcher(runner)
    src = runner.get("source", "host profile")
    try:
        return _quiet(g.build, install=os.geteuid() == 0)
    except g.GuestError as e:
        raise ConfigError(f"{src}: the {runner['kind']} guest cannot be built on this machine: {e}") from None
    except OSError as e:
        raise ConfigError(f"{src}: the {runner['kind']} guest cannot be built on this machine: {e}") from None


def guest_facts(runner: dict, launcher_facts: dict | None = None) -> dict:
    """The guest's facts in hostdetect's shape (booting once per guest build)."""
    g = launcher(runner)
    man = ensure_built(runner)
    src = runner.get("source", "host profile")
    topology = runner.get("topology", "cxl")
    key = (man.get("inputs", "") + man.get("kernel", {}).get("sha256", ""))[:40]
    cache = Path(g.CACHE) / f"facts-{key[:16]}{'' if topology == 'cxl' else '-' + topology}.json"
    facts = None
    if cache.exists():
        try:
            facts = json.loads(cache.read_text())
        except ValueError:
            facts = None
    if facts is None:
        with tempfile.TemporaryDirectory(prefix="facts-", dir=g.CACHE) as tmp:
            script = Path(tmp) / "facts.sh"
            script.write_text("# only /init's facts.txt is needed\ntrue\n")
            try:
                res = _quiet(g.run, timeout=300, script=script, out=Path(tmp) / "run", stream=False, topology=topology)
            except g.GuestError as e:
                raise ConfigError(f"{src}: the {runner['kind']} guest cannot boot on this machine: {e}") from None
            ftxt = res.files.get("facts.txt")
            if res.outcome != "exited" or ftxt is None:
                why = "; ".join(res.problems) or f"outcome {res.outcome}"
                raise ConfigError(f"{src}: the {runner['kind']} guest booted but reported no facts ({why})")
            facts = g.guest_facts(Path(ftxt).read_text())
        facts["guest_build"] = {"inputs": man.get("inputs"), "kernel": man.get("kernel", {}),
                                "busybox": man.get("busybox", {}), "binaries": man.get("binaries", []),
                                "missing": man.get("missing", {})}
        tmpf = cache.with_suffix(".tmp")
        tmpf.write_text(json.dumps(facts, indent=1) + "\n")
        os.replace(tmpf, cache)
    facts = dict(facts)
    # what the harness reads elsewhere: the guest's script runs as root; no counters are read in it
    # (TCG emulates no PMU; under KVM a virtual one may exist, but the guest is a functional host)
    facts.setdefault("privileges", {"euid": 0, "root": True})
    facts.setdefault("perf_counters", {"available": False,
                                       "reason": f"{runner['kind']} guest: functional host, no counters read "
                                                 "(TCG has no PMU; a KVM virtual PMU is not used)"})
    facts.setdefault("tools", {})
    facts.setdefault("cpu_model", f"{runner['kind']} guest (-cpu max, KVM or TCG)")
    facts["runner"] = {"kind": runner["kind"], "launcher": os.path.relpath(runner["launcher"], Path(__file__).resolve().parents[2])}
    if launcher_facts is not None:
        facts["launcher_host"] = {k: launcher_facts.get(k) for k in ("hostname", "cpu_model", "kernel", "nodes")}
    return facts


def facts_for(name_or_path: str, local_facts: dict) -> dict:
    """This machine's facts, or the guest's for a profile with a runner."""
    from . import profile  # noqa: PLC0415 - profile imports nothing from here

    r = profile.runner_of(name_or_path)
    return guest_facts(r, local_facts) if r else local_facts
