/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restart.c - the units of services Brute's backstop restarted or killed:
 * each one's state machine, from the attack entry to the unit running again.
 *
 *   idle --entry--> waiting --due--> STATE --active, kill--> idle (recovered)
 *                                      |--active, kill, in the grace--> waiting (its end)
 *                                      |--active, restart, backstop_reload--> RELOAD --> idle
 *                                      |     (its job failed: TRY_RESTART)
 *                                      |--active, restart--> TRY_RESTART --> idle
 *                                      |--(de)activating--> waiting (1 s)
 *                                      '--otherwise--> RESET_FAILED --> START --> idle
 *
 * After a kill the unit is looked at soon (RESTART_FIRST_LOOK_MS): failed or
 * inactive, nothing of systemd's brings it back (a unit whose Restart= acts
 * is "activating" meanwhile), so it is started at once rather than after a
 * grace that would be an outage for every client.  "active" that soon may be
 * a unit whose kill systemd has not seen yet: believed only after
 * RESTART_GRACE_MS.
 *
 * "activating" is no answer yet: it is also the state of a unit between a
 * crash and its Restart= (sub-state auto-restart), whose next start may hit
 * the start limit and leave it failed.  It is looked at again until it is
 * active or not running, up to RESTART_ACTIVATING_CHECKS times.
 *
 * A unit whose reload executes its main process again (php-fpm's SIGUSR2,
 * sshd's SIGHUP: a fresh layout and canary, its listening sockets inherited,
 * never closed) is reloaded rather than restarted, which is an outage: the
 * patterns of backstop_reload.  If its reload did not execute it again, the
 * kernel kills the hierarchy at its next crash: the bound holds either way.
 */
#include "restart.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "util.h"

enum kind { KIND_RESTART = 1, KIND_ENSURE = 2 };	/* ENSURE wins when merged */
enum state { S_IDLE, S_WAITING, S_BUSY };

struct svc {
	struct restart *owner;
	char unit[UNIT_NAME_MAX];
	enum state state;
	enum kind kind;
	enum kind asked;		/* what the kernel did, for the log (kind may change) */
	enum manager_op step;
	uint64_t due_ms;
	uint64_t grace_end_ms;		/* after a kill: "active" believed from then on */
	uint64_t last_action_ms;	/* the last start or restart asked (0: none) */
	uint64_t used_ms;		/* last request: the least recently used idle one goes */
	unsigned rechecks;
	bool held;			/* a fast mitigation=restart: the kernel holds its master */
	uint32_t pid, ppid;		/* held: the crashing task and its parent (the held master) */
	enum kind again;		/* a request that came while busy (0: none) */
	char reason[384];
	struct svc *next;
};

struct restart {
	struct manager *m;
	bool enabled;
	char reload[RESTART_RELOAD_MAX];	/* unit name patterns, space-separated */
	struct svc *svcs;
	size_t n;
	struct restart_stats stats;
};

struct restart *restart_new(struct manager *m)
{
	struct restart *r = calloc(1, sizeof(*r));

	if (r) {
		r->m = m;
		r->enabled = true;
	}
	return r;
}

void restart_free(struct restart *r)
{
	if (!r)
		return;
	while (r->svcs) {
		struct svc *s = r->svcs;

		r->svcs = s->next;
		manager_cancel(r->m, s);
		free(s);
	}
	free(r);
}

void restart_set_enabled(struct restart *r, bool enabled)
{
	r->enabled = enabled;
}

int restart_set_reload(struct restart *r, const char *patterns)
{
	if (strlen(patterns) >= sizeof(r->reload))
		return -EINVAL;
	strtcpy(r->reload, patterns, sizeof(r->reload));
	return 0;
}

/* Does unit's reload execute it again (one of backstop_reload's patterns)? */
static bool reloads(const struct restart *r, const char *unit)
{
	char pat[RESTART_RELOAD_MAX];
	const char *p = r->reload;

	while (*p) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			break;
		memcpy(pat, p, n);
		pat[n] = '\0';
		if (!fnmatch(pat, unit, 0))
			return true;
		p += n;
	}
	return false;
}

const struct restart_stats *restart_get_stats(const struct restart *r)
{
	return &r->stats;
}

static struct svc *svc_get(struct restart *r, const char *unit, uint64_t now_ms)
{
	struct svc *s, **pp, **victim = NULL;

	for (s = r->svcs; s; s = s->next)
		if (!strcmp(s->unit, unit))
			return s;
	if (r->n >= RESTART_UNITS_MAX) {
		for (pp = &r->svcs; *pp; pp = &(*pp)->next)
			if ((*pp)->state == S_IDLE && (!victim || (*pp)->used_ms < (*victim)->used_ms))
				victim = pp;
		if (!victim)
			return NULL;	/* 256 units busy at once: this request is refused */
		s = *victim;
		*victim = s->next;
		free(s);
		r->n--;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	strtcpy(s->unit, unit, sizeof(s->unit));
	s->owner = r;
	s->used_ms = now_ms;
	s->next = r->svcs;
	r->svcs = s;
	r->n++;
	return s;
}

static void on_result(void *userdata, int error, const char *value);

static void schedule(struct svc *s, enum kind kind, uint64_t now_ms, uint64_t delay_ms)
{
	uint64_t due = now_ms + delay_ms;

	if (s->last_action_ms && s->last_action_ms + RESTART_INTERVAL_MS > due)
		due = s->last_action_ms + RESTART_INTERVAL_MS;
	s->state = S_WAITING;
	s->kind = kind;
	s->asked = kind;
	s->due_ms = due;
	s->grace_end_ms = now_ms + (kind == KIND_ENSURE ? RESTART_GRACE_MS : 0);
}

static void finish(struct restart *r, struct svc *s, uint64_t now_ms)
{
	enum kind again = s->again;

	(void)r;
	s->state = S_IDLE;
	s->again = 0;
	s->rechecks = 0;
	if (!again)
		s->held = false;
	if (again)
		schedule(s, again, now_ms, again == KIND_ENSURE ? RESTART_FIRST_LOOK_MS : 0);
}

static void fail(struct restart *r, struct svc *s, const char *what, const char *why)
{
	r->stats.failures++;
	log_error("could not %s %s after Brute's backstop: %s (%s)", what, s->unit, why, s->reason);
	finish(r, s, now_monotonic_ms());
}

static void ask(struct restart *r, struct svc *s, enum manager_op op)
{
	int e;

	s->step = op;
	if (op == MANAGER_START || op == MANAGER_TRY_RESTART || op == MANAGER_RELOAD)
		s->last_action_ms = now_monotonic_ms();
	e = manager_request(r->m, op, s->unit, on_result, s);
	if (e < 0)
		fail(r, s, op == MANAGER_TRY_RESTART ? "restart" : op == MANAGER_STATE ?
		     "read the state of" : op == MANAGER_RESET_FAILED ? "reset" :
		     op == MANAGER_RELOAD ? "reload" : op == MANAGER_KILL ? "kill" :
		     op == MANAGER_MAIN_PID ? "read the main pid of" : "start",
		     strerror(-e));
}

static bool running(const char *state)
{
	return !strcmp(state, "active") || !strcmp(state, "reloading");
}

/* a state to look at again in a second: on its way up or down, not there yet */
static bool settling(const struct svc *s, const char *state)
{
	if (!strcmp(state, "activating"))
		return s->rechecks < RESTART_ACTIVATING_CHECKS;
	return !strcmp(state, "deactivating") && s->rechecks < RESTART_RECHECKS;
}

static void on_result(void *userdata, int error, const char *value)
{
	struct svc *s = userdata;
	struct restart *r = s->owner;
	uint64_t now = now_monotonic_ms();

	switch (s->step) {
	case MANAGER_STATE:
		if (error < 0) {
			fail(r, s, "read the state of", value);
		} else if (s->kind == KIND_RESTART && running(value) && reloads(r, s->unit)) {
			log_notice("reloading %s for a fresh layout and canary, its sockets kept open (its reload executes it again: backstop_reload) (%s)",
				   s->unit, s->reason);
			ask(r, s, MANAGER_RELOAD);
		} else if (s->kind == KIND_RESTART && running(value) && s->held) {
			ask(r, s, MANAGER_MAIN_PID);	/* is the held master its main process? */
		} else if (s->kind == KIND_RESTART && running(value)) {
			log_notice("restarting %s for a fresh layout and canary (%s)", s->unit, s->reason);
			ask(r, s, MANAGER_TRY_RESTART);
		} else if (s->kind == KIND_ENSURE && running(value) && now < s->grace_end_ms) {
			s->state = S_WAITING;	/* killed a moment ago: has systemd seen it yet? */
			s->due_ms = s->grace_end_ms;
		} else if (settling(s, value)) {
			/* a start under way is a fresh layout already: a restart asked for is
			 * then only to see that it ends up running, not to be done again */
			if (!strcmp(value, "activating"))
				s->kind = KIND_ENSURE;
			s->rechecks++;
			s->state = S_WAITING;
			s->due_ms = now + 1000;
		} else if (running(value) || !strcmp(value, "activating")) {
			/* after a kill: its Restart= brought it back; after a restart request: it is up
			 * (still "activating" after RESTART_ACTIVATING_CHECKS s: a slow start job, systemd's) */
			r->stats.recovered++;
			log_info("%s is %s again by itself after Brute's backstop %s (%s)", s->unit, value,
				 s->asked == KIND_RESTART ? "asked for its restart" : "killed its processes",
				 s->reason);
			finish(r, s, now);
		} else {
			log_notice("%s is %s after Brute's backstop %s (%s): resetting its failed state and starting it",
				   s->unit, value, s->asked == KIND_RESTART ? "asked for its restart" :
				   "killed its processes", s->reason);
			ask(r, s, MANAGER_RESET_FAILED);
		}
		return;
	case MANAGER_MAIN_PID: {
		char *end;
		unsigned long pid = error < 0 ? 0 : strtoul(value, &end, 10);

		if (pid && !*end && (pid == s->pid || pid == s->ppid)) {
			log_notice("killing the main process (pid %lu) of %s, which Brute's backstop holds for a restart: its reload would keep its layout (not in backstop_reload), and a restart closes its sockets anyway; starting it again after (%s)",
				   pid, s->unit, s->reason);
			ask(r, s, MANAGER_KILL);
			return;
		}
		/* not its main process (a job of cron.service...): never kill the whole unit */
		log_notice("leaving %s to the kernel: Brute's backstop holds a process of it for a restart, but not its main process (%s%s), and brute-reportd kills nothing else; the kernel kills the held process when its hold ends, and its record of that kill makes sure the unit runs (%s)",
			   s->unit, error < 0 ? "unknown: " : "main pid ", value, s->reason);
		finish(r, s, now);
		return;
	}
	case MANAGER_RESET_FAILED:
		/* not fatal: a unit that is not failed has nothing to reset; the start says */
		if (error < 0)
			log_warning("resetting the failed state of %s: %s", s->unit, value);
		ask(r, s, MANAGER_START);
		return;
	case MANAGER_START:
		if (error < 0) {
			fail(r, s, "start", value);
		} else if (strcmp(value, "done")) {
			fail(r, s, "start", value);	/* the job's result: failed, timeout... */
		} else {
			r->stats.starts++;
			log_info("%s started again after Brute's backstop", s->unit);
			finish(r, s, now);
		}
		return;
	case MANAGER_KILL:
		if (error < 0) {
			log_warning("killing %s: %s; restarting it instead", s->unit, value);
			ask(r, s, MANAGER_TRY_RESTART);
			return;
		}
		/* then as after the kernel's kill: it must come back */
		s->held = false;
		s->kind = KIND_ENSURE;
		s->state = S_WAITING;
		s->due_ms = now + RESTART_FIRST_LOOK_MS;
		s->grace_end_ms = now + RESTART_GRACE_MS;
		return;
	case MANAGER_RELOAD:
		if (error < 0 || strcmp(value, "done")) {
			log_warning("reloading %s: %s; restarting it instead", s->unit,
				    error < 0 ? value : value[0] ? value : "no result");
			ask(r, s, MANAGER_TRY_RESTART);
		} else {
			r->stats.restarts++;
			log_info("%s reloaded after Brute's backstop (backstop_reload: its reload executes it again)",
				 s->unit);
			finish(r, s, now);
		}
		return;
	case MANAGER_TRY_RESTART:
		if (error < 0 || strcmp(value, "done")) {
			/* whatever went wrong, it must not stay down: look again, start it */
			log_warning("restarting %s: %s; making sure it runs", s->unit,
				    error < 0 ? value : value[0] ? value : "no result");
			r->stats.failures++;
			s->state = S_IDLE;
			schedule(s, KIND_ENSURE, now, 0);
		} else {
			r->stats.restarts++;
			log_info("%s restarted after Brute's backstop", s->unit);
			finish(r, s, now);
		}
		return;
	}
}

void restart_tick(struct restart *r, uint64_t now_ms)
{
	for (struct svc *s = r->svcs; s; s = s->next)
		if (s->state == S_WAITING && s->due_ms <= now_ms) {
			s->state = S_BUSY;
			ask(r, s, MANAGER_STATE);
		}
}

uint64_t restart_next_deadline(const struct restart *r)
{
	uint64_t d = UINT64_MAX;

	for (const struct svc *s = r->svcs; s; s = s->next)
		if (s->state == S_WAITING && s->due_ms < d)
			d = s->due_ms;
	return d;
}

void restart_entry(struct restart *r, const struct entry *e, uint64_t now_ms)
{
	const char *type = entry_get(e, "ATTACK_TYPE"), *action = entry_get(e, "ACTION");
	const char *cgroup = entry_get(e, "CGROUP"), *id = entry_get(e, "AUDIT_ID");
	const char *hier = entry_get(e, "HIERARCHY"), *faults = entry_get(e, "FAULTS");
	const char *speed = entry_get(e, "SPEED");
	char unit[UNIT_NAME_MAX];
	enum kind kind;
	struct svc *s;

	if (!r->enabled || e->kind != ENTRY_ATTACK || !type || strcmp(type, "backstop") || !action)
		return;
	if (!strcmp(action, "restart"))
		kind = KIND_RESTART;
	else if (!strcmp(action, "kill"))
		kind = KIND_ENSURE;
	else
		return;	/* mode 1: nothing was done, nothing to undo */
	if (!cgroup || unit_system_service_of_cgroup(cgroup, unit, sizeof(unit)) < 0 ||
	    !strcmp(unit, "brute-reportd.service")) {
		r->stats.refused++;
		log_notice("Brute's backstop %s hierarchy %s (audit ID %s) in %s: not a system service, brute-reportd restarts nothing there",
			   kind == KIND_RESTART ? "asked for a restart of" : "killed",
			   hier ? hier : "?", id ? id : "?", cgroup ? cgroup : "an unknown cgroup");
		return;
	}
	s = svc_get(r, unit, now_ms);
	if (!s) {
		r->stats.failures++;
		log_error("cannot follow %s after Brute's backstop: %d units followed already (audit ID %s)",
			  unit, RESTART_UNITS_MAX, id ? id : "?");
		return;
	}
	s->used_ms = now_ms;
	if (kind == KIND_RESTART && speed && !strcmp(speed, "fast")) {
		const char *pid = entry_get(e, "PID"), *ppid = entry_get(e, "PPID");

		s->held = true;
		s->pid = pid ? (uint32_t)strtoul(pid, NULL, 10) : 0;
		s->ppid = ppid ? (uint32_t)strtoul(ppid, NULL, 10) : 0;
	}
	if (s->state == S_BUSY) {
		if (s->again != KIND_ENSURE)
			s->again = kind;
		log_debug("%s: another backstop verdict (audit ID %s) while acting on it: again after", unit,
			  id ? id : "?");
		return;
	}
	snprintf(s->reason, sizeof(s->reason), "hierarchy %s crashed %s times%s%s, mitigation=%s, audit ID %s",
		 hier ? hier : "?", faults ? faults : "?", speed ? ", " : "", speed ? speed : "", action,
		 id ? id : "?");
	if (s->state == S_WAITING) {
		if (kind == KIND_ENSURE) {
			s->kind = KIND_ENSURE;
			s->asked = KIND_ENSURE;
			s->grace_end_ms = now_ms + RESTART_GRACE_MS;
		}
		return;
	}
	schedule(s, kind, now_ms, kind == KIND_ENSURE ? RESTART_FIRST_LOOK_MS : 0);
}
