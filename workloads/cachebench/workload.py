"""CacheLib's CacheBench (github.com/facebook/CacheLib at v2024.06.03.00 and its dependency chain,
pinned; built by build.sh into a prefix that is kept, or the user's binary named by the host
profile's ``tools/cachebench``) with the Colloid paper's HeMemKV workload: config, argv, protocol,
parser, build recipe.

HeMemKV: 64 B keys, 4096 B values, 20 % of the keys get 90 % of the accesses, get : update = 9 : 1
(an update is a ``set`` of a new 4 KiB value), lookaside (a get miss sets the key), one 4224 B
allocation class; scaled by ``size_mib``, the item memory (keys x 4224 B), with a cache that holds
every key. ``python -m workloads.cachebench.workload config ...`` writes the JSON test config.

Protocol: ``cachebench --json_test_config FILE --progress 1`` prints the config, a progress line
every second (``HH:MM:SS  N.NNM ops completed. Hit Ratio ...``) and, at the end, the throughput
block: ``get : 2,477,499/s, success : 99.58%`` (folly's thousands separators in this version;
the plain ``2477499/s`` is read too); exit 0. The metric is the get rate (ops/s over the whole
run, all threads), as the paper reports it. See README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

from workflows.harness.scenario import role as scenario_role
from workloads.upstream import Pin

NAME = "cachebench"
_CHAIN = [  # (archive name, GitHub repository, commit, sha256 of the git archive), in build order
    ("fmt", "fmtlib/fmt", "e69e5f977d458f2650bb346dadf2ad30c5320281",
     "3a5350320f5a45c9300d0cedca0b66a168e486b2becf5ee33cdde35d908b33fc"),
    ("zstd", "facebook/zstd", "8420502ef9d5980d2297c88f80d19ae18f84f6df",
     "0e682a4fce92f3e0dfe89ece5fc5318925de5bcfe21d50c1a8c0b1c45db3d3e2"),
    ("sparse-map", "Tessil/sparse-map", "8610e84b96f5fc996f0d3575d15b8932c5b92297",
     "cca6c736fbcb8640bad9db24513ae9c4503cf646be958e7361c454cb008740ba"),
    ("folly", "facebook/folly", "4a96830b790513091f78aee6cc943a669713e855",
     "117105bc08d37b0410db7428a3f259b16f13a887eedb5e5c6b8bcd28585c4c43"),
    ("fizz", "facebookincubator/fizz", "824cbbe249ebb944edb97e348caea91a4d2ee750",
     "c825ca4a08a45476c39f2467e3092156f6ec1df226b4a6ad5cbcedddb60048bc"),
    ("wangle", "facebook/wangle", "8d32d1bf554777d9fde3eb2fb1019c2b51209a14",
     "af2e30af9012a222695b45bfdbf5c4286a3d0785268956b244a382aba3d9e4af"),
    ("mvfst", "facebook/mvfst", "433d82d61413e323a553ab4586727017577a4d23",
     "64b08d04db5de6a152bcae8e8ef605a357babe6c0797e7dcb8054f8b5a31770f"),
    ("fbthrift", "facebook/fbthrift", "b0901104ac78a24cbc2e017498035329327b76be",
     "5dadb6d0a0819a8530ba148545f98262fd298913e3a50972a67d20a4d582e7ee"),
    ("cachelib", "facebook/CacheLib", "9f3d323081b7648cd07050c5d435781edeb12cfa",
     "d853bd6003ba8e1bdbf22c03ea48843419fbdd5bd13ac69baadf6221ead0bd74"),
]
PINS = [Pin(*c) for c in _CHAIN]
_SCRIPT = "workloads/cachebench/build.sh"
PACKAGES = "workloads/cachebench/debian-packages.txt"
PREFIX = "build/src/cachebench"  # the build script's work directory: the kept install prefix
BUILDS = {"cachebench": {"upstream": [p.archive for p in PINS], "script": _SCRIPT, "sources": [_SCRIPT, PACKAGES]}}
BUILT = "build/bin/cachebench"
CONFIG_DIR = "build/cachebench"

KEY_BYTES, VALUE_BYTES, ALLOC_BYTES = 64, 4096, 4224  # an item: key, value and CacheLib's header
OVERHEAD_MIB = 100  # libraries, threads, allocator metadata (measured: README.md)


def debian_packages(repo: Path = Path(".")) -> list[str]:
    text = (repo / PACKAGES).read_text()
    return [w for line in text.splitlines() for w in line.split("#", 1)[0].split()]


def keys_of(size_mib: float) -> int:
    return max(1000, int(size_mib * 2**20 // ALLOC_BYTES))


def ht_power(keys: int) -> int:
    """CacheLib's hash table buckets (2^power, 4 B each): its default 22 up to ~2M keys."""
    return min(32, max(22, math.ceil(math.log2(keys)) + 1))


def config(*, keys: int, ops_per_thread: int, threads: int) -> dict:
    """The HeMemKV test config for CacheBench (its JSON test config, as a dict)."""
    cache_mb = max(64, math.ceil(keys * ALLOC_BYTES * 1.25 / 2**20))  # every key fits (pool ~80 % full)
    return {
        "cache_config": {"cacheSizeMB": cache_mb, "allocSizes": [ALLOC_BYTES], "poolRebalanceIntervalSec": 0,
                         "htBucketPower": ht_power(keys)},
        "test_config": {
            "generator": "workload", "enableLookaside": True, "numThreads": threads, "numKeys": keys,
            "numOps": ops_per_thread,
            "keySizeRange": [KEY_BYTES, KEY_BYTES + 1], "keySizeRangeProbability": [1.0],
            "valSizeRange": [VALUE_BYTES], "valSizeRangeProbability": [1.0],
            "popularityBuckets": [20, 80], "popularityWeights": [90, 10],
            "getRatio": 0.9, "setRatio": 0.1,
        },
    }


def config_file(*, keys: int, ops_per_thread: int, threads: int) -> str:
    """Where a rule of the apps family writes that config (families/apps/rules.smk)."""
    return f"{CONFIG_DIR}/hememkv-keys{keys}-ops{ops_per_thread}-threads{threads}.json"


def footprint_mib(*, keys: int, ops_per_thread: int, threads: int) -> float:
    """Resident set, roughly: the items, the pre-sampled key indices (4 B per op), the hash table,
    key strings and requests (~0.2 KiB per key) and a fixed overhead."""
    return (keys * ALLOC_BYTES + 4 * ops_per_thread * threads + 4 * 2 ** ht_power(keys) + 200 * keys) / 2**20 \
        + OVERHEAD_MIB


def argv(binary: str, config_path: str) -> list[str]:
    return [binary, "--json_test_config", config_path, "--progress", "1"]


def role(argv_: list[str]) -> dict:
    # ready once the accesses are generated and the run starts (the cache then fills by lookaside)
    return scenario_role("cachebench", argv_, stdout="cachebench.out", ready_line="ops to be run",
                         parse="workloads.cachebench.workload:rows")


NUM = r"(\d[\d,]*)"  # 2,477,499 or 2477499
RATE = re.compile(rf"^(get|set|del|couldExist)\s*:\s*{NUM}/s")
HIT = re.compile(r"^Hit Ratio\s*:\s*([0-9.]+)%")
PROGRESS = re.compile(r"^(\d\d):(\d\d):(\d\d)\s+([0-9.]+)M ops completed")


def _num(s: str) -> float:
    return float(s.replace(",", ""))


def parse(text: str) -> list[dict]:
    """The get rate (``throughput``, the metric), the set rate and hit ratio at the end of the run;
    the rate of all operations between progress lines (``op_throughput`` at ``t_s``)."""
    out, last = [], None
    for line in text.splitlines():
        line = line.strip()
        m = PROGRESS.match(line)
        if m:
            t, ops = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)), float(m.group(4)) * 1e6
            if last is not None:
                t0 = last[2]
                dt = (t - last[0]) % 86400  # past midnight
                if dt > 0:
                    out.append({"t_s": (t - t0) % 86400, "metric": "op_throughput", "value": (ops - last[1]) / dt,
                                "unit": "ops/s", "tool": NAME})
            last = (t, ops, last[2] if last else t)
            continue
        m = RATE.match(line)
        if m and m.group(1) in ("get", "set"):
            name = "throughput" if m.group(1) == "get" else "set_throughput"
            out.append({"metric": name, "value": _num(m.group(2)), "unit": f"{m.group(1)} ops/s", "tool": NAME})
            continue
        m = HIT.match(line)
        if m:
            out.append({"metric": "hit_ratio", "value": float(m.group(1)), "unit": "%", "tool": NAME})
    return out


def rows(outdir: Path, role_: dict, opts: dict) -> list[dict]:
    return parse((outdir / role_["stdout"]).read_text())


def main(argv_: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="write a HeMemKV test config for CacheBench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("config")
    c.add_argument("--keys", type=int, required=True)
    c.add_argument("--ops-per-thread", type=int, required=True)
    c.add_argument("--threads", type=int, required=True)
    a = ap.parse_args(argv_)
    json.dump(config(keys=a.keys, ops_per_thread=a.ops_per_thread, threads=a.threads), sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
