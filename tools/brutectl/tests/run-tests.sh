#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests of brutectl against a fake /sys and /proc tree (BRUTE_SYSFS_ROOT).
#   run-tests.sh FAILWRITE_SO BRUTECTL...
# Runs every test against each BRUTECTL (the normal and the ASan/UBSan build); prints TAP
# ("ok N - build: name") and ends with one line "N passed, N failed". Exit 1 if any failed.
set -u
failwrite=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A sanitizer report must fail the test: ASan/UBSan exit with 99, never with 0, 1 or 2.
export ASAN_OPTIONS=exitcode=99:detect_leaks=1:verify_asan_link_order=0
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1

n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $build: $1"; }
not_ok() {
	n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $build: $1"
	shift
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /'; done
}

root=$tmp/root
sec=$root/sys/kernel/security
sysctl=$root/proc/sys/kernel/brute
export BRUTE_SYSFS_ROOT="$root"

fresh_tree() {
	rm -rf "$root"
	mkdir -p "$sec/brute" "$sysctl"
	echo "lockdown,capability,landlock,yama,brute" >"$sec/lsm"
	: >"$sec/brute/targets"
	: >"$sec/brute/peers"
	: >"$sec/brute/lift"
	echo "hierarchies=41 targets=3 bans=1 peers=4 peer_bans=2 records_dropped=7" >"$sec/brute/stats"
	for kv in mode=2 crash_period_threshold_ms=30000 min_faults=5 max_faults=200 \
		ema_weight_numerator=7 ema_weight_denominator=10 ban_time_s=900 table_size=1024 \
		forget_time_s=3600 backstop_faults=1000 peer_ban_time_s=900 peer_prefix_v4=32 \
		peer_prefix_v6=64 escalate_prefix_v4=24 escalate_prefix_v6=48 escalate_faults=30; do
		echo "${kv#*=}" >"$sysctl/${kv%%=*}"
	done
}

# run ARGS...: brutectl's stdout in $out, stderr in $errout, exit status in $rc.
run() {
	: >"$tmp/py"
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	errout=$(cat "$tmp/err")
}

# expect NAME RC [GREP_STDOUT [GREP_STDERR]]: the last run exited RC and its outputs match.
expect() {
	_name=$1 _rc=$2
	if [ "$rc" != "$_rc" ]; then
		not_ok "$_name" "exit $rc, expected $_rc" "stdout: $out" "stderr: $errout"
	elif [ -n "${3:-}" ] && ! printf '%s\n' "$out" | grep -q -e "$3"; then
		not_ok "$_name" "stdout does not match '$3'" "stdout: $out" "stderr: $errout"
	elif [ -n "${4:-}" ] && ! printf '%s\n' "$errout" | grep -q -e "$4"; then
		not_ok "$_name" "stderr does not match '$4'" "stdout: $out" "stderr: $errout"
	else
		ok "$_name"
	fi
}

# The name of uid 0 (the golden table expects root; uids 3999999998/9 have no name).
rootname=$(getent passwd 0 | cut -d: -f1)

# One well-formed table: escaped names (space, tab, newline, backslash, '=', ESC), raw
# UTF-8, an unknown field a newer kernel may add, the optional field attacks, a uid
# without a passwd entry.
write_targets() {
	cat >"$sec/brute/targets" <<'EOF'
attacker_uid=3999999998 target_dev=0:21 target_ino=1234 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=crasher_suid
attacker_uid=0 target_dev=8:1 target_ino=99 faults=1 attacks=0 ema_ms=30000 idle_ms=61000 ban_left_s=0 denied=0 target_name=my\040prog\011x
attacker_uid=3999999999 target_dev=259:65536 target_ino=18446744073709551615 faults=200 attacks=3 ema_ms=0 idle_ms=4000000 ban_left_s=604800 denied=17 future_field=abc target_name=a\134b\075c\012d\033[31m
attacker_uid=3999999998 target_dev=0:21 target_ino=77 faults=3 ema_ms=999 idle_ms=90061000 ban_left_s=0 denied=0 target_name=ünï
EOF
}

table_expected() {
	cat <<'EOF'
       UID  USER  DEV                         INO  FAULTS    EMA   IDLE  BAN            DENIED  TARGET
3999999998  -     0:21                       1234       5  120ms   5.0s  BANNED 14m55s       2  crasher_suid
         0  root  8:1                          99       1  30.0s  1m01s  -                   0  my prog\011x
3999999999  -     259:65536  18446744073709551615     200    0ms  1h06m  BANNED 7d00h       17  a\134b=c\012d\033[31m
3999999998  -     0:21                         77       3  999ms  1d01h  -                   0  ünï
EOF
}

for bin in "$@"; do
	build=$(basename "$(dirname "$bin")")
	fresh_tree

	# --- usage, help, version
	run --version
	expect "--version" 0 '^brutectl [^ ]'
	run --help
	expect "--help" 0 'lift USER PATH'
	run -h
	expect "-h" 0 'Exit status'
	run --help
	expect "--help: peers" 0 'peers \[--bans\] \[--json\]'
	run --help
	expect "--help: lift --peer" 0 'lift --peer ADDR\[/LEN\]'
	run peers --help
	expect "peers --help" 0 'lift --peer uid:USER'
	run
	expect "no command: usage error" 2 '' 'usage:'
	run frobnicate
	expect "unknown command: usage error" 2 '' "unknown command 'frobnicate'"
	run list --bogus
	expect "list --bogus: usage error" 2 '' "unknown argument '--bogus'"
	run status --bogus
	expect "status --bogus: usage error" 2 '' "unknown argument"

	# --- list: the table, exactly (uid 1000 may exist on the host: its name is read)
	write_targets
	run list
	exp=$(table_expected)
	if [ "$rootname" != root ] || getent passwd 3999999998 3999999999 >/dev/null; then
		ok "list: aligned table # SKIP this host's passwd has uid 0 not root or uid 3999999998/9"
	elif [ "$rc" != 0 ]; then
		not_ok "list: table" "exit $rc" "$errout"
	elif [ "$out" != "$exp" ]; then
		not_ok "list: table" "got:" "$out" "expected:" "$exp"
	else
		ok "list: aligned table, names decoded and re-escaped for the terminal"
	fi
	if printf '%s\n' "$out" | grep -q "$(printf '\033')"; then
		not_ok "list: no raw escape character reaches the terminal" "$out"
	else
		ok "list: no raw escape character reaches the terminal"
	fi

	run list --bans
	if [ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 3 ] &&
		printf '%s\n' "$out" | grep -q '^3999999998 .*BANNED 14m55s *2  crasher_suid$' &&
		printf '%s\n' "$out" | grep -q '^3999999999 .*BANNED 7d00h' &&
		! printf '%s\n' "$out" | grep -q 'my prog'; then
		ok "list --bans: only the banned entries"
	else
		not_ok "list --bans: only the banned entries" "exit $rc" "$out" "$errout"
	fi

	run list --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["entries"]
assert len(d) == 4, d
e = d[0]
assert (e["attacker_uid"], e["target_dev"], e["target_ino"], e["faults"], e["ema_ms"],
        e["idle_ms"], e["banned"], e["ban_left_s"], e["denied"], e["target_name"]) == \
       (3999999998, "0:21", 1234, 5, 120, 5000, True, 895, 2, "crasher_suid"), e
assert d[1]["target_name"] == "my prog\tx" and d[1]["target_name_raw"] == "my\\040prog\\011x"
assert d[1]["user"] == sys.argv[1] and d[1]["banned"] is False
assert d[2]["user"] is None and d[2]["target_ino"] == 18446744073709551615
assert d[2]["target_name"] == "a\\b=c\nd\x1b[31m", repr(d[2]["target_name"])
assert d[3]["target_name"] == "\u00fcn\u00ef"
assert "attacks" not in d[0] and d[1]["attacks"] == 0 and d[2]["attacks"] == 3
' "$rootname" 2>"$tmp/py"; then
		ok "list --json: every field, names decoded"
	else
		not_ok "list --json: every field, names decoded" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi
	run list --bans --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["entries"]
assert [e["attacker_uid"] for e in d] == [3999999998, 3999999999], d' 2>"$tmp/py"; then
		ok "list --bans --json"
	else
		not_ok "list --bans --json" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi

	: >"$sec/brute/targets"
	run list
	expect "list: empty table" 0 '^no entries$'
	run list --bans
	expect "list --bans: no bans" 0 '^no bans$'
	run list --json
	expect "list --json: empty" 0 '^{"entries":\[\]}$'

	# A long name (64 KiB escaped) parses.
	python3 -c 'print("attacker_uid=1 target_dev=0:1 target_ino=2 faults=1 ema_ms=1 idle_ms=1 ban_left_s=0 denied=0 target_name=" + "x\\040" * 13000)' >"$sec/brute/targets"
	run list --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
assert json.load(sys.stdin)["entries"][0]["target_name"] == "x " * 13000' 2>"$tmp/py"; then
		ok "list: a 64 KiB line"
	else
		not_ok "list: a 64 KiB line" "exit $rc" "$(cat "$tmp/py")" "$errout"
	fi

	# The scope of an entry (v3): the user's overflow entry, of one target or of several.
	cat >"$sec/brute/targets" <<'EOF'
attacker_uid=1 target_dev=0:21 target_ino=5 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 denied=0 scope=target target_name=own
attacker_uid=1 target_dev=0:21 target_ino=6 faults=2 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 denied=0 scope=overflow target_name=one
attacker_uid=2 target_dev=0:0 target_ino=0 faults=0 attacks=1 ema_ms=1 idle_ms=1 ban_left_s=600 denied=4 scope=any target_name=*
EOF
	run list
	if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '  own$' &&
		printf '%s\n' "$out" | grep -q '  one (overflow entry)$' &&
		printf '%s\n' "$out" | grep -q '^ *2 .*BANNED 10m00s .*  \* (every privileged program)$'; then
		ok "list: an overflow entry and a ban of every privileged program say so"
	else
		not_ok "list: an overflow entry and a ban of every privileged program say so" "exit $rc" "$out" "$errout"
	fi
	run list --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
e = json.load(sys.stdin)["entries"]
assert [x.get("scope") for x in e] == ["target", "overflow", "any"], e' 2>"$tmp/py"; then
		ok "list --json: scope"
	else
		not_ok "list --json: scope" "exit $rc" "$(cat "$tmp/py")" "$errout"
	fi

	# --- malformed lines: exit 1, the line number and why, nothing on stdout, no crash
	good='attacker_uid=1000 target_dev=0:21 target_ino=1234 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=x'
	while IFS='|' read -r why line; do
		printf '%s\n%s\n' "$good" "$line" >"$sec/brute/targets"
		run list
		if [ "$rc" = 1 ] && [ -z "$out" ] &&
			printf '%s\n' "$errout" | grep -q "targets:2: malformed line: $why"; then
			ok "malformed rejected: $why"
		else
			not_ok "malformed rejected: $why" "line: $line" "exit $rc" "stdout: $out" "stderr: $errout"
		fi
	done <<'EOF'
missing field attacker_uid|target_dev=0:21 target_ino=1234 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
missing field target_name|attacker_uid=1000 target_dev=0:21 target_ino=1234 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2
missing field attacker_uid|
bad value for attacker_uid: '-1'|attacker_uid=-1 target_dev=0:21 target_ino=1234 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for attacker_uid: '4294967296'|attacker_uid=4294967296 target_dev=0:21 target_ino=1234 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for target_ino: '18446744073709551616'|attacker_uid=1 target_dev=0:21 target_ino=18446744073709551616 faults=5 ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for faults: '5x'|attacker_uid=1 target_dev=0:21 target_ino=1 faults=5x ema_ms=120 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for ema_ms: ''|attacker_uid=1 target_dev=0:21 target_ino=1 faults=5 ema_ms= idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for target_dev: '021'|attacker_uid=1 target_dev=021 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for target_dev: ':21'|attacker_uid=1 target_dev=:21 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for target_dev: '0:'|attacker_uid=1 target_dev=0: target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=895 denied=2 target_name=x
bad value for ban_left_s: '+3'|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=+3 denied=2 target_name=x
duplicate field faults|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 faults=6 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=x
duplicate field attacks|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 attacks=1 attacks=1 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=x
bad value for attacks: 'x'|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 attacks=x ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=x
bad value for scope: 'all'|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 scope=all target_name=x
expected key=value, got 'junk'|attacker_uid=1 junk target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=x
expected key=value, got '=5'|attacker_uid=1 =5 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=x
bad escape in target_name|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=a\9bc
bad escape in target_name|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=a\04
bad escape in target_name|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=ab\
bad escape in target_name|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=a\400
NUL byte in target_name|attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=5000 ban_left_s=0 denied=2 target_name=a\000b
EOF
	# Raw control characters and a NUL byte inside a line.
	printf '%s\nattacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=1 ban_left_s=0 denied=2 target_name=a\tb\n' "$good" >"$sec/brute/targets"
	run list
	expect "malformed rejected: raw tab in a name" 1 '' 'targets:2: malformed line: unescaped control character in target_name'
	printf '%s\nattacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=1 ban_left_s=0 denied=2 target_name=a\033b\n' "$good" >"$sec/brute/targets"
	run list --json
	expect "malformed rejected: raw ESC in a name (--json)" 1 '' 'targets:2: malformed line: unescaped control'
	printf '%s\nattacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=1 ban_left_s=0 denied=2 target_name=a\000b\n' "$good" >"$sec/brute/targets"
	run list
	expect "malformed rejected: NUL byte in a line" 1 '' 'targets:2: malformed line: NUL byte'
	# The bytes a malformed line quotes reach the terminal escaped, as names do.
	printf '%s\nattacker_uid=1\033[31m target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=1 ban_left_s=0 denied=2 target_name=a\n' "$good" >"$sec/brute/targets"
	run list
	if [ "$rc" = 1 ] && printf '%s\n' "$errout" | grep -qF "targets:2: malformed line: bad value for attacker_uid: '1\\033[31m'" &&
		! printf '%s' "$errout" | grep -q "$(printf '\033')"; then
		ok "malformed rejected: the quoted value's ESC escaped"
	else
		not_ok "malformed rejected: the quoted value's ESC escaped" "exit $rc" "$errout"
	fi
	# Random garbage: rejected cleanly, never a crash or a sanitizer report.
	head -c 4096 /dev/urandom >"$sec/brute/targets"
	run list
	expect "random bytes rejected cleanly" 1 '' 'malformed line'

	# --- the targets file missing or unreadable
	rm "$sec/brute/targets"
	run list
	expect "list: no targets file, Brute active" 1 '' 'has no (uid, target) table'
	echo "lockdown,capability,yama" >"$sec/lsm"
	run list
	expect "list: no targets file, Brute not active" 1 '' 'Brute is not active'
	rm -rf "$sec"
	run list
	expect "list: no securityfs" 1 '' 'is securityfs mounted'
	fresh_tree
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		chmod 400 "$sec/brute/targets"
		chmod 200 "$sec/brute/lift"
		chmod 755 "$tmp"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" list >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "list as non-root: needs root" 1 '' 'Permission denied (reading it needs root)'
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" lift --all >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "lift as non-root: needs root" 1 '' 'Permission denied (lifting a ban needs root)'
	else
		ok "list/lift as non-root # SKIP needs root and setpriv"
	fi

	# --- peers: the peer table (Brute v3), as list shows the targets
	fresh_tree
	run peers --bogus
	expect "peers --bogus: usage error" 2 '' "unknown argument '--bogus'"
	run peers
	expect "peers: empty table" 0 '^no peer entries$'
	run peers --bans
	expect "peers --bans: no bans" 0 '^no peer bans$'
	run peers --json
	expect "peers --json: empty" 0 '^{"entries":\[\]}$'
	# One well-formed table: IPv4, a Unix peer (a uid without a passwd entry), IPv6 on an
	# IPv6 listener, an unknown field a newer kernel may add.
	cat >"$sec/brute/peers" <<'PEERS'
peer=10.199.0.2/32 netns=4026532281 transport=tcp laddr=0.0.0.0 lport=7777 faults=1 attacks=1 ema_ms=12 idle_ms=800 ban_left_s=899 refused=3
peer=uid:3999999998 peer_uid=3999999998 netns=4026531840 transport=unix lino=23114 faults=0 attacks=1 ema_ms=0 idle_ms=900 ban_left_s=0 refused=1
peer=2001:db8:1:2::/64 netns=4026531840 transport=tcp laddr=2001:db8::1 lport=22 faults=4 attacks=0 ema_ms=1500 idle_ms=90000 ban_left_s=604800 refused=0 future_field=x
PEERS
	exp=$(cat <<'PEERS'
PEER               USER  ENDPOINT                   NETNS  FAULTS  ATTACKS   EMA   IDLE  BAN            REFUSED
10.199.0.2/32      -     tcp 0.0.0.0:7777      4026532281       1        1  12ms  800ms  BANNED 14m59s        3
uid:3999999998     -     unix socket 23114     4026531840       0        1   0ms  900ms  -                    1
2001:db8:1:2::/64  -     tcp [2001:db8::1]:22  4026531840       4        0  1.5s  1m30s  BANNED 7d00h         0
PEERS
)
	run peers
	if getent passwd 3999999998 >/dev/null; then
		ok "peers: aligned table # SKIP this host's passwd has uid 3999999998"
	elif [ "$rc" = 0 ] && [ "$out" = "$exp" ]; then
		ok "peers: aligned table"
	else
		not_ok "peers: aligned table" "exit $rc" "got:" "$out" "expected:" "$exp" "$errout"
	fi
	run peers --bans
	if [ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 3 ] &&
		printf '%s\n' "$out" | grep -q '^10\.199\.0\.2/32 .*BANNED 14m59s *3$' &&
		printf '%s\n' "$out" | grep -q '^2001:db8:1:2::/64 .*BANNED 7d00h' &&
		! printf '%s\n' "$out" | grep -q 'uid:'; then
		ok "peers --bans: only the banned entries"
	else
		not_ok "peers --bans: only the banned entries" "exit $rc" "$out" "$errout"
	fi
	printf 'peer=uid:0 netns=1 transport=unix lino=5 faults=2 attacks=0 ema_ms=3 idle_ms=4 ban_left_s=0 refused=0\n' >>"$sec/brute/peers"
	run peers --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["entries"]
assert len(d) == 4, d
assert d[0] == {"peer": "10.199.0.2/32", "family": "ipv4", "address": "10.199.0.2", "prefix": 32,
                "netns": 4026532281, "transport": "tcp", "laddr": "0.0.0.0", "lport": 7777,
                "faults": 1, "attacks": 1, "ema_ms": 12, "idle_ms": 800, "banned": True,
                "ban_left_s": 899, "refused": 3}, d[0]
assert d[1] == {"peer": "uid:3999999998", "family": "unix", "peer_uid": 3999999998, "user": None,
                "netns": 4026531840, "transport": "unix", "lino": 23114, "faults": 0,
                "attacks": 1, "ema_ms": 0, "idle_ms": 900, "banned": False, "ban_left_s": 0,
                "refused": 1}, d[1]
assert (d[2]["family"], d[2]["address"], d[2]["prefix"], d[2]["laddr"], d[2]["lport"],
        d[2]["banned"], d[2]["ban_left_s"]) == ("ipv6", "2001:db8:1:2::", 64, "2001:db8::1", 22,
                                                True, 604800), d[2]
assert d[3]["user"] == sys.argv[1] and d[3]["peer_uid"] == 0, d[3]
' "$rootname" 2>"$tmp/py"; then
		ok "peers --json: every field"
	else
		not_ok "peers --json: every field" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi
	run peers --bans --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["entries"]
assert [e["peer"] for e in d] == ["10.199.0.2/32", "2001:db8:1:2::/64"], d' 2>"$tmp/py"; then
		ok "peers --bans --json"
	else
		not_ok "peers --bans --json" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi
	# A layout's entry (layout=): its endpoint is where the count started, and it covers
	# every endpoint of that layout.
	printf 'peer=10.199.0.3/32 netns=1 transport=tcp laddr=10.199.0.1 lport=443 faults=0 attacks=1 ema_ms=0 idle_ms=5 ban_left_s=60 refused=2 layout=4294968302\n' >>"$sec/brute/peers"
	run peers --bans
	if [ "$rc" = 0 ] &&
		printf '%s\n' "$out" | grep -q '^10\.199\.0\.3/32 .*tcp 10\.199\.0\.1:443 +layout 4294968302 .*BANNED 1m00s *2$'; then
		ok "peers: a layout's entry says +layout ID"
	else
		not_ok "peers: a layout's entry says +layout ID" "exit $rc" "$out" "$errout"
	fi
	run peers --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["entries"]
assert d[4]["layout"] == 4294968302 and d[4]["lport"] == 443, d[4]
assert all("layout" not in e for e in d[:4]), d' 2>"$tmp/py"; then
		ok "peers --json: layout"
	else
		not_ok "peers --json: layout" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi

	# malformed peer lines: exit 1, the line number and why, nothing on stdout
	pgood='peer=10.0.0.1/32 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0'
	while IFS='|' read -r why line; do
		printf '%s\n%s\n' "$pgood" "$line" >"$sec/brute/peers"
		run peers
		if [ "$rc" = 1 ] && [ -z "$out" ] &&
			printf '%s\n' "$errout" | grep -qF "peers:2: malformed line: $why"; then
			ok "peers: malformed rejected: $why"
		else
			not_ok "peers: malformed rejected: $why" "line: $line" "exit $rc" "stdout: $out" "stderr: $errout"
		fi
	done <<'PEERS'
missing field peer|netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
missing field refused|peer=10.0.0.1/32 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0
missing field lport|peer=10.0.0.1/32 netns=1 transport=tcp laddr=0.0.0.0 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
missing field lino|peer=uid:5 netns=1 transport=unix faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for peer: '10.0.0.1'|peer=10.0.0.1 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for peer: '10.0.0.1/33'|peer=10.0.0.1/33 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for peer: '2001:db8::/129'|peer=2001:db8::/129 netns=1 transport=tcp laddr=:: lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for peer: '10.0.0/24'|peer=10.0.0/24 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for peer: 'uid:x'|peer=uid:x netns=1 transport=unix lino=2 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for transport: 'udp'|peer=10.0.0.1/32 netns=1 transport=udp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for laddr: 'localhost'|peer=10.0.0.1/32 netns=1 transport=tcp laddr=localhost lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for lport: '65536'|peer=10.0.0.1/32 netns=1 transport=tcp laddr=0.0.0.0 lport=65536 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
bad value for ban_left_s: '-1'|peer=10.0.0.1/32 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=-1 refused=0
duplicate field faults|peer=10.0.0.1/32 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
expected key=value, got 'junk'|peer=10.0.0.1/32 junk netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0
PEERS
	printf '%s\npeer=10.0.0.1/32\033]0;x\007 netns=1 transport=tcp laddr=0.0.0.0 lport=80 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0\n' "$pgood" >"$sec/brute/peers"
	run peers --bans
	if [ "$rc" = 1 ] && [ -z "$out" ] &&
		printf '%s\n' "$errout" | grep -qF "peers:2: malformed line: bad value for peer: '10.0.0.1/32\\033]0;x\\007'" &&
		! printf '%s' "$errout" | grep -q "$(printf '[\033\007]')"; then
		ok "peers: malformed line, its control bytes escaped in the error"
	else
		not_ok "peers: malformed line, its control bytes escaped in the error" "exit $rc" "$errout"
	fi
	printf '%s\n%s\000x\n' "$pgood" "$pgood" >"$sec/brute/peers"
	run peers --json
	expect "peers: malformed rejected: NUL byte in a line" 1 '' 'peers:2: malformed line: NUL byte'
	head -c 4096 /dev/urandom >"$sec/brute/peers"
	run peers
	expect "peers: random bytes rejected cleanly" 1 '' 'malformed line'
	# the peers file missing (a v2 kernel, Brute off, no securityfs) or unreadable
	rm "$sec/brute/peers"
	run peers
	expect "peers: no peers file, Brute active" 1 '' 'has no peer table (older than v3?)'
	echo "lockdown,capability,yama" >"$sec/lsm"
	run peers --json
	expect "peers: no peers file, Brute not active" 1 '' 'Brute is not active'
	rm -rf "$sec"
	run peers
	expect "peers: no securityfs" 1 '' 'is securityfs mounted'
	fresh_tree
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		chmod 400 "$sec/brute/peers"
		chmod 755 "$tmp"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" peers >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "peers as non-root: needs root" 1 '' 'peers: Permission denied (reading it needs root)'
	else
		ok "peers as non-root # SKIP needs root and setpriv"
	fi

	# --- lift: exactly the string the kernel expects, no newline
	fresh_tree
	prog=$here/run-tests.sh
	devino=$(stat -L -c '%Hd:%Ld %i' "$prog")
	lift_is() { # lift_is NAME EXPECTED
		if [ "$rc" = 0 ] && [ "$(od -An -c "$sec/brute/lift" | tr -d ' \n')" = "$(printf '%s' "$2" | od -An -c | tr -d ' \n')" ]; then
			ok "$1"
		else
			not_ok "$1" "exit $rc" "$errout" "wrote: '$(cat "$sec/brute/lift")'" "expected: '$2'"
		fi
		: >"$sec/brute/lift"
	}
	run lift 1000 "$prog"
	lift_is "lift UID PATH writes 'UID MAJ:MIN INO'" "1000 $devino"
	case $out in "lifted the ban of uid 1000 on $prog ($devino)") ok "lift: says what it lifted" ;;
	*) not_ok "lift: says what it lifted" "$out" ;; esac
	run lift "$rootname" "$prog"
	lift_is "lift USERNAME PATH" "0 $devino"
	ln -sf "$prog" "$tmp/link"
	run lift 1000 "$tmp/link"
	lift_is "lift UID SYMLINK: the target it resolves to" "1000 $devino"
	run lift 1000 259:65536 18446744073709551615
	lift_is "lift UID MAJ:MIN INO (raw)" "1000 259:65536 18446744073709551615"
	run lift --all
	lift_is "lift --all writes 'all'" "all"

	for args in "lift" "lift 1000" "lift 1000 0:1 2 3" "lift 1000 021 5" "lift 1000 0:21 x" \
		"lift 1000 a:b 5" "lift -x 0:1 2" "lift --all 1000" "lift 4294967296 0:1 2" \
		"lift no_such_user_brute 0:1 2"; do
		# shellcheck disable=SC2086
		run $args
		if [ "$rc" = 2 ] && [ -n "$errout" ] && [ ! -s "$sec/brute/lift" ]; then
			ok "usage error, nothing written: brutectl $args"
		else
			not_ok "usage error, nothing written: brutectl $args" "exit $rc" "$errout"
		fi
	done
	run lift 1000 "$tmp/no/such/file"
	expect "lift UID PATH: PATH missing" 1 '' 'cannot stat'
	# (uid_t)-1 is no user, as for --peer uid:4294967295; --all takes nothing after it
	run lift 4294967295 0:1 2
	if [ "$rc" = 2 ] && [ ! -s "$sec/brute/lift" ] &&
		printf '%s\n' "$errout" | grep -qF "bad uid '4294967295' (4294967295 is no user)"; then
		ok "lift 4294967295 MAJ:MIN INO: uid -1 refused, nothing written"
	else
		not_ok "lift 4294967295 MAJ:MIN INO: uid -1 refused" "exit $rc" "$errout" "wrote: '$(cat "$sec/brute/lift")'"
	fi
	: >"$sec/brute/lift"
	run lift --all x
	expect "lift --all x: an unexpected argument, not an unknown option" 2 '' "^brutectl: lift: --all: unexpected argument 'x'\$"

	# --- arguments echoed in errors (issue review B3): control bytes escaped as names are,
	# one line, bounded (snip(): 40 bytes of an argument; a path 1023 characters)
	bad=$(printf 'x\033[2J\ny') bad_esc='x\033[2J\012y'
	long=$(printf '%05000d' 0 | tr 0 a)
	# args_escaped NAME RC ARGS...: exit RC, the argument quoted escaped, no raw ESC, every
	# line of stderr under 1100 characters
	args_escaped() {
		_n=$1 _r=$2
		shift 2
		run "$@"
		if [ "$rc" = "$_r" ] && printf '%s\n' "$errout" | grep -qF "$bad_esc" &&
			! printf '%s' "$errout" | grep -q "$(printf '\033')" &&
			[ "$(printf '%s\n' "$errout" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -lt 1100 ]; then
			ok "$_n: the argument escaped on one line"
		else
			not_ok "$_n: the argument escaped on one line" "exit $rc, expected $_r" "$errout"
		fi
	}
	args_escaped "unknown command" 2 "$bad"
	args_escaped "list: unknown argument" 2 list "$bad"
	args_escaped "peers: unknown argument" 2 peers "$bad"
	args_escaped "status: unknown argument" 2 status "$bad"
	args_escaped "lift: no such user" 2 lift "$bad" 0:1 2
	args_escaped "lift: bad uid" 2 lift "1$bad" 0:1 2
	args_escaped "lift --peer uid: no such user" 2 lift --peer "uid:$bad"
	args_escaped "lift USER PATH: cannot stat" 1 lift 0 "$tmp/$bad"
	args_escaped "lift USER MAJ:MIN INO: not numbers" 2 lift 0 "1:2$bad" 3
	args_escaped "lift USER MAJ:MIN INO: INO not a number" 2 lift 0 1:2 "3$bad"
	args_escaped "lift --all ARG" 2 lift --all "$bad"
	args_escaped "lift: unknown option" 2 lift 0 "-$bad"
	args_escaped "trust: unknown subcommand" 2 trust "$bad"
	args_escaped "trust list: unknown argument" 2 trust list "$bad"
	args_escaped "trust check: one FILE at most" 2 trust check a "$bad"
	args_escaped "trust check: unknown option" 2 trust check "-$bad"
	args_escaped "trust check: a missing FILE" 1 trust check "$tmp/$bad"
	for args in "$long" "list $long" "status $long" "lift $long 0:1 2" "lift 0 1:2 $long" \
		"lift --peer uid:$long" "trust $long" "trust list $long" "trust check $tmp/$long"; do
		# shellcheck disable=SC2086
		run $args
		if [ "$rc" != 0 ] && [ -n "$errout" ] &&
			[ "$(printf '%s\n' "$errout" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -lt 1100 ]; then
			ok "a 5000-byte argument: a bounded error (brutectl ${args%%aaaa*}...)"
		else
			not_ok "a 5000-byte argument: a bounded error (brutectl ${args%%aaaa*}...)" "exit $rc" "$(printf '%s' "$errout" | cut -c 1-300)"
		fi
	done
	run lift 0 "$tmp/$long"
	if [ "$rc" = 1 ] && [ "$(printf '%s\n' "$errout" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -lt 4200 ]; then
		ok "lift USER PATH: a 5000-byte path, a bounded error (PATH_MAX)"
	else
		not_ok "lift USER PATH: a 5000-byte path, a bounded error" "exit $rc" "$(printf '%s' "$errout" | cut -c 1-300)"
	fi
	: >"$tmp/$bad"
	run lift 0 "$tmp/$bad"
	case $out in "lifted the ban of uid 0 on $tmp/$bad_esc ("*) ok "lift USER PATH: a path with control bytes said escaped" ;;
	*) not_ok "lift USER PATH: a path with control bytes said escaped" "exit $rc" "$out" "$errout" ;; esac
	rm -f "$tmp/$bad"
	: >"$sec/brute/lift"

	for case in "2|no such ban: uid 1000 on 0:21 1234" "22|rejected '1000 0:21 1234' as malformed (EINVAL)" \
		"1|needs CAP_SYS_ADMIN" "5|Input/output error"; do
		e=${case%%|*} msg=${case#*|}
		FAILWRITE_ERRNO=$e LD_PRELOAD=$failwrite "$bin" lift 1000 0:21 1234 >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "lift: the kernel answers errno $e" 1 '' "$msg"
	done
	FAILWRITE_ERRNO=2 LD_PRELOAD=$failwrite "$bin" lift --all >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
	expect "lift --all: ENOENT" 1 '' 'no ban to lift'
	rm "$sec/brute/lift"
	run lift 1000 0:21 1234
	expect "lift: no lift file" 1 '' 'has no (uid, target) table'

	# --- lift --peer: the kernel's "peer ADDR[/LEN]", "peer uid:UID", "peer all"
	fresh_tree
	run lift --peer 10.0.2.5
	lift_is "lift --peer IPv4 writes 'peer ADDR'" "peer 10.0.2.5"
	case $out in "lifted the peer bans of 10.0.2.5 on every endpoint") ok "lift --peer: says what it lifted" ;;
	*) not_ok "lift --peer: says what it lifted" "$out" ;; esac
	run lift --peer 10.0.2.0/24
	lift_is "lift --peer IPv4/24" "peer 10.0.2.0/24"
	run lift --peer 2001:DB8:0:0:1::/64
	lift_is "lift --peer IPv6/64, written canonical" "peer 2001:db8:0:0:1::/64"
	run lift --peer 2001:db8::1
	lift_is "lift --peer IPv6 address" "peer 2001:db8::1"
	run lift --peer ::ffff:10.0.2.5
	lift_is "lift --peer IPv4-mapped IPv6: the IPv4 address, as the kernel counts it" "peer 10.0.2.5"
	run lift --peer ::ffff:10.0.2.0/120
	lift_is "lift --peer IPv4-mapped /120: IPv4 /24" "peer 10.0.2.0/24"
	run lift --peer 0.0.0.0/0
	lift_is "lift --peer /0 (every IPv4 peer)" "peer 0.0.0.0/0"
	run lift --peer uid:4243
	lift_is "lift --peer uid:NUMBER" "peer uid:4243"
	run lift --peer "uid:$rootname"
	lift_is "lift --peer uid:NAME (getpwnam)" "peer uid:0"
	run lift --peer all
	lift_is "lift --peer all" "peer all"
	case $out in "lifted every peer ban") ok "lift --peer all: says so" ;;
	*) not_ok "lift --peer all: says so" "$out" ;; esac
	while IFS='|' read -r arg why; do
		run lift --peer "$arg"
		if [ "$rc" = 2 ] && [ -z "$out" ] && [ ! -s "$sec/brute/lift" ] &&
			printf '%s\n' "$errout" | grep -qF "$why"; then
			ok "lift --peer '$arg': usage error, nothing written"
		else
			not_ok "lift --peer '$arg': usage error, nothing written" "exit $rc" "stdout: $out" \
				"stderr: $errout" "expected: $why" "wrote: '$(cat "$sec/brute/lift")'"
		fi
		: >"$sec/brute/lift"
	done <<'ARGS'
10.0.2|'10.0.2' is not an IPv4 or IPv6 address
10.0.2.256|'10.0.2.256' is not an IPv4 or IPv6 address
example.org|'example.org' is not an IPv4 or IPv6 address
|'' is not an IPv4 or IPv6 address
10.0.2.5 x|'10.0.2.5 x' is not an IPv4 or IPv6 address
2001:db8:::1|'2001:db8:::1' is not an IPv4 or IPv6 address
10.0.2.5/33|bad prefix length '33' for an IPv4 address (0 to 32)
10.0.2.5/|bad prefix length '' for an IPv4 address (0 to 32)
10.0.2.5/-1|bad prefix length '-1' for an IPv4 address (0 to 32)
10.0.2.5/24x|bad prefix length '24x' for an IPv4 address (0 to 32)
2001:db8::/129|bad prefix length '129' for an IPv6 address (0 to 128)
::ffff:10.0.2.0/64|an IPv4-mapped address needs a prefix length of 96 or more
uid:|needs a user name or a uid
uid:no_such_user_brute|no such user 'no_such_user_brute'
uid:4294967295|4294967295 is no user
uid:4294967296|bad uid '4294967296'
ARGS
	run lift --peer "$(printf '10.0.2.5\033[31m')"
	if [ "$rc" = 2 ] && printf '%s\n' "$errout" | grep -qF "'10.0.2.5\\033[31m' is not an IPv4" &&
		! printf '%s' "$errout" | grep -q "$(printf '\033')"; then
		ok "lift --peer: a bad address's control bytes escaped in the error"
	else
		not_ok "lift --peer: a bad address's control bytes escaped in the error" "exit $rc" "$errout"
	fi
	for args in "lift --peer" "lift --peer 10.0.2.5 10.0.2.6" "lift 1000 --peer 10.0.2.5"; do
		# shellcheck disable=SC2086
		run $args
		if [ "$rc" = 2 ] && [ -n "$errout" ] && [ ! -s "$sec/brute/lift" ]; then
			ok "usage error, nothing written: brutectl $args"
		else
			not_ok "usage error, nothing written: brutectl $args" "exit $rc" "$errout"
		fi
	done
	for case in "2|no such peer ban: 2001:db8::/64 (see brutectl peers --bans)" \
		"22|rejected 'peer 2001:db8::/64' as malformed (EINVAL)" \
		"1|needs CAP_SYS_ADMIN" "5|Input/output error"; do
		e=${case%%|*} msg=${case#*|}
		FAILWRITE_ERRNO=$e LD_PRELOAD=$failwrite "$bin" lift --peer 2001:db8::/64 >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "lift --peer: the kernel answers errno $e" 1 '' "$msg"
	done
	FAILWRITE_ERRNO=2 LD_PRELOAD=$failwrite "$bin" lift --peer all >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
	expect "lift --peer all: ENOENT" 1 '' 'no peer ban to lift'
	# a v2 kernel: a lift file, no peer table; it rejects "peer ..." lines
	rm "$sec/brute/peers"
	FAILWRITE_ERRNO=22 LD_PRELOAD=$failwrite "$bin" lift --peer uid:5 >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
	expect "lift --peer on a kernel without peers: EINVAL explained" 1 '' 'has no peer table (older than v3?)'
	rm "$sec/brute/lift"
	run lift --peer 10.0.2.5
	expect "lift --peer: no lift file" 1 '' 'has no peer table (older than v3?)'
	fresh_tree

	# --- status
	# Its exit status says whether the host is protected (issue 22 #5): 0 only with Brute
	# active, in mode 1 or 2, and audit not known to be disabled; 3 otherwise, the reasons on
	# the "host:" line. Audit's state is this machine's (root sees it, others cannot): the
	# expected reasons include "audit is disabled" exactly when brutectl's audit line says so.
	audit_off() { printf '%s\n' "$out" | grep -q '^audit: *DISABLED'; }
	# status_is NAME REASONS: exit 0 and "host: protected", or exit 3 and those reasons
	status_is() {
		_want=$2
		if audit_off; then _want="${_want:+$_want, }audit is disabled"; fi
		if [ -z "$_want" ] && [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -qx 'host: *protected'; then
			ok "$1: exit 0, protected"
		elif [ -n "$_want" ] && [ "$rc" = 3 ] &&
			printf '%s\n' "$out" | grep -qxF "host:    NOT protected: $_want"; then
			ok "$1: exit 3, NOT protected: $_want"
		else
			not_ok "$1" "exit $rc, expected $([ -n "$_want" ] && echo "3 ($_want)" || echo 0)" "$out" "$errout"
		fi
	}
	fresh_tree
	run status
	if printf '%s\n' "$out" | grep -q '^brute: *active (lsm: lockdown,capability,landlock,yama,brute)$' &&
		printf '%s\n' "$out" | grep -q '^audit: ' &&
		printf '%s\n' "$out" | grep -q '^  mode  *2 (detect, audit and stop)$' &&
		printf '%s\n' "$out" | grep -q '^  ema_weight_numerator  *7$' &&
		printf '%s\n' "$out" | grep -q '^  forget_time_s  *3600$' &&
		printf '%s\n' "$out" | grep -q '^  peer_ban_time_s  *900$' &&
		printf '%s\n' "$out" | grep -q '^  escalate_faults  *30$' &&
		[ "$(printf '%s\n' "$out" | grep -c '^  [a-z0-9_]*  *[0-9]')" = 16 ] &&
		printf '%s\n' "$out" | grep -q '^reportd: not running (no /run/brute-reportd/status)$'; then
		ok "status: active, every tunable"
	else
		not_ok "status: active, every tunable" "exit $rc" "$out" "$errout"
	fi
	status_is "status: active, mode 2" ""
	# the kernel's counters (stats), the peer table's among them
	if printf '%s\n' "$out" | grep -qx 'stats:   hierarchies 41, targets 3, bans 1, peers 4, peer_bans 2, records_dropped 7'; then
		ok "status: the kernel's stats, peers and peer bans"
	else
		not_ok "status: the kernel's stats, peers and peer bans" "exit $rc" "$out" "$errout"
	fi
	run status --json
	if printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["stats"] == {"hierarchies": 41, "targets": 3, "bans": 1, "peers": 4, "peer_bans": 2,
                      "records_dropped": 7}, d["stats"]
assert d["tunables"]["peer_prefix_v6"] == 64 and len(d["tunables"]) == 18, d["tunables"]
assert d["tunables"]["trusted_uid_max"] is None, d["tunables"]  # a v3 kernel: absent' 2>"$tmp/py"; then
		ok "status --json: stats and every tunable"
	else
		not_ok "status --json: stats and every tunable" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi
	echo "hierarchies=2 targets=1 bans=0 records_dropped=0" >"$sec/brute/stats"
	run status
	expect "status: a v2 kernel's stats (no peer counters)" "$rc" '^stats:   hierarchies 2, targets 1, bans 0, records_dropped 0$'
	printf 'hierarchies=2 peers=x\033[31m\n' >"$sec/brute/stats"
	run status
	if printf '%s\n' "$out" | grep -qxF 'stats:   unknown (/sys/kernel/security/brute/stats: not key=number pairs)' &&
		! printf '%s' "$out" | grep -q "$(printf '\033')"; then
		ok "status: malformed stats reported, not echoed"
	else
		not_ok "status: malformed stats reported, not echoed" "$out"
	fi
	rm "$sec/brute/stats"
	run status
	expect "status: no stats file" "$rc" '^stats:   absent (no /sys/kernel/security/brute/stats)$'
	status_is "status: no stats file, still protected" ""
	# a v2 kernel: its nine tunables, the v3 ones (and v4's trusted_uid_max, backstop_hold_s) absent
	fresh_tree
	rm "$sysctl/backstop_faults" "$sysctl/peer_"* "$sysctl/escalate_"*
	run status
	if [ "$(printf '%s\n' "$out" | grep -c '^  [a-z0-9_]*  *[0-9]')" = 9 ] &&
		[ "$(printf '%s\n' "$out" | grep -c '^  [a-z0-9_]*  *absent$')" = 9 ] &&
		printf '%s\n' "$out" | grep -q '^  peer_ban_time_s  *absent$'; then
		ok "status: a v2 kernel, the v3 tunables absent"
	else
		not_ok "status: a v2 kernel, the v3 tunables absent" "exit $rc" "$out"
	fi
	fresh_tree
	# as a user (audit's state unknown, not counted): the kernel's view alone decides
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		chmod 755 "$tmp"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" status >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^audit: *unknown (querying it needs root)$' &&
			printf '%s\n' "$out" | grep -qx 'host: *protected'; then
			ok "status as a user, Brute active in mode 2: exit 0 (audit unknown)"
		else
			not_ok "status as a user, Brute active in mode 2: exit 0" "exit $rc" "$out" "$errout"
		fi
		echo 0 >"$sysctl/mode"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" status >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "status as a user, mode 0: exit 3" 3 '^host:    NOT protected: Brute is in mode 0 (off)$'
		echo 2 >"$sysctl/mode"
	else
		ok "status as a user # SKIP needs root and setpriv"
	fi
	echo 0 >"$sysctl/mode"
	run status
	status_is "status: mode 0" "Brute is in mode 0 (off)"
	echo 1 >"$sysctl/mode"
	run status
	status_is "status: mode 1 (detect, do not stop) still protects" ""
	rm "$sysctl/mode"
	run status
	status_is "status: mode unreadable" "cannot read its mode"
	rm "$sysctl/ban_time_s" "$sysctl/table_size" "$sysctl/forget_time_s"
	echo 1 >"$sysctl/mode"
	echo "lockdown,capability" >"$sec/lsm"
	run status
	if printf '%s\n' "$out" | grep -q '^brute: *NOT active' &&
		printf '%s\n' "$out" | grep -q '^  mode  *1 (detect and audit)$' &&
		[ "$(printf '%s\n' "$out" | grep -c ' absent$')" = 5 ] &&
		printf '%s\n' "$out" | grep -q '^  table_size  *absent$'; then
		ok "status: not active, tunables of an older kernel absent"
	else
		not_ok "status: not active, tunables of an older kernel absent" "exit $rc" "$out" "$errout"
	fi
	status_is "status: Brute not active" "Brute is not active"
	# brute-reportd's counters beside the kernel's (its state file, brute-reportd(8))
	mkdir -p "$root/run/brute-reportd"
	cat >"$root/run/brute-reportd/status" <<STATE
# brute-reportd(8) state
version=1
pid=4242
brute=active
audit=unknown
mode=1
problems=0
records=12
incidents=3
incidents_open=1
attacks=2
alerts_queued=7
alerts_dropped=1
spooled=4
lost=0
STATE
	run status
	if printf '%s\n' "$out" | grep -q '^reportd: running, pid 4242: records 12, incidents 3 (1 open), attacks 2, alerts queued 7, dropped 1, spooled 4, lost 0$' &&
		printf '%s\n' "$out" | grep -q '^ *its view: brute active, audit unknown, mode 1 (0 problems)$'; then
		ok "status: brute-reportd's counters from its state file"
	else
		not_ok "status: brute-reportd's counters from its state file" "exit $rc" "$out" "$errout"
	fi
	# the SIEM delivery (issue 22): down for a while, with the oldest alert waiting
	now=$(date +%s)
	cat >>"$root/run/brute-reportd/status" <<STATE
siem=tcp
siem_target=siem.example.org:514
siem_connected=0
siem_failures=14
siem_last_delivery_usec=$(( (now - 3700) * 1000000 ))
siem_last_error_usec=$(( (now - 12) * 1000000 ))
siem_last_error=connect: Connection refused
spool_oldest_usec=$(( (now - 190) * 1000000 ))
alerts_parked=2
unit_restarts=1
unit_starts=2
unit_failures=0
peer_actions=5
peer_action_failures=1
STATE
	run status
	# Ages from $now: a loaded host (an ASan build beside a kernel build) may take seconds to
	# run the command; a minute of slack, the formats are the point.
	if printf '%s\n' "$out" | grep -qE '^ *delivery: tcp siem.example.org:514 NOT connected, last error (1[2-9]|[2-6][0-9])\.[0-9]s ago: connect: Connection refused, last delivery 1h0[12]m ago, 14 failures, oldest spooled alert 3m(1[0-9]|[2-5][0-9])s old, 2 parked$'; then
		ok "status: the SIEM delivery (not connected, last error, last delivery, oldest spooled alert)"
	else
		not_ok "status: the SIEM delivery" "exit $rc" "$out" "$errout"
	fi
	if printf '%s\n' "$out" | grep -q '^ *actions: backstop: units restarted 1, started 2, failed 0; peer actions 5, failed 1$'; then
		ok "status: brute-reportd's actions through systemd (restarts, starts, peer actions)"
	else
		not_ok "status: brute-reportd's actions through systemd" "exit $rc" "$out" "$errout"
	fi
	# issue 31 #4: the last reload's verdict, what the daemon refused, the journal's refusals,
	# the entries sent again
	cat >>"$root/run/brute-reportd/status" <<STATE
records_malformed=2
lines_oversized=1
lines_garbage=0
journal_failures=5
siem_resent=17
siem_unconfirmed=9000
reloads=3
reload_result=failed
reload_error=/etc/brute/reportd.conf: the file has errors (logged above)
STATE
	run status
	if printf '%s\n' "$out" | grep -q '^ *reload: FAILED, the running configuration kept: /etc/brute/reportd.conf: the file has errors (logged above)$' &&
		printf '%s\n' "$out" | grep -q '^ *refused: 3 lines (2 malformed records, 1 too long, 0 not records)$' &&
		printf '%s\n' "$out" | grep -q '^ *journal: 5 entries refused$' &&
		printf '%s\n' "$out" | grep -q '^ *resent: 17 entries sent again (their connection ended before the receiver confirmed them)$' &&
		printf '%s\n' "$out" | grep -q "^ *unconfirmed: 9000 entries delivered without the receiver's confirmation (it read them and left its end of the connection open)$" &&
		printf '%s\n' "$out" | grep -q '^ *delivery: .*, 2 parked$'; then
		ok "status: the last reload failed, refusals, journal failures, entries sent again, unconfirmed"
	else
		not_ok "status: the last reload failed, refusals, journal failures, entries sent again, unconfirmed" "exit $rc" "$out" "$errout"
	fi
	sed -i 's/^reload_result=failed$/reload_result=ok/' "$root/run/brute-reportd/status"
	run status
	if printf '%s\n' "$out" | grep -q '^ *reload: ok (3 since start)$'; then
		ok "status: the last reload applied"
	else
		not_ok "status: the last reload applied" "exit $rc" "$out" "$errout"
	fi
	sed -i 's/^reload_result=ok$/reload_result=failed/' "$root/run/brute-reportd/status"
	run status --json
	if [ "$rc" = 3 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["active"] is False and d["lsm"] == "lockdown,capability", d
t = d["tunables"]
assert t["mode"] == 1 and t["min_faults"] == 5 and t["ban_time_s"] is None, t
assert len(t) == 18 and t["backstop_faults"] == 1000 and t["escalate_prefix_v6"] == 48, t
assert "enabled" in d["audit"] or "error" in d["audit"], d
assert d["protected"] is False and d["not_protected_because"].startswith("Brute is not active"), d
r = d["reportd"]
assert r["pid"] == 4242 and r["records"] == 12 and r["alerts_queued"] == 7 and r["audit"] == "unknown", r
assert r["siem"] == "tcp" and r["siem_connected"] == 0 and r["siem_failures"] == 14, r
assert r["siem_last_error"] == "connect: Connection refused" and r["alerts_parked"] == 2, r
assert r["unit_starts"] == 2 and r["peer_action_failures"] == 1, r
assert r["spool_oldest_usec"] > 10**15, r
assert r["reload_result"] == "failed" and r["reloads"] == 3 and r["siem_resent"] == 17, r
assert r["siem_unconfirmed"] == 9000, r
assert r["plugin"] is False, r' 2>"$tmp/py"; then
		ok "status --json (exit 3, protected false)"
	else
		not_ok "status --json" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi
	# the auditd plugin's state file, when the service's is absent (each its own: issue 31 #4)
	mkdir -p "$root/run/brute-reportd-plugin"
	mv "$root/run/brute-reportd/status" "$root/run/brute-reportd-plugin/status"
	run status
	if printf '%s\n' "$out" | grep -q '^reportd: the auditd plugin (/run/brute-reportd-plugin/status)$' &&
		printf '%s\n' "$out" | grep -q '^reportd: running, pid 4242: records 12,'; then
		ok "status: the auditd plugin's state file"
	else
		not_ok "status: the auditd plugin's state file" "exit $rc" "$out" "$errout"
	fi
	rm -rf "$root"
	run status
	expect "status: nothing there: exit 3" 3 'cannot read /sys/kernel/security/lsm' ''
	status_is "status: nothing there" "cannot read /sys/kernel/security/lsm"

	# --- names with bidi and separator controls (issue 22 #5): escaped as brute-reportd
	# escapes them, on the terminal (and as \uXXXX in JSON); U+202E RIGHT-TO-LEFT OVERRIDE
	# makes "a<U+202E>gpj.exe" read "aexe.jpg". Raw, as a kernel writing UTF-8 unescaped
	# would, and \ooo-escaped as the kernel escapes bytes; plus U+2028, U+2066 and U+00E9.
	fresh_tree
	printf 'attacker_uid=1 target_dev=0:1 target_ino=1 faults=5 ema_ms=1 idle_ms=1 ban_left_s=0 denied=0 target_name=a\342\200\256gpj.exe\n' >"$sec/brute/targets"
	printf 'attacker_uid=1 target_dev=0:1 target_ino=2 faults=5 ema_ms=1 idle_ms=1 ban_left_s=0 denied=0 target_name=b\\342\\200\\256c\342\200\250d\342\201\246e\303\251\n' >>"$sec/brute/targets"
	run list
	l1=$(printf '%s\n' "$out" | sed -n 2p) l2=$(printf '%s\n' "$out" | sed -n 3p)
	case "$rc|$l1|$l2" in
	"0|"*'  a\342\200\256gpj.exe|'*'  b\342\200\256c\342\200\250d\342\201\246eé')
		ok "list: U+202E, U+2028, U+2066 escaped as \\ooo on the terminal, é kept" ;;
	*) not_ok "list: bidi and separator controls escaped" "exit $rc" "$out" ;;
	esac
	if printf '%s' "$out" | grep -q -e "$(printf '\342\200\256')" -e "$(printf '\342\200\250')" \
		-e "$(printf '\342\201\246')"; then
		not_ok "list: no raw bidi or separator control reaches the terminal" "$out"
	else
		ok "list: no raw bidi or separator control reaches the terminal"
	fi
	run list --json
	if [ "$rc" = 0 ] && printf '%s' "$out" | grep -qF '"target_name":"a\u202egpj.exe"' &&
		printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["entries"]
assert d[0]["target_name"] == "a\u202egpj.exe", ascii(d[0]["target_name"])
assert d[1]["target_name"] == "b\u202ec\u2028d\u2066e\u00e9", ascii(d[1]["target_name"])' 2>"$tmp/py"; then
		ok "list --json: the same names, the controls as \\uXXXX"
	else
		not_ok "list --json: the controls as \\uXXXX" "exit $rc" "$out" "$(cat "$tmp/py")"
	fi

	# --- response v4: trusted peers (tests/trust.sh), the services status shows
	# (tests/services.sh)
	. "$here/trust.sh"
	. "$here/services.sh"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
