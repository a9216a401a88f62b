#!/bin/sh
# The audit tools on recorded Brute records, written the way the stock auditd writes them
# (type=UNKNOWN[N]):
#   brute-v2.log  every type 1710-1717 in the formats of docs/audit-records.md (v2);
#   brute-v3.log  every type 1710-1719 as the v3 kernel wrote them (captured in the fast
#                 guest: a TCP peer banned then lifted, a /24 prefix banned, a Unix peer of
#                 uid 4243 banned from a root service, a backstop kill, an exec attack
#                 through a privileged exec chain, root's lift of every ban), and two
#                 expired peer bans at its end written by hand after the documented format
#                 (the capture has none).
# run twice:
#   check-tools.sh stock             the host's ausearch/aureport (Debian's 3.0.9)
#   check-tools.sh patched ROOT      ROOT/sbin/ausearch with ROOT's libaudit and libauparse
# Each check states what the issue asked for; with "stock" it asserts that the stock tools
# lack it (so that the docs' "stock" column is true), with "patched" that they have it.
# Prints TAP lines and "audit-tools-<mode>: N passed, N failed"; exits 1 on a failure.
set -u
mode=$1
here=$(cd "$(dirname "$0")" && pwd)
log=$here/brute-v2.log
log3=$here/brute-v3.log
case $mode in
stock) ;;
patched) root=$2 lib=$(dirname "$(find "$root/" -name 'libauparse.so.0' | head -n 1)") ;;
*) echo "usage: $0 stock | patched ROOT" >&2; exit 2 ;;
esac
passed=0 failed=0

# feature NAME CMD: the feature is there when CMD (run with sh -c) exits 0; the check passes
# when the stock tools lack it and the patched ones have it.
feature() {
	name=$1 cmd=$2
	if sh -c "$cmd" >/dev/null 2>&1; then got=has; else got=lacks; fi
	want=has
	[ "$mode" = stock ] && want=lacks
	if [ "$got" = "$want" ]; then
		echo "ok - $mode $want: $name"
		passed=$((passed + 1))
	else
		echo "not ok - $mode $got (expected: $want): $name"
		echo "#   $cmd"
		sh -c "$cmd" 2>&1 | head -n 5 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}
# Works with both.
both() {
	name=$1 cmd=$2
	if sh -c "$cmd" >/dev/null 2>&1; then
		echo "ok - $mode works: $name"
		passed=$((passed + 1))
	else
		echo "not ok - $mode broken: $name"
		echo "#   $cmd"
		failed=$((failed + 1))
	fi
}
# sh -c does not see shell functions: give it the tool paths as variables.
if [ "$mode" = stock ]; then
	AS="/sbin/ausearch -if $log" AR="/sbin/aureport -if $log"
	AS3="/sbin/ausearch -if $log3" AR3="/sbin/aureport -if $log3"
else
	AS="env LD_LIBRARY_PATH=$lib $root/sbin/ausearch -if $log"
	AR="env LD_LIBRARY_PATH=$lib $root/sbin/aureport -if $log"
	AS3="env LD_LIBRARY_PATH=$lib $root/sbin/ausearch -if $log3"
	AR3="env LD_LIBRARY_PATH=$lib $root/sbin/aureport -if $log3"
fi

# 1. Names
feature "ausearch -m BRUTE_ATTACK selects by name" "$AS -m BRUTE_ATTACK | grep -q attack=exec"
feature "ausearch -m takes every name BRUTE_HIERARCHY..BRUTE_UNBAN" \
	"$AS --raw -m BRUTE_HIERARCHY,BRUTE_BOUNDARY,BRUTE_CRASH,BRUTE_ATTACK,BRUTE_KILL,BRUTE_CONFIG,BRUTE_BAN,BRUTE_UNBAN | grep -c UNKNOWN | grep -qx 12"
feature "ausearch -i prints type=BRUTE_KILL" "$AS -i -m 1714 | grep -q '^type=BRUTE_KILL '"
both "ausearch -m 1710,...,1717 selects by number" \
	"$AS --raw -m 1710,1711,1712,1713,1714,1715,1716,1717 | grep -c UNKNOWN | grep -qx 12"
both "time filters: -ts/-te select the attack's second" \
	"TZ=UTC LC_ALL=C $AS --raw -ts 12/03/26 12:13:22 -te 12/03/26 12:13:23 | grep -q attack=exec && ! TZ=UTC LC_ALL=C $AS --raw -m 1713 -ts 12/03/26 12:13:23"

# 2. Field searches on the records themselves
feature "-x EXE finds the attack on /usr/sbin/victim" "$AS -m 1713 -x /usr/sbin/victim | grep -q attack=exec"
feature "-p PID finds the crash of pid 501" "$AS -m 1712 -p 501 | grep -q origin="
feature "-pp PPID finds the attack" "$AS -m 1713 -pp 500 | grep -q attack=exec"
feature "-c COMM finds the ban" "$AS -m 1716 -c victim | grep -q ban_s=900"
feature "-ui UID finds the attack of uid 1000" "$AS -m 1713 -ui 1000 | grep -q attack=exec"
feature "-ua AUID finds the attack of auid 1000" "$AS -m 1713 -ua 1000 | grep -q attack=exec"
feature "-ul LOGINUID finds the attack" "$AS -m 1713 -ul 1000 | grep -q attack=exec"
feature "--session finds the attack of session 3" "$AS -m 1713 --session 3 | grep -q attack=exec"
feature "-se CONTEXT finds the attack by subject label" "$AS -m 1713 -se unconfined_t | grep -q attack=exec"
feature "-ue EUID finds the crash run as euid 0" "$AS -m 1712 -ue 0 | grep -q origin="
feature "-tm TTY finds the attack from pts0" "$AS -m 1713 -tm pts0 | grep -q attack=exec"
both "-tm, -sv find the tunable change through its write() syscall" \
	"$AS -m 1715 -tm ttyS0 -sv yes | grep -q tunable="
feature "-p OPID finds the kill record of pid 500" "$AS -m 1714 -p 500 | grep -q opid=500"
feature "-x finds the kill record by its hex-encoded oexe" "$AS -m 1714 -x '/home/alice/my driver' | grep -q opid=500"
feature "-ui finds an expired unban by attacker_uid 1001" "$AS -m 1717 -ui 1001 | grep -q reason=expired"
both "-p does not match another pid" "! $AS -m 1712 -p 999"
both "-x does not match another program" "! $AS -m 1713 -x /usr/bin/other"

# 3. Interpretation
feature "-i: new_euid and old_uid are interpreted (new_euid=root)" \
	"$AS -i -m 1711 | grep -q 'new_euid=root .*new_gid=[a-z]'"
feature "-i: oexe decoded" "$AS -i -m 1714 | grep -q 'oexe=/home/alice/my driver'"
feature "-i: target_name decoded" "$AS -i -m 1717 | grep -q 'target_name=cr ash reason=expired'"
feature "-i: oses of an unset session reads unset" \
	"printf '%s\n' 'type=UNKNOWN[1714] msg=audit(1796300000.000:1): brute_hierarchy=1 opid=2 ouid=0 oauid=4294967295 oses=4294967295 ocomm=\"x\" oexe=\"/x\"' >/tmp/check-tools-oses.log && ${AS%-if *}-if /tmp/check-tools-oses.log -i | grep -q 'oses=unset'"
feature "-i: attacker_uid interpreted" "$AS -i -m 1716 | grep -qv 'attacker_uid=1000 ' && $AS -i -m 1716 | grep -q 'attacker_uid=[a-z]'"
feature "-i: brute_mode=mitigate" "$AS -i -m 1713 | grep -q 'brute_mode=mitigate'"
both "-i: sig=SIGSEGV" "$AS -i -m 1712 | grep -q 'sig=SIGSEGV'"
both "-i: comm and exe decoded" "$AS -i -m 1713 | grep -q 'comm=victim exe=/usr/sbin/victim'"

# 4. aureport --anomaly
feature "aureport --anomaly: attack line names type and program" \
	"$AR --anomaly -i | grep -q 'BRUTE_ATTACK /usr/sbin/victim pts0 ? '"
feature "aureport --anomaly: kill line names the killed program" \
	"$AR --anomaly | grep -q 'BRUTE_KILL /home/alice/my driver ? ? 1000 105'"
feature "aureport --anomaly: no (null) lines, no bookkeeping records" \
	"! $AR --anomaly | grep -q -e '(null)' -e ' 100\$' -e ' 106\$' -e ' 107\$' -e ' 108\$' -e ' 109\$' -e ' 110\$'"

# 5. ausearch -k brute
both "-k brute finds the keyed setid execve" "$AS -k brute | grep -q 'boundary=setid'"
feature "-k brute finds the standalone attack" "$AS -k brute -m 1713 | grep -q attack=exec"
feature "-k brute finds crash, attack, kill, ban, unban and the freed hierarchy" \
	"$AS -k brute --raw | grep -c UNKNOWN | grep -qx 12"
feature "-k brute -m 1715 finds the tunable change in an unkeyed write()" \
	"$AS -k brute -m 1715 | grep -q tunable=ban_time_s"
both "-k other does not match Brute records" "! $AS -k other"

# 6. v3 (brute-v3.log): peer bans and the fields of response v3
# Names
feature "v3: ausearch -m takes BRUTE_PEER_BAN,BRUTE_PEER_UNBAN" \
	"$AS3 --raw -m BRUTE_PEER_BAN,BRUTE_PEER_UNBAN | grep -c '^type=UNKNOWN\[171[89]\]' | grep -qx 8"
feature "v3: ausearch -i prints type=BRUTE_PEER_BAN and type=BRUTE_PEER_UNBAN" \
	"$AS3 -i -m 1718 | grep -q '^type=BRUTE_PEER_BAN ' && $AS3 -i -m 1719 | grep -q '^type=BRUTE_PEER_UNBAN '"
both "v3: ausearch -m 1710,...,1719 selects every record by number" \
	"$AS3 --raw -m 1710,1711,1712,1713,1714,1715,1716,1717,1718,1719 | grep -c UNKNOWN | grep -qx 33"
# Field searches
feature "v3: -k brute finds every record, the peer bans and their ends included" \
	"$AS3 -k brute --raw | grep -c UNKNOWN | grep -qx 33"
feature "v3: -x EXE finds the peer bans of the service" \
	"$AS3 -m 1718 -x /selftests/service --raw | grep -c '^type=UNKNOWN\[1718\]' | grep -qx 3"
feature "v3: -ui finds the Unix peer's ban by its peer_uid (4243)" \
	"$AS3 -m 1718 -ui 4243 --raw | grep -q 'peer=uid:4243 '"
both "v3: -ui 0 (the service's user) does not find the Unix peer's ban" \
	"! $AS3 -m 1718 -ui 0 --raw | grep -q 'peer=uid:'"
feature "v3: -ui finds a TCP peer's ban by the service's uid (no user is banned)" \
	"$AS3 -m 1718 -ui 0 --raw | grep -q 'peer=10.196.0.2/32 '"
feature "v3: -ui finds an expired peer ban, which has no task, by its peer_uid (4244)" \
	"$AS3 -m 1719 -ui 4244 --raw | grep -q 'reason=expired'"
feature "v3: -ui finds the root who lifted the peer bans" \
	"$AS3 -m 1719 -ui 0 --raw | grep -q 'peer=uid:4243 .*reason=lifted'"
feature "v3: -ui finds the ban of uid 1000 whose subject runs as root (exec chain)" \
	"$AS3 -m 1716 -ui 1000 --raw | grep -q 'attacker_uid=1000 .* uid=0 '"
both "v3: -ui 0 does not find that ban" "! $AS3 -m 1716 -ui 0 --raw | grep -q 'attacker_uid=1000 '"
feature "v3: -hn ADDR finds the crashes, attack, ban and end of ban of that peer" \
	"$AS3 -hn 10.196.0.2/32 -w --raw | grep -o '^type=UNKNOWN\[17[0-9]*\]' | tr -d '\n' | grep -qx 'type=UNKNOWN\[1712\]type=UNKNOWN\[1712\]type=UNKNOWN\[1713\]type=UNKNOWN\[1718\]type=UNKNOWN\[1719\]'"
feature "v3: -hn PREFIX finds the escalated ban of 10.196.0.0/24" \
	"$AS3 -m 1718 -hn 10.196.0.0/24 --raw | grep -q 'faults=15 ban_s=900'"
both "v3: -hn does not match a Unix peer or another address" \
	"! $AS3 -hn uid:4243 --raw && ! $AS3 -hn 10.196.0.9 --raw"
# Interpretation
feature "v3: -i: peer_uid interpreted" \
	"$AS3 -i -m 1718 | grep 'peer=uid:4243' | grep -qv 'peer_uid=4243 ' && $AS3 -i -m 1718 | grep -q 'peer_uid=[a-z]'"
feature "v3: -i: owner_uid interpreted" \
	"$AS3 -i -m 1711 | grep 'boundary=setid' | grep -qv 'owner_uid=1000 ' && $AS3 -i -m 1711 | grep -q 'owner_uid=[a-z]'"
both "v3: -i: transport, lport, source, scope, mitigation, attack stay as written" \
	"$AS3 -i -m 1713 | grep -q 'attack=peer .* transport=tcp .* lport=7777 .* mitigation=peer_ban source=peer ' && $AS3 -i -m 1712 | grep -q 'scope=target .* source=user '"
# aureport --anomaly
feature "v3: aureport --anomaly lists the peer bans, the peer in the host column" \
	"$AR3 --anomaly | grep -q 'BRUTE_PEER_BAN /selftests/service (none) 10.196.0.2/32 -1 33\$' && $AR3 --anomaly | grep -q 'BRUTE_PEER_BAN /selftests/service (none) ? -1 75\$'"
feature "v3: aureport --anomaly: the backstop's attack and kill, the exec chain's ban" \
	"$AR3 --anomaly | grep -q 'BRUTE_ATTACK /selftests/attacker (none) ? -1 93\$' && $AR3 --anomaly | grep -q 'BRUTE_KILL /selftests/attacker ? ? -1 94\$' && $AR3 --anomaly | grep -q 'BRUTE_BAN /selftests/crasher (none) ? -1 155\$'"
feature "v3: aureport --anomaly leaves out the ends of peer bans, no (null) lines" \
	"$AR3 --anomaly | grep -q BRUTE_PEER_BAN && ! $AR3 --anomaly | grep -q -e BRUTE_PEER_UNBAN -e '(null)' -e ' 35\$' -e ' 232\$' -e ' 233\$'"

echo "audit-tools-$mode: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
