/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Attack detection: crash statistics and verdict
 */

#ifndef _SECURITY_BRUTE_DETECT_H
#define _SECURITY_BRUTE_DETECT_H

#include <linux/bits.h>
#include <linux/cred.h>
#include <linux/signal_types.h>
#include <linux/types.h>

/**
 * enum brute_boundary - Privilege boundaries
 * @BRUTE_BOUNDARY_SETID: execve() of an image that runs with a user or group
 *                        ID its user could not take by itself (a set-ID
 *                        program), or an image executed further down such a
 *                        privileged chain before it dropped back to its
 *                        user (what sudo, su or pkexec execute).
 * @BRUTE_BOUNDARY_FCAPS: execve() of an image whose permitted capabilities
 *                        exceed the ambient set of a user who is not root in
 *                        its user namespace (file capabilities).
 * @BRUTE_BOUNDARY_CRED: a user or group ID changed from the set saved at
 *                       execve().
 * @BRUTE_BOUNDARY_NETWORK: a task read input from a TCP/IP peer that is not
 *                          on this host's own addresses; not inherited
 *                          across execve().
 * @BRUTE_BOUNDARY_UNIX: a task read input from the peer of a Unix stream
 *                       connection it accepted, run by another user or
 *                       relaying a peer's input; not inherited across
 *                       execve().
 * @BRUTE_BOUNDARY_LOCAL: a task read input from a TCP or MPTCP connection
 *                        it accepted from a process of this host, run by
 *                        another user or relaying a peer's input; not
 *                        inherited across execve().
 */
enum brute_boundary {
	BRUTE_BOUNDARY_SETID = BIT(0),
	BRUTE_BOUNDARY_FCAPS = BIT(1),
	BRUTE_BOUNDARY_CRED = BIT(2),
	BRUTE_BOUNDARY_NETWORK = BIT(3),
	BRUTE_BOUNDARY_UNIX = BIT(4),
	BRUTE_BOUNDARY_LOCAL = BIT(5),
};

/* The boundaries of input from a peer, and of a privilege gain. */
#define BRUTE_BOUNDARY_PEER (BRUTE_BOUNDARY_NETWORK | BRUTE_BOUNDARY_UNIX | \
			     BRUTE_BOUNDARY_LOCAL)
#define BRUTE_BOUNDARY_GAIN (BRUTE_BOUNDARY_SETID | BRUTE_BOUNDARY_FCAPS)

/**
 * struct brute_params - Detection parameters (the sysctl tunables)
 * @threshold_ms: A fast attack is detected when the crash period average
 *                falls under this many milliseconds.
 * @min_faults: No verdict is given before this many crashes.
 * @max_faults: A slow attack is detected at this many crashes.
 * @ema_num: Numerator of the weight of a new period in the average.
 * @ema_den: Denominator of that weight; @ema_num < @ema_den.
 * @ban_time_s: How long an exec attack bans its target for its user; 0: no
 *              bans.
 * @table_size: Entries of the (user, target) table.
 * @forget_time_s: Statistics without a crash for this long start afresh
 *                 (hierarchies), or are forgotten (table entries).
 * @backstop_faults: Every hierarchy is stopped at this many crashes without
 *                   a quiet period, whatever their source and pace.
 * @backstop_hold_s: When crashes that came fast stop a service, its first
 *                   processes are held this long for a restart (0: killed
 *                   at once).
 * @peer_ban_time_s: How long a peer is refused by the endpoint it attacked;
 *                   0: no peer bans.
 * @peer_prefix_v4: Length of the IPv4 prefix that identifies a peer.
 * @peer_prefix_v6: Length of the IPv6 prefix that identifies a peer.
 * @escalate_prefix_v4: The enclosing IPv4 prefix an attack escalates to.
 * @escalate_prefix_v6: The enclosing IPv6 prefix an attack escalates to.
 * @escalate_faults: Crashes from the addresses of one enclosing prefix that
 *                   ban the whole prefix.
 * @trusted_uid_max: Local users up to this kernel user ID (system accounts)
 *                   are trusted: never charged as peers.
 */
struct brute_params {
	u32 threshold_ms;
	u32 min_faults;
	u32 max_faults;
	u32 ema_num;
	u32 ema_den;
	u32 ban_time_s;
	u32 table_size;
	u32 forget_time_s;
	u32 backstop_faults;
	u32 backstop_hold_s;
	u32 peer_ban_time_s;
	u32 peer_prefix_v4;
	u32 peer_prefix_v6;
	u32 escalate_prefix_v4;
	u32 escalate_prefix_v6;
	u32 escalate_faults;
	u32 trusted_uid_max;
};

/**
 * struct brute_stats - Crash statistics of a fork hierarchy
 * @faults: Number of crashes counted, saturating.
 * @last_ns: Time of the last crash, or of the (re)start of the statistics
 *           before the first one (ktime_get_ns()).
 * @ema_ns: Exponential moving average of the period between crashes.
 */
struct brute_stats {
	u32 faults;
	u64 last_ns;
	u64 ema_ns;
};

/**
 * enum brute_verdict - Result of the detection
 * @BRUTE_VERDICT_NONE: No attack.
 * @BRUTE_VERDICT_FAST: The crash period average fell under the threshold.
 * @BRUTE_VERDICT_SLOW: The maximum number of crashes was reached.
 */
enum brute_verdict {
	BRUTE_VERDICT_NONE,
	BRUTE_VERDICT_FAST,
	BRUTE_VERDICT_SLOW,
};

/**
 * struct brute_ids - The user and group IDs a crossing is checked against
 * @uid: Real user ID.
 * @suid: Saved user ID.
 * @euid: Effective user ID.
 * @fsuid: Filesystem user ID.
 * @gid: Real group ID.
 * @sgid: Saved group ID.
 * @egid: Effective group ID.
 * @fsgid: Filesystem group ID.
 */
struct brute_ids {
	kuid_t uid;
	kuid_t suid;
	kuid_t euid;
	kuid_t fsuid;
	kgid_t gid;
	kgid_t sgid;
	kgid_t egid;
	kgid_t fsgid;
};

u64 brute_ema_next(u64 ema_ns, u64 period_ns, u32 num, u32 den);
void brute_stats_reset(struct brute_stats *stats, u64 now_ns);
bool brute_stats_forget(struct brute_stats *stats, u64 now_ns, u64 forget_ns);
u64 brute_stats_update(struct brute_stats *stats, u64 now_ns,
		       const struct brute_params *params);
enum brute_verdict brute_verdict(const struct brute_stats *stats,
				 const struct brute_params *params);
enum brute_verdict brute_backstop_verdict(const struct brute_stats *stats,
					  const struct brute_params *params);
bool brute_signal_counts(const kernel_siginfo_t *info, pid_t self_tgid);
void brute_ids_save(struct brute_ids *ids, const struct cred *cred);
bool brute_ids_changed(const struct brute_ids *ids, const struct cred *cred);
u32 brute_exec_gain(const struct cred *old, const struct cred *new);
bool brute_cred_is_user(const struct cred *cred, kuid_t uid);
kuid_t brute_principal(const struct user_namespace *ns, kuid_t uid);

#endif /* _SECURITY_BRUTE_DETECT_H */
