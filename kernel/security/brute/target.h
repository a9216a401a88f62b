/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Exec attacks: the (user, target) table and its bans
 */

#ifndef _SECURITY_BRUTE_TARGET_H
#define _SECURITY_BRUTE_TARGET_H

#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "detect.h"

#define BRUTE_TARGET_NAME_LEN 32
#define BRUTE_TARGETS_HASH_BITS 10

/**
 * struct brute_target_key - Who attacks what
 * @uid: The attacker: the real user ID saved at the execve() that started
 *       the crashing image (a kernel ID: the initial user namespace's).
 * @dev: The device of the target executable (its superblock's s_dev).
 * @ino: The inode number of the target executable.
 */
struct brute_target_key {
	kuid_t uid;
	dev_t dev;
	u64 ino;
};

/**
 * struct brute_target - The crash statistics of one user on one target
 * @hash: Node in the hash table, for RCU lookups.
 * @lru: Node in the list of entries, least recently charged first.
 * @rcu: Frees the entry after a grace period.
 * @key: The user and the target.
 * @stats: Crash statistics: each crashing hierarchy charges one crash.
 * @ban_until_ns: End of the ban (ktime_get_ns()), or 0 if not banned.
 *                Written under the table lock, read locklessly.
 * @denied: execve() calls refused by the ban.
 * @attacks: Verdicts on the entry.
 * @name: The target's file name, truncated, for the operator.
 */
struct brute_target {
	struct hlist_node hash;
	struct list_head lru;
	struct rcu_head rcu;
	struct brute_target_key key;
	struct brute_stats stats;
	u64 ban_until_ns;
	atomic_t denied;
	u32 attacks;
	char name[BRUTE_TARGET_NAME_LEN];
};

/**
 * struct brute_targets - A (user, target) table
 * @lock: Serializes writers; readers use RCU.
 * @hash: Entries by key.
 * @lru: Entries, least recently charged first.
 * @count: Number of entries.
 * @banned: Number of entries with a ban, expired or not; execve() looks
 *          nothing up while it is zero.
 * @next_gc_ns: When the collector is due next, or 0 if not scheduled.
 * @gc: The collector that ends bans and forgets quiet entries, or NULL
 *      (KUnit tables run it by hand).
 */
struct brute_targets {
	spinlock_t lock; /* Serializes writers; readers use RCU. */
	struct hlist_head hash[1 << BRUTE_TARGETS_HASH_BITS];
	struct list_head lru;
	unsigned int count;
	atomic_t banned;
	u64 next_gc_ns;
	struct delayed_work *gc;
};

/**
 * struct brute_target_charge - The outcome of a charge
 * @charged: The crash was counted (false: no memory, or the table is full
 *           of bans).
 * @verdict: A new verdict on the entry, or BRUTE_VERDICT_NONE.
 * @banned: The verdict banned the target for the user.
 * @stats: The entry's statistics, before a verdict restarted them.
 * @period_ns: The period this crash added.
 */
struct brute_target_charge {
	bool charged;
	enum brute_verdict verdict;
	bool banned;
	struct brute_stats stats;
	u64 period_ns;
};

/**
 * enum brute_unban_reason - Why a ban ended
 * @BRUTE_UNBAN_EXPIRED: Its time ran out.
 * @BRUTE_UNBAN_LIFTED: Root lifted it.
 * @BRUTE_UNBAN_EVICTED: The table was full of bans: the banned user's own
 *                       oldest ban made room for their next entry.
 */
enum brute_unban_reason {
	BRUTE_UNBAN_EXPIRED,
	BRUTE_UNBAN_LIFTED,
	BRUTE_UNBAN_EVICTED,
};

extern struct brute_targets brute_targets;

void brute_targets_init(struct brute_targets *targets,
			struct delayed_work *gc);
void brute_targets_charge(struct brute_targets *targets,
			  const struct brute_target_key *key, const char *name,
			  u64 now, u64 start, u64 ban_ns,
			  const struct brute_params *params,
			  struct brute_target_charge *charge);
bool brute_targets_denied(struct brute_targets *targets,
			  const struct brute_target_key *key, u64 now);
int brute_targets_lift(struct brute_targets *targets,
		       const struct brute_target_key *key, bool flush);
u64 brute_targets_gc(struct brute_targets *targets, u64 now, u64 forget_ns);
void brute_targets_show(struct brute_targets *targets, struct seq_file *m,
			u64 now);
void brute_targets_destroy(struct brute_targets *targets);
void __init brute_targets_setup(void);

#endif /* _SECURITY_BRUTE_TARGET_H */
