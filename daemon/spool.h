/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.h - persistent, bounded FIFO of messages for the SIEM forwarder.
 *
 * Every message is appended to the spool before any delivery attempt;
 * with sync set, spool_flush() makes everything appended so far durable
 * with one fdatasync (group commit: the forwarder calls it once per loop
 * iteration, before sending), so what was accepted survives a restart or
 * crash and is replayed in order on start.  Positions are logical byte
 * offsets, contiguous across segments and never reused.
 *
 * The spool is a directory (one process at a time: spool.lock, flock(2),
 * holds its pid) of segment files spool.BASE (BASE: the logical position of
 * its first record, 16 hex digits), each at most spool_max_size/64 (4 KiB
 * to 32 MiB; one record may make it longer), appended to in order: only the
 * last one is ever written.  A segment whose records were all delivered is
 * unlinked; no byte is ever copied.  The files never exceed max_bytes in
 * all: an append that would cross it first drops the oldest segment
 * (oldest entries first, each counted in dropped, logged once until the
 * spool drains).  With a free-space reserve (spool_set_min_free()) an
 * append that would leave less free space on the file system drops the
 * same way, and is refused (-ENOSPC) when there is nothing left to drop.
 *
 * Start-up reads one header per segment and checks the records of the
 * segment that was being written (at most 32 MiB and one record): the work
 * is bounded whatever the size of the spool.  Records of the other segments
 * are checked (checksum) when read for delivery.  Bytes that are not a valid
 * record are skipped up to the next valid one (the rest is kept), counted
 * (corrupt) and kept as evidence (quarantine.h); a torn end of the last
 * segment (a crash during an append) is cut off after being kept.
 *
 * Segment: 32-byte header "BRSPOOL3", base (u64), count (u64: its records,
 * UINT64_MAX while it is the one written to), seq (u32: the sequence number
 * of its first record, records appended before it mod 2^32), FNV-1a of the
 * first 28 bytes (u32); then records of magic "BRS1", length (u32), FNV-1a
 * checksum (u32) and payload.  spool.head: head (u64), records of its
 * segment before it (u64), the sequence number of the record at head (u64,
 * UINT64_MAX: unknown), FNV-1a of the 24 bytes (u64).  Integers are little
 * endian.  Segments of the previous format ("BRSPOOL2": no seq, FNV-1a of
 * 24 bytes as u64) and a 24-byte spool.head (no seq) are read as such.  A
 * spool of the format before (one file, spool, header "BRSPOOL1") becomes
 * the first segment at open (a rename; its records are checked once).
 *
 * What is lost is counted in entries (stats.lost): a corrupt stretch in a
 * segment with a sealed header, when the head leaves the segment (its count
 * minus the records read); in a segment checked at open, one per stretch
 * (how many it held is unknown: at least one); a segment file removed, the
 * oldest one included, by the sequence numbers around it.  spool.head moves
 * past a segment before its file is removed, so a crash in between leaves
 * no false gap.
 */
#ifndef BRUTE_SPOOL_H
#define BRUTE_SPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

#define SPOOL_RECORD_MAX (1024 * 1024)

struct spool_stats {
	uint64_t records;	/* queued now (approximate after a corrupt stretch) */
	uint64_t bytes;		/* queued now, logical bytes (record headers included) */
	uint64_t appended, delivered;
	uint64_t dropped;	/* undelivered, dropped to stay within max_bytes or the reserve */
	uint64_t corrupt;	/* stretches of bytes that were not a valid record, and segment
				 * files missing: skipped */
	uint64_t lost;		/* entries lost in those: exact when the segments' headers
				 * count them, else one per stretch (at least one) */
	uint64_t quarantined;	/* of which kept as quarantine files */
	uint64_t refused;	/* appends refused: the reserve reached, nothing left to drop */
	uint64_t truncated_bytes; /* torn end of the last segment, cut off at open */
	uint64_t syncs;		/* fdatasync calls of spool_flush() */
	uint64_t segments;	/* segment files now */
	uint64_t open_scanned;	/* bytes whose checksums spool_open() verified */
};

struct spool;

/*
 * Open (creating it if needed) the spool in dir.  -EBUSY when another
 * process holds it (logged with that process's pid).
 */
int spool_open(const char *dir, uint64_t max_bytes, bool sync, struct spool **ret);
void spool_close(struct spool *s);
void spool_set_limits(struct spool *s, uint64_t max_bytes, bool sync);
/* Free bytes to leave on the spool's file system (0: none). */
void spool_set_min_free(struct spool *s, uint64_t min_free);
/* A reload replaces old by s: the counters of what was lost carry over. */
void spool_inherit(struct spool *s, const struct spool *old);

int spool_append(struct spool *s, const void *data, size_t len);
/* Sync mode: fdatasync what was appended or acknowledged since the last call. */
int spool_flush(struct spool *s);
/*
 * Read the record at pos into out (replacing its contents); *next = following
 * position.  A corrupt stretch at pos is skipped (and counted, kept): the
 * record returned is then the first valid one after it, and *at (if not
 * NULL) says where it is.  -ENOENT at the tail, -ESPIPE if pos was dropped
 * (< head).
 */
int spool_read_at(struct spool *s, uint64_t pos, struct strbuf *out, uint64_t *at, uint64_t *next);
int spool_read(struct spool *s, uint64_t pos, struct strbuf *out, uint64_t *next);
/* Everything before pos has been delivered. */
int spool_ack(struct spool *s, uint64_t pos);

uint64_t spool_head(const struct spool *s);
uint64_t spool_tail(const struct spool *s);
bool spool_empty(const struct spool *s);
const struct spool_stats *spool_get_stats(const struct spool *s);
const char *spool_dir(const struct spool *s);

#endif
