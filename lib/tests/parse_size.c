// SPDX-License-Identifier: MIT
/*
 * parse_size(): one syntax for every tool.  Every size the workflow passes
 * (workflows/harness/plans.py, workflows/rules/common.smk), the forms the
 * tools accepted before they shared this parser, and what is refused.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "tbutil.h"

static int is(const char *s, uint64_t want)
{
	uint64_t v = 0;

	return parse_size(s, &v) == 0 && v == want;
}

int main(void)
{
	static const char *const refused[] = {
		"", "-1", "+1G", " 1G", "1G ", "1X", "1iB", "G", "1.", ".5G", "1.3", "0.1K",
		"1e9", "1,5G", "0x10", "1GG", "1KiBB", "1.0000000000000000001G", "inf",
	};
	uint64_t v;

	/* what the workflow passes: tiersim, tierd, gups, antagonist */
	CHECK(is("72G", 72ULL << 30) && is("20G", 20ULL << 30));
	CHECK(is("2M", 2ULL << 20) && is("4K", 4096) && is("64", 64));
	CHECK(is("24G", 24ULL << 30) && is("64M", 64ULL << 20));
	CHECK(is("512M", 512ULL << 20) && is("128M", 128ULL << 20));
	CHECK(is("1G", 1ULL << 30) && is("256M", 256ULL << 20) && is("32M", 32ULL << 20));

	/* libtbutil's forms before (gups, antagonist) */
	CHECK(is("4096", 4096));
	CHECK(is("64K", 64 << 10));
	CHECK(is("512MiB", 512ULL << 20));
	CHECK(is("1gb", 1ULL << 30));
	CHECK(is("2T", 2ULL << 40));
	CHECK(parse_size("1X", &v) == -EINVAL);
	CHECK(parse_size("-1", &v) == -EINVAL);
	CHECK(parse_size("", &v) == -EINVAL);
	CHECK(parse_size("99999999999999999T", &v) == -ERANGE);
	/* tiersim's and tierd's (fractions, iB in any case, Gi) */
	CHECK(is("1.5G", 3ULL << 29) && is("0.5K", 512) && is("2.25M", 9ULL << 18));
	CHECK(is("72GIB", 72ULL << 30) && is("72GiB", 72ULL << 30) && is("72Gb", 72ULL << 30));
	CHECK(is("2Mi", 2ULL << 20) && is("64B", 64) && is("64b", 64) && is("1k", 1024));
	/* the limits of 64 bits */
	CHECK(is("18446744073709551615", UINT64_MAX));
	CHECK(parse_size("18446744073709551616", &v) == -ERANGE);
	CHECK(parse_size("16777216T", &v) == -ERANGE);
	CHECK(is("16777215T", 16777215ULL << 40));
	for (unsigned int i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		CHECKF(parse_size(refused[i], &v) == -EINVAL, "'%s' accepted", refused[i]);
	return T_PASS;
err:
	return T_FAIL;
}
