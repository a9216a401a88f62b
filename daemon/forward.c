/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forward.c - connection state machine, framing and acknowledgement.
 */
#include "forward.h"
#include "parked.h"
#include "relp.h"
#include "resolve.h"
#include "tls.h"

#include <errno.h>
#include <linux/sockios.h>
#include <linux/tcp.h>		/* struct tcp_info with tcpi_snd_wnd (glibc's lacks it) */
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define INFLIGHT_MAX	1024
#define ACK_POLL_MS	20
#define RESOLVE_POLL_MS	20
#define RESOLVE_TIMEOUT_MS 5000
#define HANDSHAKE_TIMEOUT_MS 30000	/* when siem_timeout = 0 ("never"): still bounded (a TLS
					 * handshake, the wait for a proven batch's close) */
#define TLS13_WORD_MS	1000	/* TLS 1.3: how long to wait for the server's first word */
#define PARK_RUN_MAX	8	/* RELP: refused in a row, beyond that the receiver refuses all */
#define LINGER_MS	100	/* TCP, TLS: nothing more to send for that long: the batch ends */
/*
 * TCP, TLS: a batch whose end the receiver leaves unanswered, acknowledged
 * whole by its stack, was read if that stack took more than READ_PROOF
 * times the window it offered when the connection opened (a receiver that
 * reads nothing holds about two: its buffer), or if its window shut and
 * opened again to that size.  FIRST_WND: that window, when TCP_INFO does
 * not say (the largest a SYN carries unscaled).
 */
#define READ_PROOF	4
#define FIRST_WND	65535u
#define CLOSE_GRACE_MS	200	/* a receiver known not to close: its close awaited that long */

/*
 * F_HANDSHAKE: TLS only, TCP connected, the TLS handshake in progress.
 * F_CLOSING: TCP and TLS, the batch written and our end of the stream
 * closed (TLS: close_notify, then the TCP FIN), waiting for the receiver to
 * close its end: that says it read everything (receiver_closed()).
 */
enum fstate { F_DOWN, F_CONNECTING, F_HANDSHAKE, F_UP, F_CLOSING };

struct inflight {
	uint64_t end_pos;	/* spool position after this message */
	uint64_t end_bytes;	/* connection byte count after this message */
};

struct forward {
	struct forward_config cfg;
	struct siem_format fmt;
	struct spool *spool;
	enum fstate state;
	int fd;
	uint64_t retry_at, backoff;
	bool outage_logged;

	uint64_t send_pos;
	struct strbuf cur;	/* wire bytes of the message being written */
	size_t cur_off;
	uint64_t cur_end_pos;
	bool blocked;		/* last write hit EAGAIN */
	bool up;		/* the transport carries messages (TCP connected, TLS handshake done,
				 * RELP session open); stats.connected: the receiver takes them */
	bool bye_pending;	/* TLS, F_CLOSING: close_notify not fully written yet */
	uint64_t idle_ms;	/* TCP, TLS: since when there is nothing more to send; 0: busy */

	struct inflight ring[INFLIGHT_MAX];
	size_t ring_start, ring_n;
	uint64_t written;

	struct strbuf scratch;
	struct forward_stats stats;
	uint64_t progress_ms;	/* connected, or last byte acknowledged/written */
	uint64_t acked_bytes;
	/* TCP, TLS: what tells a receiver that reads without closing its end (unanswered_end()) */
	uint32_t first_wnd;	/* the window it offered when the connection opened; 0: unknown */
	bool wnd_shut;		/* its window was seen shut on this connection, bytes waiting */
	bool no_close;		/* it read a batch and left its end open: learnt, until a failure */
	uint64_t settled_ms;	/* F_CLOSING: since when all is acknowledged, our end too; 0: not */

	bool sync_failed;		/* logged once until a flush works again */
	struct resolver resolver;	/* the receiver's name, off the loop */
	struct sockaddr_storage addr;	/* the last good address */
	socklen_t addrlen;
	int family;
	bool have_addr;

	struct tls_ctx *tls;		/* SIEM_TLS: credentials, loaded once */
	struct tls_conn *tc;		/* SIEM_TLS: the session on fd */
	bool tls_waiting;		/* TLS 1.3 handshake done, the server not heard from yet */
	uint64_t tls_rx, tls_word_deadline;
	struct relp *relp;		/* SIEM_RELP: the session thread; fd is its eventfd */
	/* RELP: after the receiver refused a message, one message per session until it is found */
	bool probing;
	unsigned probe_left;		/* messages still to send alone */
	bool refuses_all;		/* PARK_RUN_MAX in a row refused: back off, park nothing */
	struct strbuf probe_msg;	/* the message of the probe session */
	uint64_t probe_pos;		/* its spool position */
	/* refused alone, in a row: parked once a message after them is accepted */
	struct candidate {
		struct strbuf msg;
		uint64_t pos, end;
	} cand[PARK_RUN_MAX];
	unsigned ncand;
	uint64_t oldest_pos, oldest_usec;	/* forward_oldest_usec()'s cache */
};


struct forward *forward_new(const struct forward_config *cfg, struct spool *spool)
{
	struct forward *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cfg = *cfg;
	f->fmt.hostname = f->cfg.hostname;
	f->fmt.app_name = "brute-reportd";
	f->fmt.pid = (int)getpid();
	f->fmt.facility = f->cfg.facility;
	f->fmt.max_message = f->cfg.max_message;
	f->fmt.opts = &f->cfg.siem;
	f->spool = spool;
	f->fd = -1;
	f->backoff = cfg->retry_min_ms;
	f->send_pos = spool_head(spool);
	if (!f->cfg.relp_window)
		f->cfg.relp_window = RELP_WINDOW_DEFAULT;
	if (cfg->protocol == SIEM_TLS) {
		char err[768];

		if (tls_ctx_new(cfg->tls_ca, cfg->tls_cert, cfg->tls_key, cfg->tls_priority, &f->tls,
				err, sizeof(err)) < 0) {
			log_error("SIEM receiver %s:%s (tls): %s", cfg->host, cfg->port, err);
			free(f);
			return NULL;
		}
	}
	return f;
}

/*
 * The connection ends (failure, or a batch confirmed): what was sent on it
 * and not confirmed is sent again from the first such message, counted in
 * resent (the receiver may see it twice).  stats.connected is the
 * receiver's state, not the socket's: only a failure clears it.
 */
static void close_conn(struct forward *f)
{
	f->stats.resent += f->ring_n + (f->cur_off && f->cur_off < f->cur.len ? 1 : 0);
	tls_conn_free(f->tc);
	f->tc = NULL;
	f->tls_waiting = false;
	if (f->relp) {
		relp_free(f->relp);	/* owns fd */
		f->relp = NULL;
		f->fd = -1;
	}
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->state = F_DOWN;
	f->up = false;
	f->bye_pending = false;
	f->idle_ms = 0;
	f->send_pos = spool_head(f->spool);
	sb_reset(&f->cur);
	f->cur_off = 0;
	f->blocked = false;
	f->ring_start = f->ring_n = 0;
	f->written = 0;
	f->first_wnd = 0;
	f->wnd_shut = false;
	f->settled_ms = 0;
}

void forward_free(struct forward *f)
{
	if (!f)
		return;
	close_conn(f);
	resolver_free(&f->resolver);
	sb_free(&f->cur);
	sb_free(&f->scratch);
	sb_free(&f->probe_msg);
	for (unsigned i = 0; i < PARK_RUN_MAX; i++)
		sb_free(&f->cand[i].msg);
	tls_ctx_free(f->tls);
	free(f);
}

void forward_inherit(struct forward *f, struct forward *old)
{
	struct forward_stats *n = &f->stats;
	const struct forward_stats *o = &old->stats;

	close_conn(old);
	n->connects += o->connects;
	n->failures += o->failures;
	n->sent += o->sent;
	n->acked += o->acked;
	n->skipped += o->skipped;
	n->refused += o->refused;
	n->parked += o->parked;
	n->park_failed += o->park_failed;
	n->stalls += o->stalls;
	n->resolve_timeouts += o->resolve_timeouts;
	n->resent += o->resent;
	n->unconfirmed += o->unconfirmed;
	n->last_delivery_usec = o->last_delivery_usec;
	n->last_error_usec = o->last_error_usec;
	snprintf(n->last_error, sizeof(n->last_error), "%s", o->last_error);
	if (f->cfg.protocol == old->cfg.protocol && !strcmp(f->cfg.host, old->cfg.host) &&
	    !strcmp(f->cfg.port, old->cfg.port)) {
		n->connected = o->connected;
		f->outage_logged = old->outage_logged;
		f->no_close = old->no_close;
	}
}

/* what failed and why, logged once per outage; then back off */
static void fail_msg(struct forward *f, uint64_t now_ms, const char *what, const char *why)
{
	f->stats.failures++;
	f->stats.connected = false;
	f->no_close = false;	/* whatever receiver comes next shows again how it ends a batch */
	f->stats.last_error_usec = now_realtime_usec();
	snprintf(f->stats.last_error, sizeof(f->stats.last_error), "%s: %s", what, why);
	if (!f->outage_logged) {
		log_warning("SIEM receiver %s:%s (%s): %s: %s; spooling, will retry",
			    f->cfg.host, f->cfg.port, siem_protocol_name(f->cfg.protocol),
			    what, why);
		f->outage_logged = true;
	}
	close_conn(f);
	f->retry_at = now_ms + f->backoff;
	f->backoff = f->backoff * 2 > f->cfg.retry_max_ms ? f->cfg.retry_max_ms : f->backoff * 2;
}

static void fail(struct forward *f, uint64_t now_ms, const char *what, int err)
{
	fail_msg(f, now_ms, what, err ? strerror(err) : "connection closed");
}

/* ---- name resolution, off the event loop (resolve.h) ---- */

static uint64_t resolve_timeout_ms(const struct forward *f)
{
	uint64_t t = f->cfg.timeout_ms ? f->cfg.timeout_ms : RESOLVE_TIMEOUT_MS;

	return t < RESOLVE_TIMEOUT_MS ? t : RESOLVE_TIMEOUT_MS;
}

static void connect_to(struct forward *f, uint64_t now_ms);

/* The address is known (numeric, resolved, or the last good one on a timeout): connect. */
static void resolved(struct forward *f, const struct addrinfo *ai, uint64_t now_ms)
{
	if (ai) {
		memcpy(&f->addr, ai->ai_addr, ai->ai_addrlen);
		f->addrlen = ai->ai_addrlen;
		f->family = ai->ai_family;
		f->have_addr = true;
	}
	connect_to(f, now_ms);
}

static void resolve_failed(struct forward *f, uint64_t now_ms, const char *why)
{
	if (f->have_addr) {
		if (!f->outage_logged)
			log_warning("SIEM receiver %s:%s: cannot resolve (%s): using its last address",
				    f->cfg.host, f->cfg.port, why);
		connect_to(f, now_ms);
		return;
	}
	if (!f->outage_logged)
		log_warning("SIEM receiver %s:%s: cannot resolve: %s", f->cfg.host, f->cfg.port, why);
	f->outage_logged = true;
	fail(f, now_ms, "resolve", EHOSTUNREACH);
}

/*
 * A numeric address is used at once; a name is resolved by
 * getaddrinfo_a() in glibc's thread and polled from the loop, for at most
 * resolve_timeout_ms(): a resolver that does not answer never blocks the
 * loop, and the last good address is used meanwhile.
 */
static void start_connect(struct forward *f, uint64_t now_ms)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	int r;

	if (f->cfg.protocol == SIEM_RELP) {
		/* librelp resolves, connects and opens the session in its own thread */
		uint64_t t = f->cfg.timeout_ms ? f->cfg.timeout_ms : HANDSHAKE_TIMEOUT_MS;

		struct relp_tls tls = { f->cfg.tls_ca, f->cfg.tls_cert, f->cfg.tls_key,
					f->cfg.tls_name[0] ? f->cfg.tls_name : f->cfg.host,
					f->cfg.tls_priority[0] ? f->cfg.tls_priority : TLS_PRIORITY_DEFAULT };

		f->relp = relp_new(f->cfg.host, f->cfg.port, (unsigned)((t + 999) / 1000),
				   f->cfg.relp_window, &tls, f->probing);
		if (!f->relp) {
			fail(f, now_ms, "RELP session", ENOMEM);
			return;
		}
		f->stats.connects++;
		f->fd = relp_fd(f->relp);
		f->state = F_UP;
		f->progress_ms = now_ms;
		return;
	}

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = f->cfg.protocol == SIEM_UDP ? SOCK_DGRAM : SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(f->cfg.host, f->cfg.port, &hints, &res) == 0) {
		resolved(f, res, now_ms);
		freeaddrinfo(res);
		return;
	}
	if (resolver_busy(&f->resolver))
		return;
	r = resolver_start(&f->resolver, f->cfg.host, f->cfg.port, hints.ai_socktype,
			   now_ms + resolve_timeout_ms(f));
	if (r < 0)
		resolve_failed(f, now_ms, r == -ENOMEM ? strerror(ENOMEM) : "cannot start the resolver");
}

/* Called from the loop while a resolution is in flight. */
static void poll_resolve(struct forward *f, uint64_t now_ms)
{
	const struct addrinfo *ai = NULL;
	const char *why = "";
	int r = resolver_poll(&f->resolver, now_ms, &ai, &why);

	if (r == RESOLVE_PENDING)
		return;
	if (r == -ETIMEDOUT)
		f->stats.resolve_timeouts++;
	if (r == 0)
		resolved(f, ai, now_ms);
	else
		resolve_failed(f, now_ms, why);
}

static void connected(struct forward *f, uint64_t now_ms);
static void handshake(struct forward *f, uint64_t now_ms);

/* TCP, TLS: the window the receiver offers now (TCP_INFO); false when the kernel does not say. */
static bool peer_window(const struct forward *f, uint32_t *wnd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(ti.tcpi_snd_wnd))
		return false;
	*wnd = ti.tcpi_snd_wnd;
	return true;
}

/* TCP is up: TLS starts its handshake, the others are ready. */
static void tcp_connected(struct forward *f, uint64_t now_ms)
{
	char err[768];

	if (!peer_window(f, &f->first_wnd))
		f->first_wnd = 0;
	if (f->cfg.protocol != SIEM_TLS) {
		connected(f, now_ms);
		return;
	}
	if (tls_conn_new(f->tls, f->fd, f->cfg.tls_name[0] ? f->cfg.tls_name : f->cfg.host,
			 &f->tc, err, sizeof(err)) < 0) {
		fail_msg(f, now_ms, "TLS", err);
		return;
	}
	f->state = F_HANDSHAKE;
	handshake(f, now_ms);
}

/*
 * TLS 1.3: the client's handshake ends before the server has checked what
 * the client sent last (its certificate, if the server asks for one), so a
 * server that refuses us does so after we would have started writing
 * entries, which its TCP stack takes and acknowledges: lost.  So wait for
 * the server's first word after the handshake (a session ticket, which
 * GnuTLS and OpenSSL servers send once they accepted the client; or the
 * refusal), for up to TLS13_WORD_MS; a server that sends no ticket costs
 * that delay once per connection.
 */
static void await_first_word(struct forward *f, uint64_t now_ms)
{
	if (tls_conn_drain(f->tc) < 0) {
		fail_msg(f, now_ms, "TLS handshake", tls_conn_error(f->tc));
		return;
	}
	if (tls_conn_rx_bytes(f->tc) > f->tls_rx || now_ms >= f->tls_word_deadline) {
		f->tls_waiting = false;
		connected(f, now_ms);
	}
}

/* One non-blocking step; bounded by siem_timeout from the start of the connect. */
static void handshake(struct forward *f, uint64_t now_ms)
{
	uint64_t limit = f->cfg.timeout_ms ? f->cfg.timeout_ms : HANDSHAKE_TIMEOUT_MS;
	int r;

	if (f->tls_waiting) {
		await_first_word(f, now_ms);
		return;
	}
	r = tls_conn_handshake(f->tc);
	if (r == 0 && tls_conn_is_tls13(f->tc)) {
		f->tls_waiting = true;
		f->tls_rx = tls_conn_rx_bytes(f->tc);
		f->tls_word_deadline = now_ms + TLS13_WORD_MS;
		await_first_word(f, now_ms);
		return;
	}
	if (r == 0) {
		connected(f, now_ms);
		return;
	}
	if (r != -EAGAIN) {
		fail_msg(f, now_ms, "TLS handshake", tls_conn_error(f->tc));
		return;
	}
	if (now_ms - f->progress_ms >= limit)
		fail(f, now_ms, "TLS handshake", ETIMEDOUT);
}

static void connect_to(struct forward *f, uint64_t now_ms)
{
	int r, one = 1;

	f->fd = socket(f->family, (f->cfg.protocol == SIEM_UDP ? SOCK_DGRAM : SOCK_STREAM) |
		       SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->fd < 0) {
		fail(f, now_ms, "socket", errno);
		return;
	}
	if (f->cfg.protocol != SIEM_UDP)
		setsockopt(f->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	f->stats.connects++;
	r = connect(f->fd, (struct sockaddr *)&f->addr, f->addrlen);
	if (r < 0 && errno != EINPROGRESS) {
		fail(f, now_ms, "connect", errno);
		return;
	}
	f->state = F_CONNECTING;
	f->progress_ms = now_ms;
	f->acked_bytes = 0;
	if (r == 0)
		tcp_connected(f, now_ms);
}

/* The receiver takes entries again after an outage: said once. */
static void receiver_back(struct forward *f)
{
	if (f->outage_logged)
		log_notice("SIEM receiver %s:%s takes entries again (%llu queued)",
			   f->cfg.host, f->cfg.port,
			   (unsigned long long)spool_get_stats(f->spool)->records);
	f->outage_logged = false;
}

static void connected(struct forward *f, uint64_t now_ms)
{
	f->progress_ms = now_ms;
	f->acked_bytes = 0;
	f->state = F_UP;
	f->up = true;
	f->idle_ms = 0;
	/* UDP: a datagram counts as delivered once sent; RELP: the receiver answered "open".
	 * TCP and TLS: only a confirmed batch says the receiver reads (receiver_closed()). */
	if (f->cfg.protocol == SIEM_UDP || f->relp) {
		f->stats.connected = true;
		receiver_back(f);
	}
}

/* The first position still to send: the spool's head, or after the refused ones. */
static uint64_t resume_pos(const struct forward *f)
{
	return f->ncand ? f->cand[f->ncand - 1].end : spool_head(f->spool);
}

/* A message after the refused ones was accepted: they were the receiver's problem: parked. */
static void park_candidates(struct forward *f)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", spool_dir(f->spool));
	for (unsigned i = 0; i < f->ncand; i++) {
		struct candidate *c = &f->cand[i];
		int r = parked_keep(dir, c->pos, c->msg.buf ? c->msg.buf : "", c->msg.len);

		f->stats.parked++;
		if (r <= 0)
			f->stats.park_failed++;
		if (r > 0 && f->stats.parked <= 16)
			log_error("SIEM receiver %s:%s (relp) refused the message at %llu and accepted the ones after it: parked in %s/%s, counted",
				  f->cfg.host, f->cfg.port, (unsigned long long)c->pos, dir, PARKED_FILE);
		else if (r <= 0)
			log_error("SIEM receiver %s:%s (relp) refused the message at %llu: cannot keep it in %s/%s (%s): dropped, counted",
				  f->cfg.host, f->cfg.port, (unsigned long long)c->pos, dir, PARKED_FILE,
				  r == 0 ? "the file is full" : strerror(-r));
		sb_reset(&c->msg);
	}
	f->ncand = 0;
}

/*
 * RELP: the receiver answered a message with an error.  Resending the
 * window would be refused again, forever, holding back everything after
 * it: instead the unacknowledged messages are sent one per session
 * (probing) to find which; a message refused alone is set aside, and
 * parked (kept, counted: parked.h) once a message after it is accepted.
 * PARK_RUN_MAX refused in a row mean the receiver refuses everything:
 * nothing is parked, everything stays spooled, retried with backoff.
 */
static void relp_refused(struct forward *f, uint64_t now_ms, const char *err)
{
	struct candidate *c;

	if (f->refuses_all) {
		fail_msg(f, now_ms, "RELP", err);
		return;
	}
	if (!f->probing) {
		log_warning("SIEM receiver %s:%s (relp) refused a message (%s): sending the %zu unacknowledged one(s) one per session to find it",
			    f->cfg.host, f->cfg.port, err, f->ring_n ? f->ring_n : (size_t)1);
		f->probing = true;
		f->probe_left = f->ring_n ? (unsigned)f->ring_n : 1;
		close_conn(f);
		f->retry_at = now_ms;	/* at once: the receiver is up */
		return;
	}
	if (f->ncand == PARK_RUN_MAX || !f->ring_n) {
		log_error("SIEM receiver %s:%s (relp) refuses every message (%u in a row, %s): nothing is parked, the entries stay spooled, retried with backoff",
			  f->cfg.host, f->cfg.port, f->ncand + 1, err);
		for (unsigned i = 0; i < f->ncand; i++)
			sb_reset(&f->cand[i].msg);
		f->ncand = 0;
		f->refuses_all = true;
		f->probing = false;
		fail_msg(f, now_ms, "RELP", err);
		return;
	}
	/* the probe's one message: set aside; the next one is sent alone too */
	c = &f->cand[f->ncand++];
	sb_reset(&c->msg);
	sb_put(&c->msg, f->probe_msg.buf ? f->probe_msg.buf : "", f->probe_msg.len);
	c->pos = f->probe_pos;
	c->end = f->ring[f->ring_start].end_pos;
	if (f->probe_left < 1)
		f->probe_left = 1;
	close_conn(f);
	f->send_pos = resume_pos(f);
	f->retry_at = now_ms;
}

/* RELP: messages the receiver acknowledged leave the spool; a broken session is a failure. */
static void check_relp(struct forward *f, uint64_t now_ms)
{
	uint64_t acked;
	bool up, refused;
	char err[512];

	bool ok = relp_collect(f->relp, &acked, &up, &refused, err, sizeof(err));

	if (ok && up && !f->up)
		connected(f, now_ms);
	while (f->ring_n && f->ring[f->ring_start].end_pos <= acked) {
		/* accepted: the receiver takes messages; those it refused before are parked */
		park_candidates(f);
		f->refuses_all = false;
		spool_ack(f->spool, f->ring[f->ring_start].end_pos);
		f->ring_start = (f->ring_start + 1) % INFLIGHT_MAX;
		f->ring_n--;
		f->stats.acked++;
		f->stats.last_delivery_usec = now_realtime_usec();
		f->progress_ms = now_ms;
		f->backoff = f->cfg.retry_min_ms;
		if (f->probing && --f->probe_left == 0) {
			f->probing = false;
			log_notice("SIEM receiver %s:%s (relp): back to sending windows of %u",
				   f->cfg.host, f->cfg.port, f->cfg.relp_window);
			close_conn(f);	/* the next session is a normal one */
			f->retry_at = now_ms;
			return;
		}
	}
	if (!f->ring_n)
		f->progress_ms = now_ms;
	/* what was acknowledged before the session broke is applied first (above) */
	if (!ok && refused)
		relp_refused(f, now_ms, err);
	else if (!ok)
		fail_msg(f, now_ms, "RELP", err);
}

/* The messages whose bytes end at or before upto (the connection's count) are delivered. */
static size_t confirm(struct forward *f, uint64_t upto, uint64_t now_ms)
{
	size_t n = 0;

	while (f->ring_n && f->ring[f->ring_start].end_bytes <= upto) {
		spool_ack(f->spool, f->ring[f->ring_start].end_pos);
		f->ring_start = (f->ring_start + 1) % INFLIGHT_MAX;
		f->ring_n--;
		n++;
	}
	if (n) {
		f->stats.acked += n;
		f->stats.last_delivery_usec = now_realtime_usec();
		f->backoff = f->cfg.retry_min_ms;
		f->progress_ms = now_ms;
	}
	return n;
}

/* TCP, TLS: the bytes of this connection the receiving TCP stack acknowledged. */
static uint64_t wire_acked(const struct forward *f)
{
	int outq = 0;

	if (ioctl(f->fd, SIOCOUTQ, &outq) < 0 || outq < 0 || (uint64_t)outq > f->written)
		return f->acked_bytes;
	return f->written - (uint64_t)outq;
}

/*
 * Progress.  UDP: a datagram is delivered once sent.  RELP: what the
 * receiver acknowledged.  TCP and TLS: what the receiving TCP stack
 * acknowledged is progress (the receiver is not stalled), not delivery: a
 * receiver that stops reading still has its stack take a socket buffer of
 * messages, which it would never read.  Those messages stay spooled until
 * the receiver closes its end of the stream in order (receiver_closed()).
 */
static void check_acks(struct forward *f, uint64_t now_ms)
{
	uint64_t acked;

	if (f->relp) {
		check_relp(f, now_ms);
		return;
	}
	if (f->cfg.protocol == SIEM_UDP) {
		confirm(f, f->written, now_ms);
		return;
	}
	if (f->ring_n == 0 && f->cur_off == 0 && f->state != F_CLOSING)
		return;
	acked = wire_acked(f);
	if (acked > f->acked_bytes) {
		f->acked_bytes = acked;
		f->progress_ms = now_ms;
	}
	if (acked < f->written && !f->wnd_shut) {
		uint32_t wnd;

		f->wnd_shut = peer_window(f, &wnd) && wnd == 0;
	}
}

/*
 * TCP, TLS: the receiver closed its end of the stream in order (a FIN;
 * TLS: close_notify or a FIN).  A socket closed with unread data is reset
 * instead (RFC 1122, 4.2.2.13; every TCP stack does so), and data that
 * arrives after the close is answered with a reset: so the receiver read
 * every byte its stack had acknowledged by then.  Those messages are
 * delivered; the rest are sent again on a new connection.  Normally this
 * answers our own end of stream (start_close()), the batch complete.
 */
static void receiver_closed(struct forward *f, uint64_t now_ms)
{
	if (confirm(f, wire_acked(f), now_ms)) {
		f->stats.connected = true;
		f->no_close = false;	/* it does close its end */
		receiver_back(f);
	}
	if (!f->ring_n && !f->cur_off) {
		close_conn(f);
		f->retry_at = now_ms;	/* more to send: at once */
		return;
	}
	fail(f, now_ms, "closed by receiver", 0);
}

/*
 * TCP, TLS, F_CLOSING: every byte written and our end of the stream
 * (close_notify, FIN) acknowledged by the receiver's stack, its window open.
 */
static bool settled(const struct forward *f)
{
	int outq = 0;
	uint32_t wnd;

	if (f->bye_pending || ioctl(f->fd, SIOCOUTQ, &outq) < 0 || outq != 0)
		return false;
	return !peer_window(f, &wnd) || wnd > 0;
}

/*
 * A settled batch was read, not only held by the receiver's stack: that
 * stack took more than a receiver that reads nothing can hold (READ_PROOF
 * windows), or its window shut and opened again as wide as at first.
 */
static bool read_proven(const struct forward *f)
{
	uint32_t first = f->first_wnd ? f->first_wnd : FIRST_WND, wnd;

	if (f->written > (uint64_t)READ_PROOF * first)
		return true;
	return f->wnd_shut && peer_window(f, &wnd) && wnd >= first;
}

/*
 * The receiver read the batch and leaves its end of the stream open (it
 * closes idle connections late or never, or a proxy keeps the half-close
 * from it): the batch is delivered, counted as unconfirmed, not sent again.
 */
static void take_unconfirmed(struct forward *f, uint64_t now_ms)
{
	size_t n = confirm(f, f->written, now_ms);

	f->stats.unconfirmed += n;
	f->stats.connected = true;
	receiver_back(f);
	if (!f->no_close)
		log_notice("SIEM receiver %s:%s (%s) read %zu entries (its stack acknowledged %llu bytes, more than it holds unread) and left its end of the stream open: delivered, counted as unconfirmed; so are its later batches once acknowledged, until a failure",
			   f->cfg.host, f->cfg.port, siem_protocol_name(f->cfg.protocol), n,
			   (unsigned long long)f->written);
	f->no_close = true;
	close_conn(f);
	f->retry_at = now_ms;
}

/* TCP, TLS, F_CLOSING: how long the close of a batch proven read is awaited */
static uint64_t close_wait_ms(const struct forward *f)
{
	return f->cfg.timeout_ms ? f->cfg.timeout_ms : HANDSHAKE_TIMEOUT_MS;
}

/*
 * TCP, TLS, F_CLOSING: the receiver has not closed its end.  A settled
 * batch is taken as delivered (take_unconfirmed()) when the receiver is
 * known not to close (after CLOSE_GRACE_MS), or after close_wait_ms() when
 * it is proven read.  Anything else waits for the close, or for the
 * timeout that treats the receiver as stalled.  True if the batch was taken.
 */
static bool unanswered_end(struct forward *f, uint64_t now_ms)
{
	bool timed_out = now_ms - f->progress_ms >= close_wait_ms(f);

	if (!settled(f)) {
		f->settled_ms = 0;
		return false;
	}
	if (!f->settled_ms)
		f->settled_ms = now_ms;
	if (f->no_close ? now_ms - f->settled_ms < CLOSE_GRACE_MS : !(timed_out && read_proven(f)))
		return false;
	take_unconfirmed(f, now_ms);
	return true;
}

/* Our end of the stream: TLS close_notify (again when it did not fit), then the FIN. */
static void send_end(struct forward *f, uint64_t now_ms)
{
	if (f->tc) {
		int r = tls_conn_bye(f->tc);

		f->written = tls_conn_wire_bytes(f->tc);
		if (r == -EAGAIN) {
			f->bye_pending = true;
			return;
		}
		if (r < 0) {
			fail_msg(f, now_ms, "TLS close", tls_conn_error(f->tc));
			return;
		}
		f->bye_pending = false;
	}
	if (shutdown(f->fd, SHUT_WR) < 0)
		fail(f, now_ms, "shutdown", errno);
}

/* TCP, TLS: the batch is written: end our side of the stream, wait for the receiver's end. */
static void start_close(struct forward *f, uint64_t now_ms)
{
	f->state = F_CLOSING;
	f->progress_ms = now_ms;
	send_end(f, now_ms);
}

/* Format the next spooled message into f->cur; false if none. */
static bool load_next(struct forward *f)
{
	for (;;) {
		struct entry e;
		uint64_t next;
		int r = spool_read(f->spool, f->send_pos, &f->scratch, &next);

		if (r == -ESPIPE) {	/* dropped while we were behind */
			f->send_pos = spool_head(f->spool);
			continue;
		}
		if (r < 0)
			return false;
		sb_reset(&f->cur);
		if (entry_deserialize(f->scratch.buf, f->scratch.len, &e) < 0 ||
		    siem_format_wire(f->cfg.protocol, &e, &f->fmt, &f->cur) < 0) {
			/* can't happen for what we wrote; don't block the queue */
			log_error("spool: undecodable message at %llu skipped",
				  (unsigned long long)f->send_pos);
			entry_free(&e);
			f->stats.skipped++;
			if (f->ring_n == 0)
				spool_ack(f->spool, next);
			f->send_pos = next;
			continue;
		}
		entry_free(&e);
		f->cur_off = 0;
		f->cur_end_pos = next;
		return true;
	}
}

static void pump(struct forward *f, uint64_t now_ms)
{
	f->blocked = false;
	while (f->state == F_UP) {
		ssize_t n;

		if (f->cur.len == 0) {
			if (f->ring_n == INFLIGHT_MAX || (f->probing && f->ring_n))
				return;
			if (!load_next(f)) {
				if (!f->idle_ms)
					f->idle_ms = now_ms ? now_ms : 1;
				return;
			}
			f->idle_ms = 0;
		}
		if (f->relp) {
			if (f->probing) {
				sb_reset(&f->probe_msg);
				sb_put(&f->probe_msg, f->cur.buf, f->cur.len);
				f->probe_pos = f->send_pos;
			}
			int r = relp_send(f->relp, f->cur.buf, f->cur.len, f->cur_end_pos);

			if (r == -EAGAIN)
				return;		/* queue full: the session thread wakes us */
			if (r < 0) {
				fail(f, now_ms, "RELP queue", -r);
				return;
			}
			f->cur_off = f->cur.len;
			f->stats.sent++;
			goto sent;
		}
		if (f->tc) {
			n = tls_conn_send(f->tc, f->cur.buf + f->cur_off, f->cur.len - f->cur_off);
			if (n == -EAGAIN) {
				f->blocked = true;
				return;
			}
			if (n < 0) {
				fail_msg(f, now_ms, "send", tls_conn_error(f->tc));
				return;
			}
			f->cur_off += (size_t)n;
			/* what reached the socket, TLS records and all: SIOCOUTQ's unit */
			f->written = tls_conn_wire_bytes(f->tc);
			if (f->cur_off < f->cur.len)
				continue;
			f->stats.sent++;
			goto sent;
		}
		n = send(f->fd, f->cur.buf + f->cur_off, f->cur.len - f->cur_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				f->blocked = true;
				return;
			}
			if (errno == EMSGSIZE && f->cfg.protocol == SIEM_UDP) {
				/* never retried: one message must not block every later one */
				if (f->stats.refused++ == 0)
					log_error("SIEM receiver %s:%s: a %zu-byte datagram is too long (%s), dropped; lower siem_max_message (further drops are only counted)",
						  f->cfg.host, f->cfg.port, f->cur.len, strerror(errno));
				f->cur_off = f->cur.len;
				goto sent;
			}
			fail(f, now_ms, "send", errno);
			return;
		}
		f->cur_off += (size_t)n;
		f->written += (uint64_t)n;
		if (f->cur_off < f->cur.len)
			continue;
		f->stats.sent++;
sent:
		f->ring[(f->ring_start + f->ring_n) % INFLIGHT_MAX] =
			(struct inflight){ f->cur_end_pos, f->written };
		f->ring_n++;
		f->send_pos = f->cur_end_pos;
		sb_reset(&f->cur);
		f->cur_off = 0;
		if (f->cfg.protocol == SIEM_UDP)
			check_acks(f, now_ms);
	}
}

void forward_dispatch(struct forward *f, short revents, uint64_t now_ms)
{
	/* group commit: the entries of this loop iteration, one fdatasync, before sending */
	if (spool_flush(f->spool) < 0) {
		if (!f->sync_failed)
			log_error("spool: fdatasync failed: %m (entries are kept, not yet durable)");
		f->sync_failed = true;
	} else {
		f->sync_failed = false;
	}
	if (f->resolver.abandoned)
		resolver_collect(&f->resolver);
	if (f->state == F_DOWN && resolver_busy(&f->resolver)) {
		poll_resolve(f, now_ms);
		if (f->state == F_DOWN)
			return;
		revents = 0;
	} else if (f->state == F_DOWN) {
		if (spool_empty(f->spool) || now_ms < f->retry_at || resume_pos(f) >= spool_tail(f->spool))
			return;
		f->send_pos = resume_pos(f);
		start_connect(f, now_ms);
		if (f->state == F_DOWN)
			return;
		revents = 0;
	}
	if (f->state == F_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (!(revents & (POLLOUT | POLLERR | POLLHUP))) {
			if (f->cfg.timeout_ms && now_ms - f->progress_ms >= f->cfg.timeout_ms)
				fail(f, now_ms, "connect", ETIMEDOUT);
			return;
		}
		if (getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err) {
			fail(f, now_ms, "connect", err);
			return;
		}
		tcp_connected(f, now_ms);
		revents = 0;
		if (f->state != F_UP)
			return;
	}
	if (f->state == F_HANDSHAKE) {
		handshake(f, now_ms);	/* -EAGAIN at once if nothing came: checks the time */
		if (f->state != F_UP)
			return;
		revents = 0;
	}
	if (f->state == F_CLOSING && f->bye_pending) {
		send_end(f, now_ms);	/* the rest of close_notify */
		if (f->state != F_CLOSING)
			return;
	}

	/* the receiver never talks; readable means closed or error (TLS: or a
	 * post-handshake message such as a TLS 1.3 session ticket, discarded) */
	if (f->relp) {
		/* the eventfd: progress is collected by check_acks() */
	} else if (f->tc && (revents & (POLLIN | POLLERR | POLLHUP))) {
		int r = tls_conn_drain(f->tc);

		if (r == -ESHUTDOWN) {
			receiver_closed(f, now_ms);
			return;
		}
		if (r < 0) {
			fail_msg(f, now_ms, "receive", tls_conn_error(f->tc));
			return;
		}
	} else if (revents & (POLLIN | POLLERR | POLLHUP)) {
		char buf[512];
		ssize_t n = recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n == 0 && f->cfg.protocol != SIEM_UDP) {
			receiver_closed(f, now_ms);
			return;
		}
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			/* ECONNREFUSED here: a UDP receiver port is closed */
			fail(f, now_ms, n == 0 ? "closed by receiver" : "receive", n == 0 ? 0 : errno);
			return;
		}
	}
	check_acks(f, now_ms);
	pump(f, now_ms);
	if (f->state == F_UP)
		check_acks(f, now_ms);
	/* TCP, TLS: a full batch, or nothing more to send for LINGER_MS: end of stream */
	if (f->state == F_UP && !f->relp && f->cfg.protocol != SIEM_UDP && !f->cur.len &&
	    (f->ring_n == INFLIGHT_MAX || (f->idle_ms && now_ms - f->idle_ms >= LINGER_MS))) {
		if (f->ring_n)
			start_close(f, now_ms);
		else
			close_conn(f);	/* nothing was sent on it (the spool emptied meanwhile) */
	}
	if (f->state == F_CLOSING && unanswered_end(f, now_ms))
		return;
	/* data pending and nothing taken for timeout_ms: the receiver stopped reading */
	if (f->state == F_UP && f->cfg.timeout_ms && f->relp && (f->ring_n || f->cur.len) && !f->up) {
		/* still connecting: librelp bounds that by the same timeout */
	} else if ((f->state == F_UP || f->state == F_CLOSING) && f->cfg.timeout_ms &&
		   f->cfg.protocol != SIEM_UDP && (f->ring_n || f->cur.len) &&
		   now_ms - f->progress_ms >= f->cfg.timeout_ms) {
		f->stats.stalls++;
		if (!f->outage_logged)
			log_warning("SIEM receiver %s:%s (%s) confirmed nothing for %llu ms with %zu message(s) pending: %s; reconnecting, they are sent again",
				    f->cfg.host, f->cfg.port, siem_protocol_name(f->cfg.protocol),
				    (unsigned long long)(now_ms - f->progress_ms),
				    f->ring_n + (f->cur.len ? 1 : 0),
				    f->state == F_CLOSING && settled(f) ?
				    "its stack holds them, too few to tell whether it read them (it stopped reading, or never closes its end)" :
				    "it stopped reading");
		fail(f, now_ms, "no progress", ETIMEDOUT);
	}
}

bool forward_pollfd(const struct forward *f, struct pollfd *pfd)
{
	if (f->fd < 0)
		return false;
	pfd->fd = f->fd;
	if (f->state == F_HANDSHAKE)
		pfd->events = f->tls_waiting ? POLLIN : tls_conn_events(f->tc);
	else if (f->state == F_CLOSING)
		pfd->events = (short)(POLLIN | (f->bye_pending ? tls_conn_events(f->tc) : 0));
	else
		pfd->events = f->state == F_CONNECTING ? POLLOUT :
			      (short)(POLLIN | (f->blocked ? POLLOUT : 0));
	pfd->revents = 0;
	return true;
}

uint64_t forward_next_deadline(const struct forward *f, uint64_t now_ms)
{
	if (f->state == F_DOWN && (resolver_busy(&f->resolver) || f->resolver.abandoned))
		return now_ms + RESOLVE_POLL_MS;
	if (f->state == F_DOWN)	/* nothing to send but the refused ones: wait for more */
		return resume_pos(f) >= spool_tail(f->spool) ? UINT64_MAX : f->retry_at;
	if (f->state == F_UP && f->ring_n)
		return now_ms + ACK_POLL_MS;
	if (f->state == F_UP && f->idle_ms && !f->relp && f->cfg.protocol != SIEM_UDP)
		return f->idle_ms + LINGER_MS;
	if (f->state == F_CLOSING && f->bye_pending)
		return f->cfg.timeout_ms ? f->progress_ms + f->cfg.timeout_ms : UINT64_MAX;
	if (f->state == F_CLOSING && f->no_close)	/* polled until settled, then the grace */
		return now_ms + ACK_POLL_MS;
	if (f->state == F_CLOSING)	/* acknowledgements polled, then the receiver's end awaited */
		return f->acked_bytes < f->written ? now_ms + ACK_POLL_MS : f->progress_ms + close_wait_ms(f);
	if (f->state == F_HANDSHAKE && f->tls_waiting)
		return f->tls_word_deadline;
	if (f->state == F_HANDSHAKE)
		return f->progress_ms + (f->cfg.timeout_ms ? f->cfg.timeout_ms : HANDSHAKE_TIMEOUT_MS);
	if ((f->state == F_CONNECTING || (f->state == F_UP && f->cur.len)) && f->cfg.timeout_ms)
		return f->progress_ms + f->cfg.timeout_ms;
	return UINT64_MAX;
}

uint64_t forward_oldest_usec(struct forward *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct entry e;
	uint64_t at, next;

	if (spool_empty(f->spool))
		return 0;
	if (f->oldest_pos == spool_head(f->spool) && f->oldest_usec)
		return f->oldest_usec;
	f->oldest_usec = 0;
	if (spool_read_at(f->spool, spool_head(f->spool), &sb, &at, &next) == 0 &&
	    entry_deserialize(sb.buf, sb.len, &e) == 0) {
		f->oldest_usec = e.timestamp_usec ? e.timestamp_usec : 1;
		f->oldest_pos = spool_head(f->spool);
		entry_free(&e);
	}
	sb_free(&sb);
	return f->oldest_usec;
}

bool forward_idle(const struct forward *f)
{
	return spool_empty(f->spool);
}

int forward_submit(struct forward *f, const struct entry *e)
{
	struct strbuf sb = STRBUF_INIT;
	int r = entry_serialize(e, &sb);

	if (r == 0)
		r = spool_append(f->spool, sb.buf, sb.len);
	sb_free(&sb);
	return r;
}

const struct forward_stats *forward_get_stats(const struct forward *f)
{
	return &f->stats;
}
