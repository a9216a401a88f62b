// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Peers: who sent the input a crash followed, and their bans
 *
 * A crash of an image that read input from a peer -- a TCP client that is
 * not on this host, or the user at the other end of a Unix stream
 * connection -- is the peer's doing as much as the image's.  It is charged
 * to an entry for that peer at the endpoint it reached (the listening
 * socket: network namespace, bound address and port, or the Unix socket).
 * A verdict on the entry bans the peer from the endpoint for
 * peer_ban_time_s: its connection requests are dropped before the service
 * sees them, its established connections deliver nothing more.  The
 * service and its other clients are untouched.
 *
 * An IPv4 peer is an address (peer_prefix_v4, 32 bits), an IPv6 peer a /64
 * (peer_prefix_v6).  Every crash is also charged to the enclosing prefix
 * (escalate_prefix_v4 and _v6, /24 and /48): escalate_faults crashes from
 * its addresses, however they are spread, ban the whole prefix.
 *
 * Every listener of a forking service shares one layout: the memory image
 * of the hierarchy that crashes (nginx's 80 and 443, Postfix's 25, 465 and
 * 587).  So each crash is also charged to an entry for the peer at that
 * layout, whose key is the hierarchy's ID: its verdict at min_faults
 * crashes, however they are spread over the layout's endpoints, bans the
 * peer from every endpoint the layout serves -- those the listeners that
 * its tasks listened or accepted on stand for, net.c -- while it runs, and
 * from the endpoint of the verdict, where the ban outlives the layout.
 * The entries of layouts have shares and a table_size of their own.
 *
 * A prefix's ban spares the addresses the endpoint served (whose
 * connection a process read) within forget_time_s before it, until one
 * crashes the service: a bystander of the prefix keeps being served.
 * What an endpoint served is kept in a fixed table of slots of keyed
 * hashes (brute_peers_serve()); a slot another peer takes forgets the
 * first, which is refused then (fail safe) and counted.
 *
 * The table is bounded (table_size entries) and each endpoint has a share
 * of it (brute_peers_share()): beyond its share, the endpoint's least
 * recently charged entry without a ban makes room; in a full table, any
 * endpoint's.  So an attack on one endpoint pushes out counts (never a
 * ban) of its own peers only, and fills with bans only its own share: the
 * table is full of bans only when four shares are.  The endpoints a user
 * made without privilege -- listeners of their own, and every endpoint in
 * the network namespaces of their user namespaces, where they may set up
 * peers of their own -- have one share in all: a user cannot fill the
 * table with bans of their own making, however many ports they listen on.
 * Whatever an attacker does, the backstop on the attacked hierarchy
 * (task.c) bounds the crashes one memory image takes.
 *
 * Bans are enforced in mode 2 only.  The paths they guard look nothing up
 * while no peer is banned (brute_peer_bans), and a socket or listener that
 * found no ban remembers it until the next ban (brute_peer_ban_gen).
 */

#include <linux/in.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <net/ipv6.h>

#include "audit.h"
#include "common.h"
#include "peer.h"
#include "sysctl.h"

/**
 * struct brute_peer_entry - The crash statistics of a peer at an endpoint
 * @entry: Statistics and ban; first, see struct brute_entry.
 * @key: The endpoint and the peer (or its enclosing prefix); for a share
 *       entry, the share's endpoint or user alone (peer family AF_UNSPEC).
 * @home: The endpoint whose share holds the entry: @key.endpoint, or for
 *        a layout's entry, the endpoint where it was made.
 * @entries: A share entry's count of the entries in its share, but for
 *           layouts' entries.
 * @layouts: A share entry's count of the layouts' entries in its share.
 * @banned: A share entry's count of the bans in force in its share, but
 *          for layouts' (&brute_peers.layout_bans counts those).
 * @enclosing: An enclosing prefix's entry: its ban spares the addresses
 *             the endpoint served (brute_peers_spared()).
 * @lino: With a Unix endpoint, its listener's socket inode number when
 *        the entry was made.
 * @lpath: With a Unix endpoint, its bound name.
 */
struct brute_peer_entry {
	struct brute_entry entry;
	struct brute_peer_key key;
	struct brute_endpoint home;
	unsigned int entries;
	unsigned int layouts;
	unsigned int banned;
	bool enclosing;
	u64 lino;
	char lpath[BRUTE_LPATH_LEN];
};

static void brute_peers_gc_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(brute_peers_gc_dwork, brute_peers_gc_work);

/* The table of the running system. */
struct brute_peers brute_peers;

DEFINE_STATIC_KEY_FALSE(brute_peer_bans);
static DEFINE_MUTEX(brute_peer_bans_mutex);
atomic_t brute_peer_ban_gen = ATOMIC_INIT(0);

/*
 * Make brute_peer_bans say whether the table of the running system holds a
 * ban, after a charge, a lift or the collector changed that.  The key is
 * switched under a mutex, after the change, from the count as it is then:
 * concurrent callers leave it as the last count says.  In the moment
 * between a new ban and this, a connection request of the peer may still
 * pass, as it would have a moment earlier.
 *
 * Context: Task context: may sleep.
 */
static void brute_peers_sync(struct brute_peers *peers)
{
	bool banned;

	if (peers != &brute_peers)
		return;
	mutex_lock(&brute_peer_bans_mutex);
	banned = brute_table_banned(&peers->table);
	if (banned && !static_key_enabled(&brute_peer_bans))
		static_branch_enable(&brute_peer_bans);
	else if (!banned && static_key_enabled(&brute_peer_bans))
		static_branch_disable(&brute_peer_bans);
	mutex_unlock(&brute_peer_bans_mutex);
}

static struct kmem_cache *brute_peer_cache __ro_after_init;

/* Keys come from the network: their hash must not be predictable. */
static siphash_key_t brute_peer_hash_key __ro_after_init;

static struct brute_peer_entry *brute_peer_entry(struct brute_entry *entry)
{
	return container_of(entry, struct brute_peer_entry, entry);
}

static u32 brute_peer_bucket(const struct brute_peer_key *key)
{
	return siphash(key, sizeof(*key), &brute_peer_hash_key) &
	       ((1U << BRUTE_TABLE_HASH_BITS) - 1);
}

static bool brute_peer_match(const struct brute_entry *entry,
			     const void *key)
{
	const struct brute_peer_entry *peer =
		container_of(entry, struct brute_peer_entry, entry);

	return !memcmp(&peer->key, key, sizeof(peer->key));
}

/*
 * The key of @peer as the records and the peers file name it: a layout's
 * entry with the endpoint where it was made.
 */
static void brute_peer_named(const struct brute_peer_entry *peer,
			     struct brute_peer_key *key)
{
	*key = peer->key;
	key->endpoint = peer->home;
}

static void brute_peer_release(struct brute_entry *entry,
			       enum brute_unban_reason reason)
{
	const struct brute_peer_entry *peer = brute_peer_entry(entry);
	struct brute_peer_key key;

	brute_peer_named(peer, &key);
	brute_audit_peer_unban(&key, peer->lino, peer->lpath, reason,
			       atomic_read(&entry->denied));
}

static bool brute_peer_key_share(const struct brute_peer_key *key)
{
	return key->peer.family == AF_UNSPEC;
}

/*
 * The key of the entry that counts the share of @endpoint: for an endpoint
 * a user made without privilege, that user (for an endpoint in a network
 * namespace root made in a user namespace, that container); for any other
 * endpoint (a service's), the endpoint itself.
 */
static void brute_share_key_set(struct brute_peer_key *key,
				const struct brute_endpoint *endpoint)
{
	memset(key, 0, sizeof(*key));
	if (endpoint->plain || endpoint->owned) {
		key->endpoint.owner = endpoint->owner;
		key->endpoint.userns = endpoint->userns;
		key->endpoint.plain = true;
		key->endpoint.owned = endpoint->owned;
	} else {
		key->endpoint = *endpoint;
	}
}

static bool brute_same_share(const struct brute_endpoint *a,
			     const struct brute_endpoint *b)
{
	struct brute_peer_key x, y;

	brute_share_key_set(&x, a);
	brute_share_key_set(&y, b);
	return !memcmp(&x.endpoint, &y.endpoint, sizeof(x.endpoint));
}

static struct brute_peer_entry *
brute_peers_lookup(struct brute_peers *peers, const struct brute_peer_key *key)
{
	struct brute_entry *entry;

	entry = brute_table_lookup(&peers->table, brute_peer_bucket(key), key);
	return entry ? brute_peer_entry(entry) : NULL;
}

/* A share entry stays while its share has entries: it counts them. */
static bool brute_peer_forget(struct brute_entry *entry)
{
	const struct brute_peer_entry *share = brute_peer_entry(entry);

	return !share->entries && !share->layouts;
}

/* The count of the bans in force of a prefix length of a family. */
static u32 *brute_peers_banned_count(struct brute_peers *peers,
				     const struct brute_peer *peer)
{
	if (peer->family == AF_INET && peer->prefix <= 32)
		return &peers->banned_v4[peer->prefix];
	if (peer->family == AF_INET6 && peer->prefix <= 128)
		return &peers->banned_v6[peer->prefix];
	return NULL;
}

static void brute_peer_detach(struct brute_table *table,
			      struct brute_entry *entry)
{
	struct brute_peers *const peers =
		container_of(table, struct brute_peers, table);
	const struct brute_peer_entry *const peer = brute_peer_entry(entry);
	struct brute_peer_entry *share;
	struct brute_peer_key key;
	u32 *banned;

	if (brute_peer_key_share(&peer->key)) {
		peers->shares--;
		return;
	}
	if (entry->ban_until_ns) {
		banned = brute_peers_banned_count(peers, &peer->key.peer);
		if (banned && !WARN_ON_ONCE(!*banned))
			WRITE_ONCE(*banned, *banned - 1);
		if (peer->key.layout && !WARN_ON_ONCE(!peers->layout_bans))
			WRITE_ONCE(peers->layout_bans, peers->layout_bans - 1);
	}
	if (peer->key.layout && !WARN_ON_ONCE(!peers->layouts))
		peers->layouts--;
	/* Gone first when the whole table is flushed. */
	brute_share_key_set(&key, &peer->home);
	share = brute_peers_lookup(peers, &key);
	if (!share)
		return;
	if (peer->key.layout) {
		if (!WARN_ON_ONCE(!share->layouts))
			share->layouts--;
		return;
	}
	if (!WARN_ON_ONCE(!share->entries))
		share->entries--;
	if (entry->ban_until_ns && !WARN_ON_ONCE(!share->banned))
		WRITE_ONCE(share->banned, share->banned - 1);
}

/*
 * Ban @entry of @share (or extend its ban): a new ban is counted in its
 * share (a layout's in the table's layout_bans) and its prefix length, and
 * moves the ban generation on.
 */
static void brute_peers_ban(struct brute_peers *peers,
			    struct brute_peer_entry *share,
			    struct brute_peer_entry *peer, u64 now, u64 ban_ns)
{
	u32 *banned;

	if (!peer->entry.ban_until_ns) {
		if (peer->key.layout)
			WRITE_ONCE(peers->layout_bans, peers->layout_bans + 1);
		else
			WRITE_ONCE(share->banned, share->banned + 1);
		banned = brute_peers_banned_count(peers, &peer->key.peer);
		if (banned)
			WRITE_ONCE(*banned, *banned + 1);
	}
	brute_table_ban(&peers->table, &peer->entry, now, ban_ns);
	if (peers == &brute_peers)
		atomic_inc(&brute_peer_ban_gen);
}

static const struct brute_table_ops brute_peer_ops = {
	.match = brute_peer_match,
	.release = brute_peer_release,
	.forget = brute_peer_forget,
	.detach = brute_peer_detach,
};

/**
 * brute_peers_share() - Tell how many entries a share of the table holds
 * @params: Detection parameters.
 *
 * An endpoint of the host has a share; the endpoints in the network
 * namespaces that one user made have one share in all.
 *
 * Return: A quarter of table_size, at least 2.
 */
unsigned int brute_peers_share(const struct brute_params *params)
{
	return max(params->table_size / 4, 2U);
}

/**
 * brute_peers_count() - Count the entries of peers in a peer table
 * @peers: The table.
 *
 * Return: The number of its entries, but for those that count shares and
 * those of layouts.
 */
unsigned int brute_peers_count(struct brute_peers *peers)
{
	unsigned int count;

	spin_lock(&peers->table.lock);
	count = peers->table.count - peers->shares - peers->layouts;
	spin_unlock(&peers->table.lock);
	return count;
}

static void brute_mask_v4(__be32 *addr, u16 prefix)
{
	*addr &= prefix ? htonl(~0U << (32 - prefix)) : 0;
}

/**
 * brute_peer_key_set() - Make the key of a peer's entry
 * @key: The key.
 * @endpoint: The endpoint.
 * @peer: The peer, as read from a connection.
 * @prefix: How many bits of an address the entry stands for (ignored for a
 *          Unix peer).
 */
void brute_peer_key_set(struct brute_peer_key *key,
			const struct brute_endpoint *endpoint,
			const struct brute_peer *peer, u16 prefix)
{
	memset(key, 0, sizeof(*key));
	key->endpoint = *endpoint;
	key->peer.family = peer->family;
	switch (peer->family) {
	case AF_INET:
		key->peer.prefix = min_t(u16, prefix, 32);
		key->peer.addr.v4 = peer->addr.v4;
		brute_mask_v4(&key->peer.addr.v4, key->peer.prefix);
		break;
	case AF_INET6:
		key->peer.prefix = min_t(u16, prefix, 128);
		ipv6_addr_prefix(&key->peer.addr.v6, &peer->addr.v6,
				 key->peer.prefix);
		break;
	default:
		key->peer.addr.uid = peer->addr.uid;
		break;
	}
}

/**
 * brute_peer_key_format() - Describe a peer at an endpoint
 * @buf: Where to write the fields, NUL-terminated.
 * @len: Size of @buf; BRUTE_PEER_KEY_LEN is always enough.
 * @key: The peer and the endpoint.
 * @lino: With a Unix endpoint, its listener's socket inode number.
 *
 * Writes "peer=ADDR/PREFIX netns=INUM transport=tcp laddr=ADDR lport=PORT",
 * or for a local user "peer=uid:UID peer_uid=UID" and the endpoint, a Unix
 * one as "transport=unix lino=INODE" (a layout's entry is named with the
 * endpoint where it was made; the caller adds its layout=): the fields of the audit records and
 * of the peers file (not "proto": auparse takes a field of that name for a
 * protocol number).  A Unix endpoint's name (lpath=) is the caller's to
 * add, escaped as its destination needs.
 */
void brute_peer_key_format(char *buf, size_t len,
			   const struct brute_peer_key *key, u64 lino)
{
	const struct brute_endpoint *ep = &key->endpoint;
	const struct brute_peer *peer = &key->peer;
	int n;

	switch (peer->family) {
	case AF_INET:
		n = scnprintf(buf, len, "peer=%pI4/%u", &peer->addr.v4,
			      peer->prefix);
		break;
	case AF_INET6:
		n = scnprintf(buf, len, "peer=%pI6c/%u", &peer->addr.v6,
			      peer->prefix);
		break;
	default:
		n = scnprintf(buf, len, "peer=uid:%u peer_uid=%u",
			      from_kuid(&init_user_ns, peer->addr.uid),
			      from_kuid(&init_user_ns, peer->addr.uid));
		break;
	}
	n += scnprintf(buf + n, len - n, " netns=%u", ep->netns);
	switch (ep->family) {
	case AF_INET:
		scnprintf(buf + n, len - n, " transport=tcp laddr=%pI4 lport=%u",
			  &ep->addr.v4, ep->port);
		break;
	case AF_INET6:
		scnprintf(buf + n, len - n, " transport=tcp laddr=%pI6c lport=%u",
			  &ep->addr.v6, ep->port);
		break;
	default:
		scnprintf(buf + n, len - n, " transport=unix lino=%llu", lino);
		break;
	}
}

/* The prefix lengths of a peer and of its enclosing prefix (0: none). */
static void brute_peer_prefixes(u16 family, const struct brute_params *params,
				u16 *prefix, u16 *enclosing)
{
	*prefix = 0;
	*enclosing = 0;
	if (family == AF_INET) {
		*prefix = params->peer_prefix_v4;
		if (params->escalate_prefix_v4 < *prefix)
			*enclosing = params->escalate_prefix_v4;
	} else if (family == AF_INET6) {
		*prefix = params->peer_prefix_v6;
		if (params->escalate_prefix_v6 < *prefix)
			*enclosing = params->escalate_prefix_v6;
	}
}

/*
 * What may make room for a new entry: not @keep, the entries the charge
 * stands on; with @endpoint, only entries of peers in that endpoint's
 * share; with @shares, only share entries (those of empty shares); else
 * any entry of a peer: with @layouts, a layout's, else an endpoint's.
 */
struct brute_peers_room {
	const struct brute_entry *keep[3];
	const struct brute_endpoint *endpoint;
	bool shares;
	bool layouts;
};

static bool brute_peers_may_evict(const struct brute_entry *entry,
				  const void *arg)
{
	const struct brute_peers_room *const room = arg;
	const struct brute_peer_entry *const peer =
		container_of(entry, struct brute_peer_entry, entry);

	if (entry == room->keep[0] || entry == room->keep[1] ||
	    entry == room->keep[2])
		return false;
	if (brute_peer_key_share(&peer->key))
		return room->shares;
	return !room->shares && !peer->key.layout == !room->layouts &&
	       (!room->endpoint ||
		brute_same_share(&peer->home, room->endpoint));
}

/* A new entry for @key, in the share of @home; consumes *@new. */
static struct brute_peer_entry *
brute_peers_insert(struct brute_peers *peers, const struct brute_peer_key *key,
		   const struct brute_endpoint *home,
		   struct brute_peer_entry **new, u64 now)
{
	struct brute_peer_entry *peer = *new;

	*new = NULL;
	peer->key = *key;
	peer->home = *home;
	brute_stats_reset(&peer->entry.stats, now);
	brute_table_insert(&peers->table, &peer->entry, brute_peer_bucket(key));
	return peer;
}

/*
 * Find or make the entry that counts the share of @endpoint; consumes
 * *@new when it is used.
 */
static struct brute_peer_entry *
brute_peers_share_get(struct brute_peers *peers,
		      const struct brute_endpoint *endpoint,
		      struct brute_peer_entry **new, u64 now,
		      const struct brute_params *params)
{
	const struct brute_peers_room room = { .shares = true };
	struct brute_peer_entry *peer;
	struct brute_peer_key key;

	brute_share_key_set(&key, endpoint);
	peer = brute_peers_lookup(peers, &key);
	if (peer)
		return peer;
	if (!*new)
		return NULL;
	if (peers->shares >= params->table_size &&
	    !brute_table_evict(&peers->table, brute_peers_may_evict, &room))
		return NULL;
	peers->shares++;
	return brute_peers_insert(peers, &key, &key.endpoint, new, now);
}

/*
 * Find or make the entry of @key in @share (the entry that counts the
 * share of @home, the endpoint of the crash); consumes *@new when it is
 * used.  Room is made within the share when it is full, else within the
 * table's table_size entries of peers, and never by pushing out @keep (the
 * address's entries, when its layout's or its prefix's is made): the
 * address counts before its prefix.  The entries of layouts have shares
 * and a table_size of their own, so that they never push out, nor keep
 * out, the entries of peers at endpoints.
 */
static struct brute_entry *brute_peers_get(struct brute_peers *peers,
					   struct brute_peer_entry *share,
					   const struct brute_endpoint *home,
					   const struct brute_peer_key *key,
					   struct brute_peer_entry **new,
					   u64 now, u64 forget_ns,
					   const struct brute_params *params,
					   const struct brute_entry *keep,
					   const struct brute_entry *keep2)
{
	struct brute_peers_room room = {
		.keep = { keep, keep2, &share->entry },
		.layouts = !!key->layout,
	};
	unsigned int *const entries = key->layout ? &share->layouts :
					    &share->entries;
	struct brute_entry *entry;
	unsigned int count;

	entry = brute_table_lookup(&peers->table, brute_peer_bucket(key), key);
	if (entry) {
		brute_table_touch(&peers->table, entry);
		if (!entry->ban_until_ns)
			brute_stats_forget(&entry->stats, now, forget_ns);
		return entry;
	}
	if (!*new)
		return NULL;
	count = key->layout ? peers->layouts :
			      peers->table.count - peers->shares - peers->layouts;
	if (*entries >= brute_peers_share(params)) {
		room.endpoint = home;
		if (!brute_table_evict(&peers->table, brute_peers_may_evict,
				       &room))
			return NULL;
	} else if (count >= params->table_size &&
		   !brute_table_evict(&peers->table, brute_peers_may_evict,
				      &room)) {
		return NULL;
	}
	(*entries)++;
	if (key->layout)
		peers->layouts++;
	return &brute_peers_insert(peers, key, home, new, now)->entry;
}

/* A new entry for a peer of @input's endpoint (its name with a Unix one). */
static struct brute_peer_entry *brute_peer_alloc(const struct brute_input *input,
						 const char *lpath)
{
	struct brute_peer_entry *peer;

	peer = kmem_cache_zalloc(brute_peer_cache,
				 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (peer && input->endpoint.family == AF_UNIX) {
		peer->lino = input->lino;
		strscpy(peer->lpath, lpath ?: "?", sizeof(peer->lpath));
	}
	return peer;
}

/*
 * A peer's verdict: min_faults crashes at a fast pace (min_faults is
 * @min for an enclosing prefix).  There is no slow verdict on a peer: a
 * client whose requests hit an ordinary bug now and then is never banned
 * for it, and a slow attacker is bounded by the backstop of the service.
 */
static enum brute_verdict brute_peer_verdict(const struct brute_stats *stats,
					     u32 min,
					     const struct brute_params *params)
{
	if (stats->faults < min)
		return BRUTE_VERDICT_NONE;
	if (stats->ema_ns < (u64)params->threshold_ms * NSEC_PER_MSEC)
		return BRUTE_VERDICT_FAST;
	return BRUTE_VERDICT_NONE;
}

/* The endpoint of the key of a layout's entry: none. */
static const struct brute_endpoint brute_no_endpoint;

/*
 * The served peers: each endpoint has BRUTE_SERVED_WAYS slots of
 * @peers->served (from a keyed hash of the endpoint on, wrapping), a peer
 * one of them by a keyed hash of the peer at the endpoint, whose other
 * bits (BRUTE_SERVED_TAG) are kept there with the time it was served, in
 * units of 2^BRUTE_SERVED_SHIFT ns (about 69 s).  Another peer that takes
 * the slot makes the endpoint forget the first: a prefix ban refuses it
 * then, as any address of the prefix (fail safe), and it is counted.
 */
#define BRUTE_SERVED_SHIFT 36
#define BRUTE_SERVED_TIME GENMASK_ULL(23, 0)
#define BRUTE_SERVED_TAG GENMASK_ULL(63, 24)

/* The slot of @key (a peer at an endpoint), and the tag it keeps there. */
static u64 *brute_served_slot(struct brute_peers *peers,
			      const struct brute_peer_key *key, u64 *tag)
{
	struct brute_peer_key endpoint;
	u64 hash, base;

	memset(&endpoint, 0, sizeof(endpoint));
	endpoint.endpoint = key->endpoint;
	base = siphash(&endpoint, sizeof(endpoint), &brute_peer_hash_key);
	hash = siphash(key, sizeof(*key), &brute_peer_hash_key);
	*tag = (hash | BIT_ULL(63)) & BRUTE_SERVED_TAG;
	return &peers->served[(base + (hash & (BRUTE_SERVED_WAYS - 1))) &
			      (BRUTE_SERVED_SLOTS - 1)];
}

/* A slot's value was served within forget_time_s before @now. */
static bool brute_served_fresh(u64 value, u64 now, u64 forget_ns)
{
	const u64 age = ((now >> BRUTE_SERVED_SHIFT) - value) &
			BRUTE_SERVED_TIME;

	return age <= (forget_ns >> BRUTE_SERVED_SHIFT) + 1;
}

/*
 * The key a served peer is kept under: the peer at the endpoint, as the
 * table keys it; false if no prefix of it is ever banned (nothing to
 * spare it from).
 */
static bool brute_served_key(struct brute_peer_key *key,
			     const struct brute_endpoint *endpoint,
			     const struct brute_peer *peer,
			     struct brute_params *params)
{
	u16 prefix, enclosing;

	brute_params_get(params);
	brute_peer_prefixes(peer->family, params, &prefix, &enclosing);
	if (!enclosing)
		return false;
	brute_peer_key_set(key, endpoint, peer, prefix);
	return true;
}

/**
 * brute_peers_serve() - Remember that an endpoint served a peer
 * @peers: The table.
 * @endpoint: The endpoint.
 * @peer: The peer: an address (nothing is kept for a local user).
 * @now: The current time, from ktime_get_ns().
 *
 * A ban of a prefix that holds the peer spares it while it did not crash
 * the service itself (brute_peers_spared()).  A crash that follows its
 * input makes the endpoint forget it.
 *
 * Context: Task context; takes no lock.
 */
void brute_peers_serve(struct brute_peers *peers,
		       const struct brute_endpoint *endpoint,
		       const struct brute_peer *peer, u64 now)
{
	struct brute_params params;
	struct brute_peer_key key;
	u64 *slot, tag, old, value;

	if (!brute_served_key(&key, endpoint, peer, &params))
		return;
	slot = brute_served_slot(peers, &key, &tag);
	value = tag | ((now >> BRUTE_SERVED_SHIFT) & BRUTE_SERVED_TIME);
	old = READ_ONCE(*slot);
	if (old == value)
		return;
	if (old && (old & BRUTE_SERVED_TAG) != tag &&
	    brute_served_fresh(old, now,
			       (u64)params.forget_time_s * NSEC_PER_SEC))
		atomic_inc(&peers->served_forgotten);
	WRITE_ONCE(*slot, value);
}

/* The peer of @input crashed the service: the endpoint forgets it. */
static void brute_peers_unserve(struct brute_peers *peers,
				const struct brute_input *input)
{
	struct brute_params params;
	struct brute_peer_key key;
	u64 *slot, tag;

	if (!brute_served_key(&key, &input->endpoint, &input->peer, &params))
		return;
	slot = brute_served_slot(peers, &key, &tag);
	if ((READ_ONCE(*slot) & BRUTE_SERVED_TAG) == tag)
		WRITE_ONCE(*slot, 0);
}

/*
 * A ban of a prefix that holds @peer spares it: @endpoint served it
 * within forget_time_s, and it did not crash the service since (no crash
 * of it is counted at @endpoint, nor at any endpoint of @layout).
 *
 * Context: Under rcu_read_lock().
 */
static bool brute_peers_spared(struct brute_peers *peers,
			       const struct brute_endpoint *endpoint,
			       u64 layout, const struct brute_peer *peer,
			       u64 now)
{
	struct brute_params params;
	struct brute_peer_key key;
	u64 *slot, tag, value;

	if (!brute_served_key(&key, endpoint, peer, &params))
		return false;
	slot = brute_served_slot(peers, &key, &tag);
	value = READ_ONCE(*slot);
	if ((value & BRUTE_SERVED_TAG) != tag ||
	    !brute_served_fresh(value, now,
				(u64)params.forget_time_s * NSEC_PER_SEC))
		return false;
	if (brute_peers_lookup(peers, &key))
		return false;
	if (!layout)
		return true;
	key.endpoint = brute_no_endpoint;
	key.layout = layout;
	return !brute_peers_lookup(peers, &key);
}

/* Count a crash in @entry: the verdict it gives (min_faults is @min). */
static enum brute_verdict brute_peers_count_crash(struct brute_entry *entry,
						  u64 now, u32 min,
						  const struct brute_params *params,
						  struct brute_stats *stats)
{
	enum brute_verdict verdict;

	brute_stats_update(&entry->stats, now, params);
	*stats = entry->stats;
	verdict = brute_peer_verdict(&entry->stats, min, params);
	if (verdict != BRUTE_VERDICT_NONE) {
		brute_stats_reset(&entry->stats, now);
		entry->attacks++;
	}
	return verdict;
}

/**
 * brute_peers_charge() - Count a crash against a peer at an endpoint
 * @peers: The table.
 * @input: Who answers for the crash's input, and where it arrived.
 * @layout: The layout that crashed (the ID of its hierarchy), or 0.
 * @lpath: With a Unix endpoint, its bound name, for the operator.
 * @now: Time of the crash, from ktime_get_ns().
 * @ban_ns: How long a verdict bans the peer; 0: no ban.
 * @params: Detection parameters.
 * @charge: The outcome.
 *
 * The peer's entry at the endpoint, and its entry of @layout (which counts
 * its crashes of the layout at every endpoint), give a verdict at
 * min_faults fast crashes; its enclosing prefix gives one at
 * escalate_faults fast crashes.  The layout's verdict bans the peer from
 * every endpoint of the layout, and from the endpoint, whose ban outlives
 * the layout.  A verdict restarts the statistics of its entry, so that an
 * attack that goes on (input already queued when the ban came) is
 * detected, and the ban extended, again.  The crash is not counted when
 * the endpoint's share holds only bans, or the whole table does.
 *
 * Context: Task context: may sleep.
 */
void brute_peers_charge(struct brute_peers *peers,
			const struct brute_input *input, u64 layout,
			const char *lpath, u64 now, u64 ban_ns,
			const struct brute_params *params,
			struct brute_peer_charge *charge)
{
	const u64 forget_ns = (u64)params->forget_time_s * NSEC_PER_SEC;
	struct brute_peer_entry *new, *new_prefix = NULL, *new_share;
	struct brute_peer_entry *new_layout = NULL, *share;
	const struct brute_endpoint *const ep = &input->endpoint;
	struct brute_table *const table = &peers->table;
	struct brute_entry *entry, *lentry = NULL;
	enum brute_verdict verdict;
	struct brute_peer_key lkey;
	struct brute_stats stats;
	u16 prefix, enclosing;

	memset(charge, 0, sizeof(*charge));
	charge->lino = input->lino;
	brute_peer_prefixes(input->peer.family, params, &prefix, &enclosing);
	brute_peer_key_set(&charge->key, ep, &input->peer, prefix);
	brute_peer_key_set(&lkey, &brute_no_endpoint, &input->peer, prefix);
	lkey.layout = layout;
	if (enclosing)
		brute_peer_key_set(&charge->prefix, ep, &input->peer,
				   enclosing);
	brute_peers_unserve(peers, input);

	new = brute_peer_alloc(input, lpath);
	new_share = brute_peer_alloc(input, lpath);
	if (layout)
		new_layout = brute_peer_alloc(input, lpath);
	if (enclosing) {
		new_prefix = brute_peer_alloc(input, lpath);
		if (new_prefix)
			new_prefix->enclosing = true;
	}

	spin_lock(&table->lock);
	share = brute_peers_share_get(peers, ep, &new_share, now, params);
	if (!share)
		goto out;
	entry = brute_peers_get(peers, share, ep, &charge->key, &new, now,
				forget_ns, params, NULL, NULL);
	if (!entry)
		goto touch;
	charge->charged = true;
	charge->period_ns = brute_stats_update(&entry->stats, now, params);
	charge->stats = entry->stats;
	charge->verdict = brute_peer_verdict(&entry->stats, params->min_faults,
					     params);
	if (layout)
		lentry = brute_peers_get(peers, share, ep, &lkey, &new_layout,
					 now, forget_ns, params, entry, NULL);
	if (lentry) {
		verdict = brute_peers_count_crash(lentry, now,
						  params->min_faults, params,
						  &stats);
		if (verdict != BRUTE_VERDICT_NONE) {
			/* Its endpoints' bans: the layout's, and this one. */
			charge->verdict = verdict;
			charge->stats = stats;
			charge->layout = layout;
			if (ban_ns)
				brute_peers_ban(peers, share,
						brute_peer_entry(lentry), now,
						ban_ns);
		} else {
			brute_table_due(table, now, now + forget_ns);
		}
	}
	if (charge->verdict != BRUTE_VERDICT_NONE) {
		brute_stats_reset(&entry->stats, now);
		entry->attacks++;
		if (ban_ns) {
			brute_peers_ban(peers, share, brute_peer_entry(entry),
					now, ban_ns);
			charge->banned = true;
		}
	}
	if (!charge->banned)
		brute_table_due(table, now, now + forget_ns);

	if (!enclosing)
		goto touch;
	entry = brute_peers_get(peers, share, ep, &charge->prefix, &new_prefix,
				now, forget_ns, params, entry, lentry);
	if (!entry)
		goto touch;
	charge->prefix_verdict =
		brute_peers_count_crash(entry, now, params->escalate_faults,
					params, &charge->prefix_stats);
	if (charge->prefix_verdict != BRUTE_VERDICT_NONE && ban_ns) {
		brute_peers_ban(peers, share, brute_peer_entry(entry), now,
				ban_ns);
		charge->escalated = true;
	}
	if (!charge->escalated)
		brute_table_due(table, now, now + forget_ns);
touch:
	/*
	 * The share's entry follows its peers' in the list: the collector
	 * forgets it with the last of them, not a period later.
	 */
	share->entry.stats.last_ns = now;
	brute_table_touch(table, &share->entry);
	brute_table_due(table, now, now + forget_ns);
out:
	spin_unlock(&table->lock);
	kfree(new);
	kfree(new_prefix);
	kfree(new_share);
	kfree(new_layout);
	if (charge->banned || charge->escalated)
		brute_peers_sync(peers);
}

/* The entry of @key if its ban is in force, or NULL. */
static struct brute_peer_entry *brute_peers_ban_of(struct brute_peers *peers,
						   const struct brute_peer_key *key,
						   u64 now)
{
	struct brute_peer_entry *peer = brute_peers_lookup(peers, key);

	return peer && brute_entry_banned(&peer->entry, now) ? peer : NULL;
}

/*
 * A ban of @peer's prefix of @prefix bits refuses it at @endpoint: the
 * endpoint's ban, or @layout's; a prefix's spares the peers it served.
 */
static bool brute_peers_banned(struct brute_peers *peers,
			       const struct brute_endpoint *endpoint,
			       u64 layout, const struct brute_peer *peer,
			       u16 prefix, u64 now, bool count)
{
	struct brute_peer_entry *ban;
	struct brute_peer_key key;

	brute_peer_key_set(&key, endpoint, peer, prefix);
	ban = brute_peers_ban_of(peers, &key, now);
	if (!ban && layout && READ_ONCE(peers->layout_bans)) {
		brute_peer_key_set(&key, &brute_no_endpoint, peer, prefix);
		key.layout = layout;
		ban = brute_peers_ban_of(peers, &key, now);
	}
	if (!ban || (ban->enclosing &&
		     brute_peers_spared(peers, endpoint, layout, peer, now)))
		return false;
	if (count)
		atomic_inc(&ban->entry.denied);
	return true;
}

static bool brute_peers_refuse(struct brute_peers *peers,
			       const struct brute_endpoint *endpoint,
			       u64 layout, const struct brute_peer *peer,
			       u64 now, bool count)
{
	const u32 *banned;
	bool refused = false;
	u16 len, max;

	if (!brute_table_banned(&peers->table))
		return false;
	if (peers == &brute_peers && brute_mode() != BRUTE_MODE_KILL)
		return false;
	switch (peer->family) {
	case AF_INET:
		banned = peers->banned_v4;
		max = 32;
		break;
	case AF_INET6:
		banned = peers->banned_v6;
		max = 128;
		break;
	default:
		rcu_read_lock();
		refused = brute_peers_banned(peers, endpoint, layout, peer, 0,
					     now, count);
		rcu_read_unlock();
		return refused;
	}
	rcu_read_lock();
	for (len = 0; len <= max && !refused; len++)
		if (READ_ONCE(banned[len]))
			refused = brute_peers_banned(peers, endpoint, layout,
						     peer, len, now, count);
	rcu_read_unlock();
	return refused;
}

/**
 * brute_peers_refused() - Tell whether an endpoint refuses a peer
 * @peers: The table.
 * @endpoint: The endpoint.
 * @layout: The layout that serves the endpoint (the ID of its hierarchy),
 *          or 0.
 * @peer: The peer, as read from a connection or a connection request.
 * @now: The current time, from ktime_get_ns().
 *
 * A ban refuses in mode 2 only.  Bans of every prefix length in force are
 * looked up, so that a change of peer_prefix_v4 or _v6 (or of the
 * escalation prefixes) leaves the bans made before it in force.  A ban of
 * the peer by @layout refuses it at every endpoint of the layout.  A ban
 * of an enclosing prefix spares the addresses the endpoint served that did
 * not crash the service since.  Counts the refusal in the ban.
 *
 * Context: Any, softirq included; takes no lock.
 * Return: True if a ban in force on the peer, or on a prefix that holds
 * it, refuses it.
 */
bool brute_peers_refused(struct brute_peers *peers,
			 const struct brute_endpoint *endpoint, u64 layout,
			 const struct brute_peer *peer, u64 now)
{
	return brute_peers_refuse(peers, endpoint, layout, peer, now, true);
}

/**
 * brute_peers_would_refuse() - Tell whether a ban holds a peer, uncounted
 * @peers: The table.
 * @endpoint: The endpoint.
 * @layout: The layout that serves it, or 0.
 * @peer: The peer.
 * @now: The current time, from ktime_get_ns().
 *
 * As brute_peers_refused(), without counting a refusal: for a caller that
 * may yet let the peer through (a trusted peer is never refused).
 *
 * Context: Any, softirq included; takes no lock.
 * Return: True if a ban in force on the peer, or on a prefix that holds
 * it, would refuse it.
 */
bool brute_peers_would_refuse(struct brute_peers *peers,
			      const struct brute_endpoint *endpoint,
			      u64 layout, const struct brute_peer *peer,
			      u64 now)
{
	return brute_peers_refuse(peers, endpoint, layout, peer, now, false);
}

/**
 * brute_peers_endpoint_banned() - Tell whether an endpoint may refuse
 * @peers: The table.
 * @endpoint: The endpoint.
 * @layout: The layout that serves it, or 0.
 *
 * Context: Any, softirq included; takes no lock.
 * Return: False if no ban is in force in the endpoint's share of the table
 * and, with @layout, no layout's ban is (it refuses no peer); true
 * otherwise.
 */
bool brute_peers_endpoint_banned(struct brute_peers *peers,
				 const struct brute_endpoint *endpoint,
				 u64 layout)
{
	struct brute_peer_entry *share;
	struct brute_peer_key key;
	bool banned;

	if (!brute_table_banned(&peers->table))
		return false;
	brute_share_key_set(&key, endpoint);
	rcu_read_lock();
	share = brute_peers_lookup(peers, &key);
	banned = share && READ_ONCE(share->banned);
	rcu_read_unlock();
	return banned || (layout && READ_ONCE(peers->layout_bans));
}

/* Two peers overlap: one's prefix holds the other's address. */
static bool brute_peer_overlaps(const struct brute_peer *a,
				const struct brute_peer *b)
{
	const u16 prefix = min(a->prefix, b->prefix);
	struct brute_peer_key x, y;
	struct brute_endpoint none = {};

	if (a->family != b->family)
		return false;
	if (a->family == AF_UNIX)
		return uid_eq(a->addr.uid, b->addr.uid);
	brute_peer_key_set(&x, &none, a, prefix);
	brute_peer_key_set(&y, &none, b, prefix);
	return !memcmp(&x.peer.addr, &y.peer.addr, sizeof(x.peer.addr));
}

static bool brute_peers_pick(const struct brute_entry *entry,
			     const void *arg)
{
	const struct brute_peer_entry *peer =
		container_of(entry, struct brute_peer_entry, entry);

	return brute_peer_overlaps(&peer->key.peer, arg);
}

/**
 * brute_peers_lift() - Lift peer bans
 * @peers: The table.
 * @peer: Lift the bans of the entries that overlap this address prefix
 *        (those within it and those that hold it) or this user, on every
 *        endpoint; NULL for all.
 * @flush: Forget those entries too, banned or not (with @peer NULL, the
 *         peers the endpoints served too).
 *
 * Return: The number of bans lifted, or -ENOENT if there was none (never
 * with @flush).
 */
int brute_peers_lift(struct brute_peers *peers, const struct brute_peer *peer,
		     bool flush)
{
	int ret = brute_table_lift(&peers->table,
				   peer ? brute_peers_pick : NULL, peer, flush);
	unsigned int i;

	/* Forgetting the table forgets the peers served too. */
	for (i = 0; flush && !peer && i < BRUTE_SERVED_SLOTS; i++)
		WRITE_ONCE(peers->served[i], 0);

	brute_peers_sync(peers);
	return ret;
}

/**
 * brute_peers_show() - List the peer table
 * @peers: The table.
 * @m: Where to print: one line per entry, least recently charged first.
 * @now: The current time, from ktime_get_ns().
 */
void brute_peers_show(struct brute_peers *peers, struct seq_file *m, u64 now)
{
	const struct brute_entry *entry;

	spin_lock(&peers->table.lock);
	list_for_each_entry(entry, &peers->table.lru, lru) {
		const struct brute_peer_entry *peer =
			container_of(entry, struct brute_peer_entry, entry);
		const u64 until = entry->ban_until_ns;
		char key[BRUTE_PEER_KEY_LEN];
		struct brute_peer_key named;

		if (brute_peer_key_share(&peer->key))
			continue;
		brute_peer_named(peer, &named);
		brute_peer_key_format(key, sizeof(key), &named, peer->lino);
		seq_puts(m, key);
		if (peer->home.family == AF_UNIX) {
			seq_puts(m, " lpath=");
			seq_escape_str(m, peer->lpath,
				       ESCAPE_OCTAL | ESCAPE_NAP | ESCAPE_APPEND,
				       " \t\n\\=");
		}
		seq_printf(m,
			   " faults=%u attacks=%u ema_ms=%llu idle_ms=%llu ban_left_s=%llu refused=%u",
			   entry->stats.faults, entry->attacks,
			   div_u64(entry->stats.ema_ns, NSEC_PER_MSEC),
			   div_u64(now - min(now, entry->stats.last_ns),
				   NSEC_PER_MSEC),
			   until > now ?
				   div_u64(until - now + NSEC_PER_SEC - 1,
					   NSEC_PER_SEC) : 0,
			   atomic_read(&entry->denied));
		if (peer->key.layout)
			seq_printf(m, " layout=%llu", peer->key.layout);
		seq_putc(m, '\n');
	}
	spin_unlock(&peers->table.lock);
}

static void brute_peers_gc_work(struct work_struct *work)
{
	struct brute_params params;

	brute_params_get(&params);
	brute_table_gc(&brute_peers.table, ktime_get_ns(),
		       (u64)params.forget_time_s * NSEC_PER_SEC);
	brute_peers_sync(&brute_peers);
}

/**
 * brute_peers_init() - Initialize a peer table
 * @peers: The table.
 * @gc: The delayed work that runs its collector, or NULL.
 */
void brute_peers_init(struct brute_peers *peers, struct delayed_work *gc)
{
	brute_table_init(&peers->table, gc, &brute_peer_ops);
	peers->shares = 0;
	memset(peers->banned_v4, 0, sizeof(peers->banned_v4));
	memset(peers->banned_v6, 0, sizeof(peers->banned_v6));
	peers->layouts = 0;
	peers->layout_bans = 0;
	memset(peers->served, 0, sizeof(peers->served));
	atomic_set(&peers->served_forgotten, 0);
}

/**
 * brute_peers_setup() - Initialize the peer table of the running system
 */
void __init brute_peers_setup(void)
{
	get_random_bytes(&brute_peer_hash_key, sizeof(brute_peer_hash_key));
	brute_peer_cache = KMEM_CACHE(brute_peer_entry,
				      SLAB_PANIC | SLAB_ACCOUNT);
	brute_peers_init(&brute_peers, &brute_peers_gc_dwork);
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

#include "setup.h"

#define MS (NSEC_PER_MSEC)
#define BAN (900 * NSEC_PER_SEC)

/* The defaults of the tunables, which brute_peers_refused() reads. */
static const struct brute_params peer_params = {
	.threshold_ms = 30000,
	.min_faults = 5,
	.max_faults = 200,
	.ema_num = 7,
	.ema_den = 10,
	.table_size = 16,
	.forget_time_s = 3600,
	.peer_ban_time_s = 900,
	.peer_prefix_v4 = 32,
	.peer_prefix_v6 = 64,
	.escalate_prefix_v4 = 24,
	.escalate_prefix_v6 = 48,
	.escalate_faults = 15,
};

/* Padding included: keys are compared and hashed as bytes. */
static struct brute_endpoint test_endpoint(u16 port)
{
	struct brute_endpoint endpoint;

	memset(&endpoint, 0, sizeof(endpoint));
	endpoint.net = 1;
	endpoint.netns = 4026531840U;
	endpoint.family = AF_INET;
	endpoint.port = port;
	endpoint.addr.v4 = htonl(0x0a000001);
	return endpoint;
}

static struct brute_input test_input_v4(u16 port, u32 addr)
{
	struct brute_input input;

	memset(&input, 0, sizeof(input));
	input.cookie = 1;
	input.endpoint = test_endpoint(port);
	input.peer.family = AF_INET;
	input.peer.addr.v4 = htonl(addr);
	return input;
}

static int test_peers_init(struct kunit *test)
{
	struct brute_peers *peers;

	brute_kunit_require(test);
	peers = kunit_kzalloc(test, sizeof(*peers), GFP_KERNEL);
	if (!peers)
		return -ENOMEM;
	brute_peers_init(peers, NULL);
	test->priv = peers;
	return 0;
}

static void test_peers_exit(struct kunit *test)
{
	struct brute_peers *peers = test->priv;

	if (!peers)
		return;
	brute_table_destroy(&peers->table);
	KUNIT_EXPECT_EQ(test, 0, peers->table.count);
	KUNIT_EXPECT_EQ(test, 0, peers->shares);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&peers->table.banned));
	KUNIT_EXPECT_EQ(test, 0, peers->banned_v4[32] + peers->banned_v4[24] +
			peers->banned_v6[64] + peers->banned_v6[48]);
	KUNIT_EXPECT_EQ(test, 0, peers->layout_bans);
	KUNIT_EXPECT_EQ(test, 0, peers->layouts);
}

/* @count crashes of @layout after @in's input, 10 ms apart. */
static struct brute_peer_charge
test_layout_charge(struct brute_peers *peers, const struct brute_input *in,
		   u64 layout, u64 *now, int count)
{
	struct brute_peer_charge charge = {};

	/* Stops at a ban, so that the outcome returned is the ban's. */
	while (count-- > 0 && !charge.banned && !charge.escalated) {
		*now += 10 * MS;
		brute_peers_charge(peers, in, layout, NULL, *now, BAN,
				   &peer_params, &charge);
	}
	return charge;
}

static struct brute_peer_charge test_peer_charge(struct brute_peers *peers,
						 const struct brute_input *in,
						 u64 *now, int count)
{
	return test_layout_charge(peers, in, 0, now, count);
}

/* The refusals counted in @in's entry of prefix length @prefix; or -1. */
static int test_peer_denied(struct brute_peers *peers,
			    const struct brute_input *in, u16 prefix)
{
	struct brute_peer_key key;
	struct brute_entry *entry;
	int denied;

	brute_peer_key_set(&key, &in->endpoint, &in->peer, prefix);
	rcu_read_lock();
	entry = brute_table_lookup(&peers->table, brute_peer_bucket(&key),
				   &key);
	denied = entry ? atomic_read(&entry->denied) : -1;
	rcu_read_unlock();
	return denied;
}

/*
 * Five crashes from one address ban it at that endpoint, nowhere else;
 * each refusal is counted in the ban, a look that refuses nothing is not.
 */
static void test_peers_ban(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input in = test_input_v4(7777, 0x0a000205);
	const struct brute_input other = test_input_v4(7777, 0x0a000206);
	const struct brute_endpoint elsewhere = test_endpoint(22);
	struct brute_peer_charge charge;
	u64 now = 0;

	charge = test_peer_charge(peers, &in, &now, 4);
	KUNIT_EXPECT_TRUE(test, charge.charged);
	KUNIT_EXPECT_EQ(test, 4, charge.stats.faults);
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in.endpoint, 0,
						     &in.peer, now));
	charge = test_peer_charge(peers, &in, &now, 1);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST, charge.verdict);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_FALSE(test, charge.escalated);
	KUNIT_EXPECT_EQ(test, 5, charge.prefix_stats.faults);
	KUNIT_EXPECT_EQ(test, 32, charge.key.peer.prefix);
	KUNIT_EXPECT_EQ(test, 24, charge.prefix.peer.prefix);
	KUNIT_EXPECT_TRUE(test, brute_peers_would_refuse(peers, &in.endpoint, 0,
							 &in.peer, now));
	KUNIT_EXPECT_EQ(test, 0, test_peer_denied(peers, &in, 32));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &in.endpoint, 0,
						    &in.peer, now));
	KUNIT_EXPECT_EQ(test, 1, test_peer_denied(peers, &in, 32));
	KUNIT_EXPECT_FALSE(test, brute_peers_would_refuse(peers,
							  &other.endpoint, 0,
							  &other.peer, now));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &other.endpoint, 0,
						     &other.peer, now));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &elsewhere, 0,
						     &in.peer, now));
	/* It ends. */
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in.endpoint, 0,
						     &in.peer, now + BAN));
}

/*
 * Crashes spread over the addresses of a /24, four each so that none is
 * banned: the fifteenth bans the whole prefix.
 */
static void test_peers_escalate(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input far = test_input_v4(7777, 0x0a0003c8);
	struct brute_peer_charge charge = {};
	u64 now = 0;
	u32 host;

	for (host = 1; host <= 4 && !charge.escalated; host++) {
		const struct brute_input in = test_input_v4(7777,
							    0x0a000200 + host);

		charge = test_peer_charge(peers, &in, &now, 4);
		KUNIT_EXPECT_FALSE(test, charge.banned);
	}
	KUNIT_EXPECT_TRUE(test, charge.escalated);
	KUNIT_EXPECT_EQ(test, 15, charge.prefix_stats.faults);
	{
		const struct brute_input in = test_input_v4(7777, 0x0a0002c8);

		KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers,
							    &in.endpoint, 0,
							    &in.peer, now));
	}
	/* Another /24 is another prefix. */
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &far.endpoint, 0,
						     &far.peer, now));
}

/*
 * Without a ban time (audit mode, or peer_ban_time_s 0) the prefix gets
 * its verdict all the same, at escalate_faults crashes, and nothing is
 * refused.
 */
static void test_peers_escalate_unbanned(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	struct brute_peer_charge charge = {};
	unsigned int verdicts = 0, crashes = 0;
	u64 now = 0;
	u32 host;

	for (host = 1; host <= 4; host++) {
		const struct brute_input in = test_input_v4(7777,
							    0x0a000200 + host);
		int i;

		for (i = 0; i < 4; i++) {
			now += 10 * MS;
			brute_peers_charge(peers, &in, 0, NULL, now, 0,
					   &peer_params, &charge);
			crashes++;
			KUNIT_EXPECT_FALSE(test, charge.banned);
			KUNIT_EXPECT_FALSE(test, charge.escalated);
			if (charge.prefix_verdict == BRUTE_VERDICT_NONE)
				continue;
			verdicts++;
			KUNIT_EXPECT_EQ(test, 15, crashes);
			KUNIT_EXPECT_EQ(test, 15, charge.prefix_stats.faults);
		}
		KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers,
							     &in.endpoint, 0,
							     &in.peer, now));
	}
	KUNIT_EXPECT_EQ(test, 1, verdicts);
}

/* An IPv6 peer is its /64; a Unix peer is its user. */
static void test_peers_v6_and_unix(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	/* Three inputs are too large for a KCSAN kernel's stack frame. */
	struct brute_input *in = kunit_kcalloc(test, 3, sizeof(*in),
					       GFP_KERNEL);
	struct brute_peer_charge charge;
	u64 now = 0;
	char line[BRUTE_PEER_KEY_LEN];

	KUNIT_ASSERT_NOT_NULL(test, in);
	in[0] = test_input_v4(7777, 0);
	in[0].peer.family = AF_INET6;
	in[0].peer.addr.v6.s6_addr32[0] = htonl(0x20010db8);
	in[0].peer.addr.v6.s6_addr32[3] = htonl(1);
	in[1] = in[0];
	in[1].peer.addr.v6.s6_addr32[3] = htonl(2);
	charge = test_peer_charge(peers, &in[0], &now, 2);
	charge = test_peer_charge(peers, &in[1], &now, 3);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &in[0].endpoint, 0,
						    &in[0].peer, now));
	brute_peer_key_format(line, sizeof(line), &charge.key, 12345);
	KUNIT_EXPECT_STREQ(test,
			   "peer=2001:db8::/64 netns=4026531840 transport=tcp laddr=10.0.0.1 lport=7777",
			   line);

	in[2].cookie = 2;
	in[2].endpoint.net = 1;
	in[2].endpoint.netns = 4026531840U;
	in[2].endpoint.family = AF_UNIX;
	in[2].endpoint.addr.path = 0x1234567890abcdefULL;
	in[2].lino = 12345;
	in[2].peer.family = AF_UNIX;
	in[2].peer.addr.uid = KUIDT_INIT(4243);
	charge = test_peer_charge(peers, &in[2], &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 0, charge.prefix.peer.prefix);
	brute_peer_key_format(line, sizeof(line), &charge.key, 12345);
	KUNIT_EXPECT_STREQ(test,
			   "peer=uid:4243 peer_uid=4243 netns=4026531840 transport=unix lino=12345",
			   line);
	in[2].peer.addr.uid = KUIDT_INIT(4244);
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in[2].endpoint, 0,
						     &in[2].peer, now));
}

/* A full share lets the endpoint's coldest count go, never a ban. */
static void test_peers_capacity(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input banned = test_input_v4(7777, 0x0a000105);
	struct brute_peer_charge charge;
	u64 now = 0;
	u32 i;

	charge = test_peer_charge(peers, &banned, &now, 5);
	KUNIT_ASSERT_TRUE(test, charge.banned);
	for (i = 0; i < 40; i++) {
		/* Each in a /24 of its own: two entries each. */
		const struct brute_input in = test_input_v4(7777,
							    0x0b000001 + (i << 8));

		charge = test_peer_charge(peers, &in, &now, 1);
		KUNIT_EXPECT_TRUE(test, charge.charged);
		KUNIT_EXPECT_LE(test, brute_peers_count(peers), 16);
	}
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &banned.endpoint, 0,
						    &banned.peer, now));
}

/*
 * Each endpoint has a share of the table (4 of 16 entries): a share full
 * of bans counts no new peer of that endpoint, and says so (the charge
 * names the peer and the endpoint it could not count), while another
 * endpoint still counts and bans its peers.  On the way there, within the
 * share, the endpoint's coldest count makes room, and the fourth address
 * is counted and banned though its prefix finds no room (it does not push
 * the address out).
 */
static void test_peers_share(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input late = test_input_v4(7777, 0x0c000001);
	const struct brute_input other = test_input_v4(22, 0x0c000001);
	struct brute_peer_charge charge;
	char line[BRUTE_PEER_KEY_LEN];
	u64 now = 0;
	u32 i;

	KUNIT_EXPECT_EQ(test, 4, brute_peers_share(&peer_params));
	for (i = 0; i < 4; i++) {
		/* Each in a /24 of its own, whose entry is not banned. */
		const struct brute_input in = test_input_v4(7777,
							    0x0b000001 + (i << 8));

		charge = test_peer_charge(peers, &in, &now, 5);
		KUNIT_EXPECT_TRUE(test, charge.banned);
	}
	KUNIT_EXPECT_EQ(test, 4, atomic_read(&peers->table.banned));
	KUNIT_EXPECT_EQ(test, 4, brute_peers_count(peers));
	charge = test_peer_charge(peers, &late, &now, 1);
	KUNIT_EXPECT_FALSE(test, charge.charged);
	KUNIT_EXPECT_FALSE(test, charge.banned);
	brute_peer_key_format(line, sizeof(line), &charge.key, 12345);
	KUNIT_EXPECT_STREQ(test,
			   "peer=12.0.0.1/32 netns=4026531840 transport=tcp laddr=10.0.0.1 lport=7777",
			   line);
	charge = test_peer_charge(peers, &other, &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 5, atomic_read(&peers->table.banned));
	KUNIT_EXPECT_EQ(test, 2, peers->shares);
}

/*
 * A table full of bans counts no new peer: it takes four endpoints whose
 * shares are full of bans.  Lifting a ban makes room.
 */
static void test_peers_full_of_bans(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input late = test_input_v4(9999, 0x0d000001);
	struct brute_peer_charge charge;
	struct brute_peer lift = {};
	u32 i;
	u64 now = 0;

	for (i = 0; i < 16; i++) {
		const struct brute_input in =
			test_input_v4(1000 + i / 4, 0x0b000001 + (i << 8));

		charge = test_peer_charge(peers, &in, &now, 5);
		KUNIT_EXPECT_TRUE(test, charge.banned);
	}
	KUNIT_EXPECT_EQ(test, 16, atomic_read(&peers->table.banned));
	KUNIT_EXPECT_EQ(test, 16, brute_peers_count(peers));
	charge = test_peer_charge(peers, &late, &now, 1);
	KUNIT_EXPECT_FALSE(test, charge.charged);
	lift.family = AF_INET;
	lift.prefix = 32;
	lift.addr.v4 = htonl(0x0b000001);
	KUNIT_EXPECT_EQ(test, 1, brute_peers_lift(peers, &lift, false));
	charge = test_peer_charge(peers, &late, &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_LE(test, brute_peers_count(peers), 16);
	KUNIT_EXPECT_LE(test, peers->shares, 16);
}

/*
 * An input at an endpoint in a network namespace that @owner made (root:
 * in the container whose user namespace is @userns).
 */
static struct brute_input test_input_owned(u64 net, u32 owner, u32 userns,
					   u32 addr)
{
	struct brute_input input = test_input_v4(7777, addr);

	input.endpoint.net = net;
	input.endpoint.netns = 4026532000U + net;
	input.endpoint.owner = KUIDT_INIT(owner);
	input.endpoint.userns = userns;
	input.endpoint.owned = true;
	return input;
}

/*
 * The endpoints in the network namespaces that one user made have one
 * share in all: a user who gets peers of their own making banned at
 * endpoints of their own, in four namespaces, fills that share only.
 * Another user's namespaces, a container of root's and the host's
 * endpoints still count and ban their peers.
 */
static void test_peers_user_namespaces(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input other =
		test_input_owned(9, 1001, 0, 0x0c000001);
	const struct brute_input container =
		test_input_owned(10, 0, 4026533000U, 0x0c000001);
	const struct brute_input host = test_input_v4(7777, 0x0c000001);
	struct brute_peer_charge charge;
	u64 now = 0;
	u32 i;

	for (i = 0; i < 8; i++) {
		const struct brute_input in =
			test_input_owned(2 + i / 2, 1000, 0,
					 0x0b000001 + (i << 8));

		charge = test_peer_charge(peers, &in, &now, 5);
		if (i < 4)
			KUNIT_EXPECT_TRUE(test, charge.banned);
		else
			KUNIT_EXPECT_FALSE(test, charge.charged);
	}
	KUNIT_EXPECT_EQ(test, 4, atomic_read(&peers->table.banned));
	charge = test_peer_charge(peers, &other, &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	charge = test_peer_charge(peers, &container, &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	charge = test_peer_charge(peers, &host, &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &other.endpoint, 0,
						    &other.peer, now));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &host.endpoint, 0,
						    &host.peer, now));
	KUNIT_EXPECT_EQ(test, 7, atomic_read(&peers->table.banned));
	KUNIT_EXPECT_EQ(test, 4, peers->shares);
}

/* Lifting an address lifts the bans that refuse it, on every endpoint. */
static void test_peers_lift(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	struct brute_input a = test_input_v4(7777, 0x0a000205);
	struct brute_input b = test_input_v4(22, 0x0a000205);
	struct brute_input c = test_input_v4(7777, 0x0c000001);
	struct brute_peer lift = {};
	u64 now = 0;
	u32 host;

	test_peer_charge(peers, &a, &now, 5);
	test_peer_charge(peers, &b, &now, 5);
	test_peer_charge(peers, &c, &now, 5);
	KUNIT_EXPECT_EQ(test, 3, atomic_read(&peers->table.banned));

	lift.family = AF_INET;
	lift.prefix = 32;
	lift.addr.v4 = htonl(0x0a000205);
	KUNIT_EXPECT_EQ(test, 2, brute_peers_lift(peers, &lift, false));
	KUNIT_EXPECT_EQ(test, -ENOENT, brute_peers_lift(peers, &lift, false));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &a.endpoint, 0,
						     &a.peer, now));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &c.endpoint, 0,
						    &c.peer, now));

	/* An escalated /24 is lifted by an address within it. */
	for (host = 1; host <= 4; host++) {
		a = test_input_v4(7777, 0x0a000300 + host);
		test_peer_charge(peers, &a, &now, 4);
	}
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &a.endpoint, 0,
						    &a.peer, now));
	lift.addr.v4 = htonl(0x0a000363);
	KUNIT_EXPECT_EQ(test, 1, brute_peers_lift(peers, &lift, false));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &a.endpoint, 0,
						     &a.peer, now));

	KUNIT_EXPECT_EQ(test, 1, brute_peers_lift(peers, NULL, false));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&peers->table.banned));
	brute_peers_lift(peers, NULL, true);
	KUNIT_EXPECT_EQ(test, 0, peers->table.count);
}

/* Quiet entries are forgotten; the collector says when it is due. */
static void test_peers_forget(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input in = test_input_v4(7777, 0x0a000205);
	struct brute_peer_charge charge;
	u64 now = 0;

	charge = test_peer_charge(peers, &in, &now, 3);
	KUNIT_EXPECT_EQ(test, 2, brute_peers_count(peers));
	KUNIT_EXPECT_EQ(test, now + 3600 * NSEC_PER_SEC,
			brute_table_gc(&peers->table, now + MS, 3600 * NSEC_PER_SEC));
	/* A quiet hour: the next crash starts a new count. */
	now += 3600 * NSEC_PER_SEC;
	charge = test_peer_charge(peers, &in, &now, 1);
	KUNIT_EXPECT_EQ(test, 1, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, 0, brute_table_gc(&peers->table,
						now + 3600 * NSEC_PER_SEC,
						3600 * NSEC_PER_SEC));
	/* The endpoint's entry went with its last peer's. */
	KUNIT_EXPECT_EQ(test, 0, peers->table.count);
}

/*
 * A ban stays in force when the prefix length of peers changes: the
 * lengths of the bans in force are looked up, not the current one.
 */
static void test_peers_prefix_change(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input in = test_input_v4(7777, 0x0a000205);
	struct brute_params params = peer_params;
	struct brute_peer_charge charge = {};
	u64 now = 0;

	charge = test_peer_charge(peers, &in, &now, 5);
	KUNIT_ASSERT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 1, peers->banned_v4[32]);
	/* Charged at /28 from now on: the /32 ban still refuses. */
	params.peer_prefix_v4 = 28;
	params.escalate_prefix_v4 = 16;
	brute_peers_charge(peers, &in, 0, NULL, now + MS, BAN, &params, &charge);
	KUNIT_EXPECT_EQ(test, 28, charge.key.peer.prefix);
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &in.endpoint, 0,
						    &in.peer, now + 2 * MS));
	KUNIT_EXPECT_EQ(test, 1, brute_peers_lift(peers, NULL, false));
	KUNIT_EXPECT_EQ(test, 0, peers->banned_v4[32]);
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in.endpoint, 0,
						     &in.peer, now + 3 * MS));
}

/* A peer is never banned for crashes that come slowly, however many. */
static void test_peers_no_slow_verdict(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input in = test_input_v4(7777, 0x0a000205);
	struct brute_peer_charge charge = {};
	u64 now = 0;
	int i;

	for (i = 0; i < 300; i++) {
		now += 600 * NSEC_PER_SEC;
		brute_peers_charge(peers, &in, 0, NULL, now, BAN, &peer_params,
				   &charge);
		KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	}
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in.endpoint, 0,
						     &in.peer, now));
}

/*
 * The endpoints a user made without privilege have one share in all,
 * whatever their ports; a service's endpoint has its own.  An endpoint
 * whose share holds no ban refuses nobody; one of a share that holds a ban
 * may refuse (the others of the share look their peers up).
 */
static void test_peers_plain_share(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	struct brute_peer_charge charge;
	struct brute_input in, root;
	u64 now = 0;
	u32 i;

	for (i = 0; i < 6; i++) {
		in = test_input_v4(8000 + i, 0x0b000001 + (i << 8));
		in.endpoint.owner = KUIDT_INIT(1000);
		in.endpoint.plain = true;
		/* The share's bans are every endpoint's in it. */
		KUNIT_EXPECT_EQ(test, i > 0,
				brute_peers_endpoint_banned(peers,
							    &in.endpoint, 0));
		charge = test_peer_charge(peers, &in, &now, 5);
		if (i < 4)
			KUNIT_EXPECT_TRUE(test, charge.banned);
		else
			KUNIT_EXPECT_FALSE(test, charge.charged);
	}
	KUNIT_EXPECT_TRUE(test, brute_peers_endpoint_banned(peers,
							    &in.endpoint, 0));
	root = test_input_v4(8100, 0x0c000001);
	KUNIT_EXPECT_FALSE(test, brute_peers_endpoint_banned(peers,
							     &root.endpoint, 0));
	charge = test_peer_charge(peers, &root, &now, 5);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_TRUE(test, brute_peers_endpoint_banned(peers,
							    &root.endpoint, 0));
	KUNIT_EXPECT_EQ(test, 2, peers->shares);
	KUNIT_EXPECT_EQ(test, 5, atomic_read(&peers->table.banned));
}

#define LAYOUT 0x100000001ULL

/* Four crashes from each of 10.0.2.1-4 at port 7777, until the /24's ban. */
static struct brute_peer_charge test_escalate(struct brute_peers *peers,
					      u64 *now)
{
	struct brute_peer_charge charge = {};
	u32 host;

	for (host = 1; host <= 4 && !charge.escalated; host++) {
		const struct brute_input in = test_input_v4(7777,
							    0x0a000200 + host);

		charge = test_peer_charge(peers, &in, now, 4);
	}
	return charge;
}

/*
 * One layout behind three ports: one address's crashes of it count
 * together, 2 + 2 + 1, and the fifth bans the address from every endpoint
 * the layout serves -- an endpoint it crashed at, one it did not, one
 * opened after the ban -- and, outliving the layout, from the endpoint of
 * the verdict.  Another layout of the same endpoints, another address, are
 * not refused.
 */
static void test_peers_layout(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	/* Four inputs are too large for the stack frame. */
	struct brute_input *in = kunit_kcalloc(test, 4, sizeof(*in),
					       GFP_KERNEL);
	const struct brute_endpoint later = test_endpoint(25);
	struct brute_peer_charge charge;
	struct brute_peer lift;
	u64 now = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, in);
	in[0] = test_input_v4(80, 0x0a000205);
	in[1] = test_input_v4(443, 0x0a000205);
	in[2] = test_input_v4(8443, 0x0a000205);
	in[3] = test_input_v4(80, 0x0a000206);
	charge = test_layout_charge(peers, &in[0], LAYOUT, &now, 2);
	charge = test_layout_charge(peers, &in[1], LAYOUT, &now, 2);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	KUNIT_EXPECT_FALSE(test, brute_peers_endpoint_banned(peers, &later,
							     LAYOUT));
	charge = test_layout_charge(peers, &in[2], LAYOUT, &now, 1);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST, charge.verdict);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, LAYOUT, charge.layout);
	KUNIT_EXPECT_EQ(test, 5, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, 1, peers->layout_bans);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers,
							    &in[i].endpoint,
							    LAYOUT,
							    &in[i].peer, now));
	KUNIT_EXPECT_TRUE(test, brute_peers_endpoint_banned(peers, &later,
							    LAYOUT));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &later, LAYOUT,
						    &in[0].peer, now));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &in[2].endpoint, 0,
						    &in[2].peer, now));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in[0].endpoint,
						     LAYOUT + 1, &in[0].peer,
						     now));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &later, 0,
						     &in[0].peer, now));
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &in[3].endpoint,
						     LAYOUT, &in[3].peer, now));
	/* Lifting the address lifts both. */
	lift = in[0].peer;
	lift.prefix = 32;
	KUNIT_EXPECT_EQ(test, 2, brute_peers_lift(peers, &lift, false));
	KUNIT_EXPECT_EQ(test, 0, peers->layout_bans);
}

/* A fresh layout (a service executed again) counts afresh. */
static void test_peers_layout_fresh(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input a = test_input_v4(80, 0x0a000205);
	const struct brute_input b = test_input_v4(443, 0x0a000205);
	struct brute_peer_charge charge;
	u64 now = 0;

	charge = test_layout_charge(peers, &a, LAYOUT, &now, 4);
	charge = test_layout_charge(peers, &b, LAYOUT + 1, &now, 3);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers, &b.endpoint,
						     LAYOUT + 1, &b.peer, now));
	/* The endpoint's own count still bans at its fifth. */
	charge = test_layout_charge(peers, &a, LAYOUT + 1, &now, 1);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 0, charge.layout);
	KUNIT_EXPECT_EQ(test, 0, peers->layout_bans);
}

/*
 * A /24 escalated by four attacking addresses spares the address the
 * endpoint served before without a crash, until it crashes the service
 * itself; a fresh address of the /24, and a served address that crashed,
 * are refused.
 */
static void test_peers_prefix_spares_served(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	const struct brute_input bystander = test_input_v4(7777, 0x0a0002c8);
	const struct brute_input fresh = test_input_v4(7777, 0x0a0002c9);
	const struct brute_input crashed = test_input_v4(7777, 0x0a0002ca);
	struct brute_peer_charge charge;
	u64 now = 0;

	brute_peers_serve(peers, &bystander.endpoint, &bystander.peer, now);
	brute_peers_serve(peers, &crashed.endpoint, &crashed.peer, now);
	test_peer_charge(peers, &crashed, &now, 1);
	charge = test_escalate(peers, &now);
	KUNIT_ASSERT_TRUE(test, charge.escalated);
	KUNIT_EXPECT_FALSE(test, brute_peers_refused(peers,
						     &bystander.endpoint, 0,
						     &bystander.peer, now));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &fresh.endpoint, 0,
						    &fresh.peer, now));
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers, &crashed.endpoint,
						    0, &crashed.peer, now));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&peers->served_forgotten));
	/* Its crash makes it a candidate like any other. */
	test_peer_charge(peers, &bystander, &now, 1);
	KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers,
						    &bystander.endpoint, 0,
						    &bystander.peer, now));
}

/*
 * An attacker who warms every address of a /24 first gets one crash per
 * warmed address after the prefix's ban, then the address is refused:
 * the backstop bounds the crashes of a layout, as for any number of
 * addresses.  The endpoint's slots of served peers are bounded: the
 * addresses whose slot another took are forgotten (refused) and counted.
 */
static void test_peers_served_warmed(struct kunit *test)
{
	struct brute_peers *peers = test->priv;
	struct brute_peer_charge charge;
	unsigned int spared = 0, refused = 0;
	u64 now = 0;
	u32 host;

	for (host = 1; host <= 254; host++) {
		const struct brute_input in = test_input_v4(7777,
							    0x0a000200 + host);

		brute_peers_serve(peers, &in.endpoint, &in.peer, now);
	}
	KUNIT_EXPECT_GT(test, atomic_read(&peers->served_forgotten), 0);
	charge = test_escalate(peers, &now);
	KUNIT_ASSERT_TRUE(test, charge.escalated);
	for (host = 5; host <= 254; host++) {
		const struct brute_input in = test_input_v4(7777,
							    0x0a000200 + host);

		if (brute_peers_refused(peers, &in.endpoint, 0, &in.peer,
					now)) {
			refused++;
			continue;
		}
		spared++;
		test_peer_charge(peers, &in, &now, 1);
		KUNIT_EXPECT_TRUE(test, brute_peers_refused(peers,
							    &in.endpoint, 0,
							    &in.peer, now));
	}
	KUNIT_EXPECT_EQ(test, 250, spared + refused);
	KUNIT_EXPECT_GT(test, spared, 0);
	KUNIT_EXPECT_LE(test, refused,
			atomic_read(&peers->served_forgotten));
}

static struct kunit_case test_peers_cases[] = {
	KUNIT_CASE(test_peers_ban),
	KUNIT_CASE(test_peers_escalate),
	KUNIT_CASE(test_peers_escalate_unbanned),
	KUNIT_CASE(test_peers_v6_and_unix),
	KUNIT_CASE(test_peers_capacity),
	KUNIT_CASE(test_peers_share),
	KUNIT_CASE(test_peers_user_namespaces),
	KUNIT_CASE(test_peers_full_of_bans),
	KUNIT_CASE(test_peers_lift),
	KUNIT_CASE(test_peers_forget),
	KUNIT_CASE(test_peers_prefix_change),
	KUNIT_CASE(test_peers_no_slow_verdict),
	KUNIT_CASE(test_peers_plain_share),
	KUNIT_CASE(test_peers_layout),
	KUNIT_CASE(test_peers_layout_fresh),
	KUNIT_CASE(test_peers_prefix_spares_served),
	KUNIT_CASE(test_peers_served_warmed),
	{}
};

static struct kunit_suite test_peers_suite = {
	.name = "brute_peers",
	.init = test_peers_init,
	.exit = test_peers_exit,
	.test_cases = test_peers_cases,
};

kunit_test_suite(test_peers_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
