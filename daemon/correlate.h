/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * correlate.h - per-hierarchy state and incidents.
 *
 * A hierarchy is tracked from the first record naming it.  An incident
 * opens at its first counted crash (BRUTE_CRASH), raises an alert at the
 * attack (BRUTE_ATTACK), collects the killed tasks (BRUTE_KILL, reported
 * as one entry once no further kill arrives for kill_coalesce_ms), and
 * closes with a summary at the hierarchy's deallocation, after
 * incident_idle_ms without records, on eviction, or at shutdown.
 *
 * The table is bounded by max_hierarchies.  When full, the least recently
 * active hierarchy that never crossed a boundary is evicted, then the least
 * recently active one without an incident; only if every tracked
 * hierarchy has an open incident is the least recently active incident
 * closed (reason "evicted").  The same happens while the bytes kept
 * (hierarchies, their paths, incidents with their killed tasks, pairs)
 * exceed max_memory.  Evictions are counted.  The ids of the last
 * 4096 deallocated hierarchies are remembered: a record arriving after the
 * deallocation is ignored (counted as late), never a new incident.
 *
 * v2 records about (attacker uid, target) pairs (table charges, bans, ban
 * ends) are kept in a second table of such pairs; v3 peer bans in a third
 * (peer.h), from the ban to its end.  A v3 record's records_dropped= (the
 * kernel could not emit some records) is logged and counted, and marks the
 * incidents of its host open at that time as possibly incomplete.
 *
 * Records of several hosts (an auditd aggregator's node=NAME) never mix:
 * every table is keyed by node too (hierarchies by (node, id), pairs by
 * (node, uid, target), peer bans by (node, peer, endpoint), each kernel's
 * records_dropped= total and whether it sends kill summaries by node).  The
 * hierarchies (max_hierarchies, max_memory, the deallocated ids), the pairs
 * and the peer bans are bounded in all, whatever the number of hosts; when
 * full, another host's entry makes room first (hierarchies in the order
 * above among another host's), and this host's (no node=, or local_node)
 * only for one of this host: other hosts' records never displace this
 * host's entries.  A new hierarchy of another host that only this host's
 * could make room for (or another host's that grew, over max_memory) is
 * reported all the same, then evicted at once, its record handled: its
 * incident, if its record opened one, closed "evicted" and counted.
 *
 * Time ("now_ms") is whatever clock the caller uses consistently: the
 * monotonic clock when live, record time when replaying a log.
 */
#ifndef BRUTE_CORRELATE_H
#define BRUTE_CORRELATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "entry.h"
#include "record.h"

struct correlate_config {
	size_t max_hierarchies;
	size_t max_memory;	/* bytes of hierarchies, incidents and pairs kept (approximate) */
	uint64_t incident_idle_ms;
	uint64_t hierarchy_idle_ms;
	uint64_t kill_coalesce_ms;
	bool boundary_entries;	/* emit an entry the first time a kind is crossed */
	bool record_time;	/* entry timestamps of non-record events from record time */
	/* local_node: the node= of this host's own records ("": only those without node=) */
	char local_node[BRUTE_NODE_MAX];
};

void correlate_config_defaults(struct correlate_config *cfg);

struct correlate_stats {
	uint64_t hierarchies;	/* currently tracked */
	uint64_t incidents;	/* currently open */
	uint64_t opened, closed, attacks, kills, evictions, expired, entries;
	uint64_t config_changes;
	/* v2: (attacker uid, target) entries tracked, table charges, bans, ban ends */
	uint64_t targets, charges, bans, unbans;
	/* v3: peer ban and ban end records, peer bans tracked now (until their end) */
	uint64_t peer_bans, peer_unbans, peer_bans_kept;
	uint64_t uncharged;	/* crashes the kernel could not charge to the table (charged=no) */
	uint64_t kernel_dropped;	/* records the kernel could not emit (records_dropped=) */
	uint64_t orphans;	/* kill summaries for no open incident: ignored */
	uint64_t late;		/* records of a hierarchy after its deallocation: ignored */
	uint64_t unit_lookups, units_found;	/* systemd unit lookups, successful ones */
	uint64_t memory;	/* bytes accounted now (compared with max_memory) */
};

/* The entry is owned by the correlator and freed after the call. */
typedef void (*correlate_emit_cb)(const struct entry *e, void *userdata);

struct correlate;

struct correlate *correlate_new(const struct correlate_config *cfg,
				correlate_emit_cb emit, void *userdata);
void correlate_free(struct correlate *c);
/*
 * How to find the systemd unit of a live pid (unit_of_pid): entries about a
 * hierarchy then carry UNIT, looked up at its first crash or attack
 * record (the subject's pid, else its parent's unless that is init) and
 * kept; its boundary entries, written before, have none.  Without one (replay: the pids are gone) there is no UNIT.
 * walk: the cgroup tree may be searched (milliseconds): never for a crash
 * record, at most CORRELATE_WALKS_PER_RECORD per record, and not again
 * for a pid whose search failed in the last CORRELATE_MISS_TTL_MS.
 */
typedef int (*correlate_unit_fn)(int pid, bool walk, char *buf, size_t len);
#define CORRELATE_WALKS_PER_RECORD 1
#define CORRELATE_MISS_TTL_MS 10000
void correlate_set_unit_lookup(struct correlate *c, correlate_unit_fn fn);
/*
 * And how to find the cgroup v2 path of a live pid (unit_cgroup_path_of_pid):
 * then the hierarchy's unit is read from it (UNIT).  A cgroup found so is
 * never the entries' CGROUP: that is only a v4 record's cgroup= (attack,
 * kill summary), the kernel's, on which the backstop's restart acts (a
 * pid may be reused, a task may have moved).
 */
void correlate_set_cgroup_lookup(struct correlate *c, correlate_unit_fn fn);
/* New limits apply at once (a lower cap evicts). */
void correlate_set_config(struct correlate *c, const struct correlate_config *cfg, uint64_t now_ms);

int correlate_record(struct correlate *c, const struct brute_record *r, uint64_t now_ms);
/* Expire idle state and emit coalesced kill entries that are due. */
void correlate_tick(struct correlate *c, uint64_t now_ms);
/* Earliest now_ms at which correlate_tick has work, UINT64_MAX if none. */
uint64_t correlate_next_deadline(const struct correlate *c);
/* Emit pending kills and close every open incident with the given reason. */
void correlate_close_all(struct correlate *c, const char *reason);

const struct correlate_stats *correlate_get_stats(const struct correlate *c);

#endif
