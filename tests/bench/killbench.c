// SPDX-License-Identifier: GPL-2.0
/*
 * killbench: how long Brute takes to stop a detected hierarchy of N processes.
 *
 * Usage: killbench [-u] N
 * A child executes "killbench -v N" (a hierarchy of its own), which changes its
 * user ID (a privilege boundary), forks N processes that sleep, then forks
 * children that crash; each crashing child writes the time just before its
 * fault into a shared file.  This process, the subreaper of them all, reaps
 * every one; prints the guest time in nanoseconds from the last crash to the
 * last process reaped.  Needs Brute in kill mode (it loops otherwise).
 * With -u, the first crashing child kills the process group with SIGKILL from
 * user space instead of crashing: the same end by kill(2), the baseline of
 * what the exit of N processes costs, with or without Brute.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SHARED "/tmp/killbench.shm"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile long long *shared(int create)
{
	int fd = open(SHARED, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0666);
	void *p;

	if (fd < 0 || (create && ftruncate(fd, 4096)))
		exit(1);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		exit(1);
	return p;
}

static void victim(int n, int user)
{
	volatile long long *last = shared(0);

	setpgid(0, 0);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (!pid) {
			for (;;)
				pause();
		}
		if (pid < 0)
			exit(1);
	}
	/* A boundary for Brute; not with -u, whose kill(2) must reach every process. */
	if (!user && setresuid(1000, 1000, 1000))
		exit(1);
	for (;;) {
		pid_t pid = fork();

		if (!pid) {
			*last = now_ns();
			if (user)
				kill(0, SIGKILL);
			*(volatile int *)strtoul("8", NULL, 0) = 0;
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	volatile long long *last;
	long long end;
	pid_t pid;

	const char *mode = "-v";

	if (argc == 3 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "-w")))
		victim(atoi(argv[2]), argv[1][1] == 'w');
	if (argc == 3 && !strcmp(argv[1], "-u")) {
		mode = "-w";
		argv++;
		argc--;
	}
	if (argc != 2)
		return 2;
	last = shared(1);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return 1;
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", "killbench", mode, argv[1], NULL);
		_exit(127);
	}
	while (wait(NULL) > 0)
		;
	end = now_ns();
	printf("%lld\n", end - *last);
	return 0;
}
