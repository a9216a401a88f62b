// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl: what every command shares: errors, paths, strict numbers, the kernel's
 * escaping, tables read from securityfs, output for terminals and JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brutectl.h"

static const char *prog = "brutectl";

void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* BRUTE_SYSFS_ROOT + path, malloc'd. */
char *sys_path(const char *path)
{
	const char *root = getenv("BRUTE_SYSFS_ROOT");
	char *out;

	if (asprintf(&out, "%s%s", root ? root : "", path) < 0) {
		err("out of memory");
		exit(EXIT_FAIL);
	}
	return out;
}

/* len bytes of s escaped for a terminal as put_name_tty() escapes names, into buf (cut to
 * size); "" for an empty s. */
const char *escape_tty(char *buf, size_t size, const char *s, size_t len)
{
	char *text = NULL;
	size_t n = 0;
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

/* At most 40 bytes of s for an error message, escaped as put_name_tty() escapes names. */
const char *snip(char *buf, size_t size, const char *s)
{
	return escape_tty(buf, size, s, strnlen(s, 40));
}

/* Strict unsigned decimal: digits only, no sign, no overflow beyond max. */
bool parse_u64(const char *s, uint64_t max, uint64_t *out)
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

bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(s, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "MAJ:MIN", both decimal. */
bool parse_dev(const char *s, uint32_t *maj, uint32_t *min)
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
 * Decode the kernel's escaping of a name (the field target_name or lpath, for messages):
 * \ooo (three octal digits) for space, tab, newline, backslash, '=' and non-printables. A
 * backslash not starting \ooo, an escaped NUL or a raw control character is an error (why).
 * Returns a malloc'd string, its length in *len.
 */
char *decode_name(const char *s, const char *field, size_t *len, char *why, size_t why_size)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\') {
			if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' ||
			    s[3] < '0' || s[3] > '7') {
				snprintf(why, why_size, "bad escape in %s (expected \\ooo)", field);
				goto bad;
			}
			c = (unsigned char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			if (c == 0) {
				snprintf(why, why_size, "NUL byte in %s", field);
				goto bad;
			}
			*o++ = (char)c;
			s += 4;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			snprintf(why, why_size, "unescaped control character in %s", field);
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

/* Why the securityfs directory or a file in it may be missing, for error messages; missing
 * says what an active Brute without the file lacks. */
const char *brute_absent_hint(const char *missing)
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

/*
 * Reads and parses every line of the table file rel (a /sys path), each into an element of
 * esize bytes of a malloc'd array; missing is brute_absent_hint()'s. On failure prints why,
 * frees what it parsed (release) and returns -1.
 */
int read_table(const char *rel, const char *missing, size_t esize,
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
void put_name_tty(FILE *out, const char *name, size_t len)
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
void put_json_str(FILE *out, const char *str, size_t len)
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
void fmt_ms(char *buf, size_t size, uint64_t ms)
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

void fmt_s(char *buf, size_t size, uint64_t s)
{
	if (s < 60)
		snprintf(buf, size, "%" PRIu64 "s", s);
	else
		fmt_ms(buf, size, s > UINT64_MAX / 1000 ? UINT64_MAX : s * 1000);
}

/* The options of list and peers: --bans, --json.  Returns -1 (with a message) on another. */
int table_args(int argc, char **argv, const char *cmd, bool *bans, bool *json)
{
	char quoted[168];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bans")) {
			*bans = true;
		} else if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else {
			err("%s: unknown argument '%s' (usage: brutectl %s [--bans] [--json])",
			    cmd, snip(quoted, sizeof(quoted), argv[i]), cmd);
			return -1;
		}
	}
	return 0;
}

/* RET, or EXIT_FAIL (with a message) if standard output could not be written. */
int flushed(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		err("writing the output: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return ret;
}

/* First line of a small file, without its newline; -errno on failure. */
int read_small(const char *path, char *buf, size_t size)
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

bool is_number(const char *s)
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

/*
 * One key=value token of a line of a kernel file: the index of its key in names[] (n of
 * them), *val its value (the token is cut at '='); KV_UNKNOWN for a key not in names (a newer
 * kernel's field: skipped); KV_BAD, why in why, for a token that is not key=value or a key
 * seen before on the line (seen[], n of them, is kept).
 */
int kv_field(char *tok, const char *const names[], int n, bool seen[], const char **val,
	     char *why, size_t size)
{
	char *eq = strchr(tok, '=');
	char quoted[168];
	int f;

	if (!eq || eq == tok) {
		snprintf(why, size, "expected key=value, got '%s'", snip(quoted, sizeof(quoted), tok));
		return KV_BAD;
	}
	*eq = '\0';
	*val = eq + 1;
	for (f = 0; f < n && strcmp(tok, names[f]); f++)
		;
	if (f == n)
		return KV_UNKNOWN;
	if (seen[f]) {
		snprintf(why, size, "duplicate field %s", tok);
		return KV_BAD;
	}
	seen[f] = true;
	return f;
}
