/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brutectl status: the services Brute protects: every listening TCP, MPTCP and Unix stream
 * socket of every network namespace, the processes that hold it and their systemd unit
 * (sockets.c), the unit's restart policy and the trusted peers whose scope covers it
 * (services.c).
 *
 * Sources (BRUTE_SYSFS_ROOT is prefixed to each, as to every /proc path):
 *   /proc/PID/ns/net                "net:[INODE]": the processes of each network namespace
 *   /proc/PID/net/{tcp,tcp6,unix}   the sockets of that namespace (one PID per namespace)
 *   /proc/PID/fd/N                  "socket:[INODE]": who holds a listener; its xattr
 *                                   system.sockprotoname says MPTCP (an MPTCP listener's
 *                                   subflow is listed in /proc/net/tcp with the MPTCP
 *                                   socket's inode)
 *   /proc/PID/comm, /proc/PID/cgroup  the holder's name and systemd unit
 *   /run/systemd/system             systemd runs (sd_booted()): `systemctl show` tells the
 *                                   unit's Restart= and start limit
 */
#ifndef BRUTECTL_SERVICES_H
#define BRUTECTL_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { L_TCP, L_MPTCP, L_UNIX };
enum { U_NONE, U_SYSTEM, U_USER };

struct listener {
	int transport;		/* L_TCP, L_MPTCP, L_UNIX */
	uint64_t netns;
	int family;		/* TCP, MPTCP: AF_INET or AF_INET6 */
	unsigned char laddr[16];
	uint32_t lport;
	bool mapped;		/* an IPv6 socket bound to ::ffff:a.b.c.d (IPv4-mapped): family
				 * and laddr say the IPv4 address, as the kernel's trusted list
				 * matches it (its peers file keys it as the IPv6 one) */
	char *path;		/* Unix: as /proc/net/unix shows it ("@" abstract), NULL unnamed */
	size_t path_len;
	bool ambiguous;		/* Unix: its line, or the line after it, may be forged (a path
				 * with a newline can forge a line of /proc/net/unix, found when
				 * its inode is another socket's): its path is not shown */
	uint64_t inode;
	size_t holders;		/* processes holding it */
	pid_t pid;		/* the one whose unit it is listed under (-1: none found) */
	char comm[24];
	uint32_t pid_uid;	/* that process's user (the owner of /proc/PID) */
	int unit_kind;		/* U_NONE, U_SYSTEM, U_USER (a unit of a user's manager) */
	uint32_t unit_uid;	/* U_USER: the manager's user */
	char unit[256];		/* "" without a unit */
};

struct scan {
	struct listener *v;
	size_t n;
	size_t pids;		/* processes seen */
	size_t unreadable;	/* of them, whose sockets could not be read (not root?) */
	size_t bad_lines;	/* lines of /proc/PID/net/ files not understood */
	size_t netns;		/* network namespaces */
};

/* Fills s (scan_free() it); -errno if /proc cannot be read at all. */
int scan_listeners(struct scan *s);
void scan_free(struct scan *s);

/* One line of /proc/net/tcp or tcp6 (family) / unix, exposed for what they check:
 * 1 a listener (filled in; ::ffff:a.b.c.d of tcp6 as the IPv4 address, l->mapped), 0 another
 * socket, -1 a line not understood. */
int parse_tcp_line(char *line, int family, struct listener *l, uint64_t *inode);
int parse_unix_line(const char *line, struct listener *l, uint64_t *inode, bool *named);
/* The unit of a cgroup v2 path ("/system.slice/nginx.service"); false if none. */
bool unit_of_cgroup(const char *path, struct listener *l);

struct trust_entry;
struct reportd_info;
/* The services section of `brutectl status`: text, or JSON (",\"services\":{...}"). */
void print_services(bool json, const struct trust_entry *tv, size_t tn, int trusted_state,
		    int64_t uid_max, const struct reportd_info *ri);

#endif
