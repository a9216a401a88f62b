#!/bin/sh
# The stress storm of issue 10 (kernel/tools/testing/selftests/brute/storm.c): fork, exec,
# thread, network and large-hierarchy attacks, ban table churn at capacity, set*id() changes,
# relays and tunable flips, all at once; then the outcomes, the audit trail, and the
# hierarchies back to their baseline.  rig.storm=SECONDS,BIG on the kernel command line sets
# its length and the size of the large hierarchy (make check: 15 s and 1000; make
# check-debug: longer and larger).
. "$RIG/tap.sh"

st=/selftests
ATTACK=1713 BAN=1716
[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }

seconds=15 big=1000 wait=90
for arg in $(cat /proc/cmdline); do
	case $arg in
	rig.storm=*,*,*) v=${arg#rig.storm=}; seconds=${v%%,*}; v=${v#*,}; big=${v%,*}; wait=${v#*,} ;;
	rig.storm=*,*) v=${arg#rig.storm=}; seconds=${v%,*}; big=${v#*,} ;;
	esac
done

for p in crasher attacker storm; do
	cp $st/$p $st/${p}_suid && chmod 4755 $st/${p}_suid
done
echo 0 >/proc/sys/debug/exception-trace 2>/dev/null
ip() { if [ -x /sbin/ip ]; then /sbin/ip "$@"; else command ip "$@"; fi; }
ip netns del brute_srv 2>/dev/null
ip netns del brute_cli 2>/dev/null
net=
if ip netns add brute_srv && ip netns add brute_cli &&
	ip link add brute0 netns brute_srv type veth peer name brute1 netns brute_cli &&
	ip -n brute_srv addr add 10.199.0.1/24 dev brute0 &&
	ip -n brute_cli addr add 10.199.0.2/24 dev brute1 &&
	ip -n brute_srv link set brute0 up && ip -n brute_cli link set brute1 up &&
	ip -n brute_srv link set lo up && ip -n brute_cli link set lo up; then
	net=-n
else
	diag "no network namespaces: the storm runs without its network attacks"
fi

name_of() { case $1 in 1713) echo BRUTE_ATTACK ;; 1716) echo BRUTE_BAN ;; esac; }
recs() { ausearch --raw -m "$1" 2>/dev/null | grep -E "^type=(UNKNOWN\[$1\]|$(name_of "$1")) "; }
lost() { auditctl -s | sed -n 's/^lost //p'; }

auditctl -b 16384 >/dev/null
echo flush >/sys/kernel/security/brute/lift
lost_before=$(lost)
attacks_before=$(recs $ATTACK | wc -l)
diag "storm: $seconds s, a $big-process hierarchy; $(cat /sys/kernel/security/brute/stats)"

printk_before=$(dmesg | grep -c 'kauditd_printk_skb\|audit: type=')
$st/storm -s "$seconds" -b "$big" -w "$wait" $net >/tmp/storm.out 2>/dev/console
rc=$?
# Records the kernel could not hand to auditd at once (it printed them on the console): with
# audit=1 it keeps them until auditd is back, or counts them lost.
diag "audit records the kernel printed on the console: $(dmesg | grep -c 'audit: type=')"
cat /tmp/storm.out | grep -E '^(ok|not ok|#)'
grep -qE '^(ok|not ok)' /tmp/storm.out || not_ok "storm ran" "exit $rc" "$(tail -n 20 /tmp/storm.out)"

# The audit trail: every killed attacker was detected in a record of its own hierarchy
# (unless records were lost, which auditctl -s says), every banned user has a BAN record.
killed=$(sed -n 's/^storm: killed=\([0-9]*\) .*/\1/p' /tmp/storm.out)
# auditd may still be writing what the storm emitted: wait for the backlog to drain, then
# for audit.log to stop growing (records kauditd held while auditd lagged arrive late, and
# auditctl -s does not count them; seen under KASAN, where they then confused 20-brute-audit).
wait_for 60 sh -c "auditctl -s | grep -q '^backlog 0$'"
t=0 quiet=0 size=-1
while [ $t -lt 180 ] && [ $quiet -lt 2 ]; do
	now=$(wc -c </var/log/audit/audit.log)
	if [ "$now" = "$size" ]; then quiet=$((quiet + 1)); else quiet=0; fi
	size=$now
	sleep 3
	t=$((t + 3))
done
diag "audit.log quiet after $t s"
lost_after=$(lost)
diag "audit: $(auditctl -s | tr '\n' ' ')"
diag "audit.log: $(grep -c . /var/log/audit/audit.log) lines, $(grep -c BRUTE_ATTACK /var/log/audit/audit.log) ATTACK, $(grep -c BRUTE_BAN /var/log/audit/audit.log) BAN"
diag "processes left: $(ps -o pid,user,args | grep -c storm)"
ps -o pid,ppid,user,args | grep -E 'storm|attacker|crasher|relay' | grep -v grep | head -n 10 | sed 's/^/#   /'
attacks=$(recs $ATTACK | tail -n +$((attacks_before + 1)) |
	sed -n 's/.* brute_hierarchy=\([0-9]*\) .*/\1/p' | sort -u | wc -l)
# When kauditd cannot hand records to auditd it prints them on the console (and, audit=1,
# keeps them, or counts them lost): then the trail is incomplete for a reason that is not
# Brute's (seen on the sanitizer kernels, where auditd falls behind the storm).
printk_after=$(dmesg | grep -c 'kauditd_printk_skb\|audit: type=')
missing=
for uid in 2001 2002 2003 2004 2005 2006 2007 2008 2009; do
	recs $BAN | grep -q " attacker_uid=$uid " || missing="$missing $uid"
done
if [ "$lost_after" != "$lost_before" ] || [ "$printk_after" != "$printk_before" ]; then
	why="auditd lost $((lost_after - lost_before)) records (auditctl -s); kauditd fell back to the console $((printk_after - printk_before)) times"
	skip "storm: attack records cover the killed attackers" "$why"
	skip "storm: a BAN record for each of the 9 exec attackers" "$why"
	diag "incomplete trail: $attacks attacked hierarchies for $killed killed attackers; BAN missing for:$missing"
else
	if [ -n "$killed" ] && [ "$attacks" -ge "$killed" ]; then
		ok "storm: $attacks attacked hierarchies in the audit trail for $killed killed attackers"
	else
		not_ok "storm: attack records cover the killed attackers" \
			"killed=$killed, hierarchies in ATTACK records since the start: $attacks"
	fi
	if [ -z "$missing" ]; then
		ok "storm: a BAN record for each of the 9 exec attackers"
	else
		not_ok "storm: a BAN record for each of the 9 exec attackers" "missing:$missing" \
			"$(recs $BAN | tail -n 3)"
	fi
fi

echo flush >/sys/kernel/security/brute/lift
check "storm: the (user, target) table empties" \
	grep -q ' targets=0 ' /sys/kernel/security/brute/stats
diag "after: $(cat /sys/kernel/security/brute/stats)"
ip netns del brute_srv 2>/dev/null
ip netns del brute_cli 2>/dev/null
exit 0
