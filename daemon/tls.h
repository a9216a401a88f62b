/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tls.h - syslog over TLS (RFC 5425) with GnuTLS, on a non-blocking socket.
 *
 * A tls_ctx holds the credentials (CA file, optional client certificate and
 * key), loaded once: a bad file is reported when the configuration is loaded.
 * A tls_conn wraps one connected non-blocking TCP socket; nothing here ever
 * waits: every call returns -EAGAIN when the socket would block, and
 * tls_conn_events() says which poll() event the connection waits for.
 * The server certificate is verified against the CA file, and its name
 * against the expected name (siem_tls_name, else siem_host) during the
 * handshake.  tls_conn_wire_bytes() counts the bytes written to the socket
 * (records, headers and tags included), which is what SIOCOUTQ measures, so
 * the forwarder's "acknowledged by the receiving TCP stack" works unchanged.
 * tls_conn_bye() ends a batch (close_notify); tls_conn_drain() tells the
 * server's orderly close (-ESHUTDOWN) from a failure.
 */
#ifndef BRUTE_TLS_H
#define BRUTE_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tls_ctx;
struct tls_conn;

/*
 * The default GnuTLS priority string (siem_tls_priority): GnuTLS's NORMAL
 * ciphers, TLS 1.3 and 1.2 only (RFC 8996 forbids TLS 1.0 and 1.1, which
 * NORMAL still allows in GnuTLS 3.7).
 */
#define TLS_PRIORITY_DEFAULT "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/* A priority string GnuTLS accepts that enables TLS 1.2 or 1.3 and nothing older: 0, else
 * -EINVAL and why in err. */
int tls_priority_check(const char *priority, char *err, size_t errlen);
/* ca is required; cert and key are both given or both NULL/""; priority NULL or "": the
 * default.  On error returns a negative errno and a description in err. */
int tls_ctx_new(const char *ca, const char *cert, const char *key, const char *priority,
		struct tls_ctx **ret, char *err, size_t errlen);
void tls_ctx_free(struct tls_ctx *ctx);

/* name: the name the server certificate must carry (DNS name or IP address). */
int tls_conn_new(struct tls_ctx *ctx, int fd, const char *name, struct tls_conn **ret,
		 char *err, size_t errlen);
void tls_conn_free(struct tls_conn *c);

/* 0: done; -EAGAIN: call again when tls_conn_events() is ready; other: failed
 * (tls_conn_error() says why, verification failures included). */
int tls_conn_handshake(struct tls_conn *c);
/* POLLIN or POLLOUT: what the last call that returned -EAGAIN waits for. */
short tls_conn_events(const struct tls_conn *c);
/* Bytes of plaintext taken (> 0), -EAGAIN (call again with the same data), or an error. */
ssize_t tls_conn_send(struct tls_conn *c, const void *buf, size_t len);
/* Read and discard what the server sent: 0 (nothing more for now), -ESHUTDOWN
 * (the server closed its end in order: close_notify, or the TCP stream's end),
 * other negative: error (a reset, an alert). */
int tls_conn_drain(struct tls_conn *c);
/* Send close_notify (our end of the stream; the server's end is then read by
 * tls_conn_drain()): 0 done, -EAGAIN call again when tls_conn_events() is ready,
 * other negative: failed. */
int tls_conn_bye(struct tls_conn *c);
uint64_t tls_conn_wire_bytes(const struct tls_conn *c);
/* Bytes read from the socket so far (handshake included). */
uint64_t tls_conn_rx_bytes(const struct tls_conn *c);
/* The handshake negotiated TLS 1.3 (the server checks a client's certificate after the
 * client's handshake is complete: see the forwarder's wait for the server's first word). */
bool tls_conn_is_tls13(const struct tls_conn *c);
/* "TLS1.3": what the handshake negotiated. */
const char *tls_conn_version(const struct tls_conn *c);
const char *tls_conn_error(const struct tls_conn *c);

#endif
