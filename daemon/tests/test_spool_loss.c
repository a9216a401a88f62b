/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * issue 31 #3, #4: what a spool loses is found, logged and counted in
 * entries: its oldest segment file removed (by hand, or lost), a middle one,
 * a corrupt stretch of several records; and a crash after spool.head moved
 * past a segment but before its file was removed loses nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"
#include "spool.h"

#define N 120		/* records of 200 bytes: 4 KiB segments (256 KiB / 64) hold 19 */
#define MAX_BYTES (256 * 1024)

static void append_all(struct spool *s)
{
	char msg[200];

	for (int i = 0; i < N; i++) {
		memset(msg, 'x', sizeof(msg));
		snprintf(msg, sizeof(msg), "message %d", i);
		msg[strlen(msg)] = ' ';
		ck_assert_int_eq(spool_append(s, msg, sizeof(msg)), 0);
	}
}

/* The segment files' bases, in order; how many. */
static int segments(const char *dir, uint64_t *base, int max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert(d != NULL);
	while ((de = readdir(d))) {
		if (strlen(de->d_name) != 22 || strncmp(de->d_name, "spool.", 6) != 0 ||
		    strspn(de->d_name + 6, "0123456789abcdef") != 16)
			continue;
		ck_assert_int_lt(n, max);
		base[n++] = strtoull(de->d_name + 6, NULL, 16);
	}
	closedir(d);
	for (int i = 1; i < n; i++)	/* insertion sort: a handful */
		for (int j = i; j > 0 && base[j - 1] > base[j]; j--) {
			uint64_t t = base[j];

			base[j] = base[j - 1];
			base[j - 1] = t;
		}
	return n;
}

/* The number in "message K" of the record at pos (pos: the first one at or after it). */
static int message_at(struct spool *s, uint64_t pos)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t next;
	int k;

	ck_assert_int_eq(spool_read(s, pos, &sb, &next), 0);
	ck_assert_int_eq(sscanf(sb.buf, "message %d", &k), 1);
	sb_free(&sb);
	return k;
}

/* Position after the first k records. */
static uint64_t after(struct spool *s, int k)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t pos = spool_head(s), next = pos;

	for (int i = 0; i < k; i++) {
		ck_assert_int_eq(spool_read(s, pos, &sb, &next), 0);
		pos = next;
	}
	sb_free(&sb);
	return pos;
}

static void remove_segment(const char *dir, uint64_t base)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/spool.%016llx", dir, (unsigned long long)base);
	ck_assert_int_eq(unlink(path), 0);
}

/* The spool at dir: N records, the first ten delivered; the segment bases into base. */
static int prepare(const char *dir, uint64_t *base, int max)
{
	struct spool *s;
	int n;

	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	append_all(s);
	ck_assert_int_eq(spool_ack(s, after(s, 10)), 0);
	spool_close(s);
	n = segments(dir, base, max);
	ck_assert_int_ge(n, 4);
	return n;
}

/* The first record of the segment at base (the spool reopened). */
static int first_of(const char *dir, uint64_t base)
{
	struct spool *s;
	int k;

	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	k = message_at(s, base);
	spool_close(s);
	return k;
}

START_TEST(test_oldest_segment_missing)
{
	const char *dir = make_tmpdir();
	uint64_t base[64];
	struct spool *s;
	char *log;
	int k;

	prepare(dir, base, 64);
	k = first_of(dir, base[1]);	/* seg[0] holds records 0..k-1, 10 of them delivered */
	remove_segment(dir, base[0]);
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "the oldest segment file is missing") != NULL, "%s", log);
	ck_assert_uint_eq(spool_get_stats(s)->lost, (uint64_t)(k - 10));
	ck_assert_uint_ge(spool_get_stats(s)->corrupt, 1);
	ck_assert_uint_eq(spool_head(s), base[1]);
	ck_assert_int_eq(message_at(s, spool_head(s)), k);
	ck_assert_uint_eq(spool_get_stats(s)->records, (uint64_t)(N - k));
	free(log);
	spool_close(s);
	/* said once: the next start finds a consistent spool */
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "missing") == NULL, "%s", log);
	ck_assert_uint_eq(spool_get_stats(s)->lost, 0);
	free(log);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

START_TEST(test_middle_segment_missing)
{
	const char *dir = make_tmpdir();
	uint64_t base[64];
	struct spool *s;
	char *log;
	int a, b;

	prepare(dir, base, 64);
	a = first_of(dir, base[2]);
	b = first_of(dir, base[3]);
	remove_segment(dir, base[2]);
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "are missing between positions") != NULL, "%s", log);
	/* every entry of the removed file, not "one stretch" */
	ck_assert_uint_eq(spool_get_stats(s)->lost, (uint64_t)(b - a));
	free(log);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

/* Bytes spanning three records of a sealed segment overwritten: three entries lost. */
START_TEST(test_corrupt_stretch_counts_entries)
{
	const char *dir = make_tmpdir();
	uint64_t base[64], from, to;
	struct strbuf sb = STRBUF_INIT;
	struct spool *s;
	char path[600], junk[400];
	uint64_t pos, next;
	int fd, got = 0, k;

	prepare(dir, base, 64);
	k = first_of(dir, base[1]);
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	from = after(s, k + 2 - 10);	/* seg[1]'s third record (the head is at the 11th) */
	to = after(s, k + 5 - 10);	/* its sixth */
	spool_close(s);
	/* the third record's header and the next ones' bytes up to the sixth: garbage */
	memset(junk, 'j', sizeof(junk));
	snprintf(path, sizeof(path), "%s/spool.%016llx", dir, (unsigned long long)base[1]);
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	for (uint64_t o = from; o < to; o += sizeof(junk)) {
		size_t n = to - o < sizeof(junk) ? (size_t)(to - o) : sizeof(junk);

		ck_assert(pwrite(fd, junk, n, (off_t)(32 + o - base[1])) == (ssize_t)n);
	}
	close(fd);
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	for (pos = spool_head(s); spool_read(s, pos, &sb, &next) == 0; pos = next)
		got++;
	ck_assert_int_eq(got, N - 10 - 3);
	ck_assert_int_eq(spool_ack(s, spool_tail(s)), 0);	/* delivered: the head left seg[1] */
	free(stderr_capture_end());
	ck_assert_uint_eq(spool_get_stats(s)->corrupt, 1);
	ck_assert_uint_eq(spool_get_stats(s)->lost, 3);
	spool_close(s);
	sb_free(&sb);
	rm_rf(dir);
}
END_TEST

/*
 * A crash after spool.head moved past the first segment, before its file
 * was removed: nothing is missing, the file goes at the next start.  (The
 * other order, file first, made a removed oldest segment look like this.)
 */
START_TEST(test_crash_before_segment_removed)
{
	const char *dir = make_tmpdir();
	uint64_t base[64];
	struct spool *s;
	char path[600], saved[600], *log;
	int k, n;

	prepare(dir, base, 64);
	k = first_of(dir, base[1]);
	snprintf(path, sizeof(path), "%s/spool.%016llx", dir, (unsigned long long)base[0]);
	snprintf(saved, sizeof(saved), "%s/saved", dir);
	ck_assert_int_eq(link(path, saved), 0);	/* the file as it was */
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	ck_assert_int_eq(spool_ack(s, base[1]), 0);	/* seg[0] delivered, removed */
	spool_close(s);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(rename(saved, path), 0);	/* as if the crash came before the unlink */
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, MAX_BYTES, false, &s), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "missing") == NULL, "%s", log);
	ck_assert_uint_eq(spool_get_stats(s)->lost, 0);
	ck_assert_int_eq(message_at(s, spool_head(s)), k);
	spool_close(s);
	n = segments(dir, base, 64);
	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(access(path, F_OK), -1);	/* gone at that start */
	free(log);
	rm_rf(dir);
}
END_TEST

Suite *spool_loss_suite(void)
{
	Suite *s = suite_create("spool_loss");
	TCase *tc = tcase_create("loss");

	tcase_add_test(tc, test_oldest_segment_missing);
	tcase_add_test(tc, test_middle_segment_missing);
	tcase_add_test(tc, test_corrupt_stretch_counts_entries);
	tcase_add_test(tc, test_crash_before_segment_removed);
	suite_add_tcase(s, tc);
	return s;
}
