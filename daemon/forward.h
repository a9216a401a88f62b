/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forward.h - deliver spooled entries to the SIEM receiver.
 *
 * Entries are appended to the spool first; the forwarder reads them in
 * order, formats them for the configured protocol and writes them.  Over
 * TCP a message leaves the spool only once the receiving TCP stack has
 * acknowledged its last byte (SIOCOUTQ), so a receiver that goes away loses
 * nothing: after reconnecting, delivery resumes in order at the first
 * unacknowledged message.  While the receiver is unreachable, connection
 * attempts back off exponentially from retry_min_ms to retry_max_ms.
 * UDP is best effort: a datagram is done once send() accepted it.  A TCP
 * receiver that stops taking data (nothing acknowledged for timeout_ms
 * while messages are pending) is warned about and reconnected to.
 */
#ifndef BRUTE_FORWARD_H
#define BRUTE_FORWARD_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "entry.h"
#include "siem.h"
#include "spool.h"

struct forward_config {
	enum siem_protocol protocol;
	char host[256];
	char port[16];
	uint64_t retry_min_ms, retry_max_ms;
	char hostname[256];	/* RFC 5424 HOSTNAME / JSON host */
	int facility;
	size_t max_message;	/* cap of one message (siem_max_message), 0: none */
	uint64_t timeout_ms;	/* no progress for that long with data pending: reconnect; 0: never */
	struct siem_options siem;	/* SD-ID, JSON mapping, machine and boot IDs */
	/* SIEM_TLS: CA file (required), client certificate and key (optional),
	 * the name the server certificate must carry ("": host) */
	char tls_ca[PATH_MAX], tls_cert[PATH_MAX], tls_key[PATH_MAX];
	char tls_name[256];
	char tls_priority[256];	/* GnuTLS priority string (tls and relp over TLS) */
	unsigned relp_window;	/* SIEM_RELP: messages sent before waiting for acknowledgements */
};

struct forward_stats {
	uint64_t connects, failures, sent, acked, skipped;
	uint64_t refused;	/* messages the transport refused (EMSGSIZE): dropped */
	uint64_t parked;	/* RELP: messages the receiver refused, kept aside (parked.h) */
	uint64_t park_failed;	/* of those, not kept (the file full or not writable): dropped */
	uint64_t stalls;	/* connections dropped for lack of progress */
	uint64_t resolve_timeouts; /* name resolutions abandoned (no answer in time) */
	bool connected;
	uint64_t last_delivery_usec;	/* realtime of the last acknowledgement, 0: none yet */
	uint64_t last_error_usec;	/* realtime of the last failure, 0: none yet */
	char last_error[256];		/* "what: why" of that failure */
};

struct forward;

/* The spool stays owned by the caller. */
struct forward *forward_new(const struct forward_config *cfg, struct spool *spool);
void forward_free(struct forward *f);

/*
 * Queue an entry: written to the spool before this returns, made durable
 * (spool_sync) by the next forward_dispatch(), which does one fdatasync
 * for everything queued since the previous one, before sending it.
 */
int forward_submit(struct forward *f, const struct entry *e);

/* Poll integration: fill *pfd (returns false if no fd to watch), call
 * forward_dispatch() every loop iteration with the fd's revents (0 if
 * none), and wake up no later than forward_next_deadline(). */
bool forward_pollfd(const struct forward *f, struct pollfd *pfd);
void forward_dispatch(struct forward *f, short revents, uint64_t now_ms);
uint64_t forward_next_deadline(const struct forward *f, uint64_t now_ms);

/* Timestamp (realtime usec) of the oldest entry in the spool, 0 if it is empty. */
uint64_t forward_oldest_usec(struct forward *f);

/* Nothing left to send or waiting for acknowledgement. */
bool forward_idle(const struct forward *f);
const struct forward_stats *forward_get_stats(const struct forward *f);

#endif
