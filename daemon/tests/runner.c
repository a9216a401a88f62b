/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runner.c - one binary running every suite; shared helpers.
 * Prints "checks: N run, N failed" for tests/run-checks.sh to add up.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

const char *fixture(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("BRUTE_FIXTURES");

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/fixtures", name);
	return buf;
}

unsigned count_of(const char *s, const char *what)
{
	unsigned n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			ck_assert(buf != NULL);
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

const char *make_tmpdir(void)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "/tmp/brute-test.XXXXXX");
	ck_assert(mkdtemp(buf) != NULL);
	return buf;
}

void rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char sub[4096];

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rm_rf(sub);
	}
	closedir(d);
	rmdir(path);
}

void test_skip(const char *why)
{
	const char *f = getenv("BRUTE_SKIP_FILE");

	printf("SKIPPED: %s\n", why);
	fflush(stdout);
	if (f) {
		FILE *o = fopen(f, "a");

		if (o) {
			fprintf(o, "%s\n", why);
			fclose(o);
		}
	}
}

static int saved_stderr = -1;
static FILE *capture_file;

void stderr_capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	ck_assert(capture_file != NULL);
	saved_stderr = dup(2);
	ck_assert(saved_stderr >= 0);
	ck_assert(dup2(fileno(capture_file), 2) == 2);
}

char *stderr_capture_end(void)
{
	char *buf;
	long n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	n = ftell(capture_file);
	buf = calloc(1, (size_t)n + 1);
	ck_assert(buf != NULL);
	rewind(capture_file);
	ck_assert(fread(buf, 1, (size_t)n, capture_file) == (size_t)n);
	fclose(capture_file);
	capture_file = NULL;
	return buf;
}

void entry_copy(struct entry *dst, const struct entry *src)
{
	entry_init(dst, src->kind, src->priority, src->timestamp_usec);
	if (src->message)
		entry_set_message(dst, "%s", src->message);
	for (size_t i = 0; i < src->n_fields; i++)
		entry_add_full(dst, src->fields[i].name, src->fields[i].value, src->fields[i].numeric);
}

void collect_cb(const struct entry *e, void *userdata)
{
	struct collected *c = userdata;

	c->e = realloc(c->e, (c->n + 1) * sizeof(*c->e));
	ck_assert(c->e != NULL);
	entry_copy(&c->e[c->n++], e);
}

void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		entry_free(&c->e[i]);
	free(c->e);
	c->e = NULL;
	c->n = 0;
}

int find_entry(const struct collected *c, enum entry_kind kind, int nth)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].kind == kind && nth-- == 0)
			return (int)i;
	return -1;
}

struct fixture_ctx {
	struct correlate *corr;
};

static void fixture_record(const struct brute_record *r, void *userdata)
{
	struct fixture_ctx *ctx = userdata;
	uint64_t now = r->sec * 1000 + r->milli;

	correlate_tick(ctx->corr, now);
	ck_assert_int_eq(correlate_record(ctx->corr, r, now), 0);
}

void run_fixture(const char *name, const struct correlate_config *cfg,
		 struct collected *out, struct parser_stats *ps)
{
	struct correlate_config def;
	struct fixture_ctx ctx;
	struct parser *p;
	size_t len;
	char *data = read_file(fixture(name), &len);

	if (!cfg) {
		correlate_config_defaults(&def);
		def.record_time = true;
		cfg = &def;
	}
	memset(out, 0, sizeof(*out));
	ctx.corr = correlate_new(cfg, collect_cb, out);
	p = parser_new(fixture_record, &ctx);
	ck_assert(ctx.corr && p);
	ck_assert_int_eq(parser_feed(p, data, len), 0);
	ck_assert_int_eq(parser_finish(p), 0);
	correlate_close_all(ctx.corr, "end-of-input");
	if (ps)
		*ps = *parser_get_stats(p);
	parser_free(p);
	correlate_free(ctx.corr);
	free(data);
}

int main(int argc, char **argv)
{
	SRunner *sr = srunner_create(util_suite());
	int run, failed;

	(void)argc;
	(void)argv;
	log_set_max_level(LOG_WARNING);
	srunner_add_suite(sr, parser_suite());
	srunner_add_suite(sr, long_records_suite());
	srunner_add_suite(sr, correlate_suite());
	srunner_add_suite(sr, journal_suite());
	srunner_add_suite(sr, siem_suite());
	srunner_add_suite(sr, spool_suite());
	srunner_add_suite(sr, spool_loss_suite());
	srunner_add_suite(sr, forward_suite());
	srunner_add_suite(sr, delivery_suite());
	srunner_add_suite(sr, tls_suite());
	srunner_add_suite(sr, relp_suite());
	srunner_add_suite(sr, config_suite());
	srunner_add_suite(sr, daemon_suite());
	srunner_add_suite(sr, unit_suite());
	srunner_add_suite(sr, health_suite());
	srunner_add_suite(sr, v4_suite());
	srunner_add_suite(sr, actions_suite());
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("checks: %d run, %d failed\n", run, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
