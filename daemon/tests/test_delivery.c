/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * issue 31 #1: what a TCP receiver that takes nothing does to the spool.
 * Real sockets on 127.0.0.1, driven from the test's own loop (one thread):
 * a receiver that accepts and never reads, one that never accepts, then
 * one that reads everything and closes its end when ours ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests.h"
#include "forward.h"
#include "siem.h"
#include "spool.h"

#define ENTRIES 3000
#define MAX_CONNS 64

enum sink_mode { SINK_NEVER_ACCEPT, SINK_NEVER_READ, SINK_READ };

struct sink {
	enum sink_mode mode;
	int lfd;
	uint16_t port;
	int fds[MAX_CONNS];
	int nfds;
	int accepted;
	struct strbuf data;	/* SINK_READ: everything read */
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

/* The receiver's turn: accept (unless it never does), read (unless it never does). */
static void sink_step(struct sink *k)
{
	char buf[65536];

	if (k->mode != SINK_NEVER_ACCEPT) {
		int fd;

		while (k->nfds < MAX_CONNS && (fd = accept4(k->lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
			k->fds[k->nfds++] = fd;
			k->accepted++;
		}
	}
	if (k->mode != SINK_READ)
		return;
	for (int i = 0; i < k->nfds; i++) {
		ssize_t n;

		while ((n = recv(k->fds[i], buf, sizeof(buf), 0)) > 0)
			sb_put(&k->data, buf, (size_t)n);
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			/* the end of the sender's stream: close ours, as syslog receivers do */
			close(k->fds[i]);
			k->fds[i--] = k->fds[--k->nfds];
		}
	}
}

/* The receiver goes away: what it did not read is gone with it. */
static void sink_close(struct sink *k)
{
	for (int i = 0; i < k->nfds; i++)
		close(k->fds[i]);
	k->nfds = 0;
	close(k->lfd);
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

static void stalled_receiver(enum sink_mode mode)
{
	const char *dir = make_tmpdir();
	struct sink k = { 0 }, good = { 0 };
	struct forward_config cfg;
	const struct forward_stats *st;
	struct spool *sp;
	struct forward *f;
	int *seqs = calloc(2 * ENTRIES, sizeof(int)), n;

	sink_listen(&k, mode, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.protocol = SIEM_TCP;
	snprintf(cfg.host, sizeof(cfg.host), "127.0.0.1");
	snprintf(cfg.port, sizeof(cfg.port), "%u", k.port);
	snprintf(cfg.hostname, sizeof(cfg.hostname), "testhost");
	cfg.facility = LOG_AUTHPRIV;
	cfg.retry_min_ms = 20;
	cfg.retry_max_ms = 100;
	cfg.timeout_ms = 300;
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
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
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	int seqs[2600], n;

	sink_listen(&k, SINK_READ, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.protocol = SIEM_TCP;
	snprintf(cfg.host, sizeof(cfg.host), "127.0.0.1");
	snprintf(cfg.port, sizeof(cfg.port), "%u", k.port);
	snprintf(cfg.hostname, sizeof(cfg.hostname), "testhost");
	cfg.facility = LOG_AUTHPRIV;
	cfg.retry_min_ms = 20;
	cfg.retry_max_ms = 100;
	cfg.timeout_ms = 5000;
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
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

Suite *delivery_suite(void)
{
	Suite *s = suite_create("delivery");
	TCase *tc = tcase_create("stalled");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_receiver_never_reads);
	tcase_add_test(tc, test_receiver_never_accepts);
	tcase_add_test(tc, test_batches_confirmed);
	suite_add_tcase(s, tc);
	return s;
}
