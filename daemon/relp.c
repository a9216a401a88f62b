/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relp.c - the RELP session thread (librelp) and its queue.
 */
#include "relp.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <librelp.h>

#include "tls.h"

#define QUEUE_MAX	1024
#define LINGER_MS	100	/* idle that long with unconfirmed messages: close to confirm */

struct item {
	char *msg;
	size_t len;
	uint64_t tag;
};

struct relp {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	int efd;
	char host[256], port[16];
	unsigned timeout_s, window;
	char *tls_ca, *tls_cert, *tls_key, *tls_name;	/* NULL: no TLS / no client certificate */
	char *tls_priority;

	/* under lock */
	struct item q[QUEUE_MAX];
	uint64_t q_head, q_send, q_tail;	/* confirmed < head <= sent < send <= queued < tail */
	uint64_t acked_tag;
	bool connected, done, failed, orphan, stop;
	bool refused;		/* the session failed on the receiver's error answer (RELP 500) */
	bool probe;		/* one message per session (set at creation) */
	char err[512];

	/* the thread's own */
	char lib_err[384];	/* last message of librelp's error callback */
	int lib_errors;
	bool refused_seen;	/* librelp reported an error answer (RELP_RET_RSP_STATE_ERR) */
};

static void dbg_none(char *fmt, ...)
{
	(void)fmt;
}

static void on_err(void *usr, char *objinfo, char *errmsg, relpRetVal code)
{
	struct relp *r = usr;

	if (!r)
		return;
	r->lib_errors++;
	if (code == RELP_RET_RSP_STATE_ERR)
		r->refused_seen = true;
	snprintf(r->lib_err, sizeof(r->lib_err), "%s: %s (librelp error %d)", objinfo ? objinfo : "",
		 errmsg ? errmsg : "?", (int)code);
}

static void notify(struct relp *r)
{
	uint64_t one = 1;

	if (write(r->efd, &one, sizeof(one)) < 0) {
		/* the counter is saturated or the fd gone: a wakeup is pending anyway */
	}
}

/* Under lock: everything before index upto is acknowledged. */
static void confirm(struct relp *r, uint64_t upto)
{
	if (upto <= r->q_head)
		return;
	while (r->q_head < upto) {
		struct item *it = &r->q[r->q_head % QUEUE_MAX];

		r->acked_tag = it->tag;
		free(it->msg);
		it->msg = NULL;
		r->q_head++;
	}
	notify(r);
}

static void set_failed(struct relp *r, const char *what, relpRetVal code)
{
	if (r->lib_err[0])
		snprintf(r->err, sizeof(r->err), "%s: %s", what, r->lib_err);
	else
		snprintf(r->err, sizeof(r->err), "%s: librelp error %d", what, (int)code);
	r->failed = true;
	r->refused = r->refused_seen;
}

/* RELP over TLS: the server's certificate chains to the CA and carries the expected name. */
static relpRetVal set_tls(struct relp *r, relpClt_t *clt)
{
	relpRetVal ret = relpCltEnableTLS(clt);

	if (ret == RELP_RET_OK)
		ret = relpCltSetGnuTLSPriString(clt, r->tls_priority);
	if (ret == RELP_RET_OK)
		ret = relpCltSetCACert(clt, r->tls_ca);
	if (ret == RELP_RET_OK && r->tls_cert)
		ret = relpCltSetOwnCert(clt, r->tls_cert);
	if (ret == RELP_RET_OK && r->tls_key)
		ret = relpCltSetPrivKey(clt, r->tls_key);
	if (ret == RELP_RET_OK)
		ret = relpCltSetAuthMode(clt, (char *)"name");
	if (ret == RELP_RET_OK)
		ret = relpCltAddPermittedPeer(clt, r->tls_name);
	return ret;
}

static void free_relp(struct relp *r)
{
	for (uint64_t i = r->q_head; i < r->q_tail; i++)
		free(r->q[i % QUEUE_MAX].msg);
	close(r->efd);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r->tls_ca);
	free(r->tls_cert);
	free(r->tls_key);
	free(r->tls_name);
	free(r->tls_priority);
	free(r);
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static void deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *relp_main(void *arg)
{
	struct relp *r = arg;
	relpEngine_t *eng = NULL;
	relpClt_t *clt = NULL;
	relpRetVal ret;
	uint64_t sess_first = 0;	/* first queue index sent in this session */
	bool orphan;

	if (relpEngineConstruct(&eng) != RELP_RET_OK) {
		pthread_mutex_lock(&r->lock);
		snprintf(r->err, sizeof(r->err), "cannot set up librelp");
		r->failed = true;
		goto out;
	}
	relpEngineSetDbgprint(eng, dbg_none);
	/* GnuTLS: siem_tls_priority is a GnuTLS priority string (librelp may also use OpenSSL) */
	relpEngineSetTLSLibByName(eng, "gnutls");
	relpEngineSetEnableCmd(eng, (unsigned char *)"syslog", eRelpCmdState_Required);
	relpEngineSetOnErr(eng, on_err);

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->stop && r->q_send == r->q_tail && !(clt && r->q_head < r->q_send))
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop)
			break;
		if (r->q_send == r->q_tail || (r->probe && clt && r->q_send > sess_first)) {
			/* idle with unconfirmed messages: a little while, then "close" confirms them;
			 * probing: at once, after the one message */
			struct timespec ts;

			deadline_in(&ts, LINGER_MS);
			while (!r->probe && !r->stop && r->q_send == r->q_tail &&
			       pthread_cond_timedwait(&r->cond, &r->lock, &ts) == 0)
				;
			if (r->stop)
				break;
			if (r->q_send != r->q_tail && !r->probe)
				continue;
			pthread_mutex_unlock(&r->lock);
			r->lib_errors = 0;
			r->lib_err[0] = '\0';
			relpEngineCltDestruct(eng, &clt);	/* sends "close", waits for its answer */
			pthread_mutex_lock(&r->lock);
			r->connected = false;
			if (r->lib_errors) {
				set_failed(r, "closing the session (unacknowledged messages are resent)", 0);
				break;
			}
			confirm(r, r->q_send);
			continue;
		}
		if (!clt) {
			pthread_mutex_unlock(&r->lock);
			r->lib_err[0] = '\0';
			ret = relpEngineCltConstruct(eng, &clt);
			if (ret == RELP_RET_OK) {
				relpCltSetTimeout(clt, r->timeout_s);
				relpCltSetConnTimeout(clt, (int)r->timeout_s);
				relpCltSetWindowSize(clt, (int)r->window);
				relpCltSetUsrPtr(clt, r);
				if (r->tls_ca)
					ret = set_tls(r, clt);
			}
			if (ret == RELP_RET_OK) {
				ret = relpCltConnect(clt, 0, (unsigned char *)r->port, (unsigned char *)r->host);
			}
			pthread_mutex_lock(&r->lock);
			if (ret != RELP_RET_OK) {
				set_failed(r, "connect", ret);
				break;
			}
			r->connected = true;
			sess_first = r->q_send;
			notify(r);
			continue;
		}
		{
			struct item it = r->q[r->q_send % QUEUE_MAX];

			pthread_mutex_unlock(&r->lock);
			r->lib_err[0] = '\0';
			ret = relpCltSendSyslog(clt, (unsigned char *)it.msg, it.len);
			pthread_mutex_lock(&r->lock);
			if (ret != RELP_RET_OK) {
				set_failed(r, "send", ret);
				break;
			}
			r->q_send++;
			/* fewer than window unacknowledged before this one, answered in order */
			if (r->q_send - sess_first > r->window)
				confirm(r, r->q_send - r->window);
		}
	}
out:
	r->connected = false;
	pthread_mutex_unlock(&r->lock);
	/*
	 * librelp's objects go before "done": destroying a session may call on_err() with r,
	 * which relp_free() frees as soon as it sees done (a use after free otherwise).
	 */
	if (clt)
		relpEngineCltDestruct(eng, &clt);
	if (eng)
		relpEngineDestruct(&eng);
	pthread_mutex_lock(&r->lock);
	r->done = true;
	notify(r);
	orphan = r->orphan;
	pthread_mutex_unlock(&r->lock);
	if (orphan)	/* relp_free() already left: the thread owns r */
		free_relp(r);
	return NULL;
}

struct relp *relp_new(const char *host, const char *port, unsigned timeout_s, unsigned window,
		      const struct relp_tls *tls, bool probe)
{
	struct relp *r = calloc(1, sizeof(*r));
	pthread_attr_t attr;
	sigset_t all, old;
	int e;

	if (!r)
		return NULL;
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->efd < 0) {
		free(r);
		return NULL;
	}
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->port, sizeof(r->port), "%s", port);
	r->timeout_s = timeout_s ? timeout_s : 1;
	r->probe = probe;
	r->window = window >= 2 ? window : 2;	/* librelp takes 2 or more */
	if (tls && tls->ca && *tls->ca) {
		r->tls_ca = strdup(tls->ca);
		r->tls_cert = dup_or_null(tls->cert);
		r->tls_key = dup_or_null(tls->key);
		r->tls_name = strdup(tls->name && *tls->name ? tls->name : host);
		r->tls_priority = strdup(tls->priority && *tls->priority ? tls->priority :
					 TLS_PRIORITY_DEFAULT);
		if (!r->tls_ca || !r->tls_name || !r->tls_priority) {
			free(r->tls_ca);
			free(r->tls_cert);
			free(r->tls_key);
			free(r->tls_name);
			free(r->tls_priority);
			close(r->efd);
			free(r);
			return NULL;
		}
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* signals stay with the event loop's thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&r->thread, &attr, relp_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (e) {
		free_relp(r);
		return NULL;
	}
	return r;
}

void relp_free(struct relp *r)
{
	bool done;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	done = r->done;
	r->orphan = !done;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	if (!done)
		return;		/* the (detached) thread frees r when its librelp call returns */
	free_relp(r);
}

int relp_fd(const struct relp *r)
{
	return r->efd;
}

int relp_send(struct relp *r, const char *msg, size_t len, uint64_t tag)
{
	char *copy;

	pthread_mutex_lock(&r->lock);
	if (r->q_tail - r->q_head >= QUEUE_MAX || r->done) {
		pthread_mutex_unlock(&r->lock);
		return -EAGAIN;
	}
	pthread_mutex_unlock(&r->lock);
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, msg, len);
	pthread_mutex_lock(&r->lock);
	r->q[r->q_tail % QUEUE_MAX] = (struct item){ copy, len, tag };
	r->q_tail++;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

bool relp_collect(struct relp *r, uint64_t *acked, bool *connected, bool *refused, char *err,
		  size_t errlen)
{
	uint64_t v;
	bool ok;

	if (read(r->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new signalled; the state is read anyway */
	}
	pthread_mutex_lock(&r->lock);
	*acked = r->acked_tag;
	*connected = r->connected;
	ok = !r->failed && !r->done;
	*refused = r->refused;
	if (!ok)
		snprintf(err, errlen, "%s", r->err[0] ? r->err : "session ended");
	pthread_mutex_unlock(&r->lock);
	return ok;
}
