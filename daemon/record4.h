/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record4.h - the fields of response v4's records (docs/audit-records.md,
 * the v4 contract), read beside record.c's table, which is full (64 field
 * ids, one bit each):
 *
 *   BRUTE_CRASH   input=none|peer|relayed|ambiguous|trusted, relay=uid:N
 *   BRUTE_ATTACK  cgroup=PATH (untrusted string), mitigation=restart (record.c)
 *   BRUTE_KILL    cgroup=PATH on the summary record
 *   unix endpoint lpath=PATH (untrusted string; "?" unnamed, "@..." abstract)
 *   BRUTE_CONFIG  tunable=trusted op=update added=N removed=N entries=N
 *
 * Records without them (v3 and before) are read as before.
 */
#ifndef BRUTE_RECORD4_H
#define BRUTE_RECORD4_H

#include <auparse.h>

#include "record.h"

/*
 * A field record.c's table does not know: 0 it was a v4 field, now in *r
 * (its bit set in *seen4), 1 not a v4 field (ignored, as every unknown
 * field is), -EBADMSG invalid (or given twice).
 */
int record4_field(struct brute_record *r, const char *name, const char *value, unsigned *seen4);
/*
 * Once every field is read: the v4 fields agree with the record and each
 * other (relay= only with input=relayed, which needs it and a peer; lpath=
 * only on a Unix endpoint; cgroup= only on 1713 and the 1714 summary; op=
 * and its counts only with tunable=trusted).  0 or -EBADMSG.
 */
int record4_check(struct brute_record *r, unsigned seen4);

#endif
