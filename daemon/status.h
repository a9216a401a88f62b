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
/* the auditd plugin's own (never the service's: each removes its file when it stops) */
#define STATUS_PLUGIN_DIR	"/run/brute-reportd-plugin"
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
	uint64_t lost;		/* netlink receive buffer overruns (records lost in the kernel),
				 * and netlink messages longer than the read buffer */
	uint64_t parked;	/* RELP entries the receiver refused, kept aside */
	uint64_t malformed;	/* Brute records refused: a field missing or invalid */
	uint64_t oversized;	/* lines longer than PARSER_LINE_MAX: skipped */
	uint64_t garbage;	/* lines that are not audit records (or hold a NUL) */
	uint64_t cut;		/* records at auditd's length limit, taken: maybe cut by auditd */
	uint64_t journal_failed;	/* entries the journal refused */
	/* SIEM delivery; siem[0] == 0: no forwarding configured */
	char siem[8];		/* the protocol */
	char siem_target[288];	/* host:port */
	bool connected;
	uint64_t failures;	/* connection attempts that failed, sessions that broke */
	uint64_t resent;	/* entries sent again: their connection ended unconfirmed */
	uint64_t unconfirmed;	/* entries the receiver read without closing its end: delivered
				 * without its confirmation (forward.h) */
	uint64_t last_delivery_usec;	/* realtime of the last entry acknowledged; 0: none */
	uint64_t last_error_usec;	/* realtime of the last failure; 0: none */
	char last_error[256];
	uint64_t oldest_usec;	/* timestamp of the oldest entry still spooled; 0: none */
	/* actions through systemd (actions.h) */
	uint64_t unit_restarts, unit_starts, unit_failures;
	uint64_t peer_actions, peer_action_failures;
	uint64_t remote_ignored;	/* entries of other hosts' records: reported, not acted upon */
	bool backstop_restart;	/* backstop_restart = yes: units are brought back */
};

/* What the last reload (SIGHUP) came to: brute-reportd --reload waits for it. */
struct status_reload {
	uint64_t count;		/* reloads done (applied or refused) since start */
	bool failed;		/* the last one was refused: the running configuration stays */
	char error[256];	/* why */
};

/* The STATUS= line: health first, then the counters. */
void status_text(const struct health *h, const struct status_counters *c, char *buf, size_t len);
/* The auditd plugin (--stdin): its state file is under STATUS_PLUGIN_DIR. */
void status_set_plugin_mode(bool plugin);
/* Directory of the state file: $RUNTIME_DIRECTORY (its first entry), else STATUS_DEFAULT_DIR
 * (STATUS_PLUGIN_DIR for the plugin). */
const char *status_dir(void);
/*
 * Write dir/status atomically (dir/.status.tmp, then rename), creating dir
 * (0755) if needed.  0 or a negative errno.
 */
int status_write(const char *dir, const struct health *h, const struct status_counters *c,
		 const struct status_reload *rl, uint64_t pid, uint64_t started_usec);
/* A key of dir's state file: 0 and its value in val; -ENOENT no file, -ENODATA no key. */
int status_read_key(const char *dir, const char *key, char *val, size_t len);
/* Remove it (at exit: a stale file would show a dead daemon's counters), if it is this
 * process's (its pid=): never another daemon's. */
void status_remove(const char *dir);

#endif
