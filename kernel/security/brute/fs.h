/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - securityfs
 */

#ifndef _SECURITY_BRUTE_FS_H
#define _SECURITY_BRUTE_FS_H

#include <linux/types.h>

#include "peer.h"
#include "target.h"

/**
 * enum brute_lift_scope - What a write to the lift file lifts
 * @BRUTE_LIFT_ONE: One ban of the (user, target) table.
 * @BRUTE_LIFT_USER: Every ban of a user.
 * @BRUTE_LIFT_PEER: The bans of a peer, on every endpoint.
 * @BRUTE_LIFT_PEER_ALL: Every peer ban.
 * @BRUTE_LIFT_ALL: Every ban.
 * @BRUTE_LIFT_FLUSH: Every ban and every count: the tables empty.
 */
enum brute_lift_scope {
	BRUTE_LIFT_ONE,
	BRUTE_LIFT_USER,
	BRUTE_LIFT_PEER,
	BRUTE_LIFT_PEER_ALL,
	BRUTE_LIFT_ALL,
	BRUTE_LIFT_FLUSH,
};

/**
 * struct brute_lift - A line written to the lift file
 * @scope: What it lifts.
 * @key: The ban (BRUTE_LIFT_ONE), or the user (BRUTE_LIFT_USER).
 * @peer: The peer (BRUTE_LIFT_PEER).
 */
struct brute_lift {
	enum brute_lift_scope scope;
	struct brute_target_key key;
	struct brute_peer peer;
};

int brute_fs_parse_lift(char *buf, struct brute_lift *lift);

#endif /* _SECURITY_BRUTE_FS_H */
