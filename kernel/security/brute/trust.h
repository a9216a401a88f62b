/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Trusted peers: proxies, load balancers, NAT gateways
 */

#ifndef _SECURITY_BRUTE_TRUST_H
#define _SECURITY_BRUTE_TRUST_H

#include <linux/atomic.h>
#include <linux/in6.h>
#include <linux/init.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "peer.h"

/* Entries of the trusted list, at most. */
#define BRUTE_TRUST_MAX 1024
/* Bytes of one write to the trusted file (one transaction), at most. */
#define BRUTE_TRUST_WRITE_MAX 131072

/**
 * struct brute_trust_entry - A trusted peer, and where it is trusted
 * @family: AF_INET or AF_INET6 (an address prefix), or AF_UNIX (a range of
 *          local users).
 * @prefix: The prefix length of an address.
 * @addr: The address, masked to @prefix bits.
 * @uid_first: With AF_UNIX, the first kernel user ID of the range.
 * @uid_last: With AF_UNIX, the last one.
 * @netns: The inode number of the network namespace where it is trusted;
 *         0 for every one.
 * @lport: The port of the endpoint where it is trusted; 0 for every one.
 * @laddr_set: @laddr is given: only the listener bound to it.
 * @laddr: The address the endpoint's listener is bound to (IPv4 in an
 *         IPv4-mapped IPv6 address).
 * @crashes: Crashes not charged because of this entry.
 */
struct brute_trust_entry {
	u16 family;
	u16 prefix;
	struct in6_addr addr;
	u32 uid_first;
	u32 uid_last;
	u32 netns;
	u16 lport;
	bool laddr_set;
	struct in6_addr laddr;
	atomic_t crashes;
};

/**
 * struct brute_trust - A trusted list, replaced whole on every change
 * @rcu: Frees it after a grace period.
 * @count: Its entries.
 * @entries: The entries, in the order they were added.
 */
struct brute_trust {
	struct rcu_head rcu;
	unsigned int count;
	struct brute_trust_entry entries[] __counted_by(count);
};

/**
 * struct brute_trust_update - What a transaction changed
 * @added: Entries added.
 * @removed: Entries removed.
 * @entries: Entries in the list afterwards.
 */
struct brute_trust_update {
	unsigned int added;
	unsigned int removed;
	unsigned int entries;
};

int brute_trust_parse_prefix(char *s, u16 *family, u16 *prefix,
			     struct in6_addr *addr, bool allow_len);
int brute_trust_write(char *buf, struct brute_trust_update *update);
void brute_trust_show(struct seq_file *m);
unsigned int brute_trust_count(void);
bool brute_trust_peer(const struct brute_input *input, u32 uid_max,
		      bool count);
void brute_trust_flush(void);

#endif /* _SECURITY_BRUTE_TRUST_H */
