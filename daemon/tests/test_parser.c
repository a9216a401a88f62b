/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <auparse.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests.h"
#include "input.h"
#include "util.h"

struct recs {
	struct brute_record r[64];
	size_t n;
};

static void rec_cb(const struct brute_record *r, void *userdata)
{
	struct recs *rs = userdata;

	if (rs->n < 64)
		rs->r[rs->n] = *r;
	rs->n++;
}

START_TEST(test_line_type)
{
	const char *l;

	l = "type=UNKNOWN[1712] msg=audit(1.0:1): x=1";
	ck_assert_int_eq(parser_line_type(l, strlen(l)), 1712);
	l = "node=host1 type=UNKNOWN[1714] msg=audit(1.0:1): x=1";
	ck_assert_int_eq(parser_line_type(l, strlen(l)), 1714);
	l = "type=SYSCALL msg=audit(1.0:1): x=1";
	ck_assert_int_eq(parser_line_type(l, strlen(l)), 0);
	l = "type=UNKNOWN[17";
	ck_assert_int_eq(parser_line_type(l, strlen(l)), -1);
	l = "hello";
	ck_assert_int_eq(parser_line_type(l, strlen(l)), -1);
	l = "type=UNKNOWN[99999999999999] msg=";
	ck_assert_int_eq(parser_line_type(l, strlen(l)), -1);
}
END_TEST

START_TEST(test_fork_fixture_records)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	size_t len;
	char *data = read_file(fixture("fork_attack.log"), &len);
	const struct parser_stats *st;

	ck_assert_int_eq(parser_feed(p, data, len), 0);
	st = parser_get_stats(p);
	ck_assert_uint_eq(rs->n, 12);
	ck_assert_uint_eq(st->records, 12);
	ck_assert_uint_eq(st->malformed, 0);
	ck_assert_uint_eq(st->other, 6);
	/* the BOUNDARY record sits in a SYSCALL event: its own subject is used */
	ck_assert_int_eq(rs->r[1].type, 1711);
	ck_assert_uint_eq(rs->r[1].subj.pid, 1234);
	ck_assert_uint_eq(rs->r[1].subj.uid, 1000);
	ck_assert_str_eq(rs->r[1].subj.exe, "/usr/local/bin/crashy");
	ck_assert_uint_eq(rs->r[1].boundary, BOUNDARY_SETID);
	ck_assert(rs->r[0].hierarchy == 4294967396ull);
	ck_assert_int_eq(rs->r[0].status, HIER_ALLOCATED);
	ck_assert_int_eq(rs->r[2].type, 1712);
	ck_assert_uint_eq(rs->r[3].period_ms, 120);
	ck_assert_int_eq(rs->r[7].type, 1713);
	ck_assert_int_eq(rs->r[7].attack, ATTACK_FORK);
	ck_assert_int_eq(rs->r[7].action, ACTION_KILL);
	/* hex-encoded ocomm is decoded by libauparse */
	ck_assert_int_eq(rs->r[10].type, 1714);
	ck_assert_str_eq(rs->r[10].ocomm, "crash y");
	ck_assert_str_eq(rs->r[10].oexe, "/usr/local/bin/crashy");
	ck_assert_int_eq(rs->r[11].status, HIER_DEALLOCATED);
	ck_assert_uint_eq(rs->r[11].boundaries, BOUNDARY_SETID);
	parser_free(p);
	free(data);
	free(rs);
}
END_TEST

/* Any chunking of the stream yields the same records. */
START_TEST(test_chunking)
{
	struct recs *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct parser *pa = parser_new(rec_cb, a), *pb = parser_new(rec_cb, b);
	size_t len;
	char *data = read_file(fixture("exec_attack.log"), &len);

	ck_assert_int_eq(parser_feed(pa, data, len), 0);
	for (size_t i = 0; i < len; i += 7)
		ck_assert_int_eq(parser_feed(pb, data + i, len - i < 7 ? len - i : 7), 0);
	parser_finish(pb);
	ck_assert_uint_eq(a->n, 22);
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		ck_assert_int_eq(a->r[i].type, b->r[i].type);
		ck_assert(a->r[i].hierarchy == b->r[i].hierarchy);
		ck_assert_uint_eq(a->r[i].serial, b->r[i].serial);
	}
	parser_free(pa);
	parser_free(pb);
	free(data);
	free(a);
	free(b);
}
END_TEST

/* A standalone record is delivered by the feed call itself: no EOE wait. */
START_TEST(test_no_eoe_delay)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	char line[1024];

	snprintf(line, sizeof(line),
		 "type=UNKNOWN[1714] msg=audit(%lld.123:77): brute_hierarchy=4294967396 opid=5 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
		 (long long)time(NULL));
	ck_assert_int_eq(parser_feed(p, line, strlen(line)), 0);
	ck_assert_uint_eq(rs->n, 1);
	ck_assert_uint_eq(rs->r[0].opid, 5);
	ck_assert_uint_eq(rs->r[0].serial, 77);
	parser_free(p);
	free(rs);
}
END_TEST

START_TEST(test_netlink_message)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const char *payload = "audit(1700000000.500:9): brute_hierarchy=4294967400 origin=4294967400 attack=fork speed=slow faults=3 ema_ms=900 threshold_ms=30000 max_faults=3 brute_mode=1 mitigation=audit ppid=1 pid=2 auid=0 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 comm=\"a\" exe=\"/a\"";
	const struct parser_stats *st = parser_get_stats(p);

	/* kernel payloads may end with a NUL */
	ck_assert_int_eq(parser_feed_netlink(p, 1713, payload, strlen(payload) + 1), 0);
	ck_assert_uint_eq(rs->n, 1);
	ck_assert_int_eq(rs->r[0].speed, SPEED_SLOW);
	ck_assert_int_eq(rs->r[0].action, ACTION_AUDIT);
	ck_assert_uint_eq(rs->r[0].milli, 500);
	/* other types are not even formatted */
	ck_assert_int_eq(parser_feed_netlink(p, 1300, payload, strlen(payload)), 0);
	ck_assert_uint_eq(st->other, 1);
	/* embedded newline would inject a second record: refused */
	ck_assert_int_eq(parser_feed_netlink(p, 1712, "audit(1.0:1): a=1\ntype=UNKNOWN[1714] x", 38), 0);
	ck_assert_uint_eq(st->garbage, 1);
	ck_assert_uint_eq(rs->n, 1);
	parser_free(p);
	free(rs);
}
END_TEST

/* A real kernel netlink answer: NETLINK_ROUTE's link dump (every datagram > 64 bytes). */
static int route_dump_socket(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = { .nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .ifi = { .ifi_family = AF_UNSPEC } };
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	ck_assert_int_ge(fd, 0);
	ck_assert(sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&k, sizeof(k)) == sizeof(req));
	return fd;
}

/*
 * issue 22 #8: a netlink message longer than the read buffer was cut by
 * recvfrom() and its records dropped without a trace.  MSG_TRUNC tells: such
 * a message is counted (brute-reportd adds it to "lost") and logged once,
 * never half-parsed.  The kernel's own messages, into a 64-byte buffer.
 */
START_TEST(test_netlink_truncated)
{
	struct parser *p = parser_new(rec_cb, NULL);
	struct input *in;
	char *log;
	int r;

	ck_assert_int_eq(input_open_netlink_fd(p, route_dump_socket(), 64, &in), 0);
	usleep(100000);
	stderr_capture_begin();
	r = input_read(in);
	log = stderr_capture_end();
	ck_assert_int_eq(r, INPUT_PROGRESS);
	ck_assert_uint_ge(input_truncated(in), 1);
	ck_assert_uint_eq(parser_get_stats(p)->lines, 0);	/* nothing half-parsed */
	ck_assert_msg(strstr(log, "longer than the 64-byte receive buffer") != NULL, "%s", log);
	free(log);
	input_free(in);
	/* the same answer in a buffer it fits: read, nothing counted */
	ck_assert_int_eq(input_open_netlink_fd(p, route_dump_socket(), 64 * 1024, &in), 0);
	usleep(100000);
	ck_assert_int_eq(input_read(in), INPUT_PROGRESS);
	ck_assert_uint_eq(input_truncated(in), 0);
	ck_assert_uint_ge(parser_get_stats(p)->other, 1);
	input_free(in);
	parser_free(p);
}
END_TEST

/* libauparse's own interpretation of the field NAME in LINE: the expected value */
static char *auparse_value(const char *line, const char *name)
{
	auparse_state_t *au = auparse_init(AUSOURCE_BUFFER, line);
	const char *v;
	char *out = NULL;

	ck_assert_ptr_nonnull(au);
	auparse_set_escape_mode(au, AUPARSE_ESC_RAW);
	if (auparse_next_event(au) > 0 && auparse_find_field(au, name)) {
		v = auparse_interpret_field(au);
		out = strdup(v ? v : "");
	}
	auparse_destroy(au);
	ck_assert_ptr_nonnull(out);
	return out;
}

/*
 * comm, exe and ocomm come out as libauparse interprets them, whether the
 * kernel quoted them or hex-encoded them (and for a quote inside a quoted
 * value, which the kernel never writes).  Quoted values are unquoted without
 * auparse_interpret_field(): this checks the two agree.
 */
START_TEST(test_untrusted_names)
{
	static const char *const values[] = {
		"\"victim\"", "\"\"", "\"a\"b\"", "\"x\"\"",
		"6120620A63",			/* "a b\nc": hex, as the kernel writes a newline */
		"1B5B326A",			/* ESC [ 2 j */
	};

	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		struct recs *rs = calloc(1, sizeof(*rs));
		struct parser *p = parser_new(rec_cb, rs);
		char line[1024], *comm, *exe, *ocomm;

		snprintf(line, sizeof(line),
			 "type=UNKNOWN[1712] msg=audit(1700000000.000:%zu): brute_hierarchy=5 origin=5 sig=11 si_code=1 faults=1 period_ms=0 ema_ms=0 ppid=1 pid=2 auid=1 uid=1 gid=1 euid=1 suid=1 fsuid=1 egid=1 sgid=1 fsgid=1 tty=(none) ses=1 comm=%s exe=%s\n",
			 i + 1, values[i], values[i]);
		comm = auparse_value(line, "comm");
		exe = auparse_value(line, "exe");
		ck_assert_int_eq(parser_feed(p, line, strlen(line)), 0);
		ck_assert_msg(rs->n == 1, "value %s: no record", values[i]);
		ck_assert_str_eq(rs->r[0].subj.comm, comm);
		ck_assert_str_eq(rs->r[0].subj.exe, exe);

		snprintf(line, sizeof(line),
			 "type=UNKNOWN[1714] msg=audit(1700000000.000:%zu): brute_hierarchy=5 opid=5 ouid=0 oauid=0 oses=1 ocomm=%s oexe=\"/x\"\n",
			 i + 100, values[i]);
		ocomm = auparse_value(line, "ocomm");
		ck_assert_int_eq(parser_feed(p, line, strlen(line)), 0);
		ck_assert_msg(rs->n == 2, "value %s: no kill record", values[i]);
		ck_assert_str_eq(rs->r[1].ocomm, ocomm);
		free(comm);
		free(exe);
		free(ocomm);
		parser_free(p);
		free(rs);
	}
}
END_TEST

/* A quoted value with a space is cut in two by the field split: malformed. */
START_TEST(test_quoted_space)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const struct parser_stats *st = parser_get_stats(p);
	const char *line = "type=UNKNOWN[1714] msg=audit(1700000000.000:1): brute_hierarchy=5 opid=5 ouid=0 oauid=0 oses=1 ocomm=\"a b\" oexe=\"/x\"\n";

	ck_assert_int_eq(parser_feed(p, line, strlen(line)), 0);
	ck_assert_uint_eq(rs->n, 0);
	ck_assert_uint_eq(st->malformed, 1);
	parser_free(p);
	free(rs);
}
END_TEST

/*
 * A stack canary failure: glibc's abort() raises SIGABRT with tgkill(), so
 * si_code is SI_TKILL (-6).  Taken from the demo's server (make demo); a
 * signed si_code must parse, not count the crash as malformed.
 */
START_TEST(test_negative_si_code)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const char *payload = "audit(1796293279.647:944): brute_hierarchy=429683041191 origin=429683041191 sig=6 si_code=-6 faults=3 period_ms=107 ema_ms=323 ppid=1173 pid=1186 auid=4294967295 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=4294967295 comm=\"brute-demo-serv\" exe=\"/usr/local/sbin/brute-demo-server\"";
	const struct parser_stats *st = parser_get_stats(p);

	ck_assert_int_eq(parser_feed_netlink(p, 1712, payload, strlen(payload)), 0);
	ck_assert_uint_eq(rs->n, 1);
	ck_assert_int_eq(rs->r[0].sig, 6);
	ck_assert_int_eq(rs->r[0].code, -6);
	ck_assert_uint_eq(rs->r[0].faults, 3);
	ck_assert_uint_eq(st->malformed, 0);
	parser_free(p);
	free(rs);
}
END_TEST

/*
 * Records captured from a real guest (tests/system/30-reportd.sh with
 * reportd.capture=1): auditd's audit.log lines, enriched (a \035 then the
 * interpreted ids), a cred boundary inside the setresuid() event, crashes
 * charged to the exec parent, kills and the deallocation.
 */
START_TEST(test_captured_fork_records)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	size_t len;
	char *data = read_file(fixture("captured-fork.log"), &len);
	const struct parser_stats *st;
	const struct brute_record *r;

	ck_assert_int_eq(parser_feed(p, data, len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	st = parser_get_stats(p);
	ck_assert_uint_eq(st->lines, 20);
	ck_assert_uint_eq(st->records, 13);
	ck_assert_uint_eq(st->other, 7);	/* SYSCALL, PROCTITLE, ANOM_ABEND */
	ck_assert_uint_eq(st->malformed, 0);
	ck_assert_uint_eq(st->garbage, 0);
	ck_assert_uint_eq(rs->n, 13);

	r = &rs->r[0];
	ck_assert_int_eq(r->type, 1710);
	ck_assert_int_eq(r->status, HIER_ALLOCATED);
	ck_assert(r->hierarchy == 320447773320ull);
	ck_assert(r->exec_parent == 320447773272ull);
	ck_assert_uint_eq(r->boundaries, BOUNDARY_CRED);
	/* the enriched part after \035 is not part of the last field */
	ck_assert_str_eq(r->subj.exe, "/data/selftests/attacker");
	ck_assert_str_eq(r->subj.comm, "attacker");
	ck_assert_uint_eq(r->subj.auid, 4294967295u);

	/* the subject has the IDs from before setresuid(1000), new_* after it */
	r = &rs->r[1];
	ck_assert_int_eq(r->type, 1711);
	ck_assert_uint_eq(r->boundary, BOUNDARY_CRED);
	ck_assert_uint_eq(r->subj.uid, 0);
	ck_assert_uint_eq(r->old_uid, 0);
	ck_assert(r->has_new_ids);
	ck_assert_uint_eq(r->new_uid, 1000);
	ck_assert_uint_eq(r->new_euid, 1000);
	ck_assert_uint_eq(r->serial, 49);

	/* the first crash is charged to the attacker's hierarchy, then to its exec parent */
	ck_assert_int_eq(rs->r[2].type, 1712);
	ck_assert(rs->r[2].hierarchy == 320447773320ull && rs->r[2].origin == 320447773320ull);
	ck_assert_uint_eq(rs->r[2].period_ms, 109);
	ck_assert_int_eq(rs->r[3].type, 1710);
	ck_assert(rs->r[3].hierarchy == 320447773272ull);
	ck_assert_int_eq(rs->r[4].type, 1712);
	ck_assert(rs->r[4].hierarchy == 320447773272ull && rs->r[4].origin == 320447773320ull);
	ck_assert_int_eq(rs->r[4].sig, 11);
	ck_assert_int_eq(rs->r[4].code, 1);

	r = &rs->r[9];
	ck_assert_int_eq(r->type, 1713);
	ck_assert_int_eq(r->attack, ATTACK_FORK);
	ck_assert_int_eq(r->speed, SPEED_FAST);
	ck_assert_int_eq(r->action, ACTION_KILL);
	ck_assert_uint_eq(r->faults, 5);
	ck_assert_uint_eq(r->ema_ms, 11);
	ck_assert_uint_eq(r->threshold_ms, 30000);
	ck_assert_uint_eq(r->max_faults, 200);
	ck_assert_int_eq(r->mode, 2);
	ck_assert_uint_eq(r->subj.pid, 251);

	ck_assert_int_eq(rs->r[10].type, 1714);
	ck_assert_uint_eq(rs->r[10].opid, 245);
	ck_assert_uint_eq(rs->r[11].opid, 246);
	ck_assert_uint_eq(rs->r[11].ouid, 1000);
	ck_assert_uint_eq(rs->r[11].oauid, 4294967295u);
	ck_assert_str_eq(rs->r[11].ocomm, "attacker");
	ck_assert_str_eq(rs->r[11].oexe, "/data/selftests/attacker");

	r = &rs->r[12];
	ck_assert_int_eq(r->status, HIER_DEALLOCATED);
	ck_assert_uint_eq(r->faults, 5);
	ck_assert_uint_eq(r->attacks, 1);
	ck_assert_uint_eq(r->killed, 2);
	ck_assert_uint_eq(r->boundaries, BOUNDARY_CRED);
	ck_assert(!r->subj.present);
	parser_free(p);
	free(data);
	free(rs);
}
END_TEST

/*
 * The daemon reads the same records from the audit multicast group, without
 * auditd's "type=" prefix and enrichment: both forms give the same records.
 */
START_TEST(test_captured_netlink_equivalent)
{
	struct recs *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct parser *pa = parser_new(rec_cb, a), *pb = parser_new(rec_cb, b);
	size_t len;
	char *data = read_file(fixture("captured-interleaved.log"), &len);
	char *line, *save = NULL;

	ck_assert_int_eq(parser_feed(pa, data, len), 0);
	ck_assert_int_eq(parser_finish(pa), 0);
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *msg = strstr(line, " msg="), *gs = strchr(line, '\035');
		int type;

		if (sscanf(line, "type=UNKNOWN[%d]", &type) != 1 || !msg)
			continue;
		if (gs)
			*gs = '\0';
		msg += strlen(" msg=");
		ck_assert_int_eq(parser_feed_netlink(pb, type, msg, strlen(msg)), 0);
	}
	ck_assert_uint_eq(parser_get_stats(pa)->malformed, 0);
	ck_assert_uint_eq(parser_get_stats(pb)->malformed, 0);
	ck_assert_uint_eq(a->n, 43);
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n && i < 64; i++) {
		const struct brute_record *x = &a->r[i], *y = &b->r[i];

		ck_assert_int_eq(x->type, y->type);
		ck_assert(x->hierarchy == y->hierarchy && x->origin == y->origin);
		ck_assert(x->sec == y->sec && x->milli == y->milli && x->serial == y->serial);
		ck_assert_uint_eq(x->faults, y->faults);
		ck_assert_uint_eq(x->opid, y->opid);
		ck_assert_uint_eq(x->boundaries, y->boundaries);
		ck_assert_uint_eq(x->subj.pid, y->subj.pid);
		ck_assert_str_eq(x->subj.exe, y->subj.exe);
		ck_assert_str_eq(x->oexe, y->oexe);
	}
	parser_free(pa);
	parser_free(pb);
	free(data);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_malformed_fixture)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	size_t len;
	char *data = read_file(fixture("malformed.log"), &len);
	const struct parser_stats *st = parser_get_stats(p);

	ck_assert_int_eq(parser_feed(p, data, len), 0);
	parser_finish(p);
	ck_assert_uint_eq(st->records, 2);	/* first and last lines */
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_uint_eq(rs->r[0].serial, 400);
	ck_assert_uint_eq(rs->r[1].serial, 411);
	/* v3 made 1718 (BRUTE_PEER_BAN) a known type: its line without the ban's fields is malformed */
	ck_assert_uint_eq(st->malformed, 8);
	ck_assert_uint_eq(st->garbage, 3);
	ck_assert_uint_eq(st->other, 2);	/* 1799, NOT_A_TYPE */
	parser_free(p);
	free(data);
	free(rs);
}
END_TEST

/* A 1 MiB field is skipped and counted; the records around it survive. */
START_TEST(test_huge_field)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const char *ok = "type=UNKNOWN[1714] msg=audit(1700000000.000:1): brute_hierarchy=4294967396 opid=5 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n";
	size_t big = 1024 * 1024;
	char *line = malloc(big + 256);
	int n = snprintf(line, 256, "type=UNKNOWN[1714] msg=audit(1700000000.000:2): brute_hierarchy=4294967396 opid=5 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"");

	memset(line + n, 'A', big);
	memcpy(line + n + big, "\"\n", 2);
	ck_assert_int_eq(parser_feed(p, ok, strlen(ok)), 0);
	/* in uneven pieces, as a pipe would deliver it */
	for (size_t off = 0, total = (size_t)n + big + 2; off < total; off += 4093)
		ck_assert_int_eq(parser_feed(p, line + off, total - off < 4093 ? total - off : 4093), 0);
	ck_assert_int_eq(parser_feed(p, ok, strlen(ok)), 0);
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_uint_eq(parser_get_stats(p)->oversized, 1);
	/* a huge field inside the limit is still a malformed (too long) exe */
	memset(line + n, 'B', PARSER_LINE_MAX - 300);
	memcpy(line + n + PARSER_LINE_MAX - 300, "\"\n", 2);
	ck_assert_int_eq(parser_feed(p, line, (size_t)n + PARSER_LINE_MAX - 300 + 2), 0);
	ck_assert_uint_eq(parser_get_stats(p)->malformed, 1);
	ck_assert_uint_eq(rs->n, 2);
	free(line);
	parser_free(p);
	free(rs);
}
END_TEST

/* Random bytes, with and without plausible prefixes: counted, never a crash. */
START_TEST(test_garbage_bytes)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	size_t len = 2 * 1024 * 1024;
	char *buf = malloc(len);
	const char *prefixes[] = { "type=UNKNOWN[1712] msg=audit(", "type=UNKNOWN[1713] msg=audit(1700000000.000:1): brute_hierarchy=",
				   "node=", "type=UNKNOWN[1714] msg=audit(1700000000.000:1): " };
	unsigned seed = 12345;

	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (char)(seed >> 16);
		if ((seed >> 8) % 97 == 0)
			buf[i] = '\n';
	}
	/* sprinkle record-like prefixes so libauparse sees junk too */
	for (size_t off = 0; off + 200 < len; off += 9973) {
		const char *pre = prefixes[(off / 9973) % 4];

		buf[off] = '\n';
		memcpy(buf + off + 1, pre, strlen(pre));
	}
	for (size_t off = 0; off < len; off += 65536)
		ck_assert_int_eq(parser_feed(p, buf + off, len - off < 65536 ? len - off : 65536), 0);
	parser_finish(p);
	ck_assert_uint_gt(parser_get_stats(p)->garbage, 1000);
	ck_assert_uint_gt(parser_get_stats(p)->malformed, 10);
	ck_assert_uint_eq(parser_get_stats(p)->records, rs->n);
	free(buf);
	parser_free(p);
	free(rs);
}
END_TEST

/* v2 record shapes: every new field reaches struct brute_record. */
START_TEST(test_v2_records)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	size_t len;
	char *data = read_file(fixture("v2-exec-ban.log"), &len);
	const struct parser_stats *st = parser_get_stats(p);
	const struct brute_record *charge = NULL, *own = NULL, *attack = NULL, *ban = NULL;
	const struct brute_record *kill = NULL, *sum = NULL, *unban = NULL;

	ck_assert_int_eq(parser_feed(p, data, len), 0);
	parser_finish(p);
	ck_assert_uint_eq(st->malformed, 0);
	ck_assert_uint_eq(st->records, 27);
	ck_assert_uint_eq(st->other, 2);	/* SYSCALL, EOE */
	for (size_t i = 0; i < rs->n && i < 64; i++) {
		const struct brute_record *r = &rs->r[i];

		if (r->type == BRUTE_TYPE_CRASH && r->has_target && !charge)
			charge = r;
		if (r->type == BRUTE_TYPE_CRASH && !r->has_target && !own)
			own = r;
		if (r->type == BRUTE_TYPE_ATTACK)
			attack = r;
		if (r->type == BRUTE_TYPE_BAN)
			ban = r;
		if (r->type == BRUTE_TYPE_KILL && !r->kill_summary)
			kill = r;
		if (r->type == BRUTE_TYPE_KILL && r->kill_summary)
			sum = r;
		if (r->type == BRUTE_TYPE_UNBAN)
			unban = r;
	}
	ck_assert(charge && own && attack && ban && kill && sum && unban);
	ck_assert_uint_eq(charge->hierarchy, 4295100000ull);
	ck_assert_uint_eq(charge->origin, 4295100001ull);
	ck_assert_uint_eq(charge->attacker_uid, 1000);
	ck_assert_uint_eq(charge->target_major, 0);
	ck_assert_uint_eq(charge->target_minor, 21);
	ck_assert_uint_eq(charge->target_ino, 1234);
	ck_assert(!own->has_target);

	ck_assert_int_eq(attack->action, ACTION_BAN);
	ck_assert_str_eq(action_name(attack->action), "ban");
	ck_assert(attack->has_target);
	ck_assert_uint_eq(attack->attacker_uid, 1000);
	ck_assert_uint_eq(attack->subj.euid, 0);

	ck_assert_uint_eq(ban->hierarchy, 4295100004ull);
	ck_assert_str_eq(ban->target_name, "crasher_suid");
	ck_assert_uint_eq(ban->ban_s, 900);
	ck_assert(ban->subj.present);

	ck_assert(!kill->kill_summary);
	ck_assert_uint_eq(kill->opid, 3000);
	ck_assert_uint_eq(sum->killed, 1);
	ck_assert_uint_eq(sum->unreported, 0);

	ck_assert_uint_eq(unban->hierarchy, 0);
	ck_assert_str_eq(unban->reason, "lifted");
	ck_assert_uint_eq(unban->denied, 3);
	ck_assert(unban->subj.present);
	ck_assert_uint_eq(unban->subj.pid, 4242);
	parser_free(p);
	free(data);
	free(rs);
}
END_TEST

/* Broken v2 records are rejected one by one; the good ones around them survive. */
START_TEST(test_v2_malformed)
{
	static const char *const bad[] = {
		/* BAN without target_ino */
		"type=UNKNOWN[1716] msg=audit(1700000000.000:1): attacker_uid=1 target_dev=0:21 target_name=\"x\" ban_s=9 brute_hierarchy=5",
		/* BAN without brute_hierarchy */
		"type=UNKNOWN[1716] msg=audit(1700000000.000:2): attacker_uid=1 target_dev=0:21 target_ino=3 target_name=\"x\" ban_s=9",
		/* dev not MAJ:MIN */
		"type=UNKNOWN[1716] msg=audit(1700000000.000:3): attacker_uid=1 target_dev=21 target_ino=3 target_name=\"x\" ban_s=9 brute_hierarchy=5",
		/* UNBAN without reason, with a reason that is not a token */
		"type=UNKNOWN[1717] msg=audit(1700000000.000:4): attacker_uid=1 target_dev=0:21 target_ino=3 target_name=\"x\" denied=0",
		"type=UNKNOWN[1717] msg=audit(1700000000.000:5): attacker_uid=1 target_dev=0:21 target_ino=3 target_name=\"x\" reason=EXP!RED denied=0",
		/* summary claiming more unreported than killed; summary without unreported */
		"type=UNKNOWN[1714] msg=audit(1700000000.000:6): brute_hierarchy=5 killed=2 unreported=3",
		"type=UNKNOWN[1714] msg=audit(1700000000.000:7): brute_hierarchy=5 killed=2",
		/* a charge with half a target key */
		"type=UNKNOWN[1712] msg=audit(1700000000.000:8): brute_hierarchy=5 origin=6 attacker_uid=1 target_ino=3 sig=11 si_code=1 faults=1 period_ms=0 ema_ms=0 ppid=1 pid=2 auid=1 uid=1 gid=1 euid=1 suid=1 fsuid=1 egid=1 sgid=1 fsgid=1 tty=(none) ses=1 comm=\"a\" exe=\"/a\"",
		/* unknown mitigation */
		"type=UNKNOWN[1713] msg=audit(1700000000.000:9): brute_hierarchy=5 origin=6 attack=exec attacker_uid=1 target_dev=0:21 target_ino=3 speed=fast faults=4 ema_ms=1 threshold_ms=2 max_faults=3 brute_mode=2 mitigation=nuke ppid=1 pid=2 auid=1 uid=1 gid=1 euid=1 suid=1 fsuid=1 egid=1 sgid=1 fsgid=1 tty=(none) ses=1 comm=\"a\" exe=\"/a\"",
	};
	const char *good =
		"type=UNKNOWN[1717] msg=audit(1700000000.000:10): attacker_uid=1 target_dev=0:21 target_ino=3 target_name=\"x\" reason=expired denied=0\n";
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const struct parser_stats *st = parser_get_stats(p);

	ck_assert_int_eq(parser_feed(p, good, strlen(good)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(parser_feed(p, bad[i], strlen(bad[i])), 0);
		ck_assert_int_eq(parser_feed(p, "\n", 1), 0);
		ck_assert_msg(st->malformed == i + 1, "accepted: %s", bad[i]);
	}
	ck_assert_int_eq(parser_feed(p, good, strlen(good)), 0);
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_uint_eq(rs->r[1].serial, 10);
	ck_assert(!rs->r[1].subj.present);
	parser_free(p);
	free(rs);
}
END_TEST

/* Every record of a fixture, in order (the fixed-size recs holds 64). */
struct all_recs {
	struct brute_record *r;
	size_t n;
};

static void all_cb(const struct brute_record *r, void *userdata)
{
	struct all_recs *a = userdata;

	a->r = realloc(a->r, (a->n + 1) * sizeof(*a->r));
	ck_assert(a->r != NULL);
	a->r[a->n++] = *r;
}

static void parse_all(const char *name, struct all_recs *a, struct parser_stats *ps)
{
	struct parser *p = parser_new(all_cb, a);
	size_t len;
	char *data = read_file(fixture(name), &len);

	memset(a, 0, sizeof(*a));
	ck_assert_int_eq(parser_feed(p, data, len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	*ps = *parser_get_stats(p);
	parser_free(p);
	free(data);
}

/* The serial-th record of a type (audit serials repeat within an event), or NULL. */
static const struct brute_record *rec_at(const struct all_recs *a, int type, unsigned long serial)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->r[i].type == type && a->r[i].serial == serial)
			return &a->r[i];
	return NULL;
}

/*
 * v3, captured from the test kernel (bzImage-v3): a TCP peer banned and
 * lifted, its /24 banned, a Unix peer banned, a backstop kill, an exec
 * attack through a full-ID wrapper, a scope=any ban, the lifts.  Every
 * record parses, and every v3 field reaches struct brute_record.
 */
START_TEST(test_v3_records)
{
	struct all_recs a;
	struct parser_stats ps;
	const struct brute_record *r;
	size_t types[BRUTE_TYPE_LAST + 1] = { 0 };

	parse_all("captured-v3.log", &a, &ps);
	ck_assert_uint_eq(ps.lines, 157);
	ck_assert_uint_eq(ps.records, 157);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.other, 0);
	for (size_t i = 0; i < a.n; i++)
		types[a.r[i].type]++;
	ck_assert_uint_eq(types[BRUTE_TYPE_PEER_BAN], 3);
	ck_assert_uint_eq(types[BRUTE_TYPE_PEER_UNBAN], 3);
	ck_assert_uint_eq(types[BRUTE_TYPE_ATTACK], 6);

	/* a crash after a TCP peer's input: the hierarchy's count and the peer's */
	r = rec_at(&a, BRUTE_TYPE_CRASH, 29);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->source, SOURCE_PEER);
	ck_assert(r->peer.present);
	ck_assert_int_eq(r->peer.proto, PROTO_TCP);
	ck_assert_str_eq(r->peer.addr, "10.196.0.2/32");
	ck_assert_uint_eq(r->peer.netns, 4026532091ull);
	ck_assert_str_eq(r->peer.laddr, "10.196.0.1");
	ck_assert_uint_eq(r->peer.lport, 7777);
	ck_assert_uint_eq(r->faults, 4);
	ck_assert_uint_eq(r->peer_faults, 4);
	ck_assert(!r->has_target && !r->uncharged);

	/* the attack on the peer, then on its /24 (escalation): mitigation=peer_ban */
	r = rec_at(&a, BRUTE_TYPE_ATTACK, 32);
	ck_assert_int_eq(r->attack, ATTACK_PEER);
	ck_assert_str_eq(attack_name(r->attack), "peer");
	ck_assert_int_eq(r->action, ACTION_PEER_BAN);
	ck_assert_str_eq(action_name(r->action), "peer_ban");
	ck_assert_int_eq(r->source, SOURCE_PEER);
	ck_assert_str_eq(r->peer.addr, "10.196.0.2/32");
	r = rec_at(&a, BRUTE_TYPE_ATTACK, 57);
	ck_assert_str_eq(r->peer.addr, "10.196.0.0/24");
	ck_assert_uint_eq(r->faults, 15);

	/* the peer ban and its lift by root */
	r = rec_at(&a, BRUTE_TYPE_PEER_BAN, 33);
	ck_assert_uint_eq(r->hierarchy, 655104365610ull);
	ck_assert_str_eq(r->peer.addr, "10.196.0.2/32");
	ck_assert_uint_eq(r->faults, 5);
	ck_assert_uint_eq(r->ban_s, 900);
	ck_assert(r->subj.present);
	ck_assert_uint_eq(r->subj.pid, 185);
	r = rec_at(&a, BRUTE_TYPE_PEER_UNBAN, 35);
	ck_assert_uint_eq(r->hierarchy, 0);
	ck_assert_str_eq(r->peer.addr, "10.196.0.2/32");
	ck_assert_str_eq(r->reason, "lifted");
	ck_assert_uint_eq(r->refused, 9);
	ck_assert(r->subj.present);
	ck_assert_str_eq(r->subj.exe, "/bin/busybox");

	/* a Unix peer: a local user at the other end of a Unix stream connection */
	r = rec_at(&a, BRUTE_TYPE_BOUNDARY, 64);
	ck_assert_uint_eq(r->boundary, BOUNDARY_UNIX);
	r = rec_at(&a, BRUTE_TYPE_HIERARCHY, 64);
	ck_assert_uint_eq(r->boundaries, BOUNDARY_UNIX);
	r = rec_at(&a, BRUTE_TYPE_PEER_BAN, 75);
	ck_assert_int_eq(r->peer.proto, PROTO_UNIX);
	ck_assert_str_eq(r->peer.addr, "uid:4243");
	ck_assert_uint_eq(r->peer.uid, 4243);
	ck_assert_uint_eq(r->peer.netns, 4026531840ull);
	ck_assert_uint_eq(r->peer.lino, 1150);
	ck_assert_str_eq(r->peer.laddr, "");

	/* the backstop: a service crashing from unknown sources, killed */
	r = rec_at(&a, BRUTE_TYPE_CRASH, 90);
	ck_assert_int_eq(r->source, SOURCE_UNKNOWN);
	ck_assert(!r->peer.present);
	r = rec_at(&a, BRUTE_TYPE_ATTACK, 93);
	ck_assert_int_eq(r->attack, ATTACK_BACKSTOP);
	ck_assert_str_eq(attack_name(r->attack), "backstop");
	ck_assert_int_eq(r->action, ACTION_KILL);
	ck_assert_int_eq(r->source, SOURCE_UNKNOWN);

	/* a full-ID wrapper: setid crossings name the chain's owner and who answers for it */
	r = rec_at(&a, BRUTE_TYPE_BOUNDARY, 106);
	ck_assert_uint_eq(r->boundary, BOUNDARY_SETID);
	ck_assert(r->has_owner && r->has_attacker && !r->has_target);
	ck_assert_uint_eq(r->owner_uid, 1000);
	ck_assert_uint_eq(r->attacker_uid, 1000);
	ck_assert_str_eq(r->subj.exe, "/selftests/crasher");
	r = rec_at(&a, BRUTE_TYPE_CRASH, 107);
	ck_assert_int_eq(r->source, SOURCE_USER);

	/* table charges, exec attacks and bans with their scope */
	r = rec_at(&a, BRUTE_TYPE_CRASH, 109);
	ck_assert(r->has_target);
	ck_assert_int_eq(r->scope, SCOPE_TARGET);
	r = rec_at(&a, BRUTE_TYPE_CRASH, 188);
	ck_assert_int_eq(r->scope, SCOPE_OVERFLOW);
	ck_assert_str_eq(scope_name(r->scope), "overflow");
	r = rec_at(&a, BRUTE_TYPE_ATTACK, 221);
	ck_assert_int_eq(r->attack, ATTACK_EXEC);
	ck_assert_int_eq(r->scope, SCOPE_ANY);
	ck_assert_uint_eq(r->target_ino, 0);
	r = rec_at(&a, BRUTE_TYPE_BAN, 222);
	ck_assert_int_eq(r->scope, SCOPE_ANY);
	ck_assert_str_eq(r->target_name, "*");
	ck_assert(!r->has_records_dropped);
	free(a.r);
}
END_TEST

/*
 * v3 shapes no capture has yet (v3-peers.log, written from
 * docs/audit-records.md): an IPv6 /64 peer at a listener on "::",
 * mitigation=none, records_dropped= on any record, charged=no, an expired
 * peer ban (no subject).
 */
START_TEST(test_v3_shapes)
{
	struct all_recs a;
	struct parser_stats ps;
	const struct brute_record *r;

	parse_all("v3-peers.log", &a, &ps);
	ck_assert_uint_eq(ps.records, 18);
	ck_assert_uint_eq(ps.malformed, 0);
	r = rec_at(&a, BRUTE_TYPE_CRASH, 102);
	ck_assert(!r->has_records_dropped);
	r = rec_at(&a, BRUTE_TYPE_CRASH, 103);
	ck_assert(r->has_records_dropped);
	ck_assert_uint_eq(r->records_dropped, 3);
	/* libauparse hands "laddr=::" over as ":": the address is whole again */
	ck_assert_str_eq(r->peer.laddr, "::");
	r = rec_at(&a, BRUTE_TYPE_ATTACK, 107);
	ck_assert_int_eq(r->action, ACTION_NONE);
	ck_assert_str_eq(action_name(r->action), "none");
	r = rec_at(&a, BRUTE_TYPE_CONFIG, 108);
	ck_assert_str_eq(r->tunable, "peer_ban_time_s");
	ck_assert(r->has_records_dropped);
	ck_assert_uint_eq(r->records_dropped, 5);
	r = rec_at(&a, BRUTE_TYPE_CRASH, 110);
	ck_assert_str_eq(r->peer.addr, "2001:db8:1:2::/64");
	ck_assert_int_eq(r->code, -6);
	r = rec_at(&a, BRUTE_TYPE_PEER_BAN, 115);
	ck_assert_uint_eq(r->records_dropped, 6);
	ck_assert_uint_eq(r->ban_s, 600);
	r = rec_at(&a, BRUTE_TYPE_CRASH, 116);
	ck_assert(r->uncharged && r->has_target);
	ck_assert_uint_eq(r->attacker_uid, 1002);
	ck_assert_uint_eq(r->target_ino, 77);
	r = rec_at(&a, BRUTE_TYPE_PEER_UNBAN, 118);
	ck_assert(!r->subj.present);
	ck_assert_str_eq(r->reason, "expired");
	ck_assert_uint_eq(r->refused, 4);
	ck_assert_str_eq(r->peer.laddr, "::");
	free(a.r);
}
END_TEST

/* Broken v3 records are rejected one by one; the good ones around them survive. */
START_TEST(test_v3_malformed)
{
#define SUBJ " ppid=1 pid=2 auid=1 uid=1 gid=1 euid=1 suid=1 fsuid=1 egid=1 sgid=1 fsgid=1 tty=(none) ses=1 comm=\"a\" exe=\"/a\""
#define TCP "netns=9 transport=tcp laddr=10.0.0.1 lport=80"
#define CRASH "type=UNKNOWN[1712] msg=audit(1700000000.000:1): brute_hierarchy=5 origin=5 sig=11 si_code=1 faults=1 period_ms=0 ema_ms=0 source=peer "
#define PBAN "type=UNKNOWN[1718] msg=audit(1700000000.000:2): brute_hierarchy=5 "
	static const char *const bad[] = {
		/* peers that are not an address/prefix or uid:N */
		CRASH "peer=10.0.0.2 " TCP " peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/33 " TCP " peer_faults=1" SUBJ,
		CRASH "peer=2001:db8::/129 " TCP " peer_faults=1" SUBJ,
		CRASH "peer=example.org/32 " TCP " peer_faults=1" SUBJ,
		CRASH "peer=uid:x peer_uid=1 netns=9 transport=unix lino=3 peer_faults=1" SUBJ,
		/* fields that disagree with the transport */
		CRASH "peer=uid:1 " TCP " peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/32 peer_uid=1 netns=9 transport=unix lino=3 peer_faults=1" SUBJ,
		CRASH "peer=uid:1 peer_uid=2 netns=9 transport=unix lino=3 peer_faults=1" SUBJ,
		CRASH "peer=uid:1 peer_uid=1 netns=9 transport=unix lino=3 laddr=10.0.0.1 peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/32 netns=9 transport=udp laddr=10.0.0.1 lport=80 peer_faults=1" SUBJ,
		/* an endpoint that is not one */
		CRASH "peer=10.0.0.2/32 netns=9 transport=tcp laddr=10.0.0.300 lport=80 peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/32 netns=9 transport=tcp laddr=10.0.0.1:: lport=80 peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/32 netns=9 transport=tcp laddr=10.0.0.1 lport=65536 peer_faults=1" SUBJ,
		/* source=peer without the peer, or without netns, or without its count */
		CRASH "peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/32 transport=tcp laddr=10.0.0.1 lport=80 peer_faults=1" SUBJ,
		CRASH "peer=10.0.0.2/32 " TCP SUBJ,
		/* unknown source, scope, charged, boundary kind, attack */
		"type=UNKNOWN[1712] msg=audit(1700000000.000:3): brute_hierarchy=5 origin=5 sig=11 si_code=1 faults=1 period_ms=0 ema_ms=0 source=moon" SUBJ,
		"type=UNKNOWN[1712] msg=audit(1700000000.000:4): brute_hierarchy=5 origin=6 attacker_uid=1 target_dev=0:1 target_ino=2 scope=all sig=11 si_code=1 faults=1 period_ms=0 ema_ms=0" SUBJ,
		"type=UNKNOWN[1712] msg=audit(1700000000.000:5): brute_hierarchy=5 origin=6 attacker_uid=1 target_dev=0:1 target_ino=2 charged=yes" SUBJ,
		"type=UNKNOWN[1712] msg=audit(1700000000.000:6): brute_hierarchy=5 origin=6 attacker_uid=1 target_ino=2 charged=no" SUBJ,
		"type=UNKNOWN[1711] msg=audit(1700000000.000:7): brute_hierarchy=5 boundary=bluetooth" SUBJ,
		"type=UNKNOWN[1710] msg=audit(1700000000.000:8): brute_hierarchy=5 status=deallocated faults=0 attacks=0 killed=0 boundaries=unix,ipc",
		"type=UNKNOWN[1713] msg=audit(1700000000.000:9): brute_hierarchy=5 origin=5 attack=peer speed=fast faults=5 ema_ms=1 threshold_ms=2 max_faults=3 brute_mode=2 mitigation=peer_ban source=peer" SUBJ,
		"type=UNKNOWN[1713] msg=audit(1700000000.000:10): brute_hierarchy=5 origin=5 attack=storm speed=fast faults=5 ema_ms=1 threshold_ms=2 max_faults=3 brute_mode=2 mitigation=kill" SUBJ,
		/* a peer ban without its length, without its hierarchy; an end without refused= */
		PBAN "peer=10.0.0.2/32 " TCP " faults=5" SUBJ,
		"type=UNKNOWN[1718] msg=audit(1700000000.000:11): peer=10.0.0.2/32 " TCP " faults=5 ban_s=9" SUBJ,
		"type=UNKNOWN[1719] msg=audit(1700000000.000:12): peer=10.0.0.2/32 " TCP " reason=expired",
		/* records_dropped= that is not a count */
		"type=UNKNOWN[1719] msg=audit(1700000000.000:13): peer=10.0.0.2/32 " TCP " reason=expired refused=1 records_dropped=-1",
	};
	const char *good =
		"type=UNKNOWN[1719] msg=audit(1700000000.000:20): peer=fe80::/64 netns=9 transport=tcp laddr=fe80:: lport=22 reason=expired refused=0\n";
	/* a crash the peer table had no room for: charged=no in place of peer_faults */
	const char *uncharged = CRASH "peer=10.0.0.2/32 " TCP " charged=no" SUBJ "\n";
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const struct parser_stats *st = parser_get_stats(p);

	ck_assert_int_eq(parser_feed(p, good, strlen(good)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(parser_feed(p, bad[i], strlen(bad[i])), 0);
		ck_assert_int_eq(parser_feed(p, "\n", 1), 0);
		ck_assert_msg(st->malformed == i + 1, "accepted: %s", bad[i]);
	}
	ck_assert_int_eq(parser_feed(p, good, strlen(good)), 0);
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_uint_eq(rs->r[1].serial, 20);
	ck_assert_str_eq(rs->r[1].peer.laddr, "fe80::");
	ck_assert_str_eq(rs->r[1].peer.addr, "fe80::/64");
	ck_assert_int_eq(parser_feed(p, uncharged, strlen(uncharged)), 0);
	ck_assert_uint_eq(rs->n, 3);
	ck_assert(rs->r[2].uncharged && !rs->r[2].has_target);
	ck_assert_int_eq(rs->r[2].source, SOURCE_PEER);
	ck_assert_str_eq(rs->r[2].peer.addr, "10.0.0.2/32");
	ck_assert_uint_eq(rs->r[2].peer.lport, 80);
	ck_assert_uint_eq(st->malformed, ARRAY_SIZE(bad));
	parser_free(p);
	free(rs);
#undef SUBJ
#undef TCP
#undef CRASH
#undef PBAN
}
END_TEST

/* issue 11 #10: a negative (or absurd) audit time is clamped into RFC 3339's range */
START_TEST(test_time_range)
{
	struct recs *rs = calloc(1, sizeof(*rs));
	struct parser *p = parser_new(rec_cb, rs);
	const char *l =
		"type=UNKNOWN[1717] msg=audit(-100.000:10): attacker_uid=1 target_dev=0:21 target_ino=3 target_name=\"x\" reason=expired denied=0\n"
		"type=UNKNOWN[1717] msg=audit(99999999999999.000:11): attacker_uid=1 target_dev=0:21 target_ino=3 target_name=\"x\" reason=expired denied=0\n";
	char buf[40];

	ck_assert_int_eq(parser_feed(p, l, strlen(l)), 0);
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_uint_eq(rs->r[0].sec, 0);
	ck_assert_uint_eq(rs->r[1].sec, BRUTE_TIME_MAX);
	ck_assert_int_eq(format_rfc3339(rs->r[1].sec * 1000000 + 999999, buf, sizeof(buf)), 0);
	parser_free(p);
	free(rs);
}
END_TEST

Suite *parser_suite(void)
{
	Suite *s = suite_create("parser");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_line_type);
	tcase_add_test(tc, test_fork_fixture_records);
	tcase_add_test(tc, test_chunking);
	tcase_add_test(tc, test_no_eoe_delay);
	tcase_add_test(tc, test_netlink_message);
	tcase_add_test(tc, test_netlink_truncated);
	tcase_add_test(tc, test_negative_si_code);
	tcase_add_test(tc, test_untrusted_names);
	tcase_add_test(tc, test_quoted_space);
	tcase_add_test(tc, test_malformed_fixture);
	tcase_add_test(tc, test_huge_field);
	tcase_add_test(tc, test_garbage_bytes);
	tcase_add_test(tc, test_captured_fork_records);
	tcase_add_test(tc, test_captured_netlink_equivalent);
	tcase_add_test(tc, test_v2_records);
	tcase_add_test(tc, test_v2_malformed);
	tcase_add_test(tc, test_time_range);
	tcase_add_test(tc, test_v3_records);
	tcase_add_test(tc, test_v3_shapes);
	tcase_add_test(tc, test_v3_malformed);
	suite_add_tcase(s, tc);
	return s;
}
