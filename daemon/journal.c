/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.c - journal entry fields and sending via libsystemd.
 */
#include "journal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* sd_journal_sendv() adds no CODE_* fields; this keeps any other call from adding them */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "util.h"

static int add(struct journal_fields *jf, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int add(struct journal_fields *jf, size_t *cap, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	if (jf->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		char **s = realloc(jf->strings, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		jf->strings = s;
		*cap = ncap;
	}
	va_start(ap, fmt);
	r = sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	jf->strings[jf->n++] = sb.buf;
	return 0;
}

/* The process the entry is about: its subject, else the first task killed. */
static bool object_pid(const struct entry *e, unsigned long *pid)
{
	const char *v = entry_get(e, "PID");
	char *end;

	if (!v)
		v = entry_get(e, "KILLED_PIDS");
	if (!v || !*v)
		return false;
	*pid = strtoul(v, &end, 10);
	return *pid > 0 && (*end == '\0' || *end == ',');
}

int journal_fields_build_facility(const struct entry *e, int facility, struct journal_fields *jf)
{
	struct strbuf msg = STRBUF_INIT;
	const char *unit = entry_get(e, "UNIT");
	unsigned long pid;
	size_t cap = 0;
	int r = 0;

	memset(jf, 0, sizeof(*jf));
	r |= add(jf, &cap, "MESSAGE_ID=%s", entry_kind_message_id(e->kind));
	r |= add(jf, &cap, "PRIORITY=%d", e->priority);
	r |= add(jf, &cap, "SYSLOG_FACILITY=%d", facility >> 3);
	r |= add(jf, &cap, "SYSLOG_IDENTIFIER=brute-reportd");
	/* as systemd-coredump does: journalctl -u UNIT shows it (with _UID=0) */
	if (object_pid(e, &pid))
		r |= add(jf, &cap, "OBJECT_PID=%lu", pid);
	if (unit && *unit)
		r |= add(jf, &cap, "OBJECT_SYSTEMD_UNIT=%s", unit);
	/* MESSAGE is shown as text (journalctl, syslog forwarding): escaped; BRUTE_* exact */
	sb_puts(&msg, "MESSAGE=");
	sb_put_text(&msg, e->message ? e->message : "");
	r |= add(jf, &cap, "%s", sb_str(&msg));
	sb_free(&msg);
	r |= add(jf, &cap, "BRUTE_KIND=%s", entry_kind_name(e->kind));
	r |= add(jf, &cap, "BRUTE_TIMESTAMP=%llu", (unsigned long long)e->timestamp_usec);
	for (size_t i = 0; i < e->n_fields; i++)
		r |= add(jf, &cap, "BRUTE_%s=%s", e->fields[i].name, entry_field_text(&e->fields[i]));
	if (r < 0)
		goto oom;
	jf->iov = calloc(jf->n, sizeof(*jf->iov));
	if (!jf->iov)
		goto oom;
	for (size_t i = 0; i < jf->n; i++) {
		jf->iov[i].iov_base = jf->strings[i];
		jf->iov[i].iov_len = strlen(jf->strings[i]);
	}
	return 0;
oom:
	journal_fields_free(jf);
	return -ENOMEM;
}

int journal_fields_build(const struct entry *e, struct journal_fields *jf)
{
	return journal_fields_build_facility(e, LOG_AUTHPRIV, jf);
}

void journal_fields_free(struct journal_fields *jf)
{
	for (size_t i = 0; i < jf->n; i++)
		free(jf->strings[i]);
	free(jf->strings);
	free(jf->iov);
	memset(jf, 0, sizeof(*jf));
}

const char *journal_fields_get(const struct journal_fields *jf, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < jf->n; i++)
		if (strncmp(jf->strings[i], name, n) == 0 && jf->strings[i][n] == '=')
			return jf->strings[i] + n + 1;
	return NULL;
}

int journal_send(const struct entry *e, int facility)
{
	struct journal_fields jf;
	int r = journal_fields_build_facility(e, facility, &jf);

	if (r < 0)
		return r;
	r = sd_journal_sendv(jf.iov, (int)jf.n);
	journal_fields_free(&jf);
	return r;
}

struct journal_queue {
	pthread_mutex_t lock;
	pthread_cond_t more, done;	/* an entry queued; one sent (or the queue empty) */
	pthread_t thread;
	bool wait, stop;
	struct journal_fields items[JOURNAL_QUEUE_MAX];
	size_t head, n;
	bool sending;
	struct journal_queue_stats stats;
};

static void *journal_worker(void *arg)
{
	struct journal_queue *q = arg;
	sigset_t all;

	/* signals are the loop's: never run a handler here, never wake it late */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct journal_fields jf;
		int r;

		while (!q->n && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (!q->n)
			break;
		jf = q->items[q->head];
		q->head = (q->head + 1) % JOURNAL_QUEUE_MAX;
		q->n--;
		q->sending = true;
		pthread_mutex_unlock(&q->lock);
		r = sd_journal_sendv(jf.iov, (int)jf.n);
		journal_fields_free(&jf);
		pthread_mutex_lock(&q->lock);
		q->sending = false;
		if (r < 0) {
			q->stats.failed++;
			q->stats.last_error = r;
		} else {
			q->stats.sent++;
		}
		pthread_cond_broadcast(&q->done);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct journal_queue *journal_queue_new(bool wait)
{
	struct journal_queue *q = calloc(1, sizeof(*q));
	pthread_condattr_t ca;

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->done, &ca);
	pthread_condattr_destroy(&ca);
	q->wait = wait;
	if (pthread_create(&q->thread, NULL, journal_worker, q) != 0) {
		pthread_cond_destroy(&q->more);
		pthread_cond_destroy(&q->done);
		pthread_mutex_destroy(&q->lock);
		free(q);
		return NULL;
	}
	return q;
}

int journal_queue_submit(struct journal_queue *q, const struct entry *e, int facility)
{
	struct journal_fields jf;
	int r = journal_fields_build_facility(e, facility, &jf);

	if (r < 0)
		return r;
	pthread_mutex_lock(&q->lock);
	while (q->wait && q->n == JOURNAL_QUEUE_MAX)
		pthread_cond_wait(&q->done, &q->lock);
	if (q->n == JOURNAL_QUEUE_MAX) {
		q->stats.dropped++;
		pthread_mutex_unlock(&q->lock);
		journal_fields_free(&jf);
		return -ENOBUFS;
	}
	q->items[(q->head + q->n) % JOURNAL_QUEUE_MAX] = jf;
	q->n++;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

bool journal_queue_busy(struct journal_queue *q)
{
	bool busy;

	pthread_mutex_lock(&q->lock);
	busy = q->n || q->sending;
	pthread_mutex_unlock(&q->lock);
	return busy;
}

void journal_queue_get_stats(struct journal_queue *q, struct journal_queue_stats *s)
{
	pthread_mutex_lock(&q->lock);
	*s = q->stats;
	pthread_mutex_unlock(&q->lock);
}

bool journal_queue_wait(struct journal_queue *q, uint64_t timeout_ms)
{
	struct timespec end;
	bool idle;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(timeout_ms / 1000);
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&q->lock);
	while ((q->n || q->sending) && pthread_cond_timedwait(&q->done, &q->lock, &end) == 0)
		;
	idle = !q->n && !q->sending;
	pthread_mutex_unlock(&q->lock);
	return idle;
}

void journal_queue_free(struct journal_queue *q)
{
	bool idle;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->more);
	idle = !q->n && !q->sending;
	pthread_mutex_unlock(&q->lock);
	if (!idle) {
		/* blocked in journald: left behind with what it holds (the process is exiting) */
		pthread_detach(q->thread);
		return;
	}
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
