// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl status: whether the host is protected: Brute, audit, the tunables, the
 * kernel's counters and brute-reportd's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "brutectl.h"
#include "services.h"
#include "trust.h"

static const char *const tunables[] = {
	"mode", "crash_period_threshold_ms", "min_faults", "max_faults",
	"ema_weight_numerator", "ema_weight_denominator", "ban_time_s", "table_size",
	"forget_time_s", "backstop_faults", "peer_ban_time_s", "peer_prefix_v4", "peer_prefix_v6",
	"escalate_prefix_v4", "escalate_prefix_v6", "escalate_faults",
	"trusted_uid_max", "backstop_hold_s",	/* v4 */
};
#define N_TUNABLES (sizeof(tunables) / sizeof(tunables[0]))

struct audit_info {
	int err;        /* 0, or the errno of the query */
	uint32_t enabled, pid, backlog, backlog_limit, lost;
};

/* AUDIT_GET over NETLINK_AUDIT, what `auditctl -s` prints (needs CAP_AUDIT_CONTROL). */
static void query_audit(struct audit_info *ai)
{
	struct {
		struct nlmsghdr nh;
		struct audit_status st;
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} resp;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int fd;

	memset(ai, 0, sizeof(*ai));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		ai->err = errno;
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(0);
	req.nh.nlmsg_type = AUDIT_GET;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ai->err = errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(fd, &resp, sizeof(resp), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			ai->err = errno == EAGAIN ? ETIMEDOUT : errno;
			goto out;
		}
		for (nh = &resp.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error) {
					ai->err = -e->error;
					goto out;
				}
			} else if (nh->nlmsg_type == AUDIT_GET) {
				struct audit_status st = { 0 };
				size_t len = nh->nlmsg_len - NLMSG_LENGTH(0);

				memcpy(&st, NLMSG_DATA(nh), len < sizeof(st) ? len : sizeof(st));
				ai->enabled = st.enabled;
				ai->pid = st.pid;
				ai->backlog = st.backlog;
				ai->backlog_limit = st.backlog_limit;
				ai->lost = st.lost;
				goto out;
			}
		}
	}
out:
	close(fd);
}

static size_t mode_index(void)
{
	size_t i;

	for (i = 0; i < N_TUNABLES; i++)
		if (!strcmp(tunables[i], "mode"))
			break;
	return i;
}

/* "a, b" */
static void append_why(char *buf, size_t size, const char *what)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", what);
}

/* The kernel's counters: "hierarchies=41 targets=3 bans=1 peers=4 peer_bans=1 records_dropped=0". */
#define MAX_STATS 16
struct stats_info {
	int err;	/* 0, -errno if unreadable, or -EBADMSG if not key=number pairs */
	size_t n;
	char key[MAX_STATS][32];
	uint64_t val[MAX_STATS];
};

static void read_stats(struct stats_info *si)
{
	char *path = sys_path(STATS_PATH), line[512], *save = NULL;

	memset(si, 0, sizeof(*si));
	si->err = read_small(path, line, sizeof(line));
	free(path);
	if (si->err)
		return;
	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		if (!eq || eq == t || (size_t)(eq - t) >= sizeof(si->key[0]) || si->n == MAX_STATS ||
		    strspn(t, "abcdefghijklmnopqrstuvwxyz_") != (size_t)(eq - t) ||
		    !parse_u64(eq + 1, UINT64_MAX, &si->val[si->n])) {
			si->err = -EBADMSG;
			return;
		}
		*eq = '\0';
		strcpy(si->key[si->n++], t);
	}
}

/*
 * The kernel's trusted list for the services' trusted peers, quietly: 0 read, 1 the kernel
 * has none (before v4), -1 unreadable (not root) or malformed (said on stderr).
 */
static int read_trusted(struct trust_entry **tv, size_t *tn)
{
	char *path = sys_path(TRUSTED_PATH);
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = errno;

	free(path);
	*tv = NULL;
	*tn = 0;
	if (fd < 0)
		return e == ENOENT ? 1 : -1;
	close(fd);
	return trust_read_kernel(tv, tn, false) ? -1 : 0;
}

/* "trusted: 3 declared peers (brutectl trust list); local uids 1-999 are relays ..." */
static void print_trust_line(const struct stats_info *si, int64_t uid_max)
{
	bool count = false;
	uint64_t n = 0;

	for (size_t i = 0; i < si->n; i++)
		if (!strcmp(si->key[i], "trusted")) {
			count = true;
			n = si->val[i];
		}
	if (!count && uid_max == -ENOENT)
		return;		/* a kernel before v4 */
	printf("trusted: ");
	if (count)
		printf("%" PRIu64 " declared peer%s (brutectl trust list)", n, n == 1 ? "" : "s");
	else
		printf("declared peers unknown (no trusted= in stats)");
	if (uid_max > 1)
		printf("; local uids 1-%" PRId64 " are relays (trusted_uid_max)\n", uid_max);
	else if (uid_max == 1)
		printf("; local uid 1 is a relay (trusted_uid_max)\n");
	else if (uid_max == 0)
		printf("; no local uid is a relay (trusted_uid_max 0)\n");
	else
		printf("; trusted_uid_max unknown\n");
}

int cmd_status(int argc, char **argv)
{
	char *lsm_path = sys_path(LSM_PATH), lsm[512], vals[N_TUNABLES][64];
	int lsm_err, val_err[N_TUNABLES];
	bool json = false, active = false;
	struct audit_info ai;
	struct reportd_info ri;
	struct stats_info si;
	struct trust_entry *tv = NULL;
	size_t tn = 0;
	int trusted;
	int64_t uid_max;
	char why[256] = "", quoted[168];
	size_t mode_i;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else {
			err("status: unknown argument '%s' (usage: brutectl status [--json])",
			    snip(quoted, sizeof(quoted), argv[i]));
			free(lsm_path);
			return EXIT_USAGE;
		}
	}
	lsm_err = read_small(lsm_path, lsm, sizeof(lsm));
	free(lsm_path);
	if (!lsm_err) {
		char copy[sizeof(lsm)], *save = NULL;

		memcpy(copy, lsm, sizeof(lsm));
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (!strcmp(t, "brute"))
				active = true;
	}
	for (size_t i = 0; i < N_TUNABLES; i++) {
		char rel[128], *path;

		snprintf(rel, sizeof(rel), SYSCTL_DIR "/%s", tunables[i]);
		path = sys_path(rel);
		val_err[i] = read_small(path, vals[i], sizeof(vals[i]));
		free(path);
	}
	read_stats(&si);
	query_audit(&ai);
	read_reportd(&ri);
	trusted = read_trusted(&tv, &tn);
	uid_max = trust_uid_max();
	/* protected: Brute active and on, audit not known to be off (as brute-reportd --health) */
	mode_i = mode_index();
	if (lsm_err)
		append_why(why, sizeof(why), "cannot read /sys/kernel/security/lsm");
	else if (!active)
		append_why(why, sizeof(why), "Brute is not active");
	if (!lsm_err && active && val_err[mode_i])
		append_why(why, sizeof(why), "cannot read its mode");
	else if (!lsm_err && active && !strcmp(vals[mode_i], "0"))
		append_why(why, sizeof(why), "Brute is in mode 0 (off)");
	if (!ai.err && !ai.enabled)
		append_why(why, sizeof(why), "audit is disabled");

	if (json) {
		printf("{\"active\":%s,\"lsm\":", active ? "true" : "false");
		if (lsm_err)
			fputs("null", stdout);
		else
			put_json_str(stdout, lsm, strlen(lsm));
		printf(",\"audit\":");
		if (ai.err)
			printf("{\"error\":\"%s\"}", strerror(ai.err));
		else
			printf("{\"enabled\":%" PRIu32 ",\"pid\":%" PRIu32 ",\"backlog\":%" PRIu32
			       ",\"backlog_limit\":%" PRIu32 ",\"lost\":%" PRIu32 "}",
			       ai.enabled, ai.pid, ai.backlog, ai.backlog_limit, ai.lost);
		printf(",\"tunables\":{");
		for (size_t i = 0; i < N_TUNABLES; i++) {
			printf("%s\"%s\":", i ? "," : "", tunables[i]);
			if (val_err[i])
				fputs("null", stdout);
			else if (is_number(vals[i]))
				fputs(vals[i], stdout);
			else
				put_json_str(stdout, vals[i], strlen(vals[i]));
		}
		printf("},\"stats\":");
		if (si.err) {
			fputs("null", stdout);
		} else {
			for (size_t i = 0; i < si.n; i++)
				printf("%s\"%s\":%" PRIu64, i ? "," : "{", si.key[i], si.val[i]);
			fputs(si.n ? "}" : "{}", stdout);
		}
		print_reportd(&ri, true);
		print_services(true, tv, tn, trusted, uid_max, &ri);
		printf(",\"protected\":%s,\"not_protected_because\":", why[0] ? "false" : "true");
		if (why[0])
			put_json_str(stdout, why, strlen(why));
		else
			fputs("null", stdout);
		printf("}\n");
	} else {
		if (lsm_err)
			printf("brute:   unknown (cannot read /sys/kernel/security/lsm: %s)\n",
			       strerror(-lsm_err));
		else
			printf("brute:   %s (lsm: %s)\n", active ? "active" : "NOT active", lsm);
		if (si.err == -ENOENT) {
			printf("stats:   absent (no " STATS_PATH ")\n");
		} else if (si.err == -EBADMSG) {
			printf("stats:   unknown (" STATS_PATH ": not key=number pairs)\n");
		} else if (si.err) {
			printf("stats:   unknown (" STATS_PATH ": %s)\n", strerror(-si.err));
		} else {
			printf("stats:   ");
			for (size_t i = 0; i < si.n; i++)
				printf("%s%s %" PRIu64, i ? ", " : "", si.key[i], si.val[i]);
			putchar('\n');
		}
		print_trust_line(&si, uid_max);
		if (ai.err == EPERM || ai.err == EACCES)
			printf("audit:   unknown (querying it needs root)\n");
		else if (ai.err)
			printf("audit:   unknown (%s)\n", strerror(ai.err));
		else
			printf("audit:   %s, auditd pid %" PRIu32 "%s, backlog %" PRIu32 "/%" PRIu32
			       ", lost %" PRIu32 "\n",
			       ai.enabled == 2 ? "enabled (locked)" :
			       ai.enabled ? "enabled" : "DISABLED (Brute reports nothing)",
			       ai.pid, ai.pid ? "" : " (none)", ai.backlog, ai.backlog_limit, ai.lost);
		printf("tunables (" SYSCTL_DIR "):\n");
		for (size_t i = 0; i < N_TUNABLES; i++) {
			const char *note = "";

			if (!val_err[i] && !strcmp(tunables[i], "mode"))
				note = !strcmp(vals[i], "0") ? " (off)" :
				       !strcmp(vals[i], "1") ? " (detect and audit)" :
				       !strcmp(vals[i], "2") ? " (detect, audit and stop)" : "";
			if (val_err[i] == -ENOENT)
				printf("  %-26s absent\n", tunables[i]);
			else if (val_err[i])
				printf("  %-26s unreadable (%s)\n", tunables[i], strerror(-val_err[i]));
			else
				printf("  %-26s %s%s\n", tunables[i], vals[i], note);
		}
		print_reportd(&ri, false);
		print_services(false, tv, tn, trusted, uid_max, &ri);
		if (why[0])
			printf("host:    NOT protected: %s\n", why);
		else
			printf("host:    protected\n");
	}
	free(tv);
	return flushed(why[0] ? EXIT_UNPROTECTED : EXIT_OK);
}
