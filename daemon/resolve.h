/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolve.h - the SIEM receiver's name resolved off the event loop.
 *
 * One getaddrinfo_a() request at a time, polled from the loop and given
 * up at a deadline: a resolver that does not answer never blocks the
 * loop.  A request given up while glibc's resolver thread still works on
 * it stays allocated (it must: the thread writes into it) and is freed
 * once that thread is done (resolver_collect()).
 */
#ifndef BRUTE_RESOLVE_H
#define BRUTE_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>
#include <netdb.h>

struct resolve_req;

struct resolver {
	struct resolve_req *pending;	/* in flight */
	struct resolve_req *abandoned;	/* given up, still in glibc's hands */
	struct resolve_req *done;	/* the answer resolver_poll() handed out last */
	uint64_t deadline;
};

enum { RESOLVE_PENDING = 1 };

/* Resolve host:port (socktype: SOCK_STREAM, SOCK_DGRAM) until deadline: 0, or a negative
 * errno (the request could not be made). */
int resolver_start(struct resolver *r, const char *host, const char *port, int socktype,
		   uint64_t deadline);
/*
 * The request's state at now_ms: RESOLVE_PENDING; 0 with *ai (freed by the
 * next call of resolver_*, copy what is needed); -ETIMEDOUT when the
 * deadline passed (abandoned); another negative errno with *why.
 */
int resolver_poll(struct resolver *r, uint64_t now_ms, const struct addrinfo **ai, const char **why);
bool resolver_busy(const struct resolver *r);
/* Give up the request in flight, if any. */
void resolver_abandon(struct resolver *r);
/* Free what glibc let go of; true while some is still in its hands. */
bool resolver_collect(struct resolver *r);
/* Everything: at the forwarder's end. */
void resolver_free(struct resolver *r);

#endif
