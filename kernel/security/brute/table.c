// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Bounded tables of crash statistics with temporary bans
 *
 * The (user, target) table of exec attacks and the table of peers share
 * this: entries in an RCU hash table and in a list, least recently charged
 * first; bans that end by themselves; a collector that ends bans and
 * forgets entries without a crash for forget_time_s.  What a key is, how a
 * crash is charged and who may make room for whom is each table's own.
 *
 * Writers (a crash, the collector, a lift) take the table lock; the paths a
 * ban guards (execve(), connection requests, receives) look up under RCU,
 * and only while some ban exists.
 */

#include <linux/slab.h>

#include "common.h"
#include "table.h"

/**
 * brute_table_init() - Initialize a table
 * @table: The table.
 * @gc: The delayed work that runs the collector, or NULL.
 * @ops: What the table does with its entries.
 */
void brute_table_init(struct brute_table *table, struct delayed_work *gc,
		      const struct brute_table_ops *ops)
{
	size_t i;

	spin_lock_init(&table->lock);
	for (i = 0; i < ARRAY_SIZE(table->hash); i++)
		INIT_HLIST_HEAD(&table->hash[i]);
	INIT_LIST_HEAD(&table->lru);
	table->count = 0;
	atomic_set(&table->banned, 0);
	table->next_gc_ns = 0;
	table->gc = gc;
	table->ops = ops;
}

/**
 * brute_table_lookup() - Find an entry
 * @table: The table.
 * @bucket: The hash bucket of @key.
 * @key: The key, as the table's match operation takes it.
 *
 * Context: Under rcu_read_lock() or the table lock.
 * Return: The entry, or NULL.
 */
struct brute_entry *brute_table_lookup(struct brute_table *table, u32 bucket,
				       const void *key)
{
	struct brute_entry *entry;

	hlist_for_each_entry_rcu(entry, &table->hash[bucket], hash,
				 lockdep_is_held(&table->lock)) {
		if (table->ops->match(entry, key))
			return entry;
	}
	return NULL;
}

/**
 * brute_table_insert() - Add an entry, the most recently charged
 * @table: The table, locked.
 * @entry: The new entry, its key set.
 * @bucket: The hash bucket of its key.
 */
void brute_table_insert(struct brute_table *table, struct brute_entry *entry,
			u32 bucket)
{
	lockdep_assert_held(&table->lock);
	entry->bucket = bucket;
	atomic_set(&entry->denied, 0);
	hlist_add_head_rcu(&entry->hash, &table->hash[bucket]);
	list_add_tail(&entry->lru, &table->lru);
	WRITE_ONCE(table->count, table->count + 1);
}

/**
 * brute_table_touch() - Make an entry the most recently charged
 * @table: The table, locked.
 * @entry: The entry.
 */
void brute_table_touch(struct brute_table *table, struct brute_entry *entry)
{
	lockdep_assert_held(&table->lock);
	list_move_tail(&entry->lru, &table->lru);
}

/**
 * brute_table_unlink() - Take an entry out of a table
 * @table: The table, locked.
 * @entry: The entry.
 *
 * Lockless readers may still see it until a grace period ends: its key,
 * ban and counters stay as they are; only its list node is the caller's to
 * reuse (to release it after the lock, or to free it with kfree_rcu()).
 */
void brute_table_unlink(struct brute_table *table, struct brute_entry *entry)
{
	lockdep_assert_held(&table->lock);
	if (table->ops->detach)
		table->ops->detach(table, entry);
	hlist_del_rcu(&entry->hash);
	list_del(&entry->lru);
	WRITE_ONCE(table->count, table->count - 1);
	if (entry->ban_until_ns)
		atomic_dec(&table->banned);
}

/**
 * brute_table_due() - Make sure the collector runs at a time at the latest
 * @table: The table, locked.
 * @now: The current time, from ktime_get_ns().
 * @when: When it must run.
 */
void brute_table_due(struct brute_table *table, u64 now, u64 when)
{
	lockdep_assert_held(&table->lock);
	if (!table->gc || (table->next_gc_ns && table->next_gc_ns <= when))
		return;
	table->next_gc_ns = when;
	mod_delayed_work(system_wq, table->gc,
			 nsecs_to_jiffies(when > now ? when - now : 0) + 1);
}

/**
 * brute_table_ban() - Ban an entry, or extend its ban
 * @table: The table, locked.
 * @entry: The entry.
 * @now: The current time, from ktime_get_ns().
 * @ban_ns: How long, from @now.
 */
void brute_table_ban(struct brute_table *table, struct brute_entry *entry,
		     u64 now, u64 ban_ns)
{
	lockdep_assert_held(&table->lock);
	if (!entry->ban_until_ns)
		atomic_inc(&table->banned);
	WRITE_ONCE(entry->ban_until_ns, now + ban_ns);
	brute_table_due(table, now, now + ban_ns);
}

static bool brute_table_may_forget(struct brute_table *table,
				   struct brute_entry *entry)
{
	return !entry->ban_until_ns &&
	       (!table->ops->forget || table->ops->forget(entry));
}

/**
 * brute_table_evict() - Make room for one entry
 * @table: The table, locked.
 * @pick: Which entries may go: a predicate on an entry and @arg, or NULL
 *        for any.
 * @arg: The predicate's argument.
 *
 * The least recently charged entry that has no ban, that the table lets go
 * and that @pick picks goes.  A ban is never evicted.
 *
 * Return: True if an entry went.
 */
bool brute_table_evict(struct brute_table *table,
		       bool (*pick)(const struct brute_entry *entry,
				    const void *arg),
		       const void *arg)
{
	struct brute_entry *entry;

	list_for_each_entry(entry, &table->lru, lru) {
		if ((!pick || pick(entry, arg)) &&
		    brute_table_may_forget(table, entry)) {
			brute_table_unlink(table, entry);
			kfree_rcu(entry, rcu);
			return true;
		}
	}
	return false;
}

/**
 * brute_table_release() - Report and free unlinked entries that were banned
 * @table: The table, not locked.
 * @list: The entries, linked by their list node.
 * @reason: Why their bans ended.
 */
void brute_table_release(struct brute_table *table, struct list_head *list,
			 enum brute_unban_reason reason)
{
	struct brute_entry *entry, *next;

	list_for_each_entry_safe(entry, next, list, lru) {
		list_del(&entry->lru);
		table->ops->release(entry, reason);
		kfree_rcu(entry, rcu);
	}
}

/**
 * brute_table_gc() - End expired bans and forget quiet entries
 * @table: The table.
 * @now: The current time, from ktime_get_ns().
 * @forget_ns: How long an entry without a crash is kept.
 *
 * Reschedules itself for the next ban to end or entry to forget.
 *
 * Context: Task context.
 * Return: When the next one is due, or 0 if there is none.
 */
u64 brute_table_gc(struct brute_table *table, u64 now, u64 forget_ns)
{
	struct brute_entry *entry, *next;
	LIST_HEAD(expired);
	u64 due, next_due = 0;

	spin_lock(&table->lock);
	list_for_each_entry_safe(entry, next, &table->lru, lru) {
		if (entry->ban_until_ns) {
			due = entry->ban_until_ns;
			if (due <= now) {
				brute_table_unlink(table, entry);
				list_add_tail(&entry->lru, &expired);
				continue;
			}
		} else {
			due = entry->stats.last_ns + forget_ns;
			if (due <= now) {
				if (brute_table_may_forget(table, entry)) {
					brute_table_unlink(table, entry);
					kfree_rcu(entry, rcu);
					continue;
				}
				/* Kept for its dependents: look again later. */
				due = now + forget_ns;
			}
		}
		if (!next_due || due < next_due)
			next_due = due;
	}
	table->next_gc_ns = 0;
	if (next_due)
		brute_table_due(table, now, next_due);
	spin_unlock(&table->lock);
	brute_table_release(table, &expired, BRUTE_UNBAN_EXPIRED);
	return next_due;
}

/**
 * brute_table_lift() - Lift bans
 * @table: The table.
 * @pick: Which entries: a predicate on an entry and @arg, or NULL for all.
 * @arg: The predicate's argument.
 * @flush: Forget the picked entries that have no ban too.
 *
 * The entries go with their bans: their counts start afresh.
 *
 * Context: Task context.
 * Return: The number of bans lifted, or -ENOENT if there was none (never
 * with @flush).
 */
int brute_table_lift(struct brute_table *table,
		     bool (*pick)(const struct brute_entry *entry,
				  const void *arg),
		     const void *arg, bool flush)
{
	struct brute_entry *entry, *next;
	LIST_HEAD(lifted);
	int count = 0;

	spin_lock(&table->lock);
	list_for_each_entry_safe(entry, next, &table->lru, lru) {
		if (pick && !pick(entry, arg))
			continue;
		if (!entry->ban_until_ns) {
			if (flush) {
				brute_table_unlink(table, entry);
				kfree_rcu(entry, rcu);
			}
			continue;
		}
		brute_table_unlink(table, entry);
		list_add_tail(&entry->lru, &lifted);
		count++;
	}
	spin_unlock(&table->lock);
	brute_table_release(table, &lifted, BRUTE_UNBAN_LIFTED);
	return count || flush ? count : -ENOENT;
}

/**
 * brute_table_destroy() - Free every entry of a table, reporting nothing
 * @table: The table, which nobody uses any more.
 */
void brute_table_destroy(struct brute_table *table)
{
	struct brute_entry *entry, *next;

	spin_lock(&table->lock);
	list_for_each_entry_safe(entry, next, &table->lru, lru) {
		brute_table_unlink(table, entry);
		kfree_rcu(entry, rcu);
	}
	spin_unlock(&table->lock);
}
