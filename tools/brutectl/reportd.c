// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl status: brute-reportd's state file (brute-reportd(8): /run/brute-reportd/status).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "brutectl.h"

/* ---- brute-reportd's state file (brute-reportd(8): /run/brute-reportd/status) ---- */

#define REPORTD_STATUS_PATH "/run/brute-reportd/status"
/* the auditd plugin's (brute-reportd --stdin), read when the service's is absent */
#define REPORTD_PLUGIN_STATUS_PATH "/run/brute-reportd-plugin/status"

static const char *const reportd_keys[] = {
	"pid", "brute", "audit", "mode", "records", "incidents", "incidents_open", "attacks",
	"alerts_queued", "alerts_dropped", "spooled", "lost", "problems",
	/* the SIEM delivery (absent from an older daemon's file) */
	"siem", "siem_target", "siem_connected", "siem_failures", "siem_last_delivery_usec",
	"siem_last_error_usec", "siem_last_error", "spool_oldest_usec", "alerts_parked",
	"updated_usec",
	/* its actions through systemd (absent from an older daemon's file) */
	"unit_restarts", "unit_starts", "unit_failures", "peer_actions", "peer_action_failures",
	"backstop_restart",
	/* issue 31: what it refused, journal failures, entries sent again, the last reload */
	"records_malformed", "lines_oversized", "lines_garbage", "journal_failures", "siem_resent",
	"reloads", "reload_result", "reload_error",
	/* records taken at auditd's length limit, entries of other hosts' records not acted upon */
	"records_cut", "remote_ignored",
	/* issue 42: entries the receiver read without closing its end */
	"siem_unconfirmed",
};
_Static_assert(sizeof(reportd_keys) / sizeof(reportd_keys[0]) == N_REPORTD_KEYS,
	       "N_REPORTD_KEYS (brutectl.h) counts reportd_keys");

void read_reportd(struct reportd_info *ri)
{
	char *path = sys_path(REPORTD_STATUS_PATH), line[512];
	FILE *f = fopen(path, "re");

	memset(ri, 0, sizeof(*ri));
	free(path);
	if (!f && errno == ENOENT) {
		path = sys_path(REPORTD_PLUGIN_STATUS_PATH);
		f = fopen(path, "re");
		free(path);
		if (f)
			ri->plugin = true;
		else
			errno = ENOENT;	/* neither: not running */
	}
	if (!f) {
		ri->err = errno;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		for (size_t i = 0; i < N_REPORTD_KEYS; i++)
			if (!strcmp(line, reportd_keys[i]))
				snprintf(ri->vals[i], sizeof(ri->vals[i]), "%s", eq + 1);
	}
	fclose(f);
	if (is_number(ri->vals[0]) && !getenv("BRUTE_SYSFS_ROOT"))
		ri->stale = kill((pid_t)strtol(ri->vals[0], NULL, 10), 0) < 0 && errno == ESRCH;
}

/**
 * reportd_value() - a key of brute-reportd's state file, "?" when absent.
 */
const char *reportd_value(const struct reportd_info *ri, const char *key)
{
	for (size_t i = 0; i < N_REPORTD_KEYS; i++)
		if (!strcmp(reportd_keys[i], key))
			return ri->vals[i][0] ? ri->vals[i] : "?";
	return "?";
}

/* Microseconds since the epoch in a key: how long ago, for people ("12.0s", "3m10s"). */
static bool ago(const struct reportd_info *ri, const char *key, char *buf, size_t size)
{
	const char *v = reportd_value(ri, key);
	struct timeval tv;
	uint64_t t, now;

	if (!is_number(v) || v[0] == '-' || !parse_u64(v, UINT64_MAX, &t) || t == 0)
		return false;
	gettimeofday(&tv, NULL);
	now = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
	fmt_ms(buf, size, now > t ? (now - t) / 1000 : 0);
	return true;
}

/* The SIEM delivery line: connected or not, the last error, the last delivery, the oldest alert. */
static void print_delivery(const struct reportd_info *ri)
{
	char a[32];

	if (!strcmp(reportd_value(ri, "siem"), "?")) {
		return;	/* an older brute-reportd */
	}
	if (!strcmp(reportd_value(ri, "siem"), "none")) {
		printf("         delivery: no SIEM forwarding configured\n");
		return;
	}
	printf("         delivery: %s %s %s", reportd_value(ri, "siem"), reportd_value(ri, "siem_target"),
	       !strcmp(reportd_value(ri, "siem_connected"), "1") ? "connected" : "NOT connected");
	if (strcmp(reportd_value(ri, "siem_last_error"), "?") && ago(ri, "siem_last_error_usec", a, sizeof(a))) {
		printf(", last error %s ago: ", a);
		put_name_tty(stdout, reportd_value(ri, "siem_last_error"), strlen(reportd_value(ri, "siem_last_error")));
	}
	if (ago(ri, "siem_last_delivery_usec", a, sizeof(a)))
		printf(", last delivery %s ago", a);
	else
		printf(", nothing delivered yet");
	printf(", %s failure%s", reportd_value(ri, "siem_failures"), !strcmp(reportd_value(ri, "siem_failures"), "1") ? "" : "s");
	if (ago(ri, "spool_oldest_usec", a, sizeof(a)))
		printf(", oldest spooled alert %s old", a);
	if (strcmp(reportd_value(ri, "alerts_parked"), "0") && strcmp(reportd_value(ri, "alerts_parked"), "?"))
		printf(", %s parked", reportd_value(ri, "alerts_parked"));
	putchar('\n');
}

/* A number key: 0 when absent (an older daemon). */
static uint64_t rn(const struct reportd_info *ri, const char *key)
{
	uint64_t v;

	return is_number(reportd_value(ri, key)) &&
	       parse_u64(reportd_value(ri, key), UINT64_MAX, &v) ? v : 0;
}

/* What it refused, the journal's refusals, the entries sent again, the last reload: when
 * there is any. */
static void print_problems(const struct reportd_info *ri)
{
	uint64_t refused = rn(ri, "records_malformed") + rn(ri, "lines_oversized") +
			   rn(ri, "lines_garbage");

	if (refused)
		printf("         refused: %llu line%s (%llu malformed records, %llu too long, %llu not records)\n",
		       (unsigned long long)refused, refused == 1 ? "" : "s",
		       (unsigned long long)rn(ri, "records_malformed"),
		       (unsigned long long)rn(ri, "lines_oversized"),
		       (unsigned long long)rn(ri, "lines_garbage"));
	if (rn(ri, "journal_failures"))
		printf("         journal: %s entries refused\n", reportd_value(ri, "journal_failures"));
	if (rn(ri, "siem_resent"))
		printf("         resent: %s entries sent again (their connection ended before the receiver confirmed them)\n",
		       reportd_value(ri, "siem_resent"));
	if (rn(ri, "siem_unconfirmed"))
		printf("         unconfirmed: %s entries delivered without the receiver's confirmation (it read them and left its end of the connection open)\n",
		       reportd_value(ri, "siem_unconfirmed"));
	if (!strcmp(reportd_value(ri, "reload_result"), "failed")) {
		printf("         reload: FAILED, the running configuration kept: ");
		put_name_tty(stdout, reportd_value(ri, "reload_error"),
			     strlen(reportd_value(ri, "reload_error")));
		putchar('\n');
	} else if (!strcmp(reportd_value(ri, "reload_result"), "ok") && rn(ri, "reloads")) {
		printf("         reload: ok (%s since start)\n", reportd_value(ri, "reloads"));
	}
}

void print_reportd(const struct reportd_info *ri, bool json)
{
	if (json) {
		printf(",\"reportd\":");
		if (ri->err) {
			fputs("null", stdout);
			return;
		}
		printf("{\"stale\":%s,\"plugin\":%s", ri->stale ? "true" : "false",
		       ri->plugin ? "true" : "false");
		for (size_t i = 0; i < N_REPORTD_KEYS; i++) {
			printf(",\"%s\":", reportd_keys[i]);
			if (is_number(ri->vals[i]))
				fputs(ri->vals[i], stdout);
			else
				put_json_str(stdout, ri->vals[i], strlen(ri->vals[i]));
		}
		putchar('}');
		return;
	}
	if (ri->err == ENOENT) {
		printf("reportd: not running (no " REPORTD_STATUS_PATH ")\n");
		return;
	}
	if (ri->plugin)
		printf("reportd: the auditd plugin (" REPORTD_PLUGIN_STATUS_PATH ")\n");
	if (ri->err) {
		printf("reportd: unknown (%s: %s)\n", REPORTD_STATUS_PATH, strerror(ri->err));
		return;
	}
	printf("reportd: %s pid %s: records %s, incidents %s (%s open), attacks %s, "
	       "alerts queued %s, dropped %s, spooled %s, lost %s\n",
	       ri->stale ? "STALE state file of" : "running,", reportd_value(ri, "pid"), reportd_value(ri, "records"),
	       reportd_value(ri, "incidents"), reportd_value(ri, "incidents_open"), reportd_value(ri, "attacks"),
	       reportd_value(ri, "alerts_queued"), reportd_value(ri, "alerts_dropped"), reportd_value(ri, "spooled"), reportd_value(ri, "lost"));
	printf("         its view: brute %s, audit %s, mode %s (%s problem%s)\n", reportd_value(ri, "brute"),
	       reportd_value(ri, "audit"), reportd_value(ri, "mode"), reportd_value(ri, "problems"),
	       !strcmp(reportd_value(ri, "problems"), "1") ? "" : "s");
	print_delivery(ri);
	if (strcmp(reportd_value(ri, "unit_starts"), "?"))
		printf("          actions: backstop: units restarted %s, started %s, failed %s; peer actions %s, failed %s\n",
		       reportd_value(ri, "unit_restarts"), reportd_value(ri, "unit_starts"), reportd_value(ri, "unit_failures"),
		       reportd_value(ri, "peer_actions"), reportd_value(ri, "peer_action_failures"));
	print_problems(ri);
}
