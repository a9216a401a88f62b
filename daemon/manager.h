/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager.h - brute-reportd's requests to systemd's manager (PID 1) over
 * sd-bus: a unit's ActiveState, ResetFailedUnit, StartUnit, TryRestartUnit,
 * ReloadUnit and, for the jobs, the job's result (the JobRemoved signal).
 *
 * Connection: systemd's private socket, /run/systemd/private (what systemctl
 * uses as root: no D-Bus broker needed, minimal Debian has none), else the
 * system bus.  Why a uid-0 process holding only CAP_AUDIT_READ may do this:
 * brute-reportd(8), "RESTARTING SERVICES".  Connected when a request comes,
 * closed once nothing is pending for MANAGER_IDLE_MS: a private connection
 * receives every unit's signals, which nobody should read when idle.
 *
 * Every call is asynchronous: the event loop polls manager_pollfd(), calls
 * manager_dispatch() and wakes at manager_next_deadline().
 */
#ifndef BRUTE_MANAGER_H
#define BRUTE_MANAGER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MANAGER_PRIVATE_ADDRESS	"unix:path=/run/systemd/private"
#define MANAGER_IDLE_MS		10000
/* a job systemd never ends (a unit without a start timeout) is given up after this */
#define MANAGER_JOB_MAX_MS	(10 * 60 * 1000)

enum manager_op {
	MANAGER_STATE,		/* the unit's ActiveState: "active", "failed"... */
	MANAGER_RESET_FAILED,	/* ResetFailedUnit: also clears its start-limit counter */
	MANAGER_START,		/* StartUnit "replace", then the job's result */
	MANAGER_TRY_RESTART,	/* TryRestartUnit "replace" (only if it runs), then the job's result */
	MANAGER_RELOAD,		/* ReloadUnit "replace", then the job's result */
	MANAGER_KILL,		/* KillUnit "main" SIGKILL (its main process only): no job, value "" */
	MANAGER_MAIN_PID,	/* the service's MainPID, in decimal ("0": none) */
};

/*
 * The outcome of one request, called once: error 0 with value the
 * ActiveState, the MainPID, "" (reset, kill), or the job's result ("done", "failed",
 * "timeout", "canceled", "dependency", "skipped"); or a negative errno with
 * value systemd's (or the connection's) error message.
 */
typedef void (*manager_cb)(void *userdata, int error, const char *value);

struct manager;

/* address: an sd-bus address (tests), NULL: MANAGER_PRIVATE_ADDRESS, then the system bus */
struct manager *manager_new(const char *address);
void manager_free(struct manager *m);	/* pending requests are dropped, not called */

/* 0, or a negative errno (no connection to systemd: cb is not called). */
int manager_request(struct manager *m, enum manager_op op, const char *unit,
		    manager_cb cb, void *userdata);
/* Forget the pending requests of userdata (their callbacks are not called). */
void manager_cancel(struct manager *m, void *userdata);
size_t manager_pending(const struct manager *m);

/* The connection's fd and events; false when not connected. */
bool manager_pollfd(struct manager *m, struct pollfd *pfd);
/* Process what came (revents ignored: sd-bus reads what is there), time out jobs, close when idle. */
void manager_dispatch(struct manager *m, uint64_t now_ms);
/* Earliest monotonic ms manager_dispatch has work; UINT64_MAX if none. */
uint64_t manager_next_deadline(struct manager *m);

#endif
