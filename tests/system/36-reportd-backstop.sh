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
