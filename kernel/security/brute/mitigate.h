/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Mitigation
 */

#ifndef _SECURITY_BRUTE_MITIGATE_H
#define _SECURITY_BRUTE_MITIGATE_H

#include <linux/sched.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct brute_hierarchy;

bool brute_task_is_init(struct task_struct *p);
u32 brute_kill_hierarchy(struct brute_hierarchy *hierarchy, const kuid_t *uid);

#endif /* _SECURITY_BRUTE_MITIGATE_H */
