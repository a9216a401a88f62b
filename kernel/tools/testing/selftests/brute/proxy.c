// SPDX-License-Identifier: GPL-2.0
/*
 * A reverse proxy of the Brute selftests: nginx in front of PHP-FPM, a
 * load balancer in front of a server.  It relays one request line and its
 * reply per client connection.
 *
 * Usage: proxy [options] tcp ADDR:PORT|unix PATH  tcp ADDR:PORT|unix PATH
 *   The first is where it listens, the second the service behind it.
 *   -n PATH  enter the network namespace at PATH first
 *   -u UID   become UID once listening (all user IDs)
 *   -b ADDR  connect to a TCP service from this source address
 *   -m       one connection to the service for every client (kept open,
 *            one request at a time): what it writes there is mixed
 *   Default: a child per client connection, with a connection of its own
 *   to the service: what it writes there is that client's.
 *
 * Prints "listening" once it listens.  Runs until killed.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *source;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static socklen_t make_addr(const char *kind, const char *where,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (!strcmp(kind, "unix")) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;

		un->sun_family = AF_UNIX;
		if (snprintf(un->sun_path, sizeof(un->sun_path), "%s", where) >=
		    (int)sizeof(un->sun_path))
			die("path");
		return sizeof(*un);
	}
	{
		struct sockaddr_in *in = (struct sockaddr_in *)ss;
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
		return sizeof(*in);
	}
}

static int listen_on(const char *kind, const char *where)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(kind, where, &ss);
	int fd, one = 1;

	if (!strcmp(kind, "unix"))
		unlink(where);
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128))
		die("bind/listen");
	if (!strcmp(kind, "unix") && chmod(where, 0666))
		die("chmod");
	return fd;
}

static int connect_to(const char *kind, const char *where)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(kind, where, &ss);
	int fd;

	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (source && ss.ss_family == AF_INET) {
		struct sockaddr_in src = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, source, &src.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&src, sizeof(src)))
			die("bind");
	}
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read one line (up to its newline) into @buf; its length, or <= 0. */
static ssize_t read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return r;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

/* Relay one request of @conn over @back; 0 if @back is still usable. */
static int relay(int conn, int back)
{
	char line[128];
	ssize_t n;

	n = read_line(conn, line, sizeof(line));
	if (n <= 0)
		return 0;
	if (write(back, line, n) != n)
		return -1;
	n = read_line(back, line, sizeof(line));
	if (n <= 0)
		return -1;
	if (write(conn, line, n) != n)
		return 0;
	return 0;
}

int main(int argc, char **argv)
{
	int opt, fd, shared = 0, back = -1;
	uid_t uid = (uid_t)-1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "n:u:b:m")) != -1) {
		switch (opt) {
		case 'n': {
			int ns = open(optarg, O_RDONLY | O_CLOEXEC);

			if (ns < 0 || setns(ns, CLONE_NEWNET))
				die("setns");
			close(ns);
			break;
		}
		case 'u':
			uid = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			source = optarg;
			break;
		case 'm':
			shared = 1;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 4)
		return 2;
	fd = listen_on(argv[optind], argv[optind + 1]);
	if (uid != (uid_t)-1 &&
	    (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	     setresuid(uid, uid, uid)))
		die("setresuid");
	printf("listening\n");
	for (;;) {
		int conn = accept(fd, NULL, NULL);

		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (shared) {
			if (back < 0)
				back = connect_to(argv[optind + 2],
						  argv[optind + 3]);
			if (back >= 0 && relay(conn, back)) {
				close(back);
				back = -1;
			}
			close(conn);
			continue;
		}
		if (!fork()) {
			close(fd);
			back = connect_to(argv[optind + 2], argv[optind + 3]);
			if (back >= 0)
				relay(conn, back);
			_exit(0);
		}
		close(conn);
	}
}
