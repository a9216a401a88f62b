// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl: the syntax of a trusted entry: the operator's (the trusted-peers file, `brutectl
 * trust add|del`), parsed and checked here, and the kernel's, written and read back.
 *
 * Operator's syntax, one entry: PEER [netns=NS] [endpoint=EP]
 *   PEER  ADDR (a host: /32 or /128), ADDR/LEN (the address bits beyond LEN must be zero),
 *         uid:USER (a name, resolved now), uid:UID or uid:FIRST-LAST (decimal)
 *   NS    an absolute path to a network namespace (/run/netns/NAME, /proc/PID/ns/net),
 *         resolved to its inode now, or the inode number itself
 *   EP    the listener: IPv4:PORT, [IPv6]:PORT, or *:PORT (any address); ADDR entries only,
 *         one their peers can reach ([::ffff:IPv4] is IPv4, as the kernel keeps it)
 * Kernel's syntax: ADDR/LEN|uid:A[-B] [netns=INODE] [laddr=ADDR lport=PORT | lport=PORT].
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/nsfs.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "brutectl.h"
#include "trust.h"

#define UID_LAST_VALID 4294967294u	/* (uid_t)-1 is no user */

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* Clears the bits of addr beyond prefix. */
static void mask_addr(unsigned char *addr, int family, uint32_t prefix)
{
	size_t len = addr_len(family);

	for (size_t i = 0; i < len; i++) {
		uint32_t bit = (uint32_t)i * 8;

		if (bit >= prefix)
			addr[i] = 0;
		else if (prefix - bit < 8)
			addr[i] &= (unsigned char)(0xff << (8 - (prefix - bit)));
	}
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* ADDR or ADDR/LEN: IPv4-mapped IPv6 is IPv4, as the kernel counts it. */
static bool parse_prefix(const char *s, struct trust_entry *e, char *why, size_t size)
{
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	char addr[INET6_ADDRSTRLEN], quoted[168], text[INET6_ADDRSTRLEN];
	struct in6_addr a6;	/* room for either family, aligned for IN6_IS_ADDR_V4MAPPED */
	unsigned char masked[16];
	uint32_t max, prefix;

	if (alen == 0 || alen >= sizeof(addr))
		goto notaddr;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	memset(&a6, 0, sizeof(a6));
	if (inet_pton(AF_INET, addr, a6.s6_addr) == 1) {
		e->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, addr, a6.s6_addr) == 1) {
		e->family = AF_INET6;
		max = 128;
	} else {
		goto notaddr;
	}
	prefix = max;
	if (slash && (!parse_u32(slash + 1, &prefix) || prefix > max)) {
		snprintf(why, size, "bad prefix length '%s' for an IPv%d address (0 to %" PRIu32 ")",
			 snip(quoted, sizeof(quoted), slash + 1), e->family == AF_INET ? 4 : 6, max);
		return false;
	}
	if (e->family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a6)) {
		if (prefix < 96) {
			snprintf(why, size, "an IPv4-mapped address needs a prefix length of 96 or more");
			return false;
		}
		memmove(a6.s6_addr, a6.s6_addr + 12, 4);
		memset(a6.s6_addr + 4, 0, 12);
		e->family = AF_INET;
		prefix -= 96;
	}
	memcpy(masked, a6.s6_addr, sizeof(masked));
	mask_addr(masked, e->family, prefix);
	if (memcmp(masked, a6.s6_addr, addr_len(e->family))) {
		inet_ntop(e->family, masked, text, sizeof(text));
		snprintf(why, size, "'%s' has address bits set beyond /%" PRIu32 " (%s/%" PRIu32 "?)",
			 snip(quoted, sizeof(quoted), s), prefix, text, prefix);
		return false;
	}
	memcpy(e->addr, masked, sizeof(e->addr));
	e->prefix = prefix;
	return true;
notaddr:
	snprintf(why, size, "'%s' is not an IPv4 or IPv6 address or prefix, nor uid:USER",
		 snip(quoted, sizeof(quoted), s));
	return false;
}

/* A decimal uid that is a user: 0 .. 4294967294. */
static bool parse_uid_num(const char *s, size_t n, uint32_t *out)
{
	char buf[16];
	uint64_t v;

	if (!all_digits(s, n) || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!parse_u64(buf, UID_LAST_VALID, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* What follows "uid:": USER (a name), UID, or FIRST-LAST. */
static bool parse_uid_peer(const char *s, struct trust_entry *e, char *why, size_t size)
{
	const char *dash = strchr(s, '-');
	char quoted[168];
	struct passwd *pw;

	e->family = AF_UNIX;
	if (!*s) {
		snprintf(why, size, "uid: needs a user name, a uid or a range FIRST-LAST");
		return false;
	}
	if (s[0] >= '0' && s[0] <= '9') {
		/* numeric (a user name does not start with a digit) */
		if (!dash) {
			if (!parse_uid_num(s, strlen(s), &e->uid_first)) {
				snprintf(why, size, "bad uid '%s' (0 to 4294967294)",
					 snip(quoted, sizeof(quoted), s));
				return false;
			}
			e->uid_last = e->uid_first;
			return true;
		}
		if (!parse_uid_num(s, (size_t)(dash - s), &e->uid_first) ||
		    !parse_uid_num(dash + 1, strlen(dash + 1), &e->uid_last)) {
			snprintf(why, size, "bad uid range '%s' (FIRST-LAST, each 0 to 4294967294)",
				 snip(quoted, sizeof(quoted), s));
			return false;
		}
		if (e->uid_first > e->uid_last) {
			snprintf(why, size, "empty uid range '%s' (FIRST is above LAST)",
				 snip(quoted, sizeof(quoted), s));
			return false;
		}
		return true;
	}
	errno = 0;
	pw = getpwnam(s);
	if (!pw) {
		snprintf(why, size, "no such user '%s'", snip(quoted, sizeof(quoted), s));
		return false;
	}
	if (pw->pw_uid > UID_LAST_VALID) {
		snprintf(why, size, "user '%s' has uid %u, which is no user",
			 snip(quoted, sizeof(quoted), s), (unsigned)pw->pw_uid);
		return false;
	}
	e->uid_first = e->uid_last = pw->pw_uid;
	return true;
}

static const char *ns_type_name(int type)
{
	switch (type) {
	case CLONE_NEWNS:
		return "mount";
	case CLONE_NEWUTS:
		return "UTS";
	case CLONE_NEWIPC:
		return "IPC";
	case CLONE_NEWUSER:
		return "user";
	case CLONE_NEWPID:
		return "PID";
	case CLONE_NEWCGROUP:
		return "cgroup";
#ifdef CLONE_NEWTIME
	case CLONE_NEWTIME:
		return "time";
#endif
	}
	return "non-network";
}

/*
 * netns=PATH (a network namespace file: its inode is the namespace's, what the kernel takes)
 * or netns=INODE. Only a regular file is opened (nsfs files are; no FIFO or device is).
 */
static bool parse_netns(const char *v, struct trust_entry *e, char *why, size_t size)
{
	char quoted[168];
	struct stat st, fst;
	uint64_t ino;
	int fd, type;

	if (!*v) {
		snprintf(why, size, "netns= needs a path (/run/netns/NAME, /proc/PID/ns/net) or an "
			 "inode number");
		return false;
	}
	if (v[0] != '/') {
		if (!all_digits(v, strlen(v)) || !parse_u64(v, UINT32_MAX, &ino) || ino == 0) {
			snprintf(why, size, "netns=%s: neither an absolute path nor an inode number",
				 snip(quoted, sizeof(quoted), v));
			return false;
		}
		e->has_netns = true;
		e->netns = ino;
		return true;
	}
	if (stat(v, &st)) {
		snprintf(why, size, "netns=%s: %s", snip(quoted, sizeof(quoted), v), strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode))
		goto notns;
	fd = open(v, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, size, "netns=%s: %s", snip(quoted, sizeof(quoted), v), strerror(errno));
		return false;
	}
	if (fstat(fd, &fst) || fst.st_ino != st.st_ino || fst.st_dev != st.st_dev) {
		close(fd);
		snprintf(why, size, "netns=%s: changed while it was read", snip(quoted, sizeof(quoted), v));
		return false;
	}
	type = ioctl(fd, NS_GET_NSTYPE);
	close(fd);
	if (type < 0)
		goto notns;
	if (type != CLONE_NEWNET) {
		snprintf(why, size, "netns=%s: a %s namespace, not a network namespace",
			 snip(quoted, sizeof(quoted), v), ns_type_name(type));
		return false;
	}
	e->has_netns = true;
	e->netns = fst.st_ino;
	return true;
notns:
	snprintf(why, size, "netns=%s: not a namespace (/run/netns/NAME, /proc/PID/ns/net)",
		 snip(quoted, sizeof(quoted), v));
	return false;
}

/*
 * endpoint=IPv4:PORT, [IPv6]:PORT or *:PORT. An IPv4-mapped [::ffff:a.b.c.d] is the IPv4
 * address, as the kernel keeps it (and lists it: laddr=a.b.c.d), so that add, del and list
 * agree.
 */
static bool parse_endpoint(const char *v, struct trust_entry *e, char *why, size_t size)
{
	const char *colon = strrchr(v, ':'), *port;
	char addr[INET6_ADDRSTRLEN], quoted[168];
	struct in6_addr a6;	/* aligned for IN6_IS_ADDR_V4MAPPED */
	size_t alen;
	uint64_t p;

	if (!colon)
		goto bad;
	port = colon + 1;
	if (v[0] == '*' && colon == v + 1) {
		e->has_laddr = false;
	} else if (v[0] == '[') {
		alen = (size_t)(colon - v);
		if (alen < 3 || v[alen - 1] != ']' || alen - 2 >= sizeof(addr))
			goto bad;
		memcpy(addr, v + 1, alen - 2);
		addr[alen - 2] = '\0';
		if (inet_pton(AF_INET6, addr, &a6) != 1)
			goto bad;
		memset(e->laddr, 0, sizeof(e->laddr));
		e->has_laddr = true;
		if (IN6_IS_ADDR_V4MAPPED(&a6)) {
			memcpy(e->laddr, a6.s6_addr + 12, 4);
			e->laddr_family = AF_INET;
		} else {
			memcpy(e->laddr, a6.s6_addr, sizeof(e->laddr));
			e->laddr_family = AF_INET6;
		}
	} else {
		alen = (size_t)(colon - v);
		if (alen == 0 || alen >= sizeof(addr))
			goto bad;
		memcpy(addr, v, alen);
		addr[alen] = '\0';
		if (inet_pton(AF_INET, addr, e->laddr) != 1)
			goto bad;
		e->has_laddr = true;
		e->laddr_family = AF_INET;
	}
	if (!all_digits(port, strlen(port)) || !parse_u64(port, 65535, &p) || p == 0) {
		snprintf(why, size, "bad port in endpoint '%s' (1 to 65535)",
			 snip(quoted, sizeof(quoted), v));
		return false;
	}
	e->has_lport = true;
	e->lport = (uint32_t)p;
	return true;
bad:
	snprintf(why, size, "bad endpoint '%s' (IPv4:PORT, [IPv6]:PORT or *:PORT)",
		 snip(quoted, sizeof(quoted), v));
	return false;
}

/*
 * Whether the peers of an address entry can reach the listener of its endpoint at all (the
 * rule of trust_covers()): an IPv6 peer never reaches an IPv4 listener; an IPv4 peer reaches
 * an IPv6 one only bound to :: (dual-stack). An entry that could never match is refused.
 */
static bool reachable(const struct trust_entry *e, char *why, size_t size)
{
	char ep[64];

	if (!e->has_laddr ||
	    trust_covers(e, e->netns, false, e->laddr_family, e->laddr, e->lport))
		return true;
	trust_endpoint_text(e, ep, sizeof(ep));
	if (e->family == AF_INET6)
		snprintf(why, size, "an IPv6 peer never reaches the IPv4 listener %s: the entry "
			 "would never match", ep);
	else
		snprintf(why, size, "an IPv4 peer reaches an IPv6 listener only on [::] (dual-stack), "
			 "not on %s: the entry would never match", ep);
	return false;
}

bool trust_parse(char **tok, size_t ntok, struct trust_entry *e, char *why, size_t why_size)
{
	bool seen_netns = false, seen_ep = false;
	char quoted[168];

	memset(e, 0, sizeof(*e));
	if (ntok == 0) {
		snprintf(why, why_size, "empty entry");
		return false;
	}
	if (strchr(tok[0], '=')) {
		snprintf(why, why_size, "'%s' needs an address, a prefix or uid:USER before it",
			 snip(quoted, sizeof(quoted), tok[0]));
		return false;
	}
	if (!strncmp(tok[0], "uid:", 4)) {
		if (!parse_uid_peer(tok[0] + 4, e, why, why_size))
			return false;
	} else if (!parse_prefix(tok[0], e, why, why_size)) {
		return false;
	}
	for (size_t i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq) {
			snprintf(why, why_size, "unexpected '%s' (one peer per entry; its scope: "
				 "netns=..., endpoint=...)", snip(quoted, sizeof(quoted), tok[i]));
			return false;
		}
		if (!strncmp(tok[i], "netns=", 6)) {
			if (seen_netns) {
				snprintf(why, why_size, "netns= given twice");
				return false;
			}
			seen_netns = true;
			if (!parse_netns(eq + 1, e, why, why_size))
				return false;
		} else if (!strncmp(tok[i], "endpoint=", 9)) {
			if (seen_ep) {
				snprintf(why, why_size, "endpoint= given twice");
				return false;
			}
			seen_ep = true;
			if (e->family == AF_UNIX) {
				snprintf(why, why_size, "endpoint= is for address entries; a uid entry "
					 "takes netns= only");
				return false;
			}
			if (!parse_endpoint(eq + 1, e, why, why_size))
				return false;
		} else {
			*eq = '\0';
			snprintf(why, why_size, "unknown field '%s' (netns=, endpoint=)",
				 snip(quoted, sizeof(quoted), tok[i]));
			*eq = '=';
			return false;
		}
	}
	return reachable(e, why, why_size);
}

bool trust_parse_kernel_peer(const char *s, struct trust_entry *e)
{
	const char *slash, *dash;
	char addr[INET6_ADDRSTRLEN];
	unsigned char masked[16];
	uint32_t max;

	if (!strncmp(s, "uid:", 4)) {
		s += 4;
		e->family = AF_UNIX;
		dash = strchr(s, '-');
		if (!dash) {
			e->uid_last = 0;
			if (!parse_uid_num(s, strlen(s), &e->uid_first))
				return false;
			e->uid_last = e->uid_first;
			return true;
		}
		/* a range only when FIRST != LAST */
		return parse_uid_num(s, (size_t)(dash - s), &e->uid_first) &&
		       parse_uid_num(dash + 1, strlen(dash + 1), &e->uid_last) &&
		       e->uid_first < e->uid_last;
	}
	slash = strchr(s, '/');
	if (!slash || slash == s || (size_t)(slash - s) >= sizeof(addr))
		return false;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	memset(e->addr, 0, sizeof(e->addr));
	if (inet_pton(AF_INET, addr, e->addr) == 1) {
		e->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, addr, e->addr) == 1) {
		e->family = AF_INET6;
		max = 128;
	} else {
		return false;
	}
	if (!parse_u32(slash + 1, &e->prefix) || e->prefix > max)
		return false;
	memcpy(masked, e->addr, sizeof(masked));
	mask_addr(masked, e->family, e->prefix);
	return !memcmp(masked, e->addr, sizeof(masked));	/* the kernel prints it masked */
}

const char *trust_warning(const struct trust_entry *e)
{
	if (e->family == AF_INET && e->prefix == 0)
		return "0.0.0.0/0 trusts every IPv4 address: no IPv4 peer in its scope can be banned";
	if (e->family == AF_INET6 && e->prefix == 0)
		return "::/0 trusts every IPv6 address: no IPv6 peer in its scope can be banned";
	if (e->family == AF_UNIX && e->uid_first == 0 && e->uid_last == 0)
		return "uid 0 (root) is never charged anyway: the entry changes nothing";
	return NULL;
}

void trust_peer_text(const struct trust_entry *e, char *buf, size_t size)
{
	char text[INET6_ADDRSTRLEN];

	if (e->family == AF_UNIX) {
		if (e->uid_first == e->uid_last)
			snprintf(buf, size, "uid:%" PRIu32, e->uid_first);
		else
			snprintf(buf, size, "uid:%" PRIu32 "-%" PRIu32, e->uid_first, e->uid_last);
		return;
	}
	if (!inet_ntop(e->family, e->addr, text, sizeof(text)))
		snprintf(text, sizeof(text), "?");
	snprintf(buf, size, "%s/%" PRIu32, text, e->prefix);
}

void trust_endpoint_text(const struct trust_entry *e, char *buf, size_t size)
{
	char text[INET6_ADDRSTRLEN];

	if (!e->has_lport) {
		snprintf(buf, size, "any");
		return;
	}
	if (!e->has_laddr) {
		snprintf(buf, size, "*:%" PRIu32, e->lport);
		return;
	}
	if (!inet_ntop(e->laddr_family, e->laddr, text, sizeof(text)))
		snprintf(text, sizeof(text), "?");
	snprintf(buf, size, e->laddr_family == AF_INET6 ? "[%s]:%" PRIu32 : "%s:%" PRIu32, text,
		 e->lport);
}

void trust_kernel_spec(const struct trust_entry *e, char *buf, size_t size)
{
	char text[INET6_ADDRSTRLEN];
	size_t n;

	trust_peer_text(e, buf, size);
	n = strlen(buf);
	if (e->has_netns && n < size)
		n += (size_t)snprintf(buf + n, size - n, " netns=%" PRIu64, e->netns);
	if (e->has_laddr && n < size) {
		if (!inet_ntop(e->laddr_family, e->laddr, text, sizeof(text)))
			snprintf(text, sizeof(text), "?");
		n += (size_t)snprintf(buf + n, size - n, " laddr=%s", text);
	}
	if (e->has_lport && n < size)
		snprintf(buf + n, size - n, " lport=%" PRIu32, e->lport);
}

void trust_spec(const struct trust_entry *e, char *buf, size_t size)
{
	char ep[64];
	size_t n;

	trust_peer_text(e, buf, size);
	n = strlen(buf);
	if (e->has_netns && n < size)
		n += (size_t)snprintf(buf + n, size - n, " netns=%" PRIu64, e->netns);
	if (e->has_lport && n < size) {
		trust_endpoint_text(e, ep, sizeof(ep));
		snprintf(buf + n, size - n, " endpoint=%s", ep);
	}
}

bool trust_same(const struct trust_entry *a, const struct trust_entry *b)
{
	if (a->family != b->family || a->has_netns != b->has_netns ||
	    a->has_laddr != b->has_laddr || a->has_lport != b->has_lport)
		return false;
	if (a->family == AF_UNIX) {
		if (a->uid_first != b->uid_first || a->uid_last != b->uid_last)
			return false;
	} else if (a->prefix != b->prefix || memcmp(a->addr, b->addr, addr_len(a->family))) {
		return false;
	}
	if (a->has_netns && a->netns != b->netns)
		return false;
	if (a->has_laddr && (a->laddr_family != b->laddr_family ||
			     memcmp(a->laddr, b->laddr, addr_len(a->laddr_family))))
		return false;
	return !a->has_lport || a->lport == b->lport;
}

/*
 * A listener's address as the kernel compares it: an IPv4-mapped IPv6 one (::ffff:a.b.c.d) is
 * the IPv4 address (the kernel keeps both IPv4-mapped: laddr=10.0.0.1 is the listener on
 * ::ffff:10.0.0.1). Into out (16 bytes, 4 used for IPv4); returns its family.
 */
static int canon_laddr(int family, const unsigned char *addr, unsigned char *out)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(out, 0, 16);
	if (family == AF_INET6 && !memcmp(addr, mapped, sizeof(mapped))) {
		memcpy(out, addr + 12, 4);
		return AF_INET;
	}
	memcpy(out, addr, addr_len(family));
	return family;
}

bool trust_covers(const struct trust_entry *e, uint64_t netns, bool unix_ep, int family,
		  const unsigned char *laddr, uint32_t lport)
{
	static const unsigned char any[16];
	unsigned char l[16], el[16];

	if (e->has_netns && e->netns != netns)
		return false;
	if (e->family == AF_UNIX)
		return true;	/* local users: over Unix sockets and over TCP from this host */
	if (unix_ep)
		return false;
	family = canon_laddr(family, laddr, l);
	/* IPv4 peers reach an IPv6 listener bound to :: (dual-stack) only; IPv6 peers never
	 * reach an IPv4 one (one bound to ::ffff:a.b.c.d included) */
	if (e->family != family && (e->family == AF_INET6 || memcmp(l, any, sizeof(any))))
		return false;
	if (e->has_lport && e->lport != lport)
		return false;
	return !e->has_laddr || (canon_laddr(e->laddr_family, e->laddr, el) == family &&
				 !memcmp(el, l, addr_len(family)));
}
