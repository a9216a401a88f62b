#!/bin/sh
# A backstop that never leaves a service dead (issue 29, item 5), continued from
# 36-reportd-backstop.sh (the same services and helpers): a unit with Restart= that the backstop
# kills until systemd's start limit gives up is reset and started by brute-reportd.  With a v4
# kernel, a backstop reached slowly asks for a restart (mitigation=restart, nothing killed) and
# brute-reportd restarts the unit; on a v3 kernel that part fails (the kernel kills instead):
# it needs response v4.
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
[ -f /etc/brute/reportd.conf ] && cp -p /etc/brute/reportd.conf /run/reportd-bsl.conf.orig
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

# --- 1. Restart=always until systemd's start limit gives up: reset and started ----------------
S=brute-bs2.service
if pid=$(up $S); then
	first=$pid n=0 gave_up=0
	l0=$(($(wc -l <$AUDIT_LOG) + 1))
	jl0=$(date '+%Y-%m-%d %H:%M:%S')
	while [ $n -lt 3 ]; do
		n=$((n + 1))
		l=$(($(wc -l <$AUDIT_LOG) + 1))
		out=$(crash brute-bs2)
		if ! wait_for 25 back $S "$pid" || ! killed "$l" "$pid"; then
			bad "$S: kill $n by the backstop, and back" "client: $out" "state: $(state $S)" "$(dlog | tail -n 4)"
			break
		fi
		pid=$(mainpid $S)
	done
	journalctl -u $S --since "$jl0" -o cat --no-pager | grep -q 'Start request repeated too quickly' && gave_up=1
	if [ $n = 3 ] && [ $gave_up = 1 ] && [ "$(state $S)" = active ] &&
		said "$S is failed after Brute's backstop killed its processes"; then
		ok "$S: 3 kills, systemd's start limit (3 in 120 s) gave up, brute-reportd reset and started it (main pid $first -> $pid)"
	else
		bad "$S: the start limit hit by the backstop's kills, reset and started" "kills: $n, start limit: $gave_up" \
			"state: $(state $S)" "$(journalctl -u $S --since "$jl0" -o cat --no-pager | tail -n 5)" "$(dlog | tail -n 5)"
	fi
	[ "$(since "$l0" | grep -acE '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) .* attack=backstop ')" -ge 3 ] ||
		diag "fewer than 3 backstop records since the first kill"
else
	bad "$S started" "$(systemctl status --no-pager $S 2>&1 | tail -n 8)"
fi
t "start limit done"

# --- 2. a slow backstop (v4): mitigation=restart, nothing killed, the unit restarted ------------
S=brute-bs3.service
echo 1 >$B/crash_period_threshold_ms	# every pace is slow
if pid=$(up $S); then
	l=$(($(wc -l <$AUDIT_LOG) + 1))
	out=$($st/client -t 3000 -c 5 -i 50 -r crash unix /run/brute-bs3.sock)
	wait_for 25 back $S "$pid"
	a=$(attack_of "$l" "$pid")
	if [ -n "$a" ] && echo "$a" | grep -q ' mitigation=restart ' && ! killed "$l" "$pid" &&
		back $S "$pid" && said "restarting $S for a fresh layout and canary" &&
		said "$S restarted after Brute's backstop"; then
		ok "a slow backstop (1713 mitigation=restart) killed nothing; brute-reportd restarted $S (main pid $pid -> $(mainpid $S))"
	else
		bad "a slow backstop (1713 mitigation=restart) killed nothing; brute-reportd restarted $S" \
			"$([ $v4 = 1 ] || echo 'this kernel is not response v4 (no trusted_uid_max): it kills instead, the restart needs v4')" \
			"attack: $a" "killed master: $(killed "$l" "$pid" && echo yes || echo no)" \
			"state: $(state $S), main pid $pid -> $(mainpid $S)" "$(dlog | tail -n 4)"
	fi
else
	bad "$S started" "$(systemctl status --no-pager $S 2>&1 | tail -n 8)"
fi
t "slow backstop done"

# --- clean up for later scripts ---------------------------------------------------------------
cleanup
echo "$saved_faults" >$B/backstop_faults
echo "$saved_threshold" >$B/crash_period_threshold_ms
echo "$saved_mode" >$B/mode
if [ -f /run/reportd-bsl.conf.orig ]; then
	cp -p /run/reportd-bsl.conf.orig /etc/brute/reportd.conf
else
	rm -f /etc/brute/reportd.conf
fi
systemctl --no-block stop brute-reportd.service
t "done"
exit 0
