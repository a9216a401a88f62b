/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * entry.h - one operator-facing entry (boundary crossed, attack detected,
 * tasks killed, incident closed, ban, ban ended, peer ban, peer ban ended) as
 * produced by the correlator and rendered by the journal, SIEM and text outputs.
 *
 * Field names are stored without the BRUTE_ prefix, in upper case
 * ("HIERARCHY"); each output adds its own spelling.  A name may repeat
 * (KILLED_TASK, one per killed task).
 */
#ifndef BRUTE_ENTRY_H
#define BRUTE_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum entry_kind {
	ENTRY_BOUNDARY,
	ENTRY_ATTACK,
	ENTRY_KILL,
	ENTRY_CLOSED,
	ENTRY_BAN,		/* v2: execve() of a target banned for one attacker uid */
	ENTRY_UNBAN,		/* v2: that ban ended (expired or lifted by root) */
	ENTRY_PEER_BAN,		/* v3: a peer refused by the endpoint it attacked */
	ENTRY_PEER_UNBAN,	/* v3: that peer ban ended (expired or lifted by root) */
	_ENTRY_KIND_MAX,
};

/* The kinds forwarded to a SIEM unless siem_kinds says otherwise: all but boundary. */
#define ENTRY_KINDS_SIEM_DEFAULT \
	(1u << ENTRY_ATTACK | 1u << ENTRY_KILL | 1u << ENTRY_CLOSED | 1u << ENTRY_BAN | \
	 1u << ENTRY_UNBAN | 1u << ENTRY_PEER_BAN | 1u << ENTRY_PEER_UNBAN)

struct entry_field {
	const char *name;	/* both in the entry's string arena */
	const char *value;
	bool numeric;	/* value is a decimal number (JSON emits it unquoted) */
};

/*
 * An audit ID (auid, ses) the task never had: the kernel's (uint32_t)-1,
 * "4294967295" in the record.  Stored as a numeric field with an empty
 * value; each output spells it: "unset" (journal, RFC 5424, text), null
 * (JSON).
 */
#define AUDIT_ID_UNSET 4294967295u
static inline bool entry_field_unset(const struct entry_field *f)
{
	return f->numeric && !f->value[0];
}
/* The value as text: "unset" for an unset audit ID. */
static inline const char *entry_field_text(const struct entry_field *f)
{
	return entry_field_unset(f) ? "unset" : f->value;
}

struct entry {
	enum entry_kind kind;
	int priority;			/* syslog level, LOG_ALERT ... LOG_DEBUG */
	uint64_t timestamp_usec;	/* time of the audit record that triggered it */
	char *message;			/* human readable, one line */
	struct entry_field *fields;
	size_t n_fields;
	size_t cap_fields;
	struct entry_chunk *strings;	/* names and values: freed whole by entry_free() */
};

const char *entry_kind_name(enum entry_kind kind);	/* "attack" */
const char *entry_kind_msgid(enum entry_kind kind);	/* RFC 5424 MSGID "ATTACK" */
const char *entry_kind_message_id(enum entry_kind kind); /* journal 128-bit id, hex */
int entry_kind_from_name(const char *name);

void entry_init(struct entry *e, enum entry_kind kind, int priority, uint64_t ts_usec);
void entry_free(struct entry *e);
int entry_set_message(struct entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int entry_add(struct entry *e, const char *name, const char *value);
int entry_add_full(struct entry *e, const char *name, const char *value, bool numeric);
int entry_add_u64(struct entry *e, const char *name, uint64_t value);
/* The decimal value as a string field (64-bit IDs: JSON keeps them exact). */
int entry_add_id(struct entry *e, const char *name, uint64_t value);
/* auid/ses: AUDIT_ID_UNSET becomes an unset field (see entry_field_unset). */
int entry_add_audit_id(struct entry *e, const char *name, uint32_t value);
/* "1000" or "unset", for messages (buf of 12 bytes at least). */
const char *audit_id_str(uint32_t value, char *buf, size_t len);
int entry_addf(struct entry *e, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* First value of a field or NULL. */
const char *entry_get(const struct entry *e, const char *name);
size_t entry_count(const struct entry *e, const char *name);

/*
 * Neutral on-disk form used by the spool: a version byte, then
 * NUL-terminated "K=kind", "P=prio", "T=usec", "M=message" and
 * "F<name>=value" / "N<name>=value" items.  Values never contain NUL.
 */
int entry_serialize(const struct entry *e, struct strbuf *out);
int entry_deserialize(const char *data, size_t len, struct entry *e);

#endif
