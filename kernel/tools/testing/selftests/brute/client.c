// SPDX-License-Identifier: GPL-2.0
/*
 * A client of the Brute selftests' service: sends requests, one connection
 * each, and counts how they ended.
 *
 * Usage: client [options] tcp ADDR:PORT | unix PATH | udp ADDR:PORT |
 *        sctp ADDR:PORT
 *   -n PATH      enter the network namespace at PATH first
 *   -b ADDR      bind to this source address (one of several on a device)
 *   -B A,B,...   rotate over these source addresses, one per request
 *   -c COUNT     send COUNT requests (default 1); 0: until killed
 *   -r REQUEST   the request line (default "hello"; "crash" crashes)
 *   -i MS        wait MS milliseconds between requests (default 0)
 *   -t MS        give up on a connection request after MS milliseconds
 *                (default 1000): a ban drops connection requests silently;
 *                a connected request waits up to 10 s for its reply
 *   -u UID       run as UID (set the real, effective and saved user ID)
 *   -S FILE      rewrite FILE with the counts after every request
 *   -M           connect with MPTCP
 *
 * Prints "answered A crashed C refused R" at the end: answered, the
 * service replied; crashed, the connection closed without a reply;
 * refused, the connection could not be made in time, or was reset.  Over
 * udp and sctp (one-to-many, datagrams), each request is a datagram and
 * one without a reply within the reply time (-t) counts as crashed.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *kind, *where, *request = "hello";
static char *sources[64];
static int nsources, timeout_ms = 1000;
static long answered, crashed, refused;
static int use_mptcp;
static volatile sig_atomic_t stop;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Wait for @events on @fd until the deadline; 1 if ready. */
static int wait_for(int fd, short events, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	struct timespec now;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (deadline->tv_sec - now.tv_sec) * 1000 +
	       (deadline->tv_nsec - now.tv_nsec) / 1000000;
	if (left <= 0)
		return 0;
	return poll(&pfd, 1, left) == 1;
}

/* The service's address, for a datagram's sendto(). */
static struct sockaddr_storage dst;
static socklen_t dst_len;

static int datagrams(void)
{
	return !strcmp(kind, "udp") || !strcmp(kind, "sctp");
}

static int connect_to(long i, const struct timespec *deadline)
{
	struct sockaddr_storage ss = {};
	socklen_t len;
	int fd, err = 0;
	socklen_t errlen = sizeof(err);

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
		if (!strcmp(kind, "udp"))
			fd = socket(AF_INET, SOCK_DGRAM, 0);
		else if (!strcmp(kind, "sctp"))
			fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
		else
			fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK,
				    use_mptcp ? 262 /* IPPROTO_MPTCP */ : 0);
		if (fd >= 0 && nsources) {
			struct sockaddr_in src = { .sin_family = AF_INET };

			if (inet_pton(AF_INET, sources[i % nsources],
				      &src.sin_addr) != 1 ||
			    bind(fd, (struct sockaddr *)&src, sizeof(src)))
				die("bind");
		}
	}
	if (fd < 0)
		die("socket");
	if (datagrams()) {
		dst = ss;
		dst_len = len;
		return fd;
	}
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		if (errno != EINPROGRESS && errno != EAGAIN)
			goto fail;
		if (!wait_for(fd, POLLOUT, deadline) ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) || err)
			goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* How long a connected request may wait for its reply. */
#define REPLY_MS 10000

static void set_deadline(struct timespec *deadline, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += ms / 1000;
	deadline->tv_nsec += (ms % 1000) * 1000000L;
	if (deadline->tv_nsec >= 1000000000L) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000L;
	}
}

/* 1 answered, 0 crashed (closed without a reply), -1 refused. */
static int one_request(long i)
{
	struct timespec deadline;
	char line[128], buf[16];
	ssize_t n;
	int fd;

	set_deadline(&deadline, timeout_ms);
	fd = connect_to(i, &deadline);
	if (fd < 0)
		return -1;
	/* Connected: a slow reply (a loaded machine) is not a refusal. */
	set_deadline(&deadline, REPLY_MS);
	snprintf(line, sizeof(line), "%s\n", request);
	if (datagrams() ? sendto(fd, line, strlen(line), 0,
				 (struct sockaddr *)&dst, dst_len) < 0 :
			  write(fd, line, strlen(line)) < 0) {
		close(fd);
		return -1;
	}
	if (datagrams())
		set_deadline(&deadline, timeout_ms);
	if (!wait_for(fd, POLLIN, &deadline)) {
		close(fd);
		return datagrams() ? 0 : -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && !strncmp(buf, "ok", 2))
		return 1;
	/*
	 * A crashed child closes the connection (it read the whole request);
	 * a reset is a connection the service never handled (queued when it
	 * died, or refused).
	 */
	return n == 0 ? 0 : -1;
}

static void save(const char *path)
{
	char tmp[256];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "answered %ld crashed %ld refused %ld\n", answered, crashed,
		refused);
	fclose(f);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	const char *status = NULL;
	long count = 1, interval_ms = 0, i;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	while ((opt = getopt(argc, argv, "n:b:B:c:r:i:t:u:S:M")) != -1) {
		switch (opt) {
		case 'n': {
			int ns = open(optarg, O_RDONLY | O_CLOEXEC);

			if (ns < 0 || setns(ns, CLONE_NEWNET))
				die("setns");
			close(ns);
			break;
		}
		case 'b':
			sources[0] = optarg;
			nsources = 1;
			break;
		case 'B': {
			char *tok = strtok(optarg, ",");

			for (nsources = 0; tok && nsources < 64;
			     tok = strtok(NULL, ","))
				sources[nsources++] = tok;
			break;
		}
		case 'c':
			count = atol(optarg);
			break;
		case 'r':
			request = optarg;
			break;
		case 'i':
			interval_ms = atol(optarg);
			break;
		case 't':
			timeout_ms = atoi(optarg);
			break;
		case 'u': {
			uid_t uid = strtoul(optarg, NULL, 10);

			if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
				die("setresuid");
			break;
		}
		case 'S':
			status = optarg;
			break;
		case 'M':
			use_mptcp = 1;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 2)
		return 2;
	kind = argv[optind];
	where = argv[optind + 1];
	for (i = 0; (!count || i < count) && !stop; i++) {
		switch (one_request(i)) {
		case 1:
			answered++;
			break;
		case 0:
			crashed++;
			break;
		default:
			refused++;
			break;
		}
		if (status)
			save(status);
		if (interval_ms)
			usleep(interval_ms * 1000);
	}
	printf("answered %ld crashed %ld refused %ld\n", answered, crashed,
	       refused);
	return 0;
}
