// SPDX-License-Identifier: MIT
/*
 * gups: giga-updates per second over a working set with a hot set, for
 * tiered-memory experiments. See README.md for options and output.
 */
#include "gups.h"
#include "tbcli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#define PROG "gups"

const char cli_prog[] = PROG;

struct opts {
	uint64_t working_set;
	uint64_t hot_set;
	double hot_share;
	uint64_t object_size;
	enum gups_op op;
	double read_share;	/* GUPS_MIX only */
	unsigned int threads;	/* 0: one per CPU in --cpus, else 1 */
	int *cpus;
	int ncpus;
	bool cpus_given;
	int *nodes;
	int nnodes;
	bool interleave;
	double duration;	/* 0: until SIGINT/SIGTERM */
	double move_hot_at;	/* < 0: never */
	uint64_t seed;
	double interval;
	enum huge_mode huge;
	const char *output;
	const char *pid_file;
	const char *ready_file;
	const char *summary;
	bool self_test;
	bool unbind;		/* drop the NUMA policy after the first touch */
	int hot_node;		/* --hot-placement: the node asked about; -1: unset */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTION]...\n"
"Random updates of fixed-size objects in a working set with a hot set.\n"
"Writes one CSV row per report interval: t_s,updates,updates_per_s,\n"
"gbytes_per_s,bytes,phase,cpu_share (the process's CPU time in the\n"
"interval over interval x threads), with --hot-placement also\n"
"hot_off_node_bytes; a summary line goes to stderr at exit.\n"
"\n"
"Workload:\n"
"  --working-set SIZE     bytes of memory accessed (K/M/G/T suffixes,\n"
"                         binary); default 1G\n"
"  --hot-set SIZE         bytes of the hot set at the start of the working\n"
"                         set; 0 = uniform accesses; default 0\n"
"  --hot-share F          fraction of accesses to the hot set, 0..1;\n"
"                         default 0.9\n"
"  --object-size B        bytes per access, power of two 64..4096;\n"
"                         default 64\n"
"  --op read|rmw|mix:R    read every word of the object, read-modify-write\n"
"                         (increment) every word, or a fraction R of reads\n"
"                         and 1-R of RMW; default rmw\n"
"  --move-hot-at T        at T seconds into the timed phase the hot set moves\n"
"                         to the next, disjoint range of objects (needs\n"
"                         2 x hot set <= working set); default never\n"
"  --seed N               PRNG seed (per-thread streams derive from it);\n"
"                         default 1\n"
"\n"
"Placement:\n"
"  --threads T            worker threads; default: one per CPU of --cpus,\n"
"                         or 1 without --cpus\n"
"  --cpus LIST            CPUs to pin threads to, one each, in list order,\n"
"                         e.g. 0-3,8; default: the CPUs this process may\n"
"                         use\n"
"  --mem-node N           bind the buffer to NUMA node N (default: local,\n"
"                         first touch by the pinned threads)\n"
"  --interleave LIST      interleave the buffer over NUMA nodes LIST\n"
"  --unbind-after-touch   drop the buffer's NUMA policy once it is touched:\n"
"                         pages stay where --mem-node put them, and NUMA\n"
"                         balancing (kernel TPP) may move them\n"
"  --huge auto|on|off     transparent huge pages: system default, or\n"
"                         madvise(MADV_HUGEPAGE / MADV_NOHUGEPAGE);\n"
"                         default auto\n"
"  --hot-placement N      each row also gives hot_off_node_bytes: the bytes\n"
"                         of the current hot set not on NUMA node N (a\n"
"                         tiered run's default tier), from move_pages(2)\n"
"                         asked where up to 1024 pages spread over the hot\n"
"                         set are; needs --hot-set\n"
"\n"
"Run and output:\n"
"  --duration S           seconds of the timed phase; 0 = until SIGINT or\n"
"                         SIGTERM; default 10\n"
"  --report-interval S    seconds per CSV row; default 1\n"
"  --output FILE          CSV file; default stdout\n"
"  --summary FILE         also write a one-row CSV: updates_total,seconds,\n"
"                         updates_per_s,gbytes_per_s,checksum_ok\n"
"  --pid-file FILE        write own pid once memory is allocated and touched\n"
"  --ready-file FILE      create FILE when the timed phase starts\n"
"  --self-test            (testing) corrupt one word before the checksum is\n"
"                         verified, so the run must fail with exit 1\n"
"  -h, --help             this text\n"
"\n"
"Exit status: 0 success (also after SIGINT/SIGTERM), 1 runtime failure or\n"
"checksum mismatch, 2 bad arguments.\n");
}

enum {
	OPT_WS = 256, OPT_HOT, OPT_SHARE, OPT_OBJ, OPT_OP, OPT_THREADS,
	OPT_CPUS, OPT_NODE, OPT_INTERLEAVE, OPT_DURATION, OPT_MOVE, OPT_SEED,
	OPT_INTERVAL, OPT_OUTPUT, OPT_PID, OPT_READY, OPT_SUMMARY, OPT_HUGE,
	OPT_SELFTEST, OPT_UNBIND, OPT_HOT_PLACEMENT,
};

static const struct option longopts[] = {
	{ "working-set", required_argument, NULL, OPT_WS },
	{ "hot-set", required_argument, NULL, OPT_HOT },
	{ "hot-share", required_argument, NULL, OPT_SHARE },
	{ "object-size", required_argument, NULL, OPT_OBJ },
	{ "op", required_argument, NULL, OPT_OP },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "mem-node", required_argument, NULL, OPT_NODE },
	{ "interleave", required_argument, NULL, OPT_INTERLEAVE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "move-hot-at", required_argument, NULL, OPT_MOVE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "report-interval", required_argument, NULL, OPT_INTERVAL },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "pid-file", required_argument, NULL, OPT_PID },
	{ "ready-file", required_argument, NULL, OPT_READY },
	{ "summary", required_argument, NULL, OPT_SUMMARY },
	{ "huge", required_argument, NULL, OPT_HUGE },
	{ "self-test", no_argument, NULL, OPT_SELFTEST },
	{ "unbind-after-touch", no_argument, NULL, OPT_UNBIND },
	{ "hot-placement", required_argument, NULL, OPT_HOT_PLACEMENT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void parse_op(struct opts *o, const char *v)
{
	if (!strcmp(v, "read")) {
		o->op = GUPS_READ;
	} else if (!strcmp(v, "rmw")) {
		o->op = GUPS_RMW;
	} else if (!strncmp(v, "mix:", 4)) {
		o->op = GUPS_MIX;
		if (parse_double(v + 4, &o->read_share) ||
		    o->read_share < 0 || o->read_share > 1)
			cli_bad_arg("--op: read fraction in '%s' must be in [0, 1]",
				v);
	} else {
		cli_bad_arg("--op: '%s' is not read, rmw or mix:R", v);
	}
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t u, limit;
	int c;

	*o = (struct opts){
		.working_set = 1ULL << 30,
		.hot_share = 0.9,
		.object_size = 64,
		.op = GUPS_RMW,
		.duration = 10,
		.move_hot_at = -1,
		.seed = 1,
		.interval = 1,
		.huge = HUGE_AUTO,
		.hot_node = -1,
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_WS:
			o->working_set = cli_size("--working-set", optarg);
			break;
		case OPT_HOT:
			o->hot_set = cli_size("--hot-set", optarg);
			break;
		case OPT_SHARE:
			o->hot_share = cli_number("--hot-share", optarg, 0, 1, 0);
			break;
		case OPT_OBJ:
			o->object_size = cli_size("--object-size", optarg);
			if (o->object_size < 64 || o->object_size > 4096 ||
			    (o->object_size & (o->object_size - 1)))
				cli_bad_arg("--object-size: '%s' is not a power of two in 64..4096",
					optarg);
			break;
		case OPT_OP:
			parse_op(o, optarg);
			break;
		case OPT_THREADS:
			if (parse_u64(optarg, &u) || u < 1 || u > 65536)
				cli_bad_arg("--threads: '%s' is not a count in 1..65536",
					optarg);
			o->threads = (unsigned int)u;
			break;
		case OPT_CPUS:
			cli_cpus(optarg, &o->cpus, &o->ncpus);
			o->cpus_given = true;
			break;
		case OPT_NODE:
		case OPT_INTERLEAVE:
			if (o->nnodes)
				cli_bad_arg("--mem-node and --interleave are exclusive and given once");
			if (parse_id_list(optarg, 1 << 16, &o->nodes, &o->nnodes))
				cli_bad_arg("%s: '%s' is not a node %s",
					c == OPT_NODE ? "--mem-node" : "--interleave",
					optarg, c == OPT_NODE ? "number" : "list");
			if (c == OPT_NODE && o->nnodes != 1)
				cli_bad_arg("--mem-node: '%s' is not one node", optarg);
			o->interleave = c == OPT_INTERLEAVE;
			break;
		case OPT_DURATION:
			o->duration = cli_number("--duration", optarg, 0, 1e9, 0);
			break;
		case OPT_MOVE:
			o->move_hot_at = cli_number("--move-hot-at", optarg, 0, 1e9, 0);
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &o->seed))
				cli_bad_arg("--seed: '%s' is not a non-negative integer",
					optarg);
			break;
		case OPT_INTERVAL:
			o->interval = cli_number("--report-interval", optarg,
						 0.001, 1e6, 0);
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_PID:
			o->pid_file = optarg;
			break;
		case OPT_READY:
			o->ready_file = optarg;
			break;
		case OPT_SUMMARY:
			o->summary = optarg;
			break;
		case OPT_HUGE:
			o->huge = cli_huge(optarg);
			break;
		case OPT_UNBIND:
			o->unbind = true;
			break;
		case OPT_HOT_PLACEMENT:
			if (parse_u64(optarg, &u) || u >= 1 << 16)
				cli_bad_arg("--hot-placement: '%s' is not a node number", optarg);
			o->hot_node = (int)u;
			break;
		case OPT_SELFTEST:
			o->self_test = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			cli_bad_option(c, argv);
		}
	}
	cli_no_operands(argc, argv);

	cli_cpus_check(o->cpus_given, &o->cpus, &o->ncpus);
	if (!o->threads)
		o->threads = o->cpus_given ? (unsigned int)o->ncpus : 1;
	if (o->threads > (unsigned int)o->ncpus)
		cli_bad_arg("--threads %u needs %u CPUs but %s has %d",
			o->threads, o->threads,
			o->cpus_given ? "--cpus" : "the allowed set", o->ncpus);

	cli_nodes_check(o->nodes, o->nnodes, "NUMA placement requested");
	if (o->hot_node >= 0)
		cli_nodes_check(&o->hot_node, 1, "--hot-placement asked");

	/* Sizes */
	if (o->working_set < o->object_size)
		cli_bad_arg("--working-set must hold at least one %" PRIu64 "-byte object",
			o->object_size);
	limit = mem_limit(o->nodes, o->nnodes);
	if (o->working_set > limit)
		cli_bad_arg("--working-set %" PRIu64 " bytes exceeds the memory of %s",
			o->working_set, o->nnodes ? "the given nodes" : "the host");
	if (o->hot_set && o->hot_set >= o->working_set)
		cli_bad_arg("--hot-set must be smaller than --working-set");
	if (o->hot_set && o->hot_set < o->object_size * o->threads)
		cli_bad_arg("--hot-set must hold at least one object per thread");
	if (o->move_hot_at >= 0) {
		if (!o->hot_set)
			cli_bad_arg("--move-hot-at needs a --hot-set");
		if (o->hot_set / o->object_size * 2 >
		    o->working_set / o->object_size)
			cli_bad_arg("--move-hot-at needs --hot-set at most half of --working-set");
		if (o->duration > 0 && o->move_hot_at >= o->duration)
			cli_bad_arg("--move-hot-at must be before the end of --duration");
	}
	if (o->hot_node >= 0 && !o->hot_set)
		cli_bad_arg("--hot-placement needs a --hot-set");
}

struct run {
	struct opts o;
	struct gups_cfg cfg;
	struct gups_thread *th;
	struct gups_counter *ctr;
	size_t len;
	FILE *out;
	sigset_t sigs;
	double last_cpu;	/* process CPU seconds at the last row */
};

/* Start one function on every thread and wait for all; -errno on failure. */
static int run_all(struct run *r, void *(*fn)(void *))
{
	unsigned int i, started;
	int ret = 0;

	for (started = 0; started < r->o.threads; started++) {
		ret = -pthread_create(&r->th[started].tid, NULL, fn,
				      &r->th[started]);
		if (ret)
			break;
	}
	for (i = 0; i < started; i++) {
		pthread_join(r->th[i].tid, NULL);
		if (!ret && r->th[i].err)
			ret = r->th[i].err;
	}
	return ret;
}

static void totals(const struct run *r, uint64_t *updates, uint64_t *rmw)
{
	unsigned int i;

	*updates = 0;
	*rmw = 0;
	for (i = 0; i < r->o.threads; i++) {
		*updates += atomic_load_explicit(&r->ctr[i].updates,
						 memory_order_relaxed);
		*rmw += atomic_load_explicit(&r->ctr[i].rmw,
					     memory_order_relaxed);
	}
}

static uint64_t bytes_of(const struct run *r, uint64_t updates, uint64_t rmw)
{
	/* a read touches the object once, an RMW reads and writes it */
	return (updates + rmw) * r->o.object_size;
}

/*
 * Bytes of the current hot set (phase 0's or, after --move-hot-at, phase 1's)
 * not on node o.hot_node: where up to PAGES_WHERE_MAX of its pages are
 * (pages_where: move_pages(2) asked, nothing moved), the share of the present
 * ones elsewhere times the hot set's size. -errno when the call fails, -ENOENT
 * when no page is present.
 */
static int64_t hot_off_node(const struct run *r)
{
	const struct gups_cfg *cfg = &r->cfg;
	uint64_t first = cfg->hot_start[atomic_load(&cfg->phase)] * cfg->obj_words * 8;
	uint64_t len = cfg->nhot * cfg->obj_words * 8;
	int status[PAGES_WHERE_MAX];
	long n = pages_where((uint8_t *)cfg->buf + first, len, PAGES_WHERE_MAX, status);
	size_t off = 0, present = 0;

	if (n < 0)
		return n;
	for (long i = 0; i < n; i++) {
		if (status[i] < 0)	/* not present, or the zero page */
			continue;
		present++;
		off += status[i] != r->o.hot_node;
	}
	if (!present)
		return -ENOENT;
	return (int64_t)((double)off / (double)present * (double)len + 0.5);
}

/*
 * One report row. cpu_share: the CPU time the process got in the interval
 * over the interval times the worker threads, the share of its CPUs it ran
 * on while it was measured (start-up, before t = 0, is not in any row).
 */
static void row(struct run *r, double t, double dt, uint64_t du,
		uint64_t dbytes, int phase)
{
	double cpu = process_cpu_s(), share;

	if (dt <= 0)
		dt = 1e-9;
	share = (cpu - r->last_cpu) / (dt * r->o.threads);
	r->last_cpu = cpu;
	fprintf(r->out, "%.3f,%" PRIu64 ",%.1f,%.4f,%" PRIu64 ",%d,%.4f", t,
		du, du / dt, dbytes / dt / 1e9, dbytes, phase, share);
	if (r->o.hot_node >= 0) {
		int64_t off = hot_off_node(r);

		/* (empty where the kernel could not say: no page present) */
		if (off >= 0)
			fprintf(r->out, ",%" PRId64, off);
		else
			fputc(',', r->out);
	}
	fputc('\n', r->out);
	fflush(r->out);
}

/* Timed phase: start workers, report, stop. Returns -errno or 0. */
static int timed(struct run *r, double *seconds, int *stop_sig)
{
	struct opts *o = &r->o;
	uint64_t last_u = 0, last_r = 0, u, m;
	double t0, last_t, next, end, move, t;
	unsigned int i, started;
	int ret = 0, sig = 0;

	r->last_cpu = process_cpu_s();
	t0 = now_s();
	for (started = 0; started < o->threads; started++) {
		ret = -pthread_create(&r->th[started].tid, NULL, gups_run_main,
				      &r->th[started]);
		if (ret) {
			cli_fail("cannot start worker thread: %s", strerror(-ret));
			break;
		}
	}
	if (!ret && o->ready_file) {
		ret = create_flag_file(o->ready_file);
		if (ret)
			cli_fail("cannot create --ready-file '%s': %s",
				 o->ready_file, strerror(-ret));
	}

	last_t = t0;
	next = t0 + o->interval;
	end = o->duration > 0 ? t0 + o->duration : INFINITY;
	move = o->move_hot_at >= 0 ? t0 + o->move_hot_at : INFINITY;
	while (!ret) {
		double deadline = fmin(fmin(next, end), move);

		sig = sig_wait_until(&r->sigs, deadline);
		if (sig)
			break;
		t = now_s();
		for (i = 0; i < started; i++)
			if (r->th[i].err)
				break;
		if (i < started) {
			ret = r->th[i].err;
			cli_fail("cannot pin thread to CPU %d: %s", r->th[i].cpu,
				 strerror(-ret));
			break;
		}
		if (t >= end)
			break;
		/* a row ending at the move is still phase 0 */
		if (t >= next) {
			totals(r, &u, &m);
			row(r, t - t0, t - last_t, u - last_u,
			    bytes_of(r, u, m) - bytes_of(r, last_u, last_r),
			    atomic_load(&r->cfg.phase));
			last_t = t;
			last_u = u;
			last_r = m;
			while (next <= t)
				next += o->interval;
		}
		if (t >= move) {
			atomic_store(&r->cfg.phase, 1);
			move = INFINITY;
		}
	}
	atomic_store(&r->cfg.stop, 1);
	for (i = 0; i < started; i++)
		pthread_join(r->th[i].tid, NULL);
	t = now_s();
	*seconds = t - t0;
	*stop_sig = sig;
	if (ret)
		return ret;
	totals(r, &u, &m);
	if (u > last_u || t - last_t > 1e-3)
		row(r, t - t0, t - last_t, u - last_u,
		    bytes_of(r, u, m) - bytes_of(r, last_u, last_r),
		    atomic_load(&r->cfg.phase));
	return 0;
}

static int setup(struct run *r)
{
	struct opts *o = &r->o;
	struct gups_cfg *cfg = &r->cfg;
	unsigned int i;
	int ret;

	cfg->nobj = o->working_set / o->object_size;
	cfg->obj_words = (unsigned int)(o->object_size / 8);
	cfg->nthreads = o->threads;
	cfg->op = o->op;
	cfg->nhot = o->hot_set / o->object_size;
	cfg->hot_thresh = cfg->nhot ? gups_threshold(o->hot_share) : 0;
	cfg->read_thresh = gups_threshold(o->read_share);
	cfg->hot_start[0] = 0;
	cfg->hot_start[1] = o->move_hot_at >= 0 ? cfg->nhot : 0;
	cfg->seed = o->seed;
	r->len = cfg->nobj * o->object_size;

	r->th = calloc(o->threads, sizeof(*r->th));
	r->ctr = aligned_alloc(64, o->threads * sizeof(*r->ctr));
	if (!r->th || !r->ctr) {
		cli_fail("out of memory");
		return -ENOMEM;
	}
	memset(r->ctr, 0, o->threads * sizeof(*r->ctr));
	for (i = 0; i < o->threads; i++) {
		struct gups_thread *th = &r->th[i];

		th->cfg = cfg;
		th->id = i;
		th->cpu = o->cpus[i];
		th->ctr = &r->ctr[i];
		if (gups_plan(cfg, i, th->sel)) {
			/* sizes were checked; this only trips on odd inputs */
			cli_fail("thread %u has no object in the hot or cold range", i);
			return -EINVAL;
		}
	}

	ret = region_map(r->len, o->huge, o->nodes, o->nnodes, o->interleave,
			 (void **)&cfg->buf);
	if (ret) {
		cli_fail("cannot map %zu bytes%s: %s", r->len,
			 o->nnodes ? " with the requested NUMA policy" : "",
			 strerror(-ret));
		return ret;
	}
	return 0;
}

static int write_summary(const char *path, uint64_t updates, double seconds,
			 double ups, double gbs, bool ok)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	fprintf(f, "updates_total,seconds,updates_per_s,gbytes_per_s,checksum_ok\n");
	fprintf(f, "%" PRIu64 ",%.3f,%.1f,%.4f,%d\n", updates, seconds, ups,
		gbs, ok ? 1 : 0);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int main(int argc, char **argv)
{
	static struct run run;
	struct run *r = &run;
	uint64_t init_sum = 0, final_sum = 0, updates, rmw, expect, found;
	double seconds = 0, ups, gbs;
	unsigned int i;
	int ret, sig = 0, status = 1;
	bool ok;

	parse_args(argc, argv, &r->o);

	/* SIGINT/SIGTERM are taken synchronously by the main thread. */
	sig_block_stop(&r->sigs);
	if (cli_open_output(r->o.output, &r->out))
		return 1;

	if (setup(r))
		goto out;

	ret = run_all(r, gups_touch_main);
	if (ret) {
		cli_fail("cannot touch the buffer: %s", strerror(-ret));
		goto out;
	}
	if (r->o.unbind && r->o.nnodes) {
		ret = region_unbind(r->cfg.buf, r->len);
		if (ret) {
			cli_fail("cannot drop the buffer's NUMA policy: %s",
				 strerror(-ret));
			goto out;
		}
	}
	for (i = 0; i < r->o.threads; i++)
		init_sum += r->th[i].sum;
	if (r->o.pid_file) {
		ret = write_pid_file(r->o.pid_file, (long)getpid());
		if (ret) {
			cli_fail("cannot write --pid-file '%s': %s", r->o.pid_file,
				 strerror(-ret));
			goto out;
		}
	}

	if (r->o.hot_node >= 0) {
		/* every page was just touched: each sampled one must be present */
		int64_t off = hot_off_node(r);

		if (off < 0) {
			cli_fail("--hot-placement: cannot ask where the hot set's pages are (move_pages): %s",
				 off == -ENOENT ? "none of the sampled pages is present" : strerror((int)-off));
			goto out;
		}
	}
	fprintf(r->out, "t_s,updates,updates_per_s,gbytes_per_s,bytes,phase,cpu_share%s\n",
		r->o.hot_node >= 0 ? ",hot_off_node_bytes" : "");
	fflush(r->out);
	if (timed(r, &seconds, &sig))
		goto out;

	if (r->o.self_test)
		r->cfg.buf[0] += 1;
	ret = run_all(r, gups_sum_main);
	if (ret) {
		cli_fail("cannot verify the buffer: %s", strerror(-ret));
		goto out;
	}
	for (i = 0; i < r->o.threads; i++)
		final_sum += r->th[i].sum;

	totals(r, &updates, &rmw);
	expect = rmw * r->cfg.obj_words;
	found = final_sum - init_sum;
	ok = expect == found;
	ups = seconds > 0 ? updates / seconds : 0;
	gbs = seconds > 0 ? bytes_of(r, updates, rmw) / seconds / 1e9 : 0;
	fprintf(stderr,
		PROG ": %" PRIu64 " updates (%" PRIu64 " rmw) in %.3f s: %.1f updates/s, %.4f GB/s, checksum %s%s\n",
		updates, rmw, seconds, ups, gbs, ok ? "ok" : "MISMATCH",
		sig ? (sig == SIGINT ? " (stopped by SIGINT)" :
		       " (stopped by SIGTERM)") : "");
	if (r->o.summary) {
		ret = write_summary(r->o.summary, updates, seconds, ups, gbs,
				    ok);
		if (ret) {
			cli_fail("cannot write --summary '%s': %s", r->o.summary,
				 strerror(-ret));
			goto out;
		}
	}
	if (!ok) {
		cli_fail("checksum mismatch: words grew by %" PRIu64 ", expected %" PRIu64,
			 found, expect);
		goto out;
	}
	status = 0;
out:
	region_unmap(r->cfg.buf, r->len);
	free(r->th);
	free(r->ctr);
	free(r->o.cpus);
	free(r->o.nodes);
	return cli_close_output(r->out, r->o.output, status);
}
