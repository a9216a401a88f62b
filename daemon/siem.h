/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * siem.h - SIEM message formats: RFC 5424 syslog (sent over UDP, RFC 5426,
 * or TCP with RFC 6587 octet-counting) and JSON lines.
 *
 * Structured data goes in one SD-ELEMENT whose SD-ID is "brute@PEN".  The
 * default PEN, 32473, is the one RFC 5612 reserves for documentation and
 * examples (Brute has none of its own); siem_enterprise_id sets a
 * deployment's own (brute-reportd.conf(5)).
 *
 * JSON lines come in two mappings (json_format): "native" (flat, the
 * entry's fields lower-cased) and "ecs" (Elastic Common Schema: @timestamp,
 * event.*, process.*, user.*, host.* with the machine and boot IDs, the
 * entry's own fields under brute.*, lists as arrays).
 */
#ifndef BRUTE_SIEM_H
#define BRUTE_SIEM_H

#include "entry.h"
#include "util.h"

#define SIEM_SD_ID "brute@32473"
#define SIEM_ENTERPRISE_ID_DEFAULT "32473"
/* the version of both JSON mappings' layout ("schema_version", brute.schema_version) */
#define SIEM_JSON_SCHEMA_VERSION 1
#define SIEM_ECS_VERSION "8.11.0"

enum siem_json_format { SIEM_JSON_NATIVE, SIEM_JSON_ECS };

struct siem_options {
	char sd_id[40];		/* "brute@32473" */
	enum siem_json_format json_format;
	char machine_id[33];	/* /etc/machine-id (ECS host.id), "" if unknown */
	char boot_id[33];	/* this boot (ECS host.boot.id): hierarchy IDs restart at each boot */
};

/* Defaults: the SD-ID with 32473, native JSON, this machine's IDs (sd-id128). */
void siem_options_defaults(struct siem_options *o);
/* "32473" or "32473.1.2" (RFC 5424 enterpriseId): SD-ID "brute@ID"; NULL or a problem. */
const char *siem_set_enterprise_id(struct siem_options *o, const char *id);

enum siem_protocol {
	SIEM_NONE,
	SIEM_UDP,	/* RFC 5424 over UDP, one message per datagram */
	SIEM_TCP,	/* RFC 5424 over TCP, octet-counting framing */
	SIEM_JSON,	/* JSON object per line over TCP */
	SIEM_TLS,	/* RFC 5424 over TLS (RFC 5425), octet-counting framing */
	SIEM_RELP,	/* RFC 5424 over RELP (librelp), one message per "syslog" command */
};

struct siem_format {
	const char *hostname;	/* NULL: "-" */
	const char *app_name;
	int pid;
	int facility;		/* LOG_AUTHPRIV etc. (already shifted, as in syslog.h) */
	size_t max_message;	/* siem_format_wire: cap of one message (framing aside), 0: none */
	const struct siem_options *opts;	/* NULL: the defaults (without machine IDs) */
};

/* Smallest max_message that every entry can be reduced to. */
#define SIEM_MESSAGE_MIN 2048

const char *siem_protocol_name(enum siem_protocol p);

/* Unframed RFC 5424 message. */
int siem_format_rfc5424(const struct entry *e, const struct siem_format *f, struct strbuf *out);
/* One JSON object, no trailing newline, in f->opts' json_format. */
int siem_format_json(const struct entry *e, const struct siem_format *f, struct strbuf *out);
/* The ECS mapping alone (siem_format_json with json_format = ecs). */
int siem_format_ecs(const struct entry *e, const struct siem_format *f, struct strbuf *out);
/*
 * The bytes to put on the wire for this protocol (framing included).  A
 * message longer than f->max_message is summarized until it fits: long
 * values cut (UTF-8 boundary, "..."), repeated fields reduced to the first
 * few plus NAME_OMITTED=count, the MSG shortened, and as a last resort the
 * last fields dropped; it then carries TRUNCATED=1.
 */
int siem_format_wire(enum siem_protocol p, const struct entry *e,
		     const struct siem_format *f, struct strbuf *out);

/* RFC 5424 PARAM-VALUE: escape '"', '\' and ']'; invalid UTF-8 -> U+FFFD. */
int siem_escape_sd_value(struct strbuf *out, const char *value);
/* RFC 8259 string contents (no quotes); invalid UTF-8 -> \ufffd. */
int siem_escape_json(struct strbuf *out, const char *value);

#endif
