/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peeraction.c - the queue of peer ban actions, their environment files and
 * the template units that run them (peeraction.h).
 */
#include "peeraction.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util.h"

/* a ban longer than this (ban_s is the kernel's u32 seconds) is taken as endless */
#define BAN_S_MAX (100ull * 365 * 86400)

struct pjob {
	struct peeraction *owner;
	bool ban, running;
	char key[192];		/* the peer at its endpoint: one action at a time each */
	char what[96];		/* "ban of 10.0.0.2/32", for the log */
	char env[1536];		/* the variables, but BRUTE_TIMEOUT_S (at the start) */
	uint64_t until_usec;	/* ban: when it ends (realtime) */
	char unit[320];
	char path[PATH_MAX + 64];
	struct pjob *prev, *next;
};

struct peeraction {
	struct manager *m;
	char dir[PATH_MAX];	/* DIR/peer-action */
	char prefix[208];	/* "brute-peer-nft@", "" when off (at most 200 characters) */
	struct pjob *head, *tail;
	size_t queued, running;
	uint64_t tag, seq;	/* instance names: TAG-SEQ, unique per start of the daemon */
	uint64_t log_ms, unlogged;	/* failure logging: last line, failures since */
	struct peeraction_stats stats;
};

static void clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

struct peeraction *peeraction_new(struct manager *m, const char *dir)
{
	struct peeraction *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->m = m;
	snprintf(p->dir, sizeof(p->dir), "%s/%s", dir, PEERACTION_SUBDIR);
	p->tag = now_realtime_usec() / 1000000;
	return p;
}

static void job_unlink(struct peeraction *p, struct pjob *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		p->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		p->tail = j->prev;
	if (j->running)
		p->running--;
	else
		p->queued--;
	if (j->path[0])
		unlink(j->path);
	free(j);
}

void peeraction_free(struct peeraction *p)
{
	if (!p)
		return;
	while (p->head) {
		manager_cancel(p->m, p->head);
		job_unlink(p, p->head);
	}
	free(p);
}

bool peeraction_template_valid(const char *tmpl)
{
	static const char suffix[] = "@.service";
	size_t n = tmpl ? strlen(tmpl) : 0, k = sizeof(suffix) - 1;

	if (n <= k || n > 200 || strcmp(tmpl + n - k, suffix))
		return false;
	for (size_t i = 0; i < n - k; i++) {
		unsigned char c = (unsigned char)tmpl[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == ':' || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

int peeraction_set_template(struct peeraction *p, const char *tmpl)
{
	if (!tmpl || !*tmpl || !strcmp(tmpl, "none")) {
		p->prefix[0] = '\0';
		return 0;
	}
	if (!peeraction_template_valid(tmpl))
		return -EINVAL;
	snprintf(p->prefix, sizeof(p->prefix), "%.*s", (int)(strlen(tmpl) - strlen(".service")), tmpl);
	/* made when first needed: a daemon without actions leaves no directory behind */
	char parent[PATH_MAX];

	snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(p->dir, '/') - p->dir), p->dir);
	if (mkdir(parent, 0755) < 0 && errno != EEXIST)
		log_warning("cannot create %s: %m (peer actions will fail)", parent);
	if (mkdir(p->dir, 0700) < 0 && errno != EEXIST)
		log_warning("cannot create %s: %m (peer actions will fail)", p->dir);
	else
		clear_dir(p->dir);	/* a previous run's leftovers */
	return 0;
}

const struct peeraction_stats *peeraction_get_stats(const struct peeraction *p)
{
	return &p->stats;
}

static void failed(struct peeraction *p, const struct pjob *j, const char *why)
{
	uint64_t now = now_monotonic_ms();

	p->stats.failures++;
	if (p->log_ms && now - p->log_ms < PEERACTION_LOG_MS) {
		p->unlogged++;
		return;
	}
	log_error("peer action %s (%s) failed: %s%s", j->unit[0] ? j->unit : p->prefix, j->what, why,
		  p->unlogged ? " (and earlier failures not logged one by one)" : "");
	p->log_ms = now;
	p->unlogged = 0;
}

/* ---- values, checked again: they reach a privileged action ---- */

static bool digits(const char *v, size_t max)
{
	size_t n = v ? strlen(v) : 0;

	return n > 0 && n <= max && strspn(v, "0123456789") == n;
}

/* ADDR/LEN as the kernel writes a network peer: its parts */
static bool split_peer(const char *peer, char *addr, size_t alen, unsigned *len, bool *v6)
{
	unsigned char buf[16];
	const char *slash = peer ? strchr(peer, '/') : NULL;
	unsigned long l;
	char *end;

	if (!slash || (size_t)(slash - peer) >= alen || !digits(slash + 1, 3))
		return false;
	memcpy(addr, peer, (size_t)(slash - peer));
	addr[slash - peer] = '\0';
	l = strtoul(slash + 1, &end, 10);
	/* /0 would be every address: the kernel never bans one */
	if (l < 1)
		return false;
	if (inet_pton(AF_INET, addr, buf) == 1 && l <= 32)
		*v6 = false;
	else if (inet_pton(AF_INET6, addr, buf) == 1 && l <= 128)
		*v6 = true;
	else
		return false;
	*len = (unsigned)l;
	return true;
}

static bool address(const char *v)
{
	unsigned char buf[16];

	return v && (inet_pton(AF_INET, v, buf) == 1 || inet_pton(AF_INET6, v, buf) == 1);
}

/* systemd's unit name characters (an escaped name keeps its backslashes) */
static bool unit_name(const char *v)
{
	size_t n = v ? strlen(v) : 0;

	return n > 0 && n < UNIT_NAME_MAX &&
	       strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.\\@-") == n;
}

/* KEY='VALUE': single quotes, so that systemd's EnvironmentFile= takes it as is */
static void put(struct strbuf *sb, const char *key, const char *value)
{
	sb_printf(sb, "%s='%s'\n", key, value);
}

/* The event's variables into j->env; false if a value is not what the kernel writes. */
static bool make_env(struct pjob *j, const struct entry *e)
{
	const char *peer = entry_get(e, "PEER"), *netns = entry_get(e, "NETNS");
	const char *laddr = entry_get(e, "LADDR"), *lport = entry_get(e, "LPORT");
	const char *ban_s = entry_get(e, "BAN_S"), *unit = entry_get(e, "UNIT");
	const char *hier = entry_get(e, "HIERARCHY"), *id = entry_get(e, "AUDIT_ID");
	const char *reason = entry_get(e, "REASON");
	struct strbuf sb = STRBUF_INIT;
	char addr[64], len[8];
	unsigned plen;
	bool v6, ok;

	if (!split_peer(peer, addr, sizeof(addr), &plen, &v6) || !digits(netns, 20) ||
	    !address(laddr) || !digits(lport, 5))
		return false;
	if (ban_s && !digits(ban_s, 20))
		return false;
	if (!j->ban && (!reason || strspn(reason, "abcdefghijklmnopqrstuvwxyz_-") != strlen(reason) ||
			!reason[0] || strlen(reason) > 31))
		return false;
	snprintf(len, sizeof(len), "%u", plen);
	put(&sb, "BRUTE_EVENT", j->ban ? "ban" : "unban");
	put(&sb, "BRUTE_PEER", peer);
	put(&sb, "BRUTE_PEER_ADDRESS", addr);
	put(&sb, "BRUTE_PEER_PREFIXLEN", len);
	put(&sb, "BRUTE_PEER_FAMILY", v6 ? "ipv6" : "ipv4");
	if (ban_s)
		put(&sb, "BRUTE_BAN_S", ban_s);
	if (!j->ban)
		put(&sb, "BRUTE_REASON", reason);
	put(&sb, "BRUTE_TRANSPORT", "tcp");
	put(&sb, "BRUTE_NETNS", netns);
	put(&sb, "BRUTE_LADDR", laddr);
	put(&sb, "BRUTE_LPORT", lport);
	if (unit_name(unit))
		put(&sb, "BRUTE_UNIT", unit);
	if (digits(hier, 20))
		put(&sb, "BRUTE_HIERARCHY", hier);
	if (id && strspn(id, "0123456789.:") == strlen(id) && strlen(id) < 64)
		put(&sb, "BRUTE_AUDIT_ID", id);
	ok = !sb.oom && sb.len < sizeof(j->env);
	if (ok)
		memcpy(j->env, sb_str(&sb), sb.len + 1);
	sb_free(&sb);
	snprintf(j->key, sizeof(j->key), "%s %s %s %s", peer, netns, laddr, lport);
	snprintf(j->what, sizeof(j->what), "%s of %s", j->ban ? "ban" : "end of the ban", peer);
	return ok;
}

/* ---- running them ---- */

static void on_done(void *userdata, int error, const char *value)
{
	struct pjob *j = userdata;
	struct peeraction *p = j->owner;

	if (error < 0)
		failed(p, j, value);
	else if (strcmp(value, "done"))
		failed(p, j, value[0] ? value : "no result");	/* failed, timeout, canceled... */
	else
		log_debug("peer action %s (%s) done", j->unit, j->what);
	job_unlink(p, j);
}

static int write_env(const struct pjob *j, const char *extra)
{
	char tmp[PATH_MAX + 72];
	size_t n = strlen(j->env), k = strlen(extra);
	int fd, r = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", j->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, j->env, n) != (ssize_t)n || write(fd, extra, k) != (ssize_t)k)
		r = -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, j->path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

/* false: the job is gone (done without running, or failed) */
static bool start(struct peeraction *p, struct pjob *j)
{
	uint64_t now = now_realtime_usec(), left = 0;
	char extra[48], id[48];
	int r;

	if (j->ban) {
		left = j->until_usec > now ? (j->until_usec - now) / 1000000 : 0;
		if (left < 1) {
			p->stats.skipped++;	/* over before its action could run */
			job_unlink(p, j);
			return false;
		}
	}
	snprintf(id, sizeof(id), "%llx-%llu", (unsigned long long)p->tag,
		 (unsigned long long)++p->seq);
	snprintf(j->unit, sizeof(j->unit), "%s%s.service", p->prefix, id);
	snprintf(j->path, sizeof(j->path), "%s/%s", p->dir, id);
	snprintf(extra, sizeof(extra), "BRUTE_TIMEOUT_S='%llu'\n", (unsigned long long)left);
	r = write_env(j, extra);
	if (r == 0)
		r = manager_request(p->m, MANAGER_START, j->unit, on_done, j);
	if (r < 0) {
		failed(p, j, strerror(-r));
		job_unlink(p, j);
		return false;
	}
	p->queued--;
	p->running++;
	j->running = true;
	p->stats.runs++;
	if (j->ban)
		log_info("peer action %s: %s for %llu s", j->unit, j->what, (unsigned long long)left);
	else
		log_info("peer action %s: %s", j->unit, j->what);
	return true;
}

/* Jobs looked at for one that may start, from the oldest: bounds the work per turn of the loop. */
#define SCAN_MAX 64

static bool key_busy(const struct peeraction *p, const struct pjob *upto, const char *key)
{
	for (const struct pjob *j = p->head; j && j != upto; j = j->next)
		if (!strcmp(j->key, key))
			return true;
	return false;
}

void peeraction_tick(struct peeraction *p, uint64_t now_ms)
{
	struct pjob *j, *next;
	unsigned n = 0;

	(void)now_ms;
	for (j = p->head; j && p->running < PEERACTION_RUNNING && n++ < SCAN_MAX; j = next) {
		next = j->next;
		/* in order: never before an earlier action about the same peer and endpoint */
		if (!j->running && !key_busy(p, j, j->key))
			start(p, j);
	}
}

uint64_t peeraction_next_deadline(const struct peeraction *p)
{
	unsigned n = 0;

	if (p->running >= PEERACTION_RUNNING)
		return UINT64_MAX;
	for (const struct pjob *j = p->head; j && n++ < SCAN_MAX; j = j->next)
		if (!j->running && !key_busy(p, j, j->key))
			return 0;	/* one can start now */
	return UINT64_MAX;
}

void peeraction_entry(struct peeraction *p, const struct entry *e, uint64_t now_ms)
{
	const char *peer = entry_get(e, "PEER"), *transport = entry_get(e, "TRANSPORT");
	const char *ban_s = entry_get(e, "BAN_S");
	struct pjob *j, *q;

	(void)now_ms;
	if (!p->prefix[0] || (e->kind != ENTRY_PEER_BAN && e->kind != ENTRY_PEER_UNBAN) || !peer)
		return;
	if (!strncmp(peer, "uid:", 4) || !transport || strcmp(transport, "tcp")) {
		p->stats.skipped++;	/* a local user: no network address to act on */
		log_debug("peer action: %s is a local user, not a network address: no action", peer);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->owner = p;
	j->ban = e->kind == ENTRY_PEER_BAN;
	if (!make_env(j, e) || (j->ban && !ban_s)) {
		p->stats.failures++;
		log_error("peer action: the %s entry's fields are not what the kernel writes (peer %s); no action",
			  j->ban ? "peer banned" : "peer ban ended", peer);
		free(j);
		return;
	}
	if (j->ban) {
		uint64_t s = 0;

		parse_u64(ban_s, &s);
		j->until_usec = s > BAN_S_MAX ? UINT64_MAX : e->timestamp_usec + s * 1000000;
	} else {
		/* its ban not pushed yet: neither is pushed */
		for (q = p->tail; q; q = q->prev)
			if (!strcmp(q->key, j->key)) {
				if (q->ban && !q->running) {
					p->stats.skipped += 2;
					job_unlink(p, q);
					free(j);
					return;
				}
				break;
			}
	}
	if (p->queued >= PEERACTION_QUEUED) {
		for (q = p->head; q && q->running; q = q->next)
			;
		if (q) {
			failed(p, q, "dropped: too many actions waiting");
			job_unlink(p, q);
		}
	}
	j->prev = p->tail;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	p->queued++;
}
