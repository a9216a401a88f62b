/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"
#include "config.h"

/* Run f with stderr captured into a malloc'ed string. */
static char *capture_stderr(int (*f)(void *), void *arg, int *ret)
{
	char path[] = "/tmp/brute-stderr.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	char *out;

	fflush(stderr);
	dup2(fd, 2);
	*ret = f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	out = read_file(path, NULL);
	unlink(path);
	return out;
}

struct parse_args {
	const char *text;
	struct brute_config *cfg;
};

static int do_parse(void *a)
{
	struct parse_args *pa = a;

	return config_parse_string("test.conf", pa->text, pa->cfg);
}

START_TEST(test_good)
{
	struct brute_config cfg;
	const char *text =
		"# brute-reportd\n"
		"\n"
		"siem_protocol = tcp\n"
		"siem_host = 127.0.0.1   # trailing comment\n"
		"siem_port=6514\n"
		"siem_kinds = attack, kill,closed,boundary\n"
		"siem_facility = local3\n"
		"max_hierarchies = 200000\n"
		"incident_idle_timeout = 30\n"
		"spool_max_size = 8M\n"
		"spool_dir = /var/tmp/x\n"
		"journal = no\n"
		"kill_coalesce_ms = 0\n"
		"siem_enterprise_id = 53864\n"
		"json_format = ecs\n";

	config_defaults(&cfg);
	ck_assert_int_eq(config_parse_string("test.conf", text, &cfg), 0);
	ck_assert_int_eq(cfg.fwd.protocol, SIEM_TCP);
	ck_assert_str_eq(cfg.fwd.host, "127.0.0.1");
	ck_assert_str_eq(cfg.fwd.port, "6514");
	ck_assert_uint_eq(cfg.siem_kinds, 0xf);
	ck_assert_int_eq(cfg.fwd.facility, LOG_LOCAL3);
	ck_assert_uint_eq(cfg.corr.max_hierarchies, 200000);
	ck_assert_uint_eq(cfg.corr.incident_idle_ms, 30000);
	ck_assert_uint_eq(cfg.spool_max_size, 8u << 20);
	ck_assert_str_eq(cfg.spool_dir, "/var/tmp/x");
	ck_assert(!cfg.journal);
	ck_assert_uint_eq(cfg.corr.kill_coalesce_ms, 0);
	ck_assert_str_eq(cfg.fwd.siem.sd_id, "brute@53864");
	ck_assert_int_eq(cfg.fwd.siem.json_format, SIEM_JSON_ECS);
	/* v2 kinds: forwarded by default, selectable by name */
	config_defaults(&cfg);
	ck_assert_uint_eq(cfg.fwd.max_message, 8192);
	ck_assert_uint_eq(cfg.corr.max_memory, 192u << 20);
	ck_assert_uint_eq(cfg.fwd.timeout_ms, 30000);
	ck_assert_int_eq(config_parse_string("test.conf", "siem_timeout = 5\n", &cfg), 0);
	ck_assert_uint_eq(cfg.fwd.timeout_ms, 5000);
	ck_assert_int_lt(config_parse_string("test.conf", "siem_timeout = 3601\n", &cfg), 0);
	ck_assert_int_eq(config_parse_string("test.conf", "max_memory = 64M\n", &cfg), 0);
	ck_assert_uint_eq(cfg.corr.max_memory, 64u << 20);
	ck_assert_int_lt(config_parse_string("test.conf", "max_memory = 1M\n", &cfg), 0);
	ck_assert_int_eq(config_parse_string("test.conf", "siem_max_message = 4K\n", &cfg), 0);
	ck_assert_uint_eq(cfg.fwd.max_message, 4096);
	ck_assert_int_lt(config_parse_string("test.conf", "siem_max_message = 1K\n", &cfg), 0);
	ck_assert_int_lt(config_parse_string("test.conf", "siem_max_message = 64K\n", &cfg), 0);
	ck_assert(cfg.siem_kinds & (1u << ENTRY_BAN));
	ck_assert(cfg.siem_kinds & (1u << ENTRY_UNBAN));
	ck_assert_int_eq(config_parse_string("test.conf", "siem_kinds = ban,unban\n", &cfg), 0);
	ck_assert_uint_eq(cfg.siem_kinds, (1u << ENTRY_BAN) | (1u << ENTRY_UNBAN));
	/* backstop_reload: Debian's php-fpm and sshd by default; a list; none; nothing else */
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.backstop_reload, "php*-fpm.service php*-fpm@*.service ssh.service sshd.service");
	ck_assert_int_eq(config_parse_string("test.conf", "backstop_reload = a.service,b@*.service  php8.[23]-fpm.service\n", &cfg), 0);
	ck_assert_str_eq(cfg.backstop_reload, "a.service b@*.service php8.[23]-fpm.service");
	ck_assert_int_eq(config_parse_string("test.conf", "backstop_reload = none\n", &cfg), 0);
	ck_assert_str_eq(cfg.backstop_reload, "");
	ck_assert_int_lt(config_parse_string("test.conf", "backstop_reload = nginx\n", &cfg), 0);
	ck_assert_int_lt(config_parse_string("test.conf", "backstop_reload = a.socket\n", &cfg), 0);
	ck_assert_int_lt(config_parse_string("test.conf", "backstop_reload = ../x.service\n", &cfg), 0);
	ck_assert_int_lt(config_parse_string("test.conf", "backstop_reload = ,\n", &cfg), 0);
	ck_assert_str_eq(cfg.backstop_reload, "");
}
END_TEST

START_TEST(test_every_bad_line_reported)
{
	struct brute_config cfg, before;
	struct parse_args pa = { 0 };
	char *err;
	int r;

	pa.text =
		"siem_protocol = tcp\n"		/* 1 ok */
		"bogus_key = 1\n"		/* 2 unknown */
		"max_hierarchies = lots\n"	/* 3 not a number */
		"no equals sign here\n"		/* 4 syntax */
		"siem_port = 70000\n"		/* 5 range */
		"journal =\n"			/* 6 empty */
		"siem_protocol = udp\n"		/* 7 duplicate */
		"spool_dir = relative/path\n";	/* 8 not absolute */
	config_defaults(&cfg);
	before = cfg;
	pa.cfg = &cfg;
	err = capture_stderr(do_parse, &pa, &r);
	ck_assert_int_eq(r, -EINVAL);
	for (int line = 2; line <= 8; line++) {
		char want[32];

		snprintf(want, sizeof(want), "test.conf:%d:", line);
		ck_assert_msg(strstr(err, want) != NULL, "line %d not reported in:\n%s", line, err);
	}
	ck_assert(strstr(err, "test.conf:1:") == NULL);
	ck_assert(strstr(err, "unknown keyword \"bogus_key\"") != NULL);
	/* siem_host missing is reported too */
	ck_assert(strstr(err, "needs siem_host") != NULL);
	/* nothing of a rejected file is applied */
	ck_assert(memcmp(&cfg, &before, sizeof(cfg)) == 0);
	free(err);
}
END_TEST

START_TEST(test_file_permissions)
{
	const char *dir = make_tmpdir();
	char path[512];
	struct brute_config cfg;
	FILE *f;

	if (geteuid() != 0) {
		test_skip("config: ownership checks need root");
		rm_rf(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/reportd.conf", dir);
	f = fopen(path, "w");
	fputs("journal = no\n", f);
	fclose(f);
	config_defaults(&cfg);
	chmod(path, 0600);
	ck_assert_int_eq(config_load(path, &cfg), 0);
	ck_assert(!cfg.journal);
	chmod(path, 0666);
	ck_assert_int_eq(config_load(path, &cfg), -EPERM);
	chmod(path, 0600);
	ck_assert_int_eq(chown(path, 1234, 1234), 0);
	ck_assert_int_eq(config_load(path, &cfg), -EPERM);
	ck_assert_int_eq(config_load("/nonexistent/reportd.conf", &cfg), -ENOENT);
	ck_assert_int_eq(chown(path, 0, 0), 0);
	/*
	 * its directory: anyone who may write it may replace the file (issue:
	 * a root-owned 0600 file in a 0777 directory was taken)
	 */
	chmod(dir, 0777);
	ck_assert_int_eq(config_load(path, &cfg), -EPERM);
	chmod(dir, 01777);	/* sticky (/tmp): nobody else may rename or remove root's file */
	ck_assert_int_eq(config_load(path, &cfg), 0);
	ck_assert_int_eq(chown(dir, 0, 1234), 0);
	chmod(dir, 0770);	/* a group other than root's */
	ck_assert_int_eq(config_load(path, &cfg), -EPERM);
	ck_assert_int_eq(chown(dir, 1234, 0), 0);
	chmod(dir, 0700);	/* another user's directory */
	ck_assert_int_eq(config_load(path, &cfg), -EPERM);
	ck_assert_int_eq(chown(dir, 0, 0), 0);
	chmod(dir, 0700);
	ck_assert_int_eq(config_load(path, &cfg), 0);
	/* not run by root (a replay, the package's tests as the build user): that user's own
	 * file, or root's, is taken; another user's is not */
	chmod(dir, 0755);
	chmod(path, 0644);
	{
		pid_t pid = fork();
		int st;

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct brute_config c;
			int bad = 0;

			log_set_quiet(true);
			if (setresgid(1234, 1234, 1234) < 0 || setresuid(1234, 1234, 1234) < 0)
				_exit(100);
			config_defaults(&c);
			bad |= (config_load(path, &c) != 0) << 0;		/* its own */
			bad |= (config_load("/etc/passwd", &c) != -EINVAL) << 1;	/* root's: read */
			_exit(bad);
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %d", WEXITSTATUS(st));
		ck_assert_int_eq(chown(path, 4321, 4321), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct brute_config c;

			log_set_quiet(true);
			if (setresgid(1234, 1234, 1234) < 0 || setresuid(1234, 1234, 1234) < 0)
				_exit(100);
			config_defaults(&c);
			_exit(config_load(path, &c) == -EPERM ? 0 : 1);	/* another user's */
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %d", WEXITSTATUS(st));
	}
	rm_rf(dir);
}
END_TEST

/*
 * issue 11 #9: after the default file disappeared, a SIGHUP switched to the
 * built-in defaults and silently turned forwarding off.  The reload path
 * (required: a reload must read its file) keeps the running configuration.
 */
START_TEST(test_reload_missing_file)
{
	const char *dir = make_tmpdir();
	char path[512];
	struct brute_config cfg, before;
	FILE *f;

	if (geteuid() != 0) {
		test_skip("config: reading a root-owned file needs root");
		rm_rf(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/reportd.conf", dir);
	f = fopen(path, "w");
	fputs("siem_protocol = json\nsiem_host = 192.0.2.1\n", f);
	fclose(f);
	chmod(path, 0600);
	/* startup with the default path: read it */
	ck_assert_int_eq(config_read(path, false, &cfg), 0);
	ck_assert_int_eq(cfg.fwd.protocol, SIEM_JSON);
	before = cfg;
	unlink(path);
	/* reload: the file is gone, nothing changes */
	ck_assert_int_eq(config_read(path, true, &cfg), -ENOENT);
	ck_assert(memcmp(&cfg, &before, sizeof(cfg)) == 0);
	/* a file that cannot be read (a directory) neither */
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_lt(config_read(path, true, &cfg), 0);
	ck_assert(memcmp(&cfg, &before, sizeof(cfg)) == 0);
	rmdir(path);
	/* startup without the default file: the built-in defaults */
	ck_assert_int_eq(config_read(path, false, &cfg), 0);
	ck_assert_int_eq(cfg.fwd.protocol, SIEM_NONE);
	rm_rf(dir);
}
END_TEST

/*
 * issue 22 #1: the auditd plugin and the service both spooled into
 * /var/lib/brute-reportd by default.  The plugin (--stdin) has its own
 * directory, whatever auditd's environment says; the service keeps its
 * StateDirectory=.
 */
START_TEST(test_spool_dir_defaults)
{
	struct brute_config cfg;

	setenv("STATE_DIRECTORY", "/var/lib/brute-reportd:/var/lib/other", 1);
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.spool_dir, "/var/lib/brute-reportd");
	config_set_plugin_mode(true);
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.spool_dir, "/var/lib/brute-reportd/plugin");
	unsetenv("STATE_DIRECTORY");
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.spool_dir, "/var/lib/brute-reportd/plugin");
	/* a spool_dir in the file wins in both */
	ck_assert_int_eq(config_parse_string("p", "spool_dir = /srv/spool\n", &cfg), 0);
	ck_assert_str_eq(cfg.spool_dir, "/srv/spool");
	config_set_plugin_mode(false);
	setenv("STATE_DIRECTORY", "/run/state", 1);
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.spool_dir, "/run/state");
	unsetenv("STATE_DIRECTORY");
	config_defaults(&cfg);
	ck_assert_str_eq(cfg.spool_dir, "/var/lib/brute-reportd");
}
END_TEST

Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_every_bad_line_reported);
	tcase_add_test(tc, test_file_permissions);
	tcase_add_test(tc, test_reload_missing_file);
	tcase_add_test(tc, test_spool_dir_defaults);
	suite_add_tcase(s, tc);
	return s;
}
