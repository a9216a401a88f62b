// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl list: the (uid, target) table of exec attacks (/sys/kernel/security/brute/targets).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brutectl.h"

/* ---- parsing of the targets file ------------------------------------------------------- */

struct entry {
	uint32_t uid;
	uint32_t dev_major, dev_minor;
	uint64_t ino, faults, ema_ms, idle_ms, ban_left_s, denied;
	bool has_attacks;  /* optional field: attacks detected on the entry */
	uint64_t attacks;
	const char *scope; /* optional field: "target", "overflow" or "any"; NULL if absent */
	char *name;      /* decoded (may hold any byte but NUL) */
	size_t name_len;
	char *name_raw;  /* as the kernel wrote it (escaped) */
};

enum field {
	F_UID, F_DEV, F_INO, F_FAULTS, F_EMA, F_IDLE, F_BAN, F_DENIED, F_NAME,
	F_ATTACKS, F_SCOPE, /* the optional ones from here */
	N_FIELDS
};
#define N_REQUIRED F_ATTACKS
static const char *const field_names[N_FIELDS] = {
	"attacker_uid", "target_dev", "target_ino", "faults", "ema_ms", "idle_ms",
	"ban_left_s", "denied", "target_name", "attacks", "scope",
};

/* The scopes of a (user, target) entry (Brute.rst): static strings for struct entry. */
static const char *const scopes[] = { "target", "overflow", "any" };

/*
 * One line of the targets file (without its newline) into *e. Unknown keys are ignored
 * (fields a newer kernel may add); every required key must appear, no known key twice.
 * Returns false, with why in why_buf and nothing left allocated, if it is malformed.
 */
static bool parse_line(char *line, void *out, char *why_buf, size_t why_size)
{
	bool seen[N_FIELDS] = { false };
	struct entry *e = out;
	char quoted[168];
	char *tok, *save = NULL;

	memset(e, 0, sizeof(*e));
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *val;
		int f;

		f = kv_field(tok, field_names, N_FIELDS, seen, &val, why_buf, why_size);
		if (f == KV_BAD)
			goto bad;
		if (f == KV_UNKNOWN)
			continue;
		switch (f) {
		case F_UID:
			if (!parse_u32(val, &e->uid))
				goto badval;
			break;
		case F_DEV:
			if (!parse_dev(val, &e->dev_major, &e->dev_minor))
				goto badval;
			break;
		case F_INO:
			if (!parse_u64(val, UINT64_MAX, &e->ino))
				goto badval;
			break;
		case F_FAULTS:
			if (!parse_u64(val, UINT64_MAX, &e->faults))
				goto badval;
			break;
		case F_EMA:
			if (!parse_u64(val, UINT64_MAX, &e->ema_ms))
				goto badval;
			break;
		case F_IDLE:
			if (!parse_u64(val, UINT64_MAX, &e->idle_ms))
				goto badval;
			break;
		case F_BAN:
			if (!parse_u64(val, UINT64_MAX, &e->ban_left_s))
				goto badval;
			break;
		case F_DENIED:
			if (!parse_u64(val, UINT64_MAX, &e->denied))
				goto badval;
			break;
		case F_ATTACKS:
			if (!parse_u64(val, UINT64_MAX, &e->attacks))
				goto badval;
			e->has_attacks = true;
			break;
		case F_SCOPE:
			for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
				if (!strcmp(val, scopes[i]))
					e->scope = scopes[i];
			if (!e->scope)
				goto badval;
			break;
		case F_NAME:
			e->name = decode_name(val, "target_name", &e->name_len, why_buf, why_size);
			if (!e->name)
				goto bad;
			e->name_raw = strdup(val);
			if (!e->name_raw) {
				snprintf(why_buf, why_size, "out of memory");
				goto bad;
			}
			break;
		}
		continue;
badval:
		snprintf(why_buf, why_size, "bad value for %s: '%s'", tok,
			 snip(quoted, sizeof(quoted), val));
		goto bad;
	}
	for (int f = 0; f < N_REQUIRED; f++) {
		if (!seen[f]) {
			snprintf(why_buf, why_size, "missing field %s", field_names[f]);
			goto bad;
		}
	}
	return true;
bad:
	free(e->name);
	free(e->name_raw);
	e->name = e->name_raw = NULL;
	return false;
}

static void free_entries(void *p, size_t n)
{
	struct entry *v = p;

	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].name_raw);
	}
	free(v);
}

/* ---- list ------------------------------------------------------------------------------ */

enum { C_UID, C_USER, C_DEV, C_INO, C_FAULTS, C_EMA, C_IDLE, C_BAN, C_DENIED, N_COLS };
static const char *const col_head[N_COLS] = {
	"UID", "USER", "DEV", "INO", "FAULTS", "EMA", "IDLE", "BAN", "DENIED",
};
static const bool col_right[N_COLS] = {
	true, false, false, true, true, true, true, false, true,
};

static void list_json(const struct entry *v, size_t n, bool bans)
{
	bool first = true;

	printf("{\"entries\":[");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &v[i];
		struct passwd *pw;

		if (bans && !e->ban_left_s)
			continue;
		printf("%s\n{\"attacker_uid\":%" PRIu32 ",\"user\":", first ? "" : ",", e->uid);
		first = false;
		pw = getpwuid(e->uid);
		if (pw)
			put_json_str(stdout, pw->pw_name, strlen(pw->pw_name));
		else
			fputs("null", stdout);
		printf(",\"target_dev\":\"%" PRIu32 ":%" PRIu32 "\",\"target_ino\":%" PRIu64
		       ",\"target_name\":", e->dev_major, e->dev_minor, e->ino);
		put_json_str(stdout, e->name, e->name_len);
		printf(",\"target_name_raw\":");
		put_json_str(stdout, e->name_raw, strlen(e->name_raw));
		if (e->has_attacks)
			printf(",\"attacks\":%" PRIu64, e->attacks);
		if (e->scope)
			printf(",\"scope\":\"%s\"", e->scope);
		printf(",\"faults\":%" PRIu64 ",\"ema_ms\":%" PRIu64 ",\"idle_ms\":%" PRIu64
		       ",\"banned\":%s,\"ban_left_s\":%" PRIu64 ",\"denied\":%" PRIu64 "}",
		       e->faults, e->ema_ms, e->idle_ms, e->ban_left_s ? "true" : "false",
		       e->ban_left_s, e->denied);
	}
	printf("%s]}\n", first ? "" : "\n");
}

static int list_table(const struct entry *v, size_t n, bool bans)
{
	char *cells = NULL;
	size_t rows = 0, width[N_COLS], cell = 64;
	const struct entry **row_entry = NULL;

	cells = calloc(n ? n : 1, N_COLS * cell);
	row_entry = calloc(n ? n : 1, sizeof(*row_entry));
	if (!cells || !row_entry) {
		free(cells);
		free(row_entry);
		err("out of memory");
		return EXIT_FAIL;
	}
	for (int c = 0; c < N_COLS; c++)
		width[c] = strlen(col_head[c]);
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &v[i];
		char *r = cells + rows * N_COLS * cell, t[24];
		struct passwd *pw;

		if (bans && !e->ban_left_s)
			continue;
		row_entry[rows] = e;
		pw = getpwuid(e->uid);
		snprintf(r + C_UID * cell, cell, "%" PRIu32, e->uid);
		snprintf(r + C_USER * cell, cell, "%s", pw ? pw->pw_name : "-");
		snprintf(r + C_DEV * cell, cell, "%" PRIu32 ":%" PRIu32, e->dev_major, e->dev_minor);
		snprintf(r + C_INO * cell, cell, "%" PRIu64, e->ino);
		snprintf(r + C_FAULTS * cell, cell, "%" PRIu64, e->faults);
		fmt_ms(r + C_EMA * cell, cell, e->ema_ms);
		fmt_ms(r + C_IDLE * cell, cell, e->idle_ms);
		if (e->ban_left_s) {
			fmt_s(t, sizeof(t), e->ban_left_s);
			snprintf(r + C_BAN * cell, cell, "BANNED %s", t);
		} else {
			snprintf(r + C_BAN * cell, cell, "-");
		}
		snprintf(r + C_DENIED * cell, cell, "%" PRIu64, e->denied);
		for (int c = 0; c < N_COLS; c++)
			if (strlen(r + c * cell) > width[c])
				width[c] = strlen(r + c * cell);
		rows++;
	}
	if (rows == 0) {
		printf(bans ? "no bans\n" : "no entries\n");
		goto out;
	}
	for (int c = 0; c < N_COLS; c++)
		printf(col_right[c] ? "%*s  " : "%-*s  ", (int)width[c], col_head[c]);
	printf("TARGET\n");
	for (size_t i = 0; i < rows; i++) {
		const char *r = cells + i * N_COLS * cell;

		for (int c = 0; c < N_COLS; c++)
			printf(col_right[c] ? "%*s  " : "%-*s  ", (int)width[c], r + c * cell);
		if (row_entry[i]->scope == scopes[2]) {
			/* the user's overflow entry of several targets: its ban is of every one */
			printf("* (every privileged program)\n");
			continue;
		}
		put_name_tty(stdout, row_entry[i]->name, row_entry[i]->name_len);
		printf(row_entry[i]->scope == scopes[1] ? " (overflow entry)\n" : "\n");
	}
out:
	free(cells);
	free(row_entry);
	return EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	bool bans = false, json = false;
	struct entry *v = NULL;
	void *p = NULL;
	size_t n = 0;
	int ret;

	if (table_args(argc, argv, "list", &bans, &json))
		return EXIT_USAGE;
	if (read_table(TARGETS_PATH, NO_TARGETS, sizeof(*v), parse_line, free_entries, &p, &n))
		return EXIT_FAIL;
	v = p;
	if (json) {
		list_json(v, n, bans);
		ret = EXIT_OK;
	} else {
		ret = list_table(v, n, bans);
	}
	free_entries(v, n);
	return flushed(ret);
}
