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

static const char *const reportd_keys[] = {
	"pid", "brute", "audit", "mode", "records", "incidents", "incidents_open", "attacks",
	"alerts_queued", "alerts_dropped", "spooled", "lost", "problems",
	/* the SIEM delivery (absent from an older daemon's file) */
	"siem", "siem_target", "siem_connected", "siem_failures", "siem_last_delivery_usec",
	"siem_last_error_usec", "siem_last_error", "spool_oldest_usec", "alerts_parked",
	"updated_usec",
};
_Static_assert(sizeof(reportd_keys) / sizeof(reportd_keys[0]) == N_REPORTD_KEYS,
	       "N_REPORTD_KEYS (brutectl.h) counts reportd_keys");

void read_reportd(struct reportd_info *ri)
{
	char *path = sys_path(REPORTD_STATUS_PATH), line[512];
	FILE *f = fopen(path, "re");

	memset(ri, 0, sizeof(*ri));
	free(path);
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

static const char *rv(const struct reportd_info *ri, const char *key)
{
	for (size_t i = 0; i < N_REPORTD_KEYS; i++)
		if (!strcmp(reportd_keys[i], key))
			return ri->vals[i][0] ? ri->vals[i] : "?";
	return "?";
}

/* Microseconds since the epoch in a key: how long ago, for people ("12.0s", "3m10s"). */
static bool ago(const struct reportd_info *ri, const char *key, char *buf, size_t size)
{
	const char *v = rv(ri, key);
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

	if (!strcmp(rv(ri, "siem"), "?")) {
		return;	/* an older brute-reportd */
	}
	if (!strcmp(rv(ri, "siem"), "none")) {
		printf("         delivery: no SIEM forwarding configured\n");
		return;
	}
	printf("         delivery: %s %s %s", rv(ri, "siem"), rv(ri, "siem_target"),
	       !strcmp(rv(ri, "siem_connected"), "1") ? "connected" : "NOT connected");
	if (strcmp(rv(ri, "siem_last_error"), "?") && ago(ri, "siem_last_error_usec", a, sizeof(a))) {
		printf(", last error %s ago: ", a);
		put_name_tty(stdout, rv(ri, "siem_last_error"), strlen(rv(ri, "siem_last_error")));
	}
	if (ago(ri, "siem_last_delivery_usec", a, sizeof(a)))
		printf(", last delivery %s ago", a);
	else
		printf(", nothing delivered yet");
	printf(", %s failure%s", rv(ri, "siem_failures"), !strcmp(rv(ri, "siem_failures"), "1") ? "" : "s");
	if (ago(ri, "spool_oldest_usec", a, sizeof(a)))
		printf(", oldest spooled alert %s old", a);
	if (strcmp(rv(ri, "alerts_parked"), "0") && strcmp(rv(ri, "alerts_parked"), "?"))
		printf(", %s parked", rv(ri, "alerts_parked"));
	putchar('\n');
}

void print_reportd(const struct reportd_info *ri, bool json)
{
	if (json) {
		printf(",\"reportd\":");
		if (ri->err) {
			fputs("null", stdout);
			return;
		}
		printf("{\"stale\":%s", ri->stale ? "true" : "false");
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
	if (ri->err) {
		printf("reportd: unknown (%s: %s)\n", REPORTD_STATUS_PATH, strerror(ri->err));
		return;
	}
	printf("reportd: %s pid %s: records %s, incidents %s (%s open), attacks %s, "
	       "alerts queued %s, dropped %s, spooled %s, lost %s\n",
	       ri->stale ? "STALE state file of" : "running,", rv(ri, "pid"), rv(ri, "records"),
	       rv(ri, "incidents"), rv(ri, "incidents_open"), rv(ri, "attacks"),
	       rv(ri, "alerts_queued"), rv(ri, "alerts_dropped"), rv(ri, "spooled"), rv(ri, "lost"));
	printf("         its view: brute %s, audit %s, mode %s (%s problem%s)\n", rv(ri, "brute"),
	       rv(ri, "audit"), rv(ri, "mode"), rv(ri, "problems"),
	       !strcmp(rv(ri, "problems"), "1") ? "" : "s");
	print_delivery(ri);
}
