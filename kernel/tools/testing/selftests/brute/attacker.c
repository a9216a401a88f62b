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
 *   -r N           re-execute itself every N attempts (a new image, hence
 *                  a new hierarchy) with the attempts left
 *   -c UID         each child sets its real, effective and saved user ID to
 *                  UID first, the parent keeps its own (a privilege
 *                  separated daemon, or cron starting a user's job)
 *   -o             children pause; for each, a helper running as the -c
 *                  UID (default 1000) makes it the owner of a socket with
 *                  F_SETOWN, picks SIGABRT with F_SETSIG and triggers it
 *   -t             run the attempts in a second thread; the main thread
 *                  exits with pthread_exit() at once
 *   -P N           after N attempts print "paused" and wait for SIGUSR1
 *   -R             with -l: do not read the connection; give it to the
 *                  child as its standard input (inetd style)
 *   -F N           first fork N children that sleep (a large hierarchy)
 *   -B FILE        children map FILE and read its second page until it is
 *                  not there (another user truncates FILE): SIGBUS
 *
 * Prints "done" and exits 0 if it made every attempt.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static int n, listener = -1, reexec_every, pause_after = -1;
static int user_kill, double_fork, owner_signal, give_conn;
static const char *bus_file;
static uid_t child_uid = (uid_t)-1;
static char **prog, **self_argv;
static int count_index, do_exec;
static volatile sig_atomic_t resumed;

static void on_usr1(int sig)
{
	(void)sig;
	resumed = 1;
}

/* As the -c user, make @pid the owner of a socket and have it signalled. */
static void owner_abort(pid_t pid)
{
	uid_t uid = child_uid == (uid_t)-1 ? 1000 : child_uid;
	pid_t helper = fork();
	int sv[2];

	if (helper < 0)
		die("fork");
	if (helper) {
		waitpid(helper, NULL, 0);
		return;
	}
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		die("setresuid");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    fcntl(sv[0], F_SETOWN, pid) || fcntl(sv[0], F_SETSIG, SIGABRT) ||
	    fcntl(sv[0], F_SETFL, O_ASYNC))
		die("F_SETOWN/F_SETSIG");
	if (write(sv[1], "x", 1) != 1)
		die("write");
	_exit(0);
}

static void *attempts(void *arg)
{
	int i;

	(void)arg;

	for (i = 0; i < n; i++) {
		int conn = -1, status;
		pid_t pid;

		if (i == pause_after) {
			printf("paused\n");
			while (!resumed)
				usleep(10000);
		}
		if (reexec_every && i && i % reexec_every == 0) {
			char left[16];

			snprintf(left, sizeof(left), "%d", n - i);
			self_argv[count_index] = left;
			execv("/proc/self/exe", self_argv);
			die("re-execv");
		}
		if (listener >= 0) {
			char byte;

			conn = accept(listener, NULL, NULL);
			if (conn < 0)
				die("accept");
			if (!give_conn && read(conn, &byte, 1) < 0)
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
			if (child_uid != (uid_t)-1 &&
			    (setresgid(child_uid, child_uid, child_uid) ||
			     setresuid(child_uid, child_uid, child_uid)))
				die("setresuid");
			if (give_conn && conn >= 0 && dup2(conn, STDIN_FILENO) < 0)
				die("dup2");
			if (do_exec) {
				execv(prog[0], prog);
				die("execv");
			}
			if (user_kill || owner_signal) {
				for (;;)
					pause();
			}
			if (bus_file) {
				int fd = open(bus_file, O_RDONLY);
				volatile char *map;

				map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
				if (fd < 0 || map == MAP_FAILED)
					die("mmap");
				for (;;) {
					(void)map[4096];
					usleep(200);
				}
			}
			fault();
			_exit(3);
		}
		if (user_kill) {
			usleep(20000);
			kill(pid, SIGSEGV);
		}
		if (owner_signal) {
			usleep(20000);
			owner_abort(pid);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (double_fork)
			usleep(100000); /* Let the orphaned target crash. */
		if (conn >= 0)
			close(conn);
	}
	printf("done\n");
	exit(0);
}

int main(int argc, char **argv)
{
	int opt, sibling = 0, threaded = 0, farm = 0;
	const char *listen_spec = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	self_argv = argv;
	signal(SIGUSR1, on_usr1);
	while ((opt = getopt(argc, argv, "+ku:sl:n:dr:c:otP:RF:B:")) != -1) {
		switch (opt) {
		case 'r':
			reexec_every = atoi(optarg);
			break;
		case 'c':
			child_uid = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			owner_signal = 1;
			break;
		case 't':
			threaded = 1;
			break;
		case 'P':
			pause_after = atoi(optarg);
			break;
		case 'R':
			give_conn = 1;
			break;
		case 'F':
			farm = atoi(optarg);
			break;
		case 'B':
			bus_file = optarg;
			break;
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
	count_index = optind + 1;
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
	while (farm-- > 0) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			for (;;)
				pause();
		}
	}
	if (listen_spec)
		listener = serve(listen_spec);

	if (threaded) {
		pthread_t thread;

		if (pthread_create(&thread, NULL, attempts, NULL))
			die("pthread_create");
		pthread_exit(NULL);
	}
	attempts(NULL);
	return 0;
}
