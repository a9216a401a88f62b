// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl trust: Brute's trusted peers (proxies, load balancers, health checkers, NAT
 * gateways, relay uids): list, add, del, load (the trusted-peers file, applied at boot by
 * brute-trusted-peers.service) and check. Every change is ONE write(2) to the kernel's list,
 * one transaction: all of it is applied or nothing is.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "brutectl.h"
#include "trust.h"

#define MAX_TOKENS 8	/* a peer and its two scope fields; more is an error */
#define MAX_LISTED 20	/* a file's errors (and warnings) listed; the others counted */
#define BOM "\357\273\277"	/* U+FEFF in UTF-8, the byte-order mark */

/* ---- the kernel's list ------------------------------------------------------------------ */

enum { T_TRUSTED, T_CRASHES, T_NETNS, T_LADDR, T_LPORT, N_T };
static const char *const t_names[N_T] = { "trusted", "crashes", "netns", "laddr", "lport" };

/*
 * One line of the kernel's list into *out (a struct trust_entry): trusted= and crashes=
 * required, netns=, laddr= (only with lport=, never on a uid entry) and lport= optional;
 * unknown keys ignored (a newer kernel's), none twice.
 */
static bool parse_trusted_line(char *line, void *out, char *why, size_t size)
{
	struct trust_entry *e = out;
	bool seen[N_T] = { false };
	char *tok, *save = NULL, quoted[168];
	uint64_t v;

	memset(e, 0, sizeof(*e));
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *val;
		int f;

		f = kv_field(tok, t_names, N_T, seen, &val, why, size);
		if (f == KV_BAD)
			return false;
		if (f == KV_UNKNOWN)
			continue;
		switch (f) {
		case T_TRUSTED:
			if (!trust_parse_kernel_peer(val, e))
				goto badval;
			break;
		case T_CRASHES:
			if (!parse_u64(val, UINT64_MAX, &e->crashes))
				goto badval;
			break;
		case T_NETNS:
			if (!parse_u64(val, UINT64_MAX, &e->netns))
				goto badval;
			e->has_netns = true;
			break;
		case T_LADDR:
			if (inet_pton(AF_INET, val, e->laddr) == 1)
				e->laddr_family = AF_INET;
			else if (inet_pton(AF_INET6, val, e->laddr) == 1)
				e->laddr_family = AF_INET6;
			else
				goto badval;
			e->has_laddr = true;
			break;
		case T_LPORT:
			if (!parse_u64(val, 65535, &v))
				goto badval;
			e->lport = (uint32_t)v;
			e->has_lport = true;
			break;
		}
		continue;
badval:
		snprintf(why, size, "bad value for %s: '%s'", tok, snip(quoted, sizeof(quoted), val));
		return false;
	}
	for (int f = 0; f < T_NETNS; f++) {
		if (!seen[f]) {
			snprintf(why, size, "missing field %s", t_names[f]);
			return false;
		}
	}
	if (e->has_laddr && !e->has_lport) {
		snprintf(why, size, "laddr without lport");
		return false;
	}
	if (e->family == AF_UNIX && e->has_lport) {
		snprintf(why, size, "a uid entry with an endpoint (laddr, lport)");
		return false;
	}
	return true;
}

static void free_trusted(void *v, size_t n)
{
	(void)n;
	free(v);
}

int trust_read_kernel(struct trust_entry **v, size_t *n, bool absent_ok)
{
	void *p = NULL;

	if (absent_ok) {
		char *path = sys_path(TRUSTED_PATH);
		bool absent = access(path, F_OK) && errno == ENOENT;

		free(path);
		if (absent) {
			*v = NULL;
			*n = 0;
			return 1;
		}
	}
	if (read_table(TRUSTED_PATH, NO_TRUSTED, sizeof(**v), parse_trusted_line, free_trusted,
		       &p, n))
		return -1;
	*v = p;
	return 0;
}

int64_t trust_uid_max(void)
{
	char *path = sys_path(TRUSTED_UID_MAX_PATH), buf[32];
	int r = read_small(path, buf, sizeof(buf));
	uint64_t v;

	free(path);
	if (r)
		return r;
	if (!parse_u64(buf, UINT32_MAX, &v))
		return -EBADMSG;
	return (int64_t)v;
}

/* ---- output ----------------------------------------------------------------------------- */

enum { TC_TRUSTED, TC_USER, TC_NETNS, TC_ENDPOINT, TC_CRASHES, N_TC };
static const char *const tc_head[N_TC] = { "TRUSTED", "USER", "NETNS", "ENDPOINT", "CRASHES" };
static const bool tc_right[N_TC] = { false, false, false, false, true };

/* The user of a one-uid entry, or NULL. */
static const char *entry_user(const struct trust_entry *e)
{
	struct passwd *pw;

	if (e->family != AF_UNIX || e->uid_first != e->uid_last)
		return NULL;
	pw = getpwuid(e->uid_first);
	return pw ? pw->pw_name : NULL;
}

void trust_print_table(const struct trust_entry *v, size_t n)
{
	enum { CELL = 72 };
	char (*cells)[N_TC][CELL] = calloc(n ? n : 1, sizeof(*cells));
	size_t width[N_TC];

	if (!cells) {
		err("out of memory");
		return;
	}
	for (int c = 0; c < N_TC; c++)
		width[c] = strlen(tc_head[c]);
	for (size_t i = 0; i < n; i++) {
		const char *user = entry_user(&v[i]);

		trust_peer_text(&v[i], cells[i][TC_TRUSTED], CELL);
		snprintf(cells[i][TC_USER], CELL, "%s", user ? user : "-");
		if (v[i].has_netns)
			snprintf(cells[i][TC_NETNS], CELL, "%" PRIu64, v[i].netns);
		else
			snprintf(cells[i][TC_NETNS], CELL, "any");
		trust_endpoint_text(&v[i], cells[i][TC_ENDPOINT], CELL);
		snprintf(cells[i][TC_CRASHES], CELL, "%" PRIu64, v[i].crashes);
		for (int c = 0; c < N_TC; c++)
			if (strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
	}
	for (size_t i = 0; i <= n; i++) {
		for (int c = 0; c < N_TC; c++) {
			const char *text = i ? cells[i - 1][c] : tc_head[c];

			if (c == N_TC - 1)
				printf("%*s\n", (int)width[c], text);
			else
				printf(tc_right[c] ? "%*s  " : "%-*s  ", (int)width[c], text);
		}
	}
	free(cells);
}

void trust_print_json_array(const struct trust_entry *v, size_t n)
{
	putchar('[');
	for (size_t i = 0; i < n; i++) {
		const struct trust_entry *e = &v[i];
		char peer[64], spec[256], ep[64], addr[64];
		const char *user = entry_user(e);

		trust_peer_text(e, peer, sizeof(peer));
		trust_spec(e, spec, sizeof(spec));
		printf("%s\n{\"trusted\":\"%s\"", i ? "," : "", peer);
		if (e->family == AF_UNIX) {
			printf(",\"family\":\"uid\",\"uid_first\":%" PRIu32 ",\"uid_last\":%" PRIu32
			       ",\"user\":", e->uid_first, e->uid_last);
			if (user)
				put_json_str(stdout, user, strlen(user));
			else
				fputs("null", stdout);
		} else {
			inet_ntop(e->family, e->addr, addr, sizeof(addr));
			printf(",\"family\":\"%s\",\"address\":\"%s\",\"prefix\":%" PRIu32,
			       e->family == AF_INET ? "ipv4" : "ipv6", addr, e->prefix);
		}
		fputs(",\"netns\":", stdout);
		if (e->has_netns)
			printf("%" PRIu64, e->netns);
		else
			fputs("null", stdout);
		fputs(",\"laddr\":", stdout);
		if (e->has_laddr) {
			inet_ntop(e->laddr_family, e->laddr, addr, sizeof(addr));
			printf("\"%s\"", addr);
		} else {
			fputs("null", stdout);
		}
		fputs(",\"lport\":", stdout);
		if (e->has_lport)
			printf("%" PRIu32, e->lport);
		else
			fputs("null", stdout);
		trust_endpoint_text(e, ep, sizeof(ep));
		printf(",\"endpoint\":\"%s\",\"crashes\":%" PRIu64 ",\"spec\":\"%s\"}", ep, e->crashes,
		       spec);
	}
	printf("%s]", n ? "\n" : "");
}

void trust_print_uid_max(int64_t uid_max)
{
	if (uid_max > 1)
		printf("local uids 1-%" PRId64 " are trusted relays (trusted_uid_max %" PRId64
		       "): never charged over a Unix socket or loopback TCP\n", uid_max, uid_max);
	else if (uid_max == 1)
		printf("local uid 1 is a trusted relay (trusted_uid_max 1): never charged over a Unix "
		       "socket or loopback TCP\n");
	else if (uid_max == 0)
		printf("no local uid is trusted by default (trusted_uid_max 0)\n");
	else if (uid_max != -ENOENT)
		printf("trusted_uid_max: unknown (%s)\n", strerror((int)-uid_max));
}

/* ---- the operator's file ---------------------------------------------------------------- */

/* Splits s on blanks into at most max tokens; returns their number, max + 1 if more. */
static size_t split_blanks(char *s, char **tok, size_t max)
{
	char *save = NULL, *t;
	size_t n = 0;

	for (t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = t;
	}
	return n;
}

/* Adds e to the list (v, n) unless it is there: returns the earlier entry's index or -1. */
static ssize_t find_same(const struct trust_entry *v, size_t n, const struct trust_entry *e)
{
	for (size_t i = 0; i < n; i++)
		if (trust_same(&v[i], e))
			return (ssize_t)i;
	return -1;
}

/* The path of a file for messages: one line, its control bytes escaped, bounded. */
static const char *path_text(char *buf, size_t size, const char *path)
{
	return escape_tty(buf, size, path, strnlen(path, size));
}

/* Opens the operator's file as the daemon opens its configuration: a regular file, not a
 * link, root's (or the running user's own), writable by its owner only. name: path for
 * messages (path_text()). */
static FILE *open_conf(const char *path, const char *name)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			err("%s: a symbolic link, refused (name the file itself)", name);
		else
			err("cannot read %s: %s", name, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		err("cannot read %s: %s", name, strerror(errno));
		goto bad;
	}
	if (!S_ISREG(st.st_mode)) {
		err("%s: not a regular file, refused", name);
		goto bad;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		err("%s: owned by uid %u, neither root nor the user running brutectl: refused", name,
		    (unsigned)st.st_uid);
		goto bad;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		err("%s: writable by its group or by everyone (mode %04o): refused", name,
		    (unsigned)(st.st_mode & 07777));
		goto bad;
	}
	f = fdopen(fd, "r");
	if (f)
		return f;
	err("cannot read %s: %s", name, strerror(errno));
bad:
	close(fd);
	return NULL;
}

/* Checks one line (without its newline), its comment too, and strips the comment; false
 * with why. */
static bool clean_line(char *line, size_t len, char *why, size_t size)
{
	char *comment = NULL;

	if (strlen(line) != len) {
		snprintf(why, size, "NUL byte");
		return false;
	}
	if (len > TRUST_MAX_LINE) {
		snprintf(why, size, "line too long (%zu bytes, at most %d)", len, TRUST_MAX_LINE);
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (!comment && line[i] == '#' &&
		    (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
			comment = line + i;
		if (((unsigned char)line[i] < 0x20 && line[i] != '\t') || line[i] == 0x7f) {
			snprintf(why, size, "control character \\%03o%s", (unsigned char)line[i],
				 comment ? " in a comment" : "");
			return false;
		}
	}
	if (comment)
		*comment = '\0';
	return true;
}

/* A file's error (FILE:LINE: why), listed if fewer than MAX_LISTED were; counted in *errors. */
static void conf_error(const char *name, unsigned lineno, const char *why, int *errors)
{
	if (*errors < MAX_LISTED)
		err("%s:%u: %s", name, lineno, why);
	(*errors)++;
}

/* A file's warning, the same way (counted in *warnings). */
static void conf_warning(const char *name, unsigned lineno, const char *what, unsigned *warnings)
{
	if (*warnings < MAX_LISTED)
		fprintf(stderr, "brutectl: %s:%u: warning: %s\n", name, lineno, what);
	(*warnings)++;
}

int trust_read_conf(const char *path, struct trust_entry **out, size_t *count)
{
	struct trust_entry *v = NULL, e;
	size_t n = 0, cap = 0, over = 0, alloc = 0;
	char *line = NULL, why[320], *tok[MAX_TOKENS], name[1024];
	unsigned lineno = 0, warnings = 0;
	int errors = 0;
	ssize_t len;
	FILE *f = open_conf(path, path_text(name, sizeof(name), path));

	if (!f)
		return -1;
	while (errno = 0, (len = getline(&line, &alloc, f)) >= 0) {
		const char *warn;
		size_t ntok;
		ssize_t same;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';	/* a file edited on another system */
		if (lineno == 1 && !strncmp(line, BOM, 3)) {
			/* invisible in an editor: named, then the rest of the line checked */
			conf_error(name, lineno, "a byte-order mark (U+FEFF) at the start of the file: "
				   "save it as UTF-8 without one", &errors);
			len -= 3;
			memmove(line, line + 3, (size_t)len + 1);
		}
		if (!clean_line(line, (size_t)len, why, sizeof(why))) {
			conf_error(name, lineno, why, &errors);
			continue;
		}
		ntok = split_blanks(line, tok, MAX_TOKENS);
		if (ntok == 0)
			continue;
		if (ntok > MAX_TOKENS) {
			conf_error(name, lineno, "too many fields (PEER [netns=...] [endpoint=...])",
				   &errors);
			continue;
		}
		if (!trust_parse(tok, ntok, &e, why, sizeof(why))) {
			conf_error(name, lineno, why, &errors);
			continue;
		}
		e.lineno = lineno;
		warn = trust_warning(&e);
		if (warn)
			conf_warning(name, lineno, warn, &warnings);
		same = find_same(v, n, &e);
		if (same >= 0) {
			snprintf(why, sizeof(why), "the same entry as line %u", v[same].lineno);
			conf_warning(name, lineno, why, &warnings);
			continue;
		}
		if (n == TRUST_MAX_ENTRIES) {
			over++;
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 32;
			struct trust_entry *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				err("out of memory");
				goto fail;
			}
			v = nv;
			cap = ncap;
		}
		v[n++] = e;
	}
	if (ferror(f)) {
		err("cannot read %s: %s", name, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (errors > MAX_LISTED)
		err("%s: %d more error%s not listed", name, errors - MAX_LISTED,
		    errors - MAX_LISTED == 1 ? "" : "s");
	if (warnings > MAX_LISTED)
		fprintf(stderr, "brutectl: %s: %u more warning%s not listed\n", name,
			warnings - MAX_LISTED, warnings - MAX_LISTED == 1 ? "" : "s");
	if (over) {
		err("%s: %zu entries: the kernel holds %d at most", name, n + over, TRUST_MAX_ENTRIES);
		errors++;
	}
	free(line);
	fclose(f);
	*out = v;
	*count = n;
	return errors;
fail:
	free(line);
	free(v);
	fclose(f);
	return -1;
}

/* ---- writing the kernel's list ---------------------------------------------------------- */

struct txn {
	char buf[TRUST_MAX_WRITE + 1];
	size_t len;
	bool over;
};

static void txn_add(struct txn *t, const char *op, const struct trust_entry *e)
{
	char spec[256];
	int w;

	if (e)
		trust_kernel_spec(e, spec, sizeof(spec));
	w = snprintf(t->buf + t->len, sizeof(t->buf) - t->len, e ? "%s %s\n" : "%s\n", op,
		     e ? spec : "");
	if (w < 0 || (size_t)w >= sizeof(t->buf) - t->len || t->len + (size_t)w > TRUST_MAX_WRITE)
		t->over = true;
	else
		t->len += (size_t)w;
}

/*
 * The transaction, in ONE write(2): the kernel applies all of it or nothing. cmd names the
 * command for messages. Returns EXIT_OK or EXIT_FAIL (with a message).
 */
static int txn_write(const struct txn *t, const char *cmd)
{
	char *path = sys_path(TRUSTED_PATH);
	int fd, e, ret = EXIT_FAIL;
	ssize_t w;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EACCES || e == EPERM)
			err("trust %s: cannot open %s: %s (changing the trusted list needs root)", cmd,
			    path, strerror(e));
		else if (e == ENOENT)
			err("trust %s: cannot open %s: %s: %s", cmd, path, strerror(e),
			    brute_absent_hint(NO_TRUSTED));
		else
			err("trust %s: cannot open %s: %s", cmd, path, strerror(e));
		goto out;
	}
	w = write(fd, t->buf, t->len);
	e = errno;
	if (close(fd) && w >= 0) {
		e = errno;
		w = -1;
	}
	if (w == (ssize_t)t->len)
		ret = EXIT_OK;
	else if (w >= 0)
		err("trust %s: short write to %s (%zd of %zu bytes): what the kernel applied is "
		    "unknown (see brutectl trust list)", cmd, path, w, t->len);
	else if (e == EPERM || e == EACCES)
		err("trust %s: %s: %s (changing the trusted list needs CAP_SYS_ADMIN)", cmd, path,
		    strerror(e));
	else if (e == EINVAL)
		err("trust %s: the kernel rejected the change as malformed (EINVAL): nothing applied",
		    cmd);
	else if (e == ENOENT)
		err("trust %s: the kernel has no such entry to delete (ENOENT): nothing applied "
		    "(see brutectl trust list)", cmd);
	else if (e == ENOSPC)
		err("trust %s: the list would hold more than %d entries (ENOSPC): nothing applied",
		    cmd, TRUST_MAX_ENTRIES);
	else if (e == EFBIG)
		err("trust %s: the change is over %d bytes (EFBIG): nothing applied", cmd,
		    TRUST_MAX_WRITE);
	else
		err("trust %s: writing to %s: %s: what the kernel applied is unknown", cmd, path,
		    strerror(e));
out:
	free(path);
	return ret;
}

/* ---- the commands ----------------------------------------------------------------------- */

static const char trust_usage[] =
	"usage: brutectl trust list [--json]\n"
	"       brutectl trust add SPEC... | brutectl trust del SPEC...\n"
	"       brutectl trust load [FILE] | brutectl trust check [FILE]\n"
	"SPEC: ADDR[/LEN] [netns=PATH|INODE] [endpoint=ADDR:PORT|[ADDR6]:PORT|*:PORT],\n"
	"      or uid:USER|uid:UID|uid:FIRST-LAST [netns=PATH|INODE]";

static int trust_list(int argc, char **argv)
{
	struct trust_entry *v;
	char quoted[168];
	bool json = false;
	size_t n;
	int64_t uid_max;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json")) {
			err("trust list: unknown argument '%s'\n%s", snip(quoted, sizeof(quoted), argv[i]),
			    trust_usage);
			return EXIT_USAGE;
		}
		json = true;
	}
	if (trust_read_kernel(&v, &n, false))
		return EXIT_FAIL;
	uid_max = trust_uid_max();
	if (json) {
		fputs("{\"trusted_uid_max\":", stdout);
		if (uid_max >= 0)
			printf("%" PRId64, uid_max);
		else
			fputs("null", stdout);
		fputs(",\"entries\":", stdout);
		trust_print_json_array(v, n);
		fputs("}\n", stdout);
	} else {
		if (n)
			trust_print_table(v, n);
		else
			printf("no trusted peers\n");
		trust_print_uid_max(uid_max);
	}
	free(v);
	return flushed(EXIT_OK);
}

/*
 * The SPECs of add/del: every argument split on blanks; a token with '=' is a scope field of
 * the peer before it. Returns the number of entries (malloc'd in *out), or -1 (usage error,
 * with a message).
 */
static ssize_t parse_args(int argc, char **argv, const char *cmd, struct trust_entry **out)
{
	char *all = NULL, *tok[MAX_TOKENS + 1], why[320], *save = NULL, *t, text[1024];
	char quoted[4 * sizeof(text)], spec[256];
	size_t len = 0, n = 0, ntok = 0, at = 0;
	struct trust_entry *v;
	bool *repeated;
	ssize_t same;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	/* an entry is at least one word, a word and a blank at least two bytes */
	v = calloc(len / 2 + 1, sizeof(*v));
	repeated = calloc(len / 2 + 1, sizeof(*repeated));
	all = malloc(len + 1);
	if (!v || !repeated || !all) {
		err("out of memory");
		free(v);
		free(repeated);
		free(all);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);

		memcpy(all + at, argv[i], l);
		all[at + l] = ' ';
		at += l + 1;
	}
	all[at] = '\0';
	t = strtok_r(all, " \t\n", &save);
	while (t) {
		/* one entry: a peer and the scope fields after it */
		ntok = 0;
		do {
			if (ntok < MAX_TOKENS + 1)
				tok[ntok++] = t;
			t = strtok_r(NULL, " \t\n", &save);
		} while (t && strchr(t, '=') && strchr(tok[0], '=') == NULL);
		text[0] = '\0';
		for (size_t k = 0; k < ntok && k < MAX_TOKENS; k++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", k ? " " : "",
				 tok[k]);
		if (ntok > MAX_TOKENS) {
			err("trust %s: '%s': too many fields\n%s", cmd,
			    escape_tty(quoted, sizeof(quoted), text, strlen(text)), trust_usage);
			goto bad;
		}
		if (!trust_parse(tok, ntok, &v[n], why, sizeof(why))) {
			err("trust %s: '%s': %s", cmd,
			    escape_tty(quoted, sizeof(quoted), text, strlen(text)), why);
			goto bad;
		}
		/* a repeat (the same entry, however it is spelled) is written and said once: the
		 * kernel would refuse a second del of it (ENOENT, the whole write undone) */
		same = find_same(v, n, &v[n]);
		if (same >= 0) {
			if (!repeated[same]) {
				trust_spec(&v[n], spec, sizeof(spec));
				fprintf(stderr, "brutectl: trust %s: warning: %s given more than once, "
					"written once\n", cmd, spec);
				repeated[same] = true;
			}
			continue;
		}
		if (trust_warning(&v[n]))
			fprintf(stderr, "brutectl: trust %s: warning: %s\n", cmd, trust_warning(&v[n]));
		n++;
	}
	free(all);
	free(repeated);
	if (n == 0) {
		err("trust %s: needs at least one SPEC\n%s", cmd, trust_usage);
		free(v);
		return -1;
	}
	*out = v;
	return (ssize_t)n;
bad:
	free(all);
	free(repeated);
	free(v);
	return -1;
}

static int trust_add_del(int argc, char **argv, bool add)
{
	const char *cmd = add ? "add" : "del";
	struct trust_entry *v, *cur = NULL;
	struct txn *t;
	size_t ncur = 0;
	ssize_t n = parse_args(argc - 2, argv + 2, cmd, &v);
	int ret = EXIT_FAIL;
	char spec[256];

	if (n < 0)
		return EXIT_USAGE;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err("out of memory");
		free(v);
		return EXIT_FAIL;
	}
	if (!add) {
		/* del needs an exact match: say which one is missing before writing anything */
		if (trust_read_kernel(&cur, &ncur, false))
			goto out;
		for (ssize_t i = 0; i < n; i++) {
			if (find_same(cur, ncur, &v[i]) < 0) {
				trust_spec(&v[i], spec, sizeof(spec));
				err("trust del: no such trusted entry: %s (see brutectl trust list)", spec);
				goto out;
			}
		}
	}
	for (ssize_t i = 0; i < n; i++)
		txn_add(t, cmd, &v[i]);
	if (t->over) {
		err("trust %s: the change needs more than %d bytes, the most the kernel takes in one "
		    "write: nothing applied (split it)", cmd, TRUST_MAX_WRITE);
		goto out;
	}
	ret = txn_write(t, cmd);
	if (ret == EXIT_OK) {
		for (ssize_t i = 0; i < n; i++) {
			trust_spec(&v[i], spec, sizeof(spec));
			printf("%s: %s\n", add ? "trusted" : "no longer trusted", spec);
		}
		ret = flushed(ret);
	}
out:
	free(cur);
	free(t);
	free(v);
	return ret;
}

static int trust_file(int argc, char **argv, bool load)
{
	const char *cmd = load ? "load" : "check";
	const char *path = argc > 2 ? argv[2] : TRUSTED_CONF;
	struct trust_entry *v = NULL;
	struct txn *t = NULL;
	char name[1024], quoted[168];
	size_t n = 0;
	int errors, ret = EXIT_FAIL;

	if (argc > 3 || (argc == 3 && argv[2][0] == '-' && argv[2][1])) {
		err("trust %s: %s '%s'\n%s", cmd, argc > 3 ? "one FILE at most, got" : "unknown option",
		    snip(quoted, sizeof(quoted), argc > 3 ? argv[3] : argv[2]), trust_usage);
		return EXIT_USAGE;
	}
	path_text(name, sizeof(name), path);
	errors = trust_read_conf(path, &v, &n);
	if (errors < 0)
		return EXIT_FAIL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err("out of memory");
		goto out;
	}
	txn_add(t, "flush", NULL);
	for (size_t i = 0; i < n; i++)
		txn_add(t, "add", &v[i]);
	if (t->over) {
		err("%s: its %zu entries need more than %d bytes, the most the kernel takes in one "
		    "write (one transaction)", name, n, TRUST_MAX_WRITE);
		errors++;
	}
	if (errors) {
		err("%s: %d error%s: %s", name, errors, errors == 1 ? "" : "s",
		    load ? "nothing loaded, the kernel's list is unchanged" : "it would not load");
		goto out;
	}
	if (!load) {
		printf("%s: %zu entr%s, no errors\n", name, n, n == 1 ? "y" : "ies");
		ret = flushed(EXIT_OK);
		goto out;
	}
	ret = txn_write(t, cmd);
	if (ret == EXIT_OK) {
		printf("%s: %zu trusted entr%s loaded (the kernel's list replaced)\n", name, n,
		       n == 1 ? "y" : "ies");
		ret = flushed(ret);
	}
out:
	free(t);
	free(v);
	return ret;
}

int cmd_trust(int argc, char **argv)
{
	char quoted[168];

	if (argc < 2) {
		err("trust: needs a subcommand\n%s", trust_usage);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "list"))
		return trust_list(argc, argv);
	if (!strcmp(argv[1], "add"))
		return trust_add_del(argc, argv, true);
	if (!strcmp(argv[1], "del"))
		return trust_add_del(argc, argv, false);
	if (!strcmp(argv[1], "load"))
		return trust_file(argc, argv, true);
	if (!strcmp(argv[1], "check"))
		return trust_file(argc, argv, false);
	err("trust: unknown subcommand '%s'\n%s", snip(quoted, sizeof(quoted), argv[1]),
	    trust_usage);
	return EXIT_USAGE;
}
