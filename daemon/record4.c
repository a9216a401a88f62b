/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record4.c - response v4's record fields (record4.h).  libauparse splits
 * the record into fields; this file maps the v4 ones onto struct
 * brute_record and checks them.
 */
#include "record4.h"

#include <errno.h>
#include <string.h>

#include "util.h"

enum {
	V4_INPUT	= 1u << 0,
	V4_RELAY	= 1u << 1,
	V4_LPATH	= 1u << 2,
	V4_CGROUP	= 1u << 3,
	V4_OP		= 1u << 4,
	V4_ADDED	= 1u << 5,
	V4_REMOVED	= 1u << 6,
	V4_ENTRIES	= 1u << 7,
	V4_LAYOUT	= 1u << 8,
};
#define V4_COUNTS (V4_ADDED | V4_REMOVED | V4_ENTRIES)

static const char *const input_names[_INPUT_MAX] = {
	[INPUT_NONE] = "none", [INPUT_PEER] = "peer", [INPUT_RELAYED] = "relayed",
	[INPUT_AMBIGUOUS] = "ambiguous", [INPUT_TRUSTED] = "trusted",
};

const char *input_name(int input)
{
	return input > 0 && input < _INPUT_MAX ? input_names[input] : NULL;
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

/*
 * An untrusted string as the kernel writes it: "quoted" when plain, hex
 * otherwise.  nul: what a NUL byte of a hex value becomes (an abstract
 * socket's name may hold some; ss(8) shows them as '@'), or 0 to refuse it.
 */
static int untrusted(const char *v, char *dst, size_t len, char nul)
{
	size_t n = strlen(v), o = 0;

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		if (n - 2 >= len || memchr(v + 1, '"', n - 2))
			return -EBADMSG;
		memcpy(dst, v + 1, n - 2);
		dst[n - 2] = '\0';
		return 0;
	}
	if (n == 0 || n % 2)
		return -EBADMSG;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval((unsigned char)v[i]), lo = hexval((unsigned char)v[i + 1]);
		char c;

		if (hi < 0 || lo < 0 || o + 1 >= len)
			return -EBADMSG;
		c = (char)(hi << 4 | lo);
		if (!c && !nul)
			return -EBADMSG;
		dst[o++] = c ? c : nul;
	}
	dst[o] = '\0';
	return 0;
}

static int set_bit_once(unsigned *seen4, unsigned bit)
{
	if (*seen4 & bit)
		return -EBADMSG;	/* a duplicate field */
	*seen4 |= bit;
	return 0;
}

int record4_field(struct brute_record *r, const char *name, const char *value, unsigned *seen4)
{
	uint64_t u;

	if (!strcmp(name, "input")) {
		if (set_bit_once(seen4, V4_INPUT) < 0)
			return -EBADMSG;
		for (int i = 1; i < _INPUT_MAX; i++)
			if (!strcmp(value, input_names[i])) {
				r->input = i;
				return 0;
			}
		return -EBADMSG;
	}
	if (!strcmp(name, "relay")) {
		if (set_bit_once(seen4, V4_RELAY) < 0 || strncmp(value, "uid:", 4) ||
		    parse_u32(value + 4, &r->relay_uid) < 0)
			return -EBADMSG;
		r->has_relay = true;
		return 0;
	}
	if (!strcmp(name, "lpath")) {
		if (set_bit_once(seen4, V4_LPATH) < 0)
			return -EBADMSG;
		if (!strcmp(value, "?")) {	/* an unnamed socket */
			strcpy(r->peer.lpath, "?");
			return 0;
		}
		if (untrusted(value, r->peer.lpath, sizeof(r->peer.lpath), '@') < 0 || !r->peer.lpath[0])
			return -EBADMSG;
		return 0;
	}
	if (!strcmp(name, "layout")) {
		if (set_bit_once(seen4, V4_LAYOUT) < 0 || parse_u64(value, &r->layout) < 0 ||
		    !r->layout)
			return -EBADMSG;
		return 0;
	}
	if (!strcmp(name, "cgroup")) {
		if (set_bit_once(seen4, V4_CGROUP) < 0 ||
		    untrusted(value, r->cgroup, sizeof(r->cgroup), 0) < 0 || r->cgroup[0] != '/')
			return -EBADMSG;
		return 0;
	}
	if (!strcmp(name, "op")) {
		if (set_bit_once(seen4, V4_OP) < 0 || strcmp(value, "update"))
			return -EBADMSG;
		r->trusted_update = true;
		return 0;
	}
	if (!strcmp(name, "added") || !strcmp(name, "removed") || !strcmp(name, "entries")) {
		unsigned bit = name[0] == 'a' ? V4_ADDED : name[0] == 'r' ? V4_REMOVED : V4_ENTRIES;

		if (set_bit_once(seen4, bit) < 0 || parse_u64(value, &u) < 0)
			return -EBADMSG;
		if (bit == V4_ADDED)
			r->trusted_added = u;
		else if (bit == V4_REMOVED)
			r->trusted_removed = u;
		else
			r->trusted_entries = u;
		return 0;
	}
	return 1;
}

int record4_check(struct brute_record *r, unsigned seen4)
{
	if ((seen4 & V4_INPUT) && r->type != BRUTE_TYPE_CRASH)
		return -EBADMSG;
	/*
	 * A relayed charge names its relay and its peer.  The kernel names the relay beside the
	 * peer whenever the input came through one: also on a crash that was not charged
	 * (input=trusted or ambiguous: a proxy that mixed its clients), on the peer attack and
	 * on the peer ban.
	 */
	if (r->input == INPUT_RELAYED && (!r->has_relay || !r->peer.present || r->source != SOURCE_PEER))
		return -EBADMSG;
	if (r->has_relay && (!r->peer.present ||
			     (r->type != BRUTE_TYPE_CRASH && r->type != BRUTE_TYPE_ATTACK &&
			      r->type != BRUTE_TYPE_PEER_BAN)))
		return -EBADMSG;
	if ((seen4 & V4_LPATH) && (!r->peer.present || r->peer.proto != PROTO_UNIX))
		return -EBADMSG;
	if ((seen4 & V4_CGROUP) && r->type != BRUTE_TYPE_ATTACK &&
	    !(r->type == BRUTE_TYPE_KILL && r->kill_summary))
		return -EBADMSG;
	if (seen4 & (V4_OP | V4_COUNTS)) {
		if (r->type != BRUTE_TYPE_CONFIG || strcmp(r->tunable, "trusted") ||
		    (seen4 & (V4_OP | V4_COUNTS)) != (V4_OP | V4_COUNTS))
			return -EBADMSG;
	}
	return 0;
}
