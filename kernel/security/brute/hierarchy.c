// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Fork hierarchies
 */

#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/kdev_t.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "setup.h"
#include "sysctl.h"
#include "task.h"

static struct kmem_cache *brute_hierarchy_cache __ro_after_init;

static void brute_hierarchy_dead_work(struct work_struct *work);
static LLIST_HEAD(brute_hierarchies_dead);
static DECLARE_WORK(brute_hierarchy_dead, brute_hierarchy_dead_work);

/* Hierarchies alive, per CPU: allocated on one CPU, maybe freed on another. */
static DEFINE_PER_CPU(long, brute_hierarchies);

/*
 * Identifiers start at a random offset above 2^32 so that they differ from
 * one boot to the next and cannot be confused with a PID.
 */
static atomic64_t brute_next_id = ATOMIC64_INIT(0);

/**
 * brute_hierarchy_alloc() - Allocate a new hierarchy
 * @gfp: Allocation flags.
 *
 * The new hierarchy has one task, the reference of its tasks, a fresh
 * identifier and statistics that start now.  The caller fills in the IDs
 * and boundaries.  It is charged to the memory cgroup of the caller with
 * __GFP_ACCOUNT in @gfp (the cache is SLAB_ACCOUNT).
 *
 * Return: The hierarchy, or NULL if the allocation failed.
 */
struct brute_hierarchy *brute_hierarchy_alloc(gfp_t gfp)
{
	struct brute_hierarchy *hierarchy;

	hierarchy = kmem_cache_zalloc(brute_hierarchy_cache, gfp);
	if (!hierarchy)
		return NULL;
	this_cpu_inc(brute_hierarchies);
	refcount_set(&hierarchy->usage, 1);
	refcount_set(&hierarchy->tasks, 1);
	hierarchy->id = atomic64_inc_return(&brute_next_id);
	spin_lock_init(&hierarchy->lock);
	brute_stats_reset(&hierarchy->stats, ktime_get_ns());
	return hierarchy;
}

static void brute_hierarchy_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(brute_hierarchy_cache,
			container_of(head, struct brute_hierarchy, rcu));
	this_cpu_dec(brute_hierarchies);
}

/**
 * brute_hierarchy_count() - Count the hierarchies alive
 *
 * Return: How many hierarchies are allocated and not yet freed.
 */
long brute_hierarchy_count(void)
{
	long count = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		count += per_cpu(brute_hierarchies, cpu);
	return count;
}

/**
 * brute_hierarchy_discard() - Free a hierarchy nobody used
 * @hierarchy: A hierarchy from brute_hierarchy_alloc() that was never
 *             published to a task, or NULL.
 *
 * Nobody else can hold a pointer to it: no grace period is needed, and no
 * record is emitted (none was).  May be called from softirq context.
 */
void brute_hierarchy_discard(struct brute_hierarchy *hierarchy)
{
	if (!hierarchy)
		return;
	kmem_cache_free(brute_hierarchy_cache, hierarchy);
	this_cpu_dec(brute_hierarchies);
}

/*
 * The "deallocated" records are emitted from a worker: the last reference
 * may go in softirq context, where a record could not wait for audit's
 * backlog and would be lost.
 */
static void brute_hierarchy_dead_work(struct work_struct *work)
{
	struct brute_hierarchy *hierarchy, *next;
	struct llist_node *dead = llist_del_all(&brute_hierarchies_dead);

	llist_for_each_entry_safe(hierarchy, next, dead, dead) {
		brute_audit_deallocated(hierarchy);
		call_rcu(&hierarchy->rcu, brute_hierarchy_free_rcu);
	}
}

/**
 * brute_hierarchy_put() - Drop a reference to a hierarchy
 * @hierarchy: The hierarchy, or NULL.
 *
 * Frees it after an RCU grace period when this was the last reference (the
 * kill loop compares hierarchy pointers under RCU), once a worker reported
 * it if its allocation was.  Takes no lock: it may be called from softirq
 * context (task_free runs from an RCU callback), and nobody else can reach
 * an object whose last reference goes.
 */
void brute_hierarchy_put(struct brute_hierarchy *hierarchy)
{
	if (!hierarchy || !refcount_dec_and_test(&hierarchy->usage))
		return;
	/* Its last task went first, which dropped its exec parent. */
	WARN_ON_ONCE(hierarchy->exec_parent);
	if (test_bit(BRUTE_HIERARCHY_AUDITED, &hierarchy->flags)) {
		if (llist_add(&hierarchy->dead, &brute_hierarchies_dead))
			schedule_work(&brute_hierarchy_dead);
		return;
	}
	call_rcu(&hierarchy->rcu, brute_hierarchy_free_rcu);
}

/**
 * brute_hierarchy_leave() - A task leaves a hierarchy
 * @hierarchy: The hierarchy, or NULL.
 *
 * When the last task leaves, the hierarchy drops its exec parent and the
 * reference of its tasks.  May be called from softirq context.
 */
void brute_hierarchy_leave(struct brute_hierarchy *hierarchy)
{
	struct brute_hierarchy *parent;

	if (!hierarchy || !refcount_dec_and_test(&hierarchy->tasks))
		return;
	parent = hierarchy->exec_parent;
	hierarchy->exec_parent = NULL;
	brute_hierarchy_put(parent);
	brute_hierarchy_put(hierarchy);
}

/**
 * brute_hierarchy_cross() - Note that a hierarchy crossed a boundary
 * @hierarchy: The hierarchy of the current task.
 * @boundary: One of enum brute_boundary.
 * @old: Credentials before the crossing.
 * @new: Credentials after it.
 *
 * From now on, until its statistics restart on an execve(), crashes of
 * @hierarchy count.  The first crossing of each kind is reported.
 *
 * Context: Task context, inside the system call that crossed the boundary.
 */
void brute_hierarchy_cross(struct brute_hierarchy *hierarchy, u32 boundary,
			   const struct cred *old, const struct cred *new)
{
	bool first;

	spin_lock(&hierarchy->lock);
	first = !(hierarchy->boundaries & boundary);
	WRITE_ONCE(hierarchy->boundaries, hierarchy->boundaries | boundary);
	hierarchy->seen |= boundary;
	spin_unlock(&hierarchy->lock);

	if (first && brute_mode() != BRUTE_MODE_OFF)
		brute_audit_boundary(hierarchy, boundary, old, new);
}

/**
 * brute_hierarchy_is_instance() - Tell whether a hierarchy runs a target
 * @hierarchy: A hierarchy, kept alive by the caller (or RCU).
 * @principal: Who answers for the image's privilege gain.
 * @dev: The device of the target, 0 (with @ino 0) for any target.
 * @ino: The inode number of the target.
 *
 * Return: True if the hierarchy's image is one of @principal's privileged
 * images of the target: a running instance of what a ban forbids.
 */
bool brute_hierarchy_is_instance(struct brute_hierarchy *hierarchy,
				 kuid_t principal, dev_t dev, u64 ino)
{
	bool instance;

	spin_lock(&hierarchy->lock);
	instance = hierarchy->gain && uid_eq(hierarchy->principal, principal) &&
		   ((!dev && !ino) || (hierarchy->target_dev == dev &&
				       hierarchy->target_ino == ino));
	spin_unlock(&hierarchy->lock);
	return instance;
}

/**
 * brute_hierarchy_init() - Create the hierarchy of the init task
 *
 * Return: 0, or -ENOMEM.
 */
int __init brute_hierarchy_init(void)
{
	struct brute_hierarchy *root;

	atomic64_set(&brute_next_id,
		     (1ULL << 32) + ((u64)get_random_u32() << 8));
	brute_hierarchy_cache = KMEM_CACHE(brute_hierarchy,
					   SLAB_PANIC | SLAB_ACCOUNT);
	root = brute_hierarchy_alloc(GFP_KERNEL);
	if (!root)
		return -ENOMEM;
	root->exempt = true;
	brute_ids_save(&root->ids, current_cred());
	brute_task(current)->hierarchy = root;
	spin_lock_init(&brute_task(current)->state.lock);
	return 0;
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

/*
 * A process execs a program that forks a child, which execs another: the
 * child's hierarchy pins its exec parent only while it has tasks, and every
 * hierarchy, spares included, is freed once.
 */
static void test_hierarchy_lifetime(struct kunit *const test)
{
	struct brute_hierarchy *parent, *child, *spare;
	long before;

	brute_kunit_require(test);
	/* Frees of other tasks' hierarchies pending now are not counted. */
	rcu_barrier();
	before = brute_hierarchy_count();

	parent = brute_hierarchy_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parent);
	child = brute_hierarchy_alloc(GFP_KERNEL);
	if (!child)
		brute_hierarchy_discard(parent);
	KUNIT_ASSERT_NOT_NULL(test, child);
	spare = brute_hierarchy_alloc(GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, spare);
	KUNIT_EXPECT_NE(test, parent->id, child->id);
	brute_hierarchy_discard(spare);

	/* The fork, then the child's execve() into the new hierarchy. */
	brute_hierarchy_join(parent);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->tasks), 2);
	brute_hierarchy_get(parent);
	child->exec_parent = parent;
	brute_hierarchy_leave(parent);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->tasks), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->usage), 2);

	/* The parent exits: its child's hierarchy still holds it. */
	brute_hierarchy_leave(parent);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->usage), 1);

	/* The child exits: both go, after a grace period. */
	brute_hierarchy_leave(child);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, brute_hierarchy_count(), before);
}

/*
 * A hierarchy that was reported is reported again, and freed, by the
 * worker: its last reference may go in softirq context.
 */
static void test_hierarchy_reported_lifetime(struct kunit *const test)
{
	struct brute_hierarchy *hierarchy;
	long before;

	brute_kunit_require(test);
	/* Frees of other tasks' hierarchies pending now are not counted. */
	rcu_barrier();
	before = brute_hierarchy_count();
	hierarchy = brute_hierarchy_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hierarchy);
	set_bit(BRUTE_HIERARCHY_AUDITED, &hierarchy->flags);
	local_bh_disable();
	brute_hierarchy_leave(hierarchy);
	local_bh_enable();
	flush_work(&brute_hierarchy_dead);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, brute_hierarchy_count(), before);
	KUNIT_EXPECT_TRUE(test, llist_empty(&brute_hierarchies_dead));
}

/* A ban's instances: one principal's privileged images of one target. */
static void test_hierarchy_instance(struct kunit *const test)
{
	struct brute_hierarchy *hierarchy;

	brute_kunit_require(test);
	hierarchy = brute_hierarchy_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hierarchy);
	hierarchy->principal = KUIDT_INIT(1000);
	hierarchy->target_dev = MKDEV(8, 1);
	hierarchy->target_ino = 42;
	KUNIT_EXPECT_FALSE(test, brute_hierarchy_is_instance(hierarchy,
							     KUIDT_INIT(1000),
							     MKDEV(8, 1), 42));
	hierarchy->gain = true;
	KUNIT_EXPECT_TRUE(test, brute_hierarchy_is_instance(hierarchy,
							    KUIDT_INIT(1000),
							    MKDEV(8, 1), 42));
	KUNIT_EXPECT_TRUE(test, brute_hierarchy_is_instance(hierarchy,
							    KUIDT_INIT(1000),
							    0, 0));
	KUNIT_EXPECT_FALSE(test, brute_hierarchy_is_instance(hierarchy,
							     KUIDT_INIT(1001),
							     MKDEV(8, 1), 42));
	KUNIT_EXPECT_FALSE(test, brute_hierarchy_is_instance(hierarchy,
							     KUIDT_INIT(1000),
							     MKDEV(8, 1), 43));
	brute_hierarchy_leave(hierarchy);
}

static struct kunit_case test_hierarchy_cases[] = {
	KUNIT_CASE(test_hierarchy_lifetime),
	KUNIT_CASE(test_hierarchy_reported_lifetime),
	KUNIT_CASE(test_hierarchy_instance),
	{}
};

static struct kunit_suite test_hierarchy_suite = {
	.name = "brute_hierarchy",
	.test_cases = test_hierarchy_cases,
};

kunit_test_suite(test_hierarchy_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
