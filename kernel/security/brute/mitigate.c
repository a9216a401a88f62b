// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Mitigation: kill the tasks of an attacked hierarchy
 */

#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "mitigate.h"

/**
 * brute_kill_hierarchy() - Kill every process of a hierarchy
 * @hierarchy: The hierarchy, kept alive by the caller.
 *
 * Sends SIGKILL to every process whose thread group leader belongs to
 * @hierarchy, except the calling one (it is already dying), processes
 * already exiting, the global init and kernel threads.  Brute's own SIGKILL
 * is never counted as a crash, so this cannot recurse; the caller marks the
 * hierarchy detected beforehand so that crashes racing with the kills do not
 * detect the attack again.
 *
 * Context: Task context; takes rcu_read_lock().
 * Return: The number of processes killed.
 */
u32 brute_kill_hierarchy(struct brute_hierarchy *hierarchy)
{
	struct task_struct *p;
	u32 killed = 0;

	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & (PF_KTHREAD | PF_EXITING)) || is_global_init(p) ||
		    same_thread_group(p, current))
			continue;
		if (READ_ONCE(brute_task(p)->hierarchy) != hierarchy)
			continue;
		if (do_send_sig_info(SIGKILL, SEND_SIG_PRIV, p, PIDTYPE_TGID))
			continue;
		killed++;
		brute_audit_kill(hierarchy, p);
		pr_warn_ratelimited("process %d (%s) killed: brute force attack on hierarchy %llu\n",
				    task_tgid_nr(p), p->comm, hierarchy->id);
	}
	rcu_read_unlock();
	return killed;
}
