// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Fork hierarchies
 */

#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "sysctl.h"

static struct kmem_cache *brute_hierarchy_cache __ro_after_init;

/*
 * Identifiers start at a random offset above 2^32 so that they differ from
 * one boot to the next and cannot be confused with a PID.
 */
static atomic64_t brute_next_id = ATOMIC64_INIT(0);

/**
 * brute_hierarchy_alloc() - Allocate a new hierarchy
 * @gfp: Allocation flags.
 *
 * The new hierarchy has one reference, a fresh identifier and statistics
 * that start now.  The caller fills in the IDs and boundaries.
 *
 * Return: The hierarchy, or NULL if the allocation failed.
 */
struct brute_hierarchy *brute_hierarchy_alloc(gfp_t gfp)
{
	struct brute_hierarchy *hierarchy;

	hierarchy = kmem_cache_zalloc(brute_hierarchy_cache, gfp);
	if (!hierarchy)
		return NULL;
	refcount_set(&hierarchy->usage, 1);
	hierarchy->id = atomic64_inc_return(&brute_next_id);
	spin_lock_init(&hierarchy->lock);
	brute_stats_reset(&hierarchy->stats, ktime_get_ns());
	return hierarchy;
}

/**
 * brute_hierarchy_put() - Drop a reference to a hierarchy
 * @hierarchy: The hierarchy, or NULL.
 *
 * Frees it, and drops its reference to its exec parent, when this was the
 * last one.  Takes no lock: it may be called from softirq context (task_free
 * runs from an RCU callback), and nobody else can reach an object whose last
 * reference goes.
 */
void brute_hierarchy_put(struct brute_hierarchy *hierarchy)
{
	while (hierarchy && refcount_dec_and_test(&hierarchy->usage)) {
		struct brute_hierarchy *const parent = hierarchy->exec_parent;

		brute_audit_deallocated(hierarchy);
		kmem_cache_free(brute_hierarchy_cache, hierarchy);
		hierarchy = parent;
	}
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
	hierarchy->boundaries |= boundary;
	hierarchy->seen |= boundary;
	if (boundary == BRUTE_BOUNDARY_NETWORK)
		WRITE_ONCE(hierarchy->network, true);
	spin_unlock(&hierarchy->lock);

	if (first && brute_mode() != BRUTE_MODE_OFF)
		brute_audit_boundary(hierarchy, boundary, old, new);
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
	brute_hierarchy_cache = KMEM_CACHE(brute_hierarchy, SLAB_PANIC);
	root = brute_hierarchy_alloc(GFP_KERNEL);
	if (!root)
		return -ENOMEM;
	root->exempt = true;
	brute_ids_save(&root->ids, current_cred());
	brute_task(current)->hierarchy = root;
	return 0;
}
