// SPDX-License-Identifier: MIT
/* CSV output: one header, one row per measurement, flushed per row. */
#include <errno.h>
#include <string.h>

#include "memchar.h"

static const char header[] =
	"tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,"
	"target,size_bytes,buffer_bytes,delay,bandwidth_mbps,bytes_per_iter,"
	"huge_pages,flush,verified,duration_s,share,quantile,group_loads,"
	"access_bytes\n";

void mc_row_init(struct mc_row *r)
{
	memset(r, 0, sizeof(*r));
	r->threads = -1;
	r->cpu_node = -1;
	r->mem_node = -1;
	r->size_bytes = -1;
	r->buffer_bytes = -1;
	r->delay = -1;
	r->bandwidth_mbps = -1;
	r->verified = -1;
	r->duration_s = -1;
	r->share = -1;
	r->quantile = -1;
	r->group_loads = -1;
	r->access_bytes = -1;
}

int mc_csv_header(FILE *f)
{
	if (fputs(header, f) == EOF || fflush(f))
		return -EIO;
	return 0;
}

static void put_str(FILE *f, const char *s)
{
	fputc(',', f);
	if (s)
		fputs(s, f);
}

static void put_ll(FILE *f, long long v)
{
	fputc(',', f);
	if (v >= 0)
		fprintf(f, "%lld", v);
}

static void put_dbl(FILE *f, double v, int prec)
{
	fputc(',', f);
	if (v >= 0)
		fprintf(f, "%.*f", prec, v);
}

int mc_csv_row(FILE *f, const struct mc_row *r)
{
	fputs("memchar", f);
	put_str(f, r->mode);
	put_str(f, r->metric);
	put_dbl(f, r->value, 3);
	put_str(f, r->unit);
	put_str(f, r->op);
	put_ll(f, r->threads);
	put_str(f, r->cpus);
	put_ll(f, r->cpu_node);
	put_ll(f, r->mem_node);
	put_str(f, r->target);
	put_ll(f, r->size_bytes);
	put_ll(f, r->buffer_bytes);
	put_ll(f, r->delay);
	put_dbl(f, r->bandwidth_mbps, 1);
	put_str(f, r->bytes_per_iter);
	put_str(f, r->huge_pages);
	put_str(f, r->flush);
	put_ll(f, r->verified);
	put_dbl(f, r->duration_s, 4);
	put_dbl(f, r->share, 4);
	put_dbl(f, r->quantile, 4);
	put_ll(f, r->group_loads);
	put_ll(f, r->access_bytes);
	fputc('\n', f);
	if (ferror(f) || fflush(f))
		return -EIO;
	return 0;
}
