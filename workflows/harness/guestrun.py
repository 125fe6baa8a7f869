"""Run every guest point of a guest host in one boot:
``python -m workflows.harness.guestrun --out DIR --results results/HOST SPEC.json``.

The guest (hosts/qemu/) has no Python: only busybox and tierbench's static binaries. Each point's
scenario (planned on this host, workflows/harness/plan.py) is rendered by the one scenario
executor's shell backend (``scenario.render_batch``) into one script that the guest's /init runs:
raw output under ``/out/<family>/<experiment>/<point>/rep<k>/`` with a ``status`` file. The
launcher copies /out back into ``DIR/files/``; each point's own job then parses its raw output
here, exactly as for a point measured on this host (``point.run_guest``). The host's measurement
lock is held for the whole boot. The batch fails (and a rerun boots the guest again) when the guest
did not finish or a point failed in it; its points are then not collected.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
from pathlib import Path

from . import ConfigError
from .plan import key
from .point import LOCK, guest_repair, host_lock
from .runner import launcher
from .scenario import GUEST_ROOT, read_status, render_batch


def shipped(rows: list[dict], built_in: set[str]) -> dict[str, Path]:
    """What the guest's points need that its own static build lacks: programs of this tree
    (build/bin/X -> /opt/tierbench/bin/X) and of the system (a wrapper such as numactl, at its own
    path), each with its shared libraries, and the input files rules made (build/X -> /opt/tierbench/X)."""
    files: dict[str, Path] = {}
    for r in rows:
        for role in r["run"]["scenario"]["roles"]:
            for exe in [*(role.get("wrap") or [])[:1], role["argv"][0]]:
                if exe.startswith("build/bin/"):
                    if Path(exe).name not in built_in:
                        files[f"{GUEST_ROOT.lstrip('/')}/bin/{Path(exe).name}"] = Path(exe)
                elif exe:
                    path = shutil.which(exe)
                    if path is None:
                        raise RuntimeError(f"{exe} is not on this machine's PATH; the guest's points need it")
                    files[path.lstrip("/")] = Path(path)
        for f in r.get("inputs", []):
            files[f"{GUEST_ROOT.lstrip('/')}/{f[len('build/'):]}" if f.startswith("build/") else f.lstrip("/")] = Path(f)
    return files


def run(spec: dict, out: Path, results: Path) -> int:
    runner = spec["runner"]
    g = launcher(runner)
    out.mkdir(parents=True, exist_ok=True)
    rows = [spec["points"][k] for k in sorted(spec["points"])]
    script = out / "run.sh"
    script.write_text(render_batch([(f"/out/{key(r)}", r["run"]["scenario"]) for r in rows]))
    built_in = set(json.loads((Path(g.CACHE) / "manifest.json").read_text()).get("binaries", []))
    files = g.with_libraries(shipped(rows, built_in))
    print(f"guestrun: {len(rows)} point(s) in one {runner['kind']} boot; script {script}; "
          f"{len(files)} file(s) shipped beside it: {', '.join(sorted(files)) or 'none'}", file=sys.stderr, flush=True)
    with host_lock(results / LOCK):
        guest_repair(results)
        old = sys.stdout
        sys.stdout = sys.stderr  # the launcher's progress goes to the log
        try:
            res = g.run(timeout=runner.get("timeout_s", 1800), script=script, out=out, stream=True, files=files,
                        topology=runner.get("topology", "cxl"))
        finally:
            sys.stdout = old
    if res.outcome != "exited":
        raise RuntimeError(f"the guest did not finish the batch ({res.outcome}): {'; '.join(res.problems)}; "
                           f"see {out / 'console.log'}")
    failed = []
    for r in rows:
        st = read_status(out / "files" / key(r) / "status")
        if st.get("status") != "ok":
            failed.append(f"{key(r)}: {st.get('status', 'no status (the point did not run)')}")
            log = out / "files" / key(r) / "guest.log"  # the batch directory goes with a failed job: keep why
            if log.exists():
                tail = log.read_text(errors="replace").splitlines()[-10:]
                print(f"guestrun: {key(r)}: guest.log ends:\n  " + "\n  ".join(tail), file=sys.stderr)
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(rows)} guest point(s) failed (see guest.log beside each in "
                           f"{out / 'files'}): " + "; ".join(failed))
    print(f"guestrun: {len(rows)} point(s) ran in the guest ({res.accel}: {res.accel_why})", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="the batch directory")
    ap.add_argument("--results", required=True, type=Path, help="results/<host> (the measurement lock)")
    ap.add_argument("spec", type=Path, help="JSON: runner and the guest points' rows")
    args = ap.parse_args(argv)
    spec = json.loads(args.spec.read_text())

    def _term(signum, _frame):
        raise KeyboardInterrupt  # the launcher stops QEMU (its own session) by pid on this

    signal.signal(signal.SIGTERM, _term)
    try:
        return run(spec, args.out, args.results)
    except KeyboardInterrupt:
        print("tierbench: interrupted; the guest was stopped", file=sys.stderr)
        return 130
    except (ConfigError, RuntimeError, TimeoutError, OSError) as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
