// SPDX-License-Identifier: GPL-2.0
/*
 * A relay of the Brute selftests: N generations of processes, each forking
 * a child that executes the next generation and exiting once the child has
 * executed, so that at most two processes are alive at any time.  The last
 * generation writes its pid to FILE and waits.
 *
 * Usage: relay N FILE
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char left[16], byte;
	int fds[2], n;
	pid_t pid;

	if (argc != 3)
		return 2;
	n = atoi(argv[1]);
	if (n <= 0) {
		FILE *f = fopen(argv[2], "w");

		if (!f)
			return 2;
		fprintf(f, "%d\n", getpid());
		fclose(f);
		for (;;)
			pause();
	}
	/* Close-on-exec: the read ends when the child has executed. */
	if (pipe2(fds, O_CLOEXEC))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		snprintf(left, sizeof(left), "%d", n - 1);
		execl("/proc/self/exe", argv[0], left, argv[2], (char *)NULL);
		_exit(2);
	}
	close(fds[1]);
	if (read(fds[0], &byte, 1) < 0)
		return 2;
	return 0;
}
