/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>
#include <unistd.h>

#include "tests.h"
#include "journal.h"

START_TEST(test_attack_fields)
{
	struct collected c;
	struct journal_fields jf;
	int a;

	run_fixture("fork_attack.log", NULL, &c, NULL);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	ck_assert_int_eq(journal_fields_build(&c.e[a], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE_ID"), "72daa15b2f794fafa7bedff6fcaee907");
	ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "1");	/* LOG_ALERT */
	ck_assert_str_eq(journal_fields_get(&jf, "SYSLOG_IDENTIFIER"), "brute-reportd");
	ck_assert(strstr(journal_fields_get(&jf, "MESSAGE"), "Fork brute force attack detected") != NULL);
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_KIND"), "attack");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_HIERARCHY"), "4294967396");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_ATTACK_TYPE"), "fork");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_SPEED"), "fast");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_FAULTS"), "5");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_EMA_MS"), "111");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_UID"), "1000");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_AUID"), "1000");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_EXE"), "/usr/local/bin/crashy");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_COMM"), "crashy");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_BOUNDARIES"), "setid");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_ACTION"), "kill");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_TIMESTAMP"), "1700000001420000");
	/* iovecs match the strings, no trailing NUL or newline */
	for (size_t i = 0; i < jf.n; i++) {
		ck_assert_uint_eq(jf.iov[i].iov_len, strlen(jf.strings[i]));
		ck_assert(memchr(jf.strings[i], '=', jf.iov[i].iov_len) != NULL);
	}
	journal_fields_free(&jf);
	collected_free(&c);
}
END_TEST

START_TEST(test_kinds_have_distinct_ids)
{
	struct collected c;
	struct journal_fields jf;
	const char *ids[4] = { 0 };

	/* every kind, including v2's ban and unban, has its own MESSAGE_ID */
	for (int i = 0; i < _ENTRY_KIND_MAX; i++) {
		ck_assert_uint_eq(strlen(entry_kind_message_id(i)), 32);
		for (int j = i + 1; j < _ENTRY_KIND_MAX; j++)
			ck_assert_str_ne(entry_kind_message_id(i), entry_kind_message_id(j));
	}

	run_fixture("fork_attack.log", NULL, &c, NULL);
	ck_assert_uint_eq(c.n, 4);
	for (size_t i = 0; i < c.n; i++) {
		ck_assert_int_eq(journal_fields_build(&c.e[i], &jf), 0);
		ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE_ID"), entry_kind_message_id(c.e[i].kind));
		ck_assert_uint_eq(strlen(journal_fields_get(&jf, "MESSAGE_ID")), 32);
		ids[i] = entry_kind_message_id(c.e[i].kind);
		if (c.e[i].kind == ENTRY_KILL) {
			ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_KILLED_PIDS"), "1234,1305,1306");
			ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "2");
		}
		if (c.e[i].kind == ENTRY_BOUNDARY)
			ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "6");
		journal_fields_free(&jf);
	}
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			ck_assert_str_ne(ids[i], ids[j]);
	collected_free(&c);
}
END_TEST

/* v2: a ban and its end are journal entries of their own, with fixed MESSAGE_IDs */
START_TEST(test_v2_ban_fields)
{
	struct collected c;
	struct journal_fields jf;
	int b, u;

	run_fixture("v2-exec-ban.log", NULL, &c, NULL);
	b = find_entry(&c, ENTRY_BAN, 0);
	u = find_entry(&c, ENTRY_UNBAN, 0);
	ck_assert(b >= 0 && u >= 0);
	ck_assert_int_eq(journal_fields_build(&c.e[b], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE_ID"), "dda54503c6434773a0b9f8d83838594a");
	ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "2");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_KIND"), "ban");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_ATTACKER_UID"), "1000");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_TARGET_DEV"), "0:21");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_TARGET_INO"), "1234");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_TARGET_NAME"), "crasher_suid");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_BAN_S"), "900");
	ck_assert(strstr(journal_fields_get(&jf, "MESSAGE"), "Banned uid 1000 from executing crasher_suid") != NULL);
	journal_fields_free(&jf);
	ck_assert_int_eq(journal_fields_build(&c.e[u], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE_ID"), "b1ca6fec5b6b4d109290214d7eca0c2b");
	ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "5");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_KIND"), "unban");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_REASON"), "lifted");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_DENIED_COUNT"), "3");
	journal_fields_free(&jf);
	collected_free(&c);
}
END_TEST

/* MESSAGE is text: attacker-chosen names are escaped there; BRUTE_* keep the exact bytes */
START_TEST(test_message_escaped)
{
	struct collected c;
	struct journal_fields jf;
	const char *m;

	run_fixture("hostile-names.log", NULL, &c, NULL);
	ck_assert_uint_eq(c.n, 3);
	for (size_t i = 0; i < c.n; i++) {
		ck_assert_int_eq(journal_fields_build(&c.e[i], &jf), 0);
		m = journal_fields_get(&jf, "MESSAGE");
		for (const unsigned char *p = (const unsigned char *)m; *p; p++)
			ck_assert_msg(*p >= 0x20 && *p != 0x7f && !(p[0] == 0xc2 && p[1] < 0xa0),
				      "MESSAGE byte 0x%02x: %s", *p, m);
		if (c.e[i].kind == ENTRY_ATTACK) {
			ck_assert(strstr(m, "(ev\\012il\\033[2J, /tmp/x\\0122023-11-14T22:13:20.000000Z") != NULL);
			ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_COMM"), "ev\nil\x1b[2J");
		}
		journal_fields_free(&jf);
	}
	collected_free(&c);
}
END_TEST

START_TEST(test_live_send)
{
	struct collected c;

	if (access("/run/systemd/journal/socket", W_OK) != 0) {
		test_skip("journal: live sd_journal_send (no journald socket at /run/systemd/journal/socket)");
		return;
	}
	run_fixture("fork_attack.log", NULL, &c, NULL);
	ck_assert_int_eq(journal_send(&c.e[find_entry(&c, ENTRY_CLOSED, 0)], LOG_AUTHPRIV), 0);
	collected_free(&c);
}
END_TEST

/* issue 12: the journal conventions operators expect (coredump's OBJECT_*, facility, no CODE_*) */
START_TEST(test_conventions)
{
	struct collected c;
	struct journal_fields jf;
	int a, k;

	run_fixture("fork_attack.log", NULL, &c, NULL);
	a = find_entry(&c, ENTRY_ATTACK, 0);
	k = find_entry(&c, ENTRY_KILL, 0);
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(k, 0);
	/* replayed: no unit looked up, so none claimed */
	ck_assert_int_eq(journal_fields_build(&c.e[a], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "SYSLOG_FACILITY"), "10");	/* authpriv */
	ck_assert_str_eq(journal_fields_get(&jf, "OBJECT_PID"), entry_get(&c.e[a], "PID"));
	ck_assert_ptr_null(journal_fields_get(&jf, "OBJECT_SYSTEMD_UNIT"));
	for (size_t i = 0; i < jf.n; i++)
		ck_assert_msg(strncmp(jf.strings[i], "CODE_", 5) != 0, "%s", jf.strings[i]);
	journal_fields_free(&jf);

	/* the facility is the configured one; a kill entry's object is its first killed task */
	entry_add(&c.e[k], "UNIT", "nginx.service");
	ck_assert_int_eq(journal_fields_build_facility(&c.e[k], LOG_LOCAL3, &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "SYSLOG_FACILITY"), "19");
	ck_assert_str_eq(journal_fields_get(&jf, "OBJECT_PID"), "1234");
	ck_assert_str_eq(journal_fields_get(&jf, "OBJECT_SYSTEMD_UNIT"), "nginx.service");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_UNIT"), "nginx.service");
	journal_fields_free(&jf);
	collected_free(&c);
}
END_TEST

/* auid/ses 4294967295 (never logged in: a daemon started at boot) read "unset" */
START_TEST(test_unset_audit_ids)
{
	struct collected c;
	struct journal_fields jf;
	bool seen = false;

	run_fixture("captured-exec.log", NULL, &c, NULL);
	for (size_t i = 0; i < c.n; i++) {
		ck_assert_int_eq(journal_fields_build(&c.e[i], &jf), 0);
		for (size_t j = 0; j < jf.n; j++)
			ck_assert_msg(strstr(jf.strings[j], "4294967295") == NULL, "%s", jf.strings[j]);
		if (journal_fields_get(&jf, "BRUTE_SES")) {
			ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_SES"), "unset");
			ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_AUID"), "unset");
			seen = true;
		}
		journal_fields_free(&jf);
	}
	ck_assert(seen);
	collected_free(&c);
}
END_TEST

/* v3: a peer ban and its end are journal entries of their own, with the peer and the endpoint */
START_TEST(test_v3_peer_ban_fields)
{
	struct collected c;
	struct journal_fields jf;
	int b, u;

	run_fixture("captured-v3.log", NULL, &c, NULL);
	b = find_entry(&c, ENTRY_PEER_BAN, 0);
	u = find_entry(&c, ENTRY_PEER_UNBAN, 0);
	ck_assert(b >= 0 && u >= 0);
	ck_assert_int_eq(journal_fields_build(&c.e[b], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE_ID"), "79ecec051cb34c3a91486f64fd349085");
	ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "2");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_KIND"), "peer_ban");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_PEER"), "10.196.0.2/32");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_NETNS"), "4026532091");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_TRANSPORT"), "tcp");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_LADDR"), "10.196.0.1");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_LPORT"), "7777");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_FAULTS"), "5");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_BAN_S"), "900");
	ck_assert_ptr_null(journal_fields_get(&jf, "BRUTE_PEER_UID"));
	/* the object is the attacked service's crashing task */
	ck_assert_str_eq(journal_fields_get(&jf, "OBJECT_PID"), "185");
	ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE"),
			 "Peer 10.196.0.2/32 banned from tcp 10.196.0.1:7777 in netns 4026532091 for 900 s after 5 crashes of service (/selftests/service)");
	journal_fields_free(&jf);

	ck_assert_int_eq(journal_fields_build(&c.e[u], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "MESSAGE_ID"), "73f71a481cdb4da99e1d4e883ea387f8");
	ck_assert_str_eq(journal_fields_get(&jf, "PRIORITY"), "5");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_KIND"), "peer_unban");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_PEER"), "10.196.0.2/32");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_REFUSED"), "9");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_REASON"), "lifted");
	/* the process that lifted it is not the object */
	ck_assert_ptr_null(journal_fields_get(&jf, "OBJECT_PID"));
	journal_fields_free(&jf);

	/* a Unix peer: its user and the listening socket's inode */
	b = find_entry(&c, ENTRY_PEER_BAN, 2);
	ck_assert_int_eq(journal_fields_build(&c.e[b], &jf), 0);
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_PEER"), "uid:4243");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_PEER_UID"), "4243");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_TRANSPORT"), "unix");
	ck_assert_str_eq(journal_fields_get(&jf, "BRUTE_LINO"), "1150");
	ck_assert_ptr_null(journal_fields_get(&jf, "BRUTE_LADDR"));
	journal_fields_free(&jf);
	collected_free(&c);
}
END_TEST

Suite *journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_attack_fields);
	tcase_add_test(tc, test_kinds_have_distinct_ids);
	tcase_add_test(tc, test_v2_ban_fields);
	tcase_add_test(tc, test_message_escaped);
	tcase_add_test(tc, test_live_send);
	tcase_add_test(tc, test_conventions);
	tcase_add_test(tc, test_unset_audit_ids);
	tcase_add_test(tc, test_v3_peer_ban_fields);
	suite_add_tcase(s, tc);
	return s;
}
