/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * issue 31 #1: what a TCP receiver that takes nothing does to the spool.
 * Real sockets on 127.0.0.1, driven from the test's own loop (one thread):
 * a receiver that accepts and never reads, one that never accepts, then
 * one that reads everything and closes its end when ours ends.
 * issue 42: after such a stall, receivers that read and close their end
 * late or never (also behind a TCP proxy that keeps the half-close from
 * them, socat), and rsyslog: each gets every entry, duplicates counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"
#include "forward.h"
#include "siem.h"
#include "spool.h"

#define ENTRIES 3000
#define MAX_CONNS 64

/* SINK_READ closes its end when ours ends; SINK_KEEP never does; SINK_LATE closes a
 * connection when the next one comes (as collectors that close idle connections late) */
enum sink_mode { SINK_NEVER_ACCEPT, SINK_NEVER_READ, SINK_READ, SINK_KEEP, SINK_LATE };

struct sink {
	enum sink_mode mode;
	int lfd;
	uint16_t port;
	int fds[MAX_CONNS];
	int conn[MAX_CONNS];	/* fds[i] is the conn[i]-th connection accepted */
	int nfds;
	int accepted;
	struct strbuf data;	/* SINK_READ: everything read */
	struct strbuf per[MAX_CONNS];	/* what each connection carried */
};

static void sink_listen(struct sink *k, enum sink_mode mode, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);

	k->mode = mode;
	k->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(k->lfd, 0);
	ck_assert_int_eq(setsockopt(k->lfd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)), 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	ck_assert_int_eq(bind(k->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(k->lfd, 16), 0);
	getsockname(k->lfd, (struct sockaddr *)&sa, &len);
	k->port = ntohs(sa.sin_port);
}

static void sink_drop(struct sink *k, int i)
{
	close(k->fds[i]);
	k->fds[i] = k->fds[--k->nfds];
	k->conn[i] = k->conn[k->nfds];
}

/* Read what the connections carry; SINK_READ closes one at its end of stream. */
static void sink_read(struct sink *k)
{
	char buf[65536];

	for (int i = 0; i < k->nfds; i++) {
		ssize_t n;

		while ((n = recv(k->fds[i], buf, sizeof(buf), 0)) > 0) {
			sb_put(&k->data, buf, (size_t)n);
			sb_put(&k->per[k->conn[i]], buf, (size_t)n);
		}
		if ((n == 0 && k->mode == SINK_READ) || (n < 0 && errno != EAGAIN))
			sink_drop(k, i--);	/* as syslog receivers do at the end of the stream */
	}
}

/* The receiver's turn: accept (unless it never does), read (unless it never does). */
static void sink_step(struct sink *k)
{
	int fd;

	if (k->mode >= SINK_READ)
		sink_read(k);
	if (k->mode == SINK_NEVER_ACCEPT)
		return;
	while (k->accepted < MAX_CONNS && (fd = accept4(k->lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
		while (k->mode == SINK_LATE && k->nfds)
			sink_drop(k, 0);	/* read to the end above: closed only now */
		k->fds[k->nfds] = fd;
		k->conn[k->nfds++] = k->accepted++;
	}
}

/* The receiver goes away: what it did not read is gone with it. */
static void sink_close(struct sink *k)
{
	for (int i = 0; i < k->nfds; i++)
		close(k->fds[i]);
	k->nfds = 0;
	close(k->lfd);
	for (int i = 0; i < MAX_CONNS; i++)
		sb_free(&k->per[i]);
	sb_free(&k->data);
}

static void run(struct forward *f, struct sink *k, int ms, bool until_idle)
{
	uint64_t end = now_monotonic_ms() + (uint64_t)ms;

	while (now_monotonic_ms() < end && !(until_idle && forward_idle(f))) {
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		poll(have ? &p : NULL, have ? 1 : 0, 5);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
		sink_step(k);
	}
}

/* The SEQ of each octet-counted frame, in order: how many, -1 on a framing error. */
static int frames(const struct strbuf *b, int *seqs, int max)
{
	size_t off = 0;
	int n = 0;

	while (off < b->len) {
		char *end;
		unsigned long flen = strtoul(b->buf + off, &end, 10);
		const char *p;

		if (end == b->buf + off || *end != ' ' || (size_t)(end + 1 - b->buf) + flen > b->len ||
		    n == max)
			return -1;
		p = memmem(end + 1, flen, " seq=\"", 6);
		if (!p)
			return -1;
		seqs[n++] = atoi(p + 6);
		off = (size_t)(end + 1 - b->buf) + flen;
	}
	return n;
}

/* A TCP forwarder to 127.0.0.1:port, over a new spool of spool_mib MiB in dir. */
static struct forward *tcp_forwarder(const char *dir, uint16_t port, uint64_t timeout_ms,
				     size_t spool_mib, struct spool **sp)
{
	struct forward_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.protocol = SIEM_TCP;
	snprintf(cfg.host, sizeof(cfg.host), "127.0.0.1");
	snprintf(cfg.port, sizeof(cfg.port), "%u", port);
	snprintf(cfg.hostname, sizeof(cfg.hostname), "testhost");
	cfg.facility = LOG_AUTHPRIV;
	cfg.retry_min_ms = 20;
	cfg.retry_max_ms = 100;
	cfg.timeout_ms = timeout_ms;
	ck_assert_int_eq(spool_open(dir, spool_mib << 20, false, sp), 0);
	return forward_new(&cfg, *sp);
}

static void stalled_receiver(enum sink_mode mode)
{
	const char *dir = make_tmpdir();
	struct sink k = { 0 }, good = { 0 };
	const struct forward_stats *st;
	struct spool *sp;
	struct forward *f;
	int *seqs = calloc(2 * ENTRIES, sizeof(int)), n;

	sink_listen(&k, mode, 0);
	f = tcp_forwarder(dir, k.port, 300, 64, &sp);
	ck_assert_ptr_nonnull(f);
	/* ~1 MB: more than a socket buffer, so the receiver's stack takes some and then no more */
	for (int i = 0; i < ENTRIES; i++) {
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "attack %d", i);
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		entry_add(&e, "PAD", "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp");
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
	run(f, &k, 2500, false);
	st = forward_get_stats(f);
	if (mode == SINK_NEVER_READ)
		ck_assert_int_ge(k.accepted, 2);	/* it was given up on, and tried again */
	/* the receiver's stack took messages (connections made progress at first) ... */
	ck_assert_uint_ge(st->stalls, 2);
	/* ... but nothing left the spool, nothing counts as delivered */
	ck_assert_uint_eq(spool_get_stats(sp)->records, ENTRIES);
	ck_assert_uint_eq(spool_get_stats(sp)->delivered, 0);
	ck_assert_uint_eq(st->acked, 0);
	ck_assert_uint_eq(st->last_delivery_usec, 0);
	ck_assert(!st->connected);
	ck_assert_uint_gt(st->resent, 0);	/* what its stack took is sent again, counted */

	/* the receiver is killed, unread data and all; one that reads takes over its port */
	sink_close(&k);
	sink_listen(&good, SINK_READ, k.port);
	run(f, &good, 20000, true);
	ck_assert(forward_idle(f));
	n = frames(&good.data, seqs, 2 * ENTRIES);
	ck_assert_int_eq(n, ENTRIES);	/* every message, once: the dead receiver's copies are gone */
	for (int i = 0; i < n; i++)
		ck_assert_msg(seqs[i] == i, "message %d has seq %d", i, seqs[i]);
	st = forward_get_stats(f);
	ck_assert(st->connected);
	ck_assert_uint_eq(st->acked, ENTRIES);
	ck_assert_uint_gt(st->last_delivery_usec, 0);
	ck_assert_uint_eq(spool_get_stats(sp)->records, 0);
	sink_close(&good);
	forward_free(f);
	spool_close(sp);
	sb_free(&good.data);
	free(seqs);
	rm_rf(dir);
}

START_TEST(test_receiver_never_reads)
{
	stalled_receiver(SINK_NEVER_READ);
}
END_TEST

START_TEST(test_receiver_never_accepts)
{
	stalled_receiver(SINK_NEVER_ACCEPT);
}
END_TEST

/*
 * A receiver that reads and closes its end when ours ends: each batch is
 * confirmed by that close, the spool empties, nothing is sent twice.
 */
START_TEST(test_batches_confirmed)
{
	const char *dir = make_tmpdir();
	struct sink k = { 0 };
	struct spool *sp;
	struct forward *f;
	int seqs[2600], n;

	sink_listen(&k, SINK_READ, 0);
	f = tcp_forwarder(dir, k.port, 5000, 64, &sp);
	for (int i = 0; i < 2500; i++) {	/* more than one batch (1024 messages) */
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "attack %d", i);
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
	run(f, &k, 20000, true);
	ck_assert(forward_idle(f));
	n = frames(&k.data, seqs, 2600);
	ck_assert_int_eq(n, 2500);
	for (int i = 0; i < n; i++)
		ck_assert_msg(seqs[i] == i, "message %d has seq %d", i, seqs[i]);
	ck_assert_int_ge(k.accepted, 3);
	ck_assert_uint_eq(forward_get_stats(f)->resent, 0);
	ck_assert_uint_eq(forward_get_stats(f)->failures, 0);
	ck_assert(forward_get_stats(f)->connected);
	sink_close(&k);
	forward_free(f);
	spool_close(sp);
	sb_free(&k.data);
	rm_rf(dir);
}
END_TEST

/* ---- issue 42: receivers that read and close their end late or never ---- */

#define SCENARIO 9000	/* entries queued while a receiver had stalled */

/* How many times each SEQ arrived, over the frames of buf (octet-counted). */
static void count_frames(const struct strbuf *b, int *hits, int max)
{
	int *seqs = calloc(SCENARIO * 2, sizeof(int));
	int n = frames(b, seqs, SCENARIO * 2);

	ck_assert_msg(n >= 0, "a connection's stream is not whole frames");
	for (int i = 0; i < n; i++)
		if (seqs[i] >= 0 && seqs[i] < max)
			hits[seqs[i]]++;
	free(seqs);
}

/* rsyslog's output: one "seq=N" per line received. */
static void count_lines(const char *path, int *hits, int max)
{
	char *text = read_file(path, NULL), *p = text;

	while (p && (p = strstr(p, "seq=\"")) != NULL) {
		int seq = atoi(p + 5);

		if (seq >= 0 && seq < max)
			hits[seq]++;
		p += 5;
	}
	free(text);
}

struct tally {
	int received, distinct;
};

static struct tally tally(const int *hits, int max)
{
	struct tally t = { 0, 0 };

	for (int i = 0; i < max; i++) {
		t.received += hits[i];
		t.distinct += hits[i] > 0;
	}
	return t;
}

/* A port nothing listens on now. */
static uint16_t free_port(void)
{
	struct sink k = { 0 };
	uint16_t port;

	sink_listen(&k, SINK_NEVER_ACCEPT, 0);
	port = k.port;
	sink_close(&k);
	return port;
}

static bool listening(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/* argv in a process group of its own (socat forks per connection), ended with the test;
 * 0 if it is not installed */
static pid_t start(char *const argv[], uint16_t port)
{
	pid_t pid;

	if (access(argv[0], X_OK) < 0)
		return 0;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	for (int i = 0; i < 200 && !listening(port); i++)
		usleep(20000);
	ck_assert_msg(listening(port), "%s listens on %u", argv[0], port);
	return pid;
}

static void stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* Entries of a real alert's size (600 to 900 bytes as JSON or RFC 5424). */
static void queue_alerts(struct forward *f, int n)
{
	for (int i = 0; i < n; i++) {
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "Fork brute force attack on /usr/sbin/sshd (unit ssh.service): %d crashes", i);
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		entry_add(&e, "EXE", "/usr/sbin/sshd");
		entry_add(&e, "UNIT", "ssh.service");
		entry_add(&e, "MESSAGE_ID", "0d5a3f4e7c2b4a1f9e8d7c6b5a493827");
		entry_add(&e, "PAD", "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp");
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
}

enum receiver_kind { R_CLOSES, R_NEVER_CLOSES, R_CLOSES_LATE, R_PROXY, R_RSYSLOG };

static const char *const kind_name[] = { "closes at the end of stream", "never closes",
	"closes late (at the next connection)", "behind socat, no half-close passed on", "rsyslog imtcp" };

/*
 * The scenario of issue 42: SCENARIO entries queued while a receiver
 * stalled (it accepts and never reads; the forwarder gives up on it), then
 * a receiver of the given kind takes over its port.  Every entry arrives;
 * duplicates are bounded (at most a batch, sent again once for the stall)
 * and counted; what arrived without the receiver's close is counted as
 * unconfirmed.
 */
static void scenario(enum receiver_kind kind)
{
	const char *dir = make_tmpdir();
	char socat_listen[64], socat_to[64], conf[4200], out[4200], pidf[4200];
	struct sink stalled = { 0 }, k = { 0 };
	uint16_t port = free_port(), back = kind == R_PROXY ? free_port() : port;
	/* -T: a connection idle that long ends (bounds what a failed test leaves behind) */
	char *socat[] = { "/usr/bin/socat", "-t", "3600", "-T", "60", socat_listen, socat_to, NULL };
	char *rsyslogd[] = { "/usr/sbin/rsyslogd", "-n", "-f", conf, "-i", pidf, NULL };
	const struct forward_stats *st;
	uint64_t resent0, end;
	struct tally t;
	struct spool *sp;
	struct forward *f;
	int *hits = calloc(SCENARIO, sizeof(int));
	pid_t proxy = 0, rsyslog = 0;

	snprintf(socat_listen, sizeof(socat_listen), "TCP4-LISTEN:%u,bind=127.0.0.1,reuseaddr,fork", port);
	snprintf(socat_to, sizeof(socat_to), "TCP4:127.0.0.1:%u,shut-none", back);
	if (kind == R_PROXY && access(socat[0], X_OK) < 0) {
		test_skip("delivery: socat is not installed (make deps)");
		goto out;
	}
	if (kind == R_RSYSLOG && access(rsyslogd[0], X_OK) < 0) {
		test_skip("delivery: rsyslogd is not installed (make deps)");
		goto out;
	}
	f = tcp_forwarder(dir, port, 500, 256, &sp);
	ck_assert_ptr_nonnull(f);
	queue_alerts(f, SCENARIO);

	/* the stall: its stack takes what fits, then nothing more */
	sink_listen(&stalled, SINK_NEVER_READ, port);
	run(f, &stalled, 2000, false);
	st = forward_get_stats(f);
	ck_assert_uint_ge(st->stalls, 1);
	ck_assert_uint_eq(st->acked, 0);
	ck_assert_uint_eq(spool_get_stats(sp)->records, SCENARIO);
	sink_close(&stalled);
	resent0 = st->resent;

	/* the receiver of this kind takes the port */
	if (kind == R_RSYSLOG) {
		snprintf(out, sizeof(out), "%s/received.log", dir);
		snprintf(pidf, sizeof(pidf), "%s/rsyslogd.pid", dir);
		snprintf(conf, sizeof(conf), "%s/rsyslog.conf", dir);
		FILE *c = fopen(conf, "w");

		ck_assert_ptr_nonnull(c);
		fprintf(c, "global(workDirectory=\"%s\")\nmodule(load=\"imtcp\")\n"
			"template(name=\"sd\" type=\"string\" string=\"%%structured-data%%\\n\")\n"
			"ruleset(name=\"in\") { action(type=\"omfile\" file=\"%s\" template=\"sd\") }\n"
			"input(type=\"imtcp\" address=\"127.0.0.1\" port=\"%u\" ruleset=\"in\")\n",
			dir, out, port);
		fclose(c);
		rsyslog = start(rsyslogd, port);
		sink_listen(&k, SINK_NEVER_ACCEPT, 0);	/* a stand-in for run(): rsyslogd receives */
	} else {
		if (kind == R_PROXY)
			proxy = start(socat, port);
		sink_listen(&k, kind == R_NEVER_CLOSES || kind == R_PROXY ? SINK_KEEP :
			    kind == R_CLOSES_LATE ? SINK_LATE : SINK_READ, back);
	}
	run(f, &k, 60000, true);
	ck_assert_msg(forward_idle(f), "%s: %llu entries still spooled", kind_name[kind],
		      (unsigned long long)spool_get_stats(sp)->records);
	if (kind == R_RSYSLOG) {
		end = now_monotonic_ms() + 10000;
		do {
			memset(hits, 0, SCENARIO * sizeof(int));
			count_lines(out, hits, SCENARIO);
			t = tally(hits, SCENARIO);
			if (t.distinct < SCENARIO)
				usleep(100000);
		} while (t.distinct < SCENARIO && now_monotonic_ms() < end);
	} else {
		for (int i = 0; i < k.accepted; i++)
			count_frames(&k.per[i], hits, SCENARIO);
		t = tally(hits, SCENARIO);
	}
	st = forward_get_stats(f);
	fprintf(stderr, "# delivery: %s: %d received, %d distinct, %d duplicates; sent again %llu since the stall, unconfirmed %llu\n",
		kind_name[kind], t.received, t.distinct, t.received - t.distinct,
		(unsigned long long)(st->resent - resent0), (unsigned long long)st->unconfirmed);
	ck_assert_int_eq(t.distinct, SCENARIO);
	/* duplicates: bounded (one batch sent again, once, for the stall), and counted */
	ck_assert_int_le(t.received - t.distinct, 1024);
	ck_assert_uint_le((uint64_t)(t.received - t.distinct), st->resent - resent0);
	ck_assert_uint_eq(st->acked, SCENARIO);
	ck_assert(st->connected);
	if (kind == R_CLOSES || kind == R_RSYSLOG)
		ck_assert_uint_eq(st->unconfirmed, 0);	/* each batch confirmed by its close */
	else
		ck_assert_uint_gt(st->unconfirmed, 0);
	sink_close(&k);
	forward_free(f);
	spool_close(sp);
out:
	stop(proxy);
	stop(rsyslog);
	free(hits);
	rm_rf(dir);
}

START_TEST(test_receiver_closes)
{
	scenario(R_CLOSES);
}
END_TEST

START_TEST(test_receiver_never_closes)
{
	scenario(R_NEVER_CLOSES);
}
END_TEST

START_TEST(test_receiver_closes_late)
{
	scenario(R_CLOSES_LATE);
}
END_TEST

START_TEST(test_receiver_behind_proxy)
{
	scenario(R_PROXY);
}
END_TEST

START_TEST(test_receiver_rsyslog)
{
	scenario(R_RSYSLOG);
}
END_TEST

Suite *delivery_suite(void)
{
	Suite *s = suite_create("delivery");
	TCase *tc = tcase_create("stalled");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_receiver_never_reads);
	tcase_add_test(tc, test_receiver_never_accepts);
	tcase_add_test(tc, test_batches_confirmed);
	suite_add_tcase(s, tc);
	tc = tcase_create("unclosed");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_receiver_closes);
	tcase_add_test(tc, test_receiver_never_closes);
	tcase_add_test(tc, test_receiver_closes_late);
	tcase_add_test(tc, test_receiver_behind_proxy);
	tcase_add_test(tc, test_receiver_rsyslog);
	suite_add_tcase(s, tc);
	return s;
}
