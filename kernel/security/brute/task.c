// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Task hooks: fork, execve, credential changes, crashes
 */

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "mitigate.h"
#include "setup.h"
#include "sysctl.h"
#include "target.h"
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
		brute_hierarchy_join(hierarchy);
	brute_task(task)->hierarchy = hierarchy;
	brute_task(task)->spare = NULL;
	return 0;
}

/* May run in softirq context, from an RCU callback. */
static void hook_task_free(struct task_struct *const task)
{
	struct brute_task_security *const ts = brute_task(task);

	brute_hierarchy_leave(ts->hierarchy);
	ts->hierarchy = NULL;
	brute_hierarchy_discard(ts->spare);
	ts->spare = NULL;
}

/*
 * What an execve() crosses.  The new image is privileged when its effective
 * IDs changed, or differ from its real ones however it got them: a set-ID
 * program, and also what a set-ID wrapper executes with the IDs it keeps
 * (the Xorg.wrap, pkexec pattern).  Else it may have gained capabilities:
 * file capabilities, or permitted capabilities beyond the ambient set of a
 * user who is not root in its user namespace.
 */
static u32 brute_exec_boundaries(const struct cred *const old,
				 const struct cred *const new)
{
	if (!uid_eq(old->euid, new->euid) || !gid_eq(old->egid, new->egid) ||
	    !uid_eq(new->euid, new->uid) || !gid_eq(new->egid, new->gid))
		return BRUTE_BOUNDARY_SETID;
	if (!cap_issubset(new->cap_permitted, old->cap_permitted))
		return BRUTE_BOUNDARY_FCAPS;
	if (!uid_eq(new->uid, make_kuid(new->user_ns, 0)) &&
	    !cap_issubset(new->cap_permitted, new->cap_ambient))
		return BRUTE_BOUNDARY_FCAPS;
	return 0;
}

/*
 * The hierarchy the new image may need is allocated here, where execve()
 * can still fail: without memory for it, the execve() fails with -ENOMEM
 * (charged to the caller's memory cgroup, like the rest of the new image)
 * and the task keeps its image and its hierarchy.  A spare left by an
 * execve() that failed later is used by the next one.
 */
static int hook_bprm_creds_for_exec(struct linux_binprm *const bprm)
{
	struct brute_task_security *const ts = brute_task(current);

	if (!ts->hierarchy || ts->spare)
		return 0;
	ts->spare = brute_hierarchy_alloc(GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	return ts->spare ? 0 : -ENOMEM;
}

/*
 * An execve() gives the task a new memory image.  If it shared its
 * hierarchy (it was forked since the last execve(), or has threads), it
 * leaves it for the spare, whose exec parent is the old one.  If it was
 * alone, its hierarchy starts afresh and the spare is freed.  Either way the
 * boundaries start from what the new image crosses itself: network input
 * reached the old image, not this one.  This runs after the point of no
 * return, where failing is not allowed: nothing here can.
 */
static void hook_bprm_committing_creds(const struct linux_binprm *const bprm)
{
	struct brute_task_security *const ts = brute_task(current);
	struct brute_hierarchy *const old_hierarchy = ts->hierarchy;
	const struct cred *const old = current_cred();
	const struct cred *const new = bprm->cred;
	const u32 crossed = brute_exec_boundaries(old, new);
	struct brute_hierarchy *hierarchy;

	if (!old_hierarchy)
		return;

	/* bprm_creds_for_exec allocated it, or the execve() failed there. */
	if (WARN_ON_ONCE(!ts->spare))
		return;

	if (refcount_read(&old_hierarchy->tasks) == 1) {
		hierarchy = old_hierarchy;
		spin_lock(&hierarchy->lock);
		brute_stats_reset(&hierarchy->stats, ktime_get_ns());
		brute_ids_save(&hierarchy->ids, new);
		WRITE_ONCE(hierarchy->boundaries, 0);
		hierarchy->detected = false;
		clear_bit(BRUTE_HIERARCHY_CHARGED, &hierarchy->flags);
		spin_unlock(&hierarchy->lock);
		brute_hierarchy_discard(ts->spare);
	} else {
		hierarchy = ts->spare;
		brute_stats_reset(&hierarchy->stats, ktime_get_ns());
		brute_hierarchy_get(old_hierarchy);
		hierarchy->exec_parent = old_hierarchy;
		brute_ids_save(&hierarchy->ids, new);
		WRITE_ONCE(ts->hierarchy, hierarchy);
		brute_hierarchy_leave(old_hierarchy);
	}
	ts->spare = NULL;

	/*
	 * An init starts services and jobs for every user: its processes are
	 * never killed as the drivers of an exec attack.
	 */
	if (brute_task_is_init(current))
		WRITE_ONCE(hierarchy->exempt, true);

	if (crossed)
		brute_hierarchy_cross(hierarchy, crossed, old, new);
}

static void brute_target_key_init(struct brute_target_key *const key,
				  const kuid_t uid,
				  const struct inode *const inode)
{
	key->uid = uid;
	key->dev = inode->i_sb->s_dev;
	key->ino = inode->i_ino;
}

/*
 * A ban forbids the banned user to execute the target (its real user ID
 * does not change across execve()), in kill mode only.
 */
static int hook_bprm_check_security(struct linux_binprm *const bprm)
{
	struct brute_target_key key;

	if (!atomic_read(&brute_targets.banned) ||
	    brute_mode() != BRUTE_MODE_KILL)
		return 0;
	brute_target_key_init(&key, current_uid(), file_inode(bprm->file));
	if (!brute_targets_denied(&brute_targets, &key, ktime_get_ns()))
		return 0;
	pr_notice_ratelimited("execve of %s by user %u refused: banned after an exec brute force attack\n",
			      bprm->filename,
			      from_kuid(&init_user_ns, key.uid));
	return -EPERM;
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
 * Count a crash in the statistics of its own hierarchy.  A verdict restarts
 * them, so that an attack that goes on is detected again, and marks the
 * hierarchy detected: in kill mode every later crash of a detected hierarchy
 * kills it again (*@rekill), whatever the mode was when it was detected.
 *
 * Return: The verdict, or BRUTE_VERDICT_NONE.  *@quiet is set when the
 * hierarchy was already detected: its crashes are still counted but no
 * longer reported one by one.
 */
static enum brute_verdict brute_charge(struct brute_hierarchy *const hierarchy,
				       struct brute_crash_info *const crash,
				       const u64 now,
				       const struct brute_params *const params,
				       const enum brute_mode mode,
				       bool *const quiet, bool *const rekill)
{
	enum brute_verdict verdict;

	spin_lock(&hierarchy->lock);
	crash->period_ns = brute_stats_update(&hierarchy->stats, now, params);
	crash->stats = hierarchy->stats;
	hierarchy->crashes++;
	*quiet = hierarchy->detected;
	*rekill = false;
	verdict = brute_verdict(&hierarchy->stats, params);
	if (verdict != BRUTE_VERDICT_NONE) {
		hierarchy->detected = true;
		hierarchy->attacks++;
		brute_stats_reset(&hierarchy->stats, now);
	} else if (hierarchy->detected && mode == BRUTE_MODE_KILL) {
		*rekill = true;
	}
	spin_unlock(&hierarchy->lock);
	return verdict;
}

/* Kill the processes of @hierarchy (only @uid's if not NULL); count them. */
static void brute_kill(struct brute_hierarchy *const hierarchy,
		       const kuid_t *const uid)
{
	const u32 killed = brute_kill_hierarchy(hierarchy, uid);

	spin_lock(&hierarchy->lock);
	hierarchy->killed += killed;
	spin_unlock(&hierarchy->lock);
}

/*
 * Charge the crash of @hierarchy, once since its execve(), to the entry of
 * its user and its executable: an exec attack is many images of one target
 * started by one user, each crashing.  A verdict bans the target for the
 * user (kill mode, ban_time_s > 0) and, when the image crossed a local
 * boundary, kills the processes that forked it, those of them that run as
 * that user alone.
 */
static void brute_charge_target(struct brute_hierarchy *const hierarchy,
				const kernel_siginfo_t *const info,
				const u64 now, const u64 start,
				const struct brute_params *const params,
				const enum brute_mode mode)
{
	struct brute_hierarchy *const parent = hierarchy->exec_parent;
	char name[BRUTE_TARGET_NAME_LEN];
	struct brute_target_charge charge;
	struct brute_crash_info crash = {};
	struct name_snapshot snapshot;
	struct brute_target_key key;
	const char *mitigation;
	struct file *exe;
	u64 ban_ns = 0;
	bool kill;

	exe = get_task_exe_file(current);
	if (!exe)
		return;
	brute_target_key_init(&key, hierarchy->ids.uid, file_inode(exe));
	take_dentry_name_snapshot(&snapshot, exe->f_path.dentry);
	strscpy(name, snapshot.name.name, sizeof(name));
	release_dentry_name_snapshot(&snapshot);
	fput(exe);

	if (mode == BRUTE_MODE_KILL)
		ban_ns = (u64)params->ban_time_s * NSEC_PER_SEC;
	brute_targets_charge(&brute_targets, &key, name, now, start, ban_ns,
			     params, &charge);
	if (!charge.charged) {
		pr_warn_ratelimited("crash of %d (%s) not charged to user %u: (user, target) table full of bans or no memory\n",
				    task_tgid_nr(current), current->comm,
				    from_kuid(&init_user_ns, key.uid));
		brute_audit_skipped(hierarchy, &key);
		return;
	}

	crash.hierarchy = parent ? parent : hierarchy;
	crash.origin = hierarchy;
	crash.target = &key;
	crash.stats = charge.stats;
	crash.period_ns = charge.period_ns;
	brute_audit_crash(&crash, info);
	if (charge.verdict == BRUTE_VERDICT_NONE)
		return;

	/*
	 * The processes that forked the image are the attacker's when the
	 * image crossed a local boundary.  When only network input reached
	 * it, they are a service handing connections to its handlers: the
	 * attacker is remote, the ban stops it, the service lives.
	 */
	kill = mode == BRUTE_MODE_KILL && parent && !READ_ONCE(parent->exempt) &&
	       (READ_ONCE(hierarchy->boundaries) & ~BRUTE_BOUNDARY_NETWORK);
	if (mode != BRUTE_MODE_KILL)
		mitigation = "audit";
	else if (charge.banned)
		mitigation = "ban";
	else
		mitigation = kill ? "kill" : "none";
	pr_warn("exec brute force attack detected: user %u on %s (%u faults)\n",
		from_kuid(&init_user_ns, key.uid), name, charge.stats.faults);
	brute_audit_attack(&crash, charge.verdict, params, mode, mitigation);
	if (charge.banned)
		brute_audit_ban(hierarchy, &key, name, params->ban_time_s);
	if (kill)
		brute_kill(parent, &key.uid);
}

/*
 * The current task is about to die from a signal.  If it is a crash of a
 * hierarchy that crossed a boundary, count it there (fork attacks) and,
 * once per hierarchy, in the (user, target) table (exec attacks).
 */
static void hook_task_fatal_signal(const kernel_siginfo_t *const info)
{
	const enum brute_mode mode = brute_mode();
	struct brute_crash_info crash = {};
	struct brute_hierarchy *hierarchy;
	struct brute_params params;
	enum brute_verdict verdict;
	bool quiet, rekill;
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
	crash.hierarchy = hierarchy;
	crash.origin = hierarchy;

	verdict = brute_charge(hierarchy, &crash, now, &params, mode, &quiet,
			       &rekill);
	if (!quiet)
		brute_audit_crash(&crash, info);
	if (verdict != BRUTE_VERDICT_NONE) {
		pr_warn("fork brute force attack detected on hierarchy %llu (%u faults)\n",
			hierarchy->id, crash.stats.faults);
		brute_audit_attack(&crash, verdict, &params, mode,
				   mode == BRUTE_MODE_KILL ? "kill" : "audit");
	}
	if (mode == BRUTE_MODE_KILL && (verdict != BRUTE_VERDICT_NONE || rekill))
		brute_kill(hierarchy, NULL);

	if (!test_and_set_bit(BRUTE_HIERARCHY_CHARGED, &hierarchy->flags))
		brute_charge_target(hierarchy, info, now, now - crash.period_ns,
				    &params, mode);
}

static struct security_hook_list brute_task_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(task_alloc, hook_task_alloc),
	LSM_HOOK_INIT(task_free, hook_task_free),
	LSM_HOOK_INIT(bprm_creds_for_exec, hook_bprm_creds_for_exec),
	LSM_HOOK_INIT(bprm_check_security, hook_bprm_check_security),
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
