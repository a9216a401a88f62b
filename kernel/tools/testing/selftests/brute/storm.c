// SPDX-License-Identifier: GPL-2.0
/*
 * Stress storm of the Brute selftests: every path of Brute at once, on every
 * CPU, for a while; then the outcomes.
 *
 * Usage: storm [-s SECONDS] [-b BIG] [-w WAIT] [-n]
 *   -s SECONDS  how long the storm lasts (default 20)
 *   -w WAIT     how long the actors may take to stop after it (default 90)
 *   -b BIG      processes of the large detected hierarchy (default 1000)
 *   -n          network attacks over the veth pair of run.sh (namespaces
 *               brute_srv and brute_cli, 10.199.0.1)
 *
 * Concurrently, until the time is up:
 *   fork      hierarchies that change their IDs then fork crashing children
 *   exec      users 2001-2008 execute the set-user-ID crasher until banned
 *   churn     users 3000 and up crash the set-user-ID crasher once each, so
 *             that the (user, target) table stays full (table_size 16)
 *   threads   threads crash while their siblings exit
 *   setid     set*id() changes without a crash (bystanders)
 *   net       a server forks a crashing child per connection (-n)
 *   flips     mode 1 <-> 2 and the threshold, min_faults, table size change
 *   relay     a relay of 100 generations, over and over
 *   big       a hierarchy of BIG sleeping processes, some exiting, detected
 *   bystand   processes of other users that sleep, and a fork workload of
 *             an unprivileged user whose children crash (no boundary)
 * Then, with the tunables restored: one more fork attack and one more exec
 * attack, which must be stopped.
 *
 * Every actor is the storm executed again (storm -A NAME): a fresh image,
 * hence a hierarchy of its own, so that what crashes in one never charges
 * another, nor the storm itself.  Counters live in a shared file.
 *
 * Prints TAP lines ("ok - what" / "not ok - what") with "#" details, and
 * "storm: killed=N banned_users=N" for the audit trail checks of the caller.
 * Runs as root; the binaries it runs live beside it (run.sh makes the
 * set-user-ID copies).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXEC_USERS 8
#define EXEC_UID 2001
#define CHURN_UID 3000
#define BYSTANDERS 6
#define NET_PORT 7411
/* How long the actors may take to stop after the end. */
#define STOP_S 90
static int stop_s = STOP_S;

/* Shared with every actor: counters, and the end of the storm. */
struct shared {
	volatile int stop;
	volatile time_t stop_at;	/* when the big runner must give up */
	long fork_runs, fork_killed;
	long exec_runs, exec_crashed, exec_refused[EXEC_USERS];
	long churn_runs, thread_runs, thread_killed, setid_runs, net_runs;
	long net_killed, net_banned, relay_runs, flips, big_done, big_killed, big_left;
};

#define SHARED "/tmp/brute-storm.shm"

static struct shared *sh;
static char dir[PATH_MAX - 64];
static int tap_failed;

static void tap(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - ", ok ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

static const char *path_of(const char *name)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static void fault(void)
{
	int *p = (int *)strtoul("8", NULL, 0);

	*p = 0;
}

static int sysctl_write(const char *name, long value)
{
	char path[128], buf[32];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/kernel/brute/%s", name);
	len = snprintf(buf, sizeof(buf), "%ld", value);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != len)
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

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int become(uid_t uid)
{
	return setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ? -1 : 0;
}

/* Run @argv as @uid (IDs dropped before the execve()); its end signal or -status. */
static int run_as(uid_t uid, char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1000;
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (uid && become(uid))
			_exit(126);
		execv(argv[0], argv);
		_exit(errno == EPERM ? 125 : 127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1000;
	return WIFSIGNALED(status) ? WTERMSIG(status) : -WEXITSTATUS(status);
}

#define ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })

/*
 * Fork attacks: the set-user-ID attacker, run by a new user each time (so
 * that no user is banned from it), forks crashing children until stopped.
 */
static void actor_fork(int first_uid)
{
	uid_t uid = first_uid;

	while (!sh->stop) {
		int sig = run_as(uid++, ARGV((char *)path_of("attacker_suid"),
					     "fork", "30"));

		__sync_fetch_and_add(&sh->fork_runs, 1);
		if (sig == SIGKILL)
			__sync_fetch_and_add(&sh->fork_killed, 1);
	}
}

/* Exec attacks of one user on the set-user-ID crasher: a fresh process each. */
static void actor_exec(int user)
{
	while (!sh->stop) {
		int r = run_as(EXEC_UID + user,
			       ARGV((char *)path_of("crasher_suid"), "segv"));

		__sync_fetch_and_add(&sh->exec_runs, 1);
		if (r == SIGSEGV)
			__sync_fetch_and_add(&sh->exec_crashed, 1);
		else if (r == -125)
			__sync_fetch_and_add(&sh->exec_refused[user], 1);
		msleep(r == -125 ? 200 : 20);
	}
}

/* One crash per user: the table churns at its capacity. */
static void actor_churn(void)
{
	uid_t uid = CHURN_UID;

	while (!sh->stop) {
		run_as(uid++, ARGV((char *)path_of("crasher_suid"), "segv"));
		__sync_fetch_and_add(&sh->churn_runs, 1);
	}
}

static void *thread_exit(void *arg)
{
	msleep((long)arg);
	return NULL;
}

static void *thread_crash(void *arg)
{
	msleep((long)arg);
	fault();
	return NULL;
}

/*
 * A set-user-ID image (storm_suid -A threads-victim, run by a new user each
 * time) forks children in which threads exit while one crashes, until it is
 * stopped.
 */
static void threads_victim(void)
{
	unsigned int seed = getpid();

	for (;;) {
		pid_t pid = fork();

		if (!pid) {
			pthread_t t;
			int i;

			for (i = 0; i < 8; i++)
				pthread_create(&t, NULL, thread_exit,
					       (void *)(long)(rand_r(&seed) % 4));
			pthread_create(&t, NULL, thread_crash,
				       (void *)(long)(rand_r(&seed) % 4));
			pause();
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (sh->stop)
			_exit(0);
	}
}

static void actor_threads(int first_uid)
{
	uid_t uid = first_uid;

	while (!sh->stop) {
		int sig = run_as(uid++, ARGV((char *)path_of("storm_suid"), "-A",
					     "threads-victim"));

		__sync_fetch_and_add(&sh->thread_runs, 1);
		if (sig == SIGKILL)
			__sync_fetch_and_add(&sh->thread_killed, 1);
	}
}

/* set*id() changes without a crash: boundaries crossed, nothing to stop. */
static int actor_setid(void)
{
	while (!sh->stop) {
		int status;
		pid_t pid = fork();

		if (!pid) {
			if (setresgid(1000, 1000, 0) || setresuid(1000, 1000, 0) ||
			    setresuid(0, 0, 0) || setresgid(0, 0, 0) ||
			    become(1001))
				_exit(1);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
		__sync_fetch_and_add(&sh->setid_runs, 1);
	}
	return 0;
}

static int enter_netns(const char *name)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ret = setns(fd, CLONE_NEWNET);
	close(fd);
	return ret;
}

/* The client's address is banned from the server's endpoint. */
static int client_banned(void)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/security/brute/peers", "r");
	int banned = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *left = strstr(line, "ban_left_s=");

		if (!strncmp(line, "peer=10.199.0.2/32 ", 19) && left &&
		    atoi(left + 11) > 0)
			banned = 1;
	}
	fclose(f);
	return banned;
}

static void lift_peers(void)
{
	int fd = open("/sys/kernel/security/brute/lift", O_WRONLY);

	if (fd >= 0) {
		(void)!write(fd, "peer all", 8);
		close(fd);
	}
}

/*
 * A server whose children crash on a connection from the other namespace:
 * the client is banned from it, the server lives.
 */
static void actor_net(void)
{
	char addr[32];

	snprintf(addr, sizeof(addr), "10.199.0.1:%d", NET_PORT);
	while (!sh->stop) {
		pid_t client = fork();

		if (!client) {
			struct sockaddr_in sa = { .sin_family = AF_INET,
						  .sin_port = htons(NET_PORT) };

			if (enter_netns("brute_cli"))
				_exit(1);
			inet_pton(AF_INET, "10.199.0.1", &sa.sin_addr);
			while (!sh->stop) {
				int fd = socket(AF_INET, SOCK_STREAM, 0);

				if (fd >= 0 && !connect(fd, (void *)&sa, sizeof(sa)))
					(void)!write(fd, "x", 1);
				if (fd >= 0)
					close(fd);
				msleep(5);
			}
			_exit(0);
		}
		pid_t server = fork();
		int sig = -1000, status;

		if (!server) {
			int null = open("/dev/null", O_RDWR);

			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			execl(path_of("attacker"), "attacker", "-n",
			      "/run/netns/brute_srv", "-l", addr, "fork", "30",
			      NULL);
			_exit(errno == EPERM ? 125 : 127);
		}
		/*
		 * The server waits for connections: once the client is banned
		 * from it (it lives), or at the end, it is stopped.
		 */
		while (server > 0) {
			pid_t pid = waitpid(server, &status, WNOHANG);

			if (pid == server) {
				sig = WIFSIGNALED(status) ? WTERMSIG(status) :
							    -WEXITSTATUS(status);
				break;
			}
			if (sh->stop || client_banned()) {
				sig = sh->stop ? -1000 : -126;
				kill(server, SIGKILL);
				waitpid(server, NULL, 0);
				break;
			}
			msleep(20);
		}
		__sync_fetch_and_add(&sh->net_runs, 1);
		if (sig == SIGKILL)
			__sync_fetch_and_add(&sh->net_killed, 1);
		else if (sig == -126)
			__sync_fetch_and_add(&sh->net_banned, 1);
		kill(client, SIGKILL);
		waitpid(client, NULL, 0);
		if (sig == -126)
			lift_peers();
	}
}

/* The tunables change under everybody's feet. */
static void actor_flips(void)
{
	static const long thresholds[] = { 30000, 1000, 100000 };
	static const long min_faults[] = { 5, 3, 8 };
	static const long sizes[] = { 16, 17, 64 };
	unsigned int i = 0;

	while (!sh->stop) {
		sysctl_write("mode", i % 3 == 1 ? 1 : 2);
		sysctl_write("crash_period_threshold_ms", thresholds[i % 3]);
		sysctl_write("min_faults", min_faults[(i / 3) % 3]);
		sysctl_write("table_size", sizes[(i / 2) % 3]);
		__sync_fetch_and_add(&sh->flips, 1);
		i++;
		msleep(30);
	}
	/* Attacks still running at the end must meet kill mode. */
	sysctl_write("mode", 2);
}

/* Relays of 100 generations; the last one waits and is killed. */
static void actor_relay(void)
{
	const char *pidfile = "/tmp/brute-storm-relay.pid";

	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		_exit(1);
	while (!sh->stop) {
		pid_t last = 0;
		FILE *f;
		int i;

		unlink(pidfile);
		run_as(1000, ARGV((char *)path_of("relay"), "100",
				  (char *)pidfile));
		/* 100 generations take seconds, or a minute on a loaded TCG guest. */
		for (i = 0; i < 4800 && !last; i++) {
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
			f = fopen(pidfile, "r");
			if (f) {
				if (fscanf(f, "%d", &last) != 1)
					last = 0;
				fclose(f);
			}
			if (!last)
				msleep(25);
		}
		if (last > 0)
			kill(last, SIGKILL);
		while (waitpid(-1, NULL, last > 0 ? 0 : WNOHANG) > 0)
			;
		__sync_fetch_and_add(&sh->relay_runs, 1);
	}
}

/* Fork children that crash, one at a time, @pause_ms apart, for ever. */
static void __attribute__((noreturn)) crash_children(long pause_ms)
{
	for (;;) {
		pid_t child = fork();

		if (!child)
			fault();
		if (child > 0)
			waitpid(child, NULL, 0);
		if (pause_ms)
			msleep(pause_ms);
	}
}

/*
 * A bystander (storm -A sleep or storm -A crashkids, run as a user): it stays;
 * the second one's children crash, with no boundary crossed: no attack.
 */
static void bystander_main(int crashing_children)
{
	if (!crashing_children) {
		for (;;)
			pause();
	}
	crash_children(50);
}

static pid_t bystander(uid_t uid, int crashing_children)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (uid && become(uid))
		_exit(126);
	execl(path_of("storm"), "storm", "-A",
	      crashing_children ? "crashkids" : "sleep", NULL);
	_exit(127);
}

/*
 * The root of a large hierarchy (storm_suid -A big, run by a new user each
 * time): @count sleeping processes (every tenth exits at some point, maybe
 * while the hierarchy is being killed), then children that crash until the
 * hierarchy is stopped.
 */
static void big_root(int count)
{
	int i;

	setpgid(0, 0);
	for (i = 0; i < count; i++) {
		pid_t child = fork();

		if (!child) {
			if (i % 10 == 0)
				msleep(1000 + i);
			else
				pause();
			_exit(0);
		}
		if (child < 0)
			break;
	}
	crash_children(0);
}

/*
 * Run one large hierarchy to its end, as the subreaper of its processes:
 * how many were killed; the processes still alive 60 s after the root's end
 * count in big_left.
 */
static long big_hierarchy(int count, uid_t uid, int *root_sig)
{
	char arg[16];
	long killed = 0;
	time_t deadline = 0;
	int status;
	pid_t root, pid;

	snprintf(arg, sizeof(arg), "%d", count);
	root = fork();
	if (!root) {
		if (become(uid))
			_exit(126);
		execl(path_of("storm_suid"), "storm", "-A", "big", arg, NULL);
		_exit(127);
	}
	*root_sig = -1;
	for (;;) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid < 0)
			break;
		if (pid == 0) {
			if ((deadline && time(NULL) > deadline) ||
			    (sh->stop && time(NULL) > sh->stop_at)) {
				long left = 0;

				while (waitpid(-1, NULL, WNOHANG) >= 0) {
					kill(-root, SIGKILL);
					left++;
					msleep(10);
					if (left > 1000)
						break;
				}
				__sync_fetch_and_add(&sh->big_left, 1);
				break;
			}
			msleep(10);
			continue;
		}
		if (pid == root) {
			*root_sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
			deadline = time(NULL) + 60;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			killed++;
	}
	return killed;
}

static void actor_big(int count)
{
	uid_t uid = 7000;
	int sig;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		_exit(1);
	do {
		long killed = big_hierarchy(count, uid++, &sig);

		__sync_fetch_and_add(&sh->big_done, 1);
		if (sig == SIGKILL)
			__sync_fetch_and_add(&sh->big_killed, killed);
	} while (!sh->stop);
}

/* An actor: the storm executed again, in an image of its own. */
static pid_t spawn(const char *name, const char *arg)
{
	pid_t pid = fork();

	if (!pid) {
		execl(path_of("storm"), "storm", "-A", name, arg, NULL);
		_exit(127);
	}
	return pid;
}

static int map_shared(int create)
{
	int fd = open(SHARED, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0600);

	if (fd < 0)
		return -1;
	if (create && ftruncate(fd, sizeof(*sh))) {
		close(fd);
		return -1;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return sh == MAP_FAILED ? -1 : 0;
}

static int actor(const char *name, const char *arg)
{
	int value = arg ? atoi(arg) : 0;

	if (map_shared(0))
		return 2;
	if (!strcmp(name, "fork"))
		actor_fork(value);
	else if (!strcmp(name, "exec"))
		actor_exec(value);
	else if (!strcmp(name, "churn"))
		actor_churn();
	else if (!strcmp(name, "threads"))
		actor_threads(value);
	else if (!strcmp(name, "threads-victim"))
		threads_victim();
	else if (!strcmp(name, "setid"))
		return actor_setid();
	else if (!strcmp(name, "net"))
		actor_net();
	else if (!strcmp(name, "flips"))
		actor_flips();
	else if (!strcmp(name, "relay"))
		actor_relay();
	else if (!strcmp(name, "big"))
		big_root(value);
	else if (!strcmp(name, "big-runner"))
		actor_big(value);
	else if (!strcmp(name, "sleep"))
		bystander_main(0);
	else if (!strcmp(name, "crashkids"))
		bystander_main(1);
	else
		return 2;
	return 0;
}

/* What a process is doing: its state, wait channel and children. */
static void describe(const char *name, pid_t pid)
{
	char path[64], buf[512] = "", wchan[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			wchan[0] = '\0';
		fclose(f);
	}
	fprintf(stderr, "storm: %s %d still running: %.80s wchan=%s\n", name,
		pid, buf, wchan);
	printf("# %s %d still running: %.80s wchan=%s\n", name, pid, buf, wchan);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			printf("#   children: %.200s\n", buf);
		fclose(f);
	}
}

/*
 * Wait for the actors to see the end; describe and kill those still running
 * STOP_S seconds later.  Returns how many had to be killed.
 */
static int stop_actors(const pid_t *actors, const char *const *names, int n)
{
	time_t deadline = time(NULL) + stop_s;
	int killed = 0, left, i;
	char done[64] = "";

	do {
		for (i = 0, left = 0; i < n; i++) {
			if (!done[i] && waitpid(actors[i], NULL, WNOHANG) != 0)
				done[i] = 1;
			left += !done[i];
		}
		if (left)
			msleep(100);
	} while (left && time(NULL) < deadline);
	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		describe(names[i], actors[i]);
		kill(actors[i], SIGKILL);
		waitpid(actors[i], NULL, 0);
		killed++;
	}
	return killed;
}

static long read_stat(const char *key)
{
	char line[256];
	long value = -1;
	FILE *f = fopen("/sys/kernel/security/brute/stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p && (p == line || p[-1] == ' '))
			value = strtol(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return value;
}

int main(int argc, char **argv)
{
	static const char *const tunables[] = {
		"mode", "crash_period_threshold_ms", "min_faults", "table_size",
	};
	long saved[4], hier_before, hier_after = -1;
	int big_count = 1000;
	pid_t actors[64], by[BYSTANDERS], setid;
	const char *names[64];
	int opt, seconds = 20, net = 0, n = 0, i, status, sig, banned;
	int stragglers;
	char big[16];
	ssize_t len;

	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len < 0)
		return 2;
	dir[len] = '\0';
	*strrchr(dir, '/') = '\0';
	if (argc >= 3 && !strcmp(argv[1], "-A"))
		return actor(argv[2], argc > 3 ? argv[3] : NULL);

	while ((opt = getopt(argc, argv, "s:b:w:n")) != -1) {
		switch (opt) {
		case 's':
			seconds = atoi(optarg);
			break;
		case 'b':
			big_count = atoi(optarg);
			break;
		case 'n':
			net = 1;
			break;
		case 'w':
			stop_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: storm [-s SECONDS] [-b BIG] [-w WAIT] [-n]\n");
			return 2;
		}
	}
	if (map_shared(1))
		return 2;
	for (i = 0; i < 4; i++)
		saved[i] = sysctl_read(tunables[i]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	hier_before = read_stat("hierarchies=");

	for (i = 0; i < BYSTANDERS; i++)
		by[i] = bystander(i % 2 ? 1000 : 4000 + i, i >= 4);
	setid = spawn("setid", NULL);
#define ACTOR(name, arg) (names[n] = (name), actors[n++] = spawn((name), (arg)))
	ACTOR("fork", "10000");
	ACTOR("fork", "20000");
	for (i = 0; i < EXEC_USERS; i++) {
		char user[8];

		snprintf(user, sizeof(user), "%d", i);
		ACTOR("exec", user);
	}
	ACTOR("churn", NULL);
	ACTOR("threads", "30000");
	ACTOR("threads", "40000");
	if (net)
		ACTOR("net", NULL);
	ACTOR("flips", NULL);
	ACTOR("relay", NULL);
	snprintf(big, sizeof(big), "%d", big_count);
	ACTOR("big-runner", big);

	for (i = 0; i < seconds; i++)
		sleep(1);
	/* The large hierarchy may still be forking: it gives up a little before the bound. */
	sh->stop_at = time(NULL) + stop_s - 10;
	sh->stop = 1;
	fprintf(stderr, "storm: stopping %d actors\n", n);
	stragglers = stop_actors(actors, names, n);
	tap(!stragglers, "storm: every actor stopped within %d s of the end", stop_s);
	for (i = 0; i < 4; i++)
		sysctl_write(tunables[i], saved[i]);

	printf("# fork attacks %ld (killed %ld), exec attempts %ld (crashed %ld), churn %ld, threads %ld (killed %ld), setid %ld, net %ld (killed %ld), relays %ld, flips %ld, big %ld (%ld processes killed)\n",
	       sh->fork_runs, sh->fork_killed, sh->exec_runs, sh->exec_crashed,
	       sh->churn_runs, sh->thread_runs, sh->thread_killed,
	       sh->setid_runs, sh->net_runs, sh->net_killed, sh->relay_runs,
	       sh->flips, sh->big_done, sh->big_killed);

	/* Bystanders: all alive, none killed. */
	for (i = 0, status = 0; i < BYSTANDERS; i++)
		status += kill(by[i], 0) == 0;
	tap(status == BYSTANDERS, "storm: %d of %d bystanders alive", status,
	    BYSTANDERS);
	for (i = 0; i < BYSTANDERS; i++) {
		kill(by[i], SIGTERM);
		waitpid(by[i], &status, 0);
	}
	waitpid(setid, &status, 0);
	tap(WIFEXITED(status) && !WEXITSTATUS(status),
	    "storm: %ld set*id() changes, never killed", sh->setid_runs);
	tap(kill(1, 0) == 0, "storm: pid 1 alive");

	/* Attackers: stopped. */
	tap(sh->fork_killed > 0, "storm: fork attacks killed (%ld of %ld)",
	    sh->fork_killed, sh->fork_runs);
	/*
	 * Exec attackers: banned during the storm (the flips may have slowed
	 * that down), or at the latest after 12 more attempts now.
	 */
	for (i = 0, banned = 0; i < EXEC_USERS; i++) {
		int tries = 0, r = sh->exec_refused[i] ? -125 : 0;

		if (sh->exec_refused[i])
			banned++;
		while (r != -125 && tries++ < 12)
			r = run_as(EXEC_UID + i,
				   ARGV((char *)path_of("crasher_suid"), "segv"));
		if (r == -125)
			banned += !sh->exec_refused[i];
		else
			printf("# exec attacker %d: not banned after %d more attempts\n",
			       EXEC_UID + i, tries);
	}
	tap(banned == EXEC_USERS, "storm: %d of %d exec attackers banned",
	    banned, EXEC_USERS);
	tap(sh->big_done > 0 && sh->big_killed >= big_count * 9 / 10 &&
	    !sh->big_left,
	    "storm: %d-process hierarchies killed whole (%ld runs, %ld processes killed, %ld left alive)",
	    big_count, sh->big_done, sh->big_killed, sh->big_left);
	if (net)
		tap(sh->net_banned > 0,
		    "storm: network attackers banned from the server, which lives (%ld banned, %ld killed, of %ld)",
		    sh->net_banned, sh->net_killed, sh->net_runs);

	/* With the tunables restored, attacks are still stopped. */
	sig = run_as(9999, ARGV((char *)path_of("attacker_suid"), "fork", "30"));
	tap(sig == SIGKILL, "storm: a fork attack after the storm is killed (%d)",
	    sig);
	for (i = 0, sig = 0; i < 12 && sig != -125; i++)
		sig = run_as(EXEC_UID + EXEC_USERS,
			     ARGV((char *)path_of("crasher_suid"), "segv"));
	tap(sig == -125, "storm: an exec attack after the storm is banned (%d tries)",
	    i);

	/* Every hierarchy of the storm freed (after a grace period). */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	for (i = 0; i < 50; i++) {
		msleep(100);
		hier_after = read_stat("hierarchies=");
		if (hier_after <= hier_before)
			break;
	}
	tap(hier_before < 0 || hier_after <= hier_before,
	    "storm: live hierarchies back to baseline (%ld before, %ld after)",
	    hier_before, hier_after);

	printf("storm: killed=%ld banned_users=%d\n",
	       sh->fork_killed + sh->thread_killed + sh->net_killed,
	       banned + 1);
	return tap_failed ? 1 : 0;
}
