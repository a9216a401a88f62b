// SPDX-License-Identifier: GPL-2.0
/*
 * Attacker of the Brute selftests: probes a target until it is stopped.
 *
 * Usage: attacker [options] fork|exec N [PROGRAM ARGS...]
 *   fork N         fork N children that crash (no execve)
 *   exec N PROG..  fork N children that execve PROG ARGS
 *   -k             kill each child with SIGSEGV from user space instead
 *                  of letting it crash (children pause)
 *   -u UID         set the real, effective and saved user ID first
 *   -s             fork a bystander sibling first that sleeps; print its
 *                  pid as "sibling PID" on stdout
 *   -l ADDR:PORT   serve: accept one TCP connection per child and read
 *                  one byte from it before forking the child
 *   -n PATH        enter the network namespace at PATH first
 *   -d             double fork each attempt: the child forks the target
 *                  and exits at once, so the target is reparented
 *
 * Prints "done" and exits 0 if it made every attempt.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A real fault, SIGSEGV with SEGV_MAPERR, that the compiler cannot elide. */
static void fault(void)
{
	int *p = (int *)strtoul("8", NULL, 0);

	*p = 0;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int serve(const char *spec)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strchr(spec, ':');
	int fd, one = 1;

	if (!colon || colon - spec >= (int)sizeof(host))
		die("address");
	memcpy(host, spec, colon - spec);
	host[colon - spec] = '\0';
	addr.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1)
		die("inet_pton");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 64))
		die("bind/listen");
	printf("listening\n");
	fflush(stdout);
	return fd;
}

int main(int argc, char **argv)
{
	int opt, n, i, listener = -1;
	int user_kill = 0, sibling = 0, double_fork = 0;
	const char *listen_spec = NULL;
	char **prog = NULL;
	int do_exec;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "+ku:sl:n:d")) != -1) {
		switch (opt) {
		case 'k':
			user_kill = 1;
			break;
		case 'u': {
			uid_t uid = strtoul(optarg, NULL, 10);

			if (setresuid(uid, uid, uid))
				die("setresuid");
			break;
		}
		case 's':
			sibling = 1;
			break;
		case 'd':
			double_fork = 1;
			break;
		case 'l':
			listen_spec = optarg;
			break;
		case 'n': {
			int fd = open(optarg, O_RDONLY | O_CLOEXEC);

			if (fd < 0 || setns(fd, CLONE_NEWNET))
				die("setns");
			close(fd);
			break;
		}
		default:
			return 2;
		}
	}
	if (argc - optind < 2)
		return 2;
	do_exec = !strcmp(argv[optind], "exec");
	n = atoi(argv[optind + 1]);
	if (do_exec) {
		if (argc - optind < 3)
			return 2;
		prog = &argv[optind + 2];
	}

	if (sibling) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			/* Do not hold the caller's pipe open. */
			int null = open("/dev/null", O_WRONLY);

			if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
				die("/dev/null");
			for (;;)
				pause();
		}
		printf("sibling %d\n", pid);
	}
	if (listen_spec)
		listener = serve(listen_spec);

	for (i = 0; i < n; i++) {
		int conn = -1, status;
		pid_t pid;

		if (listener >= 0) {
			char byte;

			conn = accept(listener, NULL, NULL);
			if (conn < 0)
				die("accept");
			if (read(conn, &byte, 1) < 0)
				die("read");
		}
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			if (double_fork) {
				pid_t target = fork();

				if (target < 0)
					die("fork");
				if (target)
					_exit(0);
			}
			if (do_exec) {
				execv(prog[0], prog);
				die("execv");
			}
			if (user_kill) {
				for (;;)
					pause();
			}
			fault();
			_exit(3);
		}
		if (user_kill) {
			usleep(20000);
			kill(pid, SIGSEGV);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (double_fork)
			usleep(100000); /* Let the orphaned target crash. */
		if (conn >= 0)
			close(conn);
	}
	printf("done\n");
	return 0;
}
