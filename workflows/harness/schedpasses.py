"""One pending re-evaluation at a time in Snakemake's job scheduler (a workaround, applied by
workflows/rules/common.smk).

What it works around, in Snakemake 9.27 (snakemake/scheduling/job_scheduler.py): ``schedule()``
waits on a semaphore, and each pass of its loop ends, while a job rate limiter is set (always from
the command line: ``--max-jobs-per-timespan`` defaults to ``100/1s``), by
``_schedule_reevalutation(timespan)``, which starts a ``threading.Timer`` that releases the
semaphore once. So a pass started by a Timer starts another: every job event (a job started,
finished or failed releases the semaphore) adds a chain of passes, once a timespan, that never
ends. After n job events the scheduler runs n passes a second, each re-running job selection; in a
quick run here its main process used 4 min of CPU (20-33 % of a core while a measured point ran:
docs/workflow.md, Measurement discipline). The Timers are also non-daemon threads, so a longer
timespan made every run wait up to that long at exit.

The re-evaluation exists so that jobs held back by the rate limit are looked at again once the
limit's window has moved on. One pending Timer does that as well as n: ``coalesce()`` replaces the
method with one that starts a Timer only when none is pending (the pending one fires within the
timespan, and the pass it starts schedules the next one if it is still needed), clears the
pending flag before it releases the semaphore (so the pass it starts can always schedule another),
and starts it as a daemon thread (nothing waits for it at exit).
"""

from __future__ import annotations

import threading

# the upstream method's name, spelt as upstream spells it
METHOD = "_schedule_reevalutation"
PATCHED = "_tierbench_coalesced"


def _coalesced(self, delay) -> None:
    lock = self.__dict__.setdefault("_tierbench_reeval_lock", threading.Lock())
    with lock:
        if self.__dict__.get("_tierbench_reeval_pending"):
            return
        self._tierbench_reeval_pending = True

    def fire() -> None:
        with lock:
            self._tierbench_reeval_pending = False
        self._open_jobs.release()

    timer = threading.Timer(delay, fire)
    timer.daemon = True
    timer.start()


setattr(_coalesced, PATCHED, True)


def coalesce(cls=None) -> bool:
    """Patch ``cls`` (default: Snakemake's JobScheduler); False, changing nothing, where the
    scheduler is not the one this was written against (no such method or no ``_open_jobs``)."""
    if cls is None:
        try:
            from snakemake.scheduling.job_scheduler import JobScheduler as cls
        except ImportError:
            return False
    orig = getattr(cls, METHOD, None)
    if orig is None:
        return False
    if getattr(orig, PATCHED, False):
        return True
    # the method must still be the Timer that releases _open_jobs that this replaces
    code = getattr(orig, "__code__", None)
    if code is None or "Timer" not in code.co_names or "_open_jobs" not in _names(code):
        return False
    setattr(cls, METHOD, _coalesced)
    return True


def _names(code) -> set[str]:
    """Every name a function's code (and the code of the lambdas in it) refers to."""
    names = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            names |= _names(c)
    return names
