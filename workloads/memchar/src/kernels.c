// SPDX-License-Identifier: MIT
/*
 * Streaming bandwidth kernels (bandwidth and loaded modes).
 *
 * One *iteration* is the unit each kernel repeats; bytes per iteration
 * (read + written, as the program issues them; write-allocate (RFO) reads
 * the hardware adds for regular stores are not counted):
 *
 *   read     64 + 0   one 64 B line of src: 8 x 64-bit loads, summed
 *   write     0 + 64  one 64 B line of dst: 8 x 64-bit regular stores
 *   ntwrite   0 + 64  one 64 B line of dst: 4 x 16 B non-temporal stores
 *                     (movntdq), sfence at the end of every chunk
 *   pwrite    0 + 64  one 64 B line of dst: 8 x 64-bit regular stores,
 *                     clwb (else clflushopt, else clflush) of the line,
 *                     sfence: a persistent write per line, as MLC's
 *                     PMem write mode does (store + CLWB + fence)
 *   mixR:1 64R + 64   R consecutive lines of src summed, then one line
 *                     of dst stored (regular stores); src holds R/(R+1)
 *                     of the buffer, dst the rest (MLC-style R:W ratio)
 *   rmw    64 + 64    one 64 B line of dst read and written back in place,
 *                     every 64-bit word + 1 (16 B vector adds on x86-64):
 *                     the traffic of the antagonist's RMW stream
 *                     (antagonists/stream.c rmw_chunk, counted the same
 *                     way: 64 B read + 64 B written per line), so a
 *                     loaded-latency curve can be measured under it
 *
 * Data is known, so results are checked after timing (as STREAM does):
 * src word i holds mc_fill_word(i) and the sum of everything read must
 * equal the closed-form sum; line l of dst, last written in pass k,
 * holds pattern(k, l) in all 8 words. A pass is one sweep over the
 * region; runs may stop mid-pass and the checks account for that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "flush.h"
#include "memchar.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MC_MAX_MIX	8

#define FILL_MUL	0x9e3779b97f4a7c15ULL
#define PAT_BASE	0x5bd1e9955bd1e995ULL
#define PAT_PASS	0x00000100000001b3ULL

#define always_inline inline __attribute__((always_inline))

int mc_op_parse(const char *s, struct mc_op *op)
{
	unsigned int r, w;
	int used = 0;

	memset(op, 0, sizeof(*op));
	if (!strcmp(s, "read")) {
		op->kind = MC_OP_READ;
	} else if (!strcmp(s, "write")) {
		op->kind = MC_OP_WRITE;
	} else if (!strcmp(s, "ntwrite")) {
		op->kind = MC_OP_NTWRITE;
	} else if (!strcmp(s, "rmw")) {
		op->kind = MC_OP_RMW;
	} else if (!strcmp(s, "pwrite")) {
		op->kind = MC_OP_PWRITE;
	} else if (sscanf(s, "mix%u:%u%n", &r, &w, &used) == 2 &&
		   !s[used] && w == 1 && r >= 1 && r <= MC_MAX_MIX &&
		   s[3] >= '1' && s[3] <= '9') {
		op->kind = MC_OP_MIX;
		op->ratio = r;
	} else {
		return -EINVAL;
	}
	snprintf(op->name, sizeof(op->name), "%s", s);
	return 0;
}

bool mc_op_supported(const struct mc_op *op)
{
	if (op->kind == MC_OP_PWRITE)
		return mc_flush_detect() != MC_FLUSH_NONE;
#if defined(__x86_64__)
	return true;
#else
	return op->kind != MC_OP_NTWRITE;
#endif
}

void mc_op_bytes(const struct mc_op *op, unsigned int *rd, unsigned int *wr)
{
	*rd = 0;
	*wr = 0;
	switch (op->kind) {
	case MC_OP_READ:
		*rd = MC_LINE;
		*wr = 0;
		break;
	case MC_OP_WRITE:
	case MC_OP_NTWRITE:
	case MC_OP_PWRITE:
		*rd = 0;
		*wr = MC_LINE;
		break;
	case MC_OP_MIX:
		*rd = MC_LINE * op->ratio;
		*wr = MC_LINE;
		break;
	case MC_OP_RMW:
		*rd = MC_LINE;
		*wr = MC_LINE;
		break;
	}
}

void mc_op_bytes_str(const struct mc_op *op, char *buf, size_t len)
{
	unsigned int rd, wr;

	mc_op_bytes(op, &rd, &wr);
	snprintf(buf, len, "%u+%u", rd, wr);
}

/*
 * Width of one access as the kernels below issue it: on x86-64 16 B SSE2
 * loads/stores written out with intrinsics (movdqa, movntdq for ntwrite);
 * elsewhere the portable C of 64-bit words (8; a compiler that vectorizes
 * it may widen them there).
 */
int mc_op_access_bytes(const struct mc_op *op)
{
#if defined(__x86_64__)
	(void)op;
	return 16;
#else
	return op->kind == MC_OP_NTWRITE ? 16 : 8;
#endif
}

uint64_t mc_fill_word(uint64_t i, uint64_t salt)
{
	return (i + salt) * FILL_MUL;
}

/* sum_{i<m} (i + salt) * K  (mod 2^64), in closed form. */
uint64_t mc_fill_sum(uint64_t m, uint64_t salt)
{
	uint64_t tri = (m % 2 == 0) ? (m / 2) * (m - 1) : m * ((m - 1) / 2);

	if (!m)
		return 0;
	return (m * salt + tri) * FILL_MUL;
}

static inline uint64_t pattern(uint64_t salt, uint64_t pass, uint64_t line)
{
	return (salt ^ PAT_BASE) + pass * PAT_PASS + line;
}

int mc_stream_init(struct mc_stream *s, const struct mc_op *op, void *buf,
		   size_t bytes, uint64_t salt)
{
	size_t lines = bytes / MC_LINE;

	memset(s, 0, sizeof(*s));
	s->op = *op;
	s->salt = salt;
	s->pass = 1;
	switch (op->kind) {
	case MC_OP_READ:
		s->src = buf;
		s->src_lines = lines;
		s->iters_per_pass = lines;
		break;
	case MC_OP_WRITE:
	case MC_OP_NTWRITE:
	case MC_OP_PWRITE:
	case MC_OP_RMW:
		s->dst = buf;
		s->dst_lines = lines;
		s->iters_per_pass = lines;
		break;
	case MC_OP_MIX:
		if (!op->ratio || op->ratio > MC_MAX_MIX)
			return -EINVAL;
		s->dst_lines = lines / (op->ratio + 1);
		s->src_lines = s->dst_lines * op->ratio;
		s->src = buf;
		s->dst = (uint64_t *)buf + s->src_lines * MC_LINE_WORDS;
		s->iters_per_pass = s->dst_lines;
		break;
	}
	if (!s->iters_per_pass)
		return -EINVAL;
	if (!mc_op_supported(op))
		return -EOPNOTSUPP;
	if (op->kind == MC_OP_PWRITE)
		s->flush = mc_flush_detect();
	return 0;
}

void mc_stream_fill(struct mc_stream *s)
{
	for (size_t i = 0; i < s->src_lines * MC_LINE_WORDS; i++)
		s->src[i] = mc_fill_word(i, s->salt);
	for (size_t l = 0; l < s->dst_lines; l++) {
		uint64_t v = pattern(s->salt, 0, l);

		for (size_t w = 0; w < MC_LINE_WORDS; w++)
			s->dst[l * MC_LINE_WORDS + w] = v;
	}
}

/* ---- kernels: n iterations; delay = spin iterations after each ---- */

/*
 * Summing reads of one line: on x86-64 four explicit 16 B SSE2 loads (the
 * width read and mix record in access_bytes, written out so the compiler's
 * vectorizer cannot change it), elsewhere eight 64-bit loads. The sum of
 * every word is the same either way (addition mod 2^64).
 */
#if defined(__x86_64__)
struct racc {
	__m128i a, b;
};

static always_inline void racc_init(struct racc *r)
{
	r->a = _mm_setzero_si128();
	r->b = _mm_setzero_si128();
}

static always_inline void racc_line(struct racc *r, const uint64_t *p)
{
	const __m128i *q = (const __m128i *)p;

	r->a = _mm_add_epi64(r->a, _mm_add_epi64(_mm_load_si128(q),
						 _mm_load_si128(q + 2)));
	r->b = _mm_add_epi64(r->b, _mm_add_epi64(_mm_load_si128(q + 1),
						 _mm_load_si128(q + 3)));
}

static always_inline uint64_t racc_sum(const struct racc *r)
{
	__m128i s = _mm_add_epi64(r->a, r->b);

	return (uint64_t)_mm_cvtsi128_si64(s) +
	       (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s));
}
#else
struct racc {
	uint64_t s0, s1, s2, s3;
};

static always_inline void racc_init(struct racc *r)
{
	r->s0 = r->s1 = r->s2 = r->s3 = 0;
}

static always_inline void racc_line(struct racc *r, const uint64_t *p)
{
	r->s0 += p[0] + p[4];
	r->s1 += p[1] + p[5];
	r->s2 += p[2] + p[6];
	r->s3 += p[3] + p[7];
}

static always_inline uint64_t racc_sum(const struct racc *r)
{
	return r->s0 + r->s1 + r->s2 + r->s3;
}
#endif

/* read: 64 B read + 0 B written per iteration */
static always_inline uint64_t k_read(const uint64_t *p, size_t n,
				     unsigned int delay)
{
	struct racc a;

	racc_init(&a);
	for (size_t i = 0; i < n; i++, p += MC_LINE_WORDS) {
		racc_line(&a, p);
		if (delay)
			mc_spin(delay);
	}
	return racc_sum(&a);
}

/* write: 0 B read + 64 B written per iteration; line l gets v0 + l */
static always_inline void k_write(uint64_t *p, size_t n, uint64_t v,
				  unsigned int delay)
{
	for (size_t i = 0; i < n; i++, p += MC_LINE_WORDS, v++) {
		mc_store_line(p, v);
		if (delay)
			mc_spin(delay);
	}
}

#if defined(__x86_64__)
/* ntwrite: 0 B read + 64 B written per iteration (movntdq x 4) */
static always_inline void k_ntwrite(uint64_t *p, size_t n, uint64_t v,
				    unsigned int delay)
{
	for (size_t i = 0; i < n; i++, p += MC_LINE_WORDS, v++) {
		__m128i x = _mm_set1_epi64x((long long)v);
		__m128i *q = (__m128i *)p;

		_mm_stream_si128(q, x);
		_mm_stream_si128(q + 1, x);
		_mm_stream_si128(q + 2, x);
		_mm_stream_si128(q + 3, x);
		if (delay)
			mc_spin(delay);
	}
	_mm_sfence();
}
#endif

/* pwrite: 0 B read + 64 B written per iteration, each line persisted */
static always_inline void k_pwrite(uint64_t *p, size_t n, uint64_t v,
				   unsigned int delay, enum mc_flush f)
{
	for (size_t i = 0; i < n; i++, p += MC_LINE_WORDS, v++) {
		mc_store_line(p, v);
		mc_flush_line(p, f);
		mc_store_fence();
		if (delay)
			mc_spin(delay);
	}
}

/* rmw: 64 B read + 64 B written per iteration, the same line, each word + 1 */
static always_inline void k_rmw(uint64_t *p, size_t n, unsigned int delay)
{
	for (size_t i = 0; i < n; i++, p += MC_LINE_WORDS) {
#if defined(__x86_64__)
		__m128i *q = (__m128i *)p;
		const __m128i one = _mm_set1_epi64x(1);

		_mm_store_si128(q, _mm_add_epi64(_mm_load_si128(q), one));
		_mm_store_si128(q + 1, _mm_add_epi64(_mm_load_si128(q + 1), one));
		_mm_store_si128(q + 2, _mm_add_epi64(_mm_load_si128(q + 2), one));
		_mm_store_si128(q + 3, _mm_add_epi64(_mm_load_si128(q + 3), one));
#else
		for (unsigned int w = 0; w < MC_LINE_WORDS; w++)
			p[w] += 1;
#endif
		if (delay)
			mc_spin(delay);
	}
}

/* mixR:1: 64R B read + 64 B written per iteration */
static always_inline uint64_t k_mix(const uint64_t *src, uint64_t *dst,
				    size_t n, unsigned int r, uint64_t v,
				    unsigned int delay)
{
	struct racc a;

	racc_init(&a);
	for (size_t i = 0; i < n; i++, dst += MC_LINE_WORDS, v++) {
		for (unsigned int k = 0; k < r; k++, src += MC_LINE_WORDS)
			racc_line(&a, src);
		mc_store_line(dst, v);
		if (delay)
			mc_spin(delay);
	}
	return racc_sum(&a);
}

/* Run n iterations starting at iteration `at` of the current pass. */
static void run_span(struct mc_stream *s, size_t at, size_t n,
		     unsigned int delay)
{
	uint64_t v = pattern(s->salt, s->pass, at);
	unsigned int r = s->op.ratio;

	switch (s->op.kind) {
	case MC_OP_READ: {
		const uint64_t *p = s->src + at * MC_LINE_WORDS;

		s->sum += delay ? k_read(p, n, delay) : k_read(p, n, 0);
		break;
	}
	case MC_OP_WRITE: {
		uint64_t *p = s->dst + at * MC_LINE_WORDS;

		if (delay)
			k_write(p, n, v, delay);
		else
			k_write(p, n, v, 0);
		break;
	}
	case MC_OP_NTWRITE:
#if defined(__x86_64__)
	{
		uint64_t *p = s->dst + at * MC_LINE_WORDS;

		if (delay)
			k_ntwrite(p, n, v, delay);
		else
			k_ntwrite(p, n, v, 0);
	}
#endif
		break;
	case MC_OP_PWRITE: {
		uint64_t *p = s->dst + at * MC_LINE_WORDS;

		switch (s->flush) {
		case MC_FLUSH_CLWB:
			k_pwrite(p, n, v, delay, MC_FLUSH_CLWB);
			break;
		case MC_FLUSH_CLFLUSHOPT:
			k_pwrite(p, n, v, delay, MC_FLUSH_CLFLUSHOPT);
			break;
		case MC_FLUSH_CLFLUSH:
			k_pwrite(p, n, v, delay, MC_FLUSH_CLFLUSH);
			break;
		case MC_FLUSH_NONE:
			break;
		}
		break;
	}
	case MC_OP_RMW: {
		uint64_t *p = s->dst + at * MC_LINE_WORDS;

		if (delay)
			k_rmw(p, n, delay);
		else
			k_rmw(p, n, 0);
		break;
	}
	case MC_OP_MIX: {
		const uint64_t *src = s->src + at * r * MC_LINE_WORDS;
		uint64_t *dst = s->dst + at * MC_LINE_WORDS;

		/* Constant ratios let the compiler unroll the inner loop. */
		if (delay)
			s->sum += k_mix(src, dst, n, r, v, delay);
		else if (r == 1)
			s->sum += k_mix(src, dst, n, 1, v, 0);
		else if (r == 2)
			s->sum += k_mix(src, dst, n, 2, v, 0);
		else if (r == 3)
			s->sum += k_mix(src, dst, n, 3, v, 0);
		else
			s->sum += k_mix(src, dst, n, r, v, 0);
		break;
	}
	}
}

void mc_stream_run(struct mc_stream *s, size_t iters, unsigned int delay)
{
	while (iters) {
		size_t n = s->iters_per_pass - s->cursor;

		if (n > iters)
			n = iters;
		run_span(s, s->cursor, n, delay);
		s->cursor += n;
		s->iters += n;
		iters -= n;
		if (s->cursor == s->iters_per_pass) {
			s->cursor = 0;
			s->pass++;
		}
	}
}

int mc_stream_verify(const struct mc_stream *s)
{
	size_t ipp = s->iters_per_pass;

	if (s->iters % ipp != s->cursor || s->iters / ipp + 1 != s->pass)
		return -EINVAL;
	if (s->src) {
		uint64_t wpi = MC_LINE_WORDS * (s->op.kind == MC_OP_MIX ?
						s->op.ratio : 1);
		uint64_t full = s->iters / ipp, exp;

		exp = full * mc_fill_sum(ipp * wpi, s->salt) +
		      mc_fill_sum(s->cursor * wpi, s->salt);
		if (exp != s->sum)
			return -EIO;
	}
	for (size_t l = 0; l < s->dst_lines; l++) {
		uint64_t k = l < s->cursor ? s->pass : s->pass - 1;
		/* rmw: the fill plus one per pass over the line */
		uint64_t v = s->op.kind == MC_OP_RMW ?
			     pattern(s->salt, 0, l) + k :
			     pattern(s->salt, k, l);
		const uint64_t *p = s->dst + l * MC_LINE_WORDS;

		for (size_t w = 0; w < MC_LINE_WORDS; w++)
			if (p[w] != v)
				return -EIO;
	}
	return 0;
}
