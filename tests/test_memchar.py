"""memchar against an independent simple implementation (tests/independent/*.c).

Both run on the same CPU and node with the same buffer size and huge-page
advice; the results must agree within 10 %, or, where the machine is noisier
than that, within three times the medians' combined standard error
(:func:`agree`). Timings on a shared VM are noisy, so each side is measured
several times, interleaved, and medians are compared.
"""

from __future__ import annotations

import io
import statistics
import subprocess

import pandas as pd
import pytest
from conftest import binary

BUF_MIB = 256


def memchar(*args: str) -> pd.DataFrame:
    out = subprocess.run([str(binary("memchar")), *args], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return pd.read_csv(io.StringIO(out.stdout))


def run_float(argv: list[str]) -> float:
    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=300)
    return float(out.stdout.split()[0])


def agree(ours: list[float], ref: list[float], tol: float = 0.10) -> tuple[float, float]:
    """The ratio of the two tools' medians and the bound it must stay within: ``tol``, or three
    times the medians' combined relative standard error where the samples are noisier (a
    median's is about 1.2533 s / sqrt(n) for roughly normal samples of standard deviation s). On
    the project's VM one 256 MiB buffer's latency is +-20 % from the next (seven pairs in turn:
    memchar 238-304 ns, the independent chase 214-311 ns), so medians of five missed 10 % in
    about one suite in five; a tool off by a real error (a ratio of 0.6 once, huge pages in one
    and not the other) stays far outside."""
    se = [1.2533 * statistics.stdev(v) / statistics.mean(v) / len(v) ** 0.5 for v in (ours, ref)]
    return statistics.median(ours) / statistics.median(ref), max(tol, 3 * (se[0] ** 2 + se[1] ** 2) ** 0.5)


def test_agree_widens_only_with_the_samples_spread():
    same = [100.0, 101, 99, 100, 100]
    assert agree(same, [110.0, 111, 109, 110, 110]) == (pytest.approx(100 / 110), 0.10)
    ratio, bound = agree([304.0, 251, 273, 263, 279], [254.0, 300, 214, 279, 277])  # measured here, in turn
    assert bound > 0.10 and abs(ratio - 1) < bound
    ratio, bound = agree([180.0, 150, 170, 160, 165], [304.0, 251, 273, 263, 279])
    assert abs(ratio - 1) > bound, "a 0.6 ratio is still refused"


def test_selftest_verifies_single_cycle_chain():
    out = subprocess.run([str(binary("memchar")), "selftest"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.quiet
def test_idle_latency_agrees_with_independent(cc_build):
    chase = cc_build("chase")
    ours, ref = [], []
    # seven fresh buffers each, alternating, each run short (the noise is the buffer's, not the
    # run's): with base pages one buffer's latency on the project's VM ranges +-20 % from the next
    # (six runs of either tool in a row: 269-377 and 228-292 ns), and the medians of three missed
    # by 10.5 % and 14.4 % in two of about ten suites, of five by 11.2 % in one (agree())
    for _ in range(7):
        # base pages in both: whether a 2 MiB page can be had varies with how fragmented memory is
        # after the other tests (THP for one and not the other moved the ratio to 0.6 once)
        df = memchar("latency", "--cpus", "0", "--buffer-mib", str(BUF_MIB), "--duration", "0.3", "--huge", "off")
        row = df[df["metric"] == "idle_latency"].iloc[0]
        assert int(row["verified"]) == 1, "the chain must be verified to be a single cycle"
        ours.append(float(row["value"]))
        ref.append(run_float(["taskset", "-c", "0", str(chase), str(BUF_MIB), "2000000", "nohuge"]))
    o, r = statistics.median(ours), statistics.median(ref)
    ratio, bound = agree(ours, ref)
    print(f"idle latency: memchar {o:.1f} ns, independent {r:.1f} ns, ratio {ratio:.3f} (within {bound:.3f})")
    assert abs(ratio - 1) < bound, (ours, ref)


@pytest.mark.quiet
def test_read_bandwidth_agrees_with_independent(cc_build):
    readbw = cc_build("readbw")
    ours, ref = [], []
    # five each, alternating (both on transparent huge pages): the medians of three missed by 10.3 %
    # in one suite on the project's VM, where either tool reads 27-30 GB/s from one run to the next
    for _ in range(5):
        df = memchar("bandwidth", "--cpus", "0", "--op", "read", "--threads", "1", "--buffer-mib", str(BUF_MIB), "--duration", "1")
        row = df[df["metric"] == "bandwidth"].iloc[0]
        assert int(row["verified"]) == 1
        ours.append(float(row["value"]))
        ref.append(run_float(["taskset", "-c", "0", str(readbw), str(BUF_MIB), "1"]))
    o, r = statistics.median(ours), statistics.median(ref)
    ratio, bound = agree(ours, ref)
    print(f"read bandwidth (1 thread): memchar {o:.0f} MB/s, independent {r:.0f} MB/s, ratio {ratio:.3f} "
          f"(within {bound:.3f})")
    assert abs(ratio - 1) < bound, (ours, ref)


@pytest.mark.parametrize("args, needle", [
    (["bandwidth", "--op", "read", "--threads", "4096"], "4096"),
    (["latency", "--mem-node", "63"], "63"),
    (["bandwidth", "--op", "sideways", "--threads", "1"], "sideways"),
])
def test_bad_arguments_exit_2_with_one_line(args, needle):
    out = subprocess.run([str(binary("memchar")), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0] and lines[0].startswith("memchar: error:"), out.stderr
