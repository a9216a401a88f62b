// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the host tests: a write() to the file named $FAILWRITE_FILE (default
 * "lift": the kernel's lift file; "trusted": its trusted list) in any directory
 *   - fails with the errno in $FAILWRITE_ERRNO (the kernel's error replies: EINVAL, ENOENT,
 *     EPERM, ENOSPC, EFBIG), or
 *   - with $FAILWRITE_LOG=PREFIX, is recorded instead of written: the bytes of each write()
 *     call in a file of its own, PREFIX.1, PREFIX.2, ..., and its count returned, as a
 *     kernel file that took it would. A test sees exactly what the kernel would get, call
 *     by call (the kernel's trusted list applies one write(2) as one transaction).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t count);

/* Whether fd is open on a file called name. */
static int is_file(int fd, const char *name)
{
	char link[64], target[4096];
	size_t len = strlen(name);
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= (ssize_t)len)
		return 0;
	target[n] = '\0';
	return target[n - (ssize_t)len - 1] == '/' && !strcmp(target + n - len, name);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	static ssize_t (*real_write)(int, const void *, size_t);
	const char *e = getenv("FAILWRITE_ERRNO"), *log = getenv("FAILWRITE_LOG");
	const char *name = getenv("FAILWRITE_FILE");

	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if ((e || log) && fd > 2 && is_file(fd, name ? name : "lift")) {
		char path[4096];
		int lfd = -1;

		if (e) {
			errno = atoi(e);
			return -1;
		}
		for (int k = 1; k < 1000 && lfd < 0; k++) {
			snprintf(path, sizeof(path), "%s.%d", log, k);
			lfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		}
		if (lfd < 0 || real_write(lfd, buf, count) != (ssize_t)count) {
			errno = EIO;
			return -1;
		}
		close(lfd);
		return (ssize_t)count;
	}
	return real_write(fd, buf, count);
}
