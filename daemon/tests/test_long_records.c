/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * issue 31 #2: every record the kernel can emit is taken, paths of PATH_MAX
 * and their " (deleted)" suffix included (audit_log_d_path() gives d_path()
 * PATH_MAX + 11 bytes); what is still refused is logged at once (then at
 * most once a minute) with its audit ID, and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "parser.h"
#include "correlate.h"
#include "input.h"

#include <linux/netlink.h>

/* Upper-case hex of s, as audit_log_untrustedstring() writes a path with a space. */
static void hex(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_printf(sb, "%02X", (unsigned char)*s);
}

struct run {
	struct correlate *corr;
};

static void on_record(const struct brute_record *r, void *userdata)
{
	struct run *x = userdata;
	uint64_t now = r->sec * 1000 + r->milli;

	correlate_tick(x->corr, now);
	ck_assert_int_eq(correlate_record(x->corr, r, now), 0);
}

static const char *field(const struct entry *e, const char *name)
{
	for (size_t i = 0; i < e->n_fields; i++)
		if (!strcmp(e->fields[i].name, name))
			return e->fields[i].value;
	return NULL;
}

/*
 * An attacked binary removed since (d_path's " (deleted)"), at the longest
 * path the kernel writes: its crash, attack and kill records were refused
 * whole ("0 attacks").  Now the attack is reported with the whole path.
 */
START_TEST(test_path_max_deleted_exe)
{
	struct correlate_config cfg;
	struct collected out;
	struct strbuf in = STRBUF_INIT, exe = STRBUF_INIT;
	struct run x;
	struct parser *p;
	char *path = malloc(4200);
	int a, k, c;

	/* "/aaa.../a (deleted)": 4106 bytes, all d_path()'s PATH_MAX + 11 byte buffer holds */
	path[0] = '/';
	memset(path + 1, 'a', 4095);
	strcpy(path + 4096, " (deleted)");
	ck_assert_uint_eq(strlen(path), 4106);
	hex(&exe, path);
	sb_printf(&in, "type=UNKNOWN[1712] msg=audit(1700000000.100:10): brute_hierarchy=4294967396 origin=4294967396 sig=11 code=1 faults=1 period_ms=100 ema_ms=100 ppid=1 pid=100 auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=3 comm=\"victim\" exe=%s\n", exe.buf);
	sb_printf(&in, "type=UNKNOWN[1713] msg=audit(1700000000.200:11): brute_hierarchy=4294967396 origin=4294967396 attack=fork speed=fast faults=5 ema_ms=100 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill source=unknown ppid=1 pid=100 auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=3 comm=\"victim\" exe=%s\n", exe.buf);
	sb_printf(&in, "type=UNKNOWN[1714] msg=audit(1700000000.300:12): brute_hierarchy=4294967396 opid=100 ouid=1000 oauid=1000 oses=3 ocomm=\"victim\" oexe=%s\n", exe.buf);
	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	memset(&out, 0, sizeof(out));
	x.corr = correlate_new(&cfg, collect_cb, &out);
	p = parser_new(on_record, &x);
	ck_assert_int_eq(parser_feed(p, in.buf, in.len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	correlate_close_all(x.corr, "end-of-input");
	ck_assert_uint_eq(parser_get_stats(p)->malformed, 0);
	ck_assert_uint_eq(parser_get_stats(p)->records, 3);
	a = find_entry(&out, ENTRY_ATTACK, 0);
	k = find_entry(&out, ENTRY_KILL, 0);
	c = find_entry(&out, ENTRY_CLOSED, 0);
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(k, 0);
	ck_assert_int_ge(c, 0);
	ck_assert_str_eq(field(&out.e[a], "EXE"), path);
	ck_assert_str_eq(field(&out.e[c], "ATTACKS"), "1");
	ck_assert_ptr_nonnull(strstr(field(&out.e[k], "KILLED_TASK"), exe.buf));
	parser_free(p);
	correlate_free(x.corr);
	collected_free(&out);
	sb_free(&in);
	sb_free(&exe);
	free(path);
}
END_TEST

static void nop(const struct brute_record *r, void *userdata)
{
	(void)r;
	(void)userdata;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *q = s; (q = strstr(q, needle)); q++)
		n++;
	return n;
}

/*
 * A record with a value this version does not know, a line that is not a
 * record and one over 32 KiB were counted and said nothing until SIGUSR1
 * or the exit.  Now the first is logged at once with its audit ID, the next
 * ones of the minute are summed up when it is over.
 */
START_TEST(test_refusals_logged)
{
	const char *bad = "type=UNKNOWN[1713] msg=audit(1700000000.200:77): brute_hierarchy=5 origin=5 attack=teleport speed=fast faults=5 ema_ms=100 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill pid=1 uid=0 auid=0 comm=\"x\" exe=\"/x\"\n";
	struct parser *p = parser_new(nop, NULL);
	size_t big = 40 * 1024;
	char *line = malloc(big + 2), *log;

	memcpy(line, "type=UNKNOWN[1714] msg=audit(1700000000.300:78): oexe=\"", 55);
	memset(line + 55, 'o', big - 55);
	line[big] = '"';
	line[big + 1] = '\n';
	stderr_capture_begin();
	ck_assert_int_eq(parser_feed(p, bad, strlen(bad)), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "refused a type 1713 record (audit ID 1700000000.200:77): an invalid or too long value of attack") != NULL,
		      "%s", log);
	free(log);
	stderr_capture_begin();
	ck_assert_int_eq(parser_feed(p, "not an audit record\n", 20), 0);
	ck_assert_int_eq(parser_feed(p, line, big + 2), 0);
	ck_assert_uint_eq(parser_next_deadline(p) - now_monotonic_ms() <= 60000, 1);
	parser_tick(p, now_monotonic_ms());		/* within the minute: held back */
	log = stderr_capture_end();
	ck_assert_int_eq(count(log, "refused"), 0);
	free(log);
	stderr_capture_begin();
	parser_tick(p, now_monotonic_ms() + 60001);	/* the minute is over */
	log = stderr_capture_end();
	ck_assert_msg(count(log, "refused 2 more line(s) in the last minute, the last: a line longer than 32 KiB: \"type=UNKNOWN[1714] msg=audit(1700000000.300:78): oexe=") == 1,
		      "%s", log);
	free(log);
	ck_assert_uint_eq(parser_get_stats(p)->malformed, 1);
	ck_assert_uint_eq(parser_get_stats(p)->garbage, 1);
	ck_assert_uint_eq(parser_get_stats(p)->oversized, 1);
	ck_assert_uint_eq(parser_next_deadline(p), UINT64_MAX);
	parser_free(p);
	free(line);
}
END_TEST

/*
 * A BRUTE_ATTACK record line of auditd's limit, AUDITD_LINE_MAX long (no newline): a long
 * cgroup= (hex), then exe= cut between two bytes of its hex -- a valid, shorter path.
 */
void auditd_limit_line(struct strbuf *in)
{
	static const char head[] = "type=UNKNOWN[1713] msg=audit(1700000000.200:79): brute_hierarchy=5 origin=5 attack=backstop speed=fast faults=3 ema_ms=40 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill source=peer backstop_faults=3 cgroup=%s ppid=1 pid=100 auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=3 comm=\"%s\" exe=2F";
	struct strbuf cg = STRBUF_INIT;

	sb_put(&cg, "2F", 2);
	for (int i = 0; i < 3000; i++)
		sb_put(&cg, "63", 2);
	sb_printf(in, head, cg.buf, "victim");
	if ((AUDITD_LINE_MAX - in->len) % 2) {
		sb_reset(in);
		sb_printf(in, head, cg.buf, "victimx");
	}
	while (in->len < AUDITD_LINE_MAX)
		sb_put(in, "61", 2);
	ck_assert_uint_eq(in->len, AUDITD_LINE_MAX);
	sb_free(&cg);
}

/*
 * auditd cuts a record's text at MAX_AUDIT_MESSAGE_LENGTH: a line of that
 * length was taken silently, its exe= a shorter path than the kernel's.
 * Now it is taken with a warning naming it, and counted.  The netlink
 * buffer holds every record the parser takes (a 16 KiB one lost those of
 * 16 to 32 KiB).
 */
START_TEST(test_auditd_cut_line)
{
	struct strbuf in = STRBUF_INIT;
	struct parser *p = parser_new(nop, NULL);
	char *log;

	ck_assert_uint_ge(INPUT_NETLINK_BUF, NLMSG_HDRLEN + PARSER_LINE_MAX);
	auditd_limit_line(&in);
	sb_putc(&in, '\n');
	stderr_capture_begin();
	ck_assert_int_eq(parser_feed(p, in.buf, in.len), 0);
	log = stderr_capture_end();
	ck_assert_uint_eq(parser_get_stats(p)->records, 1);
	ck_assert_uint_eq(parser_get_stats(p)->cut, 1);
	ck_assert_msg(strstr(log, "(audit ID 1700000000.200:79) is 8969 bytes long, auditd's limit: auditd may have cut it") != NULL,
		      "%s", log);
	free(log);
	parser_free(p);
	sb_free(&in);
}
END_TEST

Suite *long_records_suite(void)
{
	Suite *s = suite_create("long_records");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_path_max_deleted_exe);
	tcase_add_test(tc, test_refusals_logged);
	tcase_add_test(tc, test_auditd_cut_line);
	suite_add_tcase(s, tc);
	return s;
}
