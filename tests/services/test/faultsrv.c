// SPDX-License-Identifier: GPL-2.0
/*
 * faultsrv MODE: a forking HTTP-ish server on 127.0.0.1 (its port printed on stdout) whose
 * per-connection child reads the request with MODE (read, chk (__read_chk), recv, recvfrom,
 * recvmsg, readv) and answers "HTTP/1.0 200 OK"; or, MODE byte, speaks the start of SSH: its
 * identification line, the client's read one byte at a time (as OpenSSH's sshd reads it),
 * then a packet.  tests/host/75-services-tools.sh runs it
 * under brute-fault.so and drives it with svcbench.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

extern ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);

static ssize_t get(const char *mode, int fd, char *buf, size_t len)
{
	if (!strcmp(mode, "chk"))
		return __read_chk(fd, buf, len, len);
	if (!strcmp(mode, "recv"))
		return recv(fd, buf, len, 0);
	if (!strcmp(mode, "recvfrom"))
		return recvfrom(fd, buf, len, 0, NULL, NULL);
	if (!strcmp(mode, "recvmsg") || !strcmp(mode, "readv")) {
		struct iovec iov[2] = { { buf, 3 }, { buf + 3, len - 3 } };
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };

		return !strcmp(mode, "readv") ? readv(fd, iov, 2) : recvmsg(fd, &msg, 0);
	}
	if (!strcmp(mode, "byte"))
		return read(fd, buf, 1);
	return read(fd, buf, len);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (argc != 2 || lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 64) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len))
		return 2;
	printf("%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		if (!fork()) {
			char req[4096];
			size_t got = 0;
			ssize_t n;

			close(lfd);
			if (!strcmp(argv[1], "byte")) {
				dprintf(fd, "SSH-2.0-faultsrv\r\n");
				while (got < sizeof(req) - 1 && read(fd, req + got, 1) == 1 &&
				       req[got++] != '\n')
					;
				dprintf(fd, "KEXINIT\n");
				_exit(0);
			}
			while (got < sizeof(req) - 1 &&
			       (n = get(argv[1], fd, req + got, sizeof(req) - 1 - got)) > 0) {
				got += n;
				req[got] = '\0';
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			dprintf(fd, "HTTP/1.0 200 OK\r\n\r\nok\n");
			_exit(0);
		}
		close(fd);
	}
}
