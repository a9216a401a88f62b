/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "util.h"

#define H 4294967396ull

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
	ck_assert_str_eq(field(&c, a, "AUID"), "4294967295");
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

Suite *correlate_suite(void)
{
	Suite *s = suite_create("correlate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fork_attack);
	tcase_add_test(tc, test_exec_attack);
	tcase_add_test(tc, test_interleaved);
	tcase_add_test(tc, test_eviction);
	tcase_add_test(tc, test_idle_and_coalesce);
	tcase_add_test(tc, test_partial_streams);
	suite_add_tcase(s, tc);
	return s;
}
