/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.c - on-disk message queue: a locked directory of segment files.
 */
#include "spool.h"
#include "quarantine.h"
#include "spool_format.h"

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

#define SEG_MIN		(4 * 1024)
#define SEG_MAX		(32 * 1024 * 1024)
#define HEAD_FILE	"spool.head"
#define LOCK_FILE	"spool.lock"
#define LEGACY_FILE	"spool"
#define HOLES_MAX	4096
#define CORRUPT_LOG_MAX	16		/* corrupt stretches logged one by one, then counted */
#define STATVFS_EVERY	(1024 * 1024)	/* the free space is checked at least every MiB appended */

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
	uint32_t tail_seq;	/* sequence number of the next record appended */
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
	spf_seg_name(g->base, name, sizeof(name));
	g->fd = openat(s->dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	return g->fd >= 0 ? g->fd : -errno;
}

static void seg_close(struct segment *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
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

	spf_seg_name(s->seg[0].base, name, sizeof(name));
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
	r = spf_read_record(fd, off, g->size, NULL, true, &total);
	if (r != -EBADMSG) {
		*at = pos;
		return r;
	}
	r = spf_find_valid(fd, off, g->size, &good);
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == -ENOENT)
		good = g->size;
	corrupt_stretch(s, fd, off, good - off, pos, "checksum");
	add_hole(s, pos, g->base + (good - SEG_HDR));
	/* a sealed header's count tells how many were lost when the head leaves the segment */
	if (!g->count_exact)
		s->stats.lost++;
	if (s->stats.records)
		s->stats.records--;
	*at = g->base + (good - SEG_HDR);
	return 0;
}

/* ---- head ---- */

/* The sequence number of the record at head (seg[1]'s first when head just moved there). */
static uint64_t head_seq(const struct spool *s)
{
	size_t i = s->nseg > 1 && s->head >= s->seg[1].base ? 1 : 0;

	if (!s->nseg)
		return s->tail_seq;
	if (!s->seg[i].seq_known)
		return SEQ_UNKNOWN;
	return (uint32_t)(s->seg[i].seq + (i == 0 ? s->head_index : 0));
}

static int persist_head(struct spool *s)
{
	unsigned char h[HEAD_SIZE];
	int r;

	spf_put64(h, s->head);
	spf_put64(h + 8, s->head_index);
	spf_put64(h + 16, head_seq(s));
	spf_put64(h + 24, spf_sum64(h, 24));
	r = spf_pwrite(s->headfd, h, sizeof(h), 0);
	if (r == 0 && s->sync)
		s->dirty_head = true;	/* made durable by the next spool_flush() */
	return r;
}

/*
 * The head leaves seg[0] for good (its records delivered or skipped): what
 * its sealed header counted beyond the records read was in corrupt
 * stretches, lost (account); spool.head moves to seg[1] before the file is
 * removed, so that a crash in between never looks like a missing segment.
 */
static void seg_passed(struct spool *s, bool account)
{
	const struct segment *g = &s->seg[0];

	if (account && g->count_exact && g->count > s->head_index)
		s->stats.lost += g->count - s->head_index;
	if (s->nseg > 1 && s->seg[1].base > s->head)
		s->head = s->seg[1].base;
	s->head_index = 0;
	if (persist_head(s) == 0 && s->sync && fdatasync(s->headfd) == 0)
		s->dirty_head = false;
	seg_unlink_first(s);
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
	if (ftruncate(s->lockfd, 0) < 0 || spf_pwrite(s->lockfd, pid, (size_t)n, 0) < 0)
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
	r = spf_pread(fd, h, sizeof(h), 0);
	if (r < 0) {
		close(fd);
		return r;
	}
	base = spf_get64(h + 8);
	head = spf_get64(h + 16);
	v = spf_get64(h + 24);
	if (!memcmp(h, SEG_MAGIC2, 8) && v == spf_sum64(h, 24)) {
		/* the header was converted, the rename did not happen */
		goto rename;
	}
	if (memcmp(h, LEGACY_MAGIC, 8) != 0 || (v != 0 && v != spf_sum64(h, 24)) ||
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
		if (spf_read_record(fd, off, (uint64_t)st.st_size, NULL, false, &total) < 0)
			break;
	s->head = head;
	s->head_index = index;
	r = persist_head(s);
	if (r == 0 && fdatasync(s->headfd) < 0)
		r = -errno;
	if (r == 0) {
		struct segment g = { .base = base };	/* no sequence numbers: the previous format */

		r = spf_write_header(fd, &g, SEG_OPEN);
	}
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
	spf_seg_name(base, name, sizeof(name));
	if (renameat2(s->dirfd, LEGACY_FILE, s->dirfd, name, RENAME_NOREPLACE) < 0)
		return -errno;
	fsync(s->dirfd);
	return 0;
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
	if (g.size < SEG_HDR || spf_pread(fd, h, sizeof(h), 0) < 0 || !spf_parse_header(h, base, &g)) {
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
		g.seq_known = false;
	}
	g.count_exact = g.count != SEG_OPEN;
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
		r = spf_read_record(fd, off, g->size, NULL, true, &total);
		if (r == 0) {
			count++;
			off += total;
			continue;
		}
		if (r != -EBADMSG)
			return r;
		r = spf_find_valid(fd, off, g->size, &good);
		if (r < 0 && r != -ENOENT)
			return r;
		/* how many entries a stretch held is not known here: at least one */
		s->stats.lost++;
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
	g->count_exact = false;
	return 0;
}

static int seal(struct spool *s, size_t i)
{
	int fd = seg_fd(s, i), r;

	if (fd < 0)
		return fd;
	r = spf_write_header(fd, &s->seg[i], s->seg[i].count);
	if (r == 0 && s->sync && fdatasync(fd) < 0)
		r = -errno;
	if (i == s->nseg - 1)
		s->active = false;
	seg_close(&s->seg[i]);
	return r;
}

static int load(struct spool *s)
{
	unsigned char h[HEAD_SIZE];
	uint64_t hseq = SEQ_UNKNOWN;
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

		if (!spf_parse_seg_name(de->d_name, &base))
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
	s->tail = s->nseg ? seg_end(&s->seg[s->nseg - 1]) : 0;

	/* head: spool.head, else the first record (sent again rather than lost) */
	if (spf_pread(s->headfd, h, HEAD_SIZE, 0) == 0 && spf_get64(h + 24) == spf_sum64(h, 24)) {
		hseq = spf_get64(h + 16);
		head_ok = true;
	} else if (spf_pread(s->headfd, h, 24, 0) == 0 && spf_get64(h + 16) == spf_sum64(h, 16)) {
		head_ok = true;		/* the previous format: no sequence number */
	}
	if (head_ok) {
		s->head = spf_get64(h);
		s->head_index = spf_get64(h + 8);
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
	if (head_ok && s->nseg && s->head < s->seg[0].base) {
		/* spool.head moves on before a segment file is removed: this one was removed
		 * by someone else (or lost with the file system) */
		uint64_t n = hseq != SEQ_UNKNOWN && s->seg[0].seq_known ?
			     (uint32_t)(s->seg[0].seq - (uint32_t)hseq) : 1;

		log_error("spool %s: the oldest segment file is missing (removed): %llu bytes of entries between positions %llu and %llu, %s%llu entr%s never delivered, counted as dropped",
			  s->dir, (unsigned long long)(s->seg[0].base - s->head),
			  (unsigned long long)s->head, (unsigned long long)s->seg[0].base,
			  hseq != SEQ_UNKNOWN && s->seg[0].seq_known ? "" : "at least ",
			  (unsigned long long)n, n == 1 ? "y" : "ies");
		s->stats.corrupt++;
		s->stats.lost += n;
	}
	if (s->head > s->tail || (s->nseg && s->head < s->seg[0].base)) {
		if (head_ok && s->nseg && s->head > s->tail)
			log_warning("spool %s: %s is beyond the spool's end: delivery starts at the oldest entry",
				    s->dir, HEAD_FILE);
		s->head = s->nseg ? s->seg[0].base : s->tail;
		s->head_index = 0;
	}
	for (size_t i = 0; i + 1 < s->nseg; i++) {
		const struct segment *a = &s->seg[i], *z = &s->seg[i + 1];
		uint64_t n;

		if (seg_end(a) > z->base) {
			log_error("spool %s: segments at %llu and %llu overlap: the first one is read up to the second",
				  s->dir, (unsigned long long)a->base, (unsigned long long)z->base);
		} else if (seg_end(a) < z->base && z->base > s->head) {
			n = a->seq_known && z->seq_known && a->count_exact ?
			    (uint32_t)(z->seq - a->seq - (uint32_t)a->count) : 1;
			log_error("spool %s: %llu bytes of entries are missing between positions %llu and %llu (a segment file was removed): %s%llu entr%s never delivered, counted as dropped",
				  s->dir, (unsigned long long)(z->base - seg_end(a)),
				  (unsigned long long)seg_end(a), (unsigned long long)z->base,
				  a->seq_known && z->seq_known && a->count_exact ? "" : "at least ",
				  (unsigned long long)n, n == 1 ? "y" : "ies");
			s->stats.corrupt++;
			s->stats.lost += n;
		}
	}
	/* segments delivered before the last run stopped */
	while (s->nseg && s->head >= seg_end(&s->seg[0]) && !(s->active && s->nseg == 1))
		seg_passed(s, false);
	/* the next record's sequence number: after the last segment's, else after head */
	if (s->nseg && s->seg[s->nseg - 1].seq_known)
		s->tail_seq = (uint32_t)(s->seg[s->nseg - 1].seq + (uint32_t)s->seg[s->nseg - 1].count);
	else
		s->tail_seq = hseq != SEQ_UNKNOWN && !s->nseg ? (uint32_t)hseq : 0;
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

void spool_inherit(struct spool *s, const struct spool *old)
{
	s->stats.dropped += old->stats.dropped;
	s->stats.corrupt += old->stats.corrupt;
	s->stats.lost += old->stats.lost;
	s->stats.quarantined += old->stats.quarantined;
	s->stats.refused += old->stats.refused;
	s->stats.truncated_bytes += old->stats.truncated_bytes;
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
		seg_passed(s, true);
		return 0;
	}
	fd = seg_fd(s, 0);
	if (fd < 0)
		return fd;
	/* positions acknowledged were read (and checked) first: the header is enough */
	r = spf_read_record(fd, SEG_HDR + (s->head - g->base), g->size, NULL, false, &total);
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
	while (s->nseg > 1 && s->head >= seg_end(&s->seg[0]))
		seg_passed(s, true);
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
	persist_head(s);	/* before the file goes: never a missing segment after a crash */
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
	struct segment g = { .base = s->tail, .size = SEG_HDR, .count = 0, .seq = s->tail_seq,
			     .seq_known = true, .count_exact = true };
	char name[SEG_NAME_LEN + 1];
	int r;

	if (s->active && s->seg[s->nseg - 1].size < seg_cap(s))
		return 0;
	if (s->active) {
		r = seal(s, s->nseg - 1);
		if (r < 0)
			return r;
	}
	spf_seg_name(g.base, name, sizeof(name));
	g.fd = openat(s->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (g.fd < 0)
		return -errno;
	r = spf_write_header(g.fd, &g, SEG_OPEN);
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
	v = htole32(spf_fnv1a(data, len));
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
			r = spf_pwrite(fd, h + done, REC_HDR - done, off + done);
		if (r == 0)
			r = spf_pwrite(fd, (const char *)data + (done > REC_HDR ? done - REC_HDR : 0),
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
	s->tail_seq++;
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
		r = spf_read_record(fd, SEG_HDR + (pos - s->seg[i].base), s->seg[i].size, out, true, &total);
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
