/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forward.h - deliver spooled entries to the SIEM receiver.
 *
 * Entries are appended to the spool first; the forwarder reads them in
 * order, formats them for the configured protocol and writes them.  An
 * entry leaves the spool only once the receiver has it.  RELP: the
 * receiver acknowledged it.  TCP and TLS have no acknowledgement from the
 * receiving program, and its TCP stack takes a socket buffer of messages
 * whether the program reads them or not; so messages go in batches, one
 * connection each: up to INFLIGHT_MAX messages, or until nothing more is
 * queued for LINGER_MS, then our end of the stream is closed (TLS:
 * close_notify), and when the receiver closes its end in order it has
 * read everything its stack acknowledged (a socket closed with unread
 * data is reset, RFC 1122): those messages are delivered.  A receiver that
 * reads but leaves its end open (it closes late or never, or a proxy keeps
 * the half-close from it) is told by its TCP stack: the batch and our end
 * acknowledged whole, its window open, and more taken than a receiver that
 * reads nothing holds (READ_PROOF windows): delivered, counted in
 * unconfirmed, and so are its later batches once acknowledged, until a
 * failure.  A connection
 * that makes no progress for timeout_ms (nothing acknowledged with
 * messages pending, or no end of stream from the receiver), or that
 * breaks, is dropped and its messages are sent again from the first one
 * sent on it: duplicates are possible (counted in resent), loss is not.
 * Attempts back off exponentially from retry_min_ms to retry_max_ms.
 * UDP is best effort: a datagram is done once send() accepted it.
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
	uint64_t resent;	/* messages sent on a connection that ended before the receiver
				 * confirmed them: sent again (the receiver may have them twice) */
	uint64_t unconfirmed;	/* TCP, TLS: of acked, messages the receiver read (its stack took
				 * more than it holds unread) without closing its end: delivered
				 * without its confirmation, never sent again */
	uint64_t resolve_timeouts; /* name resolutions abandoned (no answer in time) */
	bool connected;			/* the receiver takes entries: TCP, TLS: it confirmed the last
					 * batch; RELP: its session is open; UDP: connected.  Cleared by
					 * a failure, not by the end of a batch's connection. */
	uint64_t last_delivery_usec;	/* realtime of the last confirmation, 0: none yet */
	uint64_t last_error_usec;	/* realtime of the last failure, 0: none yet */
	char last_error[256];		/* "what: why" of that failure */
};

struct forward;

/* The spool stays owned by the caller. */
struct forward *forward_new(const struct forward_config *cfg, struct spool *spool);
void forward_free(struct forward *f);
/*
 * A reload replaces old by f: the counters carry over (and the receiver's
 * state when it is the same one); old's connection ends, what it had not
 * confirmed counted as resent, to be sent by f.
 */
void forward_inherit(struct forward *f, struct forward *old);

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
