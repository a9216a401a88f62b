/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "util.h"

#define H 4294967396ull

/* The parser's callback of replay_keep(): record time as the clock, as run_fixture() does. */
static void fixture_feed(const struct brute_record *r, void *userdata)
{
	struct correlate *corr = userdata;
	uint64_t now = r->sec * 1000 + r->milli;

	correlate_tick(corr, now);
	ck_assert_int_eq(correlate_record(corr, r, now), 0);
}

static const char *field(const struct collected *c, int i, const char *name)
{
	const char *v;

	ck_assert_int_ge(i, 0);
	v = entry_get(&c->e[i], name);
	ck_assert_msg(v != NULL, "entry %d (%s) has no %s", i, entry_kind_name(c->e[i].kind), name);
	return v;
}

START_TEST(test_fork_attack)
{
	struct collected c;
	int a, k, cl, b;

	run_fixture("fork_attack.log", NULL, &c, NULL);
	ck_assert_uint_eq(c.n, 4);
	b = find_entry(&c, ENTRY_BOUNDARY, 0);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	cl = find_entry(&c, ENTRY_CLOSED, 0);
	ck_assert(b == 0 && a == 1 && k == 2 && cl == 3);

	ck_assert_str_eq(field(&c, b, "BOUNDARY"), "setid");
	ck_assert_str_eq(field(&c, b, "UID"), "1000");
	ck_assert_str_eq(field(&c, b, "EUID"), "0");

	ck_assert_int_eq(c.e[a].priority, LOG_ALERT);
	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "4294967396");
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "fork");
	ck_assert_str_eq(field(&c, a, "SPEED"), "fast");
	ck_assert_str_eq(field(&c, a, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, a, "ACTION"), "kill");
	ck_assert_str_eq(field(&c, a, "BOUNDARIES"), "setid");
	ck_assert_str_eq(field(&c, a, "CRASHES"), "5");
	ck_assert_str_eq(field(&c, a, "PERIODS_MS"), "120,110,100,90");
	ck_assert_str_eq(field(&c, a, "EXE"), "/usr/local/bin/crashy");
	ck_assert_str_eq(field(&c, a, "AUDIT_ID"), "1700000001.420:115");
	ck_assert_ptr_null(entry_get(&c.e[a], "EXEC_PARENT"));	/* exec_parent=0 */

	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "1234,1305,1306");
	ck_assert_str_eq(field(&c, k, "KILLED_COUNT"), "3");
	ck_assert_uint_eq(entry_count(&c.e[k], "KILLED_TASK"), 3);
	ck_assert_str_eq(c.e[k].fields[6].value,
			 "pid=1305 uid=1000 auid=1000 ses=3 comm=\"crashy\" exe=\"/usr/local/bin/crashy\"");

	ck_assert_str_eq(field(&c, cl, "CLOSE_REASON"), "deallocated");
	ck_assert_str_eq(field(&c, cl, "KERNEL_KILLED"), "3");
	ck_assert_str_eq(field(&c, cl, "MIN_PERIOD_MS"), "90");
	ck_assert_str_eq(field(&c, cl, "MAX_PERIOD_MS"), "120");
	ck_assert_str_eq(field(&c, cl, "DURATION_MS"), "420");
	ck_assert_int_eq(c.e[cl].priority, LOG_NOTICE);
	collected_free(&c);
}
END_TEST

START_TEST(test_exec_attack)
{
	struct collected c;
	int a, k;

	run_fixture("exec_attack.log", NULL, &c, NULL);
	/* 1 boundary, 4 worker incidents closed, attack, kill, parent closed */
	ck_assert_uint_eq(c.n, 8);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "exec");
	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "4294970000");
	ck_assert_str_eq(field(&c, a, "ORIGIN"), "4294970004");
	ck_assert_str_eq(field(&c, a, "EXEC_PARENT"), "4294970000");
	ck_assert_str_eq(field(&c, a, "BOUNDARIES"), "network");
	ck_assert_str_eq(field(&c, a, "CRASHES"), "4");
	/* auid 4294967295: never set (a daemon), an unset field, not a number */
	ck_assert_str_eq(field(&c, a, "AUID"), "");
	for (size_t i = 0; i < c.e[a].n_fields; i++)
		if (!strcmp(c.e[a].fields[i].name, "AUID"))
			ck_assert(entry_field_unset(&c.e[a].fields[i]));
	ck_assert(strstr(c.e[a].message, "auid unset") != NULL);
	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "700");
	ck_assert_str_eq(field(&c, k, "EXE"), "/usr/sbin/netd");
	/* the parent incident closes last, with the exec attack summarised */
	ck_assert_str_eq(field(&c, 7, "HIERARCHY"), "4294970000");
	ck_assert_str_eq(field(&c, 7, "ATTACKS"), "1");
	ck_assert_str_eq(field(&c, 7, "ATTACK_TYPE"), "exec");
	/* worker incidents know their exec parent */
	ck_assert_str_eq(field(&c, 1, "EXEC_PARENT"), "4294970000");
	collected_free(&c);
}
END_TEST

START_TEST(test_interleaved)
{
	struct collected c;
	int a0, a1;

	run_fixture("interleaved.log", NULL, &c, NULL);
	a0 = find_entry(&c, ENTRY_ATTACK, 0);
	a1 = find_entry(&c, ENTRY_ATTACK, 1);
	ck_assert_str_eq(field(&c, a0, "HIERARCHY"), "4294980000");
	ck_assert_str_eq(field(&c, a0, "EXE"), "/opt/alpha");
	ck_assert_str_eq(field(&c, a0, "CRASHES"), "4");
	ck_assert_str_eq(field(&c, a1, "HIERARCHY"), "4294990000");
	ck_assert_str_eq(field(&c, a1, "ACTION"), "audit");
	ck_assert_str_eq(field(&c, a1, "PERIODS_MS"), "70,70,70");
	/* kills 60 ms apart (> kill_coalesce_ms) are two entries, both for alpha */
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_KILL, 0), "KILLED_PIDS"), "1400");
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_KILL, 1), "KILLED_PIDS"), "1401");
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_KILL, 1), "HIERARCHY"), "4294980000");
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 2), -1);
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_CLOSED, 0), "KILLED_COUNT"), "2");
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_CLOSED, 1), "CRASHES"), "5");
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_CLOSED, 1), "KILLED_COUNT"), "0");
	collected_free(&c);
}
END_TEST

/*
 * Records captured in the system guest (tests/system/30-reportd.sh with
 * reportd.capture=1), as auditd wrote them: what the real kernel emits.
 */

/* Entries of one kind for one hierarchy: the nth, or -1. */
static int find_hier(const struct collected *c, enum entry_kind kind, const char *h, int nth)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *v = entry_get(&c->e[i], "HIERARCHY");

		if (c->e[i].kind == kind && v && !strcmp(v, h) && nth-- == 0)
			return (int)i;
	}
	return -1;
}

/* `attacker -u 1000 -s fork 12` as root: setresuid(1000) then crashing children. */
START_TEST(test_captured_fork)
{
	struct collected c;
	struct parser_stats ps;
	int b, a, k, cl, sh;

	run_fixture("captured-fork.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 13);
	/* boundary, attack, kill, closed; and the exec parent (the test's shell), charged
	 * with the first crash, closed at the end of the input */
	ck_assert_uint_eq(c.n, 5);
	b = find_entry(&c, ENTRY_BOUNDARY, 0);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	cl = find_hier(&c, ENTRY_CLOSED, "320447773320", 0);
	sh = find_hier(&c, ENTRY_CLOSED, "320447773272", 0);
	ck_assert(b == 0 && a == 1 && k == 2 && cl == 3 && sh == 4);

	ck_assert_str_eq(field(&c, b, "HIERARCHY"), "320447773320");
	ck_assert_str_eq(field(&c, b, "BOUNDARY"), "cred");
	ck_assert_str_eq(field(&c, b, "OLD_UID"), "0");
	ck_assert_str_eq(field(&c, b, "OLD_EUID"), "0");
	/* from new_uid/new_euid: the subject fields still show uid 0 */
	ck_assert_str_eq(field(&c, b, "UID"), "1000");
	ck_assert_str_eq(field(&c, b, "EUID"), "1000");
	ck_assert_str_eq(field(&c, b, "EXEC_PARENT"), "320447773272");
	ck_assert_str_eq(field(&c, b, "AUDIT_ID"), "1796290073.795:49");

	ck_assert_int_eq(c.e[a].priority, LOG_ALERT);
	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "320447773320");
	ck_assert_str_eq(field(&c, a, "ORIGIN"), "320447773320");
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "fork");
	ck_assert_str_eq(field(&c, a, "SPEED"), "fast");
	ck_assert_str_eq(field(&c, a, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, a, "CRASHES"), "5");
	ck_assert_str_eq(field(&c, a, "EMA_MS"), "11");
	ck_assert_str_eq(field(&c, a, "ACTION"), "kill");
	ck_assert_str_eq(field(&c, a, "BOUNDARIES"), "cred");
	ck_assert_str_eq(field(&c, a, "PERIODS_MS"), "109,19,11,10,10");
	ck_assert_str_eq(field(&c, a, "PID"), "251");
	ck_assert_str_eq(field(&c, a, "UID"), "1000");
	ck_assert_str_eq(field(&c, a, "EXE"), "/data/selftests/attacker");
	ck_assert_str_eq(field(&c, a, "AUDIT_ID"), "1796290073.915:61");

	/* the attacker and its sibling, 8 ms apart: one group */
	ck_assert_int_eq(c.e[k].priority, LOG_CRIT);
	ck_assert_str_eq(field(&c, k, "HIERARCHY"), "320447773320");
	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "245,246");
	ck_assert_str_eq(field(&c, k, "KILLED_COUNT"), "2");
	ck_assert_uint_eq(entry_count(&c.e[k], "KILLED_TASK"), 2);

	ck_assert_int_eq(c.e[cl].priority, LOG_NOTICE);
	ck_assert_str_eq(field(&c, cl, "CLOSE_REASON"), "deallocated");
	ck_assert_str_eq(field(&c, cl, "KILLED_PIDS"), "245,246");
	ck_assert_str_eq(field(&c, cl, "KERNEL_FAULTS"), "5");
	ck_assert_str_eq(field(&c, cl, "KERNEL_ATTACKS"), "1");
	ck_assert_str_eq(field(&c, cl, "KERNEL_KILLED"), "2");
	ck_assert_str_eq(field(&c, cl, "DURATION_MS"), "64");

	ck_assert_int_eq(c.e[sh].priority, LOG_INFO);
	ck_assert_str_eq(field(&c, sh, "CLOSE_REASON"), "end-of-input");
	ck_assert_str_eq(field(&c, sh, "ATTACKS"), "0");
	ck_assert_str_eq(field(&c, sh, "CRASHES"), "1");
	collected_free(&c);
}
END_TEST

/* `runas 1000 attacker -s exec 12 crasher_suid segv`: setid children, the parent killed. */
START_TEST(test_captured_exec)
{
	struct collected c;
	struct parser_stats ps;
	int a, k, cl, n_children = 0;
	const char *child;

	run_fixture("captured-exec.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 31);
	ck_assert_uint_eq(c.n, 14);
	ck_assert_int_eq(find_entry(&c, ENTRY_ATTACK, 1), -1);
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 1), -1);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	cl = find_hier(&c, ENTRY_CLOSED, "320447773454", 0);
	ck_assert(a >= 0 && a < k && k < cl);

	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "320447773454");
	ck_assert_str_eq(field(&c, a, "ORIGIN"), "320447773459");
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "exec");
	ck_assert_str_eq(field(&c, a, "EXEC_PARENT"), "320447773454");
	ck_assert_str_eq(field(&c, a, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, a, "CRASHES"), "5");
	ck_assert_str_eq(field(&c, a, "ACTION"), "kill");
	/* runas' setgid/setuid is the parent's boundary, the setuid exec the children's */
	ck_assert_str_eq(field(&c, a, "BOUNDARIES"), "cred");
	ck_assert_str_eq(field(&c, a, "ORIGIN_BOUNDARIES"), "setid");
	ck_assert_str_eq(field(&c, a, "EXE"), "/data/selftests/crasher_suid");
	ck_assert_str_eq(field(&c, a, "EUID"), "0");

	ck_assert_str_eq(field(&c, k, "HIERARCHY"), "320447773454");
	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "479,480");
	ck_assert_str_eq(field(&c, k, "EXE"), "/data/selftests/attacker");

	ck_assert_str_eq(field(&c, cl, "CLOSE_REASON"), "deallocated");
	ck_assert_str_eq(field(&c, cl, "ATTACK_TYPE"), "exec");
	ck_assert_str_eq(field(&c, cl, "KERNEL_FAULTS"), "5");
	ck_assert_str_eq(field(&c, cl, "KERNEL_KILLED"), "2");
	ck_assert_str_eq(field(&c, cl, "KILLED_PIDS"), "479,480");
	ck_assert_int_eq(cl, (int)c.n - 1);

	/* five setid children, each crossed setid (euid 0) and crashed once */
	for (int i = 0; (child = NULL, i < (int)c.n); i++) {
		if (c.e[i].kind != ENTRY_BOUNDARY || strcmp(field(&c, i, "BOUNDARY"), "setid"))
			continue;
		child = field(&c, i, "HIERARCHY");
		ck_assert_str_eq(field(&c, i, "EUID"), "0");
		ck_assert_str_eq(field(&c, i, "UID"), "1000");
		ck_assert_str_eq(field(&c, i, "OLD_EUID"), "1000");
		ck_assert_str_eq(field(&c, i, "EXEC_PARENT"), "320447773454");
		ck_assert_int_ge(find_hier(&c, ENTRY_CLOSED, child, 0), 0);
		n_children++;
	}
	ck_assert_int_eq(n_children, 5);
	collected_free(&c);
}
END_TEST

/* A fork attack and an exec attack at the same time: records interleave. */
START_TEST(test_captured_interleaved)
{
	struct collected c;
	struct parser_stats ps;
	int a0, a1, k0, k1;

	run_fixture("captured-interleaved.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 43);
	a0 = find_entry(&c, ENTRY_ATTACK, 0);
	a1 = find_entry(&c, ENTRY_ATTACK, 1);
	ck_assert_int_eq(find_entry(&c, ENTRY_ATTACK, 2), -1);
	ck_assert_str_eq(field(&c, a0, "HIERARCHY"), "320447773474");
	ck_assert_str_eq(field(&c, a0, "ATTACK_TYPE"), "fork");
	ck_assert_str_eq(field(&c, a0, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, a0, "CRASHES"), "5");
	ck_assert_str_eq(field(&c, a1, "HIERARCHY"), "320447773475");
	ck_assert_str_eq(field(&c, a1, "ATTACK_TYPE"), "exec");
	ck_assert_str_eq(field(&c, a1, "ORIGIN"), "320447773480");
	ck_assert_str_eq(field(&c, a1, "CRASHES"), "5");

	/* each hierarchy's kills in its own entry */
	k0 = find_hier(&c, ENTRY_KILL, "320447773474", 0);
	k1 = find_hier(&c, ENTRY_KILL, "320447773475", 0);
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 2), -1);
	ck_assert_str_eq(field(&c, k0, "KILLED_PIDS"), "516,518");
	ck_assert_str_eq(field(&c, k0, "ATTACK_TYPE"), "fork");
	ck_assert_str_eq(field(&c, k1, "KILLED_PIDS"), "517,523");
	ck_assert_str_eq(field(&c, k1, "ATTACK_TYPE"), "exec");

	/* the fork attack's incident closes while the exec attack goes on */
	ck_assert_int_lt(find_hier(&c, ENTRY_CLOSED, "320447773474", 0), a1);
	ck_assert_str_eq(field(&c, find_hier(&c, ENTRY_CLOSED, "320447773474", 0), "KERNEL_FAULTS"), "5");
	ck_assert_str_eq(field(&c, find_hier(&c, ENTRY_CLOSED, "320447773474", 0), "KILLED_COUNT"), "2");
	ck_assert_str_eq(field(&c, find_hier(&c, ENTRY_CLOSED, "320447773475", 0), "KERNEL_KILLED"), "2");
	ck_assert_str_eq(field(&c, find_hier(&c, ENTRY_CLOSED, "320447773475", 0), "CLOSE_REASON"),
			 "deallocated");
	/* the shell both attackers were started from: charged once by each, no attack */
	ck_assert_str_eq(field(&c, find_hier(&c, ENTRY_CLOSED, "320447773272", 0), "FAULTS"), "2");
	ck_assert_str_eq(field(&c, find_hier(&c, ENTRY_CLOSED, "320447773272", 0), "ATTACKS"), "0");
	collected_free(&c);
}
END_TEST

static void mk(struct brute_record *r, int type, uint64_t h, uint64_t ms)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->hierarchy = h;
	r->sec = ms / 1000;
	r->milli = ms % 1000;
	r->serial = (unsigned long)ms;
	r->subj.present = true;
	r->subj.pid = 42;
	strcpy(r->subj.comm, "t");
	strcpy(r->subj.exe, "/t");
	r->origin = h;
}

START_TEST(test_eviction)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct correlate *corr;
	struct brute_record *r = malloc(sizeof(*r));
	const struct correlate_stats *st;

	correlate_config_defaults(&cfg);
	cfg.max_hierarchies = 16;
	cfg.record_time = true;
	corr = correlate_new(&cfg, collect_cb, &c);
	st = correlate_get_stats(corr);
	/* one incident first, then a flood of boundary-only hierarchies */
	mk(r, BRUTE_TYPE_CRASH, 1ull << 40, 1000);
	r->faults = 1;
	correlate_record(corr, r, 1000);
	for (uint64_t i = 0; i < 1000; i++) {
		mk(r, BRUTE_TYPE_BOUNDARY, (1ull << 33) + i, 2000 + i);
		r->boundary = BOUNDARY_NETWORK;
		ck_assert_int_eq(correlate_record(corr, r, 2000 + i), 0);
		ck_assert_uint_le(st->hierarchies, 16);
	}
	ck_assert_uint_eq(st->evictions, 1000 + 1 - 16);
	/* the incident survived the flood of plain hierarchies */
	ck_assert_uint_eq(st->incidents, 1);
	/* a flood of incidents evicts the oldest incident, with a summary */
	for (uint64_t i = 0; i < 20; i++) {
		mk(r, BRUTE_TYPE_CRASH, (1ull << 34) + i, 5000 + i);
		r->faults = 1;
		correlate_record(corr, r, 5000 + i);
	}
	ck_assert_uint_eq(st->hierarchies, 16);
	ck_assert_uint_eq(st->incidents, 16);
	ck_assert_str_eq(entry_get(&c.e[find_entry(&c, ENTRY_CLOSED, 0)], "CLOSE_REASON"), "evicted");
	ck_assert_str_eq(entry_get(&c.e[find_entry(&c, ENTRY_CLOSED, 0)], "HIERARCHY"), "1099511627776");
	/* a lower cap on reload evicts down to it */
	cfg.max_hierarchies = 4;
	correlate_set_config(corr, &cfg, 6000);
	ck_assert_uint_eq(st->hierarchies, 4);
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

START_TEST(test_idle_and_coalesce)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct correlate *corr;
	struct brute_record *r = malloc(sizeof(*r));
	const struct correlate_stats *st;

	correlate_config_defaults(&cfg);
	cfg.incident_idle_ms = 5000;
	cfg.hierarchy_idle_ms = 10000;
	cfg.kill_coalesce_ms = 10;
	corr = correlate_new(&cfg, collect_cb, &c);
	st = correlate_get_stats(corr);

	mk(r, BRUTE_TYPE_CRASH, H, 0);
	r->faults = 1;
	correlate_record(corr, r, 100);
	mk(r, BRUTE_TYPE_ATTACK, H, 0);
	r->attack = ATTACK_FORK;
	r->action = ACTION_KILL;
	correlate_record(corr, r, 200);
	ck_assert_uint_eq(c.n, 1);
	for (uint32_t pid = 1; pid <= 3; pid++) {
		mk(r, BRUTE_TYPE_KILL, H, 0);
		r->opid = pid;
		strcpy(r->ocomm, "t");
		strcpy(r->oexe, "/t");
		correlate_record(corr, r, 200 + pid);
	}
	/* not yet: the group may still grow */
	ck_assert_uint_eq(correlate_next_deadline(corr), 213);
	correlate_tick(corr, 212);
	ck_assert_uint_eq(c.n, 1);
	correlate_tick(corr, 213);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_int_eq(c.e[1].kind, ENTRY_KILL);
	ck_assert_str_eq(entry_get(&c.e[1], "KILLED_PIDS"), "1,2,3");
	/* idle close after incident_idle_ms, hierarchy forgotten later */
	correlate_tick(corr, 203 + 4999);
	ck_assert_uint_eq(st->incidents, 1);
	correlate_tick(corr, 203 + 5000);
	ck_assert_uint_eq(st->incidents, 0);
	ck_assert_str_eq(entry_get(&c.e[2], "CLOSE_REASON"), "idle");
	ck_assert_uint_eq(st->hierarchies, 1);
	correlate_tick(corr, 203 + 10000);
	ck_assert_uint_eq(st->hierarchies, 0);
	ck_assert_uint_eq(st->expired, 1);
	ck_assert_uint_eq(correlate_next_deadline(corr), UINT64_MAX);
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* 1710 allocated names the kinds crossed so far, inherited ones too (network). */
START_TEST(test_allocated_boundaries)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct correlate *corr;
	struct brute_record *r = malloc(sizeof(*r));

	correlate_config_defaults(&cfg);
	corr = correlate_new(&cfg, collect_cb, &c);
	mk(r, BRUTE_TYPE_HIERARCHY, H, 0);
	r->status = HIER_ALLOCATED;
	r->boundaries = BOUNDARY_NETWORK;
	correlate_record(corr, r, 1);
	mk(r, BRUTE_TYPE_ATTACK, H, 0);
	r->attack = ATTACK_FORK;
	r->action = ACTION_KILL;
	correlate_record(corr, r, 2);
	/* an inherited kind is no crossing: no boundary entry */
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.e[0].kind, ENTRY_ATTACK);
	ck_assert_str_eq(entry_get(&c.e[0], "BOUNDARIES"), "network");
	/* a kind named by allocated and crossed in the same event still gets its entry */
	mk(r, BRUTE_TYPE_HIERARCHY, H + 1, 0);
	r->status = HIER_ALLOCATED;
	r->boundaries = BOUNDARY_SETID;
	correlate_record(corr, r, 3);
	mk(r, BRUTE_TYPE_BOUNDARY, H + 1, 0);
	r->boundary = BOUNDARY_SETID;
	r->old_uid = r->old_euid = 1000;
	r->subj.uid = r->subj.euid = 1000;
	r->new_uid = 1000;
	r->new_euid = 0;
	r->has_new_ids = true;
	correlate_record(corr, r, 4);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_int_eq(c.e[1].kind, ENTRY_BOUNDARY);
	ck_assert_str_eq(entry_get(&c.e[1], "BOUNDARIES"), "setid");
	ck_assert_str_eq(entry_get(&c.e[1], "EUID"), "0");
	ck_assert_str_eq(entry_get(&c.e[1], "OLD_EUID"), "1000");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* Dealloc of an unknown hierarchy, kills without attack: handled sanely. */
START_TEST(test_partial_streams)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct correlate *corr;
	struct brute_record *r = malloc(sizeof(*r));

	correlate_config_defaults(&cfg);
	corr = correlate_new(&cfg, collect_cb, &c);
	mk(r, BRUTE_TYPE_HIERARCHY, 7ull << 32, 0);
	r->status = HIER_DEALLOCATED;
	correlate_record(corr, r, 1);
	ck_assert_uint_eq(c.n, 0);
	mk(r, BRUTE_TYPE_KILL, 8ull << 32, 0);
	r->opid = 9;
	correlate_record(corr, r, 2);
	mk(r, BRUTE_TYPE_HIERARCHY, 8ull << 32, 0);
	r->status = HIER_DEALLOCATED;
	correlate_record(corr, r, 3);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_int_eq(c.e[0].kind, ENTRY_KILL);
	ck_assert_int_eq(c.e[1].kind, ENTRY_CLOSED);
	ck_assert_uint_eq(correlate_get_stats(corr)->hierarchies, 0);
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/*
 * v2 records (docs/audit-records.md), written by hand from the interface
 * contract until captured ones replace them.
 */

#define P2 "4295100000"

/* uid 1000 crashes a setuid target from fresh children of P2: banned, lifted by root. */
START_TEST(test_v2_exec_ban)
{
	struct collected c;
	struct parser_stats ps;
	int a, b, k, u, cl;

	run_fixture("v2-exec-ban.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 27);
	/* 4 boundaries + 4 children closed, attack, ban, kill, P2 closed, unban */
	ck_assert_uint_eq(c.n, 13);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	b = find_entry(&c, ENTRY_BAN, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	u = find_entry(&c, ENTRY_UNBAN, 0);
	cl = find_hier(&c, ENTRY_CLOSED, P2, 0);
	ck_assert(a >= 0 && a < b && b < k && k < cl && cl < u);
	ck_assert_int_eq(find_entry(&c, ENTRY_ATTACK, 1), -1);
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 1), -1);

	ck_assert_str_eq(field(&c, a, "HIERARCHY"), P2);
	ck_assert_str_eq(field(&c, a, "ORIGIN"), "4295100004");
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "exec");
	ck_assert_str_eq(field(&c, a, "ACTION"), "ban");
	ck_assert_str_eq(field(&c, a, "ATTACKER_UID"), "1000");
	ck_assert_str_eq(field(&c, a, "TARGET_DEV"), "0:21");
	ck_assert_str_eq(field(&c, a, "TARGET_INO"), "1234");
	ck_assert_str_eq(field(&c, a, "EXEC_PARENT"), P2);
	/* the table charges, not P2's own crashes (it has none) */
	ck_assert_str_eq(field(&c, a, "CRASHES"), "4");
	ck_assert_str_eq(field(&c, a, "PERIODS_MS"), "100,100,100");
	ck_assert_str_eq(field(&c, a, "EXE"), "/usr/local/bin/crasher_suid");
	ck_assert(strstr(c.e[a].message, "uid 1000 crashed /usr/local/bin/crasher_suid") != NULL);

	ck_assert_int_eq(c.e[b].priority, LOG_CRIT);
	ck_assert_str_eq(field(&c, b, "ATTACKER_UID"), "1000");
	ck_assert_str_eq(field(&c, b, "TARGET_DEV"), "0:21");
	ck_assert_str_eq(field(&c, b, "TARGET_INO"), "1234");
	ck_assert_str_eq(field(&c, b, "TARGET_NAME"), "crasher_suid");
	ck_assert_str_eq(field(&c, b, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, b, "BAN_UNTIL"), "2023-11-14T22:45:00.450000Z");
	/* the 1716 record names the crashing hierarchy (captured from the v2 kernel) */
	ck_assert_str_eq(field(&c, b, "HIERARCHY"), "4295100004");
	ck_assert_str_eq(field(&c, b, "CRASHES"), "4");
	ck_assert_str_eq(field(&c, b, "EXE"), "/usr/local/bin/crasher_suid");
	ck_assert_str_eq(field(&c, b, "AUDIT_ID"), "1700001000.450:521");

	ck_assert_str_eq(field(&c, k, "HIERARCHY"), P2);
	ck_assert_str_eq(field(&c, k, "KILLED_COUNT"), "1");
	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "3000");
	ck_assert_str_eq(field(&c, k, "ACTION"), "ban");
	ck_assert_str_eq(field(&c, k, "ATTACKER_UID"), "1000");
	ck_assert_ptr_null(entry_get(&c.e[k], "KILLED_UNREPORTED"));

	/* P2 was never charged a crash of its own */
	ck_assert_str_eq(field(&c, cl, "CRASHES"), "0");
	ck_assert_str_eq(field(&c, cl, "ATTACKS"), "1");
	ck_assert_str_eq(field(&c, cl, "KILLED_COUNT"), "1");
	ck_assert_str_eq(field(&c, cl, "TARGET_INO"), "1234");
	for (int i = 1; i <= 4; i++) {
		char h[32];
		int ci;

		snprintf(h, sizeof(h), "%llu", 4295100000ull + (unsigned)i);
		ci = find_hier(&c, ENTRY_CLOSED, h, 0);
		ck_assert_str_eq(field(&c, ci, "CRASHES"), "1");
		ck_assert_str_eq(field(&c, ci, "FAULTS"), "1");
	}

	ck_assert_int_eq(c.e[u].priority, LOG_NOTICE);
	ck_assert_str_eq(field(&c, u, "REASON"), "lifted");
	ck_assert_str_eq(field(&c, u, "DENIED_COUNT"), "3");
	ck_assert_str_eq(field(&c, u, "TARGET_NAME"), "crasher_suid");
	ck_assert_str_eq(field(&c, u, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, u, "BANNED_MS"), "59550");
	ck_assert_str_eq(field(&c, u, "HIERARCHY"), "4295100004");
	ck_assert_str_eq(field(&c, u, "LIFTED_BY_UID"), "0");
	ck_assert_str_eq(field(&c, u, "LIFTED_BY_AUID"), "1001");
	ck_assert_str_eq(field(&c, u, "LIFTED_BY_EXE"), "/usr/sbin/brutectl");
	ck_assert(strstr(c.e[u].message, "lifted by pid 4242 uid 0 auid 1001") != NULL);
	ck_assert(strstr(c.e[u].message, "3 execve() attempts were denied") != NULL);
	collected_free(&c);
}
END_TEST

/* No exec parent: the table charge names the crashing hierarchy itself (P == H). */
START_TEST(test_v2_ban_expired)
{
	struct collected c;
	struct parser_stats ps;
	int a, b, u, cl;

	run_fixture("v2-ban-expired.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 17);
	ck_assert_uint_eq(c.n, 7);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	b = find_entry(&c, ENTRY_BAN, 0);
	u = find_entry(&c, ENTRY_UNBAN, 0);
	cl = find_hier(&c, ENTRY_CLOSED, "4295200003", 0);
	ck_assert(a >= 0 && a < b && b < cl && cl < u);

	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "4295200003");
	ck_assert_str_eq(field(&c, a, "ORIGIN"), "4295200003");
	ck_assert_ptr_null(entry_get(&c.e[a], "EXEC_PARENT"));
	ck_assert_str_eq(field(&c, a, "CRASHES"), "3");
	ck_assert_str_eq(field(&c, a, "PERIODS_MS"), "200,200");
	ck_assert_str_eq(field(&c, a, "ATTACKER_UID"), "1001");
	ck_assert_str_eq(field(&c, a, "TARGET_DEV"), "8:1");
	/* a charge that names the crashing hierarchy is not a second crash of it */
	for (int i = 1; i <= 3; i++) {
		char h[32];
		int ci;

		snprintf(h, sizeof(h), "%llu", 4295200000ull + (unsigned)i);
		ci = find_hier(&c, ENTRY_CLOSED, h, 0);
		ck_assert_str_eq(field(&c, ci, "CRASHES"), "1");
		ck_assert_str_eq(field(&c, ci, "FAULTS"), "1");
		ck_assert_str_eq(field(&c, ci, "EMA_MS"), "0");
	}
	ck_assert_str_eq(field(&c, cl, "KILLED_COUNT"), "1");

	/* hex-encoded target_name, decoded */
	ck_assert_str_eq(field(&c, b, "TARGET_NAME"), "my prog");
	ck_assert_str_eq(field(&c, b, "BAN_S"), "60");
	ck_assert_str_eq(field(&c, b, "BAN_UNTIL"), "2023-11-14T22:47:40.450000Z");

	ck_assert_str_eq(field(&c, u, "REASON"), "expired");
	ck_assert_str_eq(field(&c, u, "DENIED_COUNT"), "0");
	ck_assert_str_eq(field(&c, u, "TARGET_NAME"), "my prog");
	ck_assert_str_eq(field(&c, u, "BANNED_MS"), "60000");
	ck_assert_str_eq(field(&c, u, "HIERARCHY"), "4295200003");
	ck_assert_ptr_null(entry_get(&c.e[u], "LIFTED_BY_UID"));
	ck_assert(strstr(c.e[u].message, "ended (expired)") != NULL);
	collected_free(&c);
}
END_TEST

/* 40 processes killed, 16 itemized: one kill entry with the true total, no ghost. */
START_TEST(test_v2_kill_summary)
{
	struct collected c;
	struct parser_stats ps;
	int k, cl;

	run_fixture("v2-kill-summary.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 28);
	/* boundary, attack, kill, closed: the late and unknown summaries open nothing */
	ck_assert_uint_eq(c.n, 4);
	k = find_entry(&c, ENTRY_KILL, 0);
	cl = find_entry(&c, ENTRY_CLOSED, 0);
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 1), -1);
	ck_assert_int_eq(find_entry(&c, ENTRY_CLOSED, 1), -1);
	ck_assert_str_eq(field(&c, k, "KILLED_COUNT"), "40");
	ck_assert_str_eq(field(&c, k, "KILLED_UNREPORTED"), "24");
	ck_assert_uint_eq(entry_count(&c.e[k], "KILLED_TASK"), 16);
	ck_assert(strncmp(field(&c, k, "KILLED_PIDS"), "6000,6002,", 10) == 0);
	ck_assert(strstr(c.e[k].message, "Killed 40 tasks") != NULL);
	ck_assert(strstr(c.e[k].message, "(24 not itemized by the kernel)") != NULL);
	ck_assert_str_eq(field(&c, k, "AUDIT_ID"), "1700003000.350:708");
	ck_assert_str_eq(field(&c, cl, "KILLED_COUNT"), "40");
	ck_assert_str_eq(field(&c, cl, "KERNEL_KILLED"), "40");
	collected_free(&c);
}
END_TEST

/* A summary after the coalescing timer: the remainder only; later groups wait for it. */
START_TEST(test_v2_kill_summary_late)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	struct correlate *corr;
	const uint64_t h = 9ull << 32;

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	corr = correlate_new(&cfg, collect_cb, &c);
	mk(r, BRUTE_TYPE_CRASH, h, 1000);
	r->faults = 1;
	correlate_record(corr, r, 1000);
	for (unsigned i = 0; i < 3; i++) {
		mk(r, BRUTE_TYPE_KILL, h, 1100);
		r->opid = 100 + i;
		correlate_record(corr, r, 1100);
	}
	correlate_tick(corr, 1150);	/* no summary yet: the group goes out */
	ck_assert_uint_eq(c.n, 1);
	ck_assert_str_eq(entry_get(&c.e[0], "KILLED_COUNT"), "3");
	mk(r, BRUTE_TYPE_KILL, h, 1160);
	r->kill_summary = true;
	r->killed = 5;
	r->unreported = 2;
	correlate_record(corr, r, 1160);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_int_eq(c.e[1].kind, ENTRY_KILL);
	ck_assert_str_eq(entry_get(&c.e[1], "KILLED_COUNT"), "2");
	ck_assert_str_eq(entry_get(&c.e[1], "KILLED_UNREPORTED"), "2");

	/* the kernel sends summaries: a later group waits past kill_coalesce_ms for its own */
	for (unsigned i = 0; i < 2; i++) {
		mk(r, BRUTE_TYPE_KILL, h, 2000);
		r->opid = 200 + i;
		correlate_record(corr, r, 2000);
	}
	correlate_tick(corr, 2100);
	ck_assert_uint_eq(c.n, 2);
	mk(r, BRUTE_TYPE_KILL, h, 2100);
	r->kill_summary = true;
	r->killed = 2;
	correlate_record(corr, r, 2100);
	ck_assert_uint_eq(c.n, 3);
	ck_assert_str_eq(entry_get(&c.e[2], "KILLED_COUNT"), "2");
	ck_assert_str_eq(entry_get(&c.e[2], "KILLED_PIDS"), "200,201");
	ck_assert_ptr_null(entry_get(&c.e[2], "KILLED_UNREPORTED"));
	correlate_close_all(corr, "shutdown");
	ck_assert_str_eq(entry_get(&c.e[3], "KILLED_COUNT"), "7");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* issue 11 #10: audit time stepping back (NTP) never underflows DURATION_MS */
START_TEST(test_time_steps_back)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	struct correlate *corr;
	const uint64_t h = 11ull << 32;

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	corr = correlate_new(&cfg, collect_cb, &c);
	mk(r, BRUTE_TYPE_CRASH, h, 5000);
	r->faults = 1;
	correlate_record(corr, r, 5000);
	mk(r, BRUTE_TYPE_CRASH, h, 4000);	/* one second back */
	r->faults = 2;
	correlate_record(corr, r, 5001);
	mk(r, BRUTE_TYPE_HIERARCHY, h, 4100);
	r->status = HIER_DEALLOCATED;
	correlate_record(corr, r, 5002);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_str_eq(entry_get(&c.e[0], "DURATION_MS"), "0");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/*
 * issue 11 #10: a full table evicted the least recently active hierarchy,
 * which may be a long-lived one that crossed a boundary: a later attack
 * alert then lost its boundaries.  Hierarchies that never crossed one go first.
 */
START_TEST(test_evict_quiet_first)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	struct correlate *corr;
	const uint64_t a = 12ull << 32;
	int at;

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	cfg.max_hierarchies = 50;
	corr = correlate_new(&cfg, collect_cb, &c);
	mk(r, BRUTE_TYPE_BOUNDARY, a, 1000);
	r->boundary = BOUNDARY_SETID;
	correlate_record(corr, r, 1000);
	for (uint64_t i = 1; i <= 200; i++) {	/* a flood of hierarchies that cross nothing */
		mk(r, BRUTE_TYPE_HIERARCHY, a + i, 1000 + i);
		r->status = HIER_ALLOCATED;
		correlate_record(corr, r, 1000 + i);
	}
	ck_assert_uint_le(correlate_get_stats(corr)->hierarchies, 50);
	for (uint64_t i = 1; i <= 5; i++) {
		mk(r, i < 5 ? BRUTE_TYPE_CRASH : BRUTE_TYPE_ATTACK, a, 2000 + i * 10);
		r->faults = i;
		r->attack = ATTACK_FORK;
		r->speed = SPEED_FAST;
		r->action = ACTION_KILL;
		correlate_record(corr, r, 2000 + i * 10);
	}
	at = find_entry(&c, ENTRY_ATTACK, 0);
	ck_assert_int_ge(at, 0);
	ck_assert_str_eq(entry_get(&c.e[at], "BOUNDARIES"), "setid");
	ck_assert_str_eq(entry_get(&c.e[at], "CRASHES"), "4");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* issue 11 #10: a record after the deallocation re-created a ghost incident */
START_TEST(test_no_ghost_after_dealloc)
{
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	struct correlate *corr;
	const uint64_t h = 13ull << 32;

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	corr = correlate_new(&cfg, collect_cb, &c);
	mk(r, BRUTE_TYPE_CRASH, h, 1000);
	r->faults = 1;
	correlate_record(corr, r, 1000);
	mk(r, BRUTE_TYPE_HIERARCHY, h, 1100);
	r->status = HIER_DEALLOCATED;
	correlate_record(corr, r, 1100);
	ck_assert_uint_eq(c.n, 1);
	/* late: a kill, a crash, a second deallocation */
	mk(r, BRUTE_TYPE_KILL, h, 1200);
	r->opid = 5;
	correlate_record(corr, r, 1200);
	mk(r, BRUTE_TYPE_CRASH, h, 1300);
	r->faults = 2;
	correlate_record(corr, r, 1300);
	mk(r, BRUTE_TYPE_HIERARCHY, h, 1400);
	r->status = HIER_DEALLOCATED;
	correlate_record(corr, r, 1400);
	correlate_tick(corr, 5000);
	correlate_close_all(corr, "shutdown");
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(correlate_get_stats(corr)->incidents, 0);
	ck_assert_uint_eq(correlate_get_stats(corr)->hierarchies, 0);
	ck_assert_uint_eq(correlate_get_stats(corr)->late, 2);
	/* the tombstones are bounded */
	for (uint64_t i = 1; i <= 5000; i++) {
		mk(r, BRUTE_TYPE_HIERARCHY, h + i, 2000);
		r->status = HIER_ALLOCATED;
		correlate_record(corr, r, 2000);
		r->status = HIER_DEALLOCATED;
		correlate_record(corr, r, 2000);
	}
	ck_assert_uint_eq(correlate_get_stats(corr)->hierarchies, 0);
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/*
 * issue 11 #5: memory was bounded by count only: 131,072 hierarchies with
 * 4 KiB paths took 550 MB, past the unit's MemoryMax.  max_memory bounds
 * the bytes: here 20,000 hierarchies with distinct 4000-byte paths, each
 * with an incident and a killed task, in 8 MiB; malloc's own count agrees.
 */
static void discard_cb(const struct entry *e, void *userdata)
{
	(void)e;
	(void)userdata;
}

START_TEST(test_memory_bound)
{
	struct correlate_config cfg;
	struct brute_record *r = calloc(1, sizeof(*r));
	struct correlate *corr;
	struct mallinfo2 before, after;
	const uint64_t base = 14ull << 32;
	const size_t max = 8u << 20;

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	cfg.max_memory = max;
	before = mallinfo2();
	corr = correlate_new(&cfg, discard_cb, NULL);
	for (uint64_t i = 0; i < 20000; i++) {
		mk(r, BRUTE_TYPE_CRASH, base + i, 1000 + i);
		r->faults = 1;
		memset(r->subj.exe, 'a' + (int)(i % 26), 3999);
		snprintf(r->subj.exe, 24, "/%llu/", (unsigned long long)i);
		r->subj.exe[strlen(r->subj.exe)] = 'x';
		r->subj.exe[3999] = '\0';
		correlate_record(corr, r, 1000 + i);
		mk(r, BRUTE_TYPE_KILL, base + i, 1000 + i);
		r->opid = (uint32_t)i;
		memset(r->oexe, 'o', 3999);
		r->oexe[3999] = '\0';
		correlate_record(corr, r, 1000 + i);
		ck_assert_uint_le(correlate_get_stats(corr)->memory, max);
	}
	after = mallinfo2();
	ck_assert_uint_gt(correlate_get_stats(corr)->evictions, 15000);
	ck_assert_msg(after.uordblks - before.uordblks < 2 * max, "%zu bytes in use",
		      after.uordblks - before.uordblks);
	correlate_free(corr);
	free(r);
}
END_TEST

/*
 * Captured from the v2 kernel (bzImage-v2, tests/system/30-reportd.sh with
 * reportd.capture=1): `runas 1000 attacker -s exec 12 crasher_suid segv`,
 * then root lifting the ban through securityfs.
 */
START_TEST(test_captured_v2)
{
	struct collected c;
	struct parser_stats ps;
	int a, b, k, cl;

	run_fixture("captured-v2-exec.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 33);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	b = find_entry(&c, ENTRY_BAN, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	cl = find_hier(&c, ENTRY_CLOSED, "953870304716", 0);
	ck_assert(a >= 0 && a < b && b < k && k < cl);
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 1), -1);
	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "953870304716");
	ck_assert_str_eq(field(&c, a, "ORIGIN"), "953870304721");
	ck_assert_str_eq(field(&c, a, "ACTION"), "ban");
	ck_assert_str_eq(field(&c, a, "ATTACKER_UID"), "1000");
	ck_assert_str_eq(field(&c, a, "TARGET_DEV"), "254:0");
	ck_assert_str_eq(field(&c, a, "TARGET_INO"), "65");
	ck_assert_str_eq(field(&c, a, "CRASHES"), "5");
	ck_assert_str_eq(field(&c, a, "EXE"), "/data/selftests/crasher_suid");
	ck_assert_str_eq(field(&c, b, "TARGET_NAME"), "crasher_suid");
	ck_assert_str_eq(field(&c, b, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, b, "HIERARCHY"), "953870304721");
	/* two per-process records and the summary: one entry of 2 */
	ck_assert_str_eq(field(&c, k, "KILLED_COUNT"), "2");
	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "390,391");
	ck_assert_ptr_null(entry_get(&c.e[k], "KILLED_UNREPORTED"));
	/* the driver was charged no crash of its own */
	ck_assert_str_eq(field(&c, cl, "CRASHES"), "0");
	ck_assert_str_eq(field(&c, cl, "KILLED_COUNT"), "2");
	ck_assert_str_eq(field(&c, cl, "KERNEL_KILLED"), "2");
	collected_free(&c);

	run_fixture("captured-v2-ban.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.e[0].kind, ENTRY_UNBAN);
	ck_assert_str_eq(field(&c, 0, "REASON"), "lifted");
	ck_assert_str_eq(field(&c, 0, "DENIED_COUNT"), "0");
	ck_assert_str_eq(field(&c, 0, "LIFTED_BY_UID"), "0");
	ck_assert_str_eq(field(&c, 0, "LIFTED_BY_EXE"), "/usr/bin/dash");
	collected_free(&c);

	run_fixture("captured-v2-interleaved.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_ATTACK, 0), "ATTACK_TYPE"), "fork");
	ck_assert_str_eq(field(&c, find_entry(&c, ENTRY_ATTACK, 1), "ACTION"), "ban");
	ck_assert_int_ge(find_entry(&c, ENTRY_BAN, 0), 0);
	ck_assert_int_eq(find_entry(&c, ENTRY_KILL, 2), -1);
	collected_free(&c);
}
END_TEST

/* The first entry of a kind with a field of that value, or -1. */
static int find_with(const struct collected *c, enum entry_kind kind, const char *name,
		     const char *value, int nth)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *v = entry_get(&c->e[i], name);

		if (c->e[i].kind == kind && v && !strcmp(v, value) && nth-- == 0)
			return (int)i;
	}
	return -1;
}

static size_t count_kind(const struct collected *c, enum entry_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->e[i].kind == kind;
	return n;
}

/*
 * Captured from the v3 kernel (bzImage-v3): a TCP peer (10.196.0.2) crashes
 * a forking service 5 times and is banned from its endpoint, root lifts the
 * ban; 4 addresses of its /24 crash it 15 times in all and the /24 is
 * banned; a local user (uid 4243) crashes a root service over a Unix
 * socket and is banned; a program crashing from unknown sources is killed
 * by the backstop; exec attacks through a full-ID wrapper and over several
 * targets (scope=any); root lifts every ban.
 */
START_TEST(test_captured_v3)
{
	struct collected c;
	struct parser_stats ps;
	int a, b, u, cl, k;

	run_fixture("captured-v3.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 157);
	ck_assert_uint_eq(count_kind(&c, ENTRY_PEER_BAN), 3);
	ck_assert_uint_eq(count_kind(&c, ENTRY_PEER_UNBAN), 3);
	ck_assert_uint_eq(count_kind(&c, ENTRY_ATTACK), 6);

	/* the TCP peer: an attack entry with the peer and the endpoint, then its ban */
	a = find_with(&c, ENTRY_ATTACK, "PEER", "10.196.0.2/32", 0);
	b = find_with(&c, ENTRY_PEER_BAN, "PEER", "10.196.0.2/32", 0);
	u = find_with(&c, ENTRY_PEER_UNBAN, "PEER", "10.196.0.2/32", 0);
	ck_assert(a >= 0 && a < b && b < u);
	ck_assert_int_eq(c.e[a].priority, LOG_ALERT);
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "peer");
	ck_assert_str_eq(field(&c, a, "ACTION"), "peer_ban");
	ck_assert_str_eq(field(&c, a, "SOURCE"), "peer");
	ck_assert_str_eq(field(&c, a, "NETNS"), "4026532091");
	ck_assert_str_eq(field(&c, a, "TRANSPORT"), "tcp");
	ck_assert_str_eq(field(&c, a, "LADDR"), "10.196.0.1");
	ck_assert_str_eq(field(&c, a, "LPORT"), "7777");
	ck_assert_str_eq(field(&c, a, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, a, "HIERARCHY"), "655104365610");
	ck_assert_ptr_null(entry_get(&c.e[a], "LINO"));
	ck_assert_msg(strstr(c.e[a].message, "peer 10.196.0.2/32 crashed service (/selftests/service, hierarchy 655104365610) 5 times at tcp 10.196.0.1:7777 in netns 4026532091, pid 185 uid 0 auid unset, EMA 20 ms") != NULL,
		      "%s", c.e[a].message);
	/* the ban: crit, the peer, the endpoint, the count, the length, the attacked task */
	ck_assert_int_eq(c.e[b].priority, LOG_CRIT);
	ck_assert_str_eq(field(&c, b, "TRANSPORT"), "tcp");
	ck_assert_str_eq(field(&c, b, "LADDR"), "10.196.0.1");
	ck_assert_str_eq(field(&c, b, "LPORT"), "7777");
	ck_assert_str_eq(field(&c, b, "NETNS"), "4026532091");
	ck_assert_str_eq(field(&c, b, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, b, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, b, "BAN_UNTIL"), "2026-12-04T17:51:46.211000Z");
	ck_assert_str_eq(field(&c, b, "HIERARCHY"), "655104365610");
	ck_assert_str_eq(field(&c, b, "PID"), "185");
	ck_assert_str_eq(field(&c, b, "EXE"), "/selftests/service");
	ck_assert_str_eq(field(&c, b, "AUDIT_ID"), "1796405806.211:33");
	ck_assert_str_eq(c.e[b].message, "Peer 10.196.0.2/32 banned from tcp 10.196.0.1:7777 in netns 4026532091 for 900 s after 5 crashes of service (/selftests/service)");
	/* root lifted it a second later: how long it lasted, what it refused, who lifted it */
	ck_assert_int_eq(c.e[u].priority, LOG_NOTICE);
	ck_assert_str_eq(field(&c, u, "REASON"), "lifted");
	ck_assert_str_eq(field(&c, u, "REFUSED"), "9");
	ck_assert_str_eq(field(&c, u, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, u, "BANNED_MS"), "1024");
	ck_assert_str_eq(field(&c, u, "HIERARCHY"), "655104365610");
	ck_assert_str_eq(field(&c, u, "LIFTED_BY_UID"), "0");
	ck_assert_str_eq(field(&c, u, "LIFTED_BY_EXE"), "/bin/busybox");
	ck_assert_ptr_null(entry_get(&c.e[u], "PID"));
	ck_assert_str_eq(c.e[u].message, "Ban of peer 10.196.0.2/32 on tcp 10.196.0.1:7777 in netns 4026532091 lifted by pid 150 uid 0 auid unset (/bin/busybox); it refused 9 connection requests, packets or reads");

	/* the /24: escalated after 15 crashes of 4 of its addresses */
	a = find_with(&c, ENTRY_ATTACK, "PEER", "10.196.0.0/24", 0);
	b = find_with(&c, ENTRY_PEER_BAN, "PEER", "10.196.0.0/24", 0);
	u = find_with(&c, ENTRY_PEER_UNBAN, "PEER", "10.196.0.0/24", 0);
	ck_assert(a >= 0 && a < b && b < u);
	ck_assert_str_eq(field(&c, a, "FAULTS"), "15");
	ck_assert_str_eq(field(&c, b, "FAULTS"), "15");
	ck_assert_str_eq(field(&c, u, "REFUSED"), "27");
	ck_assert_str_eq(field(&c, u, "FAULTS"), "15");
	/* the service's incident: its own 15 crashes, all after a peer's input, 2 peers banned */
	cl = find_hier(&c, ENTRY_CLOSED, "655104365610", 0);
	ck_assert(cl > b);
	ck_assert_str_eq(field(&c, cl, "CRASHES"), "15");
	ck_assert_str_eq(field(&c, cl, "FAULTS"), "15");
	ck_assert_str_eq(field(&c, cl, "CRASHES_PEER"), "15");
	ck_assert_str_eq(field(&c, cl, "CRASHES_UNKNOWN"), "0");
	ck_assert_str_eq(field(&c, cl, "ATTACKS"), "2");
	ck_assert_str_eq(field(&c, cl, "PEER_BANS"), "2");
	ck_assert_str_eq(field(&c, cl, "KILLED_COUNT"), "0");
	ck_assert_str_eq(field(&c, cl, "BOUNDARIES"), "network");
	ck_assert(strstr(c.e[cl].message, ", 2 peers banned") != NULL);

	/* the Unix peer: a local user, the listening socket's inode, no address */
	a = find_with(&c, ENTRY_ATTACK, "PEER", "uid:4243", 0);
	b = find_with(&c, ENTRY_PEER_BAN, "PEER", "uid:4243", 0);
	u = find_with(&c, ENTRY_PEER_UNBAN, "PEER", "uid:4243", 0);
	ck_assert(a >= 0 && a < b && b < u);
	ck_assert_str_eq(field(&c, b, "PEER_UID"), "4243");
	ck_assert_str_eq(field(&c, b, "TRANSPORT"), "unix");
	ck_assert_str_eq(field(&c, b, "LINO"), "1150");
	ck_assert_str_eq(field(&c, b, "NETNS"), "4026531840");
	ck_assert_ptr_null(entry_get(&c.e[b], "LADDR"));
	ck_assert_ptr_null(entry_get(&c.e[b], "LPORT"));
	ck_assert_str_eq(c.e[b].message, "Local user uid 4243 banned from unix socket inode 1150 in netns 4026531840 for 900 s after 5 crashes of service (/selftests/service)");
	ck_assert_str_eq(field(&c, u, "REFUSED"), "1");
	ck_assert(strstr(c.e[u].message, "Ban of local user uid 4243 on unix socket inode 1150 in netns 4026531840 lifted") == c.e[u].message);
	k = find_with(&c, ENTRY_BOUNDARY, "HIERARCHY", "655104365616", 0);
	ck_assert_str_eq(field(&c, k, "BOUNDARY"), "unix");
	cl = find_hier(&c, ENTRY_CLOSED, "655104365616", 0);
	ck_assert_str_eq(field(&c, cl, "PEER_BANS"), "1");
	ck_assert_str_eq(field(&c, cl, "BOUNDARIES"), "unix");

	/* the backstop: crashes nobody can be named for, the image killed */
	a = find_with(&c, ENTRY_ATTACK, "ATTACK_TYPE", "backstop", 0);
	k = find_hier(&c, ENTRY_KILL, "655104365619", 0);
	cl = find_hier(&c, ENTRY_CLOSED, "655104365619", 0);
	ck_assert(a >= 0 && a < k && k < cl);
	ck_assert_str_eq(field(&c, a, "SOURCE"), "unknown");
	ck_assert_str_eq(field(&c, a, "ACTION"), "kill");
	ck_assert_str_eq(field(&c, a, "FAULTS"), "6");
	ck_assert_str_eq(field(&c, a, "CRASHES_UNKNOWN"), "6");
	ck_assert_ptr_null(entry_get(&c.e[a], "PEER"));
	ck_assert_msg(strstr(c.e[a].message, "Backstop: hierarchy 655104365619 (attacker, /selftests/attacker) crashed 6 times from peers or unknown sources without a quiet period, pid 212 uid 1000 auid unset, EMA 13 ms") == c.e[a].message &&
		      strstr(c.e[a].message, "; action: kill (it is restarted with a fresh layout and canary: by its unit's Restart=, else by brute-reportd); this incident: 6 crashes, 0 after a peer's input, 6 unattributed"),
		      "%s", c.e[a].message);
	ck_assert_str_eq(field(&c, k, "ATTACK_TYPE"), "backstop");
	ck_assert_str_eq(field(&c, k, "KILLED_PIDS"), "206");
	ck_assert(strstr(c.e[k].message, "after the backstop") != NULL);

	/* a full-ID wrapper: the crossing names the chain's owner and who answers for it */
	k = find_with(&c, ENTRY_BOUNDARY, "HIERARCHY", "655104365620", 1);
	ck_assert_str_eq(field(&c, k, "BOUNDARY"), "setid");
	ck_assert_str_eq(field(&c, k, "OWNER_UID"), "1000");
	ck_assert_str_eq(field(&c, k, "ATTACKER_UID"), "1000");
	ck_assert(strstr(c.e[k].message, "; privileged exec chain of uid 1000") != NULL);
	cl = find_hier(&c, ENTRY_CLOSED, "655104365620", 0);
	ck_assert_str_eq(field(&c, cl, "CRASHES_USER"), "1");

	/* exec attacks with their scope; the scope=any ban says what it refuses */
	a = find_with(&c, ENTRY_ATTACK, "ATTACKER_UID", "1000", 0);
	ck_assert_str_eq(field(&c, a, "SCOPE"), "target");
	ck_assert_str_eq(field(&c, a, "SOURCE"), "user");
	a = find_with(&c, ENTRY_ATTACK, "ATTACKER_UID", "1001", 0);
	ck_assert_str_eq(field(&c, a, "SCOPE"), "any");
	b = find_with(&c, ENTRY_BAN, "ATTACKER_UID", "1001", 0);
	ck_assert_str_eq(field(&c, b, "SCOPE"), "any");
	ck_assert_str_eq(c.e[b].message, "Banned uid 1001 from every privileged execve() for 900 s after an exec brute force attack on several programs (the last one /tmp/j6) from hierarchy 655104365650");
	u = find_with(&c, ENTRY_UNBAN, "ATTACKER_UID", "1001", 0);
	ck_assert(strstr(c.e[u].message, "Ban of uid 1001 on every privileged execve() lifted by pid 150") == c.e[u].message);
	collected_free(&c);
}
END_TEST

/* Feed a fixture, keep the correlator for its counters; the daemon's log into *log. */
static struct correlate *replay_keep(const char *name, struct collected *out, char **log)
{
	struct correlate_config cfg;
	struct correlate *corr;
	struct parser *p;
	size_t len;
	char *data = read_file(fixture(name), &len);

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	memset(out, 0, sizeof(*out));
	corr = correlate_new(&cfg, collect_cb, out);
	p = parser_new(fixture_feed, corr);
	ck_assert(corr && p);
	stderr_capture_begin();
	ck_assert_int_eq(parser_feed(p, data, len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	*log = stderr_capture_end();
	parser_free(p);
	free(data);
	return corr;
}

/*
 * v3-peers.log: a peer attack without a ban (peer_ban_time_s = 0), an IPv6
 * /64 banned from a listener on ::, records the kernel could not emit
 * (records_dropped= 3, then 5, then 6 in all), a crash the table could not
 * charge, the ban's end seen after the hierarchy was gone.
 */
START_TEST(test_v3_peers)
{
	struct collected c;
	struct correlate *corr;
	const struct correlate_stats *st;
	char *log;
	int a, b, u, cl;

	corr = replay_keep("v3-peers.log", &c, &log);
	st = correlate_get_stats(corr);
	/* mitigation=none: an attack entry, no ban */
	a = find_with(&c, ENTRY_ATTACK, "PEER", "192.0.2.7/32", 0);
	ck_assert_str_eq(field(&c, a, "ACTION"), "none");
	ck_assert_str_eq(field(&c, a, "LADDR"), "::");
	ck_assert_int_eq(find_with(&c, ENTRY_PEER_BAN, "PEER", "192.0.2.7/32", 0), -1);
	ck_assert(strstr(c.e[a].message, " at tcp [::]:443 in netns 4026531840,") != NULL);
	/* the IPv6 /64: banned for 600 s; its end came after the service's hierarchy was gone */
	b = find_with(&c, ENTRY_PEER_BAN, "PEER", "2001:db8:1:2::/64", 0);
	u = find_with(&c, ENTRY_PEER_UNBAN, "PEER", "2001:db8:1:2::/64", 0);
	cl = find_hier(&c, ENTRY_CLOSED, "4296000001", 0);
	ck_assert(b >= 0 && b < cl && cl < u);
	ck_assert_str_eq(field(&c, b, "BAN_S"), "600");
	ck_assert_str_eq(c.e[b].message, "Peer 2001:db8:1:2::/64 banned from tcp [::]:443 in netns 4026531840 for 600 s after 5 crashes of httpd (/usr/sbin/httpd)");
	ck_assert_str_eq(field(&c, u, "REASON"), "expired");
	ck_assert_str_eq(field(&c, u, "REFUSED"), "4");
	ck_assert_str_eq(field(&c, u, "BANNED_MS"), "600000");
	ck_assert_str_eq(field(&c, u, "HIERARCHY"), "4296000001");
	ck_assert_ptr_null(entry_get(&c.e[u], "LIFTED_BY_PID"));
	ck_assert_str_eq(c.e[u].message, "Ban of peer 2001:db8:1:2::/64 on tcp [::]:443 in netns 4026531840 ended (expired); it refused 4 connection requests, packets or reads");
	/* records lost while the incident was open: 3 + 2 + 1, said on its closed entry */
	ck_assert_str_eq(field(&c, cl, "RECORDS_DROPPED"), "6");
	ck_assert_str_eq(field(&c, cl, "CRASHES_PEER"), "10");
	ck_assert_str_eq(field(&c, cl, "PEER_BANS"), "1");
	ck_assert(strstr(c.e[cl].message, "(incomplete: the kernel could not emit 6 records meanwhile)") != NULL);
	ck_assert_uint_eq(st->kernel_dropped, 6);
	ck_assert_uint_eq(st->peer_bans, 1);
	ck_assert_uint_eq(st->peer_unbans, 1);
	ck_assert_uint_eq(st->peer_bans_kept, 0);
	ck_assert_uint_eq(st->uncharged, 1);
	/*
	 * The daemon's log: each loss with the record that said it; the third,
	 * within a minute of the second, is held back until the minute is over
	 * (the next tick after it: the hierarchy's deallocation, 3 minutes on).
	 */
	ck_assert_msg(strstr(log, "warning: the kernel could not emit 3 Brute audit records (3 since boot, as of record 1796500000.200:103)") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "warning: the kernel could not emit 2 Brute audit records (5 since boot, as of record 1796500120.000:108)") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "warning: the kernel could not emit 1 Brute audit record (6 since boot, as of record 1796500121.400:115)") >
		      strstr(log, "(5 since boot"), "%s", log);
	ck_assert_msg(strstr(log, "could not charge a crash of /usr/bin/su (uid 1002, dev 254:0 ino 77, hierarchy 4296000010)") != NULL, "%s", log);
	free(log);
	ck_assert_uint_eq(correlate_next_deadline(corr), UINT64_MAX);
	correlate_free(corr);
	collected_free(&c);
}
END_TEST

/* Lost records said within a minute of the last report wait for the minute's end, a deadline of their own. */
START_TEST(test_dropped_log_deadline)
{
	struct correlate_config cfg;
	struct correlate *corr;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	char *log;

	correlate_config_defaults(&cfg);
	corr = correlate_new(&cfg, collect_cb, &c);
	r->type = BRUTE_TYPE_CONFIG;
	strcpy(r->tunable, "mode");
	r->has_records_dropped = true;
	r->records_dropped = 4;
	r->serial = 7;
	stderr_capture_begin();
	ck_assert_int_eq(correlate_record(corr, r, 1000), 0);
	r->records_dropped = 9;
	r->serial = 8;
	ck_assert_int_eq(correlate_record(corr, r, 2000), 0);
	r->serial = 9;		/* the same total again: nothing new */
	ck_assert_int_eq(correlate_record(corr, r, 3000), 0);
	correlate_tick(corr, 60999);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "could not emit 4 Brute audit records (4 since boot, as of record 0.000:7)") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "9 since boot") == NULL, "%s", log);
	free(log);
	ck_assert_uint_eq(correlate_next_deadline(corr), 61000);
	stderr_capture_begin();
	correlate_tick(corr, 61000);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "could not emit 5 Brute audit records (9 since boot, as of record 0.000:8)") != NULL, "%s", log);
	free(log);
	ck_assert_uint_eq(correlate_next_deadline(corr), UINT64_MAX);
	ck_assert_uint_eq(correlate_get_stats(corr)->kernel_dropped, 9);
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/*
 * A crash the kernel could not charge to its peer (charged=no instead of
 * peer_faults: a share of the peer table full of bans) is still a crash of
 * its hierarchy, and said once; a (user, target) charge that failed is not.
 */
START_TEST(test_peer_uncharged)
{
	struct correlate_config cfg;
	struct correlate *corr;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	const struct correlate_stats *st;
	char *log;

	correlate_config_defaults(&cfg);
	corr = correlate_new(&cfg, collect_cb, &c);
	st = correlate_get_stats(corr);
	r->type = BRUTE_TYPE_CRASH;
	r->hierarchy = 9;
	r->origin = 9;
	r->sig = 11;
	r->faults = 1;
	r->source = SOURCE_PEER;
	r->uncharged = true;
	r->peer.present = true;
	r->peer.proto = PROTO_TCP;
	strcpy(r->peer.addr, "198.51.100.9/32");
	strcpy(r->peer.laddr, "0.0.0.0");
	r->peer.lport = 25;
	r->peer.netns = 1;
	r->subj.present = true;
	strcpy(r->subj.comm, "smtpd");
	strcpy(r->subj.exe, "/usr/sbin/smtpd");
	stderr_capture_begin();
	ck_assert_int_eq(correlate_record(corr, r, 1000), 0);
	r->faults = 2;
	ck_assert_int_eq(correlate_record(corr, r, 1100), 0);
	log = stderr_capture_end();
	ck_assert_uint_eq(st->uncharged, 2);
	ck_assert_uint_eq(st->hierarchies, 1);
	ck_assert_msg(strstr(log, "could not charge a crash of /usr/sbin/smtpd (hierarchy 9) to ") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "198.51.100.9/32") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "share of the peer table (a quarter of table_size) is full of bans") != NULL, "%s", log);
	ck_assert_msg(strstr(strstr(log, "full of bans") + 1, "full of bans") == NULL, "said twice: %s", log);
	free(log);
	/* the (user, target) form names no hierarchy of its own */
	memset(r, 0, sizeof(*r));
	r->type = BRUTE_TYPE_CRASH;
	r->hierarchy = 10;
	r->origin = 11;
	r->uncharged = true;
	r->has_target = true;
	r->attacker_uid = 1002;
	ck_assert_int_eq(correlate_record(corr, r, 1200), 0);
	ck_assert_uint_eq(st->uncharged, 3);
	ck_assert_uint_eq(st->hierarchies, 1);
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* A 1718 record: 198.51.100.9 banned 10 s from 0.0.0.0:25 (TCP) after 5 crashes of hierarchy 7. */
static void peer_ban_record(struct brute_record *r)
{
	r->type = BRUTE_TYPE_PEER_BAN;
	r->hierarchy = 7;
	r->faults = 5;
	r->ban_s = 10;
	r->peer.present = true;
	r->peer.proto = PROTO_TCP;
	strcpy(r->peer.addr, "198.51.100.9/32");
	strcpy(r->peer.laddr, "0.0.0.0");
	r->peer.lport = 25;
	r->peer.netns = 1;
}

/*
 * A ban at a layout (layout=: every endpoint of one service image) ends in
 * two records, the endpoint's entry's and the layout's: one end told.
 */
START_TEST(test_peer_ban_layout_ends_once)
{
	struct correlate_config cfg;
	struct correlate *corr;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));

	correlate_config_defaults(&cfg);
	corr = correlate_new(&cfg, collect_cb, &c);
	peer_ban_record(r);
	r->layout = 7;
	ck_assert_int_eq(correlate_record(corr, r, 5000), 0);
	r->type = BRUTE_TYPE_PEER_UNBAN;
	r->hierarchy = 0;
	r->layout = 0;
	strcpy(r->reason, "expired");
	ck_assert_int_eq(correlate_record(corr, r, 15000), 0);
	r->layout = 7;
	ck_assert_int_eq(correlate_record(corr, r, 15000), 0);
	ck_assert_uint_eq(count_kind(&c, ENTRY_PEER_BAN), 1);
	ck_assert_uint_eq(count_kind(&c, ENTRY_PEER_UNBAN), 1);
	ck_assert_str_eq(entry_get(&c.e[c.n - 1], "BAN_S"), "10");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* A peer ban whose end is never seen is forgotten long after it; a new ban of the same key replaces it. */
START_TEST(test_peer_ban_forgotten)
{
	struct correlate_config cfg;
	struct correlate *corr;
	struct collected c = { 0 };
	struct brute_record *r = calloc(1, sizeof(*r));
	const struct correlate_stats *st;

	correlate_config_defaults(&cfg);
	cfg.hierarchy_idle_ms = 1000;
	corr = correlate_new(&cfg, collect_cb, &c);
	st = correlate_get_stats(corr);
	peer_ban_record(r);
	ck_assert_int_eq(correlate_record(corr, r, 5000), 0);
	ck_assert_int_eq(correlate_record(corr, r, 6000), 0);	/* again: the same ban */
	ck_assert_uint_eq(st->peer_bans_kept, 1);
	r->peer.lport = 587;					/* another endpoint: another ban */
	ck_assert_int_eq(correlate_record(corr, r, 6000), 0);
	ck_assert_uint_eq(st->peer_bans_kept, 2);
	correlate_tick(corr, 6000 + 1000 + 10 * 1000 - 1);
	ck_assert_uint_eq(st->peer_bans_kept, 2);
	correlate_tick(corr, 6000 + 1000 + 10 * 1000);
	ck_assert_uint_eq(st->peer_bans_kept, 0);
	/* its end, seen now, says what the record says, without the ban's length */
	r->type = BRUTE_TYPE_PEER_UNBAN;
	r->hierarchy = 0;
	strcpy(r->reason, "expired");
	ck_assert_int_eq(correlate_record(corr, r, 20000), 0);
	ck_assert_int_eq(c.e[c.n - 1].kind, ENTRY_PEER_UNBAN);
	ck_assert_ptr_null(entry_get(&c.e[c.n - 1], "BAN_S"));
	ck_assert_str_eq(entry_get(&c.e[c.n - 1], "LPORT"), "587");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

Suite *correlate_suite(void)
{
	Suite *s = suite_create("correlate");
	TCase *tc = tcase_create("core");

	/* a hang guard, not a time limit: test_memory_bound under ASan on a busy machine took > 4 s */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fork_attack);
	tcase_add_test(tc, test_exec_attack);
	tcase_add_test(tc, test_interleaved);
	tcase_add_test(tc, test_eviction);
	tcase_add_test(tc, test_idle_and_coalesce);
	tcase_add_test(tc, test_partial_streams);
	tcase_add_test(tc, test_allocated_boundaries);
	tcase_add_test(tc, test_time_steps_back);
	tcase_add_test(tc, test_evict_quiet_first);
	tcase_add_test(tc, test_no_ghost_after_dealloc);
	tcase_add_test(tc, test_memory_bound);
	suite_add_tcase(s, tc);
	tc = tcase_create("captured");
	tcase_add_test(tc, test_captured_fork);
	tcase_add_test(tc, test_captured_exec);
	tcase_add_test(tc, test_captured_interleaved);
	suite_add_tcase(s, tc);
	tc = tcase_create("v2");
	tcase_add_test(tc, test_v2_exec_ban);
	tcase_add_test(tc, test_v2_ban_expired);
	tcase_add_test(tc, test_v2_kill_summary);
	tcase_add_test(tc, test_v2_kill_summary_late);
	tcase_add_test(tc, test_captured_v2);
	suite_add_tcase(s, tc);
	tc = tcase_create("v3");
	tcase_add_test(tc, test_captured_v3);
	tcase_add_test(tc, test_v3_peers);
	tcase_add_test(tc, test_peer_ban_forgotten);
	tcase_add_test(tc, test_peer_ban_layout_ends_once);
	tcase_add_test(tc, test_peer_uncharged);
	tcase_add_test(tc, test_dropped_log_deadline);
	suite_add_tcase(s, tc);
	return s;
}
