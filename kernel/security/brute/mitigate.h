/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Mitigation: kill the processes of an attack
 */

#ifndef _SECURITY_BRUTE_MITIGATE_H
#define _SECURITY_BRUTE_MITIGATE_H

#include <linux/sched.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct brute_hierarchy;

bool brute_task_is_init(struct task_struct *p);
bool brute_task_first_of(struct task_struct *p,
			 struct brute_hierarchy *hierarchy);
u32 brute_kill_hierarchy(struct brute_hierarchy *hierarchy, const kuid_t *uid);
u32 brute_kill_forked(struct brute_hierarchy *hierarchy);
u32 brute_kill_held(struct brute_hierarchy *hierarchy);
u32 brute_kill_instances(struct brute_hierarchy *hierarchy, kuid_t principal,
			 dev_t dev, u64 ino);

#endif /* _SECURITY_BRUTE_MITIGATE_H */
