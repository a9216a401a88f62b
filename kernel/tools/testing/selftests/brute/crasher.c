// SPDX-License-Identifier: GPL-2.0
/*
 * Target of the Brute selftests: dies the way it is told to.
 *
 * Usage: crasher [-u UID] [-r] segv|abort|reraise|threads|serve|pause|true
 *   -u UID  set the real, effective and saved user ID first (a credential
 *           change: a privilege boundary)
 *   -r      read one byte from standard input first (a connection handed
 *           over by an inetd-style server, or a pool instance waiting for
 *           its input)
 *   reraise a real fault caught by a handler that restores the default
 *           action and sends the signal to its own process, as crash
 *           reporters do
 *   threads eight threads fault at the same time
 *   serve   read a request line from standard input: "crash" faults,
 *           anything else is answered "ok" on standard output
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A real fault, SIGSEGV with SEGV_MAPERR, that the compiler cannot elide. */
static void fault(void)
{
	int *p = (int *)strtoul("8", NULL, 0);

	*p = 0;
}

static pthread_barrier_t barrier;

static void *fault_together(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&barrier);
	fault();
	return NULL;
}

/* Eight threads fault at once: one crash of one process. */
static int threads(void)
{
	pthread_t thread[8];
	int i;

	pthread_barrier_init(&barrier, NULL, 8);
	for (i = 0; i < 8; i++)
		if (pthread_create(&thread[i], NULL, fault_together, NULL))
			return 2;
	for (i = 0; i < 8; i++)
		pthread_join(thread[i], NULL);
	return 2;
}

static int serve(void)
{
	char buf[64] = "";

	if (read(STDIN_FILENO, buf, sizeof(buf) - 1) <= 0)
		return 1;
	if (!strncmp(buf, "crash", 5))
		fault();
	return write(STDOUT_FILENO, "ok\n", 3) == 3 ? 0 : 1;
}

static void reraise(int sig)
{
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "u:r")) != -1) {
		if (opt == 'r') {
			char byte;

			if (read(STDIN_FILENO, &byte, 1) != 1)
				return 2;
		} else if (opt == 'u') {
			uid_t uid = strtoul(optarg, NULL, 10);

			if (setresuid(uid, uid, uid)) {
				perror("setresuid");
				return 2;
			}
		} else {
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	if (!strcmp(argv[optind], "segv")) {
		/* A real fault: SIGSEGV with si_code SEGV_MAPERR. */
		fault();
	} else if (!strcmp(argv[optind], "abort")) {
		abort();
	} else if (!strcmp(argv[optind], "reraise")) {
		signal(SIGSEGV, reraise);
		fault();
	} else if (!strcmp(argv[optind], "threads")) {
		return threads();
	} else if (!strcmp(argv[optind], "serve")) {
		return serve();
	} else if (!strcmp(argv[optind], "true")) {
		return 0;
	} else if (!strcmp(argv[optind], "pause")) {
		for (;;)
			pause();
	}
	return 2;
}
