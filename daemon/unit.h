/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h - the systemd unit a process runs in (OBJECT_SYSTEMD_UNIT of the
 * entries about it).
 *
 * sd_pid_get_unit() reads /proc/PID/cgroup, which the unit's
 * ProtectProc=invisible hides for processes of other users; then the
 * cgroup v2 tree under /sys/fs/cgroup is searched for the pid (every
 * cgroup.procs is world-readable).  A process that already exited has no
 * unit to find: the correlator asks at the hierarchy's first crash or
 * attack record (the crashing task, else its parent, which a fork attack
 * kills only afterwards) and keeps the answer.
 */
#ifndef BRUTE_UNIT_H
#define BRUTE_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define UNIT_NAME_MAX 256
/* directories one cgroup search reads at most (about 2 ms a thousand) */
#define SCAN_DIRS_MAX 1024

/*
 * The unit of a cgroup path ("/system.slice/nginx.service/x" ->
 * "nginx.service"): the first component that is a unit name and not a
 * slice.  0, or -ENXIO if the path names no unit (the root, a slice).
 */
int unit_from_cgroup_path(const char *path, char *buf, size_t len);
/*
 * Search the cgroup v2 tree at root (/sys/fs/cgroup) for pid; its cgroup
 * path relative to root into buf.  0, -ESRCH if not found, or -errno.
 * At most SCAN_DIRS_MAX directories are visited.
 */
int unit_cgroup_of_pid(const char *root, pid_t pid, char *buf, size_t len);
/*
 * sd_pid_get_unit(), else (walk) the cgroup search: up to SCAN_DIRS_MAX
 * directories read, milliseconds.  0 or a negative errno.
 */
int unit_of_pid(pid_t pid, bool walk, char *buf, size_t len);
/*
 * The cgroup v2 path of a live pid ("/system.slice/nginx.service"):
 * sd_pid_get_cgroup() (/proc/PID/cgroup), else the cgroup search.  0 or a
 * negative errno.
 */
int unit_cgroup_path_of_pid(pid_t pid, bool walk, char *buf, size_t len);
/*
 * The system service a cgroup path is in, as brute-reportd may restart
 * it: "/system.slice/NAME.service[/...]", or in the slices systemd makes
 * for templates and their instances ("/system.slice/system-getty.slice/
 * getty@tty1.service").  Anything else (user services, scopes, the root,
 * a template without an instance, a name systemd could not have made) is
 * -ENXIO: the path comes from the kernel's record of the crashing task.
 */
int unit_system_service_of_cgroup(const char *path, char *buf, size_t len);

#endif
