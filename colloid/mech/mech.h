/* SPDX-License-Identifier: MIT */
/*
 * mech.h - what libcolloid's two mechanisms share: tiersim (model tiers)
 * and tierd (real NUMA nodes), as DAMON's mm/damon/ops-common.c serves its
 * vaddr and paddr backends.  Each mechanism adds only what differs: how an
 * access, a hint fault or a latency is observed, and how a page moves.
 *
 * Shared here:
 *   - TPP's page scanner as Linux runs it (task_numa_work() with the
 *     window period of task_scan_min()): which pages each quantum unmaps;
 *     the mechanism turns the next access to such a page into
 *     colloid_hint_fault();
 *   - the size of the plan buffer a quantum needs.
 * The policy's quantum and sampling periods come from libcolloid itself
 * (colloid_policy_info()).
 *
 * Library rules as libcolloid's: 0 or -errno, no printing, no exit, no
 * allocation.  Build: libcolloid-mech.a (colloid/Makefile), linked after
 * nothing but libcolloid.a.
 */
#ifndef COLLOID_MECH_H
#define COLLOID_MECH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "colloid.h"

/**
 * mech_scan_window_ms() - Linux's scan period of one window, task_scan_min()
 * in kernel/sched/fair.c.
 * @rss_bytes:     the task's resident bytes (windows = ceil(rss / scan));
 * @scan_bytes:    bytes per window (numa_balancing_scan_size_mb,
 *                 tpp_scan_size_bytes);
 * @period_min_ms: numa_balancing_scan_period_min_ms (tpp_scan_period_ms),
 *                 the time to scan the *whole* task.
 * The period is @period_min_ms / windows, but never below the floor that
 * keeps the scan under MAX_SCAN_WINDOW = 2560 MB/s (100 ms for 256 MB
 * windows).  In tiering mode task_numa_fault() returns before
 * task_numa_placement(), so the period never grows from this value.
 * Return: the period in ms.
 */
double mech_scan_window_ms(double rss_bytes, double scan_bytes, double period_min_ms);

/**
 * struct mech_scan - TPP's NUMA-balancing scanner over pages 0..npages-1.
 * Fill with mech_scan_init(); the fields are the scanner's state.
 * @npages, @page_bytes: the pages it walks, in address order (wrapping).
 * @scan_bytes:   bytes one window may unmap ("pages" in task_numa_work()).
 * @window_ms:    the window period (mech_scan_window_ms()).
 * @pages_left:   unused unmap budget, bytes (carries at most one window).
 * @virt_left:    unused address-space budget, bytes: a window walks at most
 *                8 x scan_bytes ("virtpages"); pages it leaves mapped cost
 *                only this budget.
 * @cursor:       next page to walk.
 * @unmap_default: 1 = unmap default-tier pages too (TPP+Colloid); 0 = leave
 *                them mapped, as Linux's tiering mode does for top-tier pages.
 */
struct mech_scan {
	uint64_t npages;
	double page_bytes;
	double scan_bytes;
	double window_ms;
	double pages_left, virt_left;
	uint64_t cursor;
	int unmap_default;
};

/**
 * mech_scan_init() - a scanner for @npages pages of @page_size bytes of a
 * task of @rss_bytes, with the scanner constants the policy states in @p
 * (scan_size_bytes, scan_period_ms); @colloid: Colloid on (the scanner
 * unmaps both tiers).
 * Return: 0 or -EINVAL.
 */
int mech_scan_init(struct mech_scan *sc, const struct colloid_policy_info *p, uint64_t npages,
		   uint64_t page_size, double rss_bytes, int colloid);

/** mech_scan_unmaps() - does the scanner unmap a page in tier @tier (0 = default)? */
static inline bool mech_scan_unmaps(const struct mech_scan *sc, int tier)
{
	return sc->unmap_default || tier != 0;
}

/**
 * mech_scan_quantum() - advance the scanner by one quantum of @quantum_ns.
 * The window's budgets grow by the quantum's share of a window period; the
 * walk then goes on in address order until the next page would overrun the
 * address-space budget, or, if the scanner unmaps it, the unmap budget (at
 * most one pass over all pages per quantum).
 * @tier:  the tier page @page is in now (0 = default), from the mechanism.
 * @visit: called, in walk order, for each walked page the scanner unmaps,
 *         with @i its place in this quantum's walk of @n pages (a model
 *         spreads the scan over the quantum with it); returns 0, or -errno
 *         to stop (the walk's later pages are then not visited).
 * Return: 0, -EINVAL, or the first error @visit returned.
 */
int mech_scan_quantum(struct mech_scan *sc, double quantum_ns,
		      int (*tier)(void *priv, uint64_t page),
		      int (*visit)(void *priv, uint64_t page, uint64_t i, uint64_t n),
		      void *priv);

/**
 * mech_plan_cap() - moves the plan buffer of one quantum holds: twice what
 * migrate_limit_Bps of @p allows in @quantum_ns for pages of @page_size
 * bytes, plus 64.
 */
size_t mech_plan_cap(const struct colloid_params *p, uint64_t quantum_ns, uint64_t page_size);

/* ---- io.c: the mechanisms' --param option and result rows ---- */

/** Most --param options a mechanism takes. */
#define MECH_MAX_PARAMS 64

/** struct mech_param - one --param NAME=VALUE. */
struct mech_param {
	char name[64];
	double value;
};

/**
 * mech_param_parse() - parse @arg, "NAME=VALUE", into *@out and check it
 * against libcolloid's constants (any registered policy's, by name).
 * Return: 0; -EINVAL (not NAME=VALUE, a name of 64 characters or more, or a
 * VALUE that is not a finite number); -ENOENT (libcolloid has no such
 * constant); -ERANGE (VALUE out of the constant's range).
 */
int mech_param_parse(const char *arg, struct mech_param *out);

/**
 * mech_params_apply() - set the @n parsed constants @par on @p, in order.
 * @bad: if not NULL, receives the index of the one refused.
 * Return: 0 or colloid_param_set()'s error.
 */
int mech_params_apply(struct colloid_params *p, const struct mech_param *par, int n, int *bad);

/**
 * mech_row() - write one result row "t,metric,value,unit" to @f: @t as
 * given ("" for a summary row), @v as %.6g, "nan" for NaN, never "-0".
 * Return: 0 or -EIO.
 */
int mech_row(FILE *f, const char *t, const char *metric, double v, const char *unit);

/**
 * mech_policy_names() - libcolloid's registered policies, comma-separated
 * (colloid_policy_name()), for help texts and errors: tiersim and tierd
 * never list a system themselves.  Return: a static buffer.
 */
const char *mech_policy_names(void);

#endif /* COLLOID_MECH_H */
