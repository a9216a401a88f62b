/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actions.c - the backstop's restarts and the peer ban actions, on one
 * connection to systemd (actions.h).
 */
#include "actions.h"

#include <stdlib.h>
#include <string.h>

#include "manager.h"
#include "peeraction.h"
#include "record.h"
#include "restart.h"
#include "util.h"

struct actions {
	struct manager *m;
	struct restart *restart;
	struct peeraction *peer;
	char local_node[BRUTE_NODE_MAX];
	uint64_t remote_ignored;
};

struct actions *actions_new(const char *runtime_dir, const char *address)
{
	struct actions *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->m = manager_new(address);
	a->restart = a->m ? restart_new(a->m) : NULL;
	a->peer = a->m ? peeraction_new(a->m, runtime_dir) : NULL;
	if (!a->restart || !a->peer) {
		actions_free(a);
		return NULL;
	}
	return a;
}

void actions_free(struct actions *a)
{
	if (!a)
		return;
	restart_free(a->restart);
	peeraction_free(a->peer);
	manager_free(a->m);
	free(a);
}

int actions_configure(struct actions *a, bool backstop_restart, const char *peer_action)
{
	restart_set_enabled(a->restart, backstop_restart);
	return peeraction_set_template(a->peer, peer_action);
}

int actions_set_reload(struct actions *a, const char *patterns)
{
	return restart_set_reload(a->restart, patterns);
}

void actions_set_local_node(struct actions *a, const char *local_node)
{
	strtcpy(a->local_node, local_node ? local_node : "", sizeof(a->local_node));
}

void actions_entry(struct actions *a, const struct entry *e)
{
	const char *node = entry_get(e, "NODE");
	uint64_t now = now_monotonic_ms();

	/* another host's record (auditd aggregator): its units and peers are not this host's */
	if (!record_node_local(node, a->local_node)) {
		if (a->remote_ignored++ == 0)
			log_notice("records of other hosts (node=%s) are reported, never acted upon here (local_node: %s; further ones are counted)",
				   node, a->local_node[0] ? a->local_node : "none");
		return;
	}

	restart_entry(a->restart, e, now);
	peeraction_entry(a->peer, e, now);
}

bool actions_pollfd(struct actions *a, struct pollfd *pfd)
{
	return manager_pollfd(a->m, pfd);
}

void actions_dispatch(struct actions *a, uint64_t now_ms)
{
	manager_dispatch(a->m, now_ms);
	restart_tick(a->restart, now_ms);
	peeraction_tick(a->peer, now_ms);
}

uint64_t actions_next_deadline(struct actions *a)
{
	uint64_t d = manager_next_deadline(a->m), x;

	x = restart_next_deadline(a->restart);
	if (x < d)
		d = x;
	x = peeraction_next_deadline(a->peer);
	return x < d ? x : d;
}

void actions_get_stats(const struct actions *a, struct actions_stats *s)
{
	const struct restart_stats *rs = restart_get_stats(a->restart);
	const struct peeraction_stats *ps = peeraction_get_stats(a->peer);

	memset(s, 0, sizeof(*s));
	s->unit_restarts = rs->restarts;
	s->unit_starts = rs->starts;
	s->unit_failures = rs->failures;
	s->peer_actions = ps->runs;
	s->peer_action_failures = ps->failures;
	s->remote_ignored = a->remote_ignored;
}
