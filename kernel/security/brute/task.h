/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Task hooks
 */

#ifndef _SECURITY_BRUTE_TASK_H
#define _SECURITY_BRUTE_TASK_H

#include <linux/init.h>

__init void brute_task_add_hooks(void);

#endif /* _SECURITY_BRUTE_TASK_H */
