#!/bin/sh
# The audit tools on real Brute records: an exec attack on a set-user-ID program run by
# uid 1000 in a login session of its own, and a tunable change, then the queries an
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
stock() { LD_LIBRARY_PATH=/opt/audit-stock/lib "/opt/audit-stock/bin/$@"; }
field() { sed -n "s/^\([^$(printf '\035')]*\) $1=\([^ $(printf '\035')]*\).*/\2/p" | head -n 1; }

# The patched tools are the ones on PATH.
if ! ausearch -m BRUTE_ATTACK 2>&1 | grep -q "Valid message types"; then
	ok "ausearch knows BRUTE_ATTACK (patched tools installed)"
else
	not_ok "ausearch knows BRUTE_ATTACK (patched tools installed)" "$(ausearch -m BRUTE_ATTACK 2>&1 | head -c 200)"
fi

# --- The attack: /tmp/t40victim (set-user-ID root, crashes), driven by a copy of the
# selftests' attacker in a directory whose name has a space (its oexe is hex-encoded), by
# uid 1000 with login uid 1000 and a fresh session.
victim=/tmp/t40victim
since="$(LC_ALL=C date +%x) $(date +%T)" # this test's records only (-ts MM/DD/YY HH:MM:SS)
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
a=$(ausearch --raw -m BRUTE_ATTACK -x $victim 2>/dev/null | grep '^type=BRUTE_ATTACK ' | tail -n 1)
if [ $rc -ne 137 ] || [ -z "$a" ] || [ -z "$ses" ]; then
	not_ok "exec attack on $victim detected, driver killed" "exit $rc, session '$ses'" \
		"$(ausearch --raw -m BRUTE_ATTACK 2>&1 | tail -n 2)"
	exit 0
fi
ok "exec attack on $victim detected, driver killed (session $ses)"
h=$(echo "$a" | field brute_hierarchy)
pid=$(echo "$a" | field pid)
k=$(ausearch --raw -m BRUTE_KILL 2>/dev/null | grep "^type=BRUTE_KILL .*brute_hierarchy=$h opid=" | tail -n 1)
opid=$(echo "$k" | field opid)
diag "attack hierarchy $h, crashing pid $pid, killed driver pid $opid"

# --- Names, field searches and interpretation (patched tools, the live log)
out=$(ausearch -m BRUTE_ATTACK -x $victim -i 2>&1)
if echo "$out" | grep -q "^type=BRUTE_ATTACK .* brute_mode=mitigate .* uid=brute .* exe=$victim"; then
	ok "ausearch -m BRUTE_ATTACK -x $victim -i"
else
	not_ok "ausearch -m BRUTE_ATTACK -x $victim -i" "$out"
fi
for q in "-p $pid" "-ui 1000" "-ua 1000" "-ul 1000" "--session $ses" "-c t40victim" "-ue 0" \
	"-x $victim -ui brute --start recent"; do
	if ausearch -m BRUTE_ATTACK $q --raw 2>/dev/null | grep -q "brute_hierarchy=$h "; then
		ok "ausearch -m BRUTE_ATTACK $q finds the attack"
	else
		not_ok "ausearch -m BRUTE_ATTACK $q finds the attack"
	fi
done
for q in "-p 1" "-ui 0" "-x /bin/busybox" "--session 4294967295"; do
	if ausearch -m BRUTE_ATTACK $q --raw 2>/dev/null | grep -q "brute_hierarchy=$h "; then
		not_ok "ausearch -m BRUTE_ATTACK $q does not find the attack"
	else
		ok "ausearch -m BRUTE_ATTACK $q does not find the attack"
	fi
done
out=$(ausearch -m BRUTE_KILL -p "$opid" -i 2>&1)
if [ -n "$opid" ] && echo "$out" | grep -q "opid=$opid ouid=brute oauid=brute oses=$ses ocomm=driver oexe=$drvdir/driver"; then
	ok "ausearch -m BRUTE_KILL -p OPID -i: the killed driver, oexe decoded"
else
	not_ok "ausearch -m BRUTE_KILL -p OPID -i: the killed driver, oexe decoded" "$k" "$out"
fi
if ausearch -m BRUTE_KILL -x "$drvdir/driver" -ua 1000 --raw 2>/dev/null | grep -q "opid=$opid "; then
	ok "ausearch -m BRUTE_KILL -x 'DIR WITH SPACE/driver' -ua 1000"
else
	not_ok "ausearch -m BRUTE_KILL -x 'DIR WITH SPACE/driver' -ua 1000"
fi
out=$(ausearch -m BRUTE_BOUNDARY -x $victim -i 2>&1 | grep '^type=BRUTE_BOUNDARY' | tail -n 1)
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
if ausearch -k brute -m BRUTE_CONFIG --start recent -i 2>/dev/null | grep -q "tunable=min_faults old=6 new=5"; then
	ok "ausearch -k brute -m BRUTE_CONFIG finds the tunable change"
else
	not_ok "ausearch -k brute -m BRUTE_CONFIG finds the tunable change"
fi

# --- aureport --anomaly (since this test started: the other tests' crash storms are no
# business of this check)
out=$(LC_ALL=C aureport --anomaly -i -ts $since 2>&1)
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
	out=$(ausearch -m BRUTE_BAN -x $victim -ui 1000 -i 2>&1)
	if echo "$out" | grep -q "attacker_uid=brute .* target_name=t40victim ban_s=[0-9]* brute_hierarchy=[0-9]* .* uid=brute .* exe=$victim"; then
		ok "ausearch -m BRUTE_BAN -x $victim -ui 1000 -i"
	else
		not_ok "ausearch -m BRUTE_BAN -x $victim -ui 1000 -i" "$out"
	fi
	if aureport --anomaly -i --start recent 2>&1 | grep -q "BRUTE_BAN $victim (none) ? brute "; then
		ok "aureport --anomaly -i lists the ban"
	else
		not_ok "aureport --anomaly -i lists the ban"
	fi
	b=$(ausearch --raw -m BRUTE_BAN -x $victim 2>/dev/null | grep '^type=BRUTE_BAN ' | tail -n 1)
	echo "1000 $(echo "$b" | field target_dev) $(echo "$b" | field target_ino)" \
		>/sys/kernel/security/brute/lift
	sleep 0.5
	out=$(ausearch -m BRUTE_UNBAN -ui 0 -k brute --start recent -i 2>&1)
	if echo "$out" | grep -q "attacker_uid=brute .* target_name=t40victim reason=lifted denied=[0-9]* .* uid=root "; then
		ok "ausearch -m BRUTE_UNBAN -ui 0 -k brute -i: root lifted the ban"
	else
		not_ok "ausearch -m BRUTE_UNBAN -ui 0 -k brute -i: root lifted the ban" "$b" "$out"
	fi
else
	skip "ausearch -m BRUTE_BAN, BRUTE_UNBAN" "kernel without bans (no /sys/kernel/security/brute/lift)"
fi

# --- The stock tools, on the records as the stock auditd writes them
sep=$(printf '\035')
sed -e "s/$sep.*//" -e 's/^type=BRUTE_HIERARCHY /type=UNKNOWN[1710] /' \
	-e 's/^type=BRUTE_BOUNDARY /type=UNKNOWN[1711] /' -e 's/^type=BRUTE_CRASH /type=UNKNOWN[1712] /' \
	-e 's/^type=BRUTE_ATTACK /type=UNKNOWN[1713] /' -e 's/^type=BRUTE_KILL /type=UNKNOWN[1714] /' \
	-e 's/^type=BRUTE_CONFIG /type=UNKNOWN[1715] /' -e 's/^type=BRUTE_BAN /type=UNKNOWN[1716] /' \
	-e 's/^type=BRUTE_UNBAN /type=UNKNOWN[1717] /' /var/log/audit/audit.log >/tmp/t40-stock.log
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
exit 0
