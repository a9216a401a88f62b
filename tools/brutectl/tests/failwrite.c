// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the host tests: write() to a file named "lift" fails with the errno
 * in $FAILWRITE_ERRNO (the replies of the kernel's lift file: EINVAL, ENOENT, EPERM).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t count);

ssize_t write(int fd, const void *buf, size_t count)
{
	static ssize_t (*real_write)(int, const void *, size_t);
	const char *e = getenv("FAILWRITE_ERRNO");
	char link[64], target[4096];
	ssize_t n;

	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (e && fd > 2) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 5) {
			target[n] = '\0';
			if (!strcmp(target + n - 5, "/lift")) {
				errno = atoi(e);
				return -1;
			}
		}
	}
	return real_write(fd, buf, count);
}
