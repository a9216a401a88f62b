/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reload.h - brute-reportd --reload: ask the running daemon to reload its
 * configuration and wait for its verdict (the unit's ExecReload=).
 *
 * systemd 252 (Debian 12) has no Type=notify-reload, and an ExecReload= of
 * "kill -HUP $MAINPID" returns before the daemon has even read the file:
 * a reload the daemon refuses would look like a success.  This client
 * reads the daemon's state file (status.h: its pid and the number of
 * reloads it has answered), sends SIGHUP ($MAINPID when systemd sets it),
 * and waits until the count moves; then it exits 0 if the reload was
 * applied, 1 with the daemon's reason if it was refused (the running
 * configuration stays), so that `systemctl reload` fails.
 */
#ifndef BRUTE_RELOAD_H
#define BRUTE_RELOAD_H

#define RELOAD_TIMEOUT_MS 60000	/* within systemd's default TimeoutSec= (90 s) */

/* 0: applied; -EINVAL: refused; other negative errno: no verdict.  Says why on stderr. */
int reload_client(const char *dir, unsigned timeout_ms);

#endif
