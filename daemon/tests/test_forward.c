/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A real receiver on 127.0.0.1 in a thread: framing, and in-order delivery
 * without loss or duplicates across a receiver outage and a daemon restart.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sched.h>
#include <sys/mount.h>

#include "tests.h"
#include "output.h"
#include "forward.h"
#include "siem.h"
#include "spool.h"

struct receiver {
	pthread_t thread;
	pthread_mutex_t lock;
	int lfd;
	int type;		/* SOCK_STREAM or SOCK_DGRAM */
	uint16_t port;
	volatile int stop;
	struct strbuf data;	/* everything received, across connections */
	int connections;
	int datagrams;
	int stall;		/* accept, then never read */
};

static void *receiver_main(void *arg)
{
	struct receiver *rv = arg;
	int cfd = -1;
	char buf[65536];

	while (!rv->stop) {
		struct pollfd p = { rv->type == SOCK_DGRAM || rv->stall ? rv->lfd : (cfd >= 0 ? cfd : rv->lfd),
				    POLLIN, 0 };

		if (poll(&p, 1, 20) <= 0)
			continue;
		if (rv->type == SOCK_STREAM && (cfd < 0 || rv->stall)) {
			int nfd = accept(rv->lfd, NULL, NULL);

			if (nfd >= 0) {
				pthread_mutex_lock(&rv->lock);
				rv->connections++;
				pthread_mutex_unlock(&rv->lock);
				if (cfd >= 0)
					close(cfd);	/* stalled: the old one is left unread */
				cfd = nfd;
			}
			continue;
		}
		ssize_t n = recv(p.fd, buf, sizeof(buf), 0);

		if (n <= 0) {
			if (cfd >= 0)
				close(cfd);
			cfd = -1;
			continue;
		}
		pthread_mutex_lock(&rv->lock);
		sb_put(&rv->data, buf, (size_t)n);
		if (rv->type == SOCK_DGRAM) {
			sb_putc(&rv->data, '\n');
			rv->datagrams++;
		}
		pthread_mutex_unlock(&rv->lock);
	}
	/* drain what already arrived before going away */
	if (cfd >= 0) {
		ssize_t n;

		while ((n = recv(cfd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			pthread_mutex_lock(&rv->lock);
			sb_put(&rv->data, buf, (size_t)n);
			pthread_mutex_unlock(&rv->lock);
		}
		close(cfd);
	}
	close(rv->lfd);
	return NULL;
}

static void receiver_start(struct receiver *rv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1;

	rv->lfd = socket(AF_INET, rv->type, 0);
	ck_assert_int_ge(rv->lfd, 0);
	setsockopt(rv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(rv->port);
	ck_assert_int_eq(bind(rv->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (rv->type == SOCK_STREAM)
		ck_assert_int_eq(listen(rv->lfd, 4), 0);
	getsockname(rv->lfd, (struct sockaddr *)&sa, &len);
	rv->port = ntohs(sa.sin_port);
	rv->stop = 0;
	ck_assert_int_eq(pthread_create(&rv->thread, NULL, receiver_main, rv), 0);
}

static void receiver_stop(struct receiver *rv)
{
	rv->stop = 1;
	pthread_join(rv->thread, NULL);
}

static void mk(struct entry *e, int i)
{
	entry_init(e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
	entry_set_message(e, "attack %d with \"quotes\" and ] \\", i);
	entry_add_u64(e, "SEQ", (uint64_t)i);
}

static void submit(struct forward *f, int from, int to)
{
	for (int i = from; i < to; i++) {
		struct entry e;

		mk(&e, i);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
}

/* Octet-counted frames -> seq numbers; -1 on framing error. */
static int parse_frames(const char *buf, size_t len, int *seqs, int max)
{
	size_t off = 0;
	int n = 0;

	while (off < len) {
		char *end;
		unsigned long flen = strtoul(buf + off, &end, 10);
		const char *msg, *p;

		if (end == buf + off || *end != ' ' || (size_t)(end + 1 - buf) + flen > len)
			return -1;
		msg = end + 1;
		if (strncmp(msg, "<81>1 ", 6) != 0)
			return -1;
		p = strstr(msg, " seq=\"");
		if (!p || p > msg + flen || n >= max)
			return -1;
		seqs[n++] = atoi(p + 6);
		off = (size_t)(msg - buf) + flen;
	}
	return n;
}

static int json_lines(const char *buf, int *seqs, int max)
{
	int n = 0;

	for (const char *p = buf; *p;) {
		const char *nl = strchr(p, '\n'), *s = strstr(p, "\"seq\":");

		if (!nl || !s || s > nl || p[0] != '{' || nl[-1] != '}' || n >= max)
			return -1;
		seqs[n++] = atoi(s + 6);
		p = nl + 1;
	}
	return n;
}

static int received(struct receiver *rv, enum siem_protocol proto, int *seqs, int max)
{
	int n;

	pthread_mutex_lock(&rv->lock);
	if (proto == SIEM_JSON)
		n = json_lines(sb_str(&rv->data), seqs, max);
	else if (proto == SIEM_UDP)
		n = rv->datagrams;
	else
		n = parse_frames(sb_str(&rv->data), rv->data.len, seqs, max);
	pthread_mutex_unlock(&rv->lock);
	return n;
}

/* Run the forwarder's loop until the receiver holds want messages (or timeout). */
static void pump_until(struct forward *f, struct receiver *rv, enum siem_protocol proto,
		       int want, int timeout_ms)
{
	uint64_t end = now_monotonic_ms() + (uint64_t)timeout_ms;
	int seqs[256];

	for (;;) {
		struct pollfd p;
		uint64_t now = now_monotonic_ms();
		bool have = forward_pollfd(f, &p);

		if ((!rv || received(rv, proto, seqs, 256) >= want) && forward_idle(f))
			return;
		if (now > end)
			return;
		poll(have ? &p : NULL, have ? 1 : 0, 10);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
	}
}

static struct forward_config cfg_for(enum siem_protocol proto, uint16_t port)
{
	struct forward_config c;

	memset(&c, 0, sizeof(c));
	c.protocol = proto;
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	snprintf(c.port, sizeof(c.port), "%u", port);
	c.retry_min_ms = 20;
	c.retry_max_ms = 200;
	snprintf(c.hostname, sizeof(c.hostname), "testhost");
	c.facility = LOG_AUTHPRIV;
	return c;
}

static void check_sequence(struct receiver *rv, enum siem_protocol proto, int total)
{
	int seqs[256], n = received(rv, proto, seqs, 256);

	ck_assert_int_eq(n, total);
	for (int i = 0; i < n; i++)
		ck_assert_msg(seqs[i] == i, "message %d has seq %d (loss, duplicate or reorder)", i, seqs[i]);
}

static void outage_test(enum siem_protocol proto)
{
	const char *dir = make_tmpdir();
	struct receiver rv = { .type = SOCK_STREAM };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;

	pthread_mutex_init(&rv.lock, NULL);
	receiver_start(&rv);
	cfg = cfg_for(proto, rv.port);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);

	submit(f, 0, 5);
	pump_until(f, &rv, proto, 5, 5000);
	check_sequence(&rv, proto, 5);
	ck_assert(forward_idle(f));

	/* receiver goes away; entries keep coming */
	receiver_stop(&rv);
	submit(f, 5, 10);
	pump_until(f, NULL, proto, 0, 300);
	ck_assert(!forward_idle(f));
	ck_assert_uint_ge(forward_get_stats(f)->failures, 1);

	/* it comes back on the same port: the backlog arrives, in order */
	receiver_start(&rv);
	submit(f, 10, 12);
	pump_until(f, &rv, proto, 12, 10000);
	check_sequence(&rv, proto, 12);

	/* daemon restart while the receiver is down: the spool carries over */
	receiver_stop(&rv);
	submit(f, 12, 20);
	forward_free(f);
	spool_close(sp);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	ck_assert_uint_ge(spool_get_stats(sp)->records, 8);
	f = forward_new(&cfg, sp);
	receiver_start(&rv);
	pump_until(f, &rv, proto, 20, 10000);
	check_sequence(&rv, proto, 20);
	ck_assert_int_ge(rv.connections, 3);
	receiver_stop(&rv);

	forward_free(f);
	spool_close(sp);
	sb_free(&rv.data);
	pthread_mutex_destroy(&rv.lock);
	rm_rf(dir);
}

START_TEST(test_tcp_octet_counting_outage)
{
	outage_test(SIEM_TCP);
}
END_TEST

START_TEST(test_json_lines_outage)
{
	outage_test(SIEM_JSON);
}
END_TEST

START_TEST(test_udp)
{
	const char *dir = make_tmpdir();
	struct receiver rv = { .type = SOCK_DGRAM };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	struct entry e;
	struct strbuf want = STRBUF_INIT;
	struct siem_format fmt;

	pthread_mutex_init(&rv.lock, NULL);
	receiver_start(&rv);
	cfg = cfg_for(SIEM_UDP, rv.port);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	submit(f, 0, 3);
	pump_until(f, &rv, SIEM_UDP, 3, 5000);
	ck_assert_int_eq(rv.datagrams, 3);
	/* each datagram is exactly one RFC 5424 message */
	fmt = (struct siem_format){ "testhost", "brute-reportd", (int)getpid(), LOG_AUTHPRIV, 0, NULL };
	mk(&e, 0);
	siem_format_rfc5424(&e, &fmt, &want);
	sb_putc(&want, '\n');
	ck_assert(strncmp(rv.data.buf, want.buf, want.len) == 0);
	receiver_stop(&rv);
	entry_free(&e);
	sb_free(&want);
	forward_free(f);
	spool_close(sp);
	sb_free(&rv.data);
	pthread_mutex_destroy(&rv.lock);
	rm_rf(dir);
}
END_TEST

/* Run the forwarder until the receiver's bytes contain needle (or timeout). */
static void pump_until_data(struct forward *f, struct receiver *rv, const char *needle, int timeout_ms)
{
	uint64_t end = now_monotonic_ms() + (uint64_t)timeout_ms;

	for (;;) {
		struct pollfd p;
		bool have = forward_pollfd(f, &p), found;

		pthread_mutex_lock(&rv->lock);
		found = strstr(sb_str(&rv->data), needle) != NULL;
		pthread_mutex_unlock(&rv->lock);
		if ((found && forward_idle(f)) || now_monotonic_ms() > end)
			return;
		poll(have ? &p : NULL, have ? 1 : 0, 10);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
	}
}

/* A kill entry of 12 tasks with 2.7 KB paths (chosen by the attacker): 70 KB unformatted. */
static void mk_huge_kill(struct entry *e)
{
	char path[2701];

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	entry_init(e, ENTRY_KILL, LOG_CRIT, 1700000000000000ull);
	entry_set_message(e, "Killed 12 tasks of hierarchy 1 (%s): pids 1,2,3,4,5,6,7,8,9,10,11,12", path);
	entry_add(e, "HIERARCHY", "4294967396");
	entry_add_u64(e, "KILLED_COUNT", 12);
	entry_add(e, "KILLED_PIDS", "1,2,3,4,5,6,7,8,9,10,11,12");
	for (int i = 0; i < 12; i++)
		entry_addf(e, "KILLED_TASK", "pid=%d uid=1000 auid=1000 ses=3 comm=\"x\" exe=\"%s\"", i + 1, path);
	entry_add(e, "EXE", path);
}

/*
 * issue 11 #2: one oversized entry over UDP failed with EMSGSIZE and was
 * retried forever: nothing after it was ever delivered.  Every message
 * now fits siem_max_message; the attack after it arrives.
 */
START_TEST(test_oversized_entry_udp)
{
	const char *dir = make_tmpdir();
	struct receiver rv = { .type = SOCK_DGRAM };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	struct entry e;
	const char *second;

	pthread_mutex_init(&rv.lock, NULL);
	receiver_start(&rv);
	cfg = cfg_for(SIEM_UDP, rv.port);
	cfg.max_message = 8192;
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	mk_huge_kill(&e);
	ck_assert_int_eq(forward_submit(f, &e), 0);
	entry_free(&e);
	submit(f, 7, 8);
	pump_until(f, &rv, SIEM_UDP, 2, 5000);
	receiver_stop(&rv);
	ck_assert_int_eq(rv.datagrams, 2);
	ck_assert(forward_idle(f));
	/* the receiver appends '\n' per datagram */
	second = strchr(rv.data.buf, '\n');
	ck_assert_uint_le((size_t)(second - rv.data.buf), 8192);
	ck_assert(strstr(rv.data.buf, " KILL [brute@32473 ") != NULL);
	ck_assert(strstr(rv.data.buf, "killed_count=\"12\"") != NULL);
	ck_assert(strstr(rv.data.buf, "truncated=\"1\"") != NULL);
	ck_assert(strstr(second + 1, "seq=\"7\"") != NULL);
	forward_free(f);
	spool_close(sp);
	sb_free(&rv.data);
	pthread_mutex_destroy(&rv.lock);
	rm_rf(dir);
}
END_TEST

/* Over TCP (octet counting and JSON lines) the same entry is one capped message too. */
START_TEST(test_oversized_entry_tcp)
{
	for (int proto = SIEM_TCP; proto <= SIEM_JSON; proto++) {
		const char *dir = make_tmpdir();
		struct receiver rv = { .type = SOCK_STREAM };
		struct forward_config cfg;
		struct spool *sp;
		struct forward *f;
		struct entry e;
		int seqs[4];
		const char *nl;

		pthread_mutex_init(&rv.lock, NULL);
		receiver_start(&rv);
		cfg = cfg_for(proto, rv.port);
		cfg.max_message = 4096;
		ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
		f = forward_new(&cfg, sp);
		mk_huge_kill(&e);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
		submit(f, 0, 1);
		pump_until_data(f, &rv, proto == SIEM_JSON ? "\"seq\":0" : "seq=\"0\"", 10000);
		receiver_stop(&rv);
		ck_assert_uint_gt(rv.data.len, 0);
		if (proto == SIEM_TCP) {
			unsigned long n = strtoul(rv.data.buf, NULL, 10);

			ck_assert_uint_le(n, 4096);
			/* two frames, the second the attack: framing intact after the cut */
			ck_assert(strstr(rv.data.buf, "killed_count=\"12\"") != NULL);
			ck_assert_int_eq(parse_frames(rv.data.buf + (strchr(rv.data.buf, ' ') - rv.data.buf) + 1 + n,
						      rv.data.len - (size_t)(strchr(rv.data.buf, ' ') - rv.data.buf) - 1 - n,
						      seqs, 4), 1);
		} else {
			nl = strchr(rv.data.buf, '\n');
			ck_assert_ptr_nonnull(nl);
			ck_assert_uint_le((size_t)(nl - rv.data.buf), 4096);
			ck_assert(nl[-1] == '}');
			ck_assert(strstr(rv.data.buf, "\"killed_count\":12") != NULL);
			ck_assert(strstr(rv.data.buf, "\"truncated\":1") != NULL);
			ck_assert_int_eq(json_lines(nl + 1, seqs, 4), 1);
		}
		forward_free(f);
		spool_close(sp);
		sb_free(&rv.data);
		pthread_mutex_destroy(&rv.lock);
		rm_rf(dir);
	}
}
END_TEST

/*
 * issue 11 #10: a full disk was reported as "Input/output error" (a short
 * write), once per entry.  The real error is reported, once, then summed
 * up; the spool keeps no partial record.  The disk: a 64 KiB tmpfs in a
 * mount namespace of this test's own process.
 */
START_TEST(test_disk_full)
{
	const char *dir = make_tmpdir();
	struct forward_config cfg = cfg_for(SIEM_TCP, 9);
	struct output o;
	struct spool *sp;
	char *log;
	struct entry e;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("brute-test", dir, "tmpfs", 0, "size=64k,mode=0700") < 0) {
		test_skip("forward: disk full needs a private tmpfs mount (root, CAP_SYS_ADMIN)");
		rm_rf(dir);
		return;
	}
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	memset(&o, 0, sizeof(o));
	o.forward = forward_new(&cfg, sp);
	o.siem_kinds = ~0u;
	stderr_capture_begin();
	for (int i = 0; i < 2000; i++) {
		mk(&e, i);
		output_entry(&o, &e);
		entry_free(&e);
	}
	log = stderr_capture_end();
	ck_assert_uint_gt(o.forward_failed, 1000);
	ck_assert_msg(count_of(log, "cannot queue") == 1, "%u lines:\n%.600s", count_of(log, "cannot queue"), log);
	ck_assert_msg(strstr(log, strerror(ENOSPC)) != NULL, "%.600s", log);
	ck_assert(strstr(log, strerror(EIO)) == NULL);
	free(log);
	forward_free(o.forward);
	spool_close(sp);
	/* no partial record: a reopened spool has whole records only */
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	ck_assert_uint_eq(spool_get_stats(sp)->truncated_bytes, 0);
	ck_assert_uint_eq(spool_get_stats(sp)->records, 2000 - o.forward_failed);
	spool_close(sp);
	umount(dir);
	rm_rf(dir);
}
END_TEST

/*
 * issue 11 #7: a receiver that accepts and then never reads was never
 * noticed (the connection stayed up forever).  No progress for
 * timeout_ms with messages pending: warned about, reconnected.
 */
START_TEST(test_receiver_stops_reading)
{
	const char *dir = make_tmpdir();
	struct receiver rv = { .type = SOCK_STREAM, .stall = 1 };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	uint64_t end;
	char *log;
	int rcvbuf = 4096;

	pthread_mutex_init(&rv.lock, NULL);
	receiver_start(&rv);
	setsockopt(rv.lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	cfg = cfg_for(SIEM_TCP, rv.port);
	cfg.timeout_ms = 500;
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	/* ~8 MB: more than both socket buffers hold */
	for (int i = 0; i < 40000; i++) {
		struct entry e;

		mk(&e, i);
		entry_add_full(&e, "PAD", "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp", false);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
	stderr_capture_begin();
	end = now_monotonic_ms() + 20000;
	while (forward_get_stats(f)->stalls == 0 && now_monotonic_ms() < end) {
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		poll(have ? &p : NULL, have ? 1 : 0, 10);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
	}
	/* and it connects again */
	end = now_monotonic_ms() + 5000;
	while (rv.connections < 2 && now_monotonic_ms() < end) {
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		poll(have ? &p : NULL, have ? 1 : 0, 10);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
	}
	log = stderr_capture_end();
	ck_assert_uint_ge(forward_get_stats(f)->stalls, 1);
	ck_assert_msg(strstr(log, "stopped reading") != NULL, "%.600s", log);
	ck_assert_int_ge(rv.connections, 2);
	ck_assert(!forward_idle(f));	/* nothing was lost: still spooled */
	free(log);
	receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	sb_free(&rv.data);
	pthread_mutex_destroy(&rv.lock);
	rm_rf(dir);
}
END_TEST

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
}

/*
 * issue 11 #3: getaddrinfo() ran in the event loop on every reconnect; a
 * resolver that does not answer stalled everything (8 s per retry).  Here
 * /etc/hosts and /etc/resolv.conf are replaced in a private mount
 * namespace; the name server is a UDP socket that never answers.  No
 * dispatch may block; after the resolve timeout the last good address is
 * used and the entry still arrives.
 */
START_TEST(test_dns_never_blocks)
{
	const char *dir = make_tmpdir();
	struct receiver rv = { .type = SOCK_STREAM };
	struct sockaddr_in ns = { .sin_family = AF_INET, .sin_port = htons(53) };
	char hosts[512], resolv[512];
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	uint64_t end, worst = 0;
	int nsfd, seqs[4];

	snprintf(hosts, sizeof(hosts), "%s/hosts", dir);
	snprintf(resolv, sizeof(resolv), "%s/resolv.conf", dir);
	write_text(hosts, "127.0.0.1 siem.brute-test\n");
	write_text(resolv, "nameserver 127.0.0.3\noptions timeout:3 attempts:2\n");
	nsfd = socket(AF_INET, SOCK_DGRAM, 0);
	ns.sin_addr.s_addr = htonl(0x7f000003);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(hosts, "/etc/hosts", NULL, MS_BIND, NULL) < 0 ||
	    mount(resolv, "/etc/resolv.conf", NULL, MS_BIND, NULL) < 0 ||
	    bind(nsfd, (struct sockaddr *)&ns, sizeof(ns)) < 0) {
		test_skip("forward: DNS test needs a private mount namespace and port 53 (root)");
		close(nsfd);
		rm_rf(dir);
		return;
	}
	pthread_mutex_init(&rv.lock, NULL);
	receiver_start(&rv);
	cfg = cfg_for(SIEM_TCP, rv.port);
	snprintf(cfg.host, sizeof(cfg.host), "siem.brute-test");
	cfg.timeout_ms = 500;
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	submit(f, 0, 1);
	pump_until(f, &rv, SIEM_TCP, 1, 5000);
	check_sequence(&rv, SIEM_TCP, 1);

	/* the name disappears from /etc/hosts: now only the silent name server knows */
	write_text(hosts, "# nothing\n");
	receiver_stop(&rv);
	submit(f, 1, 2);
	end = now_monotonic_ms() + 400;
	while (now_monotonic_ms() < end) {	/* the connection fails, a resolution starts */
		uint64_t t0 = now_monotonic_ms();
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		poll(have ? &p : NULL, have ? 1 : 0, 5);
		t0 = now_monotonic_ms();
		forward_dispatch(f, have ? p.revents : 0, t0);
		if (now_monotonic_ms() - t0 > worst)
			worst = now_monotonic_ms() - t0;
	}
	receiver_start(&rv);
	end = now_monotonic_ms() + 8000;
	while (received(&rv, SIEM_TCP, seqs, 4) < 2 && now_monotonic_ms() < end) {
		uint64_t t0;
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		poll(have ? &p : NULL, have ? 1 : 0, 5);
		t0 = now_monotonic_ms();
		forward_dispatch(f, have ? p.revents : 0, t0);
		if (now_monotonic_ms() - t0 > worst)
			worst = now_monotonic_ms() - t0;
	}
	ck_assert_msg(worst < 100, "a dispatch took %llu ms", (unsigned long long)worst);
	ck_assert_uint_ge(forward_get_stats(f)->resolve_timeouts, 1);
	ck_assert_int_eq(received(&rv, SIEM_TCP, seqs, 4), 2);
	ck_assert_int_eq(seqs[1], 1);
	receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	sb_free(&rv.data);
	pthread_mutex_destroy(&rv.lock);
	close(nsfd);
	umount("/etc/hosts");
	umount("/etc/resolv.conf");
	rm_rf(dir);
}
END_TEST

Suite *forward_suite(void)
{
	Suite *s = suite_create("forward");
	TCase *tc = tcase_create("loopback");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_tcp_octet_counting_outage);
	tcase_add_test(tc, test_json_lines_outage);
	tcase_add_test(tc, test_udp);
	tcase_add_test(tc, test_oversized_entry_udp);
	tcase_add_test(tc, test_oversized_entry_tcp);
	tcase_add_test(tc, test_disk_full);
	tcase_add_test(tc, test_receiver_stops_reading);
	tcase_add_test(tc, test_dns_never_blocks);
	suite_add_tcase(s, tc);
	return s;
}
