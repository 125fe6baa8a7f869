// SPDX-License-Identifier: MIT
/*
 * obs_damon.c - access observation from DAMON (sysfs admin interface,
 * Documentation/admin-guide/mm/damon/usage.rst), virtual-address operations
 * on the target pid.
 *
 * DAMON samples one random page per region every sample interval (access
 * bit) and reports per region, every aggregation interval, nr_accesses: in
 * how many sample intervals of the aggregation the region was found
 * accessed.  tierd adds one kdamond with one context (operations "vaddr",
 * target = pid) and one scheme with action "stat" matching every region;
 * a reader thread writes "update_schemes_tried_regions" to the kdamond's
 * state file once per aggregation interval (the write returns when DAMON
 * has filled schemes/0/tried_regions/) and reads start, end, nr_accesses of
 * every region.  Each tierd region overlapping a DAMON region with
 * nr_accesses > 0 becomes one access sample of that weight (a load: DAMON
 * does not tell loads from stores).
 *
 * The admin interface is global, and writing nr_kdamonds rebuilds every
 * kdamond directory (refused with EBUSY while any kdamond runs).  So tierd
 * uses DAMON only when no kdamond runs and no existing kdamond directory
 * holds a configuration (nr_contexts 0): then adding one and writing the old
 * count back at exit loses nothing.  At exit tierd turns its kdamond off and
 * restores nr_kdamonds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tierd.h"

/* the admin directory; TIERD_DAMON_ADMIN replaces it (tests: a fake tree) */
static const char *admin(void)
{
	const char *e = getenv("TIERD_DAMON_ADMIN");

	return e && *e ? e : "/sys/kernel/mm/damon/admin";
}

struct dregion {
	uint64_t start, end;
	uint32_t nr_accesses;
};

struct obs_damon {
	const struct target *t;
	int idx;		/* our kdamond index, -1 when none */
	int nr_before;		/* nr_kdamonds to restore */
	char dir[256];		/* <admin>/kdamonds/<idx> */
	uint64_t aggr_us;

	pthread_t thr;
	int thr_started;
	pthread_mutex_t mu;
	int stop;
	int err;		/* reader thread error (-errno), 0 */
	/* latest snapshot, handed to the main loop once */
	struct dregion *snap;
	size_t nsnap, capsnap;
	int fresh;
	/* reader's private buffer */
	struct dregion *buf;
	size_t nbuf, capbuf;
};

/*
 * DAMON's sysfs files refuse a write, and a read of a kdamond's state, with
 * EBUSY while damon_sysfs_lock is held: they take it with mutex_trylock
 * (mm/damon/sysfs.c state_store(), nr_*_store(), and state_show() since
 * "mm/damon/sysfs: fix use-after-free in state_show()", 6.17 and stable
 * 6.12.y), and on 6.2-6.13 a running kdamond's own after_aggregation callback
 * takes it every aggregation.  Such a refusal is tried again, BUSY_TRIES
 * times 50 ms apart (as workflows/harness/settings.py does).
 */
#define BUSY_TRIES 20

static void busy_wait(void)
{
	struct timespec ts = { 0, 50000000 };

	nanosleep(&ts, NULL);
}

static int wr(const char *path, const char *val)
{
	for (int i = 0;; i++) {
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		ssize_t n;
		int e;

		if (fd < 0)
			return -errno;
		n = write(fd, val, strlen(val));
		e = n < 0 ? -errno : 0;
		close(fd);
		if (e != -EBUSY || i == BUSY_TRIES)
			return e;
		busy_wait();
	}
}

/* read_text_file(), a busy refusal tried again (see wr()) */
static int rd(const char *path, char *buf, size_t len)
{
	for (int i = 0;; i++) {
		int ret = read_text_file(path, buf, len);

		if (ret != -EBUSY || i == BUSY_TRIES)
			return ret;
		busy_wait();
	}
}

static int wrf(const struct obs_damon *o, const char *rel, const char *fmt, unsigned long long v)
{
	char path[384], val[32];

	snprintf(path, sizeof(path), "%s/%s", o->dir, rel);
	snprintf(val, sizeof(val), fmt, v);
	return wr(path, val);
}

static int rd_u64(const char *path, uint64_t *v)
{
	char b[64];
	int ret = rd(path, b, sizeof(b));

	if (ret)
		return ret;
	*v = strtoull(b, NULL, 0);
	return 0;
}

int obs_damon_index(const struct obs_damon *o)
{
	return o ? o->idx : -1;
}

/* reader thread: one tried-regions snapshot per aggregation interval */
static int read_regions(struct obs_damon *o)
{
	char path[384], state[384];
	struct dirent *de;
	DIR *d;
	int ret;

	snprintf(state, sizeof(state), "%s/state", o->dir);
	ret = wr(state, "update_schemes_tried_regions");
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/contexts/0/schemes/0/tried_regions", o->dir);
	d = opendir(path);
	if (!d)
		return -errno;
	o->nbuf = 0;
	while ((de = readdir(d))) {
		char p2[768];
		struct dregion r;
		uint64_t v;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p2, sizeof(p2), "%s/%s/start", path, de->d_name);
		if (rd_u64(p2, &r.start))
			continue;
		snprintf(p2, sizeof(p2), "%s/%s/end", path, de->d_name);
		if (rd_u64(p2, &r.end))
			continue;
		snprintf(p2, sizeof(p2), "%s/%s/nr_accesses", path, de->d_name);
		if (rd_u64(p2, &v))
			continue;
		r.nr_accesses = (uint32_t)v;
		if (!r.nr_accesses || r.end <= r.start)
			continue;
		if (o->nbuf == o->capbuf) {
			size_t nc = o->capbuf ? 2 * o->capbuf : 256;
			struct dregion *nb = realloc(o->buf, nc * sizeof(*nb));

			if (!nb) {
				closedir(d);
				return -ENOMEM;
			}
			o->buf = nb;
			o->capbuf = nc;
		}
		o->buf[o->nbuf++] = r;
	}
	closedir(d);
	return 0;
}

static void *reader(void *arg)
{
	struct obs_damon *o = arg;
	struct timespec ts = { .tv_sec = (time_t)(o->aggr_us / 1000000),
			       .tv_nsec = (long)(o->aggr_us % 1000000) * 1000 };

	for (;;) {
		int ret, stop;

		pthread_mutex_lock(&o->mu);
		stop = o->stop;
		pthread_mutex_unlock(&o->mu);
		if (stop)
			break;
		ret = read_regions(o);
		pthread_mutex_lock(&o->mu);
		if (ret) {
			/* the kdamond stops by itself when the target exits */
			o->err = ret;
			pthread_mutex_unlock(&o->mu);
			break;
		}
		if (o->nbuf > o->capsnap) {
			struct dregion *nb = realloc(o->snap, o->nbuf * sizeof(*nb));

			if (!nb) {
				o->err = -ENOMEM;
				pthread_mutex_unlock(&o->mu);
				break;
			}
			o->snap = nb;
			o->capsnap = o->nbuf;
		}
		if (o->nbuf)
			memcpy(o->snap, o->buf, o->nbuf * sizeof(*o->snap));
		o->nsnap = o->nbuf;
		o->fresh = 1;
		pthread_mutex_unlock(&o->mu);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/*
 * -EBUSY (with the reason) when one of the kernel's own DAMON modules is on
 * (damon_stat, damon_reclaim, damon_lru_sort, the samples: their
 * MODULE_PARAM_PREFIX, /sys/module/<name>/parameters/enabled "Y"): each runs
 * an exclusive kdamond (mm/damon/stat.c, reclaim.c, lru_sort.c:
 * damon_start(..., 1, true)), beside which the sysfs interface cannot start
 * one (mm/damon/core.c damon_start(): -EBUSY), and which nr_kdamonds does not
 * count (workflows/harness/hostdetect.py damon_exclusive() does the same).
 */
static int exclusive_on(char *why)
{
	DIR *d = opendir("/sys/module");
	struct dirent *e;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		char path[320], buf[8];

		if (strncmp(e->d_name, "damon_", 6) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/module/%.64s/parameters/enabled", e->d_name);
		if (!read_text_file(path, buf, sizeof(buf)) && !strcmp(buf, "Y")) {
			snprintf(why, TIERD_WHY,
				 "the kernel's own DAMON %.64s is on (%.128s): its kdamond runs "
				 "exclusive and no sysfs kdamond can start beside it", e->d_name, path);
			ret = -EBUSY;
		}
	}
	closedir(d);
	return ret;
}

/* refuse (with the reason) unless DAMON can be used without disturbing
 * anybody else's kdamond */
static int check_admin(struct obs_damon *o, char *why)
{
	char path[384], buf[256];
	uint64_t n;
	int ret;

	if (access(admin(), F_OK)) {
		snprintf(why, TIERD_WHY,
			 "no DAMON sysfs interface (%.128s: kernel without CONFIG_DAMON_SYSFS)",
			 admin());
		return -ENOENT;
	}
	ret = exclusive_on(why);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%.128s/kdamonds/nr_kdamonds", admin());
	ret = rd_u64(path, &n);
	if (ret) {
		snprintf(why, TIERD_WHY, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	o->nr_before = (int)n;
	for (uint64_t k = 0; k < n; k++) {
		snprintf(path, sizeof(path), "%.128s/kdamonds/%llu/contexts/0/avail_operations",
			 admin(), (unsigned long long)k);
		if (!read_text_file(path, buf, sizeof(buf)) && !strstr(buf, "vaddr")) {
			snprintf(why, TIERD_WHY,
				 "DAMON virtual-address operations are not built into this kernel "
				 "(avail_operations: %.64s; needs CONFIG_DAMON_VADDR)", buf);
			return -ENOTSUP;
		}
	}
	for (uint64_t k = 0; k < n; k++) {
		uint64_t nc = 0;

		snprintf(path, sizeof(path), "%.128s/kdamonds/%llu/state", admin(),
			 (unsigned long long)k);
		ret = rd(path, buf, sizeof(buf));
		if (ret) {	/* unknown is not "off" */
			snprintf(why, TIERD_WHY, "cannot read %.200s: %s", path, strerror(-ret));
			return ret;
		}
		if (strcmp(buf, "off") != 0) {
			snprintf(why, TIERD_WHY,
				 "kdamond %llu is %.32s and not tierd's: DAMON sysfs cannot add a "
				 "kdamond while one runs", (unsigned long long)k, buf);
			return -EBUSY;
		}
		snprintf(path, sizeof(path), "%.128s/kdamonds/%llu/contexts/nr_contexts",
			 admin(), (unsigned long long)k);
		if (!rd_u64(path, &nc) && nc) {
			snprintf(why, TIERD_WHY,
				 "kdamond %llu holds a configuration: adding a kdamond would "
				 "discard it", (unsigned long long)k);
			return -EBUSY;
		}
	}
	return 0;
}

int obs_damon_open(struct obs_damon **out, const struct target *t, const struct damon_cfg *c,
		   char *why)
{
	struct obs_damon *o = calloc(1, sizeof(*o));
	char path[384], buf[256];
	int ret;

	if (!o) {
		snprintf(why, TIERD_WHY, "out of memory");
		return -ENOMEM;
	}
	o->t = t;
	o->idx = -1;
	o->aggr_us = c->aggr_us;
	pthread_mutex_init(&o->mu, NULL);
	ret = check_admin(o, why);
	if (ret)
		goto err;
	snprintf(buf, sizeof(buf), "%d", o->nr_before + 1);
	snprintf(path, sizeof(path), "%.128s/kdamonds/nr_kdamonds", admin());
	ret = wr(path, buf);
	if (ret) {
		snprintf(why, TIERD_WHY, "writing %s failed: %s", path, strerror(-ret));
		goto err;
	}
	o->idx = o->nr_before;
	snprintf(o->dir, sizeof(o->dir), "%.128s/kdamonds/%d", admin(), o->idx);
#define STEP(rel, fmt, v)                                                               \
	do {                                                                            \
		ret = wrf(o, rel, fmt, (unsigned long long)(v));                        \
		if (ret) {                                                              \
			snprintf(why, TIERD_WHY, "DAMON: writing %s failed: %s", rel,   \
				 strerror(-ret));                                       \
			goto err;                                                       \
		}                                                                       \
	} while (0)
	STEP("contexts/nr_contexts", "%llu", 1);
	snprintf(path, sizeof(path), "%s/contexts/0/avail_operations", o->dir);
	if (!read_text_file(path, buf, sizeof(buf)) && !strstr(buf, "vaddr")) {
		snprintf(why, TIERD_WHY,
			 "DAMON virtual-address operations are not built into this kernel "
			 "(avail_operations: %.64s; needs CONFIG_DAMON_VADDR)", buf);
		ret = -ENOTSUP;
		goto err;
	}
	snprintf(path, sizeof(path), "%s/contexts/0/operations", o->dir);
	ret = wr(path, "vaddr");
	if (ret) {
		snprintf(why, TIERD_WHY, "DAMON: operations vaddr rejected: %s", strerror(-ret));
		goto err;
	}
	STEP("contexts/0/monitoring_attrs/intervals/sample_us", "%llu", c->sample_us);
	STEP("contexts/0/monitoring_attrs/intervals/aggr_us", "%llu", c->aggr_us);
	STEP("contexts/0/monitoring_attrs/intervals/update_us", "%llu", c->update_us);
	STEP("contexts/0/monitoring_attrs/nr_regions/max", "%llu", c->max_regions);
	STEP("contexts/0/monitoring_attrs/nr_regions/min", "%llu", c->min_regions);
	STEP("contexts/0/targets/nr_targets", "%llu", 1);
	STEP("contexts/0/targets/0/pid_target", "%llu", t->pid);
	STEP("contexts/0/schemes/nr_schemes", "%llu", 1);
	snprintf(path, sizeof(path), "%s/contexts/0/schemes/0/action", o->dir);
	ret = wr(path, "stat");
	if (ret) {
		snprintf(why, TIERD_WHY, "DAMON: scheme action stat rejected: %s", strerror(-ret));
		goto err;
	}
	STEP("contexts/0/schemes/0/access_pattern/sz/min", "%llu", 0);
	STEP("contexts/0/schemes/0/access_pattern/sz/max", "%llu", ~0ULL);
	STEP("contexts/0/schemes/0/access_pattern/nr_accesses/min", "%llu", 0);
	STEP("contexts/0/schemes/0/access_pattern/nr_accesses/max", "%llu", 0xffffffffULL);
	STEP("contexts/0/schemes/0/access_pattern/age/min", "%llu", 0);
	STEP("contexts/0/schemes/0/access_pattern/age/max", "%llu", 0xffffffffULL);
#undef STEP
	snprintf(path, sizeof(path), "%s/state", o->dir);
	ret = wr(path, "on");
	if (ret) {
		snprintf(why, TIERD_WHY, "DAMON: starting the kdamond failed: %s", strerror(-ret));
		goto err;
	}
	ret = pthread_create(&o->thr, NULL, reader, o);
	if (ret) {
		ret = -ret;
		snprintf(why, TIERD_WHY, "cannot start the DAMON reader thread: %s",
			 strerror(-ret));
		goto err;
	}
	o->thr_started = 1;
	*out = o;
	return 0;
err:
	obs_damon_close(o);
	return ret;
}

int obs_damon_poll(struct obs_damon *o, obs_sink sink, void *priv, uint64_t *n)
{
	int ret;

	*n = 0;
	pthread_mutex_lock(&o->mu);
	ret = o->err;
	if (!ret && o->fresh) {
		const struct target *t = o->t;

		for (size_t i = 0; i < o->nsnap; i++) {
			const struct dregion *d = &o->snap[i];
			long r = target_find(t, (uintptr_t)d->start);
			size_t k;

			if (r < 0) {
				/* first tierd region starting inside the DAMON region */
				size_t lo = 0, hi = t->nreg;

				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;

					if (t->reg[mid].start < d->start)
						lo = mid + 1;
					else
						hi = mid;
				}
				k = lo;
			} else {
				k = (size_t)r;
			}
			for (; k < t->nreg && t->reg[k].start < d->end; k++) {
				sink(priv, k, 0, d->nr_accesses, 0);
				(*n)++;
			}
		}
		o->fresh = 0;
	}
	pthread_mutex_unlock(&o->mu);
	return ret;
}

void obs_damon_close(struct obs_damon *o)
{
	char path[384], buf[32];

	if (!o)
		return;
	if (o->thr_started) {
		pthread_mutex_lock(&o->mu);
		o->stop = 1;
		pthread_mutex_unlock(&o->mu);
		pthread_join(o->thr, NULL);
		o->thr_started = 0;
	}
	if (o->idx >= 0) {
		snprintf(path, sizeof(path), "%s/state", o->dir);
		/* a state that cannot be read is turned off too (off when off already is refused,
		 * harmlessly); the kernel's damon_stop() waits for the kdamond to end
		 * (mm/damon/core.c __damon_stop(): kthread_stop()), so "off" reads back at once */
		if (rd(path, buf, sizeof(buf)) || strcmp(buf, "off") != 0)
			wr(path, "off");
		snprintf(buf, sizeof(buf), "%d", o->nr_before);
		snprintf(path, sizeof(path), "%.128s/kdamonds/nr_kdamonds", admin());
		wr(path, buf);
		o->idx = -1;
	}
	pthread_mutex_destroy(&o->mu);
	free(o->snap);
	free(o->buf);
	free(o);
}
