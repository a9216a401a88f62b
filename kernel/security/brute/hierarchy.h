/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Fork hierarchies
 */

#ifndef _SECURITY_BRUTE_HIERARCHY_H
#define _SECURITY_BRUTE_HIERARCHY_H

#include <linux/bits.h>
#include <linux/gfp_types.h>
#include <linux/llist.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "detect.h"
#include "setup.h"

/**
 * enum brute_hierarchy_flag - Bits of &brute_hierarchy.flags
 * @BRUTE_HIERARCHY_AUDITED: Its "allocated" record was emitted.
 * @BRUTE_HIERARCHY_CHARGED: One of its crashes was charged to the
 *                           (user, target) table since its last execve().
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
 * @exec_parent is the old one: the processes that forked the image, which
 * an exec attack may have to stop.
 *
 * Two counters keep it alive.  @tasks counts its tasks: fork costs exactly
 * one increment of it.  @usage counts one reference for all the tasks
 * together while there are any, plus one per hierarchy whose @exec_parent
 * this is.  When the last task goes, the hierarchy drops its own exec
 * parent: a chain of exec parents never outlives the tasks that use it, so
 * a relay of processes that each execve() and exit pins at most two
 * hierarchies.
 */
struct brute_hierarchy {
	/** @usage: References, see above. */
	refcount_t usage;
	/** @tasks: Tasks in the hierarchy. */
	refcount_t tasks;
	/** @id: Identifier, never reused; names the hierarchy in records. */
	u64 id;
	/**
	 * @exec_parent: The hierarchy that forked before the execve() that
	 * created this one, or NULL.  Holds a reference; set before any
	 * other task can see this hierarchy and cleared when its last task
	 * goes, so a task of the hierarchy can read it without a lock.
	 */
	struct brute_hierarchy *exec_parent;
	/**
	 * @exempt: The hierarchy of the kernel threads, of the global init or
	 * of a pid namespace's init: its processes are never killed as the
	 * drivers of an exec attack.
	 */
	bool exempt;
	/** @lock: Protects the fields below. */
	spinlock_t lock;
	/** @stats: Crash statistics. */
	struct brute_stats stats;
	/** @ids: IDs saved at the last execve(); a change is a crossing. */
	struct brute_ids ids;
	/**
	 * @owner: With @gain, the user whose privileged exec chain started
	 * the image: the real user ID of the task that executed the first
	 * privileged image of the chain.
	 */
	kuid_t owner;
	/**
	 * @principal: With @gain, who answers for @owner: @owner, or the
	 * creator of @owner's user namespace (brute_principal()).  Exec
	 * attacks are counted, and banned, per principal.
	 */
	kuid_t principal;
	/**
	 * @gain: The image runs with a privilege its user gained across an
	 * execve() (set-ID, file capabilities), its own or one further up a
	 * chain that has not dropped back to the user since: its crashes are
	 * its user's doing.
	 */
	bool gain;
	/** @target_dev: The device of the image's executable. */
	dev_t target_dev;
	/** @target_ino: The inode number of the image's executable. */
	u64 target_ino;
	/**
	 * @pending: Boundaries the image crosses when its execve() commits,
	 * set on a spare hierarchy before the point of no return.
	 */
	u32 pending;
	/** @boundaries: Boundaries crossed since the statistics started. */
	u32 boundaries;
	/** @seen: Every boundary ever crossed, for the final record. */
	u32 seen;
	/** @crashes: Crashes counted, in total. */
	u32 crashes;
	/** @attacks: Attacks detected on this hierarchy. */
	u32 attacks;
	/** @killed: Tasks killed by Brute in this hierarchy. */
	u32 killed;
	/**
	 * @detected: An attack was detected since the last execve(): its
	 * crashes are no longer recorded one by one.
	 */
	bool detected;
	/**
	 * @rekills: The last verdict was made in kill mode: while the mode is
	 * kill, every later crash kills the hierarchy again.
	 */
	bool rekills;
	/**
	 * @restart: The backstop asked for a restart of the service (slow
	 * crashes): its next crash kills it, and says so.
	 */
	bool restart;
	/**
	 * @held_until: The backstop stopped crashes that came fast while
	 * backstop_hold_s was set: the processes forked inside the hierarchy
	 * were killed, its first ones (what the service listens with) are
	 * held for a restart until this time (ktime_get_ns()), 0 if never.
	 * Set and cleared under @lock (hold.c), read without it: while it is
	 * set, a fork of the hierarchy is refused; once it has passed, the
	 * hold's timer or the next fork kills the hierarchy.
	 */
	u64 held_until;
	/** @flags: Atomic bits, enum brute_hierarchy_flag. */
	unsigned long flags;
	/** @rcu: Frees the hierarchy after a grace period. */
	struct rcu_head rcu;
	/** @dead: Node in the list of hierarchies to report and free. */
	struct llist_node dead;
};

struct brute_hierarchy *brute_hierarchy_alloc(gfp_t gfp);
void brute_hierarchy_put(struct brute_hierarchy *hierarchy);
void brute_hierarchy_discard(struct brute_hierarchy *hierarchy);
void brute_hierarchy_leave(struct brute_hierarchy *hierarchy);
long brute_hierarchy_count(void);
void brute_hierarchy_cross(struct brute_hierarchy *hierarchy, u32 boundary,
			   const struct cred *old, const struct cred *new);
bool brute_hierarchy_is_instance(struct brute_hierarchy *hierarchy,
				 kuid_t principal, dev_t dev, u64 ino);

static inline void brute_hierarchy_get(struct brute_hierarchy *hierarchy)
{
	refcount_inc(&hierarchy->usage);
}

/* A new task joins the hierarchy of its parent. */
static inline void brute_hierarchy_join(struct brute_hierarchy *hierarchy)
{
	refcount_inc(&hierarchy->tasks);
}

int __init brute_hierarchy_init(void);

#endif /* _SECURITY_BRUTE_HIERARCHY_H */
