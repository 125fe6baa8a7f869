#!/bin/sh
# SPDX-License-Identifier: MIT
# yield_cpu.sh PID: where this run measures points on this machine (TIERBENCH_YIELD_CPU=1, set by
# workflows/rules/common.smk), put process PID (a job's shell: `sh workflows/harness/yield_cpu.sh $$`)
# under SCHED_IDLE, so that it and everything it starts run only on the cycles the measured points
# leave. SCHED_IDLE "is even weaker than nice 19" (Documentation/scheduler/sched-design-CFS.rst,
# "SCHEDULING POLICIES"; kernel/sched/core.c, set_load_weight(): weight WEIGHT_IDLEPRIO = 3 against
# 1024 at nice 0); any thread may lower itself to it, only the way back needs CAP_SYS_NICE
# (kernel/sched/syscalls.c, user_check_sched_setscheduler()). chrt is util-linux's; where it is
# missing or refused, renice -n 19 (raising a nice value is never refused). Never fails the job.
[ "${TIERBENCH_YIELD_CPU:-}" = 1 ] || exit 0
chrt --idle --pid 0 "$1" 2>/dev/null || renice -n 19 -p "$1" >/dev/null 2>&1 || true
