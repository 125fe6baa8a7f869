// SPDX-License-Identifier: MIT
/*
 * tbcli: a bad option value is one line "<prog>: error: ..." and exit 2;
 * a good one is returned.  Each bad case runs in a child process.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tbcli.h"

const char cli_prog[] = "clitest";

enum what { NUMBER, INTEGER, OPEN, ANY, SIZE };

/* the child's exit status and its stderr */
static int child(enum what w, const char *v, char *err, size_t len)
{
	int fd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		if (w == SIZE)
			cli_size("--size", v);
		else
			cli_number("--x", v, w == ANY ? -INFINITY : 0, w == ANY ? INFINITY : 10,
				   w == INTEGER ? CLI_INT : w == OPEN ? CLI_OPEN_LO : 0);
		_exit(0);
	}
	close(fd[1]);
	for (size_t got = 0;; got += (size_t)n) {
		n = read(fd[0], err + got, len - 1 - got);
		if (n <= 0) {
			err[got] = '\0';
			break;
		}
	}
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int refused(enum what w, const char *v, const char *msg)
{
	char err[512];

	return child(w, v, err, sizeof(err)) == 2 && !strcmp(err, msg);
}

int main(void)
{
	char err[512];

	CHECK(cli_number("--x", "2.5", 0, 10, 0) == 2.5);
	CHECK(cli_number("--x", "10", 0, 10, CLI_INT | CLI_OPEN_LO) == 10);
	CHECK(cli_number("--x", "-1e300", -INFINITY, INFINITY, 0) == -1e300);
	CHECK(cli_size("--size", "1.5K") == 1536);
	CHECK(child(NUMBER, "3", err, sizeof(err)) == 0 && !err[0]);
	CHECK(refused(NUMBER, "11", "clitest: error: --x must be a number in [0, 10], got '11'\n"));
	CHECK(refused(NUMBER, "abc", "clitest: error: --x must be a number in [0, 10], got 'abc'\n"));
	CHECK(refused(INTEGER, "2.5", "clitest: error: --x must be an integer in [0, 10], got '2.5'\n"));
	CHECK(refused(OPEN, "0", "clitest: error: --x must be a number in (0, 10], got '0'\n"));
	CHECK(refused(ANY, "nan", "clitest: error: --x must be a number, got 'nan'\n"));
	CHECK(refused(SIZE, "1.3", "clitest: error: --size: '1.3' is not a size "
				   "(e.g. 4096, 64K, 512M, 1.5G, 2GiB)\n"));
	return T_PASS;
err:
	return T_FAIL;
}
