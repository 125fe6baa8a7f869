/* SPDX-License-Identifier: MIT */
/*
 * Memory-bandwidth antagonist: each thread streams sequentially over its own
 * buffer, reading, reading-modifying-writing, or writing with non-temporal
 * stores, in accesses of 16 or 64 bytes, optionally rate-limited.
 */
#ifndef TIERBENCH_STREAM_H
#define TIERBENCH_STREAM_H

#include "tbutil.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of buffer between two looks at the clock and the stop flag. */
#define STREAM_CHUNK (64UL << 10)

enum stream_mode {
	STREAM_READ,	/* --write-fraction 0 */
	STREAM_RMW,	/* --write-fraction 50 */
	STREAM_NTWRITE,	/* --write-fraction 100 */
};

/* Written by one thread, read by the reporting thread. */
struct stream_counter {
	alignas(64) _Atomic uint64_t bytes;
};

struct stream_cfg {
	size_t buf_bytes;	/* per thread, a multiple of STREAM_CHUNK */
	enum stream_mode mode;
	unsigned int access;	/* 16 or 64 */
	double rate;		/* bytes/s per thread; 0 = unlimited */
	double duty;		/* share of each period streamed; 1 = always */
	double period;		/* seconds per duty period */
	enum huge_mode huge;
	const int *nodes;	/* 0 or 1 node to bind the buffers to */
	int nnodes;
	_Atomic int stop;
	_Atomic unsigned int streaming;	/* threads past their warm-up */
};

enum stream_stage { STAGE_PIN = 1, STAGE_MAP };

struct stream_thread {
	struct stream_cfg *cfg;
	int cpu;
	_Atomic int err;		/* -errno, 0 if fine */
	_Atomic int stage;		/* enum stream_stage of err */
	struct stream_counter *ctr;
	uint64_t sink;			/* keeps reads alive */
	pthread_t tid;
};

/* true where --write-fraction 100 uses real non-temporal stores */
bool stream_nt_supported(void);

/* Thread body; arg is a struct stream_thread. */
void *stream_main(void *arg);

#endif
