/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "json_check.h"
#include "config.h"
#include "siem.h"

static const struct siem_format fmt = { "host1", "brute-reportd", 77, LOG_AUTHPRIV, 0, NULL };

static void mk_entry(struct entry *e)
{
	entry_init(e, ENTRY_ATTACK, LOG_ALERT, 1700000000123456ull);
	entry_set_message(e, "attack on \"x\"");
	entry_add(e, "HIERARCHY", "4294967396");
	entry_add_u64(e, "FAULTS", 5);
	entry_add(e, "EXE", "/tmp/a\"b\\c]d");
	entry_add(e, "KILLED_TASK", "pid=1");
	entry_add(e, "KILLED_TASK", "pid=2");
}

START_TEST(test_sd_escape)
{
	struct strbuf sb = STRBUF_INIT;

	siem_escape_sd_value(&sb, "a\"b\\c]d[e=f");
	ck_assert_str_eq(sb.buf, "a\\\"b\\\\c\\]d[e=f");
	sb_reset(&sb);
	/* invalid UTF-8 is replaced, valid multibyte passes */
	siem_escape_sd_value(&sb, "\xff\xc3\xa9");
	ck_assert_str_eq(sb.buf, "\xef\xbf\xbd\xc3\xa9");
	sb_free(&sb);
}
END_TEST

START_TEST(test_rfc5424)
{
	struct entry e;
	struct strbuf sb = STRBUF_INIT;

	mk_entry(&e);
	ck_assert_int_eq(siem_format_rfc5424(&e, &fmt, &sb), 0);
	/* PRI = authpriv(10)*8 + alert(1) = 81 */
	ck_assert_str_eq(sb.buf,
		"<81>1 2023-11-14T22:13:20.123456Z host1 brute-reportd 77 ATTACK "
		"[brute@32473 kind=\"attack\" message_id=\"72daa15b2f794fafa7bedff6fcaee907\" "
		"hierarchy=\"4294967396\" faults=\"5\" exe=\"/tmp/a\\\"b\\\\c\\]d\" "
		"killed_task=\"pid=1\" killed_task=\"pid=2\"] \xef\xbb\xbf" "attack on \"x\"");
	sb_free(&sb);
	entry_free(&e);
}
END_TEST

START_TEST(test_octet_counting)
{
	struct entry e;
	struct strbuf wire = STRBUF_INIT, msg = STRBUF_INIT;
	char *end;
	unsigned long n;

	mk_entry(&e);
	ck_assert_int_eq(siem_format_wire(SIEM_TCP, &e, &fmt, &wire), 0);
	ck_assert_int_eq(siem_format_rfc5424(&e, &fmt, &msg), 0);
	n = strtoul(wire.buf, &end, 10);
	ck_assert(*end == ' ');
	ck_assert_uint_eq(n, msg.len);
	ck_assert_uint_eq(wire.len, (size_t)(end - wire.buf) + 1 + msg.len);
	ck_assert(memcmp(end + 1, msg.buf, msg.len) == 0);
	sb_reset(&wire);
	ck_assert_int_eq(siem_format_wire(SIEM_UDP, &e, &fmt, &wire), 0);
	ck_assert_str_eq(wire.buf, msg.buf);
	sb_reset(&wire);
	ck_assert_int_eq(siem_format_wire(SIEM_JSON, &e, &fmt, &wire), 0);
	ck_assert(wire.buf[wire.len - 1] == '\n');
	ck_assert(memchr(wire.buf, '\n', wire.len - 1) == NULL);
	sb_free(&wire);
	sb_free(&msg);
	entry_free(&e);
}
END_TEST

START_TEST(test_json_escape)
{
	struct strbuf sb = STRBUF_INIT;

	siem_escape_json(&sb, "q\"b\\s/n\nt\tc\x01\x1f del\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	ck_assert_str_eq(sb.buf, "q\\\"b\\\\s/n\\nt\\tc\\u0001\\u001f del\\u007f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	sb_reset(&sb);
	/* invalid: lone continuation, overlong, surrogate, truncated */
	siem_escape_json(&sb, "\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82");
	ck_assert_str_eq(sb.buf, "\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd");
	sb_reset(&sb);
	/* C1 CSI, line separator, right-to-left override: valid JSON raw, escaped anyway */
	siem_escape_json(&sb, "\xc2\x9b|\xe2\x80\xa8|\xe2\x80\xae");
	ck_assert_str_eq(sb.buf, "\\u009b|\\u2028|\\u202e");
	sb_reset(&sb);
	siem_escape_json(&sb, "\b\f\r");
	ck_assert_str_eq(sb.buf, "\\b\\f\\r");
	sb_free(&sb);
}
END_TEST

START_TEST(test_json_object)
{
	struct entry e;
	struct strbuf sb = STRBUF_INIT;

	mk_entry(&e);
	ck_assert_int_eq(siem_format_json(&e, &fmt, &sb), 0);
	ck_assert_str_eq(sb.buf,
		"{\"schema_version\":1,\"timestamp\":\"2023-11-14T22:13:20.123456Z\",\"host\":\"host1\",\"app\":\"brute-reportd\","
		"\"app_pid\":77,\"kind\":\"attack\",\"message_id\":\"72daa15b2f794fafa7bedff6fcaee907\","
		"\"priority\":1,\"severity\":\"alert\",\"message\":\"attack on \\\"x\\\"\","
		"\"hierarchy\":\"4294967396\",\"faults\":5,\"exe\":\"/tmp/a\\\"b\\\\c]d\","
		"\"killed_task\":[\"pid=1\",\"pid=2\"]}");
	sb_free(&sb);
	entry_free(&e);
}
END_TEST

/* v2: ban and unban are SIEM alerts in both formats */
START_TEST(test_v2_ban_alerts)
{
	struct collected c;
	struct strbuf sb = STRBUF_INIT;
	int b, u;

	run_fixture("v2-exec-ban.log", NULL, &c, NULL);
	b = find_entry(&c, ENTRY_BAN, 0);
	u = find_entry(&c, ENTRY_UNBAN, 0);
	ck_assert_int_eq(siem_format_rfc5424(&c.e[b], &fmt, &sb), 0);
	/* PRI = authpriv(10)*8 + crit(2) = 82 */
	const char *want = "<82>1 2023-11-14T22:30:00.450000Z host1 brute-reportd 77 BAN "
			  "[brute@32473 kind=\"ban\" message_id=\"dda54503c6434773a0b9f8d83838594a\" "
			  "attacker_uid=\"1000\" target_dev=\"0:21\" target_ino=\"1234\" "
			  "target_name=\"crasher_suid\" ban_s=\"900\"";

	ck_assert_msg(strncmp(sb.buf, want, strlen(want)) == 0, "%s", sb.buf);
	sb_reset(&sb);
	ck_assert_int_eq(siem_format_json(&c.e[u], &fmt, &sb), 0);
	ck_assert(strstr(sb.buf, "\"kind\":\"unban\",\"message_id\":\"b1ca6fec5b6b4d109290214d7eca0c2b\"") != NULL);
	ck_assert(strstr(sb.buf, "\"attacker_uid\":1000,\"target_dev\":\"0:21\",\"target_ino\":1234,"
			 "\"target_name\":\"crasher_suid\",\"reason\":\"lifted\",\"denied_count\":3") != NULL);
	sb_free(&sb);
	collected_free(&c);
}
END_TEST

/* A syslog datagram or JSON line holds no control byte, whatever the names hold */
START_TEST(test_hostile_names_wire)
{
	struct collected c;
	struct strbuf sb = STRBUF_INIT;

	run_fixture("hostile-names.log", NULL, &c, NULL);
	ck_assert_uint_eq(c.n, 3);
	for (size_t i = 0; i < c.n; i++) {
		for (int proto = SIEM_UDP; proto <= SIEM_JSON; proto++) {
			sb_reset(&sb);
			ck_assert_int_eq(siem_format_wire(proto, &c.e[i], &fmt, &sb), 0);
			if (proto == SIEM_JSON)
				sb.buf[--sb.len] = '\0';	/* the framing newline */
			for (size_t j = 0; j < sb.len; j++) {
				unsigned char b = (unsigned char)sb.buf[j];

				ck_assert_msg(b >= 0x20 && b != 0x7f &&
					      !(b == 0xc2 && (unsigned char)sb.buf[j + 1] < 0xa0 &&
						(unsigned char)sb.buf[j + 1] >= 0x80),
					      "%s: byte 0x%02x at %zu: %s", siem_protocol_name(proto), b, j, sb.buf);
			}
		}
	}
	sb_free(&sb);
	collected_free(&c);
}
END_TEST

/* Top-level keys of one JSON object, checked unique (a strict parser rejects duplicates). */
static void assert_unique_keys(const char *json)
{
	char keys[128][48];
	size_t n = 0;
	int depth = 0;
	bool key_next = false;

	for (const char *p = json; *p; p++) {
		if (*p == '"') {
			const char *start = ++p;

			while (*p && *p != '"')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			ck_assert(*p == '"');
			if (depth == 1 && key_next) {
				size_t len = (size_t)(p - start);

				ck_assert(len < sizeof(keys[0]) && n < 128);
				memcpy(keys[n], start, len);
				keys[n][len] = '\0';
				for (size_t i = 0; i < n; i++)
					ck_assert_msg(strcmp(keys[i], keys[n]) != 0, "key \"%s\" twice: %s",
						      keys[n], json);
				n++;
				key_next = false;
			}
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		if ((*p == '{' || *p == ',') && depth == 1)
			key_next = true;
	}
	ck_assert_int_eq(depth, 0);
	ck_assert_uint_gt(n, 8);
}

/* issue 11 #6: the daemon's pid and the subject's pid were both "pid" */
START_TEST(test_json_unique_keys)
{
	static const char *const fixtures[] = {
		"fork_attack.log", "exec_attack.log", "captured-interleaved.log",
		"v2-exec-ban.log", "v2-kill-summary.log", "hostile-names.log",
		"captured-v3.log", "v3-peers.log",
	};
	struct strbuf sb = STRBUF_INIT;

	for (size_t f = 0; f < ARRAY_SIZE(fixtures); f++) {
		struct collected c;

		run_fixture(fixtures[f], NULL, &c, NULL);
		for (size_t i = 0; i < c.n; i++) {
			sb_reset(&sb);
			ck_assert_int_eq(siem_format_json(&c.e[i], &fmt, &sb), 0);
			assert_unique_keys(sb.buf);
		}
		collected_free(&c);
	}
	sb_free(&sb);
}
END_TEST

/* issue 11 #2: every message fits max_message, summarized, still well-formed */
START_TEST(test_capped)
{
	struct siem_format capped = fmt;
	struct strbuf sb = STRBUF_INIT;
	struct entry e;
	char path[3000];

	memset(path, 'q', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	entry_init(&e, ENTRY_KILL, LOG_CRIT, 1700000000123456ull);
	entry_set_message(&e, "Killed 40 tasks (%s)", path);
	entry_add_u64(&e, "KILLED_COUNT", 40);
	for (int i = 0; i < 40; i++)
		entry_addf(&e, "KILLED_TASK", "pid=%d exe=\"%s\"", i, path);
	/* a multibyte character right at a cut point stays whole */
	entry_addf(&e, "EXE", "%.1023s\xc3\xa9tail", path);
	for (size_t max = 2048; max <= 16384; max *= 2) {
		capped.max_message = max;
		for (int proto = SIEM_UDP; proto <= SIEM_JSON; proto++) {
			const char *msg;
			size_t len;

			sb_reset(&sb);
			ck_assert_int_eq(siem_format_wire(proto, &e, &capped, &sb), 0);
			msg = proto == SIEM_TCP ? strchr(sb.buf, ' ') + 1 : sb.buf;
			len = sb.len - (size_t)(msg - sb.buf) - (proto == SIEM_JSON);
			ck_assert_msg(len <= max, "%s: %zu > %zu", siem_protocol_name(proto), len, max);
			if (proto == SIEM_TCP)
				ck_assert_uint_eq(strtoul(sb.buf, NULL, 10), len);
			if (proto == SIEM_JSON) {
				sb.buf[--sb.len] = '\0';
				assert_unique_keys(sb.buf);
				ck_assert(strstr(sb.buf, "\"killed_count\":40") != NULL);
				ck_assert(strstr(sb.buf, "\"truncated\":1") != NULL);
				ck_assert(strstr(sb.buf, "\"killed_task_omitted\":") != NULL);
			} else {
				ck_assert(strstr(sb.buf, "killed_count=\"40\"") != NULL);
				ck_assert(strstr(sb.buf, "truncated=\"1\"") != NULL);
			}
			for (const unsigned char *p = (const unsigned char *)sb.buf; *p; p++)
				ck_assert(*p != 0xc3 || p[1] == 0xa9);	/* no half character */
		}
	}
	/* an entry that fits is not touched */
	capped.max_message = 8192;
	sb_reset(&sb);
	entry_free(&e);
	mk_entry(&e);
	ck_assert_int_eq(siem_format_wire(SIEM_UDP, &e, &capped, &sb), 0);
	ck_assert(strstr(sb.buf, "truncated") == NULL);
	sb_free(&sb);
	entry_free(&e);
}
END_TEST

static const struct siem_options ecs_opts = { "brute@32473", SIEM_JSON_ECS,
	"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210" };
static const struct siem_format ecs = { "host1", "brute-reportd", 77, LOG_AUTHPRIV, 0, &ecs_opts };

static void has(const char *json, const char *part)
{
	ck_assert_msg(strstr(json, part) != NULL, "no %s in %s", part, json);
}

/* issue 12: the Elastic Common Schema mapping (json_format = ecs) */
START_TEST(test_ecs)
{
	static const char *const fixtures[] = {
		"fork_attack.log", "exec_attack.log", "captured-interleaved.log", "captured-exec.log",
		"v2-exec-ban.log", "v2-kill-summary.log", "hostile-names.log", "captured-v2-ban.log",
		"captured-v3.log", "v3-peers.log",
	};
	struct strbuf sb = STRBUF_INIT;
	struct collected c;
	int i;

	run_fixture("fork_attack.log", NULL, &c, NULL);
	i = find_entry(&c, ENTRY_ATTACK, 0);
	ck_assert_int_eq(siem_format_json(&c.e[i], &ecs, &sb), 0);
	ck_assert_ptr_null(json_check(sb.buf, sb.len));
	ck_assert(!strncmp(sb.buf, "{\"@timestamp\":\"2023-11-14T22:13:21.420000Z\",\"ecs\":{\"version\":\"8.11.0\"}", 68));
	has(sb.buf, "\"event\":{\"kind\":\"alert\",\"category\":[\"intrusion_detection\"],\"type\":[\"info\"],"
		    "\"action\":\"brute-force-attack-detected\",\"code\":\"72daa15b2f794fafa7bedff6fcaee907\",\"severity\":1,");
	has(sb.buf, "\"host\":{\"hostname\":\"host1\",\"name\":\"host1\",\"id\":\"0123456789abcdef0123456789abcdef\","
		    "\"boot\":{\"id\":\"fedcba9876543210fedcba9876543210\"}}");
	has(sb.buf, "\"process\":{\"pid\":1304,\"parent\":{\"pid\":1234},\"executable\":\"/usr/local/bin/crashy\",\"name\":\"crashy\",\"user\":{\"id\":\"1000\"}}");
	has(sb.buf, "\"user\":{\"id\":\"1000\",\"effective\":{\"id\":\"0\"}}");
	has(sb.buf, "\"log\":{\"level\":\"alert\",\"syslog\":{\"facility\":{\"code\":10}");
	has(sb.buf, "\"brute\":{\"schema_version\":1,\"kind\":\"attack\",");
	has(sb.buf, "\"hierarchy\":\"4294967396\"");	/* 64-bit IDs stay strings */
	has(sb.buf, "\"boundaries\":[\"setid\"]");		/* lists are arrays */
	sb_reset(&sb);
	i = find_entry(&c, ENTRY_KILL, 0);
	ck_assert_int_eq(siem_format_json(&c.e[i], &ecs, &sb), 0);
	ck_assert_ptr_null(json_check(sb.buf, sb.len));
	has(sb.buf, "\"killed_pids\":[1234,1305,1306]");
	has(sb.buf, "\"killed_task\":[\"pid=1234 ");
	has(sb.buf, "\"category\":[\"intrusion_detection\",\"process\"],\"type\":[\"info\",\"end\"]");
	sb_reset(&sb);
	i = find_entry(&c, ENTRY_CLOSED, 0);
	ck_assert_int_eq(siem_format_json(&c.e[i], &ecs, &sb), 0);
	has(sb.buf, "\"periods_ms\":[120,110,100,90]");
	collected_free(&c);

	/* every entry of every fixture: strict JSON, unique keys at every depth, no raw 4294967295 */
	for (size_t f = 0; f < ARRAY_SIZE(fixtures); f++) {
		run_fixture(fixtures[f], NULL, &c, NULL);
		for (size_t k = 0; k < c.n; k++) {
			const char *err;

			sb_reset(&sb);
			ck_assert_int_eq(siem_format_json(&c.e[k], &ecs, &sb), 0);
			err = json_check(sb.buf, sb.len);
			ck_assert_msg(err == NULL, "%s entry %zu: %s: %s", fixtures[f], k, err, sb.buf);
			ck_assert_msg(strstr(sb.buf, "4294967295") == NULL, "%s", sb.buf);
			sb_reset(&sb);
			ck_assert_int_eq(siem_format_json(&c.e[k], &fmt, &sb), 0);
			err = json_check(sb.buf, sb.len);
			ck_assert_msg(err == NULL, "native %s entry %zu: %s: %s", fixtures[f], k, err, sb.buf);
		}
		collected_free(&c);
	}
	/* native JSON and RFC 5424 carry the boot ID too, when known */
	{
		struct siem_options nat = ecs_opts;
		struct siem_format nf = fmt;
		struct entry e;

		nat.json_format = SIEM_JSON_NATIVE;
		nf.opts = &nat;
		mk_entry(&e);
		sb_reset(&sb);
		ck_assert_int_eq(siem_format_json(&e, &nf, &sb), 0);
		has(sb.buf, ",\"message\":\"attack on \\\"x\\\"\",\"boot_id\":\"fedcba9876543210fedcba9876543210\",\"hierarchy\":");
		ck_assert_ptr_null(json_check(sb.buf, sb.len));
		sb_reset(&sb);
		ck_assert_int_eq(siem_format_rfc5424(&e, &nf, &sb), 0);
		has(sb.buf, " boot_id=\"fedcba9876543210fedcba9876543210\"] \xef\xbb\xbf");
		entry_free(&e);
	}
	/* the validator itself catches a nested duplicate */
	ck_assert_ptr_nonnull(json_check("{\"a\":{\"b\":1,\"b\":2}}", 19));
	ck_assert_ptr_null(json_check("{\"a\":{\"b\":1,\"c\":[null,2]}}", 26));
	sb_free(&sb);
}
END_TEST

/* The JSON object of one entry in the ECS mapping, checked strict. */
static void ecs_of(const struct entry *e, struct strbuf *sb)
{
	const char *err;

	sb_reset(sb);
	ck_assert_int_eq(siem_format_json(e, &ecs, sb), 0);
	err = json_check(sb->buf, sb->len);
	ck_assert_msg(err == NULL, "%s: %s", err, sb->buf);
}

/*
 * v3: peer bans and their ends are alerts carrying the peer, for a SIEM or a
 * firewall to act on: RFC 5424 structured data, native JSON, and ECS's
 * source.* (the peer), destination.* (the endpoint) and network.*.
 */
START_TEST(test_v3_peer_alerts)
{
	struct collected c;
	struct strbuf sb = STRBUF_INIT;
	int b, u;

	run_fixture("captured-v3.log", NULL, &c, NULL);
	b = find_entry(&c, ENTRY_PEER_BAN, 0);
	u = find_entry(&c, ENTRY_PEER_UNBAN, 0);
	/* PRI = authpriv(10)*8 + crit(2) = 82 */
	ck_assert_int_eq(siem_format_rfc5424(&c.e[b], &fmt, &sb), 0);
	has(sb.buf, "<82>1 2026-12-04T17:36:46.211000Z host1 brute-reportd 77 PEER_BAN "
		    "[brute@32473 kind=\"peer_ban\" message_id=\"79ecec051cb34c3a91486f64fd349085\" "
		    "peer=\"10.196.0.2/32\" netns=\"4026532091\" transport=\"tcp\" laddr=\"10.196.0.1\" "
		    "lport=\"7777\" faults=\"5\" ban_s=\"900\" ban_until=\"2026-12-04T17:51:46.211000Z\" "
		    "hierarchy=\"655104365610\" ");
	has(sb.buf, "] \xef\xbb\xbfPeer 10.196.0.2/32 banned from tcp 10.196.0.1:7777 in netns 4026532091 for 900 s");
	ck_assert(!strncmp(sb.buf, "<82>1 ", 6));
	sb_reset(&sb);
	/* PRI = authpriv(10)*8 + notice(5) = 85 */
	ck_assert_int_eq(siem_format_rfc5424(&c.e[u], &fmt, &sb), 0);
	ck_assert(!strncmp(sb.buf, "<85>1 2026-12-04T17:36:47.235000Z host1 brute-reportd 77 PEER_UNBAN [brute@32473 kind=\"peer_unban\" message_id=\"73f71a481cdb4da99e1d4e883ea387f8\" peer=\"10.196.0.2/32\"", 155));
	has(sb.buf, " reason=\"lifted\" refused=\"9\" ");

	/* native JSON: flat, numbers as numbers, strict */
	sb_reset(&sb);
	ck_assert_int_eq(siem_format_json(&c.e[b], &fmt, &sb), 0);
	ck_assert_ptr_null(json_check(sb.buf, sb.len));
	has(sb.buf, "\"kind\":\"peer_ban\",\"message_id\":\"79ecec051cb34c3a91486f64fd349085\",\"priority\":2,");
	has(sb.buf, "\"peer\":\"10.196.0.2/32\",\"netns\":4026532091,\"transport\":\"tcp\",\"laddr\":\"10.196.0.1\",\"lport\":7777,\"faults\":5,\"ban_s\":900,");

	/* ECS: the peer as source, the listener as destination */
	ecs_of(&c.e[b], &sb);
	has(sb.buf, "\"event\":{\"kind\":\"event\",\"category\":[\"intrusion_detection\",\"network\"],\"type\":[\"denied\"],\"action\":\"peer-banned\",\"code\":\"79ecec051cb34c3a91486f64fd349085\",\"severity\":2,");
	has(sb.buf, ",\"source\":{\"address\":\"10.196.0.2/32\",\"ip\":\"10.196.0.2\"}");
	has(sb.buf, ",\"destination\":{\"address\":\"10.196.0.1\",\"ip\":\"10.196.0.1\",\"port\":7777}");
	has(sb.buf, ",\"network\":{\"transport\":\"tcp\",\"type\":\"ipv4\"}");
	has(sb.buf, "\"process\":{\"pid\":185,\"parent\":{\"pid\":174},\"executable\":\"/selftests/service\"");
	has(sb.buf, "\"brute\":{\"schema_version\":1,\"kind\":\"peer_ban\",");
	has(sb.buf, "\"peer\":\"10.196.0.2/32\",\"netns\":4026532091,");
	ecs_of(&c.e[u], &sb);
	has(sb.buf, "\"type\":[\"allowed\"],\"action\":\"peer-ban-ended\"");
	has(sb.buf, ",\"source\":{\"address\":\"10.196.0.2/32\",\"ip\":\"10.196.0.2\"}");
	has(sb.buf, "\"refused\":9,");
	/* a prefix is an address range: source.address only, never a source.ip it is not */
	ecs_of(&c.e[find_entry(&c, ENTRY_PEER_BAN, 1)], &sb);
	has(sb.buf, ",\"source\":{\"address\":\"10.196.0.0/24\"},");
	/* a Unix peer is a user, no address, not network traffic */
	ecs_of(&c.e[find_entry(&c, ENTRY_PEER_BAN, 2)], &sb);
	has(sb.buf, ",\"source\":{\"user\":{\"id\":\"4243\"}}");
	has(sb.buf, "\"category\":[\"intrusion_detection\"],\"type\":[\"denied\"]");
	ck_assert(strstr(sb.buf, "\"destination\"") == NULL && strstr(sb.buf, "\"network\"") == NULL);
	has(sb.buf, "\"lino\":1150");
	/* the peer attack entry carries the peer the same way */
	ecs_of(&c.e[find_entry(&c, ENTRY_ATTACK, 0)], &sb);
	has(sb.buf, "\"action\":\"brute-force-attack-detected\"");
	has(sb.buf, ",\"source\":{\"address\":\"10.196.0.2/32\",\"ip\":\"10.196.0.2\"}");
	collected_free(&c);

	/* IPv6: a /64 (the default unit) at a listener on :: */
	run_fixture("v3-peers.log", NULL, &c, NULL);
	ecs_of(&c.e[find_entry(&c, ENTRY_PEER_BAN, 0)], &sb);
	has(sb.buf, ",\"source\":{\"address\":\"2001:db8:1:2::/64\"},\"destination\":{\"address\":\"::\",\"ip\":\"::\",\"port\":443},\"network\":{\"transport\":\"tcp\",\"type\":\"ipv6\"}");
	ecs_of(&c.e[find_entry(&c, ENTRY_CLOSED, 0)], &sb);
	has(sb.buf, "\"records_dropped\":6");
	collected_free(&c);
	sb_free(&sb);
}
END_TEST

/* v3: peer_ban and peer_unban are SIEM kinds, forwarded by default like ban and unban */
START_TEST(test_v3_siem_kinds)
{
	struct brute_config cfg;

	config_defaults(&cfg);
	ck_assert(cfg.siem_kinds & (1u << ENTRY_PEER_BAN));
	ck_assert(cfg.siem_kinds & (1u << ENTRY_PEER_UNBAN));
	ck_assert(!(cfg.siem_kinds & (1u << ENTRY_BOUNDARY)));
	ck_assert_int_eq(config_parse_string("test.conf", "siem_kinds = peer_ban, peer_unban\n", &cfg), 0);
	ck_assert_uint_eq(cfg.siem_kinds, (1u << ENTRY_PEER_BAN) | (1u << ENTRY_PEER_UNBAN));
	ck_assert_int_eq(entry_kind_from_name("peer_ban"), ENTRY_PEER_BAN);
	ck_assert_str_eq(entry_kind_msgid(ENTRY_PEER_UNBAN), "PEER_UNBAN");
	ck_assert_int_lt(config_parse_string("test.conf", "siem_kinds = peer\n", &cfg), 0);
}
END_TEST

/* The SD-ID: brute@32473 (RFC 5612's documentation PEN) unless configured */
START_TEST(test_sd_id)
{
	struct siem_options o;
	struct siem_format f = fmt;
	struct strbuf sb = STRBUF_INIT;
	struct entry e;

	siem_options_defaults(&o);
	ck_assert_str_eq(o.sd_id, "brute@32473");
	ck_assert_ptr_null(siem_set_enterprise_id(&o, "53864.1.7"));
	ck_assert_str_eq(o.sd_id, "brute@53864.1.7");
	ck_assert_ptr_nonnull(siem_set_enterprise_id(&o, "x1"));
	ck_assert_ptr_nonnull(siem_set_enterprise_id(&o, "1..2"));
	ck_assert_ptr_nonnull(siem_set_enterprise_id(&o, "1."));
	ck_assert_ptr_nonnull(siem_set_enterprise_id(&o, ".1"));
	ck_assert_ptr_nonnull(siem_set_enterprise_id(&o, "123456789012345678901234567"));
	ck_assert_ptr_null(siem_set_enterprise_id(&o, "12345678901234567890123456"));
	ck_assert_ptr_null(siem_set_enterprise_id(&o, "53864.1.7"));
	ck_assert_str_eq(o.sd_id, "brute@53864.1.7");	/* a refused value changes nothing */
	f.opts = &o;
	mk_entry(&e);
	ck_assert_int_eq(siem_format_rfc5424(&e, &f, &sb), 0);
	has(sb.buf, " ATTACK [brute@53864.1.7 kind=\"attack\" ");
	sb_reset(&sb);
	ck_assert_int_eq(siem_format_rfc5424(&e, &fmt, &sb), 0);
	has(sb.buf, " ATTACK [brute@32473 kind=\"attack\" ");
	entry_free(&e);
	sb_free(&sb);
}
END_TEST

Suite *siem_suite(void)
{
	Suite *s = suite_create("siem");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sd_escape);
	tcase_add_test(tc, test_rfc5424);
	tcase_add_test(tc, test_octet_counting);
	tcase_add_test(tc, test_json_escape);
	tcase_add_test(tc, test_json_object);
	tcase_add_test(tc, test_v2_ban_alerts);
	tcase_add_test(tc, test_hostile_names_wire);
	tcase_add_test(tc, test_json_unique_keys);
	tcase_add_test(tc, test_capped);
	tcase_add_test(tc, test_ecs);
	tcase_add_test(tc, test_sd_id);
	tcase_add_test(tc, test_v3_peer_alerts);
	tcase_add_test(tc, test_v3_siem_kinds);
	suite_add_tcase(s, tc);
	return s;
}
