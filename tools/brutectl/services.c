// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl status: which services Brute protects and how: each listening socket (sockets.c)
 * under its systemd unit, the unit's restart policy (`systemctl show`: what brings it back
 * after the backstop's kill) and the trusted peers whose scope covers the socket.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "brutectl.h"
#include "services.h"
#include "trust.h"

#define SYSTEMCTL_TIMEOUT_MS 10000
#define SYSTEMCTL_MAX_OUTPUT (1 << 20)

/* A unit's restart policy, as `systemctl show` says it. */
struct policy {
	bool known;
	char id[256], restart[32], restart_sec[32], burst[16], interval[32];
};

enum { P_ID, P_RESTART, P_RESTART_SEC, P_BURST, P_INTERVAL, N_PROPS };
static const char *const props[N_PROPS] = {
	"Id", "Restart", "RestartUSec", "StartLimitBurst", "StartLimitIntervalUSec",
};

/* Whether systemd runs (sd_booted(): /run/systemd/system is a directory). */
static bool systemd_running(void)
{
	char *path = sys_path("/run/systemd/system");
	struct stat st;
	bool yes = !lstat(path, &st) && S_ISDIR(st.st_mode);

	free(path);
	return yes;
}

static bool is_service(const struct listener *l)
{
	size_t n = strlen(l->unit);

	return l->unit_kind == U_SYSTEM && n > 8 && !strcmp(l->unit + n - 8, ".service");
}

/* Stores one "Key=Value" line of systemctl's output in p. */
static void policy_line(struct policy *p, const char *line)
{
	char *const dest[N_PROPS] = { p->id, p->restart, p->restart_sec, p->burst, p->interval };
	const size_t size[N_PROPS] = { sizeof(p->id), sizeof(p->restart), sizeof(p->restart_sec),
				       sizeof(p->burst), sizeof(p->interval) };
	const char *eq = strchr(line, '=');

	if (!eq)
		return;
	for (int k = 0; k < N_PROPS; k++)
		if (strlen(props[k]) == (size_t)(eq - line) &&
		    !strncmp(line, props[k], (size_t)(eq - line)))
			snprintf(dest[k], size[k], "%s", eq + 1);
}

/* A block of systemctl's output (b) is the policy of the unit its Id= names. */
static void policy_block(struct policy *b, char **units, size_t n, struct policy *pol)
{
	for (size_t i = 0; i < n && b->id[0]; i++) {
		if (!strcmp(units[i], b->id) && b->restart[0]) {
			pol[i] = *b;
			pol[i].known = true;
		}
	}
	memset(b, 0, sizeof(*b));
}

/*
 * `systemctl show --property=... -- UNIT...` (one run for every unit): one block of
 * Key=Value lines per unit, blank lines between, each with the unit's Id=. Fills pol[i] for
 * units[i] (a unit systemctl said nothing of stays unknown); false (why in why) if
 * systemctl could not tell.
 */
static bool query_policies(char **units, size_t n, struct policy *pol, char *why, size_t size)
{
	char **argv = calloc(n + 10, sizeof(*argv)), *out = NULL, opt[N_PROPS][48];
	size_t len = 0, cap = 0, argc = 0;
	int pfd[2], status = 0;
	struct timespec t0, t1;
	bool ok = false;
	pid_t pid;

	if (!argv) {
		snprintf(why, size, "out of memory");
		return false;
	}
	argv[argc++] = "systemctl";
	argv[argc++] = "show";
	argv[argc++] = "--no-pager";
	for (int k = 0; k < N_PROPS; k++) {
		snprintf(opt[k], sizeof(opt[k]), "--property=%s", props[k]);
		argv[argc++] = opt[k];
	}
	argv[argc++] = "--";
	for (size_t i = 0; i < n; i++)
		argv[argc++] = units[i];
	argv[argc] = NULL;
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		free(argv);
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		free(argv);
		return false;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		dup2(pfd[1], 1);
		execvp("systemctl", argv);
		_exit(127);
	}
	close(pfd[1]);
	free(argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		long left;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = SYSTEMCTL_TIMEOUT_MS - ((t1.tv_sec - t0.tv_sec) * 1000 +
					       (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
			kill(pid, SIGKILL);
			snprintf(why, size, "systemctl show did not answer within %d s",
				 SYSTEMCTL_TIMEOUT_MS / 1000);
			goto reap;
		}
		if (len + 4096 + 1 > cap) {
			char *no;

			if (cap >= SYSTEMCTL_MAX_OUTPUT) {
				kill(pid, SIGKILL);
				snprintf(why, size, "systemctl show wrote more than %d bytes",
					 SYSTEMCTL_MAX_OUTPUT);
				goto reap;
			}
			cap = cap ? 2 * cap : 16384;
			no = realloc(out, cap);
			if (!no) {
				kill(pid, SIGKILL);
				snprintf(why, size, "out of memory");
				goto reap;
			}
			out = no;
		}
		r = read(pfd[0], out + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	ok = true;
reap:
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ok && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		snprintf(why, size, WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			 "systemctl not found" : "systemctl show failed");
		ok = false;
	}
	if (ok) {
		struct policy b = { 0 };
		char *p = out;

		out[len] = '\0';
		/* blocks: lines up to a blank line */
		while (p && *p) {
			char *nl = strchr(p, '\n');

			if (nl)
				*nl = '\0';
			if (!*p)
				policy_block(&b, units, n, pol);
			else
				policy_line(&b, p);
			p = nl ? nl + 1 : NULL;
		}
		policy_block(&b, units, n, pol);
	}
	free(out);
	return ok;
}

/*
 * Whether brute-reportd brings this unit back after the backstop (BRUTE_ATTACK attack=backstop,
 * mitigation=restart, or a kill the unit's Restart= does not answer): backstop_restart in its
 * state file, one setting for every unit.  NULL ("unknown") when brute-reportd does not run or
 * is older than that key.
 */
static const char *reportd_restarts(const struct reportd_info *ri, const char *unit)
{
	const char *v = ri ? reportd_value(ri, "backstop_restart") : "?";

	(void)unit;
	return strcmp(v, "yes") && strcmp(v, "no") ? NULL : v;
}

/* Whether Restart= brings a unit back after SIGKILL ("unclean signal" in systemd.service(5)). */
static bool restarts_after_kill(const char *restart)
{
	return !strcmp(restart, "always") || !strcmp(restart, "on-failure") ||
	       !strcmp(restart, "on-abnormal") || !strcmp(restart, "on-abort");
}

/* The group a listener is shown in: its unit, user units after system ones, then none. */
static int group_rank(const struct listener *l)
{
	if (l->pid < 0)
		return 3;
	return l->unit_kind == U_SYSTEM ? 0 : l->unit_kind == U_USER ? 1 : 2;
}

static bool same_group(const struct listener *a, const struct listener *b)
{
	return group_rank(a) == group_rank(b) && a->unit_uid == b->unit_uid &&
	       !strcmp(a->unit, b->unit);
}

static int cmp_listener(const void *x, const void *y)
{
	const struct listener *a = x, *b = y;
	int r = group_rank(a) - group_rank(b);
	size_t n;

	if (r)
		return r;
	if (a->unit_uid != b->unit_uid)
		return a->unit_uid < b->unit_uid ? -1 : 1;
	r = strcmp(a->unit, b->unit);
	if (r)
		return r;
	if (a->transport != b->transport)
		return a->transport - b->transport;
	if (a->netns != b->netns)
		return a->netns < b->netns ? -1 : 1;
	if (a->transport == L_UNIX) {
		n = a->path_len < b->path_len ? a->path_len : b->path_len;
		r = memcmp(a->path ? a->path : "", b->path ? b->path : "", a->path && b->path ? n : 0);
		if (r)
			return r;
		if (a->path_len != b->path_len)
			return a->path_len < b->path_len ? -1 : 1;
	} else {
		if (a->family != b->family)
			return a->family - b->family;
		r = memcmp(a->laddr, b->laddr, sizeof(a->laddr));
		if (r)
			return r;
		if (a->lport != b->lport)
			return a->lport < b->lport ? -1 : 1;
	}
	return (a->inode > b->inode) - (a->inode < b->inode);
}

static const char *const transport_names[] = { "tcp", "mptcp", "unix" };

/* "tcp 0.0.0.0:80", "mptcp [::]:443", "unix /run/php/fpm.sock" (escaped), ...; an IPv6
 * socket on ::ffff:10.0.0.1 is "tcp 10.0.0.1:80 (an IPv6 socket on ::ffff:10.0.0.1)". */
static void fmt_listener(char *buf, size_t size, const struct listener *l)
{
	char text[INET6_ADDRSTRLEN], path[4 * 256 + 1];

	if (l->transport != L_UNIX && l->family == AF_INET6) {
		inet_ntop(AF_INET6, l->laddr, text, sizeof(text));
		snprintf(buf, size, "%s [%s]:%" PRIu32, transport_names[l->transport], text, l->lport);
	} else if (l->transport != L_UNIX) {
		inet_ntop(AF_INET, l->laddr, text, sizeof(text));
		snprintf(buf, size, "%s %s:%" PRIu32 "%s%s%s", transport_names[l->transport], text,
			 l->lport, l->mapped ? " (an IPv6 socket on ::ffff:" : "",
			 l->mapped ? text : "", l->mapped ? ")" : "");
	} else if (l->ambiguous) {
		snprintf(buf, size, "unix socket %" PRIu64 " (path not shown: a forged line in "
			 "/proc/net/unix)", l->inode);
	} else if (!l->path) {
		snprintf(buf, size, "unix socket %" PRIu64 " (unnamed)", l->inode);
	} else {
		snprintf(buf, size, "unix %s", escape_tty(path, sizeof(path), l->path,
							   l->path_len < 256 ? l->path_len : 256));
	}
}

static const char *user_name(uint32_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		return pw->pw_name;
	snprintf(buf, size, "%" PRIu32, uid);
	return buf;
}

/* The trusted entries that cover l, as text ("; "-separated) or as a JSON array. */
static void print_trusted(const struct listener *l, bool json, const struct trust_entry *tv,
			  size_t tn, int trusted_state, int64_t uid_max)
{
	bool first = true;
	char spec[256];

	if (json) {
		fputs(",\"trusted\":", stdout);
		if (trusted_state) {
			fputs("null", stdout);
		} else {
			putchar('[');
			for (size_t i = 0; i < tn; i++) {
				if (!trust_covers(&tv[i], l->netns, l->transport == L_UNIX, l->family,
						  l->laddr, l->lport))
					continue;
				trust_spec(&tv[i], spec, sizeof(spec));
				printf("%s\"%s\"", first ? "" : ",", spec);
				first = false;
			}
			putchar(']');
		}
		fputs(",\"trusted_uid_max\":", stdout);
		if (uid_max >= 0)
			printf("%" PRId64, uid_max);
		else
			fputs("null", stdout);
		return;
	}
	if (trusted_state == 1 && uid_max < 0)
		return;		/* a kernel before v4: nothing is trusted */
	printf("      trusted: ");
	if (trusted_state < 0) {
		printf("(the list: unknown, reading it needs root)");
		first = false;
	}
	for (size_t i = 0; trusted_state == 0 && i < tn; i++) {
		if (!trust_covers(&tv[i], l->netns, l->transport == L_UNIX, l->family, l->laddr,
				  l->lport))
			continue;
		trust_spec(&tv[i], spec, sizeof(spec));
		printf("%s%s", first ? "" : ", ", spec);
		first = false;
	}
	if (uid_max > 0) {
		printf("%slocal uids 1-%" PRId64 " (trusted_uid_max)", first ? "" : ", ", uid_max);
		first = false;
	}
	printf("%s\n", first ? "none" : "");
}

/* The unit's heading: its name and what restarts it. */
static void print_unit_text(const struct listener *l, const struct policy *pol, bool systemd,
			    const char *why, const struct reportd_info *ri)
{
	char ub[16];
	const char *rr;

	if (l->pid < 0) {
		printf("  (no process found%s)\n", geteuid() ? ": run as root" : "");
		return;
	}
	if (l->unit_kind == U_NONE) {
		printf("  (no systemd unit)\n");
		return;
	}
	if (l->unit_kind == U_USER) {
		printf("  %s (a unit of user %s's systemd)\n", l->unit,
		       user_name(l->unit_uid, ub, sizeof(ub)));
		return;
	}
	if (!strcmp(l->unit, "init.scope")) {
		printf("  init.scope (systemd holds it: socket activation, its service not running)\n");
		return;
	}
	if (!is_service(l)) {
		printf("  %s\n", l->unit);
		return;
	}
	printf("  %s: ", l->unit);
	if (!systemd)
		printf("restart policy unknown (systemd is not running)");
	else if (!pol || !pol->known)
		printf("restart policy unknown (%s)", why[0] ? why : "systemctl show said nothing");
	else
		printf("Restart=%s%s, RestartSec=%s, start limit %s in %s", pol->restart,
		       restarts_after_kill(pol->restart) ? " (restarted after a kill)" :
		       " (a kill leaves it down)", pol->restart_sec, pol->burst, pol->interval);
	rr = reportd_restarts(ri, l->unit);
	printf("; brute-reportd restart: %s\n", rr ? rr : "unknown");
}

static void json_str_or_null(const char *s)
{
	if (s && *s)
		put_json_str(stdout, s, strlen(s));
	else
		fputs("null", stdout);
}

void print_services(bool json, const struct trust_entry *tv, size_t tn, int trusted_state,
		    int64_t uid_max, const struct reportd_info *ri)
{
	bool systemd = systemd_running();
	struct policy *pol = NULL;
	char why[128] = "", **units = NULL;
	size_t nunits = 0, *unit_of = NULL, groups = 0;
	struct scan s;
	int r = scan_listeners(&s);

	if (r) {
		if (json)
			printf(",\"services\":{\"error\":\"%s\"}", strerror(-r));
		else
			printf("services: unknown (/proc: %s)\n", strerror(-r));
		return;
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_listener);
	/* the restart policy of every service unit, in one systemctl run */
	pol = calloc(s.n ? s.n : 1, sizeof(*pol));
	units = calloc(s.n ? s.n : 1, sizeof(*units));
	unit_of = calloc(s.n ? s.n : 1, sizeof(*unit_of));
	if (!pol || !units || !unit_of) {
		printf(json ? ",\"services\":{\"error\":\"out of memory\"}" : "services: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < s.n; i++) {
		if ((i == 0 || !same_group(&s.v[i], &s.v[i - 1])) && s.v[i].pid >= 0 &&
		    s.v[i].unit_kind != U_NONE)
			groups++;	/* the units */
		unit_of[i] = SIZE_MAX;
		if (!is_service(&s.v[i]) || s.v[i].pid < 0)
			continue;
		if (nunits && !strcmp(units[nunits - 1], s.v[i].unit)) {
			unit_of[i] = nunits - 1;
			continue;
		}
		units[nunits] = s.v[i].unit;
		unit_of[i] = nunits++;
	}
	if (systemd && nunits && !query_policies(units, nunits, pol, why, sizeof(why)))
		memset(pol, 0, nunits * sizeof(*pol));

	if (json) {
		printf(",\"services\":{\"systemd\":%s,\"unreadable_processes\":%zu,"
		       "\"lines_not_understood\":%zu,\"units\":[", systemd ? "true" : "false",
		       s.unreadable, s.bad_lines);
		for (size_t i = 0; i < s.n; i++) {
			const struct listener *l = &s.v[i];
			const struct policy *p = unit_of[i] != SIZE_MAX ? &pol[unit_of[i]] : NULL;
			char text[INET6_ADDRSTRLEN], ub[16];

			if (i == 0 || !same_group(l, &s.v[i - 1])) {
				printf("%s\n{\"unit\":", i ? "]}," : "");
				json_str_or_null(l->pid >= 0 && l->unit_kind != U_NONE ? l->unit : NULL);
				printf(",\"kind\":\"%s\"", l->pid < 0 ? "unknown" :
				       l->unit_kind == U_SYSTEM ? "system" :
				       l->unit_kind == U_USER ? "user" : "none");
				if (l->unit_kind == U_USER)
					printf(",\"user_uid\":%" PRIu32, l->unit_uid);
				fputs(",\"restart\":", stdout);
				json_str_or_null(p && p->known ? p->restart : NULL);
				fputs(",\"restart_sec\":", stdout);
				json_str_or_null(p && p->known ? p->restart_sec : NULL);
				fputs(",\"start_limit_burst\":", stdout);
				if (p && p->known && is_number(p->burst))
					fputs(p->burst, stdout);
				else
					fputs("null", stdout);
				fputs(",\"start_limit_interval\":", stdout);
				json_str_or_null(p && p->known ? p->interval : NULL);
				fputs(",\"reportd_restart\":", stdout);
				json_str_or_null(is_service(l) ? reportd_restarts(ri, l->unit) : NULL);
				fputs(",\"sockets\":[", stdout);
			} else {
				putchar(',');
			}
			printf("\n{\"transport\":\"%s\",\"netns\":%" PRIu64, transport_names[l->transport],
			       l->netns);
			if (l->transport == L_UNIX) {
				fputs(",\"path\":", stdout);
				if (l->path && !l->ambiguous)
					put_json_str(stdout, l->path, l->path_len);
				else
					fputs("null", stdout);
				printf(",\"path_ambiguous\":%s", l->ambiguous ? "true" : "false");
			} else {
				inet_ntop(l->family, l->laddr, text, sizeof(text));
				printf(",\"laddr\":\"%s\",\"lport\":%" PRIu32 ",\"ipv4_mapped\":%s", text,
				       l->lport, l->mapped ? "true" : "false");
			}
			printf(",\"inode\":%" PRIu64 ",\"processes\":%zu", l->inode, l->holders);
			if (l->pid >= 0) {
				printf(",\"pid\":%d,\"comm\":", (int)l->pid);
				put_json_str(stdout, l->comm, strlen(l->comm));
				fputs(",\"user\":", stdout);
				json_str_or_null(user_name(l->pid_uid, ub, sizeof(ub)));
			} else {
				fputs(",\"pid\":null,\"comm\":null,\"user\":null", stdout);
			}
			print_trusted(l, true, tv, tn, trusted_state, uid_max);
			putchar('}');
		}
		printf("%s]}", s.n ? "]}" : "");
		goto out;
	}
	if (!s.n) {
		printf("services: no listening TCP, MPTCP or Unix stream socket found%s\n",
		       s.unreadable ? " (run as root to see every process's)" : "");
	} else {
		printf("services: %zu listening socket%s, %zu systemd unit%s (their peers: brutectl "
		       "peers)\n", s.n, s.n == 1 ? "" : "s", groups, groups == 1 ? "" : "s");
	}
	for (size_t i = 0; i < s.n; i++) {
		const struct listener *l = &s.v[i];
		char ep[1200], ub[16];

		if (i == 0 || !same_group(l, &s.v[i - 1]))
			print_unit_text(l, unit_of[i] != SIZE_MAX ? &pol[unit_of[i]] : NULL, systemd,
					why, ri);
		fmt_listener(ep, sizeof(ep), l);
		printf("    %s, netns %" PRIu64, ep, l->netns);
		if (l->pid >= 0) {
			char comm[4 * sizeof(l->comm) + 1];

			printf(", pid %d %s (%s)", (int)l->pid,
			       escape_tty(comm, sizeof(comm), l->comm, strlen(l->comm)),
			       user_name(l->pid_uid, ub, sizeof(ub)));
			if (l->holders > 1)
				printf(", %zu processes", l->holders);
		}
		putchar('\n');
		print_trusted(l, false, tv, tn, trusted_state, uid_max);
	}
	if (s.unreadable && s.n)
		printf("  (%zu process%s whose sockets could not be read%s)\n", s.unreadable,
		       s.unreadable == 1 ? "" : "es", geteuid() ? ": run as root to see every service" :
		       " (another user namespace's?)");
	if (s.bad_lines)
		printf("  (%zu line%s of /proc/PID/net/{tcp,tcp6,unix} not understood)\n", s.bad_lines,
		       s.bad_lines == 1 ? "" : "s");
out:
	free(unit_of);
	free(units);
	free(pol);
	scan_free(&s);
}
