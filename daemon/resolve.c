/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolve.c - getaddrinfo_a() requests polled from the event loop.
 */
#include "resolve.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * One request.  Heap-allocated with its own copies of the name: if it is
 * abandoned while glibc's resolver thread still works on it, it must stay
 * valid until done.
 */
struct resolve_req {
	struct gaicb cb;
	struct addrinfo hints;
	char host[256];
	char port[16];
	struct resolve_req *next;	/* on the abandoned list */
};

static void req_free(struct resolve_req *q)
{
	if (!q)
		return;
	if (q->cb.ar_result)
		freeaddrinfo(q->cb.ar_result);
	free(q);
}

/* The last answer handed out by resolver_poll(), freed at the next call. */
static void done_release(struct resolver *r)
{
	req_free(r->done);
	r->done = NULL;
}

int resolver_start(struct resolver *r, const char *host, const char *port, int socktype,
		   uint64_t deadline)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct gaicb *list[1];
	struct resolve_req *q;

	done_release(r);
	if (r->pending)
		return 0;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	snprintf(q->host, sizeof(q->host), "%s", host);
	snprintf(q->port, sizeof(q->port), "%s", port);
	q->hints.ai_family = AF_UNSPEC;
	q->hints.ai_socktype = socktype;
	q->cb.ar_name = q->host;
	q->cb.ar_service = q->port;
	q->cb.ar_request = &q->hints;
	list[0] = &q->cb;
	if (getaddrinfo_a(GAI_NOWAIT, list, 1, &sev) != 0) {
		free(q);
		return -EAGAIN;
	}
	r->pending = q;
	r->deadline = deadline;
	return 0;
}

int resolver_poll(struct resolver *r, uint64_t now_ms, const struct addrinfo **ai, const char **why)
{
	struct resolve_req *q = r->pending;
	int e;

	done_release(r);
	if (!q)
		return -ENOENT;
	e = gai_error(&q->cb);
	if (e == EAI_INPROGRESS) {
		if (now_ms < r->deadline)
			return RESOLVE_PENDING;
		resolver_abandon(r);
		*why = "no answer in time";
		return -ETIMEDOUT;
	}
	r->pending = NULL;
	r->done = q;
	if (e == 0 && q->cb.ar_result) {
		*ai = q->cb.ar_result;
		return 0;
	}
	*why = e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e);
	return -EHOSTUNREACH;
}

bool resolver_busy(const struct resolver *r)
{
	return r->pending != NULL;
}

void resolver_abandon(struct resolver *r)
{
	struct resolve_req *q = r->pending;

	r->pending = NULL;
	if (!q)
		return;
	if (gai_error(&q->cb) != EAI_INPROGRESS || gai_cancel(&q->cb) == EAI_CANCELED) {
		req_free(q);
		return;
	}
	/* still running in glibc's thread: kept, collected when done */
	q->next = r->abandoned;
	r->abandoned = q;
}

bool resolver_collect(struct resolver *r)
{
	struct resolve_req **pp = &r->abandoned;

	while (*pp) {
		struct resolve_req *q = *pp;

		if (gai_error(&q->cb) == EAI_INPROGRESS) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		req_free(q);
	}
	return r->abandoned != NULL;
}

void resolver_free(struct resolver *r)
{
	resolver_abandon(r);
	resolver_collect(r);
	done_release(r);
}
