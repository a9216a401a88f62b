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
	struct forward *forward;	/* NULL: no SIEM */
	unsigned siem_kinds;
	struct siem_format fmt;		/* for PRINT_JSON */
	uint64_t printed, journal_sent, journal_failed, forwarded, forward_failed;
	/* SIEM queuing failures are logged once, then summed up at most once a minute */
	uint64_t forward_failed_logged, forward_failed_log_ms;
	uint64_t kinds[_ENTRY_KIND_MAX];
	struct strbuf line;		/* the printed entry, reused (kept up to OUTPUT_LINE_KEEP) */
};

#define OUTPUT_LINE_KEEP 65536

void output_entry(struct output *o, const struct entry *e);
/* Write out what output_entry() printed: once per turn of the event loop, before it waits. */
void output_flush(struct output *o);
/* Free what output_entry() keeps between entries. */
void output_free(struct output *o);
/* Human readable rendering used by --input. */
int output_format_text(const struct entry *e, struct strbuf *out);

#endif
