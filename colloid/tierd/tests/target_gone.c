// SPDX-License-Identifier: MIT
/*
 * A target that exits while tierd moves its pages: move_pages() then fails
 * for the whole call with EINVAL (its mm is gone: mm/migrate.c find_mm_struct,
 * get_task_mm() NULL -> -EINVAL), which target.c reports as the target gone
 * (-ESRCH), not as a failed move; other errors (EPERM) stay what they are.
 * move_pages() is a stand-in here (this file's definition is linked before
 * libnuma's), failing with the errno the test sets.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tierd.h"

static int failures;
static int fail_errno;	/* the stand-in's errno for every call */

#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

long move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status, int flags)
{
	(void)pid; (void)count; (void)pages; (void)nodes; (void)status; (void)flags;
	errno = fail_errno;
	return -1;
}

int main(void)
{
	enum { PAGES = 4, BATCH = 16 };
	struct region reg = { .start = 0x100000, .len = PAGES * 4096 };
	struct target t = { .pid = 12345, .region_size = PAGES * 4096, .npages_4k = PAGES, .reg = &reg,
			    .nreg = 1, .batch = BATCH };
	void *pages[BATCH];
	int nodes[BATCH], status[BATCH], first[1];
	uint32_t slot[BATCH], rslot[BATCH], ok[1], bad[1];
	struct move_stats st = { 0 };
	size_t idx[1] = { 0 };
	int r;

	t.pages = pages; t.nodes = nodes; t.status = status; t.slot = slot; t.rslot = rslot;

	fail_errno = EINVAL;
	r = target_move_regions(&t, idx, 1, 1, ok, bad, &st);
	CHECK(r == -ESRCH, "move of an exiting target: %d, not -ESRCH", r);
	CHECK(st.calls == 1 && st.pages_failed == 0, "one call, no page failed: %llu %llu",
	      (unsigned long long)st.calls, (unsigned long long)st.pages_failed);
	r = target_first_nodes(&t, first);
	CHECK(r == -ESRCH, "query of an exiting target: %d, not -ESRCH", r);
	r = target_region_node(&t, 0, 1);
	CHECK(r == -ESRCH, "region query of an exiting target: %d, not -ESRCH", r);

	fail_errno = EPERM;
	r = target_move_regions(&t, idx, 1, 1, ok, bad, &st);
	CHECK(r == -EPERM, "no permission stays -EPERM: %d", r);
	fail_errno = ESRCH;
	r = target_first_nodes(&t, first);
	CHECK(r == -ESRCH, "a pid gone: %d", r);
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
