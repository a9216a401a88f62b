/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser.h - turn a stream of audit text (audit.log, auditd's plugin
 * protocol) or raw netlink audit messages into struct brute_record via
 * libauparse in feed mode.
 *
 * Only records whose type is one of brute's (1710-1719) are handed to
 * libauparse; the type token is the only thing looked at before that.
 * Each of them is fed and then flushed, so nothing waits for libauparse's
 * end-of-event timeout: brute's signal-path records are standalone and
 * never followed by an EOE.
 */
#ifndef BRUTE_PARSER_H
#define BRUTE_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* Longest accepted record line; Brute's longest records (a path of PATH_MAX,
 * hex-encoded) are under 10 KiB. */
#define PARSER_LINE_MAX (32 * 1024)

/*
 * auditd's MAX_AUDIT_MESSAGE_LENGTH (8970, its NUL included): the text of a
 * record (audit.log, the plugin protocol) is cut there.  A record line of
 * exactly that length may have lost the end of its last field (exe=): it
 * is taken, with a warning naming it, and counted (parser_stats.cut).
 * Netlink records are the kernel's, never cut.
 */
#define AUDITD_LINE_MAX (8970 - 1)

struct parser_stats {
	uint64_t lines;		/* lines / netlink messages seen */
	uint64_t oversized;	/* longer than PARSER_LINE_MAX: skipped */
	uint64_t garbage;	/* not an audit record line (or NUL bytes): skipped */
	uint64_t other;		/* records of other types: ignored */
	uint64_t fed;		/* brute records handed to libauparse */
	uint64_t records;	/* brute records parsed and delivered */
	uint64_t malformed;	/* brute records rejected: bad/missing fields */
	uint64_t cut;		/* text records AUDITD_LINE_MAX long: maybe cut by auditd */
};

typedef void (*parser_record_cb)(const struct brute_record *r, void *userdata);

struct parser;

struct parser *parser_new(parser_record_cb cb, void *userdata);
void parser_free(struct parser *p);

/* Text stream, any chunking.  Complete lines are processed at once. */
int parser_feed(struct parser *p, const char *data, size_t len);
/* End of stream: a last line without a newline is processed too. */
int parser_finish(struct parser *p);
/* One raw netlink audit message: type and "audit(T:S): fields" payload. */
int parser_feed_netlink(struct parser *p, int type, const char *payload, size_t len);

const struct parser_stats *parser_get_stats(const struct parser *p);

/*
 * What is refused (malformed, oversized, garbage) is counted and logged with
 * its audit ID (else the start of its line): the first at once, then at most
 * one line a minute summing up the rest.  parser_tick() writes that line when
 * its minute is over (call it from the loop, by parser_next_deadline());
 * parser_flush_log() at the end.
 */
void parser_tick(struct parser *p, uint64_t now_ms);
uint64_t parser_next_deadline(const struct parser *p);
void parser_flush_log(struct parser *p);

/*
 * Record type named by an audit text line ("[node=N ]type=X msg=..."):
 * > 0 the type, 0 a well-formed line of a type whose name we don't look
 * up (not brute's), -1 not an audit record line.
 */
int parser_line_type(const char *line, size_t len);

#endif
