/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RELP against a real rsyslogd (imrelp), started here with a private
 * configuration: its ruleset writes each message to a file before imrelp
 * acknowledges it (Direct queue), so what the file holds is what was
 * acknowledged.  Delivery in order; then the receiver is killed (SIGKILL)
 * mid-stream and restarted: zero messages lost, duplicates counted and
 * bounded by the window.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"
#include "forward.h"
#include "siem.h"
#include "spool.h"

#define RSYSLOGD "/usr/sbin/rsyslogd"
#define IMRELP "/usr/lib/x86_64-linux-gnu/rsyslog/imrelp.so"

struct rsyslog {
	char dir[256];
	uint16_t port;
	pid_t pid;
};

static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	getsockname(fd, (struct sockaddr *)&sa, &len);
	close(fd);
	return ntohs(sa.sin_port);
}

static bool port_open(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static void rsyslog_start(struct rsyslog *rs)
{
	char path[512], conf[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/rsyslog.conf", rs->dir);
	snprintf(conf, sizeof(conf),
		 "global(workDirectory=\"%s\")\n"
		 "module(load=\"imrelp\")\n"
		 "input(type=\"imrelp\" port=\"%u\" address=\"127.0.0.1\" ruleset=\"relp\")\n"
		 "template(name=\"raw\" type=\"string\" string=\"%%rawmsg%%\\n\")\n"
		 "ruleset(name=\"relp\" queue.type=\"Direct\") {\n"
		 "  action(type=\"omfile\" file=\"%s/received.log\" template=\"raw\")\n"
		 "}\n", rs->dir, rs->port, rs->dir);
	f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(conf, f);
	fclose(f);
	rs->pid = fork();
	ck_assert_int_ge(rs->pid, 0);
	if (rs->pid == 0) {
		char pid[512];

		snprintf(pid, sizeof(pid), "%s/rsyslogd.pid", rs->dir);
		snprintf(path, sizeof(path), "%s/rsyslogd.stderr", rs->dir);
		if (!freopen(path, "a", stderr))
			_exit(126);
		snprintf(path, sizeof(path), "%s/rsyslog.conf", rs->dir);
		execl(RSYSLOGD, RSYSLOGD, "-n", "-f", path, "-i", pid, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && !port_open(rs->port); i++)
		usleep(10000);
	ck_assert_msg(port_open(rs->port), "rsyslogd did not open its imrelp port");
}

static void rsyslog_kill(struct rsyslog *rs, int sig)
{
	int st;

	kill(rs->pid, sig);
	waitpid(rs->pid, &st, 0);
	rs->pid = 0;
}

/* SEQ values of the lines received so far. */
static int received(struct rsyslog *rs, int *seqs, int max)
{
	char path[512], line[16384];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/received.log", rs->dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " seq=\"");

		if (p && strchr(line, '\n'))
			seqs[n++] = atoi(p + 6);
	}
	fclose(f);
	return n;
}

static void submit(struct forward *f, int from, int to)
{
	for (int i = from; i < to; i++) {
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "attack %d over RELP", i);
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
}

/* Loop until the spool is empty (or ms); stop early once the receiver holds stop_at lines. */
static void pump(struct forward *f, struct rsyslog *rs, int stop_at, int ms, int *seqs, int max)
{
	uint64_t end = now_monotonic_ms() + (uint64_t)ms;

	while (now_monotonic_ms() < end) {
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		if (stop_at && received(rs, seqs, max) >= stop_at)
			return;
		if (!stop_at && forward_idle(f))
			return;
		poll(have ? &p : NULL, have ? 1 : 0, 10);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
	}
}

static bool have_rsyslog(void)
{
	if (access(RSYSLOGD, X_OK) == 0 && access(IMRELP, R_OK) == 0 && geteuid() == 0)
		return true;
	test_skip("relp: needs root, rsyslogd and rsyslog-relp (imrelp)");
	return false;
}

static struct forward_config relp_cfg(uint16_t port, unsigned window)
{
	struct forward_config c;

	memset(&c, 0, sizeof(c));
	c.protocol = SIEM_RELP;
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	snprintf(c.port, sizeof(c.port), "%u", port);
	c.retry_min_ms = 20;
	c.retry_max_ms = 200;
	c.timeout_ms = 5000;
	c.relp_window = window;
	snprintf(c.hostname, sizeof(c.hostname), "testhost");
	c.facility = LOG_AUTHPRIV;
	return c;
}

START_TEST(test_relp_delivery)
{
	struct rsyslog rs = { 0 };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	static int seqs[4096];
	int n;

	if (!have_rsyslog())
		return;
	snprintf(rs.dir, sizeof(rs.dir), "%s", make_tmpdir());
	rs.port = free_port();
	rsyslog_start(&rs);
	cfg = relp_cfg(rs.port, 16);
	ck_assert_int_eq(spool_open(rs.dir, 4 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	ck_assert(f != NULL);
	submit(f, 0, 3);
	pump(f, &rs, 0, 10000, seqs, 4096);
	/* a few alerts: the session is closed when idle, its answer confirms them */
	ck_assert_msg(forward_idle(f), "not acknowledged: %llu left",
		      (unsigned long long)spool_get_stats(sp)->records);
	submit(f, 3, 300);
	pump(f, &rs, 0, 20000, seqs, 4096);
	ck_assert(forward_idle(f));
	n = received(&rs, seqs, 4096);
	ck_assert_int_eq(n, 300);
	for (int i = 0; i < n; i++)
		ck_assert_msg(seqs[i] == i, "line %d has seq %d", i, seqs[i]);
	forward_free(f);
	spool_close(sp);
	rsyslog_kill(&rs, SIGTERM);
	rm_rf(rs.dir);
}
END_TEST

/* The receiver killed mid-stream: nothing lost, duplicates within the window. */
START_TEST(test_relp_receiver_killed)
{
	enum { TOTAL = 3000, WINDOW = 32 };
	struct rsyslog rs = { 0 };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	static int seqs[2 * TOTAL], count[TOTAL];
	int n, before, dups = 0;

	if (!have_rsyslog())
		return;
	snprintf(rs.dir, sizeof(rs.dir), "%s", make_tmpdir());
	rs.port = free_port();
	rsyslog_start(&rs);
	cfg = relp_cfg(rs.port, WINDOW);
	ck_assert_int_eq(spool_open(rs.dir, 16 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	submit(f, 0, TOTAL);
	pump(f, &rs, TOTAL / 3, 20000, seqs, 2 * TOTAL);
	rsyslog_kill(&rs, SIGKILL);
	before = received(&rs, seqs, 2 * TOTAL);
	ck_assert_int_lt(before, TOTAL);	/* killed mid-stream indeed */
	pump(f, &rs, 0, 300, seqs, 2 * TOTAL);	/* the session breaks */
	rsyslog_start(&rs);
	pump(f, &rs, 0, 60000, seqs, 2 * TOTAL);
	ck_assert(forward_idle(f));
	n = received(&rs, seqs, 2 * TOTAL);
	for (int i = 0; i < n; i++) {
		ck_assert(seqs[i] >= 0 && seqs[i] < TOTAL);
		if (count[seqs[i]]++)
			dups++;
	}
	for (int i = 0; i < TOTAL; i++)
		ck_assert_msg(count[i] >= 1, "message %d lost", i);
	printf("relp: receiver killed (SIGKILL) after %d of %d messages; after its restart: %d lines, "
	       "0 lost, %d duplicate(s) (bound: the window, %d)\n", before, TOTAL, n, dups, WINDOW);
	ck_assert_int_le(dups, WINDOW);
	forward_free(f);
	spool_close(sp);
	rsyslog_kill(&rs, SIGTERM);
	rm_rf(rs.dir);
}
END_TEST

Suite *relp_suite(void)
{
	Suite *s = suite_create("relp");
	TCase *tc = tcase_create("rsyslogd-imrelp");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_relp_delivery);
	tcase_add_test(tc, test_relp_receiver_killed);
	suite_add_tcase(s, tc);
	return s;
}
