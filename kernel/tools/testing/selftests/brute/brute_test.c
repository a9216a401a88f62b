// SPDX-License-Identifier: GPL-2.0
/*
 * Brute LSM selftests
 *
 * Each test starts an attacker (./attacker, execve()d so that it has a fresh
 * fork hierarchy) against a target (./crasher, or ./crasher_suid installed
 * set-user-ID root by run.sh), then asserts how every task of the attack
 * ended: killed by SIGKILL when Brute detects the attack, alive otherwise.
 * Run each test in its own process (run.sh does): the test process is the
 * exec parent of the attackers' hierarchies.
 *
 * Needs root (it switches to UID 1000 where a case needs a user), the
 * set-user-ID copy of the crasher, and for the network cases the network
 * namespaces brute_srv and brute_cli joined by a veth pair (10.199.0.1 and
 * 10.199.0.2; run.sh sets them up).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define USER_UID 1000
#define ATTEMPTS 12
#define SRV_NETNS "/run/netns/brute_srv"
#define CLI_NETNS "/run/netns/brute_cli"
#define SRV_ADDR "10.199.0.1"

static const char *const tunables[] = {
	"mode", "crash_period_threshold_ms", "min_faults", "max_faults",
	"ema_weight_numerator", "ema_weight_denominator", "ban_time_s",
	"table_size", "forget_time_s",
};

#define LIFT "/sys/kernel/security/brute/lift"
#define TARGETS "/sys/kernel/security/brute/targets"

static char dir[PATH_MAX];

static int run_as(uid_t uid, const char *path, const char *arg);
static int banned_in_table(uid_t uid, const char *name);

static const char *path_of(const char *name)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *p = buf[next++ % 4];

	if (!dir[0]) {
		ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

		if (len < 0)
			return name;
		dir[len] = '\0';
		*strrchr(dir, '/') = '\0';
	}
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static int sysctl_write(const char *name, const char *value)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/kernel/brute/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static long sysctl_read(const char *name)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/kernel/brute/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtol(buf, NULL, 10);
}

struct run {
	pid_t pid;
	FILE *out;
};

/*
 * Start @argv with its stdout on a pipe, as @uid (dropping every privilege
 * before the execve(), so the new hierarchy starts with that user's IDs and
 * no boundary crossed).
 */
static struct run start(uid_t uid, char *const argv[])
{
	struct run run = { .pid = -1 };
	int fds[2];

	/* Close-on-exec: only the attacker's stdout may hold the pipe. */
	if (pipe2(fds, O_CLOEXEC))
		return run;
	run.pid = fork();
	if (!run.pid) {
		dup2(fds[1], STDOUT_FILENO);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	run.out = fdopen(fds[0], "r");
	return run;
}

/* Read the attacker's output until EOF; collect the sibling's pid. */
static pid_t drain(struct run *run, int *done)
{
	char line[128];
	pid_t sibling = -1;

	*done = 0;
	while (fgets(line, sizeof(line), run->out)) {
		if (!strncmp(line, "sibling ", 8))
			sibling = atoi(line + 8);
		else if (!strcmp(line, "done\n"))
			*done = 1;
	}
	fclose(run->out);
	return sibling;
}

/* How did @pid end: the signal that killed it, or 0 for a normal exit. */
static int end_signal(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static int alive(pid_t pid)
{
	return !kill(pid, 0);
}

/* Kill and reap a sibling that must have survived. */
static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int kmsg_has(const char *needle)
{
	static char buf[1 << 20];
	int len = klogctl(3, buf, sizeof(buf) - 1);

	if (len < 0)
		return 0;
	buf[len] = '\0';
	return !!strstr(buf, needle);
}

/* Connect @count times to the server, from the client namespace. */
static pid_t start_client(const char *netns, const char *addr, int count)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (netns) {
		int fd = open(netns, O_RDONLY);

		if (fd < 0 || setns(fd, CLONE_NEWNET))
			_exit(2);
		close(fd);
	}
	for (int i = 0; i < count; i++) {
		struct sockaddr_in sa = {
			.sin_family = AF_INET,
			.sin_port = htons(7777),
		};
		int tries, fd = -1;

		inet_pton(AF_INET, addr, &sa.sin_addr);
		for (tries = 0; tries < 200; tries++) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
				break;
			close(fd);
			fd = -1;
			usleep(20000);
		}
		if (fd < 0)
			_exit(0); /* The server is gone. */
		if (write(fd, "x", 1) != 1)
			_exit(0);
		/* Wait for the server to close it: one attempt at a time. */
		char byte;

		while (read(fd, &byte, 1) > 0)
			;
		close(fd);
	}
	_exit(0);
}

/* Write @what to the lift file: "all", "flush" or "UID DEV INO". */
static int lift(const char *what)
{
	int fd = open(LIFT, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, what, strlen(what)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

FIXTURE(brute) {
	char saved[9][32];
};

FIXTURE_SETUP(brute)
{
	size_t i;

	if (access("/proc/sys/kernel/brute", F_OK))
		SKIP(return, "Brute is not enabled");
	for (i = 0; i < ARRAY_SIZE(tunables); i++) {
		snprintf(self->saved[i], sizeof(self->saved[i]), "%ld",
			 sysctl_read(tunables[i]));
	}
	/* Orphaned members of an attack come back to us to be reaped. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	/* Every test starts with an empty (user, target) table. */
	if (!access(LIFT, F_OK))
		ASSERT_EQ(0, lift("flush"));
}

FIXTURE_TEARDOWN(brute)
{
	size_t i;

	/* Restore in an order the cross-checks accept. */
	sysctl_write("ema_weight_denominator", "1000");
	sysctl_write("min_faults", "1");
	sysctl_write("max_faults", "1000000");
	for (i = 0; i < ARRAY_SIZE(tunables); i++)
		sysctl_write(tunables[i], self->saved[i]);
	lift("flush");
}

/* Run an attack; return how the attacker and its sibling ended. */
static void attack(struct __test_metadata *_metadata, uid_t uid,
		   char *const argv[], int *attacker_sig, int *sibling_sig,
		   int *done)
{
	struct run run = start(uid, argv);
	pid_t sibling;

	ASSERT_GT(run.pid, 0);
	sibling = drain(&run, done);
	*attacker_sig = end_signal(run.pid);
	*sibling_sig = -1;
	if (sibling > 0) {
		/* The sibling is reparented to us once the attacker is gone. */
		usleep(100000);
		if (alive(sibling) && !kill(sibling, 0)) {
			int status;

			if (waitpid(sibling, &status, WNOHANG) == sibling)
				*sibling_sig = WIFSIGNALED(status) ?
					       WTERMSIG(status) : 0;
			else
				*sibling_sig = 0, reap(sibling);
		} else {
			*sibling_sig = end_signal(sibling);
		}
	}
}

#define ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })

/* 1. Fork attack, user signals, after a privilege change: not counted. */
TEST_F(brute, fork_user_signals_not_counted)
{
	int a, s, done;

	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "-k", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/* 2. Exec attack on a set-user-ID target killed by its user: not counted. */
TEST_F(brute, exec_user_signals_not_counted)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "-k", "exec", "12",
		    (char *)path_of("crasher_suid"), "pause"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/* 3. Fork attack, real crashes, no boundary: not detected. */
TEST_F(brute, fork_no_boundary_not_detected)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "fork", "12"),
	       &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/* 4. Exec attack, real crashes, no boundary: not detected. */
TEST_F(brute, exec_no_boundary_not_detected)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher"), "segv"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/* 5. Fork attack inside a set-user-ID program: the hierarchy is killed. */
TEST_F(brute, fork_setuid_detected)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-s", "fork", "12"),
	       &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/* 6. Exec attack against a set-user-ID program: the attacker is killed. */
TEST_F(brute, exec_setuid_detected)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher_suid"), "segv"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/* 7. Fork attack after a privilege change: the hierarchy is killed. */
TEST_F(brute, fork_cred_change_detected)
{
	int a, s, done;

	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/* 8. Exec attack on targets that change privileges: the attacker dies. */
TEST_F(brute, exec_cred_change_detected)
{
	int a, s, done;

	attack(_metadata, 0,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher"), "-u", "1000", "segv"),
	       &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

static void network_attack(struct __test_metadata *_metadata,
			   const char *mode, const char *netns_srv,
			   const char *netns_cli, const char *addr,
			   int *a, int *s, int *done)
{
	char spec[64];
	pid_t client;
	char *const fork_argv[] = { (char *)path_of("attacker"), "-s",
		"-n", (char *)netns_srv, "-l", spec, "fork", "12", NULL };
	char *const exec_argv[] = { (char *)path_of("attacker"), "-s",
		"-n", (char *)netns_srv, "-R", "-l", spec, "exec", "12",
		(char *)path_of("crasher"), "-r", "segv", NULL };

	snprintf(spec, sizeof(spec), "%s:7777", addr);
	client = start_client(netns_cli, addr, 12);
	ASSERT_GT(client, 0);
	attack(_metadata, 0, strcmp(mode, "fork") ? exec_argv : fork_argv,
	       a, s, done);
	kill(client, SIGKILL);
	waitpid(client, NULL, 0);
}

/* 9. Fork attack on a network server, over veth: the server is killed. */
TEST_F(brute, fork_network_detected)
{
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	network_attack(_metadata, "fork", SRV_NETNS, CLI_NETNS, SRV_ADDR,
		       &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/*
 * 10. Exec attack on a network server, over veth: each handler reads the
 * connection it inherited (inetd style) and crashes.  The server's user is
 * banned from the handler; the server, a service and not the (remote)
 * attacker, lives.
 */
TEST_F(brute, exec_network_detected)
{
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	network_attack(_metadata, "exec", SRV_NETNS, CLI_NETNS, SRV_ADDR,
		       &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
	EXPECT_TRUE(banned_in_table(0, "crasher"));
	EXPECT_EQ(EPERM, run_as(0, path_of("crasher"), "true"));
}

/* The same server on loopback crosses no boundary. */
TEST_F(brute, fork_loopback_not_detected)
{
	int a, s, done;

	if (access(SRV_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	network_attack(_metadata, "fork", SRV_NETNS, SRV_NETNS, "127.0.0.1",
		       &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/* A bystander hierarchy and pid 1 survive a detection. */
TEST_F(brute, bystanders_survive)
{
	struct run bystander;
	int a, s, done;

	bystander = start(USER_UID, ARGV((char *)path_of("crasher"), "pause"));
	ASSERT_GT(bystander.pid, 0);
	fclose(bystander.out);
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher_suid"), "segv"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_TRUE(alive(bystander.pid));
	EXPECT_TRUE(alive(1));
	reap(bystander.pid);
}

/*
 * An attacker that double-forks each attempt (the target is reparented) is
 * still the one charged; the v6 series charged and tried to kill init.
 */
TEST_F(brute, double_fork_charges_attacker)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-d", "-s", "exec", "12",
		    (char *)path_of("crasher_suid"), "segv"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
	EXPECT_TRUE(alive(1));
}

/* mode=1 detects and reports, kills nothing. */
TEST_F(brute, mode_audit_does_not_kill)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("mode", "1"));
	klogctl(5, NULL, 0);
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
	EXPECT_TRUE(kmsg_has("fork brute force attack detected"));
}

/* mode=0 counts nothing. */
TEST_F(brute, mode_off_does_nothing)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("mode", "0"));
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
}

/* min_faults takes effect: 12 crashes under min_faults=20 pass... */
TEST_F(brute, min_faults_takes_effect)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("min_faults", "20"));
	ASSERT_EQ(20, sysctl_read("min_faults"));
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	/* ...and 25 do not. */
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "25"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
}

/* A threshold of 1 ms makes TCG-speed crashes slow: only max_faults hits. */
TEST_F(brute, max_faults_slow_attack)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("crash_period_threshold_ms", "1"));
	ASSERT_EQ(0, sysctl_write("max_faults", "8"));
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "7"), &a, &s, &done);
	EXPECT_EQ(0, a);
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "9"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
}

/* Bad writes are refused with EINVAL and change nothing. */
TEST_F(brute, bad_writes_refused)
{
	ASSERT_EQ(2, sysctl_read("mode"));
	EXPECT_EQ(-EINVAL, sysctl_write("mode", "3"));
	EXPECT_EQ(-EINVAL, sysctl_write("mode", "-1"));
	EXPECT_EQ(-EINVAL, sysctl_write("mode", "abc"));
	EXPECT_EQ(2, sysctl_read("mode"));
	EXPECT_EQ(-EINVAL, sysctl_write("ema_weight_numerator", "10"));
	EXPECT_EQ(-EINVAL, sysctl_write("ema_weight_denominator", "7"));
	EXPECT_EQ(-EINVAL, sysctl_write("ema_weight_numerator", "0"));
	EXPECT_EQ(7, sysctl_read("ema_weight_numerator"));
	EXPECT_EQ(10, sysctl_read("ema_weight_denominator"));
	EXPECT_EQ(-EINVAL, sysctl_write("min_faults", "201"));
	EXPECT_EQ(-EINVAL, sysctl_write("max_faults", "4"));
	EXPECT_EQ(-EINVAL, sysctl_write("min_faults", "0"));
	EXPECT_EQ(-EINVAL, sysctl_write("crash_period_threshold_ms", "0"));
	EXPECT_EQ(-EINVAL, sysctl_write("ban_time_s", "604801"));
	EXPECT_EQ(-EINVAL, sysctl_write("table_size", "15"));
	EXPECT_EQ(-EINVAL, sysctl_write("table_size", "65537"));
	EXPECT_EQ(-EINVAL, sysctl_write("forget_time_s", "0"));
	EXPECT_EQ(900, sysctl_read("ban_time_s"));
	EXPECT_EQ(1024, sysctl_read("table_size"));
	EXPECT_EQ(3600, sysctl_read("forget_time_s"));
	EXPECT_EQ(5, sysctl_read("min_faults"));
	EXPECT_EQ(200, sysctl_read("max_faults"));
	EXPECT_EQ(30000, sysctl_read("crash_period_threshold_ms"));
	/* Good writes are taken. */
	EXPECT_EQ(0, sysctl_write("ema_weight_numerator", "1"));
	EXPECT_EQ(1, sysctl_read("ema_weight_numerator"));
}

/* Only root may write, even through an open file. */
TEST_F(brute, unprivileged_write_refused)
{
	int fd = open("/proc/sys/kernel/brute/mode", O_WRONLY);
	pid_t pid;
	int status;

	ASSERT_GE(fd, 0);
	pid = fork();
	if (!pid) {
		if (setresuid(USER_UID, USER_UID, USER_UID))
			_exit(3);
		_exit(write(fd, "0", 1) < 0 && errno == EPERM ? 0 : 1);
	}
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(2, sysctl_read("mode"));
}


/*
 * Model v2 (issue 9): exec attacks are counted per (user, target), whichever
 * process runs each attempt, and answered with a temporary ban; nothing
 * another user does can turn a response against a process of someone else.
 */

/* Run PATH ARG as @uid: 0 if it ran, EPERM if refused, 256+sig if killed. */
static int run_as(uid_t uid, const char *path, const char *arg)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(200);
		execl(path, path, arg, (char *)NULL);
		_exit(errno == EPERM ? 201 : 202);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 256 + WTERMSIG(status);
	switch (WEXITSTATUS(status)) {
	case 0:
		return 0;
	case 201:
		return EPERM;
	default:
		return 1000 + WEXITSTATUS(status);
	}
}

/* The table lists a ban of @uid on @name. */
static int banned_in_table(uid_t uid, const char *name)
{
	char line[512], want[64];
	FILE *f = fopen(TARGETS, "r");
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "attacker_uid=%u ", uid);
	while (fgets(line, sizeof(line), f)) {
		const char *left = strstr(line, "ban_left_s=");
		const char *n = strstr(line, "target_name=");

		if (!strncmp(line, want, strlen(want)) && left && n &&
		    atoi(left + 11) > 0 && !strncmp(n + 12, name, strlen(name)))
			found = 1;
	}
	fclose(f);
	return found;
}

/* 1a. An attacker that re-executes itself every 4 attempts is stopped. */
TEST_F(brute, v2_exec_reexec_every_4)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-r", "4", "exec", "12",
		    (char *)path_of("crasher_suid"), "segv"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
	EXPECT_TRUE(banned_in_table(USER_UID, "crasher_suid"));
}

/*
 * 1b. Each attempt through a helper shell (sh -c 'target; exit $?'): the
 * fifth crash bans the target, the shell that ran it is killed, the next
 * shells are refused.
 */
TEST_F(brute, v2_exec_via_shell_helper)
{
	char cmd[PATH_MAX + 32];
	int crashed = 0, refused = 0, killed = 0, i;

	snprintf(cmd, sizeof(cmd), "%s segv; exit $?", path_of("crasher_suid"));
	for (i = 0; i < ATTEMPTS; i++) {
		struct run run = start(USER_UID, ARGV("/bin/sh", "-c", cmd));
		int status;

		ASSERT_GT(run.pid, 0);
		fclose(run.out);
		ASSERT_EQ(run.pid, waitpid(run.pid, &status, 0));
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			killed++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGSEGV)
			crashed++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
			refused++;
	}
	TH_LOG("crashed %d, shell killed %d, refused %d", crashed, killed,
	       refused);
	EXPECT_EQ(4, crashed);
	EXPECT_EQ(1, killed);
	EXPECT_EQ(ATTEMPTS - 5, refused);
	EXPECT_TRUE(banned_in_table(USER_UID, "crasher_suid"));
}

/* 1c. Each attempt from a fresh process: banned; the root parent lives. */
TEST_F(brute, v2_exec_fresh_process_each)
{
	int crashed = 0, refused = 0, i;

	for (i = 0; i < ATTEMPTS; i++) {
		int r = run_as(USER_UID, path_of("crasher_suid"), "segv");

		if (r == EPERM)
			refused++;
		else if (r == 256 + SIGSEGV)
			crashed++;
	}
	EXPECT_EQ(5, crashed);
	EXPECT_EQ(ATTEMPTS - 5, refused);
	/* Another user, and root, may still run it: the ban is per user. */
	EXPECT_EQ(0, run_as(USER_UID + 1, path_of("crasher_suid"), "true"));
	EXPECT_EQ(0, run_as(0, path_of("crasher_suid"), "true"));
}

/* 2. A set-user-ID wrapper that executes its payload: the payload counts. */
TEST_F(brute, v2_setuid_wrapper_payload)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("wrapper_suid"),
		    (char *)path_of("crasher"), "segv"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/* 3. A crash handler that re-raises the fault on itself: it counts. */
TEST_F(brute, v2_crash_handler_reraise)
{
	int a, s, done;

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher_suid"), "reraise"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/* 4a. An attacker whose main thread exited is still killed. */
TEST_F(brute, v2_main_thread_exited)
{
	int a, s, done;

	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-t", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
}

/* 4b. Detected in mode 1, still crashing once mode 2 is set: killed. */
TEST_F(brute, v2_detected_in_mode1_killed_in_mode2)
{
	struct run run;
	char line[64];
	int paused = 0, done = 0;

	ASSERT_EQ(0, sysctl_write("mode", "1"));
	run = start(0, ARGV((char *)path_of("attacker"), "-u", "1000", "-P",
			    "8", "fork", "40"));
	ASSERT_GT(run.pid, 0);
	while (!paused && fgets(line, sizeof(line), run.out))
		paused = !strcmp(line, "paused\n");
	ASSERT_TRUE(paused);
	ASSERT_EQ(0, sysctl_write("mode", "2"));
	kill(run.pid, SIGUSR1);
	while (fgets(line, sizeof(line), run.out))
		done |= !strcmp(line, "done\n");
	fclose(run.out);
	EXPECT_EQ(SIGKILL, end_signal(run.pid));
	EXPECT_FALSE(done);
}

/*
 * 5a. A user aborts the children of a root daemon that switched to the
 * user's ID, through F_SETOWN/F_SETSIG: not crashes, the daemon lives.
 */
TEST_F(brute, v2_fsetsig_abort_not_counted)
{
	int a, s, done;

	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-s", "-c",
				  "1000", "-o", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/*
 * 5b. A root daemon that starts a user's jobs (cron): the user's jobs
 * exec-attack a set-user-ID program.  The user is banned; the daemon, which
 * runs as root, is not killed.
 */
TEST_F(brute, v2_job_daemon_survives)
{
	int a, s, done;

	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-s", "-c",
				  "1000", "exec", "12",
				  (char *)path_of("crasher_suid"), "segv"),
	       &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
	EXPECT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
}

/* 6. Network input reached the server, not the programs it executes. */
TEST_F(brute, v2_network_boundary_not_inherited)
{
	char spec[64];
	pid_t client;
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	snprintf(spec, sizeof(spec), "%s:7777", SRV_ADDR);
	client = start_client(CLI_NETNS, SRV_ADDR, 12);
	ASSERT_GT(client, 0);
	attack(_metadata, 0,
	       ARGV((char *)path_of("attacker"), "-s", "-n", SRV_NETNS, "-l",
		    spec, "exec", "12", (char *)path_of("crasher"), "segv"),
	       &a, &s, &done);
	kill(client, SIGKILL);
	waitpid(client, NULL, 0);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/*
 * Start @argv as the init of a new pid namespace, as root; return the pid
 * of the process in our namespace that reports how it ended.
 */
static struct run start_in_pidns(char *const argv[])
{
	struct run run = { .pid = -1 };
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return run;
	run.pid = fork();
	if (!run.pid) {
		pid_t init;
		int status;

		dup2(fds[1], STDOUT_FILENO);
		if (unshare(CLONE_NEWPID))
			_exit(126);
		init = fork();
		if (!init) {
			execv(argv[0], argv);
			_exit(127);
		}
		if (init < 0 || waitpid(init, &status, 0) != init)
			_exit(125);
		if (WIFSIGNALED(status))
			kill(getpid(), WTERMSIG(status) == SIGKILL ?
				       SIGKILL : SIGTERM);
		_exit(WEXITSTATUS(status));
	}
	close(fds[1]);
	run.out = fdopen(fds[0], "r");
	return run;
}

/*
 * 5c. A pid namespace's init is not exempt from a fork-attack kill (a
 * container's init may be the attacker, or the attacked server): killing it
 * ends its namespace.  Documented in Brute.rst.
 */
TEST_F(brute, v2_pidns_init_killed)
{
	struct run run;
	int done;

	run = start_in_pidns(ARGV((char *)path_of("attacker"), "-u", "1000",
				  "fork", "12"));
	ASSERT_GT(run.pid, 0);
	drain(&run, &done);
	EXPECT_EQ(SIGKILL, end_signal(run.pid));
	EXPECT_FALSE(done);
}

/*
 * A service started per connection by an init (systemd Accept=yes, inetd):
 * each instance reads its connection and crashes.  The exec attack is seen
 * and the service's user is banned from the program; the init is not
 * killed.  Documented in Brute.rst.
 */
TEST_F(brute, v2_inetd_service_banned_init_lives)
{
	char spec[64];
	struct run run;
	pid_t client;
	int done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	snprintf(spec, sizeof(spec), "%s:7777", SRV_ADDR);
	client = start_client(CLI_NETNS, SRV_ADDR, 12);
	ASSERT_GT(client, 0);
	run = start_in_pidns(ARGV((char *)path_of("attacker"), "-n", SRV_NETNS,
				  "-R", "-l", spec, "exec", "12",
				  (char *)path_of("crasher"), "-r", "segv"));
	ASSERT_GT(run.pid, 0);
	drain(&run, &done);
	kill(client, SIGKILL);
	waitpid(client, NULL, 0);
	EXPECT_EQ(0, end_signal(run.pid));
	EXPECT_TRUE(done);
	EXPECT_TRUE(banned_in_table(0, "crasher"));
	EXPECT_EQ(EPERM, run_as(0, path_of("crasher"), "true"));
}

/* A ban is never permanent: it ends by itself after ban_time_s. */
TEST_F(brute, v2_ban_expires)
{
	int i;

	ASSERT_EQ(0, sysctl_write("ban_time_s", "2"));
	for (i = 0; i < 5; i++)
		run_as(USER_UID, path_of("crasher_suid"), "segv");
	EXPECT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
	sleep(3);
	EXPECT_EQ(0, run_as(USER_UID, path_of("crasher_suid"), "true"));
	EXPECT_FALSE(banned_in_table(USER_UID, "crasher_suid"));
}

/* ban_time_s = 0: the attack is detected, its drivers killed, no ban. */
TEST_F(brute, v2_ban_time_zero_no_ban)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("ban_time_s", "0"));
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher_suid"), "segv"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_EQ(0, run_as(USER_UID, path_of("crasher_suid"), "true"));
}

/* Root lifts a ban; a user can neither list nor lift. */
TEST_F(brute, v2_lift_by_root_only)
{
	struct stat st;
	char cmd[128];
	pid_t pid;
	int i, status;

	for (i = 0; i < 5; i++)
		run_as(USER_UID, path_of("crasher_suid"), "segv");
	ASSERT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
	pid = fork();
	if (!pid) {
		if (setresuid(USER_UID, USER_UID, USER_UID))
			_exit(3);
		_exit(open(LIFT, O_WRONLY) < 0 && open(TARGETS, O_RDONLY) < 0 &&
		      (errno == EACCES || errno == EPERM) ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, stat(path_of("crasher_suid"), &st));
	EXPECT_EQ(-EINVAL, lift("1000 nonsense"));
	snprintf(cmd, sizeof(cmd), "%u %u:%u %llu", USER_UID + 1,
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	EXPECT_EQ(-ENOENT, lift(cmd));
	snprintf(cmd, sizeof(cmd), "%u %u:%u %llu", USER_UID,
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	EXPECT_EQ(0, lift(cmd));
	EXPECT_EQ(0, run_as(USER_UID, path_of("crasher_suid"), "true"));
}

/* Hierarchies alive, from /sys/kernel/security/brute/stats; -1 if absent. */
static long live_hierarchies(void)
{
	FILE *f = fopen("/sys/kernel/security/brute/stats", "r");
	long count = -1;

	if (f) {
		if (fscanf(f, "hierarchies=%ld", &count) != 1)
			count = -1;
		fclose(f);
	}
	return count;
}

/*
 * 7. A relay (fork, the child executes, the parent exits) does not pin one
 * hierarchy per generation: 500 generations later, with two processes
 * alive, the kernel holds about as many hierarchies as before (v1 kept one
 * per generation: +796 kB for 4000).  Run alone by tests/fast/12-brute-relay.sh.
 */
TEST_F_TIMEOUT(brute, v2_relay_memory_bounded, 140)
{
	const char *pidfile = "/tmp/brute_relay.pid";
	long before, after;
	struct run run;
	FILE *f;
	pid_t last = 0;
	int i;

	unlink(pidfile);
	before = live_hierarchies();
	ASSERT_GE(before, 0);
	run = start(USER_UID, ARGV((char *)path_of("relay"), "500",
				   (char *)pidfile));
	ASSERT_GT(run.pid, 0);
	fclose(run.out);
	waitpid(run.pid, NULL, 0);
	for (i = 0; i < 2600 && !last; i++) {
		/* Exited generations are reparented to us: reap them. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		f = fopen(pidfile, "r");
		if (f) {
			if (fscanf(f, "%d", &last) != 1)
				last = 0;
			fclose(f);
		}
		if (!last)
			usleep(50000);
	}
	ASSERT_GT(last, 0);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	/* Hierarchies are freed after an RCU grace period. */
	usleep(500000);
	after = live_hierarchies();
	kill(last, SIGKILL);
	TH_LOG("hierarchies alive: %ld before, %ld after 500 generations",
	       before, after);
	EXPECT_LT(after - before, 10);
}

TEST_HARNESS_MAIN
