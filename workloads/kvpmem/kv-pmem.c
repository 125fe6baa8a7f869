// SPDX-License-Identifier: MIT
/*
 * kv-pmem: a small key-value server whose data lives in a libpmemobj pool (PMDK) on a DAX path,
 * spoken to over the subset of RESP that tierbench's YCSB Redis binding uses (the kv family's
 * "pmdk" system; workloads/ycsb: RedisDB.java and Runner.java).
 *
 *   kv-pmem --pool FILE --port P [--size-mib N] [--buckets N] [--fresh]
 *           [--pid-file FILE] [--ready-file FILE]
 *
 * What it implements:
 * - a persistent hash table (string key -> value; chained, a fixed power-of-two number of buckets
 *   chosen when the pool is created) for GET, SET, MGET, DEL, DBSIZE;
 * - ONE persistent ordered index, a sorted set (a skip list over the members' bytes, memcmp
 *   order, shorter first) for ZADD, ZREM, ZCARD, ZRANGEBYLEX min max [LIMIT offset count]: the
 *   first ZADD names it; another name is an error. Scores are parsed and ignored (members are
 *   ordered by their bytes: Redis's order when every score is equal, which is what the binding
 *   and ZRANGEBYLEX need);
 * - every update inside a pmemobj transaction (undo log): after a crash or a restart the pool
 *   holds each command's effect whole or not at all. FLUSHALL (FLUSHDB) detaches everything in
 *   one transaction and then frees the detached objects; a crash in between leaves them to be
 *   freed when the pool is next opened;
 * - PING, ECHO, INFO (process_id: the pid the client compares with --pid-file; pool, sizes,
 *   counts), SELECT 0, CLIENT ... (Jedis's CLIENT SETINFO: +OK), COMMAND (an empty list), QUIT;
 * - TCP on 127.0.0.1:P, a thread per connection, pipelined requests; the hash table's buckets are
 *   guarded by striped reader-writer locks and the ordered index by one (writers of the index
 *   are serialized).
 * What it does not: persistence beyond pmemobj transactions (no fsync, replication, snapshots
 * or AOF), multi-key atomicity (MGET and DEL take one key at a time), expiry, other data types,
 * inline (telnet) commands, RESP3, authentication, resizing the hash table.
 *
 * The pool: FILE is opened if it exists, else created (--size-mib, --buckets); --fresh removes a
 * FILE a killed run left first (refused while another process holds it open). On a path that is
 * not DAX, PMDK flushes with msync unless PMEM_IS_PMEM_FORCE=1 says to treat it as PMem (an
 * emulation: the numbers are not PMem's). The pid is written to --pid-file once it listens, then
 * --ready-file. SIGTERM, SIGINT or SIGHUP: no new command starts, the pool is closed, exit 0.
 * Exit 1 on a failure, 2 on a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libpmemobj.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LAYOUT "tierbench-kv-pmem-1"
#define ZMAX 24			/* skip list levels */
#define ZNAME_MAX 256		/* the sorted set's name */
#define STRIPES 256		/* hash table locks */
#define MAX_ARGS (1 << 20)
#define MAX_BULK (512L << 20)

enum { T_ENTRY = 1, T_ZNODE = 2, T_BUCKETS = 3 };

/* ---- persistent layout (the pool's root and its objects) */
struct root {
	uint64_t nbuckets;	/* a power of two */
	PMEMoid buckets;	/* PMEMoid[nbuckets]: chains of struct entry */
	uint64_t sweep;		/* 1: FLUSHALL detached objects that are not freed yet */
	uint64_t zname_len;
	char zname[ZNAME_MAX];
	PMEMoid znext[ZMAX];	/* the skip list's head */
};

struct entry {
	PMEMoid next;
	uint64_t hash;
	uint32_t klen, vlen;
	char kv[];		/* key bytes, then value bytes */
};

struct znode {
	uint32_t level, klen;
	PMEMoid next[];		/* [level], then the member's bytes */
};

/* ---- volatile state */
static PMEMobjpool *pop;
static struct root *root;
static pthread_rwlock_t stripe[STRIPES], zlock;
static atomic_long nkeys, nmembers;
static const char *pool_path;
static size_t pool_bytes;
static int port;

struct conn {
	int fd;
	char *in, *out;
	size_t ilen, icap, olen, ocap;
	const char **argv;
	size_t *argl, argcap;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kv-pmem: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* what it does, on standard output (the point's kv-pmem.log); errors go to standard error */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kv-pmem: ", stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static inline void *D(PMEMoid oid)
{
	return pmemobj_direct(oid);
}

static uint64_t hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static int cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	return c ? c : (al > bl) - (al < bl);
}

static PMEMoid *bucket(uint64_t h)
{
	return (PMEMoid *)D(root->buckets) + (h & (root->nbuckets - 1));
}

static pthread_rwlock_t *lock_of(uint64_t h)
{
	return &stripe[(h & (root->nbuckets - 1)) % STRIPES];
}

static char *zkey(struct znode *n)
{
	return (char *)&n->next[n->level];
}

/* a command word, case-insensitive */
static int is(const char *a, size_t al, const char *name)
{
	return al == strlen(name) && !strncasecmp(a, name, al);
}

/* ---- replies */
static void out(struct conn *c, const void *p, size_t n)
{
	if (c->olen + n > c->ocap) {
		c->ocap = (c->olen + n) * 2;
		c->out = xrealloc(c->out, c->ocap);
	}
	memcpy(c->out + c->olen, p, n);
	c->olen += n;
}

static void outf(struct conn *c, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out(c, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void bulk(struct conn *c, const char *p, size_t n)
{
	outf(c, "$%zu\r\n", n);
	out(c, p, n);
	out(c, "\r\n", 2);
}

#define OK(c) out(c, "+OK\r\n", 5)
#define NIL(c) out(c, "$-1\r\n", 5)
#define ERR(c, msg) out(c, "-" msg "\r\n", sizeof(msg) + 2)

/* ---- the hash table */
static void cmd_get(struct conn *c, const char *k, size_t kl)
{
	uint64_t h = hash(k, kl);

	pthread_rwlock_rdlock(lock_of(h));
	struct entry *e = D(*bucket(h));
	while (e && !(e->hash == h && e->klen == kl && !memcmp(e->kv, k, kl)))
		e = D(e->next);
	if (e)
		bulk(c, e->kv + e->klen, e->vlen);
	else
		NIL(c);
	pthread_rwlock_unlock(lock_of(h));
}

static void cmd_set(struct conn *c, const char *k, size_t kl, const char *v, size_t vl)
{
	const volatile uint64_t h = hash(k, kl);	/* volatile: kept across the transaction's setjmp */
	volatile int ok = 1, added = 0;

	pthread_rwlock_wrlock(lock_of(h));
	TX_BEGIN(pop) {
		PMEMoid *link = bucket(h);
		struct entry *e;
		while ((e = D(*link)) && !(e->hash == h && e->klen == kl && !memcmp(e->kv, k, kl)))
			link = &e->next;
		if (e && e->vlen == vl) {	/* same size: overwrite the value in place */
			pmemobj_tx_add_range_direct(e->kv + kl, vl);
			memcpy(e->kv + kl, v, vl);
		} else {
			PMEMoid n = pmemobj_tx_alloc(sizeof(*e) + kl + vl, T_ENTRY);
			struct entry *ne = D(n);
			ne->next = e ? e->next : OID_NULL;
			ne->hash = h;
			ne->klen = (uint32_t)kl;
			ne->vlen = (uint32_t)vl;
			memcpy(ne->kv, k, kl);
			memcpy(ne->kv + kl, v, vl);
			pmemobj_tx_add_range_direct(link, sizeof(*link));
			PMEMoid old = *link;
			*link = n;
			if (e)
				pmemobj_tx_free(old);
			else
				added = 1;
		}
	} TX_ONABORT {
		ok = 0;
	} TX_END
	pthread_rwlock_unlock(lock_of(h));
	if (added)
		atomic_fetch_add(&nkeys, 1);
	if (ok)
		OK(c);
	else
		ERR(c, "ERR kv-pmem: the transaction aborted (pool full?)");
}

static int del_one(const char *k, size_t kl)
{
	const volatile uint64_t h = hash(k, kl);
	volatile int found = 0;

	pthread_rwlock_wrlock(lock_of(h));
	TX_BEGIN(pop) {
		PMEMoid *link = bucket(h);
		struct entry *e;
		while ((e = D(*link)) && !(e->hash == h && e->klen == kl && !memcmp(e->kv, k, kl)))
			link = &e->next;
		if (e) {
			PMEMoid old = *link;
			pmemobj_tx_add_range_direct(link, sizeof(*link));
			*link = e->next;
			pmemobj_tx_free(old);
			found = 1;
		}
	} TX_ONABORT {
		found = 0;
	} TX_END
	pthread_rwlock_unlock(lock_of(h));
	if (found)
		atomic_fetch_sub(&nkeys, 1);
	return found;
}

/* ---- the ordered index: a skip list; update[i] is the link at level i before the member */
static struct znode *zfind(const char *m, size_t ml, PMEMoid *update[ZMAX], int after)
{
	PMEMoid *next = root->znext;
	struct znode *n = NULL;

	for (int i = ZMAX - 1; i >= 0; i--) {
		while ((n = D(next[i])) && cmp(zkey(n), n->klen, m, ml) < after)
			next = n->next;
		if (update)
			update[i] = &next[i];
	}
	return D(next[0]);	/* the first member >= m (after = 0) or > m (after = 1) */
}

static unsigned zlevel(void)
{
	static _Thread_local uint64_t s;
	unsigned l = 1;

	if (!s)
		s = (uint64_t)(uintptr_t)&s ^ (uint64_t)time(NULL) ^ 0x9e3779b97f4a7c15ULL;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	for (uint64_t r = s; l < ZMAX && (r & 3) == 0; r >>= 2)
		l++;	/* p = 1/4 */
	return l;
}

static int zname_ok(const char *k, size_t kl)
{
	return root->zname_len == kl && !memcmp(root->zname, k, kl);
}

static void cmd_zadd(struct conn *c, const char **a, const size_t *al, size_t argc)
{
	if (argc < 4 || argc % 2) {
		ERR(c, "ERR wrong number of arguments for 'zadd' command");
		return;
	}
	for (size_t i = 2; i < argc; i += 2) {
		char num[64], *end;
		size_t n = al[i] < sizeof(num) - 1 ? al[i] : sizeof(num) - 1;
		memcpy(num, a[i], n);
		num[n] = 0;
		strtod(num, &end);
		if (!n || *end) {
			ERR(c, "ERR value is not a valid float");
			return;
		}
	}
	if (al[1] > ZNAME_MAX) {
		ERR(c, "ERR kv-pmem: sorted set name too long");
		return;
	}
	volatile long added = 0;
	volatile int ok = 1, wrong = 0;

	pthread_rwlock_wrlock(&zlock);
	TX_BEGIN(pop) {
		if (!root->zname_len) {
			pmemobj_tx_add_range_direct(&root->zname_len, sizeof(root->zname_len) + ZNAME_MAX);
			root->zname_len = al[1];
			memcpy(root->zname, a[1], al[1]);
		} else if (!zname_ok(a[1], al[1])) {
			wrong = 1;
			pmemobj_tx_abort(EINVAL);
		}
		for (size_t i = 3; i < argc; i += 2) {
			PMEMoid *update[ZMAX];
			struct znode *x = zfind(a[i], al[i], update, 0);
			if (x && !cmp(zkey(x), x->klen, a[i], al[i]))
				continue;	/* a member already */
			unsigned lvl = zlevel();
			PMEMoid oid = pmemobj_tx_alloc(sizeof(*x) + lvl * sizeof(PMEMoid) + al[i], T_ZNODE);
			struct znode *n = D(oid);
			n->level = lvl;
			n->klen = (uint32_t)al[i];
			memcpy(zkey(n), a[i], al[i]);
			for (unsigned l = 0; l < lvl; l++) {
				n->next[l] = *update[l];
				pmemobj_tx_add_range_direct(update[l], sizeof(PMEMoid));
				*update[l] = oid;
			}
			added++;
		}
	} TX_ONABORT {
		ok = 0;
	} TX_END
	pthread_rwlock_unlock(&zlock);
	if (wrong)
		ERR(c, "ERR kv-pmem keeps one sorted set (the first ZADD named it)");
	else if (!ok)
		ERR(c, "ERR kv-pmem: the transaction aborted (pool full?)");
	else {
		atomic_fetch_add(&nmembers, added);
		outf(c, ":%ld\r\n", (long)added);
	}
}

static void cmd_zrem(struct conn *c, const char **a, const size_t *al, size_t argc)
{
	volatile long removed = 0;
	volatile int ok = 1;

	pthread_rwlock_wrlock(&zlock);
	if (zname_ok(a[1], al[1])) {
		TX_BEGIN(pop) {
			for (size_t i = 2; i < argc; i++) {
				PMEMoid *update[ZMAX];
				struct znode *x = zfind(a[i], al[i], update, 0);
				if (!x || cmp(zkey(x), x->klen, a[i], al[i]))
					continue;
				PMEMoid oid = *update[0];
				for (unsigned l = 0; l < x->level; l++) {
					pmemobj_tx_add_range_direct(update[l], sizeof(PMEMoid));
					*update[l] = x->next[l];
				}
				pmemobj_tx_free(oid);
				removed++;
			}
		} TX_ONABORT {
			ok = 0;
		} TX_END
	}
	pthread_rwlock_unlock(&zlock);
	if (!ok) {
		ERR(c, "ERR kv-pmem: the transaction aborted");
		return;
	}
	atomic_fetch_sub(&nmembers, removed);
	outf(c, ":%ld\r\n", (long)removed);
}

/* a ZRANGEBYLEX bound: "-", "+", "[member" or "(member"; *inf: -1, +1 or 0 */
static int lex_bound(const char *p, size_t n, int *inf, int *excl)
{
	*inf = *excl = 0;
	if (n == 1 && (*p == '-' || *p == '+')) {
		*inf = *p == '-' ? -1 : 1;
		return 0;
	}
	if (n < 1 || (*p != '[' && *p != '('))
		return -1;
	*excl = *p == '(';
	return 0;
}

static int parse_long(const char *p, size_t n, long *v)
{
	char buf[32], *end;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = 0;
	errno = 0;
	*v = strtol(buf, &end, 10);
	return *end || errno ? -1 : 0;
}

static void cmd_zrangebylex(struct conn *c, const char **a, const size_t *al, size_t argc)
{
	int mininf, minex, maxinf, maxex;
	long off = 0, count = -1;

	if ((argc != 4 && argc != 7) || lex_bound(a[2], al[2], &mininf, &minex) ||
	    lex_bound(a[3], al[3], &maxinf, &maxex)) {
		ERR(c, "ERR min or max not valid string range item");
		return;
	}
	if (argc == 7 && (!is(a[4], al[4], "LIMIT") || parse_long(a[5], al[5], &off) ||
			  parse_long(a[6], al[6], &count))) {
		ERR(c, "ERR syntax error");
		return;
	}
	pthread_rwlock_rdlock(&zlock);
	struct znode *x = NULL;
	if (zname_ok(a[1], al[1]) && mininf != 1 && maxinf != -1 && off >= 0)
		x = mininf ? D(root->znext[0]) : zfind(a[2] + 1, al[2] - 1, NULL, minex);
	size_t n = 0, cap = 0;
	struct znode **got = NULL;
	for (; x && count != 0; x = D(x->next[0])) {
		if (!maxinf) {
			int d = cmp(zkey(x), x->klen, a[3] + 1, al[3] - 1);
			if (d > 0 || (d == 0 && maxex))
				break;
		}
		if (off > 0) {
			off--;
			continue;
		}
		if (n == cap)
			got = xrealloc(got, (cap = cap ? 2 * cap : 64) * sizeof(*got));
		got[n++] = x;
		if (count > 0)
			count--;
	}
	outf(c, "*%zu\r\n", n);
	for (size_t i = 0; i < n; i++)
		bulk(c, zkey(got[i]), got[i]->klen);
	pthread_rwlock_unlock(&zlock);
	free(got);
}

/* ---- FLUSHALL: detach everything in one transaction, then free what was detached */
static void sweep(void)
{
	PMEMoid next;

	for (PMEMoid o = pmemobj_first(pop); !OID_IS_NULL(o); o = next) {
		next = pmemobj_next(o);
		uint64_t t = pmemobj_type_num(o);
		if (t == T_ENTRY || t == T_ZNODE || (t == T_BUCKETS && !OID_EQUALS(o, root->buckets)))
			pmemobj_free(&o);
	}
	root->sweep = 0;
	pmemobj_persist(pop, &root->sweep, sizeof(root->sweep));
}

static void lock_all(void)
{
	for (int i = 0; i < STRIPES; i++)
		pthread_rwlock_wrlock(&stripe[i]);
	pthread_rwlock_wrlock(&zlock);
}

static void unlock_all(void)
{
	pthread_rwlock_unlock(&zlock);
	for (int i = 0; i < STRIPES; i++)
		pthread_rwlock_unlock(&stripe[i]);
}

static void cmd_flushall(struct conn *c)
{
	volatile int ok = 1;

	lock_all();
	TX_BEGIN(pop) {
		pmemobj_tx_add_range_direct(root, sizeof(*root));
		root->buckets = pmemobj_tx_zalloc(root->nbuckets * sizeof(PMEMoid), T_BUCKETS);
		root->zname_len = 0;
		memset(root->znext, 0, sizeof(root->znext));
		root->sweep = 1;
	} TX_ONABORT {
		ok = 0;
	} TX_END
	if (ok) {
		sweep();
		atomic_store(&nkeys, 0);
		atomic_store(&nmembers, 0);
	}
	unlock_all();
	if (ok)
		OK(c);
	else
		ERR(c, "ERR kv-pmem: the transaction aborted");
}

static void cmd_info(struct conn *c)
{
	char buf[1024 + 4096];
	int n = snprintf(buf, sizeof(buf),
			 "# Server\r\nkv_pmem_layout:%s\r\nprocess_id:%ld\r\ntcp_port:%d\r\n"
			 "pool:%.4000s\r\npool_bytes:%zu\r\nbuckets:%llu\r\npmem_is_pmem_force:%s\r\n"
			 "# Keyspace\r\nkeys:%ld\r\nsorted_set_members:%ld\r\n",
			 LAYOUT, (long)getpid(), port, pool_path, pool_bytes, (unsigned long long)root->nbuckets,
			 getenv("PMEM_IS_PMEM_FORCE") ? getenv("PMEM_IS_PMEM_FORCE") : "", atomic_load(&nkeys),
			 atomic_load(&nmembers));
	bulk(c, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- commands */
/* one command; 0: close the connection after the reply */
static int dispatch(struct conn *c, size_t argc)
{
	const char **a = c->argv;
	const size_t *al = c->argl;

#define ARGS(test)                                                                  \
	if (!(test)) {                                                                  \
		outf(c, "-ERR wrong number of arguments for '%.*s' command\r\n", (int)al[0], a[0]); \
		return 1;                                                               \
	}
	if (is(a[0], al[0], "GET")) {
		ARGS(argc == 2);
		cmd_get(c, a[1], al[1]);
	} else if (is(a[0], al[0], "SET")) {
		ARGS(argc == 3);	/* no EX/PX/NX/XX */
		cmd_set(c, a[1], al[1], a[2], al[2]);
	} else if (is(a[0], al[0], "MGET")) {
		ARGS(argc >= 2);
		outf(c, "*%zu\r\n", argc - 1);
		for (size_t i = 1; i < argc; i++)
			cmd_get(c, a[i], al[i]);
	} else if (is(a[0], al[0], "DEL")) {
		ARGS(argc >= 2);
		long n = 0;
		for (size_t i = 1; i < argc; i++)
			n += del_one(a[i], al[i]);
		outf(c, ":%ld\r\n", n);
	} else if (is(a[0], al[0], "ZADD")) {
		cmd_zadd(c, a, al, argc);
	} else if (is(a[0], al[0], "ZREM")) {
		ARGS(argc >= 3);
		cmd_zrem(c, a, al, argc);
	} else if (is(a[0], al[0], "ZRANGEBYLEX")) {
		cmd_zrangebylex(c, a, al, argc);
	} else if (is(a[0], al[0], "ZCARD")) {
		ARGS(argc == 2);
		pthread_rwlock_rdlock(&zlock);
		outf(c, ":%ld\r\n", zname_ok(a[1], al[1]) ? atomic_load(&nmembers) : 0L);
		pthread_rwlock_unlock(&zlock);
	} else if (is(a[0], al[0], "DBSIZE")) {
		outf(c, ":%ld\r\n", atomic_load(&nkeys));
	} else if (is(a[0], al[0], "FLUSHALL") || is(a[0], al[0], "FLUSHDB")) {
		cmd_flushall(c);
	} else if (is(a[0], al[0], "INFO")) {
		cmd_info(c);
	} else if (is(a[0], al[0], "PING")) {
		if (argc > 1)
			bulk(c, a[1], al[1]);
		else
			out(c, "+PONG\r\n", 7);
	} else if (is(a[0], al[0], "ECHO")) {
		ARGS(argc == 2);
		bulk(c, a[1], al[1]);
	} else if (is(a[0], al[0], "SELECT")) {
		ARGS(argc == 2);
		if (is(a[1], al[1], "0"))
			OK(c);
		else
			ERR(c, "ERR kv-pmem has database 0 only");
	} else if (is(a[0], al[0], "CLIENT")) {
		OK(c);	/* Jedis's CLIENT SETINFO on connect: accepted, ignored */
	} else if (is(a[0], al[0], "COMMAND")) {
		out(c, "*0\r\n", 4);
	} else if (is(a[0], al[0], "QUIT")) {
		OK(c);
		return 0;
	} else {
		say("unknown command '%.*s'", (int)(al[0] < 64 ? al[0] : 64), a[0]);
		outf(c, "-ERR unknown command '%.*s' (kv-pmem implements a subset of RESP)\r\n",
		     (int)(al[0] < 64 ? al[0] : 64), a[0]);
	}
	return 1;
}

/* a decimal after p[0] up to CRLF at or after p; -2: incomplete, -1: malformed */
static long header(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return end - p > 32 ? -1 : -2;
	if (nl - p < 3 || nl[-1] != '\r')
		return -1;
	long v = 0;
	for (const char *q = p + 1; q < nl - 1; q++) {
		if (*q < '0' || *q > '9' || v > MAX_BULK)
			return -1;
		v = v * 10 + (*q - '0');
	}
	*next = nl + 1;
	return v;
}

/* one RESP array of bulk strings at c->in + pos: its length in bytes, 0 if incomplete, -1 if malformed */
static long parse(struct conn *c, size_t pos, size_t *argc)
{
	const char *p = c->in + pos, *start = p, *end = c->in + c->ilen;

	if (p == end)
		return 0;
	if (*p != '*')
		return -1;
	long n = header(p, end, &p);
	if (n < 0)
		return n == -2 ? 0 : -1;
	if (n < 1 || n > MAX_ARGS)
		return -1;
	if ((size_t)n > c->argcap) {
		c->argcap = (size_t)n;
		c->argv = xrealloc(c->argv, c->argcap * sizeof(*c->argv));
		c->argl = xrealloc(c->argl, c->argcap * sizeof(*c->argl));
	}
	for (long i = 0; i < n; i++) {
		if (p == end)
			return 0;
		if (*p != '$')
			return -1;
		long len = header(p, end, &p);
		if (len < 0)
			return len == -2 ? 0 : -1;
		if (end - p < len + 2)
			return 0;
		if (p[len] != '\r' || p[len + 1] != '\n')
			return -1;
		c->argv[i] = p;
		c->argl[i] = (size_t)len;
		p += len + 2;
	}
	*argc = (size_t)n;
	return p - start;
}

static int flush_out(struct conn *c)
{
	for (size_t done = 0; done < c->olen;) {
		ssize_t w = send(c->fd, c->out + done, c->olen - done, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	c->olen = 0;
	return 0;
}

static void *serve(void *arg)
{
	struct conn *c = arg;
	int open = 1;

	while (open) {
		size_t argc, pos = 0;
		long used = 0;
		while (open && (used = parse(c, pos, &argc)) > 0) {	/* every complete (pipelined) request */
			open = dispatch(c, argc);
			pos += (size_t)used;
		}
		memmove(c->in, c->in + pos, c->ilen - pos);
		c->ilen -= pos;
		if (flush_out(c) || !open)
			break;
		if (used < 0) {
			static const char e[] = "-ERR Protocol error: kv-pmem reads RESP arrays of bulk strings\r\n";
			send(c->fd, e, sizeof(e) - 1, MSG_NOSIGNAL);
			break;
		}
		if (c->ilen == c->icap) {
			if (c->icap >= (size_t)MAX_BULK * 2)
				break;
			c->in = xrealloc(c->in, c->icap *= 2);
		}
		ssize_t r = recv(c->fd, c->in + c->ilen, c->icap - c->ilen, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		c->ilen += (size_t)r;
	}
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c->argv);
	free(c->argl);
	free(c);
	return NULL;
}

static void *acceptor(void *arg)
{
	int lfd = *(int *)arg;

	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE)
				continue;
			die("accept: %s", strerror(errno));
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct conn *c = calloc(1, sizeof(*c));
		if (!c)
			die("out of memory");
		c->fd = fd;
		c->icap = c->ocap = 1 << 16;
		c->in = xrealloc(NULL, c->icap);
		c->out = xrealloc(NULL, c->ocap);
		pthread_t t;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 256 << 10);
		if (pthread_create(&t, &at, serve, c)) {
			close(fd);
			free(c->in);
			free(c->out);
			free(c);
		}
		pthread_attr_destroy(&at);
	}
	return NULL;
}

/* ---- the pool */
static void remove_stale(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		if (errno != ENOENT)
			die("cannot open %s: %s", path, strerror(errno));
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB))
		die("%s is in use by another process: not removed", path);
	if (unlink(path))
		die("cannot remove %s: %s", path, strerror(errno));
	close(fd);
	say("removed %s (a pool an earlier run left)", path);
}

static void open_pool(const char *path, long size_mib, unsigned long long buckets)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		pop = pmemobj_open(path, LAYOUT);
		if (!pop)
			die("pmemobj_open %s: %s", path, pmemobj_errormsg());
	} else {
		pop = pmemobj_create(path, LAYOUT, (size_t)size_mib << 20, 0600);
		if (!pop)
			die("pmemobj_create %s (%ld MiB): %s", path, size_mib, pmemobj_errormsg());
	}
	if (stat(path, &st) == 0)
		pool_bytes = (size_t)st.st_size;
	root = D(pmemobj_root(pop, sizeof(struct root)));
	if (!root)
		die("pmemobj_root: %s", pmemobj_errormsg());
	if (!root->nbuckets) {
		volatile int ok = 1;
		TX_BEGIN(pop) {
			pmemobj_tx_add_range_direct(root, sizeof(*root));
			root->buckets = pmemobj_tx_zalloc(buckets * sizeof(PMEMoid), T_BUCKETS);
			root->nbuckets = buckets;
		} TX_ONABORT {
			ok = 0;
		} TX_END
		if (!ok)
			die("cannot allocate %llu buckets in %s (%ld MiB): raise --size-mib", buckets, path, size_mib);
	}
	if (root->sweep)
		sweep();	/* a FLUSHALL interrupted after its transaction */
	long keys = 0, members = 0;
	PMEMoid *b = D(root->buckets);
	for (uint64_t i = 0; i < root->nbuckets; i++)
		for (struct entry *e = D(b[i]); e; e = D(e->next))
			keys++;
	for (struct znode *n = D(root->znext[0]); n; n = D(n->next[0]))
		members++;
	atomic_store(&nkeys, keys);
	atomic_store(&nmembers, members);
	say("pool %s (%zu bytes, %llu buckets): %ld keys, %ld sorted-set members", path, pool_bytes,
	    (unsigned long long)root->nbuckets, keys, members);
}

static void write_file(const char *path, const char *text)
{
	char tmp[4096];

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path))
		die("cannot write %s", path);
}

static void usage(void)
{
	fputs("usage: kv-pmem --pool FILE --port P [--size-mib N] [--buckets N] [--fresh] [--pid-file FILE] "
	      "[--ready-file FILE]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *pid_file = NULL, *ready_file = NULL;
	long size_mib = 256;
	unsigned long long buckets = 1 << 16;
	int fresh = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--fresh")) {
			fresh = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--pool"))
			pool_path = v;
		else if (!strcmp(a, "--port"))
			port = (int)strtol(v, &end, 10);
		else if (!strcmp(a, "--size-mib"))
			size_mib = strtol(v, &end, 10);
		else if (!strcmp(a, "--buckets"))
			buckets = strtoull(v, &end, 10);
		else if (!strcmp(a, "--pid-file"))
			pid_file = v;
		else if (!strcmp(a, "--ready-file"))
			ready_file = v;
		else
			usage();
		if (end && *end) {
			fprintf(stderr, "kv-pmem: error: %s: not a number: %s\n", a, v);
			exit(2);
		}
	}
	if (!pool_path || port <= 0 || port > 65535 || size_mib < 8 || !buckets || (buckets & (buckets - 1)) ||
	    buckets > (1ULL << 32)) {
		fputs("kv-pmem: error: --pool and --port (1-65535) are required; --size-mib >= 8; --buckets a power "
		      "of two\n", stderr);
		usage();
	}

	/* signals are taken by main alone (sigwait); every thread inherits the mask */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	for (int i = 0; i < STRIPES; i++)
		pthread_rwlock_init(&stripe[i], &ra);
	pthread_rwlock_init(&zlock, &ra);

	if (fresh)
		remove_stale(pool_path);
	open_pool(pool_path, size_mib, buckets);

	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 511)) {
		int e = errno;
		pmemobj_close(pop);
		die("cannot listen on 127.0.0.1:%d: %s", port, strerror(e));
	}
	pthread_t t;
	if (pthread_create(&t, NULL, acceptor, &lfd))
		die("cannot start the acceptor thread");
	char pid[32];
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	write_file(pid_file, pid);
	write_file(ready_file, "");
	say("listening on 127.0.0.1:%d (pid %ld)", port, (long)getpid());

	int sig = 0;
	sigwait(&sigs, &sig);
	lock_all();	/* no command runs (none is mid-transaction) and none starts */
	pmemobj_close(pop);
	say("signal %d: pool %s closed", sig, pool_path);
	_exit(0);
}
