/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.c - journal entry fields and sending via libsystemd.
 */
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int journal_fields_build(const struct entry *e, struct journal_fields *jf)
{
	struct strbuf msg = STRBUF_INIT;
	size_t cap = 0;
	int r = 0;

	memset(jf, 0, sizeof(*jf));
	r |= add(jf, &cap, "MESSAGE_ID=%s", entry_kind_message_id(e->kind));
	r |= add(jf, &cap, "PRIORITY=%d", e->priority);
	r |= add(jf, &cap, "SYSLOG_IDENTIFIER=brute-reportd");
	/* MESSAGE is shown as text (journalctl, syslog forwarding): escaped; BRUTE_* exact */
	sb_puts(&msg, "MESSAGE=");
	sb_put_text(&msg, e->message ? e->message : "");
	r |= add(jf, &cap, "%s", sb_str(&msg));
	sb_free(&msg);
	r |= add(jf, &cap, "BRUTE_KIND=%s", entry_kind_name(e->kind));
	r |= add(jf, &cap, "BRUTE_TIMESTAMP=%llu", (unsigned long long)e->timestamp_usec);
	for (size_t i = 0; i < e->n_fields; i++)
		r |= add(jf, &cap, "BRUTE_%s=%s", e->fields[i].name, e->fields[i].value);
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

int journal_send(const struct entry *e)
{
	struct journal_fields jf;
	int r = journal_fields_build(e, &jf);

	if (r < 0)
		return r;
	r = sd_journal_sendv(jf.iov, (int)jf.n);
	journal_fields_free(&jf);
	return r;
}
