#!/bin/sh
# The demo (README.md, `make demo`, tests/demo/): a forking TCP service with a stack buffer
# overflow, run by systemd with Restart=always in a network namespace, attacked across a veth
# pair by a client that recovers its stack canary byte by byte, while a legitimate client asks
# the service something every 100 ms from another address.  With Brute off (mode 0) the
# attack reaches the service's pwned(); with Brute on (mode 2) the attacker's address is
# banned from the service after a few crashes, its connection requests are dropped, the attack
# does not complete, and the service and its legitimate client go on as if nothing happened.
# Shortened here: the client is given canary bytes 1-6 and recovers the 7th, and the attack
# with Brute on lasts at most 20 s.  `make demo` boots with rig.demo=full: the whole canary,
# longer bounds, and the transcripts and the operator's view as "# demo| " diagnostics, which
# tests/demo/run-demo.py prints.
. "$RIG/tap.sh"
DEMO=${RIG%/rig}/demo
. "$DEMO/demo.sh"

full=
grep -qw 'rig.demo=full' /proc/cmdline && full=1
if [ -n "$full" ]; then
	off_bounds="3000 150" on_bounds="3000 120"
else
	# Shortened: the client is given canary bytes 1-6 (read from the server's memory), so it
	# guesses one byte (at most 256 crashes, ~60 ms each under TCG) before the takeover.
	off_bounds="3000 30 6" on_bounds="3000 20"
fi
show() { sed 's/^/# demo| /'; } # diagnostics the host prints in `make demo`

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled"
	exit 0
fi
if ! out=$(demo_setup 2>&1); then
	not_ok "demo set-up: namespaces, veth, service, rsyslog SIEM, brute-reportd" "$out"
	demo_teardown >/dev/null 2>&1
	exit 0
fi
ok "demo set-up: namespaces, veth, service, rsyslog SIEM, brute-reportd"

# --- Brute off: the attack succeeds.
r0=$(demo_attack 0 $off_bounds)
[ -n "$full" ] && { echo "=== Brute off (mode=0): the attack"; cat "$DEMO_OUT/attack-0.log"; } | show
diag "$r0"
if [ "$(echo "$r0" | demo_field outcome)" = pwned ] && [ "$(echo "$r0" | demo_field marker)" = yes ]
then
	ok "mode 0: canary recovered, control reached (PWNED)"
else
	not_ok "mode 0: canary recovered, control reached (PWNED)" "$(tail -n 5 "$DEMO_OUT/attack-0.log")"
fi

# --- Brute on: the attacker is banned from the service, which lives.
r2=$(demo_attack 2 $on_bounds)
if [ -n "$full" ]; then
	{
		echo "=== Brute on (mode=2): the same attack"
		if [ "$(wc -l <"$DEMO_OUT/attack-2.log")" -gt 24 ]; then
			head -n 16 "$DEMO_OUT/attack-2.log"
			echo "[... $(($(wc -l <"$DEMO_OUT/attack-2.log") - 22)) lines ...]"
			tail -n 6 "$DEMO_OUT/attack-2.log"
		else
			cat "$DEMO_OUT/attack-2.log"
		fi
	} | show
fi
diag "$r2"
if [ "$(echo "$r2" | demo_field outcome)" = stopped ] && [ "$(echo "$r2" | demo_field marker)" = no ]
then
	ok "mode 2: the attack did not complete ($(echo "$r2" | demo_field attempts) attempts, $(echo "$r2" | demo_field seconds) s)"
else
	not_ok "mode 2: the attack did not complete" "$(tail -n 5 "$DEMO_OUT/attack-2.log")"
fi
demo_log "checks: audit records, systemd, SIEM"
pban=$(grep -E '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$DEMO_OUT/records-2" | head -n 1)
if echo "$pban" | grep -q "peer=$DEMO_CLI_IP/32 .* transport=tcp laddr=0.0.0.0 lport=$DEMO_PORT faults=5 " &&
	[ "$(echo "$r2" | demo_field banned)" = yes ]; then
	ok "mode 2: the attacker's address is banned from the service (BRUTE_PEER_BAN), its requests dropped"
	diag "$pban"
else
	not_ok "mode 2: the attacker's address is banned from the service (BRUTE_PEER_BAN), its requests dropped" \
		"$r2" "$(tail -n 4 "$DEMO_OUT/records-2")"
fi
if [ "$(echo "$r2" | demo_field service_restarts)" = 0 ] &&
	[ "$(echo "$r2" | demo_field processes_killed)" = 0 ] &&
	systemctl is-active --quiet $DEMO_UNIT; then
	ok "mode 2: the service was neither killed nor restarted"
else
	not_ok "mode 2: the service was neither killed nor restarted" "$r2" \
		"$(journalctl -u $DEMO_UNIT -o cat --no-pager | tail -n 4)"
fi
sent=$(echo "$r2" | demo_field benign_sent)
answered=$(echo "$r2" | demo_field benign_answered)
if [ "${sent:-0}" -gt 0 ] && [ $((answered * 100)) -ge $((sent * 99)) ]; then
	ok "mode 2: the legitimate client got $answered of $sent answers during the attack (>= 99 %)"
else
	not_ok "mode 2: the legitimate client got >= 99 % of its answers during the attack" \
		"answered $answered of $sent"
fi
# Brute's entries show up under the attacked service's unit too (OBJECT_SYSTEMD_UNIT, _UID=0),
# as systemd-coredump's do: `journalctl -u brute-demo-server.service` has the attack.
in_unit() {
	journalctl -u $DEMO_UNIT -o json --no-pager 2>/dev/null | grep '"SYSLOG_IDENTIFIER":"brute-reportd"' |
		grep '"MESSAGE_ID":"72daa15b2f794fafa7bedff6fcaee907"' | grep -q "\"BRUTE_UNIT\":\"$DEMO_UNIT\""
}
if wait_for 10 in_unit; then
	ok "journalctl -u $DEMO_UNIT shows brute-reportd's attack entry (OBJECT_SYSTEMD_UNIT)"
	diag "$(journalctl -u $DEMO_UNIT -o cat --no-pager SYSLOG_IDENTIFIER=brute-reportd | head -n 1)"
else
	not_ok "journalctl -u $DEMO_UNIT shows brute-reportd's attack entry (OBJECT_SYSTEMD_UNIT)" \
		"$(journalctl -u brute-reportd -o export --no-pager MESSAGE_ID=72daa15b2f794fafa7bedff6fcaee907 | grep -E '^(OBJECT_|BRUTE_(UNIT|PID|EXE)=)' | tail -n 8)"
fi
# a service never went through a login: its audit IDs read "unset", not 4294967295
ae=$(journalctl -u $DEMO_UNIT -o json --no-pager SYSLOG_IDENTIFIER=brute-reportd \
	MESSAGE_ID=72daa15b2f794fafa7bedff6fcaee907 2>/dev/null | head -n 1)
if echo "$ae" | grep -q '"BRUTE_AUID":"unset"' && echo "$ae" | grep -q '"BRUTE_SES":"unset"' &&
	! echo "$ae" | grep -q 4294967295 && echo "$ae" | grep -q 'auid unset'; then
	ok "the service's unset login uid and session read \"unset\" in the attack entry"
else
	not_ok "the service's unset login uid and session read \"unset\" in the attack entry" "$ae"
fi
if wait_for 10 grep -q 'brute force attack detected' "$SIEM_LOG"; then
	ok "the SIEM (rsyslog on 127.0.0.1:6514) received the attack alert"
else
	not_ok "the SIEM (rsyslog on 127.0.0.1:6514) received the attack alert" \
		"$(tail -n 3 "$SIEM_LOG" 2>&1)" "$(journalctl -u brute-reportd -o cat --no-pager | tail -n 3)"
fi
# The peer ban: brute-reportd's entry (its own MESSAGE_ID) with the peer, and the SIEM's alert
# carrying the address a firewall would block.
pban_entry() {
	journalctl -u brute-reportd -o json --no-pager MESSAGE_ID=79ecec051cb34c3a91486f64fd349085 2>/dev/null |
		grep "\"BRUTE_PEER\":\"$DEMO_CLI_IP/32\"" | grep -q '"BRUTE_TRANSPORT":"tcp"'
}
if wait_for 10 pban_entry; then
	ok "the journal has brute-reportd's peer ban entry for $DEMO_CLI_IP/32"
	diag "$(journalctl -u brute-reportd -o cat --no-pager MESSAGE_ID=79ecec051cb34c3a91486f64fd349085 | head -n 1)"
else
	not_ok "the journal has brute-reportd's peer ban entry for $DEMO_CLI_IP/32" \
		"$(journalctl -u brute-reportd -o export --no-pager MESSAGE_ID=79ecec051cb34c3a91486f64fd349085 | grep -E '^BRUTE_(PEER|TRANSPORT)=' | tail -n 4)"
fi
if wait_for 10 grep -qi "peer $DEMO_CLI_IP/32 banned from tcp" "$SIEM_LOG"; then
	ok "the SIEM received the peer ban alert (peer $DEMO_CLI_IP/32)"
else
	not_ok "the SIEM received the peer ban alert (peer $DEMO_CLI_IP/32)" "$(grep -i peer "$SIEM_LOG" | tail -n 3)"
fi

# --- An exec attack: a local user runs a set-user-ID program again and again with an input
# that smashes its canary; after min_faults (5) crashes the user is banned from it.
rx=$(demo_exec_attack 12)
[ -n "$full" ] && { echo "=== An exec attack by uid 1001 on the set-user-ID $DEMO_SUID"; cat "$DEMO_OUT/exec-attack.log"; } | show
diag "$rx"
if [ "$(echo "$rx" | demo_field crashes)" = 5 ] && [ "$(echo "$rx" | demo_field refused)" = 7 ]; then
	ok "exec attack on a set-user-ID program: 5 crashes, then execve() refused (banned)"
else
	not_ok "exec attack on a set-user-ID program: 5 crashes, then execve() refused (banned)" \
		"$(cat "$DEMO_OUT/exec-attack.log")"
fi
ban=$(ausearch -m 1716 --raw 2>/dev/null | grep "attacker_uid=$DEMO_ATTACKER .*target_name=\"brute-demo-suid\"")
if [ -n "$ban" ]; then
	ok "BRUTE_BAN record for uid $DEMO_ATTACKER on brute-demo-suid"
else
	not_ok "BRUTE_BAN record for uid $DEMO_ATTACKER on brute-demo-suid" "$(ausearch -m 1713,1716 --raw 2>&1 | tail -n 3)"
fi
if wait_for 10 sh -c "journalctl -u brute-reportd -o cat --no-pager | grep -i 'ban' | grep -q 'brute-demo-suid'"; then
	ok "the journal has brute-reportd's ban entry"
else
	not_ok "the journal has brute-reportd's ban entry" "$(journalctl -u brute-reportd -o cat --no-pager | tail -n 3)"
fi
if wait_for 10 grep -q 'brute-demo-suid' "$SIEM_LOG"; then
	ok "the SIEM received the ban alert"
else
	not_ok "the SIEM received the ban alert" "$(tail -n 3 "$SIEM_LOG" 2>&1)"
fi

if [ -n "$full" ]; then
	demo_log "the operator's view"
	{ echo "$r0"; echo "$r2"; } | show
	demo_operator 2>&1 | show
fi
demo_teardown >/dev/null 2>&1
exit 0
