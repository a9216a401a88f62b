#!/bin/sh
# brutectl against the real kernel (Brute v2): an exec attack by uid 1000 on a set-user-ID
# target gets that (uid, target) banned; brutectl lists the ban, the banned exec fails with
# EPERM, uid 1000 can neither read the table nor lift the ban, root lifts it and the exec
# works again; status shows every tunable, Brute and audit active.
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
	echo "$old_mode" >/proc/sys/kernel/brute/mode
	echo "$old_ban" >/proc/sys/kernel/brute/ban_time_s
}
trap restore EXIT

# --- status: Brute active, auditd enabled, every tunable present (9 in v2, 16 in v3)
out=$(brutectl status 2>&1)
rc=$?
ntunables=$(ls /proc/sys/kernel/brute | wc -l)
if [ $rc = 0 ] && echo "$out" | grep -q '^brute: *active (lsm: .*brute' &&
	echo "$out" | grep -q '^audit: *enabled, auditd pid [1-9]' &&
	echo "$out" | grep -q '^  mode  *2 (detect, audit and stop)$' &&
	echo "$out" | grep -q '^  ban_time_s  *900$' &&
	echo "$out" | grep -q '^stats:   hierarchies [0-9]*, targets [0-9]*, bans [0-9]*' &&
	! echo "$out" | grep -q 'absent\|unreadable' &&
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
