/* SPDX-License-Identifier: MIT */
/* Helpers shared by the mode drivers (mode_*.c). */
#ifndef MEMCHAR_MODES_H
#define MEMCHAR_MODES_H

#include "memchar.h"

extern volatile uintptr_t mc_sink;

/* Map, build, place-check and verify a chain; prints its own errors. */
int mc_chain_setup(struct mc_ctx *c, size_t bytes, struct mc_region *r,
		   char *backing, size_t blen);
/*
 * Timing in chunks (about 0.1-1 ms each). A chunk during which the thread
 * was involuntarily switched out (getrusage ru_nivcsw) is left out of the
 * "clean" figures, as its time includes another task's run.
 */
struct mc_timing {
	uint64_t n, ns;			/* all chunks: operations, time */
	uint64_t clean_n, clean_ns;	/* chunks without a preemption */
	uint64_t chunks, dropped;
	long preempted;
};

void mc_timing_add(struct mc_timing *t, uint64_t n, uint64_t dt,
		   long preempted);
/*
 * The end of one timed chunk of a chase (mc_chase_for, objsize's): its
 * groups' times d[0..groups) into the histogram (left out whole if the
 * thread was switched out since csw_prev), its groups x per_group accesses
 * and their time dt, less the clock reads, into *t. Returns the thread's
 * preemption count now, the next chunk's csw_prev.
 */
long mc_chunk_done(struct mc_timing *t, struct mc_tail *tail, const uint32_t *d,
		   size_t groups, uint64_t per_group, uint64_t dt, long csw_prev);
/* ns per operation: over clean chunks, or over all if none was clean. */
double mc_timing_per_op(const struct mc_timing *t);
/*
 * Chase for about ns nanoseconds in timed groups, the mean into *t (clock
 * cost subtracted), the distribution into *tail.
 */
void mc_chase_for(struct mc_line **p, uint64_t ns, struct mc_timing *t,
		  struct mc_tail *tail);
/*
 * A group longer than MC_OUTLIER_FACTOR x the warm-up's median group (at
 * least MC_OUTLIER_FLOOR_NS) is taken as interrupted (--outlier-ns sets
 * the cap instead).
 */
#define MC_OUTLIER_FACTOR	8.0
#define MC_OUTLIER_FLOOR_NS	4000
/* Timed warm-up: measure the clock's cost, set the cap, reset *tail. */
void mc_tail_prepare(struct mc_line **p, uint64_t warm_ns,
		     const struct mc_opts *o, struct mc_tail *tail);
static inline uint64_t mc_tail_warm_ns(double duration)
{
	uint64_t w = (uint64_t)(duration * 1e9 / 10);

	return w < 50000000ULL ? w : 50000000ULL;
}
/* The timer_cost rows (clock_gettime, and rdtscp where there is one). */
void mc_timer_rows(struct mc_ctx *c, const char *cpus);
/* A point's quantile / interrupted / groups rows beside its mean row. */
int mc_tail_rows(struct mc_ctx *c, const struct mc_row *base,
		 const struct mc_tail *tail);
void mc_tail_say(const char *what, const char *unit,
		 const struct mc_tail *tail);

/* Report a failed mc_region_alloc of count x bytes (on target t, named name). */
void mc_alloc_error(const struct mc_ctx *c, int count, size_t bytes, int err);
void mc_target_alloc_error(const struct mc_ctx *c, const struct mc_target *t,
			   const char *name, int count, size_t bytes, int err);

/* Kernel iterations between clock / stop-flag checks. */
size_t mc_stream_chunk(const struct mc_op *op, unsigned int delay);

/* Threads streaming (--op) over their own buffers on one target. */
struct mc_group {
	struct mc_target *tgt;
	const char *name;	/* "node:M" or "dax:PATH", for messages */
	const int *cpu;		/* CPUs of its threads, one each */
	int n;			/* threads; 0: an empty group */
	/* results of mc_streams_run() */
	uint64_t bytes;		/* read + written by its threads */
	int verified;		/* 1: every buffer passed the check */
	size_t buffer_bytes;	/* per thread, as mapped */
	char backing[32];	/* page backing of its buffers */
};

/*
 * Fill, time and verify the threads of all groups together: one gate,
 * each thread streaming bytes (per thread) for --duration. *secs gets the
 * window from the earliest thread start to the last thread done, the same
 * for every group. Prints its own errors; 0 or -errno.
 */
int mc_streams_run(struct mc_ctx *c, struct mc_group *g, int ngroups,
		   size_t bytes, double *secs);

#endif /* MEMCHAR_MODES_H */
