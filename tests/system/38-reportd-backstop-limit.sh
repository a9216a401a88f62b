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
BS_ORIG=/run/reportd-bsl.conf.orig
. "$(dirname "$0")/backstop.inc"

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
restore_tunables
if [ -f /run/reportd-bsl.conf.orig ]; then
	cp -p /run/reportd-bsl.conf.orig /etc/brute/reportd.conf
else
	rm -f /etc/brute/reportd.conf
fi
systemctl --no-block stop brute-reportd.service
t "done"
exit 0
