/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syslog over TLS against a real GnuTLS server in a thread, with
 * certificates made by certtool for this run: delivery (octet-counted
 * frames, in order, across a receiver outage), a client certificate the
 * server requires, and the two rejections that matter: a server whose
 * certificate the CA file does not vouch for, and a name mismatch.  A
 * rejected server gets nothing, the failure is logged, the entry stays
 * spooled.  Also: bad certificate files are configuration errors.
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
#include <sys/time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "tests.h"
#include "config.h"
#include "forward.h"
#include "siem.h"
#include "spool.h"

static char pki[256];	/* certificates of this run; "" if certtool is missing */

/* shared with test_relp.c (tests.h): make_pki(), pki_file() */

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
}

static int run(const char *cmd)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "cd %s && %s >/dev/null 2>&1", pki, cmd);
	return system(buf);
}

/* Two CAs; a server certificate for localhost/127.0.0.1 from the first; a client
 * certificate from each. */
bool make_pki(void)
{
	char p[512];

	if (pki[0])
		return true;
	if (system("command -v certtool >/dev/null 2>&1") != 0)
		return false;
	snprintf(pki, sizeof(pki), "%s", make_tmpdir());
#define T(name, text) do { snprintf(p, sizeof(p), "%s/" name, pki); write_text(p, text); } while (0)
	T("ca.tmpl", "cn = \"brute test CA\"\nca\ncert_signing_key\nexpiration_days = 2\n");
	T("other.tmpl", "cn = \"some other CA\"\nca\ncert_signing_key\nexpiration_days = 2\n");
	T("srv.tmpl", "cn = \"localhost\"\ndns_name = \"localhost\"\nip_address = \"127.0.0.1\"\n"
		      "tls_www_server\nsigning_key\nencryption_key\nexpiration_days = 2\n");
	T("clt.tmpl", "cn = \"brute-reportd\"\ntls_www_client\nsigning_key\nexpiration_days = 2\n");
	T("garbage.pem", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
#undef T
	ck_assert_int_eq(run("for k in ca other srv clt oclt; do certtool --generate-privkey --key-type=ecdsa --outfile $k.key || exit 1; done"), 0);
	ck_assert_int_eq(run("certtool --generate-self-signed --load-privkey ca.key --template ca.tmpl --outfile ca.pem"), 0);
	ck_assert_int_eq(run("certtool --generate-self-signed --load-privkey other.key --template other.tmpl --outfile other.pem"), 0);
	ck_assert_int_eq(run("certtool --generate-certificate --load-privkey srv.key --load-ca-certificate ca.pem --load-ca-privkey ca.key --template srv.tmpl --outfile srv.pem"), 0);
	ck_assert_int_eq(run("certtool --generate-certificate --load-privkey clt.key --load-ca-certificate ca.pem --load-ca-privkey ca.key --template clt.tmpl --outfile clt.pem"), 0);
	/* a client certificate the server does not trust (another CA's) */
	ck_assert_int_eq(run("certtool --generate-certificate --load-privkey oclt.key --load-ca-certificate other.pem --load-ca-privkey other.key --template clt.tmpl --outfile oclt.pem"), 0);
	return true;
}

const char *pki_file(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", pki, name);
	return buf[i];
}

/* ---- a TLS syslog receiver ---- */

struct tls_receiver {
	pthread_t thread;
	pthread_mutex_t lock;
	int lfd;
	uint16_t port;
	bool require_client_cert;
	bool stall;		/* handshake, then never read (issue 31 #1) */
	bool keep_open;		/* at the end of the stream, close only when the next connection
				 * comes (issue 42) */
	int held_fd;		/* keep_open: the connection read to its end, still open */
	gnutls_session_t held;
	const char *priority;	/* NULL: GnuTLS's default */
	volatile int stop;
	struct strbuf data;
	int handshakes_ok, handshakes_failed;
	char version[16];	/* of the last handshake that succeeded */
	gnutls_certificate_credentials_t cred;
};

static void serve(struct tls_receiver *rv, int cfd)
{
	gnutls_session_t s;
	struct timeval tv = { 0, 100000 };
	char buf[65536];
	int r;

	setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	gnutls_init(&s, GNUTLS_SERVER | GNUTLS_NO_SIGNAL);
	if (rv->priority)
		ck_assert_int_eq(gnutls_priority_set_direct(s, rv->priority, NULL), 0);
	else
		gnutls_set_default_priority(s);
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, rv->cred);
	if (rv->require_client_cert) {
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_cert(s, NULL, 0);
	}
	gnutls_transport_set_int(s, cfd);
	gnutls_handshake_set_timeout(s, 5000);
	do
		r = gnutls_handshake(s);
	while (r < 0 && !gnutls_error_is_fatal(r) && !rv->stop);
	pthread_mutex_lock(&rv->lock);
	if (r < 0) {
		rv->handshakes_failed++;
	} else {
		rv->handshakes_ok++;
		snprintf(rv->version, sizeof(rv->version), "%s",
			 gnutls_protocol_get_name(gnutls_protocol_get_version(s)));
	}
	pthread_mutex_unlock(&rv->lock);
	while (r >= 0 && rv->stall && !rv->stop)
		usleep(20000);	/* its TCP stack takes what fits, the program reads nothing */
	while (r >= 0 && !rv->stop) {
		ssize_t n = gnutls_record_recv(s, buf, sizeof(buf));

		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
			continue;
		if (n <= 0)
			break;
		pthread_mutex_lock(&rv->lock);
		sb_put(&rv->data, buf, (size_t)n);
		pthread_mutex_unlock(&rv->lock);
	}
	if (r >= 0 && rv->keep_open && !rv->stop) {
		rv->held = s;	/* neither close_notify nor FIN: the client's end answered late */
		rv->held_fd = cfd;
		return;
	}
	gnutls_deinit(s);
	close(cfd);
}

static void release_held(struct tls_receiver *rv)
{
	if (rv->held_fd <= 0)
		return;
	gnutls_deinit(rv->held);
	close(rv->held_fd);
	rv->held_fd = 0;
}

static void *tls_receiver_main(void *arg)
{
	struct tls_receiver *rv = arg;

	while (!rv->stop) {
		struct pollfd p = { rv->lfd, POLLIN, 0 };
		int cfd;

		if (poll(&p, 1, 20) <= 0)
			continue;
		cfd = accept(rv->lfd, NULL, NULL);
		release_held(rv);
		if (cfd >= 0)
			serve(rv, cfd);
	}
	release_held(rv);
	close(rv->lfd);
	return NULL;
}

static void tls_receiver_start(struct tls_receiver *rv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1;

	if (!rv->cred) {
		ck_assert_int_eq(gnutls_certificate_allocate_credentials(&rv->cred), 0);
		ck_assert_int_gt(gnutls_certificate_set_x509_trust_file(rv->cred, pki_file("ca.pem"),
									GNUTLS_X509_FMT_PEM), 0);
		ck_assert_int_eq(gnutls_certificate_set_x509_key_file(rv->cred, pki_file("srv.pem"),
				 pki_file("srv.key"), GNUTLS_X509_FMT_PEM), 0);
		pthread_mutex_init(&rv->lock, NULL);
	}
	rv->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(rv->lfd, 0);
	setsockopt(rv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(rv->port);
	ck_assert_int_eq(bind(rv->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(rv->lfd, 4), 0);
	getsockname(rv->lfd, (struct sockaddr *)&sa, &len);
	rv->port = ntohs(sa.sin_port);
	rv->stop = 0;
	ck_assert_int_eq(pthread_create(&rv->thread, NULL, tls_receiver_main, rv), 0);
}

static void tls_receiver_stop(struct tls_receiver *rv)
{
	rv->stop = 1;
	pthread_join(rv->thread, NULL);
}

static void tls_receiver_free(struct tls_receiver *rv)
{
	gnutls_certificate_free_credentials(rv->cred);
	sb_free(&rv->data);
	pthread_mutex_destroy(&rv->lock);
}

/* Octet-counted RFC 5424 frames -> SEQ values, in order; -1 on a framing error. */
static int frames(struct tls_receiver *rv, int *seqs, int max)
{
	size_t off = 0, len;
	const char *buf;
	int n = 0;

	pthread_mutex_lock(&rv->lock);
	buf = sb_str(&rv->data);
	len = rv->data.len;
	while (off < len) {
		char *end;
		unsigned long flen = strtoul(buf + off, &end, 10);
		const char *msg, *p;

		if (end == buf + off || *end != ' ' || (size_t)(end + 1 - buf) + flen > len ||
		    strncmp(end + 1, "<81>1 ", 6) != 0) {
			n = -1;
			break;
		}
		msg = end + 1;
		p = strstr(msg, " seq=\"");
		if (!p || p > msg + flen || n >= max) {
			n = -1;
			break;
		}
		seqs[n++] = atoi(p + 6);
		off = (size_t)(msg - buf) + flen;
	}
	pthread_mutex_unlock(&rv->lock);
	return n;
}

static void submit(struct forward *f, int from, int to)
{
	for (int i = from; i < to; i++) {
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "attack %d over TLS", i);
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
}

/* Run the loop until the receiver holds want frames and the spool is empty, or for ms. */
static void pump(struct forward *f, struct tls_receiver *rv, int want, int ms)
{
	uint64_t end = now_monotonic_ms() + (uint64_t)ms;
	int seqs[64];

	while (now_monotonic_ms() < end) {
		struct pollfd p;
		bool have = forward_pollfd(f, &p);

		if (rv && want && frames(rv, seqs, 64) >= want && forward_idle(f))
			return;
		poll(have ? &p : NULL, have ? 1 : 0, 10);
		forward_dispatch(f, have ? p.revents : 0, now_monotonic_ms());
	}
}

static struct forward_config tls_cfg(uint16_t port)
{
	struct forward_config c;

	memset(&c, 0, sizeof(c));
	c.protocol = SIEM_TLS;
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	snprintf(c.port, sizeof(c.port), "%u", port);
	c.retry_min_ms = 20;
	c.retry_max_ms = 200;
	c.timeout_ms = 3000;
	snprintf(c.hostname, sizeof(c.hostname), "testhost");
	c.facility = LOG_AUTHPRIV;
	snprintf(c.tls_ca, sizeof(c.tls_ca), "%s", pki_file("ca.pem"));
	return c;
}

static void check_in_order(struct tls_receiver *rv, int total)
{
	int seqs[64], n = frames(rv, seqs, 64);

	ck_assert_int_eq(n, total);
	for (int i = 0; i < n; i++)
		ck_assert_msg(seqs[i] == i, "message %d has seq %d (loss, duplicate or reorder)", i, seqs[i]);
}

/*
 * The receiver started, a forwarder to it (timeout_ms) over a new spool of
 * spool_size in a new *dir; false, the test skipped, without certtool.
 */
static bool tls_setup(struct tls_receiver *rv, uint64_t timeout_ms, size_t spool_size,
		      const char **dir, struct spool **sp, struct forward **f)
{
	struct forward_config cfg;

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return false;
	}
	*dir = make_tmpdir();
	tls_receiver_start(rv);
	cfg = tls_cfg(rv->port);
	cfg.timeout_ms = timeout_ms;
	ck_assert_int_eq(spool_open(*dir, spool_size, false, sp), 0);
	*f = forward_new(&cfg, *sp);
	ck_assert(*f != NULL);
	return true;
}

/*
 * issue 42: over TLS too, a receiver that reads everything and answers the
 * end of the stream (close_notify, FIN) with neither until the next
 * connection comes: a batch larger than a receiver holds unread is
 * delivered once, counted as unconfirmed, never sent again; from then on
 * so is every batch, small ones too.
 */
START_TEST(test_tls_receiver_never_closes)
{
	static char pad[6001];
	struct tls_receiver rv = { .keep_open = true };
	struct spool *sp;
	struct forward *f;
	const char *dir;

	if (!tls_setup(&rv, 500, 16 << 20, &dir, &sp, &f))
		return;
	memset(pad, 'p', sizeof(pad) - 1);
	for (int i = 0; i < 60; i++) {	/* 360 KB: more than 4 of its first windows */
		struct entry e;

		entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "attack %d over TLS", i);
		entry_add_u64(&e, "SEQ", (uint64_t)i);
		entry_add(&e, "PAD", pad);
		ck_assert_int_eq(forward_submit(f, &e), 0);
		entry_free(&e);
	}
	pump(f, &rv, 60, 10000);
	check_in_order(&rv, 60);	/* once each: nothing sent again */
	ck_assert(forward_idle(f));
	ck_assert_uint_eq(forward_get_stats(f)->unconfirmed, 60);
	ck_assert_uint_eq(forward_get_stats(f)->resent, 0);
	ck_assert(forward_get_stats(f)->connected);
	submit(f, 60, 64);	/* small: taken once acknowledged, the receiver known */
	pump(f, &rv, 64, 10000);
	check_in_order(&rv, 64);
	ck_assert(forward_idle(f));
	ck_assert_uint_eq(forward_get_stats(f)->unconfirmed, 64);
	ck_assert_uint_eq(forward_get_stats(f)->resent, 0);
	tls_receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	tls_receiver_free(&rv);
	rm_rf(dir);
}
END_TEST

/*
 * issue 31 #1: over TLS too, a receiver that completes the handshake and
 * then reads nothing gets nothing counted as delivered: its TCP stack's
 * acknowledgements of the TLS records leave the entries spooled.
 */
START_TEST(test_tls_stalled_receiver)
{
	struct tls_receiver rv = { .stall = true };
	struct spool *sp;
	struct forward *f;
	const char *dir;

	if (!tls_setup(&rv, 500, 1 << 20, &dir, &sp, &f))
		return;
	submit(f, 0, 20);
	pump(f, NULL, 0, 2000);
	ck_assert_int_ge(rv.handshakes_ok, 1);
	ck_assert_uint_ge(forward_get_stats(f)->stalls, 1);
	ck_assert_uint_eq(spool_get_stats(sp)->records, 20);
	ck_assert_uint_eq(forward_get_stats(f)->last_delivery_usec, 0);
	ck_assert(!forward_get_stats(f)->connected);
	ck_assert_uint_gt(forward_get_stats(f)->resent, 0);
	tls_receiver_stop(&rv);
	/* one that reads: every entry, once */
	rv.stall = false;
	sb_reset(&rv.data);
	tls_receiver_start(&rv);
	pump(f, &rv, 20, 10000);
	check_in_order(&rv, 20);
	ck_assert(forward_idle(f));
	ck_assert(forward_get_stats(f)->connected);
	tls_receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	tls_receiver_free(&rv);
	rm_rf(dir);
}
END_TEST

START_TEST(test_tls_delivery_and_outage)
{
	struct tls_receiver rv = { 0 };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	const char *dir;

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return;
	}
	dir = make_tmpdir();
	tls_receiver_start(&rv);
	cfg = tls_cfg(rv.port);		/* the name checked is 127.0.0.1: an IP address SAN */
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	f = forward_new(&cfg, sp);
	ck_assert(f != NULL);
	submit(f, 0, 5);
	pump(f, &rv, 5, 5000);
	check_in_order(&rv, 5);
	ck_assert(forward_idle(f));

	/* receiver down: spooled; back on the same port: the backlog, in order */
	tls_receiver_stop(&rv);
	submit(f, 5, 10);
	pump(f, NULL, 0, 300);
	ck_assert(!forward_idle(f));
	tls_receiver_start(&rv);
	pump(f, &rv, 10, 10000);
	check_in_order(&rv, 10);
	ck_assert(forward_idle(f));
	ck_assert_int_ge(rv.handshakes_ok, 2);
	tls_receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	tls_receiver_free(&rv);
	rm_rf(dir);
}
END_TEST

/*
 * A client certificate the server requires, over TLS 1.3 (issue 22 #4: with a client
 * certificate brute-reportd capped TLS at 1.2, so a TLS 1.3-only server was unreachable).
 * In TLS 1.3 the server refuses a certificate after the client's handshake is over: the
 * forwarder waits for its first word, so nothing is written to a server that refuses.
 * The server here speaks TLS 1.3 only.
 */
START_TEST(test_tls_client_certificate)
{
	struct tls_receiver rv = { .require_client_cert = true,
				   .priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3" };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	const char *dir;
	char *log;

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return;
	}
	dir = make_tmpdir();
	tls_receiver_start(&rv);
	cfg = tls_cfg(rv.port);
	snprintf(cfg.tls_name, sizeof(cfg.tls_name), "localhost");
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);

	/* without one, then with one of a CA the server does not trust: refused, nothing
	 * delivered, nothing written */
	for (int i = 0; i < 2; i++) {
		if (i == 1) {
			snprintf(cfg.tls_cert, sizeof(cfg.tls_cert), "%s", pki_file("oclt.pem"));
			snprintf(cfg.tls_key, sizeof(cfg.tls_key), "%s", pki_file("oclt.key"));
		}
		stderr_capture_begin();
		f = forward_new(&cfg, sp);
		ck_assert(f != NULL);
		if (i == 0)
			submit(f, 0, 1);
		pump(f, NULL, 0, 2500);
		log = stderr_capture_end();
		ck_assert_int_ge(rv.handshakes_failed, i + 1);
		ck_assert_int_eq(rv.handshakes_ok, 0);
		ck_assert(!forward_idle(f));
		ck_assert_uint_eq(spool_get_stats(sp)->records, 1);
		pthread_mutex_lock(&rv.lock);
		ck_assert_uint_eq(rv.data.len, 0);
		pthread_mutex_unlock(&rv.lock);
		ck_assert_msg(strstr(log, "(tls)") != NULL, "log: %s", log);
		free(log);
		forward_free(f);
	}

	/* with the right one: delivered, over TLS 1.3 */
	snprintf(cfg.tls_cert, sizeof(cfg.tls_cert), "%s", pki_file("clt.pem"));
	snprintf(cfg.tls_key, sizeof(cfg.tls_key), "%s", pki_file("clt.key"));
	f = forward_new(&cfg, sp);
	ck_assert(f != NULL);
	pump(f, &rv, 1, 5000);
	check_in_order(&rv, 1);
	ck_assert(forward_idle(f));
	ck_assert_str_eq(rv.version, "TLS1.3");
	tls_receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	tls_receiver_free(&rv);
	rm_rf(dir);
}
END_TEST

/* A GnuTLS client handshake with priority against port: the version it got, or "" */
static void client_handshake(uint16_t port, const char *priority, char *version, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	gnutls_certificate_credentials_t cred;
	gnutls_session_t s;
	int fd = socket(AF_INET, SOCK_STREAM, 0), r;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(gnutls_certificate_allocate_credentials(&cred), 0);
	gnutls_init(&s, GNUTLS_CLIENT | GNUTLS_NO_SIGNAL);
	ck_assert_int_eq(gnutls_priority_set_direct(s, priority, NULL), 0);
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_transport_set_int(s, fd);
	gnutls_handshake_set_timeout(s, 5000);
	do
		r = gnutls_handshake(s);
	while (r < 0 && !gnutls_error_is_fatal(r));
	snprintf(version, len, "%s", r < 0 ? "" : gnutls_protocol_get_name(gnutls_protocol_get_version(s)));
	gnutls_deinit(s);
	gnutls_certificate_free_credentials(cred);
	close(fd);
}

/*
 * issue 22 #4: against a server that offers only TLS 1.0 the daemon delivered (GnuTLS's
 * NORMAL allows TLS 1.0 and 1.1; RFC 8996 forbids them).  The default priority string
 * starts at TLS 1.2: the handshake fails, nothing is sent, the entry stays spooled.  The
 * server does speak TLS 1.0: a client that allows it gets a TLS 1.0 session from it.
 */
START_TEST(test_tls_floor)
{
	static const char *const old[] = { "NORMAL:-VERS-ALL:+VERS-TLS1.0",
					   "NORMAL:-VERS-ALL:+VERS-TLS1.1" };

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return;
	}
	for (size_t i = 0; i < 2; i++) {
		struct tls_receiver rv = { .priority = old[i] };
		struct forward_config cfg;
		struct spool *sp;
		struct forward *f;
		const char *dir = make_tmpdir();
		char version[16], *log;

		tls_receiver_start(&rv);
		client_handshake(rv.port, old[i], version, sizeof(version));
		ck_assert_str_eq(version, i == 0 ? "TLS1.0" : "TLS1.1");
		cfg = tls_cfg(rv.port);
		ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
		stderr_capture_begin();
		f = forward_new(&cfg, sp);
		ck_assert(f != NULL);
		submit(f, 0, 2);
		pump(f, NULL, 0, 1000);
		log = stderr_capture_end();
		ck_assert_int_eq(rv.handshakes_ok, 1);	/* the control handshake only */
		ck_assert_int_ge(forward_get_stats(f)->connects, 1);
		ck_assert_uint_eq(forward_get_stats(f)->acked, 0);
		ck_assert_uint_eq(spool_get_stats(sp)->records, 2);
		pthread_mutex_lock(&rv.lock);
		ck_assert_uint_eq(rv.data.len, 0);
		pthread_mutex_unlock(&rv.lock);
		ck_assert_msg(strstr(log, "TLS handshake") != NULL, "log: %s", log);
		free(log);
		tls_receiver_stop(&rv);
		forward_free(f);
		spool_close(sp);
		tls_receiver_free(&rv);
		rm_rf(dir);
	}
}
END_TEST

/* A server the client must not trust: nothing is sent, the reason is logged, the entry kept. */
static void rejected(const char *ca, const char *name, const char *why)
{
	struct tls_receiver rv = { 0 };
	struct forward_config cfg;
	struct spool *sp;
	struct forward *f;
	const char *dir;
	char *log;

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return;
	}
	dir = make_tmpdir();
	tls_receiver_start(&rv);
	cfg = tls_cfg(rv.port);
	snprintf(cfg.tls_ca, sizeof(cfg.tls_ca), "%s", pki_file(ca));
	snprintf(cfg.tls_name, sizeof(cfg.tls_name), "%s", name);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	stderr_capture_begin();
	f = forward_new(&cfg, sp);
	ck_assert(f != NULL);
	submit(f, 0, 3);
	pump(f, NULL, 0, 1000);
	log = stderr_capture_end();
	ck_assert_int_ge(forward_get_stats(f)->connects, 2);	/* retried, with backoff */
	ck_assert_int_eq(forward_get_stats(f)->acked, 0);
	ck_assert(!forward_idle(f));
	ck_assert_uint_eq(spool_get_stats(sp)->records, 3);
	pthread_mutex_lock(&rv.lock);
	ck_assert_uint_eq(rv.data.len, 0);
	pthread_mutex_unlock(&rv.lock);
	ck_assert_msg(strstr(log, "server certificate rejected") && strstr(log, why),
		      "expected \"%s\" in the log: %s", why, log);
	/* logged once per outage, not once per attempt */
	ck_assert_ptr_eq(strstr(strstr(log, "server certificate rejected") + 1,
				"server certificate rejected"), NULL);
	free(log);
	tls_receiver_stop(&rv);
	forward_free(f);
	spool_close(sp);
	tls_receiver_free(&rv);
	rm_rf(dir);
}

START_TEST(test_tls_wrong_ca_rejected)
{
	rejected("other.pem", "localhost", "issuer is unknown");
}
END_TEST

START_TEST(test_tls_name_mismatch_rejected)
{
	rejected("ca.pem", "siem.example.org", "name in the certificate does not match");
}
END_TEST

/* Bad certificate files are errors of the configuration file, at load time. */
START_TEST(test_tls_config_errors)
{
	struct brute_config cfg;
	char text[4096];
	char *log;

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return;
	}
	config_defaults(&cfg);
	snprintf(text, sizeof(text), "siem_protocol = tls\nsiem_host = 127.0.0.1\nsiem_tls_ca = %s\n",
		 pki_file("ca.pem"));
	ck_assert_int_eq(config_parse_string("good", text, &cfg), 0);
	ck_assert_int_eq(cfg.fwd.protocol, SIEM_TLS);
	ck_assert_str_eq(cfg.fwd.port, "6514");

	static const struct { const char *ca, *cert, *key, *expect; } bad[] = {
		{ NULL, NULL, NULL, "siem_tls_ca is required" },
		{ "/nonexistent/ca.pem", NULL, NULL, "/nonexistent/ca.pem" },
		{ "garbage.pem", NULL, NULL, "garbage.pem" },
		{ "ca.pem", "clt.pem", NULL, "go together" },
		{ "ca.pem", "clt.pem", "srv.key", "siem_tls_key" },	/* key of another certificate */
		{ "ca.pem", "clt.pem", "/nonexistent/k", "/nonexistent/k" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[3][512];
		int n;

		for (int j = 0; j < 3; j++) {
			const char *v = j == 0 ? bad[i].ca : j == 1 ? bad[i].cert : bad[i].key;

			snprintf(path[j], sizeof(path[j]), "%s", !v ? "" : v[0] == '/' ? v : pki_file(v));
		}
		n = snprintf(text, sizeof(text), "siem_protocol = tls\nsiem_host = 127.0.0.1\n");
		if (path[0][0])
			n += snprintf(text + n, sizeof(text) - (size_t)n, "siem_tls_ca = %s\n", path[0]);
		if (path[1][0])
			n += snprintf(text + n, sizeof(text) - (size_t)n, "siem_tls_cert = %s\n", path[1]);
		if (path[2][0])
			snprintf(text + n, sizeof(text) - (size_t)n, "siem_tls_key = %s\n", path[2]);
		config_defaults(&cfg);
		stderr_capture_begin();
		ck_assert_int_eq(config_parse_string("bad", text, &cfg), -EINVAL);
		log = stderr_capture_end();
		ck_assert_msg(strstr(log, bad[i].expect) != NULL, "case %zu: expected \"%s\" in: %s",
			      i, bad[i].expect, log);
		ck_assert_int_eq(cfg.fwd.protocol, SIEM_NONE);	/* the old configuration stays */
		free(log);
	}
}
END_TEST

/*
 * siem_tls_priority: what GnuTLS cannot parse, and what enables TLS 1.0 or 1.1 (GnuTLS's
 * own NORMAL does), are errors of the file; a string with TLS 1.2 and 1.3 is taken.  A
 * wildcard in siem_tls_name is refused (GnuTLS takes it literally, librelp as a pattern),
 * and so is an IP address as the name to check with relp (librelp matches DNS names only).
 */
START_TEST(test_tls_priority_and_name_config)
{
	static const struct { const char *extra, *expect; } cases[] = {
		{ "siem_tls_priority = NORMAL\n", "enables TLS1.1, TLS1.0, which RFC 8996 forbids" },
		{ "siem_tls_priority = NORMAL:+VERS-TLS1.0\n", "RFC 8996" },
		{ "siem_tls_priority = NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.2\n", "enables TLS1.1" },
		{ "siem_tls_priority = NORMAL:%NOTHING_LIKE_IT\n", "GnuTLS cannot use it" },
		{ "siem_tls_priority = NORMAL:-VERS-ALL\n", "siem_tls_priority \"NORMAL:-VERS-ALL\"" },
		{ "siem_tls_name = *.example.org\n", "a wildcard is refused" },
	};
	struct brute_config cfg;
	char text[4096], *log;

	if (!make_pki()) {
		test_skip("tls: certtool (gnutls-bin) is not installed");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int relp = 0; relp < 2; relp++) {
			snprintf(text, sizeof(text), "siem_protocol = %s\nsiem_host = siem.example.org\nsiem_tls_ca = %s\n%s",
				 relp ? "relp" : "tls", pki_file("ca.pem"), cases[i].extra);
			config_defaults(&cfg);
			stderr_capture_begin();
			ck_assert_int_eq(config_parse_string("bad", text, &cfg), -EINVAL);
			log = stderr_capture_end();
			ck_assert_msg(strstr(log, cases[i].expect) != NULL, "case %zu (%s): expected \"%s\" in: %s",
				      i, relp ? "relp" : "tls", cases[i].expect, log);
			free(log);
		}
	}
	/* the default, and an operator's own floor: taken */
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.fwd.tls_priority, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2");
	snprintf(text, sizeof(text), "siem_protocol = tls\nsiem_host = 127.0.0.1\nsiem_tls_ca = %s\n"
		 "siem_tls_priority = SECURE256:-VERS-ALL:+VERS-TLS1.3\n", pki_file("ca.pem"));
	ck_assert_int_eq(config_parse_string("good", text, &cfg), 0);
	ck_assert_str_eq(cfg.fwd.tls_priority, "SECURE256:-VERS-ALL:+VERS-TLS1.3");
	/* relp over TLS with an IP address to check: refused; with a DNS name: taken */
	snprintf(text, sizeof(text), "siem_protocol = relp\nsiem_host = 127.0.0.1\nsiem_tls_ca = %s\n",
		 pki_file("ca.pem"));
	config_defaults(&cfg);
	stderr_capture_begin();
	ck_assert_int_eq(config_parse_string("relp-ip", text, &cfg), -EINVAL);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "never matches an IP address") != NULL, "%s", log);
	free(log);
	snprintf(text, sizeof(text), "siem_protocol = relp\nsiem_host = 127.0.0.1\nsiem_tls_ca = %s\n"
		 "siem_tls_name = collector.example.org\n", pki_file("ca.pem"));
	ck_assert_int_eq(config_parse_string("relp-name", text, &cfg), 0);
	/* plain relp (no CA): no certificate, no name to check */
	ck_assert_int_eq(config_parse_string("relp-plain", "siem_protocol = relp\nsiem_host = 127.0.0.1\n", &cfg), 0);
}
END_TEST

void pki_cleanup(void)
{
	if (pki[0])
		rm_rf(pki);
	pki[0] = '\0';
}

Suite *tls_suite(void)
{
	Suite *s = suite_create("tls");
	TCase *tc = tcase_create("gnutls-server");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, pki_cleanup);
	tcase_add_test(tc, test_tls_config_errors);
	tcase_add_test(tc, test_tls_delivery_and_outage);
	tcase_add_test(tc, test_tls_stalled_receiver);
	tcase_add_test(tc, test_tls_receiver_never_closes);
	tcase_add_test(tc, test_tls_client_certificate);
	tcase_add_test(tc, test_tls_floor);
	tcase_add_test(tc, test_tls_priority_and_name_config);
	tcase_add_test(tc, test_tls_wrong_ca_rejected);
	tcase_add_test(tc, test_tls_name_mismatch_rejected);
	suite_add_tcase(s, tc);
	return s;
}
