// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_spool.c - libFuzzer target: an arbitrary file is opened as a
 * spool (an odd size: as the segment being written; even: as a spool of
 * the previous format), read to the end, appended to and
 * acknowledged; what is appended afterwards is always read back (nothing
 * black-holed), and everything acknowledged empties it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128];
	struct strbuf sb = STRBUF_INIT;
	struct spool *s;
	uint64_t pos, next;
	int fd, found = 0;

	log_set_quiet(true);
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/brute-fuzz-spool.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	/* a fresh directory: no segment, head, lock or quarantine file of the last input */
	{
		DIR *d = opendir(dir);
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(dirfd(d), de->d_name, 0);
		if (d)
			closedir(d);
	}
	snprintf(path, sizeof(path), "%s/%s", dir,
		 size % 2 ? "spool.0000000000000000" : "spool");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	if (spool_open(dir, 64 * 1024, false, &s) < 0)
		abort();
	for (pos = spool_head(s); spool_read(s, pos, &sb, &next) == 0; pos = next)
		;
	if (spool_append(s, "fuzz-marker", 11) < 0)
		abort();
	for (pos = spool_head(s); spool_read(s, pos, &sb, &next) == 0; pos = next)
		found |= sb.len == 11 && memcmp(sb.buf, "fuzz-marker", 11) == 0;
	if (!found)
		abort();
	spool_ack(s, pos);
	if (!spool_empty(s))
		abort();
	spool_close(s);
	sb_free(&sb);
	return 0;
}
