/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.c - netlink multicast, plugin stdin and file sources.
 */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define READ_CHUNK	(64 * 1024)
#define NL_BUF		INPUT_NETLINK_BUF
_Static_assert(NL_BUF >= NLMSG_HDRLEN + PARSER_LINE_MAX, "a record the parser takes fits the netlink buffer");
#define NL_BATCH	256		/* messages per input_read() */

struct input {
	enum input_kind kind;
	struct parser *parser;
	int fd;
	char *path;
	bool follow;
	dev_t dev;
	ino_t ino;
	off_t pos;
	uint64_t overruns;
	uint64_t last_overrun_log;
	uint64_t truncated;	/* netlink messages longer than buf: never parsed */
	char *buf;
	size_t buf_size;
};

static struct input *input_alloc(enum input_kind kind, struct parser *p, size_t bufsize)
{
	struct input *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->buf = malloc(bufsize);
	if (!in->buf) {
		free(in);
		return NULL;
	}
	in->buf_size = bufsize;
	in->kind = kind;
	in->parser = p;
	in->fd = -1;
	return in;
}

void input_free(struct input *in)
{
	if (!in)
		return;
	if (in->fd >= 0 && in->kind != INPUT_FD)
		close(in->fd);
	free(in->path);
	free(in->buf);
	free(in);
}

int input_open_netlink(struct parser *p, uint64_t rcvbuf, struct input **ret)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, size, r;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
	if (fd < 0) {
		r = -errno;
		log_error("cannot open NETLINK_AUDIT socket: %s", strerror(errno));
		return r;
	}
	sa.nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		log_error("cannot join the audit multicast group (AUDIT_NLGRP_READLOG): %s%s",
			  strerror(errno), errno == EPERM ? " (CAP_AUDIT_READ is needed)" : "");
		close(fd);
		return r;
	}
	size = rcvbuf > INT32_MAX ? INT32_MAX : (int)rcvbuf;
	/* FORCE needs CAP_NET_ADMIN; otherwise net.core.rmem_max caps it */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	r = input_open_netlink_fd(p, fd, NL_BUF, ret);
	if (r < 0)
		close(fd);
	return r;
}

int input_open_netlink_fd(struct parser *p, int fd, size_t bufsize, struct input **ret)
{
	struct input *in = input_alloc(INPUT_NETLINK, p, bufsize);

	if (!in)
		return -ENOMEM;
	in->fd = fd;
	*ret = in;
	return 0;
}

int input_open_fd(struct parser *p, int fd, struct input **ret)
{
	struct input *in = input_alloc(INPUT_FD, p, READ_CHUNK);

	if (!in)
		return -ENOMEM;
	in->fd = fd;
	*ret = in;
	return 0;
}

int input_open_file(struct parser *p, const char *path, bool follow, struct input **ret)
{
	struct input *in;
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		log_error("cannot open %s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	in = input_alloc(INPUT_FILE, p, READ_CHUNK);
	if (!in || !(in->path = strdup(path))) {
		input_free(in);
		close(fd);
		return -ENOMEM;
	}
	in->fd = fd;
	in->follow = follow;
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	*ret = in;
	return 0;
}

int input_pollfd(const struct input *in)
{
	return in->kind == INPUT_FILE ? -1 : in->fd;
}

uint64_t input_rcvbuf(const struct input *in)
{
	int size = 0;
	socklen_t len = sizeof(size);

	if (in->kind != INPUT_NETLINK || getsockopt(in->fd, SOL_SOCKET, SO_RCVBUF, &size, &len) < 0)
		return 0;
	return (uint64_t)size / 2;	/* the kernel doubles what was set (bookkeeping) */
}

uint64_t input_overruns(const struct input *in)
{
	return in->overruns;
}

uint64_t input_truncated(const struct input *in)
{
	return in->truncated;
}

enum input_kind input_kind(const struct input *in)
{
	return in->kind;
}

static int read_netlink(struct input *in)
{
	int progress = INPUT_AGAIN;

	for (int i = 0; i < NL_BATCH; i++) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		/* MSG_TRUNC: n is the datagram's real length, even when longer than buf */
		ssize_t n = recvfrom(in->fd, in->buf, in->buf_size, MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&from, &fromlen);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			if (errno == ENOBUFS) {
				/* the kernel dropped messages for us */
				in->overruns++;
				if (in->overruns == 1 || now_monotonic_ms() - in->last_overrun_log > 60000) {
					log_warning("audit multicast receive buffer overrun, records were lost (%llu overruns so far); raise netlink_rcvbuf",
						    (unsigned long long)in->overruns);
					in->last_overrun_log = now_monotonic_ms();
				}
				continue;
			}
			return -errno;
		}
		progress = INPUT_PROGRESS;
		if (fromlen != sizeof(from) || from.nl_pid != 0)
			continue;	/* only the kernel speaks on this group */
		if ((size_t)n > in->buf_size) {
			/* cut by the buffer: its records are lost, counted (never half-parsed) */
			if (in->truncated++ == 0)
				log_error("a %zd-byte netlink message was longer than the %zu-byte receive buffer: its records are lost (counted as lost; further ones are only counted)",
					  n, in->buf_size);
			continue;
		}
		/*
		 * n stays signed: audit's nlmsg_len is not padded, so NLMSG_NEXT()
		 * takes n below zero after the last message, which NLMSG_OK() must
		 * see as negative (cast to size_t it walked off the buffer).
		 */
		for (nh = (struct nlmsghdr *)in->buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR ||
			    nh->nlmsg_type == NLMSG_NOOP)
				continue;
			parser_feed_netlink(in->parser, nh->nlmsg_type, NLMSG_DATA(nh),
					    nh->nlmsg_len - NLMSG_HDRLEN);
		}
	}
	return progress;
}

/* Follow mode at EOF: notice truncation (copytruncate) and rotation. */
static void check_rotation(struct input *in)
{
	struct stat st, cur;

	if (fstat(in->fd, &cur) == 0 && cur.st_size < in->pos) {
		log_notice("%s was truncated, reading from the start", in->path);
		lseek(in->fd, 0, SEEK_SET);
		in->pos = 0;
		return;
	}
	if (stat(in->path, &st) == 0 && (st.st_ino != in->ino || st.st_dev != in->dev)) {
		int fd = open(in->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

		if (fd < 0)
			return;
		log_notice("%s was rotated, following the new file", in->path);
		parser_finish(in->parser);
		close(in->fd);
		in->fd = fd;
		in->pos = 0;
		in->ino = st.st_ino;
		in->dev = st.st_dev;
	}
}

int input_read(struct input *in)
{
	ssize_t n;

	if (in->kind == INPUT_NETLINK)
		return read_netlink(in);

	do
		n = read(in->fd, in->buf, in->buf_size);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN)
			return INPUT_AGAIN;
		return -errno;
	}
	if (n == 0) {
		if (in->kind == INPUT_FILE && in->follow) {
			check_rotation(in);
			return INPUT_AGAIN;
		}
		parser_finish(in->parser);
		return INPUT_EOF;
	}
	in->pos += n;
	if (parser_feed(in->parser, in->buf, (size_t)n) < 0)
		return -ENOMEM;
	return INPUT_PROGRESS;
}
