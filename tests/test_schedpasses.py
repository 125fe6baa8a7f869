"""workflows/harness/schedpasses.py: one pending re-evaluation in Snakemake's scheduler."""

from __future__ import annotations

import threading
import time

from workflows.harness import schedpasses


def upstream_shaped():
    """A class with Snakemake 9.27's method as it is upstream (a Timer per call)."""

    class Scheduler:
        def __init__(self):
            self._open_jobs = threading.Semaphore(0)

        def _schedule_reevalutation(self, delay):
            threading.Timer(delay, lambda: self._open_jobs.release()).start()

    return Scheduler


def releases_within(sem, seconds):
    n, end = 0, time.monotonic() + seconds
    while sem.acquire(timeout=max(0.0, end - time.monotonic())):
        n += 1
    return n


def test_upstream_shape_starts_a_timer_per_call():
    # what the patch removes: ten calls, ten releases (ten chains once each pass reschedules)
    s = upstream_shaped()()
    for _ in range(10):
        s._schedule_reevalutation(0.05)
    assert releases_within(s._open_jobs, 0.5) == 10


def test_coalesced_keeps_one_pending_daemon_timer():
    cls = upstream_shaped()
    assert schedpasses.coalesce(cls)
    s = cls()
    before = set(threading.enumerate())
    for _ in range(10):
        s._schedule_reevalutation(0.05)
    new = [t for t in threading.enumerate() if t not in before]
    assert len(new) == 1 and new[0].daemon
    assert releases_within(s._open_jobs, 0.5) == 1
    # the pass the release starts can schedule the next one: the chain goes on, one at a time
    s._schedule_reevalutation(0.05)
    assert releases_within(s._open_jobs, 0.5) == 1
    # two schedulers do not share the pending flag
    other = cls()
    s._schedule_reevalutation(0.05)
    other._schedule_reevalutation(0.05)
    assert releases_within(s._open_jobs, 0.5) == 1 and releases_within(other._open_jobs, 0.1) == 1


def test_coalesce_is_idempotent_and_leaves_unknown_schedulers_alone():
    cls = upstream_shaped()
    assert schedpasses.coalesce(cls) and schedpasses.coalesce(cls)

    class Other:
        def _schedule_reevalutation(self, delay):
            time.sleep(0)

    orig = Other._schedule_reevalutation
    assert not schedpasses.coalesce(Other)
    assert Other._schedule_reevalutation is orig
    assert not schedpasses.coalesce(type("NoMethod", (), {}))


def test_pinned_snakemake_is_the_shape_patched():
    # requirements.txt pins Snakemake; if an upgrade changes the method, this says so (and the run
    # prints a note and leaves the scheduler as it is)
    from snakemake.scheduling.job_scheduler import JobScheduler

    assert schedpasses.coalesce(JobScheduler)
    assert getattr(JobScheduler._schedule_reevalutation, schedpasses.PATCHED)
