#!/bin/sh
# Rig self-test for the fast guest: auditd is running and logging, the unprivileged helper
# really drops privileges, and a crashing program leaves an ANOM_ABEND record in audit.log.
. "$RIG/tap.sh"

# auditd registered with the kernel and auditing is enabled
status=$(auditctl -s)
if echo "$status" | grep -q '^pid [1-9]' && echo "$status" | grep -q '^enabled 1'; then
	ok "auditd registered and auditing enabled"
else
	not_ok "auditd registered and auditing enabled" "$status"
fi

# runas drops to uid/gid 1000 without supplementary groups
ids=$(runas 1000 sh -c 'echo "$(id -u) $(id -g) $(id -G)"')
if [ "$ids" = "1000 1000 1000" ]; then
	ok "runas 1000 gives uid, gid and groups 1000"
else
	not_ok "runas 1000 gives uid, gid and groups 1000" "got: '$ids'"
fi

# A segfault as the unprivileged user is audited with its pid, uid and signal.
pid=$(runas 1000 segv)
if [ -z "$pid" ]; then
	not_ok "segv printed its pid"
elif wait_for 10 ausearch -m ANOM_ABEND -p "$pid"; then
	record=$(ausearch -m ANOM_ABEND -p "$pid" --format raw)
	diag "$record"
	if echo "$record" | grep " pid=$pid " | grep " uid=1000 " | grep -q "comm=\"segv\".* sig=11 "; then
		ok "ANOM_ABEND record for segv pid $pid (uid 1000, sig 11)"
	else
		not_ok "ANOM_ABEND record for segv pid $pid (uid 1000, sig 11)" "fields do not match"
	fi
else
	not_ok "ANOM_ABEND record for segv pid $pid" "ausearch found nothing within 10 s" \
		"$(tail -n 5 /var/log/audit/audit.log)"
fi

# Control: a program that exits cleanly leaves no ANOM_ABEND record.
pid=$(runas 1000 sh -c 'echo $$')
sleep 1
if ausearch -m ANOM_ABEND -p "$pid" >/dev/null 2>&1; then
	not_ok "no ANOM_ABEND record for a clean exit (pid $pid)"
else
	ok "no ANOM_ABEND record for a clean exit (pid $pid)"
fi
