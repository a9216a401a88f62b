/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Faults: which fatal signals are crashes, and the faults a
 * handler caught but that ended the process all the same
 */

#ifndef _SECURITY_BRUTE_FAULT_H
#define _SECURITY_BRUTE_FAULT_H

#include <linux/init.h>

__init int brute_fault_setup(void);

#endif /* _SECURITY_BRUTE_FAULT_H */
