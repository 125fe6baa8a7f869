

def stoppable(main, argv: list[str]) -> int:
    """``main(argv)`` with SIGTERM and SIGHUP raising, as Ctrl-C does: a benchmark's finally blocks
    end the servers and clients it started (bench_kv_redis) whichever way it is stopped; then one
    line, not a traceback, and the shell's status for that signal."""
    import signal  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from workflows.harness.point import stop_signals_raise  # noqa: PLC0415
    from workflows.harness.procs import Interrupted  # noqa: PLC0415

    try:
        with stop_signals_raise():
            return main(argv)
    except (Interrupted, KeyboardInterrupt) as e:
        sig = getattr(e, "signum", signal.SIGINT)
        print(f"bench: interrupted by {signal.Signals(sig).name}", file=sys.stderr)
        return 128 + sig
