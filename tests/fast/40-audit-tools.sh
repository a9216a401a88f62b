#!/bin/sh
# The audit tools on real Brute records: an exec attack on a set-user-ID program run by
# uid 1000 in a login session of its own, a tunable change and (v3 kernels) peers banned
# from a service, uid 1000 over a Unix socket and an address over TCP, then the queries an
# operator makes. The guest's auditd, ausearch and aureport are built from
# userspace/audit/*.patch (scripts/audit-pkgs.sh); the stock 3.0.9 tools, with the stock
# libraries, are in /opt/audit-stock and run on the same records as a stock auditd writes
# them (type=UNKNOWN[N], no enrichment) so that docs/audit-records.md says exactly what
# works without the patches.
. "$RIG/tap.sh"

st=/selftests
if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled"
	exit 0
fi
# The exec attack below is killed and banned in mode 2 only: a script before this one that
# stopped half-way (a timeout) may have left another mode.
m=$(cat /proc/sys/kernel/brute/mode)
if [ "$m" != 2 ]; then
	diag "brute mode was $m, set to 2"
	echo 2 >/proc/sys/kernel/brute/mode
fi
stock() { LD_LIBRARY_PATH=/opt/audit-stock/lib "/opt/audit-stock/bin/$@"; }
field() { sed -n "s/^\([^$(printf '\035')]*\) $1=\([^ $(printf '\035')]*\).*/\2/p" | head -n 1; }

# The patched tools are the ones on PATH.
if ! ausearch --start now -m BRUTE_ATTACK 2>&1 | grep -q "Valid message types"; then
	ok "ausearch knows BRUTE_ATTACK (patched tools installed)"
else
	not_ok "ausearch knows BRUTE_ATTACK (patched tools installed)" "$(ausearch --start now -m BRUTE_ATTACK 2>&1 | head -c 200)"
fi

# --- The attack: /tmp/t40victim (set-user-ID root, crashes), driven by a copy of the
# selftests' attacker in a directory whose name has a space (its oexe is hex-encoded), by
# uid 1000 with login uid 1000 and a fresh session.
victim=/tmp/t40victim
since="$(LC_ALL=C date +%x) $(date +%T)" # this test's records only (-ts MM/DD/YY HH:MM:SS)
# Every query of the live log starts there (-ts): after the other scripts' storms the log
# holds tens of thousands of records, which ausearch would parse for each query.
T="-ts $since"
t0=$(date +%s)
drvdir="/tmp/t40 dir"
mkdir -p "$drvdir"
cp $st/crasher $victim && chmod 4755 $victim
cp $st/attacker "$drvdir/driver"
sh -c 'echo 1000 >/proc/self/loginuid && cat /proc/self/sessionid >/tmp/t40.ses &&
	exec runas 1000 "$0" exec 12 "$1" segv' "$drvdir/driver" $victim >/dev/null 2>&1
rc=$?
ses=$(cat /tmp/t40.ses 2>/dev/null)
echo 6 >/proc/sys/kernel/brute/min_faults
echo 5 >/proc/sys/kernel/brute/min_faults
sleep 1
a=$(ausearch $T --raw -m BRUTE_ATTACK -x $victim 2>/dev/null | grep '^type=BRUTE_ATTACK ' | tail -n 1)
if [ $rc -ne 137 ] || [ -z "$a" ] || [ -z "$ses" ]; then
	not_ok "exec attack on $victim detected, driver killed" "exit $rc, session '$ses'" \
		"$(ausearch $T --raw -m BRUTE_ATTACK 2>&1 | tail -n 2)"
	exit 0
fi
ok "exec attack on $victim detected, driver killed (session $ses)"
h=$(echo "$a" | field brute_hierarchy)
pid=$(echo "$a" | field pid)
k=$(ausearch $T --raw -m BRUTE_KILL 2>/dev/null | grep "^type=BRUTE_KILL .*brute_hierarchy=$h opid=" | tail -n 1)
opid=$(echo "$k" | field opid)
diag "attack hierarchy $h, crashing pid $pid, killed driver pid $opid"

# --- Names, field searches and interpretation (patched tools, the live log)
out=$(ausearch $T -m BRUTE_ATTACK -x $victim -i 2>&1)
if echo "$out" | grep -q "^type=BRUTE_ATTACK .* brute_mode=mitigate .* uid=brute .* exe=$victim"; then
	ok "ausearch -m BRUTE_ATTACK -x $victim -i"
else
	not_ok "ausearch -m BRUTE_ATTACK -x $victim -i" "$out"
fi
for q in "-p $pid" "-ui 1000" "-ua 1000" "-ul 1000" "--session $ses" "-c t40victim" "-ue 0" \
	"-x $victim -ui brute --start recent"; do
	if ausearch $T -m BRUTE_ATTACK $q --raw 2>/dev/null | grep -q "brute_hierarchy=$h "; then
		ok "ausearch -m BRUTE_ATTACK $q finds the attack"
	else
		not_ok "ausearch -m BRUTE_ATTACK $q finds the attack"
	fi
done
for q in "-p 1" "-ui 0" "-x /bin/busybox" "--session 4294967295"; do
	if ausearch $T -m BRUTE_ATTACK $q --raw 2>/dev/null | grep -q "brute_hierarchy=$h "; then
		not_ok "ausearch -m BRUTE_ATTACK $q does not find the attack"
	else
		ok "ausearch -m BRUTE_ATTACK $q does not find the attack"
	fi
done
out=$(ausearch $T -m BRUTE_KILL -p "$opid" -i 2>&1)
if [ -n "$opid" ] && echo "$out" | grep -q "opid=$opid ouid=brute oauid=brute oses=$ses ocomm=driver oexe=$drvdir/driver"; then
	ok "ausearch -m BRUTE_KILL -p OPID -i: the killed driver, oexe decoded"
else
	not_ok "ausearch -m BRUTE_KILL -p OPID -i: the killed driver, oexe decoded" "$k" "$out"
fi
if ausearch $T -m BRUTE_KILL -x "$drvdir/driver" -ua 1000 --raw 2>/dev/null | grep -q "opid=$opid "; then
	ok "ausearch -m BRUTE_KILL -x 'DIR WITH SPACE/driver' -ua 1000"
else
	not_ok "ausearch -m BRUTE_KILL -x 'DIR WITH SPACE/driver' -ua 1000"
fi
out=$(ausearch $T -m BRUTE_BOUNDARY -x $victim -i 2>&1 | grep '^type=BRUTE_BOUNDARY' | tail -n 1)
if echo "$out" | grep -q "boundary=setid old_uid=brute old_euid=brute .* new_uid=brute new_euid=root "; then
	ok "ausearch -m BRUTE_BOUNDARY -i: old_* and new_* ids interpreted"
else
	not_ok "ausearch -m BRUTE_BOUNDARY -i: old_* and new_* ids interpreted" "$out"
fi

# --- ausearch -k brute: the keyed syscalls and every Brute record
out=$(ausearch -k brute --start recent --raw 2>/dev/null)
missing=
for t in BRUTE_HIERARCHY BRUTE_BOUNDARY BRUTE_CRASH BRUTE_ATTACK BRUTE_KILL BRUTE_CONFIG; do
	echo "$out" | grep -q "^type=$t " || missing="$missing $t"
done
if [ -z "$missing" ] && echo "$out" | grep -q "^type=BRUTE_ATTACK .*brute_hierarchy=$h "; then
	ok "ausearch -k brute --start recent: every record type, the attack included"
else
	not_ok "ausearch -k brute --start recent: every record type, the attack included" "missing:$missing"
fi
if ausearch $T -k brute -m BRUTE_CONFIG -i 2>/dev/null | grep -q "tunable=min_faults old=6 new=5"; then
	ok "ausearch -k brute -m BRUTE_CONFIG finds the tunable change"
else
	not_ok "ausearch -k brute -m BRUTE_CONFIG finds the tunable change"
fi

# --- aureport --anomaly (since this test started: the other tests' crash storms are no
# business of this check)
out=$(LC_ALL=C aureport $T --anomaly -i 2>&1)
if echo "$out" | grep -q "BRUTE_ATTACK $victim (none) ? brute " &&
	echo "$out" | grep -q "BRUTE_KILL $drvdir/driver ? ? brute " &&
	echo "$out" | grep -q "BRUTE_CRASH $victim " &&
	! echo "$out" | grep -q -e '(null)' -e BRUTE_BOUNDARY -e BRUTE_HIERARCHY -e BRUTE_CONFIG; then
	ok "aureport --anomaly -i: crash, attack and kill lines read well"
	echo "$out" | grep -e "BRUTE_ATTACK $victim" -e "BRUTE_KILL $drvdir" | tail -n 2 |
		while read -r line; do diag "$line"; done
else
	not_ok "aureport --anomaly -i: crash, attack and kill lines read well"
	echo "$out" | grep -e '(null)' -e BRUTE_BOUNDARY -e BRUTE_HIERARCHY -e BRUTE_CONFIG | tail -n 6 |
		while read -r line; do diag "$line"; done
	echo "$out" | grep -e "BRUTE_.* $victim" -e "BRUTE_KILL $drvdir" | tail -n 4 |
		while read -r line; do diag "$line"; done

fi

# --- v2 kernels: the ban, and its end when root lifts it
if [ -e /sys/kernel/security/brute/lift ]; then
	out=$(ausearch $T -m BRUTE_BAN -x $victim -ui 1000 -i 2>&1)
	if echo "$out" | grep -q "attacker_uid=brute .* target_name=t40victim ban_s=[0-9]* brute_hierarchy=[0-9]* .* uid=brute .* exe=$victim"; then
		ok "ausearch -m BRUTE_BAN -x $victim -ui 1000 -i"
	else
		not_ok "ausearch -m BRUTE_BAN -x $victim -ui 1000 -i" "$out"
	fi
	if aureport $T --anomaly -i 2>&1 | grep -q "BRUTE_BAN $victim (none) ? brute "; then
		ok "aureport --anomaly -i lists the ban"
	else
		not_ok "aureport --anomaly -i lists the ban"
	fi
	b=$(ausearch $T --raw -m BRUTE_BAN -x $victim 2>/dev/null | grep '^type=BRUTE_BAN ' | tail -n 1)
	echo "1000 $(echo "$b" | field target_dev) $(echo "$b" | field target_ino)" \
		>/sys/kernel/security/brute/lift
	sleep 0.5
	out=$(ausearch $T -m BRUTE_UNBAN -ui 0 -k brute -i 2>&1)
	if echo "$out" | grep -q "attacker_uid=brute .* target_name=t40victim reason=lifted denied=[0-9]* .* uid=root "; then
		ok "ausearch -m BRUTE_UNBAN -ui 0 -k brute -i: root lifted the ban"
	else
		not_ok "ausearch -m BRUTE_UNBAN -ui 0 -k brute -i: root lifted the ban" "$b" "$out"
	fi
else
	skip "ausearch -m BRUTE_BAN, BRUTE_UNBAN" "kernel without bans (no /sys/kernel/security/brute/lift)"
fi

# --- v3 kernels: the user behind an exec chain, and peers banned from an endpoint: a root
# service on a Unix socket attacked by uid 1000 (its ban expires after 3 s: an unban with
# no subject), then on TCP in a network namespace, attacked from another one (root lifts
# that ban).
v3=
[ -e /proc/sys/kernel/brute/peer_ban_time_s ] && v3=1
if [ -n "$v3" ]; then
	out=$(ausearch $T -m BRUTE_BOUNDARY -x $victim -i 2>&1 | grep '^type=BRUTE_BOUNDARY .*boundary=setid' | tail -n 1)
	if echo "$out" | grep -q " owner_uid=brute attacker_uid=brute "; then
		ok "ausearch -m BRUTE_BOUNDARY -i: owner_uid and attacker_uid interpreted"
	else
		not_ok "ausearch -m BRUTE_BOUNDARY -i: owner_uid and attacker_uid interpreted" "$out"
	fi
	echo flush >/sys/kernel/security/brute/lift
	echo 3 >/proc/sys/kernel/brute/peer_ban_time_s
	$st/service unix /tmp/t40.sock >/tmp/t40svc.out 2>&1 &
	svc=$!
	wait_for 10 grep -q listening /tmp/t40svc.out
	out=$($st/client -u 1000 -c 6 -r crash unix /tmp/t40.sock)
	kill $svc; wait $svc 2>/dev/null
	ub=$(ausearch $T --raw -m BRUTE_PEER_BAN 2>/dev/null |
		grep '^type=BRUTE_PEER_BAN .* peer=uid:1000 peer_uid=1000 ' | tail -n 1)
	if [ "$out" = "answered 0 crashed 5 refused 1" ] && [ -n "$ub" ]; then
		ok "unix peer: uid 1000 banned from a root service, type=BRUTE_PEER_BAN"
	else
		not_ok "unix peer: uid 1000 banned from a root service, type=BRUTE_PEER_BAN" \
			"client: $out" "$(ausearch $T --raw -m 1718 2>&1 | tail -n 2)"
	fi
	uh=$(echo "$ub" | field brute_hierarchy)
	out=$(ausearch $T -m BRUTE_PEER_BAN -ui 1000 -x $st/service -i 2>&1 | grep "brute_hierarchy=$uh ")
	if [ -n "$uh" ] && echo "$out" | grep -q "peer=uid:1000 peer_uid=brute netns=[0-9]* transport=unix lino=[0-9]* lpath=[^ ]* faults=5 ban_s=3 .* uid=root .* exe=$st/service"; then
		ok "ausearch -m BRUTE_PEER_BAN -ui 1000 -x SERVICE -i: the peer's uid, interpreted"
	else
		not_ok "ausearch -m BRUTE_PEER_BAN -ui 1000 -x SERVICE -i: the peer's uid, interpreted" "$ub" "$out"
	fi
	if ausearch $T -m BRUTE_PEER_BAN -ui 0 --raw 2>/dev/null | grep -q "peer=uid:1000 "; then
		not_ok "ausearch -m BRUTE_PEER_BAN -ui 0 (the service's user) does not find the peer's ban"
	else
		ok "ausearch -m BRUTE_PEER_BAN -ui 0 (the service's user) does not find the peer's ban"
	fi
	wait_for 15 sh -c "ausearch $T --raw -m BRUTE_PEER_UNBAN 2>/dev/null | grep -q 'peer=uid:1000 .*reason=expired'"
	# Two bans end: the endpoint's, which counted the refusal, and the layout's (layout=).
	uu=$(ausearch $T -m BRUTE_PEER_UNBAN -ui 1000 --raw 2>/dev/null |
		grep '^type=BRUTE_PEER_UNBAN .*peer=uid:1000 .*reason=expired' | grep -v ' layout=' |
		tail -n 1)
	out=$(ausearch $T -m BRUTE_PEER_UNBAN -ui 1000 -i 2>&1 | grep 'reason=expired' |
		grep -v ' layout=' | tail -n 1)
	if [ -n "$uu" ] && ! echo "$uu" | sed "s/$(printf '\035').*//" | grep -q ' uid=' &&
		echo "$out" | grep -q "peer=uid:1000 peer_uid=brute .*transport=unix .*reason=expired refused=[1-9]"; then
		ok "ausearch -m BRUTE_PEER_UNBAN -ui 1000 -i: the expired ban (no subject) by its peer_uid"
	else
		not_ok "ausearch -m BRUTE_PEER_UNBAN -ui 1000 -i: the expired ban (no subject) by its peer_uid" \
			"$uu" "$out" "$(ausearch $T --raw -m 1719 2>&1 | tail -n 2)"
	fi
	out=$(ausearch $T -k brute -m BRUTE_BOUNDARY,BRUTE_PEER_BAN,BRUTE_PEER_UNBAN --raw 2>/dev/null)
	if echo "$out" | grep -q "^type=BRUTE_BOUNDARY .*brute_hierarchy=$uh boundary=unix " &&
		echo "$out" | grep -q "^type=BRUTE_PEER_BAN .*brute_hierarchy=$uh " &&
		echo "$out" | grep -q "^type=BRUTE_PEER_UNBAN .*peer=uid:1000 .*reason=expired"; then
		ok "ausearch -k brute finds the unix boundary (in an unkeyed read), the peer ban and its end"
	else
		not_ok "ausearch -k brute finds the unix boundary (in an unkeyed read), the peer ban and its end" \
			"$(echo "$out" | grep -e "brute_hierarchy=$uh " -e 'peer=uid:1000 ' | cut -c1-160)"
	fi

	echo 900 >/proc/sys/kernel/brute/peer_ban_time_s
	ip() { if [ -x /sbin/ip ]; then /sbin/ip "$@"; else command ip "$@"; fi; }
	ip netns del t40_srv 2>/dev/null; ip netns del t40_cli 2>/dev/null
	if ip netns add t40_srv && ip netns add t40_cli &&
		ip link add t40a netns t40_srv type veth peer name t40b netns t40_cli &&
		ip -n t40_srv addr add 10.198.0.1/24 dev t40a && ip -n t40_cli addr add 10.198.0.2/24 dev t40b &&
		ip -n t40_srv link set t40a up && ip -n t40_cli link set t40b up &&
		ip -n t40_srv link set lo up && ip -n t40_cli link set lo up; then
		$st/service -n /run/netns/t40_srv tcp 10.198.0.1:7778 >/tmp/t40svc.out 2>&1 &
		svc=$!
		wait_for 10 grep -q listening /tmp/t40svc.out
		out=$($st/client -n /run/netns/t40_cli -c 7 -r crash tcp 10.198.0.1:7778)
		tb=$(ausearch $T --raw -m BRUTE_PEER_BAN 2>/dev/null |
			grep '^type=BRUTE_PEER_BAN .* peer=10.198.0.2/32 ' | tail -n 1)
		th=$(echo "$tb" | field brute_hierarchy)
		if [ "$out" = "answered 0 crashed 5 refused 2" ] && [ -n "$th" ]; then
			ok "tcp peer: 10.198.0.2 banned, type=BRUTE_PEER_BAN"
		else
			not_ok "tcp peer: 10.198.0.2 banned, type=BRUTE_PEER_BAN" "client: $out" \
				"$(ausearch $T --raw -m 1718 2>&1 | tail -n 2)"
		fi
		out=$(ausearch $T -hn 10.198.0.2/32 -w --raw 2>/dev/null | grep "brute_hierarchy=$th ")
		if [ "$(echo "$out" | grep -c '^type=BRUTE_CRASH .* peer=10.198.0.2/32 ')" = 5 ] &&
			echo "$out" | grep -q '^type=BRUTE_ATTACK .*attack=peer peer=10.198.0.2/32 ' &&
			echo "$out" | grep -q '^type=BRUTE_PEER_BAN .* peer=10.198.0.2/32 '; then
			ok "ausearch -hn 10.198.0.2/32 -w: the peer's 5 crashes, its attack and its ban"
		else
			not_ok "ausearch -hn 10.198.0.2/32 -w: the peer's 5 crashes, its attack and its ban" "$out"
		fi
		out=$(ausearch $T -m BRUTE_PEER_BAN -hn 10.198.0.2 -x $st/service -i 2>&1 | grep "brute_hierarchy=$th ")
		if echo "$out" | grep -q "peer=10.198.0.2/32 netns=[0-9]* transport=tcp laddr=10.198.0.1 lport=7778 faults=5 ban_s=900 "; then
			ok "ausearch -m BRUTE_PEER_BAN -hn ADDR -i: transport=tcp, lport a number"
		else
			not_ok "ausearch -m BRUTE_PEER_BAN -hn ADDR -i: transport=tcp, lport a number" "$out"
		fi
		if ausearch $T -m BRUTE_PEER_BAN -hn 10.198.0.9 --raw 2>/dev/null | grep -q .; then
			not_ok "ausearch -hn another address does not find the ban"
		else
			ok "ausearch -hn another address does not find the ban"
		fi
		out=$(LC_ALL=C aureport $T --anomaly -i 2>&1)
		if echo "$out" | grep -q "BRUTE_PEER_BAN $st/service (none) 10.198.0.2/32 " &&
			echo "$out" | grep -q "BRUTE_PEER_BAN $st/service (none) ? " &&
			! echo "$out" | grep -q -e BRUTE_PEER_UNBAN -e '(null)'; then
			ok "aureport --anomaly -i: the peer bans, the TCP peer as the host, no unban"
			echo "$out" | grep BRUTE_PEER_BAN | while read -r line; do diag "$line"; done
		else
			not_ok "aureport --anomaly -i: the peer bans, the TCP peer as the host, no unban" \
				"$(echo "$out" | grep -e BRUTE_PEER -e '(null)' | tail -n 4)"
		fi
		echo "peer 10.198.0.2" >/sys/kernel/security/brute/lift
		sleep 0.5
		out=$(ausearch $T -m BRUTE_PEER_UNBAN -hn 10.198.0.2 -ui 0 -k brute -i 2>&1)
		if echo "$out" | grep -q "peer=10.198.0.2/32 .*transport=tcp .*reason=lifted refused=[1-9][0-9]* .* uid=root "; then
			ok "ausearch -m BRUTE_PEER_UNBAN -hn ADDR -ui 0 -k brute -i: root lifted the ban"
		else
			not_ok "ausearch -m BRUTE_PEER_UNBAN -hn ADDR -ui 0 -k brute -i: root lifted the ban" "$out"
		fi
		kill $svc; wait $svc 2>/dev/null
	else
		skip "tcp peer ban with the audit tools" "no network namespaces"
	fi
	ip netns del t40_srv 2>/dev/null; ip netns del t40_cli 2>/dev/null
else
	skip "peer bans with the audit tools" "kernel without peer bans (no /proc/sys/kernel/brute/peer_ban_time_s)"
fi

# --- The stock tools, on the records as the stock auditd writes them (this test's: those
# stamped since it started)
sep=$(printf '\035')
awk -v t0="$t0" 'match($0, /msg=audit\([0-9]+/) && substr($0, RSTART + 10, RLENGTH - 10) + 0 >= t0' \
	/var/log/audit/audit.log |
	sed -e "s/$sep.*//" -e 's/^type=BRUTE_HIERARCHY /type=UNKNOWN[1710] /' \
	-e 's/^type=BRUTE_BOUNDARY /type=UNKNOWN[1711] /' -e 's/^type=BRUTE_CRASH /type=UNKNOWN[1712] /' \
	-e 's/^type=BRUTE_ATTACK /type=UNKNOWN[1713] /' -e 's/^type=BRUTE_KILL /type=UNKNOWN[1714] /' \
	-e 's/^type=BRUTE_CONFIG /type=UNKNOWN[1715] /' -e 's/^type=BRUTE_BAN /type=UNKNOWN[1716] /' \
	-e 's/^type=BRUTE_UNBAN /type=UNKNOWN[1717] /' -e 's/^type=BRUTE_PEER_BAN /type=UNKNOWN[1718] /' \
	-e 's/^type=BRUTE_PEER_UNBAN /type=UNKNOWN[1719] /' >/tmp/t40-stock.log
S="-if /tmp/t40-stock.log"
# works(NAME, CMD...) / lacks(NAME, CMD...): CMD finds the attack's records or not
finds() { "$@" 2>/dev/null | grep -q "brute_hierarchy=$h "; }
works() { n=$1; shift; if finds "$@"; then ok "stock works: $n"; else not_ok "stock works: $n"; fi; }
lacks() { n=$1; shift; if finds "$@"; then not_ok "stock lacks: $n"; else ok "stock lacks: $n"; fi; }
works "ausearch -m 1713" stock ausearch $S -m 1713 --raw
works "ausearch -m 1713 --start recent" stock ausearch $S -m 1713 --start recent --raw
works "ausearch -m 1712,1713,1714 -i" stock ausearch $S -m 1712,1713,1714 -i
lacks "ausearch -m BRUTE_ATTACK" stock ausearch $S -m BRUTE_ATTACK --raw
lacks "ausearch -m 1713 -x EXE" stock ausearch $S -m 1713 -x $victim --raw
lacks "ausearch -m 1713 -p PID" stock ausearch $S -m 1713 -p "$pid" --raw
lacks "ausearch -m 1713 -c COMM" stock ausearch $S -m 1713 -c t40victim --raw
lacks "ausearch -m 1713 -ui UID" stock ausearch $S -m 1713 -ui 1000 --raw
lacks "ausearch -m 1713 -ua AUID" stock ausearch $S -m 1713 -ua 1000 --raw
lacks "ausearch -m 1713 --session SES" stock ausearch $S -m 1713 --session "$ses" --raw
lacks "ausearch -m 1714 -p OPID" stock ausearch $S -m 1714 -p "$opid" --raw
lacks "ausearch -k brute -m 1713" stock ausearch $S -k brute -m 1713 --raw
if stock ausearch $S -k brute --raw 2>/dev/null | grep -q "^type=UNKNOWN\[1711\] .*boundary=setid"; then
	ok "stock works: ausearch -k brute finds the setid execve with its boundary"
else
	not_ok "stock works: ausearch -k brute finds the setid execve with its boundary"
fi
if stock ausearch $S -k brute -m 1715 --start recent --raw 2>/dev/null | grep -q "tunable=min_faults"; then
	not_ok "stock lacks: ausearch -k brute -m 1715 (the watch keys open(), the record joins write())"
else
	ok "stock lacks: ausearch -k brute -m 1715 (the watch keys open(), the record joins write())"
fi
if stock ausearch $S -m 1715 --start recent --raw 2>/dev/null |
	grep -q '^type=SYSCALL .*syscall=1 .*key=(null)'; then
	ok "stock: the tunable change joins an unkeyed write() (syscall 1)"
else
	not_ok "stock: the tunable change joins an unkeyed write() (syscall 1)" \
		"$(stock ausearch $S -m 1715 --start recent --raw 2>&1 | tail -n 3)"
fi
out=$(stock ausearch $S -m 1714 -i 2>/dev/null | grep "brute_hierarchy=$h opid=$opid ")
if echo "$out" | grep -q "oexe=2F746D70" && echo "$out" | grep -q "oses=$ses "; then
	ok "stock lacks: -i leaves oexe hex and oses raw"
else
	not_ok "stock lacks: -i leaves oexe hex and oses raw" "$out"
fi
out=$(stock ausearch $S -m 1711 -i 2>/dev/null | grep "boundary=setid" | tail -n 1)
if echo "$out" | grep -q "old_uid=1000 .*new_euid=0 "; then
	ok "stock lacks: -i leaves old_*/new_* uids numeric"
else
	not_ok "stock lacks: -i leaves old_*/new_* uids numeric" "$out"
fi
if stock aureport $S --anomaly --start recent 2>/dev/null | grep -q '(null) ? ? ?'; then
	ok "stock lacks: aureport --anomaly prints (null) ? ? ? for Brute records"
else
	not_ok "stock lacks: aureport --anomaly prints (null) ? ? ? for Brute records" \
		"$(stock aureport $S --anomaly --start recent 2>&1 | tail -n 3)"
fi
# The patched tools read the stock log too.
if ausearch $S -m BRUTE_ATTACK -x $victim -ui 1000 --raw 2>/dev/null | grep -q "brute_hierarchy=$h "; then
	ok "patched ausearch on a stock auditd's log (type=UNKNOWN[1713])"
else
	not_ok "patched ausearch on a stock auditd's log (type=UNKNOWN[1713])"
fi
# Peer bans (v3)
if [ -n "$v3" ] && [ -n "$uh" ] && [ -n "$th" ]; then
	# has NAME CMD...: CMD prints a line that matches the pattern in $pat
	has() { "$@" 2>/dev/null | grep -q "$pat"; }
	pat="^type=UNKNOWN\[1718\] .*brute_hierarchy=$uh "
	if has stock ausearch $S -m 1718 --raw; then
		ok "stock works: ausearch -m 1718 finds the peer ban"
	else
		not_ok "stock works: ausearch -m 1718 finds the peer ban"
	fi
	pat="^type=UNKNOWN\[1711\] .*brute_hierarchy=$uh boundary=unix "
	if has stock ausearch $S -m 1711 --raw && ! has stock ausearch $S -k brute --raw; then
		ok "stock lacks: ausearch -k brute finds the unix boundary (read() is not keyed)"
	else
		not_ok "stock lacks: ausearch -k brute finds the unix boundary (read() is not keyed)" \
			"$(stock ausearch $S -m 1711 --raw 2>&1 | grep -e "brute_hierarchy=$uh " -e '^type=SYSCALL' | tail -n 2)"
	fi
	pat="^type=UNKNOWN\[1718\] .*brute_hierarchy=$uh "
	for q in "-m BRUTE_PEER_BAN" "-m 1718 -ui 1000" "-k brute -m 1718"; do
		if has stock ausearch $S $q --raw; then
			not_ok "stock lacks: ausearch $q finds the Unix peer's ban"
		else
			ok "stock lacks: ausearch $q finds the Unix peer's ban"
		fi
	done
	pat="brute_hierarchy=$th "
	if has stock ausearch $S -hn 10.198.0.2 --raw; then
		not_ok "stock lacks: ausearch -hn ADDR finds the TCP peer's records"
	else
		ok "stock lacks: ausearch -hn ADDR finds the TCP peer's records"
	fi
	out=$(stock ausearch $S -m 1718 -i 2>/dev/null | grep -e "brute_hierarchy=$th " -e "brute_hierarchy=$uh ")
	if echo "$out" | grep -q "peer=uid:1000 peer_uid=1000 netns=[0-9]* transport=unix "; then
		ok "stock lacks: -i interprets peer_uid"
	else
		not_ok "stock lacks: -i interprets peer_uid" "$out"
	fi
	if ausearch $S -m BRUTE_PEER_BAN -ui 1000 --raw 2>/dev/null | grep -q "brute_hierarchy=$uh "; then
		ok "patched ausearch on a stock auditd's log (type=UNKNOWN[1718])"
	else
		not_ok "patched ausearch on a stock auditd's log (type=UNKNOWN[1718])"
	fi
fi
exit 0
