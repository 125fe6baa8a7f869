"""TPP (Maruf et al., ASPLOS 2023): NUMA-balancing hint faults promote, kswapd-style reclaim demotes;
libcolloid's ``tpp`` policy (colloid/src/policy_tpp.c) on modelled tiers.

On real tiers without Colloid it is the kernel's own tiering mode: ``numa_balancing=2`` (NUMA
balancing in memory-tiering mode) and ``demotion_enabled=true`` (Linux >= 5.18,
Documentation/admin-guide/sysctl/kernel.rst "numa_balancing", and
Documentation/ABI/testing/sysfs-kernel-mm-numa "demotion_enabled"). With Colloid it is tierd's
TPP: the kernel's TPP cannot take Colloid's signal from user space.
"""

from systems import Kernel, System, Tierd
from workflows.harness.memtiers import kernel_tpp_preconditions

SYSTEM = System(
    "tpp", "TPP", color="#de8f05", marker="s", policy="tpp", baseline=True,
    real=Kernel({"numa_balancing": "2", "demotion_enabled": "true"}, note="kernel TPP (numa_balancing=2)",
                needs="Linux >= 5.18 with NUMA balancing",
                # the default node must be in a higher memory tier than the alternate, and NUMA
                # balancing never scans a range bound with mbind (workflows/harness/memtiers.py);
                # a host profile's tier_setup may place the nodes (hosts/README.md)
                preflight=kernel_tpp_preconditions, unbound=True, tier_setup=True),
    real_colloid=Tierd(note="tierd's TPP with Colloid's sign-only control (the kernel's TPP cannot take Colloid's signal)"),
)
