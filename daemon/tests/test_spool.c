/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests.h"
#include "quarantine.h"
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

/* The spool's files in dir: segments (spool.HEX), quarantine files; their total size. */
struct dir_files {
	int segments, quarantine;
	long long bytes;		/* segments only */
	char last[512];			/* path of the last segment */
	char first_q[512];		/* path of the first quarantine file (by name) */
};

static void dir_files(const char *dir, struct dir_files *f)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	memset(f, 0, sizeof(*f));
	ck_assert(d != NULL);
	while ((de = readdir(d))) {
		char path[512];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (strlen(de->d_name) == 22 && !strncmp(de->d_name, "spool.", 6) &&
		    strspn(de->d_name + 6, "0123456789abcdef") == 16) {
			ck_assert_int_eq(stat(path, &st), 0);
			f->segments++;
			f->bytes += st.st_size;
			if (strcmp(path, f->last) > 0)
				snprintf(f->last, sizeof(f->last), "%s", path);
		} else if (!strncmp(de->d_name, QUARANTINE_PREFIX, strlen(QUARANTINE_PREFIX))) {
			f->quarantine++;
			if (!f->first_q[0] || strcmp(path, f->first_q) < 0)
				snprintf(f->first_q, sizeof(f->first_q), "%s", path);
		}
	}
	closedir(d);
}

static void poke(const char *path, off_t off, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert(pwrite(fd, data, len, off) == (ssize_t)len);
	close(fd);
}

static int count_str(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
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
	ck_assert_int_eq(spool_ack(s, spool_tail(s)), 0);
	ck_assert(spool_empty(s));
	spool_close(s);
	ck_assert_int_eq(spool_open(dir, 1 << 20, true, &s), 0);
	ck_assert(spool_empty(s));
	ck_assert_uint_eq(spool_get_stats(s)->records, 0);
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
	struct dir_files f;
	struct spool *s;
	struct stat st;
	int fd;

	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 0, 5);
	spool_close(s);
	dir_files(dir, &f);
	ck_assert_int_eq(f.segments, 1);
	ck_assert_int_eq(stat(f.last, &st), 0);
	/* a crash in the middle of the last append */
	ck_assert_int_eq(truncate(f.last, st.st_size - 3), 0);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 0, 4);
	append_n(s, 4, 6);
	expect_seq(s, 0, 6);
	spool_close(s);
	/* garbage appended after valid records */
	fd = open(f.last, O_WRONLY | O_APPEND);
	ck_assert(write(fd, "BRS1garbagegarbage", 18) == 18);
	close(fd);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 0, 6);
	ck_assert_uint_eq(spool_get_stats(s)->truncated_bytes, 18);
	ck_assert_uint_eq(spool_get_stats(s)->corrupt, 1);
	append_n(s, 6, 7);
	spool_close(s);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 0, 7);
	spool_close(s);
	/* the torn bytes are kept: both stretches (the 3-byte cut record, the garbage) */
	dir_files(dir, &f);
	ck_assert_int_eq(f.quarantine, 2);
	rm_rf(dir);
}
END_TEST

START_TEST(test_bounded_drop_oldest)
{
	const char *dir = make_tmpdir();
	struct dir_files f;
	struct spool *s;
	uint64_t dropped;

	/* each record is 12 + ~10 bytes: 64 KiB holds a few thousand */
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	append_n(s, 0, 10000);
	dir_files(dir, &f);
	ck_assert_int_le(f.bytes, 64 * 1024);
	ck_assert_uint_gt(spool_get_stats(s)->dropped, 0);
	dropped = spool_get_stats(s)->dropped;
	ck_assert_uint_eq(spool_get_stats(s)->records, 10000 - dropped);
	expect_seq(s, (int)dropped, 10000);
	spool_close(s);
	/* the drop point persisted */
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	ck_assert_uint_eq(spool_get_stats(s)->records, 10000 - dropped);
	expect_seq(s, (int)dropped, 10000);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

/*
 * issue 11 #1: with no receiver the file grew to 8 MB past a 64K limit.
 * The files stay within spool_max_size; drops are counted and logged once
 * per outage (until the spool drains).
 */
START_TEST(test_file_within_limit)
{
	const char *dir = make_tmpdir();
	char rec[2048], *log;
	struct dir_files f;
	struct spool *s;
	uint64_t dropped;
	int i;

	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	stderr_capture_begin();
	for (i = 0; i < 4000; i++) {	/* 8 MB */
		int n = snprintf(rec, sizeof(rec), "message %d", i);

		memset(rec + n + 1, 'r', sizeof(rec) - (size_t)n - 1);
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
		if (i % 97 == 0) {
			dir_files(dir, &f);
			ck_assert_msg(f.bytes <= 64 * 1024, "spool files %lld bytes after %d appends",
				      f.bytes, i + 1);
		}
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
	dir_files(dir, &f);
	ck_assert_int_le(f.bytes, 64 * 1024);
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	ck_assert_uint_gt(spool_get_stats(s)->records, 20);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

/*
 * issue 22 #7: a full spool dropped down to 3/4 of the limit at once (a
 * quarter of the entries, in one append, copying the rest).  It now drops
 * its oldest segment, 1/64 of spool_max_size: each drop is small, oldest
 * first, every entry counted, nothing copied.
 */
START_TEST(test_full_drops_a_segment)
{
	const char *dir = make_tmpdir();
	char rec[100];
	struct dir_files f;
	struct spool *s;
	uint64_t before, records, worst = 0;

	memset(rec, 'x', sizeof(rec));
	ck_assert_int_eq(spool_open(dir, 4 << 20, false, &s), 0);
	log_set_quiet(true);
	while (spool_get_stats(s)->dropped == 0)
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
	/* full: now every append that needs room drops the oldest segment only */
	for (int i = 0; i < 20000; i++) {
		before = spool_get_stats(s)->dropped;
		records = spool_get_stats(s)->records;
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
		if (spool_get_stats(s)->dropped - before > worst)
			worst = spool_get_stats(s)->dropped - before;
		ck_assert_uint_eq(spool_get_stats(s)->records + spool_get_stats(s)->dropped - before,
				  records + 1);
	}
	log_set_quiet(false);
	/* 4 MiB / 64 = 64 KiB segments of 112-byte records: 586 at most per drop, of ~37000 */
	ck_assert_uint_gt(worst, 0);
	ck_assert_uint_le(worst, (64 * 1024) / 112 + 1);
	ck_assert_uint_ge(spool_get_stats(s)->records, 37000 * 60 / 64);
	ck_assert_uint_eq(spool_get_stats(s)->appended,
			  spool_get_stats(s)->records + spool_get_stats(s)->dropped);
	dir_files(dir, &f);
	ck_assert_int_le(f.bytes, 4 << 20);
	ck_assert_int_ge(f.segments, 60);
	spool_close(s);
	rm_rf(dir);
}
END_TEST

/*
 * issue 22 #7: start-up verified every record of the spool (up to 1 TiB)
 * inside the event loop, under a 30 s watchdog.  Only the segment being
 * written is verified at open (at most 32 MiB and a record), whatever the
 * spool's size; the others are verified as they are read.  96 MiB of
 * entries here, in 1 MiB segments (spool_max_size 64M... 1G / 64 = 16 MiB
 * segments): at most one segment is verified at open.
 */
START_TEST(test_open_work_bounded)
{
	const char *dir = make_tmpdir();
	static char rec[16384];
	struct spool *s;
	uint64_t n = 96 * 64, pos, next;
	struct strbuf sb = STRBUF_INIT;

	memset(rec, 'y', sizeof(rec));
	ck_assert_int_eq(spool_open(dir, 1ull << 30, false, &s), 0);
	for (uint64_t i = 0; i < n; i++) {
		snprintf(rec, 32, "message %llu ", (unsigned long long)i);
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
	}
	spool_close(s);
	ck_assert_int_eq(spool_open(dir, 1ull << 30, false, &s), 0);
	ck_assert_uint_eq(spool_get_stats(s)->records, n);
	ck_assert_msg(spool_get_stats(s)->open_scanned <= (16 << 20) + sizeof(rec) + 12,
		      "%llu bytes verified at open", (unsigned long long)spool_get_stats(s)->open_scanned);
	/* everything still there, in order */
	pos = spool_head(s);
	for (uint64_t i = 0; i < n; i++, pos = next) {
		char want[32];

		ck_assert_int_eq(spool_read(s, pos, &sb, &next), 0);
		snprintf(want, sizeof(want), "message %llu ", (unsigned long long)i);
		ck_assert(strncmp(sb.buf, want, strlen(want)) == 0);
	}
	/* delivered: the segment files go, one by one, nothing copied */
	ck_assert_int_eq(spool_ack(s, pos), 0);
	ck_assert(spool_empty(s));
	ck_assert_uint_le(spool_get_stats(s)->segments, 1);
	spool_close(s);
	sb_free(&sb);
	rm_rf(dir);
}
END_TEST

/*
 * issue 22 #3: flipping one byte in the first of 3 spooled records
 * discarded all 3 ("bytes at the end, discarded") and no counter moved.
 * Now the bad record is skipped and counted, the 2 others are delivered,
 * and the bad bytes are kept as evidence (quarantine.POS, byte for byte).
 */
START_TEST(test_one_bad_record)
{
	const char *dir = make_tmpdir();
	struct dir_files f;
	struct spool *s;
	char *bad, *kept;
	size_t len;

	for (int which = 0; which < 3; which++) {
		ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
		append_n(s, 0, 3);	/* "message N": 9 bytes, records of 21 */
		spool_close(s);
		dir_files(dir, &f);
		/* the payload of record `which` (header 32, records of 21 bytes, payload at +12) */
		poke(f.last, 32 + 21 * which + 12 + 3, "X", 1);
		bad = read_file(f.last, &len);
		stderr_capture_begin();
		ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
		kept = stderr_capture_end();
		ck_assert_msg(strstr(kept, "not a valid record") != NULL, "%s", kept);
		free(kept);
		ck_assert_uint_eq(spool_get_stats(s)->corrupt, 1);
		ck_assert_uint_eq(spool_get_stats(s)->quarantined, 1);
		ck_assert_uint_eq(spool_get_stats(s)->records, 2);
		{
			struct strbuf sb = STRBUF_INIT;
			uint64_t pos = spool_head(s), next;
			int got = 0;

			for (; spool_read(s, pos, &sb, &next) == 0; pos = next, got++) {
				char want[32];

				snprintf(want, sizeof(want), "message %d", got + (got >= which));
				ck_assert_str_eq(sb.buf, want);
			}
			ck_assert_int_eq(got, 2);
			ck_assert_int_eq(spool_ack(s, pos), 0);
			sb_free(&sb);
		}
		ck_assert(spool_empty(s));
		spool_close(s);
		/* the evidence: the bad record, exactly */
		dir_files(dir, &f);
		ck_assert_int_eq(f.quarantine, 1);
		kept = read_file(f.first_q, &len);
		ck_assert_uint_eq(len, 21);
		ck_assert(memcmp(kept, bad + 32 + 21 * which, 21) == 0);
		free(kept);
		free(bad);
		rm_rf(dir);
		dir = make_tmpdir();
	}
	rm_rf(dir);
}
END_TEST

/*
 * A bad record in a segment that is not verified at open (sealed): found
 * when read for delivery, skipped, counted, kept; the records after it are
 * delivered.
 */
START_TEST(test_bad_record_found_when_read)
{
	const char *dir = make_tmpdir();
	char rec[1000], first[512];
	struct dir_files f;
	struct strbuf sb = STRBUF_INIT;
	struct spool *s;
	uint64_t pos, next, at;
	int got = 0;
	DIR *d;
	struct dirent *de;

	memset(rec, 'z', sizeof(rec));
	/* 64 KiB / 64 -> 4 KiB segments: 4 records each */
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	for (int i = 0; i < 20; i++) {
		snprintf(rec, 16, "record %02d", i);
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
	}
	spool_close(s);
	dir_files(dir, &f);
	ck_assert_int_ge(f.segments, 4);
	/* the first segment, second record's payload */
	first[0] = '\0';
	d = opendir(dir);
	while ((de = readdir(d)))
		if (strlen(de->d_name) == 22 && !strncmp(de->d_name, "spool.", 6) &&
		    (!first[0] || strcmp(de->d_name, strrchr(first, '/') + 1) < 0))
			snprintf(first, sizeof(first), "%s/%s", dir, de->d_name);
	closedir(d);
	poke(first, 32 + 1012 + 12 + 500, "Q", 1);
	ck_assert_int_eq(spool_open(dir, 64 * 1024, false, &s), 0);
	ck_assert_uint_eq(spool_get_stats(s)->corrupt, 0);	/* not verified at open */
	log_set_quiet(true);
	for (pos = spool_head(s); spool_read_at(s, pos, &sb, &at, &next) == 0; pos = next, got++) {
		char want[32];

		snprintf(want, sizeof(want), "record %02d", got + (got >= 1));
		ck_assert_str_eq(sb.buf, want);
	}
	log_set_quiet(false);
	ck_assert_int_eq(got, 19);
	ck_assert_uint_eq(spool_get_stats(s)->corrupt, 1);
	ck_assert_uint_eq(spool_get_stats(s)->quarantined, 1);
	ck_assert_int_eq(spool_ack(s, pos), 0);
	ck_assert(spool_empty(s));
	spool_close(s);
	sb_free(&sb);
	rm_rf(dir);
}
END_TEST

/*
 * The quarantine is bounded (QUARANTINE_MAX_FILES), its files are never
 * overwritten, and when it cannot keep the bytes nothing is lost: they stay
 * in the spool, and the records after them are still delivered.
 */
START_TEST(test_quarantine_bounds)
{
	const char *dir = make_tmpdir();
	char path[512], *log, *old;
	struct dir_files f;
	struct spool *s;
	size_t len;

	/* 20 bad records among 40: 16 kept, 4 counted only */
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 10, 50);	/* "message NN": 10 bytes, records of 22 */
	spool_close(s);
	dir_files(dir, &f);
	for (int i = 0; i < 40; i += 2)
		poke(f.last, 32 + 22 * i + 12 + 1, "!", 1);
	/* files an earlier run kept: one at the position of the first bad record (never
	 * replaced), 9 elsewhere; the bound is reached at the 7th bad record */
	for (int i = 9; i >= 0; i--) {
		FILE *o;

		snprintf(path, sizeof(path), "%s/" QUARANTINE_PREFIX "%016x", dir, i ? 0x7fff0000 + i : 0);
		o = fopen(path, "w");
		ck_assert(o != NULL);
		fputs("kept before", o);
		fclose(o);
	}
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	log = stderr_capture_end();
	ck_assert_uint_eq(spool_get_stats(s)->corrupt, 20);
	ck_assert_uint_eq(spool_get_stats(s)->records, 20);
	ck_assert_msg(strstr(log, "quarantine files are there already") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "further corrupt stretches are only counted") != NULL, "%s", log);
	free(log);
	spool_close(s);
	dir_files(dir, &f);
	ck_assert_int_eq(f.quarantine, QUARANTINE_MAX_FILES);
	old = read_file(path, &len);
	ck_assert_str_eq(old, "kept before");
	free(old);
	rm_rf(dir);

	/* the quarantine cannot write (its temporary name is taken by a directory) */
	dir = make_tmpdir();
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 10, 13);
	spool_close(s);
	dir_files(dir, &f);
	poke(f.last, 32 + 12 + 1, "!", 1);
	snprintf(path, sizeof(path), "%s/quarantine.tmp", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "cannot copy them") != NULL, "%s", log);
	free(log);
	ck_assert_uint_eq(spool_get_stats(s)->corrupt, 1);
	ck_assert_uint_eq(spool_get_stats(s)->quarantined, 0);
	expect_seq(s, 11, 13);
	spool_close(s);
	/* the bad bytes are still in the segment file: not lost */
	old = read_file(f.last, &len);
	ck_assert(memcmp(old + 32 + 12, "m!ssage 10", 10) == 0);
	free(old);
	rm_rf(dir);
}
END_TEST

/* issue 22 #1: two processes, one spool: the second one gets a clear error. */
START_TEST(test_spool_locked)
{
	const char *dir = make_tmpdir();
	struct spool *a, *b;
	char *log, want[64];

	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &a), 0);
	append_n(a, 0, 7);
	stderr_capture_begin();
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &b), -EBUSY);
	log = stderr_capture_end();
	snprintf(want, sizeof(want), "is in use by process %d ", (int)getpid());
	ck_assert_msg(strstr(log, want) != NULL, "%s", log);
	ck_assert_msg(strstr(log, "each needs a spool_dir of its own") != NULL, "%s", log);
	free(log);
	append_n(a, 7, 10);
	spool_close(a);
	/* released: the next one gets everything */
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &b), 0);
	expect_seq(b, 0, 10);
	spool_close(b);
	rm_rf(dir);
}
END_TEST

/* A corrupt segment header and a corrupt spool.head: nothing lost, nothing black-holed. */
START_TEST(test_corrupt_metadata)
{
	const char *dir = make_tmpdir();
	char path[512];
	struct dir_files f;
	struct spool *s;
	struct strbuf sb = STRBUF_INIT;
	uint64_t next, pos;

	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	append_n(s, 0, 5);
	/* deliver two */
	ck_assert_int_eq(spool_read(s, spool_head(s), &sb, &next), 0);
	ck_assert_int_eq(spool_read(s, next, &sb, &next), 0);
	ck_assert_int_eq(spool_ack(s, next), 0);
	spool_close(s);
	dir_files(dir, &f);
	/* the segment's base and count scrambled */
	poke(f.last, 8, "\xff\xff\xff\xff\xff\xff\xff\xf0", 8);
	log_set_quiet(true);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	expect_seq(s, 2, 5);
	append_n(s, 5, 6);
	expect_seq(s, 2, 6);
	spool_close(s);
	/* spool.head scrambled: delivery starts again at the oldest (sent twice, not lost) */
	snprintf(path, sizeof(path), "%s/spool.head", dir);
	poke(path, 3, "\x42", 1);
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &s), 0);
	log_set_quiet(false);
	expect_seq(s, 0, 6);
	pos = spool_tail(s);
	ck_assert_int_eq(spool_ack(s, pos), 0);
	append_n(s, 6, 7);
	expect_seq(s, 6, 7);
	spool_close(s);
	sb_free(&sb);
	rm_rf(dir);
}
END_TEST

/* Write a spool of the previous format (one file, BRSPOOL1): records from..to-1, head after `delivered`. */
static void write_legacy(const char *dir, int from, int to, int delivered, bool checksum)
{
	char path[512], msg[64];
	unsigned char h[32];
	uint64_t base = 1000, head = base, v;
	FILE *o;

	snprintf(path, sizeof(path), "%s/spool", dir);
	o = fopen(path, "w");
	ck_assert(o != NULL);
	memset(h, 0, sizeof(h));
	fwrite(h, 1, sizeof(h), o);
	for (int i = from; i < to; i++) {
		uint32_t magic = 0x31535242u, len, sum = 2166136261u;
		int n = snprintf(msg, sizeof(msg), "message %d", i);

		for (int k = 0; k < n; k++) {
			sum ^= (unsigned char)msg[k];
			sum *= 16777619u;
		}
		len = (uint32_t)n;
		fwrite(&magic, 4, 1, o);
		fwrite(&len, 4, 1, o);
		fwrite(&sum, 4, 1, o);
		fwrite(msg, 1, (size_t)n, o);
		if (i - from < delivered)
			head += 12 + (uint64_t)n;
	}
	memcpy(h, "BRSPOOL1", 8);
	memcpy(h + 8, &base, 8);
	memcpy(h + 16, &head, 8);
	if (checksum) {
		uint32_t sum = 2166136261u;

		for (int k = 0; k < 24; k++) {
			sum ^= h[k];
			sum *= 16777619u;
		}
		v = sum ? sum : 1;
		memcpy(h + 24, &v, 8);
	}
	fseek(o, 0, SEEK_SET);
	fwrite(h, 1, sizeof(h), o);
	fclose(o);
}

/* The spool of the previous version is taken over at the first start: nothing lost. */
START_TEST(test_legacy_spool)
{
	for (int checksum = 0; checksum < 2; checksum++) {
		const char *dir = make_tmpdir();
		char path[512];
		struct dir_files f;
		struct spool *s;

		write_legacy(dir, 0, 8, 3, checksum);
		log_set_quiet(true);
		ck_assert_int_eq(spool_open(dir, 1 << 20, true, &s), 0);
		log_set_quiet(false);
		ck_assert_uint_eq(spool_get_stats(s)->records, 5);
		expect_seq(s, 3, 8);
		append_n(s, 8, 10);
		expect_seq(s, 3, 10);
		spool_close(s);
		snprintf(path, sizeof(path), "%s/spool", dir);
		ck_assert_int_eq(access(path, F_OK), -1);
		dir_files(dir, &f);
		ck_assert_int_eq(f.segments, 1);
		ck_assert_int_eq(spool_open(dir, 1 << 20, true, &s), 0);
		expect_seq(s, 3, 10);
		spool_close(s);
		rm_rf(dir);
	}
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
	ck_assert_uint_le(spool_get_stats(s)->syncs, 3);	/* the acks: spool.head */
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

START_TEST(test_delivered_segments_removed)
{
	const char *dir = make_tmpdir();
	struct spool *s;
	struct strbuf sb = STRBUF_INIT;
	struct dir_files f;
	char big[4096];
	uint64_t pos, next, keep;
	int i;

	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &s), 0);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(spool_append(s, big, sizeof(big)), 0);
	append_n(s, 0, 3);
	dir_files(dir, &f);
	ck_assert_int_ge(f.segments, 4);	/* 1 MiB segments */
	/* ack all big ones: their segments go */
	pos = spool_head(s);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(spool_read(s, pos, &sb, &pos), 0);
	keep = pos;
	ck_assert_int_eq(spool_ack(s, pos), 0);
	ck_assert(spool_head(s) == keep);
	ck_assert_int_eq(spool_read(s, keep, &sb, &next), 0);
	ck_assert_str_eq(sb.buf, "message 0");
	dir_files(dir, &f);
	ck_assert_int_eq(f.segments, 1);
	ck_assert_int_lt(f.bytes, 1 << 20);
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

/*
 * issue 22 #7: a free-space reserve like auditd's space_left.  On a 2 MiB
 * file system (a tmpfs of this test's own mount namespace) with
 * spool_min_free 1M, the spool stops growing at the reserve: it drops its
 * oldest entries (counted), and refuses an entry when nothing is left to
 * drop (the file system filled by something else).
 */
START_TEST(test_free_space_reserve)
{
	const char *dir = make_tmpdir();
	char rec[1000], path[512], *log;
	struct spool *s;
	struct dir_files f;
	int fd, r;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("brute-test", dir, "tmpfs", 0, "size=2m,mode=0700") < 0) {
		test_skip("spool: the free-space reserve needs a private tmpfs mount (root, CAP_SYS_ADMIN)");
		rm_rf(dir);
		return;
	}
	memset(rec, 'f', sizeof(rec));
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &s), 0);
	spool_set_min_free(s, 1 << 20);
	stderr_capture_begin();
	for (int i = 0; i < 3000; i++)
		ck_assert_int_eq(spool_append(s, rec, sizeof(rec)), 0);
	log = stderr_capture_end();
	ck_assert_msg(strstr(log, "free-space reserve") != NULL, "%s", log);
	free(log);
	dir_files(dir, &f);
	/* 2 MiB - 1 MiB reserved: the spool kept under ~1 MiB, the oldest dropped, counted */
	ck_assert_int_le(f.bytes, 1 << 20);
	ck_assert_uint_gt(spool_get_stats(s)->dropped, 1500);
	ck_assert_uint_eq(spool_get_stats(s)->records + spool_get_stats(s)->dropped, 3000);
	ck_assert_uint_eq(spool_get_stats(s)->refused, 0);
	spool_close(s);
	/* something else fills the file system: once its own entries are gone, refused */
	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	for (int i = 0; i < 2048; i++)
		if (write(fd, rec, sizeof(rec)) < 0)
			break;
	close(fd);
	ck_assert_int_eq(spool_open(dir, 64 << 20, false, &s), 0);
	spool_set_min_free(s, 1 << 20);
	stderr_capture_begin();
	for (int i = 0; i < 5; i++) {
		r = spool_append(s, rec, sizeof(rec));
		if (r < 0)
			break;
	}
	log = stderr_capture_end();
	ck_assert_int_eq(r, -ENOSPC);
	ck_assert_uint_ge(spool_get_stats(s)->refused, 1);
	ck_assert_msg(strstr(log, "nothing is left to drop: new entries are refused") != NULL, "%s", log);
	free(log);
	spool_close(s);
	umount(dir);
	rm_rf(dir);
}
END_TEST

Suite *spool_suite(void)
{
	Suite *s = suite_create("spool");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_restart_replay);
	tcase_add_test(tc, test_torn_tail);
	tcase_add_test(tc, test_bounded_drop_oldest);
	tcase_add_test(tc, test_delivered_segments_removed);
	tcase_add_test(tc, test_file_within_limit);
	tcase_add_test(tc, test_full_drops_a_segment);
	tcase_add_test(tc, test_open_work_bounded);
	tcase_add_test(tc, test_one_bad_record);
	tcase_add_test(tc, test_bad_record_found_when_read);
	tcase_add_test(tc, test_quarantine_bounds);
	tcase_add_test(tc, test_spool_locked);
	tcase_add_test(tc, test_corrupt_metadata);
	tcase_add_test(tc, test_legacy_spool);
	tcase_add_test(tc, test_group_commit);
	tcase_add_test(tc, test_free_space_reserve);
	suite_add_tcase(s, tc);
	return s;
}
