/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What brute-reportd asks systemd (actions.h: manager.c, restart.c,
 * peeraction.c), against a stand-in for systemd's manager: PID 1 does not
 * run on the test host, and restarting the host's units would not be a test
 * anyway.  The stand-in speaks sd-bus over a Unix socket, as systemd does on
 * /run/systemd/private: it answers org.freedesktop.DBus.Properties.Get
 * (ActiveState), ResetFailedUnit, KillUnit, StartUnit, TryRestartUnit and
 * ReloadUnit, queues "jobs"
 * and ends them with JobRemoved, and writes down every call.  The real
 * systemd is tested in the system guest (tests/system/36-reportd-backstop.sh,
 * 37-reportd-nft.sh).
 */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "tests.h"
#include "actions.h"
#include "manager.h"
#include "restart.h"
#include "util.h"

#define UNITS 8

struct fake {
	int lfd;
	sd_bus *bus;
	char address[160];
	char dir[256];			/* the peer actions' environment files: DIR/peer-action */
	struct strbuf calls;		/* "Get nginx.service; ResetFailedUnit nginx.service; ..." */
	struct strbuf envs;		/* each action's environment file, read at its start */
	/* state_after: the state once a job was queued for it (a failed restart: "failed") */
	/* state_later: the state from the second Get on (an auto-restart that ends) */
	struct { const char *unit, *state, *job_result, *state_after, *restart_result, *state_later,
		 *reload_result, *kill_state; int error; uint32_t main_pid;
		 unsigned gets; } units[UNITS];
	const char *default_result;	/* a job's result for other units */
	uint32_t job;
	struct { char path[64], unit[256], result[32]; } pending[32];	/* jobs not ended yet */
	unsigned n_pending;
	bool hold;			/* jobs stay pending until released */
};

static struct fake F;

static int unit_index(const char *unit)
{
	for (int i = 0; i < UNITS; i++)
		if (F.units[i].unit && !strcmp(F.units[i].unit, unit))
			return i;
	return -1;
}

static void end_job(unsigned i)
{
	ck_assert_int_ge(sd_bus_emit_signal(F.bus, "/org/freedesktop/systemd1",
					    "org.freedesktop.systemd1.Manager", "JobRemoved", "uoss",
					    (uint32_t)i, F.pending[i].path, F.pending[i].unit,
					    F.pending[i].result), 0);
}

static void release_jobs(void)
{
	for (unsigned i = 0; i < F.n_pending; i++)
		end_job(i);
	F.n_pending = 0;
}

static int on_call(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	const char *member = sd_bus_message_get_member(m), *unit = NULL, *mode = NULL, *iface, *prop;
	char *name = NULL;
	int i;

	(void)userdata;
	(void)ret_error;
	if (!sd_bus_message_is_method_call(m, NULL, NULL))
		return 0;
	if (!strcmp(member, "Get")) {
		ck_assert_int_ge(sd_bus_message_read(m, "ss", &iface, &prop), 0);
		ck_assert_int_ge(sd_bus_path_decode(sd_bus_message_get_path(m), "/org/freedesktop/systemd1/unit", &name), 0);
		ck_assert(name != NULL);
		if (!strcmp(prop, "MainPID")) {
			ck_assert_str_eq(iface, "org.freedesktop.systemd1.Service");
			sb_printf(&F.calls, "MainPID %s; ", name);
			i = unit_index(name);
			ck_assert_int_ge(sd_bus_reply_method_return(m, "v", "u", i >= 0 ? F.units[i].main_pid : 0), 0);
			free(name);
			return 1;
		}
		ck_assert_str_eq(iface, "org.freedesktop.systemd1.Unit");
		ck_assert_str_eq(prop, "ActiveState");
		sb_printf(&F.calls, "Get %s; ", name);
		i = unit_index(name);
		if (i >= 0 && F.units[i].state_later && ++F.units[i].gets > 1)
			F.units[i].state = F.units[i].state_later;
		ck_assert_int_ge(sd_bus_reply_method_return(m, "v", "s", i >= 0 && F.units[i].state ? F.units[i].state : "inactive"), 0);
		free(name);
		return 1;
	}
	if (!strcmp(member, "ResetFailedUnit")) {
		ck_assert_int_ge(sd_bus_message_read(m, "s", &unit), 0);
		sb_printf(&F.calls, "ResetFailedUnit %s; ", unit);
		ck_assert_int_ge(sd_bus_reply_method_return(m, ""), 0);
		return 1;
	}
	if (!strcmp(member, "KillUnit")) {
		const char *who;
		int32_t sig;

		ck_assert_int_ge(sd_bus_message_read(m, "ssi", &unit, &who, &sig), 0);
		sb_printf(&F.calls, "KillUnit %s %s %d; ", unit, who, (int)sig);
		i = unit_index(unit);
		if (i >= 0 && F.units[i].kill_state)
			F.units[i].state = F.units[i].kill_state;
		ck_assert_int_ge(sd_bus_reply_method_return(m, ""), 0);
		return 1;
	}
	if (!strcmp(member, "StartUnit") || !strcmp(member, "TryRestartUnit") || !strcmp(member, "ReloadUnit")) {
		char path[64], env[512];
		FILE *fe;

		ck_assert_int_ge(sd_bus_message_read(m, "ss", &unit, &mode), 0);
		sb_printf(&F.calls, "%s %s %s; ", member, unit, mode);
		i = unit_index(unit);
		if (i >= 0 && F.units[i].error) {
			ck_assert_int_ge(sd_bus_reply_method_errorf(m, "org.freedesktop.systemd1.NoSuchUnit",
								    "Unit %s not found.", unit), 0);
			return 1;
		}
		/* a peer action: its environment file is there when the unit starts */
		if (!strncmp(unit, "brute-peer-test@", 16)) {
			snprintf(path, sizeof(path), "%.40s", unit + 16);
			*strstr(path, ".service") = '\0';
			snprintf(env, sizeof(env), "%s/peer-action/%s", F.dir, path);
			fe = fopen(env, "r");
			sb_printf(&F.envs, "[%s]\n", unit);
			if (fe) {
				char line[256];

				while (fgets(line, sizeof(line), fe))
					sb_puts(&F.envs, line);
				fclose(fe);
			} else {
				sb_puts(&F.envs, "NO FILE\n");
			}
		}
		if (i >= 0 && F.units[i].state_after)
			F.units[i].state = F.units[i].state_after;
		snprintf(path, sizeof(path), "/org/freedesktop/systemd1/job/%u", ++F.job);
		ck_assert_int_ge(sd_bus_reply_method_return(m, "o", path), 0);
		ck_assert_uint_lt(F.n_pending, 32);
		strcpy(F.pending[F.n_pending].path, path);
		snprintf(F.pending[F.n_pending].unit, sizeof(F.pending[0].unit), "%s", unit);
		snprintf(F.pending[F.n_pending].result, sizeof(F.pending[0].result), "%s",
			 i >= 0 && F.units[i].restart_result && !strcmp(member, "TryRestartUnit") ?
			 F.units[i].restart_result :
			 i >= 0 && F.units[i].reload_result && !strcmp(member, "ReloadUnit") ?
			 F.units[i].reload_result :
			 i >= 0 && F.units[i].job_result ? F.units[i].job_result :
			 F.default_result ? F.default_result : "done");
		F.n_pending++;
		if (!F.hold)
			release_jobs();
		return 1;
	}
	return 0;
}

static void fake_start(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(&F, 0, sizeof(F));
	snprintf(F.dir, sizeof(F.dir), "%s", make_tmpdir());
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.90s/private", F.dir);
	snprintf(F.address, sizeof(F.address), "unix:path=%s", sa.sun_path);
	F.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(F.lfd, 0);
	ck_assert_int_eq(bind(F.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(F.lfd, 4), 0);
}

static void fake_accept(void)
{
	sd_id128_t id;
	int fd = accept4(F.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	ck_assert(F.bus == NULL);	/* one connection at a time */
	ck_assert_int_ge(sd_bus_new(&F.bus), 0);
	ck_assert_int_ge(sd_bus_set_fd(F.bus, fd, fd), 0);
	ck_assert_int_ge(sd_id128_randomize(&id), 0);
	ck_assert_int_ge(sd_bus_set_server(F.bus, 1, id), 0);
	ck_assert_int_ge(sd_bus_add_filter(F.bus, NULL, on_call, NULL), 0);
	ck_assert_int_ge(sd_bus_start(F.bus), 0);
}

static void fake_stop(void)
{
	sd_bus_flush_close_unref(F.bus);
	F.bus = NULL;
	close(F.lfd);
	sb_free(&F.calls);
	sb_free(&F.envs);
	rm_rf(F.dir);
}

/* Both ends for ms, or until done() says so: the daemon's loop and the stand-in's. */
static void pump(struct actions *a, int ms, bool (*done)(struct actions *))
{
	uint64_t end = now_monotonic_ms() + (uint64_t)ms;

	while (now_monotonic_ms() < end && !(done && done(a))) {
		struct pollfd p[3];
		int n = 0, r;

		p[n].fd = F.lfd;
		p[n++].events = POLLIN;
		if (F.bus) {
			p[n].fd = sd_bus_get_fd(F.bus);
			p[n++].events = (short)sd_bus_get_events(F.bus);
		}
		if (actions_pollfd(a, &p[n]))
			n++;
		poll(p, (nfds_t)n, 10);
		fake_accept();
		if (F.bus) {
			do
				r = sd_bus_process(F.bus, NULL);
			while (r > 0);
			if (r < 0 || sd_bus_is_open(F.bus) <= 0)
				F.bus = sd_bus_close_unref(F.bus);	/* the daemon closed: it may come again */
		}
		actions_dispatch(a, now_monotonic_ms());
	}
}

/* A backstop attack entry; a restart is asked for slowly (an ordinary bug), but by act_held(). */
static void backstop(struct entry *e, const char *action, const char *cgroup, const char *id,
		     const char *speed)
{
	entry_init(e, ENTRY_ATTACK, LOG_ALERT, now_realtime_usec());
	entry_add(e, "HIERARCHY", "4297000001");
	entry_add(e, "ATTACK_TYPE", "backstop");
	entry_add(e, "SPEED", speed ? speed : !strcmp(action, "restart") ? "slow" : "fast");
	entry_add_u64(e, "FAULTS", 32);
	entry_add(e, "ACTION", action);
	if (cgroup)
		entry_add(e, "CGROUP", cgroup);
	entry_add_u64(e, "PID", 970);		/* a worker */
	entry_add_u64(e, "PPID", 900);		/* its master, held */
	entry_add(e, "AUDIT_ID", id);
}

static void act(struct actions *a, const char *action, const char *cgroup, const char *id)
{
	struct entry e;

	backstop(&e, action, cgroup, id, NULL);
	actions_entry(a, &e);
	entry_free(&e);
}

/* Crashes that came fast, with the kernel's backstop_hold_s: its master held for a restart. */
static void act_held(struct actions *a, const char *cgroup, const char *id)
{
	struct entry e;

	backstop(&e, "restart", cgroup, id, "fast");
	actions_entry(a, &e);
	entry_free(&e);
}

static struct actions_stats stats(struct actions *a)
{
	struct actions_stats s;

	actions_get_stats(a, &s);
	return s;
}

static bool three_done(struct actions *a)
{
	struct actions_stats s = stats(a);

	return s.unit_starts + s.unit_failures >= 4 && count_of(sb_str(&F.calls), "Get apache2.service; ") >= 3;
}

/*
 * A backstop kill: soon after it (not after the grace: an outage), a unit
 * that is failed or inactive is reset (its start-limit counter with it) and
 * started; one its Restart= brought back is left alone; one still
 * "activating" is looked at again: its Restart= may bring it back, or hit the
 * start limit and leave it failed (then it is reset and started); one still
 * "active" is believed only after the grace (systemd had not seen the kill:
 * failed then, started); a failing start is counted and logged; a cgroup
 * that is not a system service gets nothing.
 */
START_TEST(test_backstop_kill)
{
	struct actions *a;
	uint64_t t0;
	char *log;

	fake_start();
	F.units[0].unit = "nginx.service";
	F.units[0].state = "failed";
	F.units[1].unit = "apache2.service";
	F.units[1].state = "activating";	/* Restart=on-abort: coming back */
	F.units[1].state_later = "active";
	F.units[2].unit = "getty@tty1.service";
	F.units[2].state = "inactive";
	F.units[2].job_result = "failed";
	F.units[3].unit = "brute-bs2.service";
	F.units[3].state = "activating";	/* Restart=always, and its start limit is hit */
	F.units[3].state_later = "failed";
	F.units[4].unit = "slow.service";
	F.units[4].state = "active";		/* the kill not seen yet by systemd */
	F.units[4].state_later = "failed";
	a = actions_new(F.dir, F.address);
	ck_assert(a != NULL);
	ck_assert_int_eq(actions_configure(a, true, "none"), 0);
	log_set_max_level(LOG_INFO);
	stderr_capture_begin();
	t0 = now_monotonic_ms();
	act(a, "kill", "/system.slice/nginx.service", "1.000:1");
	act(a, "kill", "/system.slice/apache2.service/x", "1.000:2");
	act(a, "kill", "/system.slice/system-getty.slice/getty@tty1.service", "1.000:3");
	act(a, "kill", "/system.slice/brute-bs2.service", "1.000:7");
	act(a, "kill", "/system.slice/slow.service", "1.000:8");
	act(a, "kill", "/user.slice/user-1000.slice/user@1000.service", "1.000:4");
	act(a, "kill", "/system.slice/brute-reportd.service", "1.000:5");
	act(a, "audit", "/system.slice/nginx.service", "1.000:6");	/* mode 1: nothing was done */
	pump(a, 200, NULL);
	/* its own Restart= first: nothing asked before the grace */
	ck_assert_str_eq(sb_str(&F.calls), "");
	/* a failed unit without Restart=: started at once, not after the grace */
	pump(a, RESTART_FIRST_LOOK_MS + 700, NULL);
	ck_assert_msg(strstr(sb_str(&F.calls), "StartUnit nginx.service replace; ") &&
		      !strstr(sb_str(&F.calls), "StartUnit slow.service"), "%s", sb_str(&F.calls));
	pump(a, RESTART_GRACE_MS + 4000, three_done);
	log = stderr_capture_end();
	ck_assert_uint_ge(now_monotonic_ms() - t0, RESTART_GRACE_MS);
	ck_assert_msg(strstr(sb_str(&F.calls), "Get nginx.service; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit nginx.service; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit nginx.service; ") <
		      strstr(sb_str(&F.calls), "StartUnit nginx.service replace; ") &&
		      strstr(sb_str(&F.calls), "Get apache2.service; ") &&
		      strstr(sb_str(&F.calls), "StartUnit getty@tty1.service replace; ") &&
		      count_of(sb_str(&F.calls), "Get brute-bs2.service; ") == 2 &&
		      count_of(sb_str(&F.calls), "Get apache2.service; ") == 3 &&
		      count_of(sb_str(&F.calls), "Get slow.service; ") == 2 &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit slow.service; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit brute-bs2.service; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit slow.service; ") <
		      strstr(sb_str(&F.calls), "StartUnit slow.service replace; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit brute-bs2.service; ") <
		      strstr(sb_str(&F.calls), "StartUnit brute-bs2.service replace; ") &&
		      !strstr(sb_str(&F.calls), "StartUnit apache2") && !strstr(sb_str(&F.calls), "user@") &&
		      !strstr(sb_str(&F.calls), "brute-reportd") && !strstr(sb_str(&F.calls), "TryRestart"),
		      "%s", sb_str(&F.calls));
	ck_assert_uint_eq(stats(a).unit_starts, 3);
	ck_assert_uint_eq(stats(a).unit_failures, 1);
	ck_assert_uint_eq(stats(a).unit_restarts, 0);
	ck_assert_msg(strstr(log, "apache2.service is active again by itself after Brute's backstop killed its processes") &&
		      strstr(log, "brute-bs2.service is failed after Brute's backstop killed its processes") &&
		      strstr(log, "nginx.service is failed after Brute's backstop killed its processes (hierarchy 4297000001 crashed 32 times, fast, mitigation=kill, audit ID 1.000:1): resetting its failed state and starting it") &&
		      strstr(log, "could not start getty@tty1.service after Brute's backstop: failed") &&
		      strstr(log, "/user.slice/user-1000.slice/user@1000.service: not a system service"), "%s", log);
	free(log);
	actions_free(a);
	fake_stop();
}
END_TEST

static bool restarted(struct actions *a)
{
	return stats(a).unit_restarts + stats(a).unit_starts >= 2;
}

static bool restarted3(struct actions *a)
{
	return stats(a).unit_starts >= 2;
}

/*
 * mitigation=restart: a running unit is restarted at once (TryRestartUnit);
 * one that is not running is started; a restart whose job fails is not left
 * at that: the unit is looked at again and started.
 */
START_TEST(test_backstop_restart)
{
	struct actions *a;

	fake_start();
	F.units[0].unit = "php8.2-fpm.service";
	F.units[0].state = "active";
	F.units[1].unit = "dovecot.service";
	F.units[1].state = "failed";	/* start limit hit by its own crashes */
	a = actions_new(F.dir, F.address);
	ck_assert_int_eq(actions_configure(a, true, "none"), 0);
	act(a, "restart", "/system.slice/php8.2-fpm.service", "2.000:1");
	act(a, "restart", "/system.slice/dovecot.service", "2.000:2");
	pump(a, 3000, restarted);
	ck_assert_msg(strstr(sb_str(&F.calls), "Get php8.2-fpm.service; ") &&
		      strstr(sb_str(&F.calls), "TryRestartUnit php8.2-fpm.service replace; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit dovecot.service; ") &&
		      strstr(sb_str(&F.calls), "ResetFailedUnit dovecot.service; ") <
		      strstr(sb_str(&F.calls), "StartUnit dovecot.service replace; "),
		      "%s", sb_str(&F.calls));
	ck_assert_uint_eq(stats(a).unit_restarts, 1);
	ck_assert_uint_eq(stats(a).unit_starts, 1);
	/* a restart job that fails (the unit failed): looked at again, reset and started */
	sb_reset(&F.calls);
	F.units[0].restart_result = "failed";
	F.units[0].state_after = "failed";
	act(a, "restart", "/system.slice/php8.2-fpm.service", "2.000:3");
	pump(a, 2 * RESTART_INTERVAL_MS + 3000, restarted3);
	ck_assert_msg(strstr(sb_str(&F.calls), "Get php8.2-fpm.service; TryRestartUnit php8.2-fpm.service replace; Get php8.2-fpm.service; ResetFailedUnit php8.2-fpm.service; StartUnit php8.2-fpm.service replace; "),
		      "%s", sb_str(&F.calls));
	ck_assert_uint_eq(stats(a).unit_starts, 2);
	ck_assert_uint_eq(stats(a).unit_failures, 1);	/* the failed restart */
	actions_free(a);
	fake_stop();
}
END_TEST

/*
 * Per unit: one action at a time, at most one every RESTART_INTERVAL_MS;
 * verdicts meanwhile are merged into one more, never dropped.  Turned off,
 * nothing is asked.
 */
static bool three_restarted(struct actions *a)
{
	return stats(a).unit_restarts >= 3;
}

/*
 * backstop_reload: mitigation=restart reloads a unit whose reload executes
 * it again (a fresh layout, its sockets kept open: no outage), restarts the
 * others, and restarts one whose reload job failed; a kill is not a reload's
 * business (nothing runs to reload).
 */
START_TEST(test_backstop_reload)
{
	struct actions *a;
	char *log;

	fake_start();
	F.units[0].unit = "php8.2-fpm.service";
	F.units[0].state = "active";
	F.units[1].unit = "ssh.service";
	F.units[1].state = "active";
	F.units[1].reload_result = "failed";
	F.units[2].unit = "nginx.service";
	F.units[2].state = "active";
	F.units[3].unit = "php8.2-fpm@app.service";
	F.units[3].state = "failed";
	F.units[4].unit = "apache2.service";	/* starting anyway: a fresh layout already */
	F.units[4].state = "activating";
	F.units[4].state_later = "active";
	a = actions_new(F.dir, F.address);
	ck_assert_int_eq(actions_configure(a, true, "none"), 0);
	ck_assert_int_eq(actions_set_reload(a, "php*-fpm.service php*-fpm@*.service ssh.service"), 0);
	log_set_max_level(LOG_INFO);
	stderr_capture_begin();
	act(a, "restart", "/system.slice/php8.2-fpm.service", "5.000:1");
	act(a, "restart", "/system.slice/ssh.service", "5.000:2");
	act(a, "restart", "/system.slice/nginx.service", "5.000:3");
	act(a, "restart", "/system.slice/apache2.service", "5.000:5");
	act(a, "kill", "/system.slice/system-php8.2\\x2dfpm.slice/php8.2-fpm@app.service", "5.000:4");
	pump(a, RESTART_GRACE_MS + 2000, three_restarted);
	pump(a, 1500, NULL);
	log = stderr_capture_end();
	ck_assert_msg(strstr(sb_str(&F.calls), "ReloadUnit php8.2-fpm.service replace; ") &&
		      !strstr(sb_str(&F.calls), "TryRestartUnit php8.2-fpm.service") &&
		      strstr(sb_str(&F.calls), "ReloadUnit ssh.service replace; ") &&
		      strstr(sb_str(&F.calls), "ReloadUnit ssh.service replace; ") <
		      strstr(sb_str(&F.calls), "TryRestartUnit ssh.service replace; ") &&
		      strstr(sb_str(&F.calls), "TryRestartUnit nginx.service replace; ") &&
		      !strstr(sb_str(&F.calls), "ReloadUnit nginx") &&
		      !strstr(sb_str(&F.calls), "ReloadUnit php8.2-fpm@app") &&
		      strstr(sb_str(&F.calls), "StartUnit php8.2-fpm@app.service replace; ") &&
		      count_of(sb_str(&F.calls), "Get apache2.service; ") == 2 &&
		      !strstr(sb_str(&F.calls), "Unit apache2"),
		      "%s", sb_str(&F.calls));
	ck_assert_uint_eq(stats(a).unit_restarts, 3);
	ck_assert_msg(strstr(log, "reloading php8.2-fpm.service for a fresh layout and canary, its sockets kept open") &&
		      strstr(log, "php8.2-fpm.service reloaded after Brute's backstop (backstop_reload: its reload executes it again)") &&
		      strstr(log, "reloading ssh.service: failed; restarting it instead") &&
		      strstr(log, "restarting nginx.service for a fresh layout and canary") &&
		      strstr(log, "apache2.service is active again by itself after Brute's backstop asked for its restart"),
		      "%s", log);
	free(log);
	actions_free(a);
	fake_stop();
}
END_TEST

/*
 * A fast backstop with the kernel's hold (speed=fast mitigation=restart): a
 * unit of backstop_reload is reloaded (its master executes itself, the hold
 * ends); any other is killed, not restarted (a held master may not stop in
 * time, and a restart closes its sockets anyway), then made sure to run as
 * after the kernel's kill: started when failed, left alone when its
 * Restart= brought it back.
 */
START_TEST(test_backstop_held)
{
	struct actions *a;
	char *log;

	fake_start();
	F.units[0].unit = "php8.2-fpm.service";
	F.units[0].state = "active";
	F.units[1].unit = "apache2.service";	/* Restart=on-abort brings it back */
	F.units[1].state = "active";
	F.units[1].kill_state = "activating";
	F.units[1].state_later = "active";
	F.units[1].main_pid = 900;		/* the held master is its main process */
	F.units[2].unit = "nginx.service";	/* no Restart=: failed after the kill */
	F.units[2].state = "active";
	F.units[2].kill_state = "failed";
	F.units[2].main_pid = 900;
	/*
	 * a user's job in cron.service (its master not cron's main process):
	 * KillUnit "all" killed every job of every user; now nothing is killed,
	 * the kernel's own kill at the end of the hold applies
	 */
	F.units[3].unit = "cron.service";
	F.units[3].state = "active";
	F.units[3].kill_state = "failed";
	F.units[3].main_pid = 555;
	a = actions_new(F.dir, F.address);
	ck_assert_int_eq(actions_configure(a, true, "none"), 0);
	ck_assert_int_eq(actions_set_reload(a, "php*-fpm.service"), 0);
	log_set_max_level(LOG_INFO);
	stderr_capture_begin();
	act_held(a, "/system.slice/php8.2-fpm.service", "6.000:1");
	act_held(a, "/system.slice/apache2.service", "6.000:2");
	act_held(a, "/system.slice/nginx.service", "6.000:3");
	act_held(a, "/system.slice/cron.service", "6.000:4");
	pump(a, RESTART_GRACE_MS + 2500, NULL);
	log = stderr_capture_end();
	ck_assert_msg(strstr(sb_str(&F.calls), "ReloadUnit php8.2-fpm.service replace; ") &&
		      !strstr(sb_str(&F.calls), "KillUnit php8.2-fpm") &&
		      strstr(sb_str(&F.calls), "KillUnit apache2.service main 9; ") &&
		      !strstr(sb_str(&F.calls), "TryRestartUnit apache2") &&
		      !strstr(sb_str(&F.calls), "StartUnit apache2") &&
		      strstr(sb_str(&F.calls), "KillUnit nginx.service main 9; ") &&
		      strstr(sb_str(&F.calls), "KillUnit nginx.service main 9; ") <
		      strstr(sb_str(&F.calls), "StartUnit nginx.service replace; ") &&
		      !strstr(sb_str(&F.calls), "TryRestartUnit nginx") &&
		      strstr(sb_str(&F.calls), "MainPID cron.service; ") &&
		      !strstr(sb_str(&F.calls), "KillUnit cron") && !strstr(sb_str(&F.calls), " all 9; ") &&
		      !strstr(sb_str(&F.calls), "TryRestartUnit cron") &&
		      !strstr(sb_str(&F.calls), "StartUnit cron"),
		      "%s", sb_str(&F.calls));
	ck_assert_uint_eq(stats(a).unit_restarts, 1);
	ck_assert_uint_eq(stats(a).unit_starts, 1);
	ck_assert_msg(strstr(log, "php8.2-fpm.service reloaded after Brute's backstop") &&
		      strstr(log, "killing the main process (pid 900) of apache2.service, which Brute's backstop holds for a restart") &&
		      strstr(log, "apache2.service is active again by itself after Brute's backstop asked for its restart") &&
		      strstr(log, "nginx.service is failed after Brute's backstop asked for its restart") &&
		      strstr(log, "nginx.service started again after Brute's backstop") &&
		      strstr(log, "leaving cron.service to the kernel: Brute's backstop holds a process of it for a restart, but not its main process (main pid 555)"),
		      "%s", log);
	free(log);
	actions_free(a);
	fake_stop();
}
END_TEST

START_TEST(test_backstop_rate_limit)
{
	struct actions *a;

	fake_start();
	F.units[0].unit = "nginx.service";
	F.units[0].state = "failed";
	F.hold = true;
	a = actions_new(F.dir, F.address);
	ck_assert_int_eq(actions_configure(a, true, "none"), 0);
	act(a, "kill", "/system.slice/nginx.service", "3.000:1");
	pump(a, RESTART_GRACE_MS + 500, NULL);
	ck_assert_msg(strstr(sb_str(&F.calls), "StartUnit nginx.service"), "%s", sb_str(&F.calls));
	/* three more kills while its start job runs: one more action after it */
	act(a, "kill", "/system.slice/nginx.service", "3.000:2");
	act(a, "kill", "/system.slice/nginx.service", "3.000:3");
	act(a, "kill", "/system.slice/nginx.service", "3.000:4");
	pump(a, 300, NULL);
	release_jobs();
	F.hold = false;
	pump(a, RESTART_GRACE_MS + RESTART_INTERVAL_MS + 1500, NULL);
	ck_assert_msg(count_of(sb_str(&F.calls), "StartUnit nginx.service") == 2, "%s", sb_str(&F.calls));
	ck_assert_uint_eq(stats(a).unit_starts, 2);
	/* off: nothing */
	sb_reset(&F.calls);
	ck_assert_int_eq(actions_configure(a, false, "none"), 0);
	act(a, "kill", "/system.slice/nginx.service", "3.000:5");
	pump(a, RESTART_GRACE_MS + RESTART_INTERVAL_MS + 500, NULL);
	ck_assert_str_eq(sb_str(&F.calls), "");
	actions_free(a);
	fake_stop();
}
END_TEST

/* systemd unreachable: each action fails, counted, and said once per outage. */
START_TEST(test_backstop_no_systemd)
{
	struct actions *a;
	char *log;

	fake_start();
	a = actions_new(F.dir, "unix:path=/nonexistent/brute-test/private");
	ck_assert_int_eq(actions_configure(a, true, "none"), 0);
	stderr_capture_begin();
	act(a, "restart", "/system.slice/a.service", "4.000:1");
	act(a, "restart", "/system.slice/b.service", "4.000:2");
	pump(a, 300, NULL);
	log = stderr_capture_end();
	ck_assert_uint_eq(stats(a).unit_failures, 2);
	ck_assert_msg(strstr(log, "cannot reach systemd (unix:path=/nonexistent/brute-test/private: No such file or directory") &&
		      strstr(log, "could not read the state of a.service after Brute's backstop: No such file or directory"), "%s", log);
	ck_assert_ptr_eq(strstr(log, "cannot reach systemd"), strstr(log, "cannot reach systemd"));
	ck_assert(strstr(strstr(log, "cannot reach systemd") + 1, "cannot reach systemd") == NULL);
	free(log);
	actions_free(a);
	fake_stop();
}
END_TEST

static void peer_ban(struct entry *e, bool ban, const char *peer, const char *transport, const char *reason)
{
	entry_init(e, ban ? ENTRY_PEER_BAN : ENTRY_PEER_UNBAN, ban ? LOG_CRIT : LOG_NOTICE,
		   now_realtime_usec() - 2000000);	/* the record, 2 s ago */
	entry_add(e, "PEER", peer);
	if (!strncmp(peer, "uid:", 4))
		entry_add(e, "PEER_UID", peer + 4);
	entry_add_u64(e, "NETNS", 4026531840u);
	entry_add(e, "TRANSPORT", transport);
	if (!strcmp(transport, "tcp")) {
		entry_add(e, "LADDR", "0.0.0.0");
		entry_add_u64(e, "LPORT", 7777);
	} else {
		entry_add_u64(e, "LINO", 1150);
	}
	if (ban) {
		entry_add_u64(e, "FAULTS", 5);
		entry_add_u64(e, "BAN_S", 900);
		entry_add(e, "HIERARCHY", "4297000001");
		entry_add(e, "UNIT", "svc\\x2d1.service");
	} else {
		entry_add(e, "REASON", reason);
		entry_add_u64(e, "REFUSED", 3);
	}
	entry_add(e, "AUDIT_ID", "1796600000.100:7");
}

static void peer_act(struct actions *a, bool ban, const char *peer, const char *transport, const char *reason)
{
	struct entry e;

	peer_ban(&e, ban, peer, transport, reason);
	actions_entry(a, &e);
	entry_free(&e);
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/*
 * The peer action: the template's instance is started with the event in an
 * environment file (read here when systemd starts it: every variable, the
 * ban's time left), which is gone afterwards; a local user gets no action;
 * the end of the ban runs after the ban; a failed job is counted.
 */
START_TEST(test_peer_action)
{
	struct actions *a;
	const char *env, *ban, *unban;
	char path[300];
	long left;

	fake_start();
	a = actions_new(F.dir, F.address);
	ck_assert(a != NULL);
	ck_assert_int_eq(actions_configure(a, true, "brute-peer-wrong"), -EINVAL);
	ck_assert_int_eq(actions_configure(a, true, "brute-peer-test@.service"), 0);
	F.hold = true;
	peer_act(a, true, "10.0.0.2/32", "tcp", NULL);
	pump(a, 300, NULL);					/* its action runs (held) */
	peer_act(a, true, "uid:4243", "unix", NULL);		/* a local user: no network address */
	peer_act(a, false, "10.0.0.2/32", "tcp", "lifted");	/* after the ban's action, not beside it */
	peer_act(a, true, "2001:db8:1:2::/64", "tcp", NULL);
	pump(a, 500, NULL);
	/* two bans at once (two peers); the unban waits for its ban */
	ck_assert_msg(count(sb_str(&F.calls), "StartUnit brute-peer-test@") == 2, "%s", sb_str(&F.calls));
	ck_assert_uint_eq(F.n_pending, 2);
	release_jobs();
	F.hold = false;
	pump(a, 800, NULL);
	env = sb_str(&F.envs);
	ban = strstr(env, "BRUTE_EVENT='ban'\nBRUTE_PEER='10.0.0.2/32'\n");
	unban = strstr(env, "BRUTE_EVENT='unban'\nBRUTE_PEER='10.0.0.2/32'\n");
	ck_assert_msg(ban && unban && ban < unban, "%s", env);
	ck_assert_msg(strstr(ban, "BRUTE_PEER_ADDRESS='10.0.0.2'\nBRUTE_PEER_PREFIXLEN='32'\nBRUTE_PEER_FAMILY='ipv4'\nBRUTE_BAN_S='900'\nBRUTE_TRANSPORT='tcp'\nBRUTE_NETNS='4026531840'\nBRUTE_LADDR='0.0.0.0'\nBRUTE_LPORT='7777'\nBRUTE_UNIT='svc\\x2d1.service'\nBRUTE_HIERARCHY='4297000001'\nBRUTE_AUDIT_ID='1796600000.100:7'\nBRUTE_TIMEOUT_S='") == ban + strlen("BRUTE_EVENT='ban'\nBRUTE_PEER='10.0.0.2/32'\n"),
		      "%s", env);
	left = strtol(strstr(ban, "BRUTE_TIMEOUT_S='") + 17, NULL, 10);
	ck_assert_msg(left >= 890 && left <= 898, "time left %ld", left);	/* 900 s from a record 2 s old */
	ck_assert_msg(strstr(unban, "BRUTE_REASON='lifted'\n") && strstr(unban, "BRUTE_TIMEOUT_S='0'\n"), "%s", unban);
	ck_assert_msg(strstr(env, "BRUTE_PEER='2001:db8:1:2::/64'\nBRUTE_PEER_ADDRESS='2001:db8:1:2::'\nBRUTE_PEER_PREFIXLEN='64'\nBRUTE_PEER_FAMILY='ipv6'\n"), "%s", env);
	ck_assert_msg(!strstr(env, "uid:4243") && !strstr(env, "NO FILE"), "%s", env);
	ck_assert_uint_eq(stats(a).peer_actions, 3);
	ck_assert_uint_eq(stats(a).peer_action_failures, 0);
	/* the files are gone once the jobs ended */
	snprintf(path, sizeof(path), "%s/peer-action", F.dir);
	{
		int n = 0;
		DIR *d = opendir(path);
		struct dirent *de;

		ck_assert(d != NULL);
		while ((de = readdir(d)))
			n += de->d_name[0] != '.';
		closedir(d);
		ck_assert_int_eq(n, 0);
	}
	/* a job that fails, a value no kernel writes: counted as failures, nothing run for the latter */
	F.default_result = "failed";
	peer_act(a, true, "10.0.0.3/32", "tcp", NULL);
	peer_act(a, true, "10.0.0.4/33", "tcp", NULL);
	peer_act(a, true, "10.0.0.5/32 ; reboot", "tcp", NULL);
	pump(a, 800, NULL);
	ck_assert_uint_eq(stats(a).peer_actions, 4);
	ck_assert_uint_eq(stats(a).peer_action_failures, 3);
	ck_assert(!strstr(sb_str(&F.envs), "10.0.0.4") && !strstr(sb_str(&F.envs), "reboot"));
	actions_free(a);
	fake_stop();
}
END_TEST

/* A ban whose end comes before its action could start is not pushed at all. */
START_TEST(test_peer_action_lifted_before)
{
	struct actions *a;

	fake_start();
	a = actions_new(F.dir, "unix:path=/nonexistent/brute-test/private");
	ck_assert_int_eq(actions_configure(a, true, "brute-peer-test@.service"), 0);
	peer_act(a, true, "10.0.0.2/32", "tcp", NULL);
	peer_act(a, false, "10.0.0.2/32", "tcp", "lifted");
	pump(a, 100, NULL);
	ck_assert_uint_eq(stats(a).peer_actions, 0);
	ck_assert_uint_eq(stats(a).peer_action_failures, 0);
	actions_free(a);
	fake_stop();
}
END_TEST

/*
 * The daemon itself (BRUTE_REPORTD) as auditd's plugin, on a configuration of
 * @text, talking to the stand-in manager; *@w: the write end of its stdin.
 */
static pid_t daemon_start(const char *text, int *w)
{
	char conf[600];
	int in[2];
	pid_t pid;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/reportd.conf", F.dir);
	f = fopen(conf, "w");
	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
	chmod(conf, 0600);
	ck_assert_int_eq(pipe(in), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *bin = getenv("BRUTE_REPORTD");

		dup2(in[0], 0);
		close(in[1]);
		unsetenv("NOTIFY_SOCKET");
		setenv("RUNTIME_DIRECTORY", F.dir, 1);
		setenv("BRUTE_REPORTD_MANAGER", F.address, 1);
		execl(bin ? bin : "./brute-reportd", "brute-reportd", "--config", conf, "--stdin", "--quiet", NULL);
		_exit(127);
	}
	close(in[0]);
	*w = in[1];
	return pid;
}

/* The daemon's state file once it counts a unit started and a peer action (freed by the caller). */
static char *daemon_acted(void)
{
	char status[600], *st = NULL;
	bool seen = false;

	snprintf(status, sizeof(status), "%s/status", F.dir);
	for (int i = 0; i < 60 && !seen; i++) {
		struct actions *none = actions_new(F.dir, "unix:path=/nonexistent");

		pump(none, 200, NULL);	/* the stand-in answers the daemon meanwhile */
		actions_free(none);
		if (access(status, R_OK))
			continue;
		free(st);
		st = read_file(status, NULL);
		seen = strstr(st, "\nunit_starts=1\n") && strstr(st, "\npeer_actions=1\n");
	}
	ck_assert_msg(seen, "%s\n%s", st ? st : "no state file", sb_str(&F.calls));
	return st;
}

/* SIGTERM: the daemon exits 0. */
static void daemon_stop(pid_t pid, int w)
{
	int n;

	kill(pid, SIGTERM);
	close(w);
	ck_assert_int_eq(waitpid(pid, &n, 0), pid);
	ck_assert(WIFEXITED(n) && WEXITSTATUS(n) == 0);
}

/*
 * The daemon itself (BRUTE_REPORTD), as auditd's plugin: a v4 backstop kill
 * record gets its unit started after the grace, a peer ban record its
 * action, with the state file counting both (brutectl status shows them).
 */
START_TEST(test_daemon_acts)
{
	char line[2048], *st;
	int w, n;
	pid_t pid;

	fake_start();
	F.units[0].unit = "nginx.service";
	F.units[0].state = "failed";
	pid = daemon_start("journal = no\npeer_action = brute-peer-test@.service\n", &w);
	n = snprintf(line, sizeof(line),
		     "type=UNKNOWN[1713] msg=audit(%lld.000:8): brute_hierarchy=4297000004 origin=4297000004 attack=backstop speed=fast faults=32 ema_ms=40 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill source=unknown backstop_faults=32 cgroup=\"/system.slice/nginx.service\" ppid=1 pid=970 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"nginx\" exe=\"/usr/sbin/nginx\"\n"
		     "type=UNKNOWN[1718] msg=audit(%lld.000:9): brute_hierarchy=4297000004 peer=192.0.2.7/32 netns=4026531840 transport=tcp laddr=0.0.0.0 lport=80 faults=5 ban_s=900 ppid=1 pid=971 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"nginx\" exe=\"/usr/sbin/nginx\"\n",
		     (long long)time(NULL), (long long)time(NULL));
	ck_assert(write(w, line, (size_t)n) == n);
	st = daemon_acted();
	ck_assert_msg(strstr(st, "\nunit_restarts=0\nunit_starts=1\nunit_failures=0\npeer_actions=1\npeer_action_failures=0\n"), "%s", st);
	ck_assert_msg(strstr(sb_str(&F.calls), "ResetFailedUnit nginx.service; ") &&
		      strstr(sb_str(&F.calls), "StartUnit nginx.service replace; ") &&
		      strstr(sb_str(&F.envs), "BRUTE_PEER='192.0.2.7/32'\n"), "%s\n%s", sb_str(&F.calls), sb_str(&F.envs));
	free(st);
	daemon_stop(pid, w);
	fake_stop();
}
END_TEST

/*
 * An auditd aggregator's records (node=NAME): another host's backstop kill
 * and peer ban were taken for this host's, starting a local unit and
 * queuing a ban on a local port.  Now they are reported, never acted upon;
 * the records of local_node (with the same hierarchy id) still are.
 */
START_TEST(test_daemon_remote_node)
{
	char line[4096], *st;
	int w, n;
	pid_t pid;

	fake_start();
	F.units[0].unit = "nginx.service";
	F.units[0].state = "failed";
	F.units[1].unit = "apache2.service";
	F.units[1].state = "failed";
	pid = daemon_start("journal = no\npeer_action = brute-peer-test@.service\nlocal_node = here.example\n", &w);
	n = snprintf(line, sizeof(line),
		     "node=evil.example type=UNKNOWN[1713] msg=audit(%lld.000:8): brute_hierarchy=4297000004 origin=4297000004 attack=backstop speed=fast faults=32 ema_ms=40 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill source=unknown backstop_faults=32 cgroup=\"/system.slice/apache2.service\" ppid=1 pid=970 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"apache2\" exe=\"/usr/sbin/apache2\"\n"
		     "node=evil.example type=UNKNOWN[1718] msg=audit(%lld.000:9): brute_hierarchy=4297000004 peer=192.0.2.99/32 netns=4026531840 transport=tcp laddr=0.0.0.0 lport=22 faults=5 ban_s=900 ppid=1 pid=971 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"sshd\" exe=\"/usr/sbin/sshd\"\n"
		     "node=here.example type=UNKNOWN[1713] msg=audit(%lld.000:10): brute_hierarchy=4297000004 origin=4297000004 attack=backstop speed=fast faults=32 ema_ms=40 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill source=unknown backstop_faults=32 cgroup=\"/system.slice/nginx.service\" ppid=1 pid=972 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"nginx\" exe=\"/usr/sbin/nginx\"\n"
		     "node=here.example type=UNKNOWN[1718] msg=audit(%lld.000:11): brute_hierarchy=4297000004 peer=192.0.2.7/32 netns=4026531840 transport=tcp laddr=0.0.0.0 lport=80 faults=5 ban_s=900 ppid=1 pid=973 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"nginx\" exe=\"/usr/sbin/nginx\"\n",
		     (long long)time(NULL), (long long)time(NULL), (long long)time(NULL), (long long)time(NULL));
	ck_assert(write(w, line, (size_t)n) == n);
	st = daemon_acted();
	ck_assert_msg(strstr(sb_str(&F.calls), "StartUnit nginx.service replace; ") &&
		      !strstr(sb_str(&F.calls), "apache2") &&
		      strstr(sb_str(&F.envs), "BRUTE_PEER='192.0.2.7/32'\n") &&
		      !strstr(sb_str(&F.envs), "192.0.2.99"), "%s\n%s", sb_str(&F.calls), sb_str(&F.envs));
	free(st);
	daemon_stop(pid, w);
	fake_stop();
}
END_TEST

/* The helper next to the daemon under test (build/normal, build/asan). */
static const char *peer_nft(void)
{
	static char path[600];
	const char *d = getenv("BRUTE_REPORTD");
	const char *slash = d ? strrchr(d, '/') : NULL;

	if (!slash)
		return "./brute-peer-nft";
	snprintf(path, sizeof(path), "%.*s/brute-peer-nft", (int)(slash - d), d);
	return path;
}

/* Run prog with exactly these environment variables; its exit status, its output in out. */
static int run_env(const char *prog, char *const envp[], struct strbuf *out)
{
	int p[2], st;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *argv[] = { (char *)prog, NULL };

		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execve(prog, argv, envp);
		_exit(127);
	}
	close(p[1]);
	sb_reset(out);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		sb_put(out, buf, (size_t)n);
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *nft_list(const char *what)
{
	static struct strbuf out;
	char cmd[256];
	FILE *f;
	char buf[4096];
	size_t n;

	snprintf(cmd, sizeof(cmd), "/usr/sbin/nft list %s 2>&1", what);
	f = popen(cmd, "r");
	ck_assert(f != NULL);
	sb_reset(&out);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_put(&out, buf, n);
	pclose(f);
	return sb_str(&out);
}

/*
 * The shipped nft action, with the real nft in a network namespace of its
 * own: a ban puts the peer at its port in the set with the time left, a
 * ban of it again renews the timeout (the table's rules made once), the
 * end deletes it (and one that timed out is no error); what is not an
 * address prefix, a port or an event is refused before nft runs.
 */
START_TEST(test_peer_nft)
{
	struct strbuf out = STRBUF_INIT;
	const char *l;

	if (geteuid() != 0 || access("/usr/sbin/nft", X_OK) != 0) {
		test_skip("brute-peer-nft: needs root and nft (nftables) on the test host");
		return;
	}
	if (unshare(CLONE_NEWNET) < 0 || nft_list("tables")[0] == 'E') {
		test_skip("brute-peer-nft: no network namespace or nf_tables on the test host");
		return;
	}
	{
		char *const ban[] = { "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=7777",
				      "BRUTE_TIMEOUT_S=900", NULL };
		char *const ban6[] = { "BRUTE_EVENT=ban", "BRUTE_PEER=2001:db8:1:2::/64", "BRUTE_LPORT=443",
				       "BRUTE_TIMEOUT_S=60", NULL };
		char *const again[] = { "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=7777",
					"BRUTE_TIMEOUT_S=100", NULL };
		char *const end[] = { "BRUTE_EVENT=unban", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=7777",
				      "BRUTE_REASON=lifted", "BRUTE_TIMEOUT_S=0", NULL };

		ck_assert_msg(run_env(peer_nft(), ban, &out) == 0, "%s", sb_str(&out));
		ck_assert_msg(strstr(sb_str(&out), "banned 10.0.0.2/32 from port 7777 for 900 s"), "%s", sb_str(&out));
		l = nft_list("set inet brute peers4");
		ck_assert_msg(strstr(l, "10.0.0.2 . 7777 timeout 15m expires 1"), "%s", l);
		ck_assert_msg(run_env(peer_nft(), ban6, &out) == 0, "%s", sb_str(&out));
		l = nft_list("set inet brute peers6");
		ck_assert_msg(strstr(l, "2001:db8:1:2::/64 . 443 timeout 1m expires "), "%s", l);
		ck_assert_msg(run_env(peer_nft(), again, &out) == 0, "%s", sb_str(&out));
		l = nft_list("set inet brute peers4");
		ck_assert_msg(strstr(l, "10.0.0.2 . 7777 timeout 1m40s expires ") && !strstr(l, "timeout 15m"), "%s", l);
		l = nft_list("chain inet brute input");
		ck_assert_msg(strstr(l, "type filter hook input priority filter - 10; policy accept;"), "%s", l);
		ck_assert_msg(count_of(l, "counter packets") == 2, "%s", l);	/* made once, never doubled */
		ck_assert_msg(run_env(peer_nft(), end, &out) == 0, "%s", sb_str(&out));
		ck_assert_msg(strstr(sb_str(&out), "deleted from inet brute peers4"), "%s", sb_str(&out));
		l = nft_list("set inet brute peers4");
		ck_assert_msg(!strstr(l, "10.0.0.2"), "%s", l);
		ck_assert_msg(run_env(peer_nft(), end, &out) == 0, "%s", sb_str(&out));
		ck_assert_msg(strstr(sb_str(&out), "not in inet brute peers4 (timed out)"), "%s", sb_str(&out));
	}
	{
		char *const bad[][6] = {
			{ "BRUTE_EVENT=ban", "BRUTE_PEER=uid:1000", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=9", NULL },
			{ "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/32;flush ruleset", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=9", NULL },
			{ "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/33", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=9", NULL },
			{ "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=0", "BRUTE_TIMEOUT_S=9", NULL },
			{ "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=0", NULL },
			{ "BRUTE_EVENT=drop", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=9", NULL },
			{ "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.2/32", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=9",
			  "BRUTE_NFT_TABLE=x y", NULL },
			{ "BRUTE_EVENT=ban", "BRUTE_LPORT=7777", "BRUTE_TIMEOUT_S=9", NULL },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ck_assert_msg(run_env(peer_nft(), bad[i], &out) == 2, "%zu: %s", i, sb_str(&out));
		l = nft_list("set inet brute peers4");
		ck_assert_msg(strstr(l, "set peers4") && !strstr(l, "10.0.0.2"), "%s", l);
	}
	{
		char *const fails[] = { "BRUTE_EVENT=ban", "BRUTE_PEER=10.0.0.9/32", "BRUTE_LPORT=7777",
					"BRUTE_TIMEOUT_S=9", "BRUTE_NFT=/bin/false", NULL };

		ck_assert_int_eq(run_env(peer_nft(), fails, &out), 1);
	}
	sb_free(&out);
}
END_TEST

Suite *actions_suite(void)
{
	Suite *s = suite_create("actions");
	TCase *tc = tcase_create("actions");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_backstop_kill);
	tcase_add_test(tc, test_backstop_restart);
	tcase_add_test(tc, test_backstop_reload);
	tcase_add_test(tc, test_backstop_held);
	tcase_add_test(tc, test_backstop_rate_limit);
	tcase_add_test(tc, test_backstop_no_systemd);
	tcase_add_test(tc, test_peer_action);
	tcase_add_test(tc, test_peer_action_lifted_before);
	tcase_add_test(tc, test_daemon_acts);
	tcase_add_test(tc, test_daemon_remote_node);
	tcase_add_test(tc, test_peer_nft);
	suite_add_tcase(s, tc);
	return s;
}
