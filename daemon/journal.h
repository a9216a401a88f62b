/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.h - render an entry as journal fields and send it with
 * sd_journal_sendv().
 */
#ifndef BRUTE_JOURNAL_H
#define BRUTE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/*
 * sd_journal_sendv() blocks while journald does not read its socket (a
 * stalled or overloaded journald): the daemon's loop must not.  A queue
 * of JOURNAL_QUEUE_MAX entries, their fields built by the caller, sent by
 * one worker thread.  When it is full an entry is dropped (counted), unless
 * the queue waits (a replay: nothing is live, nothing must be lost).
 */
#define JOURNAL_QUEUE_MAX 1024

struct journal_queue;

struct journal_queue_stats {
	uint64_t sent, failed, dropped;
	int last_error;		/* of the last failure, a negative errno */
};

struct journal_queue *journal_queue_new(bool wait);
/* 0 queued, -ENOBUFS full (dropped, counted), -ENOMEM. */
int journal_queue_submit(struct journal_queue *q, const struct entry *e, int facility);
/* Entries queued or being sent. */
bool journal_queue_busy(struct journal_queue *q);
void journal_queue_get_stats(struct journal_queue *q, struct journal_queue_stats *s);
/* Wait up to timeout_ms for the queue to be sent: true when it was. */
bool journal_queue_wait(struct journal_queue *q, uint64_t timeout_ms);
/*
 * Stop the worker and free the queue; a worker still blocked in journald
 * is left behind with the entries it holds (the process is exiting).
 */
void journal_queue_free(struct journal_queue *q);

#endif
