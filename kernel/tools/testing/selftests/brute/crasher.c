// SPDX-License-Identifier: GPL-2.0
/*
 * Target of the Brute selftests: dies the way it is told to.
 *
 * Usage: crasher [-u UID] [-r] segv|abort|reraise|pause|true
 *   -u UID  set the real, effective and saved user ID first (a credential
 *           change: a privilege boundary)
 *   -r      read one byte from standard input first (a connection handed
 *           over by an inetd-style server)
 *   reraise a real fault caught by a handler that restores the default
 *           action and sends the signal to its own process, as crash
 *           reporters do
 */

#define _GNU_SOURCE
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
	} else if (!strcmp(argv[optind], "true")) {
		return 0;
	} else if (!strcmp(argv[optind], "pause")) {
		for (;;)
			pause();
	}
	return 2;
}
