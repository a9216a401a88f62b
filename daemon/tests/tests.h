/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tests.h - shared helpers for the libcheck suites of brute-reportd. */
#ifndef BRUTE_TESTS_H
#define BRUTE_TESTS_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "entry.h"
#include "parser.h"
#include "correlate.h"

Suite *util_suite(void);
Suite *parser_suite(void);
Suite *correlate_suite(void);
Suite *journal_suite(void);
Suite *siem_suite(void);
Suite *spool_suite(void);
Suite *forward_suite(void);
Suite *tls_suite(void);
Suite *relp_suite(void);
Suite *config_suite(void);
Suite *daemon_suite(void);
Suite *unit_suite(void);
Suite *health_suite(void);
Suite *v4_suite(void);
Suite *actions_suite(void);
Suite *delivery_suite(void);
Suite *spool_loss_suite(void);
Suite *long_records_suite(void);

/* Path of a fixture under tests/fixtures (static buffer). */
const char *fixture(const char *name);
/* Whole file into a malloc'ed NUL-terminated buffer. */
char *read_file(const char *path, size_t *len);
/* How many times what occurs in s (overlapping ones counted). */
unsigned count_of(const char *s, const char *what);
/* A fresh temporary directory (static buffer, removed by rm_rf). */
const char *make_tmpdir(void);
void rm_rf(const char *path);
/* Certificates made with certtool for this run (test_tls.c): false without certtool.
 * pki_file(): a file of it (static buffers, 4 in turn); pki_cleanup() removes them. */
bool make_pki(void);
const char *pki_file(const char *name);
void pki_cleanup(void);

/* Record a visibly skipped test (counted by tests/run-checks.sh). */
void test_skip(const char *why);

/* Capture what the code under test writes to stderr (its log). */
void stderr_capture_begin(void);
char *stderr_capture_end(void);	/* malloc'ed */

/* Collected entries of one correlation run. */
struct collected {
	struct entry *e;
	size_t n;
};

void collect_cb(const struct entry *e, void *userdata);
void collected_free(struct collected *c);
/* Feed a fixture through parser + correlator (record time), then close all. */
void run_fixture(const char *name, const struct correlate_config *cfg,
		 struct collected *out, struct parser_stats *ps);
/* Copy of an entry (deep). */
void entry_copy(struct entry *dst, const struct entry *src);
/* A BRUTE_ATTACK record line of auditd's limit, AUDITD_LINE_MAX long (test_long_records.c). */
struct strbuf;
void auditd_limit_line(struct strbuf *in);
/* Index of the n-th entry of a kind, or -1. */
int find_entry(const struct collected *c, enum entry_kind kind, int nth);

#endif
