// SPDX-License-Identifier: GPL-2.0
/*
 * availbench: a forking service under attack, as a host runs it: how much of
 * it stays available, and what the attacker gets.  Used by make bench
 * (tests/bench/bench.py, 40 s per scenario) and by its short form in make
 * check (tests/fast/14-brute-availability.sh).
 *
 * Usage: availbench [options] -- SERVICE ARGS...
 *   -k tcp|unix    how clients reach the service (default tcp)
 *   -a WHERE       ADDR:PORT (tcp) or PATH (unix) the service listens on
 *   -N NETNS       the service runs in this network namespace (tcp)
 *   -C NETNS       the clients run in this network namespace (tcp)
 *   -U UID         the service runs as UID (default: root), as systemd's User=
 *   -b ADDR        the benign client's source address (tcp)
 *   -B UID         the benign client's user (unix; default 4244)
 *   -A A,B,...     the attacker's source addresses, rotated (tcp; up to 256)
 *   -X UID         the attacker's user (unix; default 4243)
 *   -d SECONDS     how long the attack runs (default 40)
 *   -r MS          the supervisor restarts the service MS ms after it exits
 *                  (default 100, as Restart=always with RestartSec=100ms)
 *   -i MS          a benign request every MS ms (default 50)
 *   -j MS          a crashing request every MS ms (default 20)
 *   -t MS          the attacker gives up on a connection after MS ms
 *                  (default 500): a banned peer's connection requests are
 *                  dropped, it learns of the ban by that timeout
 *   -T MS          the benign client's timeout (default 2000)
 *
 * The supervisor (a process of this program) executes SERVICE ARGS (the
 * selftests' service: "crash" makes its per-connection child fault) and
 * executes it again -r ms after each exit; each execution is a new memory
 * image: a new randomization of its layout and canary.  The benign client
 * sends a valid request, one connection each, every -i ms; the attacker
 * sends "crash", one connection each, every -j ms, rotating over its
 * addresses and skipping those it found banned (an attacker who wants the
 * most crashes out of its addresses).  Guest clock throughout
 * (CLOCK_MONOTONIC).
 *
 * Prints one line of NAME=VALUE fields:
 *   benign_sent, benign_answered, benign_pct  every benign request
 *   benign_failed_down     refused or reset: no service listening (restart)
 *   benign_failed_other    timed out or closed without an answer
 *   window_sent, window_answered, window_pct  benign requests sent from the
 *                          attacker's first crash to its last (the attack)
 *   attack_sent, crashes   crashing requests sent, crashes observed
 *   attack_banned          refused requests: timed out (tcp) or EPERM (unix)
 *   attack_down            refused or reset: no service listening
 *   addrs, addrs_banned    the attacker's sources, those it found banned
 *   crashes_per_addr_max   the most crashes one source observed
 *   restarts               executions of the service after the first
 *   cpr_max, cpr           crashes observed per randomization (between two
 *                          executions of the service): the most, and the
 *                          list for those that saw any (at most 40 shown)
 *   first_ban_ms           first crash to the start of the first refused
 *                          request (-1: none)
 *   all_banned_ms          first crash to the start of the request that
 *                          found the last source banned (-1: not all)
 *   stopped_ms             first crash to the last crash
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SRC 256
#define MAX_EVENTS 65536
#define MAX_STARTS 4096

enum outcome { ANSWERED, CRASHED, BANNED, DOWN, OTHER };

struct shared {
	volatile int stop;
	volatile int nstarts;
	volatile pid_t service;	/* the running service's process group */
	long long starts[MAX_STARTS];
	/* attacker */
	long attack_sent, crashes, banned, down;
	int ncrash;
	long long crash_at[MAX_EVENTS];
	int per_src[MAX_SRC];
	long long banned_at[MAX_SRC];	/* 0: not found banned */
	long long all_banned_at;
	/* benign */
	int nbenign;
	long long benign_at[MAX_EVENTS];
	char benign_res[MAX_EVENTS];
};

static struct shared *sh;
static const char *kind = "tcp", *where, *srv_ns, *cli_ns, *benign_src;
static char *att_src[MAX_SRC];
static int natt;
static long restart_ms = 100, benign_ms = 50, attack_ms = 20, att_to = 500, ben_to = 2000;
static long benign_uid = 4244, attacker_uid = 4243, service_uid = -1;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void enter(const char *netns)
{
	int fd = open(netns, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(netns);
	close(fd);
}

static void become(long uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		die("setresuid");
}

/* Wait for @events on @fd until @deadline (ns); 1 if ready. */
static int wait_for(int fd, short events, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long long left = deadline - now_ns();

	if (left <= 0)
		return 0;
	return poll(&pfd, 1, (int)((left + 999999) / 1000000)) == 1;
}

/* One request, one connection, from source @src (tcp) or as this user. */
static enum outcome request(const char *src, const char *line, long timeout_ms)
{
	long long deadline = now_ns() + timeout_ms * 1000000LL;
	struct sockaddr_storage ss = {};
	socklen_t len, elen = sizeof(int);
	char buf[16];
	int fd, err = 0;
	ssize_t n;

	if (!strcmp(kind, "unix")) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;

		un->sun_family = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "%s", where);
		len = sizeof(*un);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		const char *colon = strchr(where, ':');
		char host[64];

		if (!colon || colon - where >= (int)sizeof(host))
			die("address");
		memcpy(host, where, colon - where);
		host[colon - where] = '\0';
		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(colon + 1));
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			die("inet_pton");
		len = sizeof(*in);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fd >= 0 && src) {
			struct sockaddr_in s = { .sin_family = AF_INET };

			if (inet_pton(AF_INET, src, &s.sin_addr) != 1 ||
			    bind(fd, (struct sockaddr *)&s, sizeof(s)))
				die(src);
		}
	}
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		if (errno == EPERM || errno == EACCES) {
			close(fd);
			return BANNED;
		}
		if (errno == ECONNREFUSED || errno == ENOENT) {
			close(fd);
			return DOWN;
		}
		if (errno != EINPROGRESS && errno != EAGAIN) {
			close(fd);
			return OTHER;
		}
		if (!wait_for(fd, POLLOUT, deadline)) {
			close(fd);
			/* A dropped connection request: a ban (tcp). */
			return !strcmp(kind, "tcp") ? BANNED : OTHER;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err) {
			close(fd);
			return err == ECONNREFUSED || err == ECONNRESET ? DOWN :
			       err == EPERM ? BANNED : OTHER;
		}
	}
	if (write(fd, line, strlen(line)) < 0) {
		close(fd);
		return errno == ECONNRESET || errno == EPIPE ? DOWN : OTHER;
	}
	if (!wait_for(fd, POLLIN, deadline)) {
		close(fd);
		return OTHER;
	}
	n = read(fd, buf, sizeof(buf));
	err = errno;
	close(fd);
	if (n > 0 && !strncmp(buf, "ok", 2))
		return ANSWERED;
	if (n == 0)
		return CRASHED;	/* closed without a reply: the child died */
	/* Reset: queued when the service died, never handled. */
	return err == EPERM ? BANNED : DOWN;
}

static void benign(void)
{
	if (cli_ns)
		enter(cli_ns);
	if (!strcmp(kind, "unix"))
		become(benign_uid);
	while (!sh->stop && sh->nbenign < MAX_EVENTS) {
		long long t = now_ns();
		enum outcome o = request(benign_src, "hello\n", ben_to);

		sh->benign_at[sh->nbenign] = t;
		sh->benign_res[sh->nbenign] = o;
		sh->nbenign++;
		msleep(benign_ms);
	}
	_exit(0);
}

static void attacker(void)
{
	int i = 0, left = natt ? natt : 1, nsrc = natt ? natt : 1;

	if (cli_ns)
		enter(cli_ns);
	if (!strcmp(kind, "unix"))
		become(attacker_uid);
	while (!sh->stop) {
		int k;
		long long t;
		enum outcome o;

		/* The next source not found banned; all banned: rotate anyway. */
		for (k = 0; k < nsrc && left && sh->banned_at[i % nsrc]; k++)
			i++;
		k = i++ % nsrc;
		t = now_ns();
		o = request(natt ? att_src[k] : NULL, "crash\n", att_to);
		sh->attack_sent++;
		switch (o) {
		case CRASHED:
			sh->crashes++;
			sh->per_src[k]++;
			if (sh->ncrash < MAX_EVENTS)
				sh->crash_at[sh->ncrash++] = now_ns();
			break;
		case BANNED:
			sh->banned++;
			if (!sh->banned_at[k]) {
				sh->banned_at[k] = t;
				if (!--left)
					sh->all_banned_at = t;
			}
			break;
		case ANSWERED:
		case DOWN:
		case OTHER:
			sh->down++;
			break;
		}
		msleep(attack_ms);
	}
	_exit(0);
}

static void supervisor(char **prog)
{
	for (;;) {
		pid_t pid;

		if (sh->nstarts < MAX_STARTS)
			sh->starts[sh->nstarts] = now_ns();
		sh->nstarts++;
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			int null = open("/dev/null", O_RDWR);

			setpgid(0, 0);
			dup2(null, STDOUT_FILENO);
			if (srv_ns)
				enter(srv_ns);
			if (service_uid >= 0)
				become(service_uid);
			execv(prog[0], prog);
			die(prog[0]);
		}
		setpgid(pid, pid);
		sh->service = pid;
		if (sh->stop)
			kill(-pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		for (long w = 0; w < restart_ms && !sh->stop; w += 10)
			msleep(restart_ms - w < 10 ? restart_ms - w : 10);
		if (sh->stop)
			_exit(0);
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long duration = 40, i;
	pid_t sup, ben, att;
	char *list = NULL;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "+k:a:N:C:U:b:B:A:X:d:r:i:j:t:T:")) != -1) {
		switch (opt) {
		case 'k': kind = optarg; break;
		case 'a': where = optarg; break;
		case 'N': srv_ns = optarg; break;
		case 'C': cli_ns = optarg; break;
		case 'U': service_uid = atol(optarg); break;
		case 'b': benign_src = optarg; break;
		case 'B': benign_uid = atol(optarg); break;
		case 'A': list = optarg; break;
		case 'X': attacker_uid = atol(optarg); break;
		case 'd': duration = atol(optarg); break;
		case 'r': restart_ms = atol(optarg); break;
		case 'i': benign_ms = atol(optarg); break;
		case 'j': attack_ms = atol(optarg); break;
		case 't': att_to = atol(optarg); break;
		case 'T': ben_to = atol(optarg); break;
		default: return 2;
		}
	}
	if (!where || optind >= argc || (strcmp(kind, "tcp") && strcmp(kind, "unix"))) {
		fprintf(stderr, "usage: availbench [options] -a WHERE -- SERVICE ARGS...\n");
		return 2;
	}
	for (char *tok = list ? strtok(list, ",") : NULL; tok && natt < MAX_SRC;
	     tok = strtok(NULL, ","))
		att_src[natt++] = tok;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");

	sup = fork();
	if (sup < 0)
		die("fork");
	if (!sup)
		supervisor(&argv[optind]);
	/* The service listens: a benign request is answered (up to 20 s). */
	{
		pid_t probe;
		int st = 0;

		for (i = 0; i < 200; i++) {
			probe = fork();
			if (!probe) {
				if (cli_ns)
					enter(cli_ns);
				if (!strcmp(kind, "unix"))
					become(benign_uid);
				_exit(request(benign_src, "hello\n", 1000) != ANSWERED);
			}
			waitpid(probe, &st, 0);
			if (WIFEXITED(st) && !WEXITSTATUS(st))
				break;
			msleep(100);
		}
		if (i == 200) {
			fprintf(stderr, "availbench: the service never answered\n");
			sh->stop = 1;
			if (sh->service)
				kill(-sh->service, SIGKILL);
			waitpid(sup, NULL, 0);
			return 1;
		}
	}
	ben = fork();
	if (!ben)
		benign();
	att = fork();
	if (!att)
		attacker();
	if (ben < 0 || att < 0)
		die("fork");
	msleep(duration * 1000);
	sh->stop = 1;
	waitpid(att, NULL, 0);
	waitpid(ben, NULL, 0);
	/* End the service (its process group): the supervisor sees stop and exits. */
	if (sh->service)
		kill(-sh->service, SIGKILL);
	waitpid(sup, NULL, 0);

	/* Analysis. */
	{
		long sent = sh->nbenign, answered = 0, down = 0, other = 0;
		long wsent = 0, wanswered = 0, maxsrc = 0, nbanned = 0, cpr_max = 0;
		long long first = sh->ncrash ? sh->crash_at[0] : 0;
		long long last = sh->ncrash ? sh->crash_at[sh->ncrash - 1] : 0;
		long long first_ban = 0;
		int nstarts = sh->nstarts < MAX_STARTS ? sh->nstarts : MAX_STARTS;
		int nsrc = natt ? natt : 1, shown = 0;
		char cpr[512] = "";
		size_t used = 0;

		for (i = 0; i < sent; i++) {
			int in = sh->ncrash && sh->benign_at[i] >= first && sh->benign_at[i] <= last;

			answered += sh->benign_res[i] == ANSWERED;
			down += sh->benign_res[i] == DOWN || sh->benign_res[i] == BANNED;
			other += sh->benign_res[i] == CRASHED || sh->benign_res[i] == OTHER;
			wsent += in;
			wanswered += in && sh->benign_res[i] == ANSWERED;
		}
		for (i = 0; i < nsrc; i++) {
			if (sh->per_src[i] > maxsrc)
				maxsrc = sh->per_src[i];
			if (sh->banned_at[i]) {
				nbanned++;
				if (!first_ban || sh->banned_at[i] < first_ban)
					first_ban = sh->banned_at[i];
			}
		}
		qsort(sh->crash_at, sh->ncrash, sizeof(long long), cmp_ll);
		for (int s = 0, c = 0; s < nstarts; s++) {
			long long end = s + 1 < nstarts ? sh->starts[s + 1] : 1LL << 62;
			long count = 0;

			while (c < sh->ncrash && sh->crash_at[c] < end) {
				if (sh->crash_at[c] >= sh->starts[s])
					count++;
				c++;
			}
			if (count > cpr_max)
				cpr_max = count;
			if (count && shown < 40 && used < sizeof(cpr) - 16) {
				used += snprintf(cpr + used, sizeof(cpr) - used, "%s%ld",
						 shown ? "," : "", count);
				shown++;
			}
		}
		printf("benign_sent=%ld benign_answered=%ld benign_pct=%.2f "
		       "benign_failed_down=%ld benign_failed_other=%ld "
		       "window_sent=%ld window_answered=%ld window_pct=%.2f "
		       "attack_sent=%ld crashes=%ld attack_banned=%ld attack_down=%ld "
		       "addrs=%d addrs_banned=%ld crashes_per_addr_max=%ld restarts=%d "
		       "cpr_max=%ld cpr=%s first_ban_ms=%lld all_banned_ms=%lld stopped_ms=%lld\n",
		       sent, answered, sent ? 100.0 * answered / sent : 0.0, down, other,
		       wsent, wanswered, wsent ? 100.0 * wanswered / wsent : 100.0,
		       sh->attack_sent, sh->crashes, sh->banned, sh->down,
		       nsrc, nbanned, maxsrc, sh->nstarts - 1, cpr_max, used ? cpr : "-",
		       first && first_ban ? (first_ban - first) / 1000000 : -1,
		       first && sh->all_banned_at ? (sh->all_banned_at - first) / 1000000 : -1,
		       first ? (last - first) / 1000000 : -1);
	}
	return 0;
}
