/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reload.c - brute-reportd --reload: SIGHUP, then the daemon's verdict.
 */
#include "reload.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "status.h"
#include "util.h"

#define RELOAD_POLL_MS 50

static int read_u64(const char *dir, const char *key, uint64_t *v)
{
	char buf[64];
	int r = status_read_key(dir, key, buf, sizeof(buf));

	if (r == 0 && parse_u64(buf, v) < 0)
		r = -EBADMSG;
	return r;
}

int reload_client(const char *dir, unsigned timeout_ms)
{
	const char *mainpid = getenv("MAINPID");	/* set by systemd for ExecReload= */
	uint64_t pid = 0, before, now, end;
	char result[16], error[256];
	int r;

	r = read_u64(dir, "reloads", &before);
	if (r == 0)
		r = read_u64(dir, "pid", &pid);
	if (r < 0) {
		log_error("cannot read %s/%s: %s (is brute-reportd running?)", dir, STATUS_FILE,
			  r == -ENODATA ? "no reload count in it (an older brute-reportd?)" : strerror(-r));
		return r;
	}
	if (mainpid && *mainpid && parse_u64(mainpid, &pid) < 0) {
		log_error("MAINPID=%s is not a pid", mainpid);
		return -EINVAL;
	}
	if (pid == 0 || pid > INT32_MAX || kill((pid_t)pid, SIGHUP) < 0) {
		r = pid == 0 || pid > INT32_MAX ? -ESRCH : -errno;
		log_error("cannot signal brute-reportd (pid %llu): %s", (unsigned long long)pid,
			  strerror(-r));
		return r;
	}
	end = now_monotonic_ms() + timeout_ms;
	for (;;) {
		struct timespec ts = { 0, RELOAD_POLL_MS * 1000000L };

		if (read_u64(dir, "reloads", &now) == 0 && now > before)
			break;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			log_error("brute-reportd (pid %llu) exited during the reload", (unsigned long long)pid);
			return -ESRCH;
		}
		if (now_monotonic_ms() >= end) {
			log_error("brute-reportd (pid %llu) gave no verdict on the reload within %u s",
				  (unsigned long long)pid, timeout_ms / 1000);
			return -ETIMEDOUT;
		}
		nanosleep(&ts, NULL);
	}
	if (status_read_key(dir, "reload_result", result, sizeof(result)) == 0 &&
	    !strcmp(result, "ok")) {
		log_info("brute-reportd (pid %llu) reloaded its configuration", (unsigned long long)pid);
		return 0;
	}
	if (status_read_key(dir, "reload_error", error, sizeof(error)) < 0)
		snprintf(error, sizeof(error), "(no reason given)");
	log_error("reload refused, brute-reportd keeps its running configuration: %s", error);
	return -EINVAL;
}
