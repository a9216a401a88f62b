/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.c: pid -> systemd unit; the correlator's use of it (OBJECT_SYSTEMD_UNIT). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#include "journal.h"
#include "tests.h"
#include "unit.h"
#include "util.h"

START_TEST(test_from_cgroup_path)
{
	static const struct { const char *path, *unit; } t[] = {
		{ "/system.slice/nginx.service", "nginx.service" },
		{ "/system.slice/nginx.service/worker", "nginx.service" },
		{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service" },
		{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service", "user@1000.service" },
		{ "/init.scope", "init.scope" },
		{ "/", NULL },
		{ "", NULL },
		{ "/system.slice", NULL },
		{ "/machine/qemu", NULL },
	};
	char buf[UNIT_NAME_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		int r = unit_from_cgroup_path(t[i].path, buf, sizeof(buf));

		if (t[i].unit) {
			ck_assert_msg(r == 0, "%s: %d", t[i].path, r);
			ck_assert_str_eq(buf, t[i].unit);
		} else {
			ck_assert_msg(r == -ENXIO, "%s: %d", t[i].path, r);
		}
	}
	/* too long for the buffer: refused, not cut */
	ck_assert_int_eq(unit_from_cgroup_path("/a.slice/abcdefgh.service", buf, 8), -ENXIO);
}
END_TEST

static void put(const char *dir, const char *sub, const char *procs)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", dir, sub);
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", dir, sub);
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(procs, f);
	fclose(f);
}

static int open_fds(void)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* The search over a cgroup tree, on a tree of real files shaped like cgroupfs. */
START_TEST(test_scan_tree)
{
	const char *d = make_tmpdir();
	char buf[512];
	int fds = open_fds();

	put(d, "", "1\n");
	put(d, "/system.slice", "");
	put(d, "/system.slice/a.service", "100\n101\n");
	put(d, "/system.slice/nginx.service", "200\n2010\n");
	put(d, "/system.slice/nginx.service/sub", "2011\n");
	put(d, "/user.slice", "");
	ck_assert_int_eq(unit_cgroup_of_pid(d, 2011, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/system.slice/nginx.service/sub");
	ck_assert_int_eq(unit_cgroup_of_pid(d, 201, buf, sizeof(buf)), -ESRCH);	/* not a prefix match */
	ck_assert_int_eq(unit_cgroup_of_pid(d, 101, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/system.slice/a.service");
	ck_assert_int_eq(unit_cgroup_of_pid(d, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/");
	ck_assert_int_eq(unit_cgroup_of_pid(d, 999, buf, sizeof(buf)), -ESRCH);
	ck_assert_int_eq(open_fds(), fds);	/* found or not, every directory closed */
	rm_rf(d);
}
END_TEST

/* This very process, on this machine: the search agrees with /proc/self/cgroup and systemd. */
START_TEST(test_live_self)
{
	char line[4096], buf[4096], unit[UNIT_NAME_MAX], *sd = NULL;
	const char *want = NULL;
	FILE *f = fopen("/proc/self/cgroup", "r");

	ck_assert(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			want = line + 3;
		}
	fclose(f);
	if (!want || access("/sys/fs/cgroup/cgroup.procs", R_OK) != 0) {
		test_skip("unit: no cgroup v2 tree at /sys/fs/cgroup on this machine");
		return;
	}
	if (unit_cgroup_of_pid("/sys/fs/cgroup", getpid(), buf, sizeof(buf)) != 0) {
		/* a container sees its own cgroup as "/": the tree is not the one /proc names */
		test_skip("unit: this process is not in the cgroup tree mounted at /sys/fs/cgroup");
		return;
	}
	ck_assert_str_eq(buf, want);
	if (unit_from_cgroup_path(want, unit, sizeof(unit)) == 0) {
		char got[UNIT_NAME_MAX];

		ck_assert_int_eq(unit_of_pid(getpid(), true, got, sizeof(got)), 0);
		ck_assert_str_eq(got, unit);
		if (sd_pid_get_unit(0, &sd) >= 0) {
			ck_assert_str_eq(got, sd);
			free(sd);
		}
	} else {
		ck_assert_int_lt(unit_of_pid(getpid(), true, unit, sizeof(unit)), 0);
	}
}
END_TEST

/* ---- the correlator: which pids it asks about, how often, which entries carry UNIT ---- */

static unsigned lookups, fail_first;
static int known_pid = 1234;

/* Stands for the processes of a replayed log, long gone: only the server (1234) "runs". */
static int lookup(int pid, bool walk, char *buf, size_t len)
{
	(void)walk;
	lookups++;
	if (pid != known_pid || lookups <= fail_first)
		return -ESRCH;
	snprintf(buf, len, "crashy.service");
	return 0;
}

static void record(const struct brute_record *r, void *userdata)
{
	struct correlate *c = userdata;

	ck_assert_int_eq(correlate_record(c, r, r->sec * 1000 + r->milli), 0);
}

static void replay(const char *name, struct collected *out)
{
	struct correlate_config cfg;
	struct correlate *c;
	struct parser *p;
	size_t len;
	char *data = read_file(fixture(name), &len);

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	memset(out, 0, sizeof(*out));
	c = correlate_new(&cfg, collect_cb, out);
	correlate_set_unit_lookup(c, lookup);
	p = parser_new(record, c);
	ck_assert_int_eq(parser_feed(p, data, len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	correlate_close_all(c, "end-of-input");
	parser_free(p);
	correlate_free(c);
	free(data);
}

START_TEST(test_correlate_unit)
{
	struct collected c;

	/*
	 * Not asked at the boundary (every process reading from the network
	 * crosses one); the first crash's task (1300) is gone, its parent (1234,
	 * the server) is the service: found, then kept for every later entry.
	 */
	lookups = 0;
	known_pid = 1234;
	replay("fork_attack.log", &c);
	ck_assert_uint_eq(c.n, 4);
	for (size_t i = 0; i < c.n; i++) {
		const char *u = entry_get(&c.e[i], "UNIT");

		if (c.e[i].kind == ENTRY_BOUNDARY)
			ck_assert_ptr_null(u);
		else
			ck_assert_msg(u && !strcmp(u, "crashy.service"), "%s entry: UNIT %s",
				      entry_kind_name(c.e[i].kind), u ? u : "(none)");
	}
	ck_assert_uint_eq(lookups, 2);
	collected_free(&c);

	/* missed at the first crash (the server had not joined its cgroup yet): the second finds it */
	lookups = 0;
	fail_first = 2;
	replay("fork_attack.log", &c);
	ck_assert_uint_eq(lookups, 4);
	ck_assert_str_eq(entry_get(&c.e[find_entry(&c, ENTRY_ATTACK, 0)], "UNIT"), "crashy.service");
	ck_assert_str_eq(entry_get(&c.e[find_entry(&c, ENTRY_KILL, 0)], "UNIT"), "crashy.service");
	ck_assert_str_eq(entry_get(&c.e[find_entry(&c, ENTRY_CLOSED, 0)], "UNIT"), "crashy.service");
	collected_free(&c);

	/*
	 * v3: the peer ban and the attack name the attacked service's unit (its
	 * main process, 174, "runs"), and the end of the ban too, remembered from
	 * the ban: both show in "journalctl -u" of the service.
	 */
	lookups = 0;
	fail_first = 0;
	known_pid = 174;
	replay("captured-v3.log", &c);
	{
		int b = find_entry(&c, ENTRY_PEER_BAN, 0), u = find_entry(&c, ENTRY_PEER_UNBAN, 0);
		int a = find_entry(&c, ENTRY_ATTACK, 0);
		struct journal_fields jf;

		ck_assert_str_eq(entry_get(&c.e[a], "UNIT"), "crashy.service");
		ck_assert(strstr(c.e[a].message, "hierarchy 655104365610, unit crashy.service)") != NULL);
		ck_assert_str_eq(entry_get(&c.e[b], "UNIT"), "crashy.service");
		ck_assert(strstr(c.e[b].message, "after 5 crashes of service (crashy.service)") != NULL);
		ck_assert_str_eq(entry_get(&c.e[u], "UNIT"), "crashy.service");
		ck_assert_int_eq(journal_fields_build(&c.e[u], &jf), 0);
		ck_assert_str_eq(journal_fields_get(&jf, "OBJECT_SYSTEMD_UNIT"), "crashy.service");
		journal_fields_free(&jf);
		/* the Unix service (main pid 197) does not "run": no unit claimed */
		ck_assert_ptr_null(entry_get(&c.e[find_entry(&c, ENTRY_PEER_BAN, 2)], "UNIT"));
		ck_assert_ptr_null(entry_get(&c.e[find_entry(&c, ENTRY_PEER_UNBAN, 2)], "UNIT"));
	}
	collected_free(&c);

	lookups = 0;
	fail_first = 0;
	known_pid = -1;
	replay("fork_attack.log", &c);
	for (size_t i = 0; i < c.n; i++)
		ck_assert_ptr_null(entry_get(&c.e[i], "UNIT"));
	/* never found: two tries of the pid and its parent, not one per record */
	ck_assert_uint_eq(lookups, 4);
	collected_free(&c);
}
END_TEST

/*
 * A cgroup found by a pid lookup (a pid may be reused, a task may have
 * moved) became the entries' CGROUP, which the backstop's restart acts on;
 * every crash record of a new hierarchy could search the whole cgroup tree
 * (4096 directories), several times a record.  Now only the kernel's
 * cgroup= is CGROUP (the lookup gives UNIT), crash records read /proc only,
 * a record searches the tree at most CORRELATE_WALKS_PER_RECORD times, and
 * a pid whose search failed is not searched again for a while.
 */
static unsigned walks, walks_record, walks_crash, walks_3000;
static int record_type;

static int cgroup_lookup(int pid, bool walk, char *buf, size_t len)
{
	if (walk) {
		walks++;
		walks_record++;
		walks_crash += record_type == 1712;
		walks_3000 += pid == 3000;
	}
	if (pid != 1234)
		return -ESRCH;
	snprintf(buf, len, "/system.slice/victim.service");
	return 0;
}

static int unit_lookup(int pid, bool walk, char *buf, size_t len)
{
	char cg[256];
	int r = cgroup_lookup(pid, walk, cg, sizeof(cg));

	return r < 0 ? r : unit_from_cgroup_path(cg, buf, len);
}

static void record_budget(const struct brute_record *r, void *userdata)
{
	struct correlate *c = userdata;

	walks_record = 0;
	record_type = r->type;
	ck_assert_int_eq(correlate_record(c, r, r->sec * 1000 + r->milli), 0);
	ck_assert_uint_le(walks_record, CORRELATE_WALKS_PER_RECORD);
}

START_TEST(test_correlate_lookup_budget)
{
	struct strbuf in = STRBUF_INIT;
	struct correlate_config cfg;
	struct collected out = { 0 };
	struct correlate *c;
	struct parser *p;
	const char *subj = "auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=3 comm=\"crashy\" exe=\"/usr/bin/crashy\"";

	/* a served hierarchy: its server (1234) runs in victim.service */
	sb_printf(&in, "type=UNKNOWN[1712] msg=audit(1700000000.100:1): brute_hierarchy=4294967396 origin=4294967396 sig=11 code=1 faults=1 period_ms=0 ema_ms=0 ppid=1234 pid=1300 %s\n", subj);
	sb_printf(&in, "type=UNKNOWN[1713] msg=audit(1700000000.200:2): brute_hierarchy=4294967396 origin=4294967396 attack=fork speed=fast faults=5 ema_ms=100 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill ppid=1234 pid=1301 %s\n", subj);
	/* five hierarchies of one gone task (3000, its parent 999 gone too) */
	for (unsigned i = 0; i < 5; i++) {
		sb_printf(&in, "type=UNKNOWN[1712] msg=audit(1700000001.%03u:%u): brute_hierarchy=%u origin=%u sig=11 code=1 faults=1 period_ms=0 ema_ms=0 ppid=999 pid=3000 %s\n",
			  i, 10 + 2 * i, 5000 + i, 5000 + i, subj);
		sb_printf(&in, "type=UNKNOWN[1713] msg=audit(1700000001.%03u:%u): brute_hierarchy=%u origin=%u attack=fork speed=fast faults=5 ema_ms=100 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill ppid=999 pid=3000 %s\n",
			  i, 11 + 2 * i, 5000 + i, 5000 + i, subj);
	}
	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	c = correlate_new(&cfg, collect_cb, &out);
	correlate_set_unit_lookup(c, unit_lookup);
	correlate_set_cgroup_lookup(c, cgroup_lookup);
	p = parser_new(record_budget, c);
	ck_assert_int_eq(parser_feed(p, in.buf, in.len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	correlate_close_all(c, "end-of-input");
	ck_assert_uint_eq(walks_crash, 0);
	ck_assert_uint_eq(walks_3000, 1);
	for (size_t i = 0; i < out.n; i++)
		ck_assert_ptr_null(entry_get(&out.e[i], "CGROUP"));	/* never a looked-up one */
	ck_assert_str_eq(entry_get(&out.e[find_entry(&out, ENTRY_ATTACK, 0)], "UNIT"), "victim.service");
	parser_free(p);
	correlate_free(c);
	collected_free(&out);
	sb_free(&in);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("unit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_from_cgroup_path);
	tcase_add_test(tc, test_scan_tree);
	tcase_add_test(tc, test_live_self);
	tcase_add_test(tc, test_correlate_unit);
	tcase_add_test(tc, test_correlate_lookup_budget);
	suite_add_tcase(s, tc);
	return s;
}
