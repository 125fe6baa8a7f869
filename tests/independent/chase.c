/*
 * Independent reference for memchar's idle latency (tests only).
 * Builds a single cycle differently from memchar: shuffle the element indices
 * (Fisher-Yates) and link them in shuffled order, last back to first.
 * usage: chase BUFFER_MIB LOADS [nohuge]  -> prints ns per dependent load
 * (nohuge: base pages, MADV_NOHUGEPAGE, as memchar --huge off; else MADV_HUGEPAGE)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	size_t bytes = (size_t)atol(argv[1]) << 20;
	long loads = atol(argv[2]);
	size_t n = bytes / LINE;
	char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return 1;
	madvise(buf, bytes, argc == 4 && argv[3][0] == 'n' ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	size_t *idx = malloc(n * sizeof(*idx));
	if (!idx)
		return 1;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	uint64_t s = 88172645463325252ull;
	for (size_t i = n - 1; i > 0; i--) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		size_t j = s % (i + 1), t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + idx[i] * LINE) = buf + idx[(i + 1) % n] * LINE;
	free(idx);
	void **p = (void **)buf;
	for (size_t i = 0; i < n; i++)	/* warm-up: one full lap */
		p = *p;
	double t0 = now();
	for (long i = 0; i < loads; i++)
		p = *p;
	double t1 = now();
	printf("%.3f %p\n", (t1 - t0) * 1e9 / loads, (void *)p);
	return 0;
}
