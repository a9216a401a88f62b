#!/bin/sh
# brutectl against the real kernel (Brute v2): an exec attack by uid 1000 on a set-user-ID
# target gets that (uid, target) banned; brutectl lists the ban, the banned exec fails with
# EPERM, uid 1000 can neither read the table nor lift the ban, root lifts it and the exec
# works again; status shows every tunable, Brute and audit active. Then (any kernel) the
# services status shows, and (response v4) the trusted list: brutectl trust against the
# kernel's file, its records, a trusted peer never charged, lpath= in brutectl peers.
. "$RIG/tap.sh"

st=$SELFTESTS
target=$st/crasher_suid

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled"
	exit 0
fi
if [ ! -e /proc/sys/kernel/brute/ban_time_s ]; then
	# A kernel before the v2 interface (no bans, no table): only status can be checked.
	out=$(brutectl status 2>&1)
	if echo "$out" | grep -q '^brute: *active (lsm: .*brute' &&
		echo "$out" | grep -q '^audit: *enabled, auditd pid [1-9]' &&
		echo "$out" | grep -q '^  mode  *[0-2] ' &&
		echo "$out" | grep -q '^  ban_time_s  *absent$'; then
		ok "status on a pre-v2 kernel: active, audit enabled, ban_time_s absent"
	else
		not_ok "status on a pre-v2 kernel: active, audit enabled, ban_time_s absent" "$out"
	fi
	skip "brutectl list/lift against the kernel" "this kernel has no ban_time_s (pre-v2)"
	exit 0
fi

echo 0 >/proc/sys/debug/exception-trace 2>/dev/null
old_mode=$(cat /proc/sys/kernel/brute/mode)
old_ban=$(cat /proc/sys/kernel/brute/ban_time_s)
echo 2 >/proc/sys/kernel/brute/mode
echo 900 >/proc/sys/kernel/brute/ban_time_s
restore() {
	brutectl lift --all >/dev/null 2>&1
	kill $usvc $tsvc 2>/dev/null
	if [ -e /sys/kernel/security/brute/trusted ]; then
		: >/tmp/bc-empty.conf
		chmod 600 /tmp/bc-empty.conf
		brutectl trust load /tmp/bc-empty.conf >/dev/null 2>&1
	fi
	echo "$old_mode" >/proc/sys/kernel/brute/mode
	echo "$old_ban" >/proc/sys/kernel/brute/ban_time_s
}
trap restore EXIT

# --- status: Brute active, auditd enabled, every tunable present (9 in v2, 16 in v3, 18 in
# v4: trusted_uid_max and backstop_hold_s, which a v3 kernel lacks)
out=$(brutectl status 2>&1)
rc=$?
ntunables=$(ls /proc/sys/kernel/brute | wc -l)
if [ -e /proc/sys/kernel/brute/trusted_uid_max ]; then v3absent=NONE; else v3absent='^  trusted_uid_max  *absent$'; fi
if [ $rc = 0 ] && echo "$out" | grep -q '^brute: *active (lsm: .*brute' &&
	echo "$out" | grep -q '^audit: *enabled, auditd pid [1-9]' &&
	echo "$out" | grep -q '^  mode  *2 (detect, audit and stop)$' &&
	echo "$out" | grep -q '^  ban_time_s  *900$' &&
	echo "$out" | grep -q '^stats:   hierarchies [0-9]*, targets [0-9]*, bans [0-9]*' &&
	! echo "$out" | grep -v "$v3absent" | grep -q ' absent$\|unreadable' &&
	[ "$(echo "$out" | grep -c '^  [a-z0-9_]*  *[0-9]')" = "$ntunables" ]; then
	ok "status: Brute and audit active, its stats, all $ntunables tunables"
else
	not_ok "status: Brute and audit active, its stats, all $ntunables tunables" "exit $rc" "$out"
fi

# --- the peer table (v3): root reads it, uid 1000 cannot; lifting a peer ban that does
# not exist is the kernel's ENOENT (brute_peers_lift(): no ban lifted)
if [ -e /sys/kernel/security/brute/peers ]; then
	out=$(brutectl peers 2>&1)
	rc=$?
	if [ $rc = 0 ] && { [ "$out" = "no peer entries" ] || echo "$out" | grep -q '^PEER  *USER  *ENDPOINT '; }; then
		ok "peers as root: the table"
	else
		not_ok "peers as root: the table" "exit $rc" "$out"
	fi
	out=$(runas 1000 brutectl peers 2>&1)
	rc=$?
	if [ $rc = 1 ] && echo "$out" | grep -q 'reading it needs root'; then
		ok "runas 1000 brutectl peers: refused, needs root"
	else
		not_ok "runas 1000 brutectl peers: refused, needs root" "exit $rc" "$out"
	fi
	out=$(brutectl lift --peer 192.0.2.77 2>&1)
	rc=$?
	if [ $rc = 1 ] && echo "$out" | grep -q 'no such peer ban: 192.0.2.77'; then
		ok "lift --peer of an address never banned: no such peer ban (ENOENT)"
	else
		not_ok "lift --peer of an address never banned: no such peer ban (ENOENT)" "exit $rc" "$out"
	fi
	out=$(brutectl lift --peer 192.0.2.77/33 2>&1)
	rc=$?
	if [ $rc = 2 ] && echo "$out" | grep -q "bad prefix length '33'"; then
		ok "lift --peer ADDR/33: refused before the kernel sees it"
	else
		not_ok "lift --peer ADDR/33: refused before the kernel sees it" "exit $rc" "$out"
	fi
else
	skip "brutectl peers/lift --peer against the kernel" "this kernel has no peer table (pre-v3)"
fi

# --- a fresh set-user-ID target (a new inode: no counts from earlier scripts)
rm -f "$target"
cp "$st/crasher" "$target" && chown 0:0 "$target" && chmod 4755 "$target"
ino=$(stat -c %i "$target")
dev=$(stat -c %d "$target")
devmm=$(((dev >> 8) & 0xfff)):$(((dev & 0xff) | ((dev >> 12) & 0xfff00)))
diag "target $target: dev $devmm ino $ino"

# --- the exec attack, as uid 1000
runas 1000 "$st/attacker" -s exec 12 "$target" segv >/tmp/bc-attack.out 2>&1
diag "attacker exit $?: $(tr '\n' ' ' </tmp/bc-attack.out | cut -c1-200)"

# --- the ban in the table, as brutectl shows it
# row: the table line of uid 1000's entry on the target; entry: its JSON line.
row() { brutectl list --bans | grep -E "^ *1000  +brute +$devmm +$ino +.*  crasher_suid$"; }
entry() {
	brutectl list --json |
		grep -F "{\"attacker_uid\":1000,\"user\":\"brute\",\"target_dev\":\"$devmm\",\"target_ino\":$ino,\"target_name\":\"crasher_suid\","
}
out=$(brutectl list --bans 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# brutectl list --bans| /'
if [ $rc = 0 ] && row | grep -qE ' BANNED [0-9]+m[0-9]+s '; then
	ok "list --bans: uid 1000 (brute) banned on crasher_suid ($devmm $ino)"
else
	not_ok "list --bans: uid 1000 (brute) banned on crasher_suid ($devmm $ino)" "exit $rc" "$out" \
		"targets: $(cat /sys/kernel/security/brute/targets 2>&1)"
fi
json=$(entry)
if echo "$json" | grep -qE '"faults":[0-9]+,.*"banned":true,"ban_left_s":(8[5-9][0-9]|900),"denied":[0-9]+}'; then
	ok "list --json: the ban, about 900 s left"
else
	not_ok "list --json: the ban, about 900 s left" "$json" "$(brutectl list --json 2>&1)"
fi
denied=$(echo "$json" | sed -n 's/.*"denied":\([0-9]*\)}.*/\1/p')

# --- the banned exec fails with EPERM, and is counted
out=$(timeout 10 runas 1000 "$target" pause 2>&1)
rc=$?
if [ $rc = 127 ] && echo "$out" | grep -q 'Operation not permitted'; then
	ok "runas 1000 crasher_suid: EPERM while banned"
else
	not_ok "runas 1000 crasher_suid: EPERM while banned" "exit $rc" "$out"
fi
if [ -n "$denied" ] && row | grep -qE "BANNED [0-9]+m[0-9]+s +$((denied + 1))  crasher_suid$"; then
	ok "list: DENIED counts the refused exec ($denied -> $((denied + 1)))"
else
	not_ok "list: DENIED counts the refused exec" "before: '$denied'" "$(brutectl list 2>&1)"
fi

# --- uid 1000 can neither read the table nor lift its own ban
out=$(runas 1000 brutectl lift 1000 "$target" 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q 'lifting a ban needs root'; then
	ok "runas 1000 brutectl lift: refused, needs root"
else
	not_ok "runas 1000 brutectl lift: refused, needs root" "exit $rc" "$out"
fi
out=$(runas 1000 brutectl list 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q 'reading it needs root'; then
	ok "runas 1000 brutectl list: refused, needs root"
else
	not_ok "runas 1000 brutectl list: refused, needs root" "exit $rc" "$out"
fi
if row | grep -q ' BANNED '; then
	ok "the ban is still there"
else
	not_ok "the ban is still there" "$(brutectl list 2>&1)"
fi

# --- root lifts it: gone from the table, audited, and the exec works again
out=$(brutectl lift 1000 "$target" 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "lifted the ban of uid 1000 on $target ($devmm $ino)" ]; then
	ok "brutectl lift 1000 PATH as root"
else
	not_ok "brutectl lift 1000 PATH as root" "exit $rc" "$out"
fi
# The lift forgets the entry's counts: gone, or there with no faults and no ban.
json=$(entry)
if [ -z "$json" ] || echo "$json" | grep -q '"faults":0,.*"banned":false'; then
	ok "lifted: not banned, counts forgotten"
else
	not_ok "lifted: not banned, counts forgotten" "$json"
fi
if wait_for 10 sh -c "ausearch --raw -m 1717 2>/dev/null | grep 'attacker_uid=1000 target_dev=$devmm target_ino=$ino ' | grep -q 'reason=lifted'"; then
	ok "the lift is audited (1717 reason=lifted)"
else
	not_ok "the lift is audited (1717 reason=lifted)" "$(ausearch --raw -m 1717 2>&1 | tail -n 3)"
fi
runas 1000 "$target" pause 2>/tmp/bc-exec.err &
pid=$!
if wait_for 5 sh -c "readlink /proc/$pid/exe | grep -q crasher_suid"; then
	ok "runas 1000 crasher_suid runs again"
else
	not_ok "runas 1000 crasher_suid runs again" "$(cat /tmp/bc-exec.err)"
fi
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

out=$(brutectl lift 1000 "$target" 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "no such ban: uid 1000 on $target"; then
	ok "lifting it again: no such ban (ENOENT)"
else
	not_ok "lifting it again: no such ban (ENOENT)" "exit $rc" "$out"
fi

# --- a second attack (its counts were forgotten with the lift), lifted with --all
runas 1000 "$st/attacker" exec 12 "$target" segv >/dev/null 2>&1
if row | grep -q ' BANNED '; then
	out=$(brutectl lift --all 2>&1)
	rc=$?
	if [ $rc = 0 ] && [ "$out" = "lifted every ban" ] && [ "$(brutectl list --bans)" = "no bans" ]; then
		ok "lift --all: no bans left"
	else
		not_ok "lift --all: no bans left" "exit $rc" "$out" "$(brutectl list 2>&1)"
	fi
else
	not_ok "a second attack is banned again" "$(brutectl list 2>&1)"
fi

# --- the services status shows (issue 30 item 5; any kernel): each listener, its holder,
# its namespace; this guest runs no systemd
lift_all() { brutectl lift --all >/dev/null 2>&1; }
lift_all
rm -f /tmp/bc-v4.sock
$st/service unix /tmp/bc-v4.sock >/tmp/bc-v4u.out 2>&1 &
usvc=$!
$st/service tcp 127.0.0.1:7979 >/tmp/bc-v4t.out 2>&1 &
tsvc=$!
wait_for 10 grep -q listening /tmp/bc-v4u.out
wait_for 10 grep -q listening /tmp/bc-v4t.out
ns=$(stat -L -c %i /proc/self/ns/net)
out=$(brutectl status 2>&1)
svc=$(echo "$out" | sed -n '/^services:/,/^host:/p')
printf '%s\n' "$svc" | sed 's/^/# brutectl status| /'
if echo "$svc" | grep -q "^    unix /tmp/bc-v4.sock, netns $ns, pid $usvc service (root)$" &&
	echo "$svc" | grep -q "^    tcp 127.0.0.1:7979, netns $ns, pid $tsvc service (root)$" &&
	echo "$svc" | grep -q '^  (no systemd unit)$' &&
	! echo "$svc" | grep -q 'not understood'; then
	ok "status: the services (a Unix and a TCP listener, their holder and namespace; no systemd unit)"
else
	not_ok "status: the services" "$svc"
fi
json=$(brutectl status --json 2>&1)
if echo "$json" | grep -q "{\"transport\":\"unix\",\"netns\":$ns,\"path\":\"/tmp/bc-v4.sock\",\"path_ambiguous\":false,\"inode\":[0-9]*,\"processes\":1,\"pid\":$usvc,\"comm\":\"service\",\"user\":\"root\"" &&
	echo "$json" | grep -q '"services":{"systemd":false,'; then
	ok "status --json: the services"
else
	not_ok "status --json: the services" "$(echo "$json" | tail -c 2000)"
fi

# --- response v4: the trusted list (written before the v4 kernel landed; see the contract)
if [ ! -e /sys/kernel/security/brute/trusted ]; then
	out=$(brutectl trust list 2>&1)
	rc=$?
	if [ $rc = 1 ] && echo "$out" | grep -q 'has no trusted list (older than v4?)'; then
		ok "trust list on a kernel without a trusted list (pre-v4): exit 1, says so"
	else
		not_ok "trust list on a pre-v4 kernel: exit 1, says so" "exit $rc" "$out"
	fi
	skip "brutectl trust against the kernel" "this kernel has no trusted list (pre-v4)"
	exit 0
fi
T=/sys/kernel/security/brute/trusted
: >/tmp/bc-empty.conf
chmod 600 /tmp/bc-empty.conf
brutectl trust load /tmp/bc-empty.conf >/dev/null 2>&1
out=$(brutectl trust list 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$(cat $T)" = "" ] && echo "$out" | grep -q '^no trusted peers$' &&
	echo "$out" | grep -q "^local uids 1-$(cat /proc/sys/kernel/brute/trusted_uid_max) are trusted relays"; then
	ok "trust load of an empty file: the kernel's list empty; trust list says so, and trusted_uid_max"
else
	not_ok "trust load of an empty file, trust list" "exit $rc" "$out" "$(cat $T)"
fi
confs() { ausearch --raw -m 1715 2>/dev/null | grep -c ' tunable=trusted op=update '; }
n0=$(confs)
out=$(brutectl trust add 192.0.2.0/24 uid:1001 198.51.100.7 netns=/proc/self/ns/net endpoint=*:7979 2>&1)
rc=$?
want="trusted=192.0.2.0/24 crashes=0
trusted=uid:1001 crashes=0
trusted=198.51.100.7/32 netns=$ns lport=7979 crashes=0"
if [ $rc = 0 ] && [ "$(cat $T)" = "$want" ]; then
	ok "trust add: the kernel lists the three entries (netns= resolved to $ns)"
else
	not_ok "trust add: the kernel lists the three entries" "exit $rc" "$out" "got: $(cat $T)" "want: $want"
fi
wait_for 10 sh -c "ausearch --raw -m 1715 2>/dev/null | grep -q 'tunable=trusted op=update added=3 removed=0 entries=3 '"
sleep 1
if [ "$(confs)" = $((n0 + 1)) ] &&
	ausearch --raw -m 1715 2>/dev/null | grep -q 'tunable=trusted op=update added=3 removed=0 entries=3 '; then
	ok "trust add of 3 entries: one BRUTE_CONFIG record (added=3 entries=3): one transaction"
else
	not_ok "trust add: one BRUTE_CONFIG record" "records: $n0 -> $(confs)" "$(ausearch --raw -m 1715 2>&1 | tail -n 3)"
fi
if grep -qE '(^| )trusted=3( |$)' /sys/kernel/security/brute/stats &&
	brutectl status | grep -q '^trusted: 3 declared peers (brutectl trust list); local uids 1-[0-9]* are relays'; then
	ok "stats trusted=3, status says it"
else
	not_ok "stats trusted=3, status says it" "$(cat /sys/kernel/security/brute/stats)"
fi
out=$(brutectl status 2>&1 | sed -n '/^    unix \/tmp\/bc-v4.sock/,/trusted:/p')
if echo "$out" | grep -q '^      trusted: uid:1001, local uids 1-[0-9]* (trusted_uid_max)$'; then
	ok "status: the Unix service is covered by uid:1001 and the relay uids"
else
	not_ok "status: the Unix service covered by uid:1001" "$out"
fi
out=$(brutectl status 2>&1 | sed -n '/^    tcp 127.0.0.1:7979/,/trusted:/p')
if echo "$out" | grep -q "^      trusted: 192.0.2.0/24, uid:1001, 198.51.100.7/32 netns=$ns endpoint=\*:7979, local uids"; then
	ok "status: the TCP service is covered by the address entries and uid:1001"
else
	not_ok "status: the TCP service covered" "$out"
fi
out=$(brutectl trust del 192.0.2.0/24 2>&1)
rc=$?
if [ $rc = 0 ] && ! grep -q '192.0.2.0/24' $T && [ "$(wc -l <$T)" = 2 ]; then
	ok "trust del: the entry gone from the kernel's list"
else
	not_ok "trust del" "exit $rc" "$out" "$(cat $T)"
fi
out=$(brutectl trust del 192.0.2.0/24 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q 'no such trusted entry: 192.0.2.0/24'; then
	ok "trust del of an entry that is not there: exit 1"
else
	not_ok "trust del of an entry that is not there" "exit $rc" "$out"
fi
out=$(runas 1000 brutectl trust add 10.0.0.0/8 2>&1)
rc=$?
out2=$(runas 1000 brutectl trust list 2>&1)
rc2=$?
if [ $rc = 1 ] && echo "$out" | grep -q 'needs root' && [ $rc2 = 1 ] && echo "$out2" | grep -q 'needs root' &&
	! grep -q '10.0.0.0/8' $T; then
	ok "runas 1000 brutectl trust add/list: refused, needs root"
else
	not_ok "runas 1000 brutectl trust add/list: refused" "$rc: $out" "$rc2: $out2"
fi
# load: the file replaces the list, in one transaction
cat >/tmp/bc-trust.conf <<EOF
# a comment
10.0.0.0/8
uid:1001
2001:db8::/32 endpoint=[::]:443
EOF
chmod 600 /tmp/bc-trust.conf
n0=$(confs)
out=$(brutectl trust load /tmp/bc-trust.conf 2>&1)
rc=$?
want="trusted=10.0.0.0/8 crashes=0
trusted=uid:1001 crashes=0
trusted=2001:db8::/32 laddr=:: lport=443 crashes=0"
if [ $rc = 0 ] && [ "$(sed 's/ crashes=[0-9]*$/ crashes=0/' $T)" = "$want" ]; then
	ok "trust load: the kernel's list is the file's"
else
	not_ok "trust load: the kernel's list is the file's" "exit $rc" "$out" "$(cat $T)"
fi
wait_for 10 sh -c "[ \$(ausearch --raw -m 1715 2>/dev/null | grep -c ' tunable=trusted op=update ') -gt $n0 ]"
sleep 1
if [ "$(confs)" = $((n0 + 1)) ] &&
	ausearch --raw -m 1715 2>/dev/null | grep ' tunable=trusted op=update ' | tail -n 1 |
	grep -q 'tunable=trusted op=update added=[0-9]* removed=[0-9]* entries=3 '; then
	ok "trust load: one BRUTE_CONFIG record (the flush and the adds in one transaction), entries=3"
else
	not_ok "trust load: one BRUTE_CONFIG record" "records: $n0 -> $(confs)" "$(ausearch --raw -m 1715 2>&1 | tail -n 3)"
fi
n0=$(confs)
before=$(cat $T)
printf '10.1.0.0/16\nuid:1002\n10.1.2.3/8\n' >/tmp/bc-bad.conf
chmod 600 /tmp/bc-bad.conf
out=$(brutectl trust load /tmp/bc-bad.conf 2>&1)
rc=$?
sleep 1
if [ $rc = 1 ] && echo "$out" | grep -q '/tmp/bc-bad.conf:3: ' && [ "$(cat $T)" = "$before" ] &&
	[ "$(confs)" = "$n0" ]; then
	ok "trust load of a file with an error on line 3: exit 1, says the line, the kernel's list unchanged, no record"
else
	not_ok "trust load of a bad file" "exit $rc" "$out" "before: $before" "after: $(cat $T)"
fi
# the kernel's semantics as brutectl shows them: uid 1001 (trusted) crashes the Unix service
# 6 times and is never charged; uid 1002 (not trusted, above trusted_uid_max) is banned, and
# brutectl peers shows its endpoint by path (lpath=)
c1=$($st/client -u 1001 -c 6 -r crash unix /tmp/bc-v4.sock)
c2=$($st/client -u 1002 -c 6 -r crash unix /tmp/bc-v4.sock)
diag "uid 1001: $c1; uid 1002: $c2"
peers=$(brutectl peers 2>&1)
printf '%s\n' "$peers" | sed 's/^/# brutectl peers| /'
table=$(echo "$peers" | sed '/^trusted peers (/,$d')
trusted=$(echo "$peers" | sed -n '/^trusted peers (/,$p')
spared=$(echo "$trusted" | sed -n 's/^uid:1001 .*  any  *any  *\([0-9][0-9]*\)$/\1/p')
if ! echo "$table" | grep -q '^uid:1001 ' && [ "${spared:-0}" -ge 6 ] &&
	echo "$table" | grep -q '^uid:1002  .*unix /tmp/bc-v4.sock  .*BANNED '; then
	ok "peers: the trusted uid:1001 listed as trusted with its crashes, never in the table; uid:1002 banned on unix /tmp/bc-v4.sock (lpath)"
else
	not_ok "peers: trusted uid:1001 with its crashes, uid:1002 banned on the socket's path" "$peers"
fi
json=$(brutectl peers --json 2>&1)
if echo "$json" | grep -q '"peer":"uid:1002".*"transport":"unix","lino":[0-9]*,"lpath":"/tmp/bc-v4.sock","lpath_raw":"/tmp/bc-v4.sock"' &&
	echo "$json" | tr -d '\n' | grep -q '"trusted":\[.*{"trusted":"uid:1001","family":"uid","uid_first":1001,"uid_last":1001'; then
	ok "peers --json: lpath, and the trusted entries"
else
	not_ok "peers --json: lpath, trusted" "$json"
fi
# the kernel's write semantics: one write() per open file is one transaction; a second
# write() to the same file (a shell writing a line at a time) is refused, so what it split
# never applies piece by piece past its first write; a NUL byte is refused, not a cut
before=$(cat $T)
{ printf 'add 203.0.113.1\n'; printf 'add 203.0.113.2\n'; } >$T 2>/dev/null
rc=$?
after=$(cat $T)
printf 'add 203.0.113.3\0add 300.1.1.1\n' >$T 2>/dev/null
rc_nul=$?
if [ $rc != 0 ] && [ $rc_nul != 0 ] && echo "$after" | grep -q '^trusted=203.0.113.1/32 ' &&
	! echo "$after" | grep -q '203.0.113.2' && ! grep -q '203.0.113.3' $T; then
	ok "trusted: a second write() to the open file refused (exit $rc), only the first applied; a NUL refused"
else
	not_ok "trusted: split writes and NUL" "exit $rc, nul exit $rc_nul" "before: $before" "after: $after" "now: $(cat $T)"
fi
echo 'del 203.0.113.1' >$T
{ echo flush; echo flush; } >/sys/kernel/security/brute/lift 2>/dev/null
rc=$?
echo '4294968296 0:2 38' >/sys/kernel/security/brute/lift 2>/dev/null
rc_wrap=$?
if [ $rc != 0 ] && [ $rc_wrap != 0 ]; then
	ok "lift: a second write() refused; a user ID past 2^32 refused, not wrapped"
else
	not_ok "lift: second write, wrapped number" "exit $rc, wrap exit $rc_wrap"
fi
lift_all || :
