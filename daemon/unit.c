/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.c - pid -> systemd unit, through /proc or the cgroup v2 tree.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#include "util.h"

#define CGROUP_ROOT	"/sys/fs/cgroup"

static const char *const unit_suffixes[] = {
	".service", ".scope", ".socket", ".mount", ".swap", ".target", ".timer",
};

static bool is_unit_name(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(unit_suffixes); i++) {
		size_t k = strlen(unit_suffixes[i]);

		if (n > k && memcmp(s + n - k, unit_suffixes[i], k) == 0)
			return true;
	}
	return false;
}

int unit_from_cgroup_path(const char *path, char *buf, size_t len)
{
	const char *p = path;

	while (*p) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n > 6 && memcmp(p + n - 6, ".slice", 6) == 0) {
			p += n;
			continue;
		}
		if (!is_unit_name(p, n) || n >= len)
			return -ENXIO;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return 0;
	}
	return -ENXIO;
}

static bool procs_has(int dirfd, pid_t pid)
{
	char line[32];
	bool found = false;
	FILE *f;
	int fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return false;
	}
	while (!found && fgets(line, sizeof(line), f))
		found = strtol(line, NULL, 10) == pid;
	fclose(f);
	return found;
}

/* Depth-first; path holds the current cgroup relative to the root; dirfd is consumed. */
static int scan(int dirfd, pid_t pid, char *path, size_t len, unsigned *budget)
{
	size_t base = strlen(path);
	struct dirent *de;
	DIR *d;
	int r = -ESRCH;

	if (procs_has(dirfd, pid)) {
		close(dirfd);
		return 0;
	}
	d = fdopendir(dirfd);
	if (!d) {
		r = -errno;
		close(dirfd);
		return r;
	}
	while (r == -ESRCH && (de = readdir(d))) {
		int sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((*budget)-- == 0) {
			r = -E2BIG;
			break;
		}
		if (base + 1 + strlen(de->d_name) >= len)
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		snprintf(path + base, len - base, "/%s", de->d_name);
		r = scan(sub, pid, path, len, budget);
		if (r == -ESRCH)
			path[base] = '\0';
	}
	closedir(d);
	return r;
}

int unit_cgroup_of_pid(const char *root, pid_t pid, char *buf, size_t len)
{
	unsigned budget = SCAN_DIRS_MAX;
	int fd, r;

	if (len < 2 || pid <= 0)
		return -EINVAL;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf[0] = '\0';
	r = scan(fd, pid, buf, len, &budget);
	if (r == 0 && !buf[0])
		snprintf(buf, len, "/");
	return r;
}

int unit_of_pid(pid_t pid, bool walk, char *buf, size_t len)
{
	char *unit = NULL, cg[4096];
	int r;

	if (pid <= 0)
		return -EINVAL;
	r = sd_pid_get_unit(pid, &unit);
	if (r >= 0) {
		bool fits = strlen(unit) < len;

		snprintf(buf, len, "%s", unit);
		free(unit);
		return fits ? 0 : -ENAMETOOLONG;
	}
	if (!walk)
		return r;
	r = unit_cgroup_of_pid(CGROUP_ROOT, pid, cg, sizeof(cg));
	if (r < 0)
		return r;
	return unit_from_cgroup_path(cg, buf, len);
}

int unit_cgroup_path_of_pid(pid_t pid, bool walk, char *buf, size_t len)
{
	char *cg = NULL;
	int r;

	if (pid <= 0)
		return -EINVAL;
	r = sd_pid_get_cgroup(pid, &cg);
	if (r >= 0) {
		bool fits = strlen(cg) < len;

		snprintf(buf, len, "%s", cg);
		free(cg);
		return fits ? 0 : -ENAMETOOLONG;
	}
	return walk ? unit_cgroup_of_pid(CGROUP_ROOT, pid, buf, len) : r;
}

/* [A-Za-z0-9:_.\\-], and one '@' before the instance: systemd's unit name characters */
static bool unit_name_chars(const char *s, size_t n)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '@') {
			if (at++ || i == 0)
				return false;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == ':' || c == '_' || c == '.' || c == '\\' || c == '-'))
			return false;
	}
	return true;
}

int unit_system_service_of_cgroup(const char *path, char *buf, size_t len)
{
	static const char root[] = "/system.slice/";
	const char *p = path + sizeof(root) - 1;

	if (strncmp(path, root, sizeof(root) - 1) != 0)
		return -ENXIO;
	for (;;) {
		size_t n = strcspn(p, "/");

		/* the slices systemd makes for templates: system-NAME.slice, nested */
		if (n > 13 && !strncmp(p, "system-", 7) && !memcmp(p + n - 6, ".slice", 6) &&
		    unit_name_chars(p, n) && p[n] == '/') {
			p += n + 1;
			continue;
		}
		if (n <= 8 || memcmp(p + n - 8, ".service", 8) != 0 || !unit_name_chars(p, n) ||
		    p[n - 9] == '@' || n >= len || n >= UNIT_NAME_MAX)
			return -ENXIO;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return 0;
	}
}
