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
#include <systemd/sd-id128.h>

void siem_options_defaults(struct siem_options *o)
{
	sd_id128_t id;

	memset(o, 0, sizeof(*o));
	snprintf(o->sd_id, sizeof(o->sd_id), "%s", SIEM_SD_ID);
	o->json_format = SIEM_JSON_NATIVE;
	if (sd_id128_get_machine(&id) == 0)
		sd_id128_to_string(id, o->machine_id);
	if (sd_id128_get_boot(&id) == 0)
		sd_id128_to_string(id, o->boot_id);
}

const char *siem_set_enterprise_id(struct siem_options *o, const char *id)
{
	bool digit = false;

	/* RFC 5424: enterpriseId = 1*DIGIT *("." 1*DIGIT); an SD-ID is at most 32 characters */
	for (const char *p = id; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && digit && p[1])
			digit = false;
		else
			return "expected a private enterprise number like 32473 or 32473.1";
	}
	if (!digit)
		return "expected a private enterprise number like 32473 or 32473.1";
	if (strlen("brute@") + strlen(id) > 32)
		return "too long: an SD-ID has at most 32 characters";
	snprintf(o->sd_id, sizeof(o->sd_id), "brute@%s", id);
	return NULL;
}

static const char *sd_id(const struct siem_format *f)
{
	return f->opts && f->opts->sd_id[0] ? f->opts->sd_id : SIEM_SD_ID;
}

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

/* Bytes an SD-PARAM value takes as they are: printable ASCII but '"', '\\' and ']'. */
static unsigned char sd_plain[256];

int siem_escape_sd_value(struct strbuf *out, const char *value)
{
	const unsigned char *p = (const unsigned char *)value;

	if (!sd_plain['a']) {
		for (int c = 0x20; c < 0x7f; c++)
			sd_plain[c] = c != '"' && c != '\\' && c != ']';
	}

	while (*p) {
		const unsigned char *q = p;
		size_t n;

		/* a run of plain ASCII needing no escape: at once */
		while (sd_plain[*q])
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
	sb_printf(out, " %d %s [%s kind=\"%s\" message_id=\"%s\"",
		  f->pid, entry_kind_msgid(e->kind), sd_id(f), entry_kind_name(e->kind),
		  entry_kind_message_id(e->kind));
	for (size_t i = 0; i < e->n_fields; i++) {
		lower_name(name, e->fields[i].name, sizeof(name));
		sb_printf(out, " %s=\"", name);
		siem_escape_sd_value(out, entry_field_text(&e->fields[i]));
		sb_putc(out, '"');
	}
	if (f->opts && f->opts->boot_id[0])
		sb_printf(out, " boot_id=\"%s\"", f->opts->boot_id);
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
	"severity", "message", "schema_version", "boot_id",
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
		sb_puts(out, entry_field_unset(fl) ? "null" : fl->value);
		return;
	}
	sb_putc(out, '"');
	siem_escape_json(out, fl->value);
	sb_putc(out, '"');
}

static int format_native(const struct entry *e, const struct siem_format *f, struct strbuf *out)
{
	char ts[40], name[40];

	if (format_rfc3339(e->timestamp_usec, ts, sizeof(ts)) < 0)
		ts[0] = '\0';
	sb_printf(out, "{\"schema_version\":%d,\"timestamp\":\"%s\",\"host\":\"",
		  SIEM_JSON_SCHEMA_VERSION, ts);
	siem_escape_json(out, f->hostname ? f->hostname : "");
	sb_puts(out, "\",\"app\":\"");
	siem_escape_json(out, f->app_name ? f->app_name : "");
	sb_printf(out, "\",\"app_pid\":%d,\"kind\":\"%s\",\"message_id\":\"%s\",\"priority\":%d,\"severity\":\"%s\",\"message\":\"",
		  f->pid, entry_kind_name(e->kind), entry_kind_message_id(e->kind),
		  e->priority & 7, severity_name(e->priority));
	siem_escape_json(out, e->message ? e->message : "");
	sb_putc(out, '"');
	/* hierarchy IDs restart at each boot: with the boot ID they name one hierarchy */
	if (f->opts && f->opts->boot_id[0])
		sb_printf(out, ",\"boot_id\":\"%s\"", f->opts->boot_id);
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

int siem_format_json(const struct entry *e, const struct siem_format *f, struct strbuf *out)
{
	if (f->opts && f->opts->json_format == SIEM_JSON_ECS)
		return siem_format_ecs(e, f, out);
	return format_native(e, f, out);
}

/* ---- Elastic Common Schema ---- */

static const struct {
	const char *kind, *category, *type, *action;
} ecs_event[_ENTRY_KIND_MAX] = {
	[ENTRY_BOUNDARY] = { "event", "[\"process\"]", "[\"change\"]", "privilege-boundary-crossed" },
	[ENTRY_ATTACK]   = { "alert", "[\"intrusion_detection\"]", "[\"info\"]", "brute-force-attack-detected" },
	[ENTRY_KILL]     = { "event", "[\"intrusion_detection\",\"process\"]", "[\"info\",\"end\"]", "attacker-processes-killed" },
	[ENTRY_CLOSED]   = { "event", "[\"intrusion_detection\"]", "[\"info\"]", "incident-closed" },
	[ENTRY_BAN]      = { "event", "[\"intrusion_detection\"]", "[\"denied\"]", "exec-banned" },
	[ENTRY_UNBAN]    = { "event", "[\"intrusion_detection\"]", "[\"allowed\"]", "exec-ban-ended" },
	/* a TCP peer's are in the network category too (ecs_category) */
	[ENTRY_PEER_BAN] = { "event", "[\"intrusion_detection\"]", "[\"denied\"]", "peer-banned" },
	[ENTRY_PEER_UNBAN] = { "event", "[\"intrusion_detection\"]", "[\"allowed\"]", "peer-ban-ended" },
};

/* event.category: a ban of a TCP peer (an IP address) is network activity too, a Unix peer's not */
static const char *ecs_category(const struct entry *e, unsigned kind)
{
	const char *proto = entry_get(e, "TRANSPORT");

	if ((kind == ENTRY_PEER_BAN || kind == ENTRY_PEER_UNBAN) && proto && !strcmp(proto, "tcp"))
		return "[\"intrusion_detection\",\"network\"]";
	return ecs_event[kind].category;
}

static void json_str(struct strbuf *out, const char *s)
{
	sb_putc(out, '"');
	siem_escape_json(out, s ? s : "");
	sb_putc(out, '"');
}

/* A whole unsigned decimal number (a pid, a uid): JSON as is. */
static bool is_decimal(const char *s)
{
	if (!s || !*s || strlen(s) > 19)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Comma-separated lists of the entries, as real arrays: numbers or names. */
static int list_kind(const char *name)
{
	if (!strcmp(name, "KILLED_PIDS") || !strcmp(name, "PERIODS_MS"))
		return 'n';
	if (!strcmp(name, "BOUNDARIES") || !strcmp(name, "ORIGIN_BOUNDARIES"))
		return 's';
	return 0;
}

static void json_list(struct strbuf *out, const char *v, int kind)
{
	bool first = true;

	sb_putc(out, '[');
	while (*v) {
		size_t n = strcspn(v, ",");
		char item[64];

		if (n && n < sizeof(item) && !(kind == 's' && n == 4 && !strncmp(v, "none", 4))) {
			memcpy(item, v, n);
			item[n] = '\0';
			if (!first)
				sb_putc(out, ',');
			first = false;
			if (kind == 'n' && is_decimal(item))
				sb_puts(out, item);
			else
				json_str(out, item);
		}
		v += n + (v[n] == ',');
	}
	sb_putc(out, ']');
}

/* The entry's own fields under "brute": lower-cased, repeated ones and lists as arrays. */
static void ecs_brute(struct strbuf *out, const struct entry *e, const struct siem_format *f)
{
	static const char *const own[] = { "schema_version", "kind", "message_id", "app_pid" };
	char name[40];

	sb_printf(out, ",\"brute\":{\"schema_version\":%d,\"kind\":\"%s\",\"message_id\":\"%s\",\"app_pid\":%d",
		  SIEM_JSON_SCHEMA_VERSION, entry_kind_name(e->kind), entry_kind_message_id(e->kind), f->pid);
	for (size_t i = 0; i < e->n_fields; i++) {
		const struct entry_field *fl = &e->fields[i];
		bool seen = false;
		size_t count = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(e->fields[j].name, fl->name) == 0;
		if (seen)
			continue;
		for (size_t j = i; j < e->n_fields; j++)
			count += strcmp(e->fields[j].name, fl->name) == 0;
		lower_name(name, fl->name, sizeof(name));
		sb_puts(out, ",\"");
		for (size_t k = 0; k < ARRAY_SIZE(own); k++)
			if (!strcmp(name, own[k]))
				sb_puts(out, "field_");
		siem_escape_json(out, name);
		sb_puts(out, "\":");
		if (count == 1 && list_kind(fl->name)) {
			json_list(out, fl->value, list_kind(fl->name));
			continue;
		}
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
}

/*
 * The peer and the endpoint it reached (PEER, TRANSPORT, LADDR, LPORT,
 * PEER_UID), in ECS's terms: a TCP peer is source.address (as the kernel
 * wrote it, with its prefix length: "10.0.0.2/32", "2001:db8::/64", what a
 * firewall blocks) and source.ip when it is one host (/32, /128);
 * destination.address/ip/port the listener; network.transport and type.  A
 * Unix peer, or v4's local TCP peer ("uid:N"), is source.user.id.
 */
static void ecs_peer(struct strbuf *out, const struct entry *e)
{
	const char *peer = entry_get(e, "PEER"), *proto = entry_get(e, "TRANSPORT");
	const char *laddr = entry_get(e, "LADDR"), *lport = entry_get(e, "LPORT");
	const char *puid = entry_get(e, "PEER_UID"), *slash;
	char ip[64];

	if (!peer || !proto)
		return;
	/* a local user: over a Unix socket, or (v4) over loopback TCP */
	if (!strncmp(peer, "uid:", 4)) {
		if (is_decimal(puid))
			sb_printf(out, ",\"source\":{\"user\":{\"id\":\"%s\"}}", puid);
	} else if (!strcmp(proto, "unix")) {
		return;
	} else {
		sb_puts(out, ",\"source\":{\"address\":");
		json_str(out, peer);
		slash = strchr(peer, '/');
		if (slash && (size_t)(slash - peer) < sizeof(ip) &&
		    (!strcmp(slash, "/32") ? !strchr(peer, ':') : !strcmp(slash, "/128"))) {
			memcpy(ip, peer, (size_t)(slash - peer));
			ip[slash - peer] = '\0';
			sb_puts(out, ",\"ip\":");
			json_str(out, ip);
		}
		sb_putc(out, '}');
	}
	if (strcmp(proto, "tcp"))
		return;
	if (laddr) {
		sb_puts(out, ",\"destination\":{\"address\":");
		json_str(out, laddr);
		sb_puts(out, ",\"ip\":");
		json_str(out, laddr);
		if (is_decimal(lport))
			sb_printf(out, ",\"port\":%s", lport);
		sb_putc(out, '}');
	}
	sb_printf(out, ",\"network\":{\"transport\":\"tcp\",\"type\":\"%s\"}",
		  strchr(strncmp(peer, "uid:", 4) ? peer : laddr ? laddr : "", ':') ? "ipv6" : "ipv4");
}

int siem_format_ecs(const struct entry *e, const struct siem_format *f, struct strbuf *out)
{
	const struct siem_options *o = f->opts;
	const char *pid = entry_get(e, "PID"), *ppid = entry_get(e, "PPID");
	const char *uid = entry_get(e, "UID"), *euid = entry_get(e, "EUID");
	const char *exe = entry_get(e, "EXE"), *comm = entry_get(e, "COMM");
	unsigned kind = (unsigned)e->kind < _ENTRY_KIND_MAX ? (unsigned)e->kind : ENTRY_CLOSED;
	char ts[40];

	if (format_rfc3339(e->timestamp_usec, ts, sizeof(ts)) < 0)
		ts[0] = '\0';
	if (!uid)
		uid = entry_get(e, "ATTACKER_UID");
	sb_printf(out, "{\"@timestamp\":\"%s\",\"ecs\":{\"version\":\"" SIEM_ECS_VERSION "\"},\"message\":", ts);
	json_str(out, e->message);
	sb_printf(out, ",\"event\":{\"kind\":\"%s\",\"category\":%s,\"type\":%s,\"action\":\"%s\","
		  "\"code\":\"%s\",\"severity\":%d,\"module\":\"brute\",\"dataset\":\"brute.reportd\","
		  "\"provider\":\"brute-reportd\"}",
		  ecs_event[kind].kind, ecs_category(e, kind), ecs_event[kind].type,
		  ecs_event[kind].action, entry_kind_message_id(e->kind), e->priority & 7);
	sb_printf(out, ",\"log\":{\"level\":\"%s\",\"syslog\":{\"facility\":{\"code\":%d},\"severity\":{\"code\":%d,\"name\":\"%s\"}}}",
		  severity_name(e->priority), f->facility >> 3, e->priority & 7, severity_name(e->priority));
	sb_puts(out, ",\"host\":{\"hostname\":");
	json_str(out, f->hostname);
	sb_puts(out, ",\"name\":");
	json_str(out, f->hostname);
	if (o && o->machine_id[0])
		sb_printf(out, ",\"id\":\"%s\"", o->machine_id);
	/* hierarchy IDs restart at each boot: the boot ID makes them unique */
	if (o && o->boot_id[0])
		sb_printf(out, ",\"boot\":{\"id\":\"%s\"}", o->boot_id);
	sb_putc(out, '}');
	if (is_decimal(pid)) {
		sb_printf(out, ",\"process\":{\"pid\":%s", pid);
		if (is_decimal(ppid))
			sb_printf(out, ",\"parent\":{\"pid\":%s}", ppid);
		if (exe) {
			sb_puts(out, ",\"executable\":");
			json_str(out, exe);
		}
		if (comm) {
			sb_puts(out, ",\"name\":");
			json_str(out, comm);
		}
		if (is_decimal(uid))
			sb_printf(out, ",\"user\":{\"id\":\"%s\"}", uid);
		sb_putc(out, '}');
	}
	if (is_decimal(uid)) {
		sb_printf(out, ",\"user\":{\"id\":\"%s\"", uid);
		if (is_decimal(euid))
			sb_printf(out, ",\"effective\":{\"id\":\"%s\"}", euid);
		sb_putc(out, '}');
	}
	ecs_peer(out, e);
	ecs_brute(out, e, f);
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
