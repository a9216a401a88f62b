/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency - time from writing a BRUTE_KILL record to brute-reportd's stdin
 * (auditd plugin mode) to its entry coming out.  The entry is printed by
 * output_entry() before it is queued for the SIEM and handed to the journal's
 * worker thread (which calls sd_journal_sendv()), so this is the
 * record -> journal hand-off latency (there is no journald on a build host).
 * Also a tiny datagram sink used to give audisp-syslog a /dev/log.
 *   latency BRUTE-REPORTD CONFIG [ITERATIONS]
 *   latency --sink PATH
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int sink(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), size = 8 << 20;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("sink");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	for (;;)
		if (recv(fd, buf, sizeof(buf), 0) < 0)
			return 0;
}

int main(int argc, char **argv)
{
	int in[2], out[2], iters;
	pid_t pid;
	double *lat;
	char buf[65536];

	if (argc == 3 && !strcmp(argv[1], "--sink"))
		return sink(argv[2]);
	if (argc < 3) {
		fprintf(stderr, "usage: latency BRUTE-REPORTD CONFIG [ITERATIONS]\n");
		return 2;
	}
	iters = argc > 3 ? atoi(argv[3]) : 200;
	lat = calloc((size_t)iters, sizeof(*lat));
	if (!lat || pipe(in) < 0 || pipe(out) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(argv[1], "brute-reportd", "--config", argv[2], "--stdin", "--output", "json", "--quiet", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	usleep(200 * 1000);
	for (int i = 0; i < iters; i++) {
		char line[512];
		struct timespec t0, t1;
		struct pollfd p = { out[0], POLLIN, 0 };
		int n = snprintf(line, sizeof(line),
				 "type=UNKNOWN[1714] msg=audit(%lld.000:%d): brute_hierarchy=%llu opid=5 ouid=0 oauid=0 oses=1 ocomm=\"x\" oexe=\"/x\"\n",
				 (long long)time(NULL), 1000 + i, 4294967296ull + (unsigned)i);
		size_t got = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (write(in[1], line, (size_t)n) != n)
			return 1;
		/* one kill entry per record (new hierarchy each time) */
		while (got == 0 || buf[got - 1] != '\n') {
			ssize_t r;

			if (poll(&p, 1, 5000) != 1)
				return fprintf(stderr, "timeout\n"), 1;
			r = read(out[0], buf + got, sizeof(buf) - got - 1);
			if (r <= 0)
				return 1;
			got += (size_t)r;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		lat[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	}
	kill(pid, SIGTERM);
	close(in[1]);
	while (read(out[0], buf, sizeof(buf)) > 0)
		;
	waitpid(pid, NULL, 0);
	qsort(lat, (size_t)iters, sizeof(*lat), cmp);
	printf("kill record -> journal hand-off: %d samples, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
	       iters, lat[iters / 2], lat[iters * 99 / 100], lat[iters - 1]);
	free(lat);
	return 0;
}
