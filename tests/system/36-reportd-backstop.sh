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
BS_ORIG=/run/reportd-bs.conf.orig
. "$(dirname "$0")/backstop.inc"

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

# --- 3. backstop_hold_s: the workers killed, the master held; its reload executes it again ----
# The kernel kills what the master forked and holds the master (its socket stays open, it forks
# nothing) for a restart (mitigation=restart); brute-reportd reloads the unit (backstop_reload),
# the master executes itself again, same pid, a fresh layout, and serves: no outage, no kill.
S=brute-bs4.service
if [ ! -e $B/backstop_hold_s ]; then
	ok "# SKIP backstop_hold_s: the kernel has none"
elif pid=$(up $S); then
	echo 10 >$B/backstop_hold_s
	conf "journal = yes" "backstop_reload = $S"
	systemctl reload brute-reportd
	l=$(($(wc -l <$AUDIT_LOG) + 1))
	out=$($st/client -t 3000 -c 4 -r crash unix /run/brute-bs4.sock)
	a=$(attack_of "$l" "$pid")
	if [ -n "$a" ] && echo "$a" | grep -q ' speed=fast .* mitigation=restart ' && ! killed "$l" "$pid" &&
		wait_for 20 said "$S reloaded after Brute's backstop"; then
		ok "fast backstop with a hold: $S's master held (1713 speed=fast mitigation=restart, not killed), reloaded by brute-reportd ($out)"
	else
		bad "fast backstop with a hold: $S's master held, reloaded by brute-reportd" "client: $out" \
			"attack: $a" "$(since "$l" | grep -aE '1713|1714|BRUTE_ATTACK|BRUTE_KILL' | tail -n 3)" "$(dlog | tail -n 5)"
	fi
	out=$($st/client -c 2 unix /run/brute-bs4.sock)
	if [ "$out" = "answered 2 crashed 0 refused 0" ] && [ "$(mainpid $S)" = "$pid" ] &&
		[ "$(state $S)" = active ] && ! killed "$l" "$pid"; then
		ok "$S serves again from the same master, executed again (main pid $pid, $out), never killed"
	else
		bad "$S serves again from the same master" "client: $out" \
			"state: $(state $S), main pid $(mainpid $S) (was $pid)" "$(since "$l" | grep -aE '1714|BRUTE_KILL' | tail -n 2)"
	fi
	echo 0 >$B/backstop_hold_s
	conf "journal = yes"
	systemctl reload brute-reportd
else
	bad "$S started" "$(systemctl status --no-pager $S 2>&1 | tail -n 8)"
fi
t "hold done"

# --- 4. the same hold, a unit whose reload keeps its image and that has no Restart= -------------
# (Debian's nginx.service): brute-reportd kills what the kernel holds, the unit's main process
# (KillUnit main, SIGKILL: a stop could wait for a master that cannot fork; never the unit's other
# processes) and starts the unit again: a new main process.
S=brute-bs3.service
if [ ! -e $B/backstop_hold_s ]; then
	ok "# SKIP backstop_hold_s: the kernel has none"
elif pid=$(up $S); then
	echo 10 >$B/backstop_hold_s
	l=$(($(wc -l <$AUDIT_LOG) + 1))
	out=$($st/client -t 3000 -c 4 -r crash unix /run/brute-bs3.sock)
	a=$(attack_of "$l" "$pid")
	if [ -n "$a" ] && echo "$a" | grep -q ' speed=fast .* mitigation=restart ' &&
		wait_for 20 back $S "$pid" && said "killing the main process (pid $pid) of $S, which Brute's backstop holds for a restart" &&
		said "$S started again after Brute's backstop"; then
		ok "held $S, not in backstop_reload and without Restart=: killed by brute-reportd and started again (main pid $pid -> $(mainpid $S), $out)"
	else
		bad "held $S killed by brute-reportd and started again" "client: $out" "attack: $a" \
			"state: $(state $S), main pid $(mainpid $S) (was $pid)" "$(dlog | tail -n 5)"
	fi
	out=$($st/client -c 1 unix /run/brute-bs3.sock)
	[ "$out" = "answered 1 crashed 0 refused 0" ] && ok "$S serves again ($out)" ||
		bad "$S serves again" "client: $out"
	echo 0 >$B/backstop_hold_s
else
	bad "$S started" "$(systemctl status --no-pager $S 2>&1 | tail -n 8)"
fi
t "hold of a unit that does not reload done"

# --- clean up for later scripts ---------------------------------------------------------------
cleanup
restore_tunables
if [ -f /run/reportd-bs.conf.orig ]; then
	cp -p /run/reportd-bs.conf.orig /etc/brute/reportd.conf
else
	rm -f /etc/brute/reportd.conf
fi
systemctl --no-block stop brute-reportd.service
t "done"
exit 0
