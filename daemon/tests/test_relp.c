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
#include <pthread.h>
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
	const char *tls;	/* NULL, or imrelp's TLS parameters (its input() line) */
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
		 "module(load=\"imrelp\"%s)\n"
		 "input(type=\"imrelp\" port=\"%u\" address=\"127.0.0.1\" ruleset=\"relp\" %s)\n"
		 "template(name=\"raw\" type=\"string\" string=\"%%rawmsg%%\\n\")\n"
		 "ruleset(name=\"relp\" queue.type=\"Direct\") {\n"
		 "  action(type=\"omfile\" file=\"%s/received.log\" template=\"raw\")\n"
		 "}\n", rs->dir, rs->tls ? " tls.tlslib=\"gnutls\"" : "", rs->port,
		 rs->tls ? rs->tls : "", rs->dir);
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

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
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

/* The lines the receiver wrote (its log too, for diagnostics). */
static char *rsyslog_log(struct rsyslog *rs)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/rsyslogd.stderr", rs->dir);
	return access(path, R_OK) == 0 ? read_file(path, NULL) : strdup("");
}

/*
 * RELP over TLS against rsyslogd's imrelp with TLS (issue 22 #4): a receiver that
 * speaks only TLS 1.0 gets nothing (siem_tls_priority's default floor, passed to librelp,
 * is TLS 1.2); one that speaks only TLS 1.3 and requires a valid client certificate
 * (tls.authmode="certvalid") gets the entry, acknowledged.
 */
START_TEST(test_relp_tls_floor_and_client_cert)
{
	struct rsyslog rs = { 0 };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	char tls[1024], *log;
	int seqs[8];

	if (!have_rsyslog())
		return;
	if (!make_pki()) {
		test_skip("relp: certtool (gnutls-bin) is not installed");
		return;
	}
	snprintf(rs.dir, sizeof(rs.dir), "%s", make_tmpdir());
	rs.port = free_port();
	snprintf(tls, sizeof(tls), "tls=\"on\" tls.cacert=\"%s\" tls.mycert=\"%s\" tls.myprivkey=\"%s\" "
		 "tls.authmode=\"certvalid\" tls.prioritystring=\"NORMAL:-VERS-ALL:+VERS-TLS1.0\"",
		 pki_file("ca.pem"), pki_file("srv.pem"), pki_file("srv.key"));
	rs.tls = tls;
	rsyslog_start(&rs);
	cfg = relp_cfg(rs.port, 16);
	snprintf(cfg.tls_ca, sizeof(cfg.tls_ca), "%s", pki_file("ca.pem"));
	snprintf(cfg.tls_cert, sizeof(cfg.tls_cert), "%s", pki_file("clt.pem"));
	snprintf(cfg.tls_key, sizeof(cfg.tls_key), "%s", pki_file("clt.key"));
	snprintf(cfg.tls_name, sizeof(cfg.tls_name), "localhost");
	cfg.timeout_ms = 2000;
	ck_assert_int_eq(spool_open(rs.dir, 1 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	submit(f, 0, 1);
	stderr_capture_begin();
	pump(f, &rs, 0, 3000, seqs, 8);
	log = stderr_capture_end();
	ck_assert_msg(!forward_idle(f), "delivered over TLS 1.0");
	ck_assert_int_eq(received(&rs, seqs, 8), 0);
	ck_assert_uint_ge(forward_get_stats(f)->failures, 1);
	ck_assert_msg(strstr(log, "(relp)") != NULL, "%s", log);
	free(log);
	forward_free(f);
	rsyslog_kill(&rs, SIGTERM);

	/* TLS 1.3 only, a client certificate required: delivered, acknowledged */
	snprintf(tls, sizeof(tls), "tls=\"on\" tls.cacert=\"%s\" tls.mycert=\"%s\" tls.myprivkey=\"%s\" "
		 "tls.authmode=\"certvalid\" tls.prioritystring=\"NORMAL:-VERS-ALL:+VERS-TLS1.3\"",
		 pki_file("ca.pem"), pki_file("srv.pem"), pki_file("srv.key"));
	rsyslog_start(&rs);
	f = forward_new(&cfg, sp);
	pump(f, &rs, 0, 15000, seqs, 8);
	log = rsyslog_log(&rs);
	ck_assert_msg(forward_idle(f), "not acknowledged; rsyslogd: %s", log);
	free(log);
	ck_assert_int_eq(received(&rs, seqs, 8), 1);
	ck_assert_int_eq(seqs[0], 0);
	forward_free(f);
	spool_close(sp);
	rsyslog_kill(&rs, SIGTERM);
	rm_rf(rs.dir);
}
END_TEST

/*
 * A RELP peer that refuses some messages: rsyslog's imrelp answers every
 * "syslog" command "200 OK" (librelp's server does), so no real receiver
 * here can refuse one; this one speaks the protocol (frames "TXNR CMD
 * LEN[ DATA]\n": open, syslog, close) and answers "500" to each message
 * containing its refuse string (every message when refuse is "").
 */
struct relp_peer {
	pthread_t thread;
	pthread_mutex_t lock;
	int lfd;
	uint16_t port;
	volatile int stop;
	const char *refuse;
	struct strbuf got;	/* accepted messages, one per line */
	int sessions, refused;
};

static void peer_send(int fd, const char *txnr, const char *data)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s rsp %zu %s\n", txnr, strlen(data), data);

	/* the client may be gone already: never SIGPIPE */
	if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n) {
		/* its next session is what counts */
	}
}

/* One frame at the start of buf[0..len): its length, 0 if incomplete. */
static size_t peer_frame(struct relp_peer *p, int fd, const char *buf, size_t len, bool *closed)
{
	char txnr[16], cmd[16];
	const char *sp1, *sp2, *data;
	char *end;
	unsigned long dlen;

	sp1 = memchr(buf, ' ', len);
	if (!sp1)
		return 0;
	sp2 = memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - buf));
	if (!sp2)
		return 0;
	dlen = strtoul(sp2 + 1, &end, 10);
	if (end == buf + len)
		return 0;
	data = *end == ' ' ? end + 1 : end;
	if ((size_t)(data - buf) + dlen + 1 > len)
		return 0;
	snprintf(txnr, sizeof(txnr), "%.*s", (int)(sp1 - buf), buf);
	snprintf(cmd, sizeof(cmd), "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
	if (!strcmp(cmd, "open")) {
		peer_send(fd, txnr, "200 OK\nrelp_version=0\nrelp_software=brute-test\ncommands=syslog");
	} else if (!strcmp(cmd, "syslog")) {
		pthread_mutex_lock(&p->lock);
		if (memmem(data, dlen, p->refuse, strlen(p->refuse))) {
			p->refused++;
			peer_send(fd, txnr, "500 refused by the test");
		} else {
			sb_put(&p->got, data, dlen);
			sb_putc(&p->got, '\n');
			peer_send(fd, txnr, "200 OK");
		}
		pthread_mutex_unlock(&p->lock);
	} else if (!strcmp(cmd, "close")) {
		peer_send(fd, txnr, "200 OK");
		if (send(fd, "0 serverclose 0\n", 16, MSG_NOSIGNAL) != 16) {
			/* gone already */
		}
		*closed = true;
	}
	return (size_t)(data - buf) + dlen + 1;
}

static void *peer_main(void *arg)
{
	struct relp_peer *p = arg;

	while (!p->stop) {
		struct pollfd pl = { p->lfd, POLLIN, 0 };
		char buf[65536];
		size_t have = 0;
		bool closed = false;
		int fd;

		if (poll(&pl, 1, 20) <= 0 || (fd = accept(p->lfd, NULL, NULL)) < 0)
			continue;
		pthread_mutex_lock(&p->lock);
		p->sessions++;
		pthread_mutex_unlock(&p->lock);
		while (!p->stop && !closed) {
			struct pollfd pc = { fd, POLLIN, 0 };
			ssize_t n;
			size_t used;

			if (poll(&pc, 1, 20) <= 0)
				continue;
			n = read(fd, buf + have, sizeof(buf) - have);
			if (n <= 0)
				break;
			have += (size_t)n;
			while (!closed && (used = peer_frame(p, fd, buf, have, &closed)) > 0) {
				memmove(buf, buf + used, have - used);
				have -= used;
			}
		}
		close(fd);
	}
	close(p->lfd);
	return NULL;
}

static void peer_start(struct relp_peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);

	pthread_mutex_init(&p->lock, NULL);
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(p->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(p->lfd, 8), 0);
	getsockname(p->lfd, (struct sockaddr *)&sa, &len);
	p->port = ntohs(sa.sin_port);
	ck_assert_int_eq(pthread_create(&p->thread, NULL, peer_main, p), 0);
}

static void peer_stop(struct relp_peer *p)
{
	p->stop = 1;
	pthread_join(p->thread, NULL);
	sb_free(&p->got);
	pthread_mutex_destroy(&p->lock);
}

/* SEQ values of the accepted messages, in order; *first_dup: index of a repeat (or -1). */
static int peer_seqs(struct relp_peer *p, int *seqs, int max)
{
	int n = 0;

	pthread_mutex_lock(&p->lock);
	for (const char *l = sb_str(&p->got); *l && n < max;) {
		const char *q = strstr(l, " seq=\"");
		const char *nl = strchr(l, '\n');

		if (q && q < nl)
			seqs[n++] = atoi(q + 6);
		l = nl + 1;
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

static void submit_marked(struct forward *f, int from, int to, int refused)
{
	for (int i = from; i < to; i++) {
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "attack %d over RELP%s", i, i == refused ? " REFUSE-ME" : "");
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
}

/*
 * issue 22 #9: a message the receiver refuses made the whole window
 * resend forever (and nothing after it was ever delivered).  Now it is
 * found (one message per session), parked (kept in spool_dir/parked,
 * counted) and delivery goes on: every other message arrives, in order
 * of first arrival (some twice: RELP is at least once), the spool drains.
 */
START_TEST(test_relp_refused_message_parked)
{
	struct relp_peer p = { .refuse = "REFUSE-ME" };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	static int seqs[256];
	int n, seen[20] = { 0 }, order[20], k = 0;
	char dir[256], path[512], *parked, *log;

	snprintf(dir, sizeof(dir), "%s", make_tmpdir());
	peer_start(&p);
	cfg = relp_cfg(p.port, 16);
	ck_assert_int_eq(spool_open(dir, 4 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	submit_marked(f, 0, 20, 7);
	stderr_capture_begin();
	pump(f, NULL, 0, 20000, seqs, 256);
	log = stderr_capture_end();
	ck_assert_msg(forward_idle(f), "spool not drained: %llu left; log: %s",
		      (unsigned long long)spool_get_stats(sp)->records, log);
	ck_assert_uint_eq(forward_get_stats(f)->parked, 1);
	ck_assert_uint_eq(forward_get_stats(f)->park_failed, 0);
	ck_assert_msg(strstr(log, "refused the message at") != NULL, "%s", log);
	free(log);
	n = peer_seqs(&p, seqs, 256);
	for (int i = 0; i < n; i++) {
		ck_assert_int_ne(seqs[i], 7);
		if (!seen[seqs[i]]++)
			order[k++] = seqs[i];
	}
	ck_assert_int_eq(k, 19);
	for (int i = 0; i < k; i++)
		ck_assert_int_eq(order[i], i < 7 ? i : i + 1);
	ck_assert_int_le(p.sessions, 40);	/* not one per retry forever */
	/* the refused message, kept as it was sent */
	snprintf(path, sizeof(path), "%s/parked", dir);
	parked = read_file(path, NULL);
	ck_assert_int_eq(count_char(parked, '\n'), 1);
	ck_assert_msg(strstr(parked, "attack 7 over RELP REFUSE-ME") && strstr(parked, " seq=\"7\""),
		      "%s", parked);
	free(parked);
	forward_free(f);
	spool_close(sp);
	peer_stop(&p);
	rm_rf(dir);
}
END_TEST

/* A receiver that refuses everything: nothing is parked, everything stays spooled. */
START_TEST(test_relp_receiver_refuses_all)
{
	struct relp_peer p = { .refuse = "" };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	int seqs[8];
	char dir[256], path[512], *log;

	snprintf(dir, sizeof(dir), "%s", make_tmpdir());
	peer_start(&p);
	cfg = relp_cfg(p.port, 16);
	ck_assert_int_eq(spool_open(dir, 4 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	submit_marked(f, 0, 12, -1);
	stderr_capture_begin();
	pump(f, NULL, 0, 3000, seqs, 8);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "refuses every message") != NULL, "%s", log);
	free(log);
	ck_assert_uint_eq(forward_get_stats(f)->parked, 0);
	ck_assert_uint_eq(spool_get_stats(sp)->records, 12);
	ck_assert_int_eq(peer_seqs(&p, seqs, 8), 0);
	snprintf(path, sizeof(path), "%s/parked", dir);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_ge(p.refused, 9);	/* the window, then 8 alone */
	forward_free(f);
	spool_close(sp);
	peer_stop(&p);
	rm_rf(dir);
}
END_TEST

Suite *relp_suite(void)
{
	Suite *s = suite_create("relp");
	TCase *tc = tcase_create("rsyslogd-imrelp");

	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, NULL, pki_cleanup);
	tcase_add_test(tc, test_relp_delivery);
	tcase_add_test(tc, test_relp_receiver_killed);
	tcase_add_test(tc, test_relp_tls_floor_and_client_cert);
	tcase_add_test(tc, test_relp_refused_message_parked);
	tcase_add_test(tc, test_relp_receiver_refuses_all);
	suite_add_tcase(s, tc);
	return s;
}
