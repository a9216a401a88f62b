/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * health.c - is Brute there, is audit on, is Brute on, is nothing dropped.
 */
#include "health.h"

#include <errno.h>
#include <fcntl.h>
#include <libaudit.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define LSM_FILE	"/sys/kernel/security/lsm"
#define BRUTE_DIR	"/sys/kernel/security/brute"
#define MODE_FILE	"/proc/sys/kernel/brute/mode"

static int read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, word, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

void health_probe(const char *root, enum health_audit audit, int audit_err,
		  uint64_t rcvbuf, uint64_t rcvbuf_want, struct health *h)
{
	char buf[512], path[4096];
	uint64_t v;

	memset(h, 0, sizeof(*h));
	h->audit = audit;
	h->audit_err = audit_err;
	h->rcvbuf = rcvbuf;
	h->rcvbuf_want = rcvbuf_want;
	/* the LSM list is the truth; without securityfs, Brute's sysctl directory tells */
	if (read_line(root, LSM_FILE, buf, sizeof(buf)) == 0) {
		h->brute = list_has(buf, "brute") ? BRUTE_ACTIVE : BRUTE_ABSENT;
	} else {
		snprintf(path, sizeof(path), "%s%s", root, BRUTE_DIR);
		h->brute = access(path, F_OK) == 0 ? BRUTE_ACTIVE : BRUTE_UNKNOWN;
	}
	h->mode = -1;
	if (read_line(root, MODE_FILE, buf, sizeof(buf)) == 0 && parse_u64(buf, &v) == 0 && v < 16)
		h->mode = (int)v;
	else if (h->brute == BRUTE_UNKNOWN)
		h->brute = BRUTE_ABSENT;	/* no securityfs entry and no sysctl: no Brute */
}

/*
 * The reply to an AUDIT_GET sent on fd, waited for with poll() for at most
 * timeout_ms in all (the loop must never hang on a reply that does not come).
 */
enum health_audit health_audit_reply(int fd, int timeout_ms, int *err)
{
	uint64_t end = now_monotonic_ms() + (uint64_t)timeout_ms;
	struct audit_reply rep;

	/* the reply, or the NLMSG_ERROR of a refusal (EPERM without CAP_AUDIT_CONTROL) */
	for (int i = 0; i < 4;) {
		uint64_t now = now_monotonic_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n;

		if (now >= end) {
			*err = ETIMEDOUT;
			return AUDIT_UNKNOWN;
		}
		n = poll(&p, 1, (int)(end - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = errno;
			return AUDIT_UNKNOWN;
		}
		if (n == 0)
			continue;	/* the time is checked above */
		n = audit_get_reply(fd, &rep, GET_REPLY_NONBLOCKING, 0);
		if (n == -EAGAIN)
			continue;
		i++;
		if (n <= 0) {
			*err = n < 0 ? -n : ENODATA;
			return AUDIT_UNKNOWN;
		}
		if (rep.type == NLMSG_ERROR && rep.error) {
			if (rep.error->error) {
				*err = -rep.error->error;
				return AUDIT_UNKNOWN;
			}
			continue;	/* the ACK */
		}
		if (rep.type == AUDIT_GET && rep.status)
			return rep.status->enabled ? AUDIT_ENABLED : AUDIT_DISABLED;
	}
	*err = ENODATA;
	return AUDIT_UNKNOWN;
}

enum health_audit health_query_audit(int *err)
{
	enum health_audit r = AUDIT_UNKNOWN;
	int fd, n;

	*err = 0;
	/* libaudit would log its own "Error sending status request" to syslog at every poll */
	set_aumessage_mode(MSG_QUIET, DBG_NO);
	fd = audit_open();
	if (fd < 0) {
		*err = errno;
		return AUDIT_UNKNOWN;
	}
	n = audit_request_status(fd);
	if (n <= 0)
		/* libaudit returns the kernel's refusal (its ACK) as -errno */
		*err = n < 0 ? -n : (errno ? errno : EIO);
	else
		r = health_audit_reply(fd, HEALTH_AUDIT_TIMEOUT_MS, err);
	audit_close(fd);
	return r;
}

bool health_rcvbuf_capped(const struct health *h)
{
	return h->rcvbuf_want && h->rcvbuf < h->rcvbuf_want / 2;
}

unsigned health_problems(const struct health *h)
{
	return (h->brute == BRUTE_ABSENT) + (h->audit == AUDIT_DISABLED) +
	       (h->brute != BRUTE_ABSENT && h->mode == 0) + health_rcvbuf_capped(h);
}

static const char *brute_word(const struct health *h)
{
	return h->brute == BRUTE_ACTIVE ? "active" : h->brute == BRUTE_ABSENT ? "absent" : "unknown";
}

static const char *audit_word(const struct health *h)
{
	return h->audit == AUDIT_ENABLED ? "enabled" : h->audit == AUDIT_DISABLED ? "disabled" : "unknown";
}

void health_summary(const struct health *h, char *buf, size_t len)
{
	char mode[16];

	if (h->mode < 0)
		snprintf(mode, sizeof(mode), "unknown");
	else
		snprintf(mode, sizeof(mode), "%d", h->mode);
	snprintf(buf, len, "brute %s, audit %s, mode %s%s", brute_word(h), audit_word(h), mode,
		 health_rcvbuf_capped(h) ? ", receive buffer capped" : "");
}

void health_log_changes(const struct health *old, const struct health *now)
{
	bool first = !old;

	if (first || old->brute != now->brute) {
		if (now->brute == BRUTE_ABSENT)
			log_error("Brute is not active in this kernel (no \"brute\" in " LSM_FILE
				  "): there is nothing to report; boot a kernel with Brute and keep it in the lsm= order");
		else if (!first && now->brute == BRUTE_ACTIVE)
			log_notice("Brute is active in the kernel again");
	}
	if (first || old->audit != now->audit) {
		if (now->audit == AUDIT_DISABLED)
			log_error("audit is disabled (auditctl -s: enabled 0): Brute emits no record at all; start auditd or boot with audit=1");
		else if (now->audit == AUDIT_ENABLED && !first)
			log_notice("audit is enabled again");
		else if (now->audit == AUDIT_UNKNOWN && first)
			log_notice("cannot tell whether audit is enabled (AUDIT_GET: %s%s); Brute emits nothing while it is disabled: check \"auditctl -s\" or \"brutectl status\" as root",
				   strerror(now->audit_err),
				   now->audit_err == EPERM ? ", needs CAP_AUDIT_CONTROL, which the unit does not grant" : "");
	}
	if (now->brute != BRUTE_ABSENT && (first || old->mode != now->mode)) {
		if (now->mode == 0)
			log_error("Brute is in mode 0 (/proc/sys/kernel/brute/mode): it detects nothing; set mode 1 (audit) or 2 (audit and stop)");
		else if (now->mode == 1 && (first || old->mode != 1))
			log_notice("Brute is in mode 1: attacks are detected and reported, not stopped");
		else if (now->mode == 2 && !first)
			log_notice("Brute is in mode 2 again: attacks are detected, reported and stopped");
		else if (now->mode < 0 && now->brute == BRUTE_ACTIVE)
			log_notice("cannot read /proc/sys/kernel/brute/mode");
	}
	if (health_rcvbuf_capped(now) && (first || !health_rcvbuf_capped(old)))
		log_warning("the audit netlink receive buffer is %llu KiB, not the %llu KiB of netlink_rcvbuf: net.core.rmem_max caps it (raising it past that needs CAP_NET_ADMIN); a burst of records will be lost: sysctl net.core.rmem_max=%llu",
			    (unsigned long long)(now->rcvbuf >> 10),
			    (unsigned long long)(now->rcvbuf_want >> 10),
			    (unsigned long long)now->rcvbuf_want);
	if (first && !health_problems(now)) {
		char s[128];

		health_summary(now, s, sizeof(s));
		log_info("%s", s);
	}
}
