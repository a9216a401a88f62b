/*
 * brute-demo-suid: the set-user-ID root program of `make demo` (tests/demo/demo.sh).  It
 * reads a name from standard input into a 64-byte stack buffer without checking the length:
 * an overflow smashes the canary and glibc aborts the program (SIGABRT).  A local attacker
 * runs it again and again, each run a new image with a new canary and layout: an exec attack,
 * which Brute answers by banning the attacker from this program.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void greet(void)
{
	static volatile size_t max = 256; /* the bug: up to 256 bytes into 64 */
	char name[64];
	ssize_t n;

	n = read(STDIN_FILENO, name, max);
	if (n <= 0)
		return;
	name[n < 64 ? n - 1 : 63] = '\0';
	printf("hello %s\n", name);
}

int main(void)
{
	greet();
	return 0;
}
