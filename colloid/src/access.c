// SPDX-License-Identifier: MIT
/*
 * access.c - the accessed-bit monitor's inputs (colloid_access_checks(),
 * colloid_access_result()), for a policy that monitors accesses the way
 * DAMON does (policy_damon.c).  The other policies have no such monitor.
 */
#include <errno.h>

#include "internal.h"

int colloid_access_checks(const struct colloid_ctx *ctx, uint64_t *pages, size_t cap, size_t *n)
{
	if (!ctx || !n || (cap && !pages))
		return -EINVAL;
	*n = ctx->pol->access_checks ? ctx->pol->access_checks(ctx, pages, cap) : 0;
	return 0;
}

int colloid_access_result(struct colloid_ctx *ctx, uint64_t page, int accessed)
{
	if (!ctx || page >= ctx->npages || (accessed != 0 && accessed != 1))
		return -EINVAL;
	if (ctx->pol->access_result)
		ctx->pol->access_result(ctx, (uint32_t)page, accessed);
	return 0;
}
