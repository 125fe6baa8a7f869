// SPDX-License-Identifier: MIT
/*
 * colloid-bench - decision cost of libcolloid's policies per quantum.
 *
 * For 36,864 2 MiB regions (72 GiB) and 1,000,000 4 KiB pages, for each
 * policy with Colloid off and on, feeds synthetic inputs (a hot set of
 * 20/72 of the pages receiving 90 % of the samples, as in the paper's GUPS
 * setup) and times colloid_tick() alone, in thread CPU time.  The default
 * tier holds 32/72 of the pages.  With Colloid on, the default tier
 * alternates every 5 quanta between unloaded and overloaded so that plans
 * are never empty.  The inputs of each quantum (colloid_sample() or
 * colloid_hint_fault() calls and the latency observations) are timed
 * separately and reported per sample or fault.
 *
 * Output: CSV on stdout (or a table with --table).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "colloid.h"

static const char *prog = "colloid-bench";
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

struct bcase {
	const char *name;
	uint64_t npages, page_size;
	double target_pct;
};

static const struct bcase cases[] = {
	{ "2MiBx36864", 36864, 2ull << 20, 1.0 },
	{ "4KiBx1000000", 1000000, 4096, 5.0 },
};


static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static double now_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options]\n"
		"Time libcolloid's per-quantum decision (colloid_tick) for 36,864 2 MiB regions\n"
		"and 1,000,000 4 KiB pages, per policy, Colloid off and on.\n"
		"\n"
		"  --quick            short run: 5 warm-up + 10 timed quanta (default 10 + 40)\n"
		"  --quanta N         timed quanta per configuration (1..100000)\n"
		"  --warmup N         untimed quanta first (0..100000)\n"
		"  --samples N        most samples fed per quantum (1..100000000, default 200000)\n"
		"  --policy NAME      only this policy (a libcolloid policy; default all)\n"
		"  --case NAME        only this case (2MiBx36864 or 4KiBx1000000; default both)\n"
		"  --tpp-quantum-ms X tick period in ms of a policy fed by hint faults (default 10)\n"
		"  --seed N           random seed (default 1)\n"
		"  --table            print an aligned table instead of CSV\n"
		"  --help             this text\n"
		"\n"
		"Quanta: HeMem 10 ms, MEMTIS 500 ms (published), TPP 10 ms (chosen).\n"
		"Samples per quantum: accesses at 1.5e9/s divided by the sampling period\n"
		"(HeMem 5003, MEMTIS 199), capped by --samples; TPP: hint faults for\n"
		"256 MiB scanned per second.  Targets: < 1 %% of the quantum for 2 MiB\n"
		"regions, < 5 %% for 4 KiB pages.  Times are thread CPU time of colloid_tick;\n"
		"input_ns is the thread CPU time of a quantum's inputs (the colloid_sample()\n"
		"or, TPP, colloid_hint_fault() calls, with the synthetic input generator, and\n"
		"the latency observations) divided by the number of samples or faults.\n"
		"CSV columns: case,policy,colloid,pages,page_size,quantum_ms,samples_per_quantum,\n"
		"moves_per_quantum,mean_us,p99_us,max_us,share_pct,target_pct,meets_target,\n"
		"input_ns\n",
		prog);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

struct result {
	double mean_ns, p99_ns, max_ns, moves, samples, input_ns;
};

static int run_one(const struct bcase *bc, const char *pol, int col, uint64_t warm,
		   uint64_t quanta, uint64_t max_samples, double tpp_q_ms, uint64_t seed,
		   struct result *res)
{
	struct colloid_config cfg;
	struct colloid_params prm;
	struct colloid_ctx *c = NULL;
	struct colloid_move *plan = NULL;
	double *times = NULL, q_ms, samples_pq, sum = 0, moves = 0, in_sum = 0, in_calls = 0;
	struct colloid_policy_info info;
	int by_faults;
	uint64_t hot = bc->npages * 20 / 72, dcap = bc->npages * 32 / 72, now = 0, qns;
	size_t cap = 65536, n;
	int ret;

	colloid_params_default(&prm, pol);
	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = pol;
	cfg.colloid = col;
	cfg.ntiers = 2;
	cfg.tiers[0].capacity_bytes = dcap * bc->page_size;
	cfg.tiers[0].unloaded_latency_ns = 80;
	cfg.tiers[1].capacity_bytes = bc->npages * bc->page_size;
	cfg.tiers[1].unloaded_latency_ns = 135;
	cfg.npages = bc->npages;
	cfg.page_size = bc->page_size;
	cfg.init_tier = 1;
	cfg.params = &prm;

	if (colloid_policy_info(pol, &prm, &info))
		return -EINVAL;
	/* a policy fed by a page scanner's hint faults gets the scanner's
	 * faults per quantum; a sampled one, 1.5e9 events/s at its period */
	by_faults = info.hint_faults;
	if (by_faults) {
		q_ms = tpp_q_ms;
		samples_pq = info.scan_size_bytes / (double)bc->page_size *
			     (q_ms / info.scan_period_ms);
		if (samples_pq < 1)
			samples_pq = 1;
	} else {
		q_ms = (double)info.quantum_ns / 1e6;
		samples_pq = 1.5e9 / info.load_period * q_ms * 1e-3;
	}
	if (samples_pq > (double)max_samples)
		samples_pq = (double)max_samples;
	qns = (uint64_t)(q_ms * 1e6);

	ret = colloid_new(&cfg, &c);
	if (ret)
		return ret;
	plan = malloc(cap * sizeof(*plan));
	times = malloc(quanta * sizeof(*times));
	if (!plan || !times) {
		ret = -ENOMEM;
		goto out;
	}
	/* the default tier starts full of cold pages */
	for (uint64_t i = 0; i < dcap; i++)
		colloid_page_set_tier(c, bc->npages - 1 - i, 0);

	for (uint64_t q = 0; q < warm + quanta && !stop; q++) {
		double t0, t1;
		int overloaded = (q / 5) & 1;

		now += qns;
		t0 = now_cpu_ns();
		for (uint64_t s = 0; s < (uint64_t)samples_pq; s++) {
			uint64_t r = rnd(&seed);
			uint64_t page = (r % 10) < 9 ? (r >> 8) % hot : (r >> 8) % bc->npages;

			if (by_faults)
				colloid_hint_fault(c, page, (r >> 40) % 1500 * 1000000ull, now);
			else
				colloid_sample(c, page, (r >> 4) % 3 == 0, 1);
		}
		colloid_observe_ns(c, 0, overloaded ? 300 : 90, 1e7, qns);
		colloid_observe_ns(c, 1, 150, 5e6, qns);
		t1 = now_cpu_ns();
		if (q >= warm) {
			in_sum += t1 - t0;
			in_calls += floor(samples_pq);
		}

		t0 = now_cpu_ns();
		ret = colloid_tick(c, now, qns, plan, cap, &n);
		t1 = now_cpu_ns();
		if (ret)
			goto out;
		if (q >= warm) {
			times[q - warm] = t1 - t0;
			sum += t1 - t0;
			moves += (double)n;
		}
	}
	if (stop) {
		ret = -EINTR;
		goto out;
	}
	qsort(times, quanta, sizeof(*times), cmp_double);
	res->mean_ns = sum / (double)quanta;
	res->p99_ns = times[(size_t)((double)(quanta - 1) * 0.99)];
	res->max_ns = times[quanta - 1];
	res->moves = moves / (double)quanta;
	res->samples = floor(samples_pq);
	res->input_ns = in_calls > 0 ? in_sum / in_calls : 0;
	ret = 0;
out:
	free(times);
	free(plan);
	colloid_destroy(c);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'k' },
		{ "quanta", required_argument, NULL, 'q' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "samples", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'p' },
		{ "case", required_argument, NULL, 'c' },
		{ "tpp-quantum-ms", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 'S' },
		{ "table", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t quanta = 40, warm = 10, max_samples = 200000, seed = 1;
	const char *only_pol = NULL, *only_case = NULL;
	double tpp_q_ms = 10;
	int table = 0, o, failed = 0, li = 0;
	struct sigaction sa;

	opterr = 0;
	while ((o = getopt_long(argc, argv, "", opts, &li)) != -1) {
		switch (o) {
		case 'k':
			quanta = 10;
			warm = 5;
			break;
		case 'q':
			if (parse_u64(optarg, 1, 100000, &quanta))
				goto bad;
			break;
		case 'w':
			if (parse_u64(optarg, 0, 100000, &warm))
				goto bad;
			break;
		case 's':
			if (parse_u64(optarg, 1, 100000000, &max_samples))
				goto bad;
			break;
		case 'S':
			if (parse_u64(optarg, 1, UINT64_MAX, &seed))
				goto bad;
			break;
		case 'p':
			if (colloid_policy_info(optarg, NULL, &(struct colloid_policy_info){ 0 }))
				goto bad;
			only_pol = optarg;
			break;
		case 'c':
			if (strcmp(optarg, cases[0].name) && strcmp(optarg, cases[1].name))
				goto bad;
			only_case = optarg;
			break;
		case 't': {
			char *end;

			errno = 0;
			tpp_q_ms = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(tpp_q_ms >= 0.1 && tpp_q_ms <= 100000))
				goto bad;
			break;
		}
		case 'T':
			table = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				fprintf(stderr, "%s: error: bad or missing value for option '%s'\n", prog,
					argv[optind - 1]);
			else
				fprintf(stderr, "%s: error: unknown option '%s'\n", prog,
					argv[optind - 1]);
			return 2;
		}
		continue;
bad:
		fprintf(stderr, "%s: error: invalid value '%s' for --%s\n", prog, optarg,
			opts[li].name);
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: error: unexpected argument '%s'\n", prog, argv[optind]);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (table)
		printf("%-13s %-7s %-7s %9s %10s %9s %9s %9s %9s %8s %-9s %s\n", "case", "policy",
		       "colloid", "quantum", "samples/q", "moves/q", "mean", "p99", "max",
		       "share", "target", "input/call");
	else
		printf("case,policy,colloid,pages,page_size,quantum_ms,samples_per_quantum,"
		       "moves_per_quantum,mean_us,p99_us,max_us,share_pct,target_pct,meets_target,"
		       "input_ns\n");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct bcase *bc = &cases[k];

		if (only_case && strcmp(only_case, bc->name))
			continue;
		for (unsigned int p = 0; colloid_policy_name(p); p++) {
			struct colloid_policy_info info;
			double q_ms;

			if (only_pol && strcmp(only_pol, colloid_policy_name(p)))
				continue;
			colloid_policy_info(colloid_policy_name(p), NULL, &info);
			q_ms = info.hint_faults ? tpp_q_ms : (double)info.quantum_ns / 1e6;
			for (int col = 0; col <= 1; col++) {
				struct result r;
				double share;
				int ret = run_one(bc, colloid_policy_name(p), col, warm, quanta, max_samples,
						  tpp_q_ms, seed, &r);

				if (ret == -EINTR || stop) {
					fflush(stdout);
					return 128 + (int)stop;
				}
				if (ret) {
					fprintf(stderr, "%s: %s %s colloid=%d failed: %s\n", prog,
						bc->name, colloid_policy_name(p), col, strerror(-ret));
					return 1;
				}
				share = r.mean_ns / (q_ms * 1e6) * 100;
				failed |= share >= bc->target_pct;
				if (table)
					printf("%-13s %-7s %-7s %7.0fms %10.0f %9.1f %7.1fus %7.1fus "
					       "%7.1fus %7.4f%% <%.0f%% %-6s %7.1fns\n",
					       bc->name, colloid_policy_name(p), col ? "on" : "off", q_ms,
					       r.samples, r.moves, r.mean_ns / 1e3, r.p99_ns / 1e3,
					       r.max_ns / 1e3, share, bc->target_pct,
					       share < bc->target_pct ? "ok" : "MISSED", r.input_ns);
				else
					printf("%s,%s,%d,%" PRIu64 ",%" PRIu64 ",%g,%.0f,%.1f,%.2f,%.2f,"
					       "%.2f,%.5f,%g,%d,%.1f\n",
					       bc->name, colloid_policy_name(p), col, bc->npages, bc->page_size,
					       q_ms, r.samples, r.moves, r.mean_ns / 1e3,
					       r.p99_ns / 1e3, r.max_ns / 1e3, share, bc->target_pct,
					       share < bc->target_pct, r.input_ns);
				fflush(stdout);
			}
		}
	}
	if (failed)
		fprintf(stderr, "%s: some configurations missed their target\n", prog);
	return 0;
}
