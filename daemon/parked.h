/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parked.h - messages a RELP receiver refused, kept aside.
 *
 * A message the receiver answers with an error (RELP "500") is not sent
 * again and again (holding back every later one): it is parked, counted,
 * and kept in DIR/parked (the spool's directory), one line each:
 *   TIME POSITION MESSAGE
 * (RFC 3339 UTC time of parking, the message's spool position, the RFC
 * 5424 message as it was sent; brute-reportd's messages have no raw
 * newline).  The file is bounded (PARKED_MAX_BYTES): beyond it a refused
 * message is counted as dropped, not kept.  The operator reads it, fixes
 * the receiver, and sends them again by other means.
 */
#ifndef BRUTE_PARKED_H
#define BRUTE_PARKED_H

#include <stddef.h>
#include <stdint.h>

#define PARKED_FILE		"parked"
#define PARKED_MAX_BYTES	(16 * 1024 * 1024)

/* Append msg to dir/parked: 1 kept, 0 not kept (the file is full), negative errno. */
int parked_keep(const char *dir, uint64_t pos, const char *msg, size_t len);

#endif
