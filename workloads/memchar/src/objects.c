// SPDX-License-Identifier: MIT
/*
 * Object-size latency (objsize mode), modelled on PMDK object access.
 *
 * The buffer is cut into n objects of `size` bytes (a multiple of 64);
 * they are visited in a seeded random order (a permutation, walked
 * sequentially from a separate small array, so the order itself costs
 * no cache misses). One access, per object:
 *
 *   read          every 64-bit word of every line is loaded and summed
 *                 (size bytes read); the sum minus its known value feeds
 *                 the next object's address, so objects are serialised
 *                 while the lines of one object load in parallel.
 *   write         every line gets 8 regular 64-bit stores (size bytes
 *                 written), then a full fence (mfence on x86) so the
 *                 object's stores complete; the next object's address
 *                 depends on a load issued after the fence, so objects
 *                 do not overlap (without it, the CPU prefetches the
 *                 ownership of later objects' lines: a throughput test).
 *   write_persist as write, but each line is flushed right after its
 *                 stores with clwb (else clflushopt, else clflush; picked
 *                 via cpuid at run time), then one sfence per object
 *                 instead of the full fence and no dependent load (the
 *                 flush may evict the line): what pmem_persist() does.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "flush.h"
#include "memchar.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define OBJ_MUL		0xd6e8feb86659fd93ULL
#define OBJ_WMASK	0xa0761d6478bd642fULL

#define always_inline inline __attribute__((always_inline))

/* Always 0, but the compiler cannot know: carries data dependencies. */
static volatile uint64_t mc_obj_guard;

enum mc_flush mc_flush_detect(void)
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1u << 24))
			return MC_FLUSH_CLWB;
		if (b & (1u << 23))
			return MC_FLUSH_CLFLUSHOPT;
	}
	if (__get_cpuid(1, &a, &b, &c, &d) && (d & (1u << 19)))
		return MC_FLUSH_CLFLUSH;
#endif
	return MC_FLUSH_NONE;
}

const char *mc_flush_name(enum mc_flush f)
{
	switch (f) {
	case MC_FLUSH_CLWB:
		return "clwb";
	case MC_FLUSH_CLFLUSHOPT:
		return "clflushopt";
	case MC_FLUSH_CLFLUSH:
		return "clflush";
	case MC_FLUSH_NONE:
		break;
	}
	return "none";
}

static inline uint64_t read_word(const struct mc_objs *o, uint64_t idx,
				 uint64_t j)
{
	return idx * OBJ_MUL + o->salt + j;
}

static inline uint64_t write_line(const struct mc_objs *o, uint64_t idx,
				  uint64_t l)
{
	return ((idx * OBJ_MUL + o->salt) ^ OBJ_WMASK) + l;
}

int mc_objs_init(struct mc_objs *o, void *buf, size_t size, size_t n,
		 enum mc_obj_op op, enum mc_flush flush, uint64_t seed)
{
	struct rng rng;

	memset(o, 0, sizeof(*o));
	if (!size || size % MC_LINE || !n || n > UINT32_MAX)
		return -EINVAL;
	if (op == MC_OBJ_WRITE_PERSIST && flush == MC_FLUSH_NONE)
		return -EOPNOTSUPP;
	o->order = malloc(n * sizeof(*o->order));
	if (!o->order)
		return -ENOMEM;
	o->base = buf;
	o->size = size;
	o->n = n;
	o->op = op;
	o->flush = op == MC_OBJ_WRITE_PERSIST ? flush : MC_FLUSH_NONE;
	rng_seed(&rng, seed, 0);
	o->salt = rng_next(&rng);
	/* Fisher-Yates shuffle of 0..n-1. */
	for (size_t i = 0; i < n; i++)
		o->order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rng_below_exact(&rng, i + 1);
		uint32_t t = o->order[i];

		o->order[i] = o->order[j];
		o->order[j] = t;
	}
	return 0;
}

void mc_objs_destroy(struct mc_objs *o)
{
	free(o->order);
	memset(o, 0, sizeof(*o));
}

void mc_objs_fill(struct mc_objs *o)
{
	size_t m = o->size / sizeof(uint64_t);

	for (size_t idx = 0; idx < o->n; idx++) {
		uint64_t *p = (uint64_t *)(o->base + idx * o->size);

		for (size_t j = 0; j < m; j++)
			p[j] = read_word(o, idx, j);
	}
}

int mc_objs_check_order(const struct mc_objs *o)
{
	uint8_t *seen = calloc(o->n, 1);
	int ret = 0;

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++) {
		if (o->order[i] >= o->n || seen[o->order[i]]) {
			ret = -EFAULT;
			break;
		}
		seen[o->order[i]] = 1;
	}
	free(seen);
	return ret;
}

/* read: size bytes read per access; dependent across objects. */
static void run_read(struct mc_objs *o, uint64_t count)
{
	const uint64_t guard = mc_obj_guard;
	const size_t lines = o->size / MC_LINE, m = o->size / 8;
	const uint64_t tri = (m % 2 == 0) ? (m / 2) * (m - 1) :
					    m * ((m - 1) / 2);
	const uint64_t a = m * OBJ_MUL, b = m * o->salt + tri;
	uint64_t carry = o->carry, err = o->err;
	size_t pos = o->pos;

	for (uint64_t c = 0; c < count; c++) {
		uint64_t idx = o->order[pos];
		const uint64_t *p = (const uint64_t *)
			(o->base + idx * o->size + (carry & guard));
		uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, d;

		for (size_t l = 0; l < lines; l++, p += MC_LINE_WORDS) {
			s0 += p[0] + p[4];
			s1 += p[1] + p[5];
			s2 += p[2] + p[6];
			s3 += p[3] + p[7];
		}
		d = s0 + s1 + s2 + s3 - (a * idx + b);
		err |= d;
		carry = d;
		if (++pos == o->n)
			pos = 0;
	}
	o->carry = carry;
	o->err = err;
	o->pos = pos;
}

/* write / write_persist: size bytes written per access. */
static always_inline void run_write(struct mc_objs *o, uint64_t count,
				    enum mc_flush f)
{
	const uint64_t guard = mc_obj_guard;
	const size_t lines = o->size / MC_LINE;
	uint64_t carry = o->carry;
	size_t pos = o->pos;

	for (uint64_t c = 0; c < count; c++) {
		uint64_t idx = o->order[pos];
		uint64_t *obj = (uint64_t *)(o->base + idx * o->size +
					     (carry & guard));
		uint64_t *p = obj;
		uint64_t v = write_line(o, idx, 0);

		for (size_t l = 0; l < lines; l++, p += MC_LINE_WORDS, v++) {
			mc_store_line(p, v);
			if (f != MC_FLUSH_NONE)
				mc_flush_line(p, f);
		}
		if (f != MC_FLUSH_NONE)
			mc_store_fence();
		else
			atomic_thread_fence(memory_order_seq_cst);
		/*
		 * write: the next address depends on a load issued after the
		 * mfence, so the CPU cannot start (RFO-prefetch) the next
		 * object's stores early: accesses do not overlap. Not for
		 * persist: the flush may have evicted the line, and the load
		 * would add a read miss that pmem_persist() does not have.
		 */
		if (f == MC_FLUSH_NONE)
			carry = obj[0];
		if (++pos == o->n)
			pos = 0;
	}
	o->carry = carry;
	o->pos = pos;
}

void mc_objs_run(struct mc_objs *o, uint64_t count)
{
	switch (o->op) {
	case MC_OBJ_READ:
		run_read(o, count);
		break;
	case MC_OBJ_WRITE:
		run_write(o, count, MC_FLUSH_NONE);
		break;
	case MC_OBJ_WRITE_PERSIST:
		switch (o->flush) {
		case MC_FLUSH_CLWB:
			run_write(o, count, MC_FLUSH_CLWB);
			break;
		case MC_FLUSH_CLFLUSHOPT:
			run_write(o, count, MC_FLUSH_CLFLUSHOPT);
			break;
		case MC_FLUSH_CLFLUSH:
			run_write(o, count, MC_FLUSH_CLFLUSH);
			break;
		case MC_FLUSH_NONE:
			break;
		}
		break;
	}
	o->visits += count;
}

/*
 * read: every sum matched (err == 0). write: the first min(visits, n)
 * objects of the order hold the write pattern, the others the fill.
 */
int mc_objs_verify(const struct mc_objs *o)
{
	size_t m = o->size / sizeof(uint64_t);
	uint8_t *written;
	int ret = 0;

	if (o->op == MC_OBJ_READ)
		return o->err ? -EIO : 0;
	written = calloc(o->n, 1);
	if (!written)
		return -ENOMEM;
	for (uint64_t i = 0; i < o->visits && i < o->n; i++)
		written[o->order[i]] = 1;
	for (size_t idx = 0; idx < o->n && !ret; idx++) {
		const uint64_t *p = (const uint64_t *)(o->base + idx * o->size);

		for (size_t j = 0; j < m; j++) {
			uint64_t want = written[idx] ?
				write_line(o, idx, j / MC_LINE_WORDS) :
				read_word(o, idx, j);

			if (p[j] != want) {
				ret = -EIO;
				break;
			}
		}
	}
	free(written);
	return ret;
}
