/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quarantine.c - bounded, never-overwritten copies of corrupt spool bytes.
 */
#include "quarantine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define QUARANTINE_TMP "quarantine.tmp"

void quarantine_init(struct quarantine *q, int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	q->dirfd = dirfd;
	q->files = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, QUARANTINE_PREFIX, strlen(QUARANTINE_PREFIX)) &&
		    strcmp(de->d_name, QUARANTINE_TMP) != 0)
			q->files++;
	closedir(d);
	/* a temporary left by a crash: its bytes are still in the spool */
	unlinkat(dirfd, QUARANTINE_TMP, 0);
}

static int copy_range(int from, uint64_t off, uint64_t len, int to)
{
	char buf[65536];
	uint64_t done = 0;

	while (done < len) {
		size_t n = len - done < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);
		ssize_t r = pread(from, buf, n, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;	/* shorter than said: keep what there is */
		for (ssize_t w = 0; w < r;) {
			ssize_t k = write(to, buf + w, (size_t)(r - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			w += k;
		}
		done += (uint64_t)r;
	}
	return 0;
}

int quarantine_keep(struct quarantine *q, int fd, uint64_t off, uint64_t len, uint64_t pos,
		    char *name, size_t namelen)
{
	int out, r;

	snprintf(name, namelen, QUARANTINE_PREFIX "%016llx", (unsigned long long)pos);
	if (faccessat(q->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;	/* kept by an earlier run: the same bytes at the same place */
	if (q->files >= QUARANTINE_MAX_FILES)
		return 0;
	out = openat(q->dirfd, QUARANTINE_TMP, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		     0600);
	if (out < 0)
		return -errno;
	r = copy_range(fd, off, len < QUARANTINE_FILE_MAX ? len : QUARANTINE_FILE_MAX, out);
	if (r == 0 && fsync(out) < 0)
		r = -errno;
	if (close(out) < 0 && r == 0)
		r = -errno;
	/* RENAME_NOREPLACE: an existing file is never replaced */
	if (r == 0 && renameat2(q->dirfd, QUARANTINE_TMP, q->dirfd, name, RENAME_NOREPLACE) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(q->dirfd, QUARANTINE_TMP, 0);
		return r;
	}
	fsync(q->dirfd);
	q->files++;
	return 1;
}
