/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c - entry routing and the text rendering for replay mode.
 */
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "journal.h"
#include "siem.h"
#include "util.h"

int output_format_text(const struct entry *e, struct strbuf *out)
{
	char ts[40];

	if (format_rfc3339(e->timestamp_usec, ts, sizeof(ts)) < 0)
		snprintf(ts, sizeof(ts), "-");
	sb_puts(out, ts);
	sb_putc(out, ' ');
	sb_puts(out, entry_kind_name(e->kind));
	sb_puts(out, ": ");
	sb_put_text(out, e->message ? e->message : "");
	sb_puts(out, "\n   ");
	for (size_t i = 0; i < e->n_fields; i++) {
		sb_putc(out, ' ');
		sb_puts(out, e->fields[i].name);
		sb_putc(out, '=');
		if (e->fields[i].numeric) {
			sb_puts(out, entry_field_text(&e->fields[i]));
		} else {
			sb_putc(out, '"');
			/* RFC 5424 value quoting (controls as \ooo): readable, unambiguous, one line */
			siem_escape_sd_value(out, e->fields[i].value);
			sb_putc(out, '"');
		}
	}
	sb_putc(out, '\n');
	return out->oom ? -ENOMEM : 0;
}

#define FAILURE_LOG_INTERVAL_MS 60000

/*
 * Queuing for the SIEM failed (disk full...).  Failures and recoveries
 * share one rate limit: the first failure is logged at once, then at most
 * one line a minute sums up what failed since (a disk that flaps between
 * full and not full does not flood the log either).
 */
static bool failure_log_due(const struct output *o, uint64_t now)
{
	return !o->forward_failed_log_ms || now - o->forward_failed_log_ms >= FAILURE_LOG_INTERVAL_MS;
}

static void forward_failed(struct output *o, const struct entry *e, int r)
{
	uint64_t now = now_monotonic_ms();

	o->forward_failed++;
	if (!failure_log_due(o, now))
		return;
	if (o->forward_failed - 1 == o->forward_failed_logged)
		log_error("cannot queue %s entry for the SIEM: %s (further failures are counted and logged at most once a minute)",
			  entry_kind_name(e->kind), strerror(-r));
	else
		log_error("cannot queue entries for the SIEM: %llu failed since the last report (last: %s)",
			  (unsigned long long)(o->forward_failed - o->forward_failed_logged),
			  strerror(-r));
	o->forward_failed_logged = o->forward_failed;
	o->forward_failed_log_ms = now ? now : 1;
}

static void forward_ok(struct output *o)
{
	uint64_t now = now_monotonic_ms();

	o->forwarded++;
	if (o->forward_failed == o->forward_failed_logged || !failure_log_due(o, now))
		return;
	log_notice("queuing entries for the SIEM works again; %llu had failed since the last report",
		   (unsigned long long)(o->forward_failed - o->forward_failed_logged));
	o->forward_failed_logged = o->forward_failed;
	o->forward_failed_log_ms = now ? now : 1;
}

static void journal_failed(struct output *o, int r)
{
	o->journal_failed_here++;
	if (!o->journal_failure_logged++)
		log_error("cannot send to the journal: %s (further failures are only counted)", strerror(-r));
}

/* What the journal's worker did since: counted here, its first failure and drop logged. */
static void journal_take_stats(struct output *o)
{
	struct journal_queue_stats s;

	if (!o->journal_queue)
		return;
	journal_queue_get_stats(o->journal_queue, &s);
	if (s.failed && !o->journal_failure_logged++)
		log_error("cannot send to the journal: %s (further failures are only counted)",
			  strerror(-s.last_error));
	if (s.dropped && !o->journal_dropped)
		log_error("the journal does not take entries, its queue of %d is full: entries are dropped (counted as journal failures; further ones are only counted)",
			  JOURNAL_QUEUE_MAX);
	o->journal_sent = s.sent;
	o->journal_dropped = s.dropped;
	o->journal_failed = o->journal_failed_here + s.failed + s.dropped;
}

void output_flush(struct output *o)
{
	if (o->out)
		fflush(o->out);
	journal_take_stats(o);
}

bool output_journal_busy(struct output *o)
{
	return o->journal_queue && journal_queue_busy(o->journal_queue);
}

void output_finish(struct output *o)
{
	if (!o->journal_queue)
		return;
	if (!journal_queue_wait(o->journal_queue, OUTPUT_JOURNAL_DRAIN_MS))
		log_warning("the journal did not take the last entries in %d ms: they are left behind",
			    OUTPUT_JOURNAL_DRAIN_MS);
	journal_take_stats(o);
}

void output_free(struct output *o)
{
	journal_queue_free(o->journal_queue);
	o->journal_queue = NULL;
	sb_free(&o->line);
}

void output_entry(struct output *o, const struct entry *e)
{
	struct strbuf *sb = &o->line;
	int r;

	o->kinds[e->kind]++;
	if (o->print == PRINT_TEXT || o->print == PRINT_JSON) {
		sb_reset(sb);
		if (o->print == PRINT_TEXT)
			r = output_format_text(e, sb);
		else
			r = siem_format_json(e, &o->fmt, sb) < 0 ? -ENOMEM : sb_putc(sb, '\n');
		if (r == 0) {
			fwrite(sb->buf, 1, sb->len, o->out);	/* flushed by output_flush() */
			o->printed++;
		}
		/* an attacker's long path made it big: do not keep that much */
		if (sb->cap > OUTPUT_LINE_KEEP)
			sb_free(sb);
	}
	/* the SIEM first: it never waits for the journal */
	if (o->forward && (o->siem_kinds & (1u << e->kind))) {
		r = forward_submit(o->forward, e);
		if (r < 0)
			forward_failed(o, e, r);
		else
			forward_ok(o);
	}
	if (o->journal) {
		if (!o->journal_queue && !(o->journal_queue = journal_queue_new(o->journal_wait)))
			log_error("cannot start the journal's worker thread: entries are sent from the loop");
		if (o->journal_queue)
			r = journal_queue_submit(o->journal_queue, e, o->fmt.facility);
		else
			r = journal_send(e, o->fmt.facility);
		if (r == -ENOBUFS)
			;	/* dropped: counted by the queue, taken in output_flush() */
		else if (r < 0)
			journal_failed(o, r);
		else if (!o->journal_queue)
			o->journal_sent++;
		if (!o->journal_queue)
			o->journal_failed = o->journal_failed_here;
	}
}
