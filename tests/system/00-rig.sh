#!/bin/sh
# Rig self-test for the system guest: auditing stays enabled under systemd (journald's
# Audit=yes), auditd logs a crash, and a unit's output reaches both the journal and rsyslog.
. "$RIG/tap.sh"

status=$(auditctl -s)
if echo "$status" | grep -q '^pid [1-9]' && echo "$status" | grep -q '^enabled 1'; then
	ok "auditd registered and auditing enabled after journald started"
else
	not_ok "auditd registered and auditing enabled after journald started" "$status"
fi

pid=$(runas 1000 segv)
if [ -n "$pid" ] && wait_for 10 ausearch -m ANOM_ABEND -p "$pid"; then
	ok "ANOM_ABEND record for segv pid $pid in /var/log/audit/audit.log"
else
	not_ok "ANOM_ABEND record for segv pid '$pid' in /var/log/audit/audit.log" \
		"$(tail -n 5 /var/log/audit/audit.log)"
fi

# A unit that prints a token unique to this run.
token=hello-brute-$(cat /proc/sys/kernel/random/uuid)
cat >/run/systemd/system/hello-brute.service <<UNIT
[Unit]
Description=Brute rig hello unit

[Service]
Type=oneshot
ExecStart=/bin/echo $token
UNIT
systemctl daemon-reload
check "hello-brute.service runs" systemctl start hello-brute.service

if wait_for 10 sh -c "journalctl -u hello-brute.service -o cat | grep -qx '$token'"; then
	ok "journalctl -u hello-brute.service shows the token"
else
	not_ok "journalctl -u hello-brute.service shows the token" \
		"$(journalctl -u hello-brute.service --no-pager | tail -n 5)"
fi

if wait_for 10 grep -q "$token" /var/log/syslog; then
	ok "rsyslog wrote the token to /var/log/syslog"
	diag "$(grep "$token" /var/log/syslog | head -n 1)"
else
	not_ok "rsyslog wrote the token to /var/log/syslog" "$(tail -n 3 /var/log/syslog 2>&1)"
fi
