/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests.h"
#include "spool.h"

static void append_n(struct spool *s, int from, int to)
{
	char msg[64];

	for (int i = from; i < to; i++) {
		int n = snprintf(msg, sizeof(msg), "message %d", i);

		ck_assert_int_eq(spool_append(s, msg, (size_t)n), 0);
	}
}

/* Read everything from head; check it is exactly from..to-1 in order. */
static void expect_seq(struct spool *s, int from, int to)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t pos = spool_head(s), next;
	char want[64];
	int i = from;

	while (spool_read(s, pos, &sb, &next) == 0) {
		snprintf(want, sizeof(want), "message %d", i++);
		ck_assert_str_eq(sb.buf, want);
		pos = next;
	}
	ck_assert_int_eq(i, to);
	ck_assert_int_eq(spool_read(s, pos, &sb, &next), -ENOENT);
	sb_free(&sb);
}

START_TEST(test_restart_replay)
{
	const char *dir = make_tmpdir();
	struct spool *s;
	struct strbuf sb = STRBUF_INIT;
	uint64_t next;

	ck_assert_int_eq(spool_open(dir, 1 << 20, true, &s), 0);
	append_n(s, 0, 10);
	/* deliver three */
	ck_assert_int_eq(spool_read(s, spool_head(s), &sb, &next), 0);
	ck_assert_int_eq(spool_read(s, next, &sb, &next), 0);
	ck_assert_int_eq(spool_read(s, next, &sb, &next), 0);
	ck_assert_int_eq(spool_ack(s, next), 0);
	ck_assert_uint_eq(spool_get_stats(s)->records, 7);
	spool_close(s);

	/* "restart": the rest is replayed, in order */
	ck_assert_int_eq(spool_open(dir, 1 << 20, true, &s), 0);
	ck_assert_uint_eq(spool_get_stats(s)->records, 7);
	expect_seq(s, 3, 10);
	append_n(s, 10, 12);
	expect_seq(s, 3, 12);
	/* fully delivered: the file shrinks back to its header */
	ck_assert_int_eq(spool_ack(s, spool_tail(s)), 0);
	ck_assert(spool_empty(s));
	spool_close(s);
	ck_assert_int_eq(spool_open(dir, 1 << 20, true, &s), 0);
	ck_assert(spool_empty(s));
	append_n(s, 20, 21);
	expect_seq(s, 20, 21);
	spool_close(s);
	sb_free(&sb);
	rm_rf(dir);
}
END_TEST

START_TEST(test_torn_tail)
{
	const char *dir = make_tmpdir();
	char path[512];
	struct spool *s;
	struct stat st;
	int fd;

	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 0, 5);
	spool_close(s);
	snprintf(path, sizeof(path), "%s/spool", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	/* a crash in the middle of the last append */
	ck_assert_int_eq(truncate(path, st.st_size - 3), 0);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 0, 4);
	append_n(s, 4, 6);
	expect_seq(s, 0, 6);
	spool_close(s);
	/* garbage appended after valid records */
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert(write(fd, "BRS1garbagegarbage", 18) == 18);
	close(fd);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 0, 6);
	ck_assert_uint_eq(spool_get_stats(s)->truncated_bytes, 18);
	spool_close(s);
	/* corrupt header: moved aside, fresh spool */
	fd = open(path, O_WRONLY);
	ck_assert(write(fd, "XXXX", 4) == 4);
	close(fd);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	ck_assert(spool_empty(s));
	spool_close(s);
	rm_rf(dir);
}
END_TEST

START_TEST(test_bounded_drop_oldest)
{
	const char *dir = make_tmpdir();
	struct spool *s;
	uint64_t dropped;

	/* each record is 12 + ~10 bytes: 64 KiB holds a few thousand */
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	append_n(s, 0, 10000);
	ck_assert_uint_le(spool_get_stats(s)->bytes, 64 * 1024);
	ck_assert_uint_gt(spool_get_stats(s)->dropped, 0);
	dropped = spool_get_stats(s)->dropped;
	ck_assert_uint_eq(spool_get_stats(s)->records, 10000 - dropped);
	expect_seq(s, (int)dropped, 10000);
	spool_close(s);
	/* the drop point persisted */
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	expect_seq(s, (int)dropped, 10000);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

START_TEST(test_compaction_keeps_positions)
{
	const char *dir = make_tmpdir();
	struct spool *s;
	struct strbuf sb = STRBUF_INIT;
	char big[4096];
	uint64_t pos, next, keep;
	int i;

	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &s), 0);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(spool_append(s, big, sizeof(big)), 0);
	append_n(s, 0, 3);
	/* ack all big ones: > 1 MiB delivered prefix triggers compaction */
	pos = spool_head(s);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(spool_read(s, pos, &sb, &pos), 0);
	keep = pos;
	ck_assert_int_eq(spool_ack(s, pos), 0);
	ck_assert(spool_head(s) == keep);
	ck_assert_int_eq(spool_read(s, keep, &sb, &next), 0);
	ck_assert_str_eq(sb.buf, "message 0");
	spool_close(s);
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &s), 0);
	ck_assert(spool_head(s) == keep);
	expect_seq(s, 0, 3);
	ck_assert_int_eq(spool_read(s, keep - 1, &sb, &next), -ESPIPE);
	spool_close(s);
	sb_free(&sb);
	rm_rf(dir);
}
END_TEST

Suite *spool_suite(void)
{
	Suite *s = suite_create("spool");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_restart_replay);
	tcase_add_test(tc, test_torn_tail);
	tcase_add_test(tc, test_bounded_drop_oldest);
	tcase_add_test(tc, test_compaction_keeps_positions);
	suite_add_tcase(s, tc);
	return s;
}
