# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run-tests.sh, once per build ($bin): the services `brutectl status` shows
# (issue 30 item 5): every listening TCP, MPTCP and Unix stream socket of every network
# namespace, the processes that hold it, their systemd unit, the unit's restart policy and
# the trusted peers whose scope covers it.
#
# First against a fake /proc (files as the kernel writes them: every unit shape, a path
# with a newline, a forged line, a line not understood); then against this machine's real
# /proc, with listeners made here (TCP, IPv6, IPv6 on an IPv4-mapped address, MPTCP when the
# kernel has it, Unix by path and abstract, one in another network namespace). No systemd
# runs on this host: `systemctl show` is a stand-in that answers in systemd 252's format and
# records what it was asked (the system guest has the real one).

# fake_proc: the processes and sockets below, in $root/proc; a systemd that runs
fake_proc() {
	p=$root/proc
	# pid|netns|cgroup (one line each, \n between)|comm|fd targets
	while IFS='|' read -r pid ns cg comm fds; do
		mkdir -p "$p/$pid/ns" "$p/$pid/fd"
		ln -s "net:[$ns]" "$p/$pid/ns/net"
		printf "$cg\n" >"$p/$pid/cgroup"
		echo "$comm" >"$p/$pid/comm"
		i=3
		for t in $fds; do
			ln -s "$t" "$p/$pid/fd/$i"
			i=$((i + 1))
		done
	done <<'EOF'
1|4026531840|0::/init.scope|systemd|socket:[3001] socket:[3002] /dev/null
100|4026531840|0::/system.slice/nginx.service|nginx|socket:[1001] socket:[1002] socket:[1004] pipe:[12]
101|4026531840|0::/system.slice/nginx.service|nginx|socket:[1001] socket:[1002] socket:[1004] socket:[4444]
200|4026531840|0::/system.slice/php8.2-fpm.service|php-fpm8.2|socket:[2001]
300|4026531840|0::/system.slice/foo.service|foo|socket:[3001]
400|4026531840|0::/user.slice/user-3999999998.slice/user@3999999998.service/app.slice/dev.service|devsrv|socket:[4001]
500|4026532000|0::/system.slice/web.service|websrv|socket:[5001] socket:[5002]
600|4026531840|0::/|loner|socket:[6001] socket:[6002] socket:[6003]
700|4026531840|0::/system.slice/svc.service/evil.service|svc|socket:[7001]
800|4026531840|1:name=systemd:/system.slice/legacy.service\n2:cpu:/x|legacy|socket:[8001]
900|4026531840|0::/user.slice/user-1000.slice/session-3.scope|sh|socket:[9001]
950|4026531840|0::/system.slice/bad name.service|odd|socket:[9501]
EOF
	mkdir -p "$p/1/net" "$p/500/net" "$root/run/systemd/system"
	cat >"$p/1/net/tcp" <<'EOF'
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4001 1 0000000000000000 100 0 0 10 0
   2: 00000000:270F 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9001 1 0000000000000000 100 0 0 10 0
   3: 0100007F:1F40 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 4444 1 0000000000000000 20 4 30 10 -1
   4: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 100 0 0 10 0
   5: 00000000:0BB9 00000000:0000 0A 00000000:00000000
   6: 00000000:0BBA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9501 1 0000000000000000 100 0 0 10 0
EOF
	cat >"$p/1/net/tcp6" <<'EOF'
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7001 1 0000000000000000 100 0 0 10 0
   2: B80D0120000000000000000001000000:01BB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1004 1 0000000000000000 100 0 0 10 0
EOF
	cat >"$p/1/net/unix" <<'EOF'
Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01  2001 /run/php/php8.2-fpm.sock
0000000000000000: 00000002 00000000 00010000 0001 01  3001 /run/foo.sock
0000000000000000: 00000003 00000000 00000000 0001 03  7779
0000000000000000: 00000002 00000000 00010000 0001 01  3002 /run/bar.sock
0000000000000000: 00000002 00000000 00010000 0001 01  6001 @loner
x y
0000000000000000: 00000002 00000000 00010000 0001 01  6002 /tmp/evil
0000000000000000: 00000002 00000000 00010000 0001 01  3002 /run/php/fake.sock
0000000000000000: 00000003 00000000 00000000 0001 03  7777 /run/foo.sock
0000000000000000: 00000002 00000000 00010000 0005 01  7778 /run/seqpacket.sock
0000000000000000: 00000002 00000000 00010000 0001 01  8001 /run/legacy.sock
0000000000000000: 00000002 00000000 00010000 0001 01  6003
0000000000000000: 00000002 00000000 00010000 0001 01  6004 /tmp/evil2
0000000000000000: 00000002 00000000 00010000 0001 01  1001 /run/forged-nginx.sock
EOF
	cat >"$p/500/net/tcp" <<'EOF'
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100420A:1E61 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5001 1 0000000000000000 100 0 0 10 0
   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5002 1 0000000000000000 100 0 0 10 0
EOF
	head -n 1 "$p/1/net/tcp6" >"$p/500/net/tcp6"
	head -n 1 "$p/1/net/unix" >"$p/500/net/unix"
	# the same namespace as pid 1: its files are never read (one pid per namespace)
	mkdir -p "$p/100/net"
	echo garbage >"$p/100/net/tcp"
	cat >"$sec/brute/trusted" <<'EOF'
trusted=10.0.0.0/8 crashes=0
trusted=192.0.2.0/24 lport=80 crashes=0
trusted=198.51.100.7/32 netns=4026532000 laddr=10.66.0.1 lport=7777 crashes=2
trusted=uid:1500 crashes=0
trusted=uid:2000-2099 netns=4026532000 crashes=0
trusted=2001:db8::/32 laddr=:: lport=22 crashes=0
EOF
}

# the stand-in systemctl
mkdir -p "$tmp/bin"
cat >"$tmp/bin/systemctl" <<EOF
#!/bin/sh
# systemctl show as systemd 252 answers it (no systemd runs here); records its arguments
printf '%s\n' "\$*" >>"$tmp/systemctl.args"
[ -n "\${SYSTEMCTL_FAIL:-}" ] && exit 1
[ -n "\${SYSTEMCTL_HANG:-}" ] && exec sleep 30
[ "\$1" = show ] || exit 1
first=1
for a; do
	case \$a in show | --*) continue ;; esac
	[ \$first = 1 ] || echo
	first=0
	case \$a in
	foo.service) r=on-failure s=2s ;;
	web.service) r=always s=100ms ;;
	legacy.service) r=on-abort s=100ms ;;
	*) r=no s=100ms ;;
	esac
	[ "\$a" = svc.service ] && continue	# as if systemctl skipped it
	printf 'Id=%s\nRestart=%s\nRestartUSec=%s\nStartLimitIntervalUSec=10s\nStartLimitBurst=5\n' "\$a" "\$r" "\$s"
done
EOF
chmod 755 "$tmp/bin/systemctl"

# runsvc ARGS...: brutectl with the stand-in systemctl first on PATH
runsvc() {
	rm -f "$tmp/systemctl.args"
	PATH="$tmp/bin:$PATH" "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") errout=$(cat "$tmp/err")
	svc=$(printf '%s\n' "$out" | sed -n '/^services:/,/^host:/p' | sed '$d')
}

fresh_tree_v4
fake_proc
runsvc status
exp=$(cat <<'EOF'
services: 18 listening sockets, 9 systemd units (their peers: brutectl peers)
  foo.service: Restart=on-failure (restarted after a kill), RestartSec=2s, start limit 5 in 10s; brute-reportd restart: unknown
    unix /run/foo.sock, netns 4026531840, pid 300 foo (root), 2 processes
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  init.scope (systemd holds it: socket activation, its service not running)
    unix socket 3002 (path not shown: a forged line in /proc/net/unix), netns 4026531840, pid 1 systemd (root)
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  legacy.service: Restart=on-abort (restarted after a kill), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: unknown
    unix /run/legacy.sock, netns 4026531840, pid 800 legacy (root)
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  nginx.service: Restart=no (a kill leaves it down), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: unknown
    tcp 0.0.0.0:80, netns 4026531840, pid 100 nginx (root), 2 processes
      trusted: 10.0.0.0/8, 192.0.2.0/24 endpoint=*:80, uid:1500, local uids 1-999 (trusted_uid_max)
    tcp [::]:80, netns 4026531840, pid 100 nginx (root), 2 processes
      trusted: 10.0.0.0/8, 192.0.2.0/24 endpoint=*:80, uid:1500, local uids 1-999 (trusted_uid_max)
    tcp [2001:db8::1]:443, netns 4026531840, pid 100 nginx (root), 2 processes
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  php8.2-fpm.service: Restart=no (a kill leaves it down), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: unknown
    unix /run/php/php8.2-fpm.sock, netns 4026531840, pid 200 php-fpm8.2 (root)
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  session-3.scope
    tcp 0.0.0.0:9999, netns 4026531840, pid 900 sh (root)
      trusted: 10.0.0.0/8, uid:1500, local uids 1-999 (trusted_uid_max)
  svc.service: restart policy unknown (systemctl show said nothing); brute-reportd restart: unknown
    tcp [::]:22, netns 4026531840, pid 700 svc (root)
      trusted: 10.0.0.0/8, uid:1500, 2001:db8::/32 endpoint=[::]:22, local uids 1-999 (trusted_uid_max)
  web.service: Restart=always (restarted after a kill), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: unknown
    tcp 0.0.0.0:80, netns 4026532000, pid 500 websrv (root)
      trusted: 10.0.0.0/8, 192.0.2.0/24 endpoint=*:80, uid:1500, uid:2000-2099 netns=4026532000, local uids 1-999 (trusted_uid_max)
    tcp 10.66.0.1:7777, netns 4026532000, pid 500 websrv (root)
      trusted: 10.0.0.0/8, 198.51.100.7/32 netns=4026532000 endpoint=10.66.0.1:7777, uid:1500, uid:2000-2099 netns=4026532000, local uids 1-999 (trusted_uid_max)
  dev.service (a unit of user 3999999998's systemd)
    tcp 127.0.0.1:8000, netns 4026531840, pid 400 devsrv (root)
      trusted: 10.0.0.0/8, uid:1500, local uids 1-999 (trusted_uid_max)
  (no systemd unit)
    tcp 0.0.0.0:3002, netns 4026531840, pid 950 odd (root)
      trusted: 10.0.0.0/8, uid:1500, local uids 1-999 (trusted_uid_max)
    unix socket 6003 (unnamed), netns 4026531840, pid 600 loner (root)
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
    unix socket 6002 (path not shown: a forged line in /proc/net/unix), netns 4026531840, pid 600 loner (root)
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
    unix @loner\012x y, netns 4026531840, pid 600 loner (root)
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  (no process found)
    tcp 0.0.0.0:3000, netns 4026531840
      trusted: 10.0.0.0/8, uid:1500, local uids 1-999 (trusted_uid_max)
    unix socket 6004 (path not shown: a forged line in /proc/net/unix), netns 4026531840
      trusted: uid:1500, local uids 1-999 (trusted_uid_max)
  (1 line of /proc/PID/net/{tcp,tcp6,unix} not understood)
EOF
)
if [ "$rootname" != root ] || getent passwd 3999999998 >/dev/null; then
	ok "status: services # SKIP uid 0 is not root, or uid 3999999998 has a name here"
elif [ "$svc" = "$exp" ]; then
	ok "status: every listener under its unit, the unit's restart policy, the trusted peers that cover it"
else
	not_ok "status: services" "exit $rc" "got:" "$svc" "expected:" "$exp" "diff:" \
		"$(printf '%s\n' "$exp" >"$tmp/exp"; printf '%s\n' "$svc" | diff "$tmp/exp" -)" "$errout"
fi
if [ "$(cat "$tmp/systemctl.args" 2>/dev/null)" = "show --no-pager --property=Id --property=Restart --property=RestartUSec --property=StartLimitBurst --property=StartLimitIntervalUSec -- foo.service legacy.service nginx.service php8.2-fpm.service svc.service web.service" ]; then
	ok "status: one systemctl show for every service unit (not scopes, user units or init.scope)"
else
	not_ok "status: one systemctl show for every service unit" "$(cat "$tmp/systemctl.args" 2>&1)"
fi
case $svc in *fake.sock* | *forged-nginx* | *evil* | "") not_ok "status: no forged or cut path shown" "$svc" ;;
*/run/foo.sock*'@loner\012x y'*) ok "status: a path with a newline that forges a /proc/net/unix line: neither its path, nor the forged one, nor the forged copy of another socket shown" ;;
*) not_ok "status: the real paths shown" "$svc" ;;
esac
runsvc status --json
if printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["services"]
assert d["systemd"] is True and d["lines_not_understood"] == 1 and d["unreadable_processes"] == 0, d
u = {x["unit"]: x for x in d["units"]}
n = u["nginx.service"]
assert (n["kind"], n["restart"], n["restart_sec"], n["start_limit_burst"], n["start_limit_interval"],
        n["reportd_restart"]) == ("system", "no", "100ms", 5, "10s", None), n
s = n["sockets"]
assert [(x["transport"], x["laddr"], x["lport"]) for x in s] == [
    ("tcp", "0.0.0.0", 80), ("tcp", "::", 80), ("tcp", "2001:db8::1", 443)], s
assert (s[0]["netns"], s[0]["inode"], s[0]["pid"], s[0]["comm"], s[0]["processes"]) == (
    4026531840, 1001, 100, "nginx", 2), s[0]
assert s[0]["trusted"] == ["10.0.0.0/8", "192.0.2.0/24 endpoint=*:80", "uid:1500"], s[0]
assert s[0]["trusted_uid_max"] == 999, s[0]
w = u["web.service"]["sockets"][1]
assert w["trusted"] == ["10.0.0.0/8", "198.51.100.7/32 netns=4026532000 endpoint=10.66.0.1:7777",
                        "uid:1500", "uid:2000-2099 netns=4026532000"], w
f = u["php8.2-fpm.service"]["sockets"][0]
assert (f["transport"], f["path"], f["path_ambiguous"], f["inode"]) == (
    "unix", "/run/php/php8.2-fpm.sock", False, 2001), f
i = u["init.scope"]["sockets"][0]
assert i["path"] is None and i["path_ambiguous"] is True and i["inode"] == 3002, i
dv = u["dev.service"]
assert dv["kind"] == "user" and dv["user_uid"] == 3999999998 and dv["restart"] is None, dv
none = [x for x in d["units"] if x["kind"] == "none"][0]
assert none["unit"] is None, none
assert [(x["transport"], x.get("path"), x.get("path_ambiguous"), x["inode"]) for x in none["sockets"]] == [
    ("tcp", None, None, 9501), ("unix", None, False, 6003), ("unix", None, True, 6002),
    ("unix", "@loner\nx y", False, 6001)], none
lost = [x for x in d["units"] if x["kind"] == "unknown"][0]
assert lost["sockets"][0]["pid"] is None and lost["sockets"][0]["processes"] == 0, lost
assert sum(len(x["sockets"]) for x in d["units"]) == 18, d
' 2>"$tmp/py"; then
	ok "status --json: services, units, sockets, restart policy, trusted"
else
	not_ok "status --json: services" "exit $rc" "$out" "$(cat "$tmp/py")"
fi
# brute-reportd's answer to the backstop (backstop_restart in its state file): yes, no, and a
# value it does not write
mkdir -p "$root/run/brute-reportd"
for v in yes no maybe; do
	printf 'pid=1\nbackstop_restart=%s\n' "$v" >"$root/run/brute-reportd/status"
	runsvc status
	want=$v j=\"$v\"
	[ "$v" = maybe ] && want=unknown j=null
	if printf '%s\n' "$svc" | grep -qx "  nginx.service: Restart=no (a kill leaves it down), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: $want" &&
		printf '%s\n' "$svc" | grep -qx "  web.service: Restart=always (restarted after a kill), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: $want" &&
		runsvc status --json && printf '%s' "$out" | python3 -c '
import json, sys
u = {x["unit"]: x for x in json.load(sys.stdin)["services"]["units"]}
assert u["nginx.service"]["reportd_restart"] == json.loads(sys.argv[1]), u["nginx.service"]
assert u["session-3.scope"]["reportd_restart"] is None, u["session-3.scope"]
assert u["dev.service"]["reportd_restart"] is None, u["dev.service"]
' "$j" 2>"$tmp/py"; then
		ok "status: backstop_restart=$v in brute-reportd's state file: every service unit says brute-reportd restart: $want"
	else
		not_ok "status: backstop_restart=$v: brute-reportd restart: $want" "$svc" "$(cat "$tmp/py")"
	fi
done
rm -r "$root/run/brute-reportd"
# systemd not running, systemctl failing, systemctl not answering
rm -r "$root/run/systemd"
runsvc status
if printf '%s\n' "$svc" | grep -qx '  nginx.service: restart policy unknown (systemd is not running); brute-reportd restart: unknown' &&
	[ ! -e "$tmp/systemctl.args" ]; then
	ok "status: systemd not running: restart policy unknown, systemctl not asked"
else
	not_ok "status: systemd not running" "$svc" "$(cat "$tmp/systemctl.args" 2>&1)"
fi
mkdir -p "$root/run/systemd/system"
SYSTEMCTL_FAIL=1 runsvc status
expect "status: systemctl show fails: restart policy unknown" "$rc" '^  nginx.service: restart policy unknown (systemctl show failed); brute-reportd restart: unknown$'
if [ "$build" = normal ]; then
	t0=$(date +%s)
	SYSTEMCTL_HANG=1 runsvc status
	t1=$(date +%s)
	if printf '%s\n' "$svc" | grep -q 'restart policy unknown (systemctl show did not answer within 10 s)' &&
		[ $((t1 - t0)) -lt 20 ]; then
		ok "status: systemctl show hangs: given up after 10 s ($((t1 - t0)) s)"
	else
		not_ok "status: systemctl show hangs: given up after 10 s" "$((t1 - t0)) s" "$svc"
	fi
fi
PATH="/nonexistent" "$bin" status >"$tmp/out" 2>"$tmp/err"
if grep -q '^  nginx.service: restart policy unknown (systemctl not found)' "$tmp/out"; then
	ok "status: no systemctl: restart policy unknown"
else
	not_ok "status: no systemctl" "$(cat "$tmp/out" "$tmp/err")"
fi
# without the trusted list (a v3 kernel): no trusted lines; not readable: said
rm "$sec/brute/trusted" "$sysctl/trusted_uid_max"
runsvc status
if [ -n "$svc" ] && ! printf '%s\n' "$svc" | grep -q 'trusted:'; then
	ok "status on a v3 kernel: services, no trusted lines"
else
	not_ok "status on a v3 kernel: services, no trusted lines" "$svc"
fi
echo 999 >"$sysctl/trusted_uid_max"
echo 'trusted=10.0.0.0/8 crashes=0' >"$sec/brute/trusted"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 600 "$sec/brute/trusted"
	chmod 700 "$root/proc/101/fd"
	chmod 755 "$tmp"
	PATH="$tmp/bin:$PATH" setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" status >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out")
	if printf '%s\n' "$out" | grep -qx '      trusted: (the list: unknown, reading it needs root), local uids 1-999 (trusted_uid_max)' &&
		printf '%s\n' "$out" | grep -qx '    tcp 0.0.0.0:80, netns 4026531840, pid 100 nginx (root)' &&
		printf '%s\n' "$out" | grep -qx '  (1 process whose sockets could not be read: run as root to see every service)'; then
		ok "status as a user: the trusted list unknown, the processes it cannot read counted"
	else
		not_ok "status as a user: trusted list unknown, unreadable processes counted" "$out" "$(cat "$tmp/err")"
	fi
	chmod 755 "$root/proc/101/fd"
else
	ok "status as a user # SKIP needs root and setpriv"
fi
# nothing listens
rm -rf "$root/proc/"[0-9]*
runsvc status
expect "status: nothing listens" "$rc" '^services: no listening TCP, MPTCP or Unix stream socket found$'

# --- IPv4-mapped listeners and dual-stack ones, as the kernel matches them: an IPv6 socket
# bound to ::ffff:a.b.c.d is the IPv4 endpoint a.b.c.d to the trusted list (the kernel keeps
# laddr= IPv4-mapped and compares the listener's address in that form), which only IPv4 peers
# reach; a socket on :: (dual-stack) is [::], which IPv4 peers reach too, and 0.0.0.0 is not
# it. Sockets: 0.0.0.0:25 (IPv4), ::ffff:0.0.0.0:8080, ::ffff:10.0.0.1:80, [::]:443,
# [2001:db8::1]:443.
fresh_tree_v4
mkdir -p "$root/proc/42/ns" "$root/proc/42/fd" "$root/proc/42/net" "$root/run/systemd/system"
ln -s "net:[4026531840]" "$root/proc/42/ns/net"
echo 0::/system.slice/dual.service >"$root/proc/42/cgroup"
echo dual >"$root/proc/42/comm"
for i in 1 2 3 4 5; do ln -s "socket:[110$i]" "$root/proc/42/fd/$((i + 2))"; done
cat >"$root/proc/42/net/tcp" <<'EOF'
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0019 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1105 1 0000000000000000 100 0 0 10 0
EOF
cat >"$root/proc/42/net/tcp6" <<'EOF'
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100000A:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1101 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:01BB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1102 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1103 1 0000000000000000 100 0 0 10 0
   3: B80D0120000000000000000001000000:01BB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1104 1 0000000000000000 100 0 0 10 0
EOF
echo 'Num       RefCount Protocol Flags    Type St Inode Path' >"$root/proc/42/net/unix"
cat >"$sec/brute/trusted" <<'EOF'
trusted=10.0.0.0/8 crashes=0
trusted=192.0.2.0/24 laddr=10.0.0.1 lport=80 crashes=0
trusted=192.0.2.0/24 laddr=:: lport=80 crashes=0
trusted=2001:db8::/32 crashes=0
trusted=2001:db8::/32 lport=80 crashes=0
trusted=198.51.100.0/24 laddr=0.0.0.0 lport=8080 crashes=0
trusted=198.51.100.0/24 laddr=0.0.0.0 lport=443 crashes=0
trusted=198.51.100.0/24 laddr=:: lport=443 crashes=0
trusted=2001:db8::/32 laddr=:: lport=443 crashes=0
EOF
me=$(id -un)
runsvc status
exp=$(cat <<EOF
services: 5 listening sockets, 1 systemd unit (their peers: brutectl peers)
  dual.service: Restart=no (a kill leaves it down), RestartSec=100ms, start limit 5 in 10s; brute-reportd restart: unknown
    tcp 0.0.0.0:25, netns 4026531840, pid 42 dual ($me)
      trusted: 10.0.0.0/8, local uids 1-999 (trusted_uid_max)
    tcp 0.0.0.0:8080 (an IPv6 socket on ::ffff:0.0.0.0), netns 4026531840, pid 42 dual ($me)
      trusted: 10.0.0.0/8, 198.51.100.0/24 endpoint=0.0.0.0:8080, local uids 1-999 (trusted_uid_max)
    tcp 10.0.0.1:80 (an IPv6 socket on ::ffff:10.0.0.1), netns 4026531840, pid 42 dual ($me)
      trusted: 10.0.0.0/8, 192.0.2.0/24 endpoint=10.0.0.1:80, local uids 1-999 (trusted_uid_max)
    tcp [::]:443, netns 4026531840, pid 42 dual ($me)
      trusted: 10.0.0.0/8, 2001:db8::/32, 198.51.100.0/24 endpoint=[::]:443, 2001:db8::/32 endpoint=[::]:443, local uids 1-999 (trusted_uid_max)
    tcp [2001:db8::1]:443, netns 4026531840, pid 42 dual ($me)
      trusted: 2001:db8::/32, local uids 1-999 (trusted_uid_max)
EOF
)
if [ "$svc" = "$exp" ]; then
	ok "status: a listener on ::ffff:IPv4 is the IPv4 endpoint (IPv4 peers only, endpoint=IPv4:PORT covers it); [::] is dual-stack, 0.0.0.0 is not [::]"
else
	not_ok "status: IPv4-mapped and dual-stack listeners" "exit $rc" "got:" "$svc" "expected:" "$exp" "diff:" \
		"$(printf '%s\n' "$exp" >"$tmp/exp"; printf '%s\n' "$svc" | diff "$tmp/exp" -)" "$errout"
fi
runsvc status --json
if printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["services"]
s = d["units"][0]["sockets"]
assert [(x["transport"], x["laddr"], x["lport"], x["ipv4_mapped"], x["inode"]) for x in s] == [
    ("tcp", "0.0.0.0", 25, False, 1105), ("tcp", "0.0.0.0", 8080, True, 1103),
    ("tcp", "10.0.0.1", 80, True, 1101), ("tcp", "::", 443, False, 1102),
    ("tcp", "2001:db8::1", 443, False, 1104)], s
assert s[1]["trusted"] == ["10.0.0.0/8", "198.51.100.0/24 endpoint=0.0.0.0:8080"], s[1]
assert s[2]["trusted"] == ["10.0.0.0/8", "192.0.2.0/24 endpoint=10.0.0.1:80"], s[2]
assert s[3]["trusted"] == ["10.0.0.0/8", "2001:db8::/32", "198.51.100.0/24 endpoint=[::]:443",
                           "2001:db8::/32 endpoint=[::]:443"], s[3]
' 2>"$tmp/py"; then
	ok "status --json: a listener on ::ffff:IPv4: laddr IPv4, ipv4_mapped, the trusted entries the kernel matches there"
else
	not_ok "status --json: IPv4-mapped and dual-stack listeners" "exit $rc" "$out" "$(cat "$tmp/py")"
fi

# --- the same against this machine's kernel: listeners made here, found in the real /proc
real=$tmp/real
rm -rf "$real"
mkdir -p "$real/sys/kernel/security/brute"
echo "capability,brute" >"$real/sys/kernel/security/lsm"
ln -s /proc "$real/proc"
mptcp=0
[ "$(cat /proc/sys/net/mptcp/enabled 2>/dev/null)" = 1 ] && mptcp=1
cat >"$tmp/listen.py" <<'EOF'
import os, socket, sys, time
mptcp, path, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
socks = []
def listen(family, addr, proto=0):
    s = socket.socket(family, socket.SOCK_STREAM, proto)
    if family == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(addr)
    s.listen()
    socks.append(s)
    return s.getsockname()[1] if family != socket.AF_UNIX else 0
p4 = listen(socket.AF_INET, ("127.0.0.1", 0))
p6 = listen(socket.AF_INET6, ("::1", 0))
pv = listen(socket.AF_INET6, ("::ffff:127.0.0.1", 0))
pm = listen(socket.AF_INET, ("127.0.0.1", 0), 262) if mptcp else 0
listen(socket.AF_UNIX, path)
listen(socket.AF_UNIX, "\0brute-test\nx y")
with open(ready, "w") as f:
    f.write("%d %d %d %d %d\n" % (os.getpid(), p4, p6, pm, pv))
time.sleep(120)
EOF
rm -f "$tmp/real sock" "$tmp/ready" "$tmp/ready-ns"	# the other build's
python3 "$tmp/listen.py" "$mptcp" "$tmp/real sock" "$tmp/ready" &
lpid=$!
nsl=
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
	unshare -n python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("0.0.0.0", 7979)); s.listen()
open(sys.argv[1], "w").write("ok\n")
time.sleep(120)' "$tmp/ready-ns" &
	nsl=$!
fi
# (python's start takes seconds on a loaded machine)
for _ in $(seq 600); do [ -s "$tmp/ready" ] && { [ -z "$nsl" ] || [ -s "$tmp/ready-ns" ]; } && break; sleep 0.1; done
read -r pypid p4 p6 pm pv <"$tmp/ready" || not_ok "the listeners started within 60 s" "$(cat "$tmp/ready" 2>&1)"
pyns=$(stat -L -c %i "/proc/$pypid/ns/net")
otherns=
[ -n "$nsl" ] && otherns=$(stat -L -c %i "/proc/$nsl/ns/net")
cat >"$real/sys/kernel/security/brute/trusted" <<EOF
trusted=127.0.0.0/8 lport=$p4 crashes=0
trusted=::1/128 laddr=::1 lport=$p6 crashes=0
trusted=127.0.0.1/32 laddr=127.0.0.1 lport=$pv crashes=0
trusted=::/0 lport=$pv crashes=0
trusted=uid:2000 netns=${otherns:-1} crashes=0
EOF
BRUTE_SYSFS_ROOT=$real "$bin" status --json >"$tmp/out" 2>"$tmp/err"
rc=$?
if printf '%s' "$(cat "$tmp/out")" | python3 -c '
import json, sys
pid, p4, p6, pm, ns, mptcp, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
other = int(sys.argv[8]) if sys.argv[8] else None
pv = int(sys.argv[9])
d = json.load(sys.stdin)["services"]
socks = [s for u in d["units"] for s in u["sockets"]]
mine = [s for s in socks if s["pid"] == pid]
for s in mine:
    assert s["netns"] == ns and s["comm"] == "python3" and s["processes"] == 1, s
tcp = {(s["transport"], s["laddr"], s["lport"]) for s in mine if s["transport"] != "unix"}
want = {("tcp", "127.0.0.1", p4), ("tcp", "::1", p6), ("tcp", "127.0.0.1", pv)} | ({("mptcp", "127.0.0.1", pm)} if mptcp else set())
assert tcp == want, (tcp, want)
unix = sorted(s["path"] for s in mine if s["transport"] == "unix")
assert unix == sorted([path, "@brute-test\nx y"]), unix
by = {(s["transport"], s.get("lport") or s.get("path")): s["trusted"] for s in mine}
assert by[("tcp", p4)] == ["127.0.0.0/8 endpoint=*:%d" % p4], by
assert by[("tcp", p6)] == ["::1/128 endpoint=[::1]:%d" % p6], by
# the IPv6 socket on ::ffff:127.0.0.1: the IPv4 endpoint, which no IPv6 peer reaches
assert by[("tcp", pv)] == ["127.0.0.1/32 endpoint=127.0.0.1:%d" % pv], by
assert [s["ipv4_mapped"] for s in mine if s["transport"] == "tcp"] == [s["lport"] == pv for s in mine if s["transport"] == "tcp"], mine
assert by[("unix", path)] == [], by
if other:
    o = [s for s in socks if s["netns"] == other]
    assert [(s["transport"], s["laddr"], s["lport"]) for s in o] == [("tcp", "0.0.0.0", 7979)], o
    assert o[0]["trusted"] == ["uid:2000 netns=%d" % other], o
' "$pypid" "$p4" "$p6" "$pm" "$pyns" "$mptcp" "$tmp/real sock" "$otherns" "$pv" 2>"$tmp/py"; then
	ok "status against this kernel's /proc: TCP, IPv6, IPv4-mapped$([ $mptcp = 1 ] && echo ", MPTCP"), Unix by path and abstract (a newline in it), $([ -n "$nsl" ] && echo "another network namespace, ")their holder, netns and trusted peers"
else
	not_ok "status against this kernel's /proc" "exit $rc" "$(head -c 3000 "$tmp/out")" "$(cat "$tmp/py" "$tmp/err")"
fi
kill "$lpid" $nsl 2>/dev/null
wait "$lpid" $nsl 2>/dev/null
rm -f "$tmp/ready" "$tmp/ready-ns"
