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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/capability.h>

#include "../kselftest_harness.h"

#define USER_UID 1000
#define ATTEMPTS 12
#define SRV_NETNS "/run/netns/brute_srv"
#define CLI_NETNS "/run/netns/brute_cli"
#define SRV_ADDR "10.199.0.1"

static const char *const tunables[] = {
	"mode", "crash_period_threshold_ms", "min_faults", "max_faults",
	"ema_weight_numerator", "ema_weight_denominator", "ban_time_s",
	"table_size", "forget_time_s", "backstop_faults", "peer_ban_time_s",
	"peer_prefix_v4", "peer_prefix_v6", "escalate_prefix_v4",
	"escalate_prefix_v6", "escalate_faults", "trusted_uid_max",
	"backstop_hold_s",
};

#define LIFT "/sys/kernel/security/brute/lift"
#define TRUSTED "/sys/kernel/security/brute/trusted"
#define TARGETS "/sys/kernel/security/brute/targets"
#define PEERS "/sys/kernel/security/brute/peers"

static char dir[PATH_MAX];

static int run_as(uid_t uid, const char *path, const char *arg);
static int banned_in_table(uid_t uid, const char *name);
static int peer_banned(const char *peer);

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

/*
 * Connect @count times to the server, from the client namespace, one
 * attempt at a time; a connection that is not made within a second (a ban
 * drops connection requests) is given up.
 */
static pid_t start_client(const char *netns, const char *addr, int count)
{
	const struct timeval second = { .tv_sec = 1 };
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
		char byte;

		inet_pton(AF_INET, addr, &sa.sin_addr);
		for (tries = 0; tries < 200; tries++) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &second,
				   sizeof(second));
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &second,
				   sizeof(second));
			if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
				break;
			close(fd);
			fd = -1;
			if (errno != ECONNREFUSED)
				break; /* Dropped: not listening is refused. */
			usleep(20000);
		}
		if (fd < 0)
			continue;
		if (write(fd, "x", 1) != 1) {
			close(fd);
			continue;
		}
		/* Wait for the server to close it: one attempt at a time. */
		while (read(fd, &byte, 1) > 0)
			;
		close(fd);
	}
	_exit(0);
}

/* Write @what to the lift file: "all", "flush" or "UID DEV INO". */
static int trust(const char *what);

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
	char saved[ARRAY_SIZE(tunables)][32];
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
	/* Every test starts with empty tables and no trusted peer. */
	if (!access(LIFT, F_OK))
		ASSERT_EQ(0, lift("flush"));
	if (!access(TRUSTED, F_OK))
		ASSERT_EQ(0, trust("flush"));
}

FIXTURE_TEARDOWN(brute)
{
	size_t i;

	/* Restore in an order the cross-checks accept. */
	sysctl_write("ema_weight_denominator", "1000");
	sysctl_write("min_faults", "1");
	sysctl_write("max_faults", "1000000");
	sysctl_write("escalate_faults", "1000000");
	for (i = 0; i < ARRAY_SIZE(tunables); i++)
		sysctl_write(tunables[i], self->saved[i]);
	lift("flush");
	trust("flush");
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

/*
 * 7. A root daemon whose workers dropped to a user's ID, crashing with no
 * peer's input before: nobody known answers for the crashes.  A handful
 * is recorded only; the backstop kills the hierarchy at backstop_faults.
 */
TEST_F(brute, fork_cred_change_backstop)
{
	int a, s, done;

	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-u", "1000",
				  "-s", "fork", "40"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(SIGKILL, s);
}

/*
 * 8. Root executes targets that drop to a user's ID and crash: no privilege
 * gained, no exec attack; nobody is banned, root least of all.
 */
TEST_F(brute, exec_cred_change_not_banned)
{
	int a, s, done;

	attack(_metadata, 0,
	       ARGV((char *)path_of("attacker"), "-s", "exec", "12",
		    (char *)path_of("crasher"), "-u", "1000", "segv"),
	       &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
	EXPECT_EQ(0, run_as(0, path_of("crasher"), "true"));
	EXPECT_FALSE(banned_in_table(0, "crasher"));
}

/* How a run ended after its client is done: SIGTERM if we had to stop it. */
static void finish(struct run *run, pid_t client, int *a, int *s, int *done)
{
	pid_t sibling;
	int i, status;

	waitpid(client, NULL, 0);
	/* A server that made every attempt exits; one left waiting is ended. */
	for (i = 0; i < 40; i++) {
		if (waitpid(run->pid, &status, WNOHANG) == run->pid)
			break;
		usleep(50000);
	}
	if (i == 40) {
		kill(run->pid, SIGTERM);
		waitpid(run->pid, &status, 0);
	}
	*a = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	sibling = drain(run, done);
	*s = -1;
	if (sibling > 0) {
		usleep(100000);
		if (waitpid(sibling, &status, WNOHANG) == sibling) {
			*s = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		} else {
			*s = 0;
			reap(sibling);
		}
	}
}

static void network_attack(struct __test_metadata *_metadata,
			   const char *mode, const char *netns_srv,
			   const char *netns_cli, const char *addr,
			   int *a, int *s, int *done)
{
	char spec[64];
	struct run run;
	pid_t client;
	char *const fork_argv[] = { (char *)path_of("attacker"), "-s",
		"-n", (char *)netns_srv, "-l", spec, "fork", "12", NULL };
	char *const exec_argv[] = { (char *)path_of("attacker"), "-s",
		"-n", (char *)netns_srv, "-R", "-l", spec, "exec", "12",
		(char *)path_of("crasher"), "-r", "segv", NULL };

	snprintf(spec, sizeof(spec), "%s:7777", addr);
	client = start_client(netns_cli, addr, 12);
	ASSERT_GT(client, 0);
	run = start(0, strcmp(mode, "fork") ? exec_argv : fork_argv);
	ASSERT_GT(run.pid, 0);
	finish(&run, client, a, s, done);
}

/*
 * 9. Fork attack on a network server, over veth: the server reads each
 * request and forks a child that crashes.  The client's address is banned
 * from the server's endpoint after min_faults crashes: its next
 * connections are dropped, the server lives.
 */
TEST_F(brute, fork_network_peer_banned)
{
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	network_attack(_metadata, "fork", SRV_NETNS, CLI_NETNS, SRV_ADDR,
		       &a, &s, &done);
	EXPECT_EQ(SIGTERM, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(0, s);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
}

/*
 * 10. Exec attack on a network server, over veth: each handler reads the
 * connection it inherited (inetd style) and crashes.  The remote client is
 * banned; the server's user, root, is not: no privilege was gained.
 */
TEST_F(brute, exec_network_peer_banned)
{
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	network_attack(_metadata, "exec", SRV_NETNS, CLI_NETNS, SRV_ADDR,
		       &a, &s, &done);
	EXPECT_EQ(SIGTERM, a);
	EXPECT_FALSE(done);
	EXPECT_EQ(0, s);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_FALSE(banned_in_table(0, "crasher"));
	EXPECT_EQ(0, run_as(0, path_of("crasher"), "true"));
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

/* mode=1 detects and reports, kills nothing (a user's set-user-ID image). */
TEST_F(brute, mode_audit_does_not_kill)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("mode", "1"));
	klogctl(5, NULL, 0);
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-s", "fork", "12"), &a, &s, &done);
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

	ASSERT_EQ(0, sysctl_write("escalate_faults", "100"));
	ASSERT_EQ(0, sysctl_write("min_faults", "20"));
	ASSERT_EQ(20, sysctl_read("min_faults"));
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-s", "fork", "12"), &a, &s, &done);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	/* ...and 25 do not. */
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-s", "fork", "25"), &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
	EXPECT_FALSE(done);
}

/* A threshold of 1 ms makes TCG-speed crashes slow: only max_faults hits. */
TEST_F(brute, max_faults_slow_attack)
{
	int a, s, done;

	ASSERT_EQ(0, sysctl_write("crash_period_threshold_ms", "1"));
	ASSERT_EQ(0, sysctl_write("max_faults", "8"));
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-s", "fork", "7"), &a, &s, &done);
	EXPECT_EQ(0, a);
	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-s", "fork", "9"), &a, &s, &done);
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
	EXPECT_EQ(-EINVAL, sysctl_write("backstop_faults", "0"));
	EXPECT_EQ(-EINVAL, sysctl_write("peer_ban_time_s", "604801"));
	EXPECT_EQ(-EINVAL, sysctl_write("peer_prefix_v4", "33"));
	EXPECT_EQ(-EINVAL, sysctl_write("peer_prefix_v6", "0"));
	EXPECT_EQ(-EINVAL, sysctl_write("escalate_prefix_v4", "7"));
	EXPECT_EQ(-EINVAL, sysctl_write("escalate_prefix_v6", "129"));
	EXPECT_EQ(-EINVAL, sysctl_write("escalate_faults", "4"));
	EXPECT_EQ(-EINVAL, sysctl_write("min_faults", "16"));
	EXPECT_EQ(-EINVAL, sysctl_write("backstop_hold_s", "3601"));
	EXPECT_EQ(32, sysctl_read("backstop_faults"));
	EXPECT_EQ(0, sysctl_read("backstop_hold_s"));
	EXPECT_EQ(900, sysctl_read("peer_ban_time_s"));
	EXPECT_EQ(32, sysctl_read("peer_prefix_v4"));
	EXPECT_EQ(64, sysctl_read("peer_prefix_v6"));
	EXPECT_EQ(24, sysctl_read("escalate_prefix_v4"));
	EXPECT_EQ(48, sysctl_read("escalate_prefix_v6"));
	EXPECT_EQ(15, sysctl_read("escalate_faults"));
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

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "-t", "fork", "12"), &a, &s, &done);
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
	run = start(USER_UID, ARGV((char *)path_of("attacker_suid"), "-P", "8",
				   "fork", "40"));
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
static struct run start_in_pidns_as(uid_t uid, char *const argv[])
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
			/* The namespace ends with whoever started it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (uid && (setgroups(0, NULL) ||
				    setresgid(uid, uid, uid) ||
				    setresuid(uid, uid, uid)))
				_exit(126);
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

static struct run start_in_pidns(char *const argv[])
{
	return start_in_pidns_as(0, argv);
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

	run = start_in_pidns_as(USER_UID,
				ARGV((char *)path_of("attacker_suid"), "fork",
				     "12"));
	ASSERT_GT(run.pid, 0);
	drain(&run, &done);
	EXPECT_EQ(SIGKILL, end_signal(run.pid));
	EXPECT_FALSE(done);
}

/*
 * A service started per connection by an init (systemd Accept=yes, inetd):
 * each instance reads its connection and crashes.  The remote client is
 * banned from the service's endpoint; the service's user (root) is not
 * banned from its program: its restarts are no exec attack of its own.
 * The init lives.
 */
TEST_F(brute, v2_inetd_service_peer_banned_init_lives)
{
	char spec[64];
	struct run run;
	pid_t client;
	int a, s, done;

	if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))
		SKIP(return, "no test network namespaces");
	snprintf(spec, sizeof(spec), "%s:7777", SRV_ADDR);
	client = start_client(CLI_NETNS, SRV_ADDR, 12);
	ASSERT_GT(client, 0);
	run = start_in_pidns(ARGV((char *)path_of("attacker"), "-n", SRV_NETNS,
				  "-R", "-l", spec, "exec", "12",
				  (char *)path_of("crasher"), "-r", "segv"));
	ASSERT_GT(run.pid, 0);
	finish(&run, client, &a, &s, &done);
	/* Stopped by us (SIGTERM), waiting for connections that never came. */
	EXPECT_EQ(SIGTERM, a);
	EXPECT_FALSE(done);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_FALSE(banned_in_table(0, "crasher"));
	EXPECT_EQ(0, run_as(0, path_of("crasher"), "true"));
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

/*
 * Response v3 (issue 20): the peer that sent the input answers for a
 * crash, the user for their own privileged image, nobody else but through
 * the backstop.  And the ways around a ban (issue 21).
 */

#define SRV_SPEC "10.199.0.1:7777"
#define UNIX_PATH "/tmp/brute_service.sock"
#define UNIX_PATH2 "/tmp/brute_service2.sock"
#define UNIX_PATH3 "/tmp/brute_service3.sock"
/* Services of user 1000, which cannot replace root's sockets in /tmp. */
#define UNIX_PATH_U1 "/tmp/brute_user1.sock"
#define UNIX_PATH_U2 "/tmp/brute_user2.sock"

/*
 * The peers file lists a ban in force of @peer ("10.199.0.2/32", "uid:1")
 * whose line has @field (" layout="), if not NULL.
 */
static int peer_banned_with(const char *peer, const char *field)
{
	char line[512], want[80];
	FILE *f = fopen(PEERS, "r");
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "peer=%s ", peer);
	while (fgets(line, sizeof(line), f)) {
		const char *left = strstr(line, "ban_left_s=");

		if (!strncmp(line, want, strlen(want)) && left &&
		    atoi(left + 11) > 0 && (!field || strstr(line, field)))
			found = 1;
	}
	fclose(f);
	return found;
}

static int peer_banned(const char *peer)
{
	return peer_banned_with(peer, NULL);
}

/*
 * The sum of @field ("refused=") over the lines of @path that start with
 * @key ("peer=10.199.0.2/32 "); -1 if no line does.
 */
static int entries_sum(const char *path, const char *key, const char *field)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int sum = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *n = strstr(line, field);

		if (!strncmp(line, key, strlen(key)) && n)
			sum = (sum < 0 ? 0 : sum) + atoi(n + strlen(field));
	}
	fclose(f);
	return sum;
}

/* The refusals counted in @peer's entries of the peers file, or -1. */
static int peer_refused(const char *peer)
{
	char key[80];

	snprintf(key, sizeof(key), "peer=%s ", peer);
	return entries_sum(PEERS, key, " refused=");
}

/* The faults of @uid's entry for @name in the targets file, or -1. */
static int target_faults(uid_t uid, const char *name)
{
	char line[512], want[64];
	FILE *f = fopen(TARGETS, "r");
	int faults = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "attacker_uid=%u ", uid);
	while (fgets(line, sizeof(line), f)) {
		const char *n = strstr(line, "target_name=");
		const char *k = strstr(line, " faults=");

		if (!strncmp(line, want, strlen(want)) && n && k &&
		    !strncmp(n + 12, name, strlen(name)) &&
		    n[12 + strlen(name)] == '\n')
			faults = atoi(k + 8);
	}
	fclose(f);
	return faults;
}

/* The targets file has a line for @uid. */
static int user_in_table(uid_t uid)
{
	char line[512], want[64];
	FILE *f = fopen(TARGETS, "r");
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "attacker_uid=%u ", uid);
	while (fgets(line, sizeof(line), f))
		found |= !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

struct outcome {
	long answered, crashed, refused;
};

/* Run the client (as root; it has its own -u); return its counts. */
static struct outcome client(char *const argv[])
{
	struct outcome out = { -1, -1, -1 };
	struct run run = start(0, argv);
	char line[128];

	if (run.pid < 0)
		return out;
	while (fgets(line, sizeof(line), run.out))
		sscanf(line, "answered %ld crashed %ld refused %ld",
		       &out.answered, &out.crashed, &out.refused);
	fclose(run.out);
	waitpid(run.pid, NULL, 0);
	return out;
}

/* Start a service and wait until it listens. */
static struct run service(char *const argv[])
{
	struct run run = start(0, argv);
	char line[64];

	if (run.pid > 0) {
		while (fgets(line, sizeof(line), run.out))
			if (!strcmp(line, "listening\n"))
				break;
	}
	return run;
}

/* How a service ended: 0 if it was still serving (then stopped), else the signal. */
/*
 * End a service: the signal that ended it, 0 if it was still running (it
 * is then terminated), -1 otherwise.  A kill that Brute decided is
 * delivered after the crash that caused it, which a client may see first:
 * @grace_ms is how long to wait for the service to end by itself.
 */
static int service_end_after(struct run *run, int grace_ms)
{
	int status;
	pid_t got;

	while ((got = waitpid(run->pid, &status, WNOHANG)) != run->pid &&
	       grace_ms > 0) {
		usleep(10000);
		grace_ms -= 10;
	}
	if (got != run->pid) {
		kill(run->pid, SIGTERM);
		waitpid(run->pid, &status, 0);
		fclose(run->out);
		return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ?
		       0 : -1;
	}
	fclose(run->out);
	return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

static int service_end(struct run *run)
{
	return service_end_after(run, 0);
}

#define NEED_NET()							\
	do {								\
		if (access(SRV_NETNS, F_OK) || access(CLI_NETNS, F_OK))	\
			SKIP(return, "no test network namespaces");	\
	} while (0)

/*
 * One attacker address crashes a forking service; a client from another
 * network asks too.  The attacker is banned after min_faults crashes and
 * refused from then on; the service and its other client are untouched.
 */
TEST_F(brute, v3_peer_banned_service_lives)
{
	struct outcome attacker, benign;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   SRV_SPEC));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "10", "-r", "crash",
			       "tcp", SRV_SPEC));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "10", "tcp", SRV_SPEC));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(5, attacker.refused);
	EXPECT_EQ(10, benign.answered);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_FALSE(peer_banned("10.198.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * An attacker rotating over eight addresses of one /24 gets no fresh
 * min_faults per address: escalate_faults crashes ban the /24.
 */
TEST_F(brute, v3_rotating_addresses_prefix_banned)
{
	struct outcome attacker, benign;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   SRV_SPEC));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-B", "10.199.0.10,10.199.0.11,10.199.0.12,10.199.0.13,10.199.0.14,10.199.0.15,10.199.0.16,10.199.0.17",
			       "-c", "20", "-r", "crash", "tcp", SRV_SPEC));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "5", "tcp", SRV_SPEC));
	EXPECT_EQ(15, attacker.crashed);
	EXPECT_EQ(5, attacker.refused);
	EXPECT_EQ(5, benign.answered);
	EXPECT_TRUE(peer_banned("10.199.0.0/24"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * One image behind three ports (nginx's 80 and 443, Postfix's 25, 465 and
 * 587): one address's crashes of it count together, 2 + 2 + 1, and the
 * fifth gets the address refused at all three; another address is served.
 */
TEST_F(brute, v5_one_layout_three_ports)
{
	static char *const spec[] = { "10.199.0.1:7761", "10.199.0.1:7762",
				      "10.199.0.1:7763" };
	static char *const crashes[] = { "2", "2", "1" };
	struct outcome out;
	struct run srv;
	int i;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "-P",
			   "3", "tcp", spec[0]));
	ASSERT_GT(srv.pid, 0);
	for (i = 0; i < 3; i++) {
		out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
				  "-b", "10.199.0.2", "-c", crashes[i], "-r",
				  "crash", "tcp", spec[i]));
		EXPECT_EQ(atoi(crashes[i]), out.crashed);
	}
	for (i = 0; i < 3; i++) {
		out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
				  "-b", "10.199.0.2", "-c", "2", "tcp", spec[i]));
		EXPECT_EQ(2, out.refused);
		out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
				  "-b", "10.198.0.2", "-c", "1", "tcp", spec[i]));
		EXPECT_EQ(1, out.answered);
	}
	EXPECT_TRUE(peer_banned_with("10.199.0.2/32", " layout="));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * An address of the attacker's /24 that the service served before the
 * attack, without a crash, keeps being served after the /24's ban, until
 * it crashes the service itself; a fresh address of the /24 is refused.
 */
TEST_F(brute, v5_prefix_ban_spares_served)
{
	static char *const spec = "10.199.0.1:7764";
	struct outcome out;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   spec));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.17", "-c", "2", "tcp", spec));
	EXPECT_EQ(2, out.answered);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-B",
			  "10.199.0.10,10.199.0.11,10.199.0.12,10.199.0.13,10.199.0.14,10.199.0.15,10.199.0.16",
			  "-c", "20", "-r", "crash", "tcp", spec));
	EXPECT_EQ(15, out.crashed);
	EXPECT_EQ(5, out.refused);
	EXPECT_TRUE(peer_banned("10.199.0.0/24"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.17", "-c", "5", "tcp", spec));
	EXPECT_EQ(5, out.answered);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "2", "tcp", spec));
	EXPECT_EQ(2, out.refused);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.17", "-c", "3", "-r", "crash", "tcp", spec));
	EXPECT_EQ(1, out.crashed);
	EXPECT_EQ(2, out.refused);
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * Addresses in twelve /24s, four crashes each: no address and no prefix
 * reaches a ban, and the backstop kills the service at backstop_faults
 * crashes, which bounds what one randomization of it gives away.
 */
TEST_F(brute, v3_many_prefixes_backstop)
{
	struct outcome attacker;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   SRV_SPEC));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-B", "10.100.1.2,10.100.2.2,10.100.3.2,10.100.4.2,10.100.5.2,10.100.6.2,10.100.7.2,10.100.8.2,10.100.9.2,10.100.10.2,10.100.11.2,10.100.12.2",
			       "-c", "48", "-r", "crash", "tcp", SRV_SPEC));
	EXPECT_EQ(SIGKILL, service_end_after(&srv, 5000));
	EXPECT_EQ(32, attacker.crashed);
	EXPECT_EQ(16, attacker.refused);
}

/*
 * A local user crashes a root service over a Unix socket: that user is
 * refused by the socket after min_faults crashes, another user is served.
 */
TEST_F(brute, v3_unix_peer_banned)
{
	struct outcome attacker, other;
	struct run srv;

	srv = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-u", "4243", "-c",
			       "8", "-r", "crash", "unix", UNIX_PATH));
	other = client(ARGV((char *)path_of("client"), "-u", "4244", "-c", "3",
			    "unix", UNIX_PATH));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_EQ(3, other.answered);
	EXPECT_TRUE(peer_banned("uid:4243"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * Each endpoint has a share of the peer table (table_size 16: 4 entries).
 * Sixteen local users crash a root service: the first four are banned and
 * fill its share with bans, the next twelve crash it unbanned (the
 * backstop still bounds them).  Another service, another endpoint, still
 * counts and bans its attacker at min_faults: one attacked endpoint
 * starves no other.  A lift makes room in the first service's share: then
 * a user is banned there at min_faults.
 */
TEST_F(brute, v3_peer_table_full_of_bans)
{
	struct outcome out;
	struct run srv, other;
	char uid[16];
	int i;

	ASSERT_EQ(0, sysctl_write("table_size", "16"));
	ASSERT_EQ(0, sysctl_write("backstop_faults", "1000"));
	srv = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	other = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH2));
	ASSERT_GT(other.pid, 0);
	for (i = 0; i < 16; i++) {
		snprintf(uid, sizeof(uid), "%d", 4300 + i);
		out = client(ARGV((char *)path_of("client"), "-u", uid, "-c",
				  "6", "-r", "crash", "unix", UNIX_PATH));
		EXPECT_EQ(i < 4 ? 5 : 6, out.crashed);
		EXPECT_EQ(i < 4 ? 1 : 0, out.refused);
	}
	EXPECT_TRUE(peer_banned("uid:4300"));
	EXPECT_TRUE(peer_banned("uid:4303"));
	EXPECT_FALSE(peer_banned("uid:4304"));
	out = client(ARGV((char *)path_of("client"), "-u", "4316", "-c", "8",
			  "-r", "crash", "unix", UNIX_PATH2));
	EXPECT_EQ(5, out.crashed);
	EXPECT_EQ(3, out.refused);
	EXPECT_TRUE(peer_banned("uid:4316"));
	EXPECT_EQ(0, lift("peer uid:4300"));
	out = client(ARGV((char *)path_of("client"), "-u", "4304", "-c", "8",
			  "-r", "crash", "unix", UNIX_PATH));
	EXPECT_EQ(5, out.crashed);
	EXPECT_EQ(3, out.refused);
	EXPECT_TRUE(peer_banned("uid:4304"));
	EXPECT_EQ(0, service_end(&other));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * The network namespaces a user made have one share of the peer table in
 * all (a quarter of table_size): a user can get peers banned at services
 * of their own (over veth, in namespaces of their own), but however many
 * namespaces they make, those bans fill that share only.  Two services of
 * user 1000, each in namespaces of its own, take four bans in all; the
 * next attackers there are not counted.  A service of the host still
 * counts and bans its attacker.
 */
TEST_F(brute, v3_user_netns_one_share)
{
	struct outcome out;
	struct run mine[2], host;
	char uid[16];
	int i;

	ASSERT_EQ(0, sysctl_write("table_size", "16"));
	ASSERT_EQ(0, sysctl_write("backstop_faults", "1000"));
	unlink(UNIX_PATH_U1);
	unlink(UNIX_PATH_U2);
	mine[0] = service(ARGV((char *)path_of("service"), "-U", "1000",
			       "unix", UNIX_PATH_U1));
	ASSERT_GT(mine[0].pid, 0);
	mine[1] = service(ARGV((char *)path_of("service"), "-U", "1000",
			       "unix", UNIX_PATH_U2));
	ASSERT_GT(mine[1].pid, 0);
	host = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH3));
	ASSERT_GT(host.pid, 0);
	for (i = 0; i < 8; i++) {
		snprintf(uid, sizeof(uid), "%d", 4320 + i);
		out = client(ARGV((char *)path_of("client"), "-u", uid, "-c",
				  "6", "-r", "crash", "unix",
				  i % 2 ? UNIX_PATH_U2 : UNIX_PATH_U1));
		EXPECT_EQ(i < 4 ? 5 : 6, out.crashed);
		EXPECT_EQ(i < 4 ? 1 : 0, out.refused);
	}
	EXPECT_TRUE(peer_banned("uid:4323"));
	EXPECT_FALSE(peer_banned("uid:4324"));
	out = client(ARGV((char *)path_of("client"), "-u", "4330", "-c", "8",
			  "-r", "crash", "unix", UNIX_PATH3));
	EXPECT_EQ(5, out.crashed);
	EXPECT_EQ(3, out.refused);
	EXPECT_TRUE(peer_banned("uid:4330"));
	EXPECT_EQ(0, service_end(&host));
	EXPECT_EQ(0, service_end(&mine[1]));
	EXPECT_EQ(0, service_end(&mine[0]));
	unlink(UNIX_PATH_U1);
	unlink(UNIX_PATH_U2);
	unlink(UNIX_PATH3);
}

/*
 * A root service executes a handler per connection that drops its
 * privileges itself (inetd, Postfix, OpenSSH's privilege separation):
 * eight bad requests from another user get that user refused.  Root is
 * not banned from the handler, the service lives.
 */
TEST_F(brute, v3_privdrop_handler_root_not_banned)
{
	struct outcome attacker;
	struct run srv;

	srv = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH, "--",
			   (char *)path_of("crasher"), "-u", "1000", "serve"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-u", "4243", "-c",
			       "8", "-r", "crash", "unix", UNIX_PATH));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_TRUE(peer_banned("uid:4243"));
	EXPECT_FALSE(banned_in_table(0, "crasher"));
	EXPECT_EQ(0, run_as(0, path_of("crasher"), "true"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A root daemon's workers dropped to a service user and map a file that
 * another user truncates: twelve SIGBUS, nobody known answers, the daemon
 * lives.
 */
TEST_F(brute, v3_truncate_sigbus_master_lives)
{
	const char *file = "/tmp/brute_mapped";
	pid_t truncater;
	int a, s, done, fd;

	fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, 8192));
	ASSERT_EQ(0, fchown(fd, USER_UID + 1, USER_UID + 1));
	close(fd);
	truncater = fork();
	ASSERT_GE(truncater, 0);
	if (!truncater) {
		if (setresgid(USER_UID + 1, USER_UID + 1, USER_UID + 1) ||
		    setresuid(USER_UID + 1, USER_UID + 1, USER_UID + 1))
			_exit(2);
		fd = open(file, O_RDWR);
		for (;;) {
			if (ftruncate(fd, 0) || usleep(3000) ||
			    ftruncate(fd, 8192) || usleep(3000))
				_exit(3);
		}
	}
	attack(_metadata, 0, ARGV((char *)path_of("attacker"), "-s", "-c",
				  "1000", "-B", (char *)file, "fork", "12"),
	       &a, &s, &done);
	kill(truncater, SIGKILL);
	waitpid(truncater, NULL, 0);
	unlink(file);
	EXPECT_EQ(0, a);
	EXPECT_TRUE(done);
	EXPECT_EQ(0, s);
}

/*
 * A hierarchy's statistics start afresh after forget_time_s without a
 * crash: 4 crashes, a quiet period, 4 crashes is no attack; 8 in a row is.
 */
TEST_F(brute, v3_statistics_forget)
{
	struct run run;
	char line[64];
	int paused = 0, done = 0, a, s;

	ASSERT_EQ(0, sysctl_write("forget_time_s", "2"));
	run = start(USER_UID, ARGV((char *)path_of("attacker_suid"), "-P", "4",
				   "fork", "8"));
	ASSERT_GT(run.pid, 0);
	while (!paused && fgets(line, sizeof(line), run.out))
		paused = !strcmp(line, "paused\n");
	ASSERT_TRUE(paused);
	sleep(3);
	kill(run.pid, SIGUSR1);
	while (fgets(line, sizeof(line), run.out))
		done |= !strcmp(line, "done\n");
	fclose(run.out);
	EXPECT_EQ(0, end_signal(run.pid));
	EXPECT_TRUE(done);

	attack(_metadata, USER_UID,
	       ARGV((char *)path_of("attacker_suid"), "fork", "8"),
	       &a, &s, &done);
	EXPECT_EQ(SIGKILL, a);
}

/* Wait (up to 20 s) until process @pid executes a program named @name. */
static int runs_target(pid_t pid, const char *name)
{
	char path[64], exe[PATH_MAX];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	for (i = 0; i < 400; i++) {
		ssize_t len = readlink(path, exe, sizeof(exe) - 1);

		if (len > 0) {
			exe[len] = '\0';
			if (!strcmp(strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe,
				    name))
				return 1;
		}
		usleep(50000);
	}
	return 0;
}

/* Start @argv as @uid with a pipe on its standard input. */
static pid_t start_fed(uid_t uid, char *const argv[], int *in)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(fds[0], STDIN_FILENO);
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[0]);
	*in = fds[1];
	return pid;
}

/*
 * A user starts 40 instances of a set-user-ID target first, each waiting
 * for its input with a randomization of its own, then feeds them one by
 * one.  The ban that comes on the fifth crash kills the other instances:
 * they give no attempt.
 */
TEST_F(brute, v3_pool_killed_at_ban)
{
	pid_t pid[40];
	int in[40], i, status, crashed = 0, killed = 0;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < 40; i++) {
		pid[i] = start_fed(USER_UID,
				   ARGV((char *)path_of("crasher_suid"), "-r",
					"segv"), &in[i]);
		ASSERT_GT(pid[i], 0);
	}
	/* Every instance runs the target (its execve() is done) first. */
	for (i = 0; i < 40; i++)
		ASSERT_TRUE(runs_target(pid[i], "crasher_suid"));
	for (i = 0; i < 40; i++) {
		/* An instance killed already has no reader: EPIPE. */
		(void)!write(in[i], "x", 1);
		close(in[i]);
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
			crashed++;
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			killed++;
	}
	TH_LOG("crashed %d, killed %d", crashed, killed);
	EXPECT_EQ(5, crashed);
	EXPECT_EQ(35, killed);
	EXPECT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
}

/* Run @argv as @uid: 256+sig if killed, else its exit status. */
static int run_argv(uid_t uid, char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(200);
		execv(argv[0], argv);
		_exit(errno == EPERM ? 201 : 202);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 256 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}

/*
 * A wrapper that sets every ID to root before it executes its payload
 * (sudo, su, doas, pkexec): the payload changes no ID itself, but it is
 * the user's privileged image.  Its crashes are charged to the user, who
 * is banned from it (through the wrapper); root and the user's own runs
 * without privilege are not.
 */
TEST_F(brute, v3_full_id_wrapper_payload_banned)
{
	int crashed = 0, refused = 0, i, r;

	for (i = 0; i < ATTEMPTS; i++) {
		r = run_argv(USER_UID, ARGV((char *)path_of("wrapper_suid"),
					    "-f", (char *)path_of("crasher"),
					    "segv"));
		if (r == 256 + SIGSEGV)
			crashed++;
		else if (r == 126)
			refused++;
	}
	EXPECT_EQ(5, crashed);
	EXPECT_EQ(ATTEMPTS - 5, refused);
	EXPECT_TRUE(banned_in_table(USER_UID, "crasher"));
	EXPECT_EQ(0, run_as(0, path_of("crasher"), "true"));
	EXPECT_EQ(0, run_as(USER_UID, path_of("crasher"), "true"));
	EXPECT_EQ(0, run_argv(USER_UID + 1,
			      ARGV((char *)path_of("wrapper_suid"), "-f",
				   (char *)path_of("crasher"), "true")));
}

/*
 * Junk between attempts: twenty crashes of other set-user-ID programs
 * between two attempts on the real target, with a table of 16 entries.
 * Nothing is evicted: the user is banned within min_faults + 1 attempts,
 * and another user is not touched.
 */
TEST_F(brute, v3_junk_between_attempts_banned)
{
	int attempt, j, banned_at = 0;
	char junk[32];

	ASSERT_EQ(0, sysctl_write("table_size", "16"));
	for (attempt = 1; attempt <= 12 && !banned_at; attempt++) {
		if (run_as(USER_UID, path_of("crasher_suid"), "segv") == EPERM) {
			banned_at = attempt;
			break;
		}
		for (j = 0; j < 20; j++) {
			snprintf(junk, sizeof(junk), "crasher_j%d", j);
			run_as(USER_UID, path_of(junk), "segv");
		}
	}
	TH_LOG("refused at attempt %d", banned_at);
	EXPECT_GT(banned_at, 0);
	EXPECT_LE(banned_at, 6);
	EXPECT_EQ(0, run_as(USER_UID + 1, path_of("crasher_suid"), "true"));
}

/* Copy the crasher into a memory file: an inode of its own each time. */
static int memfd_crasher(void)
{
	int in = open(path_of("crasher"), O_RDONLY), fd;
	char buf[65536];
	ssize_t n;

	fd = memfd_create("junk", 0);
	while (in >= 0 && fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return -1;
	close(in);
	return fd;
}

/*
 * What gains no privilege is no junk: a set-group-ID copy for a group the
 * user is in, and a fresh memory file executed by the root of a user
 * namespace that dropped its capabilities (execve() gives them back).
 * Their crashes are not counted: the user has no entry in the table.
 */
TEST_F(brute, v3_no_gain_no_count)
{
	int i, status, userns = 0;

	for (i = 0; i < 8; i++) {
		const gid_t group = 1100;
		pid_t pid = fork();

		if (!pid) {
			if (setgroups(1, &group) ||
			    setresgid(USER_UID, USER_UID, USER_UID) ||
			    setresuid(USER_UID, USER_UID, USER_UID))
				_exit(126);
			execl(path_of("crasher_sgid1100"), "crasher_sgid1100",
			      "segv", (char *)NULL);
			_exit(127);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_EQ(256 + SIGSEGV, WIFSIGNALED(status) ?
			  256 + WTERMSIG(status) : WEXITSTATUS(status));
	}
	for (i = 0; i < 8; i++) {
		pid_t pid = fork();

		if (!pid) {
			struct __user_cap_header_struct hdr = {
				_LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct data[2] = {};
			char map[32];
			int fd, mem;

			if (setgroups(0, NULL) ||
			    setresgid(USER_UID, USER_UID, USER_UID) ||
			    setresuid(USER_UID, USER_UID, USER_UID))
				_exit(126);
			/* Our own /proc/self files, after the ID change. */
			prctl(PR_SET_DUMPABLE, 1);
			mem = memfd_crasher();
			if (mem < 0 || unshare(CLONE_NEWUSER))
				_exit(125);
			fd = open("/proc/self/setgroups", O_WRONLY);
			if (fd < 0 || write(fd, "deny", 4) != 4)
				_exit(124);
			close(fd);
			snprintf(map, sizeof(map), "0 %d 1", USER_UID);
			fd = open("/proc/self/uid_map", O_WRONLY);
			if (fd < 0 || write(fd, map, strlen(map)) < 0)
				_exit(124);
			close(fd);
			fd = open("/proc/self/gid_map", O_WRONLY);
			if (fd < 0 || write(fd, map, strlen(map)) < 0)
				_exit(124);
			close(fd);
			if (syscall(SYS_capset, &hdr, data))
				_exit(123);
			fexecve(mem, ARGV("junk", "segv"), environ);
			_exit(127);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (WIFEXITED(status) && WEXITSTATUS(status) == 125)
			continue;
		EXPECT_EQ(256 + SIGSEGV, WIFSIGNALED(status) ?
			  256 + WTERMSIG(status) : WEXITSTATUS(status));
		userns++;
	}
	TH_LOG("user namespace crashes: %d of 8", userns);
	EXPECT_FALSE(user_in_table(USER_UID));
}

/*
 * A connection to the host's own address (not loopback) comes from no
 * remote peer: its crashes cross no boundary, nobody is banned.
 */
TEST_F(brute, v3_own_address_no_peer)
{
	struct outcome own;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   SRV_SPEC));
	ASSERT_GT(srv.pid, 0);
	own = client(ARGV((char *)path_of("client"), "-n", SRV_NETNS, "-c",
			  "8", "-r", "crash", "tcp", SRV_SPEC));
	EXPECT_EQ(8, own.crashed);
	EXPECT_FALSE(peer_banned("10.199.0.1/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * Eight threads of a user's set-user-ID image fault at once: one crash.
 * Three such processes are no attack; two more are.
 */
TEST_F(brute, v3_threads_one_crash)
{
	int i;

	klogctl(5, NULL, 0);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(256 + SIGSEGV, run_as(USER_UID,
						path_of("crasher_suid"),
						"threads"));
	EXPECT_EQ(3, target_faults(USER_UID, "crasher_suid"));
	EXPECT_FALSE(kmsg_has("brute force attack detected"));
	EXPECT_EQ(0, run_as(USER_UID, path_of("crasher_suid"), "true"));
	for (i = 0; i < 2; i++)
		run_as(USER_UID, path_of("crasher_suid"), "threads");
	EXPECT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
}

/* A service that reads its requests with splice(): the peer is charged. */
TEST_F(brute, v3_splice_input_charged)
{
	struct outcome attacker;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "-s",
			   "tcp", SRV_SPEC));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "8", "-r", "crash",
			       "tcp", SRV_SPEC));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * Every system call that reads a connection attributes it, once: read(),
 * readv(), recv(), and io_uring's read and receive, done by the child
 * itself.  (A read() is attributed at file_permission and skipped at
 * socket_recvmsg, a recv() only there.)
 */
TEST_F(brute, v4_every_read_call_charged)
{
	static const char *const hows[] = { "read", "readv", "recv",
					    "uring-read", "uring-recv" };
	struct outcome attacker;
	struct run srv;
	size_t i;

	NEED_NET();
	for (i = 0; i < ARRAY_SIZE(hows); i++) {
		TH_LOG("reading with %s", hows[i]);
		srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS,
				   "-r", (char *)hows[i], "tcp", SRV_SPEC));
		ASSERT_GT(srv.pid, 0);
		attacker = client(ARGV((char *)path_of("client"), "-n",
				       CLI_NETNS, "-b", "10.199.0.2", "-c", "8",
				       "-r", "crash", "tcp", SRV_SPEC));
		EXPECT_EQ(5, attacker.crashed);
		EXPECT_EQ(3, attacker.refused);
		EXPECT_TRUE(peer_banned("10.199.0.2/32"));
		EXPECT_EQ(0, service_end(&srv));
		ASSERT_EQ(0, lift("flush"));
	}
}

/* Root lists and lifts peer bans; a user can do neither. */
TEST_F(brute, v3_peer_lift_by_root_only)
{
	struct outcome out;
	struct run srv;
	pid_t pid;
	int status;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   SRV_SPEC));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "6", "-r", "crash", "tcp",
			  SRV_SPEC));
	EXPECT_EQ(1, out.refused);
	pid = fork();
	if (!pid) {
		if (setresuid(USER_UID, USER_UID, USER_UID))
			_exit(3);
		_exit(open(PEERS, O_RDONLY) < 0 && open(LIFT, O_WRONLY) < 0 &&
		      (errno == EACCES || errno == EPERM) ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(-EINVAL, lift("peer 10.199.0.2/33"));
	EXPECT_EQ(-ENOENT, lift("peer 10.199.0.3"));
	EXPECT_EQ(0, lift("peer 10.199.0.2"));
	EXPECT_FALSE(peer_banned("10.199.0.2/32"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "1", "tcp", SRV_SPEC));
	EXPECT_EQ(1, out.answered);
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * Response v4: the party that caused the crash pays.  A crash is charged
 * to a peer only when that peer's input is the only candidate; every way
 * input reaches a service is attributed or counted by the backstop; a
 * service's user is never charged for what its clients sent; trusted
 * proxies are never banned; a slow backstop asks for a restart.
 */

/* Write one transaction to the trusted list. */
static int trust(const char *what)
{
	int fd = open(TRUSTED, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, what, strlen(what)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The line of the trusted list for @entry ("10.0.0.0/8"): its crashes=. */
static int trusted_crashes(const char *entry)
{
	char key[80];

	snprintf(key, sizeof(key), "trusted=%s ", entry);
	return entries_sum(TRUSTED, key, " crashes=");
}

/*
 * Set CAP_SYS_ADMIN in the effective set of the caller (@on) or take it
 * out, the permitted set left whole.
 */
static int sys_admin_effective(bool on)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (on)
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective |=
			CAP_TO_MASK(CAP_SYS_ADMIN);
	else
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &=
			~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data);
}

/*
 * A descriptor of lift or trusted opened without CAP_SYS_ADMIN writes
 * nothing, whoever writes to it: a privileged program made to write a
 * line to a descriptor it inherited changes no policy.  0 if the open
 * or the write of @line was refused with EPERM.
 */
static int written_by_deputy(const char *path, const char *line)
{
	pid_t pid;
	int status;

	pid = fork();
	if (!pid) {
		int fd;

		if (sys_admin_effective(false))
			_exit(3);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(errno == EPERM ? 0 : 4);
		if (sys_admin_effective(true))
			_exit(5);
		if (write(fd, line, strlen(line)) >= 0)
			_exit(1);
		_exit(errno == EPERM ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(brute, v4_policy_needs_a_privileged_opener)
{
	struct stat st;
	char cmd[128];
	int i;

	for (i = 0; i < 5; i++)
		run_as(USER_UID, path_of("crasher_suid"), "segv");
	ASSERT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
	ASSERT_EQ(0, stat(path_of("crasher_suid"), &st));
	snprintf(cmd, sizeof(cmd), "%u %u:%u %llu", USER_UID,
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	EXPECT_EQ(0, written_by_deputy(LIFT, cmd));
	EXPECT_EQ(EPERM, run_as(USER_UID, path_of("crasher_suid"), "true"));
	EXPECT_EQ(0, written_by_deputy(TRUSTED, "add 10.199.0.66"));
	EXPECT_EQ(-1, trusted_crashes("10.199.0.66/32"));
	/* The same writer with the descriptor it opened itself: done. */
	EXPECT_EQ(0, lift(cmd));
	EXPECT_EQ(0, run_as(USER_UID, path_of("crasher_suid"), "true"));
}

/* Start @argv as @uid in the network namespace at @netns (NULL: ours). */
static struct run start_in(uid_t uid, const char *netns, char *const argv[])
{
	struct run run = { .pid = -1 };
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return run;
	run.pid = fork();
	if (!run.pid) {
		int ns = netns ? open(netns, O_RDONLY | O_CLOEXEC) : -1;

		if (netns && (ns < 0 || setns(ns, CLONE_NEWNET)))
			_exit(125);
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

static struct run service_in(uid_t uid, const char *netns, char *const argv[])
{
	struct run run = start_in(uid, netns, argv);
	char line[64];

	if (run.pid > 0) {
		while (fgets(line, sizeof(line), run.out))
			if (!strcmp(line, "listening\n"))
				break;
	}
	return run;
}

/* Send @count datagrams @text from @src (in @netns) to @dst:@port. */
static void send_udp(const char *netns, const char *src, const char *dst,
		     int port, const char *text, int count)
{
	pid_t pid = fork();

	if (!pid) {
		struct sockaddr_in from = { .sin_family = AF_INET };
		struct sockaddr_in to = { .sin_family = AF_INET,
					  .sin_port = htons(port) };
		int ns = open(netns, O_RDONLY | O_CLOEXEC), fd;

		if (ns < 0 || setns(ns, CLONE_NEWNET))
			_exit(1);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		inet_pton(AF_INET, src, &from.sin_addr);
		inet_pton(AF_INET, dst, &to.sin_addr);
		if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof(from)))
			_exit(1);
		while (count-- > 0)
			if (sendto(fd, text, strlen(text), 0,
				   (struct sockaddr *)&to, sizeof(to)) < 0)
				_exit(1);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* Serve @count connections at @addr:@port (in @netns), each told @text. */
static pid_t upstream(const char *netns, const char *addr, int port,
		      const char *text, int count)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (!pid) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(port) };
		int ns = open(netns, O_RDONLY | O_CLOEXEC), fd, one = 1;

		if (ns < 0 || setns(ns, CLONE_NEWNET))
			_exit(1);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		inet_pton(AF_INET, addr, &sin.sin_addr);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
		    listen(fd, 16))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		while (count-- > 0) {
			int conn = accept(fd, NULL, NULL);

			if (conn < 0 || write(conn, text, strlen(text)) < 0)
				_exit(1);
			close(conn);
		}
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		pid = -1;
	close(ready[0]);
	return pid;
}

/*
 * The client runs as @uid of a user namespace that root made, whose IDs
 * are 100000 and up on the host (a container of LXD, systemd-nspawn -U).
 */
static struct outcome client_in_userns(uid_t uid, char *const argv[])
{
	struct outcome out = { -1, -1, -1 };
	int go[2], fds[2];
	char path[64], line[128];
	pid_t pid;
	FILE *f;

	if (pipe(go) || pipe(fds))
		return out;
	pid = fork();
	if (!pid) {
		char c;

		dup2(fds[1], STDOUT_FILENO);
		if (unshare(CLONE_NEWUSER) || read(go[0], &c, 1) != 1 ||
		    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	/* The child unshared: give its namespace the container's map. */
	usleep(100000);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	f = fopen(path, "w");
	if (f) {
		fputs("0 100000 65536\n", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	f = fopen(path, "w");
	if (f) {
		fputs("0 100000 65536\n", f);
		fclose(f);
	}
	if (write(go[1], "g", 1) != 1)
		return out;
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "answered %ld crashed %ld refused %ld",
		       &out.answered, &out.crashed, &out.refused);
	if (f)
		fclose(f);
	waitpid(pid, NULL, 0);
	return out;
}

/*
 * A client that chooses MPTCP is attributed as a TCP one: banned after
 * min_faults crashes; a TCP client of another address is served.
 */
TEST_F(brute, v4_mptcp_peer_banned)
{
	struct outcome attacker, benign;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-M", "-n", SRV_NETNS,
			   "tcp", "10.199.0.1:7781"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-M", "-n",
			       CLI_NETNS, "-b", "10.199.0.2", "-c", "8", "-r",
			       "crash", "tcp", "10.199.0.1:7781"));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "4", "tcp", "10.199.0.1:7781"));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_EQ(4, benign.answered);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A local user crashing a root service over TCP on loopback is that
 * user's doing: refused after min_faults crashes (its connection requests
 * dropped), another user is served.
 */
TEST_F(brute, v4_loopback_local_user_banned)
{
	struct outcome attacker, other;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   "127.0.0.1:7782"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", SRV_NETNS,
			       "-u", "4243", "-c", "8", "-r", "crash", "tcp",
			       "127.0.0.1:7782"));
	other = client(ARGV((char *)path_of("client"), "-n", SRV_NETNS, "-u",
			    "4244", "-c", "3", "tcp", "127.0.0.1:7782"));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_EQ(3, other.answered);
	EXPECT_TRUE(peer_banned("uid:4243"));
	EXPECT_FALSE(peer_banned("uid:4244"));
	EXPECT_EQ(0, service_end(&srv));
}

/* The same with MPTCP on loopback: its subflows are the user's. */
TEST_F(brute, v4_mptcp_loopback_local_user_banned)
{
	struct outcome attacker;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-M", "-n", SRV_NETNS,
			   "tcp", "127.0.0.1:7799"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-M", "-n",
			       SRV_NETNS, "-u", "4243", "-c", "8", "-r",
			       "crash", "tcp", "127.0.0.1:7799"));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_TRUE(peer_banned("uid:4243"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A user of a user namespace that root made is its kernel user ID, not
 * root: refused after min_faults crashes of a root service's Unix socket.
 */
TEST_F(brute, v4_userns_user_charged)
{
	struct outcome attacker;
	struct run srv;

	srv = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	attacker = client_in_userns(1000, ARGV((char *)path_of("client"), "-c",
					       "8", "-r", "crash", "unix",
					       UNIX_PATH));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_TRUE(peer_banned("uid:101000"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A benign client's request is followed by input from another source that
 * crashes the child: nobody can be charged, the benign client is never
 * banned.  @frame is the service's -F argument; @prepare feeds it.
 */
static void framing(struct __test_metadata *_metadata, const char *frame,
		    const char *port)
{
	char spec[32];
	struct outcome benign;
	struct run srv;

	snprintf(spec, sizeof(spec), "10.199.0.1:%s", port);
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "-F",
			   (char *)frame, "tcp", spec));
	ASSERT_GT(srv.pid, 0);
	if (!strncmp(frame, "udp:", 4) || !strncmp(frame, "uring:", 6))
		send_udp(CLI_NETNS, "10.100.1.2", "10.199.0.1",
			 atoi(strchr(frame, ':') + 1), "crash", 8);
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "8", "-r", "frame", "tcp",
			     spec));
	EXPECT_EQ(8, benign.crashed);
	EXPECT_EQ(0, benign.refused);
	EXPECT_FALSE(peer_banned("10.198.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

TEST_F(brute, v4_udp_framing_not_charged)
{
	NEED_NET();
	framing(_metadata, "udp:7790", "7783");
}

TEST_F(brute, v4_uring_framing_not_charged)
{
	NEED_NET();
	framing(_metadata, "uring:7792", "7793");
}

TEST_F(brute, v4_upstream_framing_not_charged)
{
	pid_t up;

	NEED_NET();
	up = upstream(CLI_NETNS, "10.100.2.2", 7791, "crash\n", 8);
	ASSERT_GT(up, 0);
	framing(_metadata, "tcp:10.100.2.2:7791", "7794");
	kill(up, SIGKILL);
	waitpid(up, NULL, 0);
}

TEST_F(brute, v4_pipe_framing_not_charged)
{
	const char *fifo = "/tmp/brute_fifo";
	int ready[2];
	pid_t writer;
	char c;

	NEED_NET();
	unlink(fifo);
	ASSERT_EQ(0, mkfifo(fifo, 0666));
	ASSERT_EQ(0, chmod(fifo, 0666));
	ASSERT_EQ(0, pipe(ready));
	writer = fork();
	if (!writer) {
		int i, fd;

		close(ready[0]);
		if (setresuid(4243, 4243, 4243)) {
			perror("fifo writer: setresuid");
			_exit(1);
		}
		/*
		 * Every line at once, kept open: each reader takes one.  Open
		 * for reading too: a reader that crashes before the last line
		 * is written leaves no pipe without readers (EPIPE, SIGPIPE).
		 */
		fd = open(fifo, O_RDWR);
		for (i = 0; i < 8; i++) {
			if (fd < 0 || write(fd, "crash\n", 6) != 6) {
				perror("fifo writer");
				_exit(1);
			}
		}
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	/* The lines are in the pipe before the first reader opens it. */
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	framing(_metadata, "fifo:/tmp/brute_fifo", "7795");
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	unlink(fifo);
}

/*
 * A SIGBUS is a mapped file's doing as often as the input's: never charged
 * to the peer whose request preceded it.
 */
TEST_F(brute, v4_sigbus_not_charged)
{
	struct outcome out;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   "10.199.0.1:7798"));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "8", "-r", "bus", "tcp",
			  "10.199.0.1:7798"));
	EXPECT_EQ(8, out.crashed);
	EXPECT_FALSE(peer_banned("10.199.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/* Give a copy of the service file capabilities: cap_net_bind_service=ep. */
static int service_fcaps(const char *path)
{
	struct vfs_cap_data cap = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
	};
	char cmd[2 * PATH_MAX];

	cap.data[0].permitted = 1U << CAP_NET_BIND_SERVICE;
	snprintf(cmd, sizeof(cmd), "cp %s %s && chmod 755 %s",
		 path_of("service"), path, path);
	if (system(cmd))
		return -1;
	return setxattr(path, "security.capability", &cap, XATTR_CAPS_SZ_2, 0);
}

/*
 * A service that a user runs with file capabilities is a service: its
 * clients' crashes ban the client, never kill the service, never ban its
 * user from its binary.
 */
TEST_F(brute, v4_fcaps_service_lives)
{
	const char *fcaps = "/tmp/brute_service_fcaps";
	struct outcome attacker, benign;
	struct run srv, again;

	NEED_NET();
	ASSERT_EQ(0, service_fcaps(fcaps));
	srv = service_in(USER_UID, SRV_NETNS,
			 ARGV((char *)fcaps, "tcp", "10.199.0.1:7784"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "8", "-r", "crash",
			       "tcp", "10.199.0.1:7784"));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "3", "tcp", "10.199.0.1:7784"));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_EQ(3, benign.answered);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_FALSE(user_in_table(USER_UID));
	EXPECT_EQ(0, service_end(&srv));
	/* Its user runs it again. */
	again = service_in(USER_UID, SRV_NETNS,
			   ARGV((char *)fcaps, "tcp", "10.199.0.1:7784"));
	ASSERT_GT(again.pid, 0);
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "1", "tcp", "10.199.0.1:7784"));
	EXPECT_EQ(1, benign.answered);
	EXPECT_EQ(0, service_end(&again));
	unlink(fcaps);
}

/* The same for a service a user started through sudo (a full-ID wrapper). */
TEST_F(brute, v4_sudo_service_lives)
{
	struct outcome attacker;
	struct run srv;

	NEED_NET();
	srv = service_in(USER_UID, SRV_NETNS,
			 ARGV((char *)path_of("wrapper_suid"), "-f",
			      (char *)path_of("service"), "tcp",
			      "10.199.0.1:7785"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "8", "-r", "crash",
			       "tcp", "10.199.0.1:7785"));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_FALSE(user_in_table(USER_UID));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A load balancer the operator trusts (10.199.0.17) sends every client's
 * requests: crashes through it never ban it, and are counted in its entry;
 * clients through it are served.
 */
TEST_F(brute, v4_trusted_lb_not_banned)
{
	struct outcome attacker, benign;
	struct run srv, lb;

	NEED_NET();
	ASSERT_EQ(0, trust("add 10.199.0.17"));
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   "10.199.0.1:7786"));
	ASSERT_GT(srv.pid, 0);
	lb = service(ARGV((char *)path_of("proxy"), "-n", CLI_NETNS, "-b",
			  "10.199.0.17", "tcp", "10.199.0.2:9786", "tcp",
			  "10.199.0.1:7786"));
	ASSERT_GT(lb.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.198.0.2", "-c", "8", "-r", "crash",
			       "tcp", "10.199.0.2:9786"));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "3", "tcp", "10.199.0.2:9786"));
	EXPECT_EQ(8, attacker.crashed);
	EXPECT_EQ(3, benign.answered);
	EXPECT_FALSE(peer_banned("10.199.0.17/32"));
	EXPECT_EQ(8, trusted_crashes("10.199.0.17/32"));
	EXPECT_EQ(0, service_end(&lb));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * nginx in front of PHP-FPM: a proxy of a system account (uid 33) relays
 * each client over a connection of its own to a root master whose workers
 * run as the pool's user.  The attacker's address is seen through the
 * proxy and banned at the proxy's endpoint; the proxy never is; another
 * client is served.
 */
TEST_F(brute, v4_relay_seen_through)
{
	struct outcome attacker, benign;
	struct run srv, front;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-u", "4260", "unix",
			   UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	front = service(ARGV((char *)path_of("proxy"), "-n", SRV_NETNS, "-u",
			     "33", "tcp", "10.199.0.1:7787", "unix",
			     UNIX_PATH));
	ASSERT_GT(front.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "8", "-r", "crash",
			       "tcp", "10.199.0.1:7787"));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "4", "tcp", "10.199.0.1:7787"));
	EXPECT_EQ(5, attacker.crashed);
	EXPECT_EQ(3, attacker.refused);
	EXPECT_EQ(4, benign.answered);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_FALSE(peer_banned("uid:33"));
	EXPECT_EQ(0, service_end(&front));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A proxy that relays every client over one connection mixes them: a
 * system account's mixed input is nobody's (never banned); a user's own
 * proxy answers for what it mixed.
 */
TEST_F(brute, v4_relay_mixed)
{
	struct outcome attacker, out;
	struct run srv, front;
	int i;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-k", "-u", "4260",
			   "unix", UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	front = service(ARGV((char *)path_of("proxy"), "-m", "-n", SRV_NETNS,
			     "-u", "33", "tcp", "10.199.0.1:7788", "unix",
			     UNIX_PATH));
	ASSERT_GT(front.pid, 0);
	/*
	 * Each crash takes the proxy's connection down with the worker: a
	 * benign request first on each new one, so that it is mixed.
	 */
	for (i = 0, attacker.crashed = 0; i < 8; i++) {
		client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			    "10.198.0.2", "-c", "1", "tcp", "10.199.0.1:7788"));
		out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
				  "-b", "10.199.0.2", "-c", "1", "-r", "crash",
				  "tcp", "10.199.0.1:7788"));
		attacker.crashed += out.crashed;
	}
	EXPECT_EQ(8, attacker.crashed);
	EXPECT_FALSE(peer_banned("uid:33"));
	EXPECT_FALSE(peer_banned("10.199.0.2/32"));
	EXPECT_EQ(0, service_end(&front));

	front = service(ARGV((char *)path_of("proxy"), "-m", "-n", SRV_NETNS,
			     "-u", "4261", "tcp", "10.199.0.1:7789", "unix",
			     UNIX_PATH));
	ASSERT_GT(front.pid, 0);
	/* Its user's proxy is banned within min_faults attacks. */
	for (i = 0; i < 8 && !peer_banned("uid:4261"); i++) {
		client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			    "10.198.0.2", "-c", "1", "tcp", "10.199.0.1:7789"));
		client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			    "10.199.0.2", "-c", "1", "-r", "crash", "tcp",
			    "10.199.0.1:7789"));
	}
	EXPECT_EQ(5, i);
	EXPECT_TRUE(peer_banned("uid:4261"));
	EXPECT_EQ(0, service_end(&front));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * The endpoints a user makes without privilege share one share of the
 * peer table (table_size 16: 4 entries): six services of user 1000, each
 * crashed from an address of its own, get four bans in all; a root
 * service still bans its attacker.
 */
TEST_F(brute, v4_one_user_one_share)
{
	struct outcome out;
	struct run mine[6], root;
	char spec[32], addr[32];
	int i;

	NEED_NET();
	ASSERT_EQ(0, sysctl_write("table_size", "16"));
	ASSERT_EQ(0, sysctl_write("escalate_prefix_v4", "32"));
	for (i = 0; i < 6; i++) {
		snprintf(spec, sizeof(spec), "10.199.0.1:%d", 7801 + i);
		mine[i] = service_in(USER_UID, SRV_NETNS,
				     ARGV((char *)path_of("service"), "tcp",
					  spec));
		ASSERT_GT(mine[i].pid, 0);
	}
	for (i = 0; i < 6; i++) {
		snprintf(spec, sizeof(spec), "10.199.0.1:%d", 7801 + i);
		snprintf(addr, sizeof(addr), "10.100.%d.2", i + 1);
		out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
				  "-b", addr, "-c", "6", "-r", "crash", "tcp",
				  spec));
		EXPECT_EQ(i < 4 ? 5 : 6, out.crashed);
	}
	EXPECT_TRUE(peer_banned("10.100.4.2/32"));
	EXPECT_FALSE(peer_banned("10.100.5.2/32"));
	root = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			    "10.199.0.1:7807"));
	ASSERT_GT(root.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.100.7.2", "-c", "8", "-r", "crash", "tcp",
			  "10.199.0.1:7807"));
	EXPECT_EQ(5, out.crashed);
	EXPECT_TRUE(peer_banned("10.100.7.2/32"));
	EXPECT_EQ(0, service_end(&root));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(0, service_end(&mine[i]));
}

/*
 * A ban stays in force when the prefix length of peers changes, and is
 * enforced in mode 2 only.
 */
TEST_F(brute, v4_ban_prefix_change_and_modes)
{
	struct outcome out;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   "10.199.0.1:7796"));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "6", "-r", "crash", "tcp",
			  "10.199.0.1:7796"));
	EXPECT_EQ(5, out.crashed);
	ASSERT_EQ(0, sysctl_write("peer_prefix_v4", "24"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "2", "tcp", "10.199.0.1:7796"));
	EXPECT_EQ(2, out.refused);
	ASSERT_EQ(0, sysctl_write("mode", "1"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "2", "tcp", "10.199.0.1:7796"));
	EXPECT_EQ(2, out.answered);
	ASSERT_EQ(0, sysctl_write("mode", "2"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "1", "tcp", "10.199.0.1:7796"));
	EXPECT_EQ(1, out.refused);
	EXPECT_EQ(0, service_end(&srv));
}

/* A Unix service that makes its socket again keeps its bans. */
TEST_F(brute, v4_unix_ban_survives_restart)
{
	struct outcome out;
	struct run srv;

	srv = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-u", "4243", "-c", "6",
			  "-r", "crash", "unix", UNIX_PATH));
	EXPECT_EQ(5, out.crashed);
	EXPECT_EQ(0, service_end(&srv));
	srv = service(ARGV((char *)path_of("service"), "unix", UNIX_PATH));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-u", "4243", "-c", "2",
			  "unix", UNIX_PATH));
	EXPECT_EQ(2, out.refused);
	out = client(ARGV((char *)path_of("client"), "-u", "4244", "-c", "1",
			  "unix", UNIX_PATH));
	EXPECT_EQ(1, out.answered);
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * Root that dropped CAP_SETUID runs a set-user-ID program of user 1000
 * until it crashes twelve times: root is never the user of an exec attack,
 * its processes are never killed for one.
 */
TEST_F(brute, v4_root_without_setuid_not_banned)
{
	int status;
	pid_t pid;

	pid = fork();
	if (!pid) {
		if (prctl(PR_CAPBSET_DROP, CAP_SETUID, 0, 0, 0))
			_exit(125);
		execl(path_of("attacker"), "attacker", "exec", "12",
		      path_of("crasher_suid1000"), "segv", NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_FALSE(user_in_table(0));
}

/*
 * An ordinary bug: crashes slower than crash_period_threshold_ms.  The
 * peer is never banned for it; at backstop_faults the service is asked to
 * restart (it lives), and killed at its next crash if nothing restarted
 * it.
 */
TEST_F(brute, v4_slow_backstop_restart)
{
	struct outcome out;
	struct run srv;
	int status;

	NEED_NET();
	ASSERT_EQ(0, sysctl_write("crash_period_threshold_ms", "50"));
	ASSERT_EQ(0, sysctl_write("min_faults", "2"));
	ASSERT_EQ(0, sysctl_write("max_faults", "3"));
	ASSERT_EQ(0, sysctl_write("backstop_faults", "4"));
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   "10.199.0.1:7797"));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "4", "-i", "300", "-r", "crash",
			  "tcp", "10.199.0.1:7797"));
	EXPECT_EQ(4, out.crashed);
	EXPECT_FALSE(peer_banned("10.199.0.2/32"));
	usleep(200000);
	EXPECT_NE(srv.pid, waitpid(srv.pid, &status, WNOHANG));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "1", "-r", "crash", "tcp",
			  "10.199.0.1:7797"));
	EXPECT_EQ(1, out.crashed);
	EXPECT_EQ(SIGKILL, service_end_after(&srv, 5000));
}

#define HOLD_ATTACKERS "10.100.1.2,10.100.2.2,10.100.3.2,10.100.4.2"

/*
 * The held tests' service on @spec, with backstop_faults 4 and
 * backstop_hold_s @hold_s (executing itself again on SIGHUP if @reexec),
 * crashed 4 times fast from addresses no ban reaches: its backstop.
 */
static struct run hold_attacked(struct __test_metadata *_metadata,
				const char *hold_s, const char *spec,
				bool reexec)
{
	struct outcome out;
	struct run srv;

	EXPECT_EQ(0, sysctl_write("backstop_faults", "4"));
	EXPECT_EQ(0, sysctl_write("backstop_hold_s", hold_s));
	if (reexec)
		srv = service(ARGV((char *)path_of("service"), "-R", "-n",
				   SRV_NETNS, "tcp", (char *)spec));
	else
		srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS,
				   "tcp", (char *)spec));
	if (srv.pid <= 0)
		return srv;
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-B",
			  HOLD_ATTACKERS, "-c", "4", "-r", "crash", "tcp",
			  (char *)spec));
	EXPECT_EQ(4, out.crashed);
	return srv;
}

/* The requests of a client that is not attacking @spec answered. */
static long hold_answered(const char *spec, const char *count)
{
	return client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			   "10.100.5.2", "-c", (char *)count, "tcp",
			   (char *)spec)).answered;
}

/*
 * Crashes that come fast from addresses no ban reaches, with
 * backstop_hold_s set: the backstop kills the workers but holds the master
 * (its listening socket stays open); it forks nothing, so no request is
 * answered by the crashed layout, until it executes itself again (a
 * reload): then it serves, and its crashes count afresh.
 */
TEST_F(brute, v4_fast_backstop_hold_reload)
{
	const char *spec = "10.199.0.1:7813";
	struct outcome out;
	struct run srv;
	int status;

	NEED_NET();
	srv = hold_attacked(_metadata, "60", spec, true);
	ASSERT_GT(srv.pid, 0);
	usleep(200000);
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(0, hold_answered(spec, "2"));
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	ASSERT_EQ(0, kill(srv.pid, SIGHUP));
	usleep(300000);
	EXPECT_EQ(2, hold_answered(spec, "2"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-B",
			  HOLD_ATTACKERS, "-c", "3", "-r", "crash", "tcp",
			  (char *)spec));
	EXPECT_EQ(3, out.crashed);
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * The same, but nothing reloads the held master: once backstop_hold_s is
 * over, the kernel kills it, as it would have without a hold, whether it
 * forks again or not (this one forks only for a connection, and none
 * comes after the hold).
 */
TEST_F(brute, v4_fast_backstop_hold_expires)
{
	const char *spec = "10.199.0.1:7814";
	struct run srv;
	int status;

	NEED_NET();
	srv = hold_attacked(_metadata, "2", spec, false);
	ASSERT_GT(srv.pid, 0);
	usleep(200000);
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(0, hold_answered(spec, "1"));
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(SIGKILL, service_end_after(&srv, 6000));
}

/*
 * A hold is a mitigation: mode=1 (report only) and mode=0 start none, and
 * a hold started in mode=2 refuses no fork while the mode is 1 or 0; it
 * refuses again once the mode is 2 and the hold not over.
 */
TEST_F(brute, v4_fast_backstop_hold_modes)
{
	const char *spec_audit = "10.199.0.1:7815";
	const char *spec = "10.199.0.1:7816";
	struct run srv;
	int status;

	NEED_NET();
	ASSERT_EQ(0, sysctl_write("mode", "1"));
	srv = hold_attacked(_metadata, "60", spec_audit, false);
	ASSERT_GT(srv.pid, 0);
	usleep(200000);
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(2, hold_answered(spec_audit, "2"));
	EXPECT_EQ(0, service_end(&srv));

	ASSERT_EQ(0, sysctl_write("mode", "2"));
	srv = hold_attacked(_metadata, "60", spec, false);
	ASSERT_GT(srv.pid, 0);
	usleep(200000);
	EXPECT_EQ(0, hold_answered(spec, "1"));
	ASSERT_EQ(0, sysctl_write("mode", "1"));
	EXPECT_EQ(2, hold_answered(spec, "2"));
	ASSERT_EQ(0, sysctl_write("mode", "0"));
	EXPECT_EQ(2, hold_answered(spec, "2"));
	ASSERT_EQ(0, sysctl_write("mode", "2"));
	EXPECT_EQ(0, hold_answered(spec, "1"));
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A hold that ends while the mode is 1 is over: it kills nothing then, nor
 * after a later switch back to mode 2 (the service forks and serves).
 */
TEST_F(brute, v4_fast_backstop_hold_ends_in_audit)
{
	const char *spec = "10.199.0.1:7817";
	struct run srv;
	int status;

	NEED_NET();
	srv = hold_attacked(_metadata, "1", spec, false);
	ASSERT_GT(srv.pid, 0);
	usleep(200000);
	ASSERT_EQ(0, sysctl_write("mode", "1"));
	usleep(2500000);
	ASSERT_EQ(0, sysctl_write("mode", "2"));
	EXPECT_EQ(2, hold_answered(spec, "2"));
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A backstop verdict made in mode 1 only reports: after a switch to mode 2
 * the service's next crash does not kill it (a verdict in mode 2 would,
 * and says so); its statistics start from that verdict.
 */
TEST_F(brute, v4_audit_verdict_does_not_rekill)
{
	const char *spec = "10.199.0.1:7818";
	struct outcome out;
	struct run srv;
	int status;

	NEED_NET();
	ASSERT_EQ(0, sysctl_write("mode", "1"));
	srv = hold_attacked(_metadata, "0", spec, false);
	ASSERT_GT(srv.pid, 0);
	ASSERT_EQ(0, sysctl_write("mode", "2"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-B",
			  HOLD_ATTACKERS, "-c", "2", "-r", "crash", "tcp",
			  (char *)spec));
	EXPECT_EQ(2, out.crashed);
	usleep(200000);
	EXPECT_EQ(0, waitpid(srv.pid, &status, WNOHANG));
	EXPECT_EQ(2, hold_answered(spec, "2"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A peer banned before the operator declared it trusted is refused no
 * longer: a trusted peer is never refused, whatever ban covers it.
 */
TEST_F(brute, v4_trusted_after_ban)
{
	const char *spec = "10.199.0.1:7819";
	struct outcome out;
	struct run srv;
	int refused;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   (char *)spec));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "5", "-r", "crash", "tcp",
			  (char *)spec));
	EXPECT_EQ(5, out.crashed);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "1", "-t", "300", "tcp",
			  (char *)spec));
	EXPECT_EQ(1, out.refused);
	refused = peer_refused("10.199.0.2/32");
	EXPECT_GE(refused, 1);
	ASSERT_EQ(0, trust("add 10.199.0.2"));
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "2", "tcp", (char *)spec));
	EXPECT_EQ(2, out.answered);
	/* Its connections were not refusals: the ban's count is as it was. */
	EXPECT_EQ(refused, peer_refused("10.199.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * What a crash is: a fault that ends the process, whether it dies of the
 * signal or its handler ends it.  One address crashing a service whose
 * handler exits (@how "exit", ProFTPD's sessions) or panics and exits
 * with an error (@how "panic", Go) is banned after min_faults crashes,
 * as it is with the default action; a handler that goes back to work
 * (@how "return", "longjmp") is no crash: nothing is counted.
 */
static void handled_faults(struct __test_metadata *_metadata, const char *how,
			   const char *spec, int counted)
{
	struct outcome attacker, benign;
	struct run srv;

	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "-k",
			   "-H", (char *)how, "tcp", (char *)spec));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "8", "-r", "crash",
			       "tcp", (char *)spec));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "3", "tcp", (char *)spec));
	EXPECT_EQ(3, benign.answered);
	if (counted) {
		EXPECT_EQ(5, attacker.crashed);
		EXPECT_EQ(3, attacker.refused);
		EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	} else {
		EXPECT_EQ(8, attacker.answered);
		EXPECT_FALSE(peer_banned("10.199.0.2/32"));
		EXPECT_EQ(-1, peer_refused("10.199.0.2/32"));
	}
	EXPECT_EQ(0, service_end(&srv));
}

TEST_F(brute, v5_handler_exit_charged)
{
	NEED_NET();
	handled_faults(_metadata, "exit", "10.199.0.1:7811", 1);
}

TEST_F(brute, v5_handler_panic_exit_charged)
{
	NEED_NET();
	handled_faults(_metadata, "panic", "10.199.0.1:7812", 1);
}

TEST_F(brute, v5_handler_return_not_counted)
{
	NEED_NET();
	handled_faults(_metadata, "return", "10.199.0.1:7813", 0);
}

TEST_F(brute, v5_handler_longjmp_not_counted)
{
	NEED_NET();
	handled_faults(_metadata, "longjmp", "10.199.0.1:7814", 0);
}

/*
 * A SIGBUS past the end of a file only the service's own user can write
 * is no other user's doing: charged like a SIGSEGV.  (An attacker's #SS,
 * a SIGBUS with SI_KERNEL, is too; QEMU's TCG raises #GP instead.)
 */
TEST_F(brute, v5_sigbus_own_file_charged)
{
	struct outcome out;
	struct run srv;

	NEED_NET();
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS, "tcp",
			   "10.199.0.1:7815"));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "8", "-r", "bus-own", "tcp",
			  "10.199.0.1:7815"));
	EXPECT_EQ(5, out.crashed);
	EXPECT_EQ(3, out.refused);
	EXPECT_TRUE(peer_banned("10.199.0.2/32"));
	EXPECT_EQ(0, service_end(&srv));
}

/*
 * A service its user runs with file capabilities that serves datagrams
 * (@kind udp or sctp) is a service: a peer's crashing datagrams neither
 * kill it nor charge its user; nobody but the backstop answers for them.
 */
static void dgram_service_lives(struct __test_metadata *_metadata,
				const char *kind, const char *spec)
{
	const char *fcaps = "/tmp/brute_service_fcaps";
	struct outcome attacker, benign;
	struct run srv;

	ASSERT_EQ(0, service_fcaps(fcaps));
	srv = service_in(USER_UID, SRV_NETNS,
			 ARGV((char *)fcaps, (char *)kind, (char *)spec));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-b", "10.199.0.2", "-c", "8", "-r", "crash",
			       (char *)kind, (char *)spec));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "3", (char *)kind,
			     (char *)spec));
	EXPECT_EQ(8, attacker.crashed);
	EXPECT_EQ(3, benign.answered);
	EXPECT_FALSE(user_in_table(USER_UID));
	EXPECT_EQ(0, service_end(&srv));
	unlink(fcaps);
}

TEST_F(brute, v5_fcaps_udp_service_lives)
{
	NEED_NET();
	dgram_service_lives(_metadata, "udp", "10.199.0.1:7816");
}

TEST_F(brute, v5_fcaps_sctp_service_lives)
{
	int fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);

	NEED_NET();
	if (fd < 0)
		SKIP(return, "no SCTP in this kernel");
	close(fd);
	dgram_service_lives(_metadata, "sctp", "10.199.0.1:7817");
}

/*
 * A packet socket carries what another machine sent: a service reading one
 * crosses the network boundary, and its crashes count (here toward a
 * backstop of 3, which kills it: root's image, nobody to charge).
 */
TEST_F(brute, v5_packet_socket_crosses_network)
{
	struct outcome out;
	struct run srv;

	NEED_NET();
	ASSERT_EQ(0, sysctl_write("backstop_faults", "3"));
	srv = service(ARGV((char *)path_of("service"), "-n", SRV_NETNS,
			   "packet", "brute0"));
	ASSERT_GT(srv.pid, 0);
	out = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			  "10.199.0.2", "-c", "6", "-t", "300", "-r", "crash",
			  "udp", "10.199.0.1:7820"));
	EXPECT_EQ(6, out.crashed);
	EXPECT_EQ(SIGKILL, service_end_after(&srv, 2000));
}

/*
 * What its own user sends it over loopback is not another party's: the
 * user who runs a file-capability datagram service and crashes it with
 * datagrams of their own is charged (its image is killed, the user is in
 * the table), as over TCP.
 */
TEST_F(brute, v5_fcaps_udp_own_input_charged)
{
	const char *fcaps = "/tmp/brute_service_fcaps";
	struct outcome attacker;
	char uid[16];
	struct run srv;
	int sig;

	NEED_NET();
	snprintf(uid, sizeof(uid), "%d", USER_UID);
	ASSERT_EQ(0, service_fcaps(fcaps));
	srv = service_in(USER_UID, SRV_NETNS,
			 ARGV((char *)fcaps, "udp", "10.199.0.1:7819"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", SRV_NETNS,
			       "-u", uid, "-c", "8", "-r", "crash", "udp",
			       "10.199.0.1:7819"));
	EXPECT_EQ(8, attacker.crashed);
	EXPECT_TRUE(user_in_table(USER_UID));
	sig = service_end_after(&srv, 2000);
	EXPECT_EQ(SIGKILL, sig);
	unlink(fcaps);
}

/*
 * A file-capability web server whose workers execute a CGI program with
 * the request on a pipe: the program gains nothing itself, it serves the
 * server's clients.  Five addresses crashing it once each neither ban the
 * server's user from the program nor kill the server.
 */
TEST_F(brute, v5_fcaps_cgi_service_lives)
{
	const char *fcaps = "/tmp/brute_service_fcaps";
	struct outcome attacker, benign;
	struct run srv;

	NEED_NET();
	ASSERT_EQ(0, service_fcaps(fcaps));
	srv = service_in(USER_UID, SRV_NETNS,
			 ARGV((char *)fcaps, "-C", (char *)path_of("service"),
			      "tcp", "10.199.0.1:7818"));
	ASSERT_GT(srv.pid, 0);
	attacker = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS,
			       "-B", "10.100.1.2,10.100.2.2,10.100.3.2,10.100.4.2,10.100.5.2,10.100.6.2",
			       "-c", "6", "-r", "crash", "tcp",
			       "10.199.0.1:7818"));
	benign = client(ARGV((char *)path_of("client"), "-n", CLI_NETNS, "-b",
			     "10.198.0.2", "-c", "3", "tcp", "10.199.0.1:7818"));
	EXPECT_EQ(6, attacker.crashed);
	EXPECT_EQ(3, benign.answered);
	EXPECT_FALSE(user_in_table(USER_UID));
	EXPECT_EQ(0, service_end(&srv));
	unlink(fcaps);
}

TEST_HARNESS_MAIN
