/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Task hooks
 */

#ifndef _SECURITY_BRUTE_TASK_H
#define _SECURITY_BRUTE_TASK_H

#include <linux/init.h>
#include <linux/sched.h>
#include <linux/signal_types.h>
#include <linux/types.h>

#include "input.h"
#include "peer.h"
#include "setup.h"

struct brute_hierarchy;

/**
 * enum brute_task_flag - Bits of &brute_task_security.flags
 * @BRUTE_TASK_CRASHED: A crash of the thread group was seen (on the
 *                      group leader), counted if its hierarchy crossed a
 *                      boundary: threads that fault at the same time are
 *                      one crash.
 * @BRUTE_TASK_FAULTED: A handler of the task caught a crash's signal
 *                      (&brute_task_security.fault) and the task has not
 *                      gone back to work since (read input, executed).
 * @BRUTE_TASK_FAULT_CLASSIFY: The SIGBUS it caught is to be looked at
 *                             before its handler runs.
 * @BRUTE_TASK_FAULT_EXIT: Its process ends with the fault it caught: the
 *                         crash is to be counted, once, as it exits.
 */
enum brute_task_flag {
	BRUTE_TASK_CRASHED,
	BRUTE_TASK_FAULTED,
	BRUTE_TASK_FAULT_CLASSIFY,
	BRUTE_TASK_FAULT_EXIT,
};

/**
 * struct brute_fault - A fault a task's handler caught
 * @signo: Its signal.
 * @code: Its si_code.
 * @addr: Its si_addr.
 * @not_peers: It is not any peer's doing (a SIGBUS past the end of a file
 *             another user could have truncated, a traced task's signal).
 * @classify: Classifies a SIGBUS where the task's memory can be looked at:
 *            before the handler runs.
 * @exit: Counts the crash where the task can sleep: at the end of
 *        do_exit().
 *
 * Only the task itself writes it, from a tracepoint of its own or a task
 * work of its own.
 */
struct brute_fault {
	int signo;
	int code;
	void __user *addr;
	bool not_peers;
	struct callback_head classify;
	struct callback_head exit;
};

/**
 * struct brute_task_security - Task security blob
 * @hierarchy: The task's fork hierarchy.  Only the task itself changes it,
 *             on execve(); other tasks only compare it with a hierarchy
 *             they hold a reference to.
 * @spare: The hierarchy of the image the task is executing, allocated
 *         before execve()'s point of no return (where failing is still
 *         allowed) and used after it; only the task itself touches it.
 * @flags: Atomic bits, enum brute_task_flag.
 * @state: What the process read since its image started (a fork inherits
 *         its parent's); only the thread group leader's is used.
 * @fault: The last crash's signal a handler of the task caught.
 */
struct brute_task_security {
	struct brute_hierarchy *hierarchy;
	struct brute_hierarchy *spare;
	unsigned long flags;
	struct brute_input_state state;
	struct brute_fault fault;
};

static inline struct brute_task_security *
brute_task(const struct task_struct *const task)
{
	return task->security + brute_blob_sizes.lbs_task;
}

/*
 * The task reads input, or executes: a fault its handler caught is behind
 * it (fault.c).  One test of a word the caller's blob has in cache.
 */
static inline void brute_task_resumed(struct brute_task_security *const ts)
{
	if (unlikely(test_bit(BRUTE_TASK_FAULTED, &ts->flags)))
		clear_bit(BRUTE_TASK_FAULTED, &ts->flags);
}

void brute_task_crash(const kernel_siginfo_t *info, bool not_peers,
		      bool handled);
__init void brute_task_add_hooks(void);

#endif /* _SECURITY_BRUTE_TASK_H */
