#!/bin/sh
# The guest side of `make demo`, sourced by tests/system/40-demo.sh (dash, as root, in the
# system guest).  $DEMO is the directory with this file, the unit, the rsyslog configuration
# and the programs built by tests/demo/Makefile (the data disk's demo/).
#
#   demo_setup                 network namespaces and veth pair, the service, rsyslog as the
#                              SIEM on 127.0.0.1:6514, brute-reportd forwarding to it
#   demo_attack MODE MAX_ATTEMPTS MAX_SECONDS [HINT_BYTES]
#                              Brute mode MODE, a freshly started service, the attack from the
#                              client namespace while a legitimate client (another address of
#                              that namespace) sends a request every 100 ms; the attack's
#                              transcript in $DEMO_OUT/attack-MODE.log, one summary line
#                              (DEMO-RESULT ...) on stdout.  HINT_BYTES: give the client that
#                              many canary bytes, read from the server's memory (the shortened
#                              run of the check)
#   demo_exec_attack N         a local user (uid 1001) runs the set-user-ID brute-demo-suid N
#                              times with an input that smashes its canary; one summary line
#                              (DEMO-EXEC crashes=.. refused=.. ...) on stdout
#   demo_operator              what an operator sees: ausearch, journalctl, the SIEM's file
#   demo_teardown              stop and remove all of it, mode back to 2
DEMO=${DEMO:-/data/demo}
DEMO_OUT=${DEMO_OUT:-/tmp/brute-demo}
DEMO_UNIT=brute-demo-server.service
DEMO_SERVER=/usr/local/sbin/brute-demo-server
DEMO_SUID=/usr/local/bin/brute-demo-suid
DEMO_ATTACKER=1001
DEMO_SRV_IP=10.66.0.1
DEMO_CLI_IP=10.66.0.2
DEMO_BENIGN_IP=10.66.0.3
DEMO_PORT=7777
SIEM_LOG=/var/log/brute-siem.log

# Progress on the console, with the guest's uptime (the rig shows a script's output only
# once it has finished).
demo_log() { echo "demo: [$(cut -d' ' -f1 /proc/uptime)] $*" >/dev/console 2>/dev/null; }

# Wall clock in ausearch's -ts/-te form (locale date and time).
demo_now() { LC_ALL=C date '+%x %T'; }

demo_setup() {
	demo_log "set-up: network namespaces demo-srv, demo-cli and a veth pair"
	mkdir -p "$DEMO_OUT"
	# Two namespaces and a veth pair: the server's peers are not on its host.  The attacker
	# has the client namespace's first address, a legitimate client the second.
	ip netns add demo-srv && ip netns add demo-cli &&
		ip link add veth-srv type veth peer name veth-cli &&
		ip link set veth-srv netns demo-srv && ip link set veth-cli netns demo-cli &&
		ip -n demo-srv addr add $DEMO_SRV_IP/24 dev veth-srv &&
		ip -n demo-cli addr add $DEMO_CLI_IP/24 dev veth-cli &&
		ip -n demo-cli addr add $DEMO_BENIGN_IP/24 dev veth-cli &&
		ip -n demo-srv link set lo up && ip -n demo-srv link set veth-srv up &&
		ip -n demo-cli link set lo up && ip -n demo-cli link set veth-cli up || return 1

	install -m 755 "$DEMO/brute-demo-server" "$DEMO_SERVER" &&
		install -m 644 "$DEMO/$DEMO_UNIT" /run/systemd/system/ || return 1

	demo_log "set-up: rsyslog listening on 127.0.0.1:6514 (the SIEM), brute-reportd"
	# The SIEM: rsyslog's TCP input on 127.0.0.1:6514, into $SIEM_LOG.
	install -m 644 "$DEMO/rsyslog-brute-siem.conf" /etc/rsyslog.d/60-brute-siem.conf &&
		: >"$SIEM_LOG" || return 1
	# brute-reportd: journal entries, and the SIEM over TCP (RFC 5424, octet counting).
	[ -f /etc/brute/reportd.conf ] && [ ! -f "$DEMO_OUT/reportd.conf.orig" ] &&
		cp -p /etc/brute/reportd.conf "$DEMO_OUT/reportd.conf.orig"
	mkdir -p /etc/brute
	cat >/etc/brute/reportd.conf <<-CONF
	# brute-reportd.conf(5), written by the Brute demo (tests/demo/demo.sh)
	siem_protocol = tcp
	siem_host = 127.0.0.1
	siem_port = 6514
	siem_kinds = attack,kill,closed,ban,unban,peer_ban,peer_unban
	CONF
	chmod 644 /etc/brute/reportd.conf
	# rsyslog needs a restart for a new input; brute-reportd re-reads its configuration on
	# SIGHUP (reload), and retries the SIEM until the listener is there.
	# (No daemon-reload, ~10 s on a loaded TCG guest: systemd loads the new unit when it is
	# first started.)
	systemctl --no-block restart rsyslog.service &&
		systemctl reload-or-restart brute-reportd.service || return 1
	demo_log "set-up: brute-reportd reloaded"
	wait_for 20 sh -c "ss -Htln 'sport = :6514' | grep -q ." || return 1
	demo_log "set-up done"
}

# Value of KEY=VALUE in the line on stdin.
demo_field() {
	awk -v k="$1=" '{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) {
		print substr($i, length(k) + 1); exit } }'
}
# Raw audit records without what ausearch adds (after \035: the names of the IDs).
demo_kernel_part() { sed "s/$(printf '\035').*//"; }
# ... and without the fields an operator does not need here (IDs repeated, old_*/new_*).
demo_short() {
	demo_kernel_part | sed -E -e 's/ (auid|uid|gid|euid|suid|fsuid|egid|sgid|fsgid|tty|ses)=[^ ]+//g' \
		-e 's/ (old|new)_[a-z]+=[^ ]+//g'
}

# The stack canary of process $1: glibc takes it from the AT_RANDOM bytes (auxv type 25),
# low byte zeroed.
demo_canary() {
	at_random=$(od -An -tx8 -w16 -v /proc/$1/auxv | awk '$1 == "0000000000000019" { print $2 }')
	[ -n "$at_random" ] || return 1
	value=$(dd if=/proc/$1/mem bs=8 count=1 iflag=skip_bytes skip=$((0x$at_random)) \
		2>/dev/null | od -An -tx8 | tr -d ' ')
	[ ${#value} -eq 16 ] || return 1
	echo "0x${value%??}00" # (no arithmetic: dash saturates above 2^63)
}

demo_attack() { # MODE MAX_ATTEMPTS MAX_SECONDS [HINT_BYTES]
	mode=$1 hint=
	. "$DEMO/brute-demo.layout"
	rm -f /run/brute-demo/pwned
	demo_log "mode $mode: starting the service"
	echo "$mode" >/proc/sys/kernel/brute/mode
	# No ban from an earlier run: every run starts with an empty (user, target) table.
	echo flush >/sys/kernel/security/brute/lift
	# A fresh service for each run: new process, new canary, restart count 0.
	systemctl stop $DEMO_UNIT 2>/dev/null
	systemctl start $DEMO_UNIT || return 1
	wait_for 10 ip netns exec demo-srv sh -c "ss -Htln 'sport = :$DEMO_PORT' | grep -q ." ||
		return 1
	if [ -n "$4" ]; then
		hint=$4:$(demo_canary "$(systemctl show -P MainPID $DEMO_UNIT)") || return 1
	fi
	since=$(demo_now)
	echo "$since" >"$DEMO_OUT/since-$mode"
	demo_log "mode $mode: attack (at most $2 attempts, $3 s), a legitimate client beside it"
	log_offset=$(wc -c </var/log/audit/audit.log)
	ip netns exec demo-cli "$DEMO/brute-demo-benign" $DEMO_SRV_IP $DEMO_PORT $DEMO_BENIGN_IP 100 \
		"$DEMO_OUT/benign-$mode" &
	benign=$!
	start=$(date +%s.%N)
	ip netns exec demo-cli "$DEMO/brute-demo-client" $DEMO_SRV_IP $DEMO_PORT \
		"$canary_offset" "$ret_offset" "$target" "$2" "$3" $hint >"$DEMO_OUT/attack-$mode.log" 2>&1
	end=$(date +%s.%N)
	kill $benign
	wait $benign
	demo_log "mode $mode: attack over: $(tail -n 1 "$DEMO_OUT/attack-$mode.log")"
	sleep 1 # the last records reach auditd
	demo_log "mode $mode: results"
	result=$(grep '^RESULT ' "$DEMO_OUT/attack-$mode.log")
	nrestarts=$(systemctl show --value -p NRestarts $DEMO_UNIT)
	# What the kernel says about the service's hierarchies during the run: attacks on them
	# (the subject of BRUTE_ATTACK is the crashing server process), processes killed in them.
	# From what audit.log gained during the run: ausearch takes seconds on a busy TCG guest.
	[ "$(wc -c </var/log/audit/audit.log)" -ge "$log_offset" ] || log_offset=0 # rotated
	tail -c +$((log_offset + 1)) /var/log/audit/audit.log |
		awk -v t0="${start%.*}" -v t1="${end%.*}" '/^type=(UNKNOWN\[171[348]\]|BRUTE_ATTACK|BRUTE_KILL|BRUTE_PEER_BAN) / {
			t = $2; sub(/^msg=audit\(/, "", t); sub(/\..*/, "", t)
			if (t + 0 >= t0 && t + 0 <= t1 + 1) print }' |
		demo_kernel_part >"$DEMO_OUT/records-$mode"
	hs=$(grep "exe=\"$DEMO_SERVER\"" "$DEMO_OUT/records-$mode" | grep -v ' opid=' |
		sed -n 's/.* brute_hierarchy=\([0-9]*\) .*/\1/p' | sort -u | tr '\n' ' ')
	attacks=$(grep -E '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) ' "$DEMO_OUT/records-$mode" |
		grep -c "exe=\"$DEMO_SERVER\"")
	peer_bans=$(grep -E '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$DEMO_OUT/records-$mode" |
		grep -c "exe=\"$DEMO_SERVER\"")
	banned_peer=$(grep -E '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$DEMO_OUT/records-$mode" |
		head -n 1 | demo_field peer)
	kills=$(grep ' opid=' "$DEMO_OUT/records-$mode" | grep -c -F "$(printf 'brute_hierarchy=%s \n' $hs)")
	nullexe=$(grep ' opid=' "$DEMO_OUT/records-$mode" | grep -F "$(printf 'brute_hierarchy=%s \n' $hs)" |
		grep -c 'oexe=(null)')
	demo_log "mode $mode: results done"
	pwned=no
	[ -s /run/brute-demo/pwned ] && pwned=yes
	benign_sent=$(demo_field sent <"$DEMO_OUT/benign-$mode")
	benign_answered=$(demo_field answered <"$DEMO_OUT/benign-$mode")
	echo "DEMO-RESULT mode=$mode ${result#RESULT } marker=$pwned service_restarts=$nrestarts" \
		"attacks_detected=$attacks processes_killed=$kills peer_bans=$peer_bans" \
		"banned_peer=${banned_peer:-none} benign_sent=$benign_sent" \
		"benign_answered=$benign_answered" \
		"benign_t0=$(demo_field t0 <"$DEMO_OUT/benign-$mode")" \
		"benign_sent_s=$(demo_field sent_s <"$DEMO_OUT/benign-$mode")" \
		"benign_answered_s=$(demo_field answered_s <"$DEMO_OUT/benign-$mode")" \
		"killed_exe_null=$nullexe bound_attempts=$2 bound_seconds=$3" \
		"wall=$(echo "$end - $start" | awk '{ printf "%.1f", $1 - $3 }')"
}

demo_exec_attack() { # N
	install -o root -g root -m 4755 "$DEMO/brute-demo-suid" "$DEMO_SUID" || return 1
	echo "$(demo_now)" >"$DEMO_OUT/since-exec"
	demo_log "exec attack: uid $DEMO_ATTACKER runs $DEMO_SUID $1 times"
	crashes=0 refused=0 other=0 i=0
	: >"$DEMO_OUT/exec-attack.log"
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		head -c 200 /dev/zero | tr '\0' A | runas $DEMO_ATTACKER "$DEMO_SUID" >/dev/null 2>"$DEMO_OUT/exec.err"
		rc=$?
		case $rc in
		134) crashes=$((crashes + 1)) r="crashed (SIGABRT: stack smashing detected)" ;;
		127) if grep -q 'Operation not permitted' "$DEMO_OUT/exec.err"; then
			refused=$((refused + 1)) r="refused: $(cat "$DEMO_OUT/exec.err")"
		     else other=$((other + 1)) r="exit $rc: $(cat "$DEMO_OUT/exec.err")"; fi ;;
		*) other=$((other + 1)) r="exit $rc" ;;
		esac
		echo "attempt $i: $r" >>"$DEMO_OUT/exec-attack.log"
	done
	sleep 1 # the last records reach auditd
	echo "DEMO-EXEC crashes=$crashes refused=$refused other=$other attempts=$1"
}

demo_operator() {
	since=$(cat "$DEMO_OUT/since-2")
	ausearch -m 1713,1714,1718 -ts $since --raw 2>/dev/null | demo_kernel_part |
		grep -E '^type=(UNKNOWN\[171[348]\]|BRUTE_(ATTACK|KILL|PEER_BAN)) ' >"$DEMO_OUT/ausearch-2"
	# (No pipe that ends early: systemd's services ignore SIGPIPE, writers would complain.)
	h=$(awk -v exe="exe=\"$DEMO_SERVER\"" '!/ opid=/ && index($0, exe) { print; exit }' \
		"$DEMO_OUT/ausearch-2" | demo_field brute_hierarchy)
	echo "=== The audit trail: ausearch -m 1713,1714,1718 -ts $since"
	echo "$(grep -cE '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) ' "$DEMO_OUT/ausearch-2") attacks detected (BRUTE_ATTACK, 1713)," \
		"$(grep -cE '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$DEMO_OUT/ausearch-2") peers banned (BRUTE_PEER_BAN, 1718) and" \
		"$(grep -c ' opid=' "$DEMO_OUT/ausearch-2") processes killed (BRUTE_KILL, 1714); the service's:"
	grep "brute_hierarchy=$h " "$DEMO_OUT/ausearch-2" | demo_short
	echo
	echo "=== That incident, every record: ausearch -m 1710,1711,1712,1713,1714,1718 --raw | grep brute_hierarchy=$h"
	ausearch -m 1710,1711,1712,1713,1714,1718 --raw 2>/dev/null | grep "brute_hierarchy=$h " | demo_short
	echo
	echo "=== The peers the service refuses: cat /sys/kernel/security/brute/peers"
	cat /sys/kernel/security/brute/peers
	echo
	echo "=== The journal: journalctl -u brute-reportd   (that incident's entries)"
	journalctl -u brute-reportd.service -o short-precise --no-pager -q 2>/dev/null |
		grep "hierarchy $h\b"
	echo "($(journalctl -u brute-reportd.service -o cat --no-pager -q 2>/dev/null |
		grep -c 'brute force attack detected') attack alerts in the journal in all)"
	echo
	echo "=== The SIEM: what rsyslog received on 127.0.0.1:6514 ($SIEM_LOG)   (that incident)"
	wait_for 10 grep -q "\"$h\"" "$SIEM_LOG"
	grep "\"$h\"" "$SIEM_LOG"
	echo "($(wc -l <"$SIEM_LOG") messages received in all)"
	[ -f "$DEMO_OUT/since-exec" ] || return 0
	since=$(cat "$DEMO_OUT/since-exec")
	echo
	echo "=== The exec attack on $DEMO_SUID: ausearch -m 1713,1716 -ts $since -i"
	ausearch -m 1713,1716 -ts $since -i 2>/dev/null | grep -v '^----' | demo_short
	echo
	echo "=== The ban: brutectl list --bans"
	brutectl list --bans 2>&1 || cat /sys/kernel/security/brute/targets
	echo
	echo "=== The journal: journalctl -u brute-reportd   (the ban)"
	journalctl -u brute-reportd.service -o short-precise --no-pager -q 2>/dev/null |
		grep -i 'ban' | tail -n 3
	echo
	echo "=== The SIEM: the ban alert"
	wait_for 10 grep -qi 'ban' "$SIEM_LOG"
	grep -i 'ban' "$SIEM_LOG" | tail -n 2
}

demo_teardown() {
	demo_log "teardown"
	systemctl stop $DEMO_UNIT 2>/dev/null
	rm -f /run/systemd/system/$DEMO_UNIT "$DEMO_SERVER" "$DEMO_SUID" /etc/rsyslog.d/60-brute-siem.conf
	echo flush >/sys/kernel/security/brute/lift
	[ -f "$DEMO_OUT/reportd.conf.orig" ] &&
		cp -p "$DEMO_OUT/reportd.conf.orig" /etc/brute/reportd.conf
	systemctl --no-block restart rsyslog.service
	systemctl --no-block reload-or-restart brute-reportd.service
	ip netns del demo-srv 2>/dev/null
	ip netns del demo-cli 2>/dev/null
	echo 2 >/proc/sys/kernel/brute/mode
	demo_log "teardown done"
}
