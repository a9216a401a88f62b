// SPDX-License-Identifier: GPL-2.0
/*
 * A forking service of the Brute selftests, with a crash-only bug.
 *
 * Usage: service [options] tcp ADDR:PORT | unix PATH [-- PROG ARGS...]
 *   Accepts connections; a child per connection reads one request line:
 *   "crash" makes it fault (SIGSEGV), anything else is answered "ok".
 *   With PROG, each child executes PROG ARGS instead, the connection as
 *   its standard input and output (inetd style): PROG answers.
 *   -n PATH  enter the network namespace at PATH first
 *   -U UID   become UID first, then root of a user namespace of its own
 *            (UID its only user) with a network namespace of its own: a
 *            service in namespaces an unprivileged user made
 *   -u UID   each child sets its real, effective and saved user ID to UID
 *            before it reads (a privilege separated worker)
 *   -s       read the request with splice() through a pipe, not read()
 *   -p FILE  write the service's pid to FILE once it listens
 *   -1       exit after one connection was handled (for a supervisor test)
 *
 * Prints "listening" once it listens.  Runs until killed.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* A real fault, SIGSEGV with SEGV_MAPERR, that the compiler cannot elide. */
static void fault(void)
{
	int *p = (int *)strtoul("8", NULL, 0);

	*p = 0;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

/* Become @uid, then root of namespaces of its own. */
static void own_namespaces(uid_t uid)
{
	char map[64];

	/* Dumpable again after the ID change: /proc/self is its own. */
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid) || prctl(PR_SET_DUMPABLE, 1))
		die("setresuid");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		die("unshare");
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)uid);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/gid_map", map);
}

static int listen_tcp(const char *spec)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	const char *colon = strchr(spec, ':');
	char host[64];
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
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 128))
		die("bind/listen");
	return fd;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path) >=
	    (int)sizeof(addr.sun_path))
		die("path");
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    chmod(path, 0666) || listen(fd, 128))
		die("bind/listen");
	return fd;
}

/* One request line, by read() or by splice() through a pipe. */
static ssize_t read_request(int conn, char *buf, size_t len, int use_splice)
{
	ssize_t n;
	int p[2];

	if (!use_splice)
		return read(conn, buf, len);
	if (pipe(p))
		die("pipe");
	n = splice(conn, NULL, p[1], NULL, len, 0);
	if (n > 0)
		n = read(p[0], buf, n);
	close(p[0]);
	close(p[1]);
	return n;
}

static void handle(int conn, uid_t uid, char *const *prog, int use_splice)
{
	char buf[64] = "";
	ssize_t n;

	if (uid != (uid_t)-1 &&
	    (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
		die("setresuid");
	if (prog) {
		if (dup2(conn, STDIN_FILENO) < 0 || dup2(conn, STDOUT_FILENO) < 0)
			die("dup2");
		execv(prog[0], prog);
		die("execv");
	}
	n = read_request(conn, buf, sizeof(buf) - 1, use_splice);
	if (n <= 0)
		_exit(1);
	if (!strncmp(buf, "crash", 5))
		fault();
	if (write(conn, "ok\n", 3) != 3)
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL;
	char *const *prog = NULL;
	uid_t uid = (uid_t)-1;
	int opt, fd, use_splice = 0, once = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGCHLD, SIG_IGN);
	while ((opt = getopt(argc, argv, "+n:u:U:sp:1")) != -1) {
		switch (opt) {
		case 'n': {
			int ns = open(optarg, O_RDONLY | O_CLOEXEC);

			if (ns < 0 || setns(ns, CLONE_NEWNET))
				die("setns");
			close(ns);
			break;
		}
		case 'u':
			uid = strtoul(optarg, NULL, 10);
			break;
		case 'U':
			own_namespaces(strtoul(optarg, NULL, 10));
			break;
		case 's':
			use_splice = 1;
			break;
		case 'p':
			pidfile = optarg;
			break;
		case '1':
			once = 1;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind < 2)
		return 2;
	if (argc - optind > 2) {
		if (strcmp(argv[optind + 2], "--") || argc - optind < 4)
			return 2;
		prog = &argv[optind + 3];
	}
	if (!strcmp(argv[optind], "tcp"))
		fd = listen_tcp(argv[optind + 1]);
	else if (!strcmp(argv[optind], "unix"))
		fd = listen_unix(argv[optind + 1]);
	else
		return 2;
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (!f)
			die(pidfile);
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
	printf("listening\n");
	for (;;) {
		int conn = accept(fd, NULL, NULL);
		pid_t pid;

		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(fd);
			handle(conn, uid, prog, use_splice);
		}
		close(conn);
		if (once) {
			waitpid(pid, NULL, 0);
			return 0;
		}
	}
}
