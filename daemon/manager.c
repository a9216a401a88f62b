/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager.c - asynchronous calls to systemd's manager over sd-bus, and the
 * results of the jobs they queue (JobRemoved).
 */
#include "manager.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "util.h"

#define DEST		"org.freedesktop.systemd1"
#define PATH		"/org/freedesktop/systemd1"
#define IFACE		"org.freedesktop.systemd1.Manager"
#define UNIT_PREFIX	"/org/freedesktop/systemd1/unit"
/* JobRemoved signals of jobs whose StartUnit reply was not read yet: the last few */
#define EARLY_KEPT	16

struct req {
	struct manager *m;
	enum manager_op op;
	char *unit;
	char *job;		/* the job's object path, once queued */
	sd_bus_slot *slot;	/* the call, until its reply */
	manager_cb cb;
	void *userdata;
	uint64_t deadline_ms;	/* a job's result given up after it */
	struct req *prev, *next;
};

struct manager {
	char *address;		/* NULL: the private socket, then the system bus */
	sd_bus *bus;
	sd_bus_slot *match;
	bool failed_logged;	/* the connection failure was logged (once per outage) */
	struct req *head, *tail;
	size_t n;
	uint64_t idle_since_ms;	/* nothing pending since (0: something is) */
	struct {
		char *job, *result;
	} early[EARLY_KEPT];
	unsigned early_next;
};

static void req_unlink(struct manager *m, struct req *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		m->head = q->next;
	if (q->next)
		q->next->prev = q->prev;
	else
		m->tail = q->prev;
	m->n--;
	if (!m->n)
		m->idle_since_ms = now_monotonic_ms();
}

static void req_free(struct req *q)
{
	sd_bus_slot_unref(q->slot);
	free(q->unit);
	free(q->job);
	free(q);
}

/* Unlink, call back once, free. */
static void req_done(struct req *q, int error, const char *value)
{
	struct manager *m = q->m;
	manager_cb cb = q->cb;
	void *ud = q->userdata;

	req_unlink(m, q);
	q->slot = sd_bus_slot_unref(q->slot);
	req_free(q);
	cb(ud, error, value ? value : "");
}

static const char *early_take(struct manager *m, const char *job)
{
	for (unsigned i = 0; i < EARLY_KEPT; i++)
		if (m->early[i].job && !strcmp(m->early[i].job, job)) {
			static char result[64];

			strtcpy(result, m->early[i].result, sizeof(result));
			free(m->early[i].job);
			free(m->early[i].result);
			m->early[i].job = m->early[i].result = NULL;
			return result;
		}
	return NULL;
}

static void early_put(struct manager *m, const char *job, const char *result)
{
	unsigned i = m->early_next++ % EARLY_KEPT;

	free(m->early[i].job);
	free(m->early[i].result);
	m->early[i].job = strdup(job);
	m->early[i].result = strdup(result);
}

static void early_clear(struct manager *m)
{
	for (unsigned i = 0; i < EARLY_KEPT; i++) {
		free(m->early[i].job);
		free(m->early[i].result);
		m->early[i].job = m->early[i].result = NULL;
	}
}

/* JobRemoved(u id, o job, s unit, s result): the end of a job we queued. */
static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error)
{
	struct manager *m = userdata;
	const char *job, *unit, *result;
	uint32_t id;

	(void)ret_error;
	if (sd_bus_message_read(msg, "uoss", &id, &job, &unit, &result) < 0)
		return 0;
	for (struct req *q = m->head; q; q = q->next)
		if (q->job && !strcmp(q->job, job)) {
			req_done(q, 0, result);
			return 0;
		}
	/* a job of ours whose StartUnit reply is still unread (or someone else's) */
	early_put(m, job, result);
	return 0;
}

static int on_reply(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error)
{
	struct req *q = userdata;
	const sd_bus_error *e;
	const char *v = NULL, *early;
	int r;

	(void)ret_error;
	q->slot = sd_bus_slot_unref(q->slot);
	if (sd_bus_message_is_method_error(msg, NULL)) {
		e = sd_bus_message_get_error(msg);
		r = sd_bus_error_get_errno(e);
		req_done(q, r > 0 ? -r : -EIO, e && e->message ? e->message : e && e->name ? e->name : "error");
		return 0;
	}
	switch (q->op) {
	case MANAGER_STATE:
		r = sd_bus_message_read(msg, "v", "s", &v);
		req_done(q, r < 0 ? r : 0, r < 0 ? "unreadable ActiveState" : v);
		return 0;
	case MANAGER_MAIN_PID: {
		char buf[16];
		uint32_t pid;

		r = sd_bus_message_read(msg, "v", "u", &pid);
		snprintf(buf, sizeof(buf), "%u", r < 0 ? 0 : pid);
		req_done(q, r < 0 ? r : 0, r < 0 ? "unreadable MainPID" : buf);
		return 0;
	}
	case MANAGER_RESET_FAILED:
	case MANAGER_KILL:
		req_done(q, 0, "");
		return 0;
	case MANAGER_START:
	case MANAGER_TRY_RESTART:
	case MANAGER_RELOAD:
		r = sd_bus_message_read(msg, "o", &v);
		if (r < 0 || !(q->job = strdup(v))) {
			req_done(q, r < 0 ? r : -ENOMEM, "unreadable job path");
			return 0;
		}
		early = early_take(q->m, q->job);
		if (early)
			req_done(q, 0, early);
		return 0;
	}
	return 0;
}

static int open_address(const char *address, sd_bus **ret)
{
	sd_bus *b = NULL;
	int r;

	r = sd_bus_new(&b);
	if (r >= 0)
		r = sd_bus_set_address(b, address);
	if (r >= 0)
		r = sd_bus_set_description(b, "brute-reportd-systemd");
	if (r >= 0)
		r = sd_bus_start(b);
	if (r < 0) {
		sd_bus_close_unref(b);
		return r;
	}
	*ret = b;
	return 0;
}

/* The private socket's other end is PID 1, root: anything else is not asked. */
static int peer_is_root(sd_bus *b)
{
	struct ucred uc;
	socklen_t n = sizeof(uc);
	int fd = sd_bus_get_fd(b);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &n) < 0)
		return -errno;
	return uc.uid == 0 ? 0 : -EPERM;
}

static int connect_bus(struct manager *m)
{
	const char *how;
	sd_bus *b = NULL;
	int r, r2;

	if (m->bus)
		return 0;
	if (m->address) {
		how = m->address;
		r = open_address(m->address, &b);
	} else {
		how = "systemd's private socket /run/systemd/private";
		r = open_address(MANAGER_PRIVATE_ADDRESS, &b);
		if (r >= 0 && (r = peer_is_root(b)) < 0)
			b = sd_bus_close_unref(b);
		if (r < 0) {
			r2 = sd_bus_open_system(&b);
			if (r2 >= 0) {
				how = "the system bus";
				r = 0;
			}
		}
	}
	if (r < 0) {
		if (!m->failed_logged)
			log_error("cannot reach systemd (%s: %s; nor the system bus): units cannot be restarted nor actions started",
				  how, strerror(-r));
		m->failed_logged = true;
		return r;
	}
	r = sd_bus_match_signal(b, &m->match, NULL, PATH, IFACE, "JobRemoved", on_job_removed, m);
	/* on the system bus systemd signals only to subscribers; on its private socket to all */
	if (r >= 0 && sd_bus_is_bus_client(b) > 0)
		r = sd_bus_call_method_async(b, NULL, DEST, PATH, IFACE, "Subscribe", NULL, NULL, "");
	if (r < 0) {
		log_error("cannot follow systemd's jobs over %s: %s", how, strerror(-r));
		m->match = sd_bus_slot_unref(m->match);
		sd_bus_close_unref(b);
		return r;
	}
	if (m->failed_logged)
		log_notice("reaching systemd again, over %s", how);
	else
		log_debug("connected to systemd over %s", how);
	m->failed_logged = false;
	m->bus = b;
	return 0;
}

/*
 * The connection goes, then every request pending on it fails with why
 * (a callback may ask again: that connects anew).
 */
static void disconnect(struct manager *m, int error, const char *why)
{
	struct req *q = m->head;

	m->head = m->tail = NULL;
	m->n = 0;
	m->idle_since_ms = now_monotonic_ms();
	for (struct req *p = q; p; p = p->next)
		p->slot = sd_bus_slot_unref(p->slot);
	m->match = sd_bus_slot_unref(m->match);
	m->bus = sd_bus_close_unref(m->bus);
	early_clear(m);
	while (q) {
		struct req *next = q->next;
		manager_cb cb = q->cb;
		void *ud = q->userdata;

		req_free(q);
		cb(ud, error, why);
		q = next;
	}
}

struct manager *manager_new(const char *address)
{
	struct manager *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (address && !(m->address = strdup(address))) {
		free(m);
		return NULL;
	}
	return m;
}

void manager_free(struct manager *m)
{
	if (!m)
		return;
	while (m->head) {
		struct req *q = m->head;

		req_unlink(m, q);
		req_free(q);
	}
	m->match = sd_bus_slot_unref(m->match);
	sd_bus_close_unref(m->bus);
	early_clear(m);
	free(m->address);
	free(m);
}

int manager_request(struct manager *m, enum manager_op op, const char *unit,
		    manager_cb cb, void *userdata)
{
	struct req *q;
	char *path = NULL;
	int r;

	r = connect_bus(m);
	if (r < 0)
		return r;
	q = calloc(1, sizeof(*q));
	if (!q || !(q->unit = strdup(unit))) {
		free(q);
		return -ENOMEM;
	}
	q->m = m;
	q->op = op;
	q->cb = cb;
	q->userdata = userdata;
	switch (op) {
	case MANAGER_STATE:
	case MANAGER_MAIN_PID:
		r = sd_bus_path_encode(UNIT_PREFIX, unit, &path);
		if (r >= 0)
			r = sd_bus_call_method_async(m->bus, &q->slot, DEST, path,
						     "org.freedesktop.DBus.Properties", "Get", on_reply, q,
						     "ss", op == MANAGER_STATE ? "org.freedesktop.systemd1.Unit" :
						     "org.freedesktop.systemd1.Service",
						     op == MANAGER_STATE ? "ActiveState" : "MainPID");
		free(path);
		break;
	case MANAGER_RESET_FAILED:
		r = sd_bus_call_method_async(m->bus, &q->slot, DEST, PATH, IFACE, "ResetFailedUnit",
					     on_reply, q, "s", unit);
		break;
	case MANAGER_KILL:
		/* the held master only: "all" would kill every process of the cgroup (cron's jobs) */
		r = sd_bus_call_method_async(m->bus, &q->slot, DEST, PATH, IFACE, "KillUnit",
					     on_reply, q, "ssi", unit, "main", (int32_t)SIGKILL);
		break;
	case MANAGER_START:
	case MANAGER_TRY_RESTART:
	case MANAGER_RELOAD:
		r = sd_bus_call_method_async(m->bus, &q->slot, DEST, PATH, IFACE,
					     op == MANAGER_START ? "StartUnit" :
					     op == MANAGER_RELOAD ? "ReloadUnit" : "TryRestartUnit",
					     on_reply, q, "ss", unit, "replace");
		q->deadline_ms = now_monotonic_ms() + MANAGER_JOB_MAX_MS;
		break;
	}
	if (r < 0) {
		/* a broken connection is found, and closed, by manager_dispatch() */
		req_free(q);
		return r;
	}
	q->prev = m->tail;
	if (m->tail)
		m->tail->next = q;
	else
		m->head = q;
	m->tail = q;
	m->n++;
	m->idle_since_ms = 0;
	return 0;
}

void manager_cancel(struct manager *m, void *userdata)
{
	struct req *q, *next;

	for (q = m->head; q; q = next) {
		next = q->next;
		if (q->userdata == userdata) {
			req_unlink(m, q);
			req_free(q);
		}
	}
}

size_t manager_pending(const struct manager *m)
{
	return m->n;
}

bool manager_pollfd(struct manager *m, struct pollfd *pfd)
{
	int fd, ev;

	if (!m->bus || (fd = sd_bus_get_fd(m->bus)) < 0 || (ev = sd_bus_get_events(m->bus)) < 0)
		return false;
	pfd->fd = fd;
	pfd->events = (short)ev;
	pfd->revents = 0;
	return true;
}

void manager_dispatch(struct manager *m, uint64_t now_ms)
{
	struct req *q, *next;
	int r;

	if (!m->bus)
		return;
	/* callbacks may queue calls, never close the connection: that is done here */
	do
		r = sd_bus_process(m->bus, NULL);
	while (r > 0);
	if (r < 0 || sd_bus_is_open(m->bus) <= 0) {
		log_warning("the connection to systemd closed%s%s", r < 0 ? ": " : "",
			    r < 0 ? strerror(-r) : "");
		disconnect(m, r < 0 ? r : -ECONNRESET, "the connection to systemd closed");
		return;
	}
	for (q = m->head; q; q = next) {
		next = q->next;
		if (q->job && q->deadline_ms && now_ms >= q->deadline_ms)
			req_done(q, -ETIME, "no result from systemd in 600 s");
	}
	/* (now_ms may be from before the last request ended: never an underflow) */
	if (!m->n && m->idle_since_ms && now_ms >= m->idle_since_ms + MANAGER_IDLE_MS) {
		m->match = sd_bus_slot_unref(m->match);
		m->bus = sd_bus_close_unref(m->bus);
		early_clear(m);
	}
}

uint64_t manager_next_deadline(struct manager *m)
{
	uint64_t d = UINT64_MAX, usec;

	if (!m->bus)
		return d;
	if (sd_bus_get_timeout(m->bus, &usec) >= 0 && usec != UINT64_MAX)
		d = usec / 1000 + (usec % 1000 ? 1 : 0);
	for (struct req *q = m->head; q; q = q->next)
		if (q->job && q->deadline_ms < d)
			d = q->deadline_ms;
	if (!m->n && m->idle_since_ms && m->idle_since_ms + MANAGER_IDLE_MS < d)
		d = m->idle_since_ms + MANAGER_IDLE_MS;
	return d;
}
