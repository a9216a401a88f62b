// SPDX-License-Identifier: GPL-2.0
/*
 * A forking service of the Brute selftests, with a crash-only bug.
 *
 * Usage: service [options] tcp ADDR:PORT | unix PATH [-- PROG ARGS...]
 *        service [options] udp ADDR:PORT | sctp ADDR:PORT | packet IFNAME
 *        service cgi
 *   Accepts connections; a child per connection reads one request line:
 *   "crash" makes it fault (SIGSEGV), "bus" makes it touch a page of a
 *   mapped file of another user (uid 4244) past its end (SIGBUS, as a
 *   truncation by that user would), "bus-own" the same with a file of its
 *   own user, only it can write; anything else is answered "ok".
 *   Over udp and sctp (one-to-many), the service reads each datagram and
 *   forks a child that handles it, answering to its sender.  Over packet,
 *   it reads the IPv4 packets that reach IFNAME (a packet socket bound to
 *   it) and forks a child per packet, which faults if the packet holds
 *   "crash" and answers nothing.  "cgi" reads
 *   one request line on its standard input and handles it the same,
 *   answering on its standard output (a CGI program).
 *   With PROG, each child executes PROG ARGS instead, the connection as
 *   its standard input and output (inetd style): PROG answers.
 *   -n PATH  enter the network namespace at PATH first
 *   -U UID   become UID first, then root of a user namespace of its own
 *            (UID its only user) with a network namespace of its own: a
 *            service in namespaces an unprivileged user made
 *   -u UID   each child sets its real, effective and saved user ID to UID
 *            before it reads (a privilege separated worker)
 *   -s       read the request with splice() through a pipe, not read()
 *   -r HOW   read the request with HOW: read (the default), splice (-s),
 *            readv, recv, uring-read or uring-recv (an io_uring read or
 *            receive, done by the child itself)
 *   -p FILE  write the service's pid to FILE once it listens
 *   -1       exit after one connection was handled (for a supervisor test)
 *   -M       listen with MPTCP (a client may choose MPTCP or TCP)
 *   -k       a child serves requests until its client closes the
 *            connection (keep-alive), not one
 *   -P COUNT listen on COUNT ports, PORT and the ones after it (tcp): one
 *            image behind several ports (nginx's 80 and 443)
 *   -R       on SIGHUP, execute itself again with the listening socket (a
 *            reload that starts a new image, as php-fpm's and sshd's do)
 *   -F SRC   a request "frame" makes the child read a line from another
 *            source, and fault if that line is "crash" (else answer):
 *            udp:PORT (a datagram to that port of the service's), uring:PORT
 *            (the same datagram, read by an io_uring worker thread),
 *            fifo:PATH (a line of a named pipe), tcp:ADDR:PORT (a connection the
 *            child makes to an upstream server)
 *   -H HOW   a child's handler catches SIGSEGV and SIGBUS: "exit" ends the
 *            process from the handler with exit(0) (ProFTPD's sessions),
 *            "panic" returns into code that reports and exits with status
 *            2 (Go's runtime), "return" makes the faulting page accessible
 *            and returns (a JVM's implicit checks: the request is then
 *            answered), "longjmp" siglongjmp()s back to the request loop,
 *            which answers and goes on
 *   -C PROG  each child executes PROG cgi with the request on a pipe as
 *            its standard input, and sends back what PROG wrote (CGI)
 *
 * Prints "listening" once it listens.  Runs until killed.  A fork that
 * fails with EAGAIN (Brute's backstop holds the service) closes the
 * connection unanswered, and the service goes on.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ucontext.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/io_uring.h>
#include <net/if.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

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

/*
 * Touch a page of a mapped file past its end: SIGBUS (BUS_ADRERR).  The
 * file is of user @owner, writable by that user only.
 */
static void bus_past_end(uid_t owner)
{
	char path[64];
	char *map;
	int fd;

	snprintf(path, sizeof(path), "/tmp/brute_bus.%d", (int)getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 8192))
		die(path);
	if (owner != geteuid() && fchown(fd, owner, owner))
		die("fchown");
	map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || ftruncate(fd, 0))
		die("mmap");
	unlink(path);
	/* An atomic access: the compiler keeps it. */
	(void)__atomic_load_n(map + 4096, __ATOMIC_RELAXED);
}

/* -H: how a child's handler deals with a fault. */
static const char *on_fault_how;
static sigjmp_buf recover;
static char *guard;
static char panic_stack[65536];

static void panic_exit(void)
{
	static const char msg[] = "panic: runtime error: invalid memory address\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	switch (on_fault_how[0]) {
	case 'e':
		exit(0);
	case 'p':
		/* Return into a function that panics, on a stack of its own. */
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)panic_exit;
		uc->uc_mcontext.gregs[REG_RSP] =
			((greg_t)(panic_stack + sizeof(panic_stack)) & ~15L) - 8;
		return;
	case 'r':
		if (mprotect(guard, 4096, PROT_READ | PROT_WRITE))
			_exit(3);
		return;
	default:
		siglongjmp(recover, 1);
	}
}

static void catch_faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault,
				.sa_flags = SA_SIGINFO };

	if (!on_fault_how)
		return;
	guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL) ||
	    sigaction(SIGBUS, &sa, NULL))
		die("sigaction");
}

/* A "crash" request: the fault, on the guard page if a handler returns. */
static void crash(void)
{
	if (on_fault_how && on_fault_how[0] == 'r')
		__atomic_store_n((int *)guard, 1, __ATOMIC_RELAXED);
	else
		fault();
}

/* What a request makes the service do, but answer it. */
static void request(const char *buf)
{
	if (!strncmp(buf, "crash", 5))
		crash();
	if (!strncmp(buf, "bus-own", 7))
		bus_past_end(geteuid());
	else if (!strncmp(buf, "bus", 3))
		bus_past_end(4244);
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

static int use_mptcp, keepalive;

/* The other source of -F: its kind, and the datagram socket if any. */
static const char *frame_kind, *frame_arg;
static int frame_udp = -1;

/* ADDR:PORT (IPv4), the port moved by @offset. */
static struct sockaddr_in inet_addr_of(const char *spec, int offset)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	const char *colon = strchr(spec, ':');
	char host[64];

	if (!colon || colon - spec >= (int)sizeof(host))
		die("address");
	memcpy(host, spec, colon - spec);
	host[colon - spec] = '\0';
	addr.sin_port = htons(atoi(colon + 1) + offset);
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1)
		die("inet_pton");
	return addr;
}

static int listen_tcp(const char *spec, int offset)
{
	struct sockaddr_in addr = inet_addr_of(spec, offset);
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, use_mptcp ? IPPROTO_MPTCP : 0);
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
	mode_t mask;
	int fd;

	if (snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path) >=
	    (int)sizeof(addr.sun_path))
		die("path");
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	/*
	 * Created 0666 by bind() itself: bound with the umask's mode and
	 * then chmod()ed, a restarted service refused another user's proxy
	 * (EACCES, counted as a refusal) in between.
	 */
	mask = umask(0);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
		die("bind");
	umask(mask);
	if (listen(fd, 128))
		die("listen");
	return fd;
}

/*
 * One read or receive (@opcode) through io_uring: by the caller, or with
 * IOSQE_ASYNC by an io_uring worker thread.
 */
static ssize_t uring_io(int fd, char *buf, size_t len, int opcode, int flags)
{
	struct io_uring_params p = { 0 };
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq, *cq;
	ssize_t res = -1;
	int ring;

	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		die("io_uring_setup");
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(*cqes),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		die("mmap");
	sq_tail = sq + p.sq_off.tail;
	sq_mask = sq + p.sq_off.ring_mask;
	sq_array = sq + p.sq_off.array;
	cq_head = cq + p.cq_off.head;
	cq_tail = cq + p.cq_off.tail;
	cq_mask = cq + p.cq_off.ring_mask;
	cqes = cq + p.cq_off.cqes;
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = opcode;
	sqes[0].fd = fd;
	sqes[0].addr = (unsigned long)buf;
	sqes[0].len = len;
	sqes[0].flags = flags;
	sq_array[*sq_tail & *sq_mask] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		die("io_uring_enter");
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) != *cq_head)
		res = cqes[*cq_head & *cq_mask].res;
	munmap(sqes, p.sq_entries * sizeof(*sqes));
	munmap(cq, p.cq_off.cqes + p.cq_entries * sizeof(*cqes));
	munmap(sq, p.sq_off.array + p.sq_entries * sizeof(unsigned int));
	close(ring);
	return res;
}

/* One request line, by the system call -r chose. */
static ssize_t read_request(int conn, char *buf, size_t len, const char *how)
{
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 1 },
		{ .iov_base = buf + 1, .iov_len = len - 1 },
	};
	ssize_t n;
	int p[2];

	if (!strcmp(how, "read"))
		return read(conn, buf, len);
	if (!strcmp(how, "readv"))
		return readv(conn, iov, 2);
	if (!strcmp(how, "recv"))
		return recv(conn, buf, len, 0);
	if (!strcmp(how, "uring-read"))
		return uring_io(conn, buf, len, IORING_OP_READ, 0);
	if (!strcmp(how, "uring-recv"))
		return uring_io(conn, buf, len, IORING_OP_RECV, 0);
	if (pipe(p))
		die("pipe");
	n = splice(conn, NULL, p[1], NULL, len, 0);
	if (n > 0)
		n = read(p[0], buf, n);
	close(p[0]);
	close(p[1]);
	return n;
}

/* Connect to the upstream ADDR:PORT of -F tcp: and read its line. */
static ssize_t upstream_read(const char *spec, char *buf, size_t len)
{
	struct sockaddr_in addr = inet_addr_of(spec, 0);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		die("upstream");
	return read(fd, buf, len);
}

/* The other source of -F, read after the request: its line. */
static void read_frame(char *buf, size_t len)
{
	ssize_t n = -1;
	int fd;

	if (!strcmp(frame_kind, "udp")) {
		n = recv(frame_udp, buf, len, 0);
	} else if (!strcmp(frame_kind, "uring")) {
		n = uring_io(frame_udp, buf, len, IORING_OP_RECV, IOSQE_ASYNC);
	} else if (!strcmp(frame_kind, "fifo")) {
		/*
		 * One line, a byte at a time: the next child reads the next.
		 * No writer is the end (not a wait for one): nothing read.
		 */
		fd = open(frame_arg, O_RDONLY | O_NONBLOCK);
		if (fd < 0 || fcntl(fd, F_SETFL, 0) < 0)
			die(frame_arg);
		for (n = 0; n < (ssize_t)len - 1; n++)
			if (read(fd, buf + n, 1) != 1 || buf[n] == '\n')
				break;
	} else if (!strcmp(frame_kind, "tcp")) {
		n = upstream_read(frame_arg, buf, len);
	}
	if (n <= 0)
		_exit(1);
	buf[n < (ssize_t)len ? n : (ssize_t)len - 1] = '\0';
}

static const char *cgi;

/* -C: the request to a CGI program on a pipe, its answer back. */
static void run_cgi(int conn, const char *buf, size_t len)
{
	int in[2], out[2];
	char reply[64];
	ssize_t n;
	pid_t pid;

	if (pipe(in) || pipe(out))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (dup2(in[0], STDIN_FILENO) < 0 ||
		    dup2(out[1], STDOUT_FILENO) < 0)
			die("dup2");
		close(in[1]);
		close(out[0]);
		close(conn);
		execl(cgi, cgi, "cgi", (char *)NULL);
		die("execl");
	}
	close(in[0]);
	close(out[1]);
	if (write(in[1], buf, len) != (ssize_t)len)
		_exit(1);
	close(in[1]);
	n = read(out[0], reply, sizeof(reply));
	waitpid(pid, NULL, 0);
	if (n > 0 && write(conn, reply, n) != n)
		_exit(1);
	_exit(0);
}

static void handle(int conn, uid_t uid, char *const *prog, const char *how)
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
	catch_faults();
	do {
		/* -H longjmp: back here from the handler, answered. */
		if (on_fault_how && sigsetjmp(recover, 1)) {
			if (write(conn, "ok\n", 3) != 3)
				_exit(1);
			continue;
		}
		n = read_request(conn, buf, sizeof(buf) - 1, how);
		if (n <= 0)
			_exit(keepalive ? 0 : 1);
		if (cgi)
			run_cgi(conn, buf, n);
		request(buf);
		if (frame_kind && !strncmp(buf, "frame", 5)) {
			char other[64] = "";

			read_frame(other, sizeof(other));
			if (!strncmp(other, "crash", 5))
				crash();
		}
		if (write(conn, "ok\n", 3) != 3)
			_exit(1);
		memset(buf, 0, sizeof(buf));
	} while (keepalive);
	_exit(0);
}

/* udp or sctp (one-to-many): a socket bound to ADDR:PORT. */
static int listen_dgram(const char *kind, const char *spec)
{
	struct sockaddr_in addr = inet_addr_of(spec, 0);
	const int sctp = !strcmp(kind, "sctp");
	int fd;

	fd = sctp ? socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP) :
		    socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (sctp && listen(fd, 16)))
		die("bind/listen");
	return fd;
}

/*
 * A child for one datagram or packet: true in the child.  The service goes
 * on without one when Brute's backstop holds it (fork() fails with EAGAIN).
 */
static int forked_child(void)
{
	pid_t pid = fork();

	if (pid < 0 && errno != EAGAIN)
		die("fork");
	return pid == 0;
}

/* Each datagram read by the service, handled by a child of its own. */
static void serve_dgram(int fd)
{
	struct sockaddr_storage from;
	socklen_t len;
	char buf[64];
	ssize_t n;

	for (;;) {
		len = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf) - 1, 0,
			     (struct sockaddr *)&from, &len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recvfrom");
		buf[n] = '\0';
		if (!forked_child())
			continue;
		catch_faults();
		request(buf);
		if (sendto(fd, "ok\n", 3, 0, (struct sockaddr *)&from, len) != 3)
			_exit(1);
		_exit(0);
	}
}

/* packet IFNAME: a packet socket bound to IFNAME's IPv4 packets. */
static int listen_packet(const char *ifname)
{
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = if_nametoindex(ifname),
	};
	int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));

	if (fd < 0 || !ll.sll_ifindex ||
	    bind(fd, (struct sockaddr *)&ll, sizeof(ll)))
		die("packet");
	return fd;
}

/* Each packet read by the service, looked at by a child of its own. */
static void serve_packets(int fd)
{
	char buf[2048];
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recv");
		if (!forked_child())
			continue;
		if (memmem(buf, n, "crash", 5))
			crash();
		_exit(0);
	}
}

/* service cgi: one request on standard input, answered on the output. */
static int cgi_main(void)
{
	char buf[64] = "";

	if (read(STDIN_FILENO, buf, sizeof(buf) - 1) <= 0)
		return 1;
	request(buf);
	return write(STDOUT_FILENO, "ok\n", 3) == 3 ? 0 : 1;
}

static volatile sig_atomic_t reload;

static void on_hup(int sig)
{
	(void)sig;
	reload = 1;
}

/* Execute this program again, keeping the listening socket @fd. */
static void reexec(char **argv, int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	if (setenv("BRUTE_SERVICE_FD", num, 1) ||
	    fcntl(fd, F_SETFD, 0))
		die("reexec");
	execv("/proc/self/exe", argv);
	die("execv");
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL, *inherited;
	char *const *prog = NULL;
	uid_t uid = (uid_t)-1;
	static const char *const hows[] = { "read", "splice", "readv", "recv",
					    "uring-read", "uring-recv" };
	struct pollfd fds[8];
	int opt, fd, once = 0, reexec_on_hup = 0, nfds = 1, dgram = 0;
	int packets = 0;
	const char *how = "read";
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGCHLD, SIG_IGN);
	inherited = getenv("BRUTE_SERVICE_FD");
	if (argc == 2 && !strcmp(argv[1], "cgi"))
		return cgi_main();
	while ((opt = getopt(argc, argv, "+n:u:U:sr:p:1MkF:RH:C:P:")) != -1) {
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
			how = "splice";
			break;
		case 'r':
			for (i = 0; i < ARRAY_SIZE(hows); i++)
				if (!strcmp(optarg, hows[i]))
					break;
			if (i == ARRAY_SIZE(hows))
				return 2;
			how = hows[i];
			break;
		case 'p':
			pidfile = optarg;
			break;
		case '1':
			once = 1;
			break;
		case 'R':
			reexec_on_hup = 1;
			break;
		case 'P':
			nfds = atoi(optarg);
			if (nfds < 1 || nfds > (int)ARRAY_SIZE(fds))
				return 2;
			break;
		case 'M':
			use_mptcp = 1;
			break;
		case 'H':
			if (strcmp(optarg, "exit") && strcmp(optarg, "panic") &&
			    strcmp(optarg, "return") && strcmp(optarg, "longjmp"))
				return 2;
			on_fault_how = optarg;
			break;
		case 'C':
			cgi = optarg;
			break;
		case 'k':
			keepalive = 1;
			break;
		case 'F': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				return 2;
			*colon = '\0';
			frame_kind = optarg;
			frame_arg = colon + 1;
			break;
		}
		default:
			return 2;
		}
	}
	if (frame_kind && (!strcmp(frame_kind, "udp") ||
			   !strcmp(frame_kind, "uring"))) {
		struct sockaddr_in addr = {
			.sin_family = AF_INET,
			.sin_port = htons(atoi(frame_arg)),
		};

		frame_udp = socket(AF_INET, SOCK_DGRAM, 0);
		if (frame_udp < 0 ||
		    bind(frame_udp, (struct sockaddr *)&addr, sizeof(addr)))
			die("udp");
	}
	if (argc - optind < 2)
		return 2;
	if (argc - optind > 2) {
		if (strcmp(argv[optind + 2], "--") || argc - optind < 4)
			return 2;
		prog = &argv[optind + 3];
	}
	if (reexec_on_hup) {
		struct sigaction sa = { .sa_handler = on_hup };

		/* No SA_RESTART: accept() returns, the loop executes. */
		if (sigaction(SIGHUP, &sa, NULL))
			die("sigaction");
	}
	if (inherited) {
		fd = atoi(inherited);
		unsetenv("BRUTE_SERVICE_FD");
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	} else if (!strcmp(argv[optind], "tcp")) {
		for (i = 0; i < (size_t)nfds; i++) {
			fds[i].fd = listen_tcp(argv[optind + 1], i);
			fds[i].events = POLLIN;
		}
		fd = fds[0].fd;
	} else if (!strcmp(argv[optind], "unix")) {
		fd = listen_unix(argv[optind + 1]);
	} else if (!strcmp(argv[optind], "udp") ||
		   !strcmp(argv[optind], "sctp")) {
		fd = listen_dgram(argv[optind], argv[optind + 1]);
		dgram = 1;
	} else if (!strcmp(argv[optind], "packet")) {
		fd = listen_packet(argv[optind + 1]);
		packets = 1;
	} else {
		return 2;
	}
	if (pidfile && !inherited) {
		FILE *f = fopen(pidfile, "w");

		if (!f)
			die(pidfile);
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
	if (!inherited)
		printf("listening\n");
	if (dgram)
		serve_dgram(fd);
	if (packets)
		serve_packets(fd);
	for (;;) {
		int conn;
		pid_t pid;

		if (nfds > 1) {
			if (poll(fds, nfds, -1) < 0) {
				if (errno == EINTR)
					continue;
				die("poll");
			}
			for (i = 0; i < (size_t)nfds; i++)
				if (fds[i].revents & POLLIN)
					fd = fds[i].fd;
		}
		conn = accept(fd, NULL, NULL);

		if (reload) {
			if (conn >= 0)
				close(conn);
			reexec(argv, fd);
		}
		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		pid = fork();
		if (pid < 0 && errno == EAGAIN) {
			close(conn);
			continue;
		}
		if (pid < 0)
			die("fork");
		if (!pid) {
			for (i = 0; i < (size_t)nfds; i++)
				close(nfds > 1 ? fds[i].fd : fd);
			handle(conn, uid, prog, how);
		}
		close(conn);
		if (once) {
			waitpid(pid, NULL, 0);
			return 0;
		}
	}
}
