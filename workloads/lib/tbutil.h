/* SPDX-License-Identifier: MIT */
/*
 * libtbutil: small helpers shared by the command-line programs (gups,
 * antagonist): parsing of sizes, numbers and CPU/node lists, CPU and NUMA
 * checks, memory mapping with a placement policy, files a supervisor waits
 * for, and synchronous SIGINT/SIGTERM handling.
 *
 * All functions return 0 (or a count) on success and -errno on failure;
 * none of them prints or exits.
 */
#ifndef TIERBENCH_TBUTIL_H
#define TIERBENCH_TBUTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

enum huge_mode { HUGE_AUTO, HUGE_ON, HUGE_OFF };

/* "4096", "64K", "512M", "1G", "1GiB", "2T": binary multiples. */
int parse_size(const char *s, uint64_t *out);
/* Non-negative decimal integer. */
int parse_u64(const char *s, uint64_t *out);
/* Finite floating-point number. */
int parse_double(const char *s, double *out);
/* "auto" | "on" | "off" */
int parse_huge(const char *s, enum huge_mode *out);

/*
 * List "0-3,8,10-11" -> array in the given order (caller frees).
 * -EINVAL on syntax errors, duplicates or values above max_id.
 */
int parse_id_list(const char *s, int max_id, int **ids, int *n);

/* CPUs this process may run on, ascending (caller frees). */
int allowed_cpus(int **cpus, int *n);
/* 0 if cpu is in this process's affinity mask, -ENODEV otherwise. */
int cpu_check(int cpu);
/* Pin the calling thread to one CPU. */
int pin_self(int cpu);

/*
 * 0 if node exists, has memory and may be used by this process;
 * -ENOSYS without NUMA support, -ENODEV for an unknown node, -ENOMEM for
 * a node without memory.
 */
int node_check(int node);
/* Total memory of a node in bytes. */
int node_mem(int node, uint64_t *bytes);
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

/* Write "<pid>\n" to path atomically (temporary file + rename). */
int write_pid_file(const char *path, long pid);
/* Create (or truncate) path, atomically. */
int create_flag_file(const char *path);

/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

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
