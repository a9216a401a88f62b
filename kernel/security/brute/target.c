// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Exec attacks: the (user, target) table and its bans
 *
 * An exec attack runs a target again and again, each attempt a new image,
 * hence a new hierarchy, that crashes once.  Each crashing hierarchy whose
 * image its user started across a privilege gain charges one crash to the
 * entry of that user and its executable (the inode), whichever process
 * started it: an attacker cannot shed the count by re-executing itself, by
 * running each attempt through a helper or from a fresh process.
 *
 * A verdict in kill mode bans the target for the user for ban_time_s:
 * execve() of it with a privilege gain fails with EPERM.  A ban is never
 * permanent and only ever concerns the user whose images crashed; root
 * lists and lifts bans through securityfs.
 *
 * The table is bounded (table_size entries) and no user can push out, or
 * keep out, another user's entries: each user has a share of it
 * (brute_targets_share()), and the crashes of targets beyond that share, or
 * beyond a full table, are counted in the user's overflow entry.  Nothing
 * is ever evicted, so junk crashes between two attempts cannot wash out
 * the count of the real target either: it is counted in its own entry or,
 * with the junk, in the overflow entry, whose verdict bans the user from
 * every privileged execve() when it counted more than one target.  Entries
 * go when a ban ends, and after forget_time_s without a crash.
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

/**
 * struct brute_target - The crash statistics of one user on one target
 * @entry: Statistics and ban; first, see struct brute_entry.
 * @key: The user and the target (the user alone: an overflow entry).
 * @entries: An overflow entry's count of its user's target entries.
 * @all: An overflow entry counted crashes of more than one target.
 * @only: The target of an overflow entry's crashes while not @all.
 * @name: The target's file name, truncated, for the operator ("*" for an
 *        overflow entry of several targets).
 */
struct brute_target {
	struct brute_entry entry;
	struct brute_target_key key;
	unsigned int entries;
	bool all;
	struct brute_target_key only;
	char name[BRUTE_TARGET_NAME_LEN];
};

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

static struct brute_target *brute_target(struct brute_entry *entry)
{
	return container_of(entry, struct brute_target, entry);
}

static u32 brute_target_bucket(const struct brute_target_key *key)
{
	return hash_64(key->ino ^ ((u64)key->dev << 32) ^
		       ((u64)__kuid_val(key->uid) << 16),
		       BRUTE_TABLE_HASH_BITS);
}

static bool brute_target_key_eq(const struct brute_target_key *a,
				const struct brute_target_key *b)
{
	return uid_eq(a->uid, b->uid) && a->dev == b->dev && a->ino == b->ino;
}

static bool brute_target_match(const struct brute_entry *entry,
			       const void *key)
{
	return brute_target_key_eq(&container_of(entry, struct brute_target,
						  entry)->key, key);
}

static struct brute_target *
brute_target_lookup(struct brute_targets *targets,
		    const struct brute_target_key *key)
{
	struct brute_entry *entry;

	entry = brute_table_lookup(&targets->table, brute_target_bucket(key),
				   key);
	return entry ? brute_target(entry) : NULL;
}

static struct brute_target_key brute_overflow_key(kuid_t uid)
{
	return (struct brute_target_key){ .uid = uid };
}

/*
 * What an entry stands for, in records and in the targets file: its own
 * key, or for an overflow entry of a single target, that target.
 */
static const struct brute_target_key *
brute_target_shown(const struct brute_target *target)
{
	return brute_target_overflow(&target->key) && !target->all ?
	       &target->only : &target->key;
}

static const char *brute_target_scope(const struct brute_target *target)
{
	if (!brute_target_overflow(&target->key))
		return "target";
	return target->all ? "any" : "overflow";
}

static void brute_target_release(struct brute_entry *entry,
				 enum brute_unban_reason reason)
{
	const struct brute_target *target = brute_target(entry);

	brute_audit_unban(brute_target_shown(target), target->name,
			  brute_target_scope(target), reason,
			  atomic_read(&entry->denied));
}

/* An overflow entry stays while its user has entries: it counts them. */
static bool brute_target_forget(struct brute_entry *entry)
{
	return !brute_target(entry)->entries;
}

static void brute_target_detach(struct brute_table *table,
				struct brute_entry *entry)
{
	struct brute_targets *targets =
		container_of(table, struct brute_targets, table);
	struct brute_target *target = brute_target(entry);
	struct brute_target_key key;
	struct brute_target *overflow;

	if (brute_target_overflow(&target->key)) {
		targets->overflows--;
		return;
	}
	key = brute_overflow_key(target->key.uid);
	overflow = brute_target_lookup(targets, &key);
	if (overflow && !WARN_ON_ONCE(!overflow->entries))
		overflow->entries--;
}

static const struct brute_table_ops brute_target_ops = {
	.match = brute_target_match,
	.release = brute_target_release,
	.forget = brute_target_forget,
	.detach = brute_target_detach,
};

/**
 * brute_targets_share() - Tell how many targets a user may have entries for
 * @params: Detection parameters.
 *
 * Return: An eighth of table_size, at least 2.
 */
unsigned int brute_targets_share(const struct brute_params *params)
{
	return max(params->table_size / 8, 2U);
}

/**
 * brute_targets_init() - Initialize a table
 * @targets: The table.
 * @gc: The delayed work that runs the collector, or NULL.
 */
void brute_targets_init(struct brute_targets *targets,
			struct delayed_work *gc)
{
	brute_table_init(&targets->table, gc, &brute_target_ops);
	targets->overflows = 0;
}

static void brute_target_insert(struct brute_targets *targets,
				struct brute_target *target,
				const struct brute_target_key *key,
				const char *name, u64 start)
{
	target->key = *key;
	strscpy(target->name, name, sizeof(target->name));
	brute_stats_reset(&target->entry.stats, start);
	brute_table_insert(&targets->table, &target->entry,
			   brute_target_bucket(key));
	if (brute_target_overflow(key))
		targets->overflows++;
}

/*
 * The entry a crash of @key is charged to: the target's own, else a new
 * one within the user's share and the table's size, else the user's
 * overflow entry.  Uses *@new and *@new_overflow (and sets them to NULL)
 * for what it inserts.
 */
static struct brute_target *
brute_targets_get(struct brute_targets *targets,
		  const struct brute_target_key *key, const char *name,
		  u64 start, u64 now, u64 forget_ns,
		  const struct brute_params *params,
		  struct brute_target **new, struct brute_target **new_overflow)
{
	const struct brute_target_key okey = brute_overflow_key(key->uid);
	struct brute_target *target, *overflow;
	unsigned int entries;

	target = brute_target_lookup(targets, key);
	if (target) {
		brute_table_touch(&targets->table, &target->entry);
		if (!target->entry.ban_until_ns)
			brute_stats_forget(&target->entry.stats, now,
					   forget_ns);
		return target;
	}

	overflow = brute_target_lookup(targets, &okey);
	if (!overflow) {
		/* Overflow entries are bounded too: table_size of them. */
		if (!*new_overflow || targets->overflows >= params->table_size)
			return NULL;
		overflow = *new_overflow;
		*new_overflow = NULL;
		brute_target_insert(targets, overflow, &okey, name, start);
		overflow->only = *key;
	}
	entries = targets->table.count - targets->overflows;
	if (*new && overflow->entries < brute_targets_share(params) &&
	    entries < params->table_size) {
		target = *new;
		*new = NULL;
		brute_target_insert(targets, target, key, name, start);
		overflow->entries++;
		return target;
	}

	/* Beyond the user's share, or a full table. */
	target = overflow;
	brute_table_touch(&targets->table, &target->entry);
	if (!target->entry.ban_until_ns &&
	    brute_stats_forget(&target->entry.stats, now, forget_ns))
		WRITE_ONCE(target->all, false);
	if (!target->entry.stats.faults && !target->all &&
	    !target->entry.ban_until_ns) {
		/* A new round of overflow crashes. */
		target->only = *key;
		strscpy(target->name, name, sizeof(target->name));
	} else if (!target->all && !brute_target_key_eq(&target->only, key)) {
		WRITE_ONCE(target->all, true);
		strscpy(target->name, "*", sizeof(target->name));
	}
	return target;
}

/**
 * brute_targets_charge() - Count a crash against a user and a target
 * @targets: The table.
 * @key: The user and the target.
 * @name: The target's file name.
 * @now: Time of the crash, from ktime_get_ns().
 * @start: When the crashing image started: the first period of a new entry
 *         runs from there.
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
	struct brute_table *table = &targets->table;
	struct brute_target *target, *new, *new_overflow;

	memset(charge, 0, sizeof(*charge));
	new = kmem_cache_zalloc(brute_target_cache,
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	new_overflow = kmem_cache_zalloc(brute_target_cache,
					 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);

	spin_lock(&table->lock);
	target = brute_targets_get(targets, key, name, start, now, forget_ns,
				   params, &new, &new_overflow);
	if (!target)
		goto out;

	charge->charged = true;
	charge->key = *brute_target_shown(target);
	charge->overflow = brute_target_overflow(&target->key);
	charge->all = target->all;
	charge->period_ns = brute_stats_update(&target->entry.stats, now,
					       params);
	charge->stats = target->entry.stats;
	charge->verdict = brute_verdict(&target->entry.stats, params);
	if (charge->verdict != BRUTE_VERDICT_NONE) {
		brute_stats_reset(&target->entry.stats, now);
		target->entry.attacks++;
		if (ban_ns) {
			brute_table_ban(table, &target->entry, now, ban_ns);
			charge->banned = true;
		}
	}
	if (!charge->banned)
		brute_table_due(table, now, now + forget_ns);
out:
	spin_unlock(&table->lock);
	kfree(new);
	kfree(new_overflow);
}

/**
 * brute_targets_denied() - Tell whether a user is banned from a target
 * @targets: The table.
 * @key: The user and the target.
 * @now: The current time, from ktime_get_ns().
 *
 * A ban of the target's own entry refuses it, and so does a ban of the
 * user's overflow entry when it is about every target or this one.
 * Counts the refusal in the ban.
 *
 * Context: Any; takes no lock.
 * Return: True if a ban in force forbids @key's user to execute @key's
 * target with a privilege gain.
 */
bool brute_targets_denied(struct brute_targets *targets,
			  const struct brute_target_key *key, u64 now)
{
	const struct brute_target_key okey = brute_overflow_key(key->uid);
	struct brute_target *target;
	bool denied = false;

	if (!brute_table_banned(&targets->table))
		return false;
	rcu_read_lock();
	target = brute_target_lookup(targets, key);
	if (!target || !brute_entry_banned(&target->entry, now)) {
		target = brute_target_lookup(targets, &okey);
		if (target && (!brute_entry_banned(&target->entry, now) ||
			       (!READ_ONCE(target->all) &&
				!brute_target_key_eq(&target->only, key))))
			target = NULL;
	}
	if (target) {
		atomic_inc(&target->entry.denied);
		denied = true;
	}
	rcu_read_unlock();
	return denied;
}

/* The entry, or an overflow entry whose ban refuses only that target. */
static bool brute_targets_pick_key(const struct brute_entry *entry,
				   const void *key)
{
	const struct brute_target *target =
		container_of(entry, struct brute_target, entry);

	return brute_target_key_eq(&target->key, key) ||
	       brute_target_key_eq(brute_target_shown(target), key);
}

static bool brute_targets_pick_user(const struct brute_entry *entry,
				    const void *uid)
{
	return uid_eq(container_of(entry, struct brute_target, entry)->key.uid,
		      *(const kuid_t *)uid);
}

/**
 * brute_targets_lift() - Lift bans
 * @targets: The table.
 * @key: The ban to lift (a target's: its own entry's ban, or the user's
 *       overflow entry's when that refuses this target only; 0:0 0: the
 *       user's overflow entry), or NULL to lift every ban.
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
	return brute_table_lift(&targets->table,
				key ? brute_targets_pick_key : NULL, key,
				flush);
}

/**
 * brute_targets_lift_user() - Lift every ban of a user
 * @targets: The table.
 * @uid: The user.
 *
 * Return: The number of bans lifted, or -ENOENT if there was none.
 */
int brute_targets_lift_user(struct brute_targets *targets, kuid_t uid)
{
	return brute_table_lift(&targets->table, brute_targets_pick_user,
				&uid, false);
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
	struct brute_table *table = &targets->table;
	const struct brute_entry *entry;

	spin_lock(&table->lock);
	list_for_each_entry(entry, &table->lru, lru) {
		const struct brute_target *target =
			container_of(entry, struct brute_target, entry);
		const struct brute_target_key *shown =
			brute_target_shown(target);
		const u64 until = entry->ban_until_ns;

		/* An overflow entry that only counts entries is bookkeeping. */
		if (brute_target_overflow(&target->key) &&
		    !entry->stats.faults && !until)
			continue;
		seq_printf(m,
			   "attacker_uid=%u target_dev=%u:%u target_ino=%llu faults=%u attacks=%u ema_ms=%llu idle_ms=%llu ban_left_s=%llu denied=%u scope=%s target_name=",
			   from_kuid(&init_user_ns, target->key.uid),
			   MAJOR(shown->dev), MINOR(shown->dev), shown->ino,
			   entry->stats.faults, entry->attacks,
			   div_u64(entry->stats.ema_ns, NSEC_PER_MSEC),
			   div_u64(now - min(now, entry->stats.last_ns),
				   NSEC_PER_MSEC),
			   until > now ?
				   div_u64(until - now + NSEC_PER_SEC - 1,
					   NSEC_PER_SEC) : 0,
			   atomic_read(&entry->denied),
			   brute_target_scope(target));
		seq_escape_str(m, target->name,
			       ESCAPE_OCTAL | ESCAPE_NAP | ESCAPE_APPEND,
			       " \t\n\\=");
		seq_putc(m, '\n');
	}
	spin_unlock(&table->lock);
}

/**
 * brute_targets_destroy() - Free every entry of a table
 * @targets: The table, which nobody uses any more.
 */
void brute_targets_destroy(struct brute_targets *targets)
{
	brute_table_destroy(&targets->table);
}

static void brute_targets_gc_work(struct work_struct *work)
{
	struct brute_params params;

	brute_params_get(&params);
	brute_table_gc(&brute_targets.table, ktime_get_ns(),
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

#include "setup.h"

#define MS (NSEC_PER_MSEC)
#define BAN (900 * NSEC_PER_SEC)

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

	if (!targets)
		return;
	brute_targets_destroy(targets);
	KUNIT_EXPECT_EQ(test, 0, targets->table.count);
	KUNIT_EXPECT_EQ(test, 0, targets->overflows);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&targets->table.banned));
	KUNIT_EXPECT_TRUE(test, list_empty(&targets->table.lru));
}

static int test_targets_init(struct kunit *test)
{
	struct brute_targets *targets;

	brute_kunit_require(test);
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

static unsigned int test_entries_of(struct brute_targets *targets, u32 uid)
{
	const struct brute_target_key okey = brute_overflow_key(KUIDT_INIT(uid));
	struct brute_target *overflow;

	overflow = brute_target_lookup(targets, &okey);
	return overflow ? overflow->entries : 0;
}

/* Five fast crashes from five hierarchies: a verdict and a ban. */
static void test_targets_insert_and_ban(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 42);
	const struct brute_target_key other_user = test_key(1001, 42);
	const struct brute_target_key other_target = test_key(1000, 43);
	struct brute_target_charge charge;
	u64 now = 1000 * MS;

	charge = test_charge(targets, &key, &now, 10 * MS, 4, BAN);
	KUNIT_EXPECT_TRUE(test, charge.charged);
	KUNIT_EXPECT_FALSE(test, charge.overflow);
	KUNIT_EXPECT_EQ(test, 4, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &key, now));
	/* The target's entry and its user's overflow entry. */
	KUNIT_EXPECT_EQ(test, 2, targets->table.count);
	KUNIT_EXPECT_EQ(test, 1, targets->overflows);
	KUNIT_EXPECT_EQ(test, 1, test_entries_of(targets, 1000));

	charge = test_charge(targets, &key, &now, 10 * MS, 1, BAN);
	KUNIT_EXPECT_EQ(test, 5, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST, charge.verdict);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&targets->table.banned));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &key, now + MS));

	/* Only that user, only that target. */
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &other_user, now));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &other_target,
						      now));

	/* The verdict restarted the count: the next ban needs 5 more. */
	charge = test_charge(targets, &key, &now, 10 * MS, 1, BAN);
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
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&targets->table.banned));
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
	charge = test_charge(targets, &key, &now, 60 * NSEC_PER_SEC, 10, BAN);
	KUNIT_EXPECT_EQ(test, 10, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE, charge.verdict);
	KUNIT_EXPECT_GT(test, charge.stats.ema_ns, 59 * NSEC_PER_SEC);
	KUNIT_EXPECT_LE(test, charge.stats.ema_ns, 60 * NSEC_PER_SEC);

	/* After forget_time_s without a crash, counting starts over. */
	charge = test_charge(targets, &key, &now, 3600 * NSEC_PER_SEC, 1, BAN);
	KUNIT_EXPECT_EQ(test, 1, charge.stats.faults);

	/*
	 * The collector forgets the entry, then its user's overflow entry,
	 * which it kept while it counted an entry.
	 */
	KUNIT_EXPECT_EQ(test, now + 3600 * NSEC_PER_SEC,
			brute_table_gc(&targets->table, now + NSEC_PER_SEC,
				       3600 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 2, targets->table.count);
	brute_table_gc(&targets->table, now + 3600 * NSEC_PER_SEC,
		       3600 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, 1, targets->table.count);
	KUNIT_EXPECT_EQ(test, 0, test_entries_of(targets, 1000));
	KUNIT_EXPECT_EQ(test, 0, brute_table_gc(&targets->table,
						now + 7200 * NSEC_PER_SEC,
						3600 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 0, targets->table.count);
	KUNIT_EXPECT_EQ(test, 0, targets->overflows);
}

/* A racing crash with an earlier time does not wrap into a quiet period. */
static void test_targets_out_of_order(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 42);
	struct brute_target_charge charge = {};
	u64 now = 10 * NSEC_PER_SEC;

	test_charge(targets, &key, &now, 10 * MS, 3, BAN);
	/* now was read before the last crash took the lock. */
	brute_targets_charge(targets, &key, "target", now - 5 * MS,
			     now - 6 * MS, BAN, &target_params, &charge);
	KUNIT_EXPECT_EQ(test, 4, charge.stats.faults);
	KUNIT_EXPECT_EQ(test, 0, charge.period_ns);
	brute_targets_charge(targets, &key, "target", now + MS, now, BAN,
			     &target_params, &charge);
	KUNIT_EXPECT_EQ(test, 5, charge.stats.faults);
	KUNIT_EXPECT_TRUE(test, charge.banned);
}

/*
 * Junk between attempts: an attacker crashes more distinct privileged
 * images than the table holds between two attempts on the real target.
 * Nothing is evicted: the real target keeps its count and is banned on
 * the fifth attempt.
 */
static void test_targets_junk_after_target(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key real = test_key(1000, 1);
	struct brute_target_charge charge = {};
	u64 now = 0, junk = 100;
	int attempt, i;

	for (attempt = 1; attempt <= 5; attempt++) {
		charge = test_charge(targets, &real, &now, MS, 1, BAN);
		for (i = 0; i < 20; i++) {
			const struct brute_target_key key = test_key(1000,
								     junk++);

			test_charge(targets, &key, &now, MS, 1, BAN);
		}
		if (charge.banned)
			break;
	}
	KUNIT_EXPECT_EQ(test, 5, attempt);
	KUNIT_EXPECT_FALSE(test, charge.overflow);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &real, now));
	/* The user holds their share, no more. */
	KUNIT_EXPECT_EQ(test, 2, test_entries_of(targets, 1000));
	KUNIT_EXPECT_EQ(test, 3, targets->table.count);
}

/*
 * Junk first: the user's share is used up before the real target crashes.
 * Its crashes and the junk add up in the overflow entry, whose verdict
 * bans the user from every privileged execve() within five crashes.
 */
static void test_targets_junk_before_target(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key real = test_key(1000, 1);
	const struct brute_target_key other = test_key(1000, 999);
	struct brute_target_charge charge = {};
	u64 now = 0, junk = 100;
	int crashes = 0;

	/* The user's share: two junk targets. */
	while (junk < 102) {
		const struct brute_target_key key = test_key(1000, junk++);

		charge = test_charge(targets, &key, &now, MS, 1, BAN);
		KUNIT_EXPECT_FALSE(test, charge.overflow);
	}
	while (!brute_targets_denied(targets, &real, now) && crashes < 100) {
		const struct brute_target_key key = test_key(1000, junk++);

		test_charge(targets, &key, &now, MS, 1, BAN);
		charge = test_charge(targets, &real, &now, MS, 1, BAN);
		KUNIT_EXPECT_TRUE(test, charge.overflow);
		crashes += 2;
	}
	/* Five crashes in the overflow entry: three rounds. */
	KUNIT_EXPECT_EQ(test, 6, crashes);
	KUNIT_EXPECT_TRUE(test, charge.all);
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &real, now));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &other, now));
}

/*
 * Users who fill the table cannot push out another user's entries, nor
 * keep their crashes from being counted: the newcomer's crashes of one
 * target go to their overflow entry, whose ban is about that target only.
 */
static void test_targets_no_starvation(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key victim = test_key(3000, 7);
	const struct brute_target_key victim_other = test_key(3000, 8);
	struct brute_target_charge charge;
	u64 now = 0;
	u32 uid;
	u64 ino;

	for (uid = 2000; uid < 2008; uid++) {
		for (ino = 1; ino <= 4; ino++) {
			const struct brute_target_key key = test_key(uid, ino);

			test_charge(targets, &key, &now, MS, 4, BAN);
		}
	}
	KUNIT_EXPECT_EQ(test, 16, targets->table.count - targets->overflows);

	charge = test_charge(targets, &victim, &now, MS, 4, BAN);
	KUNIT_EXPECT_TRUE(test, charge.charged);
	KUNIT_EXPECT_TRUE(test, charge.overflow);
	KUNIT_EXPECT_EQ(test, 4, charge.stats.faults);
	charge = test_charge(targets, &victim, &now, MS, 1, BAN);
	KUNIT_EXPECT_TRUE(test, charge.banned);
	KUNIT_EXPECT_FALSE(test, charge.all);
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &victim, now));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &victim_other,
						      now));
	/* Every entry of the other users is still there, with its count. */
	for (uid = 2000; uid < 2008; uid++) {
		const struct brute_target_key key = test_key(uid, 1);
		struct brute_target *target = brute_target_lookup(targets, &key);

		KUNIT_ASSERT_NOT_NULL(test, target);
		KUNIT_EXPECT_EQ(test, 4, target->entry.stats.faults);
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
	brute_table_gc(&targets->table, banned_at + 10 * NSEC_PER_SEC,
		       3600 * NSEC_PER_SEC);
	/* The overflow entry stays until it is quiet for forget_time_s. */
	KUNIT_EXPECT_EQ(test, 1, targets->table.count);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&targets->table.banned));

	test_charge(targets, &a, &now, MS, 5, BAN);
	test_charge(targets, &b, &now, MS, 5, BAN);
	test_charge(targets, &c, &now, MS, 5, BAN);
	KUNIT_EXPECT_EQ(test, 3, atomic_read(&targets->table.banned));
	KUNIT_EXPECT_EQ(test, 1, brute_targets_lift(targets, &a, false));
	KUNIT_EXPECT_EQ(test, -ENOENT, brute_targets_lift(targets, &a, false));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &a, now));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &b, now));
	KUNIT_EXPECT_EQ(test, 1, brute_targets_lift_user(targets,
							 KUIDT_INIT(1001)));
	KUNIT_EXPECT_FALSE(test, brute_targets_denied(targets, &c, now));
	KUNIT_EXPECT_EQ(test, 1, brute_targets_lift(targets, NULL, false));
	KUNIT_EXPECT_EQ(test, -ENOENT, brute_targets_lift(targets, NULL, false));

	/* A flush forgets counts too, overflow entries included. */
	test_charge(targets, &a, &now, MS, 5, BAN);
	test_charge(targets, &b, &now, MS, 2, BAN);
	KUNIT_EXPECT_EQ(test, 1, brute_targets_lift(targets, NULL, true));
	KUNIT_EXPECT_EQ(test, 0, targets->table.count);
	KUNIT_EXPECT_EQ(test, 0, targets->overflows);
	KUNIT_EXPECT_EQ(test, 0, brute_targets_lift(targets, NULL, true));
}

/* Refusals are counted in the ban. */
static void test_targets_denied_count(struct kunit *test)
{
	struct brute_targets *targets = test->priv;
	const struct brute_target_key key = test_key(1000, 7);
	struct brute_target *target;
	u64 now = 0;

	test_charge(targets, &key, &now, MS, 5, BAN);
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &key, now));
	KUNIT_EXPECT_TRUE(test, brute_targets_denied(targets, &key, now));
	target = brute_target_lookup(targets, &key);
	KUNIT_ASSERT_NOT_NULL(test, target);
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&target->entry.denied));
}

static struct kunit_case test_targets_cases[] = {
	KUNIT_CASE(test_targets_insert_and_ban),
	KUNIT_CASE(test_targets_verdict_without_ban),
	KUNIT_CASE(test_targets_decay_and_forget),
	KUNIT_CASE(test_targets_out_of_order),
	KUNIT_CASE(test_targets_junk_after_target),
	KUNIT_CASE(test_targets_junk_before_target),
	KUNIT_CASE(test_targets_no_starvation),
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
