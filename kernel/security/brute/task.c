// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Task hooks: fork, execve, credential changes, crashes
 */

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/lsm_hooks.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "mitigate.h"
#include "setup.h"
#include "sysctl.h"
#include "task.h"

/*
 * A fork, a vfork or a new thread shares the memory image of its parent: it
 * joins its hierarchy.  This is the only cost Brute adds to fork: one
 * reference, no lock.
 */
static int hook_task_alloc(struct task_struct *const task,
			   const unsigned long clone_flags)
{
	struct brute_hierarchy *const hierarchy = brute_task(current)->hierarchy;

	if (hierarchy)
		brute_hierarchy_get(hierarchy);
	brute_task(task)->hierarchy = hierarchy;
	return 0;
}

/* May run in softirq context, from an RCU callback. */
static void hook_task_free(struct task_struct *const task)
{
	struct brute_task_security *const ts = brute_task(task);

	brute_hierarchy_put(ts->hierarchy);
	ts->hierarchy = NULL;
}

/*
 * What an execve() crosses: a change of the effective IDs (a set-user-ID or
 * set-group-ID program), or else new permitted capabilities (file
 * capabilities).
 */
static u32 brute_exec_boundaries(const struct cred *const old,
				 const struct cred *const new)
{
	if (!uid_eq(old->euid, new->euid) || !gid_eq(old->egid, new->egid))
		return BRUTE_BOUNDARY_SETID;
	if (!cap_issubset(new->cap_permitted, old->cap_permitted))
		return BRUTE_BOUNDARY_FCAPS;
	return 0;
}

/*
 * An execve() gives the task a new memory image.  If it shared its
 * hierarchy (it was forked since the last execve()), it leaves it for a new
 * one, whose exec parent is the old one; the task's reference moves to that
 * link.  If it was alone (an execve() after an execve()), its hierarchy
 * starts afresh.  The network flag is inherited either way.
 *
 * This runs after the point of no return, where sleeping is allowed but
 * failing is not: if the allocation fails, the task stays in its current
 * hierarchy, whose statistics keep counting; it is never left without one.
 */
static void hook_bprm_committing_creds(const struct linux_binprm *const bprm)
{
	struct brute_task_security *const ts = brute_task(current);
	struct brute_hierarchy *const old_hierarchy = ts->hierarchy;
	const struct cred *const old = current_cred();
	const struct cred *const new = bprm->cred;
	const u32 crossed = brute_exec_boundaries(old, new);
	struct brute_hierarchy *hierarchy;
	bool network;

	if (!old_hierarchy)
		return;
	network = READ_ONCE(old_hierarchy->network);

	if (refcount_read(&old_hierarchy->usage) == 1) {
		hierarchy = old_hierarchy;
		spin_lock(&hierarchy->lock);
		brute_stats_reset(&hierarchy->stats, ktime_get_ns());
		brute_ids_save(&hierarchy->ids, new);
		hierarchy->boundaries = network ? BRUTE_BOUNDARY_NETWORK : 0;
		hierarchy->detected = false;
		clear_bit(BRUTE_HIERARCHY_CHARGED, &hierarchy->flags);
		spin_unlock(&hierarchy->lock);
	} else {
		hierarchy = brute_hierarchy_alloc(GFP_KERNEL | __GFP_NOWARN);
		if (!hierarchy) {
			pr_warn_ratelimited("no memory for a new hierarchy, %d (%s) stays in %llu\n",
					    task_tgid_nr(current), current->comm,
					    old_hierarchy->id);
			hierarchy = old_hierarchy;
		} else {
			hierarchy->exec_parent = old_hierarchy;
			hierarchy->network = network;
			hierarchy->boundaries = network ?
				BRUTE_BOUNDARY_NETWORK : 0;
			hierarchy->seen = hierarchy->boundaries;
			brute_ids_save(&hierarchy->ids, new);
			WRITE_ONCE(ts->hierarchy, hierarchy);
		}
	}

	/*
	 * Every service the init process starts is one of its exec children:
	 * charging its hierarchy would make init's own transient children the
	 * target of exec attacks on any crashing service.  Services are judged
	 * on their own hierarchies.
	 */
	if (is_global_init(current))
		WRITE_ONCE(hierarchy->exempt, true);

	if (crossed)
		brute_hierarchy_cross(hierarchy, crossed, old, new);
}

/* A user or group ID that leaves the set saved at execve() is a crossing. */
static void brute_check_ids(const struct cred *const old,
			    const struct cred *const new)
{
	struct brute_hierarchy *const hierarchy = brute_task(current)->hierarchy;
	bool changed;

	if (!hierarchy ||
	    (READ_ONCE(hierarchy->boundaries) & BRUTE_BOUNDARY_CRED))
		return;
	spin_lock(&hierarchy->lock);
	changed = brute_ids_changed(&hierarchy->ids, new);
	spin_unlock(&hierarchy->lock);
	if (changed)
		brute_hierarchy_cross(hierarchy, BRUTE_BOUNDARY_CRED, old, new);
}

static int hook_task_fix_setuid(struct cred *const new,
				const struct cred *const old, const int flags)
{
	brute_check_ids(old, new);
	return 0;
}

static int hook_task_fix_setgid(struct cred *const new,
				const struct cred *const old, const int flags)
{
	brute_check_ids(old, new);
	return 0;
}

/*
 * Count a crash in the statistics of @hierarchy.  @crash->origin is the
 * crashing task's hierarchy; @base, if not zero, is where the statistics of
 * an exec parent start when this is their first crash.
 *
 * Return: The verdict if it is new (an attack not detected before), else
 * BRUTE_VERDICT_NONE.  *@quiet is set when the hierarchy was already
 * detected: its crashes are still counted but no longer reported one by one.
 */
static enum brute_verdict brute_charge(struct brute_hierarchy *const hierarchy,
				       struct brute_crash_info *const crash,
				       const u64 now, const u64 base,
				       const struct brute_params *const params,
				       bool *const quiet)
{
	enum brute_verdict verdict;

	crash->hierarchy = hierarchy;
	spin_lock(&hierarchy->lock);
	if (base && !hierarchy->stats.faults)
		hierarchy->stats.last_ns = base;
	crash->period_ns = brute_stats_update(&hierarchy->stats, now, params);
	crash->stats = hierarchy->stats;
	*quiet = hierarchy->detected;
	verdict = brute_verdict(&hierarchy->stats, params);
	if (verdict != BRUTE_VERDICT_NONE && !hierarchy->detected) {
		hierarchy->detected = true;
		hierarchy->attacks++;
	} else {
		verdict = BRUTE_VERDICT_NONE;
	}
	spin_unlock(&hierarchy->lock);
	return verdict;
}

static void brute_respond(const struct brute_crash_info *const crash,
			  const enum brute_verdict verdict,
			  const struct brute_params *const params,
			  const enum brute_mode mode)
{
	struct brute_hierarchy *const hierarchy = crash->hierarchy;
	u32 killed;

	pr_warn("%s brute force attack detected on hierarchy %llu (%u faults)\n",
		hierarchy == crash->origin ? "fork" : "exec", hierarchy->id,
		crash->stats.faults);
	brute_audit_attack(crash, verdict, params, mode);
	if (mode != BRUTE_MODE_KILL)
		return;
	killed = brute_kill_hierarchy(hierarchy);
	spin_lock(&hierarchy->lock);
	hierarchy->killed += killed;
	spin_unlock(&hierarchy->lock);
}

/*
 * The current task is about to die from a signal.  If it is a crash of a
 * hierarchy that crossed a boundary, count it there (fork attacks) and,
 * once per hierarchy, in its exec parent (exec attacks: a parent that
 * forks and executes a target again and again creates a new hierarchy for
 * each attempt, each crashing once).
 */
static void hook_task_fatal_signal(const kernel_siginfo_t *const info)
{
	const enum brute_mode mode = brute_mode();
	struct brute_hierarchy *hierarchy, *parent = NULL;
	struct brute_crash_info crash = {};
	struct brute_params params;
	enum brute_verdict verdict;
	bool quiet;
	u64 now;

	if (!info || mode == BRUTE_MODE_OFF || (current->flags & PF_KTHREAD))
		return;
	if (!brute_signal_counts(info, task_tgid_vnr(current)))
		return;
	hierarchy = brute_task(current)->hierarchy;
	if (!hierarchy)
		return;

	/* A change of IDs not seen by the set*id() hooks still counts. */
	brute_check_ids(current_cred(), current_cred());
	if (!READ_ONCE(hierarchy->boundaries))
		return;

	brute_params_get(&params);
	now = ktime_get_ns();
	crash.origin = hierarchy;

	if (hierarchy->exec_parent && !READ_ONCE(hierarchy->exec_parent->exempt) &&
	    !test_and_set_bit(BRUTE_HIERARCHY_CHARGED, &hierarchy->flags))
		parent = hierarchy->exec_parent;

	verdict = brute_charge(hierarchy, &crash, now, 0, &params, &quiet);
	if (!quiet)
		brute_audit_crash(&crash, info);
	if (verdict != BRUTE_VERDICT_NONE)
		brute_respond(&crash, verdict, &params, mode);

	if (!parent)
		return;
	/* The parent's first period starts where this hierarchy's last one did. */
	verdict = brute_charge(parent, &crash, now, now - crash.period_ns, &params,
			       &quiet);
	if (!quiet)
		brute_audit_crash(&crash, info);
	if (verdict != BRUTE_VERDICT_NONE)
		brute_respond(&crash, verdict, &params, mode);
}

static struct security_hook_list brute_task_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(task_alloc, hook_task_alloc),
	LSM_HOOK_INIT(task_free, hook_task_free),
	LSM_HOOK_INIT(bprm_committing_creds, hook_bprm_committing_creds),
	LSM_HOOK_INIT(task_fix_setuid, hook_task_fix_setuid),
	LSM_HOOK_INIT(task_fix_setgid, hook_task_fix_setgid),
	LSM_HOOK_INIT(task_fatal_signal, hook_task_fatal_signal),
};

/**
 * brute_task_add_hooks() - Register the task hooks
 */
__init void brute_task_add_hooks(void)
{
	security_add_hooks(brute_task_hooks, ARRAY_SIZE(brute_task_hooks),
			   &brute_lsmid);
}
