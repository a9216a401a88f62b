/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.h - where audit records come from: the kernel's audit multicast
 * group (NETLINK_AUDIT, AUDIT_NLGRP_READLOG), auditd's plugin protocol on
 * stdin, or an audit.log file (optionally followed as it grows).
 */
#ifndef BRUTE_INPUT_H
#define BRUTE_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "parser.h"

enum input_kind { INPUT_NETLINK, INPUT_FD, INPUT_FILE };

enum {
	INPUT_AGAIN = 0,	/* nothing to read now */
	INPUT_PROGRESS = 1,	/* data was processed */
	INPUT_EOF = 2,		/* end of input (not in follow mode) */
};

/*
 * The netlink read buffer.  A datagram is one audit record: the kernel's
 * are not bound by MAX_AUDIT_MESSAGE_LENGTH (userspace's), and a Brute
 * record with two hex-encoded paths of PATH_MAX and a cgroup= passes
 * 16 KiB.  It holds the longest line the parser takes (PARSER_LINE_MAX),
 * the header with it; a longer one is counted as truncated.
 */
#define INPUT_NETLINK_BUF (64 * 1024)

struct input;

int input_open_netlink(struct parser *p, uint64_t rcvbuf, struct input **ret);
/* An already set up netlink socket, read with a buffer of bufsize bytes (tests). */
int input_open_netlink_fd(struct parser *p, int fd, size_t bufsize, struct input **ret);
int input_open_fd(struct parser *p, int fd, struct input **ret);
int input_open_file(struct parser *p, const char *path, bool follow, struct input **ret);
void input_free(struct input *in);

/* fd to poll for POLLIN, or -1 for a file (read until INPUT_AGAIN/EOF). */
int input_pollfd(const struct input *in);
/* Read and process one batch.  INPUT_*, or a negative errno. */
int input_read(struct input *in);
/* Netlink receive-buffer overruns (ENOBUFS): records lost in the kernel. */
uint64_t input_overruns(const struct input *in);
/* Netlink messages longer than the read buffer (MSG_TRUNC): their records are lost. */
uint64_t input_truncated(const struct input *in);
enum input_kind input_kind(const struct input *in);
/* Netlink: the receive buffer the socket got (bytes, as set), 0 for other inputs. */
uint64_t input_rcvbuf(const struct input *in);

#endif
