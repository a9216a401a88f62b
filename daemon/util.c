/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c - logging, string buffers, time and number helpers.
 */
#include "util.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum log_target log_target = LOG_TARGET_STDERR;
static int log_max_level = LOG_INFO;
static bool log_quiet;

void log_setup(void)
{
	/* journald sets JOURNAL_STREAM for services whose stderr it reads */
	if (getenv("JOURNAL_STREAM"))
		log_target = LOG_TARGET_KMSG_PREFIX;
	else
		log_target = LOG_TARGET_STDERR;
}

void log_set_max_level(int level)
{
	log_max_level = level;
}

void log_set_quiet(bool quiet)
{
	log_quiet = quiet;
}

void log_msg(int level, const char *fmt, ...)
{
	static const char *const names[] = {
		"emergency", "alert", "critical", "error",
		"warning", "notice", "info", "debug",
	};
	struct strbuf text = STRBUF_INIT;
	char buf[2048];
	const char *line;
	va_list ap;
	int saved_errno = errno;

	if (level > log_max_level || log_quiet)
		return;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);

	/* names in messages come from the attacker: one line, no escape sequence */
	if (sb_put_text(&text, buf) == 0) {
		line = text.buf;
	} else {
		for (char *p = buf; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		line = buf;
	}
	if (log_target == LOG_TARGET_KMSG_PREFIX)
		fprintf(stderr, "<%d>%s\n", level & 7, line);
	else
		fprintf(stderr, "brute-reportd: %s: %s\n", names[level & 7], line);
	sb_free(&text);
	errno = saved_errno;
}

size_t utf8_seq_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL terminator */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool utf8_is_control(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	if (n == 2)
		return s[0] == 0xc2 && s[1] < 0xa0;	/* U+0080-U+009F */
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x80)	/* U+2028-U+202E */
		return s[2] >= 0xa8 && s[2] <= 0xae;
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x81)	/* U+2066-U+2069 */
		return s[2] >= 0xa6 && s[2] <= 0xa9;
	return false;
}

/* Bytes text takes as they are: printable ASCII but the backslash. */
static unsigned char text_plain[256];

int sb_put_text(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!text_plain['a']) {
		for (int c = 0x20; c < 0x7f; c++)
			text_plain[c] = c != '\\';
	}

	while (*p) {
		const unsigned char *q = p;
		size_t n;

		while (text_plain[*q])	/* a run of plain ASCII: at once */
			q++;
		if (q > p) {
			sb_put(sb, p, (size_t)(q - p));
			p = q;
			continue;
		}
		n = utf8_seq_len(p);
		if (n == 0 || utf8_is_control(p, n)) {
			n = n ? n : 1;
			for (size_t i = 0; i < n; i++)
				sb_printf(sb, "\\%03o", p[i]);
		} else if (*p == '\\') {
			sb_puts(sb, "\\\\");
		} else {
			sb_put(sb, p, n);
		}
		p += n;
	}
	return sb->oom ? -ENOMEM : 0;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->oom = false;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->oom = false;
	if (sb->buf)
		sb->buf[0] = '\0';
}

int sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need, ncap;
	char *n;

	if (sb->oom)
		return -ENOMEM;
	if (extra > SIZE_MAX / 2 - sb->len - 1)
		goto oom;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	ncap = sb->cap ? sb->cap : 64;
	while (ncap < need)
		ncap *= 2;
	n = realloc(sb->buf, ncap);
	if (!n)
		goto oom;
	sb->buf = n;
	sb->cap = ncap;
	return 0;
oom:
	sb->oom = true;
	return -ENOMEM;
}

/*
 * Formats that use only %s, %d, %u, %llu and %%: every entry message is one.
 * glibc's vsnprintf() took a third of the correlator's time formatting them.
 */
static bool format_is_simple(const char *fmt)
{
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
		p++;
		if (*p == 's' || *p == 'd' || *p == 'u' || *p == '%')
			p++;
		else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'u')
			p += 3;
		else
			return false;
	}
	return true;
}

/*
 * format_is_simple() of a format seen before: formats are string literals
 * (-Wformat-nonliteral), so a pointer found simple stays simple.
 */
static bool format_known_simple(const char *fmt)
{
	static const char *known[64];
	size_t k = ((uintptr_t)fmt >> 3) & 63;

	if (known[k] == fmt)
		return true;
	if (!format_is_simple(fmt))
		return false;
	known[k] = fmt;
	return true;
}

static int sb_vformat_simple(struct strbuf *sb, const char *fmt, va_list ap)
{
	const char *p = fmt;

	for (;;) {
		const char *pct = strchr(p, '%');
		const char *s;

		if (!pct)
			return sb_puts(sb, p);
		sb_put(sb, p, (size_t)(pct - p));
		p = pct + 1;
		switch (*p++) {
		case 's':
			s = va_arg(ap, const char *);
			sb_puts(sb, s ? s : "(null)");
			break;
		case 'd': {
			int d = va_arg(ap, int);

			if (d < 0)
				sb_putc(sb, '-');
			sb_put_u64(sb, d < 0 ? -(uint64_t)d : (uint64_t)d);
			break;
		}
		case 'u':
			sb_put_u64(sb, va_arg(ap, unsigned int));
			break;
		case 'l':
			p += 2;		/* "llu", as format_is_simple() checked */
			sb_put_u64(sb, va_arg(ap, unsigned long long));
			break;
		default:
			sb_putc(sb, '%');
			break;
		}
	}
}

int sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (format_known_simple(fmt)) {
		va_copy(aq, ap);
		n = sb_vformat_simple(sb, fmt, aq);
		va_end(aq);
		return sb->oom ? -ENOMEM : n;
	}

	if (sb_reserve(sb, 64) < 0)
		return -ENOMEM;
	va_copy(aq, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, aq);
	va_end(aq);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sb->cap - sb->len) {
		if (sb_reserve(sb, (size_t)n) < 0)
			return -ENOMEM;
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
	return 0;
}

int sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_vprintf(sb, fmt, ap);
	va_end(ap);
	return r;
}

void sb_consume(struct strbuf *sb, size_t n)
{
	if (n >= sb->len) {
		sb_reset(sb);
		return;
	}
	memmove(sb->buf, sb->buf + n, sb->len - n);
	sb->len -= n;
	sb->buf[sb->len] = '\0';
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

void strtcpy(char *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

uint64_t now_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t now_realtime_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

char *u64_dec(uint64_t v, char buf[U64_DEC_MAX])
{
	char *p = buf + U64_DEC_MAX - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

int sb_put_u64(struct strbuf *sb, uint64_t v)
{
	char buf[U64_DEC_MAX], *p = u64_dec(v, buf);

	return sb_put(sb, p, (size_t)(buf + U64_DEC_MAX - 1 - p));
}

/* Every record field is one of these: strtoull()'s locale and sign handling are not needed. */
int parse_u64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned d;

	if (!s || (unsigned)(*s - '0') > 9)
		return -EINVAL;
	for (; (d = (unsigned)(*s - '0')) <= 9; s++) {
		/* 19 digits never overflow: check only past them */
		if (v >= 1000000000000000000ull && v > (UINT64_MAX - d) / 10)
			goto range;
		v = v * 10 + d;
	}
	if (*s)
		return -EINVAL;
	*ret = v;
	return 0;
range:
	/* strtoull() reports ERANGE only for a well-formed number */
	while (*s >= '0' && *s <= '9')
		s++;
	return *s ? -EINVAL : -ERANGE;
}

int parse_u32(const char *s, uint32_t *ret)
{
	uint64_t v;
	int r = parse_u64(s, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int format_rfc3339(uint64_t usec, char *buf, size_t len)
{
	/* entries come in bursts within one second: convert each second once */
	static _Thread_local uint64_t last_sec = UINT64_MAX;
	static _Thread_local char last[32];
	uint64_t sec = usec / 1000000;
	unsigned frac = (unsigned)(usec % 1000000);

	/* RFC 3339 has 4-digit years */
	if (sec > 253402300799ull)
		return -ERANGE;
	if (sec != last_sec) {
		time_t t = (time_t)sec;
		struct tm tm;

		if (!gmtime_r(&t, &tm))
			return -EINVAL;
		if (strftime(last, sizeof(last), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
			return -EINVAL;
		last_sec = sec;
	}
	if (len < 28)	/* 19 + ".ffffff" + "Z" + NUL */
		return -ENOSPC;
	memcpy(buf, last, 19);
	buf[19] = '.';
	for (int i = 25; i > 19; i--, frac /= 10)
		buf[i] = (char)('0' + frac % 10);
	buf[26] = 'Z';
	buf[27] = '\0';
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int audit_untrusted_decode(const char *in, char *out, size_t outlen)
{
	size_t n = strlen(in), i, o = 0;

	if (outlen == 0)
		return -ENOSPC;
	if (strcmp(in, "(null)") == 0 || strcmp(in, "?") == 0) {
		out[0] = '\0';
		return 0;
	}
	if (n >= 2 && in[0] == '"' && in[n - 1] == '"') {
		if (n - 2 >= outlen)
			return -ENOSPC;
		memcpy(out, in + 1, n - 2);
		out[n - 2] = '\0';
		return 0;
	}
	if (n % 2)
		return -EINVAL;
	for (i = 0; i < n; i += 2) {
		int hi = hexval((unsigned char)in[i]), lo = hexval((unsigned char)in[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		if (o + 1 >= outlen)
			return -ENOSPC;
		out[o] = (char)(hi << 4 | lo);
		if (out[o] == '\0')
			return -EINVAL;
		o++;
	}
	out[o] = '\0';
	return 0;
}

int audit_untrusted_encode(struct strbuf *sb, const char *value)
{
	const unsigned char *p;
	bool safe = true;

	for (p = (const unsigned char *)value; *p; p++)
		if (*p <= ' ' || *p == '"' || *p >= 0x7f) {
			safe = false;
			break;
		}
	if (safe)
		return sb_printf(sb, "\"%s\"", value);
	for (p = (const unsigned char *)value; *p; p++)
		if (sb_printf(sb, "%02X", *p) < 0)
			return -ENOMEM;
	return 0;
}

int mkdir_p(const char *path, unsigned mode)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}
