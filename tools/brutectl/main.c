// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl: list and lift Brute's (uid, target) and peer bans and counters, show its tunables.
 * main.c: the command line; each command in its own file (brutectl.h).
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
 *
 * Exit status: 0 success, 1 the operation failed, 2 usage error; status: 3 the host is not
 * protected (Brute not active, in mode 0, audit disabled, or its state cannot be read).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brutectl.h"
#include "trust.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

/* ---- main ------------------------------------------------------------------------------ */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: brutectl [-h|--help] [--version] COMMAND [ARGS]\n"
		"\n"
		"Commands:\n"
		"  list [--bans] [--json]    Brute's (uid, target) table: counters and bans\n"
		"  peers [--bans] [--json]   Brute's peer table: who crashed which service, bans\n"
		"  lift USER PATH            lift USER's ban on the executable PATH\n"
		"  lift USER MAJ:MIN INO     lift USER's ban on the target dev:ino (as listed)\n"
		"  lift --all                lift every ban (of users and of peers)\n"
		"  lift --peer ADDR[/LEN]    lift the peer bans of that IPv4/IPv6 address or prefix\n"
		"  lift --peer uid:USER      lift the peer bans of that Unix socket user\n"
		"  lift --peer all           lift every peer ban\n"
		"  status [--json]           whether Brute and audit are active, its counters, the\n"
		"                            tunables, the services it protects\n"
		"  trust list [--json]       the trusted peers (proxies, load balancers, relay uids)\n"
		"  trust add SPEC...         trust these peers (until the next load)\n"
		"  trust del SPEC...         no longer trust them\n"
		"  trust load [FILE]         replace the list with FILE's (" TRUSTED_CONF ")\n"
		"  trust check [FILE]        check FILE, change nothing\n"
		"\n"
		"USER is a user name or a uid. SPEC: ADDR[/LEN] [netns=PATH|INODE]\n"
		"[endpoint=ADDR:PORT|[ADDR6]:PORT|*:PORT], or uid:USER|uid:FIRST-LAST [netns=...].\n"
		"Reading the tables and changing them need root.\n"
		"Exit status: 0 success, 1 the operation failed, 2 usage error; status: 3 the host\n"
		"is not protected (Brute not active or in mode 0, or audit disabled).\n"
		"Environment: BRUTE_SYSFS_ROOT is prefixed to the /sys and /proc paths.\n");
}

int main(int argc, char **argv)
{
	char quoted[168];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("brutectl %s\n", VERSION);
		return EXIT_OK;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
	}
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "peers"))
		return cmd_peers(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lift"))
		return cmd_lift(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trust"))
		return cmd_trust(argc - 1, argv + 1);
	err("unknown command '%s'", snip(quoted, sizeof(quoted), argv[1]));
	usage(stderr);
	return EXIT_USAGE;
}
