// SPDX-License-Identifier: GPL-2.0
/*
 * netbench: time a TCP request/response loop and an accept loop between two
 * network namespaces (a veth pair: the client is a remote peer for the
 * server, so Brute's receive and accept hooks see what they see on a host).
 *
 * Usage: netbench rr|accept N SERVER_NETNS CLIENT_NETNS ADDR:PORT
 *   rr      one connection; the client writes a 64-byte request, the server
 *           reads it and writes a 64-byte reply, the client reads it
 *   accept  the client connects and waits for the end of the stream; the
 *           server accepts and closes: a connection request, an accept and
 *           the teardown per iteration
 * The server runs in SERVER_NETNS (a forked process), the client in
 * CLIENT_NETNS; 10 % of N unmeasured iterations first.  Prints the mean time
 * of one iteration in nanoseconds of guest time.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG 64

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void enter(const char *netns)
{
	int fd = open(netns, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(netns);
	close(fd);
}

static int full(int fd, char *buf, int len, int rd)
{
	int done = 0;

	while (done < len) {
		ssize_t n = rd ? read(fd, buf + done, len - done) :
				 write(fd, buf + done, len - done);

		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

static void serve(int rr, int lfd)
{
	char buf[MSG];

	for (;;) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0)
			die("accept");
		if (rr) {
			while (!full(c, buf, MSG, 1))
				if (full(c, buf, MSG, 0))
					break;
		}
		close(c);
	}
}

static int dial(const struct sockaddr_in *sa)
{
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[MSG], host[64], *colon;
	long n, warm, i;
	long long t0 = 0;
	int rr, lfd, one = 1, ready[2];
	pid_t server;

	if (argc != 6 || !(colon = strchr(argv[5], ':')) ||
	    colon - argv[5] >= (int)sizeof(host)) {
		fprintf(stderr, "usage: netbench rr|accept N SERVER_NETNS CLIENT_NETNS ADDR:PORT\n");
		return 2;
	}
	rr = !strcmp(argv[1], "rr");
	n = atol(argv[2]);
	warm = n / 10;
	memcpy(host, argv[5], colon - argv[5]);
	host[colon - argv[5]] = '\0';
	sa.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		die("address");
	if (pipe(ready))
		die("pipe");
	server = fork();
	if (server < 0)
		die("fork");
	if (!server) {
		enter(argv[3]);
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0)
			die("socket");
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 128))
			die("bind/listen");
		if (write(ready[1], "", 1) != 1)
			die("ready");
		serve(rr, lfd);
	}
	if (read(ready[0], buf, 1) != 1)
		die("server");
	enter(argv[4]);
	memset(buf, 'x', sizeof(buf));
	if (rr) {
		int fd = dial(&sa);

		for (i = 0; i < warm + n; i++) {
			if (i == warm)
				t0 = now_ns();
			if (full(fd, buf, MSG, 0) || full(fd, buf, MSG, 1))
				die("request/response");
		}
		close(fd);
	} else {
		for (i = 0; i < warm + n; i++) {
			int fd;

			if (i == warm)
				t0 = now_ns();
			fd = dial(&sa);
			if (read(fd, buf, 1) != 0)
				die("end of stream");
			close(fd);
		}
	}
	printf("%lld\n", (now_ns() - t0) / n);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	return 0;
}
