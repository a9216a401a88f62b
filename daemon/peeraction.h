/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peeraction.h - an operator's action on each peer ban and on its end
 * (issue 30, item 4), the way fail2ban actions and CrowdSec bouncers act:
 * pushing Brute's bans to a firewall, a load balancer's deny list, a fleet.
 *
 * The action is a systemd template unit (peer_action = NAME@.service; the
 * package ships brute-peer-nft@.service).  For each peer banned entry and
 * peer ban ended entry of a network peer, brute-reportd writes the event
 * to an environment file, DIR/ID (DIR is /run/brute-reportd/peer-action),
 * and asks systemd to start NAME@ID.service, whose EnvironmentFile= reads
 * it.  So the action runs with the privileges its unit grants
 * (CAP_NET_ADMIN for nft) and brute-reportd keeps none; every value comes
 * from a record, is checked again here (addresses with inet_pton, numbers,
 * unit names) and reaches the action as one environment variable each,
 * never through a shell.  Its time bound is the unit's (TimeoutStartSec=);
 * its result is the job's (JobRemoved): counted, and logged.
 *
 *   BRUTE_EVENT            ban | unban
 *   BRUTE_PEER             10.0.0.2/32, 2001:db8:1:2::/64 (as the kernel wrote it)
 *   BRUTE_PEER_ADDRESS     10.0.0.2
 *   BRUTE_PEER_PREFIXLEN   32
 *   BRUTE_PEER_FAMILY      ipv4 | ipv6
 *   BRUTE_TIMEOUT_S        ban: the ban's time left (whole seconds, >= 1); unban: 0
 *   BRUTE_BAN_S            the ban's length (when known)
 *   BRUTE_REASON           unban: expired | lifted
 *   BRUTE_TRANSPORT        tcp
 *   BRUTE_NETNS, BRUTE_LADDR, BRUTE_LPORT   the endpoint the ban is on
 *   BRUTE_UNIT             the attacked service's unit (when known)
 *   BRUTE_HIERARCHY, BRUTE_AUDIT_ID         the records behind it
 *
 * A peer that is a local user ("uid:N": Unix sockets, v4's loopback TCP)
 * is no network address: no action.  Actions about one peer at one
 * endpoint run one at a time, in order; PEERACTION_RUNNING at once in
 * all; PEERACTION_QUEUED wait at most (beyond, the oldest is dropped and
 * counted as failed).  A ban whose end comes before its action started is
 * not pushed at all.
 */
#ifndef BRUTE_PEERACTION_H
#define BRUTE_PEERACTION_H

#include <stdbool.h>
#include <stdint.h>

#include "entry.h"
#include "manager.h"

#define PEERACTION_RUNNING	4
#define PEERACTION_QUEUED	1024
#define PEERACTION_SUBDIR	"peer-action"
/* failures are logged one by one, then at most one summary line in this */
#define PEERACTION_LOG_MS	10000

struct peeraction_stats {
	uint64_t runs;		/* actions started */
	uint64_t failures;	/* failed (the job's result, systemd unreachable, dropped) */
	uint64_t skipped;	/* local users, a ban over before its action ran */
};

struct peeraction;

/* dir: where the environment files go (DIR/peer-action is made, mode 0700) */
struct peeraction *peeraction_new(struct manager *m, const char *dir);
void peeraction_free(struct peeraction *p);
/*
 * The template (NAME@.service), or NULL/"" for none.  0, or -EINVAL for a
 * name that is not a template service.
 */
int peeraction_set_template(struct peeraction *p, const char *tmpl);
/* true: a valid template service name ("brute-peer-nft@.service") */
bool peeraction_template_valid(const char *tmpl);
/* A peer banned or peer ban ended entry starts its action; others are ignored. */
void peeraction_entry(struct peeraction *p, const struct entry *e, uint64_t now_ms);
void peeraction_tick(struct peeraction *p, uint64_t now_ms);
uint64_t peeraction_next_deadline(const struct peeraction *p);
const struct peeraction_stats *peeraction_get_stats(const struct peeraction *p);

#endif
