// SPDX-License-Identifier: MIT
/*
 * antagonist: memory-bandwidth antagonist, one pinned streaming thread per
 * CPU. See README.md for options and output.
 */
#include "stream.h"
#include "tbcli.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROG "antagonist"

const char cli_prog[] = PROG;

struct opts {
	int *cpus;
	int ncpus;
	bool cpus_given;
	int node;		/* -1: local */
	uint64_t buffer;
	enum stream_mode mode;
	unsigned int access;
	double rate_mbps;	/* per thread, 0: unlimited */
	double duty;		/* share of each period streamed, (0, 1] */
	double period;		/* seconds of one on/off period */
	double duration;	/* 0: until SIGINT/SIGTERM */
	double interval;
	enum huge_mode huge;
	const char *output;
	const char *ready_file;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTION]...\n"
"Memory-bandwidth antagonist: one pinned thread per CPU streams\n"
"sequentially over its own buffer until --duration ends or SIGINT/SIGTERM.\n"
"Writes one CSV row per report interval: t_s,bytes,mbytes_per_s,threads,\n"
"cpu_share (the process's CPU time in the interval over interval x threads).\n"
"\n"
"  --cpus LIST            CPUs to run one streaming thread each on, e.g.\n"
"                         0-4,10; default: the CPUs this process may use\n"
"  --mem-node N           bind every buffer to NUMA node N (default: local,\n"
"                         first touch by the pinned thread)\n"
"  --buffer SIZE          bytes per thread (K/M/G suffixes, binary; rounded\n"
"                         down to a multiple of 64K); default 1G\n"
"  --write-fraction 0|50|100\n"
"                         0: read stream; 50: read-modify-write (each access\n"
"                         read and written back); 100: non-temporal write\n"
"                         stream (regular stores where the ISA has none);\n"
"                         default 50\n"
"  --access-size 16|64    bytes per access; default 64\n"
"  --rate MBPS            limit per thread in MB/s (10^6 bytes of traffic:\n"
"                         reads plus writes); default: unlimited\n"
"  --duty F               stream only the first F (0 < F <= 1) of every\n"
"                         period, idle the rest (every thread on the same\n"
"                         clock): on average F of the free-running load;\n"
"                         default 1\n"
"  --period-ms MS         length of one --duty period; default 100\n"
"  --huge auto|on|off     transparent huge pages for the buffers: system\n"
"                         default, or MADV_HUGEPAGE / MADV_NOHUGEPAGE;\n"
"                         default auto\n"
"  --duration S           seconds to stream after warm-up; 0 = until SIGINT\n"
"                         or SIGTERM; default 0\n"
"  --report-interval S    seconds per CSV row; default 1\n"
"  --output FILE          CSV file; default stdout\n"
"  --ready-file FILE      create FILE once every thread is streaming\n"
"  -h, --help             this text\n"
"\n"
"Exit status: 0 after --duration or SIGINT/SIGTERM, 1 runtime failure,\n"
"2 bad arguments.\n");
}

enum {
	OPT_CPUS = 256, OPT_NODE, OPT_BUFFER, OPT_WF, OPT_ACCESS, OPT_RATE,
	OPT_DUTY, OPT_PERIOD,
	OPT_HUGE, OPT_DURATION, OPT_INTERVAL, OPT_OUTPUT, OPT_READY,
};

static const struct option longopts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "mem-node", required_argument, NULL, OPT_NODE },
	{ "buffer", required_argument, NULL, OPT_BUFFER },
	{ "write-fraction", required_argument, NULL, OPT_WF },
	{ "access-size", required_argument, NULL, OPT_ACCESS },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "duty", required_argument, NULL, OPT_DUTY },
	{ "period-ms", required_argument, NULL, OPT_PERIOD },
	{ "huge", required_argument, NULL, OPT_HUGE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "report-interval", required_argument, NULL, OPT_INTERVAL },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "ready-file", required_argument, NULL, OPT_READY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t u, total, limit;
	int c, *ids, n, nnodes;

	*o = (struct opts){
		.node = -1,
		.buffer = 1ULL << 30,
		.mode = STREAM_RMW,
		.access = 64,
		.interval = 1,
		.duty = 1,
		.period = 0.1,
		.huge = HUGE_AUTO,
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CPUS:
			cli_cpus(optarg, &o->cpus, &o->ncpus);
			o->cpus_given = true;
			break;
		case OPT_NODE:
			if (parse_id_list(optarg, 1 << 16, &ids, &n) || n != 1)
				cli_bad_arg("--mem-node: '%s' is not a node number",
					optarg);
			o->node = ids[0];
			free(ids);
			break;
		case OPT_BUFFER:
			if (parse_size(optarg, &o->buffer))
				cli_bad_arg("--buffer: '%s' is not a size (e.g. 64M, 1G)",
					optarg);
			if (o->buffer < STREAM_CHUNK)
				cli_bad_arg("--buffer: '%s' is smaller than %lu bytes",
					optarg, STREAM_CHUNK);
			o->buffer -= o->buffer % STREAM_CHUNK;
			break;
		case OPT_WF:
			if (!strcmp(optarg, "0"))
				o->mode = STREAM_READ;
			else if (!strcmp(optarg, "50"))
				o->mode = STREAM_RMW;
			else if (!strcmp(optarg, "100"))
				o->mode = STREAM_NTWRITE;
			else
				cli_bad_arg("--write-fraction: '%s' is not 0, 50 or 100",
					optarg);
			break;
		case OPT_ACCESS:
			if (parse_u64(optarg, &u) || (u != 16 && u != 64))
				cli_bad_arg("--access-size: '%s' is not 16 or 64",
					optarg);
			o->access = (unsigned int)u;
			break;
		case OPT_RATE:
			o->rate_mbps = cli_number("--rate", optarg, 0, 1e9, 0);
			break;
		case OPT_DUTY:
			o->duty = cli_number("--duty", optarg, 0, 1, 0);
			if (!(o->duty > 0))
				cli_bad_arg("--duty: '%s' is not in (0, 1]",
					    optarg);
			break;
		case OPT_PERIOD:
			o->period = cli_number("--period-ms", optarg, 1, 1e6,
					       0) / 1e3;
			break;
		case OPT_HUGE:
			o->huge = cli_huge(optarg);
			break;
		case OPT_DURATION:
			o->duration = cli_number("--duration", optarg, 0, 1e9, 0);
			break;
		case OPT_INTERVAL:
			o->interval = cli_number("--report-interval", optarg,
						 0.001, 1e6, 0);
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_READY:
			o->ready_file = optarg;
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
	nnodes = o->node >= 0 ? 1 : 0;
	cli_nodes_check(&o->node, nnodes, "--mem-node given");
	limit = mem_limit(&o->node, nnodes);
	total = o->buffer * (uint64_t)o->ncpus;
	if (total / o->ncpus != o->buffer || total > limit)
		cli_bad_arg("%d x --buffer %" PRIu64 " bytes exceeds the memory of %s",
			o->ncpus, o->buffer,
			o->node >= 0 ? "the node" : "the host");
}

struct run {
	struct opts o;
	struct stream_cfg cfg;
	struct stream_thread *th;
	struct stream_counter *ctr;
	unsigned int started;
	FILE *out;
	sigset_t sigs;
	double last_cpu;	/* process CPU seconds at the last row */
};

static uint64_t total_bytes(const struct run *r)
{
	uint64_t b = 0;
	unsigned int i;

	for (i = 0; i < r->started; i++)
		b += atomic_load_explicit(&r->ctr[i].bytes,
					  memory_order_relaxed);
	return b;
}

/* One report row; cpu_share: the process's CPU time in the interval over
 * the interval times its threads (the share of its CPUs it ran on). */
static void row(struct run *r, double t, double dt, uint64_t db)
{
	double cpu = process_cpu_s(), share;

	if (dt <= 0)
		dt = 1e-9;
	share = (cpu - r->last_cpu) / (dt * (r->started ? r->started : 1));
	r->last_cpu = cpu;
	fprintf(r->out, "%.3f,%" PRIu64 ",%.1f,%u,%.4f\n", t, db,
		db / dt / 1e6, r->started, share);
	fflush(r->out);
}

/* -errno of the first thread that failed, 0 if none; reports it. */
static int thread_error(struct run *r)
{
	unsigned int i;
	int err;

	for (i = 0; i < r->started; i++) {
		err = atomic_load(&r->th[i].err);
		if (!err)
			continue;
		if (atomic_load(&r->th[i].stage) == STAGE_PIN)
			cli_fail("cannot pin a thread to CPU %d: %s", r->th[i].cpu,
				 strerror(-err));
		else
			cli_fail("cannot map %zu bytes for CPU %d%s: %s",
				 r->cfg.buf_bytes, r->th[i].cpu,
				 r->o.node >= 0 ? " on the node" : "",
				 strerror(-err));
		return err;
	}
	return 0;
}

/* Start threads, wait for warm-up, report until the end; -errno or 0. */
static int stream(struct run *r, double *seconds, uint64_t *bytes, int *sig)
{
	struct opts *o = &r->o;
	uint64_t last_b = 0, b;
	double t0, t, last_t, next, end;
	int ret = 0;

	*sig = 0;
	*seconds = 0;
	*bytes = 0;
	for (r->started = 0; r->started < (unsigned int)o->ncpus; r->started++) {
		struct stream_thread *th = &r->th[r->started];

		ret = -pthread_create(&th->tid, NULL, stream_main, th);
		if (ret) {
			cli_fail("cannot start a thread: %s", strerror(-ret));
			return ret;
		}
	}
	/* warm-up: every buffer allocated and touched */
	while (atomic_load(&r->cfg.streaming) < r->started) {
		*sig = sig_wait_until(&r->sigs, now_s() + 0.01);
		if (*sig)
			return 0;
		ret = thread_error(r);
		if (ret)
			return ret;
	}
	if (o->ready_file) {
		ret = create_flag_file(o->ready_file);
		if (ret) {
			cli_fail("cannot create --ready-file '%s': %s",
				 o->ready_file, strerror(-ret));
			return ret;
		}
	}

	r->last_cpu = process_cpu_s();
	t0 = now_s();
	last_t = t0;
	last_b = total_bytes(r);
	next = t0 + o->interval;
	end = o->duration > 0 ? t0 + o->duration : INFINITY;
	for (;;) {
		*sig = sig_wait_until(&r->sigs, fmin(next, end));
		t = now_s();
		if (*sig || t >= end)
			break;
		if (t >= next) {
			b = total_bytes(r);
			row(r, t - t0, t - last_t, b - last_b);
			*bytes += b - last_b;
			last_t = t;
			last_b = b;
			while (next <= t)
				next += o->interval;
		}
	}
	b = total_bytes(r);
	if (t - last_t > 1e-3) {
		row(r, t - t0, t - last_t, b - last_b);
		*bytes += b - last_b;
	}
	*seconds = t - t0;
	return 0;
}

int main(int argc, char **argv)
{
	static struct run run;
	struct run *r = &run;
	unsigned int i;
	uint64_t bytes = 0;
	double seconds = 0;
	int ret, sig = 0, status = 1;

	parse_args(argc, argv, &r->o);

	sig_block_stop(&r->sigs);
	if (cli_open_output(r->o.output, &r->out))
		return 1;
	if (r->o.mode == STREAM_NTWRITE && !stream_nt_supported())
		fprintf(stderr, PROG ": note: no non-temporal stores on this architecture; --write-fraction 100 uses regular stores\n");

	r->cfg = (struct stream_cfg){
		.buf_bytes = r->o.buffer,
		.mode = r->o.mode,
		.access = r->o.access,
		.rate = r->o.rate_mbps * 1e6,
		.duty = r->o.duty,
		.period = r->o.period,
		.huge = r->o.huge,
		.nodes = r->o.node >= 0 ? &r->o.node : NULL,
		.nnodes = r->o.node >= 0 ? 1 : 0,
	};
	r->th = calloc(r->o.ncpus, sizeof(*r->th));
	r->ctr = aligned_alloc(64, r->o.ncpus * sizeof(*r->ctr));
	if (!r->th || !r->ctr) {
		cli_fail("out of memory");
		goto out;
	}
	memset(r->ctr, 0, r->o.ncpus * sizeof(*r->ctr));
	for (i = 0; i < (unsigned int)r->o.ncpus; i++) {
		r->th[i].cfg = &r->cfg;
		r->th[i].cpu = r->o.cpus[i];
		r->th[i].ctr = &r->ctr[i];
	}

	fprintf(r->out, "t_s,bytes,mbytes_per_s,threads,cpu_share\n");
	fflush(r->out);
	ret = stream(r, &seconds, &bytes, &sig);
	atomic_store(&r->cfg.stop, 1);
	for (i = 0; i < r->started; i++)
		pthread_join(r->th[i].tid, NULL);
	if (ret)
		goto out;
	fprintf(stderr,
		PROG ": %u threads, %" PRIu64 " bytes in %.3f s: %.1f MB/s (%.1f MB/s per thread)%s\n",
		r->started, bytes, seconds,
		seconds > 0 ? bytes / seconds / 1e6 : 0.0,
		seconds > 0 && r->started ?
			bytes / seconds / 1e6 / r->started : 0.0,
		sig == SIGINT ? ", stopped by SIGINT" :
		sig == SIGTERM ? ", stopped by SIGTERM" : "");
	status = 0;
out:
	free(r->th);
	free(r->ctr);
	free(r->o.cpus);
	return cli_close_output(r->out, r->o.output, status);
}
