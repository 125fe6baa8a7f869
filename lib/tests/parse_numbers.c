// SPDX-License-Identifier: MIT
/* parse_u64(), parse_double(), parse_huge(). */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "tbutil.h"

int main(void)
{
	enum huge_mode h;
	uint64_t v = 0;
	double d = 0;

	CHECK(!parse_u64("42", &v) && v == 42);
	CHECK(parse_u64("4 2", &v) == -EINVAL);
	CHECK(parse_u64("-1", &v) == -EINVAL && parse_u64("", &v) == -EINVAL);
	CHECK(parse_u64("18446744073709551616", &v) == -EINVAL);
	CHECK(!parse_double("0.25", &d) && d == 0.25);
	CHECK(parse_double(" 1", &d) == -EINVAL);
	CHECK(parse_double("inf", &d) == -EINVAL);
	CHECK(parse_double("1x", &d) == -EINVAL);
	CHECK(!parse_huge("on", &h) && h == HUGE_ON);
	CHECK(!parse_huge("off", &h) && h == HUGE_OFF);
	CHECK(!parse_huge("auto", &h) && h == HUGE_AUTO);
	CHECK(parse_huge("yes", &h) == -EINVAL);
	return T_PASS;
err:
	return T_FAIL;
}
