"""memchar against an independent simple implementation (tests/independent/*.c).

Both run on the same CPU and node with the same buffer size and huge-page
advice; the results must agree within 10 %. Timings on a shared VM are noisy,
so each side is measured a few times, interleaved, and medians are compared.
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


def test_selftest_verifies_single_cycle_chain():
    out = subprocess.run([str(binary("memchar")), "selftest"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.quiet
def test_idle_latency_agrees_with_independent(cc_build):
    chase = cc_build("chase")
    ours, ref = [], []
    # five fresh buffers each, alternating: with base pages one buffer's latency on the project's
    # VM ranges +-20 % from the next (six runs of either tool in a row: 269-377 and 228-292 ns),
    # and the medians of three missed by 10.5 % and 14.4 % in two of about ten suites
    for _ in range(5):
        # base pages in both: whether a 2 MiB page can be had varies with how fragmented memory is
        # after the other tests (THP for one and not the other moved the ratio to 0.6 once)
        df = memchar("latency", "--cpus", "0", "--buffer-mib", str(BUF_MIB), "--duration", "0.5", "--huge", "off")
        row = df[df["metric"] == "idle_latency"].iloc[0]
        assert int(row["verified"]) == 1, "the chain must be verified to be a single cycle"
        ours.append(float(row["value"]))
        ref.append(run_float(["taskset", "-c", "0", str(chase), str(BUF_MIB), "5000000", "nohuge"]))
    o, r = statistics.median(ours), statistics.median(ref)
    print(f"idle latency: memchar {o:.1f} ns, independent {r:.1f} ns, ratio {o / r:.3f}")
    assert abs(o / r - 1) < 0.10


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
    print(f"read bandwidth (1 thread): memchar {o:.0f} MB/s, independent {r:.0f} MB/s, ratio {o / r:.3f}")
    assert abs(o / r - 1) < 0.10


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
