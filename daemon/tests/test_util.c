/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tests.h"
#include "util.h"
#include "record.h"
#include "entry.h"

START_TEST(test_strbuf)
{
	struct strbuf sb = STRBUF_INIT;

	ck_assert_str_eq(sb_str(&sb), "");
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(sb_printf(&sb, "%d,", i), 0);
	ck_assert_uint_eq(strlen(sb.buf), sb.len);
	ck_assert(strncmp(sb.buf, "0,1,2,", 6) == 0);
	sb_consume(&sb, 2);
	ck_assert(strncmp(sb.buf, "1,2,", 4) == 0);
	sb_consume(&sb, sb.len + 5);
	ck_assert_uint_eq(sb.len, 0);
	sb_free(&sb);
}
END_TEST

START_TEST(test_parse_u64)
{
	uint64_t v;
	uint32_t w;

	ck_assert_int_eq(parse_u64("18446744073709551615", &v), 0);
	ck_assert(v == UINT64_MAX);
	ck_assert_int_lt(parse_u64("18446744073709551616", &v), 0);
	ck_assert_int_lt(parse_u64("-1", &v), 0);
	ck_assert_int_lt(parse_u64("12a", &v), 0);
	ck_assert_int_lt(parse_u64("", &v), 0);
	ck_assert_int_lt(parse_u64(" 1", &v), 0);
	ck_assert_int_lt(parse_u32("4294967296", &w), 0);
	ck_assert_int_eq(parse_u32("4294967295", &w), 0);
}
END_TEST

START_TEST(test_untrusted)
{
	char buf[64];
	struct strbuf sb = STRBUF_INIT;

	ck_assert_int_eq(audit_untrusted_decode("\"/usr/bin/x\"", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/usr/bin/x");
	ck_assert_int_eq(audit_untrusted_decode("2F746D702F6120622022", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/tmp/a b \"");
	ck_assert_int_eq(audit_untrusted_decode("(null)", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_lt(audit_untrusted_decode("2F7", buf, sizeof(buf)), 0);
	ck_assert_int_lt(audit_untrusted_decode("ZZ", buf, sizeof(buf)), 0);
	ck_assert_int_lt(audit_untrusted_decode("00", buf, sizeof(buf)), 0);
	ck_assert_int_lt(audit_untrusted_decode("414141", buf, 3), 0);

	audit_untrusted_encode(&sb, "plain");
	ck_assert_str_eq(sb.buf, "\"plain\"");
	sb_reset(&sb);
	audit_untrusted_encode(&sb, "a b");
	ck_assert_str_eq(sb.buf, "612062");
	sb_free(&sb);
}
END_TEST

START_TEST(test_text_escape)
{
	struct strbuf sb = STRBUF_INIT;

	sb_put_text(&sb, "a\nb\x1b[2J\\x\x7f\tz \xc3\xa9\xe2\x82\xac");
	ck_assert_str_eq(sb.buf, "a\\012b\\033[2J\\\\x\\177\\011z \xc3\xa9\xe2\x82\xac");
	sb_reset(&sb);
	/* C1 (CSI), invalid bytes, U+2028, U+202E (RLO), U+2066: every byte as octal */
	sb_put_text(&sb, "\xc2\x9b|\xff|\xe2\x80\xa8|\xe2\x80\xae|\xe2\x81\xa6|\xe2\x80\xa7");
	ck_assert_str_eq(sb.buf, "\\302\\233|\\377|\\342\\200\\250|\\342\\200\\256|"
			 "\\342\\201\\246|\xe2\x80\xa7");
	sb_free(&sb);
}
END_TEST

START_TEST(test_rfc3339)
{
	char buf[40];

	ck_assert_int_eq(format_rfc3339(1700000000123456ull, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "2023-11-14T22:13:20.123456Z");
	/* issue 11 #10: no 6-digit years (a negative audit time cast to unsigned) */
	ck_assert_int_eq(format_rfc3339(253402300799999999ull, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "9999-12-31T23:59:59.999999Z");
	ck_assert_int_lt(format_rfc3339(253402300800000000ull, buf, sizeof(buf)), 0);
	ck_assert_int_lt(format_rfc3339((uint64_t)-100 * 1000000, buf, sizeof(buf)), 0);
	ck_assert_int_lt(format_rfc3339(UINT64_MAX, buf, sizeof(buf)), 0);
}
END_TEST

START_TEST(test_boundaries)
{
	unsigned m;
	char buf[64];

	ck_assert_int_eq(boundaries_from_list("setid,network", &m), 0);
	ck_assert_uint_eq(m, BOUNDARY_SETID | BOUNDARY_NETWORK);
	boundaries_to_list(m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "setid,network");
	ck_assert_int_eq(boundaries_from_list("none", &m), 0);
	ck_assert_uint_eq(m, 0);
	boundaries_to_list(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
	boundaries_to_list(BOUNDARY_SETID | BOUNDARY_FCAPS | BOUNDARY_CRED | BOUNDARY_NETWORK, buf, sizeof(buf));
	ck_assert_str_eq(buf, "setid,fcaps,cred,network");
	/* a short buffer gets whole names only */
	boundaries_to_list(BOUNDARY_SETID | BOUNDARY_FCAPS, buf, 12);
	ck_assert_str_eq(buf, "setid,fcaps");
	boundaries_to_list(BOUNDARY_SETID | BOUNDARY_FCAPS, buf, 11);
	ck_assert_str_eq(buf, "setid");
	boundaries_to_list(0, buf, 4);
	ck_assert_str_eq(buf, "");
	ck_assert_int_lt(boundaries_from_list("setid,bogus", &m), 0);
}
END_TEST

START_TEST(test_entry_serialize)
{
	struct entry e, d;
	struct strbuf sb = STRBUF_INIT;

	entry_init(&e, ENTRY_ATTACK, LOG_ALERT, 1700000000000000ull);
	entry_set_message(&e, "msg with = and \"quotes\"");
	entry_add(&e, "HIERARCHY", "4294967396");
	entry_add_u64(&e, "FAULTS", 5);
	entry_add(&e, "EXE", "/a=b c");
	ck_assert_int_eq(entry_serialize(&e, &sb), 0);
	ck_assert_int_eq(entry_deserialize(sb.buf, sb.len, &d), 0);
	ck_assert_int_eq(d.kind, ENTRY_ATTACK);
	ck_assert_int_eq(d.priority, LOG_ALERT);
	ck_assert(d.timestamp_usec == 1700000000000000ull);
	ck_assert_str_eq(d.message, e.message);
	ck_assert_uint_eq(d.n_fields, 3);
	ck_assert_str_eq(entry_get(&d, "EXE"), "/a=b c");
	ck_assert(d.fields[1].numeric);
	ck_assert(!d.fields[0].numeric);
	entry_free(&d);
	/* corrupt inputs are refused, not crashed on */
	ck_assert_int_lt(entry_deserialize(sb.buf, sb.len - 1, &d), 0);
	ck_assert_int_lt(entry_deserialize("\x02K=attack", 10, &d), 0);
	ck_assert_int_lt(entry_deserialize("\x01X=1", 5, &d), 0);
	ck_assert_int_lt(entry_deserialize("", 0, &d), 0);
	sb_free(&sb);
	entry_free(&e);
}
END_TEST

/* sb_printf()'s own formatting of %s %d %u %llu %% against vsnprintf(), and the fallback */
START_TEST(test_format_fast)
{
	static const unsigned long long u64s[] = { 0, 1, 9, 10, 999, 4294967295ull, 4294967296ull,
						   999999999999999999ull, 1000000000000000000ull,
						   UINT64_MAX };
	static const int ints[] = { 0, -1, 7, -2147483647 - 1, 2147483647 };
	struct strbuf sb = STRBUF_INIT;
	char want[256];

	for (size_t i = 0; i < ARRAY_SIZE(u64s); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(ints); j++) {
			sb_reset(&sb);
			ck_assert_int_eq(sb_printf(&sb, "a %llu b %d c %u d %s e 100%% %s", u64s[i], ints[j],
						   (unsigned)u64s[i], "str", ""), 0);
			snprintf(want, sizeof(want), "a %llu b %d c %u d %s e 100%% %s", u64s[i], ints[j],
				 (unsigned)u64s[i], "str", "");
			ck_assert_str_eq(sb.buf, want);
			ck_assert_uint_eq(sb.len, strlen(want));
		}
	}
	/* anything else goes to vsnprintf(): widths, %x, %zu, %c */
	sb_reset(&sb);
	ck_assert_int_eq(sb_printf(&sb, "%03u|%x|%zu|%c|%-3s|", 7u, 255u, (size_t)42, 'q', "x"), 0);
	ck_assert_str_eq(sb.buf, "007|ff|42|q|x  |");
	/* appends to what is there; a long string grows the buffer */
	char long_s[3000];

	memset(long_s, 'x', sizeof(long_s) - 1);
	long_s[sizeof(long_s) - 1] = '\0';
	sb_reset(&sb);
	sb_puts(&sb, "pre:");
	ck_assert_int_eq(sb_printf(&sb, "%s:%llu", long_s, 5ull), 0);
	ck_assert_uint_eq(sb.len, 4 + 2999 + 2);
	ck_assert(strncmp(sb.buf, "pre:xxx", 7) == 0);
	ck_assert_str_eq(sb.buf + sb.len - 2, ":5");
	sb_free(&sb);
}
END_TEST

START_TEST(test_u64_dec)
{
	static const uint64_t v[] = { 0, 5, 10, 12345, UINT32_MAX, UINT64_MAX - 1, UINT64_MAX };
	char buf[U64_DEC_MAX], want[32];
	struct strbuf sb = STRBUF_INIT;
	uint64_t back;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		ck_assert_str_eq(u64_dec(v[i], buf), want);
		sb_reset(&sb);
		ck_assert_int_eq(sb_put_u64(&sb, v[i]), 0);
		ck_assert_str_eq(sb.buf, want);
		ck_assert_int_eq(parse_u64(want, &back), 0);
		ck_assert(back == v[i]);
	}
	sb_free(&sb);
}
END_TEST

/* The cached second: a change of second, minute, day and year is seen; microseconds always */
START_TEST(test_rfc3339_cache)
{
	static const struct { uint64_t usec; const char *want; } t[] = {
		{ 1703980799000001ull, "2023-12-30T23:59:59.000001Z" },
		{ 1703980799999999ull, "2023-12-30T23:59:59.999999Z" },
		{ 1703980800000000ull, "2023-12-31T00:00:00.000000Z" },
		{ 1704067199500000ull, "2023-12-31T23:59:59.500000Z" },
		{ 1704067200000010ull, "2024-01-01T00:00:00.000010Z" },
		{ 1703980799000001ull, "2023-12-30T23:59:59.000001Z" },	/* back in time */
		{ 0, "1970-01-01T00:00:00.000000Z" },
	};
	char buf[40];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		ck_assert_int_eq(format_rfc3339(t[i].usec, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, t[i].want);
	}
	ck_assert_int_lt(format_rfc3339(1703980799000001ull, buf, 27), 0);	/* no room for the NUL */
	ck_assert_int_eq(format_rfc3339(1703980799000001ull, buf, 28), 0);
}
END_TEST

/* Fields live in the entry's string chunks: every pointer stays valid as the entry grows */
START_TEST(test_entry_arena)
{
	struct entry e;
	const char *first_name, *first_value;
	char name[32], value[5000];

	entry_init(&e, ENTRY_KILL, LOG_ALERT, 1);
	ck_assert_int_eq(entry_add(&e, "FIRST", "one"), 0);
	first_name = e.fields[0].name;
	first_value = e.fields[0].value;
	memset(value, 'v', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "F%d", i);
		/* every tenth value is larger than a chunk */
		ck_assert_int_eq(entry_add(&e, name, i % 10 ? "short" : value), 0);
	}
	ck_assert_int_eq(entry_add_u64(&e, "NUM", UINT64_MAX), 0);
	ck_assert_int_eq(entry_add_id(&e, "ID", 4294967296ull), 0);
	ck_assert_int_eq(entry_add_audit_id(&e, "AUID", AUDIT_ID_UNSET), 0);
	ck_assert_int_eq(entry_set_message(&e, "%s %llu", "m", 3ull), 0);
	ck_assert_int_eq(entry_set_message(&e, "%s again", e.message), 0);
	ck_assert_uint_eq(e.n_fields, 204);
	ck_assert_ptr_eq(e.fields[0].name, first_name);
	ck_assert_ptr_eq(e.fields[0].value, first_value);
	ck_assert_str_eq(e.fields[0].name, "FIRST");
	ck_assert_str_eq(e.fields[0].value, "one");
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "F%d", i);
		ck_assert_str_eq(e.fields[i + 1].name, name);
		ck_assert_str_eq(e.fields[i + 1].value, i % 10 ? "short" : value);
	}
	ck_assert_str_eq(entry_get(&e, "NUM"), "18446744073709551615");
	ck_assert(e.fields[201].numeric);
	ck_assert_str_eq(entry_get(&e, "ID"), "4294967296");
	ck_assert(!e.fields[202].numeric);
	ck_assert(entry_field_unset(&e.fields[203]));
	ck_assert_str_eq(e.message, "m 3 again");
	entry_free(&e);
	ck_assert_uint_eq(e.n_fields, 0);
	ck_assert_ptr_null(e.message);
	entry_free(&e);		/* twice: nothing left to free */
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_strbuf);
	tcase_add_test(tc, test_parse_u64);
	tcase_add_test(tc, test_untrusted);
	tcase_add_test(tc, test_rfc3339);
	tcase_add_test(tc, test_text_escape);
	tcase_add_test(tc, test_boundaries);
	tcase_add_test(tc, test_entry_serialize);
	tcase_add_test(tc, test_format_fast);
	tcase_add_test(tc, test_u64_dec);
	tcase_add_test(tc, test_rfc3339_cache);
	tcase_add_test(tc, test_entry_arena);
	suite_add_tcase(s, tc);
	return s;
}
