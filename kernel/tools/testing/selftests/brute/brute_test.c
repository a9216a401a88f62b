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
	"ema_weight_numerator", "ema_weight_denominator",
};

static char dir[PATH_MAX];

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

FIXTURE(brute) {
	char saved[6][32];
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
		"-n", (char *)netns_srv, "-l", spec, "exec", "12",
		(char *)path_of("crasher"), "segv", NULL };

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

/* 10. Exec attack on a network server, over veth: the server is killed. */
TEST_F(brute, exec_network_detected)
{
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	network_attack(_metadata, "exec", SRV_NETNS, CLI_NETNS, SRV_ADDR,
		       &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
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

TEST_HARNESS_MAIN
