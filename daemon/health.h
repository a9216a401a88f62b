/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * health.h - the conditions that make brute-reportd useless without it
 * failing: no Brute in the kernel, audit disabled (Brute then emits
 * nothing), Brute in mode 0 (off), a netlink receive buffer capped far
 * below netlink_rcvbuf (net.core.rmem_max; SO_RCVBUFFORCE needs
 * CAP_NET_ADMIN).  Probed at start and every HEALTH_POLL_MS; one log
 * line per condition when it appears, changes or clears.
 */
#ifndef BRUTE_HEALTH_H
#define BRUTE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEALTH_POLL_MS 30000
#define HEALTH_AUDIT_TIMEOUT_MS 1000	/* the most AUDIT_GET may take (the event loop waits) */

enum health_brute { BRUTE_UNKNOWN, BRUTE_ACTIVE, BRUTE_ABSENT };
/* audit: what AUDIT_GET says; unknown without CAP_AUDIT_CONTROL */
enum health_audit { AUDIT_UNKNOWN, AUDIT_ENABLED, AUDIT_DISABLED };

struct health {
	enum health_brute brute;
	enum health_audit audit;
	int audit_err;		/* errno of the AUDIT_GET query when unknown */
	int mode;		/* /proc/sys/kernel/brute/mode, -1 unknown */
	uint64_t rcvbuf, rcvbuf_want;	/* bytes; 0: not a netlink input */
};

/*
 * Probe under root ("" on a live system; a directory with sys/ and proc/
 * in tests).  audit: the result of health_query_audit() (passed in so
 * tests need no audit subsystem).  rcvbuf: the socket's effective buffer.
 */
void health_probe(const char *root, enum health_audit audit, int audit_err,
		  uint64_t rcvbuf, uint64_t rcvbuf_want, struct health *h);
/* AUDIT_GET with libaudit; *err set when AUDIT_UNKNOWN (ETIMEDOUT: no answer in
 * HEALTH_AUDIT_TIMEOUT_MS). */
enum health_audit health_query_audit(int *err);
/* Its second half: wait for the reply on fd, for at most timeout_ms. */
enum health_audit health_audit_reply(int fd, int timeout_ms, int *err);
/* A buffer of less than half of what was asked for counts as capped. */
bool health_rcvbuf_capped(const struct health *h);
/* Number of conditions that make the daemon useless or lossy. */
unsigned health_problems(const struct health *h);
/*
 * Log what changed between old (NULL: the first probe) and now: one
 * line per condition; a clear one is logged only when it was bad before
 * (or, at start, as one summary line when everything is fine).
 */
void health_log_changes(const struct health *old, const struct health *now);
/* "brute active, audit enabled, mode 2" style, for STATUS= and the state file. */
void health_summary(const struct health *h, char *buf, size_t len);

#endif
