/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Fork hierarchies
 */

#ifndef _SECURITY_BRUTE_HIERARCHY_H
#define _SECURITY_BRUTE_HIERARCHY_H

#include <linux/bits.h>
#include <linux/gfp_types.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "detect.h"
#include "setup.h"

/**
 * enum brute_boundary - Privilege boundaries
 * @BRUTE_BOUNDARY_SETID: execve() of a set-user-ID or set-group-ID program
 *                        that changed the effective IDs.
 * @BRUTE_BOUNDARY_FCAPS: execve() that gained permitted capabilities (file
 *                        capabilities) without changing IDs.
 * @BRUTE_BOUNDARY_CRED: a user or group ID changed from the saved set.
 * @BRUTE_BOUNDARY_NETWORK: input from the network (a peer that is not
 *                          loopback) reached a task of the hierarchy.
 */
enum brute_boundary {
	BRUTE_BOUNDARY_SETID = BIT(0),
	BRUTE_BOUNDARY_FCAPS = BIT(1),
	BRUTE_BOUNDARY_CRED = BIT(2),
	BRUTE_BOUNDARY_NETWORK = BIT(3),
};

/**
 * enum brute_hierarchy_flag - Bits of &brute_hierarchy.flags
 * @BRUTE_HIERARCHY_AUDITED: Its "allocated" record was emitted.
 * @BRUTE_HIERARCHY_CHARGED: It already charged its exec parent with a crash.
 */
enum brute_hierarchy_flag {
	BRUTE_HIERARCHY_AUDITED,
	BRUTE_HIERARCHY_CHARGED,
};

/**
 * struct brute_hierarchy - A fork hierarchy
 *
 * All the tasks that share one memory image, because they were forked (or
 * cloned) from each other without an execve() since, share one hierarchy.
 * An execve() by a task that shares its hierarchy gives it a new one, whose
 * @exec_parent is the old one: crashes of the new hierarchy are also charged
 * there, to detect attacks that fork and execve() a target again and again.
 */
struct brute_hierarchy {
	/**
	 * @usage: References: one per task, one per hierarchy whose
	 * @exec_parent this is.
	 */
	refcount_t usage;
	/** @id: Identifier, never reused; names the hierarchy in records. */
	u64 id;
	/**
	 * @exec_parent: The hierarchy that forked before the execve() that
	 * created this one, or NULL.  Immutable, holds a reference.
	 */
	struct brute_hierarchy *exec_parent;
	/**
	 * @exempt: Never charged with exec attacks: the hierarchy of the
	 * kernel threads and the one of the global init.  Set once, before
	 * any task of an exec child can read it.
	 */
	bool exempt;
	/** @lock: Protects the fields below. */
	spinlock_t lock;
	/** @stats: Crash statistics. */
	struct brute_stats stats;
	/** @ids: IDs saved at the last execve(); a change is a crossing. */
	struct brute_ids ids;
	/** @boundaries: Boundaries crossed since the statistics started. */
	u32 boundaries;
	/** @seen: Every boundary ever crossed, for the final record. */
	u32 seen;
	/** @attacks: Attacks detected on this hierarchy. */
	u32 attacks;
	/** @killed: Tasks killed by Brute in this hierarchy. */
	u32 killed;
	/** @network: Network input reached it; inherited across execve(). */
	bool network;
	/** @detected: An attack was detected; it is not detected again. */
	bool detected;
	/** @flags: Atomic bits, enum brute_hierarchy_flag. */
	unsigned long flags;
};

/**
 * struct brute_task_security - Task security blob
 * @hierarchy: The task's fork hierarchy.  Only the task itself changes it,
 *             on execve(); other tasks only compare it with a hierarchy
 *             they hold a reference to.
 */
struct brute_task_security {
	struct brute_hierarchy *hierarchy;
};

static inline struct brute_task_security *
brute_task(const struct task_struct *const task)
{
	return task->security + brute_blob_sizes.lbs_task;
}

struct brute_hierarchy *brute_hierarchy_alloc(gfp_t gfp);
void brute_hierarchy_put(struct brute_hierarchy *hierarchy);
void brute_hierarchy_cross(struct brute_hierarchy *hierarchy, u32 boundary,
			   const struct cred *old, const struct cred *new);

static inline void brute_hierarchy_get(struct brute_hierarchy *hierarchy)
{
	refcount_inc(&hierarchy->usage);
}

int __init brute_hierarchy_init(void);

#endif /* _SECURITY_BRUTE_HIERARCHY_H */
