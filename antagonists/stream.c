// SPDX-License-Identifier: MIT
#include "stream.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/*
 * One access is 16 bytes (one 16-byte vector operation) or 64 bytes (one
 * cache line: four 16-byte operations in one loop step). 16-byte vectors are
 * what every x86-64 and AArch64 CPU has; wider vectors would need compiler
 * flags beyond the baseline ISA.
 */
typedef uint64_t v16 __attribute__((vector_size(16), aligned(16)));

bool stream_nt_supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

static uint64_t read_chunk(const void *p, unsigned int access)
{
	const v16 *v = p;
	v16 a0 = { 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
	size_t i;

	if (access == 16) {
		for (i = 0; i < STREAM_CHUNK / 16; i++)
			a0 += v[i];
	} else {
		for (i = 0; i < STREAM_CHUNK / 16; i += 4) {
			a0 += v[i];
			a1 += v[i + 1];
			a2 += v[i + 2];
			a3 += v[i + 3];
		}
	}
	a0 += a1 + a2 + a3;
	return a0[0] ^ a0[1];
}

static void rmw_chunk(void *p, unsigned int access)
{
	v16 *v = p;
	size_t i;

	if (access == 16) {
		for (i = 0; i < STREAM_CHUNK / 16; i++)
			v[i] += 1;
	} else {
		for (i = 0; i < STREAM_CHUNK / 16; i += 4) {
			v[i] += 1;
			v[i + 1] += 1;
			v[i + 2] += 1;
			v[i + 3] += 1;
		}
	}
}

static void write_chunk(void *p, unsigned int access, uint64_t val)
{
	size_t i;

#if defined(__x86_64__)
	__m128i x = _mm_set1_epi64x((long long)val);
	__m128i *v = p;

	if (access == 16) {
		for (i = 0; i < STREAM_CHUNK / 16; i++)
			_mm_stream_si128(v + i, x);
	} else {
		for (i = 0; i < STREAM_CHUNK / 16; i += 4) {
			_mm_stream_si128(v + i, x);
			_mm_stream_si128(v + i + 1, x);
			_mm_stream_si128(v + i + 2, x);
			_mm_stream_si128(v + i + 3, x);
		}
	}
	_mm_sfence();
#else
	v16 *v = p, x = { val, val };

	if (access == 16) {
		for (i = 0; i < STREAM_CHUNK / 16; i++)
			v[i] = x;
	} else {
		for (i = 0; i < STREAM_CHUNK / 16; i += 4) {
			v[i] = x;
			v[i + 1] = x;
			v[i + 2] = x;
			v[i + 3] = x;
		}
	}
#endif
}

static bool stopped(struct stream_cfg *cfg)
{
	return atomic_load_explicit(&cfg->stop, memory_order_relaxed);
}

/* Sleep for d seconds in slices short enough to notice a stop quickly. */
static void pause_for(struct stream_cfg *cfg, double d)
{
	while (d > 0 && !stopped(cfg)) {
		double s = d < 0.02 ? d : 0.02;
		struct timespec ts = {
			.tv_sec = 0,
			.tv_nsec = (long)(s * 1e9),
		};

		nanosleep(&ts, NULL);
		d -= s;
	}
}

static void fail(struct stream_thread *th, enum stream_stage stage, int err)
{
	atomic_store(&th->stage, stage);
	atomic_store(&th->err, err);
}

void *stream_main(void *arg)
{
	struct stream_thread *th = arg;
	struct stream_cfg *cfg = th->cfg;
	size_t len = cfg->buf_bytes, off;
	uint64_t bytes = 0, per_chunk, pass = 1, sink = 0;
	double tokens = 0, burst, last = 0, t;
	char *buf;
	int ret;

	ret = pin_self(th->cpu);
	if (ret) {
		fail(th, STAGE_PIN, ret);
		return NULL;
	}
	ret = region_map(len, cfg->huge, cfg->nodes, cfg->nnodes, 0,
			 (void **)&buf);
	if (ret) {
		fail(th, STAGE_MAP, ret);
		return NULL;
	}
	/* warm-up: allocate every page on this CPU (or the bound node) */
	for (off = 0; off < len && !stopped(cfg); off += STREAM_CHUNK)
		memset(buf + off, 1, STREAM_CHUNK);
	atomic_fetch_add(&cfg->streaming, 1);

	per_chunk = cfg->mode == STREAM_RMW ? 2 * STREAM_CHUNK : STREAM_CHUNK;
	burst = 2.0 * per_chunk;
	if (cfg->rate > 0)
		last = now_s();
	off = 0;
	while (!stopped(cfg)) {
		switch (cfg->mode) {
		case STREAM_READ:
			sink += read_chunk(buf + off, cfg->access);
			break;
		case STREAM_RMW:
			rmw_chunk(buf + off, cfg->access);
			break;
		case STREAM_NTWRITE:
			write_chunk(buf + off, cfg->access, pass);
			break;
		}
		bytes += per_chunk;
		atomic_store_explicit(&th->ctr->bytes, bytes,
				      memory_order_relaxed);
		off += STREAM_CHUNK;
		if (off == len) {
			off = 0;
			pass++;
		}
		if (cfg->duty > 0 && cfg->duty < 1) {
			/* on for the first duty x period of every period of
			 * the monotonic clock (the same periods in every
			 * thread), idle to the next period's start after */
			double in = fmod(now_s(), cfg->period);

			if (in >= cfg->duty * cfg->period)
				pause_for(cfg, cfg->period - in);
			if (cfg->rate > 0)
				last = now_s();	/* no tokens for the idle */
		}
		if (cfg->rate > 0) {
			/* token bucket: rate bytes/s, depth of two chunks */
			t = now_s();
			tokens += (t - last) * cfg->rate;
			last = t;
			if (tokens > burst)
				tokens = burst;
			tokens -= per_chunk;
			if (tokens < 0)
				pause_for(cfg, -tokens / cfg->rate);
		}
	}
	th->sink = sink;
	region_unmap(buf, len);
	return NULL;
}
