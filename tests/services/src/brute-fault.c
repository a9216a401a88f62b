// SPDX-License-Identifier: GPL-2.0
/*
 * brute-fault.so: a memory-safety bug reachable by a client, put into Debian's own
 * binaries without patching them (LD_PRELOAD, from a systemd drop-in of the service's
 * unit: tests/services/).  A read of a socket that returns a marker makes the process
 * fault: SIGSEGV (SEGV_MAPERR) on a store through a bad pointer in this library's own
 * code, in the real process tree, with the real uids, as a parser bug would.
 *
 * Configuration, read once when the library is loaded (a daemon's master clears its
 * environment for its workers; the workers it forks keep what the constructor read, and a
 * program it executes loads the library again with the environment it was given):
 *
 *   BRUTE_FAULT=PROG:MARKER[,PROG:MARKER...]
 *        a socket read by program PROG (the basename it was executed as, `*` for any)
 *        whose data contains MARKER faults, every time (the attacker's input)
 *   BRUTE_FAULT_BUG=PROG:MARKER:PERIOD_MS
 *        an ordinary bug: a socket read by PROG whose data contains MARKER (part of a
 *        benign request) faults when PERIOD_MS have passed since the last fault of this
 *        bug, counted from the load; the time is shared by the processes forked from the
 *        one that loaded the library (a service's master and its workers), so the service
 *        faults once per period, whichever worker reads the request
 *
 * Interposed: read, readv, recv, recvfrom, recvmsg, recvmmsg and the fortified __read_chk,
 * __recv_chk, __recvfrom_chk (Debian builds with _FORTIFY_SOURCE=2), i.e. what nginx,
 * PHP-FPM, Apache, OpenSSH, Postfix and Dovecot read their clients with.  Only sockets are
 * looked at (S_ISSOCK).  A marker split across reads of one socket is found too (OpenSSH
 * reads the client's identification line one byte at a time): the last bytes read from
 * each descriptor are kept, and a marker that straddles them and the new data counts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_MARKERS 8
#define MAX_MARKER_LEN 64
#define MAX_FD 4096

static char *markers[MAX_MARKERS];
static size_t marker_len[MAX_MARKERS];
static int nmarkers;
static char *bug_marker;
static size_t bug_len;
static long long bug_period_ns;
static volatile long long *bug_last;	/* MAP_SHARED: the master's and its workers' */
/* The last bytes read from each descriptor (a marker split across reads). */
static struct {
	unsigned char len;
	char data[MAX_MARKER_LEN - 1];
} tail[MAX_FD];

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
static ssize_t (*real_read_chk)(int, void *, size_t, size_t);
static ssize_t (*real_recv_chk)(int, void *, size_t, size_t, int);
static ssize_t (*real_recvfrom_chk)(int, void *, size_t, size_t, int, struct sockaddr *,
				    socklen_t *);

/* The wrappers may run before the constructor (another library's constructor reads). */
#define REAL(name, sym) (real_##name ?: resolve_##name(sym))
#define RESOLVER(name) \
	static __typeof__(real_##name) resolve_##name(const char *sym) \
	{ \
		return real_##name = dlsym(RTLD_NEXT, sym); \
	}
RESOLVER(read)
RESOLVER(readv)
RESOLVER(recv)
RESOLVER(recvfrom)
RESOLVER(recvmsg)
RESOLVER(recvmmsg)
RESOLVER(read_chk)
RESOLVER(recv_chk)
RESOLVER(recvfrom_chk)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Does PROG (from the configuration, `len` bytes) name this program? */
static int is_me(const char *prog, size_t len)
{
	const char *me = program_invocation_short_name;

	return (len == 1 && prog[0] == '*') || (strlen(me) == len && !strncmp(me, prog, len));
}

__attribute__((constructor)) static void brute_fault_init(void)
{
	const char *spec = getenv("BRUTE_FAULT"), *bug = getenv("BRUTE_FAULT_BUG");

	real_read = dlsym(RTLD_NEXT, "read");
	real_readv = dlsym(RTLD_NEXT, "readv");
	real_recv = dlsym(RTLD_NEXT, "recv");
	real_recvfrom = dlsym(RTLD_NEXT, "recvfrom");
	real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
	real_recvmmsg = dlsym(RTLD_NEXT, "recvmmsg");
	real_read_chk = dlsym(RTLD_NEXT, "__read_chk");
	real_recv_chk = dlsym(RTLD_NEXT, "__recv_chk");
	real_recvfrom_chk = dlsym(RTLD_NEXT, "__recvfrom_chk");

	while (spec && *spec && nmarkers < MAX_MARKERS) {
		const char *end = strchr(spec, ','), *colon;
		size_t n = end ? (size_t)(end - spec) : strlen(spec);

		colon = memchr(spec, ':', n);
		if (colon && colon > spec && (size_t)(colon - spec) + 1 < n &&
		    is_me(spec, colon - spec)) {
			markers[nmarkers] = strndup(colon + 1, n - (colon - spec) - 1);
			if (markers[nmarkers] && strlen(markers[nmarkers]) < MAX_MARKER_LEN) {
				marker_len[nmarkers] = strlen(markers[nmarkers]);
				nmarkers++;
			}
		}
		spec = end ? end + 1 : NULL;
	}
	if (bug && *bug) {
		const char *c1 = strchr(bug, ':'), *c2 = c1 ? strrchr(bug, ':') : NULL;

		if (c1 && c2 > c1 + 1 && is_me(bug, c1 - bug) && atol(c2 + 1) > 0) {
			void *page = mmap(NULL, sizeof(long long), PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

			bug_marker = strndup(c1 + 1, c2 - c1 - 1);
			if (page != MAP_FAILED && bug_marker && strlen(bug_marker) < MAX_MARKER_LEN) {
				bug_len = strlen(bug_marker);
				bug_period_ns = atol(c2 + 1) * 1000000LL;
				bug_last = page;
				*bug_last = now_ns();
			}
		}
	}
}

/*
 * The bug: a "length" taken from the input is used as a pointer.  Not inlined, so that
 * the faulting instruction is this library's, as a parser's would be its own binary's.
 */
static char *volatile field_at = (char *)16;

__attribute__((noinline)) static void parse_field(const char *data)
{
	char *field = field_at;

	*field = data[0];
}

static int is_socket(int fd)
{
	struct stat st;
	int saved = errno, r = !fstat(fd, &st) && S_ISSOCK(st.st_mode);

	errno = saved;
	return r;
}

/* Does MARKER appear in BUF, or across the end of what FD gave before and BUF? */
static int found(int fd, const char *buf, size_t len, const char *marker, size_t mlen)
{
	char joint[2 * MAX_MARKER_LEN];
	size_t k, head;

	if (memmem(buf, len, marker, mlen))
		return 1;
	if (fd < 0 || fd >= MAX_FD || !tail[fd].len)
		return 0;
	k = tail[fd].len;
	head = len < mlen - 1 ? len : mlen - 1;
	memcpy(joint, tail[fd].data, k);
	memcpy(joint + k, buf, head);
	return memmem(joint, k + head, marker, mlen) != NULL;
}

static void remember(int fd, const char *buf, size_t len)
{
	size_t keep = MAX_MARKER_LEN - 1, k;

	if (fd < 0 || fd >= MAX_FD)
		return;
	if (len >= keep) {
		memcpy(tail[fd].data, buf + len - keep, keep);
		tail[fd].len = keep;
		return;
	}
	k = tail[fd].len + len > keep ? keep - len : tail[fd].len;
	memmove(tail[fd].data, tail[fd].data + tail[fd].len - k, k);
	memcpy(tail[fd].data + k, buf, len);
	tail[fd].len = k + len;
}

static void look(int fd, const void *buf, size_t len)
{
	if ((!nmarkers && !bug_last) || !len || !is_socket(fd))
		return;
	for (int i = 0; i < nmarkers; i++)
		if (found(fd, buf, len, markers[i], marker_len[i]))
			parse_field(buf);
	if (bug_last && found(fd, buf, len, bug_marker, bug_len)) {
		long long t = now_ns(), last = *bug_last;

		if (t - last >= bug_period_ns &&
		    __atomic_compare_exchange_n(bug_last, &last, t, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			parse_field(buf);
	}
	remember(fd, buf, len);
}

static void look_iov(int fd, const struct iovec *iov, size_t n, size_t len)
{
	for (size_t i = 0; i < n && len; i++) {
		size_t k = iov[i].iov_len < len ? iov[i].iov_len : len;

		look(fd, iov[i].iov_base, k);
		len -= k;
	}
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t n = REAL(read, "read")(fd, buf, count);

	if (n > 0)
		look(fd, buf, n);
	return n;
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	ssize_t n = REAL(read_chk, "__read_chk")(fd, buf, count, buflen);

	if (n > 0)
		look(fd, buf, n);
	return n;
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	ssize_t n = REAL(readv, "readv")(fd, iov, iovcnt);

	if (n > 0)
		look_iov(fd, iov, iovcnt, n);
	return n;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t n = REAL(recv, "recv")(fd, buf, len, flags);

	if (n > 0 && !(flags & MSG_PEEK))
		look(fd, buf, n);
	return n;
}

ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	ssize_t n = REAL(recv_chk, "__recv_chk")(fd, buf, len, buflen, flags);

	if (n > 0 && !(flags & MSG_PEEK))
		look(fd, buf, n);
	return n;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
		 socklen_t *alen)
{
	ssize_t n = REAL(recvfrom, "recvfrom")(fd, buf, len, flags, addr, alen);

	if (n > 0 && !(flags & MSG_PEEK))
		look(fd, buf, n);
	return n;
}

ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
		       struct sockaddr *addr, socklen_t *alen)
{
	ssize_t n = REAL(recvfrom_chk, "__recvfrom_chk")(fd, buf, len, buflen, flags, addr, alen);

	if (n > 0 && !(flags & MSG_PEEK))
		look(fd, buf, n);
	return n;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t n = REAL(recvmsg, "recvmsg")(fd, msg, flags);

	if (n > 0 && !(flags & MSG_PEEK))
		look_iov(fd, msg->msg_iov, msg->msg_iovlen, n);
	return n;
}

int recvmmsg(int fd, struct mmsghdr *msgs, unsigned int vlen, int flags, struct timespec *to)
{
	int n = REAL(recvmmsg, "recvmmsg")(fd, msgs, vlen, flags, to);

	for (int i = 0; i < n && !(flags & MSG_PEEK); i++)
		look_iov(fd, msgs[i].msg_hdr.msg_iov, msgs[i].msg_hdr.msg_iovlen,
			 msgs[i].msg_len);
	return n;
}
