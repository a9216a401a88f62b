/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser.c - line framing, record type dispatch and libauparse feeding.
 */
#include "parser.h"

#include <errno.h>
#include <libaudit.h>
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
	struct parser_stats stats;
};

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
			p->stats.malformed++;
			continue;
		}
		p->stats.records++;
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

	p->stats.fed++;
	if (auparse_feed(p->au, line, len) < 0 || auparse_flush_feed(p->au) < 0) {
		p->stats.malformed++;
		return;
	}
	/* libauparse silently drops lines it can't parse at all */
	if (p->delivered == before)
		p->stats.malformed++;
}

/* line includes the trailing '\n' */
static void process_line(struct parser *p, const char *line, size_t len)
{
	size_t body = len;
	int type;

	p->stats.lines++;
	if (body && line[body - 1] == '\n')
		body--;
	if (body == 0)
		return;	/* blank lines are not records; don't count them */
	if (memchr(line, '\0', body)) {
		p->stats.garbage++;
		return;
	}
	type = parser_line_type(line, body);
	if (type < 0) {
		p->stats.garbage++;
		return;
	}
	if (!brute_type_known(type)) {
		p->stats.other++;
		return;
	}
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
			p->stats.lines++;
			p->stats.oversized++;
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
		p->stats.oversized++;
		return 0;
	}
	if (len == 0 || memchr(payload, '\0', len) || memchr(payload, '\n', len)) {
		p->stats.garbage++;
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
