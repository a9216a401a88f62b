/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - one brute audit record (types 1710-1719), as extracted from
 * the current libauparse record.  See docs/audit-records.md.
 */
#ifndef BRUTE_RECORD_H
#define BRUTE_RECORD_H

#include <auparse.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BRUTE_TYPE_HIERARCHY	1710
#define BRUTE_TYPE_BOUNDARY	1711
#define BRUTE_TYPE_CRASH	1712
#define BRUTE_TYPE_ATTACK	1713
#define BRUTE_TYPE_KILL		1714
#define BRUTE_TYPE_CONFIG	1715
#define BRUTE_TYPE_BAN		1716
#define BRUTE_TYPE_UNBAN	1717
#define BRUTE_TYPE_PEER_BAN	1718
#define BRUTE_TYPE_PEER_UNBAN	1719
#define BRUTE_TYPE_FIRST	BRUTE_TYPE_HIERARCHY
#define BRUTE_TYPE_LAST		BRUTE_TYPE_PEER_UNBAN

static inline bool brute_type_known(int type)
{
	return type >= BRUTE_TYPE_FIRST && type <= BRUTE_TYPE_LAST;
}

/* Boundary kinds, as bits. */
enum {
	BOUNDARY_SETID   = 1u << 0,
	BOUNDARY_FCAPS   = 1u << 1,
	BOUNDARY_CRED    = 1u << 2,
	BOUNDARY_NETWORK = 1u << 3,
	BOUNDARY_UNIX    = 1u << 4,
	BOUNDARY_LOCAL   = 1u << 5,	/* v4: TCP/MPTCP from a process of this host */
};
#define BOUNDARY_ALL (BOUNDARY_SETID | BOUNDARY_FCAPS | BOUNDARY_CRED | BOUNDARY_NETWORK | \
		      BOUNDARY_UNIX | BOUNDARY_LOCAL)

unsigned boundary_from_name(const char *name);	/* 0 if unknown */
/* "setid,network" or "none"; parses the deallocated record's list. */
int boundaries_from_list(const char *list, unsigned *mask);
void boundaries_to_list(unsigned mask, char *buf, size_t len);

/* 9999-12-31T23:59:59Z: record times are clamped to 0..this */
#define BRUTE_TIME_MAX 253402300799ull

#define BRUTE_COMM_MAX 64
/* A path as audit_log_d_path() writes it: d_path() in PATH_MAX + 11 bytes, room for a
 * 4095-byte path and " (deleted)" (an executable removed since), its NUL included */
#define BRUTE_PATH_MAX (4096 + 11)
#define BRUTE_NAME_MAX 64

struct brute_subject {
	bool present;
	uint32_t pid, ppid, uid, euid, gid, egid, auid, ses;
	char comm[BRUTE_COMM_MAX];
	char exe[BRUTE_PATH_MAX];
};

enum { HIER_ALLOCATED = 1, HIER_DEALLOCATED = 2 };
enum { ATTACK_FORK = 1, ATTACK_EXEC = 2, ATTACK_PEER = 3, ATTACK_BACKSTOP = 4 };
enum { SPEED_FAST = 1, SPEED_SLOW = 2 };
enum { ACTION_KILL = 1, ACTION_AUDIT = 2, ACTION_BAN = 3, ACTION_NONE = 4, ACTION_PEER_BAN = 5,
       ACTION_RESTART = 6 };
/* v3 source= of crashes and attacks; 0: the record has none (v1, v2) */
enum { SOURCE_PEER = 1, SOURCE_USER = 2, SOURCE_UNKNOWN = 3 };
/* v3 scope= of (user, target) charges, exec attacks and bans; 0: none (v2) */
enum { SCOPE_TARGET = 1, SCOPE_OVERFLOW = 2, SCOPE_ANY = 3 };
enum { PROTO_TCP = 1, PROTO_UNIX = 2 };
/* v4 input= of crashes (record4.h); 0: the record has none (v3 and before) */
enum { INPUT_NONE = 1, INPUT_PEER = 2, INPUT_RELAYED = 3, INPUT_AMBIGUOUS = 4, INPUT_TRUSTED = 5,
       _INPUT_MAX };

#define BRUTE_REASON_MAX 32
/* "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128" is 49 bytes with its NUL */
#define BRUTE_PEER_MAX 64
#define BRUTE_ADDR_MAX 48	/* INET6_ADDRSTRLEN and more */
/* v4 lpath=: a Unix socket's path (108 bytes of sun_path), "@name" or "?" */
#define BRUTE_LPATH_MAX 128

/*
 * v3 PEER ENDPOINT fields: who sent the input a crash followed, and the
 * endpoint it reached.  The kernel's text is kept as written (it is
 * canonical); record_from_auparse() checked that it is an address/prefix
 * or "uid:N", and that the fields agree with proto.
 */
struct brute_peer {
	bool present;
	int proto;			/* PROTO_TCP or PROTO_UNIX */
	char addr[BRUTE_PEER_MAX];	/* peer=: "10.0.0.2/32", "2001:db8::/64", "uid:4243" */
	uint32_t uid;			/* unix: peer_uid= */
	uint64_t netns;			/* inode number of the endpoint's network namespace */
	char laddr[BRUTE_ADDR_MAX];	/* tcp: the listener's address ("0.0.0.0", "::": any) */
	uint32_t lport;			/* tcp: its port */
	uint64_t lino;			/* unix: inode number of the listening socket */
	/*
	 * v4: a Unix endpoint's bound path (lpath=, "?" unnamed, "@..."
	 * abstract); with it the endpoint is the path (lino only informs).
	 * A local TCP peer (v4) is "uid:N" with peer_uid at a tcp endpoint.
	 */
	char lpath[BRUTE_LPATH_MAX];
};

/* node= of a record an auditd aggregator received from another host (<= 255 bytes) */
#define BRUTE_NODE_MAX 256

struct brute_record {
	int type;
	char node[BRUTE_NODE_MAX];	/* "[node=NAME ]type=...": NAME, "" when absent */
	uint64_t sec;
	unsigned milli;
	unsigned long serial;
	uint64_t hierarchy;

	/* 1710 */
	int status;
	uint64_t exec_parent;
	uint64_t faults;	/* 1710 dealloc, 1712, 1713 */
	uint64_t attacks, killed;
	unsigned boundaries;	/* 1710: kinds crossed so far (allocated) or ever (deallocated) */

	/* 1711: the IDs before and after the crossing (the subject still has the old ones) */
	unsigned boundary;
	uint32_t old_uid, old_euid;
	uint32_t new_uid, new_euid;
	bool has_new_ids;

	/*
	 * v2 (uid, target) table: 1712 table charge, 1713 exec attack, 1716,
	 * 1717.  has_target: attacker_uid, target_dev and target_ino present
	 * (a 1712 with them is a table charge, not a crash of the hierarchy).
	 * v3 setid/fcaps boundaries carry attacker_uid alone (has_attacker).
	 */
	bool has_target;
	uint32_t attacker_uid;
	uint32_t target_major, target_minor;
	uint64_t target_ino;
	char target_name[BRUTE_NAME_MAX * 4];	/* 1716, 1717: basename (<= 255 bytes) */
	uint64_t ban_s;				/* 1716, 1718 */
	char reason[BRUTE_REASON_MAX];		/* 1717, 1719: expired|lifted */
	uint64_t denied;			/* 1717 */

	/* 1712, 1713 */
	uint64_t origin;
	int sig, code;
	uint64_t period_ms, ema_ms;
	int attack, speed, action;
	uint64_t threshold_ms, max_faults;
	int mode;

	/* v3 */
	int source;		/* 1712, 1713: SOURCE_*, 0 if absent */
	int scope;		/* 1712 charge, 1713 exec, 1716, 1717: SCOPE_*, 0 if absent */
	bool uncharged;		/* 1712 "charged=no": the (user, target) or peer entry could not be charged */
	bool has_attacker;	/* attacker_uid= present (with or without a target) */
	bool has_owner;		/* 1711 setid/fcaps: owner_uid= present */
	uint32_t owner_uid;
	struct brute_peer peer;	/* 1712 source=peer, 1713 attack=peer, 1718, 1719 */
	uint64_t peer_faults;	/* 1712 source=peer: the peer's count at that endpoint */
	uint64_t refused;	/* 1719: what the peer ban refused */
	/* any record: the kernel's total of records it could not emit, on the first one after */
	bool has_records_dropped;
	uint64_t records_dropped;

	/* 1714: one killed process, or (kill_summary) the response's total */
	bool kill_summary;		/* v2 "killed=N unreported=N", no opid */
	uint64_t unreported;		/* kill_summary: killed without a record; killed= the total */
	uint32_t opid, ouid, oauid, oses;
	char ocomm[BRUTE_COMM_MAX];
	char oexe[BRUTE_PATH_MAX];

	/* 1715 */
	char tunable[BRUTE_NAME_MAX];
	uint64_t old_value, new_value;

	/*
	 * v4 (record4.h): 1712 input= and relay=uid:N; 1713 and the 1714
	 * summary cgroup= (the crashing task's cgroup v2 path, "" absent);
	 * 1715 tunable=trusted op=update added= removed= entries=.
	 */
	int input;			/* INPUT_*, 0 if absent */
	bool has_relay;
	uint32_t relay_uid;
	bool trusted_update;		/* 1715 tunable=trusted op=update */
	/*
	 * 1718/1719 layout=: the service image whose every endpoint the ban
	 * covers; 0 when absent.  A 1719 with it ends the layout's entry of a
	 * ban whose endpoint's entry ends with its own 1719 (the end told once).
	 */
	uint64_t layout;
	uint64_t trusted_added, trusted_removed, trusted_entries;
	char cgroup[BRUTE_PATH_MAX];

	struct brute_subject subj;
};

/*
 * Fill *r from the current record of au (auparse_first_record/
 * auparse_next_record positioned).  Only the fields of that record are
 * read: other records of the same event (SYSCALL, PATH, ...) are ignored.
 *
 * Returns 0, -EBADMSG if a required field is missing or invalid, or
 * -EOPNOTSUPP if the record is not a known brute type.
 *
 * v1 records (1710-1715 before the (uid, target) table), v2 ones and v3
 * ones (peers, 1718-1719; docs/audit-records.md) are all accepted.
 */
int record_from_auparse(auparse_state_t *au, struct brute_record *r);

/*
 * Is a record of this node (its node=, "" when absent) about this host?
 * Records without node= are; with one, only when local_node (the
 * configuration's local_node, "" when unset) names it.  The others come
 * from another host through an auditd aggregator: reported, never acted
 * upon here (no unit restarted, started, reloaded or killed, no peer
 * action), their pids and cgroups never looked up on this host.
 */
static inline bool record_node_local(const char *node, const char *local_node)
{
	return !node || !node[0] || (local_node && local_node[0] && !strcmp(node, local_node));
}

/*
 * The same node= (NULL and "" are both "none"): what the tables of records
 * are keyed by besides their ids (hierarchies, (uid, target) entries, peer
 * bans), since another host's ids, uids and peers are not this one's.
 */
static inline bool record_node_same(const char *a, const char *b)
{
	return (!a || !*a) ? (!b || !*b) : (b && !strcmp(a, b));
}
/* Why the last record_from_auparse() refused its record ("no field exe", ...). */
const char *record_last_error(void);

const char *attack_name(int attack);
const char *speed_name(int speed);
const char *action_name(int action);
const char *source_name(int source);	/* "peer", "user", "unknown"; NULL for 0 */
const char *scope_name(int scope);	/* "target", "overflow", "any"; NULL for 0 */
const char *proto_name(int proto);	/* "tcp", "unix" */
const char *input_name(int input);	/* "none", "peer", "relayed", "ambiguous", "trusted"; NULL for 0 */

#endif
