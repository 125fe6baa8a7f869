// SPDX-License-Identifier: MIT
/* Command line: subcommand, options, validation, usage. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"

static const char usage_text[] =
"usage: memchar SUBCOMMAND [TARGET] [OPTIONS]\n"
"\n"
"Memory tier characterization. CSV on stdout (or --output), progress on\n"
"stderr.\n"
"\n"
"Subcommands:\n"
"  latency    idle load-to-use latency: random pointer chase (ns/load)\n"
"  bandwidth  streaming bandwidth per thread count (MB/s, 1 MB = 1e6 B)\n"
"  loaded     latency under load: 1 chasing thread + T injector threads\n"
"             with a busy-wait between lines (bandwidth-latency curve)\n"
"  objsize    latency of reading/writing whole objects (ns/object)\n"
"  share      T threads streaming together, a share of them over target B\n"
"             and the rest over target A: bandwidth per group and total\n"
"  selftest   check chain construction and every kernel; exit 0 or 1\n"
"\n"
"Target (all measuring subcommands):\n"
"  --cpus LIST        CPUs to use, e.g. 0-3,8 (threads are pinned to the\n"
"                     first T CPUs in this order; overrides --cpu-node)\n"
"  --cpu-node N       use the allowed CPUs of NUMA node N\n"
"                     default CPUs: the process affinity mask\n"
"  --mem-node M       bind buffers to NUMA node M (mbind MPOL_BIND; the\n"
"                     placement of sampled pages is checked)\n"
"                     default: the node of the first CPU used\n"
"  --dax PATH         map a DAX device or a file (MAP_SHARED) instead; a\n"
"                     regular file is grown if too small and overwritten\n"
"                     (share: this is target A)\n"
"\n"
"Common options:\n"
"  --duration S       seconds timed per point (default 1; loaded: per delay)\n"
"  --buffer-mib N     buffer size in MiB, rounded up to 2 MiB (loaded: the\n"
"                     chain and each injector's buffer); defaults:\n"
"                     latency/objsize/loaded chain: max(256, 8 x LLC);\n"
"                     bandwidth/share/loaded injectors, per thread:\n"
"                     max(64, 4 x LLC / threads)\n"
"  --huge MODE        page backing: auto (hugetlb, else THP, else 4 KiB),\n"
"                     on (hugetlb or THP, fail if neither), off (4 KiB,\n"
"                     THP disabled), thp, hugetlb (default auto)\n"
"  --seed N           seed of the random chain / object order (default 1)\n"
"  --output FILE      write the CSV to FILE instead of stdout\n"
"  -h, --help         this help\n"
"\n"
"bandwidth:\n"
"  --op OP            read | write | ntwrite | pwrite | rmw | mix1:1 |\n"
"                     mix2:1 | mix3:1 (mixR:1, R up to 8; default read)\n"
"  --threads LIST     thread counts to run, e.g. 1,2,4 (default 1)\n"
"loaded:\n"
"  --injectors T      injector threads, on CPUs 2..T+1 of the list\n"
"                     (default: all CPUs but the first)\n"
"  --delays LIST      busy-wait iterations (about 1 cycle each) after each\n"
"                     injector iteration, run largest first (default\n"
"                     0,20,50,100,200,500,1000,2000)\n"
"  --op OP            injector kernel, as for bandwidth (default read)\n"
"latency, loaded, objsize (the latency distribution):\n"
"  --group N          dependent loads per timed group (default 16; 1 times\n"
"                     single loads, where the clock's cost dominates)\n"
"  --outlier-ns N     a group longer than N ns counts as interrupted and is\n"
"                     left out of the distribution (default: 8 x the\n"
"                     warm-up's median group, at least 4000; 0: keep all)\n"
"objsize:\n"
"  --op read|write    access kind (default read)\n"
"  --persist          write only: clwb/clflushopt/clflush each line, then\n"
"                     sfence per object (like PMDK pmem_persist)\n"
"  --sizes LIST       object sizes in bytes, multiples of 64 (default\n"
"                     64,128,256,512,1024,2048,4096)\n"
"  --objects N        objects in the working set (default: as many as fit\n"
"                     in the buffer)\n"
"share:\n"
"  --mem-node-b M     target B: buffers bound to NUMA node M (checked)\n"
"  --dax-b PATH       target B: a DAX device or file (one of the two needed)\n"
"  --threads T        threads in all, on the first T CPUs (default: all)\n"
"  --shares LIST      fractions of the T threads on target B, each in 0..1\n"
"                     (default 0,0.25,0.5,0.75,1); round(share x T) threads,\n"
"                     the last ones of the list, stream over B, the others\n"
"                     over A; the share column is the count over T\n"
"  --op OP            kernel, as for bandwidth (default read)\n"
"\n"
"Kernels, bytes per iteration (bytes_per_iter column, read+written):\n"
"  read 64+0      8 x 64-bit loads of one line, summed\n"
"  write 0+64     8 x 64-bit regular stores to one line\n"
"  ntwrite 0+64   4 x 16 B non-temporal stores (x86-64 only)\n"
"  pwrite 0+64    regular stores, clwb/clflushopt/clflush, sfence per line\n"
"  rmw 64+64      one line read and written back in place, each word + 1\n"
"                 (the antagonist's RMW stream)\n"
"  mixR:1 64R+64  R lines read from a source, 1 line stored to a\n"
"                 destination (source:destination sizes R:1)\n"
"  objsize        the object size, read or written\n"
"Exit status: 0 ok, 1 runtime failure or failed check, 2 bad argument,\n"
"130/143 interrupted.\n";

void mc_usage(FILE *f)
{
	fputs(usage_text, f);
}

/* one "memchar: error: ..." line (tbcli); the status for a bad argument */
int mc_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg("error", fmt, ap);
	va_end(ap);
	return MC_EXIT_USAGE;
}

enum {
	OPT_CPUS = 256, OPT_CPU_NODE, OPT_MEM_NODE, OPT_DAX, OPT_SEED,
	OPT_HUGE, OPT_DURATION, OPT_BUFFER, OPT_OUTPUT, OPT_OP,
	OPT_THREADS, OPT_INJECTORS, OPT_DELAYS, OPT_SIZES, OPT_OBJECTS,
	OPT_PERSIST, OPT_SHARES, OPT_MEM_NODE_B, OPT_DAX_B, OPT_GROUP,
	OPT_OUTLIER,
};

static const struct option long_opts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "cpu-node", required_argument, NULL, OPT_CPU_NODE },
	{ "mem-node", required_argument, NULL, OPT_MEM_NODE },
	{ "dax", required_argument, NULL, OPT_DAX },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "huge", required_argument, NULL, OPT_HUGE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "buffer-mib", required_argument, NULL, OPT_BUFFER },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "op", required_argument, NULL, OPT_OP },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "injectors", required_argument, NULL, OPT_INJECTORS },
	{ "delays", required_argument, NULL, OPT_DELAYS },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "objects", required_argument, NULL, OPT_OBJECTS },
	{ "persist", no_argument, NULL, OPT_PERSIST },
	{ "shares", required_argument, NULL, OPT_SHARES },
	{ "mem-node-b", required_argument, NULL, OPT_MEM_NODE_B },
	{ "dax-b", required_argument, NULL, OPT_DAX_B },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "outlier-ns", required_argument, NULL, OPT_OUTLIER },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	const char *name;
	enum mc_mode mode;
} modes[] = {
	{ "latency", MC_MODE_LATENCY },
	{ "bandwidth", MC_MODE_BANDWIDTH },
	{ "loaded", MC_MODE_LOADED },
	{ "objsize", MC_MODE_OBJSIZE },
	{ "share", MC_MODE_SHARE },
	{ "selftest", MC_MODE_SELFTEST },
};

/* Which subcommands accept a subcommand-specific option. */
static bool opt_allowed(int opt, enum mc_mode m)
{
	switch (opt) {
	case OPT_OP:
		return m == MC_MODE_BANDWIDTH || m == MC_MODE_LOADED ||
		       m == MC_MODE_OBJSIZE || m == MC_MODE_SHARE;
	case OPT_THREADS:
		return m == MC_MODE_BANDWIDTH || m == MC_MODE_SHARE;
	case OPT_SHARES:
	case OPT_MEM_NODE_B:
	case OPT_DAX_B:
		return m == MC_MODE_SHARE;
	case OPT_INJECTORS:
	case OPT_DELAYS:
		return m == MC_MODE_LOADED;
	case OPT_GROUP:
		return m == MC_MODE_LATENCY || m == MC_MODE_LOADED;
	case OPT_OUTLIER:
		return m == MC_MODE_LATENCY || m == MC_MODE_LOADED ||
		       m == MC_MODE_OBJSIZE;
	case OPT_SIZES:
	case OPT_OBJECTS:
	case OPT_PERSIST:
		return m == MC_MODE_OBJSIZE;
	case 'h':
		return true;
	default:
		return m != MC_MODE_SELFTEST;
	}
}

static int parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

/*
 * A comma list "a,b,c" parsed item by item with @one into an array of @size
 * byte elements (*out, *n).  Empty items, a leading or trailing comma are
 * -EINVAL; so is an item @one refuses.
 */
static int parse_items(const char *s, size_t size, int (*one)(const char *tok, void *dst, const void *arg),
		       const void *arg, void **out, int *n)
{
	char *copy = strdup(s), *save = NULL, *tok;
	char *v = NULL;
	int cnt = 0, ret = 0;

	free(*out);
	*out = NULL;
	*n = 0;
	if (!copy)
		return -ENOMEM;
	if (!*s || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,")) {
		ret = -EINVAL;
		goto out;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *nv = realloc(v, (size_t)(cnt + 1) * size);

		if (!nv) {
			ret = -ENOMEM;
			goto out;
		}
		v = nv;
		ret = one(tok, v + (size_t)cnt * size, arg);
		if (ret)
			goto out;
		cnt++;
	}
out:
	free(copy);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/* one integer in [range[0], range[1]] */
static int one_long(const char *tok, void *dst, const void *arg)
{
	const long *range = arg;

	return parse_long(tok, range[0], range[1], dst);
}

/* one fraction in [0, 1] */
static int one_fraction(const char *tok, void *dst, const void *arg)
{
	double *v = dst;
	char *end;

	(void)arg;
	errno = 0;
	*v = strtod(tok, &end);
	if (errno || *end || end == tok || *tok == ' ' || !isfinite(*v) || *v < 0 || *v > 1)
		return -EINVAL;
	return 0;
}

static int parse_list(const char *s, long min, long max, long **out, int *n)
{
	const long range[2] = { min, max };

	return parse_items(s, sizeof(**out), one_long, range, (void **)out, n);
}

/* A comma list of fractions in [0, 1], e.g. 0,0.25,1. */
static int parse_fractions(const char *s, double **out, int *n)
{
	return parse_items(s, sizeof(**out), one_fraction, NULL, (void **)out, n);
}

/* a DAX path memchar can print in its CSV output: not empty, no comma, quote or newline */
static bool dax_path_ok(const char *s)
{
	return *s && !strpbrk(s, ",\"\n\r");
}

static const char *opt_name(int opt)
{
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

void mc_opts_free(struct mc_opts *o)
{
	free(o->threads);
	free(o->delays);
	free(o->sizes);
	free(o->shares);
	o->threads = o->delays = o->sizes = NULL;
	o->shares = NULL;
}

static int set_default_list(long **out, int *n, const long *v, int cnt)
{
	*out = malloc((size_t)cnt * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, v, (size_t)cnt * sizeof(**out));
	*n = cnt;
	return 0;
}

/* share: target B named once, one thread count (default: 0 = all CPUs,
 * set when the CPUs are known), default shares. */
static int share_defaults(struct mc_opts *o)
{
	static const double def_shares[] = { 0, 0.25, 0.5, 0.75, 1 };

	if (o->dax_b && o->mem_node_b >= 0)
		return mc_usage_error("--dax-b and --mem-node-b are exclusive");
	if (!o->dax_b && o->mem_node_b < 0)
		return mc_usage_error("share needs target B: --mem-node-b M or --dax-b PATH");
	if (o->nthreads > 1)
		return mc_usage_error("share takes one --threads count, not a list");
	if (!o->shares) {
		o->shares = malloc(sizeof(def_shares));
		if (!o->shares)
			return mc_usage_error("out of memory");
		memcpy(o->shares, def_shares, sizeof(def_shares));
		o->nshares = (int)MC_ARRAY_SIZE(def_shares);
	}
	return 0;
}

/* Returns 0 to run, 1 after --help (exit 0), MC_EXIT_USAGE on error. */
int mc_opts_parse(int argc, char **argv, struct mc_opts *o)
{
	static const long def_delays[] = { 0, 20, 50, 100, 200, 500, 1000,
					   2000 };
	static const long def_sizes[] = { 64, 128, 256, 512, 1024, 2048,
					  4096 };
	static const long def_threads[] = { 1 };
	const char *sub;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->cpu_node = -1;
	o->mem_node = -1;
	o->mem_node_b = -1;
	o->seed = 1;
	o->huge = MC_HUGE_AUTO;
	o->duration = 1.0;
	o->injectors = -1;
	o->group = 16;
	o->outlier_ns = -1;
	mc_op_parse("read", &o->op);

	if (argc < 2)
		return mc_usage_error("no subcommand (try --help)");
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		mc_usage(stdout);
		return 1;
	}
	o->mode_name = NULL;
	for (size_t i = 0; i < MC_ARRAY_SIZE(modes); i++) {
		if (!strcmp(sub, modes[i].name)) {
			o->mode = modes[i].mode;
			o->mode_name = modes[i].name;
		}
	}
	if (!o->mode_name)
		return mc_usage_error("unknown subcommand '%s' (try --help)",
				      sub);

	opterr = 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		if (c == '?')
			return mc_usage_error("unknown option '%s'",
					      argv[optind - 1]);
		if (c == ':')
			return mc_usage_error("option '%s' needs a value",
					      argv[optind - 1]);
		if (!opt_allowed(c, o->mode))
			return mc_usage_error("option --%s is not valid for %s",
					      opt_name(c), o->mode_name);
		switch (c) {
		case 'h':
			mc_usage(stdout);
			return 1;
		case OPT_CPUS:
			o->cpus_str = optarg;
			break;
		case OPT_CPU_NODE:
			if (parse_long(optarg, 0, 1 << 20, &v))
				return mc_usage_error("bad --cpu-node '%s'",
						      optarg);
			o->cpu_node = (int)v;
			break;
		case OPT_MEM_NODE:
			if (parse_long(optarg, 0, 1 << 20, &v))
				return mc_usage_error("bad --mem-node '%s'",
						      optarg);
			o->mem_node = (int)v;
			break;
		case OPT_DAX:
			if (!dax_path_ok(optarg))
				return mc_usage_error("bad --dax path '%s' (empty or contains , \" or newline)",
						      optarg);
			o->dax = optarg;
			break;
		case OPT_SEED: {
			char *end;

			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end || *optarg == '-')
				return mc_usage_error("bad --seed '%s'",
						      optarg);
			break;
		}
		case OPT_HUGE:
			if (!strcmp(optarg, "auto"))
				o->huge = MC_HUGE_AUTO;
			else if (!strcmp(optarg, "on"))
				o->huge = MC_HUGE_ON;
			else if (!strcmp(optarg, "off"))
				o->huge = MC_HUGE_OFF;
			else if (!strcmp(optarg, "thp"))
				o->huge = MC_HUGE_THP;
			else if (!strcmp(optarg, "hugetlb"))
				o->huge = MC_HUGE_HUGETLB;
			else
				return mc_usage_error("bad --huge '%s' (auto, on, off, thp, hugetlb)",
						      optarg);
			break;
		case OPT_DURATION: {
			char *end;

			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || !*optarg || *end ||
			    !isfinite(o->duration) || o->duration <= 0 ||
			    o->duration > 1e6)
				return mc_usage_error("bad --duration '%s' (seconds > 0)",
						      optarg);
			break;
		}
		case OPT_BUFFER:
			if (parse_long(optarg, 1, 1L << 24, &v))
				return mc_usage_error("bad --buffer-mib '%s' (MiB >= 1)",
						      optarg);
			o->buffer_bytes = mc_round_up((size_t)v * MC_MIB,
						      MC_HUGE);
			break;
		case OPT_OUTPUT:
			if (!*optarg)
				return mc_usage_error("empty --output");
			o->output = optarg;
			break;
		case OPT_OP:
			if (o->mode == MC_MODE_OBJSIZE) {
				if (strcmp(optarg, "read") &&
				    strcmp(optarg, "write"))
					return mc_usage_error("bad --op '%s' for objsize (read, write)",
							      optarg);
			}
			if (mc_op_parse(optarg, &o->op))
				return mc_usage_error("bad --op '%s' (read, write, ntwrite, pwrite, rmw, mixR:1)",
						      optarg);
			o->op_set = true;
			break;
		case OPT_THREADS:
			if (parse_list(optarg, 1, 1 << 16, &o->threads,
				       &o->nthreads))
				return mc_usage_error("bad --threads '%s' (list of counts >= 1)",
						      optarg);
			break;
		case OPT_INJECTORS:
			if (parse_long(optarg, 0, 1 << 16, &o->injectors))
				return mc_usage_error("bad --injectors '%s' (count >= 0)",
						      optarg);
			break;
		case OPT_DELAYS:
			if (parse_list(optarg, 0, 100000000, &o->delays,
				       &o->ndelays))
				return mc_usage_error("bad --delays '%s' (list of spin counts >= 0)",
						      optarg);
			break;
		case OPT_SIZES:
			if (parse_list(optarg, 64, 1L << 30, &o->sizes,
				       &o->nsizes))
				return mc_usage_error("bad --sizes '%s' (list of byte sizes >= 64)",
						      optarg);
			for (int i = 0; i < o->nsizes; i++)
				if (o->sizes[i] % MC_LINE)
					return mc_usage_error("bad --sizes: %ld is not a multiple of 64",
							      o->sizes[i]);
			break;
		case OPT_OBJECTS:
			if (parse_long(optarg, 1, UINT32_MAX, &v))
				return mc_usage_error("bad --objects '%s' (count >= 1)",
						      optarg);
			o->objects = (uint64_t)v;
			break;
		case OPT_PERSIST:
			o->persist = true;
			break;
		case OPT_GROUP:
			if (parse_long(optarg, 1, 4096, &v))
				return mc_usage_error("bad --group '%s' (loads per timed group, 1..4096)",
						      optarg);
			o->group = (unsigned int)v;
			break;
		case OPT_OUTLIER:
			if (parse_long(optarg, 0, 1000000000L, &v))
				return mc_usage_error("bad --outlier-ns '%s' (ns per group, 0 = keep every group)",
						      optarg);
			o->outlier_ns = v;
			break;
		case OPT_SHARES:
			if (parse_fractions(optarg, &o->shares, &o->nshares))
				return mc_usage_error("bad --shares '%s' (list of fractions of the threads, each 0..1)",
						      optarg);
			break;
		case OPT_MEM_NODE_B:
			if (parse_long(optarg, 0, 1 << 20, &v))
				return mc_usage_error("bad --mem-node-b '%s'",
						      optarg);
			o->mem_node_b = (int)v;
			break;
		case OPT_DAX_B:
			if (!dax_path_ok(optarg))
				return mc_usage_error("bad --dax-b path '%s' (empty or contains , \" or newline)",
						      optarg);
			o->dax_b = optarg;
			break;
		}
	}
	if (optind < argc)
		return mc_usage_error("unexpected argument '%s'",
				      argv[optind]);
	if (o->dax && o->mem_node >= 0)
		return mc_usage_error("--dax and --mem-node are exclusive");
	if (o->persist && strcmp(o->op.name, "write"))
		return mc_usage_error("--persist needs --op write");
	if (o->mode == MC_MODE_SHARE) {
		int ret = share_defaults(o);

		if (ret)
			return ret;
	}
	if (o->mode == MC_MODE_BANDWIDTH && !o->threads &&
	    set_default_list(&o->threads, &o->nthreads, def_threads, 1))
		return mc_usage_error("out of memory");
	if (o->mode == MC_MODE_LOADED && !o->delays &&
	    set_default_list(&o->delays, &o->ndelays, def_delays,
			     (int)MC_ARRAY_SIZE(def_delays)))
		return mc_usage_error("out of memory");
	if (o->mode == MC_MODE_OBJSIZE && !o->sizes &&
	    set_default_list(&o->sizes, &o->nsizes, def_sizes,
			     (int)MC_ARRAY_SIZE(def_sizes)))
		return mc_usage_error("out of memory");
	return 0;
}
