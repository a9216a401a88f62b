// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl: list and lift Brute's (uid, target) and peer bans and counters, show its tunables.
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
#include <fcntl.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef VERSION
#define VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_UNPROTECTED = 3 };

static const char *prog = "brutectl";

#define TARGETS_PATH "/sys/kernel/security/brute/targets"
#define PEERS_PATH "/sys/kernel/security/brute/peers"
#define LIFT_PATH "/sys/kernel/security/brute/lift"
#define STATS_PATH "/sys/kernel/security/brute/stats"
#define LSM_PATH "/sys/kernel/security/lsm"
#define SYSCTL_DIR "/proc/sys/kernel/brute"

static const char *const tunables[] = {
	"mode", "crash_period_threshold_ms", "min_faults", "max_faults",
	"ema_weight_numerator", "ema_weight_denominator", "ban_time_s", "table_size",
	"forget_time_s", "backstop_faults", "peer_ban_time_s", "peer_prefix_v4", "peer_prefix_v6",
	"escalate_prefix_v4", "escalate_prefix_v6", "escalate_faults",
};
#define N_TUNABLES (sizeof(tunables) / sizeof(tunables[0]))

__attribute__((format(printf, 1, 2)))
static void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* BRUTE_SYSFS_ROOT + path, malloc'd. */
static char *sys_path(const char *path)
{
	const char *root = getenv("BRUTE_SYSFS_ROOT");
	char *out;

	if (asprintf(&out, "%s%s", root ? root : "", path) < 0) {
		err("out of memory");
		exit(EXIT_FAIL);
	}
	return out;
}

/* ---- parsing of the targets file ------------------------------------------------------- */

struct entry {
	uint32_t uid;
	uint32_t dev_major, dev_minor;
	uint64_t ino, faults, ema_ms, idle_ms, ban_left_s, denied;
	bool has_attacks;  /* optional field: attacks detected on the entry */
	uint64_t attacks;
	const char *scope; /* optional field: "target", "overflow" or "any"; NULL if absent */
	char *name;      /* decoded (may hold any byte but NUL) */
	size_t name_len;
	char *name_raw;  /* as the kernel wrote it (escaped) */
};

static void put_name_tty(FILE *out, const char *name, size_t len);

/* At most 40 bytes of s for an error message, escaped as put_name_tty() escapes names. */
static const char *snip(char *buf, size_t size, const char *s)
{
	size_t len = strnlen(s, 40), n = 0;
	char *text = NULL;
	FILE *f;

	buf[0] = '\0';
	if (!len)
		return buf;
	f = open_memstream(&text, &n);
	if (!f)
		return "?";
	put_name_tty(f, s, len);
	if (fclose(f))
		return "?";
	snprintf(buf, size, "%s", text);
	free(text);
	return buf;
}

/* Strict unsigned decimal: digits only, no sign, no overflow beyond max. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(s, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "MAJ:MIN", both decimal. */
static bool parse_dev(const char *s, uint32_t *maj, uint32_t *min)
{
	const char *colon = strchr(s, ':');
	char buf[16];
	size_t n;

	if (!colon)
		return false;
	n = (size_t)(colon - s);
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return parse_u32(buf, maj) && parse_u32(colon + 1, min);
}

/*
 * Decode the kernel's escaping of target_name: \ooo (three octal digits) for space, tab,
 * newline, backslash, '=' and non-printables. A backslash not starting \ooo, an escaped NUL
 * or a raw control character is an error. Returns a malloc'd string, its length in *len.
 */
static char *decode_name(const char *s, size_t *len, const char **why)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out) {
		*why = "out of memory";
		return NULL;
	}
	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\') {
			if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' ||
			    s[3] < '0' || s[3] > '7') {
				*why = "bad escape in target_name (expected \\ooo)";
				goto bad;
			}
			c = (unsigned char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			if (c == 0) {
				*why = "NUL byte in target_name";
				goto bad;
			}
			*o++ = (char)c;
			s += 4;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			*why = "unescaped control character in target_name";
			goto bad;
		}
		*o++ = (char)c;
		s++;
	}
	*o = '\0';
	*len = (size_t)(o - out);
	return out;
bad:
	free(out);
	return NULL;
}

enum field {
	F_UID, F_DEV, F_INO, F_FAULTS, F_EMA, F_IDLE, F_BAN, F_DENIED, F_NAME,
	F_ATTACKS, F_SCOPE, /* the optional ones from here */
	N_FIELDS
};
#define N_REQUIRED F_ATTACKS
static const char *const field_names[N_FIELDS] = {
	"attacker_uid", "target_dev", "target_ino", "faults", "ema_ms", "idle_ms",
	"ban_left_s", "denied", "target_name", "attacks", "scope",
};

/* The scopes of a (user, target) entry (Brute.rst): static strings for struct entry. */
static const char *const scopes[] = { "target", "overflow", "any" };

/*
 * One line of the targets file (without its newline) into *e. Unknown keys are ignored
 * (fields a newer kernel may add); every required key must appear, no known key twice.
 * Returns false, with why in why_buf and nothing left allocated, if it is malformed.
 */
static bool parse_line(char *line, void *out, char *why_buf, size_t why_size)
{
	bool seen[N_FIELDS] = { false };
	struct entry *e = out;
	char quoted[168];
	char *tok, *save = NULL;
	const char *why = NULL;

	memset(e, 0, sizeof(*e));
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		const char *val;
		int f;

		if (!eq || eq == tok) {
			snprintf(why_buf, why_size, "expected key=value, got '%s'",
				 snip(quoted, sizeof(quoted), tok));
			goto bad;
		}
		*eq = '\0';
		val = eq + 1;
		for (f = 0; f < N_FIELDS; f++)
			if (!strcmp(tok, field_names[f]))
				break;
		if (f == N_FIELDS)
			continue;
		if (seen[f]) {
			snprintf(why_buf, why_size, "duplicate field %s", tok);
			goto bad;
		}
		seen[f] = true;
		switch (f) {
		case F_UID:
			if (!parse_u32(val, &e->uid))
				goto badval;
			break;
		case F_DEV:
			if (!parse_dev(val, &e->dev_major, &e->dev_minor))
				goto badval;
			break;
		case F_INO:
			if (!parse_u64(val, UINT64_MAX, &e->ino))
				goto badval;
			break;
		case F_FAULTS:
			if (!parse_u64(val, UINT64_MAX, &e->faults))
				goto badval;
			break;
		case F_EMA:
			if (!parse_u64(val, UINT64_MAX, &e->ema_ms))
				goto badval;
			break;
		case F_IDLE:
			if (!parse_u64(val, UINT64_MAX, &e->idle_ms))
				goto badval;
			break;
		case F_BAN:
			if (!parse_u64(val, UINT64_MAX, &e->ban_left_s))
				goto badval;
			break;
		case F_DENIED:
			if (!parse_u64(val, UINT64_MAX, &e->denied))
				goto badval;
			break;
		case F_ATTACKS:
			if (!parse_u64(val, UINT64_MAX, &e->attacks))
				goto badval;
			e->has_attacks = true;
			break;
		case F_SCOPE:
			for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
				if (!strcmp(val, scopes[i]))
					e->scope = scopes[i];
			if (!e->scope)
				goto badval;
			break;
		case F_NAME:
			e->name = decode_name(val, &e->name_len, &why);
			if (!e->name) {
				snprintf(why_buf, why_size, "%s", why);
				goto bad;
			}
			e->name_raw = strdup(val);
			if (!e->name_raw) {
				snprintf(why_buf, why_size, "out of memory");
				goto bad;
			}
			break;
		}
		continue;
badval:
		snprintf(why_buf, why_size, "bad value for %s: '%s'", tok,
			 snip(quoted, sizeof(quoted), val));
		goto bad;
	}
	for (int f = 0; f < N_REQUIRED; f++) {
		if (!seen[f]) {
			snprintf(why_buf, why_size, "missing field %s", field_names[f]);
			goto bad;
		}
	}
	return true;
bad:
	free(e->name);
	free(e->name_raw);
	e->name = e->name_raw = NULL;
	return false;
}

static void free_entries(void *p, size_t n)
{
	struct entry *v = p;

	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].name_raw);
	}
	free(v);
}

/* Why the securityfs directory or a file in it may be missing, for error messages; missing
 * says what an active Brute without the file lacks. */
static const char *brute_absent_hint(const char *missing)
{
	char *path = sys_path(LSM_PATH), buf[512];
	FILE *f = fopen(path, "r");
	const char *hint;

	free(path);
	if (!f)
		return "is securityfs mounted on /sys/kernel/security?";
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	hint = "Brute is not active on this kernel (not in /sys/kernel/security/lsm)";
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!strcmp(t, "brute"))
			hint = missing;
	return hint;
}

#define NO_TARGETS "this kernel's Brute has no (uid, target) table (older than v2?)"
#define NO_PEERS "this kernel's Brute has no peer table (older than v3?)"

/*
 * Reads and parses every line of the table file rel (a /sys path), each into an element of
 * esize bytes of a malloc'd array; missing is brute_absent_hint()'s. On failure prints why,
 * frees what it parsed (release) and returns -1.
 */
static int read_table(const char *rel, const char *missing, size_t esize,
		      bool (*parse)(char *line, void *e, char *why_buf, size_t why_size),
		      void (*release)(void *v, size_t n), void **out, size_t *count)
{
	char *path = sys_path(rel), *line = NULL, *v = NULL;
	size_t cap = 0, n = 0, lineno = 0, alloc = 0;
	ssize_t len;
	FILE *f;
	int ret = -1;

	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		if (e == EACCES || e == EPERM)
			err("cannot read %s: %s (reading it needs root)", path, strerror(e));
		else if (e == ENOENT)
			err("cannot read %s: %s: %s", path, strerror(e), brute_absent_hint(missing));
		else
			err("cannot read %s: %s", path, strerror(e));
		free(path);
		return -1;
	}
	while (errno = 0, (len = getline(&line, &alloc, f)) >= 0) {
		char why[256];

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			err("%s:%zu: malformed line: NUL byte", path, lineno);
			goto out;
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char *nv = realloc(v, ncap * esize);

			if (!nv) {
				err("out of memory");
				goto out;
			}
			v = nv;
			cap = ncap;
		}
		if (!parse(line, v + n * esize, why, sizeof(why))) {
			err("%s:%zu: malformed line: %s", path, lineno, why);
			goto out;
		}
		n++;
	}
	if (ferror(f)) {
		err("cannot read %s: %s", path, strerror(errno ? errno : EIO));
		goto out;
	}
	*out = v;
	*count = n;
	v = NULL;
	n = 0;
	ret = 0;
out:
	release(v, n);
	free(line);
	fclose(f);
	free(path);
	return ret;
}

/* ---- parsing of the peers file --------------------------------------------------------- */

struct peer_entry {
	int family;             /* AF_INET, AF_INET6 (an address prefix), AF_UNIX (a user) */
	char peer[64];          /* as the kernel wrote it: "ADDR/LEN" or "uid:UID" */
	char addr[INET6_ADDRSTRLEN];
	uint32_t prefix, uid;
	uint64_t netns;
	bool unix_ep;           /* transport=unix (lino), else tcp (laddr, lport) */
	char laddr[INET6_ADDRSTRLEN];
	uint32_t lport;
	uint64_t lino, faults, attacks, ema_ms, idle_ms, ban_left_s, refused;
};

/* "ADDR/LEN" (IPv4 or IPv6, LEN within the family's bits) or "uid:UID". */
static bool parse_peer(const char *s, struct peer_entry *p)
{
	const char *slash = strchr(s, '/');
	unsigned char bin[sizeof(struct in6_addr)];
	size_t n;

	if (strlen(s) >= sizeof(p->peer))
		return false;
	strcpy(p->peer, s);
	if (!strncmp(s, "uid:", 4)) {
		p->family = AF_UNIX;
		return parse_u32(s + 4, &p->uid);
	}
	if (!slash)
		return false;
	n = (size_t)(slash - s);
	if (n == 0 || n >= sizeof(p->addr))
		return false;
	memcpy(p->addr, s, n);
	p->addr[n] = '\0';
	if (inet_pton(AF_INET, p->addr, bin) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, p->addr, bin) == 1)
		p->family = AF_INET6;
	else
		return false;
	return parse_u32(slash + 1, &p->prefix) && p->prefix <= (p->family == AF_INET ? 32 : 128);
}

enum peer_field {
	P_PEER, P_NETNS, P_TRANSPORT, P_FAULTS, P_ATTACKS, P_EMA, P_IDLE, P_BAN, P_REFUSED,
	P_LADDR, P_LPORT, P_LINO, /* the endpoint's, by transport, from here */
	N_PEER_FIELDS
};
#define N_PEER_REQUIRED P_LADDR
static const char *const peer_field_names[N_PEER_FIELDS] = {
	"peer", "netns", "transport", "faults", "attacks", "ema_ms", "idle_ms", "ban_left_s",
	"refused", "laddr", "lport", "lino",
};

/*
 * One line of the peers file (without its newline) into *out, a struct peer_entry; as
 * parse_line(): unknown keys (peer_uid among them: peer=uid:UID says it) are ignored, every
 * required key must appear (laddr and lport for transport=tcp, lino for unix), none twice.
 */
static bool parse_peer_line(char *line, void *out, char *why_buf, size_t why_size)
{
	bool seen[N_PEER_FIELDS] = { false };
	struct peer_entry *p = out;
	uint64_t *const counter[N_PEER_FIELDS] = {
		[P_NETNS] = &p->netns, [P_FAULTS] = &p->faults, [P_ATTACKS] = &p->attacks,
		[P_EMA] = &p->ema_ms, [P_IDLE] = &p->idle_ms, [P_BAN] = &p->ban_left_s,
		[P_REFUSED] = &p->refused, [P_LINO] = &p->lino,
	};
	char *tok, *save = NULL;
	char quoted[168];

	memset(p, 0, sizeof(*p));
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		unsigned char bin[sizeof(struct in6_addr)];
		const char *val;
		uint64_t v;
		int f;

		if (!eq || eq == tok) {
			snprintf(why_buf, why_size, "expected key=value, got '%s'",
				 snip(quoted, sizeof(quoted), tok));
			return false;
		}
		*eq = '\0';
		val = eq + 1;
		for (f = 0; f < N_PEER_FIELDS; f++)
			if (!strcmp(tok, peer_field_names[f]))
				break;
		if (f == N_PEER_FIELDS)
			continue;
		if (seen[f]) {
			snprintf(why_buf, why_size, "duplicate field %s", tok);
			return false;
		}
		seen[f] = true;
		switch (f) {
		case P_PEER:
			if (!parse_peer(val, p))
				goto badval;
			break;
		case P_TRANSPORT:
			if (!strcmp(val, "unix"))
				p->unix_ep = true;
			else if (strcmp(val, "tcp"))
				goto badval;
			break;
		case P_LADDR:
			if (strlen(val) >= sizeof(p->laddr) ||
			    (inet_pton(AF_INET, val, bin) != 1 && inet_pton(AF_INET6, val, bin) != 1))
				goto badval;
			strcpy(p->laddr, val);
			break;
		case P_LPORT:
			if (!parse_u64(val, 65535, &v))
				goto badval;
			p->lport = (uint32_t)v;
			break;
		default:
			if (!parse_u64(val, UINT64_MAX, &v))
				goto badval;
			*counter[f] = v;
			break;
		}
		continue;
badval:
		snprintf(why_buf, why_size, "bad value for %s: '%s'", tok,
			 snip(quoted, sizeof(quoted), val));
		return false;
	}
	for (int f = 0; f < N_PEER_FIELDS; f++) {
		bool needed = f < N_PEER_REQUIRED || (f == P_LINO) == p->unix_ep;

		if (needed && !seen[f]) {
			snprintf(why_buf, why_size, "missing field %s", peer_field_names[f]);
			return false;
		}
	}
	return true;
}

static void free_peers(void *v, size_t n)
{
	(void)n;
	free(v);
}

/* ---- output helpers -------------------------------------------------------------------- */

/* Length of a valid UTF-8 sequence at s (not a C1 control, not an overlong form), or 0. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

/*
 * The code point at s (a valid sequence of n > 1 bytes) is one a terminal or a reader acts
 * on although it prints nothing, as brute-reportd escapes them (its utf8_is_control()): the
 * line and paragraph separators U+2028/U+2029 and the bidirectional embeddings, overrides
 * and isolates U+202A-U+202E, U+2066-U+2069 (U+202E makes "gpj.exe" read "exe.jpg").
 */
static bool utf8_is_format_control(const unsigned char *s, size_t n)
{
	uint32_t cp;

	if (n != 3)
		return false;	/* every one of them is a 3-byte sequence */
	cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	return (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* A name for a terminal: printable ASCII and valid UTF-8 as is; every other byte, the
 * backslash and every byte of a separator or bidi control as \ooo (the kernel's own
 * escaping, as brute-reportd writes them). */
static void put_name_tty(FILE *out, const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;

	if (len == 0) {
		fputs("?", out);
		return;
	}
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i, len - i);

		if (n == 1 && s[i] >= 0x20 && s[i] != 0x7f && s[i] != '\\') {
			fputc(s[i], out);
		} else if (n > 1 && !utf8_is_format_control(s + i, n)) {
			fwrite(s + i, 1, n, out);
		} else {
			if (n == 0)
				n = 1;
			for (size_t k = 0; k < n; k++)
				fprintf(out, "\\%03o", s[i + k]);
		}
		i += n;
	}
}

/* A JSON string: valid UTF-8 as is, controls as \u00XX, invalid bytes as U+FFFD. */
static void put_json_str(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i, len - i);

		if (n == 0) {
			fputs("\\ufffd", out);
			n = 1;
		} else if (utf8_is_format_control(s + i, n)) {
			/* the same string to a JSON reader, inert on a terminal */
			fprintf(out, "\\u%04x", (unsigned)((s[i] & 0x0f) << 12 | (s[i + 1] & 0x3f) << 6 |
							    (s[i + 2] & 0x3f)));
		} else if (n == 1 && (s[i] == '"' || s[i] == '\\')) {
			fprintf(out, "\\%c", s[i]);
		} else if (n == 1 && (s[i] < 0x20 || s[i] == 0x7f)) {
			fprintf(out, "\\u%04x", s[i]);
		} else {
			fwrite(s + i, 1, n, out);
		}
		i += n;
	}
	fputc('"', out);
}

/* A duration for humans: 850ms, 4.9s, 12m03s, 2h05m, 3d04h. */
static void fmt_ms(char *buf, size_t size, uint64_t ms)
{
	uint64_t s = ms / 1000;

	if (ms < 1000)
		snprintf(buf, size, "%" PRIu64 "ms", ms);
	else if (s < 60)
		snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "s", s, ms % 1000 / 100);
	else if (s < 3600)
		snprintf(buf, size, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, size, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, size, "%" PRIu64 "d%02" PRIu64 "h", s / 86400, s % 86400 / 3600);
}

static void fmt_s(char *buf, size_t size, uint64_t s)
{
	if (s < 60)
		snprintf(buf, size, "%" PRIu64 "s", s);
	else
		fmt_ms(buf, size, s > UINT64_MAX / 1000 ? UINT64_MAX : s * 1000);
}

/* ---- list ------------------------------------------------------------------------------ */

enum { C_UID, C_USER, C_DEV, C_INO, C_FAULTS, C_EMA, C_IDLE, C_BAN, C_DENIED, N_COLS };
static const char *const col_head[N_COLS] = {
	"UID", "USER", "DEV", "INO", "FAULTS", "EMA", "IDLE", "BAN", "DENIED",
};
static const bool col_right[N_COLS] = {
	true, false, false, true, true, true, true, false, true,
};

static void list_json(const struct entry *v, size_t n, bool bans)
{
	bool first = true;

	printf("{\"entries\":[");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &v[i];
		struct passwd *pw;

		if (bans && !e->ban_left_s)
			continue;
		printf("%s\n{\"attacker_uid\":%" PRIu32 ",\"user\":", first ? "" : ",", e->uid);
		first = false;
		pw = getpwuid(e->uid);
		if (pw)
			put_json_str(stdout, pw->pw_name, strlen(pw->pw_name));
		else
			fputs("null", stdout);
		printf(",\"target_dev\":\"%" PRIu32 ":%" PRIu32 "\",\"target_ino\":%" PRIu64
		       ",\"target_name\":", e->dev_major, e->dev_minor, e->ino);
		put_json_str(stdout, e->name, e->name_len);
		printf(",\"target_name_raw\":");
		put_json_str(stdout, e->name_raw, strlen(e->name_raw));
		if (e->has_attacks)
			printf(",\"attacks\":%" PRIu64, e->attacks);
		if (e->scope)
			printf(",\"scope\":\"%s\"", e->scope);
		printf(",\"faults\":%" PRIu64 ",\"ema_ms\":%" PRIu64 ",\"idle_ms\":%" PRIu64
		       ",\"banned\":%s,\"ban_left_s\":%" PRIu64 ",\"denied\":%" PRIu64 "}",
		       e->faults, e->ema_ms, e->idle_ms, e->ban_left_s ? "true" : "false",
		       e->ban_left_s, e->denied);
	}
	printf("%s]}\n", first ? "" : "\n");
}

static int list_table(const struct entry *v, size_t n, bool bans)
{
	char *cells = NULL;
	size_t rows = 0, width[N_COLS], cell = 64;
	const struct entry **row_entry = NULL;

	cells = calloc(n ? n : 1, N_COLS * cell);
	row_entry = calloc(n ? n : 1, sizeof(*row_entry));
	if (!cells || !row_entry) {
		free(cells);
		free(row_entry);
		err("out of memory");
		return EXIT_FAIL;
	}
	for (int c = 0; c < N_COLS; c++)
		width[c] = strlen(col_head[c]);
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &v[i];
		char *r = cells + rows * N_COLS * cell, t[24];
		struct passwd *pw;

		if (bans && !e->ban_left_s)
			continue;
		row_entry[rows] = e;
		pw = getpwuid(e->uid);
		snprintf(r + C_UID * cell, cell, "%" PRIu32, e->uid);
		snprintf(r + C_USER * cell, cell, "%s", pw ? pw->pw_name : "-");
		snprintf(r + C_DEV * cell, cell, "%" PRIu32 ":%" PRIu32, e->dev_major, e->dev_minor);
		snprintf(r + C_INO * cell, cell, "%" PRIu64, e->ino);
		snprintf(r + C_FAULTS * cell, cell, "%" PRIu64, e->faults);
		fmt_ms(r + C_EMA * cell, cell, e->ema_ms);
		fmt_ms(r + C_IDLE * cell, cell, e->idle_ms);
		if (e->ban_left_s) {
			fmt_s(t, sizeof(t), e->ban_left_s);
			snprintf(r + C_BAN * cell, cell, "BANNED %s", t);
		} else {
			snprintf(r + C_BAN * cell, cell, "-");
		}
		snprintf(r + C_DENIED * cell, cell, "%" PRIu64, e->denied);
		for (int c = 0; c < N_COLS; c++)
			if (strlen(r + c * cell) > width[c])
				width[c] = strlen(r + c * cell);
		rows++;
	}
	if (rows == 0) {
		printf(bans ? "no bans\n" : "no entries\n");
		goto out;
	}
	for (int c = 0; c < N_COLS; c++)
		printf(col_right[c] ? "%*s  " : "%-*s  ", (int)width[c], col_head[c]);
	printf("TARGET\n");
	for (size_t i = 0; i < rows; i++) {
		const char *r = cells + i * N_COLS * cell;

		for (int c = 0; c < N_COLS; c++)
			printf(col_right[c] ? "%*s  " : "%-*s  ", (int)width[c], r + c * cell);
		if (row_entry[i]->scope == scopes[2]) {
			/* the user's overflow entry of several targets: its ban is of every one */
			printf("* (every privileged program)\n");
			continue;
		}
		put_name_tty(stdout, row_entry[i]->name, row_entry[i]->name_len);
		printf(row_entry[i]->scope == scopes[1] ? " (overflow entry)\n" : "\n");
	}
out:
	free(cells);
	free(row_entry);
	return EXIT_OK;
}

/* The options of list and peers: --bans, --json.  Returns -1 (with a message) on another. */
static int table_args(int argc, char **argv, const char *cmd, bool *bans, bool *json)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bans")) {
			*bans = true;
		} else if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else {
			err("%s: unknown argument '%s' (usage: brutectl %s [--bans] [--json])",
			    cmd, argv[i], cmd);
			return -1;
		}
	}
	return 0;
}

/* RET, or EXIT_FAIL (with a message) if standard output could not be written. */
static int flushed(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		err("writing the output: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return ret;
}

static int cmd_list(int argc, char **argv)
{
	bool bans = false, json = false;
	struct entry *v = NULL;
	void *p = NULL;
	size_t n = 0;
	int ret;

	if (table_args(argc, argv, "list", &bans, &json))
		return EXIT_USAGE;
	if (read_table(TARGETS_PATH, NO_TARGETS, sizeof(*v), parse_line, free_entries, &p, &n))
		return EXIT_FAIL;
	v = p;
	if (json) {
		list_json(v, n, bans);
		ret = EXIT_OK;
	} else {
		ret = list_table(v, n, bans);
	}
	free_entries(v, n);
	return flushed(ret);
}

/* ---- peers ----------------------------------------------------------------------------- */

enum { PC_PEER, PC_USER, PC_ENDPOINT, PC_NETNS, PC_FAULTS, PC_ATTACKS, PC_EMA, PC_IDLE, PC_BAN,
       PC_REFUSED, N_PEER_COLS };
static const char *const peer_col_head[N_PEER_COLS] = {
	"PEER", "USER", "ENDPOINT", "NETNS", "FAULTS", "ATTACKS", "EMA", "IDLE", "BAN", "REFUSED",
};
static const bool peer_col_right[N_PEER_COLS] = {
	false, false, false, true, true, true, true, true, false, true,
};

/* The endpoint for people: "tcp 0.0.0.0:7777", "tcp [::]:22", "unix socket 23114". */
static void fmt_endpoint(char *buf, size_t size, const struct peer_entry *p)
{
	if (p->unix_ep)
		snprintf(buf, size, "unix socket %" PRIu64, p->lino);
	else if (strchr(p->laddr, ':'))
		snprintf(buf, size, "tcp [%s]:%" PRIu32, p->laddr, p->lport);
	else
		snprintf(buf, size, "tcp %s:%" PRIu32, p->laddr, p->lport);
}

static void peers_json(const struct peer_entry *v, size_t n, bool bans)
{
	bool first = true;

	printf("{\"entries\":[");
	for (size_t i = 0; i < n; i++) {
		const struct peer_entry *p = &v[i];
		struct passwd *pw;

		if (bans && !p->ban_left_s)
			continue;
		printf("%s\n{\"peer\":\"%s\",\"family\":\"%s\"", first ? "" : ",", p->peer,
		       p->family == AF_INET ? "ipv4" : p->family == AF_INET6 ? "ipv6" : "unix");
		first = false;
		if (p->family == AF_UNIX) {
			printf(",\"peer_uid\":%" PRIu32 ",\"user\":", p->uid);
			pw = getpwuid(p->uid);
			if (pw)
				put_json_str(stdout, pw->pw_name, strlen(pw->pw_name));
			else
				fputs("null", stdout);
		} else {
			printf(",\"address\":\"%s\",\"prefix\":%" PRIu32, p->addr, p->prefix);
		}
		printf(",\"netns\":%" PRIu64 ",\"transport\":\"%s\"", p->netns,
		       p->unix_ep ? "unix" : "tcp");
		if (p->unix_ep)
			printf(",\"lino\":%" PRIu64, p->lino);
		else
			printf(",\"laddr\":\"%s\",\"lport\":%" PRIu32, p->laddr, p->lport);
		printf(",\"faults\":%" PRIu64 ",\"attacks\":%" PRIu64 ",\"ema_ms\":%" PRIu64
		       ",\"idle_ms\":%" PRIu64 ",\"banned\":%s,\"ban_left_s\":%" PRIu64
		       ",\"refused\":%" PRIu64 "}",
		       p->faults, p->attacks, p->ema_ms, p->idle_ms, p->ban_left_s ? "true" : "false",
		       p->ban_left_s, p->refused);
	}
	printf("%s]}\n", first ? "" : "\n");
}

static int peers_table(const struct peer_entry *v, size_t n, bool bans)
{
	char *cells = NULL;
	size_t rows = 0, width[N_PEER_COLS], cell = 80;

	cells = calloc(n ? n : 1, N_PEER_COLS * cell);
	if (!cells) {
		err("out of memory");
		return EXIT_FAIL;
	}
	for (int c = 0; c < N_PEER_COLS; c++)
		width[c] = strlen(peer_col_head[c]);
	for (size_t i = 0; i < n; i++) {
		const struct peer_entry *p = &v[i];
		char *r = cells + rows * N_PEER_COLS * cell, t[24];
		struct passwd *pw = NULL;

		if (bans && !p->ban_left_s)
			continue;
		if (p->family == AF_UNIX)
			pw = getpwuid(p->uid);
		snprintf(r + PC_PEER * cell, cell, "%s", p->peer);
		snprintf(r + PC_USER * cell, cell, "%s", pw ? pw->pw_name : "-");
		fmt_endpoint(r + PC_ENDPOINT * cell, cell, p);
		snprintf(r + PC_NETNS * cell, cell, "%" PRIu64, p->netns);
		snprintf(r + PC_FAULTS * cell, cell, "%" PRIu64, p->faults);
		snprintf(r + PC_ATTACKS * cell, cell, "%" PRIu64, p->attacks);
		fmt_ms(r + PC_EMA * cell, cell, p->ema_ms);
		fmt_ms(r + PC_IDLE * cell, cell, p->idle_ms);
		if (p->ban_left_s) {
			fmt_s(t, sizeof(t), p->ban_left_s);
			snprintf(r + PC_BAN * cell, cell, "BANNED %s", t);
		} else {
			snprintf(r + PC_BAN * cell, cell, "-");
		}
		snprintf(r + PC_REFUSED * cell, cell, "%" PRIu64, p->refused);
		for (int c = 0; c < N_PEER_COLS; c++)
			if (strlen(r + c * cell) > width[c])
				width[c] = strlen(r + c * cell);
		rows++;
	}
	if (rows == 0) {
		printf(bans ? "no peer bans\n" : "no peer entries\n");
		goto out;
	}
	for (size_t i = 0; i <= rows; i++) {
		const char *r = cells + (i ? i - 1 : 0) * N_PEER_COLS * cell;

		for (int c = 0; c < N_PEER_COLS; c++) {
			const char *text = i ? r + c * cell : peer_col_head[c];

			if (c == N_PEER_COLS - 1)
				printf("%*s\n", (int)width[c], text);
			else
				printf(peer_col_right[c] ? "%*s  " : "%-*s  ", (int)width[c], text);
		}
	}
out:
	free(cells);
	return EXIT_OK;
}

static int cmd_peers(int argc, char **argv)
{
	bool bans = false, json = false;
	struct peer_entry *v = NULL;
	void *p = NULL;
	size_t n = 0;
	int ret;

	if (table_args(argc, argv, "peers", &bans, &json))
		return EXIT_USAGE;
	if (read_table(PEERS_PATH, NO_PEERS, sizeof(*v), parse_peer_line, free_peers, &p, &n))
		return EXIT_FAIL;
	v = p;
	if (json) {
		peers_json(v, n, bans);
		ret = EXIT_OK;
	} else {
		ret = peers_table(v, n, bans);
	}
	free_peers(v, n);
	return flushed(ret);
}

/* ---- lift ------------------------------------------------------------------------------ */

/* A user name or a decimal uid. Returns false (with a message) if neither. */
static bool parse_user(const char *s, uint32_t *uid)
{
	struct passwd *pw;

	if (s[0] >= '0' && s[0] <= '9') {
		if (parse_u32(s, uid))
			return true;
		err("lift: bad uid '%s'", s);
		return false;
	}
	errno = 0;
	pw = getpwnam(s);
	if (!pw) {
		err("lift: no such user '%s'", s);
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
		if (uid == UINT32_MAX) {
			err("lift: bad uid '%s' (4294967295 is no user)", arg + 4);
			return false;
		}
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

static int cmd_lift(int argc, char **argv)
{
	static const char usage[] =
		"usage: brutectl lift USER PATH | brutectl lift USER MAJ:MIN INO | brutectl lift --all\n"
		"       brutectl lift --peer ADDR[/LEN] | brutectl lift --peer uid:USER | "
		"brutectl lift --peer all";
	char msg[96], what[PATH_MAX + 96], done[PATH_MAX + 160], none[PATH_MAX + 160];
	uint32_t uid, maj, min;
	uint64_t ino;

	if (argc == 2 && !strcmp(argv[1], "--all"))
		return write_lift("all", "lifted every ban", "no ban to lift");
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
			err("lift: unknown option\n%s", usage);
			return EXIT_USAGE;
		}
		if (!parse_user(argv[1], &uid))
			return EXIT_USAGE;
		if (stat(argv[2], &st)) {
			err("lift: cannot stat %s: %s", argv[2], strerror(errno));
			return EXIT_FAIL;
		}
		maj = major(st.st_dev);
		min = minor(st.st_dev);
		ino = st.st_ino;
		snprintf(what, sizeof(what), "uid %" PRIu32 " on %s (%" PRIu32 ":%" PRIu32
			 " %" PRIu64 ")", uid, argv[2], maj, min, ino);
	} else if (argc == 4) {
		if (!parse_dev(argv[2], &maj, &min) || !parse_u64(argv[3], UINT64_MAX, &ino)) {
			err("lift: expected MAJ:MIN INO (decimal), got '%s %s'\n%s", argv[2],
			    argv[3], usage);
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

/* ---- status ---------------------------------------------------------------------------- */

/* First line of a small file, without its newline; -errno on failure. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

struct audit_info {
	int err;        /* 0, or the errno of the query */
	uint32_t enabled, pid, backlog, backlog_limit, lost;
};

/* AUDIT_GET over NETLINK_AUDIT, what `auditctl -s` prints (needs CAP_AUDIT_CONTROL). */
static void query_audit(struct audit_info *ai)
{
	struct {
		struct nlmsghdr nh;
		struct audit_status st;
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} resp;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int fd;

	memset(ai, 0, sizeof(*ai));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		ai->err = errno;
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(0);
	req.nh.nlmsg_type = AUDIT_GET;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ai->err = errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(fd, &resp, sizeof(resp), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			ai->err = errno == EAGAIN ? ETIMEDOUT : errno;
			goto out;
		}
		for (nh = &resp.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error) {
					ai->err = -e->error;
					goto out;
				}
			} else if (nh->nlmsg_type == AUDIT_GET) {
				struct audit_status st = { 0 };
				size_t len = nh->nlmsg_len - NLMSG_LENGTH(0);

				memcpy(&st, NLMSG_DATA(nh), len < sizeof(st) ? len : sizeof(st));
				ai->enabled = st.enabled;
				ai->pid = st.pid;
				ai->backlog = st.backlog;
				ai->backlog_limit = st.backlog_limit;
				ai->lost = st.lost;
				goto out;
			}
		}
	}
out:
	close(fd);
}

static bool is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* ---- brute-reportd's state file (brute-reportd(8): /run/brute-reportd/status) ---- */

#define REPORTD_STATUS_PATH "/run/brute-reportd/status"
/* the auditd plugin's (brute-reportd --stdin), read when the service's is absent */
#define REPORTD_PLUGIN_STATUS_PATH "/run/brute-reportd-plugin/status"

static const char *const reportd_keys[] = {
	"pid", "brute", "audit", "mode", "records", "incidents", "incidents_open", "attacks",
	"alerts_queued", "alerts_dropped", "spooled", "lost", "problems",
	/* the SIEM delivery (absent from an older daemon's file) */
	"siem", "siem_target", "siem_connected", "siem_failures", "siem_last_delivery_usec",
	"siem_last_error_usec", "siem_last_error", "spool_oldest_usec", "alerts_parked",
	"updated_usec",
	/* issue 31: what it refused, journal failures, entries sent again, the last reload */
	"records_malformed", "lines_oversized", "lines_garbage", "journal_failures", "siem_resent",
	"reloads", "reload_result", "reload_error",
};
#define N_REPORTD_KEYS (sizeof(reportd_keys) / sizeof(reportd_keys[0]))

struct reportd_info {
	int err;	/* 0, or why there is none (ENOENT: not running) */
	bool stale;	/* its pid is gone: a daemon that did not exit cleanly */
	bool plugin;	/* the auditd plugin's file (the service's is absent) */
	char vals[N_REPORTD_KEYS][320];
};

static void read_reportd(struct reportd_info *ri)
{
	char *path = sys_path(REPORTD_STATUS_PATH), line[512];
	FILE *f = fopen(path, "re");

	memset(ri, 0, sizeof(*ri));
	free(path);
	if (!f && errno == ENOENT) {
		path = sys_path(REPORTD_PLUGIN_STATUS_PATH);
		f = fopen(path, "re");
		free(path);
		if (f)
			ri->plugin = true;
		else
			errno = ENOENT;	/* neither: not running */
	}
	if (!f) {
		ri->err = errno;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		for (size_t i = 0; i < N_REPORTD_KEYS; i++)
			if (!strcmp(line, reportd_keys[i]))
				snprintf(ri->vals[i], sizeof(ri->vals[i]), "%s", eq + 1);
	}
	fclose(f);
	if (is_number(ri->vals[0]) && !getenv("BRUTE_SYSFS_ROOT"))
		ri->stale = kill((pid_t)strtol(ri->vals[0], NULL, 10), 0) < 0 && errno == ESRCH;
}

static const char *rv(const struct reportd_info *ri, const char *key)
{
	for (size_t i = 0; i < N_REPORTD_KEYS; i++)
		if (!strcmp(reportd_keys[i], key))
			return ri->vals[i][0] ? ri->vals[i] : "?";
	return "?";
}

/* Microseconds since the epoch in a key: how long ago, for people ("12.0s", "3m10s"). */
static bool ago(const struct reportd_info *ri, const char *key, char *buf, size_t size)
{
	const char *v = rv(ri, key);
	struct timeval tv;
	uint64_t t, now;

	if (!is_number(v) || v[0] == '-' || !parse_u64(v, UINT64_MAX, &t) || t == 0)
		return false;
	gettimeofday(&tv, NULL);
	now = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
	fmt_ms(buf, size, now > t ? (now - t) / 1000 : 0);
	return true;
}

/* The SIEM delivery line: connected or not, the last error, the last delivery, the oldest alert. */
static void print_delivery(const struct reportd_info *ri)
{
	char a[32];

	if (!strcmp(rv(ri, "siem"), "?")) {
		return;	/* an older brute-reportd */
	}
	if (!strcmp(rv(ri, "siem"), "none")) {
		printf("         delivery: no SIEM forwarding configured\n");
		return;
	}
	printf("         delivery: %s %s %s", rv(ri, "siem"), rv(ri, "siem_target"),
	       !strcmp(rv(ri, "siem_connected"), "1") ? "connected" : "NOT connected");
	if (strcmp(rv(ri, "siem_last_error"), "?") && ago(ri, "siem_last_error_usec", a, sizeof(a))) {
		printf(", last error %s ago: ", a);
		put_name_tty(stdout, rv(ri, "siem_last_error"), strlen(rv(ri, "siem_last_error")));
	}
	if (ago(ri, "siem_last_delivery_usec", a, sizeof(a)))
		printf(", last delivery %s ago", a);
	else
		printf(", nothing delivered yet");
	printf(", %s failure%s", rv(ri, "siem_failures"), !strcmp(rv(ri, "siem_failures"), "1") ? "" : "s");
	if (ago(ri, "spool_oldest_usec", a, sizeof(a)))
		printf(", oldest spooled alert %s old", a);
	if (strcmp(rv(ri, "alerts_parked"), "0") && strcmp(rv(ri, "alerts_parked"), "?"))
		printf(", %s parked", rv(ri, "alerts_parked"));
	putchar('\n');
}

/* A number key: 0 when absent (an older daemon). */
static uint64_t rn(const struct reportd_info *ri, const char *key)
{
	uint64_t v;

	return is_number(rv(ri, key)) && parse_u64(rv(ri, key), UINT64_MAX, &v) ? v : 0;
}

/* What it refused, the journal's refusals, the entries sent again, the last reload: when
 * there is any. */
static void print_problems(const struct reportd_info *ri)
{
	uint64_t refused = rn(ri, "records_malformed") + rn(ri, "lines_oversized") +
			   rn(ri, "lines_garbage");

	if (refused)
		printf("         refused: %llu line%s (%llu malformed records, %llu too long, %llu not records)\n",
		       (unsigned long long)refused, refused == 1 ? "" : "s",
		       (unsigned long long)rn(ri, "records_malformed"),
		       (unsigned long long)rn(ri, "lines_oversized"),
		       (unsigned long long)rn(ri, "lines_garbage"));
	if (rn(ri, "journal_failures"))
		printf("         journal: %s entries refused\n", rv(ri, "journal_failures"));
	if (rn(ri, "siem_resent"))
		printf("         resent: %s entries sent again (their connection ended before the receiver confirmed them)\n",
		       rv(ri, "siem_resent"));
	if (!strcmp(rv(ri, "reload_result"), "failed")) {
		printf("         reload: FAILED, the running configuration kept: ");
		put_name_tty(stdout, rv(ri, "reload_error"), strlen(rv(ri, "reload_error")));
		putchar('\n');
	} else if (!strcmp(rv(ri, "reload_result"), "ok") && rn(ri, "reloads")) {
		printf("         reload: ok (%s since start)\n", rv(ri, "reloads"));
	}
}

static void print_reportd(const struct reportd_info *ri, bool json)
{
	if (json) {
		printf(",\"reportd\":");
		if (ri->err) {
			fputs("null", stdout);
			return;
		}
		printf("{\"stale\":%s,\"plugin\":%s", ri->stale ? "true" : "false",
		       ri->plugin ? "true" : "false");
		for (size_t i = 0; i < N_REPORTD_KEYS; i++) {
			printf(",\"%s\":", reportd_keys[i]);
			if (is_number(ri->vals[i]))
				fputs(ri->vals[i], stdout);
			else
				put_json_str(stdout, ri->vals[i], strlen(ri->vals[i]));
		}
		putchar('}');
		return;
	}
	if (ri->err == ENOENT) {
		printf("reportd: not running (no " REPORTD_STATUS_PATH ")\n");
		return;
	}
	if (ri->plugin)
		printf("reportd: the auditd plugin (" REPORTD_PLUGIN_STATUS_PATH ")\n");
	if (ri->err) {
		printf("reportd: unknown (%s: %s)\n", REPORTD_STATUS_PATH, strerror(ri->err));
		return;
	}
	printf("reportd: %s pid %s: records %s, incidents %s (%s open), attacks %s, "
	       "alerts queued %s, dropped %s, spooled %s, lost %s\n",
	       ri->stale ? "STALE state file of" : "running,", rv(ri, "pid"), rv(ri, "records"),
	       rv(ri, "incidents"), rv(ri, "incidents_open"), rv(ri, "attacks"),
	       rv(ri, "alerts_queued"), rv(ri, "alerts_dropped"), rv(ri, "spooled"), rv(ri, "lost"));
	printf("         its view: brute %s, audit %s, mode %s (%s problem%s)\n", rv(ri, "brute"),
	       rv(ri, "audit"), rv(ri, "mode"), rv(ri, "problems"),
	       !strcmp(rv(ri, "problems"), "1") ? "" : "s");
	print_delivery(ri);
	print_problems(ri);
}

static size_t mode_index(void)
{
	size_t i;

	for (i = 0; i < N_TUNABLES; i++)
		if (!strcmp(tunables[i], "mode"))
			break;
	return i;
}

/* "a, b" */
static void append_why(char *buf, size_t size, const char *what)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", what);
}

/* The kernel's counters: "hierarchies=41 targets=3 bans=1 peers=4 peer_bans=1 records_dropped=0". */
#define MAX_STATS 16
struct stats_info {
	int err;	/* 0, -errno if unreadable, or -EBADMSG if not key=number pairs */
	size_t n;
	char key[MAX_STATS][32];
	uint64_t val[MAX_STATS];
};

static void read_stats(struct stats_info *si)
{
	char *path = sys_path(STATS_PATH), line[512], *save = NULL;

	memset(si, 0, sizeof(*si));
	si->err = read_small(path, line, sizeof(line));
	free(path);
	if (si->err)
		return;
	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		if (!eq || eq == t || (size_t)(eq - t) >= sizeof(si->key[0]) || si->n == MAX_STATS ||
		    strspn(t, "abcdefghijklmnopqrstuvwxyz_") != (size_t)(eq - t) ||
		    !parse_u64(eq + 1, UINT64_MAX, &si->val[si->n])) {
			si->err = -EBADMSG;
			return;
		}
		*eq = '\0';
		strcpy(si->key[si->n++], t);
	}
}

static int cmd_status(int argc, char **argv)
{
	char *lsm_path = sys_path(LSM_PATH), lsm[512], vals[N_TUNABLES][64];
	int lsm_err, val_err[N_TUNABLES];
	bool json = false, active = false;
	struct audit_info ai;
	struct reportd_info ri;
	struct stats_info si;
	char why[256] = "";
	size_t mode_i;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else {
			err("status: unknown argument '%s' (usage: brutectl status [--json])", argv[i]);
			free(lsm_path);
			return EXIT_USAGE;
		}
	}
	lsm_err = read_small(lsm_path, lsm, sizeof(lsm));
	free(lsm_path);
	if (!lsm_err) {
		char copy[sizeof(lsm)], *save = NULL;

		memcpy(copy, lsm, sizeof(lsm));
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (!strcmp(t, "brute"))
				active = true;
	}
	for (size_t i = 0; i < N_TUNABLES; i++) {
		char rel[128], *path;

		snprintf(rel, sizeof(rel), SYSCTL_DIR "/%s", tunables[i]);
		path = sys_path(rel);
		val_err[i] = read_small(path, vals[i], sizeof(vals[i]));
		free(path);
	}
	read_stats(&si);
	query_audit(&ai);
	read_reportd(&ri);
	/* protected: Brute active and on, audit not known to be off (as brute-reportd --health) */
	mode_i = mode_index();
	if (lsm_err)
		append_why(why, sizeof(why), "cannot read /sys/kernel/security/lsm");
	else if (!active)
		append_why(why, sizeof(why), "Brute is not active");
	if (!lsm_err && active && val_err[mode_i])
		append_why(why, sizeof(why), "cannot read its mode");
	else if (!lsm_err && active && !strcmp(vals[mode_i], "0"))
		append_why(why, sizeof(why), "Brute is in mode 0 (off)");
	if (!ai.err && !ai.enabled)
		append_why(why, sizeof(why), "audit is disabled");

	if (json) {
		printf("{\"active\":%s,\"lsm\":", active ? "true" : "false");
		if (lsm_err)
			fputs("null", stdout);
		else
			put_json_str(stdout, lsm, strlen(lsm));
		printf(",\"audit\":");
		if (ai.err)
			printf("{\"error\":\"%s\"}", strerror(ai.err));
		else
			printf("{\"enabled\":%" PRIu32 ",\"pid\":%" PRIu32 ",\"backlog\":%" PRIu32
			       ",\"backlog_limit\":%" PRIu32 ",\"lost\":%" PRIu32 "}",
			       ai.enabled, ai.pid, ai.backlog, ai.backlog_limit, ai.lost);
		printf(",\"tunables\":{");
		for (size_t i = 0; i < N_TUNABLES; i++) {
			printf("%s\"%s\":", i ? "," : "", tunables[i]);
			if (val_err[i])
				fputs("null", stdout);
			else if (is_number(vals[i]))
				fputs(vals[i], stdout);
			else
				put_json_str(stdout, vals[i], strlen(vals[i]));
		}
		printf("},\"stats\":");
		if (si.err) {
			fputs("null", stdout);
		} else {
			for (size_t i = 0; i < si.n; i++)
				printf("%s\"%s\":%" PRIu64, i ? "," : "{", si.key[i], si.val[i]);
			fputs(si.n ? "}" : "{}", stdout);
		}
		print_reportd(&ri, true);
		printf(",\"protected\":%s,\"not_protected_because\":", why[0] ? "false" : "true");
		if (why[0])
			put_json_str(stdout, why, strlen(why));
		else
			fputs("null", stdout);
		printf("}\n");
	} else {
		if (lsm_err)
			printf("brute:   unknown (cannot read /sys/kernel/security/lsm: %s)\n",
			       strerror(-lsm_err));
		else
			printf("brute:   %s (lsm: %s)\n", active ? "active" : "NOT active", lsm);
		if (si.err == -ENOENT) {
			printf("stats:   absent (no " STATS_PATH ")\n");
		} else if (si.err == -EBADMSG) {
			printf("stats:   unknown (" STATS_PATH ": not key=number pairs)\n");
		} else if (si.err) {
			printf("stats:   unknown (" STATS_PATH ": %s)\n", strerror(-si.err));
		} else {
			printf("stats:   ");
			for (size_t i = 0; i < si.n; i++)
				printf("%s%s %" PRIu64, i ? ", " : "", si.key[i], si.val[i]);
			putchar('\n');
		}
		if (ai.err == EPERM || ai.err == EACCES)
			printf("audit:   unknown (querying it needs root)\n");
		else if (ai.err)
			printf("audit:   unknown (%s)\n", strerror(ai.err));
		else
			printf("audit:   %s, auditd pid %" PRIu32 "%s, backlog %" PRIu32 "/%" PRIu32
			       ", lost %" PRIu32 "\n",
			       ai.enabled == 2 ? "enabled (locked)" :
			       ai.enabled ? "enabled" : "DISABLED (Brute reports nothing)",
			       ai.pid, ai.pid ? "" : " (none)", ai.backlog, ai.backlog_limit, ai.lost);
		printf("tunables (" SYSCTL_DIR "):\n");
		for (size_t i = 0; i < N_TUNABLES; i++) {
			const char *note = "";

			if (!val_err[i] && !strcmp(tunables[i], "mode"))
				note = !strcmp(vals[i], "0") ? " (off)" :
				       !strcmp(vals[i], "1") ? " (detect and audit)" :
				       !strcmp(vals[i], "2") ? " (detect, audit and stop)" : "";
			if (val_err[i] == -ENOENT)
				printf("  %-26s absent\n", tunables[i]);
			else if (val_err[i])
				printf("  %-26s unreadable (%s)\n", tunables[i], strerror(-val_err[i]));
			else
				printf("  %-26s %s%s\n", tunables[i], vals[i], note);
		}
		print_reportd(&ri, false);
		if (why[0])
			printf("host:    NOT protected: %s\n", why);
		else
			printf("host:    protected\n");
	}
	return flushed(why[0] ? EXIT_UNPROTECTED : EXIT_OK);
}

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
		"                            tunables\n"
		"\n"
		"USER is a user name or a uid. Reading the tables and lifting need root.\n"
		"Exit status: 0 success, 1 the operation failed, 2 usage error; status: 3 the host\n"
		"is not protected (Brute not active or in mode 0, or audit disabled).\n"
		"Environment: BRUTE_SYSFS_ROOT is prefixed to the /sys and /proc paths.\n");
}

int main(int argc, char **argv)
{
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
	err("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
