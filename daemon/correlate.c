/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * correlate.c - hierarchy table (hash + LRU lists), incidents, entries.
 */
#include "correlate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "unit.h"
#include "util.h"

#define PERIODS_KEPT	16	/* recent crash periods kept per incident */
#define KILLS_KEPT	256	/* killed tasks kept per incident (all are counted) */
#define PIDS_LISTED	64	/* pids listed in one entry */
#define TASKS_LISTED	16	/* KILLED_TASK fields (with their paths) in one entry */
#define TARGETS_MAX	65536	/* (uid, target) entries: the kernel's table_size maximum */
#define TARGET_BUCKETS	8192
/* deallocated hierarchies remembered, so that a late record opens no ghost incident */
#define DEAD_KEPT	4096
/* what malloc adds to each block, for the byte accounting (glibc: 8-16) */
#define ALLOC_OVERHEAD	16
/* once a host's kernel is seen to close kill groups with a summary record, wait for it */
#define KILL_SUMMARY_WAIT_MS 1000
/* records the kernel could not emit: logged at once, then at most once in this */
#define DROPPED_LOG_INTERVAL_MS 60000
/* pids whose cgroup search failed, remembered CORRELATE_MISS_TTL_MS */
#define MISSES_KEPT	64
/* v4: trusted peers and relays named per incident (all are counted) */
#define NAMES_KEPT	8
/* nodes whose kernel is known (records_dropped= total, kill summaries): this host's, the others last seen */
#define NODES_KEPT	64

struct kill_task {
	uint32_t pid, uid, auid, ses;
	char comm[32];
	char *exe;
};

#define AUDIT_ID_LEN (3 * U64_DEC_MAX)	/* sec.milli:serial */

struct incident {
	uint64_t opened_usec, last_usec;
	uint64_t crashes, faults, ema_ms;
	uint64_t min_period_ms, max_period_ms;
	uint64_t periods[PERIODS_KEPT];
	uint64_t n_periods;
	uint64_t last_origin;

	unsigned attacks;
	int attack_type, speed, action, mode;
	uint64_t attack_faults, attack_ema_ms, threshold_ms, max_faults;

	struct kill_task *kills;
	size_t n_kills_kept, cap_kills;
	uint64_t n_kills;		/* all kills, including those not kept */
	uint64_t kills_reported;	/* kills already in an entry */
	size_t group_first;		/* first kept kill of the pending group */
	uint64_t kill_deadline;
	char kill_audit_id[AUDIT_ID_LEN];
	uint64_t group_unreported;	/* kills of the pending group without a record */
	uint64_t last_group_records;	/* per-process records of the last emitted group */

	/* v2 exec attack: the (attacker uid, target) it was charged to */
	bool has_target;
	uint32_t attacker_uid, target_major, target_minor;
	uint64_t target_ino;
	uint64_t ban_s;			/* a ban was imposed (BRUTE_BAN) */
	bool banned;

	/* v3: its crashes by source= (SOURCE_*), the peers banned from it */
	uint64_t by_source[4];
	bool has_source;
	uint64_t peer_bans;
	uint64_t records_dropped;	/* records the kernel could not emit while it was open */
	/*
	 * v4: its crashes by input= (INPUT_*); the trusted peers (input=trusted:
	 * proxies, load balancers, relays of a system uid) and the local relays
	 * (input=relayed: relay=uid:N) they named, the first NAMES_KEPT of each;
	 * the peer of the last relayed charge and its relay, for the peer attack
	 * and peer ban that follow it.
	 */
	uint64_t by_input[_INPUT_MAX];
	bool has_input;
	char trusted[NAMES_KEPT][BRUTE_PEER_MAX];
	unsigned n_trusted;
	uint32_t relays[NAMES_KEPT];
	unsigned n_relays;
	bool has_relayed;
	struct brute_peer relayed_peer;
	uint32_t relayed_uid;
	size_t bytes;			/* accounted: this, kills and their exe */
};

/*
 * One (attacker uid, target inode) entry of the kernel's v2 table, as seen
 * through its table-charge crash records, exec attacks and bans; keyed by
 * the node= of its records too: another host's uid and inode are not this
 * one's.
 */
struct target {
	char *node;		/* node= of its records, NULL: none */
	bool remote;		/* another host's (record_node_local()), when last used */
	uint32_t uid, major, minor;
	uint64_t ino;
	struct target *hnext, *prev, *next;	/* hash chain, LRU list (of its host's) */
	uint64_t last_ms;
	uint64_t charges, faults, ema_ms;
	uint64_t periods[PERIODS_KEPT];
	uint64_t n_periods;
	bool banned;
	uint64_t ban_usec, ban_s, ban_hierarchy;
};

struct hier {
	uint64_t id;
	char *node;		/* node= of its records, NULL: none (remote(): another host's) */
	bool remote;		/* another host's, when last active: which of each pair of lists */
	/* another host's, made while the table was full of this host's: evicted once its record is handled */
	bool unkept;
	struct hier *hnext;
	struct hier *prev, *next;	/* LRU list: quiet, plain, incidents or dead (of its host's) */
	struct list *list;		/* the one it is on */
	bool dead;			/* deallocated: a tombstone, records ignored */
	struct hier *kprev, *knext;	/* pending kill groups, by deadline */
	bool kill_pending;
	uint64_t last_ms;
	uint64_t exec_parent;
	unsigned boundaries;	/* kinds known crossed: 1711 records and 1710's boundaries= */
	unsigned reported;	/* kinds with a boundary entry (their 1711 record was seen) */
	bool has_subject;
	uint32_t pid, uid, auid;
	char comm[32];
	char *exe;
	char *unit;		/* systemd unit of its processes, when found */
	char *cgroup;		/* their cgroup v2 path: the record's (v4 cgroup=), else looked up */
	unsigned unit_tries;
	struct incident *inc;
	size_t bytes;		/* accounted: this, its exe, its unit, its incident */
};

struct list {
	struct hier *head, *tail;
	size_t n;
};

/*
 * What is known of one kernel, by node=: its total of records it could not
 * emit (records_dropped=), and whether it sends v2 kill summaries (another
 * host's kernel may be older or newer than this one's).
 */
struct node_kernel {
	bool used;
	char *node;		/* NULL: records without node= */
	uint64_t total;		/* its records_dropped= last seen */
	bool kill_summaries;	/* a v2 kill summary record of it was seen */
	uint64_t seen;		/* when (c->kernels_seen's count): the least recent is forgotten */
};

struct correlate {
	struct correlate_config cfg;
	correlate_emit_cb emit;
	void *userdata;
	struct hier **buckets;
	size_t n_buckets;
	/*
	 * quiet: no boundary crossed, no incident (evicted first); plain:
	 * boundaries crossed, no incident; incidents; dead: tombstones of
	 * deallocated hierarchies (not counted in stats.hierarchies).  Each
	 * twice: [0] this host's, [1] other hosts' (evicted first).
	 */
	struct list quiet[2], plain[2], incidents[2], dead[2];
	struct hier *khead, *ktail;
	struct target **tbuckets;
	/* LRU, least recently charged first: [0] this host's, [1] other hosts' (evicted first) */
	struct target *thead[2], *ttail[2];
	struct peer_bans *peer_bans;	/* v3 peer bans seen, until their end */
	/*
	 * each kernel's records_dropped= last seen and kill summaries: per
	 * node, different hosts' kernels never mix
	 */
	struct node_kernel kernels[NODES_KEPT];
	uint64_t kernels_seen;
	uint64_t dropped_total;		/* the total of the last record that added to it */
	uint64_t dropped_logged;	/* stats.kernel_dropped when last logged */
	uint64_t dropped_log_ms;	/* when (0: never) */
	/* the audit ID of the last record that added to it, and its node ("" none) */
	char dropped_id[AUDIT_ID_LEN];
	char dropped_node[BRUTE_NODE_MAX];
	correlate_unit_fn unit_fn;
	correlate_unit_fn cgroup_fn;
	unsigned walks_left;		/* cgroup searches the record being handled may still cost */
	uint64_t now_ms;		/* its time */
	struct { uint32_t pid; uint64_t ms; } misses[MISSES_KEPT];	/* failed searches */
	unsigned miss_next;
	const char *node;		/* the node of the entries being made (NULL, "": none) */
	bool remote;			/* the record being handled is another host's */
	uint64_t last_record_usec;
	struct correlate_stats stats;
};

void correlate_config_defaults(struct correlate_config *cfg)
{
	cfg->max_hierarchies = 131072;
	cfg->max_memory = 192u << 20;
	cfg->incident_idle_ms = 600 * 1000;
	cfg->hierarchy_idle_ms = 24 * 3600 * 1000ull;
	cfg->kill_coalesce_ms = 10;
	cfg->boundary_entries = true;
	cfg->record_time = false;
}

/* ---- lists ---- */

static void list_remove(struct list *l, struct hier *h)
{
	if (h->prev)
		h->prev->next = h->next;
	else
		l->head = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		l->tail = h->prev;
	h->prev = h->next = NULL;
	l->n--;
}

static void list_append(struct list *l, struct hier *h)
{
	h->next = NULL;
	h->prev = l->tail;
	if (l->tail)
		l->tail->next = h;
	else
		l->head = h;
	l->tail = h;
	l->n++;
}

static struct list *list_of(struct correlate *c, struct hier *h)
{
	return h->dead ? &c->dead[h->remote] : h->inc ? &c->incidents[h->remote] :
	       h->boundaries ? &c->plain[h->remote] : &c->quiet[h->remote];
}

/* The least recently active of a pair of lists (this host's, other hosts'): their LRU order. */
static struct hier *oldest(const struct list *pair)
{
	struct hier *a = pair[0].head, *b = pair[1].head;

	if (!a || !b)
		return a ? a : b;
	return b->last_ms < a->last_ms ? b : a;
}

/* Onto the list its state says (at the tail: most recently active). */
static void relist(struct correlate *c, struct hier *h)
{
	struct list *want = list_of(c, h);

	if (h->list == want)
		return;
	if (h->list)
		list_remove(h->list, h);
	list_append(want, h);
	h->list = want;
}

static void kill_list_remove(struct correlate *c, struct hier *h)
{
	if (!h->kill_pending)
		return;
	if (h->kprev)
		h->kprev->knext = h->knext;
	else
		c->khead = h->knext;
	if (h->knext)
		h->knext->kprev = h->kprev;
	else
		c->ktail = h->kprev;
	h->kprev = h->knext = NULL;
	h->kill_pending = false;
}

static void kill_list_append(struct correlate *c, struct hier *h)
{
	kill_list_remove(c, h);
	h->knext = NULL;
	h->kprev = c->ktail;
	if (c->ktail)
		c->ktail->knext = h;
	else
		c->khead = h;
	c->ktail = h;
	h->kill_pending = true;
}

/* ---- hash ---- */

static size_t hash_u64(uint64_t x, size_t n_buckets)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (size_t)(x & (n_buckets - 1));
}

/* Hierarchies are keyed by (node, id): ids of different hosts are unrelated. */
static uint64_t node_key(const char *node, uint64_t id)
{
	uint64_t x = 0xcbf29ce484222325ull;	/* FNV-1a */

	if (!node || !*node)
		return id;
	for (; *node; node++)
		x = (x ^ (unsigned char)*node) * 0x100000001b3ull;
	return id ^ x;
}

/* Another host's hierarchy (auditd aggregator): its pids and cgroups are not this one's. */
static bool remote(const struct correlate *c, const struct hier *h)
{
	return !record_node_local(h->node, c->cfg.local_node);
}

static struct hier *hash_find(struct correlate *c, const char *node, uint64_t id)
{
	struct hier *h;

	for (h = c->buckets[hash_u64(node_key(node, id), c->n_buckets)]; h; h = h->hnext)
		if (h->id == id && record_node_same(h->node, node))
			return h;
	return NULL;
}

static void hash_grow(struct correlate *c)
{
	size_t n = c->n_buckets * 2;
	struct hier **b = calloc(n, sizeof(*b));

	if (!b)
		return;	/* keep the old table; chains just get longer */
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct hier *h = c->buckets[i], *next;

		for (; h; h = next) {
			size_t k = hash_u64(node_key(h->node, h->id), n);

			next = h->hnext;
			h->hnext = b[k];
			b[k] = h;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->n_buckets = n;
}

static void hash_remove(struct correlate *c, struct hier *h)
{
	struct hier **p = &c->buckets[hash_u64(node_key(h->node, h->id), c->n_buckets)];

	for (; *p; p = &(*p)->hnext)
		if (*p == h) {
			*p = h->hnext;
			return;
		}
}

/* ---- helpers ---- */

static uint64_t record_usec(const struct brute_record *r)
{
	return r->sec * 1000000 + (uint64_t)r->milli * 1000;
}

/* the audit ID as ausearch -a takes it (buf of AUDIT_ID_LEN) */
static void audit_id(const struct brute_record *r, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%03u:%lu", (unsigned long long)r->sec, r->milli, r->serial);
}

static uint64_t close_time_usec(struct correlate *c)
{
	return c->cfg.record_time ? c->last_record_usec : now_realtime_usec();
}

static void emit(struct correlate *c, struct entry *e)
{
	/* a record of another host (auditd aggregator): which one */
	if (c->node && *c->node) {
		entry_add(e, "NODE", c->node);
		if (e->message)
			entry_set_message(e, "[node %s] %s", c->node, e->message);
	}
	c->stats.entries++;
	c->emit(e, c->userdata);
	entry_free(e);
}

static size_t str_bytes(const char *s);
static void charge(struct correlate *c, struct hier *h, size_t add, size_t sub);

static void set_subject(struct correlate *c, struct hier *h, const struct brute_subject *s)
{
	char *exe;

	if (!s->present)
		return;
	if (!h->exe || strcmp(h->exe, s->exe) != 0) {
		exe = strdup(s->exe);
		if (!exe)
			return;
		charge(c, h, str_bytes(exe), str_bytes(h->exe));
		free(h->exe);
		h->exe = exe;
	}
	h->has_subject = true;
	h->pid = s->pid;
	h->uid = s->uid;
	h->auid = s->auid;
	strtcpy(h->comm, s->comm, sizeof(h->comm));
}

/* 64-bit ids are strings: JSON consumers lose precision above 2^53 */
static void add_id(struct entry *e, const char *name, uint64_t id)
{
	entry_add_id(e, name, id);
}

static void add_subject(struct entry *e, const struct brute_subject *s)
{
	entry_add_u64(e, "PID", s->pid);
	entry_add_u64(e, "PPID", s->ppid);
	entry_add_u64(e, "UID", s->uid);
	entry_add_u64(e, "EUID", s->euid);
	entry_add_audit_id(e, "AUID", s->auid);
	entry_add_audit_id(e, "SES", s->ses);
	entry_add(e, "COMM", s->comm);
	entry_add(e, "EXE", s->exe);
}

/*
 * Lookups per hierarchy (a miss costs a cgroup tree walk).  Only crashes and
 * attacks ask, not boundaries: every process that reads from the network
 * crosses one, crashes are rare.
 */
#define UNIT_TRIES 2

/*
 * One lookup of a live pid.  walk (a cgroup tree search may follow a
 * failed /proc read): only within the record's budget, and not again for
 * a pid whose search just failed (a gone task, a parent many hierarchies
 * share); without it, the /proc read alone.
 */
static int lookup_pid(struct correlate *c, correlate_unit_fn fn, uint32_t pid, bool walk,
		      char *buf, size_t len)
{
	int r;

	if (walk) {
		for (unsigned i = 0; i < MISSES_KEPT && walk; i++)
			if (c->misses[i].pid == pid && c->misses[i].ms &&
			    c->now_ms - c->misses[i].ms < CORRELATE_MISS_TTL_MS)
				walk = false;
		if (walk && !c->walks_left)
			walk = false;
		else if (walk)
			c->walks_left--;
	}
	r = fn((int)pid, walk, buf, len);
	if (r < 0 && walk) {
		c->misses[c->miss_next].pid = pid;
		c->misses[c->miss_next].ms = c->now_ms ? c->now_ms : 1;
		c->miss_next = (c->miss_next + 1) % MISSES_KEPT;
	}
	return r;
}

/* The unit of a live task: the subject, else its parent. */
static int subject_unit(struct correlate *c, const struct brute_subject *s, bool walk, char *buf,
			size_t len)
{
	int r;

	c->stats.unit_lookups++;
	r = lookup_pid(c, c->unit_fn, s->pid, walk, buf, len);
	/* a forked task shares its parent's cgroup; init's children do not */
	if (r < 0 && s->ppid > 1)
		r = lookup_pid(c, c->unit_fn, s->ppid, walk, buf, len);
	if (r == 0)
		c->stats.units_found++;
	return r;
}

/* The cgroup of a live task: the subject, else its parent (as subject_unit). */
static int subject_cgroup(struct correlate *c, const struct brute_subject *s, bool walk, char *buf,
			  size_t len)
{
	int r = lookup_pid(c, c->cgroup_fn, s->pid, walk, buf, len);

	if (r < 0 && s->ppid > 1)
		r = lookup_pid(c, c->cgroup_fn, s->ppid, walk, buf, len);
	return r;
}

/* The hierarchy's cgroup (v4: the record's cgroup=, authoritative), and its unit if none yet. */
static void set_cgroup(struct correlate *c, struct hier *h, const char *path)
{
	char unit[UNIT_NAME_MAX], *p;

	if (!path[0] || (h->cgroup && !strcmp(h->cgroup, path)) || !(p = strdup(path)))
		return;
	charge(c, h, str_bytes(p), str_bytes(h->cgroup));
	free(h->cgroup);
	h->cgroup = p;
	/* another host's cgroup names no unit of this one (journalctl -u) */
	if (!remote(c, h) && !h->unit && unit_from_cgroup_path(p, unit, sizeof(unit)) == 0 &&
	    (h->unit = strdup(unit)))
		charge(c, h, str_bytes(h->unit), 0);
}

/*
 * The hierarchy's unit, from a live task of it: the subject, else its
 * parent.  With a cgroup lookup, the cgroup path first, the unit read from
 * it; that path is not kept as the hierarchy's cgroup (only the kernel's
 * cgroup= is: the backstop's restart acts on it).  walk: see lookup_pid().
 */
static void find_unit(struct correlate *c, struct hier *h, const struct brute_subject *s, bool walk)
{
	char buf[4096], unit[UNIT_NAME_MAX];

	/* another host's pids are not this one's */
	if (!h || h->dead || remote(c, h) || h->unit || !c->unit_fn || !s->present ||
	    h->unit_tries >= UNIT_TRIES)
		return;
	h->unit_tries++;
	if (c->cgroup_fn && subject_cgroup(c, s, walk, buf, sizeof(buf)) == 0) {
		c->stats.unit_lookups++;
		if (unit_from_cgroup_path(buf, unit, sizeof(unit)) == 0 && (h->unit = strdup(unit))) {
			charge(c, h, str_bytes(h->unit), 0);
			c->stats.units_found++;
		}
		return;
	}
	if (subject_unit(c, s, walk, buf, sizeof(buf)) < 0 || !(h->unit = strdup(buf)))
		return;
	charge(c, h, str_bytes(h->unit), 0);
}

static void add_unit(struct entry *e, const struct hier *h)
{
	if (h && h->unit)
		entry_add(e, "UNIT", h->unit);
	if (h && h->cgroup)
		entry_add(e, "CGROUP", h->cgroup);
}

static void add_hier_subject(struct entry *e, const struct hier *h)
{
	if (!h->has_subject)
		return;
	entry_add_u64(e, "PID", h->pid);
	entry_add_u64(e, "UID", h->uid);
	entry_add_audit_id(e, "AUID", h->auid);
	entry_add(e, "COMM", h->comm);
	entry_add(e, "EXE", h->exe ? h->exe : "");
}

static void add_boundaries(struct entry *e, const char *name, unsigned mask)
{
	char buf[64];

	boundaries_to_list(mask, buf, sizeof(buf));
	entry_add(e, name, buf);
}

static void add_period_ring(struct entry *e, const uint64_t *periods, uint64_t n_periods)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t n = n_periods < PERIODS_KEPT ? n_periods : PERIODS_KEPT;

	for (uint64_t i = n_periods - n; i < n_periods; i++) {
		if (sb.len)
			sb_putc(&sb, ',');
		sb_put_u64(&sb, periods[i % PERIODS_KEPT]);
	}
	if (n)
		entry_add(e, "PERIODS_MS", sb_str(&sb));
	sb_free(&sb);
}

static void add_periods(struct entry *e, const struct incident *inc)
{
	add_period_ring(e, inc->periods, inc->n_periods);
}

/* v3: the incident's crashes by who answers for them (source=) */
static void add_sources(struct entry *e, const struct incident *inc)
{
	if (!inc->has_source)
		return;
	entry_add_u64(e, "CRASHES_PEER", inc->by_source[SOURCE_PEER]);
	entry_add_u64(e, "CRASHES_USER", inc->by_source[SOURCE_USER]);
	entry_add_u64(e, "CRASHES_UNKNOWN", inc->by_source[SOURCE_UNKNOWN]);
}

/* v4: the crashes charged through a relay, or not charged (ambiguous, trusted), and who */
static void add_inputs(struct entry *e, const struct incident *inc)
{
	if (!inc->has_input)
		return;
	entry_add_u64(e, "CRASHES_RELAYED", inc->by_input[INPUT_RELAYED]);
	entry_add_u64(e, "CRASHES_AMBIGUOUS", inc->by_input[INPUT_AMBIGUOUS]);
	entry_add_u64(e, "CRASHES_TRUSTED", inc->by_input[INPUT_TRUSTED]);
	for (unsigned i = 0; i < inc->n_trusted; i++)
		entry_add(e, "TRUSTED_PEER", inc->trusted[i]);
	for (unsigned i = 0; i < inc->n_relays; i++)
		entry_addf(e, "RELAY", "uid:%u", inc->relays[i]);
}

/*
 * "; 12 crashes not charged: 10 through trusted peers 10.0.0.5/32, uid:33,
 * 2 ambiguous; 3 charged through local relays uid:33" (empty without any).
 */
static void inputs_text(const struct incident *inc, struct strbuf *sb)
{
	uint64_t t = inc->by_input[INPUT_TRUSTED], a = inc->by_input[INPUT_AMBIGUOUS];
	uint64_t rl = inc->by_input[INPUT_RELAYED];

	if (t + a) {
		sb_printf(sb, "; %llu crash%s not charged to a peer:", (unsigned long long)(t + a),
			  t + a == 1 ? "" : "es");
		if (t) {
			sb_printf(sb, " %llu through trusted peer%s", (unsigned long long)t,
				  inc->n_trusted == 1 ? "" : "s");
			for (unsigned i = 0; i < inc->n_trusted; i++)
				sb_printf(sb, "%s %s", i ? "," : "", inc->trusted[i]);
			if (t && inc->n_trusted == NAMES_KEPT)
				sb_puts(sb, ", ...");
		}
		if (a)
			sb_printf(sb, "%s %llu ambiguous (input from more than one source)", t ? "," : "",
				  (unsigned long long)a);
	}
	if (rl) {
		sb_printf(sb, "; %llu charged through local relay%s", (unsigned long long)rl,
			  inc->n_relays == 1 ? "" : "s");
		for (unsigned i = 0; i < inc->n_relays; i++)
			sb_printf(sb, "%s uid:%u", i ? "," : "", inc->relays[i]);
	}
}

/* The incident's crash input (v4) appended to the entry's message. */
static void message_inputs(struct entry *e, const struct incident *inc)
{
	struct strbuf sb = STRBUF_INIT;

	if (!inc->has_input)
		return;
	inputs_text(inc, &sb);
	if (sb.len)
		entry_set_message(e, "%s%s", e->message, sb_str(&sb));
	sb_free(&sb);
}

static void add_target(struct entry *e, uint32_t uid, uint32_t major, uint32_t minor, uint64_t ino)
{
	entry_add_u64(e, "ATTACKER_UID", uid);
	entry_addf(e, "TARGET_DEV", "%u:%u", major, minor);
	entry_add_u64(e, "TARGET_INO", ino);
}

static void add_record_target(struct entry *e, const struct brute_record *r)
{
	add_target(e, r->attacker_uid, r->target_major, r->target_minor, r->target_ino);
}

static size_t str_bytes(const char *s)
{
	return s ? strlen(s) + 1 + ALLOC_OVERHEAD : 0;
}

/* Account delta bytes to h (and the total). */
static void charge(struct correlate *c, struct hier *h, size_t add, size_t sub)
{
	h->bytes += add;
	h->bytes -= sub;
	c->stats.memory += add;
	c->stats.memory -= sub;
}

static void free_incident(struct incident *inc)
{
	if (!inc)
		return;
	for (size_t i = 0; i < inc->n_kills_kept; i++)
		free(inc->kills[i].exe);
	free(inc->kills);
	free(inc);
}

/* ---- entries ---- */

/* What a kill answered: "a fork brute force attack", ... */
static const char *attack_phrase(const struct incident *inc)
{
	if (!inc->attacks)
		return "a brute force attack";
	switch (inc->attack_type) {
	case ATTACK_EXEC:
		return "an exec brute force attack";
	case ATTACK_PEER:
		return "a peer brute force attack";
	case ATTACK_BACKSTOP:
		return "the backstop (a service crashing from peers or unknown sources)";
	default:
		return "a fork brute force attack";
	}
}

static void emit_kills_of(struct correlate *c, struct hier *h);

/* The entries about h name its node (also from the timers, between records). */
static void emit_kills(struct correlate *c, struct hier *h)
{
	const char *node = c->node;

	c->node = h->node;
	emit_kills_of(c, h);
	c->node = node;
}

static void emit_kills_of(struct correlate *c, struct hier *h)
{
	struct incident *inc = h->inc;
	struct strbuf pids = STRBUF_INIT, task = STRBUF_INIT;
	struct entry e;
	uint64_t n;
	size_t listed = 0;

	kill_list_remove(c, h);
	if (!inc || inc->n_kills == inc->kills_reported)
		return;
	n = inc->n_kills - inc->kills_reported;

	entry_init(&e, ENTRY_KILL, LOG_CRIT, inc->last_usec);
	add_id(&e, "HIERARCHY", h->id);
	if (inc->attacks) {
		entry_add(&e, "ATTACK_TYPE", attack_name(inc->attack_type));
		entry_add(&e, "ACTION", action_name(inc->action));
	}
	if (inc->has_target)
		add_target(&e, inc->attacker_uid, inc->target_major, inc->target_minor,
			   inc->target_ino);
	add_unit(&e, h);
	entry_add_u64(&e, "KILLED_COUNT", n);
	if (inc->group_unreported)
		entry_add_u64(&e, "KILLED_UNREPORTED", inc->group_unreported);
	for (size_t i = inc->group_first; i < inc->n_kills_kept && listed < PIDS_LISTED; i++, listed++)
		sb_printf(&pids, "%s%u", pids.len ? "," : "", inc->kills[i].pid);
	entry_add(&e, "KILLED_PIDS", sb_str(&pids));
	for (size_t i = inc->group_first; i < inc->n_kills_kept && i - inc->group_first < TASKS_LISTED; i++) {
		const struct kill_task *k = &inc->kills[i];

		sb_reset(&task);
		char a[16], s[16];

		sb_printf(&task, "pid=%u uid=%u auid=%s ses=%s comm=", k->pid, k->uid,
			  audit_id_str(k->auid, a, sizeof(a)), audit_id_str(k->ses, s, sizeof(s)));
		audit_untrusted_encode(&task, k->comm);
		sb_puts(&task, " exe=");
		audit_untrusted_encode(&task, k->exe ? k->exe : "");
		entry_add(&e, "KILLED_TASK", sb_str(&task));
	}
	if (inc->group_first < inc->n_kills_kept) {
		const struct kill_task *k = &inc->kills[inc->group_first];

		entry_add_u64(&e, "UID", k->uid);
		entry_add_audit_id(&e, "AUID", k->auid);
		entry_add(&e, "COMM", k->comm);
		entry_add(&e, "EXE", k->exe ? k->exe : "");
		entry_set_message(&e, "Killed %llu task%s of hierarchy %llu (%s) after %s: pids %s%s",
				  (unsigned long long)n, n == 1 ? "" : "s",
				  (unsigned long long)h->id, k->exe ? k->exe : "?", attack_phrase(inc),
				  sb_str(&pids), n > listed ? ",..." : "");
		if (inc->group_unreported)
			entry_set_message(&e, "%s (%llu not itemized by the kernel)", e.message,
					  (unsigned long long)inc->group_unreported);
	} else if (n == inc->group_unreported) {
		entry_set_message(&e, "Killed %llu task%s of hierarchy %llu after %s (none itemized by the kernel)",
				  (unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)h->id,
				  attack_phrase(inc));
	} else {
		entry_set_message(&e, "Killed %llu tasks of hierarchy %llu (not all listed)",
				  (unsigned long long)n, (unsigned long long)h->id);
	}
	if (inc->kill_audit_id[0])
		entry_add(&e, "AUDIT_ID", inc->kill_audit_id);
	inc->last_group_records = n - inc->group_unreported;
	inc->group_unreported = 0;
	inc->kills_reported = inc->n_kills;
	inc->group_first = inc->n_kills_kept;
	inc->kill_audit_id[0] = '\0';
	sb_free(&pids);
	sb_free(&task);
	emit(c, &e);
}

static void emit_closed(struct correlate *c, struct hier *h, const char *reason,
			const struct brute_record *dealloc, uint64_t ts_usec)
{
	struct incident *inc = h->inc;
	struct strbuf pids = STRBUF_INIT;
	struct entry e;

	entry_init(&e, ENTRY_CLOSED, inc->attacks ? LOG_NOTICE : LOG_INFO, ts_usec);
	add_id(&e, "HIERARCHY", h->id);
	entry_add(&e, "CLOSE_REASON", reason);
	/* audit time may step back (NTP): a duration never underflows */
	entry_add_u64(&e, "DURATION_MS", inc->last_usec > inc->opened_usec ?
			  (inc->last_usec - inc->opened_usec) / 1000 : 0);
	entry_add_u64(&e, "CRASHES", inc->crashes);
	entry_add_u64(&e, "FAULTS", inc->faults);
	entry_add_u64(&e, "EMA_MS", inc->ema_ms);
	if (inc->n_periods) {
		entry_add_u64(&e, "MIN_PERIOD_MS", inc->min_period_ms);
		entry_add_u64(&e, "MAX_PERIOD_MS", inc->max_period_ms);
	}
	add_periods(&e, inc);
	entry_add_u64(&e, "ATTACKS", inc->attacks);
	if (inc->attacks) {
		entry_add(&e, "ATTACK_TYPE", attack_name(inc->attack_type));
		entry_add(&e, "SPEED", speed_name(inc->speed));
		entry_add(&e, "ACTION", action_name(inc->action));
	}
	if (inc->has_target)
		add_target(&e, inc->attacker_uid, inc->target_major, inc->target_minor,
			   inc->target_ino);
	if (inc->banned)
		entry_add_u64(&e, "BAN_S", inc->ban_s);
	add_sources(&e, inc);
	add_inputs(&e, inc);
	if (inc->peer_bans)
		entry_add_u64(&e, "PEER_BANS", inc->peer_bans);
	if (inc->records_dropped)
		entry_add_u64(&e, "RECORDS_DROPPED", inc->records_dropped);
	entry_add_u64(&e, "KILLED_COUNT", inc->n_kills);
	for (size_t i = 0; i < inc->n_kills_kept && i < PIDS_LISTED; i++)
		sb_printf(&pids, "%s%u", pids.len ? "," : "", inc->kills[i].pid);
	if (inc->n_kills)
		entry_add(&e, "KILLED_PIDS", sb_str(&pids));
	add_boundaries(&e, "BOUNDARIES", h->boundaries);
	if (h->exec_parent)
		add_id(&e, "EXEC_PARENT", h->exec_parent);
	add_hier_subject(&e, h);
	add_unit(&e, h);
	if (dealloc) {
		char id[AUDIT_ID_LEN];

		entry_add_u64(&e, "KERNEL_FAULTS", dealloc->faults);
		entry_add_u64(&e, "KERNEL_ATTACKS", dealloc->attacks);
		entry_add_u64(&e, "KERNEL_KILLED", dealloc->killed);
		audit_id(dealloc, id, sizeof(id));
		entry_add(&e, "AUDIT_ID", id);
	}
	entry_set_message(&e, "Brute incident on hierarchy %llu (%s) closed (%s): %llu crash%s, %u attack%s, %llu task%s killed",
			  (unsigned long long)h->id, h->exe ? h->exe : "?", reason,
			  (unsigned long long)inc->crashes, inc->crashes == 1 ? "" : "es",
			  inc->attacks, inc->attacks == 1 ? "" : "s",
			  (unsigned long long)inc->n_kills, inc->n_kills == 1 ? "" : "s");
	if (inc->peer_bans)
		entry_set_message(&e, "%s, %llu peer%s banned", e.message,
				  (unsigned long long)inc->peer_bans, inc->peer_bans == 1 ? "" : "s");
	message_inputs(&e, inc);
	if (inc->records_dropped)
		entry_set_message(&e, "%s (incomplete: the kernel could not emit %llu record%s meanwhile)",
				  e.message, (unsigned long long)inc->records_dropped,
				  inc->records_dropped == 1 ? "" : "s");
	sb_free(&pids);
	emit(c, &e);
}

/* Close the incident (if any); the hierarchy stays tracked. */
static void close_incident(struct correlate *c, struct hier *h, const char *reason,
			   const struct brute_record *dealloc, uint64_t ts_usec)
{
	const char *node = c->node;

	if (!h->inc)
		return;
	emit_kills(c, h);
	c->node = h->node;
	emit_closed(c, h, reason, dealloc, ts_usec);
	c->node = node;
	charge(c, h, 0, h->inc->bytes);
	free_incident(h->inc);
	h->inc = NULL;
	relist(c, h);
	c->stats.closed++;
	c->stats.incidents--;
}

static void drop_hier(struct correlate *c, struct hier *h)
{
	kill_list_remove(c, h);
	list_remove(h->list, h);
	hash_remove(c, h);
	if (h->inc)
		c->stats.incidents--;
	free_incident(h->inc);
	free(h->exe);
	free(h->unit);
	free(h->cgroup);
	free(h->node);
	if (!h->dead)
		c->stats.hierarchies--;
	c->stats.memory -= h->bytes;
	free(h);
}

/*
 * The hierarchy was deallocated (its incident closed): keep only its id,
 * so that a record arriving after it (a late kill or summary) is dropped
 * instead of opening a ghost incident that only idleness would close.
 */
static void bury_hier(struct correlate *c, struct hier *h)
{
	kill_list_remove(c, h);
	charge(c, h, 0, str_bytes(h->exe) + str_bytes(h->unit) + str_bytes(h->cgroup));
	free(h->exe);
	free(h->unit);
	free(h->cgroup);
	h->exe = NULL;
	h->unit = NULL;
	h->cgroup = NULL;
	h->dead = true;
	h->remote = remote(c, h);
	relist(c, h);
	c->stats.hierarchies--;
	/* another host's tombstone first; this host's only for one of its own (else h itself) */
	if (c->dead[0].n + c->dead[1].n > DEAD_KEPT)
		drop_hier(c, c->dead[1].head ? c->dead[1].head : c->dead[0].head);
}

/*
 * Which hierarchy makes room for one of a host (remote: another host's),
 * never keep (the one being updated): the least recently active that never
 * crossed a boundary, then one without an incident, then the least recently
 * active incident; other hosts' first, and this host's only for one of its
 * own: other hosts' records never displace this host's hierarchies (NULL:
 * none may go).
 */
static struct hier *hier_victim(struct correlate *c, bool remote, const struct hier *keep)
{
	for (int l = 1; l >= (remote ? 1 : 0); l--) {
		struct list *lists[] = { &c->quiet[l], &c->plain[l], &c->incidents[l] };

		for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
			struct hier *v = lists[i]->head;

			if (v && v == keep)
				v = v->next;
			if (v)
				return v;
		}
	}
	return NULL;
}

/* Forget h to make room: its incident, if any, closed (reason "evicted"). */
static void evict_hier(struct correlate *c, struct hier *h)
{
	if (h->inc)
		close_incident(c, h, "evicted", NULL, close_time_usec(c));
	drop_hier(c, h);
	c->stats.evictions++;
}

/*
 * Over max_memory (a hierarchy grew: a new path, kills): evict in the
 * usual order, never keep (the one being updated), unless keep is another
 * host's and only this host's could make room: then keep goes (it returns
 * after evicting it).
 */
static void enforce_memory(struct correlate *c, struct hier *keep)
{
	while (c->stats.memory > c->cfg.max_memory) {
		bool rem = keep && keep->remote;
		struct hier *v = hier_victim(c, rem, keep);

		if (!v && rem && hier_victim(c, false, keep))
			v = keep;
		if (!v)
			return;
		evict_hier(c, v);
		if (v == keep)
			return;
	}
}

/*
 * Find or create, and mark as the most recently active.  A new one of
 * another host when the table is full of this host's is made all the same
 * (its record is reported), but unkept: record_one() evicts it once the
 * record is handled.
 */
static struct hier *get_hier(struct correlate *c, const char *node, uint64_t id, uint64_t now_ms)
{
	struct hier *h = hash_find(c, node, id);
	bool rem = !record_node_local(node, c->cfg.local_node), unkept = false;
	size_t k;

	if (h) {
		if (h->dead)
			return h;
		/* its lists as the configuration says now (local_node may have changed) */
		list_remove(h->list, h);
		h->list = NULL;
		h->remote = rem;
		relist(c, h);
		h->last_ms = now_ms;
		return h;
	}
	while (!unkept && (c->stats.hierarchies >= c->cfg.max_hierarchies ||
			   c->stats.memory > c->cfg.max_memory) && c->stats.hierarchies > 0) {
		struct hier *v = hier_victim(c, rem, NULL);

		if (v)
			evict_hier(c, v);
		else
			unkept = true;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	charge(c, h, sizeof(*h) + ALLOC_OVERHEAD, 0);
	h->id = id;
	h->remote = rem;
	h->unkept = unkept;
	if (node && *node) {
		h->node = strdup(node);
		if (!h->node) {
			c->stats.memory -= h->bytes;
			free(h);
			return NULL;
		}
		charge(c, h, str_bytes(h->node), 0);
	}
	h->last_ms = now_ms;
	if (c->stats.hierarchies >= c->n_buckets)
		hash_grow(c);
	k = hash_u64(node_key(node, id), c->n_buckets);
	h->hnext = c->buckets[k];
	c->buckets[k] = h;
	relist(c, h);
	c->stats.hierarchies++;
	return h;
}

static struct incident *open_incident(struct correlate *c, struct hier *h, uint64_t usec)
{
	if (h->inc)
		return h->inc;
	h->inc = calloc(1, sizeof(*h->inc));
	if (!h->inc)
		return NULL;
	h->inc->bytes = sizeof(*h->inc) + ALLOC_OVERHEAD;
	charge(c, h, h->inc->bytes, 0);
	h->inc->opened_usec = h->inc->last_usec = usec;
	relist(c, h);
	c->stats.opened++;
	c->stats.incidents++;
	return h->inc;
}

/* ---- (attacker uid, target) entries (v2) ---- */

static size_t target_hash(const char *node, uint32_t uid, uint32_t major, uint32_t minor,
			  uint64_t ino)
{
	return hash_u64(node_key(node, ino ^ ((uint64_t)uid << 32) ^ ((uint64_t)major << 20) ^ minor),
			TARGET_BUCKETS);
}

static void target_lru_remove(struct correlate *c, struct target *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		c->thead[t->remote] = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		c->ttail[t->remote] = t->prev;
	t->prev = t->next = NULL;
}

static void target_lru_append(struct correlate *c, struct target *t)
{
	t->next = NULL;
	t->prev = c->ttail[t->remote];
	if (c->ttail[t->remote])
		c->ttail[t->remote]->next = t;
	else
		c->thead[t->remote] = t;
	c->ttail[t->remote] = t;
}

static struct target *target_find(struct correlate *c, const struct brute_record *r)
{
	struct target *t;

	for (t = c->tbuckets[target_hash(r->node, r->attacker_uid, r->target_major, r->target_minor,
					 r->target_ino)]; t; t = t->hnext)
		if (t->uid == r->attacker_uid && t->ino == r->target_ino &&
		    t->major == r->target_major && t->minor == r->target_minor &&
		    record_node_same(t->node, r->node))
			return t;
	return NULL;
}

static void target_drop(struct correlate *c, struct target *t)
{
	struct target **p = &c->tbuckets[target_hash(t->node, t->uid, t->major, t->minor, t->ino)];

	for (; *p; p = &(*p)->hnext)
		if (*p == t) {
			*p = t->hnext;
			break;
		}
	target_lru_remove(c, t);
	free(t->node);
	free(t);
	c->stats.targets--;
}

/*
 * Which entry makes room for one of a host (remote: another host's): the
 * least recently charged one that is not banned, like the kernel, else the
 * least recently charged; other hosts' first, and this host's only for one
 * of its own: other hosts' records never displace this host's entries
 * (NULL: the new one is not kept).
 */
static struct target *target_victim(struct correlate *c, bool remote)
{
	for (int l = 1; l >= (remote ? 1 : 0); l--) {
		struct target *v = c->thead[l];

		while (v && v->banned)
			v = v->next;
		if (v || c->thead[l])
			return v ? v : c->thead[l];
	}
	return NULL;
}

/* Find or create, and mark as the most recently used. */
static struct target *target_get(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	struct target *t = target_find(c, r);
	size_t k;

	if (t) {
		/* its list as the configuration says now (local_node may have changed) */
		target_lru_remove(c, t);
		t->remote = c->remote;
		target_lru_append(c, t);
		t->last_ms = now_ms;
		return t;
	}
	if (c->stats.targets >= TARGETS_MAX) {
		struct target *v = target_victim(c, c->remote);

		if (!v)
			return NULL;
		target_drop(c, v);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (r->node[0] && !(t->node = strdup(r->node))) {
		free(t);
		return NULL;
	}
	t->remote = c->remote;
	t->uid = r->attacker_uid;
	t->major = r->target_major;
	t->minor = r->target_minor;
	t->ino = r->target_ino;
	t->last_ms = now_ms;
	k = target_hash(t->node, t->uid, t->major, t->minor, t->ino);
	t->hnext = c->tbuckets[k];
	c->tbuckets[k] = t;
	target_lru_append(c, t);
	c->stats.targets++;
	return t;
}

static void on_boundary(struct correlate *c, struct hier *h, const struct brute_record *r)
{
	char id[AUDIT_ID_LEN];
	struct entry e;
	struct brute_subject subj = r->subj;
	/* allocated's boundaries= already names the kind crossed in the same event */
	bool first = !(h->reported & r->boundary);

	/* the subject still has the IDs from before the crossing; new_* are after it */
	if (r->has_new_ids) {
		subj.uid = r->new_uid;
		subj.euid = r->new_euid;
	}
	h->boundaries |= r->boundary;
	h->reported |= r->boundary;
	set_subject(c, h, &subj);
	if (!first || !c->cfg.boundary_entries)
		return;

	entry_init(&e, ENTRY_BOUNDARY, LOG_INFO, record_usec(r));
	add_id(&e, "HIERARCHY", h->id);
	add_boundaries(&e, "BOUNDARY", r->boundary);
	add_boundaries(&e, "BOUNDARIES", h->boundaries);
	entry_add_u64(&e, "OLD_UID", r->old_uid);
	entry_add_u64(&e, "OLD_EUID", r->old_euid);
	/* v3 setid/fcaps: whose privileged exec chain started the image, who answers for it */
	if (r->has_owner)
		entry_add_u64(&e, "OWNER_UID", r->owner_uid);
	if (r->has_attacker)
		entry_add_u64(&e, "ATTACKER_UID", r->attacker_uid);
	add_subject(&e, &subj);
	add_unit(&e, h);
	if (h->exec_parent)
		add_id(&e, "EXEC_PARENT", h->exec_parent);
	audit_id(r, id, sizeof(id));
	entry_add(&e, "AUDIT_ID", id);
	entry_set_message(&e, "Hierarchy %llu crossed a %s boundary: pid %u (%s, %s) uid %u euid %u, was uid %u euid %u",
			  (unsigned long long)h->id, entry_get(&e, "BOUNDARY"),
			  subj.pid, subj.comm, subj.exe, subj.uid,
			  subj.euid, r->old_uid, r->old_euid);
	if (r->has_owner && r->has_attacker && r->attacker_uid != r->owner_uid)
		entry_set_message(&e, "%s; privileged exec chain of uid %u, answered for by uid %u",
				  e.message, r->owner_uid, r->attacker_uid);
	else if (r->has_owner)
		entry_set_message(&e, "%s; privileged exec chain of uid %u", e.message, r->owner_uid);
	emit(c, &e);
}

/*
 * v4 input=: counted; a trusted peer (input=trusted names it with peer=)
 * and a relay (input=relayed, relay=uid:N) are remembered by name, the
 * first NAMES_KEPT of each; the last relayed charge's peer and relay are
 * kept for the peer attack and peer ban that follow it.
 */
static void count_input(struct incident *inc, const struct brute_record *r)
{
	unsigned i;

	inc->has_input = true;
	inc->by_input[r->input]++;
	if (r->input == INPUT_TRUSTED && r->peer.present) {
		for (i = 0; i < inc->n_trusted && strcmp(inc->trusted[i], r->peer.addr); i++)
			;
		if (i == inc->n_trusted && i < NAMES_KEPT)
			strtcpy(inc->trusted[inc->n_trusted++], r->peer.addr, BRUTE_PEER_MAX);
	}
	if (r->input == INPUT_RELAYED) {
		for (i = 0; i < inc->n_relays && inc->relays[i] != r->relay_uid; i++)
			;
		if (i == inc->n_relays && i < NAMES_KEPT)
			inc->relays[inc->n_relays++] = r->relay_uid;
		inc->has_relayed = true;
		inc->relayed_peer = r->peer;
		inc->relayed_uid = r->relay_uid;
	}
}

/* The relay through which this peer's last crash was charged (v4), if that is whom r names. */
static bool relayed(const struct incident *inc, const struct brute_peer *p, uint32_t *uid)
{
	if (!inc || !inc->has_relayed || !peer_same(&inc->relayed_peer, p))
		return false;
	*uid = inc->relayed_uid;
	return true;
}

static void on_crash(struct correlate *c, struct hier *h, const struct brute_record *r)
{
	struct incident *inc = open_incident(c, h, record_usec(r));

	if (!inc)
		return;
	inc->last_usec = record_usec(r);
	inc->crashes++;
	inc->faults = r->faults;
	inc->ema_ms = r->ema_ms;
	inc->last_origin = r->origin;
	/* the first crash of a hierarchy has no period yet (period_ms=0) */
	if (r->faults > 1 || r->period_ms) {
		if (!inc->n_periods || r->period_ms < inc->min_period_ms)
			inc->min_period_ms = r->period_ms;
		if (r->period_ms > inc->max_period_ms)
			inc->max_period_ms = r->period_ms;
		inc->periods[inc->n_periods % PERIODS_KEPT] = r->period_ms;
		inc->n_periods++;
	}
	if (r->source) {
		inc->has_source = true;
		inc->by_source[r->source]++;
	}
	if (r->input)
		count_input(inc, r);
	if (r->origin == r->hierarchy)
		set_subject(c, h, &r->subj);
	/* crashes are many: the /proc read only, never a cgroup tree search */
	find_unit(c, h, &r->subj, false);
}

/* "peer 10.0.0.2/32 crashed service (/usr/sbin/service, hierarchy H) 5 times at tcp ..." */
static void message_peer_attack(struct entry *e, const struct hier *h, const struct brute_record *r)
{
	char who[PEER_TEXT_MAX], where[PEER_TEXT_MAX], auid[16];

	uint32_t relay;

	entry_set_message(e, "Peer brute force attack detected: %s crashed %s (%s, hierarchy %llu%s%s) %llu times at %s, pid %u uid %u auid %s, EMA %llu ms (threshold %llu ms, %s); action: %s",
			  peer_who(&r->peer, who, sizeof(who)), r->subj.comm, r->subj.exe,
			  (unsigned long long)h->id, h->unit ? ", unit " : "", h->unit ? h->unit : "",
			  (unsigned long long)r->faults, peer_endpoint(&r->peer, where, sizeof(where)),
			  r->subj.pid, r->subj.uid, audit_id_str(r->subj.auid, auid, sizeof(auid)),
			  (unsigned long long)r->ema_ms, (unsigned long long)r->threshold_ms,
			  speed_name(r->speed), action_name(r->action));
	if (relayed(h->inc, &r->peer, &relay))
		entry_set_message(e, "%s; its input came through the local relay of uid %u", e->message, relay);
}

/* The backstop: a service killed (mode 2) after crashes no peer ban stopped. */
static void message_backstop(struct entry *e, const struct hier *h, const struct incident *inc,
			     const struct brute_record *r)
{
	char auid[16];

	entry_set_message(e, "Backstop: hierarchy %llu (%s, %s%s%s) crashed %llu times from peers or unknown sources without a quiet period, pid %u uid %u auid %s, EMA %llu ms (threshold %llu ms, %s); action: %s%s",
			  (unsigned long long)h->id, r->subj.comm, r->subj.exe,
			  h->unit ? ", unit " : "", h->unit ? h->unit : "",
			  (unsigned long long)r->faults, r->subj.pid, r->subj.uid,
			  audit_id_str(r->subj.auid, auid, sizeof(auid)), (unsigned long long)r->ema_ms,
			  (unsigned long long)r->threshold_ms, speed_name(r->speed),
			  action_name(r->action),
			  r->action == ACTION_KILL ? " (it is restarted with a fresh layout and canary: by its unit's Restart=, else by brute-reportd)" :
			  r->action == ACTION_RESTART ? " (nothing killed: brute-reportd restarts its unit for a fresh layout and canary; the kernel kills it at its next crash if it still runs)" : "");
	if (inc->has_source)
		entry_set_message(e, "%s; this incident: %llu crash%s, %llu after a peer's input, %llu unattributed",
				  e->message, (unsigned long long)inc->crashes, inc->crashes == 1 ? "" : "es",
				  (unsigned long long)inc->by_source[SOURCE_PEER],
				  (unsigned long long)inc->by_source[SOURCE_UNKNOWN]);
	message_inputs(e, inc);
}

static void on_attack(struct correlate *c, struct hier *h, const struct brute_record *r,
		      uint64_t now_ms)
{
	struct incident *inc = open_incident(c, h, record_usec(r));
	struct target *t = NULL;
	struct hier *origin;
	struct entry e;
	char id[AUDIT_ID_LEN], auid[16];
	uint32_t relay;

	if (!inc)
		return;
	if (r->has_target) {
		/* v2 exec attack: its crashes were charged to (uid, target), not to h */
		t = target_get(c, r, now_ms);
		inc->has_target = true;
		inc->attacker_uid = r->attacker_uid;
		inc->target_major = r->target_major;
		inc->target_minor = r->target_minor;
		inc->target_ino = r->target_ino;
	}
	inc->last_usec = record_usec(r);
	inc->attacks++;
	inc->attack_type = r->attack;
	inc->speed = r->speed;
	inc->action = r->action;
	inc->mode = r->mode;
	inc->attack_faults = r->faults;
	inc->attack_ema_ms = r->ema_ms;
	inc->threshold_ms = r->threshold_ms;
	inc->max_faults = r->max_faults;
	/* an exec attack's faults and EMA are the (uid, target) entry's, a peer attack's the peer's */
	if (!r->has_target && r->attack != ATTACK_PEER) {
		inc->ema_ms = r->ema_ms;
		if (r->faults > inc->faults)
			inc->faults = r->faults;
	}
	c->stats.attacks++;

	entry_init(&e, ENTRY_ATTACK, LOG_ALERT, record_usec(r));
	add_id(&e, "HIERARCHY", h->id);
	add_id(&e, "ORIGIN", r->origin);
	entry_add(&e, "ATTACK_TYPE", attack_name(r->attack));
	entry_add(&e, "SPEED", speed_name(r->speed));
	entry_add_u64(&e, "FAULTS", r->faults);
	entry_add_u64(&e, "EMA_MS", r->ema_ms);
	entry_add_u64(&e, "THRESHOLD_MS", r->threshold_ms);
	entry_add_u64(&e, "MAX_FAULTS", r->max_faults);
	entry_add_u64(&e, "MODE", (uint64_t)r->mode);
	entry_add(&e, "ACTION", action_name(r->action));
	if (r->source)
		entry_add(&e, "SOURCE", source_name(r->source));
	if (r->has_target)
		add_record_target(&e, r);
	if (r->scope)
		entry_add(&e, "SCOPE", scope_name(r->scope));
	if (r->peer.present)
		peer_add_fields(&e, &r->peer);
	if (r->peer.present && relayed(inc, &r->peer, &relay))
		entry_addf(&e, "RELAY", "uid:%u", relay);
	add_subject(&e, &r->subj);
	/* the subject is the crashing task: its own hierarchy's unit first */
	origin = r->origin != h->id ? hash_find(c, r->node, r->origin) : NULL;
	if (origin && origin->dead)
		origin = NULL;
	/* v4: the crashing task's cgroup, as the kernel saw it */
	set_cgroup(c, origin ? origin : h, r->cgroup);
	find_unit(c, origin ? origin : h, &r->subj, true);
	add_unit(&e, origin && origin->unit ? origin : h);
	/*
	 * EXEC_PARENT: the exec parent of the crashing (origin) hierarchy; a v2
	 * exec attack names the origin itself when it has none.
	 */
	if (r->attack == ATTACK_EXEC) {
		if (!r->has_target || r->origin != h->id)
			add_id(&e, "EXEC_PARENT", h->id);
	} else if (h->exec_parent) {
		add_id(&e, "EXEC_PARENT", h->exec_parent);
	}
	add_boundaries(&e, "BOUNDARIES", h->boundaries);
	if (r->origin != h->id && (origin = hash_find(c, r->node, r->origin)))
		add_boundaries(&e, "ORIGIN_BOUNDARIES", origin->boundaries);
	if (t && t->charges) {
		entry_add_u64(&e, "CRASHES", t->charges);
		add_period_ring(&e, t->periods, t->n_periods);
	} else {
		entry_add_u64(&e, "CRASHES", inc->crashes);
		add_periods(&e, inc);
	}
	add_sources(&e, inc);
	add_inputs(&e, inc);
	audit_id(r, id, sizeof(id));
	entry_add(&e, "AUDIT_ID", id);
	if (r->attack == ATTACK_PEER)
		message_peer_attack(&e, h, r);
	else if (r->attack == ATTACK_BACKSTOP)
		message_backstop(&e, h, inc, r);
	else if (r->has_target && r->scope == SCOPE_ANY)
		entry_set_message(&e, "Exec brute force attack detected: uid %u crashed several privileged programs (the last one %s) %llu times, EMA %llu ms (threshold %llu ms, %s), driven from hierarchy %llu: pid %u (%s) auid %s; action: %s%s",
				  r->attacker_uid, r->subj.exe, (unsigned long long)r->faults,
				  (unsigned long long)r->ema_ms, (unsigned long long)r->threshold_ms,
				  speed_name(r->speed), (unsigned long long)h->id, r->subj.pid,
				  r->subj.comm, audit_id_str(r->subj.auid, auid, sizeof(auid)), action_name(r->action),
				  r->action == ACTION_BAN ? " (of every privileged execve())" : "");
	else if (r->has_target)
		entry_set_message(&e, "Exec brute force attack detected: uid %u crashed %s (dev %u:%u ino %llu) %llu times, EMA %llu ms (threshold %llu ms, %s), driven from hierarchy %llu: pid %u (%s) auid %s; action: %s",
				  r->attacker_uid, r->subj.exe, r->target_major, r->target_minor,
				  (unsigned long long)r->target_ino, (unsigned long long)r->faults,
				  (unsigned long long)r->ema_ms, (unsigned long long)r->threshold_ms,
				  speed_name(r->speed), (unsigned long long)h->id, r->subj.pid,
				  r->subj.comm, audit_id_str(r->subj.auid, auid, sizeof(auid)), action_name(r->action));
	else
		entry_set_message(&e, "%s brute force attack detected on hierarchy %llu: pid %u (%s, %s) uid %u auid %s, %llu faults, EMA %llu ms (threshold %llu ms, %s); action: %s",
				  r->attack == ATTACK_EXEC ? "Exec" : "Fork",
				  (unsigned long long)h->id, r->subj.pid, r->subj.comm, r->subj.exe,
				  r->subj.uid, audit_id_str(r->subj.auid, auid, sizeof(auid)), (unsigned long long)r->faults,
				  (unsigned long long)r->ema_ms, (unsigned long long)r->threshold_ms,
				  speed_name(r->speed), action_name(r->action));
	emit(c, &e);
}

/*
 * v2 table charge (1712 with attacker_uid/target_*): one crash charged to
 * (uid, target); faults and ema_ms are that entry's.  brute_hierarchy is
 * the exec parent, or the crashing hierarchy itself when it has none: in
 * both cases it is not a crash of that hierarchy (its own 1712 counts it).
 */
static void on_charge(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	struct target *t = target_get(c, r, now_ms);

	c->stats.charges++;
	if (!t)
		return;
	t->charges++;
	t->faults = r->faults;
	t->ema_ms = r->ema_ms;
	if (r->faults > 1 || r->period_ms) {
		t->periods[t->n_periods % PERIODS_KEPT] = r->period_ms;
		t->n_periods++;
	}
}

static void on_ban(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	struct target *t = target_get(c, r, now_ms);
	struct hier *h = hash_find(c, r->node, r->hierarchy);
	struct entry e;
	char id[AUDIT_ID_LEN], until[40];

	c->stats.bans++;
	if (t) {
		t->banned = true;
		t->ban_usec = record_usec(r);
		t->ban_s = r->ban_s;
		t->ban_hierarchy = r->hierarchy;
	}
	if (h && h->inc) {
		h->inc->banned = true;
		h->inc->ban_s = r->ban_s;
	}
	entry_init(&e, ENTRY_BAN, LOG_CRIT, record_usec(r));
	add_record_target(&e, r);
	entry_add(&e, "TARGET_NAME", r->target_name);
	if (r->scope)
		entry_add(&e, "SCOPE", scope_name(r->scope));
	entry_add_u64(&e, "BAN_S", r->ban_s);
	if (r->ban_s <= BRUTE_TIME_MAX &&
	    format_rfc3339(record_usec(r) + r->ban_s * 1000000, until, sizeof(until)) == 0)
		entry_add(&e, "BAN_UNTIL", until);
	add_id(&e, "HIERARCHY", r->hierarchy);
	if (t && t->charges) {
		entry_add_u64(&e, "CRASHES", t->charges);
		entry_add_u64(&e, "FAULTS", t->faults);
	}
	if (r->subj.present)
		add_subject(&e, &r->subj);
	add_unit(&e, h && !h->dead ? h : NULL);
	audit_id(r, id, sizeof(id));
	entry_add(&e, "AUDIT_ID", id);
	if (r->scope == SCOPE_ANY)
		entry_set_message(&e, "Banned uid %u from every privileged execve() for %llu s after an exec brute force attack on several programs (the last one %s) from hierarchy %llu",
				  r->attacker_uid, (unsigned long long)r->ban_s,
				  r->subj.present ? r->subj.exe : "?", (unsigned long long)r->hierarchy);
	else
		entry_set_message(&e, "Banned uid %u from executing %s (%s, dev %u:%u ino %llu) for %llu s after an exec brute force attack from hierarchy %llu",
				  r->attacker_uid, r->target_name,
				  r->subj.present ? r->subj.exe : "?", r->target_major, r->target_minor,
				  (unsigned long long)r->target_ino, (unsigned long long)r->ban_s,
				  (unsigned long long)r->hierarchy);
	emit(c, &e);
}

static void on_unban(struct correlate *c, const struct brute_record *r)
{
	struct target *t = target_find(c, r);
	bool lifted = strcmp(r->reason, "lifted") == 0;
	uint64_t usec = record_usec(r);
	struct entry e;
	char id[AUDIT_ID_LEN], auid[16], what[BRUTE_NAME_MAX * 4 + 64];

	c->stats.unbans++;
	entry_init(&e, ENTRY_UNBAN, LOG_NOTICE, usec);
	add_record_target(&e, r);
	entry_add(&e, "TARGET_NAME", r->target_name);
	if (r->scope)
		entry_add(&e, "SCOPE", scope_name(r->scope));
	entry_add(&e, "REASON", r->reason);
	entry_add_u64(&e, "DENIED_COUNT", r->denied);
	if (t && t->banned) {
		entry_add_u64(&e, "BAN_S", t->ban_s);
		/* audit time may step back (NTP): never an underflowed duration */
		entry_add_u64(&e, "BANNED_MS", usec > t->ban_usec ? (usec - t->ban_usec) / 1000 : 0);
		add_id(&e, "HIERARCHY", t->ban_hierarchy);
	}
	if (r->subj.present) {
		entry_add_u64(&e, "LIFTED_BY_PID", r->subj.pid);
		entry_add_u64(&e, "LIFTED_BY_UID", r->subj.uid);
		entry_add_audit_id(&e, "LIFTED_BY_AUID", r->subj.auid);
		entry_add(&e, "LIFTED_BY_COMM", r->subj.comm);
		entry_add(&e, "LIFTED_BY_EXE", r->subj.exe);
	}
	audit_id(r, id, sizeof(id));
	entry_add(&e, "AUDIT_ID", id);
	if (r->scope == SCOPE_ANY)
		snprintf(what, sizeof(what), "every privileged execve()");
	else
		snprintf(what, sizeof(what), "%s (dev %u:%u ino %llu)", r->target_name,
			 r->target_major, r->target_minor, (unsigned long long)r->target_ino);
	if (lifted && r->subj.present)
		entry_set_message(&e, "Ban of uid %u on %s lifted by pid %u uid %u auid %s (%s); %llu execve() attempt%s denied",
				  r->attacker_uid, what, r->subj.pid, r->subj.uid,
				  audit_id_str(r->subj.auid, auid, sizeof(auid)), r->subj.exe, (unsigned long long)r->denied,
				  r->denied == 1 ? " was" : "s were");
	else
		entry_set_message(&e, "Ban of uid %u on %s ended (%s); %llu execve() attempt%s denied",
				  r->attacker_uid, what, r->reason,
				  (unsigned long long)r->denied, r->denied == 1 ? " was" : "s were");
	emit(c, &e);
	if (t) {
		t->banned = false;
		/* a lift also forgets the kernel entry's counts */
		if (lifted)
			target_drop(c, t);
	}
}

/*
 * v3 peer ban (1718): the peer is refused by the endpoint it attacked.  The
 * entry names the attacked service (the crashing task, its unit) so that
 * "journalctl -u SERVICE" shows it; the ban is remembered until its end.
 */
static void on_peer_ban(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	struct hier *h = hash_find(c, r->node, r->hierarchy);
	struct peer_ban *b = peer_bans_get(c->peer_bans, r->node, c->remote, &r->peer, now_ms);
	char id[AUDIT_ID_LEN], until[40], who[PEER_TEXT_MAX], where[PEER_TEXT_MAX], unit[256];
	const char *u = NULL;
	bool via = false;
	uint32_t relay = 0;
	struct entry e;

	c->stats.peer_bans++;
	c->stats.peer_bans_kept = peer_bans_count(c->peer_bans);
	if (h && h->dead)
		h = NULL;
	if (h) {
		find_unit(c, h, &r->subj, true);
		u = h->unit;
		if (h->inc)
			h->inc->peer_bans++;
	} else if (c->unit_fn && !c->remote && r->subj.present &&
		   subject_unit(c, &r->subj, true, unit, sizeof(unit)) == 0) {
		u = unit;	/* a hierarchy this daemon did not see crash (started since) */
	}
	entry_init(&e, ENTRY_PEER_BAN, LOG_CRIT, record_usec(r));
	peer_add_fields(&e, &r->peer);
	entry_add_u64(&e, "FAULTS", r->faults);
	entry_add_u64(&e, "BAN_S", r->ban_s);
	if (r->ban_s <= BRUTE_TIME_MAX &&
	    format_rfc3339(record_usec(r) + r->ban_s * 1000000, until, sizeof(until)) == 0)
		entry_add(&e, "BAN_UNTIL", until);
	add_id(&e, "HIERARCHY", r->hierarchy);
	/* v4: the peer's crashes came through a local relay (nginx in front of PHP-FPM) */
	via = h && relayed(h->inc, &r->peer, &relay);
	if (via)
		entry_addf(&e, "RELAY", "uid:%u", relay);
	if (r->subj.present)
		add_subject(&e, &r->subj);
	if (u)
		entry_add(&e, "UNIT", u);
	audit_id(r, id, sizeof(id));
	entry_add(&e, "AUDIT_ID", id);
	if (peer_is_user(&r->peer))
		snprintf(who, sizeof(who), "Local user uid %u", r->peer.uid);
	else
		snprintf(who, sizeof(who), "Peer %s", r->peer.addr);
	entry_set_message(&e, "%s banned from %s for %llu s after %llu crash%s of %s (%s)",
			  who, peer_endpoint(&r->peer, where, sizeof(where)),
			  (unsigned long long)r->ban_s, (unsigned long long)r->faults,
			  r->faults == 1 ? "" : "es", r->subj.present ? r->subj.comm : "the service",
			  u ? u : r->subj.present ? r->subj.exe : "?");
	if (via)
		entry_set_message(&e, "%s; its input came through the local relay of uid %u (not banned)",
				  e.message, relay);
	if (b) {
		b->ban_usec = record_usec(r);
		b->ban_s = r->ban_s;
		b->hierarchy = r->hierarchy;
		b->faults = r->faults;
		peer_ban_set_unit(b, u);
	}
	emit(c, &e);
}

/* v3 peer ban ended (1719): expired, or lifted by root (the subject). */
static void on_peer_unban(struct correlate *c, const struct brute_record *r)
{
	struct peer_ban *b = peer_bans_find(c->peer_bans, r->node, &r->peer);
	bool lifted = strcmp(r->reason, "lifted") == 0;
	uint64_t usec = record_usec(r);
	char id[AUDIT_ID_LEN], auid[16], who[PEER_TEXT_MAX], where[PEER_TEXT_MAX];
	struct entry e;

	c->stats.peer_unbans++;
	entry_init(&e, ENTRY_PEER_UNBAN, LOG_NOTICE, usec);
	peer_add_fields(&e, &r->peer);
	entry_add(&e, "REASON", r->reason);
	entry_add_u64(&e, "REFUSED", r->refused);
	if (b) {
		entry_add_u64(&e, "BAN_S", b->ban_s);
		/* audit time may step back (NTP): never an underflowed duration */
		entry_add_u64(&e, "BANNED_MS", usec > b->ban_usec ? (usec - b->ban_usec) / 1000 : 0);
		entry_add_u64(&e, "FAULTS", b->faults);
		add_id(&e, "HIERARCHY", b->hierarchy);
		if (b->unit)
			entry_add(&e, "UNIT", b->unit);
	}
	if (r->subj.present) {
		entry_add_u64(&e, "LIFTED_BY_PID", r->subj.pid);
		entry_add_u64(&e, "LIFTED_BY_UID", r->subj.uid);
		entry_add_audit_id(&e, "LIFTED_BY_AUID", r->subj.auid);
		entry_add(&e, "LIFTED_BY_COMM", r->subj.comm);
		entry_add(&e, "LIFTED_BY_EXE", r->subj.exe);
	}
	audit_id(r, id, sizeof(id));
	entry_add(&e, "AUDIT_ID", id);
	peer_who(&r->peer, who, sizeof(who));
	peer_endpoint(&r->peer, where, sizeof(where));
	if (lifted && r->subj.present)
		entry_set_message(&e, "Ban of %s on %s lifted by pid %u uid %u auid %s (%s); it refused %llu connection request%s, packet%s or read%s",
				  who, where, r->subj.pid, r->subj.uid,
				  audit_id_str(r->subj.auid, auid, sizeof(auid)), r->subj.exe,
				  (unsigned long long)r->refused, r->refused == 1 ? "" : "s",
				  r->refused == 1 ? "" : "s", r->refused == 1 ? "" : "s");
	else
		entry_set_message(&e, "Ban of %s on %s ended (%s); it refused %llu connection request%s, packet%s or read%s",
				  who, where, r->reason, (unsigned long long)r->refused,
				  r->refused == 1 ? "" : "s", r->refused == 1 ? "" : "s",
				  r->refused == 1 ? "" : "s");
	emit(c, &e);
	if (b)
		peer_bans_drop(c->peer_bans, b);
	c->stats.peer_bans_kept = peer_bans_count(c->peer_bans);
}

/*
 * records_dropped= (on every record once the kernel could not emit
 * some): its total since boot.  What it adds is counted, and marks every
 * incident open now as possibly incomplete.  It is logged at once, then at
 * most once a minute: what a minute held back is logged when it is over
 * (correlate_tick), or at the end (correlate_close_all).
 */
static void log_dropped(struct correlate *c, uint64_t now_ms)
{
	uint64_t n = c->stats.kernel_dropped - c->dropped_logged;

	log_warning("the kernel could not emit %llu Brute audit record%s (%llu since boot, as of record %s%s%s): entries may be missing, and the incidents open meanwhile incomplete (RECORDS_DROPPED on their closed entries); audit's backlog was full (auditctl -s: backlog_limit, backlog_wait_time, lost)",
		    (unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)c->dropped_total,
		    c->dropped_id, c->dropped_node[0] ? " of node " : "", c->dropped_node);
	c->dropped_logged = c->stats.kernel_dropped;
	c->dropped_log_ms = now_ms ? now_ms : 1;
}

static bool dropped_log_due(const struct correlate *c, uint64_t now_ms)
{
	return c->stats.kernel_dropped > c->dropped_logged &&
	       (!c->dropped_log_ms || now_ms < c->dropped_log_ms ||
		now_ms - c->dropped_log_ms >= DROPPED_LOG_INTERVAL_MS);
}

/*
 * What is known of this node's kernel: its records_dropped= total last
 * seen (0 for a node not seen yet: its first total is counted whole),
 * whether it sends kill summaries.  NODES_KEPT nodes are kept: a new one
 * (add) takes the place of the least recently seen other host (this
 * host's, no node= or local_node, are never forgotten so).  NULL: not seen
 * (without add), or without memory.
 */
static struct node_kernel *node_kernel(struct correlate *c, const char *node, bool add)
{
	struct node_kernel *v = NULL;
	size_t i;

	for (i = 0; i < NODES_KEPT; i++)
		if (c->kernels[i].used && record_node_same(c->kernels[i].node, node)) {
			c->kernels[i].seen = ++c->kernels_seen;
			return &c->kernels[i];
		}
	if (!add)
		return NULL;
	/* a free place, else the least recently seen other host */
	for (i = 0; i < NODES_KEPT && (!v || v->used); i++) {
		struct node_kernel *d = &c->kernels[i];

		if (!d->used || (!record_node_local(d->node, c->cfg.local_node) &&
				 (!v || d->seen < v->seen)))
			v = d;
	}
	if (!v)
		return NULL;	/* every one this host's: cannot be, it has two names at most */
	free(v->node);
	memset(v, 0, sizeof(*v));
	if (node && *node && !(v->node = strdup(node)))
		return NULL;
	v->used = true;
	v->seen = ++c->kernels_seen;
	return v;
}

static void on_records_dropped(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	struct node_kernel *k = node_kernel(c, r->node, true);
	uint64_t lost;

	if (!k)
		return;
	/* a smaller total: the kernel's count restarted (a reboot in a replayed log) */
	lost = r->records_dropped >= k->total ? r->records_dropped - k->total : r->records_dropped;
	k->total = r->records_dropped;
	if (!lost)
		return;
	c->stats.kernel_dropped += lost;
	c->dropped_total = r->records_dropped;
	audit_id(r, c->dropped_id, sizeof(c->dropped_id));
	strtcpy(c->dropped_node, r->node, sizeof(c->dropped_node));
	/* the incidents of that host only: another host's kernel lost nothing of them */
	for (int l = 0; l < 2; l++)
		for (struct hier *h = c->incidents[l].head; h; h = h->next)
			if (record_node_same(h->node, r->node))
				h->inc->records_dropped += lost;
	if (dropped_log_due(c, now_ms))
		log_dropped(c, now_ms);
}

/*
 * v3 "charged=no" on a crash of source=peer: counted in the hierarchy, not
 * for its peer (the endpoint's share of the peer table full of bans, or no
 * memory).  Said once.
 */
static void on_peer_uncharged(struct correlate *c, const struct brute_record *r)
{
	char who[PEER_TEXT_MAX], where[PEER_TEXT_MAX];

	if (c->stats.uncharged++)
		return;
	log_warning("the kernel could not charge a crash of %s (hierarchy %llu) to %s at %s: that endpoint's share of the peer table (a quarter of table_size) is full of bans, or there was no memory; that peer cannot be banned until room is made, the backstop still applies (further ones are counted: SIGUSR1)",
		    r->subj.exe, (unsigned long long)r->origin, peer_who(&r->peer, who, sizeof(who)),
		    peer_endpoint(&r->peer, where, sizeof(where)));
}

/* v3 "charged=no": a crash the (user, target) table could not count. */
static void on_uncharged(struct correlate *c, const struct brute_record *r)
{
	if (c->stats.uncharged++)
		return;
	log_warning("the kernel could not charge a crash of %s (uid %u, dev %u:%u ino %llu, hierarchy %llu) to the (user, target) table: no memory, or table_size users have overflow entries; an exec attack by that user may go undetected (further ones are counted: SIGUSR1)",
		    r->subj.exe, r->attacker_uid, r->target_major, r->target_minor,
		    (unsigned long long)r->target_ino, (unsigned long long)r->origin);
}

/*
 * v2 kill summary (1714 "killed=N unreported=N"): closes the response's
 * group of per-process records with the true total.  For a hierarchy with
 * no open incident (already closed, never seen) it is only counted: it
 * never opens an incident of its own.
 */
static void on_kill_summary(struct correlate *c, const struct brute_record *r)
{
	struct hier *h = hash_find(c, r->node, r->hierarchy);
	struct incident *inc = h ? h->inc : NULL;
	struct node_kernel *k = node_kernel(c, r->node, true);
	uint64_t group, add;

	/* that kernel's, not another host's, which may be older */
	if (k)
		k->kill_summaries = true;
	if (h && !h->dead)
		set_cgroup(c, h, r->cgroup);	/* v4: the crashing task's cgroup */
	if (!inc) {
		c->stats.orphans++;
		return;
	}
	inc->last_usec = record_usec(r);
	group = inc->n_kills - inc->kills_reported;
	if (group == 0 && inc->last_group_records) {
		/* the group was already reported (timer): only the remainder */
		group = inc->last_group_records;
		add = r->killed > group ? r->killed - group : 0;
		inc->last_group_records = 0;
	} else {
		add = r->killed > group ? r->killed - group : 0;
	}
	if (add) {
		if (inc->n_kills == inc->kills_reported)
			audit_id(r, inc->kill_audit_id, sizeof(inc->kill_audit_id));
		inc->n_kills += add;
		inc->group_unreported += add;
		c->stats.kills += add;
	}
	if (inc->n_kills > inc->kills_reported)
		emit_kills(c, h);
	else
		kill_list_remove(c, h);
	inc->last_group_records = 0;
}

static void on_kill(struct correlate *c, struct hier *h, const struct brute_record *r, uint64_t now_ms)
{
	struct incident *inc = open_incident(c, h, record_usec(r));
	const struct node_kernel *kernel;

	if (!inc)
		return;
	inc->last_usec = record_usec(r);
	if (inc->n_kills == inc->kills_reported)
		audit_id(r, inc->kill_audit_id, sizeof(inc->kill_audit_id));
	inc->n_kills++;
	c->stats.kills++;
	if (inc->n_kills_kept < KILLS_KEPT) {
		struct kill_task *k;

		if (inc->n_kills_kept == inc->cap_kills) {
			size_t ncap = inc->cap_kills ? inc->cap_kills * 2 : 8;

			k = realloc(inc->kills, ncap * sizeof(*k));
			if (!k)
				goto deadline;
			inc->kills = k;
			inc->bytes += (ncap - inc->cap_kills) * sizeof(*k) + (inc->cap_kills ? 0 : ALLOC_OVERHEAD);
			charge(c, h, (ncap - inc->cap_kills) * sizeof(*k) + (inc->cap_kills ? 0 : ALLOC_OVERHEAD), 0);
			inc->cap_kills = ncap;
		}
		k = &inc->kills[inc->n_kills_kept];
		k->pid = r->opid;
		k->uid = r->ouid;
		k->auid = r->oauid;
		k->ses = r->oses;
		strtcpy(k->comm, r->ocomm, sizeof(k->comm));
		k->exe = strdup(r->oexe);
		inc->bytes += str_bytes(k->exe);
		charge(c, h, str_bytes(k->exe), 0);
		inc->n_kills_kept++;
	}
deadline:
	inc->kill_deadline = now_ms + c->cfg.kill_coalesce_ms;
	/* its host's kernel is seen to close kill groups with a summary: wait for it */
	kernel = node_kernel(c, h->node, false);
	if (kernel && kernel->kill_summaries && c->cfg.kill_coalesce_ms < KILL_SUMMARY_WAIT_MS)
		inc->kill_deadline = now_ms + KILL_SUMMARY_WAIT_MS;
	kill_list_append(c, h);
}

static int record_one(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	struct hier *h;

	c->last_record_usec = record_usec(r);
	if (r->has_records_dropped)
		on_records_dropped(c, r, now_ms);
	if (r->type == BRUTE_TYPE_CONFIG && r->trusted_update) {
		char auid[16];

		c->stats.config_changes++;
		log_notice("brute trusted peers changed by pid %u uid %u auid %s (%s): %llu added, %llu removed, %llu in the list",
			   r->subj.pid, r->subj.uid, audit_id_str(r->subj.auid, auid, sizeof(auid)),
			   r->subj.exe, (unsigned long long)r->trusted_added,
			   (unsigned long long)r->trusted_removed, (unsigned long long)r->trusted_entries);
		return 0;
	}
	if (r->type == BRUTE_TYPE_CONFIG) {
		char auid[16];

		c->stats.config_changes++;
		log_notice("brute tunable %s changed from %llu to %llu by pid %u uid %u auid %s (%s)",
			   r->tunable, (unsigned long long)r->old_value,
			   (unsigned long long)r->new_value, r->subj.pid, r->subj.uid,
			   audit_id_str(r->subj.auid, auid, sizeof(auid)), r->subj.exe);
		return 0;
	}

	if (r->type == BRUTE_TYPE_CRASH && r->uncharged && r->source == SOURCE_PEER)
		on_peer_uncharged(c, r);	/* and a crash of its hierarchy, below */
	else if (r->type == BRUTE_TYPE_CRASH && r->uncharged) {
		on_uncharged(c, r);
		return 0;
	}
	/* v2 records about (uid, target) entries, not about the hierarchy they name */
	if (r->type == BRUTE_TYPE_CRASH && r->has_target) {
		on_charge(c, r, now_ms);
		return 0;
	}
	if (r->type == BRUTE_TYPE_BAN) {
		on_ban(c, r, now_ms);
		return 0;
	}
	if (r->type == BRUTE_TYPE_UNBAN) {
		on_unban(c, r);
		return 0;
	}
	if (r->type == BRUTE_TYPE_KILL && r->kill_summary) {
		on_kill_summary(c, r);
		return 0;
	}
	/* v3 peer bans: about a peer at an endpoint; the hierarchy is only named */
	if (r->type == BRUTE_TYPE_PEER_BAN) {
		on_peer_ban(c, r, now_ms);
		return 0;
	}
	if (r->type == BRUTE_TYPE_PEER_UNBAN) {
		/* The layout's entry ends with its endpoint's: that record tells it. */
		if (!r->layout)
			on_peer_unban(c, r);
		return 0;
	}

	if (r->type == BRUTE_TYPE_HIERARCHY && r->status == HIER_DEALLOCATED) {
		h = hash_find(c, r->node, r->hierarchy);
		if (!h || h->dead)
			return 0;
		h->boundaries |= r->boundaries;
		close_incident(c, h, "deallocated", r, record_usec(r));
		bury_hier(c, h);
		return 0;
	}

	h = get_hier(c, r->node, r->hierarchy, now_ms);
	if (!h)
		return -ENOMEM;
	if (h->dead) {
		c->stats.late++;
		return 0;
	}
	/* any other record of the hierarchy ends a pending group of kills */
	if (r->type != BRUTE_TYPE_KILL && h->kill_pending)
		emit_kills(c, h);

	switch (r->type) {
	case BRUTE_TYPE_HIERARCHY:
		h->exec_parent = r->exec_parent;
		/* kinds crossed so far, including inherited ones (network) */
		h->boundaries |= r->boundaries;
		set_subject(c, h, &r->subj);
		break;
	case BRUTE_TYPE_BOUNDARY:
		on_boundary(c, h, r);
		break;
	case BRUTE_TYPE_CRASH:
		on_crash(c, h, r);
		break;
	case BRUTE_TYPE_ATTACK:
		on_attack(c, h, r, now_ms);
		break;
	case BRUTE_TYPE_KILL:
		on_kill(c, h, r, now_ms);
		break;
	default:
		break;
	}
	relist(c, h);	/* boundaries crossed: no longer among the first evicted */
	if (h->unkept) {
		/* another host's, the table full of this host's: reported, then evicted at once */
		evict_hier(c, h);
		return 0;
	}
	enforce_memory(c, h);
	return 0;
}

int correlate_record(struct correlate *c, const struct brute_record *r, uint64_t now_ms)
{
	int ret;

	c->node = r->node;
	c->remote = !record_node_local(r->node, c->cfg.local_node);
	c->walks_left = CORRELATE_WALKS_PER_RECORD;
	c->now_ms = now_ms;
	ret = record_one(c, r, now_ms);
	c->node = NULL;
	c->remote = false;
	return ret;
}

void correlate_tick(struct correlate *c, uint64_t now_ms)
{
	struct target *t, *next;
	struct hier *h;

	while ((h = c->khead) && h->inc && h->inc->kill_deadline <= now_ms)
		emit_kills(c, h);
	while ((h = oldest(c->incidents)) && now_ms - h->last_ms >= c->cfg.incident_idle_ms &&
	       now_ms >= h->last_ms) {
		close_incident(c, h, "idle", NULL, close_time_usec(c));
	}
	for (struct list *l = c->quiet; l; l = l == c->quiet ? c->plain : NULL)
		while ((h = oldest(l)) && now_ms >= h->last_ms &&
		       now_ms - h->last_ms >= c->cfg.hierarchy_idle_ms) {
			drop_hier(c, h);
			c->stats.expired++;
		}
	/* quiet (uid, target) entries; a ban is kept until its end is seen or long past */
	for (int l = 0; l < 2; l++)
		for (t = c->thead[l]; t && now_ms >= t->last_ms &&
		     now_ms - t->last_ms >= c->cfg.hierarchy_idle_ms; t = next) {
			next = t->next;
			if (t->banned && now_ms - t->last_ms < c->cfg.hierarchy_idle_ms + t->ban_s * 1000)
				continue;
			target_drop(c, t);
		}
	peer_bans_expire(c->peer_bans, now_ms, c->cfg.hierarchy_idle_ms);
	c->stats.peer_bans_kept = peer_bans_count(c->peer_bans);
	if (dropped_log_due(c, now_ms))
		log_dropped(c, now_ms);
}

uint64_t correlate_next_deadline(const struct correlate *c)
{
	uint64_t d = UINT64_MAX;
	const struct hier *h;

	if (c->khead && c->khead->inc)
		d = c->khead->inc->kill_deadline;
	if ((h = oldest(c->incidents)) && h->last_ms + c->cfg.incident_idle_ms < d)
		d = h->last_ms + c->cfg.incident_idle_ms;
	if ((h = oldest(c->plain)) && h->last_ms + c->cfg.hierarchy_idle_ms < d)
		d = h->last_ms + c->cfg.hierarchy_idle_ms;
	if ((h = oldest(c->quiet)) && h->last_ms + c->cfg.hierarchy_idle_ms < d)
		d = h->last_ms + c->cfg.hierarchy_idle_ms;
	/* records the kernel could not emit that the last minute held back */
	if (c->stats.kernel_dropped > c->dropped_logged &&
	    c->dropped_log_ms + DROPPED_LOG_INTERVAL_MS < d)
		d = c->dropped_log_ms + DROPPED_LOG_INTERVAL_MS;
	return d;
}

void correlate_close_all(struct correlate *c, const char *reason)
{
	struct hier *h;

	while (c->khead)
		emit_kills(c, c->khead);
	/* the least recently active first, whatever the host */
	while ((h = oldest(c->incidents)))
		close_incident(c, h, reason, NULL, close_time_usec(c));
	if (c->stats.kernel_dropped > c->dropped_logged)
		log_dropped(c, c->dropped_log_ms);
}

struct correlate *correlate_new(const struct correlate_config *cfg,
				correlate_emit_cb emit_cb, void *userdata)
{
	struct correlate *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cfg = *cfg;
	if (c->cfg.max_hierarchies == 0)
		c->cfg.max_hierarchies = 1;
	c->n_buckets = 1024;
	c->buckets = calloc(c->n_buckets, sizeof(*c->buckets));
	c->tbuckets = calloc(TARGET_BUCKETS, sizeof(*c->tbuckets));
	c->peer_bans = peer_bans_new();
	if (!c->buckets || !c->tbuckets || !c->peer_bans) {
		free(c->buckets);
		free(c->tbuckets);
		peer_bans_free(c->peer_bans);
		free(c);
		return NULL;
	}
	c->emit = emit_cb;
	c->userdata = userdata;
	return c;
}

void correlate_set_config(struct correlate *c, const struct correlate_config *cfg, uint64_t now_ms)
{
	struct hier *v;

	c->cfg = *cfg;
	if (c->cfg.max_hierarchies == 0)
		c->cfg.max_hierarchies = 1;
	/* other hosts' first */
	while (c->stats.hierarchies > c->cfg.max_hierarchies && (v = hier_victim(c, false, NULL)))
		evict_hier(c, v);
	enforce_memory(c, NULL);
	correlate_tick(c, now_ms);
}

void correlate_free(struct correlate *c)
{
	if (!c)
		return;
	for (int l = 0; l < 2; l++) {
		while (c->quiet[l].head)
			drop_hier(c, c->quiet[l].head);
		while (c->plain[l].head)
			drop_hier(c, c->plain[l].head);
		while (c->incidents[l].head)
			drop_hier(c, c->incidents[l].head);
		while (c->dead[l].head)
			drop_hier(c, c->dead[l].head);
	}
	for (int l = 0; l < 2; l++)
		while (c->thead[l])
			target_drop(c, c->thead[l]);
	peer_bans_free(c->peer_bans);
	for (size_t i = 0; i < NODES_KEPT; i++)
		free(c->kernels[i].node);
	free(c->tbuckets);
	free(c->buckets);
	free(c);
}

void correlate_set_unit_lookup(struct correlate *c, correlate_unit_fn fn)
{
	c->unit_fn = fn;
}

void correlate_set_cgroup_lookup(struct correlate *c, correlate_unit_fn fn)
{
	c->cgroup_fn = fn;
}

const struct correlate_stats *correlate_get_stats(const struct correlate *c)
{
	return &c->stats;
}
