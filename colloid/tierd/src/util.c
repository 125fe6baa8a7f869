// SPDX-License-Identifier: MIT
/* Small helpers shared by tierd's sources. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "tierd.h"

int tierd_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}
