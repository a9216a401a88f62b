# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run-tests.sh, once per build ($bin): brutectl trust (response v4's trusted list)
# and what peers and status show of it, against the fake tree. What a change writes is
# recorded by the write shim (tests/failwrite.c, FAILWRITE_LOG): the bytes of each write(2)
# call to the trusted file, as the kernel would get them; the kernel applies ONE write as one
# transaction, so every change must be exactly one write.

# runlog ARGS...: brutectl with its writes to the trusted file recorded in $tmp/w.1, w.2...
runlog() {
	rm -f "$tmp"/w.*
	FAILWRITE_FILE=trusted FAILWRITE_LOG=$tmp/w LD_PRELOAD=$failwrite "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
}
# runerr ERRNO ARGS...: brutectl whose write to the trusted file fails with ERRNO
runerr() {
	_e=$1
	shift
	FAILWRITE_FILE=trusted FAILWRITE_ERRNO=$_e LD_PRELOAD=$failwrite "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
}
# wrote_once NAME BYTES: the last runlog succeeded with exactly one write of exactly BYTES
# (given as printf's format: \n for newlines)
wrote_once() {
	# shellcheck disable=SC2059
	printf "$2" >"$tmp/expected"
	if [ "$rc" = 0 ] && [ -f "$tmp/w.1" ] && [ ! -e "$tmp/w.2" ] && cmp -s "$tmp/expected" "$tmp/w.1"; then
		ok "$1"
	else
		not_ok "$1" "exit $rc" "stderr: $errout" "write calls: $(ls "$tmp"/w.* 2>/dev/null | wc -l)" \
			"wrote: $(od -An -c "$tmp/w.1" 2>/dev/null | head -n 12)" \
			"expected: $(od -An -c "$tmp/expected" | head -n 12)"
	fi
}
# unwritten NAME RC GREP_STDERR: the last runlog exited RC, said so, and wrote nothing
unwritten() {
	if [ "$rc" = "$2" ] && [ ! -e "$tmp/w.1" ] && printf '%s\n' "$errout" | grep -qF -e "$3"; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, expected $2" "stderr: $errout" "expected stderr: $3" \
			"stdout: $out" "write calls: $(ls "$tmp"/w.* 2>/dev/null | wc -l)"
	fi
}

fresh_tree_v4() {
	fresh_tree
	: >"$sec/brute/trusted"
	chmod 600 "$sec/brute/trusted"
	echo 999 >"$sysctl/trusted_uid_max"
	echo 10 >"$sysctl/backstop_hold_s"
	echo "hierarchies=41 targets=3 bans=1 peers=4 peer_bans=2 trusted=3 records_dropped=7" >"$sec/brute/stats"
}

write_trusted() {
	cat >"$sec/brute/trusted" <<'EOF'
trusted=10.0.0.0/8 crashes=0
trusted=192.0.2.10/32 netns=4026531840 crashes=3
trusted=198.51.100.0/24 netns=4026531840 laddr=0.0.0.0 lport=80 crashes=0
trusted=2001:db8::/32 crashes=0
trusted=uid:0 crashes=12
trusted=uid:2000-2099 netns=4026531840 crashes=0
trusted=2001:db8:1::/48 laddr=:: lport=443 crashes=18446744073709551615 future=x
trusted=10.1.0.0/16 lport=8080 crashes=1
EOF
}

hostns=$(stat -L -c %i /proc/self/ns/net)

# --- trust: usage
fresh_tree_v4
for args in "trust" "trust frobnicate" "trust list --bogus" "trust list x" "trust add" \
	"trust del" "trust load a b" "trust check -x" "trust load --json"; do
	# shellcheck disable=SC2086
	runlog $args
	unwritten "usage error, nothing written: brutectl $args" 2 "usage: brutectl trust list"
done
run --help
expect "--help: trust" 0 'trust load \[FILE\]'

# --- trust list: the kernel's list as a table, the relay uids below it
run trust list
expect "trust list: empty" 0 '^no trusted peers$'
case $out in *"
local uids 1-999 are trusted relays (trusted_uid_max 999): never charged over a Unix socket or loopback TCP") ok "trust list: trusted_uid_max 999 explained" ;;
*) not_ok "trust list: trusted_uid_max 999 explained" "$out" ;; esac
write_trusted
exp=$(cat <<'EOF'
TRUSTED          USER  NETNS       ENDPOINT                 CRASHES
10.0.0.0/8       -     any         any                            0
192.0.2.10/32    -     4026531840  any                            3
198.51.100.0/24  -     4026531840  0.0.0.0:80                     0
2001:db8::/32    -     any         any                            0
uid:0            root  any         any                           12
uid:2000-2099    -     4026531840  any                            0
2001:db8:1::/48  -     any         [::]:443    18446744073709551615
10.1.0.0/16      -     any         *:8080                         1
local uids 1-999 are trusted relays (trusted_uid_max 999): never charged over a Unix socket or loopback TCP
EOF
)
run trust list
if [ "$rootname" != root ]; then
	ok "trust list: aligned table # SKIP uid 0 is not root here"
elif [ "$rc" = 0 ] && [ "$out" = "$exp" ]; then
	ok "trust list: aligned table (prefixes, uid ranges, scopes, crashes)"
else
	not_ok "trust list: aligned table" "exit $rc" "got:" "$out" "expected:" "$exp" "$errout"
fi
run trust list --json
if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["trusted_uid_max"] == 999, d
e = d["entries"]
assert len(e) == 8, e
assert e[0] == {"trusted": "10.0.0.0/8", "family": "ipv4", "address": "10.0.0.0", "prefix": 8,
                "netns": None, "laddr": None, "lport": None, "endpoint": "any", "crashes": 0,
                "spec": "10.0.0.0/8"}, e[0]
assert e[2]["spec"] == "198.51.100.0/24 netns=4026531840 endpoint=0.0.0.0:80", e[2]
assert (e[2]["netns"], e[2]["laddr"], e[2]["lport"]) == (4026531840, "0.0.0.0", 80), e[2]
assert e[3]["family"] == "ipv6" and e[3]["address"] == "2001:db8::", e[3]
assert e[4] == {"trusted": "uid:0", "family": "uid", "uid_first": 0, "uid_last": 0,
                "user": sys.argv[1], "netns": None, "laddr": None, "lport": None,
                "endpoint": "any", "crashes": 12, "spec": "uid:0"}, e[4]
assert e[5]["uid_first"] == 2000 and e[5]["uid_last"] == 2099 and e[5]["user"] is None, e[5]
assert e[5]["spec"] == "uid:2000-2099 netns=4026531840", e[5]
assert e[6]["spec"] == "2001:db8:1::/48 endpoint=[::]:443", e[6]
assert e[6]["crashes"] == 18446744073709551615, e[6]
assert e[7]["spec"] == "10.1.0.0/16 endpoint=*:8080" and e[7]["laddr"] is None, e[7]
' "$rootname" 2>"$tmp/py"; then
	ok "trust list --json: every field, spec as trust del takes it"
else
	not_ok "trust list --json: every field" "exit $rc" "$out" "$(cat "$tmp/py")"
fi
for v in "0|no local uid is trusted by default (trusted_uid_max 0)" \
	"1|local uid 1 is a trusted relay (trusted_uid_max 1): never charged over a Unix socket or loopback TCP" \
	"x1|trusted_uid_max: unknown (Bad message)"; do
	echo "${v%%|*}" >"$sysctl/trusted_uid_max"
	run trust list
	expect "trust list: trusted_uid_max ${v%%|*}" 0 "^${v#*|}\$"
done
rm "$sysctl/trusted_uid_max"
run trust list
if [ "$rc" = 0 ] && ! printf '%s\n' "$out" | grep -q 'trusted_uid_max\|relay'; then
	ok "trust list: no trusted_uid_max, nothing said of it"
else
	not_ok "trust list: no trusted_uid_max, nothing said of it" "$out"
fi
run trust list --json
expect "trust list --json: trusted_uid_max null when absent" 0 '^{"trusted_uid_max":null,"entries":\['
echo 999 >"$sysctl/trusted_uid_max"
: >"$sec/brute/trusted"
run trust list --json
expect "trust list --json: empty" 0 '^{"trusted_uid_max":999,"entries":\[\]}$'

# malformed lines of the kernel's list: exit 1, the line and why, nothing on stdout
tgood='trusted=10.0.0.0/8 crashes=0'
while IFS='|' read -r why line; do
	printf '%s\n%s\n' "$tgood" "$line" >"$sec/brute/trusted"
	run trust list
	if [ "$rc" = 1 ] && [ -z "$out" ] &&
		printf '%s\n' "$errout" | grep -qF "trusted:2: malformed line: $why"; then
		ok "trust list: malformed rejected: $why"
	else
		not_ok "trust list: malformed rejected: $why" "line: $line" "exit $rc" "stdout: $out" "stderr: $errout"
	fi
done <<'EOF'
missing field trusted|crashes=0
missing field crashes|trusted=10.0.0.0/8
bad value for trusted: '10.0.0.1'|trusted=10.0.0.1 crashes=0
bad value for trusted: '10.0.0.1/8'|trusted=10.0.0.1/8 crashes=0
bad value for trusted: '10.0.0.0/33'|trusted=10.0.0.0/33 crashes=0
bad value for trusted: '2001:db8::/129'|trusted=2001:db8::/129 crashes=0
bad value for trusted: 'uid:x'|trusted=uid:x crashes=0
bad value for trusted: 'uid:5-3'|trusted=uid:5-3 crashes=0
bad value for trusted: 'uid:5-5'|trusted=uid:5-5 crashes=0
bad value for trusted: 'uid:4294967295'|trusted=uid:4294967295 crashes=0
bad value for crashes: '-1'|trusted=10.0.0.0/8 crashes=-1
bad value for netns: 'x'|trusted=10.0.0.0/8 netns=x crashes=0
bad value for laddr: 'localhost'|trusted=10.0.0.0/8 laddr=localhost lport=80 crashes=0
bad value for lport: '65536'|trusted=10.0.0.0/8 lport=65536 crashes=0
laddr without lport|trusted=10.0.0.0/8 laddr=0.0.0.0 crashes=0
a uid entry with an endpoint (laddr, lport)|trusted=uid:33 lport=80 crashes=0
duplicate field netns|trusted=10.0.0.0/8 netns=1 netns=2 crashes=0
expected key=value, got 'junk'|trusted=10.0.0.0/8 junk crashes=0
EOF
printf '%s\ntrusted=10.0.0.0/8\033[31m crashes=0\n' "$tgood" >"$sec/brute/trusted"
run trust list
if [ "$rc" = 1 ] && printf '%s\n' "$errout" | grep -qF "bad value for trusted: '10.0.0.0/8\\033[31m'" &&
	! printf '%s' "$errout" | grep -q "$(printf '\033')"; then
	ok "trust list: a malformed line's control bytes escaped in the error"
else
	not_ok "trust list: a malformed line's control bytes escaped in the error" "exit $rc" "$errout"
fi
head -c 4096 /dev/urandom >"$sec/brute/trusted"
run trust list --json
expect "trust list: random bytes rejected cleanly" 1 '' 'malformed line'
# the interface absent: a v3 kernel, Brute off, no securityfs
rm "$sec/brute/trusted"
run trust list
expect "trust list: no trusted file, Brute active" 1 '' "has no trusted list (older than v4?)"
echo "lockdown,capability" >"$sec/lsm"
run trust list
expect "trust list: no trusted file, Brute not active" 1 '' 'Brute is not active'
rm -rf "$sec"
run trust list
expect "trust list: no securityfs" 1 '' 'is securityfs mounted'

# --- trust add / del: one write, in the kernel's syntax
fresh_tree_v4
runlog trust add 10.0.0.0/8
wrote_once "trust add PREFIX: one write, 'add PREFIX' and a newline" 'add 10.0.0.0/8\n'
expect "trust add: says what it trusts" 0 '^trusted: 10.0.0.0/8$'
runlog trust add 192.0.2.10 netns=/proc/self/ns/net 198.51.100.0/24 endpoint=0.0.0.0:80 \
	2001:DB8:0:0::1 uid:"$rootname" uid:2000-2099 netns=4026531840 "2001:db8::/32 endpoint=[::]:443" \
	::ffff:10.9.8.7 ::ffff:10.9.0.0/112 endpoint=*:22 10.1.0.0/16 netns=12345 endpoint=*:8080
wrote_once "trust add SPECs: one write, one line each (netns path resolved, host /32 and /128, IPv4-mapped as IPv4, IPv6 canonical, user name as uid, scopes as laddr/lport)" \
	"add 192.0.2.10/32 netns=$hostns\nadd 198.51.100.0/24 laddr=0.0.0.0 lport=80\nadd 2001:db8::1/128\nadd uid:0\nadd uid:2000-2099 netns=4026531840\nadd 2001:db8::/32 laddr=:: lport=443\nadd 10.9.8.7/32\nadd 10.9.0.0/16 lport=22\nadd 10.1.0.0/16 netns=12345 lport=8080\n"
if [ "$(printf '%s\n' "$out" | wc -l)" = 9 ] &&
	printf '%s\n' "$out" | grep -qx "trusted: 192.0.2.10/32 netns=$hostns" &&
	printf '%s\n' "$out" | grep -qx 'trusted: 10.9.0.0/16 endpoint=\*:22'; then
	ok "trust add: each entry said, in the syntax trust del takes"
else
	not_ok "trust add: each entry said" "$out"
fi
dashed=$(getent passwd | awk -F: '$1 ~ /-/ && $3 < 4294967295 { print $1 ":" $3; exit }')
if [ -n "$dashed" ]; then
	runlog trust add "uid:${dashed%%:*}"
	wrote_once "trust add uid:NAME-WITH-DASH is a user (${dashed%%:*}), not a range" "add uid:${dashed#*:}\n"
else
	ok "trust add uid:NAME-WITH-DASH # SKIP no user name with a dash here"
fi
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
	unshare -n sleep 300 &
	nspid=$!
	sleep 0.2
	otherns=$(stat -L -c %i "/proc/$nspid/ns/net")
	runlog trust add uid:33 netns=/proc/$nspid/ns/net
	if [ "$otherns" != "$hostns" ]; then
		wrote_once "trust add netns=/proc/PID/ns/net of another namespace: its inode" "add uid:33 netns=$otherns\n"
	else
		not_ok "unshare -n made another network namespace" "$otherns"
	fi
else
	nspid=
	ok "trust add netns= of another namespace # SKIP needs root and unshare -n"
fi
# usage errors: exit 2, the SPEC and why, nothing written. The same SPECs as lines of a
# file, below: line 2, FILE:2: why, nothing loaded.
mkdir -p "$tmp/adir"
: >"$tmp/aregular"
cat >"$tmp/badspecs" <<EOF
10.0.2|'10.0.2' is not an IPv4 or IPv6 address or prefix, nor uid:USER
example.org|'example.org' is not an IPv4 or IPv6 address or prefix, nor uid:USER
10.0.0.0/33|bad prefix length '33' for an IPv4 address (0 to 32)
10.0.0.0/|bad prefix length '' for an IPv4 address (0 to 32)
10.0.0.0/-8|bad prefix length '-8' for an IPv4 address (0 to 32)
2001:db8::/129|bad prefix length '129' for an IPv6 address (0 to 128)
::ffff:10.0.0.0/95|an IPv4-mapped address needs a prefix length of 96 or more
10.1.2.3/8|'10.1.2.3/8' has address bits set beyond /8 (10.0.0.0/8?)
2001:db8::1/32|'2001:db8::1/32' has address bits set beyond /32 (2001:db8::/32?)
uid:|uid: needs a user name, a uid or a range FIRST-LAST
uid:no_such_user_brute|no such user 'no_such_user_brute'
uid:4294967295|bad uid '4294967295' (0 to 4294967294)
uid:12x|bad uid '12x' (0 to 4294967294)
uid:5-|bad uid range '5-' (FIRST-LAST, each 0 to 4294967294)
uid:5-4294967295|bad uid range '5-4294967295' (FIRST-LAST, each 0 to 4294967294)
uid:9-5|empty uid range '9-5' (FIRST is above LAST)
10.0.0.0/8 netns=|netns= needs a path (/run/netns/NAME, /proc/PID/ns/net) or an inode number
10.0.0.0/8 netns=0|netns=0: neither an absolute path nor an inode number
10.0.0.0/8 netns=4294967296|netns=4294967296: neither an absolute path nor an inode number
10.0.0.0/8 netns=run/netns/x|netns=run/netns/x: neither an absolute path nor an inode number
10.0.0.0/8 netns=/nonexistent/brute|netns=/nonexistent/brute: No such file or directory
10.0.0.0/8 netns=$tmp/adir|netns=$tmp/adir: not a namespace (/run/netns/NAME, /proc/PID/ns/net)
10.0.0.0/8 netns=$tmp/aregular|netns=$tmp/aregular: not a namespace (/run/netns/NAME, /proc/PID/ns/net)
10.0.0.0/8 netns=/dev/null|netns=/dev/null: not a namespace (/run/netns/NAME, /proc/PID/ns/net)
10.0.0.0/8 netns=/proc/self/ns/mnt|netns=/proc/self/ns/mnt: a mount namespace, not a network namespace
10.0.0.0/8 netns=/proc/self/ns/user|netns=/proc/self/ns/user: a user namespace, not a network namespace
10.0.0.0/8 netns=1 netns=2|netns= given twice
10.0.0.0/8 endpoint=80|bad endpoint '80' (IPv4:PORT, [IPv6]:PORT or *:PORT)
10.0.0.0/8 endpoint=:80|bad endpoint ':80' (IPv4:PORT, [IPv6]:PORT or *:PORT)
10.0.0.0/8 endpoint=::1:80|bad endpoint '::1:80' (IPv4:PORT, [IPv6]:PORT or *:PORT)
10.0.0.0/8 endpoint=[10.0.0.1]:80|bad endpoint '[10.0.0.1]:80' (IPv4:PORT, [IPv6]:PORT or *:PORT)
10.0.0.0/8 endpoint=[::1]80|bad endpoint '[::1]80' (IPv4:PORT, [IPv6]:PORT or *:PORT)
10.0.0.0/8 endpoint=localhost:80|bad endpoint 'localhost:80' (IPv4:PORT, [IPv6]:PORT or *:PORT)
10.0.0.0/8 endpoint=*:0|bad port in endpoint '*:0' (1 to 65535)
10.0.0.0/8 endpoint=*:65536|bad port in endpoint '*:65536' (1 to 65535)
10.0.0.0/8 endpoint=*:http|bad port in endpoint '*:http' (1 to 65535)
10.0.0.0/8 endpoint=0.0.0.0:+80|bad port in endpoint '0.0.0.0:+80' (1 to 65535)
10.0.0.0/8 endpoint=*:80 endpoint=*:81|endpoint= given twice
uid:33 endpoint=*:80|endpoint= is for address entries; a uid entry takes netns= only
2001:db8::/32 endpoint=10.0.0.1:80|an IPv6 peer never reaches the IPv4 listener 10.0.0.1:80: the entry would never match
2001:db8::/32 endpoint=0.0.0.0:80|an IPv6 peer never reaches the IPv4 listener 0.0.0.0:80: the entry would never match
2001:db8::/32 endpoint=[::ffff:10.0.0.1]:80|an IPv6 peer never reaches the IPv4 listener 10.0.0.1:80: the entry would never match
10.0.0.0/8 endpoint=[2001:db8::1]:80|an IPv4 peer reaches an IPv6 listener only on [::] (dual-stack), not on [2001:db8::1]:80: the entry would never match
::ffff:10.0.0.0/104 endpoint=[::1]:80|an IPv4 peer reaches an IPv6 listener only on [::] (dual-stack), not on [::1]:80: the entry would never match
10.0.0.0/8 port=80|unknown field 'port' (netns=, endpoint=)
netns=1|'netns=1' needs an address, a prefix or uid:USER before it
EOF
while IFS='|' read -r spec why; do
	# shellcheck disable=SC2086
	runlog trust add $spec
	unwritten "trust add '$spec': usage error, nothing written" 2 "'$spec': $why"
done <"$tmp/badspecs"
runlog trust add "10.0.0.0/8 netns=4026531840"
wrote_once "trust add 'PREFIX netns=N' as one argument" 'add 10.0.0.0/8 netns=4026531840\n'
runlog trust add "10.0.0.0/8 10.1.0.0/16 netns=1	10.2.0.0/16 10.3.0.0/16" "10.4.0.0/16 10.5.0.0/16 10.6.0.0/16"
wrote_once "trust add: several SPECs in one argument (more entries than arguments)" \
	'add 10.0.0.0/8\nadd 10.1.0.0/16 netns=1\nadd 10.2.0.0/16\nadd 10.3.0.0/16\nadd 10.4.0.0/16\nadd 10.5.0.0/16\nadd 10.6.0.0/16\n'
runlog trust add 10.0.0.0/8 uid:no_such_user_brute
unwritten "trust add: one bad SPEC, nothing written (not even the good ones)" 2 "no such user 'no_such_user_brute'"
runlog trust add "$(printf '10.0.0.1\033[31m')"
if [ "$rc" = 2 ] && printf '%s\n' "$errout" | grep -qF "'10.0.0.1\\033[31m' is not an IPv4" &&
	! printf '%s' "$errout" | grep -q "$(printf '\033')"; then
	ok "trust add: a bad SPEC's control bytes escaped in the error"
else
	not_ok "trust add: a bad SPEC's control bytes escaped in the error" "exit $rc" "$errout"
fi
# an IPv4-mapped endpoint is the IPv4 listener, as the kernel keeps and lists it (laddr=IPv4)
runlog trust add 10.0.0.1 'endpoint=[::ffff:10.0.0.1]:80'
wrote_once "trust add endpoint=[::ffff:IPv4]:PORT: laddr=IPv4, as the kernel lists it" 'add 10.0.0.1/32 laddr=10.0.0.1 lport=80\n'
expect "trust add endpoint=[::ffff:IPv4]:PORT: said in the IPv4 form" 0 '^trusted: 10.0.0.1/32 endpoint=10.0.0.1:80$'
# an IPv4 peer on a dual-stack listener ([::]) is reachable: kept
runlog trust add 10.0.0.0/8 'endpoint=[::]:80'
wrote_once "trust add IPv4 PREFIX endpoint=[::]:PORT (dual-stack): accepted" 'add 10.0.0.0/8 laddr=:: lport=80\n'
# repeats (however spelled) are written once: one add line, one "trusted:", said once
runlog trust add 10.0.0.0/8 10.0.0.0/8 ::ffff:10.0.0.0/104 uid:33 10.0.0.0/8
wrote_once "trust add X X: the repeated entry written once" 'add 10.0.0.0/8\nadd uid:33\n'
if [ "$out" = "$(printf 'trusted: 10.0.0.0/8\ntrusted: uid:33')" ] &&
	[ "$(printf '%s\n' "$errout" | grep -c 'given more than once')" = 1 ] &&
	printf '%s\n' "$errout" | grep -qxF 'brutectl: trust add: warning: 10.0.0.0/8 given more than once, written once'; then
	ok "trust add X X: said once, the repeat warned of once"
else
	not_ok "trust add X X: said once, the repeat warned of once" "stdout: $out" "stderr: $errout"
fi
runlog trust add 0.0.0.0/0
if [ -f "$tmp/w.1" ] && printf '%s\n' "$errout" | grep -qF 'warning: 0.0.0.0/0 trusts every IPv4 address'; then
	ok "trust add 0.0.0.0/0: done, with a warning"
else
	not_ok "trust add 0.0.0.0/0: done, with a warning" "exit $rc" "$errout"
fi
# the kernel's refusals, as it reports them (errno of the write)
for case in "22|the kernel rejected the change as malformed (EINVAL): nothing applied" \
	"28|the list would hold more than 1024 entries (ENOSPC): nothing applied" \
	"27|the change is over 131072 bytes (EFBIG): nothing applied" \
	"1|(changing the trusted list needs CAP_SYS_ADMIN)" \
	"2|the kernel has no such entry to delete (ENOENT): nothing applied" \
	"5|Input/output error: what the kernel applied is unknown"; do
	runerr "${case%%|*}" trust add 10.0.0.0/8
	expect "trust add: the kernel answers errno ${case%%|*}" 1 '' "${case#*|}"
done
# del: an exact match of an entry the kernel lists, checked before anything is written
write_trusted
runlog trust del 10.0.0.0/8 192.0.2.10 netns=4026531840
wrote_once "trust del: one write of 'del SPEC' lines" 'del 10.0.0.0/8\ndel 192.0.2.10/32 netns=4026531840\n'
expect "trust del: says what it removed" 0 '^no longer trusted: 192.0.2.10/32 netns=4026531840$'
runlog trust del 198.51.100.0/24 netns=4026531840 endpoint=0.0.0.0:80 uid:2000-2099 netns=4026531840 2001:db8:1::/48 endpoint=[::]:443
wrote_once "trust del: scoped entries, as trust list --json's spec says them" \
	'del 198.51.100.0/24 netns=4026531840 laddr=0.0.0.0 lport=80\ndel uid:2000-2099 netns=4026531840\ndel 2001:db8:1::/48 laddr=:: lport=443\n'
for spec in "192.0.2.10" "198.51.100.0/24 netns=4026531840" "10.0.0.0/8 netns=4026531840" "uid:2000-2099" "10.0.0.0/16"; do
	# shellcheck disable=SC2086
	runlog trust del 10.1.0.0/16 endpoint=*:8080 $spec
	unwritten "trust del '$spec': not an exact match, nothing written" 1 "no such trusted entry: "
done
# del of a listed entry given with an IPv4-mapped endpoint (the kernel lists laddr=IPv4)
printf 'trusted=10.0.0.1/32 laddr=10.0.0.1 lport=80 crashes=0\n' >>"$sec/brute/trusted"
runlog trust del 10.0.0.1 'endpoint=[::ffff:10.0.0.1]:80'
wrote_once "trust del endpoint=[::ffff:IPv4]:PORT: the entry trust add made, as listed" 'del 10.0.0.1/32 laddr=10.0.0.1 lport=80\n'
# del X X: one del line (a second would fail the whole write with ENOENT)
runlog trust del 10.0.0.0/8 "10.0.0.0/8 ::ffff:10.0.0.0/104"
wrote_once "trust del X X: the repeated entry deleted once" 'del 10.0.0.0/8\n'
expect "trust del X X: said once" 0 '^no longer trusted: 10.0.0.0/8$' 'given more than once, written once'
printf 'junk\n' >>"$sec/brute/trusted"
runlog trust del 10.0.0.0/8
unwritten "trust del: a malformed list, nothing written" 1 "malformed line"
write_trusted
runerr 2 trust del 10.0.0.0/8
expect "trust del: the kernel's ENOENT (the list changed meanwhile)" 1 '' 'no such entry to delete (ENOENT)'
# the interface absent
rm "$sec/brute/trusted"
runlog trust add 10.0.0.0/8
unwritten "trust add on a kernel without a trusted list (v3)" 1 "has no trusted list (older than v4?)"
echo "lockdown,capability" >"$sec/lsm"
runlog trust add 10.0.0.0/8
unwritten "trust add with Brute not active" 1 "Brute is not active"
fresh_tree_v4
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	for args in "trust list" "trust add 10.0.0.0/8"; do
		# shellcheck disable=SC2086
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" $args >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "$args as non-root: needs root" 1 '' 'Permission denied (.* needs root)'
	done
else
	ok "trust as non-root # SKIP needs root and setpriv"
fi

# --- trust check / load: the operator's file
conf=$tmp/trusted-peers.conf
cat >"$conf" <<EOF
# comment
10.0.0.0/8
   # an indented comment

192.0.2.10 netns=/proc/self/ns/net	# a comment after a tab
198.51.100.0/24  endpoint=0.0.0.0:80 # two blanks
	2001:db8::/32 endpoint=[::]:443
uid:$rootname
uid:2000-2099 netns=4026531840
10.0.0.0/8
::ffff:10.9.0.0/112 endpoint=*:22
EOF
printf '10.1.0.0/16 endpoint=*:8080\r\n' >>"$conf"
chmod 600 "$conf"
run trust check "$conf"
if [ "$rc" = 0 ] && [ "$out" = "$conf: 8 entries, no errors" ] &&
	printf '%s\n' "$errout" | grep -qxF "brutectl: $conf:10: warning: the same entry as line 2"; then
	ok "trust check: a good file (comments, blanks, tabs, CRLF), 8 entries, a repeated one warned of"
else
	not_ok "trust check: a good file" "exit $rc" "$out" "$errout"
fi
runlog trust check "$conf"
unwritten "trust check writes nothing" 0 ""
runlog trust load "$conf"
wrote_once "trust load: ONE write: flush, then an add per entry (the repeated one once)" \
	"flush\nadd 10.0.0.0/8\nadd 192.0.2.10/32 netns=$hostns\nadd 198.51.100.0/24 laddr=0.0.0.0 lport=80\nadd 2001:db8::/32 laddr=:: lport=443\nadd uid:0\nadd uid:2000-2099 netns=4026531840\nadd 10.9.0.0/16 lport=22\nadd 10.1.0.0/16 lport=8080\n"
expect "trust load: says it replaced the list" 0 "^$conf: 8 trusted entries loaded (the kernel's list replaced)$"
printf '# nothing trusted\n\n' >"$conf"
runlog trust load "$conf"
wrote_once "trust load of a file without entries: one write of 'flush'" 'flush\n'
run trust check
if printf '%s\n' "$out$errout" | grep -q '/etc/brute/trusted-peers.conf'; then
	ok "trust check without FILE: /etc/brute/trusted-peers.conf"
else
	not_ok "trust check without FILE: /etc/brute/trusted-peers.conf" "$out" "$errout"
fi
# every SPEC error of trust add as line 2 of a file: FILE:2: why, nothing loaded
while IFS='|' read -r spec why; do
	printf '10.0.0.0/8\n%s # x\n' "$spec" >"$conf"
	runlog trust load "$conf"
	unwritten "trust load: line '$spec' rejected with its line number, nothing written" 1 "$conf:2: $why"
done <"$tmp/badspecs"
while IFS='|' read -r line why; do
	printf '10.0.0.0/8\n%s\n' "$line" >"$conf"
	runlog trust load "$conf"
	unwritten "trust load: line '$line' rejected, nothing written" 1 "$conf:2: $why"
done <<'EOF'
10.0.0.1 10.0.0.2|unexpected '10.0.0.2' (one peer per entry; its scope: netns=..., endpoint=...)
10.0.0.0/8 netns=1 endpoint=*:1 a b c d e f|too many fields (PEER [netns=...] [endpoint=...])
10.0.0.9#x|'10.0.0.9#x' is not an IPv4 or IPv6 address or prefix, nor uid:USER
EOF
printf '10.0.0.0/8\n10.0.0.1\001\n' >"$conf"
runlog trust load "$conf"
unwritten "trust load: a control character, its line, nothing written" 1 "$conf:2: control character \\001"
printf '10.0.0.0/8\n10.0.0.1 # a comment \033[2J with ESC\n' >"$conf"
runlog trust load "$conf"
unwritten "trust load: a control character in a comment is an error too" 1 "$conf:2: control character \\033 in a comment"
printf '\357\273\27710.0.0.0/8\n' >"$conf"
runlog trust load "$conf"
unwritten "trust load: a UTF-8 byte-order mark named as such" 1 "$conf:1: a byte-order mark (U+FEFF) at the start of the file"
if [ "$(printf '%s\n' "$errout" | grep -c "^brutectl: $conf:1: ")" = 1 ]; then
	ok "trust load: the line after the byte-order mark is checked (no second error)"
else
	not_ok "trust load: the line after the byte-order mark is checked" "$errout"
fi
printf '10.0.0.0/8\n10.0.0.1\000x\n' >"$conf"
runlog trust load "$conf"
unwritten "trust load: a NUL byte, its line, nothing written" 1 "$conf:2: NUL byte"
{ echo 10.0.0.0/8; printf '%01100d\n' 0; } >"$conf"
runlog trust load "$conf"
unwritten "trust load: a line over 1024 bytes, nothing written" 1 "$conf:2: line too long (1100 bytes, at most 1024)"
printf '10.0.0.0/8\nbad1\n10.0.0.1\nuid:nobody_brute\n10.0.0.1/8\n' >"$conf"
runlog trust load "$conf"
if [ "$rc" = 1 ] && [ ! -e "$tmp/w.1" ] && [ "$(printf '%s\n' "$errout" | grep -c "^brutectl: $conf:[245]: ")" = 3 ] &&
	printf '%s\n' "$errout" | grep -qxF "brutectl: $conf: 3 errors: nothing loaded, the kernel's list is unchanged"; then
	ok "trust load: every error reported (3, each with its line), nothing written"
else
	not_ok "trust load: every error reported" "exit $rc" "$errout"
fi
run trust check "$conf"
expect "trust check: errors, exit 1, 'it would not load'" 1 '' "$conf: 3 errors: it would not load"
# many bad lines: the first 20 listed, the others counted (warnings the same way)
{ python3 -c 'for i in range(25): print("bad%d" % i)'; python3 -c 'for i in range(23): print("10.0.0.0/8")'; } >"$conf"
run trust check "$conf"
if [ "$rc" = 1 ] && [ "$(printf '%s\n' "$errout" | grep -c "^brutectl: $conf:[0-9]*: 'bad")" = 20 ] &&
	printf '%s\n' "$errout" | grep -qxF "brutectl: $conf: 5 more errors not listed" &&
	[ "$(printf '%s\n' "$errout" | grep -c "warning: the same entry as line 26")" = 20 ] &&
	printf '%s\n' "$errout" | grep -qxF "brutectl: $conf: 2 more warnings not listed" &&
	printf '%s\n' "$errout" | grep -qxF "brutectl: $conf: 25 errors: it would not load"; then
	ok "trust check: 25 bad lines, 20 listed, 5 counted (warnings too), 25 errors"
else
	not_ok "trust check: 20 bad lines listed, the others counted" "exit $rc" "$errout"
fi
printf '0.0.0.0/0\n::/0\nuid:0\n' >"$conf"
run trust check "$conf"
if [ "$rc" = 0 ] && printf '%s\n' "$errout" | grep -qF "$conf:1: warning: 0.0.0.0/0 trusts every IPv4 address" &&
	printf '%s\n' "$errout" | grep -qF "$conf:2: warning: ::/0 trusts every IPv6 address" &&
	printf '%s\n' "$errout" | grep -qF "$conf:3: warning: uid 0 (root) is never charged anyway"; then
	ok "trust check: warnings (everything trusted, uid 0), not errors"
else
	not_ok "trust check: warnings, not errors" "exit $rc" "$errout"
fi
# the kernel's bounds: 1024 entries, 131072 bytes in the one write
python3 -c 'for i in range(1024): print("10.%d.%d.0/24" % (i // 256, i % 256))' >"$conf"
runlog trust load "$conf"
if [ "$rc" = 0 ] && [ ! -e "$tmp/w.2" ] && [ "$(grep -c '^add ' "$tmp/w.1")" = 1024 ] &&
	[ "$(head -n 1 "$tmp/w.1")" = flush ]; then
	ok "trust load: 1024 entries, one write ($(wc -c <"$tmp/w.1") bytes)"
else
	not_ok "trust load: 1024 entries, one write" "exit $rc" "$errout"
fi
echo 10.99.0.0/24 >>"$conf"
runlog trust load "$conf"
unwritten "trust load: 1025 entries refused, nothing written" 1 "$conf: 1025 entries: the kernel holds 1024 at most"
python3 -c 'for i in range(1024): print("2001:db8:1234:5678:9abc:def0:1234:%x netns=4026531840 endpoint=[2001:db8:1234:5678:9abc:def0:1234:5678]:65535" % i)' >"$conf"
runlog trust load "$conf"
if [ "$rc" = 0 ] && [ ! -e "$tmp/w.2" ] && [ "$(grep -c '^add ' "$tmp/w.1")" = 1024 ]; then
	ok "trust load: the longest 1024 entries fit one write ($(wc -c <"$tmp/w.1") bytes)"
else
	not_ok "trust load: the longest 1024 entries fit one write" "exit $rc" "$errout"
fi
# the file itself: a regular file of root (or of the user running brutectl), not a link,
# writable by its owner only
echo 10.0.0.0/8 >"$conf"
for m in 620 602 666; do
	chmod "$m" "$conf"
	runlog trust load "$conf"
	unwritten "trust load: a file of mode $m refused" 1 "writable by its group or by everyone (mode 0$m): refused"
done
chmod 644 "$conf"
runlog trust load "$conf"
wrote_once "trust load: a file of mode 644 (readable by others) loads" 'flush\nadd 10.0.0.0/8\n'
ln -sf "$conf" "$tmp/link.conf"
runlog trust load "$tmp/link.conf"
unwritten "trust load: a symbolic link refused" 1 "$tmp/link.conf: a symbolic link, refused"
runlog trust load "$tmp/adir"
unwritten "trust load: a directory refused" 1 "$tmp/adir: not a regular file, refused"
runlog trust load "$tmp/no-such.conf"
unwritten "trust load: a missing file" 1 "cannot read $tmp/no-such.conf: No such file or directory"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$conf"
	runlog trust check "$conf"
	unwritten "trust check: a file of another user (65534) refused" 1 "owned by uid 65534, neither root nor the user running brutectl: refused"
	chown 0 "$conf"
	if command -v setpriv >/dev/null; then
		chmod 755 "$tmp"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" trust load "$conf" >"$tmp/out" 2>"$tmp/err"
		rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
		expect "trust load as non-root (root's file): needs root" 1 '' 'changing the trusted list needs root'
	fi
else
	ok "trust check: a file of another user refused # SKIP needs root"
fi
# the kernel's refusals on load
for case in "22|malformed (EINVAL): nothing applied" "28|(ENOSPC): nothing applied" \
	"1|needs CAP_SYS_ADMIN"; do
	runerr "${case%%|*}" trust load "$conf"
	expect "trust load: the kernel answers errno ${case%%|*}" 1 '' "${case#*|}"
done
rm "$sec/brute/trusted"
runlog trust load "$conf"
unwritten "trust load on a kernel without a trusted list (v3): the file checked, nothing written" 1 "has no trusted list (older than v4?)"
printf 'bad\n' >"$conf"
runlog trust load "$conf"
unwritten "trust load of a bad file on a v3 kernel: the file's errors first" 1 "$conf:1: 'bad' is not"
# the shipped file: no entry by default; each example it shows (a line "#PEER ...") is valid
fresh_tree_v4
shipped=$here/../../../etc/brute/trusted-peers.conf
if [ -f "$shipped" ]; then
	cp "$shipped" "$conf"
	chmod 600 "$conf"
	run trust check "$conf"
	expect "the shipped trusted-peers.conf: no entry, no error" 0 "^$conf: 0 entries, no errors\$"
	sed -n 's/^#\([0-9a-f:u[][^ ]*\( .*\)\{0,1\}\)$/\1/p' "$shipped" |
		sed "s|netns=/run/netns/[a-z0-9-]*|netns=/proc/self/ns/net|" >"$conf"
	n_examples=$(grep -c . "$conf")
	run trust check "$conf"
	if [ "$rc" = 0 ] && [ "$n_examples" -ge 8 ] && [ -z "$errout" ]; then
		ok "the shipped trusted-peers.conf: its $n_examples examples are valid entries"
	else
		not_ok "the shipped trusted-peers.conf: its examples are valid entries" "exit $rc" "$out" "$errout" "$(cat "$conf")"
	fi
else
	not_ok "the shipped trusted-peers.conf is there" "$shipped"
fi

# --- peers: the trusted entries after the peer table; lpath= of Unix endpoints (v4)
fresh_tree_v4
write_trusted
cat >"$sec/brute/peers" <<'PEERS'
peer=10.199.0.2/32 netns=4026532281 transport=tcp laddr=0.0.0.0 lport=7777 faults=1 attacks=1 ema_ms=12 idle_ms=800 ban_left_s=899 refused=3
peer=uid:3999999998 peer_uid=3999999998 netns=4026531840 transport=unix lino=23114 lpath=/run/php/php8.2-fpm.sock faults=5 attacks=1 ema_ms=0 idle_ms=900 ban_left_s=900 refused=1
peer=uid:3999999997 peer_uid=3999999997 netns=4026531840 transport=unix lino=23115 lpath=@brute\040x\033y faults=1 attacks=0 ema_ms=0 idle_ms=900 ban_left_s=0 refused=0
peer=uid:3999999996 peer_uid=3999999996 netns=4026531840 transport=unix lino=23116 lpath=? faults=1 attacks=0 ema_ms=0 idle_ms=900 ban_left_s=0 refused=0
peer=uid:3999999995 peer_uid=3999999995 netns=4026531840 transport=tcp laddr=127.0.0.1 lport=9000 faults=2 attacks=0 ema_ms=0 idle_ms=900 ban_left_s=0 refused=0
PEERS
run peers
if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^uid:3999999998  *-  *unix /run/php/php8.2-fpm.sock  *4026531840 ' &&
	printf '%s\n' "$out" | grep -qF 'unix @brute x\033y ' &&
	printf '%s\n' "$out" | grep -q '^uid:3999999996  *-  *unix socket 23116  ' &&
	printf '%s\n' "$out" | grep -q '^uid:3999999995  *-  *tcp 127.0.0.1:9000  ' &&
	! printf '%s' "$out" | grep -q "$(printf '\033')"; then
	ok "peers: a Unix endpoint by its path (lpath=, escaped), unnamed by its inode; a local TCP peer"
else
	not_ok "peers: a Unix endpoint by its path (lpath=)" "exit $rc" "$out" "$errout"
fi
if printf '%s\n' "$out" | sed -n '/^trusted peers (never charged, never banned: brutectl trust):$/,$p' | grep -q '^10\.0\.0\.0/8 ' &&
	[ "$(printf '%s\n' "$out" | sed -n '/^trusted peers/,$p' | grep -c '^[0-9a-fu]')" = 8 ] &&
	printf '%s\n' "$out" | grep -q '^2001:db8:1::/48  *-  *any  *\[::\]:443  *18446744073709551615$'; then
	ok "peers: the trusted entries listed after the table, with their crashes"
else
	not_ok "peers: the trusted entries listed after the table" "$out"
fi
run peers --bans
if [ "$rc" = 0 ] && ! printf '%s\n' "$out" | grep -q 'trusted'; then
	ok "peers --bans: no trusted entries (never banned)"
else
	not_ok "peers --bans: no trusted entries" "$out"
fi
run peers --json
if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["entries"]
assert e[1]["lpath"] == "/run/php/php8.2-fpm.sock" and e[1]["lpath_raw"] == "/run/php/php8.2-fpm.sock", e[1]
assert e[1]["lino"] == 23114 and e[1]["transport"] == "unix", e[1]
assert e[2]["lpath"] == "@brute x\x1by" and e[2]["lpath_raw"] == "@brute\\040x\\033y", e[2]
assert e[3]["lpath"] is None and e[3]["lpath_raw"] == "?", e[3]
assert "lpath" not in e[0] and "lpath" not in e[4], e
assert (e[4]["family"], e[4]["transport"], e[4]["laddr"], e[4]["lport"]) == ("unix", "tcp", "127.0.0.1", 9000), e[4]
t = d["trusted"]
assert len(t) == 8 and t[1]["spec"] == "192.0.2.10/32 netns=4026531840" and t[1]["crashes"] == 3, t
' 2>"$tmp/py"; then
	ok "peers --json: lpath and lpath_raw, the trusted entries in \"trusted\""
else
	not_ok "peers --json: lpath, trusted" "exit $rc" "$out" "$(cat "$tmp/py")"
fi
run peers --json --bans
if [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert "trusted" not in d and [x["peer"] for x in d["entries"]] == ["10.199.0.2/32", "uid:3999999998"], d' 2>"$tmp/py"; then
	ok "peers --json --bans: the bans only"
else
	not_ok "peers --json --bans: the bans only" "$out" "$(cat "$tmp/py")"
fi
: >"$sec/brute/trusted"
run peers --json
expect "peers --json: an empty trusted list" 0 '"trusted":\[\]}$'
run peers
if [ "$rc" = 0 ] && ! printf '%s\n' "$out" | grep -q '^trusted'; then
	ok "peers: nothing trusted, no trusted section"
else
	not_ok "peers: nothing trusted, no trusted section" "$out"
fi
printf 'trusted=10.0.0.1 crashes=0\n' >"$sec/brute/trusted"
run peers
expect "peers: a malformed trusted list is an error" 1 '' 'trusted:1: malformed line'
pl='peer=uid:5 netns=1 transport=unix lino=2 faults=1 attacks=0 ema_ms=1 idle_ms=1 ban_left_s=0 refused=0'
: >"$sec/brute/trusted"
for case in 'bad escape in lpath|lpath=/a\9b' 'NUL byte in lpath|lpath=/a\000' \
	'duplicate field lpath|lpath=/a lpath=/b' "bad value for lpath: ''|lpath="; do
	printf '%s %s\n' "$pl" "${case#*|}" >"$sec/brute/peers"
	run peers
	expect "peers: malformed rejected: ${case%%|*}" 1 '' "peers:1: malformed line: ${case%%|*}"
done

# --- status: trusted_uid_max among the tunables, the trusted list's size (stats' trusted=)
fresh_tree_v4
run status
if printf '%s\n' "$out" | grep -q '^  trusted_uid_max  *999$' &&
	printf '%s\n' "$out" | grep -qx 'trusted: 3 declared peers (brutectl trust list); local uids 1-999 are relays (trusted_uid_max)' &&
	printf '%s\n' "$out" | grep -q '^  backstop_hold_s  *10$' &&
	[ "$(printf '%s\n' "$out" | grep -c '^  [a-z0-9_]*  *[0-9]')" = 18 ]; then
	ok "status: trusted_uid_max and the trusted list's size"
else
	not_ok "status: trusted_uid_max and the trusted list's size" "exit $rc" "$out" "$errout"
fi
run status --json
if printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["tunables"]["trusted_uid_max"] == 999 and len(d["tunables"]) == 18, d["tunables"]
assert d["tunables"]["backstop_hold_s"] == 10, d["tunables"]
assert d["stats"]["trusted"] == 3, d["stats"]' 2>"$tmp/py"; then
	ok "status --json: trusted_uid_max, stats' trusted"
else
	not_ok "status --json: trusted_uid_max, stats' trusted" "$out" "$(cat "$tmp/py")"
fi
echo 0 >"$sysctl/trusted_uid_max"
echo "hierarchies=1 trusted=1" >"$sec/brute/stats"
run status
expect "status: one declared peer, trusted_uid_max 0" "$rc" '^trusted: 1 declared peer (brutectl trust list); no local uid is a relay (trusted_uid_max 0)$'
fresh_tree
run status
if ! printf '%s\n' "$out" | grep -q '^trusted:' && printf '%s\n' "$out" | grep -q '^services: '; then
	ok "status on a v3 kernel: no trusted line"
else
	not_ok "status on a v3 kernel: no trusted line" "$out"
fi
[ -n "$nspid" ] && kill "$nspid" 2>/dev/null
