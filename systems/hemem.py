"""HeMem (Raybuck et al., SOSP 2021): PEBS-sampled access counts per page, hot pages promoted to the
default tier; libcolloid's ``hemem`` policy (colloid/src/policy_hemem.c)."""

from systems import System

SYSTEM = System("hemem", "HeMem", color="#0173b2", marker="o", policy="hemem", baseline=True)
