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
 * @family: AF_INET or AF_INET6 (a TCP or MPTCP listener), or AF_UNIX (a
 *          Unix stream or seqpacket listener).
 * @port: The TCP port the listener is bound to (host order); 0 for Unix.
 * @addr: The address the TCP listener is bound to (maybe the wildcard), or
 *        a hash of the name the Unix listener is bound to (keyed with a
 *        random key: a service that makes its socket again keeps its
 *        endpoint).
 * @owner: Who made the endpoint: the user who created the outermost user
 *         namespace that holds the network namespace (@owned), else the
 *         user of the task that made the listener.
 * @userns: With @owned and a root @owner, the inode number of that user
 *          namespace (a container that root made); else 0.
 * @plain: @owner made it without privilege (or in a user namespace of
 *         theirs): what it receives is @owner's own doing.
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
		u64 path;
	} addr;
	kuid_t owner;
	u32 userns;
	u8 plain;
	u8 owned;
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
 * enum brute_input_kind - Whose input a connection carries
 * @BRUTE_INPUT_NONE: Nobody's: not a connection Brute attributes.
 * @BRUTE_INPUT_REMOTE: A remote peer's: @peer is its address.
 * @BRUTE_INPUT_LOCAL: A local user's own: @peer is the user.
 * @BRUTE_INPUT_RELAYED: A remote or local peer's, relayed by a local user
 *                       (a proxy in front of the service): @endpoint and
 *                       @peer are where the peer's input arrived and who
 *                       sent it, @relay the proxy's user.
 * @BRUTE_INPUT_MIXED: What a local user relayed from several sources, or
 *                     wrote of its own besides what it relayed: @peer is
 *                     that user.
 * @BRUTE_INPUT_PENDING: A local connection whose client wrote nothing yet:
 *                       whose input it carries is known once it does.
 */
enum brute_input_kind {
	BRUTE_INPUT_NONE,
	BRUTE_INPUT_REMOTE,
	BRUTE_INPUT_LOCAL,
	BRUTE_INPUT_RELAYED,
	BRUTE_INPUT_MIXED,
	BRUTE_INPUT_PENDING,
};

/**
 * struct brute_input - Who sent a connection's input, and where
 * @cookie: The socket cookie of the connection, or 0 if it is not one
 *          Brute attributes.
 * @endpoint: The endpoint the input arrived at.
 * @peer: Who sent it.
 * @relay: With BRUTE_INPUT_RELAYED or _MIXED, the user who relayed it.
 * @lino: With a Unix @endpoint, the inode number of the listener's socket
 *        (as /proc/net/unix and ss(8) show it), for the operator: the
 *        endpoint is its bound name.
 * @kind: Enum brute_input_kind.
 *
 * Every field, padding included, is zeroed before it is filled: keys are
 * compared and hashed as bytes.
 */
struct brute_input {
	u64 cookie;
	struct brute_endpoint endpoint;
	struct brute_peer peer;
	kuid_t relay;
	u64 lino;
	u8 kind;
};

/* Room for the bound name of a Unix socket, escaped as "@" when abstract. */
#define BRUTE_LPATH_LEN 110

/**
 * struct brute_peer_key - The key of an entry of the peer table
 * @endpoint: The endpoint; zeroed with @layout.
 * @peer: The peer, its address masked to @peer.prefix bits.
 * @layout: 0 for an entry of @peer at @endpoint; else the layout (the ID
 *          of the hierarchy: one memory image) whose crashes the entry
 *          counts at every endpoint, and whose every endpoint its ban
 *          refuses @peer at.
 */
struct brute_peer_key {
	struct brute_endpoint endpoint;
	struct brute_peer peer;
	u64 layout;
};

/**
 * struct brute_peer_charge - The outcome of a peer charge
 * @charged: The crash was counted (false: no memory, or a table full of
 *           bans).
 * @verdict: A new verdict on the peer, or BRUTE_VERDICT_NONE.
 * @banned: The verdict banned the peer from the endpoint.
 * @prefix_verdict: A new verdict on the enclosing prefix (escalate_faults
 *                  crashes from it), or BRUTE_VERDICT_NONE.
 * @escalated: That verdict banned the whole prefix.
 * @key: The peer's entry.
 * @prefix: The enclosing prefix's entry (@prefix.peer.prefix is 0 when
 *          there is none: a Unix peer, or no wider prefix).
 * @stats: The peer's statistics, before a verdict restarted them.
 * @prefix_stats: The enclosing prefix's statistics, before a verdict
 *                restarted them.
 * @period_ns: The period this crash added.
 * @lino: With a Unix endpoint, its listener's socket inode number.
 * @layout: With @verdict, the layout whose count of the peer's crashes, at
 *          all its endpoints, gave it: its every endpoint refuses the peer
 *          with @banned; 0 when the endpoint's own count gave it.
 */
struct brute_peer_charge {
	bool charged;
	enum brute_verdict verdict;
	bool banned;
	u64 layout;
	enum brute_verdict prefix_verdict;
	bool escalated;
	struct brute_peer_key key;
	struct brute_peer_key prefix;
	struct brute_stats stats;
	struct brute_stats prefix_stats;
	u64 period_ns;
	u64 lino;
};

/* Room for what brute_peer_key_format() writes. */
#define BRUTE_PEER_KEY_LEN 192

/* The slots of served peers, in all; of one endpoint. */
#define BRUTE_SERVED_SLOTS 4096
#define BRUTE_SERVED_WAYS 256

/**
 * struct brute_peers - The peer table
 * @table: Its entries: those of peers at endpoints, and one per share of
 *         the table that counts the entries in the share (its key's peer
 *         family is AF_UNSPEC).  An endpoint of the host has a share of its
 *         own; the endpoints in the network namespaces of one user have one
 *         share in all (those of a container root made, one per container).
 * @shares: The number of share entries in @table.
 * @banned_v4: Bans in force, per prefix length of their IPv4 keys: the
 *             lengths a connection request is looked up with (a change of
 *             peer_prefix_v4 leaves the bans of the old length in force).
 * @banned_v6: The same for IPv6 keys.
 * @layouts: The entries of layouts in @table: they have a table_size and
 *           shares of their own.
 * @layout_bans: Bans in force of layouts: an endpoint that serves a layout
 *               looks its peers up while there is one.
 * @served: The peers the endpoints served (brute_peers_serve()): per
 *          endpoint, BRUTE_SERVED_WAYS slots of these, where a peer's keyed
 *          hash and the time it was served are kept.
 * @served_forgotten: Served peers whose slot another peer took within
 *                    forget_time_s.
 */
struct brute_peers {
	struct brute_table table;
	unsigned int shares;
	u32 banned_v4[33];
	u32 banned_v6[129];
	unsigned int layouts;
	u32 layout_bans;
	u64 served[BRUTE_SERVED_SLOTS];
	atomic_t served_forgotten;
};

extern struct brute_peers brute_peers;

/*
 * Enabled while the peer table of the running system holds a ban: the
 * paths a peer ban guards (connection requests, packets, reads) test it
 * and cost nothing more while no peer is banned.
 */
DECLARE_STATIC_KEY_FALSE(brute_peer_bans);

/*
 * Grows whenever a peer is banned: a socket or listener that found no ban
 * of its peer or endpoint at a generation need not look again until it
 * changes.
 */
extern atomic_t brute_peer_ban_gen;

/**
 * brute_peers_ban_gen() - Tell the ban generation
 *
 * Return: A value that changes whenever a peer is banned.
 */
static inline u32 brute_peers_ban_gen(void)
{
	return atomic_read(&brute_peer_ban_gen);
}

void brute_peers_init(struct brute_peers *peers, struct delayed_work *gc);
unsigned int brute_peers_share(const struct brute_params *params);
unsigned int brute_peers_count(struct brute_peers *peers);
void brute_peers_charge(struct brute_peers *peers,
			const struct brute_input *input, u64 layout,
			const char *lpath, u64 now, u64 ban_ns,
			const struct brute_params *params,
			struct brute_peer_charge *charge);
bool brute_peers_refused(struct brute_peers *peers,
			 const struct brute_endpoint *endpoint, u64 layout,
			 const struct brute_peer *peer, u64 now);
bool brute_peers_would_refuse(struct brute_peers *peers,
			      const struct brute_endpoint *endpoint,
			      u64 layout, const struct brute_peer *peer,
			      u64 now);
bool brute_peers_endpoint_banned(struct brute_peers *peers,
				 const struct brute_endpoint *endpoint,
				 u64 layout);
void brute_peers_serve(struct brute_peers *peers,
		       const struct brute_endpoint *endpoint,
		       const struct brute_peer *peer, u64 now);
int brute_peers_lift(struct brute_peers *peers,
		     const struct brute_peer *peer, bool flush);
void brute_peers_show(struct brute_peers *peers, struct seq_file *m, u64 now);
void brute_peer_key_format(char *buf, size_t len,
			   const struct brute_peer_key *key, u64 lino);

void brute_peer_key_set(struct brute_peer_key *key,
			const struct brute_endpoint *endpoint,
			const struct brute_peer *peer, u16 prefix);
void __init brute_peers_setup(void);

#endif /* _SECURITY_BRUTE_PEER_H */
