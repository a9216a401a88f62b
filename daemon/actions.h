/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actions.h - what brute-reportd does beyond reporting, through systemd:
 * the backstop's restarts (restart.h) and the peer ban actions
 * (peeraction.h), sharing one connection to systemd's manager (manager.h).
 * Only a live daemon acts (the multicast group, the auditd plugin), never a
 * replay.
 */
#ifndef BRUTE_ACTIONS_H
#define BRUTE_ACTIONS_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "entry.h"

struct actions_stats {
	uint64_t unit_restarts;		/* units restarted (mitigation=restart) */
	uint64_t unit_starts;		/* units started again after a backstop kill */
	uint64_t unit_failures;		/* restarts and starts that failed */
	uint64_t peer_actions;		/* peer ban actions started */
	uint64_t peer_action_failures;	/* ... that failed, or could not be started */
	uint64_t remote_ignored;	/* entries of another host's records: not acted upon */
};

struct actions;

/*
 * runtime_dir: the daemon's runtime directory (the peer actions' environment
 * files go in runtime_dir/peer-action); address: sd-bus address of systemd's
 * manager (tests), NULL for the private socket, then the system bus.
 */
struct actions *actions_new(const char *runtime_dir, const char *address);
void actions_free(struct actions *a);
/* backstop_restart = yes|no; peer_action = NAME@.service or "none".  0 or -EINVAL. */
int actions_configure(struct actions *a, bool backstop_restart, const char *peer_action);
/* backstop_reload = PATTERN...: units reloaded, not restarted, for mitigation=restart. */
int actions_set_reload(struct actions *a, const char *patterns);
/*
 * local_node: this host's node= ("": none).  An entry with a NODE of
 * another host (an auditd aggregator's record) is never acted upon
 * (record_node_local()): counted in remote_ignored.
 */
void actions_set_local_node(struct actions *a, const char *local_node);
void actions_entry(struct actions *a, const struct entry *e);
/* The connection to systemd, when there is one. */
bool actions_pollfd(struct actions *a, struct pollfd *pfd);
void actions_dispatch(struct actions *a, uint64_t now_ms);
uint64_t actions_next_deadline(struct actions *a);
void actions_get_stats(const struct actions *a, struct actions_stats *s);

#endif
