// SPDX-License-Identifier: MIT
/*
 * curve.c - bandwidth-latency curves of a modelled tier.
 *
 * Sources: "param:L0=..,a=..,k=..,bsat=.." (L = L0 + a*rho^k/(1-rho),
 * rho = B/bsat, bsat in MB/s), a CSV file with header
 * read_ratio,bandwidth_mbps,latency_ns, or a Mess-style directory of
 * bwlat_<readpct>.txt files ("bandwidth_MBps latency_ns" per line, space or
 * tab separated; up to one file per whole read percentage).
 *
 * A point with a negative bandwidth (noise around an idle measurement, e.g.
 * "-6.44 65.8") is dropped and counted in cs->noise; a negative or zero
 * latency, or anything not a number, is an error.
 *
 * Every tabulated curve is normalised to be increasing in both coordinates:
 * points are ordered by latency and a point is kept only if its bandwidth
 * exceeds every earlier one (this drops the backward bend of over-saturated
 * Mess curves).  The last point is the saturation wall.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tiersim.h"

#define MBPS_TO_BPNS 1e-3 /* 1 MB/s = 1e6 B/s = 1e-3 B/ns */

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

struct pt {
	double b, l;
};

static int pt_cmp(const void *x, const void *y)
{
	const struct pt *a = x, *b = y;

	if (a->l != b->l)
		return a->l < b->l ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return 0;
}

/* add one tabulated curve from raw points (bandwidth MB/s, latency ns) */
static int add_table(struct curve_set *cs, double rr, struct pt *p, size_t n,
		     char *err, size_t errlen)
{
	struct curve1 *c;
	size_t i, m = 0;
	double best = -1.0;
	int j;

	if (cs->n >= CURVE_MAX_RATIOS) {
		seterr(err, errlen, "%s: more than %d read ratios", cs->src, CURVE_MAX_RATIOS);
		return -EINVAL;
	}
	for (j = 0; j < cs->n; j++) {
		if (fabs(cs->c[j].read_ratio - rr) < 1e-9) {
			seterr(err, errlen, "%s: read ratio %g given twice", cs->src, rr);
			return -EINVAL;
		}
	}
	qsort(p, n, sizeof(*p), pt_cmp);
	c = &cs->c[cs->n];
	memset(c, 0, sizeof(*c));
	c->bw = malloc(n * sizeof(double));
	c->lat = malloc(n * sizeof(double));
	if (!c->bw || !c->lat) {
		free(c->bw);
		free(c->lat);
		c->bw = c->lat = NULL;
		seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (p[i].b > best) {
			c->bw[m] = p[i].b * MBPS_TO_BPNS;
			c->lat[m] = p[i].l;
			best = p[i].b;
			m++;
		}
	}
	if (m < 2) {
		free(c->bw);
		free(c->lat);
		c->bw = c->lat = NULL;
		seterr(err, errlen, "%s: read ratio %g: fewer than 2 usable points", cs->src, rr);
		return -EINVAL;
	}
	c->n = m;
	c->read_ratio = rr;
	c->bmax = c->bw[m - 1];
	cs->n++;
	return 0;
}

static int ratio_cmp(const void *x, const void *y)
{
	const struct curve1 *a = x, *b = y;

	return (a->read_ratio > b->read_ratio) - (a->read_ratio < b->read_ratio);
}

static int parse_param(struct curve_set *cs, const char *s, char *err, size_t errlen)
{
	double L0 = NAN, a = NAN, k = NAN, bsat = NAN;
	char buf[256], *tok, *save = NULL;
	struct curve1 *c;

	if (strlen(s) >= sizeof(buf)) {
		seterr(err, errlen, "parametric curve spec too long");
		return -EINVAL;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		double v;

		if (!eq) {
			seterr(err, errlen, "parametric curve: '%s' is not name=value", tok);
			return -EINVAL;
		}
		*eq = '\0';
		v = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || !isfinite(v)) {
			seterr(err, errlen, "parametric curve: bad value for %s", tok);
			return -EINVAL;
		}
		if (!strcmp(tok, "L0"))
			L0 = v;
		else if (!strcmp(tok, "a"))
			a = v;
		else if (!strcmp(tok, "k"))
			k = v;
		else if (!strcmp(tok, "bsat"))
			bsat = v;
		else {
			seterr(err, errlen, "parametric curve: unknown parameter '%s'", tok);
			return -EINVAL;
		}
	}
	if (!(L0 > 0) || !(a >= 0) || !(k > 0) || !(bsat > 0)) {
		seterr(err, errlen,
		       "parametric curve needs L0>0, a>=0, k>0, bsat>0 (MB/s): '%s'", s);
		return -EINVAL;
	}
	c = &cs->c[0];
	memset(c, 0, sizeof(*c));
	c->parametric = 1;
	c->read_ratio = 1.0;
	c->L0 = L0;
	c->a = a;
	c->k = k;
	c->bmax = bsat * MBPS_TO_BPNS;
	cs->n = 1;
	return 0;
}

static int next_line(FILE *f, char *buf, size_t len)
{
	while (fgets(buf, (int)len, f)) {
		char *s = buf;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
			continue;
		return 1;
	}
	return 0;
}

static int load_csv(struct curve_set *cs, const char *path, char *err, size_t errlen)
{
	struct pt *pts = NULL;
	double *rrs = NULL;
	size_t n = 0, cap = 0, i, lineno = 1;
	char line[512];
	FILE *f;
	int ret = 0;

	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		seterr(err, errlen, "cannot open curve file %s: %s", path, strerror(errno));
		return ret;
	}
	if (!next_line(f, line, sizeof(line)) ||
	    strncmp(line, "read_ratio,bandwidth_mbps,latency_ns", 36) != 0) {
		seterr(err, errlen, "%s: header must be read_ratio,bandwidth_mbps,latency_ns", path);
		fclose(f);
		return -EINVAL;
	}
	while (next_line(f, line, sizeof(line))) {
		double rr, b, l;
		char extra;

		lineno++;
		if (sscanf(line, "%lf,%lf,%lf %c", &rr, &b, &l, &extra) != 3 ||
		    !isfinite(rr) || !isfinite(b) || !isfinite(l) || rr < 0 || rr > 1 ||
		    l <= 0) {
			seterr(err, errlen, "%s: malformed row %zu", path, lineno);
			ret = -EINVAL;
			goto out;
		}
		if (b < 0) {
			cs->noise++;
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct pt *np = realloc(pts, nc * sizeof(*np));
			double *nr = realloc(rrs, nc * sizeof(*nr));

			if (np)
				pts = np;
			if (nr)
				rrs = nr;
			if (!np || !nr) {
				seterr(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			cap = nc;
		}
		pts[n].b = b;
		pts[n].l = l;
		rrs[n] = rr;
		n++;
	}
	if (!n) {
		seterr(err, errlen, "%s: no data rows", path);
		ret = -EINVAL;
		goto out;
	}
	/* group rows by read ratio (in order of first appearance) */
	for (i = 0; i < n; i++) {
		struct pt *grp;
		size_t j, m = 0;
		double rr = rrs[i];

		if (rr < 0)
			continue; /* already used */
		grp = malloc(n * sizeof(*grp));
		if (!grp) {
			seterr(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		for (j = i; j < n; j++) {
			if (rrs[j] >= 0 && fabs(rrs[j] - rr) < 1e-9) {
				grp[m++] = pts[j];
				rrs[j] = -1.0;
			}
		}
		ret = add_table(cs, rr, grp, m, err, errlen);
		free(grp);
		if (ret)
			goto out;
	}
out:
	free(pts);
	free(rrs);
	fclose(f);
	return ret;
}

static int load_mess_file(struct curve_set *cs, const char *path, double rr, char *err,
			  size_t errlen)
{
	struct pt *pts = NULL;
	size_t n = 0, cap = 0, lineno = 0;
	char line[512];
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	while (next_line(f, line, sizeof(line))) {
		double b, l;
		char extra;

		lineno++;
		if (sscanf(line, "%lf %lf %c", &b, &l, &extra) != 2 || !isfinite(b) ||
		    !isfinite(l) || l <= 0) {
			seterr(err, errlen, "%s: malformed line %zu", path, lineno);
			free(pts);
			fclose(f);
			return -EINVAL;
		}
		if (b < 0) {
			cs->noise++;
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct pt *np = realloc(pts, nc * sizeof(*np));

			if (!np) {
				free(pts);
				fclose(f);
				seterr(err, errlen, "out of memory");
				return -ENOMEM;
			}
			pts = np;
			cap = nc;
		}
		pts[n].b = b;
		pts[n].l = l;
		n++;
	}
	fclose(f);
	ret = add_table(cs, rr, pts, n, err, errlen);
	free(pts);
	return ret;
}

/*
 * A Mess curve file is named exactly bwlat_<digits>.txt: an editor's
 * bwlat_50.txt~ or a bwlat_50.txt.orig next to it is not a curve.
 * *pct receives the number (ULONG_MAX when it does not fit).
 */
static bool mess_name(const char *name, unsigned long *pct)
{
	const char *p = name + 6;
	char *end;

	if (strncmp(name, "bwlat_", 6) || *p < '0' || *p > '9')
		return false;
	errno = 0;
	*pct = strtoul(p, &end, 10);
	if (errno)
		*pct = ULONG_MAX;
	return !strcmp(end, ".txt");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_mess_dir(struct curve_set *cs, const char *dir, char *err, size_t errlen)
{
	char *names[CURVE_MAX_RATIOS + 1];
	struct dirent *de;
	size_t nn = 0, i;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		ret = -errno;
		seterr(err, errlen, "cannot open curve directory %s: %s", dir, strerror(errno));
		return ret;
	}
	/* readdir order is not stable: collect, then sort by name */
	while ((de = readdir(d))) {
		unsigned long pct;

		if (!mess_name(de->d_name, &pct))
			continue;
		if (nn >= CURVE_MAX_RATIOS) {
			seterr(err, errlen, "%s: more than %d bwlat_*.txt files", dir, CURVE_MAX_RATIOS);
			ret = -EINVAL;
			goto out;
		}
		names[nn] = strdup(de->d_name);
		if (!names[nn]) {
			ret = -ENOMEM;
			seterr(err, errlen, "out of memory");
			goto out;
		}
		nn++;
	}
	if (!nn) {
		seterr(err, errlen, "%s: no bwlat_<readpct>.txt files", dir);
		ret = -ENOENT;
		goto out;
	}
	qsort(names, nn, sizeof(names[0]), name_cmp);
	for (i = 0; i < nn && !ret; i++) {
		char path[4096];
		unsigned long pct = 0;

		mess_name(names[i], &pct);
		if (pct > 100) {
			seterr(err, errlen, "%s/%s: read percentage above 100", dir, names[i]);
			ret = -EINVAL;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ret = load_mess_file(cs, path, pct / 100.0, err, errlen);
	}
out:
	for (i = 0; i < nn; i++)
		free(names[i]);
	closedir(d);
	return ret;
}

int curve_load(struct curve_set *cs, const char *spec, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	memset(cs, 0, sizeof(*cs));
	snprintf(cs->src, sizeof(cs->src), "%s", spec);
	if (!strncmp(spec, "param:", 6))
		return parse_param(cs, spec + 6, err, errlen);
	if (stat(spec, &st) != 0) {
		ret = -errno;
		seterr(err, errlen, "curve %s: %s", spec, strerror(errno));
		return ret;
	}
	if (S_ISDIR(st.st_mode))
		ret = load_mess_dir(cs, spec, err, errlen);
	else
		ret = load_csv(cs, spec, err, errlen);
	if (ret) {
		curve_free(cs);
		return ret;
	}
	qsort(cs->c, (size_t)cs->n, sizeof(cs->c[0]), ratio_cmp);
	return 0;
}

void curve_free(struct curve_set *cs)
{
	int i;

	for (i = 0; i < cs->n; i++) {
		free(cs->c[i].bw);
		free(cs->c[i].lat);
		cs->c[i].bw = cs->c[i].lat = NULL;
	}
	cs->n = 0;
}

static double c1_lat(const struct curve1 *c, double b)
{
	size_t lo, hi;

	if (c->parametric) {
		double rho = b / c->bmax;

		if (rho <= 0)
			return c->L0;
		if (rho > 1.0 - 1e-12)
			rho = 1.0 - 1e-12;
		return c->L0 + c->a * pow(rho, c->k) / (1.0 - rho);
	}
	if (b <= c->bw[0])
		return c->lat[0];
	if (b >= c->bw[c->n - 1])
		return c->lat[c->n - 1];
	lo = 0;
	hi = c->n - 1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (c->bw[mid] <= b)
			lo = mid;
		else
			hi = mid;
	}
	return c->lat[lo] + (c->lat[hi] - c->lat[lo]) * (b - c->bw[lo]) / (c->bw[hi] - c->bw[lo]);
}

/* bracket read ratio @rr: indices i, j and weight t of j */
static void bracket(const struct curve_set *cs, double rr, int *i, int *j, double *t)
{
	int k;

	if (cs->n == 1 || rr <= cs->c[0].read_ratio) {
		*i = *j = 0;
		*t = 0;
		return;
	}
	if (rr >= cs->c[cs->n - 1].read_ratio) {
		*i = *j = cs->n - 1;
		*t = 0;
		return;
	}
	for (k = 1; k < cs->n; k++)
		if (cs->c[k].read_ratio >= rr)
			break;
	*i = k - 1;
	*j = k;
	*t = (rr - cs->c[k - 1].read_ratio) / (cs->c[k].read_ratio - cs->c[k - 1].read_ratio);
}

double curve_bmax(const struct curve_set *cs, double rr)
{
	int i, j;
	double t;

	bracket(cs, rr, &i, &j, &t);
	return (1 - t) * cs->c[i].bmax + t * cs->c[j].bmax;
}

double curve_latency(const struct curve_set *cs, double rr, double b)
{
	int i, j;
	double t, u;

	bracket(cs, rr, &i, &j, &t);
	if (i == j)
		return c1_lat(&cs->c[i], b);
	/* interpolate at equal utilisation so both curves stay below their wall */
	u = b / ((1 - t) * cs->c[i].bmax + t * cs->c[j].bmax);
	return (1 - t) * c1_lat(&cs->c[i], u * cs->c[i].bmax) +
	       t * c1_lat(&cs->c[j], u * cs->c[j].bmax);
}

double curve_lmax(const struct curve_set *cs, double rr)
{
	int i, j;
	double t;

	bracket(cs, rr, &i, &j, &t);
	if (cs->c[i].parametric || cs->c[j].parametric)
		return INFINITY;
	return (1 - t) * cs->c[i].lat[cs->c[i].n - 1] + t * cs->c[j].lat[cs->c[j].n - 1];
}

double curve_unloaded(const struct curve_set *cs, double rr)
{
	return curve_latency(cs, rr, 0.0);
}

double curve1_unloaded(const struct curve1 *c)
{
	return c->parametric ? c->L0 : c->lat[0];
}
