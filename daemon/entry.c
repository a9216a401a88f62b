/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * entry.c - the operator-facing entry type and its spool serialization.
 */
#include "entry.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * MESSAGE_IDs are fixed forever: journal catalog entries, SIEM rules and
 * operators' filters key on them.  Generated once with systemd-id128 new.
 */
static const struct {
	const char *name;
	const char *msgid;
	const char *message_id;
} kinds[_ENTRY_KIND_MAX] = {
	[ENTRY_BOUNDARY] = { "boundary", "BOUNDARY", "8f0bce98cf644df9a9a42200b17f7635" },
	[ENTRY_ATTACK]   = { "attack",   "ATTACK",   "72daa15b2f794fafa7bedff6fcaee907" },
	[ENTRY_KILL]     = { "kill",     "KILL",     "ce6cb768345140ecbcfb48c33e7380b2" },
	[ENTRY_CLOSED]   = { "closed",   "CLOSED",   "0e994ff57a09407e8765613499ad9031" },
	[ENTRY_BAN]      = { "ban",      "BAN",      "dda54503c6434773a0b9f8d83838594a" },
	[ENTRY_UNBAN]    = { "unban",    "UNBAN",    "b1ca6fec5b6b4d109290214d7eca0c2b" },
	[ENTRY_PEER_BAN] = { "peer_ban", "PEER_BAN", "79ecec051cb34c3a91486f64fd349085" },
	[ENTRY_PEER_UNBAN] = { "peer_unban", "PEER_UNBAN", "73f71a481cdb4da99e1d4e883ea387f8" },
};

const char *entry_kind_name(enum entry_kind kind)
{
	return (unsigned)kind < _ENTRY_KIND_MAX ? kinds[kind].name : "unknown";
}

const char *entry_kind_msgid(enum entry_kind kind)
{
	return (unsigned)kind < _ENTRY_KIND_MAX ? kinds[kind].msgid : "-";
}

const char *entry_kind_message_id(enum entry_kind kind)
{
	return (unsigned)kind < _ENTRY_KIND_MAX ? kinds[kind].message_id : NULL;
}

int entry_kind_from_name(const char *name)
{
	for (int i = 0; i < _ENTRY_KIND_MAX; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return i;
	return -EINVAL;
}

void entry_init(struct entry *e, enum entry_kind kind, int priority, uint64_t ts_usec)
{
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->priority = priority;
	e->timestamp_usec = ts_usec;
}

/*
 * Names and values live in chunks that only grow, so a field's pointers stay
 * valid until entry_free(): one allocation per 2 KiB of strings instead of
 * two per field.
 */
struct entry_chunk {
	struct entry_chunk *next;
	size_t used, size;
	char data[];
};

#define ENTRY_CHUNK_SIZE 2048

static char *arena_alloc(struct entry *e, size_t n)
{
	struct entry_chunk *c = e->strings;

	if (!c || c->size - c->used < n) {
		size_t size = n > ENTRY_CHUNK_SIZE ? n : ENTRY_CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = e->strings;
		c->used = 0;
		c->size = size;
		e->strings = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

void entry_free(struct entry *e)
{
	while (e->strings) {
		struct entry_chunk *c = e->strings;

		e->strings = c->next;
		free(c);
	}
	free(e->fields);
	free(e->message);
	memset(e, 0, sizeof(*e));
}

int entry_set_message(struct entry *e, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_reserve(&sb, 256);
	if (r == 0)
		r = sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	free(e->message);
	e->message = sb.buf;
	return 0;
}

int entry_add_full(struct entry *e, const char *name, const char *value, bool numeric)
{
	size_t nl = strlen(name), vl;
	struct entry_field *f;
	char *s;

	if (!value)
		value = "";
	vl = strlen(value);
	if (e->n_fields == e->cap_fields) {
		size_t ncap = e->cap_fields ? e->cap_fields * 2 : 32;

		f = realloc(e->fields, ncap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		e->fields = f;
		e->cap_fields = ncap;
	}
	s = arena_alloc(e, nl + vl + 2);
	if (!s)
		return -ENOMEM;
	memcpy(s, name, nl + 1);
	memcpy(s + nl + 1, value, vl + 1);
	f = &e->fields[e->n_fields++];
	f->name = s;
	f->value = s + nl + 1;
	f->numeric = numeric;
	return 0;
}

int entry_add(struct entry *e, const char *name, const char *value)
{
	return entry_add_full(e, name, value, false);
}

int entry_add_u64(struct entry *e, const char *name, uint64_t value)
{
	char buf[U64_DEC_MAX];

	return entry_add_full(e, name, u64_dec(value, buf), true);
}

int entry_add_id(struct entry *e, const char *name, uint64_t value)
{
	char buf[U64_DEC_MAX];

	return entry_add_full(e, name, u64_dec(value, buf), false);
}

int entry_add_audit_id(struct entry *e, const char *name, uint32_t value)
{
	if (value == AUDIT_ID_UNSET)
		return entry_add_full(e, name, "", true);
	return entry_add_u64(e, name, value);
}

const char *audit_id_str(uint32_t value, char *buf, size_t len)
{
	char dec[U64_DEC_MAX];

	strtcpy(buf, value == AUDIT_ID_UNSET ? "unset" : u64_dec(value, dec), len);
	return buf;
}

int entry_addf(struct entry *e, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	if (r == 0)
		r = entry_add(e, name, sb_str(&sb));
	sb_free(&sb);
	return r;
}

const char *entry_get(const struct entry *e, const char *name)
{
	for (size_t i = 0; i < e->n_fields; i++)
		if (strcmp(e->fields[i].name, name) == 0)
			return e->fields[i].value;
	return NULL;
}

size_t entry_count(const struct entry *e, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < e->n_fields; i++)
		if (strcmp(e->fields[i].name, name) == 0)
			n++;
	return n;
}

#define ENTRY_SER_VERSION 1

int entry_serialize(const struct entry *e, struct strbuf *out)
{
	sb_putc(out, ENTRY_SER_VERSION);
	sb_printf(out, "K=%s", entry_kind_name(e->kind));
	sb_putc(out, '\0');
	sb_printf(out, "P=%d", e->priority);
	sb_putc(out, '\0');
	sb_printf(out, "T=%llu", (unsigned long long)e->timestamp_usec);
	sb_putc(out, '\0');
	sb_printf(out, "M=%s", e->message ? e->message : "");
	sb_putc(out, '\0');
	for (size_t i = 0; i < e->n_fields; i++) {
		sb_printf(out, "%c%s=%s", e->fields[i].numeric ? 'N' : 'F',
			  e->fields[i].name, e->fields[i].value);
		sb_putc(out, '\0');
	}
	return out->oom ? -ENOMEM : 0;
}

int entry_deserialize(const char *data, size_t len, struct entry *e)
{
	const char *p = data, *end = data + len;
	int kind = -1, r = 0;

	entry_init(e, ENTRY_CLOSED, LOG_INFO, 0);
	if (len < 1 || (unsigned char)data[0] != ENTRY_SER_VERSION || data[len - 1] != '\0')
		return -EBADMSG;
	p++;
	while (p < end) {
		size_t n = strlen(p);	/* bounded: data[len-1] == '\0' */
		const char *eq = memchr(p, '=', n);
		char name[64];
		uint64_t v;

		if (!eq || eq == p) {
			r = -EBADMSG;
			break;
		}
		switch (p[0]) {
		case 'K':
			kind = entry_kind_from_name(eq + 1);
			if (kind < 0)
				r = -EBADMSG;
			else
				e->kind = kind;
			break;
		case 'P':
			if (parse_u64(eq + 1, &v) < 0 || v > LOG_DEBUG)
				r = -EBADMSG;
			else
				e->priority = (int)v;
			break;
		case 'T':
			if (parse_u64(eq + 1, &v) < 0)
				r = -EBADMSG;
			else
				e->timestamp_usec = v;
			break;
		case 'M':
			r = entry_set_message(e, "%s", eq + 1);
			break;
		case 'F':
		case 'N':
			if ((size_t)(eq - p - 1) >= sizeof(name) || eq - p - 1 == 0) {
				r = -EBADMSG;
				break;
			}
			memcpy(name, p + 1, (size_t)(eq - p - 1));
			name[eq - p - 1] = '\0';
			r = entry_add_full(e, name, eq + 1, p[0] == 'N');
			break;
		default:
			r = -EBADMSG;
		}
		if (r < 0)
			break;
		p += n + 1;
	}
	if (r == 0 && kind < 0)
		r = -EBADMSG;
	if (r < 0)
		entry_free(e);
	return r;
}
