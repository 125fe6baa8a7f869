// SPDX-License-Identifier: MIT
/* write_pid_file(), create_flag_file() (atomic), read_text_file(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tbutil.h"

int main(void)
{
	char dir[] = "/tmp/test_tbutil.XXXXXX", path[64];
	char buf[32] = "";
	FILE *f;

	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pid", dir);
	CHECK(!write_pid_file(path, 1234));
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "1234\n"));
	if (f)
		fclose(f);
	/* read back, the newline cut */
	CHECK(!read_text_file(path, buf, sizeof(buf)) && !strcmp(buf, "1234"));
	CHECK(!read_text_file(path, buf, 3) && !strcmp(buf, "12"));
	unlink(path);
	CHECK(!create_flag_file(path));
	CHECK(!access(path, F_OK));
	CHECK(!read_text_file(path, buf, sizeof(buf)) && !buf[0]);
	unlink(path);
	rmdir(dir);
	CHECK(read_text_file(path, buf, sizeof(buf)) == -ENOENT);
	snprintf(path, sizeof(path), "%s/none/pid", dir);
	CHECK(write_pid_file(path, 1) == -ENOENT);
	return T_PASS;
err:
	return T_FAIL;
}
