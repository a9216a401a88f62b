/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Common definitions
 */

#ifndef _SECURITY_BRUTE_COMMON_H
#define _SECURITY_BRUTE_COMMON_H

#define BRUTE_NAME "brute"

#ifdef pr_fmt
#undef pr_fmt
#endif

#define pr_fmt(fmt) BRUTE_NAME ": " fmt

#endif /* _SECURITY_BRUTE_COMMON_H */
