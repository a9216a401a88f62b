/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Bounded tables of crash statistics with temporary bans
 */

#ifndef _SECURITY_BRUTE_TABLE_H
#define _SECURITY_BRUTE_TABLE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "detect.h"

#define BRUTE_TABLE_HASH_BITS 10

struct brute_table;

/**
 * enum brute_unban_reason - Why a ban ended
 * @BRUTE_UNBAN_EXPIRED: Its time ran out.
 * @BRUTE_UNBAN_LIFTED: Root lifted it.
 *
 * Bans are never evicted: a table makes room with entries that have none.
 */
enum brute_unban_reason {
	BRUTE_UNBAN_EXPIRED,
	BRUTE_UNBAN_LIFTED,
};

/**
 * struct brute_entry - What every entry of a table has
 * @hash: Node in the hash table, for RCU lookups.
 * @lru: Node in the list of entries, least recently charged first.
 * @rcu: Frees the entry after a grace period.
 * @stats: Crash statistics.
 * @ban_until_ns: End of the ban (ktime_get_ns()), or 0 if not banned.
 *                Written under the table lock, read locklessly.
 * @denied: Requests the ban refused.
 * @attacks: Verdicts on the entry.
 * @bucket: Hash bucket of the entry's key.
 *
 * It is the first member of the entry types of the tables (kfree() of an
 * entry frees the whole object).
 */
struct brute_entry {
	struct hlist_node hash;
	struct list_head lru;
	struct rcu_head rcu;
	struct brute_stats stats;
	u64 ban_until_ns;
	atomic_t denied;
	u32 attacks;
	u32 bucket;
};

/**
 * struct brute_table_ops - What a table does with its entries
 * @match: Tell whether an entry has a key.
 * @release: Report the end of the ban of an entry that leaves the table;
 *           called without the table lock, in task context, before the
 *           entry is freed.
 * @forget: An entry without a ban may go (its statistics are older than
 *          forget_time_s, or the table needs room) unless this returns
 *          false: an entry other entries depend on.  May be NULL.
 * @detach: The entry leaves the table; called with the table lock held.
 *          May be NULL.
 */
struct brute_table_ops {
	bool (*match)(const struct brute_entry *entry, const void *key);
	void (*release)(struct brute_entry *entry,
			enum brute_unban_reason reason);
	bool (*forget)(struct brute_entry *entry);
	void (*detach)(struct brute_table *table, struct brute_entry *entry);
};

/**
 * struct brute_table - A bounded table of crash statistics
 * @lock: Serializes writers; readers use RCU.
 * @hash: Entries by key.
 * @lru: Entries, least recently charged first.
 * @count: Number of entries.
 * @banned: Number of entries with a ban, expired or not: lookups on the
 *          paths a ban guards are skipped while it is zero.
 * @next_gc_ns: When the collector is due next, or 0 if not scheduled.
 * @gc: The delayed work that ends bans and forgets quiet entries, or NULL
 *      (KUnit tables run the collector by hand).
 * @ops: What the table does with its entries.
 */
struct brute_table {
	spinlock_t lock; /* Serializes writers; readers use RCU. */
	struct hlist_head hash[1 << BRUTE_TABLE_HASH_BITS];
	struct list_head lru;
	unsigned int count;
	atomic_t banned;
	u64 next_gc_ns;
	struct delayed_work *gc;
	const struct brute_table_ops *ops;
};

void brute_table_init(struct brute_table *table, struct delayed_work *gc,
		      const struct brute_table_ops *ops);
struct brute_entry *brute_table_lookup(struct brute_table *table, u32 bucket,
				       const void *key);
void brute_table_insert(struct brute_table *table, struct brute_entry *entry,
			u32 bucket);
void brute_table_touch(struct brute_table *table, struct brute_entry *entry);
void brute_table_unlink(struct brute_table *table, struct brute_entry *entry);
void brute_table_ban(struct brute_table *table, struct brute_entry *entry,
		     u64 now, u64 ban_ns);
void brute_table_due(struct brute_table *table, u64 now, u64 when);
bool brute_table_evict(struct brute_table *table,
		       bool (*pick)(const struct brute_entry *entry,
				    const void *arg),
		       const void *arg);
u64 brute_table_gc(struct brute_table *table, u64 now, u64 forget_ns);
int brute_table_lift(struct brute_table *table,
		     bool (*pick)(const struct brute_entry *entry,
				  const void *arg),
		     const void *arg, bool flush);
void brute_table_release(struct brute_table *table, struct list_head *list,
			 enum brute_unban_reason reason);
void brute_table_destroy(struct brute_table *table);

/**
 * brute_table_banned() - Tell whether a table may hold a ban
 * @table: The table.
 *
 * Return: False when no entry has a ban: the caller looks nothing up.
 */
static inline bool brute_table_banned(const struct brute_table *table)
{
	return atomic_read(&table->banned);
}

/**
 * brute_entry_banned() - Tell whether an entry has a ban in force
 * @entry: An entry, under RCU or the table lock.
 * @now: The current time, from ktime_get_ns().
 *
 * Return: True if its ban lasts beyond @now.
 */
static inline bool brute_entry_banned(const struct brute_entry *entry,
				      u64 now)
{
	return READ_ONCE(entry->ban_until_ns) > now;
}

#endif /* _SECURITY_BRUTE_TABLE_H */
