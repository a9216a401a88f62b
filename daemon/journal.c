/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.c - journal entry fields and sending via libsystemd.
 */
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* sd_journal_sendv() adds no CODE_* fields; this keeps any other call from adding them */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "util.h"

static int add(struct journal_fields *jf, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int add(struct journal_fields *jf, size_t *cap, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	if (jf->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		char **s = realloc(jf->strings, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		jf->strings = s;
		*cap = ncap;
	}
	va_start(ap, fmt);
	r = sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	jf->strings[jf->n++] = sb.buf;
	return 0;
}

/* The process the entry is about: its subject, else the first task killed. */
static bool object_pid(const struct entry *e, unsigned long *pid)
{
	const char *v = entry_get(e, "PID");
	char *end;

	if (!v)
		v = entry_get(e, "KILLED_PIDS");
	if (!v || !*v)
		return false;
	*pid = strtoul(v, &end, 10);
	return *pid > 0 && (*end == '\0' || *end == ',');
}

int journal_fields_build_facility(const struct entry *e, int facility, struct journal_fields *jf)
{
	struct strbuf msg = STRBUF_INIT;
	const char *unit = entry_get(e, "UNIT");
	unsigned long pid;
	size_t cap = 0;
	int r = 0;

	memset(jf, 0, sizeof(*jf));
	r |= add(jf, &cap, "MESSAGE_ID=%s", entry_kind_message_id(e->kind));
	r |= add(jf, &cap, "PRIORITY=%d", e->priority);
	r |= add(jf, &cap, "SYSLOG_FACILITY=%d", facility >> 3);
	r |= add(jf, &cap, "SYSLOG_IDENTIFIER=brute-reportd");
	/* as systemd-coredump does: journalctl -u UNIT shows it (with _UID=0) */
	if (object_pid(e, &pid))
		r |= add(jf, &cap, "OBJECT_PID=%lu", pid);
	if (unit && *unit)
		r |= add(jf, &cap, "OBJECT_SYSTEMD_UNIT=%s", unit);
	/* MESSAGE is shown as text (journalctl, syslog forwarding): escaped; BRUTE_* exact */
	sb_puts(&msg, "MESSAGE=");
	sb_put_text(&msg, e->message ? e->message : "");
	r |= add(jf, &cap, "%s", sb_str(&msg));
	sb_free(&msg);
	r |= add(jf, &cap, "BRUTE_KIND=%s", entry_kind_name(e->kind));
	r |= add(jf, &cap, "BRUTE_TIMESTAMP=%llu", (unsigned long long)e->timestamp_usec);
	for (size_t i = 0; i < e->n_fields; i++)
		r |= add(jf, &cap, "BRUTE_%s=%s", e->fields[i].name, entry_field_text(&e->fields[i]));
	if (r < 0)
		goto oom;
	jf->iov = calloc(jf->n, sizeof(*jf->iov));
	if (!jf->iov)
		goto oom;
	for (size_t i = 0; i < jf->n; i++) {
		jf->iov[i].iov_base = jf->strings[i];
		jf->iov[i].iov_len = strlen(jf->strings[i]);
	}
	return 0;
oom:
	journal_fields_free(jf);
	return -ENOMEM;
}

int journal_fields_build(const struct entry *e, struct journal_fields *jf)
{
	return journal_fields_build_facility(e, LOG_AUTHPRIV, jf);
}

void journal_fields_free(struct journal_fields *jf)
{
	for (size_t i = 0; i < jf->n; i++)
		free(jf->strings[i]);
	free(jf->strings);
	free(jf->iov);
	memset(jf, 0, sizeof(*jf));
}

const char *journal_fields_get(const struct journal_fields *jf, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < jf->n; i++)
		if (strncmp(jf->strings[i], name, n) == 0 && jf->strings[i][n] == '=')
			return jf->strings[i] + n + 1;
	return NULL;
}

int journal_send(const struct entry *e, int facility)
{
	struct journal_fields jf;
	int r = journal_fields_build_facility(e, facility, &jf);

	if (r < 0)
		return r;
	r = sd_journal_sendv(jf.iov, (int)jf.n);
	journal_fields_free(&jf);
	return r;
}
