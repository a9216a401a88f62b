/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c - extract a struct brute_record from the current libauparse
 * record.  libauparse does the parsing (fields, hex decoding of comm/exe);
 * this file only maps field names to struct members and validates what
 * the format contract requires.
 */
#include "record.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record4.h"
#include "util.h"

static const char *const boundary_names[] = { "setid", "fcaps", "cred", "network", "unix", "local" };

unsigned boundary_from_name(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(boundary_names); i++)
		if (strcmp(name, boundary_names[i]) == 0)
			return 1u << i;
	return 0;
}

int boundaries_from_list(const char *list, unsigned *mask)
{
	char buf[128], *save = NULL, *tok;
	unsigned m = 0;

	if (strcmp(list, "none") == 0 || !*list) {
		*mask = 0;
		return 0;
	}
	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned b = boundary_from_name(tok);

		if (!b)
			return -EINVAL;
		m |= b;
	}
	*mask = m;
	return 0;
}

/* "setid,network", or "none"; only whole names, as many as fit in len */
void boundaries_to_list(unsigned mask, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	for (unsigned i = 0; i < ARRAY_SIZE(boundary_names); i++) {
		size_t n = strlen(boundary_names[i]);

		if (!(mask & (1u << i)))
			continue;
		if (o + (o ? 1 : 0) + n >= len)
			break;
		if (o)
			buf[o++] = ',';
		memcpy(buf + o, boundary_names[i], n);
		o += n;
	}
	if (!o && len > 4) {
		memcpy(buf, "none", 4);
		o = 4;
	}
	buf[o] = '\0';
}

/* Names as the records spell them, indexed by the enums of record.h. */
static const char *const attack_names[] = { NULL, "fork", "exec", "peer", "backstop" };
static const char *const action_names[] = { NULL, "kill", "audit", "ban", "none", "peer_ban",
					     "restart" };
static const char *const source_names[] = { NULL, "peer", "user", "unknown" };
static const char *const scope_names[] = { NULL, "target", "overflow", "any" };
static const char *const proto_names[] = { NULL, "tcp", "unix" };

/* The index of v in names[1..], or 0. */
static int name_index(const char *const *names, size_t n, const char *v)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(names[i], v) == 0)
			return (int)i;
	return 0;
}

static const char *name_of(const char *const *names, size_t n, int i)
{
	return i > 0 && (size_t)i < n ? names[i] : NULL;
}

const char *attack_name(int attack)
{
	const char *n = name_of(attack_names, ARRAY_SIZE(attack_names), attack);

	return n ? n : "unknown";
}

const char *speed_name(int speed)
{
	return speed == SPEED_FAST ? "fast" : speed == SPEED_SLOW ? "slow" : "unknown";
}

const char *action_name(int action)
{
	const char *n = name_of(action_names, ARRAY_SIZE(action_names), action);

	return n ? n : "unknown";
}

const char *source_name(int source)
{
	return name_of(source_names, ARRAY_SIZE(source_names), source);
}

const char *scope_name(int scope)
{
	return name_of(scope_names, ARRAY_SIZE(scope_names), scope);
}

const char *proto_name(int proto)
{
	const char *n = name_of(proto_names, ARRAY_SIZE(proto_names), proto);

	return n ? n : "unknown";
}

/* Which fields a record type must carry (bitmask of field ids below). */
enum field_id {
	F_HIERARCHY, F_STATUS, F_EXEC_PARENT, F_FAULTS, F_ATTACKS, F_KILLED,
	F_BOUNDARIES, F_BOUNDARY, F_OLD_UID, F_OLD_EUID, F_NEW_UID, F_NEW_EUID, F_ORIGIN, F_SIG, F_CODE,
	F_PERIOD_MS, F_EMA_MS, F_ATTACK, F_SPEED, F_THRESHOLD_MS, F_MAX_FAULTS,
	F_MODE, F_ACTION, F_OPID, F_OUID, F_OAUID, F_OSES, F_OCOMM, F_OEXE,
	F_TUNABLE, F_OLD, F_NEW,
	F_ATTACKER_UID, F_TARGET_DEV, F_TARGET_INO, F_TARGET_NAME, F_BAN_S, F_REASON,
	F_DENIED, F_UNREPORTED,
	F_SOURCE, F_SCOPE, F_CHARGED, F_OWNER_UID, F_PEER, F_PEER_UID, F_NETNS, F_PROTO,
	F_LADDR, F_LPORT, F_LINO, F_PEER_FAULTS, F_REFUSED, F_RECORDS_DROPPED,
	F_PID, F_PPID, F_UID, F_EUID, F_GID, F_EGID, F_AUID, F_SES, F_COMM, F_EXE,
	_F_MAX,
};

static const struct {
	const char *name;
	enum field_id id;
} field_table[] = {
	{ "brute_hierarchy", F_HIERARCHY }, { "status", F_STATUS },
	{ "exec_parent", F_EXEC_PARENT }, { "faults", F_FAULTS },
	{ "attacks", F_ATTACKS }, { "killed", F_KILLED },
	{ "boundaries", F_BOUNDARIES }, { "boundary", F_BOUNDARY },
	{ "old_uid", F_OLD_UID }, { "old_euid", F_OLD_EUID },
	{ "new_uid", F_NEW_UID }, { "new_euid", F_NEW_EUID },
	{ "origin", F_ORIGIN }, { "sig", F_SIG }, { "si_code", F_CODE },
	{ "period_ms", F_PERIOD_MS }, { "ema_ms", F_EMA_MS },
	{ "attack", F_ATTACK }, { "speed", F_SPEED },
	{ "threshold_ms", F_THRESHOLD_MS }, { "max_faults", F_MAX_FAULTS },
	{ "brute_mode", F_MODE }, { "mitigation", F_ACTION },
	{ "opid", F_OPID }, { "ouid", F_OUID }, { "oauid", F_OAUID },
	{ "oses", F_OSES }, { "ocomm", F_OCOMM }, { "oexe", F_OEXE },
	{ "tunable", F_TUNABLE }, { "old", F_OLD }, { "new", F_NEW },
	{ "attacker_uid", F_ATTACKER_UID }, { "target_dev", F_TARGET_DEV },
	{ "target_ino", F_TARGET_INO }, { "target_name", F_TARGET_NAME },
	{ "ban_s", F_BAN_S }, { "reason", F_REASON }, { "denied", F_DENIED },
	{ "unreported", F_UNREPORTED },
	{ "source", F_SOURCE }, { "scope", F_SCOPE }, { "charged", F_CHARGED },
	{ "owner_uid", F_OWNER_UID }, { "peer", F_PEER }, { "peer_uid", F_PEER_UID },
	{ "netns", F_NETNS }, { "transport", F_PROTO }, { "laddr", F_LADDR }, { "lport", F_LPORT },
	{ "lino", F_LINO }, { "peer_faults", F_PEER_FAULTS }, { "refused", F_REFUSED },
	{ "records_dropped", F_RECORDS_DROPPED },
	{ "pid", F_PID }, { "ppid", F_PPID }, { "uid", F_UID },
	{ "euid", F_EUID }, { "gid", F_GID }, { "egid", F_EGID },
	{ "auid", F_AUID }, { "ses", F_SES }, { "comm", F_COMM }, { "exe", F_EXE },
};

#define BIT(x) (1ull << (x))
#define SUBJ_REQUIRED (BIT(F_PID) | BIT(F_UID) | BIT(F_AUID) | BIT(F_COMM) | BIT(F_EXE))
#define TARGET_FIELDS (BIT(F_ATTACKER_UID) | BIT(F_TARGET_DEV) | BIT(F_TARGET_INO))
/* PEER ENDPOINT: always these, then LADDR and LPORT (tcp) or PEER_UID and LINO (unix) */
#define PEER_FIELDS (BIT(F_PEER) | BIT(F_NETNS) | BIT(F_PROTO))
#define PEER_TCP_FIELDS (BIT(F_LADDR) | BIT(F_LPORT))
#define PEER_UNIX_FIELDS (BIT(F_PEER_UID) | BIT(F_LINO))
#define PEER_ANY_FIELDS (PEER_FIELDS | PEER_TCP_FIELDS | PEER_UNIX_FIELDS)

_Static_assert(_F_MAX <= 64, "field ids are bits of a uint64_t");

static int copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return -EBADMSG;
	memcpy(dst, src, n + 1);
	return 0;
}

/* "MAJ:MIN", decimal, as the kernel prints a dev_t */
static int parse_dev(const char *v, uint32_t *major, uint32_t *minor)
{
	const char *colon = strchr(v, ':');
	char buf[16];

	if (!colon || (size_t)(colon - v) >= sizeof(buf) || colon == v)
		return -EBADMSG;
	memcpy(buf, v, (size_t)(colon - v));
	buf[colon - v] = '\0';
	if (parse_u32(buf, major) < 0 || parse_u32(colon + 1, minor) < 0)
		return -EBADMSG;
	return 0;
}

/* An IPv4 or IPv6 address in its text form (inet_pton: no hand-made address parser). */
static int parse_addr(const char *v, int *family)
{
	unsigned char buf[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, v, buf) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, v, buf) == 1)
		*family = AF_INET6;
	else
		return -EBADMSG;
	return 0;
}

/*
 * laddr=: the listener's address.  libauparse strips one trailing ':' from
 * every value (auparse/ellist.c, "Remove trailing punctuation"), so the
 * kernel's "::" (a listener on any IPv6 address) arrives as ":", and
 * "fe80::" as "fe80:".  An IPv6 address in text never ends in a single
 * ':', so such a value gets its ':' back; the result must still be an
 * address.
 */
static int parse_laddr(const char *v, char *dst, size_t len)
{
	char buf[BRUTE_ADDR_MAX];
	size_t n = strlen(v);
	int family;

	if (parse_addr(v, &family) == 0)
		return copy_str(dst, len, v);
	if (n == 0 || v[n - 1] != ':' || n + 1 >= sizeof(buf))
		return -EBADMSG;
	memcpy(buf, v, n);
	buf[n] = ':';
	buf[n + 1] = '\0';
	if (parse_addr(buf, &family) < 0 || family != AF_INET6)
		return -EBADMSG;
	return copy_str(dst, len, buf);
}

/*
 * peer=: "ADDR/LEN" (an IPv4 address or prefix, /1../32; IPv6, /1../128) or
 * "uid:N" (a local user, at the other end of a Unix stream connection).
 */
static int parse_peer(const char *v, struct brute_peer *p)
{
	char addr[BRUTE_ADDR_MAX];
	const char *slash = strchr(v, '/');
	uint32_t len;
	int family;

	if (strncmp(v, "uid:", 4) == 0) {
		/* the user ID itself comes from peer_uid=, checked to be the same */
		if (parse_u32(v + 4, &len) < 0)
			return -EBADMSG;
	} else {
		if (!slash || (size_t)(slash - v) >= sizeof(addr) || parse_u32(slash + 1, &len) < 0)
			return -EBADMSG;
		memcpy(addr, v, (size_t)(slash - v));
		addr[slash - v] = '\0';
		/* /0 is every address: never a peer the kernel names */
		if (parse_addr(addr, &family) < 0 || len < 1 || len > (family == AF_INET ? 32u : 128u))
			return -EBADMSG;
	}
	return copy_str(p->addr, sizeof(p->addr), v);
}

/* a short lower-case token: "expired", "lifted" (and future reasons) */
static int parse_token(const char *v, char *dst, size_t len)
{
	size_t n = strlen(v);

	if (n == 0 || n >= len)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || v[i] == '_' || v[i] == '-'))
			return -EBADMSG;
	memcpy(dst, v, n + 1);
	return 0;
}

/*
 * Field name -> id: an open-addressing table built on first use (the
 * linear strcmp scan was 42% of the time on a stream of brute records).
 */
#define FIELD_SLOTS 256

static size_t field_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	return h & (FIELD_SLOTS - 1);
}

static int lookup_field(const char *name)
{
	static signed char slots[FIELD_SLOTS];	/* index into field_table + 1, 0: empty */
	static bool built;
	size_t k;

	_Static_assert(ARRAY_SIZE(field_table) < FIELD_SLOTS / 2, "field table too full");
	if (!built) {
		for (unsigned i = 0; i < ARRAY_SIZE(field_table); i++) {
			for (k = field_hash(field_table[i].name); slots[k]; k = (k + 1) & (FIELD_SLOTS - 1))
				;
			slots[k] = (signed char)(i + 1);
		}
		built = true;
	}
	for (k = field_hash(name); slots[k]; k = (k + 1) & (FIELD_SLOTS - 1))
		if (strcmp(field_table[slots[k] - 1].name, name) == 0)
			return (int)field_table[slots[k] - 1].id;
	return -1;
}

/*
 * The kernel writes each record type's fields in the same order: the name
 * at the same place in the previous record of that type is compared first
 * (one strcmp), the table searched only when it differs (half of the time
 * of the lookup went to hashing names).  An unknown name is remembered too
 * (id -1), so that extra fields (suid, tty...) cost one compare as well.
 */
#define PREDICT_FIELDS 48
#define PREDICT_NAME 24

static int lookup_field_at(int type, unsigned pos, const char *name)
{
	static struct {
		char name[PREDICT_NAME];
		int id;
	} pred[BRUTE_TYPE_LAST - BRUTE_TYPE_FIRST + 1][PREDICT_FIELDS];
	size_t n;
	int id;

	if (pos >= PREDICT_FIELDS)
		return lookup_field(name);
	if (pred[type - BRUTE_TYPE_FIRST][pos].name[0] &&
	    strcmp(pred[type - BRUTE_TYPE_FIRST][pos].name, name) == 0)
		return pred[type - BRUTE_TYPE_FIRST][pos].id;
	id = lookup_field(name);
	n = strlen(name);
	if (n < PREDICT_NAME) {
		memcpy(pred[type - BRUTE_TYPE_FIRST][pos].name, name, n + 1);
		pred[type - BRUTE_TYPE_FIRST][pos].id = id;
	}
	return id;
}

/*
 * auparse decodes comm/exe/ocomm (it knows them as escaped strings).  A
 * quoted value is one it would only strip of its quotes: that is done here,
 * without auparse_interpret_field()'s type lookup and copy (4% of the time
 * on a stream of brute records).  A quote inside the value (which the kernel
 * never writes) still goes to auparse, so the result stays its own.
 */
static int copy_interpreted(auparse_state_t *au, const char *raw, char *dst, size_t len)
{
	size_t n = strlen(raw);
	const char *v;

	/* a record cut inside a quoted value: comm="abc */
	if (n && raw[0] == '"' && (n < 2 || raw[n - 1] != '"'))
		return -EBADMSG;
	if (n && raw[0] == '"' && !memchr(raw + 1, '"', n - 2)) {
		if (n - 2 >= len)
			return -EBADMSG;
		memcpy(dst, raw + 1, n - 2);
		dst[n - 2] = '\0';
		return 0;
	}
	v = auparse_interpret_field(au);

	if (!v)
		return -EBADMSG;
	return copy_str(dst, len, v);
}

static int parse_field(auparse_state_t *au, struct brute_record *r, enum field_id id, const char *v)
{
	uint64_t u;
	uint32_t u32;

	switch (id) {
	case F_STATUS:
		if (strcmp(v, "allocated") == 0)
			r->status = HIER_ALLOCATED;
		else if (strcmp(v, "deallocated") == 0)
			r->status = HIER_DEALLOCATED;
		else
			return -EBADMSG;
		return 0;
	case F_BOUNDARIES:
		return boundaries_from_list(v, &r->boundaries) < 0 ? -EBADMSG : 0;
	case F_BOUNDARY:
		r->boundary = boundary_from_name(v);
		return r->boundary ? 0 : -EBADMSG;
	case F_ATTACK:
		r->attack = name_index(attack_names, ARRAY_SIZE(attack_names), v);
		return r->attack ? 0 : -EBADMSG;
	case F_SPEED:
		r->speed = strcmp(v, "fast") == 0 ? SPEED_FAST :
			   strcmp(v, "slow") == 0 ? SPEED_SLOW : 0;
		return r->speed ? 0 : -EBADMSG;
	case F_ACTION:
		r->action = name_index(action_names, ARRAY_SIZE(action_names), v);
		return r->action ? 0 : -EBADMSG;
	case F_SOURCE:
		r->source = name_index(source_names, ARRAY_SIZE(source_names), v);
		return r->source ? 0 : -EBADMSG;
	case F_SCOPE:
		r->scope = name_index(scope_names, ARRAY_SIZE(scope_names), v);
		return r->scope ? 0 : -EBADMSG;
	case F_PROTO:
		r->peer.proto = name_index(proto_names, ARRAY_SIZE(proto_names), v);
		return r->peer.proto ? 0 : -EBADMSG;
	case F_CHARGED:
		/* the kernel only ever writes charged=no */
		r->uncharged = strcmp(v, "no") == 0;
		return r->uncharged ? 0 : -EBADMSG;
	case F_PEER:
		return parse_peer(v, &r->peer);
	case F_LADDR:
		return parse_laddr(v, r->peer.laddr, sizeof(r->peer.laddr));
	case F_COMM:
		return copy_interpreted(au, v, r->subj.comm, sizeof(r->subj.comm));
	case F_EXE:
		return copy_interpreted(au, v, r->subj.exe, sizeof(r->subj.exe));
	case F_OCOMM:
		return copy_interpreted(au, v, r->ocomm, sizeof(r->ocomm));
	case F_OEXE:
		/* not in libauparse's field type table: decode here */
		return audit_untrusted_decode(v, r->oexe, sizeof(r->oexe)) < 0 ? -EBADMSG : 0;
	case F_TUNABLE:
		return copy_str(r->tunable, sizeof(r->tunable), v);
	case F_TARGET_NAME:
		/* untrusted, quoted or hex like oexe; libauparse does not know it */
		return audit_untrusted_decode(v, r->target_name, sizeof(r->target_name)) < 0 ?
		       -EBADMSG : 0;
	case F_TARGET_DEV:
		return parse_dev(v, &r->target_major, &r->target_minor);
	case F_REASON:
		return parse_token(v, r->reason, sizeof(r->reason));
	case F_CODE: {
		/* si_code is signed: SI_TKILL (-6) for glibc's abort() */
		char *end;
		long l;

		errno = 0;
		l = strtol(v, &end, 10);
		if (errno || end == v || *end || l < INT_MIN || l > INT_MAX)
			return -EBADMSG;
		r->code = (int)l;
		return 0;
	}
	default:
		break;
	}

	/* everything else is an unsigned decimal */
	if (parse_u64(v, &u) < 0)
		return -EBADMSG;
	u32 = (uint32_t)u;
	switch (id) {
	case F_HIERARCHY:	r->hierarchy = u; break;
	case F_EXEC_PARENT:	r->exec_parent = u; break;
	case F_FAULTS:		r->faults = u; break;
	case F_ATTACKS:		r->attacks = u; break;
	case F_KILLED:		r->killed = u; break;
	case F_ORIGIN:		r->origin = u; break;
	case F_PERIOD_MS:	r->period_ms = u; break;
	case F_EMA_MS:		r->ema_ms = u; break;
	case F_THRESHOLD_MS:	r->threshold_ms = u; break;
	case F_MAX_FAULTS:	r->max_faults = u; break;
	case F_OLD:		r->old_value = u; break;
	case F_NEW:		r->new_value = u; break;
	case F_TARGET_INO:	r->target_ino = u; break;
	case F_BAN_S:		r->ban_s = u; break;
	case F_DENIED:		r->denied = u; break;
	case F_UNREPORTED:	r->unreported = u; break;
	case F_NETNS:		r->peer.netns = u; break;
	case F_LINO:		r->peer.lino = u; break;
	case F_PEER_FAULTS:	r->peer_faults = u; break;
	case F_REFUSED:		r->refused = u; break;
	case F_RECORDS_DROPPED:	r->records_dropped = u; break;
	case F_LPORT:
		if (u > 65535)
			return -EBADMSG;
		r->peer.lport = (uint32_t)u;
		break;
	case F_SIG:
	case F_MODE:
		if (u > 1024)
			return -EBADMSG;
		if (id == F_SIG)
			r->sig = (int)u;
		else
			r->mode = (int)u;
		break;
	default:
		/* 32-bit ids: pid, uids, sessions */
		if (u > UINT32_MAX)
			return -EBADMSG;
		switch (id) {
		case F_OLD_UID:	r->old_uid = u32; break;
		case F_OLD_EUID: r->old_euid = u32; break;
		case F_NEW_UID:	r->new_uid = u32; break;
		case F_NEW_EUID: r->new_euid = u32; break;
		case F_OPID:	r->opid = u32; break;
		case F_OUID:	r->ouid = u32; break;
		case F_OAUID:	r->oauid = u32; break;
		case F_OSES:	r->oses = u32; break;
		case F_ATTACKER_UID: r->attacker_uid = u32; break;
		case F_OWNER_UID: r->owner_uid = u32; break;
		case F_PEER_UID: r->peer.uid = u32; break;
		case F_PID:	r->subj.pid = u32; break;
		case F_PPID:	r->subj.ppid = u32; break;
		case F_UID:	r->subj.uid = u32; break;
		case F_EUID:	r->subj.euid = u32; break;
		case F_GID:	r->subj.gid = u32; break;
		case F_EGID:	r->subj.egid = u32; break;
		case F_AUID:	r->subj.auid = u32; break;
		case F_SES:	r->subj.ses = u32; break;
		default:	break;
		}
	}
	return 0;
}

/*
 * memset(r) without the three path-sized arrays (8 of its 9.5 KiB, once per
 * record): those only get an empty string.  Every string field is read up
 * to its NUL.
 */
static void record_reset(struct brute_record *r)
{
	static const struct { size_t off, len; } keep[] = {
		{ offsetof(struct brute_record, target_name), sizeof(r->target_name) },
		{ offsetof(struct brute_record, oexe), sizeof(r->oexe) },
		{ offsetof(struct brute_record, cgroup), sizeof(r->cgroup) },
		{ offsetof(struct brute_record, subj.exe), sizeof(r->subj.exe) },
	};
	char *p = (char *)r;
	size_t at = 0;

	_Static_assert(offsetof(struct brute_record, target_name) < offsetof(struct brute_record, oexe) &&
		       offsetof(struct brute_record, oexe) < offsetof(struct brute_record, cgroup) &&
		       offsetof(struct brute_record, cgroup) < offsetof(struct brute_record, subj.exe),
		       "keep[] is in member order");
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
		memset(p + at, 0, keep[i].off - at);
		p[keep[i].off] = '\0';
		at = keep[i].off + keep[i].len;
	}
	memset(p + at, 0, sizeof(*r) - at);
}

/*
 * The PEER ENDPOINT fields agree with each other: all of them or none,
 * "tcp" with an address peer and laddr/lport, "unix" with "uid:N" and the
 * same peer_uid and lino.  v4: a local TCP peer (loopback, the host's own
 * addresses) is "uid:N" with the same peer_uid at a tcp endpoint.
 */
static int peer_check(struct brute_peer *p, uint64_t seen)
{
	char uid[4 + U64_DEC_MAX];
	bool user = strncmp(p->addr, "uid:", 4) == 0;

	if ((seen & PEER_FIELDS) != PEER_FIELDS)
		return -EBADMSG;
	if (p->proto == PROTO_TCP) {
		if ((seen & PEER_TCP_FIELDS) != PEER_TCP_FIELDS || (seen & BIT(F_LINO)) ||
		    user != !!(seen & BIT(F_PEER_UID)))
			return -EBADMSG;
	} else {
		if ((seen & PEER_UNIX_FIELDS) != PEER_UNIX_FIELDS || (seen & PEER_TCP_FIELDS) || !user)
			return -EBADMSG;
	}
	if (user) {
		snprintf(uid, sizeof(uid), "uid:%u", p->uid);
		if (strcmp(p->addr, uid) != 0)
			return -EBADMSG;
	}
	p->present = true;
	return 0;
}

/* Why the last record_from_auparse() failed, for the log. */
static char last_error[96];

const char *record_last_error(void)
{
	return last_error[0] ? last_error : "invalid";
}

static int refuse(const char *what, const char *field)
{
	snprintf(last_error, sizeof(last_error), "%s%s%s", what, field ? " " : "", field ? field : "");
	return -EBADMSG;
}

/* The name of the first field in missing. */
static const char *first_missing(uint64_t missing)
{
	for (unsigned i = 0; i < ARRAY_SIZE(field_table); i++)
		if (missing & BIT(field_table[i].id))
			return field_table[i].name;
	return "?";
}

int record_from_auparse(auparse_state_t *au, struct brute_record *r)
{
	const au_event_t *ts;
	uint64_t seen = 0, need;
	unsigned seen4 = 0;
	int type = auparse_get_type(au);
	unsigned pos = 0;

	if (!brute_type_known(type))
		return -EOPNOTSUPP;

	record_reset(r);
	r->type = type;
	{
		/* an aggregator's record of another host: kept, never taken for this one's */
		char *node = (char *)auparse_get_node(au);
		int bad = node && (!node[0] || copy_str(r->node, sizeof(r->node), node) < 0);

		free(node);
		if (bad)
			return refuse("an invalid or too long value of", "node");
	}
	ts = auparse_get_timestamp(au);
	if (ts) {
		/* a negative or absurd audit time: not an RFC 3339 year, keep it in range */
		r->sec = ts->sec < 0 ? 0 : (uint64_t)ts->sec > BRUTE_TIME_MAX ? BRUTE_TIME_MAX :
			 (uint64_t)ts->sec;
		r->milli = ts->milli;
		r->serial = ts->serial;
	}

	if (auparse_first_field(au) <= 0)
		return refuse("no fields", NULL);
	do {
		const char *name = auparse_get_field_name(au);
		const char *value = auparse_get_field_str(au);
		int id;

		if (!name || !value)
			return refuse("a field without a name or value", NULL);
		id = lookup_field_at(type, pos++, name);
		if (id < 0) {
			/* v4's, else an extra field (allowed: forward compatible) */
			if (record4_field(r, name, value, &seen4) < 0)
				return refuse("an invalid or too long value of", name);
			continue;
		}
		if (seen & BIT(id))
			return refuse("a second field", name);
		if (parse_field(au, r, (enum field_id)id, value) < 0)
			return refuse("an invalid or too long value of", name);
		seen |= BIT(id);
	} while (auparse_next_field(au) > 0);

	switch (type) {
	case BRUTE_TYPE_HIERARCHY:
		need = BIT(F_HIERARCHY) | BIT(F_STATUS);
		if ((seen & need) != need)
			return refuse("no field", first_missing(need & ~seen));
		if (r->status == HIER_ALLOCATED)
			need |= BIT(F_EXEC_PARENT) | SUBJ_REQUIRED;
		else
			need |= BIT(F_FAULTS) | BIT(F_ATTACKS) | BIT(F_KILLED) | BIT(F_BOUNDARIES);
		break;
	case BRUTE_TYPE_BOUNDARY:
		need = BIT(F_HIERARCHY) | BIT(F_BOUNDARY) | SUBJ_REQUIRED;
		break;
	case BRUTE_TYPE_CRASH:
		if (r->uncharged && r->source != SOURCE_PEER) {
			/* v3: a table charge that could not be made, without statistics */
			need = BIT(F_HIERARCHY) | BIT(F_ORIGIN) | TARGET_FIELDS | SUBJ_REQUIRED;
			break;
		}
		need = BIT(F_HIERARCHY) | BIT(F_ORIGIN) | BIT(F_SIG) | BIT(F_FAULTS) |
		       BIT(F_PERIOD_MS) | BIT(F_EMA_MS) | SUBJ_REQUIRED;
		/* "charged=no" instead of peer_faults: the peer table had no room for it */
		if (r->source == SOURCE_PEER)
			need |= PEER_FIELDS | (r->uncharged ? 0 : BIT(F_PEER_FAULTS));
		break;
	case BRUTE_TYPE_ATTACK:
		need = BIT(F_HIERARCHY) | BIT(F_ORIGIN) | BIT(F_ATTACK) | BIT(F_SPEED) |
		       BIT(F_FAULTS) | BIT(F_EMA_MS) | BIT(F_THRESHOLD_MS) |
		       BIT(F_MAX_FAULTS) | BIT(F_ACTION) | SUBJ_REQUIRED;
		if (r->attack == ATTACK_PEER)
			need |= PEER_FIELDS;
		break;
	case BRUTE_TYPE_KILL:
		/* v2: one summary record per response, "killed=N unreported=N", no opid */
		r->kill_summary = !(seen & BIT(F_OPID)) && (seen & BIT(F_KILLED));
		if (r->kill_summary) {
			need = BIT(F_HIERARCHY) | BIT(F_KILLED) | BIT(F_UNREPORTED);
			if (r->unreported > r->killed)
				return refuse("unreported= above killed=", NULL);
		} else {
			need = BIT(F_HIERARCHY) | BIT(F_OPID) | BIT(F_OUID) | BIT(F_OAUID) |
			       BIT(F_OCOMM) | BIT(F_OEXE);
		}
		break;
	case BRUTE_TYPE_CONFIG:
		/* v4 "tunable=trusted op=update added= removed= entries=" has no old=/new= */
		need = BIT(F_TUNABLE) | (r->trusted_update ? 0 : BIT(F_OLD) | BIT(F_NEW));
		break;
	case BRUTE_TYPE_BAN:
		need = TARGET_FIELDS | BIT(F_TARGET_NAME) | BIT(F_BAN_S) | BIT(F_HIERARCHY);
		break;
	case BRUTE_TYPE_UNBAN:
		/* the subject (who lifted it) only when reason=lifted */
		need = TARGET_FIELDS | BIT(F_TARGET_NAME) | BIT(F_REASON) | BIT(F_DENIED);
		break;
	case BRUTE_TYPE_PEER_BAN:
		need = BIT(F_HIERARCHY) | PEER_FIELDS | BIT(F_FAULTS) | BIT(F_BAN_S);
		break;
	case BRUTE_TYPE_PEER_UNBAN:
		/* the subject (who lifted it) only when reason=lifted */
		need = PEER_FIELDS | BIT(F_REASON) | BIT(F_REFUSED);
		break;
	default:
		return -EOPNOTSUPP;
	}
	if ((seen & need) != need)
		return refuse("no field", first_missing(need & ~seen));
	/*
	 * A target is the three fields or none: a partial key identifies
	 * nothing.  attacker_uid alone names a user (v3 setid/fcaps boundaries).
	 */
	if ((seen & (BIT(F_TARGET_DEV) | BIT(F_TARGET_INO))) &&
	    (seen & TARGET_FIELDS) != TARGET_FIELDS)
		return refuse("a partial target: no field", first_missing(TARGET_FIELDS & ~seen));
	r->has_target = (seen & TARGET_FIELDS) == TARGET_FIELDS;
	r->has_attacker = seen & BIT(F_ATTACKER_UID);
	r->has_owner = seen & BIT(F_OWNER_UID);
	r->has_records_dropped = seen & BIT(F_RECORDS_DROPPED);
	if ((seen & PEER_ANY_FIELDS) && peer_check(&r->peer, seen) < 0)
		return refuse("peer fields that do not agree (peer, transport, laddr/lport, peer_uid/lino)", NULL);
	if (record4_check(r, seen4) < 0)
		return refuse("response v4 fields that do not agree (input, relay, mitigation)", NULL);
	r->subj.present = (seen & SUBJ_REQUIRED) == SUBJ_REQUIRED;
	r->has_new_ids = (seen & (BIT(F_NEW_UID) | BIT(F_NEW_EUID))) ==
			 (BIT(F_NEW_UID) | BIT(F_NEW_EUID));
	if (type != BRUTE_TYPE_CONFIG && type != BRUTE_TYPE_UNBAN &&
	    type != BRUTE_TYPE_PEER_UNBAN && r->hierarchy == 0)
		return refuse("brute_hierarchy=0", NULL);
	last_error[0] = '\0';
	return 0;
}
