/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.c - on-disk message queue.
 */
#include "spool.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define HDR_SIZE	32
#define REC_HDR		12
#define FILE_MAGIC	"BRSPOOL1"
#define REC_MAGIC	0x31535242u	/* "BRS1" */
#define COMPACT_MIN	(1024 * 1024)
#define SPOOL_POS_MAX	(1ull << 62)	/* 4 EiB written: positions never get near overflow */

struct spool {
	int fd;
	int dirfd;
	char *path;
	char *tmp_path;
	uint64_t base;		/* logical position of file offset HDR_SIZE */
	uint64_t head;		/* logical */
	uint64_t size;		/* file size */
	uint64_t max_bytes;
	bool sync;
	bool dropping;		/* drops were logged; reset when the spool drains */
	bool dirty;		/* written since the last fdatasync (sync mode) */
	uint64_t dropped_at_log;
	struct spool_stats stats;
};

static uint32_t fnv1a(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t h = 2166136261u;

	while (len--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

static uint64_t off_of(const struct spool *s, uint64_t pos)
{
	return HDR_SIZE + (pos - s->base);
}

uint64_t spool_head(const struct spool *s)
{
	return s->head;
}

uint64_t spool_tail(const struct spool *s)
{
	return s->base + (s->size - HDR_SIZE);
}

bool spool_empty(const struct spool *s)
{
	return s->head == spool_tail(s);
}

const struct spool_stats *spool_get_stats(const struct spool *s)
{
	return &s->stats;
}

static int full_pwrite(int fd, const void *buf, size_t len, uint64_t off)
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

static int full_pread(int fd, void *buf, size_t len, uint64_t off)
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

/* bytes 24..31 of the header: FNV-1a of bytes 0..23 (0 in spools written before it) */
static uint64_t header_sum(const unsigned char *h)
{
	uint32_t sum = fnv1a(h, 24);

	return sum ? sum : 1;
}

static void header_bytes(const struct spool *s, unsigned char *h)
{
	uint64_t v;

	memset(h, 0, HDR_SIZE);
	memcpy(h, FILE_MAGIC, 8);
	v = htole64(s->base);
	memcpy(h + 8, &v, 8);
	v = htole64(s->head);
	memcpy(h + 16, &v, 8);
	v = htole64(header_sum(h));
	memcpy(h + 24, &v, 8);
}

static int write_header(struct spool *s, int fd)
{
	unsigned char h[HDR_SIZE];

	header_bytes(s, h);
	return full_pwrite(fd, h, sizeof(h), 0);
}

static int persist_head(struct spool *s)
{
	unsigned char h[HDR_SIZE];
	int r;

	header_bytes(s, h);
	r = full_pwrite(s->fd, h + 16, 16, 16);	/* head and checksum */
	if (r == 0 && s->sync)
		s->dirty = true;	/* made durable by the next spool_flush() */
	return r;
}

/* Validate the record at file offset off; its total size in *total. */
static int check_record(struct spool *s, uint64_t off, uint64_t *total, bool verify)
{
	unsigned char h[REC_HDR];
	uint32_t magic, len, sum;
	int r;

	if (off + REC_HDR > s->size)
		return -EBADMSG;
	r = full_pread(s->fd, h, sizeof(h), off);
	if (r < 0)
		return r;
	memcpy(&magic, h, 4);
	memcpy(&len, h + 4, 4);
	memcpy(&sum, h + 8, 4);
	magic = le32toh(magic);
	len = le32toh(len);
	sum = le32toh(sum);
	if (magic != REC_MAGIC || len > SPOOL_RECORD_MAX || off + REC_HDR + len > s->size)
		return -EBADMSG;
	if (verify) {
		char *buf = malloc(len ? len : 1);

		if (!buf)
			return -ENOMEM;
		r = full_pread(s->fd, buf, len, off + REC_HDR);
		if (r == 0 && fnv1a(buf, len) != sum)
			r = -EBADMSG;
		free(buf);
		if (r < 0)
			return r;
	}
	*total = REC_HDR + len;
	return 0;
}

static int load(struct spool *s)
{
	unsigned char h[HDR_SIZE];
	struct stat st;
	uint64_t v, off;
	int r;

	if (fstat(s->fd, &st) < 0)
		return -errno;
	s->size = (uint64_t)st.st_size;
	if (s->size < HDR_SIZE) {
		s->base = s->head = 0;
		if (ftruncate(s->fd, HDR_SIZE) < 0)
			return -errno;
		s->size = HDR_SIZE;
		return write_header(s, s->fd);
	}
	r = full_pread(s->fd, h, sizeof(h), 0);
	if (r < 0)
		return r;
	if (memcmp(h, FILE_MAGIC, 8) != 0)
		return -EBADMSG;
	memcpy(&v, h + 8, 8);
	s->base = le64toh(v);
	memcpy(&v, h + 16, 8);
	s->head = le64toh(v);
	memcpy(&v, h + 24, 8);
	v = le64toh(v);
	/*
	 * A corrupt base or head would put every later position out of reach
	 * (a tail that wraps around): checksum, and positions far from 2^64.
	 */
	if (v != 0 && v != header_sum(h))
		return -EBADMSG;
	if (s->base > SPOOL_POS_MAX || s->head < s->base || s->head - s->base > s->size - HDR_SIZE)
		return -EBADMSG;
	if (v == 0) {
		/* a spool of the previous format: give it a checksum from now on */
		r = write_header(s, s->fd);
		if (r < 0)
			return r;
	}

	/* count valid records; cut a torn or corrupt tail */
	for (off = off_of(s, s->head); off < s->size;) {
		uint64_t total;

		if (check_record(s, off, &total, true) < 0) {
			log_warning("spool %s: %llu bytes of incomplete or corrupt data at the end, discarded",
				    s->path, (unsigned long long)(s->size - off));
			s->stats.truncated_bytes = s->size - off;
			if (ftruncate(s->fd, (off_t)off) < 0)
				return -errno;
			s->size = off;
			break;
		}
		s->stats.records++;
		s->stats.bytes += total;
		off += total;
	}
	return 0;
}

int spool_open(const char *dir, uint64_t max_bytes, bool sync, struct spool **ret)
{
	struct spool *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->fd = s->dirfd = -1;
	s->max_bytes = max_bytes;
	s->sync = sync;
	if (asprintf(&s->path, "%s/spool", dir) < 0 || asprintf(&s->tmp_path, "%s/spool.tmp", dir) < 0) {
		s->path = s->tmp_path = NULL;
		r = -ENOMEM;
		goto fail;
	}
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		r = -errno;
		goto fail;
	}
	s->fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->fd < 0) {
		r = -errno;
		goto fail;
	}
	r = load(s);
	if (r == -EBADMSG) {
		char *bad = NULL;

		/* keep the evidence, start afresh */
		if (asprintf(&bad, "%s.corrupt.%lld", s->path, (long long)time(NULL)) >= 0) {
			log_error("spool %s has a corrupt header, moved to %s", s->path, bad);
			rename(s->path, bad);
			free(bad);
		}
		close(s->fd);
		s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (s->fd < 0) {
			r = -errno;
			goto fail;
		}
		memset(&s->stats, 0, sizeof(s->stats));
		r = load(s);
	}
	if (r < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	spool_close(s);
	return r;
}

void spool_close(struct spool *s)
{
	if (!s)
		return;
	if (s->fd >= 0) {
		if (s->sync)
			fdatasync(s->fd);
		close(s->fd);
	}
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->path);
	free(s->tmp_path);
	free(s);
}

void spool_set_limits(struct spool *s, uint64_t max_bytes, bool sync)
{
	s->max_bytes = max_bytes;
	s->sync = sync;
}

/* Advance head over one record. */
static int pop(struct spool *s)
{
	uint64_t total;
	int r = check_record(s, off_of(s, s->head), &total, false);

	if (r < 0)
		return r;
	s->head += total;
	s->stats.records--;
	s->stats.bytes -= total;
	return 0;
}

/* Rewrite the spool without the delivered prefix. */
static int compact(struct spool *s)
{
	uint64_t from = off_of(s, s->head), len = s->size - from, done = 0;
	char buf[65536];
	int fd, r = 0;

	if (len == 0) {
		/* everything delivered: just truncate */
		s->base = s->head;
		if (ftruncate(s->fd, HDR_SIZE) < 0)
			return -errno;
		s->size = HDR_SIZE;
		r = write_header(s, s->fd);
		if (r == 0 && s->sync && fdatasync(s->fd) < 0)
			r = -errno;
		return r;
	}
	fd = open(s->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	s->base = s->head;
	r = write_header(s, fd);
	while (r == 0 && done < len) {
		size_t n = len - done < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);

		r = full_pread(s->fd, buf, n, from + done);
		if (r == 0)
			r = full_pwrite(fd, buf, n, HDR_SIZE + done);
		done += n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && renameat(s->dirfd, "spool.tmp", s->dirfd, "spool") < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		unlinkat(s->dirfd, "spool.tmp", 0);
		/* undo: the old file still holds head at its old place */
		s->base = s->head - (from - HDR_SIZE);
		return r;
	}
	fsync(s->dirfd);
	close(s->fd);
	s->fd = fd;
	s->size = HDR_SIZE + len;
	return 0;
}

int spool_ack(struct spool *s, uint64_t pos)
{
	uint64_t old = s->head;
	int r = 0;

	while (s->head < pos && s->head < spool_tail(s)) {
		r = pop(s);
		if (r < 0)
			return r;
		s->stats.delivered++;
	}
	if (s->head == old)
		return 0;
	if (spool_empty(s) && s->dropping) {
		log_warning("spool %s: delivered again; %llu entries were dropped during the outage",
			   s->path, (unsigned long long)(s->stats.dropped - s->dropped_at_log));
		s->dropping = false;
		s->dropped_at_log = s->stats.dropped;
	}
	if (spool_empty(s) || (off_of(s, s->head) - HDR_SIZE > COMPACT_MIN &&
			       off_of(s, s->head) - HDR_SIZE > (s->size - HDR_SIZE) / 2))
		r = compact(s);
	if (r == 0)
		r = persist_head(s);
	return r;
}

/*
 * Make room for a record of need bytes so that the file stays within
 * max_bytes: reclaim the delivered prefix, and if that is not enough drop
 * the oldest records down to 3/4 of the limit (so that the next drops and
 * compactions come in batches, not one rewrite per append).
 */
static int make_room(struct spool *s, uint64_t need)
{
	uint64_t room = s->max_bytes > HDR_SIZE ? s->max_bytes - HDR_SIZE : 0;
	bool dropped = false;

	if (need > room * 3 / 4)
		return -EMSGSIZE;
	if (s->size + need <= s->max_bytes)
		return 0;
	if (s->stats.bytes + need > room) {
		while (s->stats.records > 0 && s->stats.bytes + need > room * 3 / 4) {
			if (pop(s) < 0)
				break;
			s->stats.dropped++;
			dropped = true;
		}
	}
	if (dropped && !s->dropping) {
		log_warning("spool %s full (spool_max_size %llu bytes): dropping the oldest entries until the receiver takes them again; they are counted",
			    s->path, (unsigned long long)s->max_bytes);
		s->dropping = true;
	}
	return compact(s);
}

int spool_append(struct spool *s, const void *data, size_t len)
{
	unsigned char h[REC_HDR];
	struct iovec iov[2];
	uint32_t v;
	uint64_t off, old_head;
	ssize_t n;
	int r;

	if (len > SPOOL_RECORD_MAX)
		return -EMSGSIZE;
	old_head = s->head;
	r = make_room(s, REC_HDR + len);
	if (r < 0)
		return r;
	if (s->head != old_head)
		persist_head(s);
	off = s->size;

	v = htole32(REC_MAGIC);
	memcpy(h, &v, 4);
	v = htole32((uint32_t)len);
	memcpy(h + 4, &v, 4);
	v = htole32(fnv1a(data, len));
	memcpy(h + 8, &v, 4);
	iov[0].iov_base = h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = len;
	do
		n = pwritev(s->fd, iov, 2, (off_t)off);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	if (n >= 0 && (size_t)n < REC_HDR + len) {
		/* a short write (disk full): the rest tells the real error, ENOSPC not EIO */
		size_t done = (size_t)n;

		if (done < REC_HDR)
			r = full_pwrite(s->fd, h + done, REC_HDR - done, off + done);
		if (r == 0)
			r = full_pwrite(s->fd, (const char *)data + (done > REC_HDR ? done - REC_HDR : 0),
					len - (done > REC_HDR ? done - REC_HDR : 0),
					off + (done > REC_HDR ? done : REC_HDR));
	}
	if (r < 0) {
		/* never leave a partial record behind */
		if (ftruncate(s->fd, (off_t)off) < 0)
			log_warning("spool %s: cannot cut partial record: %m", s->path);
		return r;
	}
	if (s->sync)
		s->dirty = true;	/* group commit: spool_flush() once per batch */
	s->size += REC_HDR + len;
	s->stats.records++;
	s->stats.bytes += REC_HDR + len;
	s->stats.appended++;
	return 0;
}

int spool_flush(struct spool *s)
{
	if (!s->dirty)
		return 0;
	if (fdatasync(s->fd) < 0)
		return -errno;
	s->dirty = false;
	s->stats.syncs++;
	return 0;
}

int spool_read(struct spool *s, uint64_t pos, struct strbuf *out, uint64_t *next)
{
	uint64_t total, off;
	int r;

	if (pos < s->head)
		return -ESPIPE;
	if (pos >= spool_tail(s))
		return -ENOENT;
	off = off_of(s, pos);
	r = check_record(s, off, &total, false);
	if (r < 0)
		return r;
	sb_reset(out);
	r = sb_reserve(out, total - REC_HDR);
	if (r < 0)
		return r;
	r = full_pread(s->fd, out->buf, total - REC_HDR, off + REC_HDR);
	if (r < 0)
		return r;
	out->len = total - REC_HDR;
	out->buf[out->len] = '\0';
	*next = pos + total;
	return 0;
}
