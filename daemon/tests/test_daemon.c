/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The brute-reportd binary end to end: replay, plugin mode latency and
 * SIGTERM, configuration errors.  BRUTE_REPORTD names the binary.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"

struct child {
	pid_t pid;
	int in, out, err;
};

static const char *binary(void)
{
	const char *b = getenv("BRUTE_REPORTD");

	return b ? b : "./brute-reportd";
}

static void spawn(struct child *c, char *const argv[])
{
	int in[2], out[2], err[2];

	ck_assert(pipe(in) == 0 && pipe(out) == 0 && pipe(err) == 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		unsetenv("NOTIFY_SOCKET");
		unsetenv("JOURNAL_STREAM");
		execv(binary(), argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	c->in = in[1];
	c->out = out[0];
	c->err = err[0];
}

static char *slurp(int fd)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sb_put(&sb, buf, (size_t)n);
	close(fd);
	return sb.buf ? sb.buf : strdup("");
}

static int finish(struct child *c, char **out, char **err)
{
	int st;

	if (c->in >= 0)
		close(c->in);
	*out = slurp(c->out);
	*err = slurp(c->err);
	ck_assert_int_eq(waitpid(c->pid, &st, 0), c->pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int count_lines(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void write_config(char *path, size_t len, const char *dir, const char *text)
{
	FILE *f;

	snprintf(path, len, "%s/reportd.conf", dir);
	f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
}

START_TEST(test_replay)
{
	const char *dir = make_tmpdir();
	char conf[512], *out, *err;
	struct child c;

	write_config(conf, sizeof(conf), dir, "journal = yes\n");
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--input",
				 (char *)fixture("exec_attack.log"), "--output", "json", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	ck_assert_int_eq(count_lines(out, "\n"), 8);
	ck_assert_int_eq(count_lines(out, "\"kind\":\"attack\""), 1);
	ck_assert_int_eq(count_lines(out, "\"kind\":\"closed\""), 5);
	ck_assert_int_eq(count_lines(out, "\"attack_type\":\"exec\""), 3);
	free(out);
	free(err);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--input",
				 (char *)fixture("malformed.log"), "--stats", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	ck_assert(strstr(err, "skipped 7 malformed") != NULL);
	ck_assert(strstr(err, "garbage 3") != NULL);
	ck_assert(strstr(out, "closed (end-of-input)") != NULL);
	free(out);
	free(err);
	rm_rf(dir);
}
END_TEST

/* No byte that a terminal or a line-based reader acts on: C0, DEL, C1 (raw or UTF-8). */
static void assert_inert_text(const char *s, const char *what)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		ck_assert_msg((*p >= 0x20 && *p != 0x7f) || *p == '\n',
			      "%s: control byte 0x%02x at offset %zu", what, *p,
			      (size_t)(p - (const unsigned char *)s));
		ck_assert_msg(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f),
			      "%s: C1 control at offset %zu", what, (size_t)(p - (const unsigned char *)s));
		if (*p >= 0x80) {
			size_t n = utf8_seq_len(p);

			ck_assert_msg(n > 1, "%s: invalid UTF-8 byte 0x%02x", what, *p);
			p += n - 1;
		}
	}
}

/*
 * Names chosen by the attacker (hex-encoded comm/exe/oexe with LF, ESC,
 * BEL, C1 CSI) never forge a line or reach a terminal raw: text output
 * and the daemon's own log (issue 11, #4).
 */
START_TEST(test_hostile_names)
{
	const char *dir = make_tmpdir();
	char conf[512], *out, *err, *save = NULL, *line;
	struct child c;
	int headers = 0, fields = 0;

	write_config(conf, sizeof(conf), dir, "journal = no\n");
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--input",
				 (char *)fixture("hostile-names.log"), "--output", "text", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	assert_inert_text(out, "stdout");
	assert_inert_text(err, "stderr");
	/* attack, kill, closed: a header line and a fields line each, nothing else */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "2023-11-14T23:20:00.", 20) == 0)
			headers++;
		else if (strncmp(line, "    ", 4) == 0)
			fields++;
		else
			ck_abort_msg("forged line: %s", line);
	}
	ck_assert_int_eq(headers, 3);
	ck_assert_int_eq(fields, 3);
	/* the daemon's log: one line, the name still recognisable */
	ck_assert_int_eq(count_lines(err, "\n"), 1);
	ck_assert_msg(strstr(err, "(/usr/sbin/sys\\012ctl\\033[31m)") != NULL, "%s", err);
	free(out);
	free(err);
	rm_rf(dir);
}
END_TEST

START_TEST(test_bad_config_refused)
{
	const char *dir = make_tmpdir();
	char conf[512], *out, *err;
	struct child c;

	write_config(conf, sizeof(conf), dir, "journal = yes\nsiem_port = x\nfoo = 1\n");
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--check-config", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 1);
	ck_assert(strstr(err, "reportd.conf:2: siem_port") != NULL);
	ck_assert(strstr(err, "reportd.conf:3: unknown keyword \"foo\"") != NULL);
	free(out);
	free(err);
	write_config(conf, sizeof(conf), dir, "journal = yes\n");
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--check-config", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	ck_assert(strstr(out, "configuration OK") != NULL);
	free(out);
	free(err);
	{
		char *argv[] = { "brute-reportd", "--no-such-option", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 1);
	free(out);
	free(err);
	rm_rf(dir);
}
END_TEST

/* auditd plugin mode: a kill record reaches the output quickly; SIGTERM exits 0. */
START_TEST(test_plugin_latency_sigterm)
{
	const char *dir = make_tmpdir();
	char conf[512], line[1024], buf[8192], *out, *err;
	struct child c;
	struct timespec t0, t1;
	struct pollfd p;
	size_t got = 0;
	double ms;
	int n;

	write_config(conf, sizeof(conf), dir, "journal = no\n");
	/* the state file brutectl reads: in $RUNTIME_DIRECTORY, as under the unit */
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&c, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	/* a first record until its entry comes out: started, warmed up (ASan on a loaded host) */
	n = snprintf(line, sizeof(line),
		     "type=UNKNOWN[1714] msg=audit(%lld.000:4): brute_hierarchy=4294967395 opid=4 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
		     (long long)time(NULL));
	ck_assert(write(c.in, line, (size_t)n) == n);
	p.fd = c.out;
	p.events = POLLIN;
	while (got == 0 || buf[got - 1] != '\n') {
		ck_assert_int_eq(poll(&p, 1, 10000), 1);
		ssize_t r = read(c.out, buf + got, sizeof(buf) - got - 1);
		ck_assert_int_gt(r, 0);
		got += (size_t)r;
	}
	got = 0;
	n = snprintf(line, sizeof(line),
		     "type=UNKNOWN[1714] msg=audit(%lld.000:5): brute_hierarchy=4294967396 opid=5 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
		     (long long)time(NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert(write(c.in, line, (size_t)n) == n);
	p.fd = c.out;
	p.events = POLLIN;
	while (got == 0 || buf[got - 1] != '\n') {
		ck_assert_int_eq(poll(&p, 1, 5000), 1);
		ssize_t r = read(c.out, buf + got, sizeof(buf) - got - 1);
		ck_assert_int_gt(r, 0);
		got += (size_t)r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	buf[got] = '\0';
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ck_assert(strstr(buf, "\"kind\":\"kill\"") != NULL);
	ck_assert_msg(ms < 100, "kill record to entry took %.1f ms", ms);
	/* the counters reach the state file within STATUS_MIN_INTERVAL_MS (5 s) */
	{
		char path[600], *st = NULL;
		bool seen = false;

		snprintf(path, sizeof(path), "%s/status", dir);
		for (int i = 0; i < 100 && !seen; i++) {
			usleep(100000);
			if (access(path, R_OK) != 0)
				continue;
			st = read_file(path, NULL);
			seen = strstr(st, "\nrecords=2\n") && strstr(st, "\nincidents=2\n");
			free(st);
		}
		ck_assert_msg(seen, "no records=2 incidents=2 in %s", path);
	}
	kill(c.pid, SIGTERM);
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	/* shutdown closes the open incident with a summary */
	ck_assert(strstr(out, "closed (shutdown)") != NULL);
	/* and takes the state file away: brutectl shows no stale counters */
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/status", dir);
		ck_assert_int_eq(access(path, F_OK), -1);
	}
	free(out);
	free(err);
	rm_rf(dir);
}
END_TEST

Suite *daemon_suite(void)
{
	Suite *s = suite_create("daemon");
	TCase *tc = tcase_create("binary");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replay);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_bad_config_refused);
	tcase_add_test(tc, test_plugin_latency_sigterm);
	suite_add_tcase(s, tc);
	return s;
}
