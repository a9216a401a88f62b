#!/bin/sh
# A backstop that never leaves a service dead (issue 29, item 5): Brute's backstop kills a
# forking service whose unit has no Restart= (as Debian's nginx.service), and brute-reportd
# starts it again; with backstop_restart = no the same kill leaves it failed (the control:
# what brings it back is brute-reportd).  38-reportd-backstop-limit.sh: the start limit, and
# v4's mitigation=restart.
# The service: the selftests' forking service, its workers dropping to uid 65534 (a "cred"
# boundary), crashed over its Unix socket by root, whose input no peer answers for
# (source=unknown): only the backstop counts it.  backstop_faults is lowered to 4.
. "$RIG/tap.sh"

st=$SELFTESTS
B=/proc/sys/kernel/brute
AUDIT_LOG=/var/log/audit/audit.log
STATUS=/run/brute-reportd/status

if [ ! -d $B ]; then
	not_ok "brute is enabled" "$(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
T0=$(cut -d' ' -f1 /proc/uptime)
t() { diag "t+$(awk -v a="$T0" '{ printf "%.1f", $1 - a }' /proc/uptime) s: $*"; }
bad() {
	printf 'not ok - %s\n' "$1"
	shift
	for d in "$@"; do printf '%s\n' "$d" | sed 's/^/#   /'; done
}
v4=0
[ -e $B/trusted_uid_max ] && v4=1
saved_faults=$(cat $B/backstop_faults) saved_threshold=$(cat $B/crash_period_threshold_ms)
saved_mode=$(cat $B/mode)
echo 2 >$B/mode
echo 4 >$B/backstop_faults

# --- the daemon -------------------------------------------------------------------------------
[ -f /etc/brute/reportd.conf ] && cp -p /etc/brute/reportd.conf /run/reportd-bs.conf.orig
conf() {
	printf '%s\n' "$@" >/etc/brute/reportd.conf
	chown root:root /etc/brute/reportd.conf
	chmod 600 /etc/brute/reportd.conf
}
conf "journal = yes"
if ! out=$(systemctl restart brute-reportd.service 2>&1) || [ "$(systemctl is-active brute-reportd)" != active ]; then
	bad "brute-reportd started" "$out" "$(systemctl status --no-pager brute-reportd 2>&1 | tail -n 8)"
	exit 0
fi
inv=$(systemctl show -p InvocationID --value brute-reportd)
dlog() { journalctl -u brute-reportd _SYSTEMD_INVOCATION_ID="$inv" -o cat --no-pager; }
said() { dlog | grep -qF "$1"; }
t "brute-reportd up"

# --- the services -----------------------------------------------------------------------------
# unit NAME [SERVICE-LINES] [-- UNIT-LINES]: a forking service (Type=forking, its pid file
# written once it listens on /run/NAME.sock), as nginx.service is
unit() {
	name=$1
	shift
	svc= un=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do svc="$svc$1
"; shift; done
	[ "${1:-}" = -- ] && shift
	while [ $# -gt 0 ]; do un="$un$1
"; shift; done
	cat >/run/systemd/system/$name.service <<UNIT
[Unit]
Description=Brute backstop test service $name
$un
[Service]
Type=forking
PIDFile=/run/$name.pid
ExecStart=/bin/sh -c 'exec $st/service -u 65534 -p /run/$name.pid unix /run/$name.sock </dev/null >/dev/null 2>&1 &'
$svc
UNIT
}
state() { systemctl show -p ActiveState --value "$1"; }
mainpid() { systemctl show -p MainPID --value "$1"; }
listening() { [ "$(state "$1")" = active ] && ss -Hxl src "/run/${1%.service}.sock" | grep -q LISTEN; }
# up NAME: started, listening; prints its main pid
up() {
	systemctl reset-failed "$1" 2>/dev/null
	systemctl start "$1" && wait_for 15 listening "$1" && mainpid "$1"
}
# back NAME OLDPID: active again, another main pid, listening
back() { [ "$(state "$1")" = active ] && p=$(mainpid "$1") && [ "$p" != 0 ] && [ "$p" != "$2" ] && listening "$1"; }
# crash NAME: the backstop's 4 crashes (and a few more requests, refused once it is killed)
crash() { $st/client -t 3000 -c 5 -r crash unix "/run/$1.sock"; }
# Brute's records since line $1 of audit.log
since() { tail -n "+$1" $AUDIT_LOG; }
attack_of() { # LINE PID: the backstop attack record of the service whose master is PID
	since "$1" | grep -aE "^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) .* attack=backstop .* ppid=$2 " | tail -n 1
}
killed() { since "$1" | grep -aqE "^type=(UNKNOWN\[1714\]|BRUTE_KILL) .* opid=$2 "; }
status_key() { sed -n "s/^$1=//p" $STATUS 2>/dev/null; }
cleanup() {
	for u in brute-bs1 brute-bs2 brute-bs3; do
		systemctl stop $u.service 2>/dev/null
		systemctl reset-failed $u.service 2>/dev/null
		rm -f /run/systemd/system/$u.service /run/$u.sock /run/$u.pid
	done
	systemctl daemon-reload
}
cleanup
unit brute-bs1
unit brute-bs2 "Restart=always" "RestartSec=100ms" -- "StartLimitIntervalSec=120" "StartLimitBurst=3"
unit brute-bs3
systemctl daemon-reload

# --- 1. the control: backstop_restart = no, the kill is the service's end ----------------------
S=brute-bs1.service
if pid=$(up $S); then
	conf "journal = yes" "backstop_restart = no"
	systemctl reload brute-reportd
	l=$(($(wc -l <$AUDIT_LOG) + 1))
	out=$(crash brute-bs1)
	sleep 6
	a=$(attack_of "$l" "$pid")
	if [ -n "$a" ] && echo "$a" | grep -q ' mitigation=kill ' && killed "$l" "$pid" &&
		[ "$(state $S)" = failed ] && [ "$(systemctl show -p Result --value $S)" = signal ]; then
		ok "control (backstop_restart = no): the backstop killed $S (1713 mitigation=kill, 1714 opid=$pid) and it stays failed, 6 s later ($out)"
	else
		bad "control (backstop_restart = no): the backstop killed $S and it stays failed" \
			"client: $out" "state: $(state $S), result: $(systemctl show -p Result --value $S)" \
			"attack: $a" "$(since "$l" | grep -aE '1713|1714|BRUTE_ATTACK|BRUTE_KILL' | tail -n 3)"
	fi
	conf "journal = yes"
	systemctl reload brute-reportd
else
	bad "$S started" "$(systemctl status --no-pager $S 2>&1 | tail -n 8)"
fi
t "control done"

# --- 2. a unit without Restart=: brute-reportd starts it again --------------------------------
if pid=$(up $S); then
	l=$(($(wc -l <$AUDIT_LOG) + 1))
	out=$(crash brute-bs1)
	a=$(attack_of "$l" "$pid")
	if wait_for 25 back $S "$pid" && [ -n "$a" ] && echo "$a" | grep -q ' mitigation=kill ' &&
		killed "$l" "$pid"; then
		ok "$S killed by the backstop (1713 mitigation=kill, 1714 opid=$pid) runs again: main pid $pid -> $(mainpid $S) ($out)"
	else
		bad "$S killed by the backstop runs again" "client: $out" "state: $(state $S), main pid $(mainpid $S)" \
			"attack: $a" "$(dlog | tail -n 5)"
	fi
	same_nrestarts=$(systemctl show -p NRestarts --value $S)
	if [ "$same_nrestarts" = 0 ] &&
		said "$S is failed after Brute's backstop killed its processes (hierarchy " &&
		said "$S started again after Brute's backstop"; then
		ok "brute-reportd started it (systemd restarted it 0 times): $(dlog | grep -F "$S is failed after" | tail -n 1 | cut -c1-160)..."
	else
		bad "brute-reportd started it, not systemd" "NRestarts=$same_nrestarts" "$(dlog | tail -n 6)"
	fi
	if wait_for 10 eval '[ "$(status_key unit_starts)" -ge 1 ]' && [ "$(status_key unit_failures)" = 0 ]; then
		ok "the state file counts it: unit_starts=$(status_key unit_starts) unit_failures=0"
	else
		bad "the state file counts it" "$(grep -E '^(unit|peer)_' $STATUS 2>&1)"
	fi
	out=$($st/client -c 1 unix /run/brute-bs1.sock)
	if [ "$out" = "answered 1 crashed 0 refused 0" ]; then
		ok "$S serves again ($out)"
	else
		bad "$S serves again" "client: $out"
	fi
	if command -v brutectl >/dev/null && brutectl status 2>&1 | grep -q '^ *actions: backstop: units restarted [0-9]*, started [1-9]'; then
		ok "brutectl status shows it: $(brutectl status 2>&1 | grep 'actions:' | sed 's/^ *//')"
	else
		bad "brutectl status shows brute-reportd's actions" "$(brutectl status 2>&1 | tail -n 4)"
	fi
else
	bad "$S started again by hand" "$(systemctl status --no-pager $S 2>&1 | tail -n 8)"
fi
t "no Restart= done"

# --- clean up for later scripts ---------------------------------------------------------------
cleanup
echo "$saved_faults" >$B/backstop_faults
echo "$saved_threshold" >$B/crash_period_threshold_ms
echo "$saved_mode" >$B/mode
if [ -f /run/reportd-bs.conf.orig ]; then
	cp -p /run/reportd-bs.conf.orig /etc/brute/reportd.conf
else
	rm -f /etc/brute/reportd.conf
fi
systemctl --no-block stop brute-reportd.service
t "done"
exit 0
