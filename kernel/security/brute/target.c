// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Exec attacks: the (user, target) table and its bans
 *
 * An exec attack runs a target again and again, each attempt a new image,
 * hence a new hierarchy, that crashes once.  Each crashing hierarchy charges
 * one crash to the entry of its user (the real user ID saved when its image
 * was executed) and its executable (the inode), whichever process started
 * it: an attacker cannot shed the count by re-executing itself, by running
 * each attempt through a helper or from a fresh process.
 *
 * The table is bounded (table_size entries: when it is full, the least
 * recently charged entry that is not banned goes), and an entry is forgotten
 * after forget_time_s without a crash.  A verdict in kill mode bans the
 * target for the user for ban_time_s: execve() of it fails with EPERM.  A
 * ban is never permanent and only ever concerns the user whose images
 * crashed; root lists and lifts bans through securityfs.
 *
 * Writers (a crash, the collector, a lift) take the table lock; execve()
 * looks up without a lock, under RCU, and only while some ban exists.
 */

#include <linux/bug.h>
#include <linux/hash.h>
#include <linux/kdev_t.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include "audit.h"
#include "common.h"
#include "sysctl.h"
#include "target.h"

static void brute_targets_gc_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(brute_targets_gc_dwork, brute_targets_gc_work);

/* The table of the running system. */
struct brute_targets brute_targets;

/*
 * Entries have their own cache: charged to the memory cgroup of the crashing
 * task, and a target of its own for fault injection (failslab's cache
 * filter).  kfree() and kfree_rcu() free its objects.
 */
static struct kmem_cache *brute_target_cache __ro_after_init;

static u32 brute_target_hash(const struct brute_target_key *key)
{
	return hash_64(key->ino ^ ((u64)key->dev << 32) ^
		       ((u64)__kuid_val(key->uid) << 16),
		       BRUTE_TARGETS_HASH_BITS);
}

static bool brute_target_key_eq(const struct brute_target_key *a,
				const struct brute_target_key *b)
{
	return uid_eq(a->uid, b->uid) && a->dev == b->dev && a->ino == b->ino;
}

static struct brute_target *
brute_target_lookup(struct brute_targets *targets,
		    const struct brute_target_key *key)
{
	struct brute_target *entry;

	hlist_for_each_entry_rcu(entry,
				 &targets->hash[brute_target_hash(key)], hash,
				 lockdep_is_held(&targets->lock)) {
		if (brute_target_key_eq(&entry->key, key))
			return entry;
	}
	return NULL;
}

/*
 * Take an entry out of the table.  Lockless readers may still see it until
 * a grace period ends: its key, ban and counter stay as they are, only its
 * list node is reused by the caller.
 */
static void brute_target_unlink(struct brute_targets *targets,
				struct brute_target *entry)
{
	lockdep_assert_held(&targets->lock);
	hlist_del_rcu(&entry->hash);
	list_del(&entry->lru);
	WRITE_ONCE(targets->count, targets->count - 1);
	if (entry->ban_until_ns)
		atomic_dec(&targets->banned);
}

/* Report and free unlinked entries that were banned. */
static void brute_targets_release(struct list_head *list,
				  enum brute_unban_reason reason)
{
	struct brute_target *entry, *next;

	list_for_each_entry_safe(entry, next, list, lru) {
		list_del(&entry->lru);
		brute_audit_unban(entry, reason);
		kfree_rcu(entry, rcu);
	}
}

/*
 * Make room for one entry: the least recently charged entry that is not
 * banned goes.  If every entry is banned, the least recently charged ban of
 * @uid goes (its end reported): a user who filled the table with bans on
 * their own programs loses one of them, never the count of another user's
 * attack.
 *
 * Return: True if an entry went.
 */
static bool brute_targets_evict(struct brute_targets *targets, kuid_t uid,
				struct list_head *evicted)
{
	struct brute_target *entry;

	list_for_each_entry(entry, &targets->lru, lru) {
		if (!entry->ban_until_ns) {
			brute_target_unlink(targets, entry);
			kfree_rcu(entry, rcu);
			return true;
		}
	}
	list_for_each_entry(entry, &targets->lru, lru) {
		if (uid_eq(entry->key.uid, uid)) {
			brute_target_unlink(targets, entry);
			list_add(&entry->lru, evicted);
			return true;
		}
	}
	return false;
}

/* Make sure the collector runs at @when at the latest. */
static void brute_targets_due(struct brute_targets *targets, u64 now,
			      u64 when)
{
	lockdep_assert_held(&targets->lock);
	if (!targets->gc || (targets->next_gc_ns && targets->next_gc_ns <= when))
		return;
	targets->next_gc_ns = when;
	mod_delayed_work(system_wq, targets->gc,
			 nsecs_to_jiffies(when > now ? when - now : 0) + 1);
}

/**
 * brute_targets_init() - Initialize a table
 * @targets: The table.
 * @gc: The delayed work that runs the collector, or NULL.
 */
void brute_targets_init(struct brute_targets *targets,
			struct delayed_work *gc)
{
	size_t i;

	spin_lock_init(&targets->lock);
	for (i = 0; i < ARRAY_SIZE(targets->hash); i++)
		INIT_HLIST_HEAD(&targets->hash[i]);
	INIT_LIST_HEAD(&targets->lru);
	targets->count = 0;
	atomic_set(&targets->banned, 0);
	targets->next_gc_ns = 0;
	targets->gc = gc;
}

/**
 * brute_targets_charge() - Count a crash against a user and a target
 * @targets: The table.
 * @key: The user and the target.
 * @name: The target's file name.
 * @now: Time of the crash, from ktime_get_ns().
 * @start: When the crashing image started: the first period of a new (or
 *         forgotten) entry runs from there.
 * @ban_ns: How long a verdict bans the target for the user; 0: no ban.
 * @params: Detection parameters.
 * @charge: The outcome.
 *
 * A verdict restarts the entry's statistics, so that an attack that goes on
 * is detected again rather than latched.
 *
 * Context: Task context: may sleep (allocates with GFP_KERNEL_ACCOUNT,
 * charged to the crashing task's memory cgroup).
 */
void brute_targets_charge(struct brute_targets *targets,
			  const struct brute_target_key *key, const char *name,
			  u64 now, u64 start, u64 ban_ns,
			  const struct brute_params *params,
			  struct brute_target_charge *charge)
{
	const u64 forget_ns = (u64)params->forget_time_s * NSEC_PER_SEC;
	struct brute_target *entry, *new;
	LIST_HEAD(evicted);

	memset(charge, 0, sizeof(*charge));
	new = kmem_cache_zalloc(brute_target_cache,
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN);

	spin_lock(&targets->lock);
	entry = brute_target_lookup(targets, key);
	if (entry) {
		list_move_tail(&entry->lru, &targets->lru);
		if (!entry->ban_until_ns &&
		    now - entry->stats.last_ns >= forget_ns)
			brute_stats_reset(&entry->stats, start);
	} else {
		if (!new)
			goto out;
		if (targets->count >= params->table_size &&
		    !brute_targets_evict(targets, key->uid, &evicted))
			goto out;
		entry = new;
		new = NULL;
		entry->key = *key;
		strscpy(entry->name, name, sizeof(entry->name));
		atomic_set(&entry->denied, 0);
		brute_stats_reset(&entry->stats, start);
		hlist_add_head_rcu(&entry->hash,
				   &targets->hash[brute_target_hash(key)]);
		list_add_tail(&entry->lru, &targets->lru);
		WRITE_ONCE(targets->count, targets->count + 1);
	}

	charge->charged = true;
	charge->period_ns = brute_stats_update(&entry->stats, now, params);
	charge->stats = entry->stats;
	charge->verdict = brute_verdict(&entry->stats, params);
	if (charge->verdict != BRUTE_VERDICT_NONE) {
		brute_stats_reset(&entry->stats, now);
		entry->attacks++;
		if (ban_ns) {
			if (!entry->ban_until_ns)
				atomic_inc(&targets->banned);
			WRITE_ONCE(entry->ban_until_ns, now + ban_ns);
			charge->banned = true;
			brute_targets_due(targets, now, now + ban_ns);
		}
	}
	if (!charge->banned)
		brute_targets_due(targets, now, now + forget_ns);
out:
	spin_unlock(&targets->lock);
	kfree(new);
	brute_targets_release(&evicted, BRUTE_UNBAN_EVICTED);
}

/**
 * brute_targets_denied() - Tell whether a user is banned from a target
 * @targets: The table.
 * @key: The user and the target.
 * @now: The current time, from ktime_get_ns().
 *
 * Counts the refusal in the ban.
 *
 * Context: Any; takes no lock.
 * Return: True if a ban in force forbids @key's user to execute @key's
 * target.
 */
bool brute_targets_denied(struct brute_targets *targets,
			  const struct brute_target_key *key, u64 now)
{
	struct brute_target *entry;
	bool denied = false;

	if (!atomic_read(&targets->banned))
		return false;
	rcu_read_lock();
	entry = brute_target_lookup(targets, key);
	if (entry && READ_ONCE(entry->ban_until_ns) > now) {
		atomic_inc(&entry->denied);
		denied = true;
	}
	rcu_read_unlock();
	return denied;
}

/**
 * brute_targets_lift() - Lift bans
 * @targets: The table.
 * @key: The ban to lift, or NULL to lift every ban.
 * @flush: Forget every entry of the table too, banned or not.
 *
 * The entries go with their bans: their counts start afresh.
 *
 * Return: The number of bans lifted, or -ENOENT if there was none (never
 * with @flush).
 */
int brute_targets_lift(struct brute_targets *targets,
		       const struct brute_target_key *key, bool flush)
{
	struct brute_target *entry, *next;
	LIST_HEAD(lifted);
	int count = 0;

	spin_lock(&targets->lock);
	list_for_each_entry_safe(entry, next, &targets->lru, lru) {
		if (key && !brute_target_key_eq(&entry->key, key))
			continue;
		if (!entry->ban_until_ns) {
			if (flush) {
				brute_target_unlink(targets, entry);
				kfree_rcu(entry, rcu);
			}
			continue;
		}
		brute_target_unlink(targets, entry);
		list_add_tail(&entry->lru, &lifted);
		count++;
	}
	spin_unlock(&targets->lock);
	brute_targets_release(&lifted, BRUTE_UNBAN_LIFTED);
	return count || flush ? count : -ENOENT;
}

/**
 * brute_targets_gc() - End expired bans and forget quiet entries
 * @targets: The table.
 * @now: The current time, from ktime_get_ns().
 * @forget_ns: How long an entry without a crash is kept.
 *
 * Reschedules itself for the next ban to end or entry to forget.
 *
 * Return: When the next one is due, or 0 if the table is empty.
 */
u64 brute_targets_gc(struct brute_targets *targets, u64 now, u64 forget_ns)
{
	struct brute_target *entry, *next;
	LIST_HEAD(expired);
	u64 due, next_due = 0;

	spin_lock(&targets->lock);
	list_for_each_entry_safe(entry, next, &targets->lru, lru) {
		if (entry->ban_until_ns) {
			due = entry->ban_until_ns;
			if (due <= now) {
				brute_target_unlink(targets, entry);
				list_add_tail(&entry->lru, &expired);
				continue;
			}
		} else {
			due = entry->stats.last_ns + forget_ns;
			if (due <= now) {
				brute_target_unlink(targets, entry);
				kfree_rcu(entry, rcu);
				continue;
			}
		}
		if (!next_due || due < next_due)
			next_due = due;
	}
	targets->next_gc_ns = 0;
	if (next_due)
		brute_targets_due(targets, now, next_due);
	spin_unlock(&targets->lock);
	brute_targets_release(&expired, BRUTE_UNBAN_EXPIRED);
	return next_due;
}

/**
 * brute_targets_show() - List the table
 * @targets: The table.
 * @m: Where to print: one line per entry, least recently charged first.
 * @now: The current time, from ktime_get_ns().
 */
void brute_targets_show(struct brute_targets *targets, struct seq_file *m,
			u64 now)
{
	const struct brute_target *entry;

	spin_lock(&targets->lock);
	list_for_each_entry(entry, &targets->lru, lru) {
		const u64 until = entry->ban_until_ns;

		seq_printf(m,
			   "attacker_uid=%u target_dev=%u:%u target_ino=%llu faults=%u attacks=%u ema_ms=%llu idle_ms=%llu ban_left_s=%llu denied=%u target_name=",
			   from_kuid(&init_user_ns, entry->key.uid),
			   MAJOR(entry->key.dev), MINOR(entry->key.dev),
			   entry->key.ino, entry->stats.faults, entry->attacks,
			   div_u64(entry->stats.ema_ns, NSEC_PER_MSEC),
			   div_u64(now - min(now, entry->stats.last_ns),
				   NSEC_PER_MSEC),
			   until > now ?
				   div_u64(until - now + NSEC_PER_SEC - 1,
					   NSEC_PER_SEC) : 0,
			   atomic_read(&entry->denied));
		seq_escape_str(m, entry->name,
			       ESCAPE_OCTAL | ESCAPE_NAP | ESCAPE_APPEND,
			       " \t\n\\=");
		seq_putc(m, '\n');
	}
	spin_unlock(&targets->lock);
}

/**
 * brute_targets_destroy() - Free every entry of a table
 * @targets: The table, which nobody uses any more.
 */
void brute_targets_destroy(struct brute_targets *targets)
{
	struct brute_target *entry, *next;

	spin_lock(&targets->lock);
	list_for_each_entry_safe(entry, next, &targets->lru, lru) {
		brute_target_unlink(targets, entry);
		kfree_rcu(entry, rcu);
	}
	spin_unlock(&targets->lock);
}

static void brute_targets_gc_work(struct work_struct *work)
{
	struct brute_params params;

	brute_params_get(&params);
	brute_targets_gc(&brute_targets, ktime_get_ns(),
			 (u64)params.forget_time_s * NSEC_PER_SEC);
}

/**
 * brute_targets_setup() - Initialize the table of the running system
 */
void __init brute_targets_setup(void)
{
	brute_target_cache = KMEM_CACHE(brute_target, SLAB_PANIC | SLAB_ACCOUNT);
	brute_targets_init(&brute_targets, &brute_targets_gc_dwork);
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

#define MS (NSEC_PER_MSEC)

static const struct brute_params target_params = {
	.threshold_ms = 30000,
	.min_faults = 5,
	.max_faults = 200,
	.ema_num = 7,
	.ema_den = 10,
	.ban_time_s = 900,
	.table_size = 16,
	.forget_time_s = 3600,
};

static struct brute_target_key test_key(u32 uid, u64 ino)
{
	return (struct brute_target_key){
		.uid = KUIDT_INIT(uid),
		.dev = MKDEV(8, 1),
		.ino = ino,
	};
}

static void test_targets_exit(struct kunit *test)
{
	struct brute_targets *targets = test->priv;

	brute_targets_destroy(targets);
	KUNIT_EXPECT_EQ(test, 0, targets->count);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&targets->banned));
	KUNIT_EXPECT_TRUE(test, list_empty(&targets->lru));
}

static int test_targets_init(struct kunit *test)
{
	struct brute_targets *targets;

	targets = kunit_kzalloc(test, sizeof(*targets), GFP_KERNEL);
	if (!targets)
		return -ENOMEM;
	brute_targets_init(targets, NULL);
	test->priv = targets;
	return 0;
}

/* Charge @count crashes @gap apart from @*now; return the last outcome. */
static struct brute_target_charge
test_charge(struct brute_targets *targets, const struct brute_target_key *key,
	    u64 *now, u64 gap, int count, u64 ban_ns)
{
	struct brute_target_charge charge = {};

	while (count-- > 0) {
		*now += gap;
		brute_targets_charge(targets, key, "target", *now, *now - gap,
				     ban_ns, &target_params, &charge);
	}
	return charge;
}

/* Five fast crashes from five hierarchies: a verdict and a ban. */
static void test_targets_insert_and_ban(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 42);
	struct brute_target_charge charge;
	u64 now = 1000 * MS;

	charge = test_charge(targets, &key, &now, 10 * MS, 4, 900 * NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE(test, charge.charged);
	KUNIT_EXPECT_EQ(test, 4, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &key, now));
	KUNIT_EXPECT_EQ(test, 1, targets->count);

	charge = test_charge(targets, &key, &now, 10 * MS, 1, 900 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 5, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST, charge.verdict);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&targets->banned));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &key, now + MS));

	/* Only that user, only that target. */
	{
		const struct brute_target_key other_user = test_key(1001, 42);
		const struct brute_target_key other_target = test_key(1000, 43);

		KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets,
							      &other_user, now));
		KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets,
							      &other_target,
							      now));
	}

	/* The verdict restarted the count: the next ban needs 5 more. */
	charge = test_charge(targets, &key, &now, 10 * MS, 1, 900 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 1, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
}

/* Without a ban time (audit mode, or ban_time_s = 0): a verdict, no ban. */
static void test_targets_verdict_without_ban(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 42);
	struct brute_target_charge charge;
	u64 now = 0;

	charge = test_charge(targets, &key, &now, 10 * MS, 5, 0);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST, charge.verdict);
	KUNIT_EXPECT_FALSE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&targets->banned));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &key, now));
}

/* Slow crashes decay the average; a quiet period forgets the entry. */
static void test_targets_decay_and_forget(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 42);
	struct brute_target_charge charge;
	u64 now = 0;

	/* A crash a minute: never fast. */
	charge = test_charge(targets, &key, &now, 60 * NSEC_PER_SEC, 10,
			     900 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 10, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	KUNIT_EXPECT_GT(test, charge.stats.ema_ns, 59 * NSEC_PER_SEC);
	KUNIT_EXPECT_LE(test, charge.stats.ema_ns, 60 * NSEC_PER_SEC);

	/* After forget_time_s without a crash, counting starts over. */
	charge = test_charge(targets, &key, &now, 3600 * NSEC_PER_SEC, 1,
			     900 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 1, charge.stats.faults);

	/* The collector forgets it, and says when it is due otherwise. */
	KUNIT_EXPECT_EQ(test, now + 3600 * NSEC_PER_SEC,
			brute_targets_gc(targets, now + NSEC_PER_SEC,
					 3600 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 1, targets->count);
	KUNIT_EXPECT_EQ(test, 0, brute_targets_gc(targets,
						  now + 3600 * NSEC_PER_SEC,
						  3600 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 0, targets->count);
}

/* A full table evicts the coldest entry, never a live ban. */
static void test_targets_capacity(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key banned = test_key(1000, 1);
	struct brute_target_charge charge;
	u64 now = 0;
	u64 ino;

	test_charge(targets, &banned, &now, MS, 5, 900 * NSEC_PER_SEC);
	KUNIT_ASSERT_EQ(test, 1, atomic_read(&targets->banned));
	for (ino = 2; ino <= 40; ino++) {
		const struct brute_target_key key = test_key(2000, ino);

		charge = test_charge(targets, &key, &now, MS, 1, 0);
		KUNIT_EXPECT_TRUE(test, charge.charged);
		KUNIT_EXPECT_LE(test, targets->count, 16);
	}
	KUNIT_EXPECT_EQ(test, 16, targets->count);
	/* The ban (the oldest entry) stayed; the 15 newest others too. */
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &banned, now));
	{
		const struct brute_target_key gone = test_key(2000, 25);
		const struct brute_target_key kept = test_key(2000, 26);

		KUNIT_EXPECT_NULL(test, brute_target_lookup(targets, &gone));
		KUNIT_EXPECT_NOT_NULL(test, brute_target_lookup(targets, &kept));
	}
}

/* A table full of one user's bans: that user's oldest ban makes room. */
static void test_targets_full_of_bans(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	struct brute_target_charge charge;
	u64 now = 0;
	u64 ino;

	for (ino = 1; ino <= 16; ino++) {
		const struct brute_target_key key = test_key(1000, ino);

		test_charge(targets, &key, &now, MS, 5, 900 * NSEC_PER_SEC);
	}
	KUNIT_EXPECT_EQ(test, 16, atomic_read(&targets->banned));
	{
		const struct brute_target_key other = test_key(1001, 99);
		const struct brute_target_key mine = test_key(1000, 99);
		const struct brute_target_key first = test_key(1000, 1);

		/* Another user's crash cannot push out a ban. */
		charge = test_charge(targets, &other, &now, MS, 1, 0);
		KUNIT_EXPECT_FALSE(test, charge.charged);
		/* The banned user's own next target can. */
		charge = test_charge(targets, &mine, &now, MS, 1, 0);
		KUNIT_EXPECT_TRUE(test, charge.charged);
		KUNIT_EXPECT_EQ(test, 15, atomic_read(&targets->banned));
		KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &first,
							      now));
	}
}

/* A ban ends by itself, or when lifted; the entry goes with it. */
static void test_targets_expiry_and_lift(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key a = test_key(1000, 1);
	const struct brute_target_key b = test_key(1000, 2);
	const struct brute_target_key c = test_key(1001, 3);
	u64 now = 0, banned_at;

	test_charge(targets, &a, &now, MS, 5, 10 * NSEC_PER_SEC);
	banned_at = now;
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &a, now));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &a,
						     banned_at + 10 * NSEC_PER_SEC - 1));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &a,
						      banned_at + 10 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 0, brute_targets_gc(targets,
						  banned_at + 10 * NSEC_PER_SEC,
						  3600 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 0, targets->count);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&targets->banned));

	test_charge(targets, &a, &now, MS, 5, 900 * NSEC_PER_SEC);
	test_charge(targets, &b, &now, MS, 5, 900 * NSEC_PER_SEC);
	test_charge(targets, &c, &now, MS, 5, 900 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 3, atomic_read(&targets->banned));
	KUNIT_EXPECT_EQ(test, 1, brute_targets_lift(targets, &a, false));
	KUNIT_EXPECT_EQ(test, -ENOENT, brute_targets_lift(targets, &a, false));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &a, now));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &b, now));
	KUNIT_EXPECT_EQ(test, 2, brute_targets_lift(targets, NULL, false));
	KUNIT_EXPECT_EQ(test, 0, targets->count);
	KUNIT_EXPECT_EQ(test, -ENOENT, brute_targets_lift(targets, NULL, false));

	/* A flush forgets counts too. */
	test_charge(targets, &a, &now, MS, 5, 900 * NSEC_PER_SEC);
	test_charge(targets, &b, &now, MS, 2, 900 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 2, targets->count);
	KUNIT_EXPECT_EQ(test, 1, brute_targets_lift(targets, NULL, true));
	KUNIT_EXPECT_EQ(test, 0, targets->count);
	KUNIT_EXPECT_EQ(test, 0, brute_targets_lift(targets, NULL, true));
}

/* Refusals are counted in the ban. */
static void test_targets_denied_count(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 7);
	struct brute_target *entry;
	u64 now = 0;

	test_charge(targets, &key, &now, MS, 5, 900 * NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &key, now));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &key, now));
	entry = brute_target_lookup(targets, &key);
	KUNIT_ASSERT_NOT_NULL(test, entry);
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&entry->denied));
}

static struct kunit_case test_targets_cases[] = {
	KUNIT_CASE(test_targets_insert_and_ban),
	KUNIT_CASE(test_targets_verdict_without_ban),
	KUNIT_CASE(test_targets_decay_and_forget),
	KUNIT_CASE(test_targets_capacity),
	KUNIT_CASE(test_targets_full_of_bans),
	KUNIT_CASE(test_targets_expiry_and_lift),
	KUNIT_CASE(test_targets_denied_count),
	{}
};

static struct kunit_suite test_targets_suite = {
	.name = "brute_targets",
	.init = test_targets_init,
	.exit = test_targets_exit,
	.test_cases = test_targets_cases,
};

kunit_test_suite(test_targets_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
