// SPDX-License-Identifier: GPL-2.0
/*
 * svcbench: benign clients and an attacker against a real service (Debian's nginx, PHP-FPM,
 * Apache, OpenSSH, Postfix, Dovecot in the system guest, tests/services/), all at once, and
 * what each of them got.  The service is run by systemd, not by this program; -w watches its
 * main process (a pid file) to count its executions (randomizations) and its time down.
 * Used by tests/services/services.sh (make check's short form, make bench's full form).
 * The shape follows tests/fast/src/availbench.c.
 *
 * Usage: svcbench [-d SECONDS] [-w PIDFILE] [-R SECONDS] -b SPEC [-b SPEC...] [-a SPEC...]
 *   -d SECONDS  how long the attackers run (default 20); the benign clients run from the
 *               start to the end, and -t SECONDS more after the attack (default 1)
 *   -n CRASHES  end the attack earlier, once the attackers saw CRASHES crashes in all, or
 *               found every address of theirs banned 2 s ago, but not before -m SECONDS
 *               (default 0: run -d): a loaded host gets as far as an idle one, later
 *   -w PIDFILE  the service's main process: sampled every 20 ms (its executions, its time down)
 *   -R SECONDS  first wait until every benign client got one answer (default 60; 0: don't)
 *   -b SPEC     a benign client (up to 8); -a SPEC an attacker (up to 4)
 *
 * SPEC: comma-separated KEY=VALUE:
 *   name=NAME      label in the output
 *   proto=P        http | ssh | smtp | lmtp | imap
 *   to=WHERE       ADDR:PORT (TCP) or an absolute path (Unix stream socket)
 *   ns=PATH        enter this network namespace (/run/netns/NAME) first
 *   src=ADDR       source address(es) (TCP): one, or a pattern with one {A-B} range, e.g.
 *                  10.90.{0-255}.2 (rotated; an attacker skips those it found banned)
 *   uid=N          run as this user (after entering the namespace)
 *   every=MS       a request every MS ms (benign default 50, attacker 20): MS ms after the
 *                  last one ended (closed loop)
 *   open=1         (benign) open loop: request N starts at N * every=, whatever became of
 *                  the others (each in a process of its own, as independent users' arrive)
 *   connect=MS     a connection not established within MS ms is "banned" (a peer ban drops
 *                  the SYN; default 500 for an attacker, 3000 for a benign client)
 *   timeout=MS     the whole request (default 5000)
 *   http: path=PATH (default /), host=NAME; answered: a 2xx status.  A 502 whose
 *         X-Upstream-Connect header is a time (the proxy reached its upstream, which
 *         closed without answering) is a crash; other 5xx: the service is down
 *   ssh:  id=STRING the client's identification (default SSH-2.0-svcbench); answered: the
 *         server's first packet after the identification exchange (its KEXINIT)
 *   smtp, lmtp: helo=NAME, rcpt=ADDR, body=TEXT (a line of the message); answered: the
 *         message accepted (250 after the final dot); the Subject is
 *         "svcbench NAME SEQ" so that deliveries can be counted in the mailbox
 *   imap: user=, pass=, cmd=COMMAND (after LOGIN, default NOOP; + for a space), pipeline=1 sends LOGIN and
 *         COMMAND in one write (the login process then hands COMMAND over with the
 *         connection); answered: COMMAND's tagged OK
 *
 * Outcome of an attacker's request: crashed (the connection closed without the answer, or
 * the 502 above), banned (not established within connect=, or EPERM), down (refused, reset
 * before anything was read, or a 5xx of the proxy without its upstream), other.
 *
 * Prints one line per client and one for the watch, NAME=VALUE fields:
 *   role=benign name= sent answered pct failed_down failed_banned failed_other
 *        window_sent window_answered window_pct (sent between the first and the last crash
 *        any attacker saw) max_gap_ms (the longest time without an answer)
 *   role=attack name= sent crashes banned down other addrs addrs_banned
 *        crashes_per_addr_max first_ban_ms all_banned_ms stopped_ms (from the first crash)
 *   role=watch restarts (new main pids) reexecs (the same main pid, a new image: its code and
 *        stack moved) down_ms (no main process) cpr_max cpr (crashes any
 *        attacker saw per execution of the main process, at most 40 listed)
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
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BENIGN 8
#define MAX_ATTACK 4
#define MAX_SRC 1024
#define MAX_EVENTS 32768
#define MAX_STARTS 1024

enum outcome { ANSWERED, CRASHED, BANNED, DOWN, OTHER, PENDING };

struct spec {
	char name[32], proto[8], to[108], ns[128], path[256], host[64], id[128], helo[128];
	char rcpt[128], body[256], user[64], pass[64], cmd[128];
	char *src[MAX_SRC];
	int nsrc, pipeline, open;
	long uid, every, connect_ms, timeout_ms;
};

struct role {
	int n;
	long long at[MAX_EVENTS];
	char res[MAX_EVENTS];
	int src[MAX_EVENTS];
	long long banned_at[MAX_SRC];
	int per_src[MAX_SRC];
	long long all_banned_at;
};

struct shared {
	volatile int stop_attack, stop;
	struct role benign[MAX_BENIGN], attack[MAX_ATTACK];
	int nstarts, nreexecs;
	long long starts[MAX_STARTS];
	long long down_ns;
};

static struct shared *sh;
static struct spec benign_spec[MAX_BENIGN], attack_spec[MAX_ATTACK];
static int nbenign, nattack;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "svcbench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Expand one {A-B} range of a source pattern. */
static void parse_src(struct spec *s, const char *v)
{
	const char *open = strchr(v, '{'), *close = open ? strchr(open, '}') : NULL;
	long a, b;

	if (!open || !close) {
		s->src[s->nsrc++] = strdup(v);
		return;
	}
	if (sscanf(open + 1, "%ld-%ld", &a, &b) != 2 || a > b || b - a >= MAX_SRC)
		die("bad source range: %s", v);
	for (long i = a; i <= b && s->nsrc < MAX_SRC; i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%.*s%ld%s", (int)(open - v), v, i, close + 1);
		s->src[s->nsrc++] = strdup(buf);
	}
}

#define SET(key, field) else if (!strcmp(k, key)) snprintf(s->field, sizeof(s->field), "%s", v)

static void parse_spec(struct spec *s, char *arg, int attacker)
{
	*s = (struct spec){ .uid = -1, .every = attacker ? 20 : 50,
			    .connect_ms = attacker ? 500 : 3000, .timeout_ms = 5000 };
	snprintf(s->name, sizeof(s->name), "%s", attacker ? "attacker" : "benign");
	snprintf(s->proto, sizeof(s->proto), "http");
	snprintf(s->path, sizeof(s->path), "/");
	snprintf(s->host, sizeof(s->host), "localhost");
	snprintf(s->id, sizeof(s->id), "SSH-2.0-svcbench");
	snprintf(s->helo, sizeof(s->helo), "svcbench.example");
	snprintf(s->cmd, sizeof(s->cmd), "NOOP");
	for (char *save = NULL, *kv = strtok_r(arg, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *k = kv, *v = strchr(kv, '=');

		if (!v)
			die("bad KEY=VALUE: %s", kv);
		*v++ = '\0';
		if (!strcmp(k, "src"))
			parse_src(s, v);
		else if (!strcmp(k, "uid"))
			s->uid = atol(v);
		else if (!strcmp(k, "every"))
			s->every = atol(v);
		else if (!strcmp(k, "connect"))
			s->connect_ms = atol(v);
		else if (!strcmp(k, "timeout"))
			s->timeout_ms = atol(v);
		else if (!strcmp(k, "pipeline"))
			s->pipeline = atoi(v);
		else if (!strcmp(k, "open") && !attacker)
			s->open = atoi(v);
		SET("name", name); SET("proto", proto); SET("to", to); SET("ns", ns);
		SET("path", path); SET("host", host); SET("id", id); SET("helo", helo);
		SET("rcpt", rcpt); SET("body", body); SET("user", user); SET("pass", pass);
		SET("cmd", cmd);
		else
			die("unknown key: %s", k);
	}
	for (char *p = s->cmd; *p; p++)	/* cmd=SELECT+INBOX: a space in a shell word */
		if (*p == '+')
			*p = ' ';
	if (!s->to[0])
		die("%s: no to=", s->name);
}

static void enter(const char *netns)
{
	int fd = open(netns, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die("%s: %s", netns, strerror(errno));
	close(fd);
}

static void become(long uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		die("setresuid(%ld): %s", uid, strerror(errno));
}

/* A connection, as the request's state. */
struct conn {
	int fd;
	long long deadline;
	char buf[8192];
	size_t len;
	int eof, err;
	size_t got;	/* bytes read in all */
};

static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long long left = deadline - now_ns();

	if (left <= 0)
		return 0;
	return poll(&pfd, 1, (int)((left + 999999) / 1000000)) == 1;
}

/* Read more into c->buf; 0 on EOF, error or timeout (c->eof / c->err say which). */
static int fill(struct conn *c)
{
	ssize_t n;

	if (c->len >= sizeof(c->buf) - 1) {
		/* Keep the last half: the parsers look at lines near the end. */
		memmove(c->buf, c->buf + sizeof(c->buf) / 2, c->len - sizeof(c->buf) / 2);
		c->len -= sizeof(c->buf) / 2;
	}
	if (!wait_fd(c->fd, POLLIN, c->deadline)) {
		c->err = ETIMEDOUT;
		return 0;
	}
	n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n < 0) {
		c->err = errno;
		return 0;
	}
	if (n == 0) {
		c->eof = 1;
		return 0;
	}
	c->len += n;
	c->got += n;
	c->buf[c->len] = '\0';
	return 1;
}

/* Read one line (without CRLF) into @line; 0 if the connection ended first. */
static int get_line(struct conn *c, char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);

		if (nl) {
			size_t n = nl - c->buf + 1, k = n - 1;

			if (k && c->buf[k - 1] == '\r')
				k--;
			snprintf(line, size, "%.*s", (int)k, c->buf);
			memmove(c->buf, c->buf + n, c->len - n);
			c->len -= n;
			c->buf[c->len] = '\0';
			return 1;
		}
		if (!fill(c))
			return 0;
	}
}

static int put(struct conn *c, const char *fmt, ...)
{
	char out[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, sizeof(out), fmt, ap);
	va_end(ap);
	for (int off = 0; off < n;) {
		ssize_t w;

		if (!wait_fd(c->fd, POLLOUT, c->deadline)) {
			c->err = ETIMEDOUT;
			return 0;
		}
		w = write(c->fd, out + off, n - off);
		if (w < 0) {
			c->err = errno;
			return 0;
		}
		off += w;
	}
	return 1;
}

/* The outcome of a connection that ended before the answer. */
static enum outcome ended(struct conn *c)
{
	if (c->err == EPERM || c->err == EACCES)
		return BANNED;
	if (c->err == ETIMEDOUT)
		return OTHER;
	if (c->err == ECONNRESET && !c->got)
		return DOWN;	/* queued in a listener that went away */
	return CRASHED;		/* closed (or reset) by the process that served it */
}

/* SMTP/LMTP: read a (multi-line) reply; its code, 0 if the connection ended. */
static int reply(struct conn *c)
{
	char line[1024];

	while (get_line(c, line, sizeof(line)))
		if (strlen(line) < 4 || line[3] != '-')
			return atoi(line);
	return 0;
}

static enum outcome do_http(struct conn *c, const struct spec *s)
{
	char line[1024];
	int status;

	if (!put(c, "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: svcbench/%s\r\n\r\n", s->path,
		 s->host, s->name))
		return ended(c);
	if (!get_line(c, line, sizeof(line)))
		return ended(c);
	if (sscanf(line, "HTTP/%*s %d", &status) != 1)
		return OTHER;
	if (status >= 200 && status < 300)
		return ANSWERED;
	if (status == 502) {
		while (get_line(c, line, sizeof(line)) && line[0]) {
			if (!strncasecmp(line, "X-Upstream-Connect:", 19)) {
				char *v = line + 19;

				while (*v == ' ')
					v++;
				return *v >= '0' && *v <= '9' ? CRASHED : DOWN;
			}
		}
		return DOWN;
	}
	return status >= 500 ? DOWN : OTHER;
}

static enum outcome do_ssh(struct conn *c, const struct spec *s)
{
	char line[1024];

	do {
		if (!get_line(c, line, sizeof(line)))
			return ended(c);
	} while (strncmp(line, "SSH-", 4));
	if (!put(c, "%s\r\n", s->id))
		return ended(c);
	/* The server's KEXINIT: a binary packet, any byte of it. */
	if (!c->len && !fill(c))
		return ended(c);
	return ANSWERED;
}

static enum outcome do_mail(struct conn *c, const struct spec *s, long seq)
{
	int lmtp = !strcmp(s->proto, "lmtp");

	if (reply(c) != 220)
		return ended(c);
	if (!put(c, "%s %s\r\n", lmtp ? "LHLO" : "EHLO", s->helo) || reply(c) != 250)
		return c->eof || c->err ? ended(c) : OTHER;
	if (!put(c, "MAIL FROM:<svcbench@%s>\r\n", s->helo) || reply(c) != 250)
		return c->eof || c->err ? ended(c) : OTHER;
	if (!put(c, "RCPT TO:<%s>\r\n", s->rcpt) || reply(c) != 250)
		return c->eof || c->err ? ended(c) : OTHER;
	if (!put(c, "DATA\r\n") || reply(c) != 354)
		return c->eof || c->err ? ended(c) : OTHER;
	if (!put(c, "From: svcbench@%s\r\nTo: %s\r\nSubject: svcbench %s %ld\r\n\r\n%s\r\n.\r\n",
		 s->helo, s->rcpt, s->name, seq, s->body[0] ? s->body : "hello") ||
	    reply(c) != 250)
		return c->eof || c->err ? ended(c) : OTHER;
	put(c, "QUIT\r\n");
	return ANSWERED;
}

static enum outcome do_imap(struct conn *c, const struct spec *s)
{
	char line[1024];

	if (!get_line(c, line, sizeof(line)))
		return ended(c);
	if (strncmp(line, "* OK", 4))
		return OTHER;
	if (s->pipeline) {
		if (!put(c, "a LOGIN %s %s\r\nb %s\r\n", s->user, s->pass, s->cmd))
			return ended(c);
	} else if (!put(c, "a LOGIN %s %s\r\n", s->user, s->pass)) {
		return ended(c);
	}
	for (;;) {
		if (!get_line(c, line, sizeof(line)))
			return ended(c);
		if (!strncmp(line, "a ", 2)) {
			if (strncmp(line, "a OK", 4))
				return OTHER;
			break;
		}
	}
	if (!s->pipeline && !put(c, "b %s\r\n", s->cmd))
		return ended(c);
	for (;;) {
		if (!get_line(c, line, sizeof(line)))
			return ended(c);
		if (!strncmp(line, "b ", 2)) {
			put(c, "c LOGOUT\r\n");
			return strncmp(line, "b OK", 4) ? OTHER : ANSWERED;
		}
	}
}

/* One request, one connection. */
static enum outcome request(const struct spec *s, const char *src, long seq)
{
	struct sockaddr_storage ss = {};
	struct conn c = { .fd = -1 };
	long long start = now_ns();
	socklen_t len, elen = sizeof(int);
	enum outcome o;
	int err = 0;

	if (s->to[0] == '/') {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;

		un->sun_family = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "%s", s->to);
		len = sizeof(*un);
		c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		const char *colon = strrchr(s->to, ':');
		char host[64];

		if (!colon || colon - s->to >= (int)sizeof(host))
			die("bad address %s", s->to);
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s->to), s->to);
		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(colon + 1));
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			die("bad address %s", s->to);
		len = sizeof(*in);
		c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c.fd >= 0 && src) {
			struct sockaddr_in b = { .sin_family = AF_INET };

			if (inet_pton(AF_INET, src, &b.sin_addr) != 1 ||
			    bind(c.fd, (struct sockaddr *)&b, sizeof(b)))
				die("bind %s: %s", src, strerror(errno));
		}
	}
	if (c.fd < 0)
		die("socket: %s", strerror(errno));
	c.deadline = start + s->connect_ms * 1000000LL;
	if (connect(c.fd, (struct sockaddr *)&ss, len)) {
		if (errno == EPERM || errno == EACCES) {
			o = BANNED;
			goto out;
		}
		if (errno == ECONNREFUSED || errno == ENOENT) {
			o = DOWN;
			goto out;
		}
		if (errno != EINPROGRESS && errno != EAGAIN) {
			o = OTHER;
			goto out;
		}
		if (!wait_fd(c.fd, POLLOUT, c.deadline)) {
			/* A dropped connection request: a ban (TCP). */
			o = s->to[0] == '/' ? OTHER : BANNED;
			goto out;
		}
		if (getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err) {
			o = err == ECONNREFUSED || err == ECONNRESET ? DOWN :
			    err == EPERM ? BANNED : OTHER;
			goto out;
		}
	}
	c.deadline = start + s->timeout_ms * 1000000LL;
	if (!strcmp(s->proto, "http"))
		o = do_http(&c, s);
	else if (!strcmp(s->proto, "ssh"))
		o = do_ssh(&c, s);
	else if (!strcmp(s->proto, "smtp") || !strcmp(s->proto, "lmtp"))
		o = do_mail(&c, s, seq);
	else if (!strcmp(s->proto, "imap"))
		o = do_imap(&c, s);
	else
		die("unknown proto %s", s->proto);
out:
	close(c.fd);
	return o;
}

/*
 * An open-loop client (open=1): request N starts at t0 + N * every, whatever became of
 * the others, each in a process of its own, as independent users' requests arrive.  A
 * closed-loop client (the default) sends the next one only once the last is over: when
 * the service refuses at once it sends many more, which weighs its figure towards the
 * time the service is down.
 */
static void open_client(const struct spec *s, struct role *r)
{
	long long t0 = now_ns();
	int nsrc = s->nsrc ? s->nsrc : 1;

	while (!sh->stop && r->n < MAX_EVENTS) {
		long long due = t0 + r->n * s->every * 1000000LL, left;
		int i = r->n;
		pid_t p;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		left = due - now_ns();
		if (left > 0) {
			msleep(left > 20000000LL ? 20 : (left + 999999) / 1000000);
			continue;
		}
		r->at[i] = due;
		r->src[i] = i % nsrc;
		r->res[i] = PENDING;
		p = fork();
		if (!p) {
			enum outcome o = request(s, s->nsrc ? s->src[i % nsrc] : NULL, i);

			__atomic_store_n(&r->res[i], (char)o, __ATOMIC_RELEASE);
			_exit(0);
		}
		if (p < 0)
			r->res[i] = OTHER;
		__atomic_store_n(&r->n, r->n + 1, __ATOMIC_RELEASE);
	}
	while (wait(NULL) > 0)
		;
	for (int i = 0; i < r->n; i++)
		if (r->res[i] == PENDING)
			r->res[i] = OTHER;	/* its process died */
	_exit(0);
}

static void client(const struct spec *s, struct role *r, int attacker)
{
	int i = 0, left = s->nsrc, nsrc = s->nsrc ? s->nsrc : 1;

	if (s->ns[0])
		enter(s->ns);
	if (s->uid >= 0)
		become(s->uid);
	if (s->open)
		open_client(s, r);
	while (!sh->stop && !(attacker && sh->stop_attack) && r->n < MAX_EVENTS) {
		long long t;
		enum outcome o;
		int k;

		/* The next source not found banned; all banned: rotate anyway. */
		for (k = 0; k < nsrc && left && r->banned_at[i % nsrc]; k++)
			i++;
		k = i++ % nsrc;
		t = now_ns();
		o = request(s, s->nsrc ? s->src[k] : NULL, r->n);
		r->at[r->n] = t;
		r->src[r->n] = k;
		r->res[r->n] = o;
		if (o == CRASHED)
			r->per_src[k]++;
		if (o == BANNED && !r->banned_at[k]) {
			r->banned_at[k] = t;
			if (s->nsrc && !--left)
				r->all_banned_at = t;
		}
		__atomic_store_n(&r->n, r->n + 1, __ATOMIC_RELEASE);
		msleep(s->every);
	}
	_exit(0);
}

/*
 * The image @pid runs: where its code and its stack start (/proc/PID/stat's
 * startcode and startstack, shown to root), which a new execution moves
 * (ASLR).  False if unknown (gone, or between two images).
 */
static bool image_of(long pid, unsigned long long *code, unsigned long long *stack)
{
	char path[64], buf[2048], *p, *save = NULL;
	size_t n;
	FILE *f;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces and parentheses */
	if (!p)
		return false;
	*code = *stack = 0;
	for (p = strtok_r(p + 1, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		field++;
		if (field == 26)
			*code = strtoull(p, NULL, 10);
		else if (field == 28) {
			*stack = strtoull(p, NULL, 10);
			break;
		}
	}
	return *code && *stack;
}

static void watch(const char *pidfile)
{
	unsigned long long last_code = 0, last_stack = 0;
	long last = -1;
	long long down_since = 0;

	for (;;) {
		FILE *f = fopen(pidfile, "r");
		long pid = -1;
		char proc[64];

		if (f) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = -1;
			fclose(f);
		}
		snprintf(proc, sizeof(proc), "/proc/%ld", pid);
		if (pid > 0 && access(proc, F_OK))
			pid = -1;
		if (pid > 0) {
			unsigned long long code, stack;
			bool known = image_of(pid, &code, &stack), fresh = pid != last;
			/* the same main process, executed again (a reload that executes it) */
			bool reexec = !fresh && known && last_code &&
				      (code != last_code || stack != last_stack);

			if (fresh || reexec) {
				if (sh->nstarts < MAX_STARTS)
					sh->starts[sh->nstarts] = now_ns();
				sh->nstarts++;
				if (reexec)
					sh->nreexecs++;
				last = pid;
			}
			if (known) {
				last_code = code;
				last_stack = stack;
			} else if (fresh) {
				last_code = last_stack = 0;
			}
		}
		if (pid < 0 && !down_since)
			down_since = now_ns();
		if ((pid > 0 || sh->stop) && down_since) {
			sh->down_ns += now_ns() - down_since;
			down_since = 0;
		}
		if (sh->stop)
			_exit(0);
		msleep(20);
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long ms(long long ns)
{
	return ns / 1000000;
}

int main(int argc, char **argv)
{
	long duration = 20, tail = 1, ready = 60, enough = 0, least = 0;
	const char *pidfile = NULL;
	pid_t pids[MAX_BENIGN + MAX_ATTACK + 1];
	int npids = 0, opt;
	long long first = 0, last = 0, t0;
	long long *crash_at;
	int ncrash = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "d:t:w:R:b:a:n:m:")) != -1) {
		switch (opt) {
		case 'd': duration = atol(optarg); break;
		case 'n': enough = atol(optarg); break;
		case 'm': least = atol(optarg); break;
		case 't': tail = atol(optarg); break;
		case 'w': pidfile = optarg; break;
		case 'R': ready = atol(optarg); break;
		case 'b':
			if (nbenign == MAX_BENIGN)
				die("too many benign clients");
			parse_spec(&benign_spec[nbenign++], optarg, 0);
			break;
		case 'a':
			if (nattack == MAX_ATTACK)
				die("too many attackers");
			parse_spec(&attack_spec[nattack++], optarg, 1);
			break;
		default:
			return 2;
		}
	}
	if (!nbenign && !nattack)
		die("usage: svcbench [-d S] [-w PIDFILE] -b SPEC... -a SPEC...");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));

	/* Every benign client is answered once before anything starts. */
	for (int b = 0; b < nbenign && ready > 0; b++) {
		long long until = now_ns() + ready * 1000000000LL;
		int st = 0;

		for (;;) {
			pid_t p = fork();

			if (!p) {
				const struct spec *s = &benign_spec[b];

				if (s->ns[0])
					enter(s->ns);
				if (s->uid >= 0)
					become(s->uid);
				_exit(request(s, s->nsrc ? s->src[0] : NULL, 0) != ANSWERED);
			}
			waitpid(p, &st, 0);
			if (WIFEXITED(st) && !WEXITSTATUS(st))
				break;
			if (now_ns() > until) {
				printf("error=not_ready name=%s\n", benign_spec[b].name);
				return 1;
			}
			msleep(200);
		}
	}
	t0 = now_ns();
	if (pidfile && !(pids[npids++] = fork()))
		watch(pidfile);
	for (int b = 0; b < nbenign; b++)
		if (!(pids[npids++] = fork()))
			client(&benign_spec[b], &sh->benign[b], 0);
	for (int a = 0; a < nattack; a++)
		if (!(pids[npids++] = fork()))
			client(&attack_spec[a], &sh->attack[a], 1);
	for (;;) {
		long long now = now_ns(), elapsed = now - t0, banned_since = 0;
		long seen = 0;
		int all = nattack > 0;

		if (elapsed >= duration * 1000000000LL)
			break;
		for (int a = 0; a < nattack; a++) {
			struct role *r = &sh->attack[a];
			int n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);

			for (int i = 0; i < n; i++)
				seen += r->res[i] == CRASHED;
			if (!r->all_banned_at && !(attack_spec[a].nsrc <= 1 && r->banned_at[0]))
				all = 0;
			else if ((r->all_banned_at ?: r->banned_at[0]) > banned_since)
				banned_since = r->all_banned_at ?: r->banned_at[0];
		}
		if (enough && elapsed >= least * 1000000000LL &&
		    (seen >= enough || (all && now - banned_since >= 2000000000LL)))
			break;
		msleep(100);
	}
	sh->stop_attack = 1;
	msleep(tail * 1000);
	sh->stop = 1;
	for (int i = 0; i < npids; i++)
		waitpid(pids[i], NULL, 0);

	/* Every crash any attacker saw, in time order. */
	crash_at = calloc(MAX_ATTACK * MAX_EVENTS, sizeof(*crash_at));
	if (!crash_at)
		die("calloc");
	for (int a = 0; a < nattack; a++)
		for (int i = 0; i < sh->attack[a].n; i++)
			if (sh->attack[a].res[i] == CRASHED)
				crash_at[ncrash++] = sh->attack[a].at[i];
	qsort(crash_at, ncrash, sizeof(*crash_at), cmp_ll);
	if (ncrash) {
		first = crash_at[0];
		last = crash_at[ncrash - 1];
	}

	for (int b = 0; b < nbenign; b++) {
		struct role *r = &sh->benign[b];
		long cnt[PENDING + 1] = {}, wsent = 0, wans = 0;
		long long prev = t0, gap = 0;

		for (int i = 0; i < r->n; i++) {
			int in = ncrash && r->at[i] >= first && r->at[i] <= last;

			cnt[(int)r->res[i]]++;
			wsent += in;
			wans += in && r->res[i] == ANSWERED;
			if (r->res[i] == ANSWERED) {
				if (r->at[i] - prev > gap)
					gap = r->at[i] - prev;
				prev = r->at[i];
			}
		}
		if ((r->n ? r->at[r->n - 1] : t0) - prev > gap)
			gap = (r->n ? r->at[r->n - 1] : t0) - prev;
		printf("role=benign name=%s sent=%d answered=%ld pct=%.2f failed_down=%ld "
		       "failed_banned=%ld failed_other=%ld window_sent=%ld window_answered=%ld "
		       "window_pct=%.2f max_gap_ms=%lld\n",
		       benign_spec[b].name, r->n, cnt[ANSWERED],
		       r->n ? 100.0 * cnt[ANSWERED] / r->n : 0.0, cnt[DOWN], cnt[BANNED],
		       cnt[OTHER] + cnt[CRASHED], wsent, wans, wsent ? 100.0 * wans / wsent : 100.0,
		       ms(gap));
	}
	for (int a = 0; a < nattack; a++) {
		struct role *r = &sh->attack[a];
		const struct spec *s = &attack_spec[a];
		long cnt[PENDING + 1] = {}, maxsrc = 0, nbanned = 0;
		long long mine_first = 0, mine_last = 0, first_ban = 0;
		int nsrc = s->nsrc ? s->nsrc : 1;

		for (int i = 0; i < r->n; i++) {
			cnt[(int)r->res[i]]++;
			if (r->res[i] == CRASHED) {
				if (!mine_first)
					mine_first = r->at[i];
				mine_last = r->at[i];
			}
		}
		for (int i = 0; i < nsrc; i++) {
			if (r->per_src[i] > maxsrc)
				maxsrc = r->per_src[i];
			if (r->banned_at[i]) {
				nbanned++;
				if (!first_ban || r->banned_at[i] < first_ban)
					first_ban = r->banned_at[i];
			}
		}
		printf("role=attack name=%s sent=%d crashes=%ld banned=%ld down=%ld other=%ld "
		       "answered=%ld addrs=%d addrs_banned=%ld crashes_per_addr_max=%ld "
		       "first_ban_ms=%lld all_banned_ms=%lld stopped_ms=%lld\n",
		       s->name, r->n, cnt[CRASHED], cnt[BANNED], cnt[DOWN], cnt[OTHER],
		       cnt[ANSWERED], nsrc, nbanned, maxsrc,
		       mine_first && first_ban ? ms(first_ban - mine_first) : -1,
		       mine_first && r->all_banned_at ? ms(r->all_banned_at - mine_first) : -1,
		       mine_first ? ms(mine_last - mine_first) : -1);
	}
	if (pidfile) {
		int nstarts = sh->nstarts < MAX_STARTS ? sh->nstarts : MAX_STARTS, shown = 0;
		long cpr_max = 0;
		char cpr[512] = "";
		size_t used = 0;

		/* The crashes before the first sample count for the first execution. */
		if (nstarts)
			sh->starts[0] = 0;
		for (int s = 0, c = 0; s < nstarts; s++) {
			long long end = s + 1 < nstarts ? sh->starts[s + 1] : 1LL << 62;
			long count = 0;

			while (c < ncrash && crash_at[c] < end) {
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
		printf("role=watch restarts=%d reexecs=%d down_ms=%lld cpr_max=%ld cpr=%s\n",
		       sh->nstarts > 0 ? sh->nstarts - 1 - sh->nreexecs : 0, sh->nreexecs,
		       ms(sh->down_ns), cpr_max, used ? cpr : "-");
	}
	return 0;
}
