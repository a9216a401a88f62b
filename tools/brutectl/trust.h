/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brutectl: Brute's trusted peers (response v4): the entries of the kernel's trusted list,
 * their operator syntax (the trusted-peers file, `brutectl trust add`) and the kernel's.
 *
 * Kernel interface (/work/v4-contract.md, Brute.rst):
 *   /sys/kernel/security/brute/trusted   read: "trusted=PREFIX|uid:A[-B] [netns=N] [laddr=A]
 *                                        [lport=P] crashes=N", one line per entry;
 *                                        write: "add SPEC", "del SPEC", "flush" lines, one
 *                                        write(2) one transaction (all or nothing)
 *   /proc/sys/kernel/brute/trusted_uid_max   local uids 1..N are relays
 */
#ifndef BRUTECTL_TRUST_H
#define BRUTECTL_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRUSTED_PATH "/sys/kernel/security/brute/trusted"
#define TRUSTED_UID_MAX_PATH "/proc/sys/kernel/brute/trusted_uid_max"
#define TRUSTED_CONF "/etc/brute/trusted-peers.conf"
#define NO_TRUSTED "this kernel's Brute has no trusted list (older than v4?)"
#define TRUST_MAX_ENTRIES 1024	/* the kernel's bound (ENOSPC beyond) */
#define TRUST_MAX_WRITE 131072	/* one write(2), one transaction (EFBIG beyond) */
#define TRUST_MAX_LINE 1024	/* a line of the file */

/* One trusted entry: an address prefix or a uid range, and its scope. */
struct trust_entry {
	int family;		/* AF_INET, AF_INET6: a prefix; AF_UNIX: a uid range */
	unsigned char addr[16];	/* masked to prefix (4 bytes used for AF_INET) */
	uint32_t prefix;
	uint32_t uid_first, uid_last;
	bool has_netns;		/* scope: one network namespace (by inode) */
	uint64_t netns;
	bool has_laddr;		/* scope: the listener's bound address (only with lport) */
	int laddr_family;
	unsigned char laddr[16];
	bool has_lport;		/* scope: the listener's port */
	uint32_t lport;
	uint64_t crashes;	/* the kernel's list: crashes not charged because of it */
	unsigned lineno;	/* a file's entries: its line */
};

/*
 * One entry in the operator's syntax (the file's and `brutectl trust add`'s), its tokens
 * already split on blanks: PEER [netns=PATH|INODE] [endpoint=ADDR:PORT|[ADDR6]:PORT|*:PORT],
 * PEER an address (a host), ADDR/LEN, uid:USER, uid:UID or uid:FIRST-LAST. Network
 * namespace paths are resolved to their inode here. Returns false with why.
 */
bool trust_parse(char **tok, size_t ntok, struct trust_entry *e, char *why, size_t why_size);
/* A warning about an entry that parses (0.0.0.0/0: every peer trusted), or NULL. */
const char *trust_warning(const struct trust_entry *e);
/* The kernel's own form of the peer (trusted= of its list): ADDR/LEN (masked), uid:A[-B]. */
bool trust_parse_kernel_peer(const char *s, struct trust_entry *e);

/* The entry as the kernel's write syntax takes it (SPEC of "add SPEC"). */
void trust_kernel_spec(const struct trust_entry *e, char *buf, size_t size);
/* The entry in the operator's syntax (what `brutectl trust del` and the file take). */
void trust_spec(const struct trust_entry *e, char *buf, size_t size);
/* The prefix or uid range alone: "10.0.0.0/8", "uid:33", "uid:2000-2099". */
void trust_peer_text(const struct trust_entry *e, char *buf, size_t size);
/* The scope for people: "any", "0.0.0.0:80", "[::]:443", "*:80". */
void trust_endpoint_text(const struct trust_entry *e, char *buf, size_t size);
/* Same prefix or uid range and the same scope (crashes and lineno aside). */
bool trust_same(const struct trust_entry *a, const struct trust_entry *b);

/*
 * The operator's file: every line parsed, every error printed as FILE:LINE: why (warnings
 * too); a file that is not a regular file of root (or of the user running brutectl)
 * writable by its owner only is refused. *v (malloc'd) gets the entries, duplicates
 * dropped. Returns the number of errors, or -1 if the file cannot be read or is refused.
 */
int trust_read_conf(const char *path, struct trust_entry **v, size_t *n);

/* The kernel's list (TRUSTED_PATH). Prints why and returns -1 on failure; absent_ok: a
 * kernel without the file gives 1 (and no message) instead. */
int trust_read_kernel(struct trust_entry **v, size_t *n, bool absent_ok);
/* trusted_uid_max, or -errno. */
int64_t trust_uid_max(void);

/* The table (as `brutectl trust list` shows it) and the JSON array of entries. */
void trust_print_table(const struct trust_entry *v, size_t n);
void trust_print_json_array(const struct trust_entry *v, size_t n);
/* "local uids 1-999 are trusted relays (...)" for uid_max (trust_uid_max()'s). */
void trust_print_uid_max(int64_t uid_max);

/* Whether an entry covers a listener: TCP/MPTCP (family, laddr, lport) or Unix (unix_ep):
 * its scope matches, and its peers can reach the listener (an IPv4 prefix an IPv4 listener,
 * an IPv6 one bound to an IPv4-mapped address, which is that IPv4 address as the kernel
 * compares it, or one bound to :: (dual-stack); an IPv6 prefix an IPv6 listener only; a uid
 * range any listener). */
bool trust_covers(const struct trust_entry *e, uint64_t netns, bool unix_ep, int family,
		  const unsigned char *laddr, uint32_t lport);

int cmd_trust(int argc, char **argv);

#endif
