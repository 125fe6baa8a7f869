// SPDX-License-Identifier: MIT
/*
 * scan.c - TPP's page scanner as Linux runs it, for both mechanisms.
 *
 * task_numa_work() (kernel/sched/fair.c) walks the task's address space in
 * order from where it stopped, once per window period, until it has
 * unmapped scan_size bytes ("pages") or passed 8 x scan_size bytes of
 * address space ("virtpages").  In tiering mode change_prot_numa() leaves
 * top-tier pages mapped (they cost virtpages only); TPP+Colloid needs
 * hint faults on default-tier pages too, so it unmaps both tiers.  The
 * walk is spread over the quanta; an unused budget carries over, at most
 * one window's worth.
 */
#include <errno.h>
#include <math.h>

#include "mech.h"

double mech_scan_window_ms(double rss_bytes, double scan_bytes, double period_min_ms)
{
	double scan_mb = scan_bytes / (1024.0 * 1024.0), windows, floor_ms = 1000.0;

	if (scan_mb < 2560.0)
		floor_ms = 1000.0 / floor(2560.0 / scan_mb);
	windows = ceil(rss_bytes / scan_bytes);
	if (windows < 1)
		windows = 1;
	return fmax(floor_ms, period_min_ms / windows);
}

int mech_scan_init(struct mech_scan *sc, const struct colloid_policy_info *p, uint64_t npages,
		   uint64_t page_size, double rss_bytes, int colloid)
{
	if (!sc || !p || !npages || !page_size || !(p->scan_size_bytes > 0) ||
	    !(p->scan_period_ms > 0) || !(rss_bytes >= 0))
		return -EINVAL;
	sc->npages = npages;
	sc->page_bytes = (double)page_size;
	sc->scan_bytes = p->scan_size_bytes;
	sc->window_ms = mech_scan_window_ms(rss_bytes, p->scan_size_bytes, p->scan_period_ms);
	sc->pages_left = sc->virt_left = 0;
	sc->cursor = 0;
	sc->unmap_default = !!colloid;
	return 0;
}

int mech_scan_quantum(struct mech_scan *sc, double quantum_ns,
		      int (*tier)(void *priv, uint64_t page),
		      int (*visit)(void *priv, uint64_t page, uint64_t i, uint64_t n),
		      void *priv)
{
	double per, pg;
	uint64_t n = 0, i, r;
	int ret;

	if (!sc || !tier || !visit || !(quantum_ns >= 0))
		return -EINVAL;
	per = sc->scan_bytes * quantum_ns / (sc->window_ms * 1e6);
	pg = sc->page_bytes;
	sc->pages_left = fmin(sc->pages_left + per, fmax(sc->scan_bytes, pg));
	sc->virt_left = fmin(sc->virt_left + 8.0 * per, fmax(8.0 * sc->scan_bytes, pg));
	/* how far this quantum's walk goes */
	for (r = sc->cursor; n < sc->npages; r = (r + 1) % sc->npages, n++) {
		bool unmap = mech_scan_unmaps(sc, tier(priv, r));

		if (sc->virt_left < pg || (unmap && sc->pages_left < pg))
			break;
		sc->virt_left -= pg;
		if (unmap)
			sc->pages_left -= pg;
	}
	for (i = 0; i < n; i++) {
		r = sc->cursor;
		sc->cursor = (sc->cursor + 1) % sc->npages;
		if (!mech_scan_unmaps(sc, tier(priv, r)))
			continue;
		ret = visit(priv, r, i, n);
		if (ret)
			return ret;
	}
	return 0;
}

size_t mech_plan_cap(const struct colloid_params *p, uint64_t quantum_ns, uint64_t page_size)
{
	double qs = (double)quantum_ns * 1e-9;

	return 2 * (size_t)ceil(p->migrate_limit_Bps * qs / (double)page_size) + 64;
}
