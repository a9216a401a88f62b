// SPDX-License-Identifier: GPL-2.0
/*
 * A fault caught by a handler (tests/bpf/50-brute-bpf.sh): Brute.rst, "What counts as a crash".
 *   handled exit     the handler _exit()s with status 3: a crash (handled=exit)
 *   handled resume   the handler siglongjmp()s back (the mask restored) and the program
 *                    goes on, then exits 0: no crash
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf back;
static int resume;

static void handler(int sig)
{
	(void)sig;
	if (resume)
		siglongjmp(back, 1);
	_exit(3);
}

static void fault(void)
{
	int *p = (int *)strtoul("8", NULL, 0);

	*p = 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	resume = !strcmp(argv[1], "resume");
	signal(SIGSEGV, handler);
	if (sigsetjmp(back, 1) == 0)
		fault();
	return resume ? 0 : 2;
}
