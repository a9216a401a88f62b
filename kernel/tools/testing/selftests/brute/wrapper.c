// SPDX-License-Identifier: GPL-2.0
/*
 * A set-user-ID wrapper of the Brute selftests (installed set-user-ID root
 * as wrapper_suid by run.sh): executes its arguments with the IDs it got,
 * real user ID unchanged, effective user ID root, as Xorg.wrap does.
 *
 * With -f it sets every user and group ID to root first and drops the
 * supplementary groups, as sudo, su, doas and pkexec do: the payload's own
 * execve() then changes no ID.
 *
 * Usage: wrapper [-f] PROGRAM ARGS...
 */

#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-f")) {
		if (setgroups(0, NULL) || setresgid(0, 0, 0) ||
		    setresuid(0, 0, 0)) {
			perror("setresuid");
			return 2;
		}
		argv++;
		argc--;
	}
	if (argc < 2)
		return 2;
	execv(argv[1], &argv[1]);
	perror("execv");
	return 126;
}
