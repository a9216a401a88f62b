/* segv: print its pid, then die of SIGSEGV (a core-dump signal) so the kernel emits an
 * ANOM_ABEND audit record for it. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	volatile int *p = NULL;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	*p = 1;
	return 0;
}
