/* SPDX-License-Identifier: MIT */
/* Cache-line write-back/flush and store fence (x86-64; no-ops elsewhere). */
#ifndef MEMCHAR_FLUSH_H
#define MEMCHAR_FLUSH_H

#include <stdatomic.h>

#include "memchar.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/*
 * One line of v: on x86-64 four explicit 16 B SSE2 stores (the width every
 * write kernel records in access_bytes; written out so the compiler's
 * vectorizer cannot change it), elsewhere eight 64-bit stores.
 */
static inline __attribute__((always_inline)) void mc_store_line(uint64_t *p, uint64_t v)
{
#if defined(__x86_64__)
	__m128i x = _mm_set1_epi64x((long long)v);
	__m128i *q = (__m128i *)p;

	_mm_store_si128(q, x);
	_mm_store_si128(q + 1, x);
	_mm_store_si128(q + 2, x);
	_mm_store_si128(q + 3, x);
#else
	p[0] = v;
	p[1] = v;
	p[2] = v;
	p[3] = v;
	p[4] = v;
	p[5] = v;
	p[6] = v;
	p[7] = v;
#endif
}

static inline __attribute__((always_inline)) void
mc_flush_line(void *p, enum mc_flush f)
{
#if defined(__x86_64__)
	switch (f) {
	case MC_FLUSH_CLWB:
		__asm__ __volatile__("clwb %0" : "+m"(*(volatile char *)p));
		break;
	case MC_FLUSH_CLFLUSHOPT:
		__asm__ __volatile__("clflushopt %0"
				     : "+m"(*(volatile char *)p));
		break;
	case MC_FLUSH_CLFLUSH:
		__asm__ __volatile__("clflush %0" : "+m"(*(volatile char *)p));
		break;
	case MC_FLUSH_NONE:
		break;
	}
#else
	(void)p;
	(void)f;
#endif
}

static inline __attribute__((always_inline)) void mc_store_fence(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("sfence" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

#endif /* MEMCHAR_FLUSH_H */
