// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Mitigation: kill the processes of a hierarchy
 */

#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "mitigate.h"

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
 * brute_kill_hierarchy() - Kill the processes of a hierarchy
 * @hierarchy: The hierarchy, kept alive by the caller.
 * @uid: If not NULL, kill only the processes that run entirely as this
 *       user (the drivers of an exec attack; never another user's process).
 *
 * Sends SIGKILL to every thread group whose leader belongs to @hierarchy
 * (a leader that exited before its threads still holds the group's
 * hierarchy), except the calling one (it is already dying), groups already
 * exiting, the global init and kernel threads.  The init of a pid namespace
 * is killed like any process (which ends its namespace): it may be the
 * attacker itself.  Callers leave out the hierarchies of inits when they
 * look for the drivers of an exec attack.  Brute's own SIGKILL is never
 * counted as a crash, so this cannot recurse.
 *
 * Context: Task context; takes rcu_read_lock().
 * Return: The number of processes killed.
 */
u32 brute_kill_hierarchy(struct brute_hierarchy *hierarchy, const kuid_t *uid)
{
	struct task_struct *p;
	u32 killed = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (READ_ONCE(brute_task(p)->hierarchy) != hierarchy)
			continue;
		if ((p->flags & PF_KTHREAD) || same_thread_group(p, current) ||
		    is_global_init(p) || brute_group_exiting(p))
			continue;
		if (uid && !brute_task_runs_as(p, *uid))
			continue;
		if (do_send_sig_info(SIGKILL, SEND_SIG_PRIV, p, PIDTYPE_TGID))
			continue;
		if (killed++ < BRUTE_KILL_RECORDS)
			brute_audit_kill(hierarchy, p);
		pr_warn_ratelimited("process %d (%s) killed: brute force attack on hierarchy %llu\n",
				    task_tgid_nr(p), p->comm, hierarchy->id);
	}
	rcu_read_unlock();
	if (killed)
		brute_audit_kill_summary(hierarchy, killed,
					 min(killed, BRUTE_KILL_RECORDS));
	return killed;
}
