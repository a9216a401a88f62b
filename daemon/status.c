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

void status_text(const struct health *h, const struct status_counters *c, char *buf, size_t len)
{
	char s[160];

	health_summary(h, s, sizeof(s));
	snprintf(buf, len, "%s; records %llu, incidents %llu (%llu open), attacks %llu, alerts queued %llu, dropped %llu, spooled %llu, lost %llu",
		 s, (unsigned long long)c->records, (unsigned long long)c->incidents,
		 (unsigned long long)c->open, (unsigned long long)c->attacks,
		 (unsigned long long)c->queued, (unsigned long long)c->dropped,
		 (unsigned long long)c->spooled, (unsigned long long)c->lost);
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
	return STATUS_DEFAULT_DIR;
}

static const char *brute_word(enum health_brute b)
{
	return b == BRUTE_ACTIVE ? "active" : b == BRUTE_ABSENT ? "absent" : "unknown";
}

static const char *audit_word(enum health_audit a)
{
	return a == AUDIT_ENABLED ? "enabled" : a == AUDIT_DISABLED ? "disabled" : "unknown";
}

int status_write(const char *dir, const struct health *h, const struct status_counters *c,
		 uint64_t pid, uint64_t started_usec)
{
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
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, STATUS_FILE);
	unlink(path);
}
