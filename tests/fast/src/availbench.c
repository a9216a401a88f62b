// SPDX-License-Identifier: GPL-2.0
/*
 * availbench: a forking service under attack, as a host runs it: how much of
 * it stays available, and what the attacker gets.  Used by make bench
 * (tests/bench/bench.py, 40 s per scenario) and by its short form in make
 * check (tests/fast/14-brute-availability.sh).
 *
 * Usage: availbench [options] -- SERVICE ARGS...
 *   -k tcp|unix    how the service is reached (default tcp)
 *   -a WHERE       ADDR:PORT (tcp) or PATH (unix) the service listens on
 *   -N NETNS       the service runs in this network namespace (tcp)
 *   -C NETNS       the clients run in this network namespace (tcp)
 *   -U UID         the service runs as UID (default: root), as systemd's User=
 *   -b ADDR        the benign client's source address (tcp)
 *   -B UID         the benign client's user (unix: default 4244; tcp: root
 *                  unless given: a local client of the host)
 *   -A A,B,...     the attacker's source addresses, rotated (tcp; up to 256)
 *   -X UID         the attacker's user (unix: default 4243; tcp: root unless
 *                  given)
 *   -d SECONDS     how long the attack runs (default 40)
 *   -R N           ... or until the service was restarted N times (short
 *                  forms: until the backstop has acted once)
 *   -r MS          the supervisor restarts the service MS ms after it exits
 *                  (default 100, as Restart=always with RestartSec=100ms)
 *   -i MS          a benign request every MS ms (default 50)
 *   -j MS          a crashing request every MS ms (default 20)
 *   -t MS          the attacker gives up on a connection after MS ms
 *                  (default 500): a banned peer's connection requests are
 *                  dropped, it learns of the ban by that timeout
 *   -T MS          the benign client's timeout (default 2000)
 * Response v4's shapes (issue 29):
 *   -M             the attacker connects with MPTCP (the service: -M)
 *   -P ADDR:PORT   the clients reach the service through a reverse proxy of
 *                  this program that listens there (TCP) and relays each
 *                  request line to -a and the reply back (nginx in front of
 *                  PHP-FPM, a load balancer in front of a server); it
 *                  answers "crashed" when the service closed without a
 *                  reply, "down" when nothing listened, "refused" when the
 *                  service refused it (a ban: EPERM, or a connection request
 *                  unanswered within 3 s: a SYN and its first retransmission)
 *   -p NETNS       the proxy runs in this network namespace (default -N)
 *   -Y UID         the proxy runs as UID once listening (default root)
 *   -L ADDR        the proxy connects to a TCP service from this address
 *   -m             the proxy mixes: one connection to the service for every
 *                  client, kept open (the service: -k); default a child per
 *                  client with a connection of its own
 *   -w ADDR        before each crashing request the attacker sends a valid
 *                  one from ADDR, so that a mixing proxy's connection has
 *                  carried two peers when the crash comes (an attacker who
 *                  knows that a proxy relaying one peer is seen through)
 *   -F PORT        framing: the benign client's requests are "frame" (the
 *                  service then reads a datagram: its -F udp:PORT), the
 *                  attacker sends its "crash" as a datagram to that port of
 *                  the service's address; the crashes are the benign
 *                  requests that crashed
 *   -c PATH        run a copy of SERVICE at PATH with the file capability
 *                  cap_net_bind_service=+ep (setcap's): a privileged image
 *                  of its user (-U)
 *   -q REQUEST     the attacker's request line (default "crash"; the
 *                  service's "bus-own": a SIGBUS of its own file)
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
 *   benign_failed_down     refused or reset: no service listening (restart),
 *                          or refused as banned
 *   benign_failed_other    timed out or closed without an answer
 *   benign_banned          of those, refused as banned (a connection request
 *                          unanswered, EPERM): the benign client banned
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
 *   proxy_refused          requests the proxy could not relay because the
 *                          service refused it (-P; 0 without a proxy)
 *   alive                  1 if a benign request was answered within 10 s
 *                          after the attack ended (the service was not left
 *                          dead), else 0
 *   series                 one S:A:C:R:B per second from the clients' start
 *                          (guest clock): benign requests sent and answered,
 *                          crashes observed, restarts of the service, the
 *                          attacker's sources found banned in that second
 *                          (make bench plots them: tests/bench/plot.py)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define MAX_SRC 256
#define MAX_EVENTS 65536
#define MAX_STARTS 4096

enum outcome { ANSWERED, CRASHED, BANNED, DOWN, OTHER };

struct shared {
	volatile int stop;	/* the clients stop */
	volatile int end;	/* the supervisor stops */
	volatile int nstarts;
	volatile pid_t service;	/* the running service's process group */
	long long t0;		/* the clients start: second 0 of the series */
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
	/* proxy */
	long proxy_refused;
};

static struct shared *sh;
static const char *kind = "tcp", *where, *srv_ns, *cli_ns, *benign_src;
static char *att_src[MAX_SRC];
static int natt;
static long restart_ms = 100, benign_ms = 50, attack_ms = 20, att_to = 500, ben_to = 2000;
static long benign_uid = -1, attacker_uid = -1, service_uid = -1;
static const char *proxy_at, *proxy_ns, *proxy_src, *warmup_src, *fcaps_copy;
/* -q: what the attacker sends. */
static char att_request[64] = "crash\n";
static long proxy_uid = -1, frame_port = -1, restarts_stop;
static int att_mptcp, proxy_mixed;

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

/* The socket address of @spec: ADDR:PORT (tcp) or PATH (unix). */
static socklen_t make_addr(const char *how, const char *spec, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (!strcmp(how, "unix")) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;

		un->sun_family = AF_UNIX;
		if (snprintf(un->sun_path, sizeof(un->sun_path), "%s", spec) >=
		    (int)sizeof(un->sun_path))
			die("path");
		return sizeof(*un);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;
		const char *colon = strchr(spec, ':');
		char host[64];

		if (!colon || colon - spec >= (int)sizeof(host))
			die("address");
		memcpy(host, spec, colon - spec);
		host[colon - spec] = '\0';
		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(colon + 1));
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			die("inet_pton");
		return sizeof(*in);
	}
}

/*
 * Connect to @spec (@how) from @src, with MPTCP if @mptcp, until @deadline:
 * the socket (non-blocking), or -1 with *@why the outcome.
 */
static int open_conn(const char *how, const char *spec, const char *src, int mptcp,
		     long long deadline, enum outcome *why)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(how, spec, &ss), elen = sizeof(int);
	int fd, err = 0;

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK,
		    ss.ss_family == AF_INET && mptcp ? IPPROTO_MPTCP : 0);
	if (fd < 0)
		die("socket");
	if (src && ss.ss_family == AF_INET) {
		struct sockaddr_in s = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, src, &s.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&s, sizeof(s)))
			die(src);
	}
	if (!connect(fd, (struct sockaddr *)&ss, len))
		return fd;
	if (errno == EPERM || errno == EACCES)
		*why = BANNED;
	else if (errno == ECONNREFUSED || errno == ENOENT)
		*why = DOWN;
	else if (errno != EINPROGRESS && errno != EAGAIN)
		*why = OTHER;
	else if (!wait_for(fd, POLLOUT, deadline))
		/* A dropped connection request: a ban (tcp). */
		*why = ss.ss_family == AF_INET ? BANNED : OTHER;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err)
		*why = err == ECONNREFUSED || err == ECONNRESET ? DOWN :
		       err == EPERM ? BANNED : OTHER;
	else
		return fd;
	close(fd);
	return -1;
}

/*
 * One request, one connection, from source @src (tcp) or as this user, to
 * the service or its proxy.
 */
static enum outcome request(const char *src, const char *line, long timeout_ms, int mptcp)
{
	long long deadline = now_ns() + timeout_ms * 1000000LL;
	enum outcome why = OTHER;
	char buf[16] = "";
	int fd, err;
	ssize_t n;

	fd = proxy_at ? open_conn("tcp", proxy_at, src, mptcp, deadline, &why) :
			open_conn(kind, where, src, mptcp, deadline, &why);
	if (fd < 0)
		return why;
	if (write(fd, line, strlen(line)) < 0) {
		close(fd);
		return errno == ECONNRESET || errno == EPIPE ? DOWN : OTHER;
	}
	if (!wait_for(fd, POLLIN, deadline)) {
		close(fd);
		return OTHER;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n > 0 && !strncmp(buf, "ok", 2))
		return ANSWERED;
	if (proxy_at)	/* what the proxy said (refused: counted by the proxy) */
		return n > 0 && !strncmp(buf, "crashed", 7) ? CRASHED :
		       n > 0 && !strncmp(buf, "down", 4) ? DOWN : OTHER;
	if (n == 0)
		return CRASHED;	/* closed without a reply: the child died */
	/* Reset: queued when the service died, never handled. */
	return err == EPERM ? BANNED : DOWN;
}

/* Read one line (up to its newline) into @buf; its length, or <= 0. */
static ssize_t read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return n ? (ssize_t)n : r;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

static void say(int fd, const char *text)
{
	if (write(fd, text, strlen(text)) < 0)
		return;
}

/*
 * The proxy's connection to the service (blocking), or -1 having told the
 * client why.
 */
static int proxy_connect(int conn)
{
	enum outcome why = OTHER;
	int fd = open_conn(kind, where, proxy_src, 0, now_ns() + 3000000000LL, &why);

	if (fd >= 0) {
		fcntl(fd, F_SETFL, 0);
		return fd;
	}
	if (why == BANNED) {
		__atomic_add_fetch(&sh->proxy_refused, 1, __ATOMIC_RELAXED);
		say(conn, "refused\n");
	} else {
		say(conn, "down\n");
	}
	return -1;
}

/*
 * Relay one request of @conn over *@back (connected first if -1): the
 * reply, or what became of it.  *@back is -1 afterwards if unusable.
 */
static void proxy_relay(int conn, int *back)
{
	char line[128];
	ssize_t n;

	n = read_line(conn, line, sizeof(line));
	if (n <= 0)
		return;
	/* A kept connection the service closed meanwhile (killed): a new one. */
	if (*back >= 0) {
		struct pollfd pfd = { .fd = *back, .events = POLLIN };

		if (poll(&pfd, 1, 0) == 1) {
			close(*back);
			*back = -1;
		}
	}
	if (*back < 0 && (*back = proxy_connect(conn)) < 0)
		return;
	if (write(*back, line, n) != n) {
		say(conn, "down\n");
		goto drop;
	}
	n = read_line(*back, line, sizeof(line));
	if (n > 0) {
		say(conn, line);
		return;
	}
	/* Closed after reading the request: it crashed; reset: never read. */
	say(conn, n == 0 ? "crashed\n" : "down\n");
drop:
	close(*back);
	*back = -1;
}

static void proxy(void)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr("tcp", proxy_at, &ss);
	int fd, one = 1, back = -1;

	signal(SIGCHLD, SIG_IGN);
	if (proxy_ns || srv_ns)
		enter(proxy_ns ? proxy_ns : srv_ns);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128))
		die("proxy: bind/listen");
	if (proxy_uid >= 0)
		become(proxy_uid);
	for (;;) {
		int conn = accept(fd, NULL, NULL);

		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (proxy_mixed) {
			proxy_relay(conn, &back);
		} else if (!fork()) {
			close(fd);
			proxy_relay(conn, &back);
			_exit(0);
		}
		close(conn);
	}
}

/* A datagram @text to the -F port of the service's address, from @src. */
static void datagram(const char *src, const char *text)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr("tcp", where, &ss);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	((struct sockaddr_in *)&ss)->sin_port = htons(frame_port);
	if (src) {
		struct sockaddr_in s = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, src, &s.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&s, sizeof(s)))
			die(src);
	}
	sendto(fd, text, strlen(text), 0, (struct sockaddr *)&ss, len);
	close(fd);
}

static void crash_seen(int k)
{
	sh->crashes++;
	sh->per_src[k]++;
	if (sh->ncrash < MAX_EVENTS)
		sh->crash_at[sh->ncrash++] = now_ns();
}

static void benign(void)
{
	const char *line = frame_port >= 0 ? "frame\n" : "hello\n";

	if (cli_ns)
		enter(cli_ns);
	if (benign_uid >= 0)
		become(benign_uid);
	while (!sh->stop && sh->nbenign < MAX_EVENTS) {
		long long t = now_ns();
		enum outcome o = request(benign_src, line, ben_to, 0);

		sh->benign_at[sh->nbenign] = t;
		sh->benign_res[sh->nbenign] = o;
		sh->nbenign++;
		/* Framing: the attacker's datagram crashed the benign request. */
		if (frame_port >= 0 && o == CRASHED)
			crash_seen(0);
		msleep(benign_ms);
	}
	_exit(0);
}

static void attacker(void)
{
	int i = 0, left = natt ? natt : 1, nsrc = natt ? natt : 1;

	if (cli_ns)
		enter(cli_ns);
	if (attacker_uid >= 0)
		become(attacker_uid);
	while (!sh->stop) {
		int k;
		long long t;
		enum outcome o;

		if (frame_port >= 0) {
			datagram(natt ? att_src[0] : NULL, "crash\n");
			sh->attack_sent++;
			msleep(attack_ms);
			continue;
		}
		/* The next source not found banned; all banned: rotate anyway. */
		for (k = 0; k < nsrc && left && sh->banned_at[i % nsrc]; k++)
			i++;
		k = i++ % nsrc;
		if (warmup_src)
			request(warmup_src, "hello\n", att_to, att_mptcp);
		t = now_ns();
		o = request(natt ? att_src[k] : NULL, att_request, att_to, att_mptcp);
		sh->attack_sent++;
		switch (o) {
		case CRASHED:
			crash_seen(k);
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
		if (sh->end)
			kill(-pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		for (long w = 0; w < restart_ms && !sh->end; w += 10)
			msleep(restart_ms - w < 10 ? restart_ms - w : 10);
		if (sh->end)
			_exit(0);
	}
}

/* -c: @path, a copy of @prog with cap_net_bind_service=+ep. */
static void fcaps(const char *prog, const char *path)
{
	struct vfs_cap_data cap = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
	};
	int in = open(prog, O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	ssize_t n;

	unlink(path);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		die(path);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			die(path);
	if (n < 0 || fchmod(out, 0755) || close(out))
		die(path);
	close(in);
	cap.data[0].permitted = 1U << CAP_NET_BIND_SERVICE;
	if (setxattr(path, "security.capability", &cap, XATTR_CAPS_SZ_2, 0))
		die("setxattr security.capability");
}

/* A benign request answered within 10 s (the attack over). */
static int answers(void)
{
	for (int i = 0; i < 100; i++) {
		pid_t probe = fork();
		int st = 0;

		if (!probe) {
			if (cli_ns)
				enter(cli_ns);
			if (benign_uid >= 0)
				become(benign_uid);
			_exit(request(benign_src, "hello\n", 1000, 0) != ANSWERED);
		}
		waitpid(probe, &st, 0);
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			return 1;
		msleep(100);
	}
	return 0;
}

#define MAX_SECONDS 600

/* A second of the series: where @t (ns) falls from the clients' start, or -1. */
static long second_of(long long t)
{
	long s = t < sh->t0 ? -1 : (long)((t - sh->t0) / 1000000000LL);

	return s < MAX_SECONDS ? s : -1;
}

/* series=S:A:C:R:B,... (one per second, up to the last with an event): the analysis's end. */
static void print_series(int nstarts)
{
	static long n[MAX_SECONDS][5];
	long last = -1, s;
	int i;

	for (i = 0; i < sh->nbenign; i++)
		if ((s = second_of(sh->benign_at[i])) >= 0) {
			n[s][0]++;
			n[s][1] += sh->benign_res[i] == ANSWERED;
		}
	for (i = 0; i < sh->ncrash; i++)
		if ((s = second_of(sh->crash_at[i])) >= 0)
			n[s][2]++;
	for (i = 1; i < nstarts; i++)
		if ((s = second_of(sh->starts[i])) >= 0)
			n[s][3]++;
	for (i = 0; i < MAX_SRC; i++)
		if (sh->banned_at[i] && (s = second_of(sh->banned_at[i])) >= 0)
			n[s][4]++;
	for (s = 0; s < MAX_SECONDS; s++)
		if (n[s][0] || n[s][2] || n[s][3] || n[s][4])
			last = s;
	printf("series=");
	for (s = 0; s <= last; s++)
		printf("%s%ld:%ld:%ld:%ld:%ld", s ? "," : "", n[s][0], n[s][1], n[s][2], n[s][3],
		       n[s][4]);
	printf("%s\n", last < 0 ? "-" : "");
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long duration = 40, i;
	pid_t sup, ben, att, prx = 0;
	char *list = NULL;
	int opt, alive;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv,
			     "+k:a:N:C:U:b:B:A:X:d:R:r:i:j:t:T:MP:p:Y:L:mw:F:c:q:")) != -1) {
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
		case 'R': restarts_stop = atol(optarg); break;
		case 'r': restart_ms = atol(optarg); break;
		case 'i': benign_ms = atol(optarg); break;
		case 'j': attack_ms = atol(optarg); break;
		case 't': att_to = atol(optarg); break;
		case 'T': ben_to = atol(optarg); break;
		case 'M': att_mptcp = 1; break;
		case 'P': proxy_at = optarg; break;
		case 'p': proxy_ns = optarg; break;
		case 'Y': proxy_uid = atol(optarg); break;
		case 'L': proxy_src = optarg; break;
		case 'm': proxy_mixed = 1; break;
		case 'w': warmup_src = optarg; break;
		case 'F': frame_port = atol(optarg); break;
		case 'c': fcaps_copy = optarg; break;
		case 'q':
			if (snprintf(att_request, sizeof(att_request), "%s\n",
				     optarg) >= (int)sizeof(att_request))
				return 2;
			break;
		default: return 2;
		}
	}
	if (!where || optind >= argc || (strcmp(kind, "tcp") && strcmp(kind, "unix")) ||
	    (frame_port >= 0 && (strcmp(kind, "tcp") || proxy_at))) {
		fprintf(stderr, "usage: availbench [options] -a WHERE -- SERVICE ARGS...\n");
		return 2;
	}
	/* Unix clients are users of their own, by default. */
	if (!strcmp(kind, "unix") && !proxy_at) {
		if (benign_uid < 0)
			benign_uid = 4244;
		if (attacker_uid < 0)
			attacker_uid = 4243;
	}
	if (fcaps_copy) {
		fcaps(argv[optind], fcaps_copy);
		argv[optind] = (char *)fcaps_copy;
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
	if (proxy_at) {
		prx = fork();
		if (prx < 0)
			die("fork");
		if (!prx)
			proxy();
		setpgid(prx, prx);
	}
	/* The service listens: a benign request is answered (up to 20 s). */
	{
		pid_t probe;
		int st = 0;

		for (i = 0; i < 200; i++) {
			probe = fork();
			if (!probe) {
				if (cli_ns)
					enter(cli_ns);
				if (benign_uid >= 0)
					become(benign_uid);
				_exit(request(benign_src, "hello\n", 1000, 0) != ANSWERED);
			}
			waitpid(probe, &st, 0);
			if (WIFEXITED(st) && !WEXITSTATUS(st))
				break;
			msleep(100);
		}
		if (i == 200) {
			fprintf(stderr, "availbench: the service never answered\n");
			sh->stop = sh->end = 1;
			if (prx)
				kill(-prx, SIGKILL);
			if (sh->service)
				kill(-sh->service, SIGKILL);
			waitpid(sup, NULL, 0);
			return 1;
		}
	}
	sh->t0 = now_ns();
	ben = fork();
	if (!ben)
		benign();
	att = fork();
	if (!att)
		attacker();
	if (ben < 0 || att < 0)
		die("fork");
	for (i = 0; i < duration * 10; i++) {
		if (restarts_stop && sh->nstarts > restarts_stop)
			break;
		msleep(100);
	}
	sh->stop = 1;
	waitpid(att, NULL, 0);
	waitpid(ben, NULL, 0);
	/* Not left dead: answered once the attack is over. */
	alive = answers();
	/* End the proxy and the service (their process groups): the supervisor sees end and exits. */
	sh->end = 1;
	if (prx) {
		kill(-prx, SIGKILL);
		waitpid(prx, NULL, 0);
	}
	if (sh->service)
		kill(-sh->service, SIGKILL);
	waitpid(sup, NULL, 0);
	if (fcaps_copy)
		unlink(fcaps_copy);

	/* Analysis. */
	{
		long sent = sh->nbenign, answered = 0, down = 0, other = 0, bbanned = 0;
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
			bbanned += sh->benign_res[i] == BANNED;
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
		       "benign_failed_down=%ld benign_failed_other=%ld benign_banned=%ld "
		       "window_sent=%ld window_answered=%ld window_pct=%.2f "
		       "attack_sent=%ld crashes=%ld attack_banned=%ld attack_down=%ld "
		       "addrs=%d addrs_banned=%ld crashes_per_addr_max=%ld restarts=%d "
		       "cpr_max=%ld cpr=%s first_ban_ms=%lld all_banned_ms=%lld stopped_ms=%lld "
		       "proxy_refused=%ld alive=%d ",
		       sent, answered, sent ? 100.0 * answered / sent : 0.0, down, other, bbanned,
		       wsent, wanswered, wsent ? 100.0 * wanswered / wsent : 100.0,
		       sh->attack_sent, sh->crashes, sh->banned, sh->down,
		       nsrc, nbanned, maxsrc, sh->nstarts - 1, cpr_max, used ? cpr : "-",
		       first && first_ban ? (first_ban - first) / 1000000 : -1,
		       first && sh->all_banned_at ? (sh->all_banned_at - first) / 1000000 : -1,
		       first ? (last - first) / 1000000 : -1, sh->proxy_refused, alive);
		print_series(nstarts);
	}
	return 0;
}
