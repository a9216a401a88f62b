/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.c - STATUS= text and the state file brutectl reads.
 */
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void status_text_base(const struct health *h, const struct status_counters *c, char *buf, size_t len)
{
	char s[160], t[40];
	int n;

	health_summary(h, s, sizeof(s));
	n = snprintf(buf, len, "%s; records %llu, incidents %llu (%llu open), attacks %llu, alerts queued %llu, dropped %llu, spooled %llu, lost %llu",
		     s, (unsigned long long)c->records, (unsigned long long)c->incidents,
		     (unsigned long long)c->open, (unsigned long long)c->attacks,
		     (unsigned long long)c->queued, (unsigned long long)c->dropped,
		     (unsigned long long)c->spooled, (unsigned long long)c->lost);
	if (n >= 0 && (size_t)n < len && c->malformed + c->oversized + c->garbage)
		n += snprintf(buf + n, len - (size_t)n, ", refused %llu",
			      (unsigned long long)(c->malformed + c->oversized + c->garbage));
	if (n >= 0 && (size_t)n < len && c->journal_failed)
		n += snprintf(buf + n, len - (size_t)n, ", journal failures %llu",
			      (unsigned long long)c->journal_failed);
	if (!c->siem[0] || n < 0 || (size_t)n >= len)
		return;
	/* the delivery: times are absolute (STATUS= is not rewritten as they age) */
	if (c->connected)
		n += snprintf(buf + n, len - (size_t)n, "; SIEM %s %s connected", c->siem, c->siem_target);
	else
		n += snprintf(buf + n, len - (size_t)n, "; SIEM %s %s NOT connected%s%s%s", c->siem,
			      c->siem_target, c->last_error[0] ? " (" : "", c->last_error,
			      c->last_error[0] ? ")" : "");
	if ((size_t)n < len && c->last_delivery_usec && format_rfc3339(c->last_delivery_usec, t, sizeof(t)) == 0)
		n += snprintf(buf + n, len - (size_t)n, ", last delivery %.19sZ", t);
	if ((size_t)n < len && c->failures)
		n += snprintf(buf + n, len - (size_t)n, ", %llu failures", (unsigned long long)c->failures);
	if ((size_t)n < len && c->resent)
		n += snprintf(buf + n, len - (size_t)n, ", %llu sent again", (unsigned long long)c->resent);
	if ((size_t)n < len && c->unconfirmed)
		n += snprintf(buf + n, len - (size_t)n, ", %llu unconfirmed",
			      (unsigned long long)c->unconfirmed);
	if ((size_t)n < len && c->oldest_usec && format_rfc3339(c->oldest_usec, t, sizeof(t)) == 0)
		n += snprintf(buf + n, len - (size_t)n, ", oldest spooled alert %.19sZ", t);
	if ((size_t)n < len && c->parked)
		snprintf(buf + n, len - (size_t)n, ", parked %llu", (unsigned long long)c->parked);
}

/* "; backstop: units restarted 1, started 2, failed 0; peer actions 3, failed 0" (when any) */
static void actions_text(const struct status_counters *c, char *buf, size_t len)
{
	size_t n = strlen(buf);

	if (n < len && (c->unit_restarts || c->unit_starts || c->unit_failures))
		n += (size_t)snprintf(buf + n, len - n, "; backstop: units restarted %llu, started %llu, failed %llu",
				      (unsigned long long)c->unit_restarts, (unsigned long long)c->unit_starts,
				      (unsigned long long)c->unit_failures);
	if (n < len && (c->peer_actions || c->peer_action_failures))
		snprintf(buf + n, len - n, "; peer actions %llu, failed %llu",
			 (unsigned long long)c->peer_actions, (unsigned long long)c->peer_action_failures);
}

void status_text(const struct health *h, const struct status_counters *c, char *buf, size_t len)
{
	status_text_base(h, c, buf, len);
	actions_text(c, buf, len);
}

static bool plugin_mode;

void status_set_plugin_mode(bool plugin)
{
	plugin_mode = plugin;
}

const char *status_dir(void)
{
	static char dir[4096];
	const char *env = getenv("RUNTIME_DIRECTORY");

	if (env && env[0] == '/') {
		size_t n = strcspn(env, ":");

		if (n < sizeof(dir)) {
			memcpy(dir, env, n);
			dir[n] = '\0';
			return dir;
		}
	}
	return plugin_mode ? STATUS_PLUGIN_DIR : STATUS_DEFAULT_DIR;
}

static const char *brute_word(enum health_brute b)
{
	return b == BRUTE_ACTIVE ? "active" : b == BRUTE_ABSENT ? "absent" : "unknown";
}

static const char *audit_word(enum health_audit a)
{
	return a == AUDIT_ENABLED ? "enabled" : a == AUDIT_DISABLED ? "disabled" : "unknown";
}

/* A value on one line of the state file: no newline, no control character. */
static void one_line(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? ' ' : src[i];
	dst[i] = '\0';
}

int status_write(const char *dir, const struct health *h, const struct status_counters *c,
		 const struct status_reload *rl, uint64_t pid, uint64_t started_usec)
{
	char err[256];
	char tmp[4200], path[4200], mode[16];
	FILE *f;
	int fd, r = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, STATUS_FILE);
	snprintf(path, sizeof(path), "%s/%s", dir, STATUS_FILE);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644);	/* whatever the umask: brutectl reads it */
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	if (h->mode < 0)
		snprintf(mode, sizeof(mode), "unknown");
	else
		snprintf(mode, sizeof(mode), "%d", h->mode);
	fprintf(f, "# brute-reportd(8) state, replaced on each update; read by brutectl status\n"
		"version=1\npid=%llu\nstarted_usec=%llu\nupdated_usec=%llu\n"
		"brute=%s\naudit=%s\nmode=%s\nrcvbuf=%llu\nrcvbuf_wanted=%llu\nproblems=%u\n"
		"records=%llu\nincidents=%llu\nincidents_open=%llu\nattacks=%llu\nentries=%llu\n"
		"alerts_queued=%llu\nalerts_dropped=%llu\nspooled=%llu\nlost=%llu\n",
		(unsigned long long)pid, (unsigned long long)started_usec,
		(unsigned long long)now_realtime_usec(), brute_word(h->brute), audit_word(h->audit),
		mode, (unsigned long long)h->rcvbuf, (unsigned long long)h->rcvbuf_want,
		health_problems(h), (unsigned long long)c->records,
		(unsigned long long)c->incidents, (unsigned long long)c->open,
		(unsigned long long)c->attacks, (unsigned long long)c->entries,
		(unsigned long long)c->queued, (unsigned long long)c->dropped,
		(unsigned long long)c->spooled, (unsigned long long)c->lost);
	one_line(err, sizeof(err), c->last_error);
	fprintf(f, "records_malformed=%llu\nlines_oversized=%llu\nlines_garbage=%llu\n"
		"records_cut=%llu\njournal_failures=%llu\n",
		(unsigned long long)c->malformed, (unsigned long long)c->oversized,
		(unsigned long long)c->garbage, (unsigned long long)c->cut,
		(unsigned long long)c->journal_failed);
	fprintf(f, "alerts_parked=%llu\nsiem=%s\nsiem_target=%s\nsiem_connected=%d\nsiem_failures=%llu\n"
		"siem_resent=%llu\nsiem_unconfirmed=%llu\nsiem_last_delivery_usec=%llu\n"
		"siem_last_error_usec=%llu\nsiem_last_error=%s\nspool_oldest_usec=%llu\n",
		(unsigned long long)c->parked, c->siem[0] ? c->siem : "none", c->siem_target,
		c->connected, (unsigned long long)c->failures, (unsigned long long)c->resent,
		(unsigned long long)c->unconfirmed,
		(unsigned long long)c->last_delivery_usec, (unsigned long long)c->last_error_usec, err,
		(unsigned long long)c->oldest_usec);
	fprintf(f, "unit_restarts=%llu\nunit_starts=%llu\nunit_failures=%llu\n"
		"peer_actions=%llu\npeer_action_failures=%llu\nremote_ignored=%llu\nbackstop_restart=%s\n",
		(unsigned long long)c->unit_restarts, (unsigned long long)c->unit_starts,
		(unsigned long long)c->unit_failures, (unsigned long long)c->peer_actions,
		(unsigned long long)c->peer_action_failures, (unsigned long long)c->remote_ignored,
		c->backstop_restart ? "yes" : "no");
	one_line(err, sizeof(err), rl ? rl->error : "");
	fprintf(f, "reloads=%llu\nreload_result=%s\nreload_error=%s\n",
		(unsigned long long)(rl ? rl->count : 0), rl && rl->failed ? "failed" : "ok",
		rl && rl->failed ? err : "");
	if (fflush(f) != 0 || ferror(f))
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

void status_remove(const char *dir)
{
	char path[4200], pid[32];

	if (status_read_key(dir, "pid", pid, sizeof(pid)) < 0 ||
	    strtoull(pid, NULL, 10) != (unsigned long long)getpid())
		return;		/* not ours: another daemon's, or none */
	snprintf(path, sizeof(path), "%s/%s", dir, STATUS_FILE);
	unlink(path);
}

int status_read_key(const char *dir, const char *key, char *val, size_t len)
{
	char path[4200], *line = NULL;
	size_t cap = 0, k = strlen(key);
	ssize_t n;
	FILE *f;
	int r = -ENODATA;

	snprintf(path, sizeof(path), "%s/%s", dir, STATUS_FILE);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		if ((size_t)n > k && !strncmp(line, key, k) && line[k] == '=') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(val, len, "%s", line + k + 1);
			r = 0;
			break;
		}
	}
	free(line);
	fclose(f);
	return r;
}
