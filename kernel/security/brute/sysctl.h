/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Tunables in /proc/sys/kernel/brute/
 */

#ifndef _SECURITY_BRUTE_SYSCTL_H
#define _SECURITY_BRUTE_SYSCTL_H

#include <linux/init.h>

#include "detect.h"

/**
 * enum brute_mode - What Brute does
 * @BRUTE_MODE_OFF: Nothing is counted, reported or killed.
 * @BRUTE_MODE_AUDIT: Attacks are detected and reported, nothing is killed.
 * @BRUTE_MODE_KILL: Attacks are detected, reported and their tasks killed.
 */
enum brute_mode {
	BRUTE_MODE_OFF = 0,
	BRUTE_MODE_AUDIT = 1,
	BRUTE_MODE_KILL = 2,
};

enum brute_mode brute_mode(void);
void brute_params_get(struct brute_params *params);
int __init brute_sysctl_init(void);

#endif /* _SECURITY_BRUTE_SYSCTL_H */
