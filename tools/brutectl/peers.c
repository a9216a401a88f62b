// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl peers: the peer table (/sys/kernel/security/brute/peers).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "brutectl.h"
#include "trust.h"

/* ---- parsing of the peers file --------------------------------------------------------- */

struct peer_entry {
	int family;             /* AF_INET, AF_INET6 (an address prefix), AF_UNIX (a user) */
	char peer[64];          /* as the kernel wrote it: "ADDR/LEN" or "uid:UID" */
	char addr[INET6_ADDRSTRLEN];
	uint32_t prefix, uid;
	uint64_t netns;
	bool unix_ep;           /* transport=unix (lino), else tcp (laddr, lport) */
	char laddr[INET6_ADDRSTRLEN];
	uint32_t lport;
	uint64_t lino, faults, attacks, ema_ms, idle_ms, ban_left_s, refused;
	bool has_lpath;         /* v4: the Unix listener's bound path (lpath=) */
	char lpath_raw[4 * 108 + 8];    /* as the kernel wrote it (escaped); "?" unnamed */
	char lpath[110];        /* decoded; abstract names start with '@' */
	size_t lpath_len;       /* 0: unnamed */
	uint64_t layout;        /* layout=: the layout whose every endpoint the entry covers; 0 none */
};

/* "ADDR/LEN" (IPv4 or IPv6, LEN within the family's bits) or "uid:UID". */
static bool parse_peer(const char *s, struct peer_entry *p)
{
	const char *slash = strchr(s, '/');
	unsigned char bin[sizeof(struct in6_addr)];
	size_t n;

	if (strlen(s) >= sizeof(p->peer))
		return false;
	strcpy(p->peer, s);
	if (!strncmp(s, "uid:", 4)) {
		p->family = AF_UNIX;
		return parse_u32(s + 4, &p->uid);
	}
	if (!slash)
		return false;
	n = (size_t)(slash - s);
	if (n == 0 || n >= sizeof(p->addr))
		return false;
	memcpy(p->addr, s, n);
	p->addr[n] = '\0';
	if (inet_pton(AF_INET, p->addr, bin) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, p->addr, bin) == 1)
		p->family = AF_INET6;
	else
		return false;
	return parse_u32(slash + 1, &p->prefix) && p->prefix <= (p->family == AF_INET ? 32 : 128);
}

enum peer_field {
	P_PEER, P_NETNS, P_TRANSPORT, P_FAULTS, P_ATTACKS, P_EMA, P_IDLE, P_BAN, P_REFUSED,
	P_LADDR, P_LPORT, P_LINO, /* the endpoint's, by transport, from here */
	P_LPATH, /* optional (v4) */
	P_LAYOUT, /* optional: a layout's entry (the hierarchy ID that crashed) */
	N_PEER_FIELDS
};
#define N_PEER_REQUIRED P_LADDR
static const char *const peer_field_names[N_PEER_FIELDS] = {
	"peer", "netns", "transport", "faults", "attacks", "ema_ms", "idle_ms", "ban_left_s",
	"refused", "laddr", "lport", "lino", "lpath", "layout",
};

/*
 * One line of the peers file (without its newline) into *out, a struct peer_entry; as
 * parse_line(): unknown keys (peer_uid among them: peer=uid:UID says it) are ignored, every
 * required key must appear (laddr and lport for transport=tcp, lino for unix), none twice;
 * lpath (v4, Unix endpoints: the listener's path, escaped as target_name is) is optional.
 */
static bool parse_peer_line(char *line, void *out, char *why_buf, size_t why_size)
{
	bool seen[N_PEER_FIELDS] = { false };
	struct peer_entry *p = out;
	uint64_t *const counter[N_PEER_FIELDS] = {
		[P_NETNS] = &p->netns, [P_FAULTS] = &p->faults, [P_ATTACKS] = &p->attacks,
		[P_EMA] = &p->ema_ms, [P_IDLE] = &p->idle_ms, [P_BAN] = &p->ban_left_s,
		[P_REFUSED] = &p->refused, [P_LINO] = &p->lino, [P_LAYOUT] = &p->layout,
	};
	char *tok, *save = NULL;
	char quoted[168];

	memset(p, 0, sizeof(*p));
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		unsigned char bin[sizeof(struct in6_addr)];
		const char *val;
		uint64_t v;
		int f;

		f = kv_field(tok, peer_field_names, N_PEER_FIELDS, seen, &val, why_buf, why_size);
		if (f == KV_BAD)
			return false;
		if (f == KV_UNKNOWN)
			continue;
		switch (f) {
		case P_PEER:
			if (!parse_peer(val, p))
				goto badval;
			break;
		case P_TRANSPORT:
			if (!strcmp(val, "unix"))
				p->unix_ep = true;
			else if (strcmp(val, "tcp"))
				goto badval;
			break;
		case P_LADDR:
			if (strlen(val) >= sizeof(p->laddr) ||
			    (inet_pton(AF_INET, val, bin) != 1 && inet_pton(AF_INET6, val, bin) != 1))
				goto badval;
			strcpy(p->laddr, val);
			break;
		case P_LPORT:
			if (!parse_u64(val, 65535, &v))
				goto badval;
			p->lport = (uint32_t)v;
			break;
		case P_LPATH: {
			size_t len = 0;
			char *name;

			if (strlen(val) >= sizeof(p->lpath_raw) || !*val)
				goto badval;
			strcpy(p->lpath_raw, val);
			p->has_lpath = true;
			if (!strcmp(val, "?"))
				break;	/* an unnamed socket */
			name = decode_name(val, "lpath", &len, why_buf, why_size);
			if (!name)
				return false;
			if (len >= sizeof(p->lpath)) {
				free(name);
				goto badval;
			}
			memcpy(p->lpath, name, len);
			p->lpath_len = len;
			free(name);
			break;
		}
		default:
			if (!parse_u64(val, UINT64_MAX, &v))
				goto badval;
			*counter[f] = v;
			break;
		}
		continue;
badval:
		snprintf(why_buf, why_size, "bad value for %s: '%s'", tok,
			 snip(quoted, sizeof(quoted), val));
		return false;
	}
	for (int f = 0; f < P_LPATH; f++) {
		bool needed = f < N_PEER_REQUIRED || (f == P_LINO) == p->unix_ep;

		if (needed && !seen[f]) {
			snprintf(why_buf, why_size, "missing field %s", peer_field_names[f]);
			return false;
		}
	}
	return true;
}

static void free_peers(void *v, size_t n)
{
	(void)n;
	free(v);
}

/* ---- peers ----------------------------------------------------------------------------- */

enum { PC_PEER, PC_USER, PC_ENDPOINT, PC_NETNS, PC_FAULTS, PC_ATTACKS, PC_EMA, PC_IDLE, PC_BAN,
       PC_REFUSED, N_PEER_COLS };
static const char *const peer_col_head[N_PEER_COLS] = {
	"PEER", "USER", "ENDPOINT", "NETNS", "FAULTS", "ATTACKS", "EMA", "IDLE", "BAN", "REFUSED",
};
static const bool peer_col_right[N_PEER_COLS] = {
	false, false, false, true, true, true, true, true, false, true,
};

/* The endpoint for people: "tcp 0.0.0.0:7777", "tcp [::]:22", "unix /run/php/fpm.sock",
 * "unix socket 23114" (unnamed, or a kernel before v4: its inode). */
static void fmt_endpoint(char *buf, size_t size, const struct peer_entry *p)
{
	char path[4 * sizeof(p->lpath) + 1];

	if (p->unix_ep && p->lpath_len)
		snprintf(buf, size, "unix %s", escape_tty(path, sizeof(path), p->lpath, p->lpath_len));
	else if (p->unix_ep)
		snprintf(buf, size, "unix socket %" PRIu64, p->lino);
	else if (strchr(p->laddr, ':'))
		snprintf(buf, size, "tcp [%s]:%" PRIu32, p->laddr, p->lport);
	else
		snprintf(buf, size, "tcp %s:%" PRIu32, p->laddr, p->lport);
	if (p->layout) {
		size_t len = strlen(buf);

		/* A layout's entry: every endpoint of that hierarchy, counted from this one. */
		snprintf(buf + len, size - len, " +layout %" PRIu64, p->layout);
	}
}

static void peers_json(const struct peer_entry *v, size_t n, bool bans)
{
	bool first = true;

	printf("{\"entries\":[");
	for (size_t i = 0; i < n; i++) {
		const struct peer_entry *p = &v[i];
		struct passwd *pw;

		if (bans && !p->ban_left_s)
			continue;
		printf("%s\n{\"peer\":\"%s\",\"family\":\"%s\"", first ? "" : ",", p->peer,
		       p->family == AF_INET ? "ipv4" : p->family == AF_INET6 ? "ipv6" : "unix");
		first = false;
		if (p->family == AF_UNIX) {
			printf(",\"peer_uid\":%" PRIu32 ",\"user\":", p->uid);
			pw = getpwuid(p->uid);
			if (pw)
				put_json_str(stdout, pw->pw_name, strlen(pw->pw_name));
			else
				fputs("null", stdout);
		} else {
			printf(",\"address\":\"%s\",\"prefix\":%" PRIu32, p->addr, p->prefix);
		}
		printf(",\"netns\":%" PRIu64 ",\"transport\":\"%s\"", p->netns,
		       p->unix_ep ? "unix" : "tcp");
		if (p->unix_ep)
			printf(",\"lino\":%" PRIu64, p->lino);
		if (p->unix_ep && p->has_lpath) {
			fputs(",\"lpath\":", stdout);
			if (p->lpath_len)
				put_json_str(stdout, p->lpath, p->lpath_len);
			else
				fputs("null", stdout);
			fputs(",\"lpath_raw\":", stdout);
			put_json_str(stdout, p->lpath_raw, strlen(p->lpath_raw));
		}
		if (!p->unix_ep)
			printf(",\"laddr\":\"%s\",\"lport\":%" PRIu32, p->laddr, p->lport);
		if (p->layout)
			printf(",\"layout\":%" PRIu64, p->layout);
		printf(",\"faults\":%" PRIu64 ",\"attacks\":%" PRIu64 ",\"ema_ms\":%" PRIu64
		       ",\"idle_ms\":%" PRIu64 ",\"banned\":%s,\"ban_left_s\":%" PRIu64
		       ",\"refused\":%" PRIu64 "}",
		       p->faults, p->attacks, p->ema_ms, p->idle_ms, p->ban_left_s ? "true" : "false",
		       p->ban_left_s, p->refused);
	}
	printf("%s]", first ? "" : "\n");
}

static int peers_table(const struct peer_entry *v, size_t n, bool bans)
{
	char *cells = NULL;
	size_t rows = 0, width[N_PEER_COLS], cell = 448;	/* a Unix path, escaped */

	cells = calloc(n ? n : 1, N_PEER_COLS * cell);
	if (!cells) {
		err("out of memory");
		return EXIT_FAIL;
	}
	for (int c = 0; c < N_PEER_COLS; c++)
		width[c] = strlen(peer_col_head[c]);
	for (size_t i = 0; i < n; i++) {
		const struct peer_entry *p = &v[i];
		char *r = cells + rows * N_PEER_COLS * cell, t[24];
		struct passwd *pw = NULL;

		if (bans && !p->ban_left_s)
			continue;
		if (p->family == AF_UNIX)
			pw = getpwuid(p->uid);
		snprintf(r + PC_PEER * cell, cell, "%s", p->peer);
		snprintf(r + PC_USER * cell, cell, "%s", pw ? pw->pw_name : "-");
		fmt_endpoint(r + PC_ENDPOINT * cell, cell, p);
		snprintf(r + PC_NETNS * cell, cell, "%" PRIu64, p->netns);
		snprintf(r + PC_FAULTS * cell, cell, "%" PRIu64, p->faults);
		snprintf(r + PC_ATTACKS * cell, cell, "%" PRIu64, p->attacks);
		fmt_ms(r + PC_EMA * cell, cell, p->ema_ms);
		fmt_ms(r + PC_IDLE * cell, cell, p->idle_ms);
		if (p->ban_left_s) {
			fmt_s(t, sizeof(t), p->ban_left_s);
			snprintf(r + PC_BAN * cell, cell, "BANNED %s", t);
		} else {
			snprintf(r + PC_BAN * cell, cell, "-");
		}
		snprintf(r + PC_REFUSED * cell, cell, "%" PRIu64, p->refused);
		for (int c = 0; c < N_PEER_COLS; c++)
			if (strlen(r + c * cell) > width[c])
				width[c] = strlen(r + c * cell);
		rows++;
	}
	if (rows == 0) {
		printf(bans ? "no peer bans\n" : "no peer entries\n");
		goto out;
	}
	for (size_t i = 0; i <= rows; i++) {
		const char *r = cells + (i ? i - 1 : 0) * N_PEER_COLS * cell;

		for (int c = 0; c < N_PEER_COLS; c++) {
			const char *text = i ? r + c * cell : peer_col_head[c];

			if (c == N_PEER_COLS - 1)
				printf("%*s\n", (int)width[c], text);
			else
				printf(peer_col_right[c] ? "%*s  " : "%-*s  ", (int)width[c], text);
		}
	}
out:
	free(cells);
	return EXIT_OK;
}

int cmd_peers(int argc, char **argv)
{
	bool bans = false, json = false;
	struct peer_entry *v = NULL;
	struct trust_entry *tv = NULL;
	size_t n = 0, tn = 0;
	int ret, trusted = 1;
	void *p = NULL;

	if (table_args(argc, argv, "peers", &bans, &json))
		return EXIT_USAGE;
	if (read_table(PEERS_PATH, NO_PEERS, sizeof(*v), parse_peer_line, free_peers, &p, &n))
		return EXIT_FAIL;
	v = p;
	/* v4: the trusted peers, never in the peer table (never charged, never banned) */
	if (!bans) {
		trusted = trust_read_kernel(&tv, &tn, true);
		if (trusted < 0) {
			free_peers(v, n);
			return EXIT_FAIL;
		}
	}
	if (json) {
		peers_json(v, n, bans);
		if (trusted == 0) {
			fputs(",\"trusted\":", stdout);
			trust_print_json_array(tv, tn);
		}
		fputs("}\n", stdout);
		ret = EXIT_OK;
	} else {
		ret = peers_table(v, n, bans);
		if (trusted == 0 && tn) {
			printf("\ntrusted peers (never charged, never banned: brutectl trust):\n");
			trust_print_table(tv, tn);
		}
	}
	free(tv);
	free_peers(v, n);
	return flushed(ret);
}
