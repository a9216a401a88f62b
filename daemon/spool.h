/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.h - persistent, bounded FIFO of messages for the SIEM forwarder.
 *
 * Every message is appended to <dir>/spool before any delivery attempt;
 * with sync set, spool_flush() makes everything appended so far durable
 * with one fdatasync (group commit: the forwarder calls it once per loop
 * iteration, before sending), so what was accepted survives a restart or
 * crash and is replayed in order on start.  Positions are
 * logical byte offsets that stay valid across compaction.  The file never
 * exceeds max_bytes: an append that would cross it first reclaims the
 * delivered prefix and, if that is not enough, drops the oldest messages
 * down to 3/4 of the limit (counted; logged once until the spool drains).
 *
 * File layout: 32 byte header "BRSPOOL1", base (u64), head (u64), FNV-1a
 * of the first 24 bytes (u64; 0 in older spools, accepted);
 * then records of magic "BRS1", length (u32), FNV-1a checksum (u32) and
 * payload.  Integers are little endian.  A torn or corrupt tail (crash
 * during append) is cut off at open.
 */
#ifndef BRUTE_SPOOL_H
#define BRUTE_SPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

#define SPOOL_RECORD_MAX (1024 * 1024)

struct spool_stats {
	uint64_t records;	/* queued now */
	uint64_t bytes;		/* queued now, including record headers */
	uint64_t appended, delivered, dropped;
	uint64_t truncated_bytes; /* cut off at open (torn writes) */
	uint64_t syncs;		/* fdatasync calls of spool_flush() */
};

struct spool;

int spool_open(const char *dir, uint64_t max_bytes, bool sync, struct spool **ret);
void spool_close(struct spool *s);
void spool_set_limits(struct spool *s, uint64_t max_bytes, bool sync);

int spool_append(struct spool *s, const void *data, size_t len);
/* Sync mode: fdatasync what was appended or acknowledged since the last call. */
int spool_flush(struct spool *s);
/* Read the record at pos into out (replacing its contents); *next = following
 * position.  -ENOENT at the tail, -ESPIPE if pos was dropped (< head). */
int spool_read(struct spool *s, uint64_t pos, struct strbuf *out, uint64_t *next);
/* Everything before pos has been delivered. */
int spool_ack(struct spool *s, uint64_t pos);

uint64_t spool_head(const struct spool *s);
uint64_t spool_tail(const struct spool *s);
bool spool_empty(const struct spool *s);
const struct spool_stats *spool_get_stats(const struct spool *s);

#endif
