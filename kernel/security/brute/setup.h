/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Security framework setup
 */

#ifndef _SECURITY_BRUTE_SETUP_H
#define _SECURITY_BRUTE_SETUP_H

#include <linux/lsm_hooks.h>

extern struct lsm_blob_sizes brute_blob_sizes;
extern const struct lsm_id brute_lsmid;

#endif /* _SECURITY_BRUTE_SETUP_H */
