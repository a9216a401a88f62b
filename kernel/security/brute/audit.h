/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Audit records
 */

#ifndef _SECURITY_BRUTE_AUDIT_H
#define _SECURITY_BRUTE_AUDIT_H

#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/signal_types.h>
#include <linux/types.h>

#include "detect.h"

struct brute_hierarchy;
struct brute_target;
struct brute_target_key;

/**
 * struct brute_crash_info - What a CRASH or ATTACK record reports
 * @hierarchy: The hierarchy the record names: the crashing one for a fork
 *             attack, its exec parent (the processes that forked it) if
 *             any for an exec attack.
 * @origin: The hierarchy of the crashing task.
 * @target: For an exec attack, the (user, target) entry's key; else NULL.
 * @stats: The statistics after the update.
 * @period_ns: The period this crash added.
 */
struct brute_crash_info {
	struct brute_hierarchy *hierarchy;
	struct brute_hierarchy *origin;
	const struct brute_target_key *target;
	struct brute_stats stats;
	u64 period_ns;
};

#ifdef CONFIG_AUDIT

void brute_audit_boundary(struct brute_hierarchy *hierarchy, u32 boundary,
			  const struct cred *old, const struct cred *new);
void brute_audit_crash(const struct brute_crash_info *crash,
		       const kernel_siginfo_t *info);
void brute_audit_attack(const struct brute_crash_info *crash,
			enum brute_verdict verdict,
			const struct brute_params *params, unsigned int mode,
			const char *mitigation);
void brute_audit_kill(struct brute_hierarchy *hierarchy,
		      struct task_struct *task);
void brute_audit_kill_summary(struct brute_hierarchy *hierarchy, u32 killed,
			      u32 reported);
void brute_audit_ban(struct brute_hierarchy *hierarchy,
		     const struct brute_target_key *key, const char *name,
		     u32 ban_s);
void brute_audit_unban(const struct brute_target *entry, int reason);
void brute_audit_skipped(struct brute_hierarchy *hierarchy,
			 const struct brute_target_key *key);
void brute_audit_deallocated(struct brute_hierarchy *hierarchy);
void brute_audit_config(const char *name, unsigned int old,
			unsigned int new);

#else /* CONFIG_AUDIT */

static inline void brute_audit_boundary(struct brute_hierarchy *hierarchy,
					u32 boundary, const struct cred *old,
					const struct cred *new)
{
}

static inline void brute_audit_crash(const struct brute_crash_info *crash,
				     const kernel_siginfo_t *info)
{
}

static inline void brute_audit_attack(const struct brute_crash_info *crash,
				      enum brute_verdict verdict,
				      const struct brute_params *params,
				      unsigned int mode, const char *mitigation)
{
}

static inline void brute_audit_kill(struct brute_hierarchy *hierarchy,
				    struct task_struct *task)
{
}

static inline void brute_audit_kill_summary(struct brute_hierarchy *hierarchy,
					    u32 killed, u32 reported)
{
}

static inline void brute_audit_ban(struct brute_hierarchy *hierarchy,
				   const struct brute_target_key *key,
				   const char *name, u32 ban_s)
{
}

static inline void brute_audit_unban(const struct brute_target *entry,
				     int reason)
{
}

static inline void brute_audit_skipped(struct brute_hierarchy *hierarchy,
				       const struct brute_target_key *key)
{
}

static inline void brute_audit_deallocated(struct brute_hierarchy *hierarchy)
{
}

static inline void brute_audit_config(const char *name, unsigned int old,
				      unsigned int new)
{
}

#endif /* CONFIG_AUDIT */

#endif /* _SECURITY_BRUTE_AUDIT_H */
