/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peer.c - a v3 peer and its endpoint as entry fields and text; the table
 * of peer bans seen (a hash of chains, and two lists from the oldest ban
 * on: this host's and other hosts').
 */
#include "peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

bool peer_is_user(const struct brute_peer *p)
{
	return strncmp(p->addr, "uid:", 4) == 0;
}

void peer_add_fields(struct entry *e, const struct brute_peer *p)
{
	entry_add(e, "PEER", p->addr);
	if (peer_is_user(p))
		entry_add_u64(e, "PEER_UID", p->uid);
	entry_add_u64(e, "NETNS", p->netns);
	entry_add(e, "TRANSPORT", proto_name(p->proto));
	if (p->proto == PROTO_UNIX) {
		entry_add_u64(e, "LINO", p->lino);
		if (p->lpath[0])
			entry_add(e, "LPATH", p->lpath);
	} else {
		entry_add(e, "LADDR", p->laddr);
		entry_add_u64(e, "LPORT", p->lport);
	}
}

const char *peer_who(const struct brute_peer *p, char *buf, size_t len)
{
	if (peer_is_user(p))
		snprintf(buf, len, "local user uid %u", p->uid);
	else
		snprintf(buf, len, "peer %s", p->addr);
	return buf;
}

const char *peer_endpoint(const struct brute_peer *p, char *buf, size_t len)
{
	if (p->proto == PROTO_UNIX && !strcmp(p->lpath, "?"))
		snprintf(buf, len, "unnamed unix socket inode %llu in netns %llu",
			 (unsigned long long)p->lino, (unsigned long long)p->netns);
	else if (p->proto == PROTO_UNIX && p->lpath[0])
		/* the path is the listener's choice: shown inert (control characters escaped) */
		snprintf(buf, len, "unix socket %s (inode %llu) in netns %llu", p->lpath,
			 (unsigned long long)p->lino, (unsigned long long)p->netns);
	else if (p->proto == PROTO_UNIX)
		snprintf(buf, len, "unix socket inode %llu in netns %llu",
			 (unsigned long long)p->lino, (unsigned long long)p->netns);
	else if (strchr(p->laddr, ':'))
		snprintf(buf, len, "tcp [%s]:%u in netns %llu", p->laddr, p->lport,
			 (unsigned long long)p->netns);
	else
		snprintf(buf, len, "tcp %s:%u in netns %llu", p->laddr, p->lport,
			 (unsigned long long)p->netns);
	return buf;
}

/* v4: a Unix endpoint with a path is that path (lino= is when the entry was made) */
static bool keyed_by_path(const struct brute_peer *p)
{
	return p->proto == PROTO_UNIX && p->lpath[0];
}

bool peer_same(const struct brute_peer *a, const struct brute_peer *b)
{
	if (keyed_by_path(a) != keyed_by_path(b) ||
	    (keyed_by_path(a) ? strcmp(a->lpath, b->lpath) != 0 : a->lino != b->lino))
		return false;
	return a->proto == b->proto && a->netns == b->netns && a->uid == b->uid &&
	       a->lport == b->lport && strcmp(a->addr, b->addr) == 0 &&
	       strcmp(a->laddr, b->laddr) == 0;
}

/* ---- the bans seen ---- */

#define PEER_BUCKETS 4096

struct peer_bans {
	struct peer_ban *buckets[PEER_BUCKETS];
	/* oldest ban first: [0] this host's, [1] other hosts' (forgotten first when full) */
	struct peer_ban *head[2], *tail[2];
	size_t n;
};

static void fnv(uint64_t *h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		*h ^= p[i];
		*h *= 1099511628211ull;
	}
}

static size_t peer_hash(const char *node, const struct brute_peer *p)
{
	uint64_t h = 14695981039346656037ull;

	if (node)
		fnv(&h, node, strlen(node));
	fnv(&h, p->addr, strlen(p->addr));
	fnv(&h, p->laddr, strlen(p->laddr));
	fnv(&h, &p->netns, sizeof(p->netns));
	fnv(&h, &p->lport, sizeof(p->lport));
	if (keyed_by_path(p))
		fnv(&h, p->lpath, strlen(p->lpath));
	else
		fnv(&h, &p->lino, sizeof(p->lino));
	return (size_t)(h & (PEER_BUCKETS - 1));
}

struct peer_bans *peer_bans_new(void)
{
	return calloc(1, sizeof(struct peer_bans));
}

/* The list a ban is on: this host's or other hosts' (b->remote). */
static void list_remove(struct peer_bans *t, struct peer_ban *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		t->head[b->remote] = b->next;
	if (b->next)
		b->next->prev = b->prev;
	else
		t->tail[b->remote] = b->prev;
	b->prev = b->next = NULL;
}

static void list_append(struct peer_bans *t, struct peer_ban *b)
{
	b->next = NULL;
	b->prev = t->tail[b->remote];
	if (t->tail[b->remote])
		t->tail[b->remote]->next = b;
	else
		t->head[b->remote] = b;
	t->tail[b->remote] = b;
}

struct peer_ban *peer_bans_find(struct peer_bans *t, const char *node, const struct brute_peer *key)
{
	if (node && !*node)
		node = NULL;
	for (struct peer_ban *b = t->buckets[peer_hash(node, key)]; b; b = b->hnext)
		if (record_node_same(b->node, node) && peer_same(&b->key, key))
			return b;
	return NULL;
}

void peer_bans_drop(struct peer_bans *t, struct peer_ban *b)
{
	struct peer_ban **p = &t->buckets[peer_hash(b->node, &b->key)];

	for (; *p; p = &(*p)->hnext)
		if (*p == b) {
			*p = b->hnext;
			break;
		}
	list_remove(t, b);
	free(b->unit);
	free(b->node);
	free(b);
	t->n--;
}

struct peer_ban *peer_bans_get(struct peer_bans *t, const char *node, bool remote,
			       const struct brute_peer *key, uint64_t now_ms)
{
	struct peer_ban *b = peer_bans_find(t, node, key);
	size_t k;

	if (node && !*node)
		node = NULL;
	if (b) {
		/* its list as the configuration says now (local_node may have changed) */
		list_remove(t, b);
		b->remote = remote;
		list_append(t, b);
		b->last_ms = now_ms;
		return b;
	}
	if (t->n >= PEER_BANS_MAX) {
		/* another host's oldest; this host's only to make room for one of its own */
		if (t->head[1])
			peer_bans_drop(t, t->head[1]);
		else if (!remote)
			peer_bans_drop(t, t->head[0]);
		else
			return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (node && !(b->node = strdup(node))) {
		free(b);
		return NULL;
	}
	b->remote = remote;
	b->key = *key;
	b->last_ms = now_ms;
	k = peer_hash(b->node, key);
	b->hnext = t->buckets[k];
	t->buckets[k] = b;
	list_append(t, b);
	t->n++;
	return b;
}

int peer_ban_set_unit(struct peer_ban *b, const char *unit)
{
	char *u = NULL;

	if (unit && !(u = strdup(unit)))
		return -1;
	free(b->unit);
	b->unit = u;
	return 0;
}

void peer_bans_expire(struct peer_bans *t, uint64_t now_ms, uint64_t idle_ms)
{
	struct peer_ban *b, *next;

	/*
	 * Oldest first, in each list, up to the first one seen less than
	 * idle_ms ago (none after it can be due); a long ban is passed over,
	 * not waited for.
	 */
	for (int l = 0; l < 2; l++)
		for (b = t->head[l]; b && now_ms >= b->last_ms && now_ms - b->last_ms >= idle_ms; b = next) {
			uint64_t keep = b->ban_s > (UINT64_MAX - idle_ms) / 1000 ? UINT64_MAX :
					idle_ms + b->ban_s * 1000;

			next = b->next;
			if (now_ms - b->last_ms >= keep)
				peer_bans_drop(t, b);
		}
}

size_t peer_bans_count(const struct peer_bans *t)
{
	return t->n;
}

void peer_bans_free(struct peer_bans *t)
{
	if (!t)
		return;
	for (int l = 0; l < 2; l++)
		while (t->head[l])
			peer_bans_drop(t, t->head[l]);
	free(t);
}
