#!/bin/sh
# A reload that cannot deliver as configured is refused (issue 22 #2), under the packaged unit
# and bookworm's systemd 252: a spool_dir outside the StateDirectory= is read-only under
# ProtectSystem=strict, so `systemctl reload brute-reportd` (ExecReload= brute-reportd --reload)
# fails with the daemon's reason, the daemon runs on with its running configuration (the next
# attack's alerts are queued and spooled as before), and a good reload then succeeds.
# brute-reportd --check-config, run outside the unit, warns about such a spool_dir.
. "$RIG/tap.sh"

STATUS=/run/brute-reportd/status
AUDIT_LOG=/var/log/audit/audit.log
ATTACK=1713
CONF=/etc/brute/reportd.conf

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled" "$(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
key() { sed -n "s/^$1=//p" $STATUS 2>/dev/null; }
unit_diag() {
	systemctl status --no-pager brute-reportd 2>&1 | tail -n 8
	journalctl -u brute-reportd --no-pager -n 10 2>&1
}
n_attacks() { grep -acE "^type=(UNKNOWN\[$ATTACK\]|BRUTE_ATTACK) " $AUDIT_LOG; }
logged() { [ "$(n_attacks)" -ge "$1" ]; }
# a real fork attack (uid 1000 in a set-user-ID program, killed by Brute), with a copy of the
# attacker of its own (see 35-reportd-tls-relp.sh: uid 1000's runs of one program add up to an
# exec attack).  Not root dropping to uid 1000 (-u): since response v3 nobody gained privileges
# there, and such crashes fall under the backstop only, after backstop_faults.
cp "$SELFTESTS/attacker" /tmp/attacker32 && chmod 4755 /tmp/attacker32
attack() {
	a0=$(n_attacks)
	runas 1000 /tmp/attacker32 -s fork 12 >/dev/null 2>&1
	wait_for 10 logged $((a0 + 1))
}
conf() { # SPOOL_DIR (empty: the default)
	{
		printf 'siem_protocol = tcp\nsiem_host = 127.0.0.1\nsiem_port = 9\n'
		printf 'siem_retry_min = 1\nsiem_retry_max = 2\nkill_coalesce_ms = 100\n'
		[ -z "$1" ] || printf 'spool_dir = %s\n' "$1"
	} >$CONF
	chown root:root $CONF
	chmod 600 $CONF
}

cp -p $CONF /run/reportd.conf.orig32
# the SIEM at 127.0.0.1:9 never answers: every alert stays spooled, which the state file counts
conf ""
if ! out=$(systemctl start brute-reportd.service 2>&1) || ! wait_for 10 test -s $STATUS; then
	not_ok "brute-reportd starts" "$out" "$(unit_diag)"
	exit 0
fi
pid=$(systemctl show -p MainPID --value brute-reportd)

# --- a spool_dir the unit cannot write --------------------------------------------------------
conf /srv/brute-spool
out=$(brute-reportd --check-config 2>&1)
rc=$?
case "$rc|$out" in
"0|"*"spool_dir /srv/brute-spool is outside /var/lib/brute-reportd"*"ReadWritePaths=/srv/brute-spool"*"configuration OK"*)
	ok "--check-config outside the unit: OK there, with a warning about the unit's sandbox" ;;
*) not_ok "--check-config outside the unit warns about the unit's sandbox" "exit $rc" "$out" ;;
esac
rm -rf /srv/brute-spool
reloads=$(key reloads)
out=$(systemctl reload brute-reportd.service 2>&1)
rc=$?
if [ $rc != 0 ] && [ "$(key reload_result)" = failed ] &&
	key reload_error | grep -q 'cannot create the SIEM spool directory /srv/brute-spool: Read-only file system'; then
	ok "systemctl reload fails (exit $rc): $(key reload_error)"
else
	not_ok "systemctl reload fails with the daemon's reason" "exit $rc: $out" \
		"reloads $reloads -> $(key reloads), result $(key reload_result): $(key reload_error)"
fi
if journalctl -u brute-reportd --no-pager -o cat -n 30 |
	grep -q 'reload refused, brute-reportd keeps its running configuration: cannot create the SIEM spool'; then
	ok "the refusal is in the unit's journal (ExecReload=brute-reportd --reload)"
else
	not_ok "the refusal is in the unit's journal" "$(journalctl -u brute-reportd --no-pager -o cat -n 10)"
fi
state=$(systemctl is-active brute-reportd)
[ "$state" = active ] && [ "$(systemctl show -p MainPID --value brute-reportd)" = "$pid" ] &&
	ok "still active, same pid $pid" || not_ok "still active, same pid" "$state" "$(unit_diag)"

# --- the running configuration still forwards: the next attack's alerts are queued, spooled ----
q0=$(key alerts_queued)
attack
queued_more() { [ "$(key alerts_queued)" -gt "$q0" ] && [ "$(key spooled)" -ge 1 ]; }
if wait_for 15 queued_more; then
	ok "after the refused reload an attack's alerts are queued ($q0 -> $(key alerts_queued)) and spooled ($(key spooled))"
else
	not_ok "after the refused reload an attack's alerts are queued" "alerts_queued $q0 -> $(key alerts_queued)" \
		"spooled $(key spooled), dropped $(key alerts_dropped)" "$(unit_diag)"
fi
[ ! -e /srv/brute-spool ] && ok "nothing was made in /srv/brute-spool" ||
	not_ok "nothing was made in /srv/brute-spool" "$(ls -la /srv/brute-spool 2>&1)"

# --- a good reload ------------------------------------------------------------------------------
conf ""
if out=$(systemctl reload brute-reportd.service 2>&1) && [ "$(key reload_result)" = ok ]; then
	ok "a good reload succeeds (reloads $(key reloads))"
else
	not_ok "a good reload succeeds" "$out" "$(key reload_result): $(key reload_error)"
fi

# --- clean up ---------------------------------------------------------------------------------
cp -p /run/reportd.conf.orig32 $CONF
systemctl stop brute-reportd.service
rm -f /tmp/attacker32
exit 0
