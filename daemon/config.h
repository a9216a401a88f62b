/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h - /etc/brute/reportd.conf: "key = value" lines, '#' comments.
 */
#ifndef BRUTE_CONFIG_H
#define BRUTE_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "correlate.h"
#include "forward.h"

#define CONFIG_DEFAULT_PATH "/etc/brute/reportd.conf"
#define SPOOL_DEFAULT_DIR "/var/lib/brute-reportd"
/* --stdin (auditd runs it): a spool of its own, never the service's */
#define SPOOL_PLUGIN_DIR "/var/lib/brute-reportd/plugin"

/* backstop_reload's default: units whose reload executes them again (brute-reportd(8)) */
#define BACKSTOP_RELOAD_DEFAULT	"php*-fpm.service php*-fpm@*.service ssh.service sshd.service"

struct brute_config {
	uint64_t netlink_rcvbuf;
	struct correlate_config corr;
	bool journal;
	struct forward_config fwd;
	unsigned siem_kinds;		/* bit per enum entry_kind */
	char spool_dir[PATH_MAX];
	uint64_t spool_max_size;
	uint64_t spool_min_free;	/* free bytes the spool leaves on its file system */
	bool spool_sync;
	int log_level;
	/* actions through systemd (actions.h) */
	bool backstop_restart;		/* restart, or bring back, a unit the backstop restarted or killed */
	char peer_action[256];		/* template unit run on a peer ban and its end, or "none" */
	char backstop_reload[512];	/* units whose reload executes them again, patterns */
};

/* The defaults of the auditd plugin (--stdin): spool_dir is SPOOL_PLUGIN_DIR. */
void config_set_plugin_mode(bool plugin);
void config_defaults(struct brute_config *cfg);
/*
 * Load path over the defaults in *cfg.  Every bad line is logged as
 * "path:line: problem"; any error makes the whole file rejected (-EINVAL)
 * and *cfg is left untouched.  A file owned by neither root nor the
 * effective user (for root: not owned by root), or writable by others, is
 * refused (-EPERM).  -ENOENT if it does not exist.
 */
int config_load(const char *path, struct brute_config *cfg);
/*
 * Defaults, then path over them, into *cfg only if that succeeds.  A
 * missing file is an error when required (a file named on the command
 * line; any reload: a reload that cannot read its file must keep the
 * running configuration), else it means the defaults.
 */
int config_read(const char *path, bool required, struct brute_config *cfg);
/* Load from a string (tests); name is used in messages. */
int config_parse_string(const char *name, const char *text, struct brute_config *cfg);

#endif
