// SPDX-License-Identifier: MIT
/*
 * mech/io.c: the --param argument both mechanisms parse (names and ranges
 * of every registered policy's constants) and the result row they write.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "mech.h"

int main(void)
{
	struct mech_param par[2];
	struct colloid_params p;
	char buf[256];
	FILE *f;
	int bad = -1;

	CHECK(mech_param_parse("delta=0.1", &par[0]) == 0);
	CHECK(!strcmp(par[0].name, "delta") && par[0].value == 0.1);
	CHECK(mech_param_parse("tpp_wmark_promo=0.02", &par[1]) == 0);
	CHECK(mech_param_parse("no_such_param=1", &par[1]) == -ENOENT);
	CHECK(mech_param_parse("delta=-1", &par[1]) == -ERANGE);
	CHECK(mech_param_parse("delta", &par[1]) == -EINVAL);
	CHECK(mech_param_parse("=1", &par[1]) == -EINVAL);
	CHECK(mech_param_parse("delta=", &par[1]) == -EINVAL);
	CHECK(mech_param_parse("delta=0.1x", &par[1]) == -EINVAL);
	CHECK(mech_param_parse("delta=nan", &par[1]) == -EINVAL);
	CHECK(mech_param_parse("hemem_read_hot=12", &par[1]) == 0);

	CHECK(colloid_params_default(&p, "hemem") == 0);
	CHECK(mech_params_apply(&p, par, 2, &bad) == 0 && p.delta == 0.1);
	CHECK(colloid_param_get(&p, "hemem_read_hot", &par[1].value) == 0 && par[1].value == 12);
	par[1].value = 0;	/* out of range once applied */
	CHECK(mech_params_apply(&p, par, 2, &bad) == -EINVAL && bad == 1);

	f = fmemopen(buf, sizeof(buf), "w");
	CHECK(f);
	CHECK(mech_row(f, "", "throughput", 1234567.0, "ops/s") == 0);
	CHECK(mech_row(f, "3", "p", -0.0, "fraction") == 0);
	CHECK(mech_row(f, "1.000", "latency", NAN, "ns") == 0);
	fclose(f);
	CHECKF(!strcmp(buf, ",throughput,1.23457e+06,ops/s\n3,p,0,fraction\n1.000,latency,nan,ns\n"),
	       "rows: %s", buf);
	return T_PASS;
err:
	return T_FAIL;
}
