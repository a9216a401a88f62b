/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool_format.c - the spool's bytes: checksums, headers, records, names.
 */
#include "spool_format.h"
#include "spool.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t spf_fnv1a(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t h = 2166136261u;

	while (len--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

uint64_t spf_sum64(const unsigned char *b, size_t len)
{
	uint32_t sum = spf_fnv1a(b, len);

	return sum ? sum : 1;
}

int spf_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int spf_pread(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EBADMSG;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

uint64_t spf_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

void spf_put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

void spf_seg_name(uint64_t base, char *buf, size_t len)
{
	snprintf(buf, len, SEG_PREFIX "%016llx", (unsigned long long)base);
}

bool spf_parse_seg_name(const char *n, uint64_t *base)
{
	char *end;

	if (strlen(n) != SEG_NAME_LEN || strncmp(n, SEG_PREFIX, strlen(SEG_PREFIX)) != 0)
		return false;
	n += strlen(SEG_PREFIX);
	for (const char *p = n; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	*base = strtoull(n, &end, 16);
	return *end == '\0';
}

void spf_put32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

uint32_t spf_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/* The header of g with count; the previous format when its sequence number is unknown. */
int spf_write_header(int fd, const struct segment *g, uint64_t count)
{
	unsigned char h[SEG_HDR];

	memset(h, 0, sizeof(h));
	memcpy(h, g->seq_known ? SEG_MAGIC : SEG_MAGIC2, 8);
	spf_put64(h + 8, g->base);
	spf_put64(h + 16, count);
	if (g->seq_known) {
		spf_put32(h + 24, g->seq);
		spf_put32(h + 28, (uint32_t)spf_sum64(h, 28));
	} else {
		spf_put64(h + 24, spf_sum64(h, 24));
	}
	return spf_pwrite(fd, h, sizeof(h), 0);
}

/* A valid header of either format: its count and sequence number. */
bool spf_parse_header(const unsigned char *h, uint64_t base, struct segment *g)
{
	if (spf_get64(h + 8) != base || base > SPOOL_POS_MAX)
		return false;
	if (!memcmp(h, SEG_MAGIC, 8) && spf_get32(h + 28) == (uint32_t)spf_sum64(h, 28)) {
		g->seq = spf_get32(h + 24);
		g->seq_known = true;
	} else if (!memcmp(h, SEG_MAGIC2, 8) && spf_get64(h + 24) == spf_sum64(h, 24)) {
		g->seq_known = false;
	} else {
		return false;
	}
	g->count = spf_get64(h + 16);
	return true;
}

/* ---- records ---- */

/*
 * The record at file offset off of a file of size bytes: its total size
 * in *total; with out, its payload into out (checksum verified); with
 * verify and no out, the checksum verified anyway.  -EBADMSG if it is not
 * a valid record.
 */
int spf_read_record(int fd, uint64_t off, uint64_t size, struct strbuf *out, bool verify,
		       uint64_t *total)
{
	unsigned char h[REC_HDR];
	uint32_t magic, len, sum;
	struct strbuf tmp = STRBUF_INIT;
	struct strbuf *b = out ? out : &tmp;
	int r;

	if (off + REC_HDR > size)
		return -EBADMSG;
	r = spf_pread(fd, h, sizeof(h), off);
	if (r < 0)
		return r;
	memcpy(&magic, h, 4);
	memcpy(&len, h + 4, 4);
	memcpy(&sum, h + 8, 4);
	magic = le32toh(magic);
	len = le32toh(len);
	sum = le32toh(sum);
	if (magic != REC_MAGIC || len > SPOOL_RECORD_MAX || off + REC_HDR + len > size)
		return -EBADMSG;
	if (out || verify) {
		sb_reset(b);
		r = sb_reserve(b, len);
		if (r == 0)
			r = spf_pread(fd, b->buf, len, off + REC_HDR);
		if (r == 0) {
			b->len = len;
			b->buf[len] = '\0';
			if (spf_fnv1a(b->buf, len) != sum)
				r = -EBADMSG;
		}
		sb_free(&tmp);
		if (r < 0)
			return r;
	}
	*total = REC_HDR + len;
	return 0;
}

/* The first valid record after file offset from (exclusive): 0 and *at, or -ENOENT. */
int spf_find_valid(int fd, uint64_t from, uint64_t size, uint64_t *at)
{
	const unsigned char magic[4] = { 'B', 'R', 'S', '1' };
	unsigned char buf[65536];
	uint64_t pos = from + 1;

	while (pos + REC_HDR <= size) {
		size_t n = size - pos < sizeof(buf) ? (size_t)(size - pos) : sizeof(buf);
		size_t k = 0;
		int r = spf_pread(fd, buf, n, pos);

		if (r < 0)
			return r;
		for (;;) {
			unsigned char *m = memmem(buf + k, n - k, magic, sizeof(magic));
			uint64_t total;

			if (!m)
				break;
			k = (size_t)(m - buf);
			if (spf_read_record(fd, pos + k, size, NULL, true, &total) == 0) {
				*at = pos + k;
				return 0;
			}
			k++;
		}
		if (n < sizeof(buf))
			break;
		pos += n - (sizeof(magic) - 1);
	}
	return -ENOENT;
}

