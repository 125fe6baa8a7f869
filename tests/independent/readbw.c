/*
 * Independent reference for memchar's single-thread read bandwidth (tests only).
 * usage: readbw BUFFER_MIB SECONDS -> prints MB/s (1e6 B/s)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	size_t bytes = (size_t)atol(argv[1]) << 20;
	double secs = atof(argv[2]);
	size_t n = bytes / sizeof(uint64_t);
	uint64_t *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED)
		return 1;
	madvise(a, bytes, MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i++)
		a[i] = i;
	uint64_t sum = 0, passes = 0;
	double t0 = now(), t;
	do {
		uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
		for (size_t i = 0; i < n; i += 4) {
			s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3];
		}
		sum += s0 + s1 + s2 + s3;
		passes++;
		t = now();
	} while (t - t0 < secs);
	uint64_t want = passes * ((uint64_t)n * (n - 1) / 2);
	if (sum != want) {
		fprintf(stderr, "readbw: wrong sum\n");
		return 1;
	}
	printf("%.1f\n", passes * (double)bytes / (t - t0) / 1e6);
	return 0;
}
