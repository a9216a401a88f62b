/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Security framework setup
 */

#ifndef _SECURITY_BRUTE_SETUP_H
#define _SECURITY_BRUTE_SETUP_H

#include <linux/lsm_hooks.h>

extern struct lsm_blob_sizes brute_blob_sizes;
extern const struct lsm_id brute_lsmid;
extern bool brute_enabled;

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

/*
 * A KUnit case that uses Brute's caches, tables or blobs runs only when
 * Brute was initialized (lsm= lists it); it is skipped otherwise.
 */
static inline void brute_kunit_require(struct kunit *test)
{
	if (!brute_enabled)
		kunit_skip(test, "Brute is not initialized (not in lsm=)");
}

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */

#endif /* _SECURITY_BRUTE_SETUP_H */
