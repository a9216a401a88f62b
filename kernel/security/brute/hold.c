// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - The backstop's hold: a service's master kept for a restart
 *
 * With backstop_hold_s set, crashes that came fast kill the processes a
 * hierarchy forked and hold its first ones (those whose parent is outside
 * it: a service's master, which holds its listening sockets).  A held
 * hierarchy forks nothing (no new process runs the crashed layout) until
 * it executes a new image: brute-reportd reloads or restarts its unit.
 * When the hold is over and nothing executed, the hierarchy is killed, as
 * it would have been at once without a hold: by a timer armed when the
 * hold started, which has a first process of the hierarchy do it from its
 * own context (the record then names its unit), or at the hierarchy's
 * next fork, whichever comes first.
 */

#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "hold.h"
#include "mitigate.h"
#include "sysctl.h"
#include "task.h"

/**
 * struct brute_hold - The end of one hold
 * @timer: Runs when the hold is over.
 * @work: Then run by a first process of the hierarchy, in its context.
 * @hierarchy: The held hierarchy, a reference held.
 * @until: The hold's end: if &brute_hierarchy.held_until no longer says
 *         this, an execve() ended the hold (or a later one started).
 */
struct brute_hold {
	struct delayed_work timer;
	struct callback_head work;
	struct brute_hierarchy *hierarchy;
	u64 until;
};

/*
 * The hold that ends at @until is over while the mode is not kill: a hold is
 * a mitigation, and one that ends in audit mode kills nothing, now or after
 * a later switch back to kill mode.
 */
static void brute_hold_drop(struct brute_hierarchy *hierarchy, u64 until)
{
	spin_lock(&hierarchy->lock);
	if (hierarchy->held_until == until)
		WRITE_ONCE(hierarchy->held_until, 0);
	spin_unlock(&hierarchy->lock);
}

/*
 * Kill @hierarchy, the current task with it, if the hold that ends at
 * @until still holds it and the mode is still kill.
 * Context: A task of @hierarchy; may sleep.
 */
static void brute_hold_expire(struct brute_hierarchy *hierarchy, u64 until)
{
	struct brute_crash_info info = {
		.hierarchy = hierarchy,
		.origin = hierarchy,
		.attack = "backstop",
		.source = "unknown",
	};
	const enum brute_mode mode = brute_mode();
	struct brute_params params;
	u32 killed;

	if (mode != BRUTE_MODE_KILL) {
		brute_hold_drop(hierarchy, until);
		return;
	}
	spin_lock(&hierarchy->lock);
	if (hierarchy->held_until != until) {
		spin_unlock(&hierarchy->lock);
		return;
	}
	WRITE_ONCE(hierarchy->held_until, 0);
	info.stats = hierarchy->stats;
	spin_unlock(&hierarchy->lock);
	brute_params_get(&params);
	pr_warn_ratelimited("brute force backstop on hierarchy %llu: held %us for a restart that did not come, killed\n",
			    hierarchy->id, params.backstop_hold_s);
	brute_audit_attack(&info, BRUTE_VERDICT_FAST, &params, mode, "kill");
	killed = brute_kill_held(hierarchy);
	spin_lock(&hierarchy->lock);
	hierarchy->killed += killed;
	spin_unlock(&hierarchy->lock);
}

static void brute_hold_free(struct brute_hold *hold)
{
	brute_hierarchy_put(hold->hierarchy);
	kfree(hold);
}

static void brute_hold_work(struct callback_head *work)
{
	struct brute_hold *hold = container_of(work, struct brute_hold, work);

	/* Not one that executed since, nor one on its way out. */
	if (brute_task(current)->hierarchy == hold->hierarchy &&
	    !(current->flags & PF_EXITING))
		brute_hold_expire(hold->hierarchy, hold->until);
	brute_hold_free(hold);
}

/* A first process of @hierarchy, not exiting, with a reference; or NULL. */
static struct task_struct *brute_hold_first(struct brute_hierarchy *hierarchy)
{
	struct task_struct *p, *found = NULL;

	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & (PF_KTHREAD | PF_EXITING)) ||
		    !brute_task_first_of(p, hierarchy))
			continue;
		found = p;
		get_task_struct(found);
		break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * The hold is over: unless an execve() ended it, a first process of the
 * hierarchy ends it, from its own context.  With none left, nobody forks
 * the layout: nothing to do.
 */
static void brute_hold_timer(struct work_struct *work)
{
	struct brute_hold *hold = container_of(to_delayed_work(work),
					       struct brute_hold, timer);
	struct task_struct *first = NULL;

	if (READ_ONCE(hold->hierarchy->held_until) != hold->until) {
		brute_hold_free(hold);
		return;
	}
	if (brute_mode() != BRUTE_MODE_KILL)
		brute_hold_drop(hold->hierarchy, hold->until);
	else
		first = brute_hold_first(hold->hierarchy);
	if (!first) {
		brute_hold_free(hold);
		return;
	}
	init_task_work(&hold->work, brute_hold_work);
	if (task_work_add(first, &hold->work, TWA_SIGNAL))
		brute_hold_free(hold);
	put_task_struct(first);
}

/**
 * brute_hold_start() - Hold a hierarchy for a restart
 * @hierarchy: The hierarchy whose crashes gave the fast backstop verdict.
 * @now: The time of the verdict (ktime_get_ns()).
 * @hold_s: backstop_hold_s, not 0.
 *
 * Until @now + @hold_s seconds, or until it executes a new image, the
 * hierarchy forks nothing.  A hold already in force goes on.
 *
 * Context: Under @hierarchy->lock.
 * Return: The end of the new hold, to brute_hold_arm() once the lock is
 * released; 0 if it was held already.
 */
u64 brute_hold_start(struct brute_hierarchy *hierarchy, u64 now, u32 hold_s)
{
	u64 until = now + (u64)hold_s * NSEC_PER_SEC;

	lockdep_assert_held(&hierarchy->lock);
	if (hierarchy->held_until)
		return 0;
	WRITE_ONCE(hierarchy->held_until, until);
	return until;
}

/**
 * brute_hold_arm() - Have a hold end on time
 * @hierarchy: The hierarchy brute_hold_start() held.
 * @until: What brute_hold_start() returned, not 0.
 * @hold_s: The hold's length, in seconds.
 *
 * Arms a timer that kills the hierarchy when the hold is over, if nothing
 * ended it; it holds a reference to the hierarchy until then.  If it
 * cannot be allocated, the hierarchy's next fork after the hold kills it.
 *
 * Context: Task context; may sleep.
 */
void brute_hold_arm(struct brute_hierarchy *hierarchy, u64 until, u32 hold_s)
{
	struct brute_hold *hold;

	hold = kmalloc(sizeof(*hold), GFP_KERNEL | __GFP_NOWARN);
	if (!hold)
		return;
	brute_hierarchy_get(hierarchy);
	hold->hierarchy = hierarchy;
	hold->until = until;
	INIT_DELAYED_WORK(&hold->timer, brute_hold_timer);
	queue_delayed_work(system_wq, &hold->timer,
			   (unsigned long)hold_s * HZ + 1);
}

/**
 * brute_hold_end() - End a hold: the hierarchy executed a new image
 * @hierarchy: The hierarchy.
 *
 * Its timer, if armed, finds the hold ended and does nothing.
 *
 * Context: Under @hierarchy->lock.
 */
void brute_hold_end(struct brute_hierarchy *hierarchy)
{
	lockdep_assert_held(&hierarchy->lock);
	WRITE_ONCE(hierarchy->held_until, 0);
}

/**
 * brute_hold_refuses() - Tell whether a hold refuses a fork
 * @hierarchy: The hierarchy of the forking task, whose @held_until was set.
 *
 * A fork of a hierarchy the backstop holds for a restart is refused, so
 * that no new process runs its layout.  Once the hold is over and nothing
 * executed a new image, the hierarchy is killed, the caller with it, if
 * its timer did not do it first.
 *
 * Context: Task context, the forking task; may sleep.
 * Return: True if the fork must fail.
 */
bool brute_hold_refuses(struct brute_hierarchy *hierarchy)
{
	const u64 until = READ_ONCE(hierarchy->held_until);

	if (!until)
		return false;
	if (brute_mode() != BRUTE_MODE_KILL) {
		if (ktime_get_ns() >= until)
			brute_hold_drop(hierarchy, until);
		return false;
	}
	if (ktime_get_ns() < until)
		return true;
	brute_hold_expire(hierarchy, until);
	return fatal_signal_pending(current);
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>
#include <linux/delay.h>

/* Hold @hierarchy for a second; its timer's reference taken. */
static u64 test_hold(struct kunit *const test,
		     struct brute_hierarchy *hierarchy)
{
	u64 until;

	spin_lock(&hierarchy->lock);
	until = brute_hold_start(hierarchy, ktime_get_ns(), 1);
	/* A hold in force goes on: no second one. */
	KUNIT_EXPECT_EQ(test, brute_hold_start(hierarchy, ktime_get_ns(), 1),
			0);
	spin_unlock(&hierarchy->lock);
	KUNIT_EXPECT_NE(test, until, 0);
	brute_hold_arm(hierarchy, until, 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&hierarchy->usage), 2);
	return until;
}

/*
 * A hold's timer holds a reference to its hierarchy until it runs, whether
 * an execve() ended the hold or no process of the hierarchy is left to
 * kill; then both hierarchies are freed once.
 */
static void test_hold_lifetime(struct kunit *const test)
{
	struct brute_hierarchy *ended, *empty;
	u64 until;
	long before;
	int waited;

	brute_kunit_require(test);
	ended = brute_hierarchy_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ended);
	empty = brute_hierarchy_alloc(GFP_KERNEL);
	if (!empty)
		brute_hierarchy_leave(ended);
	KUNIT_ASSERT_NOT_NULL(test, empty);

	test_hold(test, ended);
	until = test_hold(test, empty);
	spin_lock(&ended->lock);
	brute_hold_end(ended);
	spin_unlock(&ended->lock);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ended->held_until), 0);

	/* The timers run a second after the holds started. */
	for (waited = 0; waited < 10000; waited += 50) {
		if (refcount_read(&ended->usage) == 1 &&
		    refcount_read(&empty->usage) == 1)
			break;
		msleep(50);
	}
	KUNIT_EXPECT_EQ(test, refcount_read(&ended->usage), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&empty->usage), 1);
	/* Nobody to kill: the hold stays, a later fork would end it. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(empty->held_until), until);

	/*
	 * Other tasks forked and exited meanwhile: count from here, after
	 * their hierarchies' pending frees, that these two are freed once.
	 */
	rcu_barrier();
	before = brute_hierarchy_count();
	brute_hierarchy_leave(ended);
	brute_hierarchy_leave(empty);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, brute_hierarchy_count(), before - 2);
}

static struct kunit_case test_hold_cases[] = {
	KUNIT_CASE_SLOW(test_hold_lifetime),
	{}
};

static struct kunit_suite test_hold_suite = {
	.name = "brute_hold",
	.test_cases = test_hold_cases,
};

kunit_test_suite(test_hold_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
