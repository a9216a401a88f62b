/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool_format.h - the spool's files as bytes (spool.c's own; see spool.h
 * for the layout): segment headers, records, checksums, names.
 */
#ifndef BRUTE_SPOOL_FORMAT_H
#define BRUTE_SPOOL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define SEG_HDR		32
#define REC_HDR		12
#define SEG_MAGIC	"BRSPOOL3"	/* magic, base, count, seq (u32), FNV-1a of the 28 bytes (u32) */
#define SEG_MAGIC2	"BRSPOOL2"	/* before: magic, base, count, FNV-1a of the 24 bytes (u64) */
#define LEGACY_MAGIC	"BRSPOOL1"
#define REC_MAGIC	0x31535242u	/* "BRS1" */
#define SEG_OPEN	UINT64_MAX	/* count of the segment being written to */
#define SEG_PREFIX	"spool."
#define SEG_NAME_LEN	(sizeof(SEG_PREFIX) - 1 + 16)
#define HEAD_SIZE	32		/* head, head_index, head_seq, FNV-1a (24 before: no seq) */
#define SEQ_UNKNOWN	UINT64_MAX
#define SPOOL_POS_MAX	(1ull << 62)	/* 4 EiB written: positions never get near overflow */

/*
 * Each record has a sequence number (records appended before it, mod 2^32):
 * a segment's header holds its first record's, spool.head the one at head,
 * so the number of entries of a missing segment is known.
 */
struct segment {
	uint64_t base;		/* logical position of file offset SEG_HDR */
	uint64_t size;		/* file size, header included */
	uint64_t count;		/* records in it */
	uint32_t seq;		/* sequence number of its first record */
	bool seq_known;		/* false: a header of the previous format, or rebuilt */
	bool count_exact;	/* count includes records that turn out corrupt when read (a
				 * sealed header's, or appended this run); false: counted by a
				 * scan at open, which counted each corrupt stretch itself */
	int fd;			/* -1: not open now */
};

uint32_t spf_fnv1a(const void *data, size_t len);
/* FNV-1a of b, never 0 (as stored in headers) */
uint64_t spf_sum64(const unsigned char *b, size_t len);
/* The whole buffer at off, or a negative errno (-EBADMSG: the file ends before). */
int spf_pwrite(int fd, const void *buf, size_t len, uint64_t off);
int spf_pread(int fd, void *buf, size_t len, uint64_t off);
uint64_t spf_get64(const unsigned char *p);
void spf_put64(unsigned char *p, uint64_t v);
uint32_t spf_get32(const unsigned char *p);
void spf_put32(unsigned char *p, uint32_t v);
/* "spool." and base in 16 hex digits; the reverse, false if n is not such a name. */
void spf_seg_name(uint64_t base, char *buf, size_t len);
bool spf_parse_seg_name(const char *n, uint64_t *base);
/* The header of g with count; the previous format when its sequence number is unknown. */
int spf_write_header(int fd, const struct segment *g, uint64_t count);
/* A valid header of either format for base: its count and sequence number into g. */
bool spf_parse_header(const unsigned char *h, uint64_t base, struct segment *g);
/*
 * The record at file offset off of a file of size bytes: its total size
 * in *total; with out, its payload into out (checksum verified); with
 * verify and no out, the checksum verified anyway.  -EBADMSG if it is not
 * a valid record.
 */
int spf_read_record(int fd, uint64_t off, uint64_t size, struct strbuf *out, bool verify,
		    uint64_t *total);
/* The first valid record after file offset from (exclusive): 0 and *at, or -ENOENT. */
int spf_find_valid(int fd, uint64_t from, uint64_t size, uint64_t *at);

#endif
