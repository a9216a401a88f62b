// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brute-demo-server: a deliberately vulnerable TCP service for `make demo`.
 *
 *   brute-demo-server PORT [MARKER_FILE]
 *
 * Accepts connections and forks one child per connection, without execve():
 * every child shares the parent's memory layout and its stack canary (random
 * per execve(), shared by fork children), the precondition of a byte-by-byte
 * canary brute force.
 *
 * Protocol (the bug): the client sends a 4-byte little-endian length, then
 * that many bytes, which handle() copies into a 64-byte stack buffer without
 * checking the length.  A child whose canary is intact returns from handle()
 * and replies "bye\n"; one whose canary was overwritten aborts in
 * __stack_chk_fail() (SIGABRT, a crash) and the connection closes without a
 * reply.  A client that knows the canary can overwrite the return address
 * with the address of pwned(), which proves control: it writes "PWNED\n" to
 * the socket and to MARKER_FILE, then exits.
 *
 * Built static, non-PIE, -fstack-protector-strong (tests/demo/Makefile), so
 * pwned() has a fixed address and the canary is the only secret.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int conn = -1;
static const char *marker;

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n;
		done += n;
	}
	return done;
}

/* Where a successful attack returns to: proof of control. */
__attribute__((noinline, used)) void pwned(void)
{
	static const char msg[] = "PWNED\n";

	if (write(conn, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	if (marker) {
		int fd = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			if (write(fd, msg, sizeof(msg) - 1) < 0)
				_exit(3);
			close(fd);
		}
	}
	_exit(0);
}

/* The bug: a length-trusting read into a stack buffer. */
__attribute__((noinline)) static void handle(int fd)
{
	char buf[64];
	uint32_t len;

	if (read_full(fd, &len, sizeof(len)) != sizeof(len) || len > 4096)
		_exit(1);
	if (read_full(fd, buf, len) != (ssize_t)len)
		_exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	int one = 1, sock;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PORT [MARKER_FILE]\n", argv[0]);
		return 2;
	}
	marker = argc > 2 ? argv[2] : NULL;
	addr.sin_port = htons(atoi(argv[1]));
	signal(SIGCHLD, SIG_IGN); /* no zombies */
	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (sock < 0 || setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(sock, (struct sockaddr *)&addr, sizeof(addr)) || listen(sock, 64)) {
		perror("brute-demo-server: socket");
		return 1;
	}
	printf("brute-demo-server: pid %d listening on port %s, pwned() at %p\n",
	       getpid(), argv[1], (void *)pwned);
	fflush(stdout);
	for (;;) {
		pid_t pid;

		conn = accept(sock, NULL, NULL);
		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("brute-demo-server: accept");
			return 1;
		}
		pid = fork();
		if (pid == 0) {
			close(sock);
			handle(conn);
			if (write(conn, "bye\n", 4) < 0)
				_exit(1);
			_exit(0);
		}
		if (pid < 0)
			perror("brute-demo-server: fork");
		close(conn);
	}
}
