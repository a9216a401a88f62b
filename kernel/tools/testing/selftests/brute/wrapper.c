// SPDX-License-Identifier: GPL-2.0
/*
 * A set-user-ID wrapper of the Brute selftests (installed set-user-ID root
 * as wrapper_suid by run.sh): executes its arguments with the IDs it got,
 * real user ID unchanged, effective user ID root, as Xorg.wrap does.
 *
 * Usage: wrapper PROGRAM ARGS...
 */

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	execv(argv[1], &argv[1]);
	perror("execv");
	return 2;
}
