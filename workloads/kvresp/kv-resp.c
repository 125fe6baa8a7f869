// SPDX-License-Identifier: MIT
/*
 * kv-resp: load and read a Redis server over RESP, where no JVM runs (the QEMU guest).
 *
 *   kv-resp (--port P [--host 127.0.0.1] | --unix PATH) --records N --value-bytes B
 *           --key-type int|string --seconds S [--wait-seconds W] --output FILE
 *
 * (--unix: the server's Unix socket, for a guest whose loopback interface is down)
 *
 * Keys as tierbench's YCSB runner stores them (workloads/ycsb: KeyCodec): record k is
 * "user" + the 19-digit zero-padded FNV-1a-64 hash of k (YCSB's hashed insert order), stored as
 * those 23 bytes (string) or as the hash's 8-byte big-endian integer (int). Phases: load (SET of
 * every record), then c (GET of uniformly random records for S seconds; YCSB-C's mix with uniform
 * keys, not YCSB's zipfian). One connection, one request in flight. Output: the YCSB runner's CSV
 * (phase,metric,op,node,value,unit; latencies in microseconds with nanosecond resolution), the
 * server's CPU time per phase and both processes' bytes per NUMA node (/proc/PID/numa_maps), last
 * row "end,complete". The server must have written its pid to server.pid beside the output
 * (redis-server --pidfile): it is checked before anything is written. Exit 0 on success, 1 on failure, 2 on a
 * usage error.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_NODES 64
#define MAX_SAMPLES (1u << 20)

struct opts {
	const char *host, *output, *key_type, *unix_path;
	int port;
	long records, value_bytes;
	double seconds, wait_seconds;
};

static FILE *out;
static int fd = -1;
static char *rbuf;
static size_t rcap = 1 << 16, rlen, rpos;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *msg)
{
	fprintf(stderr, "kv-resp: error: %s\n", msg);
	exit(1);
}

static void row(const char *phase, const char *metric, const char *op, const char *node, double v, const char *unit)
{
	fprintf(out, "%s,%s,%s,%s,%.9g,%s\n", phase, metric, op, node, v, unit);
	fflush(out);
}

/* YCSB's Utils.fnvhash64 (FNV-1a over the 8 bytes of k, low byte first), made non-negative. */
static int64_t fnv(int64_t k)
{
	uint64_t h = 0xCBF29CE484222325ULL;
	uint64_t v = (uint64_t)k;

	for (int i = 0; i < 8; i++) {
		h ^= v & 0xff;
		v >>= 8;
		h *= 1099511628211ULL;
	}
	int64_t s = (int64_t)h;
	return s < 0 ? -s : s;
}

static size_t key(char *buf, long k, int int_keys)
{
	int64_t h = fnv(k);

	if (!int_keys)
		return (size_t)sprintf(buf, "user%019lld", (long long)h);
	for (int i = 7; i >= 0; i--) {
		buf[i] = (char)(h & 0xff);
		h >>= 8;
	}
	return 8;
}

static void send_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("write to the server failed");
		p += w;
		n -= (size_t)w;
	}
}

static int fill(void)
{
	if (rpos == rlen)
		rpos = rlen = 0;
	if (rlen == rcap)
		die("reply too large");
	ssize_t r = read(fd, rbuf + rlen, rcap - rlen);
	if (r <= 0)
		die("the server closed the connection");
	rlen += (size_t)r;
	return 0;
}

/* one reply line (without CRLF) into line; returns its length */
static size_t line_of(char *line, size_t max)
{
	for (;;) {
		for (size_t i = rpos; i + 1 < rlen; i++) {
			if (rbuf[i] == '\r' && rbuf[i + 1] == '\n') {
				size_t n = i - rpos;
				if (n >= max)
					die("reply line too long");
				memcpy(line, rbuf + rpos, n);
				line[n] = 0;
				rpos = i + 2;
				return n;
			}
		}
		if (rpos > 0) {
			memmove(rbuf, rbuf + rpos, rlen - rpos);
			rlen -= rpos;
			rpos = 0;
		}
		fill();
	}
}

/* skips n bytes + CRLF of a bulk string, copying up to max of them into dst (if any) */
static void bulk(long n, char *dst, size_t max)
{
	size_t need = (size_t)n + 2, got = 0;

	while (got < need) {
		if (rpos == rlen)
			fill();
		size_t take = rlen - rpos < need - got ? rlen - rpos : need - got;
		if (dst && got < max)
			memcpy(dst + got, rbuf + rpos, (got + take > max ? max - got : take));
		rpos += take;
		got += take;
	}
}

/* reads one reply: 1 for a value or OK, 0 for nil, dies on an error reply; a bulk reply's text
 * (up to max bytes) goes to dst */
static int reply(char *dst, size_t max)
{
	char line[512];

	line_of(line, sizeof(line));
	switch (line[0]) {
	case '+':
	case ':':
		return 1;
	case '$': {
		long n = atol(line + 1);
		if (n < 0)
			return 0;
		bulk(n, dst, max);
		return 1;
	}
	case '-':
		fprintf(stderr, "kv-resp: server error: %s\n", line);
		exit(1);
	default:
		die("unexpected reply");
	}
	return 0;
}

static char *cmd;
static size_t cmdcap;

static void command(int argc, const char **argv, const size_t *len)
{
	size_t need = 32;

	for (int i = 0; i < argc; i++)
		need += len[i] + 32;
	if (need > cmdcap) {
		cmdcap = need;
		cmd = realloc(cmd, cmdcap);
		if (!cmd)
			die("out of memory");
	}
	size_t n = (size_t)sprintf(cmd, "*%d\r\n", argc);
	for (int i = 0; i < argc; i++) {
		n += (size_t)sprintf(cmd + n, "$%zu\r\n", len[i]);
		memcpy(cmd + n, argv[i], len[i]);
		n += len[i];
		cmd[n++] = '\r';
		cmd[n++] = '\n';
	}
	send_all(cmd, n);
}

static void connect_server(const struct opts *o)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	struct sockaddr_un u = { .sun_family = AF_UNIX };
	struct sockaddr *sa = (struct sockaddr *)&a;
	socklen_t salen = sizeof(a);
	double end = now_s() + o->wait_seconds;

	if (o->unix_path) {
		if (strlen(o->unix_path) >= sizeof(u.sun_path))
			die("--unix path too long");
		strcpy(u.sun_path, o->unix_path);
		sa = (struct sockaddr *)&u;
		salen = sizeof(u);
	} else if (inet_pton(AF_INET, o->host, &a.sin_addr) != 1) {
		die("--host must be an IPv4 address");
	}
	for (;;) {
		fd = socket(o->unix_path ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket failed");
		if (connect(fd, sa, salen) == 0)
			break;
		close(fd);
		if (now_s() > end)
			die("the server accepts no connection");
		usleep(50000);
	}
	if (!o->unix_path) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
}

static long server_pid(void)
{
	const char *argv[] = { "INFO", "server" };
	size_t len[] = { 4, 6 };
	static char text[1 << 16];
	char *p;

	memset(text, 0, sizeof(text));
	command(2, argv, len);
	reply(text, sizeof(text) - 1);
	p = strstr(text, "process_id:");
	return p ? atol(p + 11) : -1;
}

/* The server must be this point's: it wrote its pid (redis-server --pidfile) to server.pid beside
 * our output, and that is the pid it reports; never flush or load someone else's Redis. */
static void check_ours(const char *output, long pid, double wait_s)
{
	char copy[PATH_MAX], path[PATH_MAX + 16];
	long mine = -1;
	double end = now_s() + wait_s;

	snprintf(copy, sizeof(copy), "%s", output);
	snprintf(path, sizeof(path), "%s/server.pid", dirname(copy));
	while (now_s() < end) {
		FILE *f = fopen(path, "r");
		if (f) {
			int ok = fscanf(f, "%ld", &mine) == 1;
			fclose(f);
			if (ok)
				break;
		}
		usleep(20000);
	}
	if (mine != pid) {
		fprintf(stderr, "kv-resp: error: the Redis there (pid %ld) is not this point's (%s: %ld): another "
				"program holds the port or socket\n", pid, path, mine);
		exit(1);
	}
}

static double proc_cpu_s(long pid)
{
	char path[64], buf[1024];
	FILE *f;
	unsigned long ut = 0, st = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* bytes per node of a process (numa_maps): all of its mappings ("node_bytes") and its anonymous
 * ones, i.e. not file-backed: heap, stack, anonymous mmaps, where a store's data is
 * ("anon_node_bytes"; a binary's and its libraries' page-cache pages are not placed by its policy) */
static void node_bytes(const char *phase, const char *who, long pid)
{
	char path[64], line[8192];
	unsigned long long bytes[MAX_NODES] = { 0 }, anon[MAX_NODES] = { 0 };
	FILE *f;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%ld/numa_maps", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/numa_maps");
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kv-resp: cannot read %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long page = 4096, pages[MAX_NODES] = { 0 };
		int file = strstr(line, " file=") != NULL;
		for (char *t = strtok(line, " \n"); t; t = strtok(NULL, " \n")) {
			unsigned n;
			unsigned long long c;
			if (sscanf(t, "kernelpagesize_kB=%llu", &c) == 1)
				page = c * 1024;
			else if (t[0] == 'N' && isdigit((unsigned char)t[1]) && sscanf(t, "N%u=%llu", &n, &c) == 2 && n < MAX_NODES)
				pages[n] += c;
		}
		for (int n = 0; n < MAX_NODES; n++) {
			bytes[n] += pages[n] * page;
			if (!file)
				anon[n] += pages[n] * page;
		}
	}
	fclose(f);
	for (int n = 0; n < MAX_NODES; n++) {
		char node[8];
		snprintf(node, sizeof(node), "%d", n);
		if (bytes[n])
			row(phase, "node_bytes", who, node, (double)bytes[n], "B");
		if (anon[n])
			row(phase, "anon_node_bytes", who, node, (double)anon[n], "B");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void latencies(const char *phase, const char *op, double *lat, size_t n, double total_s)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_double);
	row(phase, "op_count", op, "", (double)n, "ops");
	row(phase, "latency_mean", op, "", total_s / (double)n * 1e6, "us");
	row(phase, "latency_p50", op, "", lat[n / 2] * 1e6, "us");
	row(phase, "latency_p99", op, "", lat[(size_t)(n * 0.99)] * 1e6, "us");
	row(phase, "latency_p999", op, "", lat[(size_t)(n * 0.999)] * 1e6, "us");
	row(phase, "latency_max", op, "", lat[n - 1] * 1e6, "us");
}

static void phase_rows(const char *phase, long ops, long failed, double elapsed, double cpu, double scpu)
{
	row(phase, "operations", "", "", (double)ops, "ops");
	row(phase, "elapsed", "", "", elapsed, "s");
	row(phase, "throughput", "", "", ops / elapsed, "ops/s");
	row(phase, "failed_operations", "", "", (double)failed, "ops");
	row(phase, "client_cpu", "", "", cpu, "s");
	row(phase, "server_cpu", "", "", scpu, "s");
}

static void usage(void)
{
	fprintf(stderr, "usage: kv-resp (--port P [--host H] | --unix PATH) --records N --value-bytes B --key-type int|string "
			"--seconds S [--wait-seconds W] --output FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { .host = "127.0.0.1", .key_type = "string", .port = 6379, .records = 10000,
			  .value_bytes = 100, .seconds = 1, .wait_seconds = 30 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		if (!strcmp(a, "--port"))
			o.port = atoi(v);
		else if (!strcmp(a, "--host"))
			o.host = v;
		else if (!strcmp(a, "--unix"))
			o.unix_path = v;
		else if (!strcmp(a, "--records"))
			o.records = atol(v);
		else if (!strcmp(a, "--value-bytes"))
			o.value_bytes = atol(v);
		else if (!strcmp(a, "--key-type"))
			o.key_type = v;
		else if (!strcmp(a, "--seconds"))
			o.seconds = atof(v);
		else if (!strcmp(a, "--wait-seconds"))
			o.wait_seconds = atof(v);
		else if (!strcmp(a, "--output"))
			o.output = v;
		else
			usage();
		i++;
	}
	int int_keys = !strcmp(o.key_type, "int");
	if (!o.output || o.records < 1 || o.value_bytes < 1 || o.port < 1 || (!int_keys && strcmp(o.key_type, "string")))
		usage();
	out = fopen(o.output, "w");
	if (!out)
		die("cannot open --output");
	rbuf = malloc(rcap);
	char *value = malloc((size_t)o.value_bytes), *got = malloc((size_t)o.value_bytes);
	double *lat = malloc(MAX_SAMPLES * sizeof(double));
	if (!rbuf || !value || !got || !lat)
		die("out of memory");
	memset(value, 'v', (size_t)o.value_bytes);
	fprintf(out, "phase,metric,op,node,value,unit\n");

	connect_server(&o);
	long spid = server_pid();
	check_ours(o.output, spid, 10); /* it writes it right after it listens */
	row("setup", "server_pid", "store", "", (double)spid, "pid");
	{
		const char *fa[] = { "FLUSHALL" };
		size_t fl[] = { 8 };
		command(1, fa, fl);
		reply(NULL, 0);
	}

	char k[32];
	const char *argv3[3];
	size_t len3[3];
	double t0, c0, s0, t, sum = 0;
	size_t n = 0;

	/* load */
	t0 = now_s();
	c0 = self_cpu_s();
	s0 = proc_cpu_s(spid);
	for (long i = 0; i < o.records; i++) {
		argv3[0] = "SET";
		len3[0] = 3;
		argv3[1] = k;
		len3[1] = key(k, i, int_keys);
		argv3[2] = value;
		len3[2] = (size_t)o.value_bytes;
		t = now_s();
		command(3, argv3, len3);
		reply(NULL, 0);
		t = now_s() - t;
		sum += t;
		if (n < MAX_SAMPLES)
			lat[n++] = t;
	}
	phase_rows("load", o.records, 0, now_s() - t0, self_cpu_s() - c0, proc_cpu_s(spid) - s0);
	latencies("load", "INSERT", lat, n, sum);
	node_bytes("mem_load", "store", spid);

	/* c: uniform GETs for --seconds */
	long ops = 0, missing = 0;
	unsigned long long x = 88172645463325252ULL;
	n = 0;
	sum = 0;
	t0 = now_s();
	c0 = self_cpu_s();
	s0 = proc_cpu_s(spid);
	double end = t0 + o.seconds;
	do {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		argv3[0] = "GET";
		len3[0] = 3;
		argv3[1] = k;
		len3[1] = key(k, (long)(x % (unsigned long long)o.records), int_keys);
		t = now_s();
		command(2, argv3, len3);
		if (!reply(got, (size_t)o.value_bytes))
			missing++;
		t = now_s() - t;
		sum += t;
		if (n < MAX_SAMPLES)
			lat[n++] = t;
		ops++;
	} while (now_s() < end);
	phase_rows("c", ops, missing, now_s() - t0, self_cpu_s() - c0, proc_cpu_s(spid) - s0);
	latencies("c", "READ", lat, n, sum);
	node_bytes("mem_end", "client", -1);
	node_bytes("mem_end", "store", spid);
	row("end", "complete", "", "", 1, "");
	close(fd);
	fclose(out);
	free(cmd);
	free(rbuf);
	free(value);
	free(got);
	free(lat);
	return missing ? 1 : 0;
}
