/* SPDX-License-Identifier: MIT */
/*
 * libtbutil: the helpers every command-line tool of tierbench shares (gups,
 * antagonist, memchar, tiersim, tierd): parsing of sizes, numbers and
 * CPU/node lists (one syntax for every tool), a seeded random generator,
 * CPU and NUMA checks, memory mapping with a placement policy, small files,
 * clocks and synchronous SIGINT/SIGTERM waits.
 *
 * All functions return 0 (or a count) on success and -errno on failure;
 * none of them prints or exits.  tbcli.h is the printing layer on top.
 * libcolloid does not use this library (it stays standalone).
 */
#ifndef TIERBENCH_TBUTIL_H
#define TIERBENCH_TBUTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ parsing */

enum huge_mode { HUGE_AUTO, HUGE_ON, HUGE_OFF };

/*
 * parse_size() - a size in bytes.  A decimal number (a fraction is allowed:
 * "1.5G"), then optionally a binary unit K, M, G or T (x 1024^n), which may
 * be followed by "i" and "B" ("64K", "64Ki", "64KiB", "64KB"), or a bare
 * "B" ("4096B").  Letters in either case.  The result must be a whole
 * number of bytes.  No sign, no spaces, no exponent.
 * Return: 0, -EINVAL (not a size), -ERANGE (2^64 bytes or more).
 */
int parse_size(const char *s, uint64_t *out);
/* Non-negative decimal integer, no sign or spaces. */
int parse_u64(const char *s, uint64_t *out);
/* Finite floating-point number, no leading space. */
int parse_double(const char *s, double *out);
/* "auto" | "on" | "off" */
int parse_huge(const char *s, enum huge_mode *out);
/*
 * List "0-3,8,10-11" -> array in the given order (caller frees): CPU and
 * node lists.  -EINVAL on syntax errors, duplicates or values above max_id;
 * -ENOMEM.
 */
int parse_id_list(const char *s, int max_id, int **ids, int *n);

/* --------------------------------------------------- random numbers */

/* splitmix64: the next value of the sequence whose state is *x. */
static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* xoshiro256** seeded through splitmix64: fast, portable, deterministic. */
struct rng {
	uint64_t s[4];
	int have_spare;
	double spare;
};

/*
 * rng_seed() - stream @stream of seed @seed: splitmix64 started at
 * seed ^ (stream * 0xd1342543de82ef95); stream 0 starts at the seed itself.
 */
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* the next 64 bits (inline: tiersim draws one per sample) */
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return res;
}
double rng_uniform(struct rng *r);		/* [0, 1) */
double rng_uniform_pos(struct rng *r);		/* (0, 1) */
/* [0, n): Lemire's multiply-shift, one draw, a bias below n / 2^64 */
uint64_t rng_below(struct rng *r, uint64_t n);
/* [0, n) without bias: draws again above the last whole multiple of n */
uint64_t rng_below_exact(struct rng *r, uint64_t n);
double rng_normal(struct rng *r);		/* polar method, pairs */
double rng_exp(struct rng *r, double rate);	/* mean 1/rate */
uint64_t rng_poisson(struct rng *r, double mean);

/* -------------------------------------------------------- CPUs, nodes */

/* CPUs this process may run on, ascending (caller frees). */
int allowed_cpus(int **cpus, int *n);
/* 0 if cpu is in this process's affinity mask, -ENODEV otherwise. */
int cpu_check(int cpu);
/* Pin the calling thread to one CPU. */
int pin_self(int cpu);
/*
 * cpu_cache_bytes() - the largest cache of cpu0 whose level is within
 * [lo, hi], from sysfs; 0 when there is none.
 */
uint64_t cpu_cache_bytes(int lo, int hi);

/*
 * 0 if node exists, has memory and may be used by this process;
 * -ENOSYS without NUMA support, -ENODEV for an unknown node, -ENOMEM for
 * a node without memory.
 */
int node_check(int node);
/* Total memory of a node in bytes. */
int node_mem(int node, uint64_t *bytes);
/* Free memory of a node in bytes (its MemFree, as the kernel reports it now). */
int node_free(int node, uint64_t *bytes);
/*
 * Bytes a buffer may take at most: the memory of the given nodes together,
 * or of the host when nnodes == 0 (or no node size is known).
 */
uint64_t mem_limit(const int *nodes, int nnodes);

/*
 * Anonymous private mapping of len bytes, 2 MiB aligned, with THP advice
 * per mode and, when nnodes > 0, a memory policy: bound to nodes[0]
 * (interleave == 0, nnodes == 1) or interleaved over nodes. Nothing is
 * touched. *out receives the address.
 */
int region_map(size_t len, enum huge_mode huge, const int *nodes, int nnodes,
	       int interleave, void **out);
void region_unmap(void *addr, size_t len);
/*
 * Drop the NUMA policy of a mapped range (mbind MPOL_DEFAULT): its pages stay
 * where they are, later faults follow the task's policy, and NUMA balancing may
 * move them again. 0 or -errno.
 */
int region_unbind(void *addr, size_t len);
/*
 * Where the pages of [addr, addr + len) are, for up to max (at most PAGES_WHERE_MAX) 4 KiB pages
 * spread evenly over the range, the first and the last included: move_pages(2) with nodes ==
 * NULL moves nothing and gives each page's node, or -ENOENT for a page not present and -EFAULT
 * for the zero page or an address outside any mapping (Linux mm/migrate.c,
 * do_pages_stat_array). Their statuses into status[], how many returned (0 for an empty
 * range), or -errno when the call fails.
 */
#define PAGES_WHERE_MAX 1024
long pages_where(const void *addr, size_t len, size_t max, int *status);

/* ------------------------------------------------------------- files */

/* Write "<pid>\n" to path atomically (temporary file + rename). */
int write_pid_file(const char *path, long pid);
/* Create (or truncate) path, atomically. */
int create_flag_file(const char *path);
/*
 * read_text_file() - a small text file (sysfs, procfs) into buf (len
 * bytes, NUL-terminated), trailing newlines and spaces cut.
 */
int read_text_file(const char *path, char *buf, size_t len);

/* ------------------------------------------------- clocks and signals */

/* CLOCK_MONOTONIC in seconds, and in nanoseconds. */
double now_s(void);
uint64_t now_ns(void);
/* CPU seconds of the whole process (its threads' user + system time); 0 if unreadable */
double process_cpu_s(void);

/*
 * Block SIGINT and SIGTERM in the calling thread (threads it starts later
 * inherit the mask) and store that set in *sigs, so that the main thread
 * takes them synchronously with sig_wait_until().
 */
int sig_block_stop(sigset_t *sigs);
/*
 * Wait for a signal in sigs until the absolute now_s() time t; returns the
 * signal number, or 0 once t has passed.
 */
int sig_wait_until(const sigset_t *sigs, double t);

#endif
