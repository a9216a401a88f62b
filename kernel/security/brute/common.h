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

#include <linux/ctype.h>
#include <linux/kstrtox.h>
#include <linux/types.h>

/*
 * The numbers the securityfs files take: decimal digits only (no sign, no
 * space), and a value that fits -- one that does not is refused, never
 * wrapped.
 */
static inline int brute_parse_u32(const char *s, u32 *value)
{
	return isdigit(*s) ? kstrtou32(s, 10, value) : -EINVAL;
}

static inline int brute_parse_u64(const char *s, u64 *value)
{
	return isdigit(*s) ? kstrtou64(s, 10, value) : -EINVAL;
}

#endif /* _SECURITY_BRUTE_COMMON_H */
