// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Task hooks: fork, execve, credential changes, crashes
 *
 * Who answers for a crash (Brute.rst, "Who pays"):
 *
 * - the peer whose input was the only candidate (input.c): a remote
 *   address, a local user, or the peer a local proxy relayed; it is banned
 *   from the endpoint where its input arrived;
 * - the user, when the image runs with a privilege that user gained across
 *   an execve() (set-ID, file capabilities, what sudo or pkexec executed
 *   for them) and serves nobody: the user's image is killed (fork attack)
 *   and the user is banned from the program (exec attack).  An image that
 *   read input another party sent to a listener is a service, whatever its
 *   privileges: its user is never charged for its crashes;
 * - nobody known otherwise (ambiguous input, a trusted proxy's, a crash no
 *   peer's input preceded): nothing but the record, and the backstop.
 *
 * The backstop bounds the crashes of every hierarchy at backstop_faults,
 * whatever their source and pace.  Crashes that came fast kill it at once
 * (its supervisor, or brute-reportd, starts it again with a fresh layout
 * and canary); with backstop_hold_s set, they kill the processes it forked
 * and hold its first ones, which hold the service's listening sockets:
 * they fork nothing until they execute a new image (brute-reportd reloads
 * or restarts the unit), and are killed once the hold is over (hold.c).
 * Crashes that came slowly (an ordinary bug) ask for a restart of the
 * service (brute-reportd restarts its unit) and kill it at its next crash
 * only if it still runs.
 */

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include "audit.h"
#include "common.h"
#include "hierarchy.h"
#include "hold.h"
#include "mitigate.h"
#include "peer.h"
#include "setup.h"
#include "sysctl.h"
#include "target.h"
#include "task.h"

/*
 * A fork, a vfork or a new thread shares the memory image of its parent: it
 * joins its hierarchy, and the input its parent read.  This is all Brute
 * adds to fork: one reference, no lock.  A hierarchy on hold (the backstop)
 * gets no new process; a thread or a vfork() (which executes or exits
 * before its parent runs again) still runs.
 */
static int hook_task_alloc(struct task_struct *const task,
			   const unsigned long clone_flags)
{
	struct brute_task_security *const parent = brute_task(current);
	struct brute_task_security *const ts = brute_task(task);

	if (parent->hierarchy &&
	    unlikely(READ_ONCE(parent->hierarchy->held_until)) &&
	    !(clone_flags & (CLONE_THREAD | CLONE_VFORK)) &&
	    brute_hold_refuses(parent->hierarchy))
		return -EAGAIN;
	if (parent->hierarchy)
		brute_hierarchy_join(parent->hierarchy);
	ts->hierarchy = parent->hierarchy;
	ts->spare = NULL;
	ts->flags = 0;
	brute_input_init(task, clone_flags);
	return 0;
}

/* May run in softirq context, from an RCU callback. */
static void hook_task_free(struct task_struct *const task)
{
	struct brute_task_security *const ts = brute_task(task);

	brute_input_release(task);
	brute_hierarchy_leave(ts->hierarchy);
	ts->hierarchy = NULL;
	brute_hierarchy_discard(ts->spare);
	ts->spare = NULL;
}

/*
 * The hierarchy the new image may need is allocated here, where execve()
 * can still fail: without memory for it, the execve() fails with -ENOMEM
 * (charged to the caller's memory cgroup, like the rest of the new image)
 * and the task keeps its image and its hierarchy.  A spare left by an
 * execve() that failed later is used by the next one.
 */
static int hook_bprm_creds_for_exec(struct linux_binprm *const bprm)
{
	struct brute_task_security *const ts = brute_task(current);

	if (!ts->hierarchy || ts->spare)
		return 0;
	ts->spare = brute_hierarchy_alloc(GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	return ts->spare ? 0 : -ENOMEM;
}

static void brute_target_key_init(struct brute_target_key *const key,
				  const kuid_t uid,
				  const struct inode *const inode)
{
	key->uid = uid;
	key->dev = inode->i_sb->s_dev;
	key->ino = inode->i_ino;
}

/*
 * The credentials of the new image are known: what it gains, and who
 * answers for it, go to the spare hierarchy (which the image gets when the
 * execve() commits).  A privileged exec chain goes on while the executing
 * task still holds something its owner gained (sudo and pkexec set every
 * ID to root, then execute the payload: the payload is the owner's); it
 * ends when the task dropped back to its owner's own credentials.
 *
 * A ban refuses here, before the point of no return: the banned user's
 * execve() of the target with a privilege gain fails with EPERM (kill
 * mode only).
 */
static int hook_bprm_creds_from_file(struct linux_binprm *const bprm,
				     const struct file *const file)
{
	struct brute_task_security *const ts = brute_task(current);
	struct brute_hierarchy *const hierarchy = ts->hierarchy;
	struct brute_hierarchy *const spare = ts->spare;
	const struct cred *const old = current_cred();
	const struct cred *const new = bprm->cred;
	struct brute_target_key key;
	bool chain;
	u32 gain;

	if (!hierarchy || !spare)
		return 0;

	spin_lock(&hierarchy->lock);
	chain = hierarchy->gain && !brute_cred_is_user(old, hierarchy->owner);
	spare->owner = hierarchy->owner;
	spare->principal = hierarchy->principal;
	spin_unlock(&hierarchy->lock);

	gain = brute_exec_gain(old, new);
	if (!chain && gain) {
		spare->owner = old->uid;
		spare->principal = brute_principal(old->user_ns, old->uid);
	}
	spare->gain = chain || gain;
	spare->pending = gain ?: (chain ? BRUTE_BOUNDARY_SETID : 0);
	spare->target_dev = file_inode(bprm->file)->i_sb->s_dev;
	spare->target_ino = file_inode(bprm->file)->i_ino;

	if (!spare->gain || brute_mode() != BRUTE_MODE_KILL ||
	    !brute_table_banned(&brute_targets.table))
		return 0;
	brute_target_key_init(&key, spare->principal, file_inode(bprm->file));
	if (!brute_targets_denied(&brute_targets, &key, ktime_get_ns()))
		return 0;
	pr_notice_ratelimited("execve of %s by user %u refused: banned after an exec brute force attack\n",
			      bprm->filename,
			      from_kuid(&init_user_ns, key.uid));
	return -EPERM;
}

/*
 * An execve() gives the task a new memory image.  If it shared its
 * hierarchy (it was forked since the last execve(), or has threads), it
 * leaves it for the spare, whose exec parent is the old one.  If it was
 * alone, its hierarchy starts afresh and the spare is freed.  Either way the
 * boundaries start from what the new image crosses itself: input from a
 * peer reached the old image, not this one.  This runs after the point of
 * no return, where failing is not allowed: nothing here can.
 */
static void hook_bprm_committing_creds(const struct linux_binprm *const bprm)
{
	struct brute_task_security *const ts = brute_task(current);
	struct brute_hierarchy *const old_hierarchy = ts->hierarchy;
	struct brute_hierarchy *const spare = ts->spare;
	const struct cred *const old = current_cred();
	const struct cred *const new = bprm->cred;
	struct brute_hierarchy *hierarchy;
	u32 crossed;

	if (!old_hierarchy)
		return;

	/* bprm_creds_for_exec allocated it, or the execve() failed there. */
	if (WARN_ON_ONCE(!spare))
		return;
	crossed = spare->pending;

	if (refcount_read(&old_hierarchy->tasks) == 1) {
		hierarchy = old_hierarchy;
		spin_lock(&hierarchy->lock);
		brute_stats_reset(&hierarchy->stats, ktime_get_ns());
		brute_ids_save(&hierarchy->ids, new);
		WRITE_ONCE(hierarchy->boundaries, 0);
		hierarchy->detected = false;
		hierarchy->rekills = false;
		hierarchy->restart = false;
		/* A new image: no longer held for a restart. */
		brute_hold_end(hierarchy);
		hierarchy->owner = spare->owner;
		hierarchy->principal = spare->principal;
		hierarchy->gain = spare->gain;
		hierarchy->target_dev = spare->target_dev;
		hierarchy->target_ino = spare->target_ino;
		clear_bit(BRUTE_HIERARCHY_CHARGED, &hierarchy->flags);
		spin_unlock(&hierarchy->lock);
		brute_hierarchy_discard(spare);
	} else {
		hierarchy = spare;
		brute_stats_reset(&hierarchy->stats, ktime_get_ns());
		brute_hierarchy_get(old_hierarchy);
		hierarchy->exec_parent = old_hierarchy;
		brute_ids_save(&hierarchy->ids, new);
		WRITE_ONCE(ts->hierarchy, hierarchy);
		brute_hierarchy_leave(old_hierarchy);
	}
	ts->spare = NULL;
	brute_task_resumed(ts);
	brute_input_exec(brute_exec_gain(old, new));

	/*
	 * An init starts services and jobs for every user: its processes are
	 * never killed as the drivers of an exec attack.
	 */
	if (brute_task_is_init(current))
		WRITE_ONCE(hierarchy->exempt, true);

	if (crossed)
		brute_hierarchy_cross(hierarchy, crossed, old, new);
}

/* A user or group ID that leaves the set saved at execve() is a crossing. */
static void brute_check_ids(const struct cred *const old,
			    const struct cred *const new)
{
	struct brute_hierarchy *const hierarchy = brute_task(current)->hierarchy;
	bool changed;

	if (!hierarchy ||
	    (READ_ONCE(hierarchy->boundaries) & BRUTE_BOUNDARY_CRED))
		return;
	spin_lock(&hierarchy->lock);
	changed = brute_ids_changed(&hierarchy->ids, new);
	spin_unlock(&hierarchy->lock);
	if (changed)
		brute_hierarchy_cross(hierarchy, BRUTE_BOUNDARY_CRED, old, new);
}

static int hook_task_fix_setuid(struct cred *const new,
				const struct cred *const old, const int flags)
{
	brute_check_ids(old, new);
	return 0;
}

static int hook_task_fix_setgid(struct cred *const new,
				const struct cred *const old, const int flags)
{
	brute_check_ids(old, new);
	return 0;
}

/**
 * struct brute_crash - A crash being charged
 * @info: What the records report.
 * @verdict: The hierarchy's verdict.
 * @quiet: The hierarchy was detected already: not reported one by one.
 * @rekill: Kill the detected hierarchy again.
 * @restarted: Its restart was asked for at a slow backstop verdict, and it
 *             still runs: this crash kills it.
 * @held: The hierarchy is held for a restart (fast backstop verdict, now
 *        or before): a kill spares its first processes.
 * @hold_until: A hold started by this crash ends then (0: none started).
 * @user: The image is its user's own privileged image, serving nobody:
 *         the user answers for its crashes.
 * @input: Who answers for its input.
 * @peer: The peer charge, when a peer sent the input.
 */
struct brute_crash {
	struct brute_crash_info info;
	enum brute_verdict verdict;
	bool quiet;
	bool rekill;
	bool restarted;
	bool held;
	bool user;
	u64 hold_until;
	struct brute_input_result input;
	struct brute_peer_charge peer;
};

/*
 * Count a crash in the statistics of its own hierarchy, which start afresh
 * after forget_time_s without one.  A user's own privileged image gets the
 * fork-attack verdict, and the backstop's at any pace; any other image
 * only the backstop's.  A verdict restarts the statistics, so that an
 * attack that goes on is detected again, and marks the hierarchy
 * detected (its crashes are no longer recorded one by one).  A verdict in
 * kill mode also makes every later crash of the hierarchy kill it again,
 * while the mode is kill; a verdict in audit mode does not: after a switch
 * to kill mode, the hierarchy is killed at its next verdict, which says so.
 */
static void brute_charge(struct brute_hierarchy *const hierarchy,
			 struct brute_crash *const crash, const u64 now,
			 const struct brute_params *const params,
			 const enum brute_mode mode)
{
	spin_lock(&hierarchy->lock);
	crash->user = hierarchy->gain && !crash->input.served;
	brute_stats_forget(&hierarchy->stats, now,
			   (u64)params->forget_time_s * NSEC_PER_SEC);
	crash->info.period_ns = brute_stats_update(&hierarchy->stats, now,
						   params);
	crash->info.stats = hierarchy->stats;
	hierarchy->crashes++;
	crash->quiet = hierarchy->detected;
	crash->rekill = false;
	crash->restarted = false;
	crash->hold_until = 0;
	crash->verdict = BRUTE_VERDICT_NONE;
	if (crash->user)
		crash->verdict = brute_verdict(&hierarchy->stats, params);
	if (crash->verdict == BRUTE_VERDICT_NONE)
		crash->verdict = brute_backstop_verdict(&hierarchy->stats,
							params);
	if (crash->verdict != BRUTE_VERDICT_NONE) {
		hierarchy->detected = true;
		/* Only a verdict that killed makes the next crashes kill. */
		hierarchy->rekills = mode == BRUTE_MODE_KILL;
		hierarchy->attacks++;
		hierarchy->restart = !crash->user &&
				     crash->verdict == BRUTE_VERDICT_SLOW &&
				     mode == BRUTE_MODE_KILL;
		if (!crash->user && crash->verdict == BRUTE_VERDICT_FAST &&
		    mode == BRUTE_MODE_KILL && params->backstop_hold_s)
			crash->hold_until =
				brute_hold_start(hierarchy, now,
						 params->backstop_hold_s);
		brute_stats_reset(&hierarchy->stats, now);
	} else if (hierarchy->rekills && mode == BRUTE_MODE_KILL) {
		crash->rekill = true;
		crash->restarted = hierarchy->restart;
		hierarchy->restart = false;
	}
	crash->held = !crash->user && mode == BRUTE_MODE_KILL &&
		      now < hierarchy->held_until;
	spin_unlock(&hierarchy->lock);
}

/* Kill the processes of @hierarchy (only @uid's if not NULL); count them. */
static void brute_kill(struct brute_hierarchy *const hierarchy,
		       const kuid_t *const uid, const bool forked)
{
	const u32 killed = forked ? brute_kill_forked(hierarchy) :
				    brute_kill_hierarchy(hierarchy, uid);

	spin_lock(&hierarchy->lock);
	hierarchy->killed += killed;
	spin_unlock(&hierarchy->lock);
}

/* A peer verdict's mitigation= in @mode: whether it @banned. */
static const char *brute_peer_mitigation(const enum brute_mode mode,
					 const bool banned)
{
	if (mode != BRUTE_MODE_KILL)
		return "audit";
	return banned ? "peer_ban" : "none";
}

/*
 * The peer that sent the input answers for the crash: a verdict bans it
 * from the endpoint (kill mode, peer_ban_time_s > 0), its enclosing prefix
 * too when enough of its addresses crashed the endpoint.
 */
static void brute_peer_respond(struct brute_hierarchy *const hierarchy,
			       const struct brute_crash *const crash,
			       const struct brute_params *const params,
			       const enum brute_mode mode)
{
	const struct brute_peer_charge *const charge = &crash->peer;
	struct brute_crash_info info = crash->info;
	struct brute_peer_key key = charge->key;

	info.attack = "peer";
	if (charge->verdict != BRUTE_VERDICT_NONE) {
		/* A layout's verdict: its endpoints refuse the peer (layout=). */
		key.layout = charge->layout;
		info.peer = &key;
		info.stats = charge->stats;
		brute_audit_attack(&info, charge->verdict, params, mode,
				   brute_peer_mitigation(mode, charge->banned));
		if (charge->banned) {
			pr_warn_ratelimited("peer banned from an endpoint after a brute force attack on hierarchy %llu (%u faults)\n",
					    hierarchy->id,
					    charge->stats.faults);
			brute_audit_peer_ban(hierarchy, &info,
					     charge->stats.faults,
					     params->peer_ban_time_s);
		}
	}
	if (charge->prefix_verdict != BRUTE_VERDICT_NONE) {
		info.peer = &charge->prefix;
		info.stats = charge->prefix_stats;
		brute_audit_attack(&info, charge->prefix_verdict, params, mode,
				   brute_peer_mitigation(mode,
							 charge->escalated));
	}
	if (charge->escalated) {
		pr_warn_ratelimited("address prefix banned from an endpoint after a brute force attack on hierarchy %llu (%u faults)\n",
				    hierarchy->id, charge->prefix_stats.faults);
		brute_audit_peer_ban(hierarchy, &info,
				     charge->prefix_stats.faults,
				     params->peer_ban_time_s);
	}
}

/*
 * Charge the crash of @hierarchy, a user's own privileged image, once
 * since its execve(), to the entry of that user and its executable: an
 * exec attack is many images of one target started by one user, each
 * crashing.  A verdict bans the target for the user (kill mode,
 * ban_time_s > 0) and kills the instances of it they still run, and kills
 * the processes that forked the image that run entirely as the user who
 * gained the privilege: never a process that started the image with more
 * privilege than the image has.
 */
static void brute_charge_target(struct brute_hierarchy *const hierarchy,
				const struct brute_crash *const crash,
				const kernel_siginfo_t *const info,
				const u64 now, const u64 start,
				const struct brute_params *const params,
				const enum brute_mode mode)
{
	struct brute_hierarchy *const parent = hierarchy->exec_parent;
	struct brute_crash_info record = crash->info;
	char name[BRUTE_TARGET_NAME_LEN];
	struct brute_target_charge charge;
	struct name_snapshot snapshot;
	struct brute_target_key key;
	const char *mitigation, *scope;
	struct file *exe;
	kuid_t owner;
	u64 ban_ns = 0;
	bool kill;

	/* A handler that ended the process: its memory, and file, are gone. */
	exe = get_task_exe_file(current);
	if (exe) {
		take_dentry_name_snapshot(&snapshot, exe->f_path.dentry);
		strscpy(name, snapshot.name.name, sizeof(name));
		release_dentry_name_snapshot(&snapshot);
		fput(exe);
	} else {
		__get_task_comm(name, sizeof(name), current);
	}

	spin_lock(&hierarchy->lock);
	key.uid = hierarchy->principal;
	key.dev = hierarchy->target_dev;
	key.ino = hierarchy->target_ino;
	owner = hierarchy->owner;
	spin_unlock(&hierarchy->lock);

	if (mode == BRUTE_MODE_KILL)
		ban_ns = (u64)params->ban_time_s * NSEC_PER_SEC;
	brute_targets_charge(&brute_targets, &key, name, now, start, ban_ns,
			     params, &charge);
	if (!charge.charged) {
		pr_warn_ratelimited("crash of %d (%s) not charged to user %u: (user, target) table full or no memory\n",
				    task_tgid_nr(current), current->comm,
				    from_kuid(&init_user_ns, key.uid));
		brute_audit_skipped(hierarchy, &key);
		return;
	}

	scope = !charge.overflow ? "target" : charge.all ? "any" : "overflow";
	record.hierarchy = parent ? parent : hierarchy;
	record.origin = hierarchy;
	record.attack = "exec";
	record.source = "user";
	record.target = &charge.key;
	record.scope = scope;
	record.peer = NULL;
	record.input = NULL;
	record.relay = NULL;
	record.stats = charge.stats;
	record.period_ns = charge.period_ns;
	brute_audit_crash(&record, info);
	if (charge.verdict == BRUTE_VERDICT_NONE)
		return;

	kill = mode == BRUTE_MODE_KILL && parent && !READ_ONCE(parent->exempt);
	if (mode != BRUTE_MODE_KILL)
		mitigation = "audit";
	else if (charge.banned)
		mitigation = "ban";
	else
		mitigation = kill ? "kill" : "none";
	pr_warn_ratelimited("exec brute force attack detected: user %u on %s (%u faults)\n",
			    from_kuid(&init_user_ns, key.uid), charge.all ? "*" : name,
			    charge.stats.faults);
	brute_audit_attack(&record, charge.verdict, params, mode, mitigation);
	if (charge.banned) {
		brute_audit_ban(hierarchy, &charge.key, scope,
				charge.all ? "*" : name, params->ban_time_s);
		brute_kill_instances(hierarchy, charge.key.uid, charge.key.dev,
				     charge.key.ino);
	}
	if (kill)
		brute_kill(parent, &owner, false);
}

/*
 * Whose input the crash followed (input.c), for the records and the peer
 * charge: a peer's, directly or through a proxy, is charged to the peer
 * (if the crash crossed a peer boundary); the others name who sent it.
 */
static void brute_charge_input(struct brute_crash *const crash, const u64 now,
			       const u32 boundaries,
			       const struct brute_params *const params,
			       const enum brute_mode mode)
{
	const struct brute_input_result *const res = &crash->input;
	struct brute_peer_key *const key = &crash->peer.key;
	u16 prefix = 0;

	crash->info.input = brute_input_how_name(res->how);
	crash->info.source = crash->user ? "user" : "unknown";
	if (!res->input.cookie)
		return;
	if (res->input.kind == BRUTE_INPUT_RELAYED ||
	    res->input.kind == BRUTE_INPUT_MIXED)
		crash->info.relay = &res->input.relay;
	crash->info.lino = res->input.lino;
	crash->info.lpath = res->lpath;
	if ((res->how != BRUTE_INPUT_HOW_PEER &&
	     res->how != BRUTE_INPUT_HOW_RELAYED) ||
	    !(boundaries & BRUTE_BOUNDARY_PEER)) {
		/* Named as the peer table would key it, never charged. */
		if (res->input.peer.family == AF_INET)
			prefix = params->peer_prefix_v4;
		else if (res->input.peer.family == AF_INET6)
			prefix = params->peer_prefix_v6;
		brute_peer_key_set(key, &res->input.endpoint, &res->input.peer,
				   prefix);
		crash->info.peer = key;
		crash->info.peer_named = true;
		return;
	}
	brute_peers_charge(&brute_peers, &res->input, crash->info.hierarchy->id,
			   res->lpath, now,
			   mode == BRUTE_MODE_KILL ?
			   (u64)params->peer_ban_time_s * NSEC_PER_SEC : 0,
			   params, &crash->peer);
	crash->info.source = "peer";
	crash->info.peer = key;
	crash->info.peer_faults = crash->peer.stats.faults;
	crash->info.peer_uncharged = !crash->peer.charged;
	if (!crash->peer.charged)
		pr_warn_ratelimited("crash of %d (%s) not charged to its peer: its endpoint's share of the peer table full of bans, or no memory\n",
				    task_tgid_nr(current), current->comm);
}

/*
 * The backstop's verdict on a service: crashes that came fast kill it at
 * once, or with a hold kill what it forked and ask for a restart of its
 * unit; crashes that came slowly ask for a restart (the record says
 * mitigation=restart; brute-reportd reloads or restarts the unit), and its
 * next crash kills it if it still runs.
 */
static const char *brute_backstop_mitigation(const struct brute_crash *crash,
					     const enum brute_mode mode)
{
	if (mode != BRUTE_MODE_KILL)
		return "audit";
	return crash->verdict == BRUTE_VERDICT_SLOW || crash->held ?
	       "restart" : "kill";
}

/**
 * brute_task_crash() - Count a crash of the current process
 * @info: The fault: its signal, code and address.
 * @not_peers: No peer answers for it, whatever the process read
 *             (brute_fault_not_peers()).
 * @handled: A handler caught it and ended the process (fault.c): the
 *           process's memory is gone already.
 *
 * If its hierarchy crossed a boundary, count it there, charge the peer
 * that answers for its input, and, once per hierarchy, charge its user's
 * exec attack if the image is the user's own privileged one serving
 * nobody.  Threads that fault at the same time are one crash.
 *
 * Context: Task context, may sleep: the crashing task.
 */
void brute_task_crash(const kernel_siginfo_t *info, const bool not_peers,
		      const bool handled)
{
	struct brute_task_security *const ts = brute_task(current);
	const enum brute_mode mode = brute_mode();
	struct brute_hierarchy *hierarchy;
	struct brute_crash crash_buf = {};
	struct brute_crash *const crash = &crash_buf;
	struct brute_params params;
	u32 boundaries;
	bool kill;
	u64 now;

	hierarchy = ts->hierarchy;
	if (!hierarchy || mode == BRUTE_MODE_OFF)
		return;
	/*
	 * Threads that fault at the same time are one crash: the first
	 * resolves its input (a trusted peer's entry counts it once).
	 */
	if (test_and_set_bit(BRUTE_TASK_CRASHED,
			     &brute_task(current->group_leader)->flags))
		return;

	/* A change of IDs not seen by the set*id() hooks still counts. */
	brute_check_ids(current_cred(), current_cred());
	/*
	 * A local connection's party is known once its client wrote: the
	 * boundary its input crossed is crossed now.
	 */
	brute_params_get(&params);
	brute_input_resolve(&params, &crash->input);
	if (crash->input.how != BRUTE_INPUT_HOW_NONE &&
	    !(READ_ONCE(hierarchy->boundaries) & crash->input.boundary))
		brute_hierarchy_cross(hierarchy, crash->input.boundary,
				      current_cred(), current_cred());
	boundaries = READ_ONCE(hierarchy->boundaries);
	if (!boundaries)
		return;

	now = ktime_get_ns();
	crash->info.hierarchy = hierarchy;
	crash->info.origin = hierarchy;
	crash->info.handled = handled;
	if (not_peers && (crash->input.how == BRUTE_INPUT_HOW_PEER ||
			  crash->input.how == BRUTE_INPUT_HOW_RELAYED))
		crash->input.how = BRUTE_INPUT_HOW_AMBIGUOUS;
	brute_charge(hierarchy, crash, now, &params, mode);
	if (crash->hold_until)
		brute_hold_arm(hierarchy, crash->hold_until,
			       params.backstop_hold_s);
	brute_charge_input(crash, now, boundaries, &params, mode);

	if (!crash->quiet)
		brute_audit_crash(&crash->info, info);
	if (crash->peer.charged)
		brute_peer_respond(hierarchy, crash, &params, mode);
	kill = mode == BRUTE_MODE_KILL && crash->rekill;
	crash->info.peer = NULL;
	if (crash->verdict != BRUTE_VERDICT_NONE) {
		const char *mitigation = crash->user ?
			(mode == BRUTE_MODE_KILL ? "kill" : "audit") :
			brute_backstop_mitigation(crash, mode);

		crash->info.attack = crash->user ? "fork" : "backstop";
		if (crash->user)
			pr_warn_ratelimited("fork brute force attack detected on hierarchy %llu (%u faults)\n",
					    hierarchy->id,
					    crash->info.stats.faults);
		else
			pr_warn_ratelimited("brute force backstop on hierarchy %llu: %u crashes not charged to their user\n",
					    hierarchy->id,
					    crash->info.stats.faults);
		brute_audit_attack(&crash->info, crash->verdict, &params, mode,
				   mitigation);
		kill = !strcmp(mitigation, "kill") ||
		       (crash->held && crash->verdict == BRUTE_VERDICT_FAST);
	} else if (crash->restarted) {
		/* Its restart was asked for: nothing restarted it. */
		crash->info.attack = "backstop";
		brute_audit_attack(&crash->info, BRUTE_VERDICT_SLOW, &params,
				   mode, "kill");
	}
	if (kill)
		brute_kill(hierarchy, NULL, crash->held);

	if (crash->user &&
	    !test_and_set_bit(BRUTE_HIERARCHY_CHARGED, &hierarchy->flags))
		brute_charge_target(hierarchy, crash, info, now,
				    now - crash->info.period_ns, &params, mode);
}

static struct security_hook_list brute_task_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(task_alloc, hook_task_alloc),
	LSM_HOOK_INIT(task_free, hook_task_free),
	LSM_HOOK_INIT(bprm_creds_for_exec, hook_bprm_creds_for_exec),
	LSM_HOOK_INIT(bprm_creds_from_file, hook_bprm_creds_from_file),
	LSM_HOOK_INIT(bprm_committing_creds, hook_bprm_committing_creds),
	LSM_HOOK_INIT(task_fix_setuid, hook_task_fix_setuid),
	LSM_HOOK_INIT(task_fix_setgid, hook_task_fix_setgid),
};

/**
 * brute_task_add_hooks() - Register the task hooks
 */
__init void brute_task_add_hooks(void)
{
	security_add_hooks(brute_task_hooks, ARRAY_SIZE(brute_task_hooks),
			   &brute_lsmid);
}
