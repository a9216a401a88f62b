/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h - logging, growable string buffers and small helpers shared by
 * every module of brute-reportd.
 */
#ifndef BRUTE_UTIL_H
#define BRUTE_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <syslog.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- logging (the daemon's own diagnostics, not the incident entries) ---- */

enum log_target {
	LOG_TARGET_STDERR,	/* "brute-reportd: error: ..." for interactive use */
	LOG_TARGET_KMSG_PREFIX,	/* "<3>..." prefixes, stderr connected to journald */
};

void log_setup(void);
void log_set_max_level(int level);
void log_set_quiet(bool quiet);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...)   log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)    log_msg(LOG_INFO, __VA_ARGS__)
#define log_notice(...)  log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_error(...)   log_msg(LOG_ERR, __VA_ARGS__)

/* ---- growable byte/string buffer, always NUL terminated ---- */

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;	/* an allocation failed; contents are truncated */
};

#define STRBUF_INIT { NULL, 0, 0, false }

void sb_free(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
/* Room for extra more bytes (and the NUL): the slow path grows the buffer. */
int sb_grow(struct strbuf *sb, size_t extra);
static inline int sb_reserve(struct strbuf *sb, size_t extra)
{
	if (!sb->oom && extra < sb->cap - sb->len)
		return 0;
	return sb_grow(sb, extra);
}

static inline int sb_put(struct strbuf *sb, const void *data, size_t len)
{
	if (sb_reserve(sb, len) < 0)
		return -ENOMEM;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

static inline int sb_puts(struct strbuf *sb, const char *s)
{
	return sb_put(sb, s, strlen(s));
}

static inline int sb_putc(struct strbuf *sb, char c)
{
	if (sb_reserve(sb, 1) < 0)
		return -ENOMEM;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
	return 0;
}
int sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
/* Drop the first n bytes. */
void sb_consume(struct strbuf *sb, size_t n);
const char *sb_str(const struct strbuf *sb);

/* ---- text escaping ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid (or NUL-cut). */
size_t utf8_seq_len(const unsigned char *s);
/*
 * Code points a terminal or a line-based reader acts on: C0 controls, DEL,
 * C1 controls (U+0080-U+009F), the line/paragraph separators and the bidi
 * embedding/override/isolate controls (U+202A-U+202E, U+2066-U+2069).
 */
bool utf8_is_control(const unsigned char *s, size_t n);
/*
 * Append s for a text sink (terminal, log file, syslog MSG, journal
 * MESSAGE): every byte of a control sequence (above) and every byte that
 * is not valid UTF-8 becomes \ooo (octal), a backslash becomes \\;
 * the rest is copied.  The result is one line of valid UTF-8 and
 * unambiguous: "\012" in it is always a newline of the original.
 */
int sb_put_text(struct strbuf *sb, const char *s);

/* ---- misc ---- */

/* mkdir -p: path and its missing parents, mode for those created; 0 or -errno. */
int mkdir_p(const char *path, unsigned mode);

/* Copy with truncation, always NUL terminated (len > 0). */
void strtcpy(char *dst, const char *src, size_t len);

uint64_t now_monotonic_ms(void);
uint64_t now_realtime_usec(void);
/* Decimal digits of v at the end of buf, NUL-terminated; returns where they start. */
#define U64_DEC_MAX 21
char *u64_dec(uint64_t v, char buf[U64_DEC_MAX]);
int sb_put_u64(struct strbuf *sb, uint64_t v);
/* Strict decimal unsigned parse of the whole string; -EINVAL/-ERANGE. */
int parse_u64(const char *s, uint64_t *ret);
int parse_u32(const char *s, uint32_t *ret);
/* RFC 3339 UTC timestamp with microseconds: 2024-01-02T03:04:05.678901Z */
int format_rfc3339(uint64_t usec, char *buf, size_t len);
/*
 * Decode an audit "untrusted string" value as the kernel writes it with
 * audit_log_untrustedstring(): either "quoted" or hex encoded, or (null).
 * Used only for fields libauparse does not know to interpret (oexe).
 */
int audit_untrusted_decode(const char *in, char *out, size_t outlen);
/*
 * Encode a value the way audit does for display in our own text fields:
 * "quoted" when safe, hex otherwise.
 */
int audit_untrusted_encode(struct strbuf *sb, const char *value);

#endif
