"""MEMTIS (Lee et al., SOSP 2023): PEBS-sampled page access histogram with a dynamic hot threshold;
libcolloid's ``memtis`` policy (colloid/src/policy_memtis.c)."""

from systems import System

SYSTEM = System("memtis", "MEMTIS", color="#029e73", marker="^", policy="memtis", baseline=True)
