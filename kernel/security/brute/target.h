/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Exec attacks: the (user, target) table and its bans
 */

#ifndef _SECURITY_BRUTE_TARGET_H
#define _SECURITY_BRUTE_TARGET_H

#include <linux/init.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "detect.h"
#include "table.h"

#define BRUTE_TARGET_NAME_LEN 32

/**
 * struct brute_target_key - Who attacks what
 * @uid: The attacker: the user who answers for the crashing image (the
 *       user whose privileged exec chain started it, see Brute.rst), as a
 *       kernel user ID.
 * @dev: The device of the target executable (its superblock's s_dev); 0
 *       with @ino 0 for the user's overflow entry, which stands for every
 *       target the user has no entry of their own for.
 * @ino: The inode number of the target executable.
 */
struct brute_target_key {
	kuid_t uid;
	dev_t dev;
	u64 ino;
};

/**
 * struct brute_targets - The (user, target) table
 * @table: The entries, the users' overflow entries included.
 * @overflows: How many of them are overflow entries (they are not counted
 *             in table_size: one per user at most).
 */
struct brute_targets {
	struct brute_table table;
	unsigned int overflows;
};

/**
 * struct brute_target_charge - The outcome of a charge
 * @charged: The crash was counted (false: no memory, or table_size users
 *           have overflow entries already).
 * @verdict: A new verdict, or BRUTE_VERDICT_NONE.
 * @banned: The verdict banned the user (from the target, or from every
 *          target with @all).
 * @overflow: The crash was counted in the user's overflow entry: the user
 *            had used their share of the table, or the table was full.
 * @all: The overflow entry counted crashes of more than one target: its ban
 *       refuses the user every privileged execve().
 * @key: What the entry charged stands for: the target's own entry, the
 *       user's overflow entry's only target while not @all, else the
 *       overflow entry's key (target 0:0 0).
 * @stats: The entry's statistics, before a verdict restarted them.
 * @period_ns: The period this crash added.
 */
struct brute_target_charge {
	bool charged;
	enum brute_verdict verdict;
	bool banned;
	bool overflow;
	bool all;
	struct brute_target_key key;
	struct brute_stats stats;
	u64 period_ns;
};

extern struct brute_targets brute_targets;

void brute_targets_init(struct brute_targets *targets,
			struct delayed_work *gc);
void brute_targets_charge(struct brute_targets *targets,
			  const struct brute_target_key *key, const char *name,
			  u64 now, u64 start, u64 ban_ns,
			  const struct brute_params *params,
			  struct brute_target_charge *charge);
bool brute_targets_denied(struct brute_targets *targets,
			  const struct brute_target_key *key, u64 now);
int brute_targets_lift(struct brute_targets *targets,
		       const struct brute_target_key *key, bool flush);
int brute_targets_lift_user(struct brute_targets *targets, kuid_t uid);
void brute_targets_show(struct brute_targets *targets, struct seq_file *m,
			u64 now);
void brute_targets_destroy(struct brute_targets *targets);
unsigned int brute_targets_share(const struct brute_params *params);
void __init brute_targets_setup(void);

/**
 * brute_target_overflow() - Tell whether a key is a user's overflow entry
 * @key: The key.
 *
 * Return: True for the key that stands for every target of its user.
 */
static inline bool brute_target_overflow(const struct brute_target_key *key)
{
	return !key->dev && !key->ino;
}

#endif /* _SECURITY_BRUTE_TARGET_H */
