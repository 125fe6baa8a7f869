// SPDX-License-Identifier: MIT
/* Unit test of libtbutil's parsers and file helpers; exit 0 pass, 1 fail. */
#include "tbutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                     \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__,   \
				__LINE__, #cond);                       \
			failures++;                                     \
		}                                                       \
	} while (0)

static void test_sizes(void)
{
	uint64_t v = 0;

	CHECK(!parse_size("4096", &v) && v == 4096);
	CHECK(!parse_size("64K", &v) && v == 64 << 10);
	CHECK(!parse_size("512MiB", &v) && v == 512ULL << 20);
	CHECK(!parse_size("1gb", &v) && v == 1ULL << 30);
	CHECK(!parse_size("2T", &v) && v == 2ULL << 40);
	CHECK(parse_size("1X", &v) == -EINVAL);
	CHECK(parse_size("-1", &v) == -EINVAL);
	CHECK(parse_size("", &v) == -EINVAL);
	CHECK(parse_size("99999999999999999T", &v) == -ERANGE);
	CHECK(!parse_u64("42", &v) && v == 42);
	CHECK(parse_u64("4 2", &v) == -EINVAL);
}

static void test_numbers(void)
{
	enum huge_mode h;
	double d = 0;

	CHECK(!parse_double("0.25", &d) && d == 0.25);
	CHECK(parse_double(" 1", &d) == -EINVAL);
	CHECK(parse_double("inf", &d) == -EINVAL);
	CHECK(parse_double("1x", &d) == -EINVAL);
	CHECK(!parse_huge("on", &h) && h == HUGE_ON);
	CHECK(!parse_huge("off", &h) && h == HUGE_OFF);
	CHECK(!parse_huge("auto", &h) && h == HUGE_AUTO);
	CHECK(parse_huge("yes", &h) == -EINVAL);
}

static void test_id_lists(void)
{
	int *ids = NULL, n = 0;

	CHECK(!parse_id_list("3,0-2,8", 10, &ids, &n));
	CHECK(n == 5 && ids[0] == 3 && ids[1] == 0 && ids[3] == 2 &&
	      ids[4] == 8);
	free(ids);
	CHECK(parse_id_list("0,0", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("2-1", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("11", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("1,", 10, &ids, &n) == -EINVAL);
	CHECK(parse_id_list("", 10, &ids, &n) == -EINVAL);
}

static void test_cpus_and_memory(void)
{
	int *cpus = NULL, n = 0;

	CHECK(!allowed_cpus(&cpus, &n) && n > 0);
	if (n > 0)
		CHECK(!cpu_check(cpus[0]));
	CHECK(cpu_check(-1) == -ENODEV);
	free(cpus);
	CHECK(mem_limit(NULL, 0) > 0);
}

static void test_files(void)
{
	char dir[] = "/tmp/test_tbutil.XXXXXX", path[64];
	char buf[32] = "";
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/pid", dir);
	CHECK(!write_pid_file(path, 1234));
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "1234\n"));
	if (f)
		fclose(f);
	unlink(path);
	CHECK(!create_flag_file(path));
	CHECK(!access(path, F_OK));
	unlink(path);
	rmdir(dir);
	snprintf(path, sizeof(path), "%s/none/pid", dir);
	CHECK(write_pid_file(path, 1) == -ENOENT);
}

int main(void)
{
	test_sizes();
	test_numbers();
	test_id_lists();
	test_cpus_and_memory();
	test_files();
	printf("tbutil tests: %s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
