/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quarantine.h - the evidence of a corrupt spool: bounded copies of bad bytes.
 *
 * When the spool finds bytes that are not a valid record (a flipped bit, a
 * torn write, garbage), it skips them and keeps them here:
 * DIR/quarantine.POS (POS: the logical spool position of the bad stretch,
 * 16 hex digits), the raw bytes, at most QUARANTINE_FILE_MAX of them (the
 * first ones: a whole corrupt record always fits).  A file is written under
 * a temporary name, synced, then renamed with RENAME_NOREPLACE: never
 * overwritten, and never half there.  The number of files is bounded
 * (QUARANTINE_MAX_FILES, counting those of earlier runs); beyond it the bad
 * bytes are skipped and counted, not kept.  A failure to keep them loses
 * nothing: the spool itself is never changed by the quarantine.
 */
#ifndef BRUTE_QUARANTINE_H
#define BRUTE_QUARANTINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QUARANTINE_MAX_FILES	16
#define QUARANTINE_FILE_MAX	((1024 * 1024) + 64)	/* a whole record: 1 MiB and its header */
#define QUARANTINE_PREFIX	"quarantine."

struct quarantine {
	int dirfd;		/* not owned */
	unsigned files;		/* quarantine.* files in the directory */
};

/* Count the files already there. */
void quarantine_init(struct quarantine *q, int dirfd);
/*
 * Keep len bytes of fd at offset off (the first QUARANTINE_FILE_MAX of them)
 * as quarantine.POS.  1: kept (now, or by an earlier run: the file exists);
 * 0: not kept, the bound is reached; negative errno: writing failed.  The
 * file's name in name.
 */
int quarantine_keep(struct quarantine *q, int fd, uint64_t off, uint64_t len, uint64_t pos,
		    char *name, size_t namelen);

#endif
