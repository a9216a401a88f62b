/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parked.c - refused messages, one line each, in a bounded file.
 */
#include "parked.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

int parked_keep(const char *dir, uint64_t pos, const char *msg, size_t len)
{
	char path[4200], head[96], ts[40];
	struct iovec iov[3];
	struct stat st;
	ssize_t n;
	int fd, r = 1;

	snprintf(path, sizeof(path), "%s/%s", dir, PARKED_FILE);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size + len + sizeof(head) > PARKED_MAX_BYTES) {
		r = 0;
		goto out;
	}
	if (format_rfc3339(now_realtime_usec(), ts, sizeof(ts)) < 0)
		snprintf(ts, sizeof(ts), "-");
	snprintf(head, sizeof(head), "%s %llu ", ts, (unsigned long long)pos);
	iov[0] = (struct iovec){ head, strlen(head) };
	iov[1] = (struct iovec){ (void *)msg, len };
	iov[2] = (struct iovec){ "\n", 1 };
	n = writev(fd, iov, 3);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != iov[0].iov_len + len + 1)
		r = -ENOSPC;
	if (r < 0 && ftruncate(fd, st.st_size) < 0) {
		/* a partial line stays; the next one starts on its own line anyway */
	}
	if (r > 0 && fdatasync(fd) < 0)
		r = -errno;
out:
	close(fd);
	return r;
}
