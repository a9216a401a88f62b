/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Audit records
 */

#ifndef _SECURITY_BRUTE_AUDIT_H
#define _SECURITY_BRUTE_AUDIT_H

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/signal_types.h>
#include <linux/types.h>

#include "detect.h"
#include "table.h"

struct brute_hierarchy;
struct brute_peer_key;
struct brute_target_key;

/**
 * struct brute_crash_info - What a CRASH or ATTACK record reports
 * @hierarchy: The hierarchy the record names: the crashing one, or for an
 *             exec attack its exec parent (the processes that forked it)
 *             if any.
 * @origin: The hierarchy of the crashing task.
 * @attack: For an ATTACK record, what was attacked: "fork" (a user's own
 *          privileged image), "exec" (a target, by a user), "peer" (an
 *          endpoint, by a peer) or "backstop" (a service, by many peers or
 *          nobody known).
 * @source: Who the crash is charged to: "peer", "user" or "unknown".
 * @target: For an exec attack, the (user, target) entry's key; else NULL.
 * @scope: With @target: "target", "overflow" or "any".
 * @peer: The peer's entry (its enclosing prefix's for an escalation), or
 *        NULL.
 * @lino: With a Unix endpoint of @peer, its listener's socket inode.
 * @lpath: With a Unix endpoint of @peer, its bound name.
 * @input: For a crash of a hierarchy, who answers for its input
 *         (enum brute_input_how's name); NULL for an exec charge.
 * @relay: With @peer, the local user who relayed its input, or NULL.
 * @peer_named: @peer sent the input but was not charged: the input was
 *              ambiguous or trusted, or no peer boundary was crossed.
 * @peer_faults: With @peer charged, the faults counted for it.
 * @peer_uncharged: With @peer, the crash could not be counted for it (its
 *                  endpoint's share of the peer table, or the whole table,
 *                  full of bans, or no memory).
 * @handled: A handler caught the fault and ended the process (fault.c).
 * @stats: The statistics after the update.
 * @period_ns: The period this crash added.
 */
struct brute_crash_info {
	struct brute_hierarchy *hierarchy;
	struct brute_hierarchy *origin;
	const char *attack;
	const char *source;
	const struct brute_target_key *target;
	const char *scope;
	const struct brute_peer_key *peer;
	u64 lino;
	const char *lpath;
	const char *input;
	const kuid_t *relay;
	bool peer_named;
	u32 peer_faults;
	bool peer_uncharged;
	bool handled;
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
		      struct task_struct *task, struct file *exe);
void brute_audit_kill_summary(struct brute_hierarchy *hierarchy, u32 killed,
			      u32 reported);
void brute_audit_ban(struct brute_hierarchy *hierarchy,
		     const struct brute_target_key *key, const char *scope,
		     const char *name, u32 ban_s);
void brute_audit_unban(const struct brute_target_key *key, const char *name,
		       const char *scope, enum brute_unban_reason reason,
		       u32 denied);
void brute_audit_skipped(struct brute_hierarchy *hierarchy,
			 const struct brute_target_key *key);
void brute_audit_peer_ban(struct brute_hierarchy *hierarchy,
			  const struct brute_crash_info *crash, u32 faults,
			  u32 ban_s);
void brute_audit_peer_unban(const struct brute_peer_key *key, u64 lino,
			    const char *lpath, enum brute_unban_reason reason,
			    u32 refused);
void brute_audit_trust(unsigned int added, unsigned int removed,
		       unsigned int entries);
void brute_audit_deallocated(struct brute_hierarchy *hierarchy);
void brute_audit_config(const char *name, unsigned int old,
			unsigned int new);
u64 brute_audit_dropped(void);

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
				    struct task_struct *task,
				    struct file *exe)
{
}

static inline void brute_audit_kill_summary(struct brute_hierarchy *hierarchy,
					    u32 killed, u32 reported)
{
}

static inline void brute_audit_ban(struct brute_hierarchy *hierarchy,
				   const struct brute_target_key *key,
				   const char *scope, const char *name,
				   u32 ban_s)
{
}

static inline void brute_audit_unban(const struct brute_target_key *key,
				     const char *name, const char *scope,
				     enum brute_unban_reason reason,
				     u32 denied)
{
}

static inline void brute_audit_skipped(struct brute_hierarchy *hierarchy,
				       const struct brute_target_key *key)
{
}

static inline void brute_audit_peer_ban(struct brute_hierarchy *hierarchy,
					const struct brute_crash_info *crash,
					u32 faults, u32 ban_s)
{
}

static inline void brute_audit_peer_unban(const struct brute_peer_key *key,
					  u64 lino, const char *lpath,
					  enum brute_unban_reason reason,
					  u32 refused)
{
}

static inline void brute_audit_trust(unsigned int added, unsigned int removed,
				     unsigned int entries)
{
}

static inline void brute_audit_deallocated(struct brute_hierarchy *hierarchy)
{
}

static inline void brute_audit_config(const char *name, unsigned int old,
				      unsigned int new)
{
}

static inline u64 brute_audit_dropped(void)
{
	return 0;
}

#endif /* CONFIG_AUDIT */

#endif /* _SECURITY_BRUTE_AUDIT_H */
