// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl lift: lifts bans through /sys/kernel/security/brute/lift.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "brutectl.h"

/* ---- lift ------------------------------------------------------------------------------ */

/* A user name or a decimal uid, not (uid_t)-1 (no user). Returns false (with a message) if
 * neither. */
static bool parse_user(const char *s, uint32_t *uid)
{
	char quoted[168];
	struct passwd *pw;

	if (s[0] >= '0' && s[0] <= '9') {
		if (!parse_u32(s, uid)) {
			err("lift: bad uid '%s'", snip(quoted, sizeof(quoted), s));
			return false;
		}
		if (*uid == UINT32_MAX) {
			err("lift: bad uid '%s' (4294967295 is no user)", snip(quoted, sizeof(quoted), s));
			return false;
		}
		return true;
	}
	errno = 0;
	pw = getpwnam(s);
	if (!pw) {
		err("lift: no such user '%s'", snip(quoted, sizeof(quoted), s));
		return false;
	}
	if (pw->pw_uid == (uid_t)-1) {
		err("lift: user '%s' has uid 4294967295, which is no user",
		    snip(quoted, sizeof(quoted), s));
		return false;
	}
	*uid = pw->pw_uid;
	return true;
}

/* Whether the kernel has a peer table: a lift file without one rejects "peer ..." lines. */
static bool peers_present(void)
{
	char *path = sys_path(PEERS_PATH);
	bool present = access(path, F_OK) == 0;

	free(path);
	return present;
}

/* Writes msg to the lift file; says done if it worked, none if the kernel found no such ban. */
static int write_lift(const char *msg, const char *done, const char *none)
{
	char *path = sys_path(LIFT_PATH);
	size_t len = strlen(msg);
	ssize_t w;
	int fd, e, ret = EXIT_FAIL;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EACCES || e == EPERM)
			err("lift: cannot open %s: %s (lifting a ban needs root)", path, strerror(e));
		else if (e == ENOENT)
			err("lift: cannot open %s: %s: %s", path, strerror(e),
			    brute_absent_hint(strncmp(msg, "peer ", 5) ? NO_TARGETS : NO_PEERS));
		else
			err("lift: cannot open %s: %s", path, strerror(e));
		goto out;
	}
	w = write(fd, msg, len);
	e = errno;
	if (close(fd) && w >= 0) {
		e = errno;
		w = -1;
	}
	if (w == (ssize_t)len) {
		printf("%s\n", done);
		ret = EXIT_OK;
	} else if (w >= 0) {
		err("lift: short write to %s (%zd of %zu bytes)", path, w, len);
	} else if (e == EPERM || e == EACCES) {
		err("lift: %s: %s (lifting a ban needs CAP_SYS_ADMIN)", path, strerror(e));
	} else if (e == ENOENT) {
		err("lift: %s", none);
	} else if (e == EINVAL && !strncmp(msg, "peer ", 5) && !peers_present()) {
		err("lift: the kernel rejected '%s' (EINVAL): %s", msg, NO_PEERS);
	} else if (e == EINVAL) {
		err("lift: the kernel rejected '%s' as malformed (EINVAL)", msg);
	} else {
		err("lift: writing '%s' to %s: %s", msg, path, strerror(e));
	}
out:
	free(path);
	return ret;
}

/*
 * The kernel's lift line for --peer arg (ADDR[/LEN], uid:USER or all) into msg, what to say
 * when it worked into done and when no such ban exists into none. The address is checked
 * here (IPv4 or IPv6, LEN within its bits) and written canonical; an IPv4-mapped IPv6 address
 * is the IPv4 one, as the kernel counts it. Returns false, with a message, if it is invalid.
 */
static bool peer_lift_line(const char *arg, char *msg, size_t msize, char *done, size_t dsize,
			   char *none, size_t nsize)
{
	char addr[INET6_ADDRSTRLEN + 8], text[INET6_ADDRSTRLEN], quoted[168], peer[80];
	struct in6_addr bin6;	/* room for either family, aligned for IN6_IS_ADDR_V4MAPPED */
	unsigned char *bin = bin6.s6_addr;
	const char *slash;
	uint32_t uid, prefix = 0, max;
	int family;

	if (!strcmp(arg, "all")) {
		snprintf(msg, msize, "peer all");
		snprintf(done, dsize, "lifted every peer ban");
		snprintf(none, nsize, "no peer ban to lift");
		return true;
	}
	if (!strncmp(arg, "uid:", 4)) {
		if (!arg[4]) {
			err("lift: --peer uid: needs a user name or a uid");
			return false;
		}
		if (!parse_user(arg + 4, &uid))
			return false;
		snprintf(msg, msize, "peer uid:%" PRIu32, uid);
		snprintf(peer, sizeof(peer), "uid:%" PRIu32, uid);
	} else {
		slash = strchr(arg, '/');
		if (strlen(arg) >= sizeof(addr) || (slash && (size_t)(slash - arg) >= sizeof(text))) {
			err("lift: '%s' is not an IPv4 or IPv6 address", snip(quoted, sizeof(quoted), arg));
			return false;
		}
		snprintf(addr, sizeof(addr), "%.*s", slash ? (int)(slash - arg) : (int)strlen(arg),
			 arg);
		if (inet_pton(AF_INET, addr, bin) == 1) {
			family = AF_INET;
			max = 32;
		} else if (inet_pton(AF_INET6, addr, bin) == 1) {
			family = AF_INET6;
			max = 128;
		} else {
			err("lift: '%s' is not an IPv4 or IPv6 address", snip(quoted, sizeof(quoted), addr));
			return false;
		}
		if (slash && (!parse_u32(slash + 1, &prefix) || prefix > max)) {
			err("lift: bad prefix length '%s' for an IPv%d address (0 to %" PRIu32 ")",
			    snip(quoted, sizeof(quoted), slash + 1), family == AF_INET ? 4 : 6, max);
			return false;
		}
		if (family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&bin6)) {
			if (slash && prefix < 96) {
				err("lift: an IPv4-mapped address needs a prefix length of 96 or more");
				return false;
			}
			memmove(bin, bin + 12, 4);
			family = AF_INET;
			prefix = slash ? prefix - 96 : 32;
		}
		if (!inet_ntop(family, bin, text, sizeof(text))) {
			err("lift: %s: %s", addr, strerror(errno));
			return false;
		}
		if (slash)
			snprintf(peer, sizeof(peer), "%s/%" PRIu32, text, prefix);
		else
			snprintf(peer, sizeof(peer), "%s", text);
		snprintf(msg, msize, "peer %s", peer);
	}
	snprintf(done, dsize, "lifted the peer bans of %s on every endpoint", peer);
	snprintf(none, nsize, "no such peer ban: %s (see brutectl peers --bans)", peer);
	return true;
}

int cmd_lift(int argc, char **argv)
{
	static const char usage[] =
		"usage: brutectl lift USER PATH | brutectl lift USER MAJ:MIN INO | brutectl lift --all\n"
		"       brutectl lift --peer ADDR[/LEN] | brutectl lift --peer uid:USER | "
		"brutectl lift --peer all";
	char msg[96], what[PATH_MAX + 96], done[PATH_MAX + 160], none[PATH_MAX + 160];
	char quoted[168], quoted2[168], path[PATH_MAX];
	uint32_t uid, maj, min;
	uint64_t ino;

	if (argc >= 2 && !strcmp(argv[1], "--all")) {
		if (argc > 2) {
			err("lift: --all: unexpected argument '%s'\n%s",
			    snip(quoted, sizeof(quoted), argv[2]), usage);
			return EXIT_USAGE;
		}
		return write_lift("all", "lifted every ban", "no ban to lift");
	}
	if (argc >= 2 && !strcmp(argv[1], "--peer")) {
		if (argc != 3) {
			err("lift: --peer takes one argument: ADDR[/LEN], uid:USER or all\n%s", usage);
			return EXIT_USAGE;
		}
		if (!peer_lift_line(argv[2], msg, sizeof(msg), done, sizeof(done), none,
				    sizeof(none)))
			return EXIT_USAGE;
		return write_lift(msg, done, none);
	}
	if (argc == 3) {
		struct stat st;

		if (argv[1][0] == '-' || argv[2][0] == '-') {
			err("lift: unknown option '%s'\n%s",
			    snip(quoted, sizeof(quoted), argv[argv[1][0] == '-' ? 1 : 2]), usage);
			return EXIT_USAGE;
		}
		if (!parse_user(argv[1], &uid))
			return EXIT_USAGE;
		/* the path as given for messages: its control bytes escaped, bounded */
		escape_tty(path, sizeof(path), argv[2], strnlen(argv[2], sizeof(path)));
		if (stat(argv[2], &st)) {
			err("lift: cannot stat %s: %s", path, strerror(errno));
			return EXIT_FAIL;
		}
		maj = major(st.st_dev);
		min = minor(st.st_dev);
		ino = st.st_ino;
		snprintf(what, sizeof(what), "uid %" PRIu32 " on %s (%" PRIu32 ":%" PRIu32
			 " %" PRIu64 ")", uid, path, maj, min, ino);
	} else if (argc == 4) {
		if (!parse_dev(argv[2], &maj, &min) || !parse_u64(argv[3], UINT64_MAX, &ino)) {
			err("lift: expected MAJ:MIN INO (decimal), got '%s %s'\n%s",
			    snip(quoted, sizeof(quoted), argv[2]), snip(quoted2, sizeof(quoted2), argv[3]),
			    usage);
			return EXIT_USAGE;
		}
		if (!parse_user(argv[1], &uid))
			return EXIT_USAGE;
		snprintf(what, sizeof(what), "uid %" PRIu32 " on %" PRIu32 ":%" PRIu32 " %" PRIu64,
			 uid, maj, min, ino);
	} else {
		err("lift: wrong number of arguments\n%s", usage);
		return EXIT_USAGE;
	}
	snprintf(msg, sizeof(msg), "%" PRIu32 " %" PRIu32 ":%" PRIu32 " %" PRIu64,
		 uid, maj, min, ino);
	snprintf(done, sizeof(done), "lifted the ban of %s", what);
	snprintf(none, sizeof(none), "no such ban: %s (see brutectl list --bans)", what);
	return write_lift(msg, done, none);
}
