/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Peers: who sent the input a crash followed, and their bans
 */

#ifndef _SECURITY_BRUTE_PEER_H
#define _SECURITY_BRUTE_PEER_H

#include <linux/in6.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "detect.h"
#include "table.h"

/**
 * struct brute_endpoint - Where a connection arrived: a service endpoint
 * @net: The cookie of the network namespace (never reused).
 * @netns: The inode number of the network namespace, for the operator.
 * @family: AF_INET or AF_INET6 (a TCP listener), or AF_UNIX (a Unix stream
 *          or seqpacket listener).
 * @port: The TCP port the listener is bound to (host order); 0 for Unix.
 * @addr: The address the TCP listener is bound to (maybe the wildcard), or
 *        the inode number of the Unix listener's socket (as
 *        /proc/net/unix and ss(8) show it).
 * @owner: With @owned, the user who created the outermost user namespace
 *         that holds the network namespace.
 * @userns: With @owned and a root @owner, the inode number of that user
 *          namespace (a container that root made); else 0.
 * @owned: The network namespace belongs to a user namespace other than the
 *         initial one: a user made it, without privileges on the host.
 */
struct brute_endpoint {
	u64 net;
	u32 netns;
	u16 family;
	u16 port;
	union {
		__be32 v4;
		struct in6_addr v6;
		u64 ino;
	} addr;
	kuid_t owner;
	u32 userns;
	bool owned;
};

/**
 * struct brute_peer - Who sent input to an endpoint
 * @family: AF_INET or AF_INET6 (an address), AF_UNIX (a local user).
 * @prefix: In a table key, the length of the address prefix that the
 *          entry stands for; 0 for a user, and in a raw input.
 * @addr: The address (IPv4-mapped IPv6 addresses are IPv4 ones), or the
 *        user: the kernel user ID that answers for the connecting task.
 */
struct brute_peer {
	u16 family;
	u16 prefix;
	union {
		__be32 v4;
		struct in6_addr v6;
		kuid_t uid;
	} addr;
};

/**
 * struct brute_input - The last input a task read from a peer
 * @cookie: The socket cookie of the connection, or 0 if the task read none
 *          since its last execve().
 * @endpoint: The endpoint the connection arrived at.
 * @peer: Who is at the other end.
 *
 * Every field, padding included, is zeroed before it is filled: keys are
 * compared and hashed as bytes.
 */
struct brute_input {
	u64 cookie;
	struct brute_endpoint endpoint;
	struct brute_peer peer;
};

/**
 * struct brute_peer_key - The key of an entry of the peer table
 * @endpoint: The endpoint.
 * @peer: The peer, its address masked to @peer.prefix bits.
 */
struct brute_peer_key {
	struct brute_endpoint endpoint;
	struct brute_peer peer;
};

/**
 * struct brute_peer_charge - The outcome of a peer charge
 * @charged: The crash was counted (false: no memory, or a table full of
 *           bans).
 * @verdict: A new verdict on the peer, or BRUTE_VERDICT_NONE.
 * @banned: The verdict banned the peer from the endpoint.
 * @escalated: Crashes from the enclosing prefix banned the whole prefix.
 * @key: The peer's entry.
 * @prefix: The enclosing prefix's entry (@prefix.peer.prefix is 0 when
 *          there is none: a Unix peer, or no wider prefix).
 * @stats: The peer's statistics, before a verdict restarted them.
 * @prefix_faults: Crashes counted for the enclosing prefix.
 * @period_ns: The period this crash added.
 */
struct brute_peer_charge {
	bool charged;
	enum brute_verdict verdict;
	bool banned;
	bool escalated;
	struct brute_peer_key key;
	struct brute_peer_key prefix;
	struct brute_stats stats;
	u32 prefix_faults;
	u64 period_ns;
};

/* Room for what brute_peer_key_format() writes. */
#define BRUTE_PEER_KEY_LEN 192

/**
 * struct brute_peers - The peer table
 * @table: Its entries: those of peers at endpoints, and one per share of
 *         the table that counts the entries in the share (its key's peer
 *         family is AF_UNSPEC).  An endpoint of the host has a share of its
 *         own; the endpoints in the network namespaces of one user have one
 *         share in all (those of a container root made, one per container).
 * @shares: The number of share entries in @table.
 */
struct brute_peers {
	struct brute_table table;
	unsigned int shares;
};

extern struct brute_peers brute_peers;

/*
 * Enabled while the peer table of the running system holds a ban: the
 * paths a peer ban guards (connection requests, packets, reads) test it
 * and cost nothing more while no peer is banned.
 */
DECLARE_STATIC_KEY_FALSE(brute_peer_bans);

void brute_peers_init(struct brute_peers *peers, struct delayed_work *gc);
unsigned int brute_peers_share(const struct brute_params *params);
unsigned int brute_peers_count(struct brute_peers *peers);
void brute_peers_charge(struct brute_peers *peers,
			const struct brute_input *input, u64 now, u64 ban_ns,
			const struct brute_params *params,
			struct brute_peer_charge *charge);
bool brute_peers_refused(struct brute_peers *peers,
			 const struct brute_endpoint *endpoint,
			 const struct brute_peer *peer, u64 now);
int brute_peers_lift(struct brute_peers *peers,
		     const struct brute_peer *peer, bool flush);
void brute_peers_show(struct brute_peers *peers, struct seq_file *m, u64 now);
void brute_peer_key_format(char *buf, size_t len,
			   const struct brute_peer_key *key);
void brute_peer_key_set(struct brute_peer_key *key,
			const struct brute_endpoint *endpoint,
			const struct brute_peer *peer, u16 prefix);
void __init brute_peers_setup(void);

#endif /* _SECURITY_BRUTE_PEER_H */
