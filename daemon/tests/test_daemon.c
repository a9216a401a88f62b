/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The brute-reportd binary end to end: replay, plugin mode latency and
 * SIGTERM, configuration errors.  BRUTE_REPORTD names the binary.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "spool.h"
#include "status.h"

struct child {
	pid_t pid;
	int in, out, err;
};

static const char *binary(void)
{
	const char *b = getenv("BRUTE_REPORTD");

	return b ? b : "./brute-reportd";
}

/* set: the child's stdin is this file (c->in is then unused) */
static const char *spawn_stdin;

static void spawn(struct child *c, char *const argv[])
{
	int in[2], out[2], err[2];

	ck_assert(pipe(in) == 0 && pipe(out) == 0 && pipe(err) == 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		dup2(in[0], 0);
		if (spawn_stdin) {
			int fd = open(spawn_stdin, O_RDONLY | O_CLOEXEC);

			if (fd < 0 || dup2(fd, 0) < 0)
				_exit(127);
		}
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
	ck_assert_int_eq(count_of(out, "\n"), 8);
	ck_assert_int_eq(count_of(out, "\"kind\":\"attack\""), 1);
	ck_assert_int_eq(count_of(out, "\"kind\":\"closed\""), 5);
	ck_assert_int_eq(count_of(out, "\"attack_type\":\"exec\""), 3);
	free(out);
	free(err);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--input",
				 (char *)fixture("malformed.log"), "--stats", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	ck_assert(strstr(err, "skipped 8 malformed") != NULL);
	ck_assert(strstr(err, "garbage 3") != NULL);
	ck_assert(strstr(out, "closed (end-of-input)") != NULL);
	free(out);
	free(err);
	/* v3: peer bans, lost records and an uncharged crash, in the log and the counters */
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--input",
				 (char *)fixture("v3-peers.log"), "--stats", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	ck_assert_int_eq(count_of(out, " peer_ban: Peer 2001:db8:1:2::/64 banned from tcp [::]:443 in netns 4026531840 for 600 s"), 1);
	ck_assert_int_eq(count_of(out, " peer_unban: Ban of peer 2001:db8:1:2::/64 on tcp [::]:443"), 1);
	ck_assert_msg(strstr(err, "could not emit 3 Brute audit records (3 since boot") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "could not emit 1 Brute audit record (6 since boot") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "peer bans 1, peer ban ends 1, uncharged crashes 1, records the kernel dropped 6;") != NULL,
		      "%s", err);
	ck_assert(strstr(err, "malformed 0,") != NULL);
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
	ck_assert_int_eq(count_of(err, "\n"), 1);
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

/* A key of the state file in dir, "" when absent. */
static void state_key(const char *dir, const char *key, char *val, size_t len)
{
	if (status_read_key(dir, key, val, len) < 0)
		val[0] = '\0';
}

/* Wait (20 s at most) until dir's state file has key=want (want ending in '*': a prefix). */
static bool state_is(const char *dir, const char *key, const char *want)
{
	char v[512];
	size_t n = strlen(want);

	for (int i = 0; i < 200; i++) {
		state_key(dir, key, v, sizeof(v));
		if (want[n - 1] == '*' ? !strncmp(v, want, n - 1) : !strcmp(v, want))
			return true;
		usleep(100000);
	}
	return false;
}

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
	/* issue 31 #2: what is refused is counted in the state file, and logged with its ID */
	n = snprintf(line, sizeof(line),
		     "type=UNKNOWN[1714] msg=audit(%lld.000:6): brute_hierarchy=4294967397 opid=x ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\nnot a record\n",
		     (long long)time(NULL));
	ck_assert(write(c.in, line, (size_t)n) == n);
	ck_assert(state_is(dir, "records_malformed", "1"));
	ck_assert(state_is(dir, "lines_garbage", "1"));
	kill(c.pid, SIGTERM);
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	ck_assert_msg(strstr(err, ".000:6): an invalid or too long value of opid") != NULL, "%s", err);
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

/* Read fd into sb until it holds what (20 s at most). */
static bool read_until(int fd, struct strbuf *sb, const char *what)
{
	char buf[4096];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (int i = 0; i < 200 && !strstr(sb_str(sb), what); i++) {
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		sb_put(sb, buf, (size_t)n);
	}
	return strstr(sb_str(sb), what) != NULL;
}

/*
 * Two counters the daemon kept but showed nowhere: the entries of other
 * hosts' records it reports without acting on them (node= not local_node),
 * and the records taken at auditd's length limit (maybe cut).  Now they are
 * in the state file (remote_ignored, records_cut: brutectl status) and in
 * the counters SIGUSR1 logs.
 */
START_TEST(test_plugin_remote_and_cut_counted)
{
	static const char remote[] = "node=evil.example type=UNKNOWN[1713] msg=audit(1700000000.100:78): brute_hierarchy=4297000004 origin=4297000004 attack=backstop speed=fast faults=32 ema_ms=40 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill source=unknown backstop_faults=32 cgroup=\"/system.slice/apache2.service\" ppid=1 pid=970 auid=4294967295 uid=33 gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 comm=\"apache2\" exe=\"/usr/sbin/apache2\"\n";
	const char *dir = make_tmpdir();
	struct strbuf in = STRBUF_INIT, log = STRBUF_INIT;
	char conf[512], *out, *err;
	struct child c;

	/* a record line of auditd's limit (its exe= cut between two bytes of its hex) */
	auditd_limit_line(&in);
	sb_putc(&in, '\n');
	sb_puts(&in, remote);

	write_config(conf, sizeof(conf), dir,
		     "journal = no\nbackstop_restart = no\nlocal_node = here.example\n");
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", NULL };
		spawn(&c, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	ck_assert(write(c.in, in.buf, in.len) == (ssize_t)in.len);
	ck_assert(state_is(dir, "records", "2"));
	ck_assert(state_is(dir, "records_cut", "1"));
	ck_assert(state_is(dir, "remote_ignored", "1"));
	/* SIGUSR1: the counters, these two among them */
	kill(c.pid, SIGUSR1);
	ck_assert_msg(read_until(c.err, &log, "maybe cut by auditd 1,"), "%s", sb_str(&log));
	ck_assert_msg(strstr(sb_str(&log), "of other hosts not acted upon 1,"), "%s", sb_str(&log));
	kill(c.pid, SIGTERM);
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	free(out);
	free(err);
	sb_free(&in);
	sb_free(&log);
	rm_rf(dir);
}
END_TEST

/*
 * Input that stays readable: ppoll() returned at once without delivering
 * the blocked SIGTERM, which waited until the input was idle or at its end
 * (a steady stream, here a large file on stdin: poll() always says ready).
 * Now it is taken on the next turn of the loop: the daemon stops long
 * before the end of its input, closing what is open (shutdown).
 */
#define STREAM_PAIRS 100000

static void write_stream(const char *path)
{
	const char *subj = "ppid=1 pid=2000 auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm=\"crashy\" exe=\"/usr/local/bin/crashy\"";
	FILE *f = fopen(path, "w");

	ck_assert(f != NULL);
	/* one incident that stays open until the daemon stops */
	fprintf(f, "type=UNKNOWN[1714] msg=audit(1700000000.000:1): brute_hierarchy=4294967300 opid=4 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n");
	for (unsigned long long i = 0; i < STREAM_PAIRS; i++)
		fprintf(f, "type=UNKNOWN[1710] msg=audit(1700000001.000:%llu): brute_hierarchy=%llu status=allocated exec_parent=0 %s\n"
			"type=UNKNOWN[1710] msg=audit(1700000001.000:%llu): brute_hierarchy=%llu status=deallocated faults=0 attacks=0 killed=0 boundaries=none\n",
			10 + 2 * i, 4294967396ull + i, subj, 11 + 2 * i, 4294967396ull + i);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_sigterm_under_steady_input)
{
	const char *dir = make_tmpdir();
	char conf[512], stream[512], buf[256], *out, *err, *lines;
	struct pollfd p;
	struct child c;

	write_config(conf, sizeof(conf), dir, "journal = no\n");
	snprintf(stream, sizeof(stream), "%s/stream.log", dir);
	write_stream(stream);
	setenv("RUNTIME_DIRECTORY", dir, 1);
	spawn_stdin = stream;
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", "--stats", NULL };
		spawn(&c, argv);
	}
	spawn_stdin = NULL;
	unsetenv("RUNTIME_DIRECTORY");
	/* the open incident's kill entry: the daemon reads */
	p.fd = c.out;
	p.events = POLLIN;
	ck_assert_int_eq(poll(&p, 1, 10000), 1);
	ck_assert_int_gt(read(c.out, buf, sizeof(buf)), 0);
	kill(c.pid, SIGTERM);
	ck_assert_int_eq(finish(&c, &out, &err), 0);
	/* stopped before the end of its input */
	lines = strstr(err, "brute-reportd: lines ");
	ck_assert_msg(lines != NULL, "%s", err);
	ck_assert_msg(strtoull(lines + 21, NULL, 10) < 2 * STREAM_PAIRS + 1,
		      "SIGTERM waited for the end of the input: %.60s", lines);
	ck_assert_msg(strstr(out, "closed (shutdown)") != NULL, "no shutdown closure");
	free(out);
	free(err);
	rm_rf(dir);
}
END_TEST

/* A TCP port nothing listens on (bound, then released). */
static unsigned closed_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	getsockname(fd, (struct sockaddr *)&sa, &len);
	close(fd);
	return ntohs(sa.sin_port);
}

/* Read c's stdout until it holds needle (10 s at most). */
static void wait_output(struct child *c, const char *needle, struct strbuf *got)
{
	struct pollfd p = { .fd = c->out, .events = POLLIN };
	char buf[4096];

	while (!strstr(sb_str(got), needle)) {
		ssize_t n;

		ck_assert_msg(poll(&p, 1, 10000) == 1, "no \"%s\" in: %s", needle, sb_str(got));
		n = read(c->out, buf, sizeof(buf));
		ck_assert_int_gt(n, 0);
		sb_put(got, buf, (size_t)n);
	}
}

/*
 * issue 22 #1: two daemons, one spool.  Instance B (brute-reportd -i FILE
 * --forward, with the service's configuration) spooled while instance A
 * ran, A appended at its stale offset, and at the next start B's entries
 * were gone.  Now B stops at once with an error naming A; A's entries are
 * all in the spool.
 */
START_TEST(test_two_instances_one_spool)
{
	const char *dir = make_tmpdir();
	char conf[512], text[1024], spool[600], line[1024], pidstr[32], *out, *err;
	struct strbuf got = STRBUF_INIT, sb = STRBUF_INIT;
	struct child a, b;
	struct spool *sp;
	uint64_t pos, next;
	int n, entries = 0;

	snprintf(spool, sizeof(spool), "%s/spool", dir);
	snprintf(text, sizeof(text), "journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\n"
		 "siem_port = %u\nsiem_kinds = boundary,attack,kill,closed\nspool_dir = %s\n",
		 closed_port(), spool);
	write_config(conf, sizeof(conf), dir, text);
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&a, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	n = snprintf(line, sizeof(line),
		     "type=UNKNOWN[1714] msg=audit(%lld.000:4): brute_hierarchy=4294967395 opid=4 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
		     (long long)time(NULL));
	ck_assert(write(a.in, line, (size_t)n) == n);
	wait_output(&a, "\"kind\":\"kill\"", &got);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--input",
				 (char *)fixture("exec_attack.log"), "--forward", "--output", "none", NULL };
		spawn(&b, argv);
	}
	ck_assert_int_eq(finish(&b, &out, &err), 1);
	snprintf(pidstr, sizeof(pidstr), "in use by process %d ", (int)a.pid);
	ck_assert_msg(strstr(err, pidstr) != NULL, "%s", err);
	free(out);
	free(err);
	kill(a.pid, SIGTERM);
	ck_assert_int_eq(finish(&a, &out, &err), 0);
	free(out);
	free(err);
	/* A's kill and its closed (shutdown) entry, nothing of B's, nothing cut */
	ck_assert_int_eq(spool_open(spool, 1 << 20, false, &sp), 0);
	ck_assert_uint_eq(spool_get_stats(sp)->truncated_bytes, 0);
	ck_assert_uint_eq(spool_get_stats(sp)->corrupt, 0);
	for (pos = spool_head(sp); spool_read(sp, pos, &sb, &next) == 0; pos = next) {
		struct entry e;

		ck_assert_int_eq(entry_deserialize(sb.buf, sb.len, &e), 0);
		ck_assert(e.kind == ENTRY_KILL || e.kind == ENTRY_CLOSED);
		entry_free(&e);
		entries++;
	}
	ck_assert_int_eq(entries, 2);
	spool_close(sp);
	sb_free(&sb);
	sb_free(&got);
	rm_rf(dir);
}
END_TEST

/* Feed one kill record of hierarchy h to a plugin-mode daemon; wait for its entry. */
static void feed_kill(struct child *c, unsigned h, struct strbuf *got)
{
	char line[512], want[64];
	int n = snprintf(line, sizeof(line),
			 "type=UNKNOWN[1714] msg=audit(%lld.000:%u): brute_hierarchy=%u opid=%u ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
			 (long long)time(NULL), h, h, h);

	ck_assert(write(c->in, line, (size_t)n) == n);
	snprintf(want, sizeof(want), "\"hierarchy\":\"%u\"", h);
	wait_output(c, want, got);
}

/* "KIND:HIERARCHY ..." of the entries in the spool at dir, in order. */
static void spool_kinds(const char *dir, char *out, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	struct spool *sp;
	uint64_t pos, next;
	size_t n = 0;

	out[0] = '\0';
	ck_assert_int_eq(spool_open(dir, 1 << 20, false, &sp), 0);
	for (pos = spool_head(sp); spool_read(sp, pos, &sb, &next) == 0; pos = next) {
		struct entry e;
		const char *h = "?";

		ck_assert_int_eq(entry_deserialize(sb.buf, sb.len, &e), 0);
		for (size_t i = 0; i < e.n_fields; i++)
			if (!strcmp(e.fields[i].name, "HIERARCHY"))
				h = e.fields[i].value;
		n += (size_t)snprintf(out + n, len - n, "%s%s:%s", n ? " " : "", entry_kind_name(e.kind), h);
		entry_free(&e);
	}
	spool_close(sp);
	sb_free(&sb);
}

static int run_reload(const char *rundir, char **err)
{
	struct child c;
	char *out;
	int rc;

	setenv("RUNTIME_DIRECTORY", rundir, 1);
	{
		char *argv[] = { "brute-reportd", "--reload", NULL };
		spawn(&c, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	rc = finish(&c, &out, err);
	free(out);
	return rc;
}

/*
 * issue 22 #2: SIGHUP with a spool_dir the daemon cannot use logged "SIEM
 * forwarding disabled", then "configuration reloaded", and dropped every
 * later alert without a counter moving.  Now such a reload is refused: the
 * running configuration stays (the next alert is spooled where the
 * previous ones were), brute-reportd --reload exits 1 with the reason,
 * --check-config fails on the file; a good reload then applies, and the
 * client exits 0.
 */
START_TEST(test_reload_refused_keeps_forwarding)
{
	const char *dir = make_tmpdir();
	char conf[512], text[1024], a[600], b[600], bad[600], kinds[1024], *out, *err;
	struct strbuf got = STRBUF_INIT;
	struct child d, c;
	unsigned port = closed_port();
	FILE *f;

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(bad, sizeof(bad), "%s/not-a-directory", dir);
	ck_assert((f = fopen(bad, "w")) != NULL);
	fclose(f);
#define CONF(spool) do { \
		snprintf(text, sizeof(text), "journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\n" \
			 "siem_port = %u\nsiem_kinds = attack,kill,closed\nspool_dir = %s\n", port, spool); \
		write_config(conf, sizeof(conf), dir, text); \
	} while (0)
	CONF(a);
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&d, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	feed_kill(&d, 4001, &got);

	/* a spool_dir that cannot be used: refused, said, the running configuration kept */
	CONF(bad);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--check-config", NULL };
		spawn(&c, argv);
	}
	ck_assert_int_eq(finish(&c, &out, &err), 1);
	ck_assert_msg(strstr(err, "spool_dir") && strstr(err, "not-a-directory"), "%s", err);
	ck_assert(strstr(out, "configuration OK") == NULL);
	free(out);
	free(err);
	ck_assert_int_eq(run_reload(dir, &err), 1);
	ck_assert_msg(strstr(err, "reload refused") && strstr(err, "not-a-directory"), "%s", err);
	free(err);
	feed_kill(&d, 4002, &got);

	/* a good one: applied */
	CONF(b);
	ck_assert_int_eq(run_reload(dir, &err), 0);
	ck_assert_msg(strstr(err, "reloaded") != NULL, "%s", err);
	free(err);
	feed_kill(&d, 4003, &got);
#undef CONF
	kill(d.pid, SIGTERM);
	ck_assert_int_eq(finish(&d, &out, &err), 0);
	ck_assert_msg(strstr(err, "reload failed, keeping the running configuration") != NULL, "%s", err);
	free(out);
	free(err);
	/* 4002 came after the refused reload: spooled with 4001, in the running spool */
	spool_kinds(a, kinds, sizeof(kinds));
	ck_assert_str_eq(kinds, "kill:4001 kill:4002");
	spool_kinds(b, kinds, sizeof(kinds));
	/* then the shutdown's closed entries, in the table's order */
	ck_assert_msg(!strncmp(kinds, "kill:4003 closed:", 17) && strlen(kinds) == 45 &&
		      strstr(kinds, "closed:4001") && strstr(kinds, "closed:4002") &&
		      strstr(kinds, "closed:4003"), "%s", kinds);
	sb_free(&got);
	rm_rf(dir);
}
END_TEST

/* Accept one connection on lfd, read it to its end (or until nothing came for 5 s), close
 * ours: a syslog receiver's part.  A connection its sender gave up on ends too (its FIN
 * follows what it sent). */
static void serve_one(int lfd)
{
	struct pollfd p = { .events = POLLIN };
	char buf[4096];
	ssize_t n = 1;

	p.fd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(p.fd, 0);
	while (n > 0 && poll(&p, 1, 5000) == 1)
		n = read(p.fd, buf, sizeof(buf));
	close(p.fd);
}

/*
 * issue 22, delivery state: what operators ask for first.  The state file
 * (and STATUS=, and brutectl status from it) says whether the SIEM is
 * connected, the last error, when the last delivery was, the time of the
 * oldest spooled alert, and the failures: with the receiver down, then
 * up.  issue 31 #1: in between, a receiver that accepts and never reads:
 * its TCP stack takes the alert, which is neither delivered nor
 * connected (it showed siem_connected=1, a last delivery and spooled=0).
 */
START_TEST(test_delivery_state)
{
	const char *dir = make_tmpdir();
	char conf[512], text[1024], v[512], *out, *err;
	struct strbuf got = STRBUF_INIT;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct child d;
	unsigned port = closed_port();
	uint64_t t0 = (uint64_t)time(NULL) * 1000000, oldest;
	int lfd, cfd;

	snprintf(text, sizeof(text), "journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\n"
		 "siem_port = %u\nsiem_kinds = kill\nsiem_retry_min = 1\nsiem_retry_max = 1\n"
		 "siem_timeout = 1\nspool_dir = %s/spool\n", port, dir);
	write_config(conf, sizeof(conf), dir, text);
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&d, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	feed_kill(&d, 5001, &got);
	/* down: not connected, why, failures, the oldest alert waiting */
	ck_assert(state_is(dir, "siem", "tcp"));
	snprintf(text, sizeof(text), "127.0.0.1:%u", port);
	ck_assert(state_is(dir, "siem_target", text));
	ck_assert(state_is(dir, "siem_connected", "0"));
	ck_assert_msg(state_is(dir, "siem_last_error", "connect: Connection refused*"), "siem_last_error");
	ck_assert(state_is(dir, "spooled", "1"));
	state_key(dir, "siem_failures", v, sizeof(v));
	ck_assert_int_ge(atoi(v), 1);
	state_key(dir, "siem_last_delivery_usec", v, sizeof(v));
	ck_assert_str_eq(v, "0");
	state_key(dir, "spool_oldest_usec", v, sizeof(v));
	oldest = strtoull(v, NULL, 10);
	ck_assert_msg(oldest >= t0 - 2000000 && oldest <= t0 + 60000000, "oldest %llu, t0 %llu",
		      (unsigned long long)oldest, (unsigned long long)t0);

	/* stalled: a receiver that accepts and never reads (its stack takes the alert) */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)), 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	cfd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(cfd, 0);
	ck_assert_msg(state_is(dir, "siem_last_error", "no progress:*"), "siem_last_error");
	ck_assert(state_is(dir, "siem_connected", "0"));
	state_key(dir, "spooled", v, sizeof(v));
	ck_assert_str_eq(v, "1");
	state_key(dir, "siem_last_delivery_usec", v, sizeof(v));
	ck_assert_str_eq(v, "0");
	state_key(dir, "siem_resent", v, sizeof(v));
	ck_assert_int_ge(atoi(v), 1);
	close(cfd);	/* killed, the alert unread: gone with it */

	/* up: the receiver reads, and closes its end when the daemon's ends (connections the
	 * daemon gave up on may wait in the queue before its current one: each is served) */
	for (int i = 0; i < 200; i++) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		state_key(dir, "spooled", v, sizeof(v));
		if (!strcmp(v, "0"))
			break;
		if (poll(&p, 1, 100) == 1)
			serve_one(lfd);
	}
	ck_assert(state_is(dir, "siem_connected", "1"));
	ck_assert(state_is(dir, "spooled", "0"));
	ck_assert(state_is(dir, "spool_oldest_usec", "0"));
	state_key(dir, "siem_last_delivery_usec", v, sizeof(v));
	ck_assert_uint_ge(strtoull(v, NULL, 10), t0);
	kill(d.pid, SIGTERM);
	ck_assert_int_eq(finish(&d, &out, &err), 0);
	free(out);
	free(err);
	close(lfd);
	sb_free(&got);
	rm_rf(dir);
}
END_TEST

/*
 * issue 31 #3: the spool's oldest segment file removed while the daemon was
 * stopped: 31 entries were gone without a line or a count.  Now the daemon
 * says so at start and alerts_dropped counts them, entry by entry.
 */
START_TEST(test_missing_segment_counted)
{
	const char *dir = make_tmpdir();
	char conf[512], text[1024], spool[600], path[700], want[32], *out, *err;
	struct strbuf sb = STRBUF_INIT;
	uint64_t pos, next, second = 0;
	struct spool *sp;
	struct child d;
	int lost = 0;

	snprintf(spool, sizeof(spool), "%s/spool", dir);
	ck_assert_int_eq(mkdir(spool, 0700), 0);
	/* 4 KiB segments (spool_max_size 256 KiB): 80 kill entries make several */
	ck_assert_int_eq(spool_open(spool, 256 * 1024, false, &sp), 0);
	for (int i = 0; i < 80; i++) {
		struct entry e;

		entry_init(&e, ENTRY_KILL, LOG_CRIT, 1700000000000000ull + (uint64_t)i);
		entry_set_message(&e, "Killed 1 task of hierarchy %d (/usr/sbin/victim-with-a-long-name)", i);
		entry_add_u64(&e, "HIERARCHY", (uint64_t)i);
		sb_reset(&sb);
		ck_assert_int_eq(entry_serialize(&e, &sb), 0);
		ck_assert_int_eq(spool_append(sp, sb.buf, sb.len), 0);
		entry_free(&e);
	}
	/* the entries of the first segment file: those before the second one's base */
	for (pos = spool_head(sp); spool_read(sp, pos, &sb, &next) == 0; pos = next) {
		snprintf(path, sizeof(path), "%s/spool.%016llx", spool, (unsigned long long)next);
		if (access(path, F_OK) == 0) {
			second = next;
			lost++;
			break;
		}
		lost++;
	}
	ck_assert_uint_gt(second, 0);
	spool_close(sp);
	sb_free(&sb);
	snprintf(path, sizeof(path), "%s/spool.%016llx", spool, 0ull);
	ck_assert_int_eq(unlink(path), 0);

	snprintf(text, sizeof(text), "journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\n"
		 "siem_port = %u\nspool_dir = %s\nspool_max_size = 256K\n", closed_port(), spool);
	write_config(conf, sizeof(conf), dir, text);
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", NULL };
		spawn(&d, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	snprintf(want, sizeof(want), "%d", lost);
	ck_assert_msg(state_is(dir, "alerts_dropped", want), "alerts_dropped");
	snprintf(want, sizeof(want), "%d", 80 - lost);
	ck_assert(state_is(dir, "spooled", want));
	kill(d.pid, SIGTERM);
	ck_assert_int_eq(finish(&d, &out, &err), 0);
	snprintf(text, sizeof(text), "%d entries never delivered, counted as dropped", lost);
	ck_assert_msg(strstr(err, "the oldest segment file is missing") && strstr(err, text), "%s", err);
	free(out);
	free(err);
	rm_rf(dir);
}
END_TEST

/*
 * issue 31 #4: a reload that changes one SIEM key replaces the forwarder,
 * and zeroed its counters: siem_failures, siem_last_delivery_usec (and
 * alerts_parked, its share of alerts_dropped).  They go on now.
 */
START_TEST(test_reload_keeps_counters)
{
	const char *dir = make_tmpdir();
	char conf[512], text[1024], delivered[64], v[64], *out, *err;
	struct strbuf got = STRBUF_INIT;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned port = closed_port();
	struct child d;
	int lfd, failures;

#define CONF(timeout) do { \
		snprintf(text, sizeof(text), "journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\n" \
			 "siem_port = %u\nsiem_kinds = kill\nsiem_retry_min = 1\nsiem_retry_max = 1\n" \
			 "siem_timeout = %d\nspool_dir = %s/spool\n", port, timeout, dir); \
		write_config(conf, sizeof(conf), dir, text); \
	} while (0)
	CONF(10);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)), 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&d, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	/* a delivery, then the receiver goes: failures */
	feed_kill(&d, 6001, &got);
	serve_one(lfd);
	for (int i = 0; i < 200; i++) {
		state_key(dir, "siem_last_delivery_usec", delivered, sizeof(delivered));
		if (strtoull(delivered, NULL, 10) > 0)
			break;
		usleep(100000);
	}
	ck_assert_uint_gt(strtoull(delivered, NULL, 10), 0);
	close(lfd);
	feed_kill(&d, 6002, &got);
	for (int i = 0; i < 200; i++) {
		state_key(dir, "siem_failures", v, sizeof(v));
		if (atoi(v) >= 3)
			break;
		usleep(100000);
	}
	failures = atoi(v);
	ck_assert_int_ge(failures, 3);
	/* one SIEM key changes: a new forwarder, the same spool */
	CONF(20);
#undef CONF
	ck_assert_int_eq(run_reload(dir, &err), 0);
	free(err);
	state_key(dir, "reload_result", v, sizeof(v));
	ck_assert_str_eq(v, "ok");
	state_key(dir, "siem_failures", v, sizeof(v));
	ck_assert_msg(atoi(v) >= failures, "siem_failures %s after the reload, %d before", v, failures);
	state_key(dir, "siem_last_delivery_usec", v, sizeof(v));
	ck_assert_str_eq(v, delivered);
	state_key(dir, "siem_last_error", v, sizeof(v));
	ck_assert_msg(!strncmp(v, "connect: ", 9), "siem_last_error %s", v);
	kill(d.pid, SIGTERM);
	ck_assert_int_eq(finish(&d, &out, &err), 0);
	free(out);
	free(err);
	sb_free(&got);
	rm_rf(dir);
}
END_TEST

/*
 * A private tmpfs on /run, in a mount namespace of this test's own process
 * (root, CAP_SYS_ADMIN), with journald's directory; false: skipped (@why).
 */
static bool private_run(const char *why)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("brute-test", "/run", "tmpfs", 0, "size=1m,mode=0755") < 0) {
		test_skip(why);
		return false;
	}
	ck_assert_int_eq(mkdir("/run/systemd", 0755), 0);
	ck_assert_int_eq(mkdir("/run/systemd/journal", 0755), 0);
	return true;
}

/*
 * issue 31 #4: the auditd plugin wrote the service's state file
 * (/run/brute-reportd/status) and removed it when it stopped.  Now it has
 * its own (/run/brute-reportd-plugin/status) and never removes another
 * daemon's; and the journal's refusals are in it.  /run: a tmpfs in a mount
 * namespace of this test's own process (root).
 */
START_TEST(test_plugin_state_file)
{
	const char *dir = make_tmpdir();
	char conf[512], *out, *err, v[64];
	struct strbuf got = STRBUF_INIT;
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket" };
	struct child d;
	int jfd;
	FILE *f;

	if (!private_run("daemon: the plugin's state file needs a private /run (root, CAP_SYS_ADMIN)")) {
		rm_rf(dir);
		return;
	}
	/* the service's, as it writes it (its pid: this test's, alive) */
	ck_assert_int_eq(mkdir("/run/brute-reportd", 0755), 0);
	ck_assert((f = fopen("/run/brute-reportd/status", "w")) != NULL);
	fprintf(f, "version=1\npid=%d\nrecords=7\n", (int)getpid());
	fclose(f);
	/* journald's socket, nobody behind it (a journald that died): sending fails (with no
	 * socket at all, sd_journal_sendv() drops entries silently) */
	jfd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_eq(bind(jfd, (struct sockaddr *)&un, sizeof(un)), 0);
	close(jfd);
	write_config(conf, sizeof(conf), dir, "journal = yes\n");
	unsetenv("RUNTIME_DIRECTORY");
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&d, argv);
	}
	feed_kill(&d, 7001, &got);
	ck_assert(state_is("/run/brute-reportd-plugin", "records", "1"));
	ck_assert(state_is("/run/brute-reportd-plugin", "journal_failures", "1"));
	state_key("/run/brute-reportd", "records", v, sizeof(v));
	ck_assert_str_eq(v, "7");	/* the service's, untouched */
	kill(d.pid, SIGTERM);
	ck_assert_int_eq(finish(&d, &out, &err), 0);
	ck_assert_int_eq(access("/run/brute-reportd-plugin/status", F_OK), -1);
	ck_assert_int_eq(access("/run/brute-reportd/status", F_OK), 0);
	free(out);
	free(err);
	sb_free(&got);
	umount("/run");
	rm_rf(dir);
}
END_TEST

/*
 * A journald that stopped reading its socket: sd_journal_sendv() blocked
 * the loop, no record was read any more, the SIEM got nothing and SIGTERM
 * waited.  Now the journal has its own worker thread: entries keep coming
 * out, what the journal cannot take is dropped and counted, and the daemon
 * stops at once.  /run: a private tmpfs (root, CAP_SYS_ADMIN).
 */
START_TEST(test_stalled_journal)
{
	const char *dir = make_tmpdir();
	char conf[512], want[64], *out, *err;
	struct strbuf got = STRBUF_INIT;
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket" };
	struct timespec t0, t1;
	struct child d;
	int jfd, small = 1;
	unsigned n = 1100;

	if (!private_run("daemon: a stalled journal needs a private /run (root, CAP_SYS_ADMIN)")) {
		rm_rf(dir);
		return;
	}
	/* journald's socket, bound and never read */
	jfd = socket(AF_UNIX, SOCK_DGRAM, 0);
	setsockopt(jfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	ck_assert_int_eq(bind(jfd, (struct sockaddr *)&un, sizeof(un)), 0);
	write_config(conf, sizeof(conf), dir, "journal = yes\n");
	setenv("RUNTIME_DIRECTORY", dir, 1);
	{
		char *argv[] = { "brute-reportd", "--config", conf, "--stdin", "--output", "json", NULL };
		spawn(&d, argv);
	}
	unsetenv("RUNTIME_DIRECTORY");
	/* more kills than the journal's queue holds: each one's entry still comes out */
	for (unsigned h = 1; h <= n; h++) {
		char line[512];
		int len = snprintf(line, sizeof(line),
				   "type=UNKNOWN[1714] msg=audit(%lld.000:%u): brute_hierarchy=%u opid=%u ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
				   (long long)time(NULL), h, h, h);

		ck_assert(write(d.in, line, (size_t)len) == len);
		if (h % 100 == 0) {
			snprintf(want, sizeof(want), "\"hierarchy\":\"%u\"", h);
			wait_output(&d, want, &got);
		}
	}
	/* the drops are counted in the state file */
	{
		char v[64] = "";

		for (int i = 0; i < 200 && strtoull(v, NULL, 10) == 0; i++) {
			usleep(100000);
			state_key(dir, "journal_failures", v, sizeof(v));
		}
		ck_assert_msg(strtoull(v, NULL, 10) > 0, "journal_failures=%s", v);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(d.pid, SIGTERM);
	ck_assert_int_eq(finish(&d, &out, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_msg((t1.tv_sec - t0.tv_sec) < 10, "stopped after %lld s", (long long)(t1.tv_sec - t0.tv_sec));
	ck_assert_msg(strstr(err, "its queue of 1024 is full: entries are dropped") != NULL, "%s", err);
	close(jfd);
	free(out);
	free(err);
	sb_free(&got);
	umount("/run");
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
	tcase_add_test(tc, test_plugin_remote_and_cut_counted);
	tcase_add_test(tc, test_sigterm_under_steady_input);
	tcase_add_test(tc, test_two_instances_one_spool);
	tcase_add_test(tc, test_reload_refused_keeps_forwarding);
	tcase_add_test(tc, test_delivery_state);
	tcase_add_test(tc, test_missing_segment_counted);
	tcase_add_test(tc, test_reload_keeps_counters);
	tcase_add_test(tc, test_plugin_state_file);
	tcase_add_test(tc, test_stalled_journal);
	suite_add_tcase(s, tc);
	return s;
}
