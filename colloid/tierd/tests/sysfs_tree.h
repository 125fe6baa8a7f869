/*
 * A stand-in sysfs tree for tierd's planning tests (perf_plan.c, amdl3_plan.c):
 * files written under a scratch root (tree_begin), emptied between cases
 * (fresh), a CHECK that counts failures, and tree_end to remove it and
 * report.  Header-only: each test is one translation unit.
 */
#ifndef TIERD_TEST_SYSFS_TREE_H
#define TIERD_TEST_SYSFS_TREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures;
static char root[256];

#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* write @text (and a newline) to @rel under the root, making its directories */
static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* an empty root for the next case */
static void fresh(const char *name)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/*", root);
	if (system(cmd) != 0)
		exit(1);
	printf("-- %s\n", name);
}

/* make the scratch root, $TMPDIR/@stem-XXXXXX: 0, or -1 with a message */
static int tree_begin(const char *stem)
{
	snprintf(root, sizeof(root), "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", stem);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* remove the root and report: the test's exit status */
static int tree_end(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		failures++;
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}

#endif
