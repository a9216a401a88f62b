/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relp.h - one RELP session (librelp) in its own thread, for the forwarder.
 *
 * librelp's client calls block (connect, the "open" handshake, a full
 * window, "close"), so they run in a thread: the event loop only queues
 * messages (relp_send never waits) and collects progress when relp_fd()
 * is readable.  Each message carries a tag (the forwarder's spool
 * position); relp_collect() returns the highest tag the receiver has
 * acknowledged, and only then may the message leave the spool.
 *
 * librelp has no per-message acknowledgement callback (it matches each
 * answer to its transaction number internally, and tells nothing of it);
 * what it guarantees is used instead.  relpCltSendSyslog() returns only
 * once fewer than "window" messages are unacknowledged; ASSUMING that the
 * server answers a session's commands in order (librelp's server and
 * rsyslog's imrelp do: one session, one thread, answered as read), once
 * message k is sent every message up to k - window is acknowledged.  A
 * server answering out of order would have a message counted as
 * acknowledged up to a window early; RELP's specification does not forbid
 * it, no receiver we know does it.  When the queue runs dry the session
 * is closed: the server answers "close" after every earlier command, so a
 * close that got its answer acknowledges the rest.  A session that breaks
 * ends the thread (relp_collect() returns false); the forwarder reconnects
 * with backoff and resends from the first unacknowledged message: a
 * receiver that crashed after taking messages it had not yet acknowledged
 * gets those again, at most "window" of them.
 *
 * A message the receiver answers with an error ("500", which librelp
 * reports as RELP_RET_RSP_STATE_ERR) fails the session with *refused set.
 * Which message it was is not told; a session made with probe set sends
 * one message and closes at once, so its refusal names that message (the
 * forwarder parks it: parked.h) and its close acknowledges it.
 */
#ifndef BRUTE_RELP_H
#define BRUTE_RELP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RELP_WINDOW_DEFAULT 128		/* librelp's default */

struct relp;

struct relp_tls {
	const char *ca;		/* NULL or "": plain RELP; else TLS, the server verified */
	const char *cert, *key;	/* optional client certificate */
	const char *name;	/* the name the server certificate must carry */
	const char *priority;	/* GnuTLS priority string */
};

/* Starts the session thread (it connects); NULL on ENOMEM/thread failure.  probe: one
 * message per session. */
struct relp *relp_new(const char *host, const char *port, unsigned timeout_s, unsigned window,
		      const struct relp_tls *tls, bool probe);
/* Stops it: the thread finishes on its own (a blocked librelp call ends at its timeout). */
void relp_free(struct relp *r);

/* Readable when there is progress to collect. */
int relp_fd(const struct relp *r);
/* Queue a copy of msg; -EAGAIN if the queue is full (try again after progress). */
int relp_send(struct relp *r, const char *msg, size_t len, uint64_t tag);
/*
 * Progress: *acked = highest acknowledged tag (0: none yet), *connected.
 * false if the session failed: err describes why, *refused says that it
 * was the receiver's error answer to a message.
 */
bool relp_collect(struct relp *r, uint64_t *acked, bool *connected, bool *refused, char *err,
		  size_t errlen);

#endif
