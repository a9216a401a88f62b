/* SPDX-License-Identifier: GPL-2.0-or-later */
/* health.c and status.c: the conditions that make the daemon useless, and what it publishes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests.h"
#include "health.h"
#include "status.h"

/* A fake root: sys/kernel/security/lsm, proc/sys/kernel/brute/mode (NULL: absent). */
static const char *fake_root(const char *lsm, const char *mode)
{
	const char *d = make_tmpdir();
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel/security %s/proc/sys/kernel", d, d);
	ck_assert_int_eq(system(path), 0);
	if (lsm) {
		snprintf(path, sizeof(path), "%s/sys/kernel/security/lsm", d);
		ck_assert((f = fopen(path, "w")) != NULL);
		fputs(lsm, f);
		fclose(f);
	}
	if (mode) {
		snprintf(path, sizeof(path), "%s/proc/sys/kernel/brute", d);
		ck_assert_int_eq(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/proc/sys/kernel/brute/mode", d);
		ck_assert((f = fopen(path, "w")) != NULL);
		fprintf(f, "%s\n", mode);
		fclose(f);
	}
	return d;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(test_probe)
{
	struct health h;
	const char *d;

	d = fake_root("lockdown,capability,landlock,yama,apparmor,brute", "2");
	health_probe(d, AUDIT_ENABLED, 0, 8 << 20, 8 << 20, &h);
	ck_assert_int_eq(h.brute, BRUTE_ACTIVE);
	ck_assert_int_eq(h.mode, 2);
	ck_assert_uint_eq(health_problems(&h), 0);
	rm_rf(d);

	/* "brute" only as a whole name of the list */
	d = fake_root("capability,notbrute,brutex", NULL);
	health_probe(d, AUDIT_ENABLED, 0, 0, 0, &h);
	ck_assert_int_eq(h.brute, BRUTE_ABSENT);
	ck_assert_int_eq(h.mode, -1);
	ck_assert_uint_eq(health_problems(&h), 1);
	rm_rf(d);

	/* no securityfs and no sysctl: no Brute */
	d = fake_root(NULL, NULL);
	health_probe(d, AUDIT_UNKNOWN, EPERM, 0, 0, &h);
	ck_assert_int_eq(h.brute, BRUTE_ABSENT);
	rm_rf(d);

	/* mode 0, audit disabled, a buffer capped at 208 KiB of 8 MiB: three problems */
	d = fake_root("capability,brute", "0");
	health_probe(d, AUDIT_DISABLED, 0, 212992, 8 << 20, &h);
	ck_assert_int_eq(h.mode, 0);
	ck_assert(health_rcvbuf_capped(&h));
	ck_assert_uint_eq(health_problems(&h), 3);
	rm_rf(d);

	/* half of what was asked for is not "far below" */
	h.rcvbuf = 4 << 20;
	ck_assert(!health_rcvbuf_capped(&h));
}
END_TEST

/* One clear line per condition at start, and when it changes; nothing while it stays. */
START_TEST(test_log_changes)
{
	struct health a, b;
	const char *d = fake_root("capability,brute", "0");
	char *log;

	health_probe(d, AUDIT_DISABLED, 0, 212992, 8 << 20, &a);
	log_set_max_level(LOG_INFO);
	stderr_capture_begin();
	health_log_changes(NULL, &a);
	log = stderr_capture_end();
	ck_assert_int_eq(lines(log), 3);
	ck_assert(strstr(log, "audit is disabled") != NULL);
	ck_assert(strstr(log, "mode 0") != NULL);
	ck_assert(strstr(log, "net.core.rmem_max") != NULL);
	free(log);

	stderr_capture_begin();
	health_log_changes(&a, &a);
	log = stderr_capture_end();
	ck_assert_str_eq(log, "");
	free(log);

	/* mode 2 and audit on again: a line each */
	b = a;
	b.mode = 2;
	b.audit = AUDIT_ENABLED;
	stderr_capture_begin();
	health_log_changes(&a, &b);
	log = stderr_capture_end();
	ck_assert_int_eq(lines(log), 2);
	ck_assert(strstr(log, "mode 2 again") != NULL);
	ck_assert(strstr(log, "audit is enabled again") != NULL);
	free(log);

	/* Brute gone (another kernel): said once */
	b.brute = BRUTE_ABSENT;
	b.rcvbuf = b.rcvbuf_want;
	stderr_capture_begin();
	health_log_changes(NULL, &b);
	log = stderr_capture_end();
	ck_assert_int_eq(lines(log), 1);
	ck_assert(strstr(log, "Brute is not active") != NULL);
	free(log);

	/* all well at start: one summary line; audit unknown (no CAP_AUDIT_CONTROL) is said */
	health_probe(d, AUDIT_UNKNOWN, EPERM, 8 << 20, 8 << 20, &b);
	b.mode = 2;
	stderr_capture_begin();
	health_log_changes(NULL, &b);
	log = stderr_capture_end();
	ck_assert(strstr(log, "CAP_AUDIT_CONTROL") != NULL);
	ck_assert(strstr(log, "brute active, audit unknown, mode 2") != NULL);
	free(log);
	log_set_max_level(LOG_WARNING);
	rm_rf(d);
}
END_TEST

START_TEST(test_status_file)
{
	const char *d = make_tmpdir();
	struct status_counters c = { .records = 12, .incidents = 3, .open = 1, .attacks = 2,
				     .entries = 9, .queued = 7, .dropped = 1, .spooled = 4, .lost = 5,
				     .cut = 6, .remote_ignored = 8 };
	struct health h = { .brute = BRUTE_ACTIVE, .audit = AUDIT_ENABLED, .mode = 2,
			    .rcvbuf = 8 << 20, .rcvbuf_want = 8 << 20 };
	char dir[512], path[600], text[512], *s;
	struct stat st;

	status_text(&h, &c, text, sizeof(text));
	ck_assert_str_eq(text, "brute active, audit enabled, mode 2; records 12, incidents 3 (1 open), attacks 2, alerts queued 7, dropped 1, spooled 4, lost 5");
	/* the directory is created; the file replaced whole */
	snprintf(dir, sizeof(dir), "%s/run", d);
	ck_assert_int_eq(status_write(dir, &h, &c, NULL, 42, 1700000000000000ull), 0);
	c.records = 13;
	h.mode = 0;
	ck_assert_int_eq(status_write(dir, &h, &c, &(struct status_reload){ 3, true, "spool_dir /x:\nno" },
				      42, 1700000000000000ull), 0);
	snprintf(path, sizeof(path), "%s/status", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	s = read_file(path, NULL);
	ck_assert(strstr(s, "\npid=42\n") != NULL);
	ck_assert(strstr(s, "\nrecords=13\n") != NULL);
	ck_assert(strstr(s, "\nmode=0\n") != NULL);
	ck_assert(strstr(s, "\nproblems=1\n") != NULL);
	ck_assert(strstr(s, "\nalerts_queued=7\nalerts_dropped=1\nspooled=4\nlost=5\n") != NULL);
	/* records maybe cut by auditd, entries of other hosts' records not acted upon */
	ck_assert_msg(strstr(s, "\nlines_garbage=0\nrecords_cut=6\njournal_failures=0\n") != NULL, "%s", s);
	ck_assert_msg(strstr(s, "\npeer_action_failures=0\nremote_ignored=8\nbackstop_restart=no\n") != NULL, "%s", s);
	/* the last reload's verdict, on one line whatever the error says */
	ck_assert(strstr(s, "\nreloads=3\nreload_result=failed\nreload_error=spool_dir /x: no\n") != NULL);
	free(s);
	{
		char v[64];

		ck_assert_int_eq(status_read_key(dir, "reloads", v, sizeof(v)), 0);
		ck_assert_str_eq(v, "3");
		ck_assert_int_eq(status_read_key(dir, "reload", v, sizeof(v)), -ENODATA);
		ck_assert_int_eq(status_read_key("/nonexistent", "pid", v, sizeof(v)), -ENOENT);
	}
	/* with SIEM delivery: its state, in STATUS= with absolute times */
	snprintf(c.siem, sizeof(c.siem), "tcp");
	snprintf(c.siem_target, sizeof(c.siem_target), "siem.example.org:514");
	c.failures = 3;
	c.last_error_usec = 1700000001000000ull;
	snprintf(c.last_error, sizeof(c.last_error), "connect: Connection refused");
	c.last_delivery_usec = 1700000000000000ull;
	c.oldest_usec = 1700000002500000ull;
	c.parked = 1;
	c.unconfirmed = 5;	/* issue 42: read by a receiver that left its end open */
	status_text(&h, &c, text, sizeof(text));
	ck_assert_msg(strstr(text, "; SIEM tcp siem.example.org:514 NOT connected (connect: Connection refused), last delivery 2023-11-14T22:13:20Z, 3 failures, 5 unconfirmed, oldest spooled alert 2023-11-14T22:13:22Z, parked 1") != NULL, "%s", text);
	c.connected = true;
	status_text(&h, &c, text, sizeof(text));
	ck_assert_msg(strstr(text, "; SIEM tcp siem.example.org:514 connected, last delivery") != NULL, "%s", text);
	ck_assert_int_eq(status_write(dir, &h, &c, NULL, 42, 1700000000000000ull), 0);
	snprintf(path, sizeof(path), "%s/status", dir);
	s = read_file(path, NULL);
	ck_assert_msg(strstr(s, "\nalerts_parked=1\nsiem=tcp\nsiem_target=siem.example.org:514\nsiem_connected=1\n"
			     "siem_failures=3\nsiem_resent=0\nsiem_unconfirmed=5\nsiem_last_delivery_usec=1700000000000000\n"
			     "siem_last_error_usec=1700000001000000\nsiem_last_error=connect: Connection refused\n"
			     "spool_oldest_usec=1700000002500000\n") != NULL, "%s", s);
	free(s);
	snprintf(path, sizeof(path), "%s/.status.tmp", dir);
	ck_assert_int_eq(access(path, F_OK), -1);	/* no temporary left */
	/* issue 31 #4: a daemon removes its own state file, never another's (pid=) */
	status_remove(dir);
	snprintf(path, sizeof(path), "%s/status", dir);
	ck_assert_int_eq(access(path, F_OK), 0);	/* pid=42: not this process */
	ck_assert_int_eq(status_write(dir, &h, &c, NULL, (uint64_t)getpid(), 1700000000000000ull), 0);
	status_remove(dir);
	ck_assert_int_eq(access(path, F_OK), -1);

	setenv("RUNTIME_DIRECTORY", "/run/x:/run/y", 1);
	ck_assert_str_eq(status_dir(), "/run/x");
	unsetenv("RUNTIME_DIRECTORY");
	ck_assert_str_eq(status_dir(), "/run/brute-reportd");
	/* the auditd plugin's is its own */
	status_set_plugin_mode(true);
	ck_assert_str_eq(status_dir(), "/run/brute-reportd-plugin");
	status_set_plugin_mode(false);
	rm_rf(d);
}
END_TEST

/*
 * issue 22 #8: the AUDIT_GET reply was read with a blocking audit_get_reply() and no
 * timeout, every 30 s in the event loop: a reply that never comes hung the daemon (and
 * its watchdog killed it).  A socket that never answers, and one that answers garbage:
 * both end with "unknown" and the reason, within the bound.
 */
START_TEST(test_audit_reply_bounded)
{
	int sv[2], err = 0;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(health_audit_reply(sv[0], 300, &err), AUDIT_UNKNOWN);
	ck_assert_int_eq(err, ETIMEDOUT);
	/* not from the kernel's netlink address: libaudit refuses it, no wait */
	ck_assert(write(sv[1], "garbage", 7) == 7);
	err = 0;
	ck_assert_int_eq(health_audit_reply(sv[0], 60000, &err), AUDIT_UNKNOWN);
	ck_assert_int_ne(err, 0);
	ck_assert_int_ne(err, ETIMEDOUT);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

Suite *health_suite(void)
{
	Suite *s = suite_create("health");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_probe);
	tcase_add_test(tc, test_log_changes);
	tcase_add_test(tc, test_status_file);
	tcase_add_test(tc, test_audit_reply_bounded);
	suite_add_tcase(s, tc);
	return s;
}
