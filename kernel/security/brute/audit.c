// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Audit records
 *
 * One record type per fact (see Documentation/admin-guide/LSM/Brute.rst and
 * uapi/linux/audit.h).  Every record about a hierarchy names it with
 * brute_hierarchy=, an identifier never reused; records about a peer name
 * it and the endpoint with the fields of brute_peer_key_format().
 *
 * Every record is emitted in task context, where it may wait for audit's
 * backlog like the records of a system call: the crashing task, or the
 * task whose system call crossed a boundary, waits, never a softirq (the
 * "deallocated" records come from a worker, the kill records after the
 * kill loop).  A flood of crashes slows the crashing tasks down; it does
 * not make audit lose records that it could have queued.  A record audit
 * does not take (its backlog stayed full, no memory, or an exclude rule)
 * is counted: /sys/kernel/security/brute/stats shows the count, and every
 * record after the first drop carries the total (records_dropped=): audit
 * may in turn lose the record that would have been the only one to say so.
 */

#include <linux/audit.h>
#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/kdev_t.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/time64.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "peer.h"
#include "target.h"

static atomic64_t brute_records_dropped = ATOMIC64_INIT(0);

static const char *const brute_boundary_names[] = {
	"setid", "fcaps", "cred", "network", "unix", "local",
};

static struct audit_buffer *brute_audit_start(struct audit_context *ctx,
					      int type)
{
	struct audit_buffer *ab;

	if (!audit_enabled)
		return NULL;
	ab = audit_log_start(ctx, GFP_KERNEL, type);
	if (!ab)
		atomic64_inc(&brute_records_dropped);
	return ab;
}

/*
 * Once a record was dropped, every record says how many were, in total:
 * audit may lose any record after it took it (kauditd's queue, auditd
 * gone), so no single one can be the one that reports the count.
 */
static void brute_audit_end(struct audit_buffer *ab)
{
	s64 dropped = atomic64_read(&brute_records_dropped);

	if (dropped)
		audit_log_format(ab, " records_dropped=%lld", dropped);
	audit_log_end(ab);
}

/**
 * brute_audit_dropped() - Count the records audit did not take
 *
 * Return: How many records Brute could not emit since boot.
 */
u64 brute_audit_dropped(void)
{
	return atomic64_read(&brute_records_dropped);
}

static void brute_log_boundaries(struct audit_buffer *ab, u32 boundaries)
{
	const char *sep = "";
	size_t i;

	audit_log_format(ab, " boundaries=");
	if (!boundaries) {
		audit_log_format(ab, "none");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(brute_boundary_names); i++) {
		if (boundaries & BIT(i)) {
			audit_log_format(ab, "%s%s", sep,
					 brute_boundary_names[i]);
			sep = ",";
		}
	}
}

static u64 brute_ms(u64 ns)
{
	return div_u64(ns, NSEC_PER_MSEC);
}

/*
 * The "allocated" record is emitted lazily, the first time a record is
 * about a hierarchy: a hierarchy only matters to the audit trail once it
 * crossed a boundary or was charged a crash.
 */
static void brute_audit_allocated(struct brute_hierarchy *hierarchy)
{
	const struct brute_hierarchy *parent;
	struct audit_buffer *ab;

	if (test_and_set_bit(BRUTE_HIERARCHY_AUDITED, &hierarchy->flags))
		return;
	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_HIERARCHY);
	if (!ab)
		return;
	rcu_read_lock();
	parent = READ_ONCE(hierarchy->exec_parent);
	audit_log_format(ab, "brute_hierarchy=%llu status=allocated exec_parent=%llu",
			 hierarchy->id, parent ? parent->id : 0);
	rcu_read_unlock();
	brute_log_boundaries(ab, READ_ONCE(hierarchy->seen));
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

static void brute_log_target(struct audit_buffer *ab,
			     const struct brute_target_key *key)
{
	audit_log_format(ab, "attacker_uid=%u target_dev=%u:%u target_ino=%llu",
			 from_kuid(&init_user_ns, key->uid), MAJOR(key->dev),
			 MINOR(key->dev), key->ino);
}

static void brute_log_peer(struct audit_buffer *ab,
			   const struct brute_peer_key *key, u64 lino,
			   const char *lpath)
{
	char buf[BRUTE_PEER_KEY_LEN];

	brute_peer_key_format(buf, sizeof(buf), key, lino);
	audit_log_format(ab, "%s", buf);
	if (key->endpoint.family == AF_UNIX) {
		audit_log_format(ab, " lpath=");
		audit_log_untrustedstring(ab, lpath ?: "?");
	}
}

/* The cgroup of the current task (cgroup v2): its service's unit. */
static void brute_log_cgroup(struct audit_buffer *ab)
{
#ifdef CONFIG_CGROUPS
	struct cgroup_subsys_state *css;
	char *path;

	path = kmalloc(PATH_MAX, GFP_KERNEL | __GFP_NOWARN);
	if (!path)
		return;
	rcu_read_lock();
	css = &task_dfl_cgroup(current)->self;
	css_get(css);
	rcu_read_unlock();
	if (kernfs_path_from_node(css->cgroup->kn, NULL, path, PATH_MAX) > 0) {
		audit_log_format(ab, " cgroup=");
		audit_log_untrustedstring(ab, path);
	}
	css_put(css);
	kfree(path);
#endif
}

static void brute_log_ids(struct audit_buffer *ab, const char *prefix,
			  const struct cred *cred)
{
	audit_log_format(ab,
			 " %suid=%u %seuid=%u %ssuid=%u %sfsuid=%u %sgid=%u %segid=%u %ssgid=%u %sfsgid=%u",
			 prefix, from_kuid(&init_user_ns, cred->uid),
			 prefix, from_kuid(&init_user_ns, cred->euid),
			 prefix, from_kuid(&init_user_ns, cred->suid),
			 prefix, from_kuid(&init_user_ns, cred->fsuid),
			 prefix, from_kgid(&init_user_ns, cred->gid),
			 prefix, from_kgid(&init_user_ns, cred->egid),
			 prefix, from_kgid(&init_user_ns, cred->sgid),
			 prefix, from_kgid(&init_user_ns, cred->fsgid));
}

/**
 * brute_audit_boundary() - Report a privilege boundary crossed
 * @hierarchy: The hierarchy that crossed it.
 * @boundary: One of enum brute_boundary.
 * @old: Credentials before the crossing.
 * @new: Credentials after it.
 *
 * Called in task context, inside the system call that crossed the boundary,
 * so that the record joins that syscall's event.  A privilege gain names
 * who answers for it (owner_uid=).
 */
void brute_audit_boundary(struct brute_hierarchy *hierarchy, u32 boundary,
			  const struct cred *old, const struct cred *new)
{
	struct audit_buffer *ab;

	if (!audit_enabled)
		return;
	brute_audit_allocated(hierarchy);
	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_BOUNDARY);
	if (!ab)
		return;
	audit_log_format(ab, "brute_hierarchy=%llu boundary=%s", hierarchy->id,
			 brute_boundary_names[__ffs(boundary)]);
	brute_log_ids(ab, "old_", old);
	brute_log_ids(ab, "new_", new);
	if (boundary & BRUTE_BOUNDARY_GAIN)
		audit_log_format(ab, " owner_uid=%u attacker_uid=%u",
				 from_kuid(&init_user_ns, hierarchy->owner),
				 from_kuid(&init_user_ns,
					   hierarchy->principal));
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_crash() - Report a counted crash
 * @crash: The statistics the crash updated: a hierarchy's, or with
 *         @crash->target the (user, target) entry's.
 * @info: The signal.
 */
void brute_audit_crash(const struct brute_crash_info *crash,
		       const kernel_siginfo_t *info)
{
	struct audit_buffer *ab;

	if (!audit_enabled)
		return;
	brute_audit_allocated(crash->hierarchy);
	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_CRASH);
	if (!ab)
		return;
	audit_log_format(ab, "brute_hierarchy=%llu origin=%llu",
			 crash->hierarchy->id, crash->origin->id);
	if (crash->target) {
		audit_log_format(ab, " ");
		brute_log_target(ab, crash->target);
		audit_log_format(ab, " scope=%s", crash->scope);
	}
	audit_log_format(ab,
			 " sig=%d si_code=%d faults=%u period_ms=%llu ema_ms=%llu source=%s",
			 info->si_signo, info->si_code, crash->stats.faults,
			 brute_ms(crash->period_ns),
			 brute_ms(crash->stats.ema_ns), crash->source);
	if (crash->handled)
		audit_log_format(ab, " handled=exit");
	if (crash->input)
		audit_log_format(ab, " input=%s", crash->input);
	if (crash->peer) {
		audit_log_format(ab, " ");
		brute_log_peer(ab, crash->peer, crash->lino, crash->lpath);
		if (!crash->peer_named && crash->peer_uncharged)
			audit_log_format(ab, " charged=no");
		else if (!crash->peer_named)
			audit_log_format(ab, " peer_faults=%u",
					 crash->peer_faults);
		if (crash->relay)
			audit_log_format(ab, " relay=uid:%u",
					 from_kuid(&init_user_ns,
						   *crash->relay));
	}
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_attack() - Report a detected attack
 * @crash: The statistics that gave the verdict.
 * @verdict: The verdict, not BRUTE_VERDICT_NONE.
 * @params: The parameters it was given with.
 * @mode: The mode in force (enum brute_mode).
 * @mitigation: What Brute does about it: "kill", "ban", "peer_ban",
 *              "audit" or "none".
 */
void brute_audit_attack(const struct brute_crash_info *crash,
			enum brute_verdict verdict,
			const struct brute_params *params, unsigned int mode,
			const char *mitigation)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_ATTACK);
	if (!ab)
		return;
	audit_log_format(ab, "brute_hierarchy=%llu origin=%llu attack=%s",
			 crash->hierarchy->id, crash->origin->id,
			 crash->attack);
	if (crash->target) {
		audit_log_format(ab, " ");
		brute_log_target(ab, crash->target);
		audit_log_format(ab, " scope=%s", crash->scope);
	}
	if (crash->peer) {
		audit_log_format(ab, " ");
		brute_log_peer(ab, crash->peer, crash->lino, crash->lpath);
		if (crash->relay)
			audit_log_format(ab, " relay=uid:%u",
					 from_kuid(&init_user_ns,
						   *crash->relay));
	}
	audit_log_format(ab,
			 " speed=%s faults=%u ema_ms=%llu threshold_ms=%u max_faults=%u brute_mode=%u mitigation=%s source=%s",
			 verdict == BRUTE_VERDICT_SLOW ? "slow" : "fast",
			 crash->stats.faults, brute_ms(crash->stats.ema_ns),
			 params->threshold_ms, params->max_faults, mode,
			 mitigation, crash->source);
	/* The backstop's count is its own threshold, not max_faults. */
	if (!strcmp(crash->attack, "backstop"))
		audit_log_format(ab, " backstop_faults=%u",
				 params->backstop_faults);
	brute_log_cgroup(ab);
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_kill() - Report a task killed by Brute
 * @hierarchy: The hierarchy of the attack.
 * @task: The task, a reference held by the caller.
 * @exe: Its executable when it was killed, or NULL.
 */
void brute_audit_kill(struct brute_hierarchy *hierarchy,
		      struct task_struct *task, struct file *exe)
{
	char comm[sizeof(task->comm)];
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_KILL);
	if (!ab)
		return;
	audit_log_format(ab,
			 "brute_hierarchy=%llu opid=%d ouid=%u oauid=%u oses=%u ocomm=",
			 hierarchy->id, task_tgid_nr(task),
			 from_kuid(&init_user_ns, task_uid(task)),
			 from_kuid(&init_user_ns, audit_get_loginuid(task)),
			 audit_get_sessionid(task));
	audit_log_untrustedstring(ab, get_task_comm(comm, task));
	if (exe)
		audit_log_d_path(ab, " oexe=", &exe->f_path);
	else
		audit_log_format(ab, " oexe=(null)");
	brute_audit_end(ab);
}

/**
 * brute_audit_kill_summary() - Report how many tasks a response killed
 * @hierarchy: The hierarchy whose processes were killed.
 * @killed: How many.
 * @reported: How many of them have a record of their own.
 */
void brute_audit_kill_summary(struct brute_hierarchy *hierarchy, u32 killed,
			      u32 reported)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_KILL);
	if (!ab)
		return;
	audit_log_format(ab, "brute_hierarchy=%llu killed=%u unreported=%u",
			 hierarchy->id, killed, killed - reported);
	brute_log_cgroup(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_ban() - Report a ban
 * @hierarchy: The hierarchy whose crash gave the verdict.
 * @key: Who is banned from what (target 0:0 0 with scope "any": every
 *       privileged execve()).
 * @scope: "target", "overflow" or "any".
 * @name: The target's file name.
 * @ban_s: For how long, in seconds.
 */
void brute_audit_ban(struct brute_hierarchy *hierarchy,
		     const struct brute_target_key *key, const char *scope,
		     const char *name, u32 ban_s)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_BAN);
	if (!ab)
		return;
	brute_log_target(ab, key);
	audit_log_format(ab, " target_name=");
	audit_log_untrustedstring(ab, name);
	audit_log_format(ab, " ban_s=%u brute_hierarchy=%llu scope=%s", ban_s,
			 hierarchy->id, scope);
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

static const char *const brute_unban_reasons[] = {
	[BRUTE_UNBAN_EXPIRED] = "expired",
	[BRUTE_UNBAN_LIFTED] = "lifted",
};

/**
 * brute_audit_unban() - Report the end of a ban
 * @key: Who was banned from what.
 * @name: The target's file name ("*" for every target).
 * @scope: "target", "overflow" or "any".
 * @reason: Why it ended.
 * @denied: How many execve() calls it refused.
 *
 * A lifted ban names the task that lifted it (inside its write()); an
 * expired one is reported by a kernel worker and has no subject.
 */
void brute_audit_unban(const struct brute_target_key *key, const char *name,
		       const char *scope, enum brute_unban_reason reason,
		       u32 denied)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(reason == BRUTE_UNBAN_EXPIRED ? NULL :
			       audit_context(), AUDIT_BRUTE_UNBAN);
	if (!ab)
		return;
	brute_log_target(ab, key);
	audit_log_format(ab, " target_name=");
	audit_log_untrustedstring(ab, name);
	audit_log_format(ab, " reason=%s denied=%u scope=%s",
			 brute_unban_reasons[reason], denied, scope);
	if (reason != BRUTE_UNBAN_EXPIRED)
		audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_skipped() - Report a crash the (user, target) table missed
 * @hierarchy: The crashing hierarchy.
 * @key: The entry it could not be charged to (no memory).
 */
void brute_audit_skipped(struct brute_hierarchy *hierarchy,
			 const struct brute_target_key *key)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_CRASH);
	if (!ab)
		return;
	audit_log_format(ab, "brute_hierarchy=%llu origin=%llu",
			 hierarchy->id, hierarchy->id);
	audit_log_format(ab, " ");
	brute_log_target(ab, key);
	audit_log_format(ab, " charged=no");
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_peer_ban() - Report that an endpoint refuses a peer
 * @hierarchy: The hierarchy whose crash gave the verdict.
 * @crash: Its record's fields: the peer (or enclosing prefix) and the
 *         endpoint, and the proxy that relayed the input, if any; with a
 *         layout in the peer's key, the ban refuses it at every endpoint
 *         of that layout too (layout=).
 * @faults: The crashes that gave the verdict.
 * @ban_s: For how long, in seconds.
 */
void brute_audit_peer_ban(struct brute_hierarchy *hierarchy,
			  const struct brute_crash_info *crash, u32 faults,
			  u32 ban_s)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_PEER_BAN);
	if (!ab)
		return;
	audit_log_format(ab, "brute_hierarchy=%llu ", hierarchy->id);
	brute_log_peer(ab, crash->peer, crash->lino, crash->lpath);
	audit_log_format(ab, " faults=%u ban_s=%u", faults, ban_s);
	if (crash->relay)
		audit_log_format(ab, " relay=uid:%u",
				 from_kuid(&init_user_ns, *crash->relay));
	if (crash->peer->layout)
		audit_log_format(ab, " layout=%llu", crash->peer->layout);
	audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_peer_unban() - Report the end of a peer ban
 * @key: The peer and the endpoint.
 * @lino: With a Unix endpoint, its listener's socket inode number.
 * @lpath: With a Unix endpoint, its bound name.
 * @reason: Why it ended.
 * @refused: How many connection requests and receives it refused.
 */
void brute_audit_peer_unban(const struct brute_peer_key *key, u64 lino,
			    const char *lpath, enum brute_unban_reason reason,
			    u32 refused)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(reason == BRUTE_UNBAN_EXPIRED ? NULL :
			       audit_context(), AUDIT_BRUTE_PEER_UNBAN);
	if (!ab)
		return;
	brute_log_peer(ab, key, lino, lpath);
	audit_log_format(ab, " reason=%s refused=%u",
			 brute_unban_reasons[reason], refused);
	if (key->layout)
		audit_log_format(ab, " layout=%llu", key->layout);
	if (reason != BRUTE_UNBAN_EXPIRED)
		audit_log_task_info(ab);
	brute_audit_end(ab);
}

/**
 * brute_audit_deallocated() - Report the end of a hierarchy
 * @hierarchy: The hierarchy, whose last reference is gone.
 *
 * Only hierarchies whose allocation was reported are.  A kernel worker
 * reports it: the record carries no subject.
 */
void brute_audit_deallocated(struct brute_hierarchy *hierarchy)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(NULL, AUDIT_BRUTE_HIERARCHY);
	if (!ab)
		return;
	audit_log_format(ab,
			 "brute_hierarchy=%llu status=deallocated faults=%u attacks=%u killed=%u",
			 hierarchy->id, hierarchy->crashes,
			 hierarchy->attacks, hierarchy->killed);
	brute_log_boundaries(ab, hierarchy->seen);
	brute_audit_end(ab);
}

/**
 * brute_audit_config() - Report a tunable change
 * @name: Name of the tunable under /proc/sys/kernel/brute/.
 * @old: Previous value.
 * @new: New value.
 */
void brute_audit_config(const char *name, unsigned int old, unsigned int new)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_CONFIG);
	if (!ab)
		return;
	audit_log_format(ab, "tunable=%s old=%u new=%u", name, old, new);
	audit_log_task_info(ab);
	audit_log_format(ab, " res=1");
	brute_audit_end(ab);
}

/**
 * brute_audit_trust() - Report a change of the trusted list
 * @added: Entries added.
 * @removed: Entries removed.
 * @entries: Entries in the list now.
 */
void brute_audit_trust(unsigned int added, unsigned int removed,
		       unsigned int entries)
{
	struct audit_buffer *ab;

	ab = brute_audit_start(audit_context(), AUDIT_BRUTE_CONFIG);
	if (!ab)
		return;
	audit_log_format(ab,
			 "tunable=trusted op=update added=%u removed=%u entries=%u",
			 added, removed, entries);
	audit_log_task_info(ab);
	audit_log_format(ab, " res=1");
	brute_audit_end(ab);
}
