/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - securityfs
 */

#ifndef _SECURITY_BRUTE_FS_H
#define _SECURITY_BRUTE_FS_H

#include <linux/types.h>

struct brute_target_key;

/**
 * enum brute_lift_scope - What a write to the lift file lifts
 * @BRUTE_LIFT_ONE: One ban.
 * @BRUTE_LIFT_ALL: Every ban.
 * @BRUTE_LIFT_FLUSH: Every ban and every count: the table empties.
 */
enum brute_lift_scope {
	BRUTE_LIFT_ONE,
	BRUTE_LIFT_ALL,
	BRUTE_LIFT_FLUSH,
};

extern bool brute_enabled;

int brute_fs_parse_lift(char *buf, struct brute_target_key *key,
			enum brute_lift_scope *scope);

#endif /* _SECURITY_BRUTE_FS_H */
