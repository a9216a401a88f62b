/* runas UID[:GID] PROGRAM [ARGS...]: drop to UID/GID (no supplementary groups) and exec.
 * A guest helper for tests that must run unprivileged; static, no NSS lookups. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	unsigned long uid, gid;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID[:GID] PROGRAM [ARGS...]\n");
		return 2;
	}
	uid = strtoul(argv[1], &end, 10);
	gid = *end == ':' ? strtoul(end + 1, &end, 10) : uid;
	if (*end) {
		fprintf(stderr, "runas: bad UID[:GID] '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		perror("runas");
		return 126;
	}
	if (uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "runas: could regain root, refusing\n");
		return 126;
	}
	execvp(argv[2], argv + 2);
	perror("runas: exec");
	return 127;
}
