/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * siem.c - RFC 5424 / RFC 6587 and JSON-lines formatting with escaping.
 */
#include "siem.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *siem_protocol_name(enum siem_protocol p)
{
	switch (p) {
	case SIEM_UDP:	return "udp";
	case SIEM_TCP:	return "tcp";
	case SIEM_JSON:	return "json";
	case SIEM_TLS:	return "tls";
	case SIEM_RELP:	return "relp";
	default:	return "none";
	}
}

#define utf8_valid utf8_seq_len

int siem_escape_sd_value(struct strbuf *out, const char *value)
{
	const unsigned char *p = (const unsigned char *)value;

	while (*p) {
		const unsigned char *q = p;
		size_t n;

		/* a run of plain ASCII needing no escape: at once */
		while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\' && *q != ']')
			q++;
		if (q > p) {
			sb_put(out, p, (size_t)(q - p));
			p = q;
			continue;
		}
		n = utf8_valid(p);
		if (n == 0) {
			sb_puts(out, "\xef\xbf\xbd");
			p++;
			continue;
		}
		if (utf8_is_control(p, n)) {
			/* a receiver reads "\012" as those 4 characters: one line, inert */
			for (size_t i = 0; i < n; i++)
				sb_printf(out, "\\%03o", p[i]);
			p += n;
			continue;
		}
		if (*p == '"' || *p == '\\' || *p == ']')
			sb_putc(out, '\\');
		sb_put(out, p, n);
		p += n;
	}
	return out->oom ? -ENOMEM : 0;
}

int siem_escape_json(struct strbuf *out, const char *value)
{
	const unsigned char *p = (const unsigned char *)value;

	while (*p) {
		size_t n = utf8_valid(p);

		if (n == 0) {
			sb_puts(out, "\\ufffd");
			p++;
			continue;
		}
		switch (*p) {
		case '"':  sb_puts(out, "\\\""); break;
		case '\\': sb_puts(out, "\\\\"); break;
		case '\b': sb_puts(out, "\\b"); break;
		case '\f': sb_puts(out, "\\f"); break;
		case '\n': sb_puts(out, "\\n"); break;
		case '\r': sb_puts(out, "\\r"); break;
		case '\t': sb_puts(out, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sb_printf(out, "\\u%04x", *p);
			else if (n > 1 && utf8_is_control(p, n))
				/* C1, line separators, bidi controls: valid JSON raw, not inert */
				sb_printf(out, "\\u%04x", n == 2 ? (unsigned)(p[1] & 0x3f) | (unsigned)(p[0] & 0x1f) << 6 :
					  (unsigned)(p[0] & 0x0f) << 12 | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f));
			else
				sb_put(out, p, n);
		}
		p += n;
	}
	return out->oom ? -ENOMEM : 0;
}

/* RFC 5424 HOSTNAME/APP-NAME: 1*N PRINTUSASCII, else NILVALUE. */
static void put_header_token(struct strbuf *out, const char *s, size_t max)
{
	size_t n = 0;

	if (!s || !*s) {
		sb_putc(out, '-');
		return;
	}
	for (; *s && n < max; s++, n++)
		sb_putc(out, (*s > 32 && *s < 127) ? *s : '_');
}

static void lower_name(char *dst, const char *src, size_t len)
{
	size_t i;

	/* PARAM-NAME: at most 32 chars, no '=', ' ', ']', '"' */
	for (i = 0; src[i] && i + 1 < len && i < 32; i++) {
		char c = (char)tolower((unsigned char)src[i]);

		dst[i] = (c > 32 && c < 127 && c != '=' && c != ']' && c != '"') ? c : '_';
	}
	dst[i] = '\0';
}

int siem_format_rfc5424(const struct entry *e, const struct siem_format *f, struct strbuf *out)
{
	char ts[40], name[40];
	int sev = e->priority & 7;

	if (format_rfc3339(e->timestamp_usec, ts, sizeof(ts)) < 0)
		snprintf(ts, sizeof(ts), "-");
	sb_printf(out, "<%d>1 %s ", (f->facility & ~7) | sev, ts);
	put_header_token(out, f->hostname, 255);
	sb_putc(out, ' ');
	put_header_token(out, f->app_name, 48);
	sb_printf(out, " %d %s [" SIEM_SD_ID " kind=\"%s\" message_id=\"%s\"",
		  f->pid, entry_kind_msgid(e->kind), entry_kind_name(e->kind),
		  entry_kind_message_id(e->kind));
	for (size_t i = 0; i < e->n_fields; i++) {
		lower_name(name, e->fields[i].name, sizeof(name));
		sb_printf(out, " %s=\"", name);
		siem_escape_sd_value(out, e->fields[i].value);
		sb_putc(out, '"');
	}
	sb_puts(out, "] \xef\xbb\xbf");	/* BOM: MSG is UTF-8 */
	/* MSG: valid UTF-8 after the BOM, and one inert line (names are the attacker's) */
	if (e->message)
		sb_put_text(out, e->message);
	return out->oom ? -ENOMEM : 0;
}

static const char *severity_name(int prio)
{
	static const char *const n[] = { "emerg", "alert", "crit", "err",
					 "warning", "notice", "info", "debug" };
	return n[prio & 7];
}

/* the object's own keys: a field of the same name is written "brute_NAME" */
static const char *const json_header_keys[] = {
	"timestamp", "host", "app", "app_pid", "kind", "message_id", "priority",
	"severity", "message",
};

static void json_key(struct strbuf *out, const char *key)
{
	for (size_t i = 0; i < sizeof(json_header_keys) / sizeof(json_header_keys[0]); i++)
		if (strcmp(key, json_header_keys[i]) == 0) {
			sb_puts(out, ",\"brute_");
			siem_escape_json(out, key);
			sb_puts(out, "\":");
			return;
		}
	sb_puts(out, ",\"");
	siem_escape_json(out, key);
	sb_puts(out, "\":");
}

static void json_value(struct strbuf *out, const struct entry_field *fl)
{
	if (fl->numeric) {
		sb_puts(out, fl->value);
		return;
	}
	sb_putc(out, '"');
	siem_escape_json(out, fl->value);
	sb_putc(out, '"');
}

int siem_format_json(const struct entry *e, const struct siem_format *f, struct strbuf *out)
{
	char ts[40], name[40];

	if (format_rfc3339(e->timestamp_usec, ts, sizeof(ts)) < 0)
		ts[0] = '\0';
	sb_printf(out, "{\"timestamp\":\"%s\",\"host\":\"", ts);
	siem_escape_json(out, f->hostname ? f->hostname : "");
	sb_puts(out, "\",\"app\":\"");
	siem_escape_json(out, f->app_name ? f->app_name : "");
	sb_printf(out, "\",\"app_pid\":%d,\"kind\":\"%s\",\"message_id\":\"%s\",\"priority\":%d,\"severity\":\"%s\",\"message\":\"",
		  f->pid, entry_kind_name(e->kind), entry_kind_message_id(e->kind),
		  e->priority & 7, severity_name(e->priority));
	siem_escape_json(out, e->message ? e->message : "");
	sb_putc(out, '"');
	for (size_t i = 0; i < e->n_fields; i++) {
		const struct entry_field *fl = &e->fields[i];
		bool seen = false;
		size_t count = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(e->fields[j].name, fl->name) == 0;
		if (seen)
			continue;	/* already emitted as part of an array */
		for (size_t j = i; j < e->n_fields; j++)
			count += strcmp(e->fields[j].name, fl->name) == 0;
		lower_name(name, fl->name, sizeof(name));
		json_key(out, name);
		if (count == 1) {
			json_value(out, fl);
			continue;
		}
		sb_putc(out, '[');
		for (size_t j = i, k = 0; j < e->n_fields; j++) {
			if (strcmp(e->fields[j].name, fl->name) != 0)
				continue;
			if (k++)
				sb_putc(out, ',');
			json_value(out, &e->fields[j]);
		}
		sb_putc(out, ']');
	}
	sb_putc(out, '}');
	return out->oom ? -ENOMEM : 0;
}

static int format_unframed(enum siem_protocol p, const struct entry *e,
			   const struct siem_format *f, struct strbuf *out)
{
	sb_reset(out);
	return p == SIEM_JSON ? siem_format_json(e, f, out) : siem_format_rfc5424(e, f, out);
}

/* Copy of at most max bytes of s, cut on a UTF-8 boundary, "..." appended if cut. */
static char *cut_utf8(const char *s, size_t max)
{
	size_t n = strlen(s);
	char *r;

	if (n <= max)
		return strdup(s);
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	r = malloc(max + 4);
	if (r) {
		memcpy(r, s, max);
		memcpy(r + max, "...", 4);
	}
	return r;
}

/*
 * The entry summarized: values cut to vmax bytes, at most rmax values of a
 * repeated field (NAME_OMITTED counts the rest), at most keep fields.
 */
static int reduce(const struct entry *e, struct entry *out, size_t vmax, size_t rmax, size_t keep)
{
	int r = 0;
	char *v;

	entry_init(out, e->kind, e->priority, e->timestamp_usec);
	v = cut_utf8(e->message ? e->message : "", vmax * 2);
	if (!v)
		return -ENOMEM;
	r |= entry_set_message(out, "%s", v);
	free(v);
	r |= entry_add_u64(out, "TRUNCATED", 1);
	for (size_t i = 0; i < e->n_fields && out->n_fields <= keep; i++) {
		const struct entry_field *fl = &e->fields[i];
		size_t before = 0, total = 0;

		for (size_t j = 0; j < e->n_fields; j++)
			if (strcmp(e->fields[j].name, fl->name) == 0) {
				before += j < i;
				total++;
			}
		if (before >= rmax) {
			if (before == rmax) {
				char name[64];

				snprintf(name, sizeof(name), "%.40s_OMITTED", fl->name);
				r |= entry_add_u64(out, name, total - rmax);
			}
			continue;
		}
		v = fl->numeric ? strdup(fl->value) : cut_utf8(fl->value, vmax);
		if (!v)
			return -ENOMEM;
		r |= entry_add_full(out, fl->name, v, fl->numeric);
		free(v);
	}
	return r < 0 ? -ENOMEM : 0;
}

static int format_capped(enum siem_protocol p, const struct entry *e,
			 const struct siem_format *f, struct strbuf *out)
{
	static const struct { size_t vmax, rmax; } steps[] = {
		{ 1024, 8 }, { 256, 4 }, { 128, 2 }, { 64, 1 },
	};
	size_t max = f->max_message;
	struct entry small;
	int r;

	r = format_unframed(p, e, f, out);
	if (r < 0 || !max || out->len <= max)
		return r;
	if (max < SIEM_MESSAGE_MIN)
		max = SIEM_MESSAGE_MIN;
	for (size_t s = 0; s < ARRAY_SIZE(steps); s++) {
		r = reduce(e, &small, steps[s].vmax, steps[s].rmax, SIZE_MAX);
		if (r == 0)
			r = format_unframed(p, &small, f, out);
		entry_free(&small);
		if (r < 0 || out->len <= max)
			return r;
	}
	/* the last fields go, one by one: the message, TRUNCATED and the first ones stay */
	for (size_t keep = e->n_fields; keep-- > 0;) {
		r = reduce(e, &small, 64, 1, keep);
		if (r == 0)
			r = format_unframed(p, &small, f, out);
		entry_free(&small);
		if (r < 0 || out->len <= max)
			return r;
	}
	return -EMSGSIZE;	/* a header longer than SIEM_MESSAGE_MIN: cannot happen */
}

int siem_format_wire(enum siem_protocol p, const struct entry *e,
		     const struct siem_format *f, struct strbuf *out)
{
	struct strbuf msg = STRBUF_INIT;
	int r;

	if (p != SIEM_UDP && p != SIEM_TCP && p != SIEM_JSON && p != SIEM_TLS && p != SIEM_RELP)
		return -EINVAL;
	r = format_capped(p, e, f, &msg);
	if (r == 0 && (p == SIEM_TCP || p == SIEM_TLS))
		r = sb_printf(out, "%zu ", msg.len);
	if (r == 0)
		r = sb_put(out, msg.buf, msg.len);
	if (r == 0 && p == SIEM_JSON)
		r = sb_putc(out, '\n');
	sb_free(&msg);
	return r;
}
