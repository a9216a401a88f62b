/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - The backstop's hold: a service's master kept for a restart
 */

#ifndef _SECURITY_BRUTE_HOLD_H
#define _SECURITY_BRUTE_HOLD_H

#include <linux/types.h>

struct brute_hierarchy;

u64 brute_hold_start(struct brute_hierarchy *hierarchy, u64 now, u32 hold_s);
void brute_hold_arm(struct brute_hierarchy *hierarchy, u64 until, u32 hold_s);
void brute_hold_end(struct brute_hierarchy *hierarchy);
bool brute_hold_refuses(struct brute_hierarchy *hierarchy);

#endif /* _SECURITY_BRUTE_HOLD_H */
