/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Mitigation
 */

#ifndef _SECURITY_BRUTE_MITIGATE_H
#define _SECURITY_BRUTE_MITIGATE_H

#include <linux/types.h>

struct brute_hierarchy;

u32 brute_kill_hierarchy(struct brute_hierarchy *hierarchy);

#endif /* _SECURITY_BRUTE_MITIGATE_H */
