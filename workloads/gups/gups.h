/* SPDX-License-Identifier: MIT */
/*
 * GUPS kernel: random accesses to fixed-size objects of one buffer, with an
 * optional hot set that receives a given share of the accesses.
 *
 * Objects are owned by threads round-robin (object i belongs to thread
 * i mod nthreads), so read-modify-writes need no atomics and the checksum
 * over the buffer is exact. Each thread draws uniformly among its own
 * objects of the chosen (hot or cold) range; over all threads every object
 * of a range is equally likely.
 */
#ifndef TIERBENCH_GUPS_H
#define TIERBENCH_GUPS_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

enum gups_op { GUPS_READ, GUPS_RMW, GUPS_MIX };

/* Objects first[j] + k * stride for k < count[j], j = 0, 1. */
struct gups_pick {
	uint64_t first[2];
	uint64_t count[2];
	uint64_t total;
};

/* What one thread may draw from in one phase. */
struct gups_sel {
	struct gups_pick hot;
	struct gups_pick cold;
};

/* Written by one worker, read by the reporting thread. */
struct gups_counter {
	alignas(64) _Atomic uint64_t updates;
	_Atomic uint64_t rmw;
};

struct gups_cfg {
	uint64_t *buf;
	uint64_t nobj;		/* objects in the working set */
	unsigned int obj_words;	/* 8-byte words per object */
	unsigned int nthreads;
	enum gups_op op;
	uint64_t hot_thresh;	/* hot share scaled to 2^64 */
	uint64_t read_thresh;	/* read share of GUPS_MIX scaled to 2^64 */
	uint64_t nhot;		/* objects in the hot set (0: uniform) */
	uint64_t hot_start[2];	/* first hot object in phase 0 and 1 */
	uint64_t seed;
	_Atomic int stop;
	_Atomic int phase;
};

struct gups_thread {
	struct gups_cfg *cfg;
	unsigned int id;
	int cpu;
	_Atomic int err;	/* -errno from pinning, 0 if fine */
	struct gups_sel sel[2];
	struct gups_counter *ctr;
	uint64_t sum;		/* word sum of the thread's slice (touch/verify) */
	uint64_t sink;		/* keeps reads alive */
	pthread_t tid;
};

/* Fill sel[0..1] for thread id; 0 or -EINVAL if a needed range is empty. */
int gups_plan(const struct gups_cfg *cfg, unsigned int id,
	      struct gups_sel sel[2]);
/* Probability p in [0, 1] as a threshold against a uniform 64-bit draw. */
uint64_t gups_threshold(double p);

/* Thread bodies; arg is a struct gups_thread. */
void *gups_touch_main(void *arg);	/* write initial words, sum them */
void *gups_run_main(void *arg);	/* timed accesses until cfg->stop */
void *gups_sum_main(void *arg);	/* sum the thread's slice */

#endif
