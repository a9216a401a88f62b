/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser.c - line framing, record type dispatch and libauparse feeding.
 */
#include "parser.h"

#include <errno.h>
#include <libaudit.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct parser {
	auparse_state_t *au;
	parser_record_cb cb;
	void *userdata;
	struct strbuf partial;	/* incomplete last line */
	struct strbuf line;	/* netlink message rendered as text */
	bool discarding;	/* inside an oversized line, skip to '\n' */
	uint64_t delivered;	/* records seen by the callback (ok or not) */
	struct brute_record rec;
	size_t feeding;		/* length of the text line being fed, 0: a netlink message */
	uint64_t cut_log_ms;	/* the last warning about a line at auditd's limit (0: none) */
	struct parser_stats stats;
	/* refusals: the first logged at once, then at most one line a minute */
	uint64_t refused_held;		/* since the last line */
	uint64_t refused_log_ms;	/* monotonic time of that line, 0: none yet */
	char refused_last[256];		/* the last one held back */
};

#define REFUSED_LOG_INTERVAL_MS 60000

static void refused_summary(struct parser *p, uint64_t now)
{
	log_warning("refused %llu more line(s) in the last minute, the last: %s",
		    (unsigned long long)p->refused_held, p->refused_last);
	p->refused_held = 0;
	p->refused_log_ms = now ? now : 1;
}

/*
 * A line or record that cannot be used: counted (its parser_stats
 * counter), and logged with what identifies it (its audit ID, else the
 * start of the line): the first at once, then at most one line a minute,
 * which sums up what the minute held back (parser_tick()).
 */
static void __attribute__((format(printf, 2, 3))) refused(struct parser *p, const char *fmt, ...)
{
	uint64_t now = now_monotonic_ms();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->refused_last, sizeof(p->refused_last), fmt, ap);
	va_end(ap);
	if (p->refused_log_ms && now - p->refused_log_ms < REFUSED_LOG_INTERVAL_MS) {
		p->refused_held++;
		return;
	}
	if (p->refused_held)
		refused_summary(p, now);
	log_warning("refused %s (counted; further refusals are logged at most once a minute)",
		    p->refused_last);
	p->refused_log_ms = now ? now : 1;
}

void parser_tick(struct parser *p, uint64_t now_ms)
{
	if (p->refused_held && now_ms - p->refused_log_ms >= REFUSED_LOG_INTERVAL_MS)
		refused_summary(p, now_ms);
}

uint64_t parser_next_deadline(const struct parser *p)
{
	return p->refused_held ? p->refused_log_ms + REFUSED_LOG_INTERVAL_MS : UINT64_MAX;
}

void parser_flush_log(struct parser *p)
{
	if (p->refused_held)
		refused_summary(p, now_monotonic_ms());
}

/* The start of a line, as text for the log ("..." when cut). */
static const char *line_head(const char *line, size_t len, char *buf, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	char raw[97];
	size_t n = len < sizeof(raw) - 1 ? len : sizeof(raw) - 1;

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	memcpy(raw, line, n);
	raw[n] = '\0';
	sb_put_text(&sb, raw);	/* controls as \ooo; a NUL ends it */
	snprintf(buf, size, "\"%s%s\"", sb_str(&sb), n < len && len > sizeof(raw) - 1 ? "..." : "");
	sb_free(&sb);
	return buf;
}

static void event_cb(auparse_state_t *au, auparse_cb_event_t type, void *userdata)
{
	struct parser *p = userdata;

	if (type != AUPARSE_CB_EVENT_READY)
		return;
	if (auparse_first_record(au) <= 0)
		return;
	do {
		int r;

		if (!brute_type_known(auparse_get_type(au)))
			continue;
		p->delivered++;
		r = record_from_auparse(au, &p->rec);
		if (r < 0) {
			const au_event_t *ts = auparse_get_timestamp(au);

			p->stats.malformed++;
			refused(p, "a type %d record (audit ID %llu.%03u:%lu): %s", auparse_get_type(au),
				ts ? (unsigned long long)ts->sec : 0ull, ts ? ts->milli : 0u,
				ts ? ts->serial : 0ul, record_last_error());
			continue;
		}
		p->stats.records++;
		if (p->feeding == AUDITD_LINE_MAX) {
			/* auditd cut it: its last field (exe=) may be shorter than the kernel wrote */
			uint64_t now = now_monotonic_ms();

			p->stats.cut++;
			if (!p->cut_log_ms || now - p->cut_log_ms >= REFUSED_LOG_INTERVAL_MS) {
				log_warning("a type %d record (audit ID %llu.%03u:%lu) is %zu bytes long, auditd's limit: auditd may have cut it, its last fields (exe, the process's path) may be incomplete (%llu such record(s); further ones are logged at most once a minute)",
					    p->rec.type, (unsigned long long)p->rec.sec, p->rec.milli,
					    p->rec.serial, p->feeding, (unsigned long long)p->stats.cut);
				p->cut_log_ms = now ? now : 1;
			}
		}
		p->cb(&p->rec, p->userdata);
	} while (auparse_next_record(au) > 0);
}

struct parser *parser_new(parser_record_cb cb, void *userdata)
{
	struct parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->au = auparse_init(AUSOURCE_FEED, NULL);
	if (!p->au) {
		free(p);
		return NULL;
	}
	/* decoded comm/exe as they are, no re-escaping for a terminal */
	auparse_set_escape_mode(p->au, AUPARSE_ESC_RAW);
	auparse_add_callback(p->au, event_cb, p, NULL);
	p->cb = cb;
	p->userdata = userdata;
	return p;
}

void parser_free(struct parser *p)
{
	if (!p)
		return;
	auparse_destroy(p->au);
	sb_free(&p->partial);
	sb_free(&p->line);
	free(p);
}

const struct parser_stats *parser_get_stats(const struct parser *p)
{
	return &p->stats;
}

int parser_line_type(const char *line, size_t len)
{
	const char *p = line, *end = line + len, *name;
	char buf[64];
	size_t n;

	if (len > 5 && memcmp(p, "node=", 5) == 0) {
		p = memchr(p, ' ', len);
		if (!p)
			return -1;
		p++;
	}
	if ((size_t)(end - p) < 6 || memcmp(p, "type=", 5) != 0)
		return -1;
	name = p + 5;
	if ((size_t)(end - name) > 8 && memcmp(name, "UNKNOWN[", 8) == 0) {
		int v = 0;

		for (p = name + 8; p < end && *p >= '0' && *p <= '9' && v < 100000; p++)
			v = v * 10 + (*p - '0');
		if (p == name + 8 || p >= end || *p != ']')
			return -1;
		return v;
	}
	/* Named types: only names libaudit may one day give brute's records */
	if ((size_t)(end - name) > 6 && memcmp(name, "BRUTE_", 6) == 0) {
		p = memchr(name, ' ', (size_t)(end - name));
		n = (size_t)((p ? p : end) - name);
		if (n >= sizeof(buf))
			return -1;
		memcpy(buf, name, n);
		buf[n] = '\0';
		return audit_name_to_msg_type(buf) > 0 ? audit_name_to_msg_type(buf) : 0;
	}
	return (*name >= 'A' && *name <= 'Z') ? 0 : -1;
}

/* Feed one complete record line to libauparse and flush it through. */
static void feed_record(struct parser *p, const char *line, size_t len)
{
	uint64_t before = p->delivered;

	char head[200];

	p->stats.fed++;
	if (auparse_feed(p->au, line, len) < 0 || auparse_flush_feed(p->au) < 0 ||
	    p->delivered == before) {
		p->feeding = 0;
		/* libauparse silently drops lines it can't parse at all */
		p->stats.malformed++;
		refused(p, "a record libauparse cannot parse: %s", line_head(line, len, head, sizeof(head)));
	}
	p->feeding = 0;
}

/* line includes the trailing '\n' */
static void process_line(struct parser *p, const char *line, size_t len)
{
	size_t body = len;
	int type;

	char head[200];

	p->stats.lines++;
	if (body && line[body - 1] == '\n')
		body--;
	if (body == 0)
		return;	/* blank lines are not records; don't count them */
	type = memchr(line, '\0', body) ? -1 : parser_line_type(line, body);
	if (type < 0) {
		p->stats.garbage++;
		refused(p, "a line that is not an audit record: %s", line_head(line, body, head, sizeof(head)));
		return;
	}
	if (!brute_type_known(type)) {
		p->stats.other++;
		return;
	}
	p->feeding = body;
	feed_record(p, line, len);
}

int parser_feed(struct parser *p, const char *data, size_t len)
{
	const char *end = data + len;

	while (data < end) {
		const char *nl = memchr(data, '\n', (size_t)(end - data));
		size_t n = nl ? (size_t)(nl - data + 1) : (size_t)(end - data);

		if (p->discarding) {
			if (nl)
				p->discarding = false;
			data += n;
			continue;
		}
		if (p->partial.len + n > PARSER_LINE_MAX) {
			char head[200];

			p->stats.lines++;
			p->stats.oversized++;
			refused(p, "a line longer than %d KiB: %s", PARSER_LINE_MAX / 1024,
				p->partial.len ? line_head(p->partial.buf, p->partial.len, head, sizeof(head)) :
				line_head(data, n, head, sizeof(head)));
			sb_reset(&p->partial);
			p->discarding = !nl;
			data += n;
			continue;
		}
		if (!nl) {
			if (sb_put(&p->partial, data, n) < 0) {
				sb_reset(&p->partial);
				return -ENOMEM;
			}
			break;
		}
		if (p->partial.len) {
			int r = sb_put(&p->partial, data, n);

			if (r == 0)
				process_line(p, p->partial.buf, p->partial.len);
			sb_reset(&p->partial);
			if (r < 0)
				return r;
		} else {
			process_line(p, data, n);
		}
		data += n;
	}
	return 0;
}

int parser_finish(struct parser *p)
{
	int r = 0;

	if (p->partial.len) {
		r = sb_putc(&p->partial, '\n');
		if (r == 0)
			process_line(p, p->partial.buf, p->partial.len);
	}
	sb_reset(&p->partial);
	p->discarding = false;
	return r;
}

int parser_feed_netlink(struct parser *p, int type, const char *payload, size_t len)
{
	p->stats.lines++;
	if (!brute_type_known(type)) {
		p->stats.other++;
		return 0;
	}
	/* kernel payloads may carry a trailing NUL or newline */
	while (len && (payload[len - 1] == '\0' || payload[len - 1] == '\n'))
		len--;
	if (len > PARSER_LINE_MAX) {
		char head[200];

		p->stats.oversized++;
		refused(p, "a type %d netlink message of %zu bytes: %s", type, len,
			line_head(payload, len, head, sizeof(head)));
		return 0;
	}
	if (len == 0 || memchr(payload, '\0', len) || memchr(payload, '\n', len)) {
		char head[200];

		p->stats.garbage++;
		refused(p, "a type %d netlink message that is not an audit record: %s", type,
			line_head(payload, len, head, sizeof(head)));
		return 0;
	}
	sb_reset(&p->line);
	sb_printf(&p->line, "type=UNKNOWN[%d] msg=", type);
	sb_put(&p->line, payload, len);
	sb_putc(&p->line, '\n');
	if (p->line.oom) {
		sb_free(&p->line);
		return -ENOMEM;
	}
	feed_record(p, p->line.buf, p->line.len);
	return 0;
}
