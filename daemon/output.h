/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h - route each entry to its destinations: the journal, the SIEM
 * forwarder (for the configured kinds) and/or stdout as text or JSON.
 */
#ifndef BRUTE_OUTPUT_H
#define BRUTE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "entry.h"
#include "forward.h"

enum print_mode { PRINT_NONE, PRINT_TEXT, PRINT_JSON };

struct output {
	enum print_mode print;
	FILE *out;
	bool journal;
	bool journal_wait;		/* a full journal queue waits (replay), else drops */
	struct journal_queue *journal_queue;	/* started at the first journal entry */
	struct forward *forward;	/* NULL: no SIEM */
	unsigned siem_kinds;
	struct siem_format fmt;		/* for PRINT_JSON */
	/* journal_failed: not sent, or dropped (journal_dropped: the queue was full) */
	uint64_t printed, journal_sent, journal_failed, journal_dropped, forwarded, forward_failed;
	uint64_t journal_failed_here, journal_failure_logged;	/* not queued (no fields, no worker) */
	/* SIEM queuing failures are logged once, then summed up at most once a minute */
	uint64_t forward_failed_logged, forward_failed_log_ms;
	uint64_t kinds[_ENTRY_KIND_MAX];
	struct strbuf line;		/* the printed entry, reused (kept up to OUTPUT_LINE_KEEP) */
};

#define OUTPUT_LINE_KEEP 65536
#define OUTPUT_JOURNAL_DRAIN_MS 2000

/*
 * Printed first, then queued for the SIEM, then handed to the journal's
 * worker thread (journal.h): a stalled journald delays neither the SIEM
 * nor the loop.
 */
void output_entry(struct output *o, const struct entry *e);
/* Write out what output_entry() printed, and take the journal worker's counters: once per
 * turn of the event loop, before it waits. */
void output_flush(struct output *o);
/* Entries still with the journal worker: call output_flush() again soon. */
bool output_journal_busy(struct output *o);
/* At the end: the journal's worker gets OUTPUT_JOURNAL_DRAIN_MS to send what it holds. */
void output_finish(struct output *o);
/* Free what output_entry() keeps between entries. */
void output_free(struct output *o);
/* Human readable rendering used by --input. */
int output_format_text(const struct entry *e, struct strbuf *out);

#endif
