/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tls.c - GnuTLS client sessions for the forwarder, never blocking.
 */
#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

struct tls_ctx {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
};

struct tls_conn {
	gnutls_session_t s;
	int fd;
	uint64_t wire;		/* bytes written to the socket */
	uint64_t rx;		/* bytes read from it */
	char err[512];
};

int tls_priority_check(const char *priority, char *err, size_t errlen)
{
	gnutls_priority_t p;
	const unsigned *list;
	const char *where = NULL;
	char old[64] = "";
	bool modern = false;
	int r, n;

	r = gnutls_priority_init(&p, priority, &where);
	if (r < 0) {
		snprintf(err, errlen, "siem_tls_priority \"%s\": GnuTLS cannot use it%s%.40s%s: %s",
			 priority, where ? " (at \"" : "", where ? where : "", where ? "\")" : "",
			 gnutls_strerror(r));
		return -EINVAL;
	}
	n = gnutls_priority_protocol_list(p, &list);
	for (int i = 0; i < n; i++) {
		if (list[i] == GNUTLS_SSL3 || list[i] == GNUTLS_TLS1_0 || list[i] == GNUTLS_TLS1_1)
			snprintf(old + strlen(old), sizeof(old) - strlen(old), "%s%s", old[0] ? ", " : "",
				 gnutls_protocol_get_name(list[i]));
		else if (list[i] == GNUTLS_TLS1_2 || list[i] == GNUTLS_TLS1_3)
			modern = true;
	}
	gnutls_priority_deinit(p);
	if (old[0]) {
		snprintf(err, errlen, "siem_tls_priority \"%s\" enables %s, which RFC 8996 forbids: "
			 "TLS 1.2 is the floor (add \":-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2\")",
			 priority, old);
		return -EINVAL;
	}
	if (!modern) {
		snprintf(err, errlen, "siem_tls_priority \"%s\" enables neither TLS 1.2 nor TLS 1.3",
			 priority);
		return -EINVAL;
	}
	return 0;
}

int tls_ctx_new(const char *ca, const char *cert, const char *key, const char *priority,
		struct tls_ctx **ret, char *err, size_t errlen)
{
	struct tls_ctx *ctx;
	bool have_cert = cert && *cert, have_key = key && *key;
	int r;

	*ret = NULL;
	if (!ca || !*ca) {
		snprintf(err, errlen, "siem_tls_ca is required: the server certificate is always verified");
		return -EINVAL;
	}
	if (have_cert != have_key) {
		snprintf(err, errlen, "siem_tls_cert and siem_tls_key go together (one is missing)");
		return -EINVAL;
	}
	if (!priority || !*priority)
		priority = TLS_PRIORITY_DEFAULT;
	r = tls_priority_check(priority, err, errlen);
	if (r < 0)
		return r;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx || gnutls_certificate_allocate_credentials(&ctx->cred) < 0) {
		free(ctx);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r = gnutls_priority_init(&ctx->prio, priority, NULL);
	if (r < 0) {
		ctx->prio = NULL;
		snprintf(err, errlen, "siem_tls_priority: %s", gnutls_strerror(r));
		tls_ctx_free(ctx);
		return -EINVAL;
	}
	r = gnutls_certificate_set_x509_trust_file(ctx->cred, ca, GNUTLS_X509_FMT_PEM);
	if (r <= 0) {
		snprintf(err, errlen, "siem_tls_ca %s: %s", ca,
			 r == 0 ? "no PEM certificate in it" : gnutls_strerror(r));
		tls_ctx_free(ctx);
		return -EINVAL;
	}
	if (have_cert) {
		r = gnutls_certificate_set_x509_key_file(ctx->cred, cert, key, GNUTLS_X509_FMT_PEM);
		if (r < 0) {
			snprintf(err, errlen, "siem_tls_cert %s / siem_tls_key %s: %s", cert, key,
				 gnutls_strerror(r));
			tls_ctx_free(ctx);
			return -EINVAL;
		}
	}
	*ret = ctx;
	return 0;
}

void tls_ctx_free(struct tls_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->prio)
		gnutls_priority_deinit(ctx->prio);
	gnutls_certificate_free_credentials(ctx->cred);
	free(ctx);
}

static ssize_t push(gnutls_transport_ptr_t p, const void *buf, size_t len)
{
	struct tls_conn *c = p;
	ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0)
		gnutls_transport_set_errno(c->s, errno == EWOULDBLOCK ? EAGAIN : errno);
	else
		c->wire += (uint64_t)n;
	return n;
}

static ssize_t pull(gnutls_transport_ptr_t p, void *buf, size_t len)
{
	struct tls_conn *c = p;
	ssize_t n = recv(c->fd, buf, len, MSG_DONTWAIT);

	if (n < 0)
		gnutls_transport_set_errno(c->s, errno == EWOULDBLOCK ? EAGAIN : errno);
	else
		c->rx += (uint64_t)n;
	return n;
}

static bool is_ip_address(const char *name)
{
	unsigned char a[16];

	return inet_pton(AF_INET, name, a) == 1 || inet_pton(AF_INET6, name, a) == 1;
}

int tls_conn_new(struct tls_ctx *ctx, int fd, const char *name, struct tls_conn **ret,
		 char *err, size_t errlen)
{
	struct tls_conn *c = calloc(1, sizeof(*c));
	int r;

	*ret = NULL;
	if (!c) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	c->fd = fd;
	r = gnutls_init(&c->s, GNUTLS_CLIENT | GNUTLS_NONBLOCK);
	if (r == 0)
		r = gnutls_priority_set(c->s, ctx->prio);
	if (r == 0)
		r = gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, ctx->cred);
	if (r == 0 && !is_ip_address(name))	/* SNI carries DNS names only (RFC 6066) */
		r = gnutls_server_name_set(c->s, GNUTLS_NAME_DNS, name, strlen(name));
	if (r < 0) {
		snprintf(err, errlen, "TLS session setup: %s", gnutls_strerror(r));
		tls_conn_free(c);
		return -EIO;
	}
	/* the chain against the CA file and the name, checked by the handshake itself */
	gnutls_session_set_verify_cert(c->s, name, 0);
	gnutls_transport_set_ptr(c->s, c);
	gnutls_transport_set_push_function(c->s, push);
	gnutls_transport_set_pull_function(c->s, pull);
	*ret = c;
	return 0;
}

void tls_conn_free(struct tls_conn *c)
{
	if (!c)
		return;
	if (c->s)
		gnutls_deinit(c->s);	/* no close_notify: that could block; the socket is closed */
	free(c);
}

static int failed(struct tls_conn *c, const char *what, int r)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, gnutls_strerror(r));
	return r == GNUTLS_E_PUSH_ERROR || r == GNUTLS_E_PULL_ERROR ||
	       r == GNUTLS_E_PREMATURE_TERMINATION ? -EPIPE : -EIO;
}

int tls_conn_handshake(struct tls_conn *c)
{
	for (;;) {
		int r = gnutls_handshake(c->s);

		if (r == 0)
			return 0;
		if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
			return -EAGAIN;
		if (!gnutls_error_is_fatal(r))
			continue;	/* a warning alert */
		if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
			unsigned status = gnutls_session_get_verify_cert_status(c->s);
			gnutls_datum_t out = { 0 };

			if (gnutls_certificate_verification_status_print(status,
					gnutls_certificate_type_get(c->s), &out, 0) == 0) {
				size_t n = strlen((const char *)out.data);

				while (n && out.data[n - 1] == ' ')	/* GnuTLS ends it with ". " */
					out.data[--n] = '\0';
				snprintf(c->err, sizeof(c->err), "server certificate rejected: %s",
					 (const char *)out.data);
				gnutls_free(out.data);
			} else {
				snprintf(c->err, sizeof(c->err), "server certificate rejected");
			}
			return -EACCES;
		}
		return failed(c, "TLS handshake", r);
	}
}

short tls_conn_events(const struct tls_conn *c)
{
	return gnutls_record_get_direction(c->s) ? POLLOUT : POLLIN;
}

ssize_t tls_conn_send(struct tls_conn *c, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = gnutls_record_send(c->s, buf, len);

		if (n >= 0)
			return n;
		if (n == GNUTLS_E_AGAIN)
			return -EAGAIN;
		if (n == GNUTLS_E_INTERRUPTED)
			continue;
		return failed(c, "TLS send", (int)n);
	}
}

int tls_conn_drain(struct tls_conn *c)
{
	char buf[4096];

	for (;;) {
		ssize_t n = gnutls_record_recv(c->s, buf, sizeof(buf));

		if (n > 0)
			continue;	/* the receiver has nothing to say in RFC 5425 */
		/* an orderly close: close_notify, or the TCP stream's end without it (a reset is
		 * a pull error) */
		if (n == 0 || n == GNUTLS_E_PREMATURE_TERMINATION) {
			snprintf(c->err, sizeof(c->err), "closed by receiver%s",
				 n == 0 ? " (close_notify)" : "");
			return -ESHUTDOWN;
		}
		if (n == GNUTLS_E_AGAIN)
			return 0;
		if (n == GNUTLS_E_INTERRUPTED || n == GNUTLS_E_REHANDSHAKE ||
		    !gnutls_error_is_fatal((int)n))
			continue;
		return failed(c, "TLS receive", (int)n);
	}
}

int tls_conn_bye(struct tls_conn *c)
{
	for (;;) {
		int r = gnutls_bye(c->s, GNUTLS_SHUT_WR);

		if (r == 0)
			return 0;
		if (r == GNUTLS_E_AGAIN)
			return -EAGAIN;
		if (r == GNUTLS_E_INTERRUPTED)
			continue;
		return failed(c, "TLS close", r);
	}
}

uint64_t tls_conn_wire_bytes(const struct tls_conn *c)
{
	return c->wire;
}

uint64_t tls_conn_rx_bytes(const struct tls_conn *c)
{
	return c->rx;
}

bool tls_conn_is_tls13(const struct tls_conn *c)
{
	return gnutls_protocol_get_version(c->s) == GNUTLS_TLS1_3;
}

const char *tls_conn_version(const struct tls_conn *c)
{
	const char *v = gnutls_protocol_get_name(gnutls_protocol_get_version(c->s));

	return v ? v : "?";
}

const char *tls_conn_error(const struct tls_conn *c)
{
	return c->err[0] ? c->err : "TLS error";
}
