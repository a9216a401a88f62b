/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h - what the running daemon publishes about itself: the unit's
 * STATUS= (sd_notify, systemctl status) and a state file for brutectl,
 * /run/brute-reportd/status (RuntimeDirectory=; $RUNTIME_DIRECTORY
 * when set), "key=value" lines replaced atomically (rename) on each update.
 */
#ifndef BRUTE_STATUS_H
#define BRUTE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "health.h"

#define STATUS_DEFAULT_DIR	"/run/brute-reportd"
#define STATUS_FILE		"status"
#define STATUS_MIN_INTERVAL_MS	5000	/* counters are published at most this often */

struct status_counters {
	uint64_t records;	/* Brute records read */
	uint64_t incidents;	/* incidents opened */
	uint64_t open;		/* incidents open now */
	uint64_t attacks;
	uint64_t entries;	/* entries written (journal, SIEM, stdout) */
	uint64_t queued;	/* entries queued for the SIEM */
	uint64_t dropped;	/* entries the SIEM never gets: not queued, or dropped from a full spool */
	uint64_t spooled;	/* waiting in the spool now */
	uint64_t lost;		/* netlink receive buffer overruns (records lost in the kernel) */
};

/* The STATUS= line: health first, then the counters. */
void status_text(const struct health *h, const struct status_counters *c, char *buf, size_t len);
/* Directory of the state file: $RUNTIME_DIRECTORY (its first entry) or STATUS_DEFAULT_DIR. */
const char *status_dir(void);
/*
 * Write dir/status atomically (dir/.status.tmp, then rename), creating dir
 * (0755) if needed.  0 or a negative errno.
 */
int status_write(const char *dir, const struct health *h, const struct status_counters *c,
		 uint64_t pid, uint64_t started_usec);
/* Remove it (at exit: a stale file would show a dead daemon's counters). */
void status_remove(const char *dir);

#endif
