// SPDX-License-Identifier: GPL-2.0
/*
 * Target of the Brute selftests: dies the way it is told to.
 *
 * Usage: crasher [-u UID] segv|abort|pause
 *   -u UID  set the real, effective and saved user ID first (a credential
 *           change: a privilege boundary)
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

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "u:")) != -1) {
		if (opt == 'u') {
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
	} else if (!strcmp(argv[optind], "pause")) {
		for (;;)
			pause();
	}
	return 2;
}
