/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Task hooks
 */

#ifndef _SECURITY_BRUTE_TASK_H
#define _SECURITY_BRUTE_TASK_H

#include <linux/init.h>
#include <linux/sched.h>

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
 */
enum brute_task_flag {
	BRUTE_TASK_CRASHED,
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
 */
struct brute_task_security {
	struct brute_hierarchy *hierarchy;
	struct brute_hierarchy *spare;
	unsigned long flags;
	struct brute_input_state state;
};

static inline struct brute_task_security *
brute_task(const struct task_struct *const task)
{
	return task->security + brute_blob_sizes.lbs_task;
}

__init void brute_task_add_hooks(void);

#endif /* _SECURITY_BRUTE_TASK_H */
