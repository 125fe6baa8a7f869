// SPDX-License-Identifier: MIT
/* parse.c - sizes, numbers and CPU/node lists: one syntax for every tool. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tbutil.h"

#define FRAC_DIGITS 18	/* 10^18 < 2^60: a fraction times 2^40 fits 128 bits */

int parse_size(const char *s, uint64_t *out)
{
	unsigned __int128 whole = 0, frac = 0, den = 1, bytes;
	unsigned int shift = 0;
	bool big = false;
	const char *p = s;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (unsigned int)(*p - '0');
		if (whole > UINT64_MAX) {
			big = true;
			whole = UINT64_MAX;
		}
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (int n = 0; isdigit((unsigned char)*p); p++, n++) {
			if (n == FRAC_DIGITS)
				return -EINVAL;
			frac = frac * 10 + (unsigned int)(*p - '0');
			den *= 10;
		}
	}
	switch (toupper((unsigned char)*p)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	}
	if (shift) {
		p++;
		if (*p == 'i' || *p == 'I')
			p++;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p)
		return -EINVAL;
	if ((frac << shift) % den)
		return -EINVAL;		/* not a whole number of bytes */
	bytes = (whole << shift) + (frac << shift) / den;
	if (big || bytes > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)bytes;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_huge(const char *s, enum huge_mode *out)
{
	if (!strcmp(s, "auto"))
		*out = HUGE_AUTO;
	else if (!strcmp(s, "on"))
		*out = HUGE_ON;
	else if (!strcmp(s, "off"))
		*out = HUGE_OFF;
	else
		return -EINVAL;
	return 0;
}

static int parse_id(const char **p, int max_id, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v > max_id)
		return -EINVAL;
	*p = end;
	*out = (int)v;
	return 0;
}

int parse_id_list(const char *s, int max_id, int **ids, int *n)
{
	const char *p = s;
	int *v = NULL, cnt = 0, cap = 0;
	int lo, hi, i, j;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		if (parse_id(&p, max_id, &lo))
			goto err;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_id(&p, max_id, &hi) || hi < lo)
				goto err;
		}
		for (i = lo; i <= hi; i++) {
			for (j = 0; j < cnt; j++)
				if (v[j] == i)
					goto err; /* duplicate */
			if (cnt == cap) {
				int *nv;

				cap = cap ? 2 * cap : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[cnt++] = i;
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			goto err;
		p++;
	}
	*ids = v;
	*n = cnt;
	return 0;
err:
	free(v);
	return -EINVAL;
}
