// SPDX-License-Identifier: GPL-2.0
/*
 * forkbench: time fork+exit and fork+exec+exit loops.
 *
 * Usage: forkbench fork|exec|suid|crash N WORKERS [PROGRAM]
 *   fork   fork+exit
 *   exec   fork+exec(PROGRAM)+exit
 *   suid   the workers become user 1000 first; fork+exec(PROGRAM, a
 *          set-user-ID root program)+exit: a privilege boundary every time
 *   crash  fork, the child dies of SIGSEGV (no boundary: what every crash
 *          of the system costs)
 * WORKERS processes (forked from this one, so in one Brute hierarchy), each
 * pinned to its own CPU with its children, run N iterations at the same
 * time; prints the mean time of one iteration in nanoseconds of guest time.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void fault(void)
{
	volatile int *p = (int *)strtoul("8", NULL, 0);

	*p = 0;
}

static void loop(int exec, long n, char *prog)
{
	char *argv[] = { prog, NULL };

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		if (!pid) {
			if (exec < 0)
				fault();
			if (exec) {
				execv(prog, argv);
				_exit(127);
			}
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid)
			exit(1);
	}
}

int main(int argc, char **argv)
{
	int exec, workers, fds[2];
	long n;
	long long total = 0;

	if (argc < 4)
		return 2;
	exec = !strcmp(argv[1], "exec") || !strcmp(argv[1], "suid");
	if (!strcmp(argv[1], "crash"))
		exec = -1;
	n = atol(argv[2]);
	workers = atoi(argv[3]);
	if (exec > 0 && argc < 5)
		return 2;
	if (pipe(fds))
		return 1;
	for (int w = 0; w < workers; w++) {
		if (!fork()) {
			long long start, took;
			cpu_set_t cpus;

			CPU_ZERO(&cpus);
			CPU_SET(w, &cpus);
			if (sched_setaffinity(0, sizeof(cpus), &cpus))
				_exit(1);
			if (!strcmp(argv[1], "suid") &&
			    (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000)))
				_exit(1);
			start = now_ns();

			loop(exec, n, argv[4]);
			took = now_ns() - start;
			if (write(fds[1], &took, sizeof(took)) != sizeof(took))
				_exit(1);
			_exit(0);
		}
	}
	for (int w = 0; w < workers; w++) {
		long long took;

		if (read(fds[0], &took, sizeof(took)) != sizeof(took))
			return 1;
		total += took;
	}
	while (wait(NULL) > 0)
		;
	printf("%lld\n", total / workers / n);
	return 0;
}
