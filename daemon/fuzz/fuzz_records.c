// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_records.c - libFuzzer target: audit text -> parser -> correlation
 * -> every output, with the outputs' contracts as assertions:
 *  - text output, journal MESSAGE, RFC 5424 MSG: no control byte, valid UTF-8;
 *  - RFC 5424 over UDP/TCP and JSON lines within siem_max_message, TCP frame
 *    length = message length, one JSON object a line with unique keys;
 *  - the spool serialization round-trips.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "journal.h"
#include "output.h"
#include "parser.h"
#include "siem.h"
#include "util.h"
#include "tests/json_check.h"

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

static const struct siem_format fmt = { "fuzzhost", "brute-reportd", 1, LOG_AUTHPRIV, 2048, NULL };
static const struct siem_options ecs_opts = { "brute@32473.1", SIEM_JSON_ECS,
	"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210" };
static const struct siem_format fmt_ecs = { "fuzzhost", "brute-reportd", 1, LOG_AUTHPRIV, 2048, &ecs_opts };

static void inert(const char *what, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = utf8_seq_len(p);

		CHECK(n > 0 && p + n <= end, "%s: invalid UTF-8 at %zu", what, (size_t)(p - (const unsigned char *)s));
		CHECK(!utf8_is_control(p, n), "%s: control character at %zu", what,
		      (size_t)(p - (const unsigned char *)s));
		p += n;
	}
}

/* One JSON object: balanced, strings closed, top-level keys unique. */
static void json_object(const char *s, size_t len)
{
	char keys[256][48];
	size_t n = 0;
	int depth = 0;
	int key_next = 0;

	CHECK(len >= 2 && s[0] == '{' && s[len - 1] == '}', "JSON: not an object");
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"') {
			size_t start = ++i;

			while (i < len && s[i] != '"') {
				CHECK((unsigned char)s[i] >= 0x20, "JSON: raw control in a string");
				i += s[i] == '\\' ? 2 : 1;
			}
			CHECK(i < len, "JSON: unterminated string");
			if (depth == 1 && key_next) {
				size_t kl = i - start;

				CHECK(kl < sizeof(keys[0]) && n < 256, "JSON: key too long / too many");
				memcpy(keys[n], s + start, kl);
				keys[n][kl] = '\0';
				for (size_t k = 0; k < n; k++)
					CHECK(strcmp(keys[k], keys[n]) != 0, "JSON: key %s twice", keys[n]);
				n++;
				key_next = 0;
			}
			continue;
		}
		if (s[i] == '{' || s[i] == '[')
			depth++;
		else if (s[i] == '}' || s[i] == ']')
			depth--;
		if ((s[i] == '{' || s[i] == ',') && depth == 1)
			key_next = 1;
		CHECK(depth >= 0, "JSON: unbalanced");
	}
	CHECK(depth == 0, "JSON: unbalanced");
}

static void check_entry(const struct entry *e, void *userdata)
{
	struct strbuf sb = STRBUF_INIT;
	struct journal_fields jf;
	struct entry back;
	const char *msg;
	char *end;
	unsigned long flen;

	(void)userdata;
	/* text output: header line + fields line, nothing else */
	CHECK(output_format_text(e, &sb) == 0, "text: failed");
	{
		const char *nl = memchr(sb.buf, '\n', sb.len);

		CHECK(nl && memchr(nl + 1, '\n', sb.len - (size_t)(nl + 1 - sb.buf)) == sb.buf + sb.len - 1,
		      "text: not exactly two lines");
		inert("text", sb.buf, (size_t)(nl - sb.buf));
		inert("text", nl + 1, sb.len - (size_t)(nl + 1 - sb.buf) - 1);
	}
	sb_reset(&sb);
	CHECK(journal_fields_build(e, &jf) == 0, "journal: failed");
	msg = journal_fields_get(&jf, "MESSAGE");
	inert("journal MESSAGE", msg, strlen(msg));
	journal_fields_free(&jf);

	CHECK(siem_format_wire(SIEM_UDP, e, &fmt, &sb) == 0, "udp: failed");
	CHECK(sb.len <= fmt.max_message, "udp: %zu bytes", sb.len);
	inert("rfc5424", sb.buf, sb.len);
	sb_reset(&sb);
	CHECK(siem_format_wire(SIEM_TCP, e, &fmt, &sb) == 0, "tcp: failed");
	flen = strtoul(sb.buf, &end, 10);
	CHECK(*end == ' ' && flen == sb.len - (size_t)(end + 1 - sb.buf) && flen <= fmt.max_message,
	      "tcp: bad frame");
	sb_reset(&sb);
	CHECK(siem_format_wire(SIEM_JSON, e, &fmt, &sb) == 0, "json: failed");
	CHECK(sb.len >= 1 && sb.buf[sb.len - 1] == '\n' && sb.len - 1 <= fmt.max_message, "json: size");
	CHECK(memchr(sb.buf, '\n', sb.len - 1) == NULL, "json: newline inside");
	json_object(sb.buf, sb.len - 1);
	CHECK(!json_check(sb.buf, sb.len - 1), "json: %s", json_check(sb.buf, sb.len - 1));
	inert("json", sb.buf, sb.len - 1);
	sb_reset(&sb);
	/* the ECS mapping: strict JSON, unique keys at every depth, within the cap */
	CHECK(siem_format_wire(SIEM_JSON, e, &fmt_ecs, &sb) == 0, "ecs: failed");
	CHECK(sb.len >= 1 && sb.buf[sb.len - 1] == '\n' && sb.len - 1 <= fmt_ecs.max_message, "ecs: size");
	CHECK(memchr(sb.buf, '\n', sb.len - 1) == NULL, "ecs: newline inside");
	CHECK(!json_check(sb.buf, sb.len - 1), "ecs: %s", json_check(sb.buf, sb.len - 1));
	inert("ecs", sb.buf, sb.len - 1);
	sb_reset(&sb);
	CHECK(siem_format_wire(SIEM_UDP, e, &fmt_ecs, &sb) == 0 && strstr(sb.buf, "[brute@32473.1 "),
	      "rfc5424: configured SD-ID");
	sb_reset(&sb);

	CHECK(entry_serialize(e, &sb) == 0, "serialize");
	CHECK(entry_deserialize(sb.buf, sb.len, &back) == 0, "deserialize");
	CHECK(back.kind == e->kind && back.n_fields == e->n_fields &&
	      strcmp(back.message ? back.message : "", e->message ? e->message : "") == 0, "round trip");
	for (size_t i = 0; i < e->n_fields; i++)
		CHECK(!strcmp(back.fields[i].name, e->fields[i].name) &&
		      !strcmp(back.fields[i].value, e->fields[i].value) &&
		      back.fields[i].numeric == e->fields[i].numeric, "round trip field %zu", i);
	entry_free(&back);
	sb_free(&sb);
}

struct ctx {
	struct correlate *corr;
};

static void on_record(const struct brute_record *r, void *userdata)
{
	struct ctx *x = userdata;
	uint64_t now = r->sec * 1000 + r->milli;

	correlate_tick(x->corr, now);
	correlate_record(x->corr, r, now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct correlate_config cfg;
	struct ctx x;
	struct parser *p;

	log_set_quiet(true);
	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	cfg.max_hierarchies = 64;
	cfg.max_memory = 4u << 20;
	x.corr = correlate_new(&cfg, check_entry, NULL);
	p = parser_new(on_record, &x);
	if (!x.corr || !p)
		abort();
	parser_feed(p, (const char *)data, size);
	parser_finish(p);
	correlate_close_all(x.corr, "end-of-input");
	parser_free(p);
	correlate_free(x.corr);
	return 0;
}
