/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json_check.h - a strict RFC 8259 validator for the tests and the fuzz
 * targets: one value, every object's keys unique at every depth, no
 * trailing garbage.  Returns NULL or what is wrong (static text).
 */
#ifndef BRUTE_JSON_CHECK_H
#define BRUTE_JSON_CHECK_H

#include <stdio.h>
#include <string.h>

struct jc {
	const char *p, *end;
	const char *err;
	int depth;
};

static void jc_ws(struct jc *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* A string; its raw bytes (escapes as written) into key if given. */
static void jc_string(struct jc *j, char *key, size_t keylen)
{
	const char *start;

	if (j->p >= j->end || *j->p != '"') {
		j->err = "expected a string";
		return;
	}
	start = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if ((unsigned char)*j->p < 0x20) {
			j->err = "raw control character in a string";
			return;
		}
		if (*j->p == '\\') {
			j->p++;
			if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p)) {
				j->err = "bad escape";
				return;
			}
		}
		j->p++;
	}
	if (j->p >= j->end) {
		j->err = "unterminated string";
		return;
	}
	if (key) {
		size_t n = (size_t)(j->p - start);

		if (n >= keylen) {
			j->err = "key too long";
			return;
		}
		memcpy(key, start, n);
		key[n] = '\0';
	}
	j->p++;
}

static void jc_value(struct jc *j);

static void jc_object(struct jc *j)
{
	char keys[128][64];
	size_t n = 0;

	j->p++;
	jc_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return;
	}
	for (;;) {
		jc_ws(j);
		if (n == 128) {
			j->err = "too many keys";
			return;
		}
		jc_string(j, keys[n], sizeof(keys[n]));
		if (j->err)
			return;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(keys[i], keys[n])) {
				j->err = "duplicate key";
				return;
			}
		n++;
		jc_ws(j);
		if (j->p >= j->end || *j->p++ != ':') {
			j->err = "expected ':'";
			return;
		}
		jc_value(j);
		if (j->err)
			return;
		jc_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return;
		}
		j->err = "expected ',' or '}'";
		return;
	}
}

static void jc_array(struct jc *j)
{
	j->p++;
	jc_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return;
	}
	for (;;) {
		jc_value(j);
		if (j->err)
			return;
		jc_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return;
		}
		j->err = "expected ',' or ']'";
		return;
	}
}

static void jc_value(struct jc *j)
{
	jc_ws(j);
	if (j->p >= j->end) {
		j->err = "expected a value";
		return;
	}
	if (++j->depth > 32) {
		j->err = "too deep";
		return;
	}
	if (*j->p == '{') {
		jc_object(j);
	} else if (*j->p == '[') {
		jc_array(j);
	} else if (*j->p == '"') {
		jc_string(j, NULL, 0);
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
	} else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
		const char *s = j->p;

		if (*j->p == '-')
			j->p++;
		if (j->p < j->end && *j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9') {
			j->err = "leading zero";
			return;
		}
		while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || strchr(".eE+-", *j->p)))
			j->p++;
		if (j->p == s || j->p[-1] == '-') {
			j->err = "bad number";
			return;
		}
	} else {
		j->err = "unexpected character";
	}
	j->depth--;
}

static inline const char *json_check(const char *s, size_t len)
{
	struct jc j = { s, s + len, NULL, 0 };

	jc_value(&j);
	if (!j.err) {
		jc_ws(&j);
		if (j.p != j.end)
			j.err = "trailing bytes";
	}
	return j.err;
}

#endif
