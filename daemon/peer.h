/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peer.h - the peer of a v3 record and the endpoint it reached (struct
 * brute_peer, record.h): as entry fields, as text for messages, and the
 * table of the peer bans seen, so that the end of a ban is reported with
 * how long it lasted and the unit of the service it protected.
 */
#ifndef BRUTE_PEER_H
#define BRUTE_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "entry.h"
#include "record.h"

/*
 * PEER ("10.0.0.2/32", "uid:4243"), PEER_UID (a user: unix, or v4's local
 * TCP peers), NETNS, TRANSPORT, then LADDR and LPORT (tcp) or LINO and
 * (v4) LPATH (unix).
 */
void peer_add_fields(struct entry *e, const struct brute_peer *p);
/* "uid:N": a local user, not a network address. */
bool peer_is_user(const struct brute_peer *p);

#define PEER_TEXT_MAX 256
/* "peer 10.0.0.2/32", "local user uid 4243" */
const char *peer_who(const struct brute_peer *p, char *buf, size_t len);
/*
 * "tcp 0.0.0.0:7777 in netns 4026531840", "tcp [::]:443 ...", "unix socket
 * inode 1150 ...", v4 "unix socket /run/php/php8.2-fpm.sock (inode 1150) ..."
 */
const char *peer_endpoint(const struct brute_peer *p, char *buf, size_t len);
/* The same peer at the same endpoint (v4: a Unix endpoint with a path is that path). */
bool peer_same(const struct brute_peer *a, const struct brute_peer *b);

/*
 * One peer ban seen (BRUTE_PEER_BAN), until its end (BRUTE_PEER_UNBAN),
 * keyed by the node= of its record and the peer at its endpoint: another
 * host's ban of the same peer at the same endpoint is another ban.
 */
struct peer_ban {
	char *node;		/* node= of its records, NULL: none */
	bool remote;		/* another host's (record_node_local()), when last made newest */
	struct brute_peer key;
	uint64_t ban_usec;	/* record time of the ban */
	uint64_t ban_s;
	uint64_t hierarchy;	/* the crashing hierarchy the ban record names */
	uint64_t faults;
	char *unit;		/* the attacked service's unit, when known */
	uint64_t last_ms;	/* the caller's clock at the ban */
	struct peer_ban *hnext, *prev, *next;	/* hash chain, oldest first (of its list) */
};

/*
 * The kernel's peer table holds table_size entries at most (65536): so many
 * are kept in all, whatever the number of nodes.
 */
#define PEER_BANS_MAX 65536

struct peer_bans;

struct peer_bans *peer_bans_new(void);
void peer_bans_free(struct peer_bans *t);
/* node: the record's node= (NULL or "": none) */
struct peer_ban *peer_bans_find(struct peer_bans *t, const char *node, const struct brute_peer *key);
/*
 * The ban of that peer at that endpoint on that node, made the newest (a
 * new ban of a peer whose earlier one ended unseen replaces it).  remote:
 * the record is another host's.  When PEER_BANS_MAX are kept, the oldest
 * ban of another host is forgotten; one of this host only for a ban of
 * this host: other hosts' bans never displace this host's (NULL then, the
 * new one is not kept).  NULL without memory.
 */
struct peer_ban *peer_bans_get(struct peer_bans *t, const char *node, bool remote,
			       const struct brute_peer *key, uint64_t now_ms);
int peer_ban_set_unit(struct peer_ban *b, const char *unit);
void peer_bans_drop(struct peer_bans *t, struct peer_ban *b);
/* Forget the bans whose end is more than idle_ms past (their end was not seen). */
void peer_bans_expire(struct peer_bans *t, uint64_t now_ms, uint64_t idle_ms);
size_t peer_bans_count(const struct peer_bans *t);

#endif
