/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restart.h - a backstop that never leaves a service dead (issue 29, item
 * 5, the daemon's half).  From the attack entries of Brute's backstop:
 *
 *   ACTION restart (v4: the service crossed backstop_faults slowly; nothing
 *     was killed): restart its unit (TryRestartUnit), so that it runs again
 *     with a fresh layout and canary, or reload it (backstop_reload);
 *   ACTION restart with SPEED fast (the kernel's backstop_hold_s: the
 *     workers were killed, the master is held, its sockets open, forking
 *     nothing): reload a unit of backstop_reload, whose reload executes its
 *     master again; any other unit's stop would keep it waiting for the
 *     hold (a master that cannot fork may not stop in time), and its
 *     restart closes its sockets anyway: when the held master is the
 *     unit's main process (MainPID: the crashing task or its parent), that
 *     process alone is killed (KillUnit "main", SIGKILL: what the kernel
 *     does at the end of the hold), and the unit is made sure to run again,
 *     as after a kill; otherwise (a job of cron.service, a user's process
 *     in another's service) nothing is killed: the kernel's own kill at the
 *     end of the hold applies, never a kill of every process of the unit;
 *   ACTION kill (the kernel killed the service at once): RESTART_FIRST_LOOK_MS
 *     later, if the unit is failed or inactive (no Restart= of its own that
 *     brings it back: a unit waiting for its Restart= is "activating"),
 *     reset its failed state (which clears systemd's start limit counter)
 *     and start it; one still active is looked at again after
 *     RESTART_GRACE_MS (systemd may not have seen the kill yet); one
 *     activating or deactivating, each second until it is active or not.
 *
 * The unit is the system service of the entry's CGROUP (the record's
 * cgroup=, the kernel's; never a cgroup looked up by pid), of this host's
 * records only (an auditd aggregator's records of others: actions.h):
 * /system.slice/NAME.service, template instances included; nothing else.
 * Per unit, one action at a time, at most one every RESTART_INTERVAL_MS:
 * requests meanwhile are merged into the next one, never dropped.  Each
 * action is logged once with its reason (the hierarchy, its crashes, the
 * audit ID); its outcome is logged and counted.
 */
#ifndef BRUTE_RESTART_H
#define BRUTE_RESTART_H

#include <stdbool.h>
#include <stdint.h>

#include "entry.h"
#include "manager.h"

#define RESTART_FIRST_LOOK_MS	250	/* after a kill, before looking at the unit */
#define RESTART_GRACE_MS	2000	/* after a kill, "active" believed */
#define RESTART_INTERVAL_MS	2000	/* between two actions on one unit */
#define RESTART_RECHECKS	10	/* "deactivating": looked at again each second */
#define RESTART_ACTIVATING_CHECKS 300	/* "activating": each second, up to 5 min */
#define RESTART_UNITS_MAX	256	/* units followed at once */
#define RESTART_RELOAD_MAX	512	/* backstop_reload: its patterns, in bytes */

struct restart_stats {
	uint64_t restarts;	/* restarted (mitigation=restart) */
	uint64_t starts;	/* started again after a kill (not active by itself) */
	uint64_t recovered;	/* back by themselves after a kill (their Restart=) */
	uint64_t failures;	/* an action that failed, or systemd unreachable */
	uint64_t refused;	/* not a system service: nothing done */
};

struct restart;

struct restart *restart_new(struct manager *m);
void restart_free(struct restart *r);
void restart_set_enabled(struct restart *r, bool enabled);
/* backstop_reload: unit name patterns (fnmatch), space-separated; 0 or -EINVAL (too long) */
int restart_set_reload(struct restart *r, const char *patterns);
/* An entry: attack entries of the backstop are acted on, others ignored. */
void restart_entry(struct restart *r, const struct entry *e, uint64_t now_ms);
void restart_tick(struct restart *r, uint64_t now_ms);
uint64_t restart_next_deadline(const struct restart *r);
const struct restart_stats *restart_get_stats(const struct restart *r);

#endif
