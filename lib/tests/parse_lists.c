// SPDX-License-Identifier: MIT
/* parse_id_list(): CPU and node lists "3,0-2,8", in the order given. */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "tbutil.h"

int main(void)
{
	int *ids = NULL, n = 0;

	CHECK(!parse_id_list("3,0-2,8", 10, &ids, &n));
	CHECK(n == 5 && ids[0] == 3 && ids[1] == 0 && ids[3] == 2 && ids[4] == 8);
	free(ids);
	ids = NULL;
	CHECK(!parse_id_list("65535", 65535, &ids, &n) && n == 1 && ids[0] == 65535);
	free(ids);
	ids = NULL;
	CHECK(parse_id_list("0,0", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("2-1", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("11", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("1,", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("a", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("0-1,1", 10, &ids, &n) == -EINVAL);
	return T_PASS;
err:
	free(ids);
	return T_FAIL;
}
