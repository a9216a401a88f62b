/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

static int count_str(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * issue 11 #1: with no receiver the file grew to 8 MB past a 64K limit
 * (dropped records were skipped, their space reclaimed only on ack).  The
 * file itself stays within spool_max_size; drops are counted and logged
 * once per outage (until the spool drains).
 */
START_TEST(test_file_within_limit)
{
	const char *dir = make_tmpdir();
	char path[512], rec[2048], *log;
	struct spool *s;
	struct stat st;
	uint64_t dropped;
	int i;

	snprintf(path, sizeof(path), "%s/spool", dir);
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	stderr_capture_begin();
	for (i = 0; i < 4000; i++) {	/* 8 MB */
		int n = snprintf(rec, sizeof(rec), "message %d", i);

		memset(rec + n + 1, 'r', sizeof(rec) - (size_t)n - 1);
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_msg(st.st_size <= 64 * 1024, "spool file %lld bytes after %d appends",
			      (long long)st.st_size, i + 1);
	}
	log = stderr_capture_end();
	dropped = spool_get_stats(s)->dropped;
	ck_assert_uint_gt(dropped, 3900);
	ck_assert_uint_eq(spool_get_stats(s)->records, 4000 - dropped);
	ck_assert_msg(count_str(log, "dropping the oldest") == 1, "%s", log);
	free(log);
	/* the newest survive, in order; positions and drops persist */
	{
		struct strbuf sb = STRBUF_INIT;
		uint64_t pos = spool_head(s), next;
		char want[32];

		for (i = (int)dropped; spool_read(s, pos, &sb, &next) == 0; i++, pos = next) {
			snprintf(want, sizeof(want), "message %d", i);
			ck_assert_str_eq(sb.buf, want);
		}
		ck_assert_int_eq(i, 4000);
		/* delivered: the outage is over, its drops summarized once */
		stderr_capture_begin();
		ck_assert_int_eq(spool_ack(s, pos), 0);
		log = stderr_capture_end();
		ck_assert_msg(strstr(log, "outage") != NULL, "%s", log);
		sb_free(&sb);
		free(log);
	}
	/* a second outage is logged again */
	stderr_capture_begin();
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
	log = stderr_capture_end();
	ck_assert_int_eq(count_str(log, "dropping the oldest"), 1);
	free(log);
	spool_close(s);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_le(st.st_size, 64 * 1024);
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	ck_assert_uint_gt(spool_get_stats(s)->records, 20);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

/* Rewrite 8 bytes of the header at off. */
static void poke_u64(const char *path, off_t off, uint64_t v)
{
	int fd = open(path, O_WRONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert(pwrite(fd, &v, 8, off) == 8);
	close(fd);
}

/* Append one message and find it by reading from the head: it must be reachable. */
static void assert_reachable(struct spool *s)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t pos = spool_head(s), next;
	bool found = false;

	ck_assert_int_eq(spool_append(s, "after", 5), 0);
	while (!found && spool_read(s, pos, &sb, &next) == 0) {
		found = strcmp(sb.buf, "after") == 0;
		pos = next;
	}
	ck_assert_msg(found, "an entry appended after reopening is never read (black hole)");
	sb_free(&sb);
}

/* issue 11 #10: a corrupt base (consistent with head) black-holed every later entry */
START_TEST(test_corrupt_base)
{
	const char *dir = make_tmpdir();
	char path[512];
	struct spool *s;

	snprintf(path, sizeof(path), "%s/spool", dir);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 0, 5);
	spool_close(s);
	poke_u64(path, 8, 0xfffffffffffffff0ull);
	poke_u64(path, 16, 0xfffffffffffffff0ull);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	assert_reachable(s);
	spool_close(s);
	/* a spool of the previous format (no checksum) still opens, and still reachable */
	rm_rf(dir);
	dir = make_tmpdir();
	snprintf(path, sizeof(path), "%s/spool", dir);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 0, 5);
	spool_close(s);
	poke_u64(path, 24, 0);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 0, 5);
	assert_reachable(s);
	spool_close(s);
	/* a flipped bit in head: detected by the checksum, not a silent skip */
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	spool_close(s);
	poke_u64(path, 16, 12);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	ck_assert_uint_eq(spool_head(s), 0);	/* moved aside, fresh */
	spool_close(s);
	rm_rf(dir);
}
END_TEST

/*
 * issue 11: two fdatasyncs per entry (append, ack) capped a burst at a few
 * hundred entries/s with spool_sync = yes.  Group commit: appends and acks
 * only mark the spool dirty; spool_flush() syncs once for all of them.
 */
START_TEST(test_group_commit)
{
	const char *dir = make_tmpdir();
	struct strbuf sb = STRBUF_INIT;
	struct spool *s;
	uint64_t pos, next;

	ck_assert_int_eq(spool_open(dir, 64 << 20, true, &s), 0);
	append_n(s, 0, 1000);
	ck_assert_uint_eq(spool_get_stats(s)->syncs, 0);
	ck_assert_int_eq(spool_flush(s), 0);
	ck_assert_uint_eq(spool_get_stats(s)->syncs, 1);
	ck_assert_int_eq(spool_flush(s), 0);	/* nothing new: no sync */
	ck_assert_uint_eq(spool_get_stats(s)->syncs, 1);
	for (pos = spool_head(s); spool_read(s, pos, &sb, &next) == 0; pos = next)
		ck_assert_int_eq(spool_ack(s, next), 0);
	ck_assert_int_eq(spool_flush(s), 0);
	ck_assert_uint_le(spool_get_stats(s)->syncs, 3);	/* the acks, and the emptied spool's truncation */
	spool_close(s);
	/* without spool_sync: never */
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &s), 0);
	append_n(s, 0, 10);
	ck_assert_int_eq(spool_flush(s), 0);
	ck_assert_uint_eq(spool_get_stats(s)->syncs, 0);
	spool_close(s);
	sb_free(&sb);
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
	tcase_add_test(tc, test_file_within_limit);
	tcase_add_test(tc, test_corrupt_base);
	tcase_add_test(tc, test_group_commit);
	suite_add_tcase(s, tc);
	return s;
}
