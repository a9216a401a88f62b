/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c - logging, string buffers, time and number helpers.
 */
#include "util.h"

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
	char buf[2048];
	va_list ap;
	int saved_errno = errno;

	if (level > log_max_level || log_quiet)
		return;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);

	if (log_target == LOG_TARGET_KMSG_PREFIX)
		fprintf(stderr, "<%d>%s\n", level & 7, buf);
	else
		fprintf(stderr, "brute-reportd: %s: %s\n", names[level & 7], buf);
	errno = saved_errno;
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

int sb_reserve(struct strbuf *sb, size_t extra)
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

int sb_put(struct strbuf *sb, const void *data, size_t len)
{
	if (sb_reserve(sb, len) < 0)
		return -ENOMEM;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sb_puts(struct strbuf *sb, const char *s)
{
	return sb_put(sb, s, strlen(s));
}

int sb_putc(struct strbuf *sb, char c)
{
	return sb_put(sb, &c, 1);
}

int sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

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

int parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
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
	time_t sec = (time_t)(usec / 1000000);
	struct tm tm;
	char tmp[32];

	if (!gmtime_r(&sec, &tm))
		return -EINVAL;
	if (strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s.%06uZ", tmp,
			     (unsigned)(usec % 1000000)) >= len)
		return -ENOSPC;
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
