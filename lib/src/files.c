// SPDX-License-Identifier: MIT
/* files.c - files a supervisor waits for, and small text files to read. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbutil.h"

static int write_atomic(const char *path, const char *text)
{
	size_t plen = strlen(path), tlen = strlen(text);
	char *tmp = malloc(plen + 32);
	int fd, ret = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (tlen && write(fd, text, tlen) != (ssize_t)tlen)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}

int write_pid_file(const char *path, long pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", pid);
	return write_atomic(path, buf);
}

int create_flag_file(const char *path)
{
	return write_atomic(path, "");
}

int read_text_file(const char *path, char *buf, size_t len)
{
	int fd;
	ssize_t n;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;	/* e.g. EBUSY from a sysfs file's show() */

		close(fd);
		return -e;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}
