// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Mitigation: kill the processes of an attack
 */

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "mitigate.h"
#include "task.h"

/*
 * A detection may kill thousands of processes: only the first ones get a
 * record each, then one summary record gives the count, so that a response
 * never overflows the audit backlog.
 */
#define BRUTE_KILL_RECORDS 16U

/**
 * brute_task_is_init() - Tell whether a process is an init
 * @p: A thread group leader, protected by RCU.
 *
 * Return: True for the global init and for the init of a pid namespace:
 * they start services and jobs for every user.
 */
bool brute_task_is_init(struct task_struct *p)
{
	return is_global_init(p) ||
	       task_tgid_nr_ns(p, task_active_pid_ns(p)) == 1;
}

/* Every user ID of @p is @uid: the process runs as that user alone. */
static bool brute_task_runs_as(struct task_struct *p, kuid_t uid)
{
	const struct cred *cred = __task_cred(p);

	return uid_eq(cred->uid, uid) && uid_eq(cred->euid, uid) &&
	       uid_eq(cred->suid, uid) && uid_eq(cred->fsuid, uid);
}

/* The thread group is already on its way out: a kill would add nothing. */
static bool brute_group_exiting(struct task_struct *p)
{
	struct signal_struct *sig = p->signal;

	return (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT) ||
	       READ_ONCE(sig->group_exec_task) || !atomic_read(&sig->live);
}

/**
 * struct brute_kill_filter - Which processes a response kills
 * @hierarchy: Those of this hierarchy, or NULL.
 * @uid: With @hierarchy, only those that run entirely as this user, if not
 *       NULL.
 * @forked: With @hierarchy, only those whose parent is in it too: not its
 *          first processes.
 * @self: With @hierarchy, the calling process too, if it is in it.
 * @principal: Without @hierarchy, the privileged images (instances) of
 *             this user's...
 * @dev: ...of the target on this device (0 with @ino 0: any target)...
 * @ino: ...with this inode number.
 */
struct brute_kill_filter {
	struct brute_hierarchy *hierarchy;
	const kuid_t *uid;
	bool forked;
	bool self;
	kuid_t principal;
	dev_t dev;
	u64 ino;
};

/**
 * brute_task_first_of() - Tell whether a process is a first one of a hierarchy
 * @p: A thread group leader, protected by RCU.
 * @hierarchy: A hierarchy, kept alive by the caller.
 *
 * Return: True if @p is in @hierarchy and its parent is not: it executed
 * the image, or was left to init by the process that forked it (a
 * service's master, which holds its listening sockets).
 */
bool brute_task_first_of(struct task_struct *p,
			 struct brute_hierarchy *hierarchy)
{
	struct task_struct *parent = rcu_dereference(p->real_parent);

	return READ_ONCE(brute_task(p)->hierarchy) == hierarchy &&
	       READ_ONCE(brute_task(parent)->hierarchy) != hierarchy;
}

static bool brute_kill_selects(struct task_struct *p,
			       const struct brute_kill_filter *filter)
{
	struct brute_hierarchy *hierarchy = READ_ONCE(brute_task(p)->hierarchy);

	if (!hierarchy)
		return false;
	if (filter->hierarchy) {
		if (hierarchy != filter->hierarchy ||
		    (filter->forked && brute_task_first_of(p, hierarchy)))
			return false;
		return !filter->uid || brute_task_runs_as(p, *filter->uid);
	}
	return brute_hierarchy_is_instance(hierarchy, filter->principal,
					   filter->dev, filter->ino);
}

/*
 * Send SIGKILL to every thread group whose leader (a leader that exited
 * before its threads still holds the group's hierarchy) the filter selects,
 * except the calling one (it is already dying) unless @filter->self,
 * groups already exiting, the global init and kernel threads; report them
 * under @hierarchy.
 */
static u32 brute_kill(struct brute_hierarchy *hierarchy,
		      const struct brute_kill_filter *filter)
{
	struct {
		struct task_struct *task;
		struct file *exe;
	} killed[BRUTE_KILL_RECORDS];
	u32 count = 0, reported = 0, i;
	struct task_struct *p;

	rcu_read_lock();
	for_each_process(p) {
		struct file *exe;

		if ((p->flags & PF_KTHREAD) ||
		    (!filter->self && same_thread_group(p, current)) ||
		    is_global_init(p) || brute_group_exiting(p) ||
		    !brute_kill_selects(p, filter))
			continue;
		exe = reported < BRUTE_KILL_RECORDS ? get_task_exe_file(p) :
						      NULL;
		if (do_send_sig_info(SIGKILL, SEND_SIG_PRIV, p, PIDTYPE_TGID)) {
			if (exe)
				fput(exe);
			continue;
		}
		if (reported < BRUTE_KILL_RECORDS) {
			get_task_struct(p);
			killed[reported].task = p;
			killed[reported].exe = exe;
			reported++;
		}
		count++;
		pr_warn_ratelimited("process %d (%s) killed: brute force attack on hierarchy %llu\n",
				    task_tgid_nr(p), p->comm, hierarchy->id);
	}
	rcu_read_unlock();

	/* Records may wait for audit's backlog: not under RCU. */
	for (i = 0; i < reported; i++) {
		brute_audit_kill(hierarchy, killed[i].task, killed[i].exe);
		if (killed[i].exe)
			fput(killed[i].exe);
		put_task_struct(killed[i].task);
	}
	if (count)
		brute_audit_kill_summary(hierarchy, count, reported);
	return count;
}

/**
 * brute_kill_hierarchy() - Kill the processes of a hierarchy
 * @hierarchy: The hierarchy, kept alive by the caller.
 * @uid: If not NULL, kill only the processes that run entirely as this
 *       user (the drivers of an exec attack; never another user's process).
 *
 * Sends SIGKILL to every thread group of @hierarchy, except the calling
 * one, groups already exiting, the global init and kernel threads.  The
 * init of a pid namespace is killed like any process (which ends its
 * namespace): it may be the attacker itself.  Callers leave out the
 * hierarchies of inits when they look for the drivers of an exec attack.
 * Brute's own SIGKILL is never counted as a crash, so this cannot recurse.
 *
 * Context: Task context; may sleep (the records wait for audit's backlog).
 * Return: The number of processes killed.
 */
u32 brute_kill_hierarchy(struct brute_hierarchy *hierarchy, const kuid_t *uid)
{
	const struct brute_kill_filter filter = {
		.hierarchy = hierarchy,
		.uid = uid,
	};

	return brute_kill(hierarchy, &filter);
}

/**
 * brute_kill_forked() - Kill the processes a hierarchy forked
 * @hierarchy: The hierarchy, kept alive by the caller.
 *
 * Like brute_kill_hierarchy(), but spares the hierarchy's first processes,
 * those whose parent is not in it (the one that executed the image, or the
 * daemon it forked and left to init): a service's master, which holds its
 * listening sockets, while its workers, forked from it, are killed.
 *
 * Context: Task context; may sleep.
 * Return: The number of processes killed.
 */
u32 brute_kill_forked(struct brute_hierarchy *hierarchy)
{
	const struct brute_kill_filter filter = {
		.hierarchy = hierarchy,
		.forked = true,
	};

	return brute_kill(hierarchy, &filter);
}

/**
 * brute_kill_held() - Kill a held hierarchy, the calling process with it
 * @hierarchy: The hierarchy, kept alive by the caller, the calling
 *             process's own.
 *
 * Like brute_kill_hierarchy(), but the calling process (the master that a
 * hold kept alive for a restart that did not come) is killed, reported and
 * counted as the others are.
 *
 * Context: Task context; may sleep.
 * Return: The number of processes killed.
 */
u32 brute_kill_held(struct brute_hierarchy *hierarchy)
{
	const struct brute_kill_filter filter = {
		.hierarchy = hierarchy,
		.self = true,
	};

	return brute_kill(hierarchy, &filter);
}

/**
 * brute_kill_instances() - Kill the running instances of a banned target
 * @hierarchy: The hierarchy whose crash gave the ban, for the records.
 * @principal: The banned user.
 * @dev: The target's device, 0 (with @ino 0) for every target.
 * @ino: The target's inode number.
 *
 * A ban refuses new execve() calls; the instances the user started before
 * it (a pool of them blocked on their input, each with its own layout)
 * would still be attempts.  They are killed at the ban: every privileged
 * image of the target the banned user answers for.
 *
 * Context: Task context; may sleep.
 * Return: The number of processes killed.
 */
u32 brute_kill_instances(struct brute_hierarchy *hierarchy, kuid_t principal,
			 dev_t dev, u64 ino)
{
	const struct brute_kill_filter filter = {
		.principal = principal,
		.dev = dev,
		.ino = ino,
	};

	return brute_kill(hierarchy, &filter);
}
