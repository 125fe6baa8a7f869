"""Benchmarks and whole-run checks (bench/README.md); :func:`stoppable` runs one."""


def stoppable(main, argv: list[str]) -> int:
    """``main(argv)`` with SIGINT, SIGTERM and SIGHUP raising (procs.Interrupted) at the first, so that a
    benchmark's finally blocks end the servers and clients it started (bench_kv_redis) whichever way
    it is stopped; a second signal meanwhile is noted, not raised, so that it cannot cut that
    clean-up short. Then one line, not a traceback, and the shell's status for the signal."""
    import signal  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from workflows.harness.procs import Interrupted  # noqa: PLC0415

    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def later(signum, _frame):
        pass

    def first(signum, _frame):
        for sig in sigs:
            signal.signal(sig, later)
        raise Interrupted(signum)

    old = {sig: signal.signal(sig, first) for sig in sigs}
    try:
        return main(argv)
    except Interrupted as e:
        print(f"bench: interrupted by {signal.Signals(e.signum).name}", file=sys.stderr)
        return 128 + e.signum
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
