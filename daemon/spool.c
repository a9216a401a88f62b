/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.c - on-disk message queue: a locked directory of segment files.
 */
#include "spool.h"
#include "quarantine.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#define SEG_HDR		32
#define REC_HDR		12
#define SEG_MAGIC	"BRSPOOL2"
#define LEGACY_MAGIC	"BRSPOOL1"
#define REC_MAGIC	0x31535242u	/* "BRS1" */
#define SEG_OPEN	UINT64_MAX	/* count of the segment being written to */
#define SEG_MIN		(4 * 1024)
#define SEG_MAX		(32 * 1024 * 1024)
#define SEG_PREFIX	"spool."
#define SEG_NAME_LEN	(sizeof(SEG_PREFIX) - 1 + 16)
#define HEAD_FILE	"spool.head"
#define LOCK_FILE	"spool.lock"
#define LEGACY_FILE	"spool"
#define HOLES_MAX	4096
#define CORRUPT_LOG_MAX	16		/* corrupt stretches logged one by one, then counted */
#define STATVFS_EVERY	(1024 * 1024)	/* the free space is checked at least every MiB appended */
#define SPOOL_POS_MAX	(1ull << 62)	/* 4 EiB written: positions never get near overflow */

struct segment {
	uint64_t base;		/* logical position of file offset SEG_HDR */
	uint64_t size;		/* file size, header included */
	uint64_t count;		/* records in it */
	int fd;			/* -1: not open now */
};

struct hole {
	uint64_t from, to;	/* logical: bytes that are not records, skipped */
};

struct spool {
	char *dir;
	int dirfd, lockfd, headfd;
	struct segment *seg;	/* sorted by base; only the last one may be active */
	size_t nseg, capseg;
	bool active;		/* seg[nseg - 1] is the one appended to */
	uint64_t head, tail;
	uint64_t head_index;	/* records of seg[0] before head */
	struct hole *holes;
	size_t nholes;
	struct quarantine q;
	uint64_t max_bytes, min_free;
	uint64_t total;		/* bytes of every segment file */
	uint64_t since_statvfs;	/* bytes appended since the last free-space check */
	uint64_t avail;		/* free bytes at that check */
	bool sync;
	bool dirty_active, dirty_head;
	bool dropping;		/* drops were logged; reset when the spool drains */
	bool low_space_logged;
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

static uint64_t sum64(const unsigned char *b, size_t len)
{
	uint32_t sum = fnv1a(b, len);

	return sum ? sum : 1;
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

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* ---- positions ---- */

uint64_t spool_head(const struct spool *s)
{
	return s->head;
}

uint64_t spool_tail(const struct spool *s)
{
	return s->tail;
}

bool spool_empty(const struct spool *s)
{
	return s->head >= s->tail;
}

const struct spool_stats *spool_get_stats(const struct spool *s)
{
	return &s->stats;
}

const char *spool_dir(const struct spool *s)
{
	return s->dir;
}

static uint64_t seg_end(const struct segment *g)
{
	return g->base + (g->size - SEG_HDR);
}

static uint64_t seg_cap(const struct spool *s)
{
	uint64_t c = s->max_bytes / 64;

	return c < SEG_MIN ? SEG_MIN : c > SEG_MAX ? SEG_MAX : c;
}

static void seg_name(uint64_t base, char *buf, size_t len)
{
	snprintf(buf, len, SEG_PREFIX "%016llx", (unsigned long long)base);
}

/* The segment holding pos: the last one with base <= pos; -1 if none. */
static ssize_t seg_find(const struct spool *s, uint64_t pos)
{
	size_t lo = 0, hi = s->nseg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->seg[mid].base <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

static int seg_fd(struct spool *s, size_t i)
{
	struct segment *g = &s->seg[i];
	char name[SEG_NAME_LEN + 1];

	if (g->fd >= 0)
		return g->fd;
	seg_name(g->base, name, sizeof(name));
	g->fd = openat(s->dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	return g->fd >= 0 ? g->fd : -errno;
}

static void seg_close(struct segment *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

static int seg_write_header(int fd, uint64_t base, uint64_t count)
{
	unsigned char h[SEG_HDR];

	memset(h, 0, sizeof(h));
	memcpy(h, SEG_MAGIC, 8);
	put64(h + 8, base);
	put64(h + 16, count);
	put64(h + 24, sum64(h, 24));
	return full_pwrite(fd, h, sizeof(h), 0);
}

/* Remove seg[i] from the array (its file stays). */
static void seg_remove(struct spool *s, size_t i)
{
	seg_close(&s->seg[i]);
	memmove(&s->seg[i], &s->seg[i + 1], (s->nseg - i - 1) * sizeof(s->seg[0]));
	s->nseg--;
	s->stats.segments = s->nseg;
}

/* Delete the oldest segment's file (delivered or dropped). */
static void seg_unlink_first(struct spool *s)
{
	char name[SEG_NAME_LEN + 1];

	seg_name(s->seg[0].base, name, sizeof(name));
	if (unlinkat(s->dirfd, name, 0) < 0 && errno != ENOENT)
		log_warning("spool %s: cannot remove %s: %m", s->dir, name);
	s->total -= s->seg[0].size;
	if (s->nseg == 1)
		s->active = false;
	seg_remove(s, 0);
}

static int seg_push(struct spool *s, const struct segment *g)
{
	if (s->nseg == s->capseg) {
		size_t cap = s->capseg ? s->capseg * 2 : 16;
		struct segment *n = realloc(s->seg, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->seg = n;
		s->capseg = cap;
	}
	s->seg[s->nseg++] = *g;
	s->stats.segments = s->nseg;
	return 0;
}

/* ---- records ---- */

/*
 * The record at file offset off of a file of size bytes: its total size
 * in *total; with out, its payload into out (checksum verified); with
 * verify and no out, the checksum verified anyway.  -EBADMSG if it is not
 * a valid record.
 */
static int read_record(int fd, uint64_t off, uint64_t size, struct strbuf *out, bool verify,
		       uint64_t *total)
{
	unsigned char h[REC_HDR];
	uint32_t magic, len, sum;
	struct strbuf tmp = STRBUF_INIT;
	struct strbuf *b = out ? out : &tmp;
	int r;

	if (off + REC_HDR > size)
		return -EBADMSG;
	r = full_pread(fd, h, sizeof(h), off);
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
			r = full_pread(fd, b->buf, len, off + REC_HDR);
		if (r == 0) {
			b->len = len;
			b->buf[len] = '\0';
			if (fnv1a(b->buf, len) != sum)
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
static int find_valid(int fd, uint64_t from, uint64_t size, uint64_t *at)
{
	static const unsigned char magic[4] = { 'B', 'R', 'S', '1' };
	unsigned char buf[65536];
	uint64_t pos = from + 1;

	while (pos + REC_HDR <= size) {
		size_t n = size - pos < sizeof(buf) ? (size_t)(size - pos) : sizeof(buf);
		size_t k = 0;
		int r = full_pread(fd, buf, n, pos);

		if (r < 0)
			return r;
		for (;;) {
			unsigned char *m = memmem(buf + k, n - k, magic, sizeof(magic));
			uint64_t total;

			if (!m)
				break;
			k = (size_t)(m - buf);
			if (read_record(fd, pos + k, size, NULL, true, &total) == 0) {
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

/* ---- corrupt stretches: skipped, counted, kept ---- */

static void add_hole(struct spool *s, uint64_t from, uint64_t to)
{
	size_t i;

	if (s->nholes == HOLES_MAX)
		return;		/* found again when read: skipped again, not lost */
	for (i = s->nholes; i > 0 && s->holes[i - 1].from > from; i--)
		;
	memmove(&s->holes[i + 1], &s->holes[i], (s->nholes - i) * sizeof(s->holes[0]));
	s->holes[i] = (struct hole){ from, to };
	s->nholes++;
}

/* The end of the hole pos is in, or 0. */
static uint64_t hole_at(const struct spool *s, uint64_t pos)
{
	for (size_t i = 0; i < s->nholes && s->holes[i].from <= pos; i++)
		if (pos < s->holes[i].to)
			return s->holes[i].to;
	return 0;
}

static void forget_holes_before(struct spool *s, uint64_t pos)
{
	size_t n = 0;

	while (n < s->nholes && s->holes[n].to <= pos)
		n++;
	memmove(s->holes, s->holes + n, (s->nholes - n) * sizeof(s->holes[0]));
	s->nholes -= n;
}

/* len bytes at file offset off of fd, logical position pos, are not records. */
static void corrupt_stretch(struct spool *s, int fd, uint64_t off, uint64_t len, uint64_t pos,
			    const char *what)
{
	char name[64];
	int r;

	s->stats.corrupt++;
	r = quarantine_keep(&s->q, fd, off, len, pos, name, sizeof(name));
	if (r > 0)
		s->stats.quarantined++;
	if (s->stats.corrupt > CORRUPT_LOG_MAX)
		return;
	if (r > 0)
		log_error("spool %s: %llu bytes at position %llu are not a valid record (%s): skipped, the records after them kept; the bytes are in %s/%s",
			  s->dir, (unsigned long long)len, (unsigned long long)pos, what, s->dir, name);
	else if (r == 0)
		log_error("spool %s: %llu bytes at position %llu are not a valid record (%s): skipped, the records after them kept; not copied, %u quarantine files are there already",
			  s->dir, (unsigned long long)len, (unsigned long long)pos, what, s->q.files);
	else
		log_error("spool %s: %llu bytes at position %llu are not a valid record (%s): skipped, the records after them kept; cannot copy them to %s/%s (%s), they stay in the spool until it moves past them",
			  s->dir, (unsigned long long)len, (unsigned long long)pos, what, s->dir, name,
			  strerror(-r));
	if (s->stats.corrupt == CORRUPT_LOG_MAX)
		log_error("spool %s: further corrupt stretches are only counted", s->dir);
}

/*
 * pos is inside seg[i], not in a known hole: make it a valid record's
 * position.  A corrupt stretch there becomes a hole (skipped, counted,
 * kept) up to the next valid record or the segment's end.  *at: where the
 * next record may be (== pos when it is valid).
 */
static int resolve(struct spool *s, size_t i, uint64_t pos, uint64_t *at)
{
	struct segment *g = &s->seg[i];
	uint64_t off = SEG_HDR + (pos - g->base), good, total;
	int fd = seg_fd(s, i), r;

	if (fd < 0)
		return fd;
	r = read_record(fd, off, g->size, NULL, true, &total);
	if (r != -EBADMSG) {
		*at = pos;
		return r;
	}
	r = find_valid(fd, off, g->size, &good);
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == -ENOENT)
		good = g->size;
	corrupt_stretch(s, fd, off, good - off, pos, "checksum");
	add_hole(s, pos, g->base + (good - SEG_HDR));
	if (s->stats.records)
		s->stats.records--;
	*at = g->base + (good - SEG_HDR);
	return 0;
}

/* ---- head ---- */

static int persist_head(struct spool *s)
{
	unsigned char h[24];
	int r;

	put64(h, s->head);
	put64(h + 8, s->head_index);
	put64(h + 16, sum64(h, 16));
	r = full_pwrite(s->headfd, h, sizeof(h), 0);
	if (r == 0 && s->sync)
		s->dirty_head = true;	/* made durable by the next spool_flush() */
	return r;
}

/* ---- opening ---- */

static int take_lock(struct spool *s)
{
	char pid[32] = "";
	ssize_t n;

	s->lockfd = openat(s->dirfd, LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lockfd < 0)
		return -errno;
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		if (e != EWOULDBLOCK)
			return -e;
		n = pread(s->lockfd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_error("spool %s is in use by process %s (another brute-reportd: the service, the auditd plugin or brute-reportd --forward); each needs a spool_dir of its own",
			  s->dir, pid[0] ? pid : "?");
		return -EBUSY;
	}
	n = snprintf(pid, sizeof(pid), "%lld\n", (long long)getpid());
	if (ftruncate(s->lockfd, 0) < 0 || full_pwrite(s->lockfd, pid, (size_t)n, 0) < 0)
		log_warning("spool %s: cannot write its pid into %s: %m", s->dir, LOCK_FILE);
	return 0;
}

/*
 * A spool of the previous format: one file, "spool", header BRSPOOL1 with
 * base and head.  Its records are those of a segment: its header becomes a
 * segment's, head goes to spool.head, and it is renamed to its segment
 * name.  Each step can be redone after a crash.
 */
static int migrate_legacy(struct spool *s)
{
	char name[SEG_NAME_LEN + 1];
	unsigned char h[SEG_HDR];
	struct stat st;
	uint64_t base, head, v, off, total, index = 0;
	int fd, r;

	fd = openat(s->dirfd, LEGACY_FILE, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (st.st_size < SEG_HDR) {
		close(fd);
		unlinkat(s->dirfd, LEGACY_FILE, 0);	/* created, never written */
		return 0;
	}
	r = full_pread(fd, h, sizeof(h), 0);
	if (r < 0) {
		close(fd);
		return r;
	}
	base = get64(h + 8);
	head = get64(h + 16);
	v = get64(h + 24);
	if (!memcmp(h, SEG_MAGIC, 8) && v == sum64(h, 24)) {
		/* the header was converted, the rename did not happen */
		goto rename;
	}
	if (memcmp(h, LEGACY_MAGIC, 8) != 0 || (v != 0 && v != sum64(h, 24)) ||
	    base > SPOOL_POS_MAX || head < base || head - base > (uint64_t)st.st_size - SEG_HDR) {
		close(fd);
		if (renameat2(s->dirfd, LEGACY_FILE, s->dirfd, QUARANTINE_PREFIX "legacy",
			      RENAME_NOREPLACE) == 0) {
			log_error("spool %s: the spool file of the previous format has a corrupt header; moved, whole, to %s/" QUARANTINE_PREFIX "legacy",
				  s->dir, s->dir);
		} else {
			log_error("spool %s: the spool file of the previous format has a corrupt header and cannot be moved aside (%m): left in place, not read",
				  s->dir);
		}
		return 0;
	}
	/* records before head, delivered: counted for spool.head */
	for (off = SEG_HDR; off < SEG_HDR + (head - base); off += total, index++)
		if (read_record(fd, off, (uint64_t)st.st_size, NULL, false, &total) < 0)
			break;
	s->head = head;
	s->head_index = index;
	r = persist_head(s);
	if (r == 0 && fdatasync(s->headfd) < 0)
		r = -errno;
	if (r == 0)
		r = seg_write_header(fd, base, SEG_OPEN);
	if (r == 0 && fdatasync(fd) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	log_notice("spool %s: converting the spool of the previous format (%llu bytes) into segment files",
		   s->dir, (unsigned long long)st.st_size);
rename:
	close(fd);
	seg_name(base, name, sizeof(name));
	if (renameat2(s->dirfd, LEGACY_FILE, s->dirfd, name, RENAME_NOREPLACE) < 0)
		return -errno;
	fsync(s->dirfd);
	return 0;
}

static bool parse_seg_name(const char *n, uint64_t *base)
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

static int cmp_seg(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/* One segment file: its header (the name's base is authoritative). */
static int read_segment(struct spool *s, const char *name, uint64_t base)
{
	struct segment g = { .base = base, .fd = -1 };
	unsigned char h[SEG_HDR];
	struct stat st;
	int fd = openat(s->dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW), r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;	/* not ours */
	}
	g.size = (uint64_t)st.st_size;
	if (g.size < SEG_HDR || full_pread(fd, h, sizeof(h), 0) < 0 || memcmp(h, SEG_MAGIC, 8) != 0 ||
	    get64(h + 24) != sum64(h, 24) || get64(h + 8) != base || base > SPOOL_POS_MAX) {
		/* its records are checked again: the header is rewritten after that */
		log_warning("spool %s: %s has a corrupt header; its records are checked", s->dir, name);
		if (g.size < SEG_HDR) {
			if (ftruncate(fd, SEG_HDR) < 0) {
				r = -errno;
				close(fd);
				return r;
			}
			g.size = SEG_HDR;
		}
		g.count = SEG_OPEN;
	} else {
		g.count = get64(h + 16);
	}
	close(fd);
	s->total += g.size;
	return seg_push(s, &g);
}

/*
 * The records of seg[i], which was being written (or has a corrupt
 * header): counted, checksums verified; corrupt stretches become holes;
 * the torn end of the last segment is cut off.
 */
static int scan_segment(struct spool *s, size_t i)
{
	struct segment *g = &s->seg[i];
	bool last = i == s->nseg - 1;
	uint64_t off = SEG_HDR, total, good, count = 0;
	int fd = seg_fd(s, i), r;

	if (fd < 0)
		return fd;
	while (off < g->size) {
		r = read_record(fd, off, g->size, NULL, true, &total);
		if (r == 0) {
			count++;
			off += total;
			continue;
		}
		if (r != -EBADMSG)
			return r;
		r = find_valid(fd, off, g->size, &good);
		if (r < 0 && r != -ENOENT)
			return r;
		if (r == 0) {
			corrupt_stretch(s, fd, off, good - off, g->base + (off - SEG_HDR), "checksum");
			add_hole(s, g->base + (off - SEG_HDR), g->base + (good - SEG_HDR));
			off = good;
			continue;
		}
		/* nothing valid up to the end */
		corrupt_stretch(s, fd, off, g->size - off, g->base + (off - SEG_HDR),
				last ? "incomplete or corrupt end" : "corrupt end");
		if (last) {
			s->stats.truncated_bytes += g->size - off;
			if (ftruncate(fd, (off_t)off) < 0)
				return -errno;
			s->total -= g->size - off;
			g->size = off;
		} else {
			add_hole(s, g->base + (off - SEG_HDR), seg_end(g));
		}
		break;
	}
	s->stats.open_scanned += off - SEG_HDR;
	g->count = count;
	return 0;
}

static int seal(struct spool *s, size_t i)
{
	int fd = seg_fd(s, i), r;

	if (fd < 0)
		return fd;
	r = seg_write_header(fd, s->seg[i].base, s->seg[i].count);
	if (r == 0 && s->sync && fdatasync(fd) < 0)
		r = -errno;
	if (i == s->nseg - 1)
		s->active = false;
	seg_close(&s->seg[i]);
	return r;
}

static int load(struct spool *s)
{
	unsigned char h[24];
	bool was_open, head_ok = false;
	DIR *d;
	struct dirent *de;
	int fd, r;

	r = migrate_legacy(s);
	if (r < 0)
		return r;
	fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		uint64_t base;

		if (!parse_seg_name(de->d_name, &base))
			continue;
		r = read_segment(s, de->d_name, base);
		if (r < 0) {
			closedir(d);
			return r;
		}
	}
	closedir(d);
	if (s->nseg > 1)
		qsort(s->seg, s->nseg, sizeof(s->seg[0]), cmp_seg);

	/* the segments being written when the last run stopped: checked record by record */
	was_open = s->nseg && s->seg[s->nseg - 1].count == SEG_OPEN;
	for (size_t i = 0; i < s->nseg; i++) {
		if (s->seg[i].count != SEG_OPEN)
			continue;
		r = scan_segment(s, i);
		if (r < 0)
			return r;
		if (i < s->nseg - 1 || s->seg[i].size >= seg_cap(s)) {
			r = seal(s, i);
			if (r < 0)
				return r;
		}
	}
	s->active = was_open && s->seg[s->nseg - 1].size < seg_cap(s);
	for (size_t i = 0; i + 1 < s->nseg; i++) {
		if (seg_end(&s->seg[i]) > s->seg[i + 1].base) {
			log_error("spool %s: segments at %llu and %llu overlap: the first one is read up to the second",
				  s->dir, (unsigned long long)s->seg[i].base,
				  (unsigned long long)s->seg[i + 1].base);
		} else if (seg_end(&s->seg[i]) < s->seg[i + 1].base) {
			log_error("spool %s: %llu bytes of entries are missing between positions %llu and %llu (a segment file was removed)",
				  s->dir, (unsigned long long)(s->seg[i + 1].base - seg_end(&s->seg[i])),
				  (unsigned long long)seg_end(&s->seg[i]),
				  (unsigned long long)s->seg[i + 1].base);
			s->stats.corrupt++;
		}
	}
	s->tail = s->nseg ? seg_end(&s->seg[s->nseg - 1]) : 0;

	/* head: spool.head, else the first record (sent again rather than lost) */
	if (full_pread(s->headfd, h, sizeof(h), 0) == 0 && get64(h + 16) == sum64(h, 16)) {
		s->head = get64(h);
		s->head_index = get64(h + 8);
		head_ok = true;
	} else {
		struct stat st;

		if (fstat(s->headfd, &st) == 0 && st.st_size > 0)
			log_warning("spool %s: %s is corrupt: delivery starts at the oldest entry (some may be sent again)",
				    s->dir, HEAD_FILE);
		s->head = s->nseg ? s->seg[0].base : 0;
		s->head_index = 0;
	}
	if (!s->nseg && head_ok && s->head <= SPOOL_POS_MAX)
		s->tail = s->head;	/* empty: positions go on from there */
	if (s->head > s->tail || (s->nseg && s->head < s->seg[0].base)) {
		if (head_ok && s->nseg && s->head > s->tail)
			log_warning("spool %s: %s is beyond the spool's end: delivery starts at the oldest entry",
				    s->dir, HEAD_FILE);
		s->head = s->nseg ? s->seg[0].base : s->tail;
		s->head_index = 0;
	}
	/* segments delivered before the last run stopped */
	while (s->nseg && s->head >= seg_end(&s->seg[0]) && !(s->active && s->nseg == 1)) {
		s->head = s->nseg > 1 ? s->seg[1].base : s->head;
		s->head_index = 0;
		seg_unlink_first(s);
	}
	if (s->nseg && s->head_index > s->seg[0].count)
		s->head_index = s->seg[0].count;
	for (size_t i = 0; i < s->nseg; i++)
		s->stats.records += s->seg[i].count;
	s->stats.records -= s->nseg ? s->head_index : 0;
	forget_holes_before(s, s->head);
	s->stats.bytes = s->tail - s->head;
	if (!s->nseg)
		s->stats.records = 0;
	return persist_head(s);
}

int spool_open(const char *dir, uint64_t max_bytes, bool sync, struct spool **ret)
{
	struct spool *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->dirfd = s->lockfd = s->headfd = -1;
	s->max_bytes = max_bytes;
	s->sync = sync;
	s->dir = strdup(dir);
	s->holes = calloc(HOLES_MAX, sizeof(*s->holes));
	if (!s->dir || !s->holes) {
		r = -ENOMEM;
		goto fail;
	}
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		r = -errno;
		goto fail;
	}
	r = take_lock(s);
	if (r < 0)
		goto fail;
	s->headfd = openat(s->dirfd, HEAD_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->headfd < 0) {
		r = -errno;
		goto fail;
	}
	quarantine_init(&s->q, s->dirfd);
	r = load(s);
	if (r < 0)
		goto fail;
	s->dirty_head = false;	/* what load() wrote is found again by the next open */
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
	if (s->sync && s->dirfd >= 0)
		spool_flush(s);
	for (size_t i = 0; i < s->nseg; i++)
		seg_close(&s->seg[i]);
	if (s->headfd >= 0)
		close(s->headfd);
	if (s->lockfd >= 0)
		close(s->lockfd);	/* releases the lock */
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->seg);
	free(s->holes);
	free(s->dir);
	free(s);
}

void spool_set_limits(struct spool *s, uint64_t max_bytes, bool sync)
{
	s->max_bytes = max_bytes;
	s->sync = sync;
}

void spool_set_min_free(struct spool *s, uint64_t min_free)
{
	s->min_free = min_free;
	s->since_statvfs = STATVFS_EVERY;	/* check at the next append */
}

/* ---- delivery ---- */

/* Move head over one record, a hole or a segment's end: 1 a record, 0 something else. */
static int pop(struct spool *s)
{
	struct segment *g;
	uint64_t to = hole_at(s, s->head), at, total;
	int fd, r;

	if (to) {
		s->head = to;
		return 0;
	}
	if (!s->nseg) {
		s->head = s->tail;
		return 0;
	}
	g = &s->seg[0];
	if (s->head < g->base) {
		s->head = g->base;
		s->head_index = 0;
		return 0;
	}
	if (s->head >= seg_end(g)) {
		/* the first segment is done: the next one (the active one stays) */
		if (s->nseg == 1) {
			s->head = s->tail;
			return 0;
		}
		s->head = s->seg[1].base > s->head ? s->seg[1].base : s->head;
		s->head_index = 0;
		seg_unlink_first(s);
		return 0;
	}
	fd = seg_fd(s, 0);
	if (fd < 0)
		return fd;
	/* positions acknowledged were read (and checked) first: the header is enough */
	r = read_record(fd, SEG_HDR + (s->head - g->base), g->size, NULL, false, &total);
	if (r == -EBADMSG) {
		r = resolve(s, 0, s->head, &at);
		if (r == 0 && at <= s->head)
			r = -EIO;	/* the header is bad, the record good: a read error */
		if (r == 0)
			s->head = at;
		return r;
	}
	if (r < 0)
		return r;
	s->head += total;
	s->head_index++;
	if (s->stats.records)
		s->stats.records--;
	return 1;
}

int spool_ack(struct spool *s, uint64_t pos)
{
	uint64_t old = s->head;
	int r = 0;

	while (s->head < pos && s->head < s->tail) {
		r = pop(s);
		if (r < 0)
			break;
		s->stats.delivered += (uint64_t)r;
	}
	/* a first segment delivered to its end goes now (the active one stays) */
	while (s->nseg > 1 && s->head >= seg_end(&s->seg[0])) {
		s->head = s->seg[1].base > s->head ? s->seg[1].base : s->head;
		s->head_index = 0;
		seg_unlink_first(s);
	}
	forget_holes_before(s, s->head);
	s->stats.bytes = s->tail - s->head;
	if (spool_empty(s))
		s->stats.records = 0;
	if (s->head == old)
		return r < 0 ? r : 0;
	if (spool_empty(s) && s->dropping) {
		log_warning("spool %s: delivered again; %llu entries were dropped during the outage",
			    s->dir, (unsigned long long)(s->stats.dropped - s->dropped_at_log));
		s->dropping = false;
		s->dropped_at_log = s->stats.dropped;
	}
	if (r >= 0)
		r = persist_head(s);
	else
		persist_head(s);
	return r < 0 ? r : 0;
}

/*
 * Drop the oldest segment, its undelivered entries counted: false if
 * there is nothing to drop.  The one being written to is dropped only
 * when it is the last one left.
 */
static bool drop_oldest(struct spool *s, const char *why)
{
	uint64_t n;

	if (!s->nseg || (s->nseg == 1 && s->seg[0].size <= SEG_HDR))
		return false;
	n = s->seg[0].count >= s->head_index ? s->seg[0].count - s->head_index : 0;
	if (s->nseg == 1)
		n = s->stats.records;
	if (n && !s->dropping) {
		log_warning("spool %s %s: dropping the oldest entries, a segment (1/64 of spool_max_size) at a time, until the receiver takes them again; they are counted",
			    s->dir, why);
		s->dropping = true;
	}
	s->stats.dropped += n;
	s->stats.records = s->stats.records >= n ? s->stats.records - n : 0;
	s->head = s->nseg > 1 ? s->seg[1].base : s->tail;
	s->head_index = 0;
	seg_unlink_first(s);
	forget_holes_before(s, s->head);
	s->stats.bytes = s->tail - s->head;
	persist_head(s);
	return true;
}

static uint64_t free_bytes(struct spool *s)
{
	struct statvfs v;

	if (fstatvfs(s->dirfd, &v) < 0)
		return UINT64_MAX;	/* unknown: the reserve is not enforced */
	return (uint64_t)v.f_bavail * v.f_frsize;
}

/*
 * Room for need more bytes: within max_bytes (the oldest segments dropped
 * first), and leaving min_free on the file system (the same, and refused
 * when nothing is left to drop).
 */
static int make_room(struct spool *s, uint64_t need)
{
	uint64_t room = s->max_bytes > SEG_HDR ? s->max_bytes - SEG_HDR : 0;

	if (need > room * 3 / 4)
		return -EMSGSIZE;
	if (!s->active || s->seg[s->nseg - 1].size >= seg_cap(s))
		need += SEG_HDR;	/* a new segment */
	while (s->total + need > s->max_bytes && drop_oldest(s, "full (spool_max_size)"))
		;
	if (!s->min_free)
		return 0;
	if (s->since_statvfs + need >= STATVFS_EVERY || need > SEG_HDR + REC_HDR + SPOOL_RECORD_MAX / 2) {
		s->avail = free_bytes(s);
		s->since_statvfs = 0;
	}
	while (s->avail != UINT64_MAX && s->avail < s->min_free + need) {
		if (!drop_oldest(s, "has reached the free-space reserve (spool_min_free)")) {
			if (!s->low_space_logged)
				log_error("spool %s: %llu KiB free on its file system, spool_min_free is %llu KiB and nothing is left to drop: new entries are refused (counted) until there is space",
					  s->dir, (unsigned long long)(s->avail >> 10),
					  (unsigned long long)(s->min_free >> 10));
			s->low_space_logged = true;
			s->stats.refused++;
			s->since_statvfs = STATVFS_EVERY;	/* look again next time */
			return -ENOSPC;
		}
		s->avail = free_bytes(s);
	}
	if (s->low_space_logged && s->avail >= s->min_free + need) {
		log_notice("spool %s: free space above spool_min_free again", s->dir);
		s->low_space_logged = false;
	}
	return 0;
}

/* The segment appended to: the last one, or a new one at tail. */
static int ensure_active(struct spool *s)
{
	struct segment g = { .base = s->tail, .size = SEG_HDR, .count = 0 };
	char name[SEG_NAME_LEN + 1];
	int r;

	if (s->active && s->seg[s->nseg - 1].size < seg_cap(s))
		return 0;
	if (s->active) {
		r = seal(s, s->nseg - 1);
		if (r < 0)
			return r;
	}
	seg_name(g.base, name, sizeof(name));
	g.fd = openat(s->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (g.fd < 0)
		return -errno;
	r = seg_write_header(g.fd, g.base, SEG_OPEN);
	if (r == 0 && s->sync && fsync(s->dirfd) < 0)	/* the new name is durable */
		r = -errno;
	if (r == 0)
		r = seg_push(s, &g);
	if (r < 0) {
		close(g.fd);
		unlinkat(s->dirfd, name, 0);
		return r;
	}
	s->total += SEG_HDR;
	s->active = true;
	if (s->sync)
		s->dirty_active = true;
	return 0;
}

int spool_append(struct spool *s, const void *data, size_t len)
{
	unsigned char h[REC_HDR];
	struct segment *g;
	struct iovec iov[2];
	uint32_t v;
	uint64_t off;
	ssize_t n;
	int fd, r;

	if (len > SPOOL_RECORD_MAX)
		return -EMSGSIZE;
	r = make_room(s, REC_HDR + len);
	if (r < 0)
		return r;
	r = ensure_active(s);
	if (r < 0)
		return r;
	g = &s->seg[s->nseg - 1];
	fd = seg_fd(s, s->nseg - 1);
	if (fd < 0)
		return fd;
	off = g->size;
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
		n = pwritev(fd, iov, 2, (off_t)off);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	if (n >= 0 && (size_t)n < REC_HDR + len) {
		/* a short write (disk full): the rest tells the real error, ENOSPC not EIO */
		size_t done = (size_t)n;

		if (done < REC_HDR)
			r = full_pwrite(fd, h + done, REC_HDR - done, off + done);
		if (r == 0)
			r = full_pwrite(fd, (const char *)data + (done > REC_HDR ? done - REC_HDR : 0),
					len - (done > REC_HDR ? done - REC_HDR : 0),
					off + (done > REC_HDR ? done : REC_HDR));
	}
	if (r < 0) {
		/* never leave a partial record behind */
		if (ftruncate(fd, (off_t)off) < 0)
			log_warning("spool %s: cannot cut a partial record: %m", s->dir);
		return r;
	}
	if (s->sync)
		s->dirty_active = true;	/* group commit: spool_flush() once per batch */
	g->size += REC_HDR + len;
	g->count++;
	s->total += REC_HDR + len;
	s->tail += REC_HDR + len;
	s->since_statvfs += REC_HDR + len;
	if (s->avail != UINT64_MAX && s->avail >= REC_HDR + len)
		s->avail -= REC_HDR + len;
	s->stats.records++;
	s->stats.bytes = s->tail - s->head;
	s->stats.appended++;
	return 0;
}

int spool_flush(struct spool *s)
{
	int r = 0;

	if (s->dirty_active && s->active && s->seg[s->nseg - 1].fd >= 0) {
		if (fdatasync(s->seg[s->nseg - 1].fd) < 0)
			r = -errno;
		else
			s->stats.syncs++;
	}
	if (r == 0)
		s->dirty_active = false;
	if (r == 0 && s->dirty_head) {
		if (fdatasync(s->headfd) < 0)
			r = -errno;
		else
			s->stats.syncs++;
		if (r == 0)
			s->dirty_head = false;
	}
	return r;
}

int spool_read_at(struct spool *s, uint64_t pos, struct strbuf *out, uint64_t *at, uint64_t *next)
{
	for (;;) {
		uint64_t to, valid, total;
		ssize_t i;
		int fd, r;

		if (pos < s->head)
			return -ESPIPE;
		if (pos >= s->tail)
			return -ENOENT;
		to = hole_at(s, pos);
		if (to) {
			pos = to;
			continue;
		}
		i = seg_find(s, pos);
		if (i < 0) {
			pos = s->seg[0].base;	/* before the first segment: a gap */
			continue;
		}
		if (pos >= seg_end(&s->seg[i])) {
			pos = (size_t)i + 1 < s->nseg ? s->seg[i + 1].base : s->tail;
			continue;
		}
		fd = seg_fd(s, (size_t)i);
		if (fd < 0)
			return fd;
		r = read_record(fd, SEG_HDR + (pos - s->seg[i].base), s->seg[i].size, out, true, &total);
		if (r == 0) {
			if (at)
				*at = pos;
			*next = pos + total;
			return 0;
		}
		if (r != -EBADMSG)
			return r;
		r = resolve(s, (size_t)i, pos, &valid);
		if (r < 0)
			return r;
		pos = valid;
	}
}

int spool_read(struct spool *s, uint64_t pos, struct strbuf *out, uint64_t *next)
{
	return spool_read_at(s, pos, out, NULL, next);
}
