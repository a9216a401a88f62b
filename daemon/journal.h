/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.h - render an entry as journal fields and send it with
 * sd_journal_sendv().
 */
#ifndef BRUTE_JOURNAL_H
#define BRUTE_JOURNAL_H

#include <stddef.h>
#include <sys/uio.h>

#include "entry.h"

struct journal_fields {
	struct iovec *iov;
	char **strings;
	size_t n;
};

/*
 * MESSAGE_ID, PRIORITY, SYSLOG_FACILITY (facility as in syslog.h, e.g.
 * LOG_AUTHPRIV: 10), SYSLOG_IDENTIFIER, OBJECT_PID (the entry's PID, else
 * its first KILLED_PIDS) and OBJECT_SYSTEMD_UNIT (its UNIT) when known,
 * MESSAGE, BRUTE_KIND, BRUTE_TIMESTAMP (audit record time, usec) and
 * BRUTE_<NAME> per field (an unset audit ID as "unset").  No CODE_FILE,
 * CODE_LINE or CODE_FUNC: they would name this file, not the event.
 */
int journal_fields_build_facility(const struct entry *e, int facility, struct journal_fields *jf);
/* The same with LOG_AUTHPRIV. */
int journal_fields_build(const struct entry *e, struct journal_fields *jf);
void journal_fields_free(struct journal_fields *jf);
/* Value of the first "NAME=" field or NULL; for tests. */
const char *journal_fields_get(const struct journal_fields *jf, const char *name);

/* Returns 0 or a negative errno from sd_journal_sendv(). */
int journal_send(const struct entry *e, int facility);

#endif
