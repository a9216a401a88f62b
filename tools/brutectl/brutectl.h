/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brutectl: what the commands share (util.c) and their entry points.
 *
 * Kernel interface (kernel/Documentation/admin-guide/LSM/Brute.rst):
 *   /sys/kernel/security/brute/targets  one line per (uid, target) entry, key=value
 *   /sys/kernel/security/brute/peers    one line per (endpoint, peer) entry, key=value
 *   /sys/kernel/security/brute/stats    the kernel's counters, key=value
 *   /sys/kernel/security/brute/lift     write "UID MAJ:MIN INO", "all", "peer ADDR[/LEN]",
 *                                       "peer uid:UID" or "peer all"
 *   /sys/kernel/security/lsm            the active LSMs
 *   /proc/sys/kernel/brute/NAME         the tunables
 * BRUTE_SYSFS_ROOT (default empty) is prefixed to every /sys and /proc path (tests).
 */
#ifndef BRUTECTL_H
#define BRUTECTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_UNPROTECTED = 3 };

#define TARGETS_PATH "/sys/kernel/security/brute/targets"
#define PEERS_PATH "/sys/kernel/security/brute/peers"
#define LIFT_PATH "/sys/kernel/security/brute/lift"
#define STATS_PATH "/sys/kernel/security/brute/stats"
#define LSM_PATH "/sys/kernel/security/lsm"
#define SYSCTL_DIR "/proc/sys/kernel/brute"

#define NO_TARGETS "this kernel's Brute has no (uid, target) table (older than v2?)"
#define NO_PEERS "this kernel's Brute has no peer table (older than v3?)"

/* ---- util.c ---- */
__attribute__((format(printf, 1, 2)))
void err(const char *fmt, ...);
char *sys_path(const char *path);
const char *escape_tty(char *buf, size_t size, const char *s, size_t len);
const char *snip(char *buf, size_t size, const char *s);
enum { KV_BAD = -2, KV_UNKNOWN = -1 };
int kv_field(char *tok, const char *const names[], int n, bool seen[], const char **val,
	     char *why, size_t size);
bool parse_u64(const char *s, uint64_t max, uint64_t *out);
bool parse_u32(const char *s, uint32_t *out);
bool parse_dev(const char *s, uint32_t *maj, uint32_t *min);
char *decode_name(const char *s, const char *field, size_t *len, char *why, size_t why_size);
const char *brute_absent_hint(const char *missing);
int read_table(const char *rel, const char *missing, size_t esize,
	       bool (*parse)(char *line, void *e, char *why_buf, size_t why_size),
	       void (*release)(void *v, size_t n), void **out, size_t *count);
void put_name_tty(FILE *out, const char *name, size_t len);
void put_json_str(FILE *out, const char *str, size_t len);
void fmt_ms(char *buf, size_t size, uint64_t ms);
void fmt_s(char *buf, size_t size, uint64_t s);
int table_args(int argc, char **argv, const char *cmd, bool *bans, bool *json);
int flushed(int ret);
int read_small(const char *path, char *buf, size_t size);
bool is_number(const char *s);

/* ---- reportd.c: brute-reportd's state file ---- */
#define N_REPORTD_KEYS 40
struct reportd_info {
	int err;	/* 0, or why there is none (ENOENT: not running) */
	bool stale;	/* its pid is gone: a daemon that did not exit cleanly */
	bool plugin;	/* the auditd plugin's file (the service's is absent) */
	char vals[N_REPORTD_KEYS][320];
};
void read_reportd(struct reportd_info *ri);
void print_reportd(const struct reportd_info *ri, bool json);
const char *reportd_value(const struct reportd_info *ri, const char *key);

/* ---- the commands ---- */
int cmd_list(int argc, char **argv);
int cmd_peers(int argc, char **argv);
int cmd_lift(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif
