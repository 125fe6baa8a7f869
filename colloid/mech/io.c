// SPDX-License-Identifier: MIT
/*
 * io.c - what tiersim and tierd share at their edges: the --param
 * NAME=VALUE argument, checked against libcolloid's names and ranges, and
 * the t_s,metric,value,unit row both write; the list of libcolloid's
 * policies both print.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mech.h"

int mech_param_parse(const char *arg, struct mech_param *out)
{
	struct colloid_params tmp;
	const char *eq;
	char *end;
	size_t n;
	int ret;

	if (!arg || !out)
		return -EINVAL;
	eq = strchr(arg, '=');
	n = eq ? (size_t)(eq - arg) : 0;
	if (!n || n >= sizeof(out->name) || !eq[1])
		return -EINVAL;
	memcpy(out->name, arg, n);
	out->name[n] = '\0';
	errno = 0;
	out->value = strtod(eq + 1, &end);
	if (errno || *end || !isfinite(out->value))
		return -EINVAL;
	ret = colloid_params_default(&tmp, NULL);
	if (!ret)
		ret = colloid_param_set(&tmp, out->name, out->value);
	return ret == -EINVAL ? -ERANGE : ret;
}

int mech_params_apply(struct colloid_params *p, const struct mech_param *par, int n, int *bad)
{
	int ret;

	for (int i = 0; i < n; i++) {
		ret = colloid_param_set(p, par[i].name, par[i].value);
		if (ret) {
			if (bad)
				*bad = i;
			return ret;
		}
	}
	return 0;
}

int mech_row(FILE *f, const char *t, const char *metric, double v, const char *unit)
{
	int ret;

	if (isnan(v))
		ret = fprintf(f, "%s,%s,nan,%s\n", t, metric, unit);
	else
		ret = fprintf(f, "%s,%s,%.6g,%s\n", t, metric, v == 0 ? 0.0 : v, unit); /* no "-0" */
	return ret < 0 ? -EIO : 0;
}

const char *mech_policy_names(void)
{
	static char buf[256];
	size_t n = 0;
	const char *name;

	buf[0] = 0;
	for (unsigned int i = 0; (name = colloid_policy_name(i)) && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "", name);
	return buf;
}
