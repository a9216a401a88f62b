/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Response v4's records (the kernel's v4 contract): input= and relay= of
 * crashes, cgroup= of attacks and kill summaries, mitigation=restart, the
 * boundary "local", lpath= of Unix endpoints, local TCP peers, trusted
 * peer list updates; what the entries, the journal and the SIEM make of them.
 * fixtures/v4-records.log is written as the contract spells the records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "peer.h"
#include "record.h"
#include "siem.h"
#include "unit.h"
#include "util.h"

static const char *field(const struct collected *c, int i, const char *name)
{
	const char *v;

	ck_assert_int_ge(i, 0);
	v = entry_get(&c->e[i], name);
	ck_assert_msg(v != NULL, "entry %d (%s) has no %s", i, entry_kind_name(c->e[i].kind), name);
	return v;
}

/* The n-th entry of a kind about hierarchy h (HIERARCHY), or -1. */
static int find_hier(const struct collected *c, enum entry_kind kind, const char *h, int nth)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *v = entry_get(&c->e[i], "HIERARCHY");

		if (c->e[i].kind == kind && v && !strcmp(v, h) && nth-- == 0)
			return (int)i;
	}
	return -1;
}

/* All the values of a repeated field, comma-separated (static buffer). */
static const char *values(const struct entry *e, const char *name)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < e->n_fields; i++)
		if (!strcmp(e->fields[i].name, name))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "", e->fields[i].value);
	return buf;
}

/* ---- the records ---- */

struct one {
	struct brute_record r;
	int n;
};

static void keep_one(const struct brute_record *r, void *userdata)
{
	struct one *o = userdata;

	o->r = *r;
	o->n++;
}

/* One record line through the parser: 1 parsed, 0 refused (counted malformed). */
static int parse_line(const char *line, struct brute_record *out)
{
	static struct one o;
	struct parser *p;
	char buf[4096];
	int n;

	memset(&o, 0, sizeof(o));
	p = parser_new(keep_one, &o);
	ck_assert(p != NULL);
	n = snprintf(buf, sizeof(buf), "%s\n", line);
	ck_assert_int_eq(parser_feed(p, buf, (size_t)n), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	parser_free(p);
	if (o.n && out)
		*out = o.r;
	return o.n;
}

#define SUBJ "ppid=1 pid=900 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"php-fpm\" exe=\"/usr/sbin/php-fpm8.2\""
#define CRASH "type=UNKNOWN[1712] msg=audit(1796600000.100:7): brute_hierarchy=4297000001 origin=4297000001 sig=11 si_code=1 faults=1 period_ms=100 ema_ms=70 "
#define ATTACK "type=UNKNOWN[1713] msg=audit(1796600000.100:8): brute_hierarchy=4297000001 origin=4297000001 attack=backstop speed=slow faults=32 ema_ms=70000 threshold_ms=30000 max_faults=200 brute_mode=2 "
#define TCP "peer=203.0.113.7/32 netns=4026531840 transport=tcp laddr=0.0.0.0 lport=80 "

START_TEST(test_v4_fields)
{
	struct brute_record *r = malloc(sizeof(*r));

	ck_assert(r != NULL);
	/* input= of each kind; relay= with a relayed charge */
	ck_assert_int_eq(parse_line(CRASH "source=peer " TCP "peer_faults=1 input=relayed relay=uid:33 " SUBJ, r), 1);
	ck_assert_int_eq(r->input, INPUT_RELAYED);
	ck_assert(r->has_relay && r->relay_uid == 33);
	ck_assert_str_eq(r->peer.addr, "203.0.113.7/32");
	ck_assert_int_eq(parse_line(CRASH "source=unknown " TCP "input=trusted " SUBJ, r), 1);
	ck_assert_int_eq(r->input, INPUT_TRUSTED);
	ck_assert(r->peer.present && r->source == SOURCE_UNKNOWN);
	ck_assert_int_eq(parse_line(CRASH "source=unknown input=ambiguous " SUBJ, r), 1);
	ck_assert_int_eq(r->input, INPUT_AMBIGUOUS);
	ck_assert(!r->peer.present);
	ck_assert_int_eq(parse_line(CRASH "source=user input=none " SUBJ, r), 1);
	ck_assert_int_eq(r->input, INPUT_NONE);
	/* a v3 crash has none */
	ck_assert_int_eq(parse_line(CRASH "source=unknown " SUBJ, r), 1);
	ck_assert_int_eq(r->input, 0);
	ck_assert(!r->has_relay);
	/* a proxy that mixed its clients: not charged, the relay named beside the last peer */
	ck_assert_int_eq(parse_line(CRASH "source=unknown input=ambiguous " TCP "relay=uid:33 " SUBJ, r), 1);
	ck_assert(r->has_relay);
	ck_assert_int_eq(r->relay_uid, 33);
	/* the peer ban of a peer seen through a relay names it too */
	ck_assert_int_eq(parse_line("type=UNKNOWN[1718] msg=audit(1796600000.100:9): brute_hierarchy=4297000001 "
				    TCP "faults=5 ban_s=600 relay=uid:33 " SUBJ, r), 1);
	ck_assert(r->has_relay);
	/* refused: an unknown input, a relay without a peer, a relayed charge without its relay */
	ck_assert_int_eq(parse_line(CRASH "source=unknown input=maybe " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=unknown input=none relay=uid:33 " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=peer " TCP "peer_faults=1 input=relayed " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=peer " TCP "peer_faults=1 input=relayed relay=33 " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=unknown input=none input=none " SUBJ, NULL), 0);

	/* mitigation=restart, cgroup= quoted and hex (a space) */
	ck_assert_int_eq(parse_line(ATTACK "mitigation=restart source=unknown backstop_faults=32 cgroup=\"/system.slice/php8.2-fpm.service\" " SUBJ, r), 1);
	ck_assert_int_eq(r->action, ACTION_RESTART);
	ck_assert_str_eq(action_name(r->action), "restart");
	ck_assert_str_eq(r->cgroup, "/system.slice/php8.2-fpm.service");
	ck_assert_int_eq(parse_line(ATTACK "mitigation=kill source=unknown cgroup=2F73797374656D2E736C6963652F6120622E73657276696365 " SUBJ, r), 1);
	ck_assert_str_eq(r->cgroup, "/system.slice/a b.service");
	ck_assert_int_eq(parse_line(ATTACK "mitigation=kill source=unknown " SUBJ, r), 1);
	ck_assert_str_eq(r->cgroup, "");	/* absent: no cgroups, or v3 */
	/* refused: not a path, on a crash record */
	ck_assert_int_eq(parse_line(ATTACK "mitigation=kill source=unknown cgroup=\"system.slice\" " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=unknown cgroup=\"/system.slice/x.service\" " SUBJ, NULL), 0);
	/* the kill summary's cgroup */
	ck_assert_int_eq(parse_line("type=UNKNOWN[1714] msg=audit(1796600000.100:9): brute_hierarchy=4297000001 killed=3 unreported=0 cgroup=\"/system.slice/nginx.service\"", r), 1);
	ck_assert(r->kill_summary);
	ck_assert_str_eq(r->cgroup, "/system.slice/nginx.service");

	/* lpath= of Unix endpoints: a path, an abstract name (with a NUL), unnamed */
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=uid:1000 peer_uid=1000 netns=1 transport=unix lino=5 lpath=\"/run/php/php8.2-fpm.sock\" peer_faults=1 input=peer " SUBJ, r), 1);
	ck_assert_str_eq(r->peer.lpath, "/run/php/php8.2-fpm.sock");
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=uid:1000 peer_uid=1000 netns=1 transport=unix lino=5 lpath=40610062 peer_faults=1 input=peer " SUBJ, r), 1);
	ck_assert_str_eq(r->peer.lpath, "@a@b");
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=uid:1000 peer_uid=1000 netns=1 transport=unix lino=5 lpath=? peer_faults=1 input=peer " SUBJ, r), 1);
	ck_assert_str_eq(r->peer.lpath, "?");
	ck_assert_int_eq(parse_line(CRASH "source=peer " TCP "lpath=\"/x\" peer_faults=1 input=peer " SUBJ, NULL), 0);
	/* local TCP peers: uid:N with peer_uid at a tcp endpoint; both or neither */
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=uid:1001 peer_uid=1001 netns=1 transport=tcp laddr=127.0.0.1 lport=9000 peer_faults=1 input=peer " SUBJ, r), 1);
	ck_assert(r->peer.present && r->peer.proto == PROTO_TCP && r->peer.uid == 1001);
	ck_assert(peer_is_user(&r->peer));
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=uid:1001 netns=1 transport=tcp laddr=127.0.0.1 lport=9000 peer_faults=1 input=peer " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=uid:1001 peer_uid=1002 netns=1 transport=tcp laddr=127.0.0.1 lport=9000 peer_faults=1 input=peer " SUBJ, NULL), 0);
	ck_assert_int_eq(parse_line(CRASH "source=peer peer=10.0.0.1/32 peer_uid=1001 netns=1 transport=tcp laddr=127.0.0.1 lport=9000 peer_faults=1 input=peer " SUBJ, NULL), 0);

	/* the boundary "local" */
	ck_assert_int_eq(parse_line("type=UNKNOWN[1711] msg=audit(1796600000.100:10): brute_hierarchy=4297000001 boundary=local old_uid=33 old_euid=33 new_uid=33 new_euid=33 " SUBJ, r), 1);
	ck_assert_uint_eq(r->boundary, BOUNDARY_LOCAL);
	ck_assert_int_eq(parse_line("type=UNKNOWN[1710] msg=audit(1796600000.100:11): brute_hierarchy=4297000001 status=deallocated faults=1 attacks=0 killed=0 boundaries=unix,local", r), 1);
	ck_assert_uint_eq(r->boundaries, BOUNDARY_UNIX | BOUNDARY_LOCAL);

	/* trusted peers: tunable=trusted op=update with its counts, no old=/new= */
	ck_assert_int_eq(parse_line("type=UNKNOWN[1715] msg=audit(1796600000.100:12): tunable=trusted op=update added=2 removed=1 entries=3 " SUBJ " res=1", r), 1);
	ck_assert(r->trusted_update);
	ck_assert(r->trusted_added == 2 && r->trusted_removed == 1 && r->trusted_entries == 3);
	ck_assert_int_eq(parse_line("type=UNKNOWN[1715] msg=audit(1796600000.100:13): tunable=trusted op=update added=2 " SUBJ " res=1", NULL), 0);
	ck_assert_int_eq(parse_line("type=UNKNOWN[1715] msg=audit(1796600000.100:14): tunable=mode op=update added=2 removed=1 entries=3 " SUBJ " res=1", NULL), 0);
	ck_assert_int_eq(parse_line("type=UNKNOWN[1715] msg=audit(1796600000.100:15): tunable=trusted_uid_max old=999 new=500 " SUBJ " res=1", r), 1);
	ck_assert(!r->trusted_update && r->new_value == 500);
	free(r);
}
END_TEST

/* A Unix endpoint with a path is that path: a ban survives the socket's re-creation. */
START_TEST(test_v4_endpoint_path)
{
	struct brute_peer a = { .present = true, .proto = PROTO_UNIX, .addr = "uid:1000", .uid = 1000,
				.netns = 1, .lino = 5, .lpath = "/run/svc.sock" };
	struct brute_peer b = a, c = a;
	struct peer_bans *t = peer_bans_new();
	char buf[PEER_TEXT_MAX];

	b.lino = 77;	/* the service restarted: a new socket, the same path */
	ck_assert(peer_same(&a, &b));
	strcpy(c.lpath, "/run/other.sock");
	ck_assert(!peer_same(&a, &c));
	/* v3: the inode is the endpoint */
	a.lpath[0] = b.lpath[0] = '\0';
	ck_assert(!peer_same(&a, &b));
	strcpy(a.lpath, "/run/svc.sock");
	strcpy(b.lpath, "/run/svc.sock");
	ck_assert(peer_bans_get(t, NULL, false, &a, 1) != NULL);
	ck_assert(peer_bans_find(t, NULL, &b) == peer_bans_find(t, "", &a));
	ck_assert_uint_eq(peer_bans_count(t), 1);
	peer_bans_free(t);
	ck_assert_str_eq(peer_endpoint(&a, buf, sizeof(buf)), "unix socket /run/svc.sock (inode 5) in netns 1");
	strcpy(a.lpath, "?");
	ck_assert_str_eq(peer_endpoint(&a, buf, sizeof(buf)), "unnamed unix socket inode 5 in netns 1");
	ck_assert_str_eq(peer_who(&a, buf, sizeof(buf)), "local user uid 1000");
}
END_TEST

START_TEST(test_v4_system_service)
{
	static const struct { const char *path, *unit; } t[] = {
		{ "/system.slice/nginx.service", "nginx.service" },
		{ "/system.slice/nginx.service/worker", "nginx.service" },
		{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service" },
		{ "/system.slice/system-a.slice/system-a\\x2db.slice/a-b@x.service", "a-b@x.service" },
		{ "/system.slice/php8.2-fpm.service", "php8.2-fpm.service" },
		{ "/user.slice/user-1000.slice/user@1000.service", NULL },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service", NULL },
		{ "/system.slice/a b.service", NULL },		/* not a unit name */
		{ "/system.slice/getty@.service", NULL },		/* a template, no instance */
		{ "/system.slice/session-1.scope", NULL },
		{ "/system.slice", NULL },
		{ "/system.slice/", NULL },
		{ "/init.scope", NULL },
		{ "/", NULL },
		{ "/machine.slice/x.service", NULL },
		{ "/system.slice/other.slice/x.service", NULL },	/* not a slice systemd makes for units */
	};
	char buf[UNIT_NAME_MAX];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = unit_system_service_of_cgroup(t[i].path, buf, sizeof(buf));

		if (t[i].unit) {
			ck_assert_msg(r == 0, "%s: %d", t[i].path, r);
			ck_assert_str_eq(buf, t[i].unit);
		} else {
			ck_assert_msg(r < 0, "%s gave %s", t[i].path, buf);
		}
	}
}
END_TEST

START_TEST(test_v4_fixture)
{
	struct collected c;
	struct parser_stats ps;
	int a, b, pb, bs, cl, k;

	run_fixture("v4-records.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	ck_assert_uint_eq(ps.records, 46);

	/* the relayed peer: its attack and ban name the relay, which is not banned */
	a = find_hier(&c, ENTRY_ATTACK, "4297000001", 0);
	ck_assert_str_eq(field(&c, a, "ATTACK_TYPE"), "peer");
	ck_assert_str_eq(field(&c, a, "PEER"), "203.0.113.7/32");
	ck_assert_str_eq(field(&c, a, "RELAY"), "uid:33");
	ck_assert_str_eq(field(&c, a, "CGROUP"), "/system.slice/php8.2-fpm.service");
	ck_assert_str_eq(field(&c, a, "UNIT"), "php8.2-fpm.service");	/* from cgroup=, even in a replay */
	ck_assert_msg(strstr(c.e[a].message, "; its input came through the local relay of uid 33") != NULL, "%s", c.e[a].message);
	pb = find_hier(&c, ENTRY_PEER_BAN, "4297000001", 0);
	ck_assert_str_eq(field(&c, pb, "RELAY"), "uid:33");
	ck_assert_msg(strstr(c.e[pb].message, "Peer 203.0.113.7/32 banned from tcp 0.0.0.0:80 in netns 4026531840 for 900 s after 5 crashes of php-fpm8.2 (php8.2-fpm.service); its input came through the local relay of uid 33 (not banned)") == c.e[pb].message,
		      "%s", c.e[pb].message);

	/* the backstop asks for a restart: nothing killed; its entry says what was not charged, and who */
	bs = find_hier(&c, ENTRY_ATTACK, "4297000001", 1);
	ck_assert_str_eq(field(&c, bs, "ATTACK_TYPE"), "backstop");
	ck_assert_str_eq(field(&c, bs, "ACTION"), "restart");
	ck_assert_str_eq(field(&c, bs, "CRASHES_TRUSTED"), "4");
	ck_assert_str_eq(field(&c, bs, "CRASHES_AMBIGUOUS"), "3");
	ck_assert_str_eq(field(&c, bs, "CRASHES_RELAYED"), "5");
	ck_assert_str_eq(values(&c.e[bs], "TRUSTED_PEER"), "10.0.0.5/32,uid:33");
	ck_assert_str_eq(values(&c.e[bs], "RELAY"), "uid:33");
	ck_assert_msg(strstr(c.e[bs].message, "action: restart (nothing killed: brute-reportd restarts its unit") != NULL &&
		      strstr(c.e[bs].message, "; 7 crashes not charged to a peer: 4 through trusted peers 10.0.0.5/32, uid:33, 3 ambiguous (input from more than one source); 5 charged through local relay uid:33"),
		      "%s", c.e[bs].message);
	ck_assert_int_lt(find_hier(&c, ENTRY_KILL, "4297000001", 0), 0);
	cl = find_hier(&c, ENTRY_CLOSED, "4297000001", 0);
	ck_assert_str_eq(field(&c, cl, "CRASHES_TRUSTED"), "4");
	ck_assert_str_eq(values(&c.e[cl], "TRUSTED_PEER"), "10.0.0.5/32,uid:33");
	ck_assert_msg(strstr(c.e[cl].message, "1 peer banned; 7 crashes not charged to a peer: 4 through trusted peers 10.0.0.5/32, uid:33") != NULL,
		      "%s", c.e[cl].message);
	b = find_entry(&c, ENTRY_BOUNDARY, 0);
	ck_assert_str_eq(field(&c, b, "BOUNDARY"), "local");

	/* a Unix endpoint by its path */
	pb = find_hier(&c, ENTRY_PEER_BAN, "4297000002", 0);
	ck_assert_str_eq(field(&c, pb, "LPATH"), "/run/svc sock");
	ck_assert_str_eq(field(&c, pb, "LINO"), "2001");
	ck_assert_msg(strstr(c.e[pb].message, "Local user uid 1000 banned from unix socket /run/svc sock (inode 2001) in netns 4026531840") == c.e[pb].message,
		      "%s", c.e[pb].message);
	/* a local TCP peer */
	pb = find_hier(&c, ENTRY_PEER_BAN, "4297000003", 0);
	ck_assert_str_eq(field(&c, pb, "PEER"), "uid:1001");
	ck_assert_str_eq(field(&c, pb, "PEER_UID"), "1001");
	ck_assert_str_eq(field(&c, pb, "TRANSPORT"), "tcp");
	ck_assert_str_eq(field(&c, pb, "LADDR"), "127.0.0.1");
	ck_assert_msg(strstr(c.e[pb].message, "Local user uid 1001 banned from tcp 127.0.0.1:9000") == c.e[pb].message,
		      "%s", c.e[pb].message);
	/* the fast backstop: killed; its cgroup on the attack and on the kill (the summary's) */
	bs = find_hier(&c, ENTRY_ATTACK, "4297000004", 0);
	ck_assert_str_eq(field(&c, bs, "ACTION"), "kill");
	ck_assert_str_eq(field(&c, bs, "CGROUP"), "/system.slice/a b.service");
	k = find_hier(&c, ENTRY_KILL, "4297000004", 0);
	ck_assert_str_eq(field(&c, k, "CGROUP"), "/system.slice/a b.service");
	/* the lifted ban of the relayed peer */
	pb = find_entry(&c, ENTRY_PEER_UNBAN, 0);
	ck_assert_str_eq(field(&c, pb, "REASON"), "lifted");
	ck_assert_str_eq(field(&c, pb, "UNIT"), "php8.2-fpm.service");
	collected_free(&c);
}
END_TEST

/* v3 records keep working: every captured v3 record still parses, nothing v4 appears. */
START_TEST(test_v4_v3_unchanged)
{
	struct collected c;
	struct parser_stats ps;

	run_fixture("captured-v3.log", NULL, &c, &ps);
	ck_assert_uint_eq(ps.malformed, 0);
	for (size_t i = 0; i < c.n; i++) {
		ck_assert_ptr_null(entry_get(&c.e[i], "CRASHES_TRUSTED"));
		ck_assert_ptr_null(entry_get(&c.e[i], "RELAY"));
		ck_assert_ptr_null(entry_get(&c.e[i], "CGROUP"));
		ck_assert_ptr_null(entry_get(&c.e[i], "LPATH"));
	}
	collected_free(&c);
}
END_TEST

/* The SIEM: RFC 5424 and ECS carry the relay and the trusted peers; a local TCP peer is a user. */
START_TEST(test_v4_siem)
{
	struct siem_options opts;
	struct siem_format f = { .hostname = "h", .app_name = "brute-reportd", .pid = 1,
				 .facility = 10 << 3, .opts = &opts };
	struct strbuf sb = STRBUF_INIT;
	struct collected c;
	int pb, bs;

	siem_options_defaults(&opts);
	run_fixture("v4-records.log", NULL, &c, NULL);
	pb = find_hier(&c, ENTRY_PEER_BAN, "4297000001", 0);
	ck_assert_int_eq(siem_format_rfc5424(&c.e[pb], &f, &sb), 0);
	ck_assert_msg(strstr(sb_str(&sb), " peer=\"203.0.113.7/32\" ") && strstr(sb_str(&sb), " relay=\"uid:33\" "),
		      "%s", sb_str(&sb));
	sb_reset(&sb);
	bs = find_hier(&c, ENTRY_ATTACK, "4297000001", 1);
	opts.json_format = SIEM_JSON_ECS;
	ck_assert_int_eq(siem_format_json(&c.e[bs], &f, &sb), 0);
	ck_assert_msg(strstr(sb_str(&sb), "\"trusted_peer\":[\"10.0.0.5/32\",\"uid:33\"]") &&
		      strstr(sb_str(&sb), "\"crashes_trusted\":4") && strstr(sb_str(&sb), "\"action\":\"restart\"") &&
		      strstr(sb_str(&sb), "\"cgroup\":\"/system.slice/php8.2-fpm.service\""), "%s", sb_str(&sb));
	sb_reset(&sb);
	/* a local user over loopback TCP: source.user.id, the listener as destination, no source.address */
	pb = find_hier(&c, ENTRY_PEER_BAN, "4297000003", 0);
	ck_assert_int_eq(siem_format_json(&c.e[pb], &f, &sb), 0);
	ck_assert_msg(strstr(sb_str(&sb), "\"source\":{\"user\":{\"id\":\"1001\"}},\"destination\":{\"address\":\"127.0.0.1\",\"ip\":\"127.0.0.1\",\"port\":9000},\"network\":{\"transport\":\"tcp\",\"type\":\"ipv4\"}") &&
		      !strstr(sb_str(&sb), "\"source\":{\"address\""), "%s", sb_str(&sb));
	sb_free(&sb);
	collected_free(&c);
}
END_TEST

/*
 * An auditd aggregator's records (node=NAME, distribute_network): the node
 * is kept, hierarchies are told apart by (node, id), and the entries name
 * it; a peer of prefix /0 (every address, which no kernel bans) is refused.
 */
#define PEER_BAN "type=UNKNOWN[1718] msg=audit(1796600581.211:33): brute_hierarchy=4297000001 netns=4026532091 transport=tcp laddr=0.0.0.0 lport=22 faults=5 ban_s=900 "

static void keep_record(const struct brute_record *r, void *userdata)
{
	ck_assert_int_eq(correlate_record(userdata, r, r->sec * 1000 + r->milli), 0);
}

START_TEST(test_v4_node)
{
	static const char stream[] =
		"node=evil.example " ATTACK "mitigation=restart source=unknown backstop_faults=32 cgroup=\"/system.slice/ssh.service\" " SUBJ "\n"
		ATTACK "mitigation=restart source=unknown backstop_faults=32 cgroup=\"/system.slice/php8.2-fpm.service\" " SUBJ "\n";
	struct brute_record *r = malloc(sizeof(*r));
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct correlate *corr;
	struct parser *p;
	int a0, a1, cl0, cl1;

	ck_assert(r != NULL);
	ck_assert_int_eq(parse_line("node=evil.example " PEER_BAN "peer=192.0.2.7/32 " SUBJ, r), 1);
	ck_assert_str_eq(r->node, "evil.example");
	ck_assert_int_eq(parse_line(PEER_BAN "peer=192.0.2.7/32 " SUBJ, r), 1);
	ck_assert_str_eq(r->node, "");
	ck_assert_int_eq(parse_line(PEER_BAN "peer=0.0.0.0/0 " SUBJ, r), 0);
	ck_assert_int_eq(parse_line(PEER_BAN "peer=::/0 " SUBJ, r), 0);
	ck_assert_int_eq(parse_line(PEER_BAN "peer=128.0.0.0/1 " SUBJ, r), 1);
	free(r);

	/* the same hierarchy id on two hosts: two incidents, each entry with its node */
	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	corr = correlate_new(&cfg, collect_cb, &c);
	p = parser_new(keep_record, corr);
	ck_assert_int_eq(parser_feed(p, stream, sizeof(stream) - 1), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	correlate_close_all(corr, "end-of-input");
	parser_free(p);
	correlate_free(corr);
	a0 = find_entry(&c, ENTRY_ATTACK, 0);
	a1 = find_entry(&c, ENTRY_ATTACK, 1);
	cl0 = find_entry(&c, ENTRY_CLOSED, 0);
	cl1 = find_entry(&c, ENTRY_CLOSED, 1);
	ck_assert_int_ge(a1, 0);
	ck_assert_int_ge(cl1, 0);
	ck_assert_str_eq(field(&c, a0, "NODE"), "evil.example");
	ck_assert_msg(strncmp(c.e[a0].message, "[node evil.example] Backstop: ", 30) == 0, "%s", c.e[a0].message);
	/* another host's cgroup names no unit of this one */
	ck_assert_ptr_null(entry_get(&c.e[a0], "UNIT"));
	ck_assert_ptr_null(entry_get(&c.e[a1], "NODE"));
	ck_assert_str_eq(field(&c, a1, "UNIT"), "php8.2-fpm.service");
	ck_assert_uint_eq(!!entry_get(&c.e[cl0], "NODE") + !!entry_get(&c.e[cl1], "NODE"), 1);
	ck_assert_str_eq(field(&c, cl0, "ATTACKS"), "1");
	ck_assert_str_eq(field(&c, cl1, "ATTACKS"), "1");
	collected_free(&c);
}
END_TEST

/* The n-th entry of a kind about hierarchy h of node ("" none), or -1. */
static int find_node(const struct collected *c, enum entry_kind kind, const char *h, const char *node,
		     int nth)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *v = entry_get(&c->e[i], "HIERARCHY"), *n = entry_get(&c->e[i], "NODE");

		if (c->e[i].kind == kind && (!h || (v && !strcmp(v, h))) &&
		    !strcmp(n ? n : "", node) && nth-- == 0)
			return (int)i;
	}
	return -1;
}

/*
 * Two hosts' records in one stream (an auditd aggregator): their (uid,
 * target) entries, peer bans and records_dropped= totals were one, since
 * only hierarchies were keyed by node.  Host b's charges counted in host
 * a's exec attack, b's lift of its ban ended a's (whose end then said
 * nothing of it), b's peer ban overwrote a's, and each kernel's total of
 * records it could not emit was taken for the other's (restarts, counted
 * again, in every incident of both).  Now each is the host's own.
 */
#define NODE_A "node=a.example "
#define NODE_B "node=b.example "
#define EXEC_SUBJ "ppid=3000 pid=3004 auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm=\"crasher_suid\" exe=\"/usr/local/bin/crasher_suid\""
#define ROOT_SUBJ "ppid=1 pid=4242 auid=1001 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts1 ses=7 comm=\"brutectl\" exe=\"/usr/sbin/brutectl\""
#define CHARGE(t, f) "type=UNKNOWN[1712] msg=audit(1700001000." t "): brute_hierarchy=4295100000 origin=4295100004 attacker_uid=1000 target_dev=0:21 target_ino=1234 sig=11 si_code=1 faults=" f " period_ms=100 ema_ms=100 " EXEC_SUBJ "\n"
#define EXEC(t, f) "type=UNKNOWN[1713] msg=audit(1700001000." t "): brute_hierarchy=4295100000 origin=4295100004 attack=exec attacker_uid=1000 target_dev=0:21 target_ino=1234 speed=fast faults=" f " ema_ms=100 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=ban " EXEC_SUBJ "\n"
#define BAN(t, s, h) "type=UNKNOWN[1716] msg=audit(1700001000." t "): attacker_uid=1000 target_dev=0:21 target_ino=1234 target_name=\"crasher_suid\" ban_s=" s " brute_hierarchy=" h " " EXEC_SUBJ "\n"
#define UNBAN(t, why) "type=UNKNOWN[1717] msg=audit(1700001000." t "): attacker_uid=1000 target_dev=0:21 target_ino=1234 target_name=\"crasher_suid\" reason=" why " denied=0 " ROOT_SUBJ "\n"
#define PBAN(t, s, h, f) "type=UNKNOWN[1718] msg=audit(1700001000." t "): brute_hierarchy=" h " peer=10.0.0.1/32 netns=4026531840 transport=tcp laddr=0.0.0.0 lport=22 faults=" f " ban_s=" s " " SUBJ "\n"
#define PUNBAN(t, why) "type=UNKNOWN[1719] msg=audit(1700001000." t "): peer=10.0.0.1/32 netns=4026531840 transport=tcp laddr=0.0.0.0 lport=22 reason=" why " refused=3 " ROOT_SUBJ "\n"
#define HCRASH(t) "type=UNKNOWN[1712] msg=audit(1700001000." t "): brute_hierarchy=4296000001 origin=4296000001 sig=11 si_code=1 faults=1 period_ms=0 ema_ms=0 " SUBJ "\n"
#define DROPPED(t, n) "type=UNKNOWN[1715] msg=audit(1700001000." t "): tunable=peer_ban_time_s old=0 new=600 " ROOT_SUBJ " res=1 records_dropped=" n "\n"

START_TEST(test_v4_node_tables)
{
	static const char stream[] =
		NODE_A CHARGE("100:1", "1") NODE_A CHARGE("110:2", "2")
		NODE_B CHARGE("120:1", "1") NODE_B CHARGE("130:2", "2") NODE_B CHARGE("140:3", "3")
		NODE_A EXEC("150:3", "2")
		NODE_A BAN("160:4", "900", "4295100004")
		NODE_B BAN("170:4", "60", "4295100009")
		NODE_B UNBAN("180:5", "lifted")
		NODE_A UNBAN("190:5", "expired")
		NODE_A PBAN("200:6", "900", "4297000001", "5")
		NODE_B PBAN("210:6", "60", "4297000002", "7")
		NODE_B PUNBAN("220:7", "lifted")
		NODE_A PUNBAN("230:7", "expired")
		NODE_A HCRASH("240:8") NODE_B HCRASH("250:8")
		NODE_A DROPPED("260:9", "5") NODE_B DROPPED("270:9", "100") NODE_A DROPPED("280:10", "5");
	struct correlate_config cfg;
	struct collected c = { 0 };
	struct correlate *corr;
	struct parser *p;
	int a, ua, ub, pa, pb, ca, cb;

	correlate_config_defaults(&cfg);
	cfg.record_time = true;
	corr = correlate_new(&cfg, collect_cb, &c);
	p = parser_new(keep_record, corr);
	stderr_capture_begin();		/* the records the kernels could not emit are logged */
	ck_assert_int_eq(parser_feed(p, stream, sizeof(stream) - 1), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	ck_assert_uint_eq(parser_get_stats(p)->malformed, 0);
	ck_assert_uint_eq(parser_get_stats(p)->records, 19);
	/* a's (uid, target) entry (b's was lifted: forgotten), no peer ban left */
	ck_assert_uint_eq(correlate_get_stats(corr)->targets, 1);
	ck_assert_uint_eq(correlate_get_stats(corr)->peer_bans_kept, 0);
	/* 5 lost by a's kernel, 100 by b's: nothing counted twice */
	ck_assert_uint_eq(correlate_get_stats(corr)->kernel_dropped, 105);
	correlate_close_all(corr, "end-of-input");
	free(stderr_capture_end());
	parser_free(p);
	correlate_free(corr);

	/* a's exec attack: a's 2 charges, not b's 3 besides */
	a = find_node(&c, ENTRY_ATTACK, "4295100000", "a.example", 0);
	ck_assert_int_ge(a, 0);
	ck_assert_str_eq(field(&c, a, "CRASHES"), "2");
	ck_assert_str_eq(field(&c, a, "PERIODS_MS"), "100,100");
	/* b's lift ends b's ban; a's ban, still kept, ends when a says so */
	ub = find_node(&c, ENTRY_UNBAN, NULL, "b.example", 0);
	ua = find_node(&c, ENTRY_UNBAN, NULL, "a.example", 0);
	ck_assert_int_ge(ub, 0);
	ck_assert_int_ge(ua, 0);
	ck_assert_str_eq(field(&c, ub, "REASON"), "lifted");
	ck_assert_str_eq(field(&c, ub, "BAN_S"), "60");
	ck_assert_str_eq(field(&c, ub, "HIERARCHY"), "4295100009");
	ck_assert_str_eq(field(&c, ua, "REASON"), "expired");
	ck_assert_str_eq(field(&c, ua, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, ua, "HIERARCHY"), "4295100004");
	ck_assert_str_eq(field(&c, ua, "BANNED_MS"), "30");
	ck_assert_msg(strncmp(c.e[ua].message, "[node a.example] Ban of uid 1000", 32) == 0, "%s", c.e[ua].message);
	/* the same peer banned from the same endpoint on both hosts: two bans */
	pb = find_node(&c, ENTRY_PEER_UNBAN, NULL, "b.example", 0);
	pa = find_node(&c, ENTRY_PEER_UNBAN, NULL, "a.example", 0);
	ck_assert_int_ge(pb, 0);
	ck_assert_int_ge(pa, 0);
	ck_assert_str_eq(field(&c, pb, "BAN_S"), "60");
	ck_assert_str_eq(field(&c, pb, "FAULTS"), "7");
	ck_assert_str_eq(field(&c, pb, "HIERARCHY"), "4297000002");
	ck_assert_str_eq(field(&c, pa, "BAN_S"), "900");
	ck_assert_str_eq(field(&c, pa, "FAULTS"), "5");
	ck_assert_str_eq(field(&c, pa, "HIERARCHY"), "4297000001");
	ck_assert_str_eq(field(&c, pa, "BANNED_MS"), "30");
	/* each host's incident says what its own kernel could not emit */
	ca = find_node(&c, ENTRY_CLOSED, "4296000001", "a.example", 0);
	cb = find_node(&c, ENTRY_CLOSED, "4296000001", "b.example", 0);
	ck_assert_int_ge(ca, 0);
	ck_assert_int_ge(cb, 0);
	ck_assert_str_eq(field(&c, ca, "RECORDS_DROPPED"), "5");
	ck_assert_str_eq(field(&c, cb, "RECORDS_DROPPED"), "100");
	collected_free(&c);
}
END_TEST

/* Only what a flood of records leaves to check: unban and attack entries. */
static void keep_some(const struct entry *e, void *userdata)
{
	if (e->kind == ENTRY_PEER_UNBAN || e->kind == ENTRY_UNBAN || e->kind == ENTRY_ATTACK)
		collect_cb(e, userdata);
}

static void peer_record(struct brute_record *r, int type, const char *node, const char *addr)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	strtcpy(r->node, node, sizeof(r->node));
	r->hierarchy = 7;
	r->faults = 5;
	r->ban_s = 900;
	strcpy(r->reason, "expired");
	r->peer.present = true;
	r->peer.proto = PROTO_TCP;
	strtcpy(r->peer.addr, addr, sizeof(r->peer.addr));
	strcpy(r->peer.laddr, "0.0.0.0");
	r->peer.lport = 22;
	r->peer.netns = 1;
}

static void charge_record(struct brute_record *r, const char *node, uint64_t ino)
{
	memset(r, 0, sizeof(*r));
	r->type = BRUTE_TYPE_CRASH;
	strtcpy(r->node, node, sizeof(r->node));
	r->hierarchy = 9;
	r->origin = 10;
	r->has_target = true;
	r->has_attacker = true;
	r->attacker_uid = 1000;
	r->target_minor = 21;
	r->target_ino = ino;
	r->faults = 1;
	r->period_ms = 100;
}

/*
 * Keyed by node, the bounded tables take more entries from the same
 * records (one per host): a flood of another host's records must not cost
 * this host's entries.  The bounds hold in all; another host's entries
 * make room first, this host's never do for another host's.
 */
#define TABLE_MAX 65536		/* PEER_BANS_MAX, and correlate.c's TARGETS_MAX */

START_TEST(test_v4_node_flood)
{
	struct brute_record *r = malloc(sizeof(*r));
	struct correlate_config cfg;
	struct collected c = { 0 };
	const struct correlate_stats *st;
	struct correlate *corr;
	char addr[32];
	int u, a;

	ck_assert(r != NULL);
	correlate_config_defaults(&cfg);
	strcpy(cfg.local_node, "here.example");
	corr = correlate_new(&cfg, keep_some, &c);
	st = correlate_get_stats(corr);

	/* this host's peer ban (no node=), then a full table of another host's */
	peer_record(r, BRUTE_TYPE_PEER_BAN, "", "198.51.100.1/32");
	ck_assert_int_eq(correlate_record(corr, r, 1000), 0);
	for (unsigned i = 0; i < TABLE_MAX + 100; i++) {
		snprintf(addr, sizeof(addr), "10.%u.%u.%u/32", i >> 16, (i >> 8) & 255, i & 255);
		peer_record(r, BRUTE_TYPE_PEER_BAN, "evil.example", addr);
		ck_assert_int_eq(correlate_record(corr, r, 2000), 0);
	}
	ck_assert_uint_eq(st->peer_bans_kept, TABLE_MAX);
	peer_record(r, BRUTE_TYPE_PEER_UNBAN, "", "198.51.100.1/32");
	ck_assert_int_eq(correlate_record(corr, r, 3000), 0);
	u = find_entry(&c, ENTRY_PEER_UNBAN, 0);
	ck_assert_int_ge(u, 0);
	ck_assert_ptr_null(entry_get(&c.e[u], "NODE"));
	ck_assert_ptr_nonnull(entry_get(&c.e[u], "BAN_S"));
	ck_assert_str_eq(entry_get(&c.e[u], "BAN_S"), "900");
	/* full of another host's: this host's new ban (node=local_node) takes one's place */
	peer_record(r, BRUTE_TYPE_PEER_BAN, "evil.example", "10.255.255.255/32");
	ck_assert_int_eq(correlate_record(corr, r, 3100), 0);
	ck_assert_uint_eq(st->peer_bans_kept, TABLE_MAX);
	peer_record(r, BRUTE_TYPE_PEER_BAN, "here.example", "198.51.100.2/32");
	ck_assert_int_eq(correlate_record(corr, r, 3200), 0);
	ck_assert_uint_eq(st->peer_bans_kept, TABLE_MAX);
	peer_record(r, BRUTE_TYPE_PEER_UNBAN, "here.example", "198.51.100.2/32");
	ck_assert_int_eq(correlate_record(corr, r, 3300), 0);
	u = find_entry(&c, ENTRY_PEER_UNBAN, 1);
	ck_assert_int_ge(u, 0);
	ck_assert_ptr_nonnull(entry_get(&c.e[u], "BAN_S"));

	/* (uid, target) entries: this host's first and a full table of them */
	charge_record(r, "", 1234);
	ck_assert_int_eq(correlate_record(corr, r, 4000), 0);
	r->faults = 2;
	ck_assert_int_eq(correlate_record(corr, r, 4001), 0);
	for (unsigned i = 1; i < TABLE_MAX; i++) {
		charge_record(r, "", 100000 + i);
		ck_assert_int_eq(correlate_record(corr, r, 4100), 0);
	}
	ck_assert_uint_eq(st->targets, TABLE_MAX);
	/* another host's charges of the same and other targets: not kept, this host's stay */
	for (unsigned i = 0; i < 1000; i++) {
		charge_record(r, "evil.example", i ? 200000 + i : 1234);
		ck_assert_int_eq(correlate_record(corr, r, 4200), 0);
	}
	ck_assert_uint_eq(st->targets, TABLE_MAX);
	ck_assert_uint_eq(st->charges, 2 + (TABLE_MAX - 1) + 1000);
	/* this host's exec attack on the first target: its own 2 charges */
	charge_record(r, "", 1234);
	r->type = BRUTE_TYPE_ATTACK;
	r->origin = 9;
	r->attack = ATTACK_EXEC;
	r->speed = SPEED_FAST;
	r->action = ACTION_BAN;
	r->faults = 2;
	ck_assert_int_eq(correlate_record(corr, r, 4300), 0);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	ck_assert_int_ge(a, 0);
	ck_assert_str_eq(entry_get(&c.e[a], "CRASHES"), "2");
	correlate_free(corr);
	collected_free(&c);
	free(r);
}
END_TEST

/* A record of hierarchy id of node ("" none) at ms: a crash opens an incident. */
static void hier_record(struct brute_record *r, int type, const char *node, uint64_t id, uint64_t ms)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	strtcpy(r->node, node, sizeof(r->node));
	r->hierarchy = id;
	r->origin = id;
	r->faults = 1;
	r->sec = 1700002000 + ms / 1000;
	r->milli = ms % 1000;
	r->serial = (unsigned long)ms;
	r->subj.present = true;
	r->subj.pid = 42;
	strcpy(r->subj.comm, "t");
	strcpy(r->subj.exe, "/t");
}

/*
 * The hierarchy tests' correlator, of record time, its entries collected
 * in c; max_hierarchies (0: the default) and local_node ("" none) set.
 */
struct node_fix {
	struct brute_record *r;
	struct correlate_config cfg;
	struct collected c;
	struct correlate *corr;
	const struct correlate_stats *st;
};

static void node_fix_start(struct node_fix *f, unsigned max_hierarchies, const char *local_node)
{
	memset(f, 0, sizeof(*f));
	f->r = malloc(sizeof(*f->r));
	ck_assert(f->r != NULL);
	correlate_config_defaults(&f->cfg);
	if (max_hierarchies)
		f->cfg.max_hierarchies = max_hierarchies;
	f->cfg.record_time = true;
	if (*local_node)
		strcpy(f->cfg.local_node, local_node);
	f->corr = correlate_new(&f->cfg, collect_cb, &f->c);
	ck_assert(f->corr != NULL);
	f->st = correlate_get_stats(f->corr);
}

static void node_fix_end(struct node_fix *f)
{
	correlate_free(f->corr);
	collected_free(&f->c);
	free(f->r);
}

/* A kill record of hierarchy id of node at ms: process opid killed. */
static void kill_record(struct brute_record *r, const char *node, uint64_t id, uint64_t ms,
			uint32_t opid)
{
	hier_record(r, BRUTE_TYPE_KILL, node, id, ms);
	r->opid = opid;
	strcpy(r->ocomm, "t");
	strcpy(r->oexe, "/t");
}

/* How many entries of a kind are about node ("" none). */
static unsigned count_node(const struct collected *c, enum entry_kind kind, const char *node)
{
	unsigned n = 0;

	for (size_t i = 0; i < c->n; i++) {
		const char *v = entry_get(&c->e[i], "NODE");

		if (c->e[i].kind == kind && !strcmp(v ? v : "", node))
			n++;
	}
	return n;
}

/* The CLOSE_REASON of the closed entry about hierarchy h of node, NULL: none. */
static const char *closed_why(const struct collected *c, const char *h, const char *node)
{
	int i = find_node(c, ENTRY_CLOSED, h, node, 0);

	return i < 0 ? NULL : field(c, i, "CLOSE_REASON");
}

/*
 * The hierarchy table (max_hierarchies) was bounded whatever the host: a
 * flood of another host's records closed this host's open incidents
 * (reason evicted) and forgot them.  Now other hosts' hierarchies make
 * room first, this host's only for one of this host; a new hierarchy of
 * another host that only this host's could make room for is reported
 * (its entries), then evicted at once (its incident closed "evicted").
 */
#define HIERS_MAX 16

START_TEST(test_v4_node_hier_flood)
{
	struct node_fix f;
	int i1;

	node_fix_start(&f, HIERS_MAX, "here.example");

	/* a table full of this host's: open incidents without node= and of local_node, one quiet */
	for (uint64_t i = 1; i < HIERS_MAX; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, i % 2 ? "" : "here.example", i, 1000 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 1000 + i), 0);
	}
	hier_record(f.r, BRUTE_TYPE_HIERARCHY, "", HIERS_MAX, 1100);
	f.r->status = HIER_ALLOCATED;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 1100), 0);
	ck_assert_uint_eq(f.st->hierarchies, HIERS_MAX);
	ck_assert_uint_eq(f.st->incidents, HIERS_MAX - 1);

	/* another host's flood of new hierarchies (this host's ids among them), an attack */
	for (uint64_t i = 1; i <= 1000; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, "evil.example", i, 2000 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 2000 + i), 0);
		ck_assert_uint_le(f.st->hierarchies, HIERS_MAX);
	}
	hier_record(f.r, BRUTE_TYPE_ATTACK, "evil.example", 5000, 3500);
	f.r->attack = ATTACK_FORK;
	f.r->speed = SPEED_FAST;
	f.r->action = ACTION_KILL;
	f.r->mode = 2;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 3500), 0);
	/* this host's are all kept; each of the other host's was closed at once, evicted */
	ck_assert_uint_eq(f.st->hierarchies, HIERS_MAX);
	ck_assert_uint_eq(f.st->incidents, HIERS_MAX - 1);
	ck_assert_uint_eq(f.st->evictions, 1001);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 0);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, "here.example"), 0);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, "evil.example"), 1001);
	ck_assert_str_eq(closed_why(&f.c, "1", "evil.example"), "evicted");
	ck_assert_str_eq(field(&f.c, find_node(&f.c, ENTRY_CLOSED, "1", "evil.example", 0), "CRASHES"), "1");
	/* reported all the same: the attack alert, then its incident's summary */
	ck_assert_int_ge(find_node(&f.c, ENTRY_ATTACK, "5000", "evil.example", 0), 0);
	ck_assert_int_lt(find_node(&f.c, ENTRY_ATTACK, "5000", "evil.example", 0),
			 find_node(&f.c, ENTRY_CLOSED, "5000", "evil.example", 0));
	ck_assert_str_eq(closed_why(&f.c, "5000", "evil.example"), "evicted");
	ck_assert_str_eq(field(&f.c, find_node(&f.c, ENTRY_CLOSED, "5000", "evil.example", 0), "ATTACKS"), "1");
	/* this host's incident goes on: its next crash is counted in it, none opens */
	hier_record(f.r, BRUTE_TYPE_CRASH, "", 1, 4000);
	f.r->faults = 2;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 4000), 0);
	ck_assert_uint_eq(f.st->opened, HIERS_MAX - 1 + 1001);

	/* room for 8 more: the other host's are kept */
	f.cfg.max_hierarchies = HIERS_MAX + 8;
	correlate_set_config(f.corr, &f.cfg, 4100);
	for (uint64_t i = 1; i <= 8; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, "evil.example", 3000 + i, 5000 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 5000 + i), 0);
	}
	ck_assert_uint_eq(f.st->hierarchies, HIERS_MAX + 8);
	ck_assert_uint_eq(f.st->incidents, HIERS_MAX - 1 + 8);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, "evil.example"), 1001);
	/* a new one of this host: another host's incident goes before this host's quiet one */
	hier_record(f.r, BRUTE_TYPE_CRASH, "", 100, 6000);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 6000), 0);
	ck_assert_str_eq(closed_why(&f.c, "3001", "evil.example"), "evicted");
	ck_assert_uint_eq(f.st->incidents, HIERS_MAX - 1 + 8);
	/* a new one of the other host: its own oldest goes */
	hier_record(f.r, BRUTE_TYPE_CRASH, "evil.example", 3100, 6100);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 6100), 0);
	ck_assert_str_eq(closed_why(&f.c, "3002", "evil.example"), "evicted");
	ck_assert_ptr_null(closed_why(&f.c, "3100", "evil.example"));
	/* 7 more of this host: the other host's 7 left go */
	for (uint64_t i = 1; i <= 7; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, "here.example", 100 + i, 6200 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 6200 + i), 0);
	}
	ck_assert_str_eq(closed_why(&f.c, "3100", "evil.example"), "evicted");
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, "evil.example"), 1001 + 9);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 0);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, "here.example"), 0);
	ck_assert_uint_eq(f.st->incidents, HIERS_MAX - 1 + 8);
	/* full of this host's: for one of its own, the usual order (quiet first, then the oldest incident) */
	hier_record(f.r, BRUTE_TYPE_CRASH, "", 200, 6300);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 6300), 0);
	ck_assert_uint_eq(f.st->incidents, HIERS_MAX + 8);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 0);
	hier_record(f.r, BRUTE_TYPE_CRASH, "", 201, 6400);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 6400), 0);
	ck_assert_str_eq(closed_why(&f.c, "2", "here.example"), "evicted");
	ck_assert_uint_eq(f.st->hierarchies, HIERS_MAX + 8);

	correlate_close_all(f.corr, "end-of-input");
	i1 = find_node(&f.c, ENTRY_CLOSED, "1", "", 0);
	ck_assert_str_eq(field(&f.c, i1, "CLOSE_REASON"), "end-of-input");
	ck_assert_str_eq(field(&f.c, i1, "CRASHES"), "2");
	node_fix_end(&f);
}
END_TEST

/*
 * max_memory likewise: another host's new or growing hierarchy never costs
 * this host's; this host's growing one makes room from other hosts' first.
 */
START_TEST(test_v4_node_hier_memory)
{
	struct node_fix f;

	node_fix_start(&f, 0, "");
	for (uint64_t i = 1; i <= 8; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, "", i, 1000 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 1000 + i), 0);
	}
	/* the bytes of this host's 8 incidents are all there is room for */
	f.cfg.max_memory = f.st->memory;
	correlate_set_config(f.corr, &f.cfg, 1100);
	for (uint64_t i = 1; i <= 100; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, "evil.example", i, 2000 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 2000 + i), 0);
		ck_assert_uint_le(f.st->memory, f.cfg.max_memory);
	}
	ck_assert_uint_eq(f.st->incidents, 8);
	ck_assert_uint_eq(f.st->evictions, 100);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 0);
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, "evil.example"), 100);
	ck_assert_str_eq(closed_why(&f.c, "100", "evil.example"), "evicted");

	/* the other host's 4 kept in more room; then this host's incident grows (a kill) */
	f.cfg.max_memory = (size_t)1 << 30;
	correlate_set_config(f.corr, &f.cfg, 3000);
	for (uint64_t i = 1; i <= 4; i++) {
		hier_record(f.r, BRUTE_TYPE_CRASH, "evil.example", 200 + i, 3000 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 3000 + i), 0);
	}
	f.cfg.max_memory = f.st->memory;
	correlate_set_config(f.corr, &f.cfg, 3100);
	ck_assert_uint_eq(f.st->incidents, 12);
	kill_record(f.r, "", 1, 3200, 500);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 3200), 0);
	ck_assert_uint_le(f.st->memory, f.cfg.max_memory);
	/* the other host's oldest went, not this host's (1 is the one that grew, 2 the oldest) */
	ck_assert_str_eq(closed_why(&f.c, "201", "evil.example"), "evicted");
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 0);
	/* another host's growing one: its host's others go, then itself, never this host's */
	for (unsigned i = 0; i < 256 && f.st->incidents > 8; i++) {
		kill_record(f.r, "evil.example", 204, 3300 + i, 600 + i);
		ck_assert_int_eq(correlate_record(f.corr, f.r, 3300 + i), 0);
		ck_assert_uint_le(f.st->memory, f.cfg.max_memory);
	}
	ck_assert_uint_eq(f.st->incidents, 8);
	ck_assert_str_eq(closed_why(&f.c, "202", "evil.example"), "evicted");
	ck_assert_str_eq(closed_why(&f.c, "203", "evil.example"), "evicted");
	ck_assert_str_eq(closed_why(&f.c, "204", "evil.example"), "evicted");
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 0);
	correlate_close_all(f.corr, "end-of-input");
	ck_assert_uint_eq(count_node(&f.c, ENTRY_CLOSED, ""), 8);
	node_fix_end(&f);
}
END_TEST

/*
 * The ids of the last 4096 deallocated hierarchies, kept so that a late
 * record opens no ghost incident: another host's deallocations pushed
 * this host's out.  Now another host's go first.
 */
START_TEST(test_v4_node_tombstones)
{
	struct node_fix f;

	node_fix_start(&f, 0, "");
	hier_record(f.r, BRUTE_TYPE_CRASH, "", 7, 1000);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 1000), 0);
	hier_record(f.r, BRUTE_TYPE_HIERARCHY, "", 7, 1001);
	f.r->status = HIER_DEALLOCATED;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 1001), 0);
	ck_assert_str_eq(closed_why(&f.c, "7", ""), "deallocated");
	for (uint64_t i = 0; i < 5000; i++) {
		hier_record(f.r, BRUTE_TYPE_HIERARCHY, "evil.example", 10000 + i, 2000 + i);
		f.r->status = HIER_ALLOCATED;
		ck_assert_int_eq(correlate_record(f.corr, f.r, 2000 + i), 0);
		f.r->status = HIER_DEALLOCATED;
		ck_assert_int_eq(correlate_record(f.corr, f.r, 2000 + i), 0);
	}
	ck_assert_uint_eq(f.st->hierarchies, 0);
	/* a late kill of this host's hierarchy: still known as deallocated */
	hier_record(f.r, BRUTE_TYPE_KILL, "", 7, 9000);
	f.r->opid = 43;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 9000), 0);
	ck_assert_uint_eq(f.st->late, 1);
	ck_assert_uint_eq(f.st->incidents, 0);
	/* the other host's last ones too */
	hier_record(f.r, BRUTE_TYPE_KILL, "evil.example", 10000 + 4999, 9001);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 9001), 0);
	ck_assert_uint_eq(f.st->late, 2);
	ck_assert_uint_eq(f.st->incidents, 0);
	ck_assert_uint_eq(f.st->opened, 1);
	node_fix_end(&f);
}
END_TEST

/*
 * Once the kernel was seen to send v2 kill summaries, kill groups waited
 * for theirs (1 s, not kill_coalesce_ms): one flag for all hosts, though
 * another host's kernel may be older (none sent) and this host's entries
 * came late.  It is each host's kernel's now.
 */
START_TEST(test_v4_node_kill_summaries)
{
	struct node_fix f;
	static const char *const nodes[] = { "", "b.example" };
	int k;

	node_fix_start(&f, 0, "");
	ck_assert_uint_lt(f.cfg.kill_coalesce_ms, 100);
	/* host a's kernel sends summaries */
	hier_record(f.r, BRUTE_TYPE_CRASH, "a.example", 1, 1000);
	ck_assert_int_eq(correlate_record(f.corr, f.r, 1000), 0);
	hier_record(f.r, BRUTE_TYPE_KILL, "a.example", 1, 1000);
	f.r->opid = 100;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 1000), 0);
	hier_record(f.r, BRUTE_TYPE_KILL, "a.example", 1, 1001);
	f.r->kill_summary = true;
	f.r->killed = 1;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 1001), 0);
	ck_assert_int_ge(find_node(&f.c, ENTRY_KILL, "1", "a.example", 0), 0);
	/* this host's and host b's have sent none: their groups go out after kill_coalesce_ms */
	for (unsigned n = 0; n < 2; n++) {
		uint64_t t = 2000 + 1000 * n;

		hier_record(f.r, BRUTE_TYPE_CRASH, nodes[n], 1, t);
		ck_assert_int_eq(correlate_record(f.corr, f.r, t), 0);
		hier_record(f.r, BRUTE_TYPE_KILL, nodes[n], 1, t);
		f.r->opid = 200 + n;
		ck_assert_int_eq(correlate_record(f.corr, f.r, t), 0);
		correlate_tick(f.corr, t + 100);
		k = find_node(&f.c, ENTRY_KILL, "1", nodes[n], 0);
		ck_assert_msg(k >= 0, "no kill entry of node \"%s\" after kill_coalesce_ms", nodes[n]);
		ck_assert_str_eq(field(&f.c, k, "KILLED_PIDS"), n ? "201" : "200");
	}
	/* host a's next group still waits for its summary */
	hier_record(f.r, BRUTE_TYPE_KILL, "a.example", 1, 5000);
	f.r->opid = 101;
	ck_assert_int_eq(correlate_record(f.corr, f.r, 5000), 0);
	correlate_tick(f.corr, 5100);
	ck_assert_int_lt(find_node(&f.c, ENTRY_KILL, "1", "a.example", 1), 0);
	correlate_tick(f.corr, 6000);
	k = find_node(&f.c, ENTRY_KILL, "1", "a.example", 1);
	ck_assert_int_ge(k, 0);
	ck_assert_str_eq(field(&f.c, k, "KILLED_PIDS"), "101");
	node_fix_end(&f);
}
END_TEST

Suite *v4_suite(void)
{
	Suite *s = suite_create("v4");
	TCase *tc = tcase_create("v4");

	tcase_add_test(tc, test_v4_fields);
	tcase_add_test(tc, test_v4_endpoint_path);
	tcase_add_test(tc, test_v4_system_service);
	tcase_add_test(tc, test_v4_fixture);
	tcase_add_test(tc, test_v4_v3_unchanged);
	tcase_add_test(tc, test_v4_siem);
	tcase_add_test(tc, test_v4_node);
	tcase_add_test(tc, test_v4_node_tables);
	suite_add_tcase(s, tc);
	/* floods of 65536 records: a hang guard, not a time limit (ASan on a busy machine) */
	tc = tcase_create("v4 nodes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_v4_node_flood);
	tcase_add_test(tc, test_v4_node_hier_flood);
	tcase_add_test(tc, test_v4_node_hier_memory);
	tcase_add_test(tc, test_v4_node_tombstones);
	tcase_add_test(tc, test_v4_node_kill_summaries);
	suite_add_tcase(s, tc);
	return s;
}
