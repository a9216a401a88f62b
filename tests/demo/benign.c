// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brute-demo-benign: a legitimate client of brute-demo-server during the demo's attacks.
 *
 *   brute-demo-benign HOST PORT SOURCE INTERVAL_MS STATUS_FILE
 *
 * From the address SOURCE (one of the client namespace's, not the attacker's), sends a
 * valid request (4 bytes) every INTERVAL_MS milliseconds, one connection each, and counts
 * the requests the service answered ("bye") within 3 s.  After each request, and when it
 * is stopped (SIGTERM, SIGINT), it rewrites STATUS_FILE with one line (a request the stop
 * interrupted is not counted: neither sent nor lost):
 *   sent=N answered=N t0=S sent_s=N,... answered_s=N,...
 * t0 is its start on CLOCK_MONOTONIC, sent_s and answered_s the requests sent and answered
 * in each second from it (timeline.h: make demo's plot).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timeline.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* 1: answered; 0: not answered; -1: interrupted by the stop (a socket with a timeout
 * is never restarted after a signal: signal(7)) */
static int request(const struct sockaddr_in *to, const struct sockaddr_in *from)
{
	struct timeval tv = { .tv_sec = 3 };
	static const char payload[] = "ping";
	uint32_t len = sizeof(payload) - 1;
	char reply[16] = "";
	size_t got = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (bind(fd, (const struct sockaddr *)from, sizeof(*from)) ||
	    connect(fd, (const struct sockaddr *)to, sizeof(*to)) ||
	    write(fd, &len, sizeof(len)) != sizeof(len) ||
	    write(fd, payload, len) != (ssize_t)len) {
		close(fd);
		return errno == EINTR && stop ? -1 : 0;
	}
	while (got < sizeof(reply) - 1) {
		ssize_t n = read(fd, reply + got, sizeof(reply) - 1 - got);

		if (n < 0 && errno == EINTR && stop) {
			close(fd);
			return -1;
		}
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	return strstr(reply, "bye") != NULL;
}

static struct timeline tl[2]; /* sent, answered */

static void save(const char *path, unsigned long sent, unsigned long answered)
{
	int upto = (int)(timeline_now() - tl[0].t0);

	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "sent=%lu answered=%lu t0=%.3f", sent, answered, tl[0].t0);
	timeline_print(f, "sent_s", &tl[0], upto);
	timeline_print(f, "answered_s", &tl[1], upto);
	fputc('\n', f);
	if (fclose(f) == 0)
		rename(tmp, path);
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET }, from = { .sin_family = AF_INET };
	unsigned long sent = 0, answered = 0;
	struct timespec pause;
	long interval_ms;

	if (argc != 6) {
		fprintf(stderr, "usage: %s HOST PORT SOURCE INTERVAL_MS STATUS_FILE\n", argv[0]);
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[3], &from.sin_addr) != 1) {
		fprintf(stderr, "bad address\n");
		return 2;
	}
	to.sin_port = htons(atoi(argv[2]));
	interval_ms = atol(argv[4]);
	pause.tv_sec = interval_ms / 1000;
	pause.tv_nsec = (interval_ms % 1000) * 1000000L;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	timeline_start(tl, 2);
	save(argv[5], 0, 0);
	while (!stop) {
		int r = request(&to, &from);

		if (r < 0)
			break;
		answered += r;
		sent++;
		timeline_count(&tl[0]);
		if (r)
			timeline_count(&tl[1]);
		save(argv[5], sent, answered);
		if (!stop)
			nanosleep(&pause, NULL);
	}
	save(argv[5], sent, answered);
	return 0;
}
