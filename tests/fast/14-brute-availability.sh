#!/bin/sh
# The short form of make bench's availability benchmark (issue 20, item 6): a
# forking TCP service run by a user under a supervisor that restarts it 100 ms
# after it exits, a benign client (a request every 50 ms, from its own /24)
# and an attacker (a crashing request every 20 ms) in another network
# namespace; and a root service on a Unix socket attacked by a local user.
# Asserts outcomes only, never a duration: the benign client's answers with
# one attacker address and over the Unix socket (>= 99 %), the crashes the
# attacker gets per address (<= min_faults), per /24 (<= escalate_faults)
# and per randomization of the service (<= backstop_faults).  The figures
# with 40 s per scenario on the production kernel: make bench (README).
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
ip() { /sbin/ip "$@"; }
# Starts and leaves with empty tables: no ban of an earlier script in the way,
# none of ours (900 s) left for the later ones.
cleanup() {
	ip netns del av_srv 2>/dev/null
	ip netns del av_cli 2>/dev/null
	echo flush >/sys/kernel/security/brute/lift 2>/dev/null
}
trap cleanup EXIT
cleanup

min=$(cat /proc/sys/kernel/brute/min_faults)
esc=$(cat /proc/sys/kernel/brute/escalate_faults)
backstop=$(cat /proc/sys/kernel/brute/backstop_faults)
mode=$(cat /proc/sys/kernel/brute/mode)
[ "$mode" = 2 ] || { not_ok "brute mitigates" "mode is $mode"; exit 0; }

# The service in av_srv (10.199.0.1, routes 10/8 back), the clients in av_cli:
# 10.198.0.2 the benign client, 10.100.1.2 one attacker address, 10.101.0.10-41
# 32 addresses of one /24, 10.102.N.2 (N = 1..32) 32 addresses of 32 /24s.
p24= spread=
for i in $(seq 10 41); do p24=$p24${p24:+,}10.101.0.$i; done
for i in $(seq 1 32); do spread=$spread${spread:+,}10.102.$i.2; done
if ! err=$( {
	ip netns add av_srv && ip netns add av_cli &&
		ip link add av_0 netns av_srv type veth peer name av_1 netns av_cli &&
		ip -n av_srv addr add 10.199.0.1/24 dev av_0 &&
		ip -n av_cli addr add 10.199.0.2/24 dev av_1 &&
		ip -n av_srv link set av_0 up && ip -n av_cli link set av_1 up &&
		ip -n av_srv link set lo up && ip -n av_cli link set lo up &&
		ip -n av_srv route add 10.0.0.0/8 dev av_0 &&
		for a in 10.198.0.2 10.100.1.2 $(echo $p24,$spread | tr , ' '); do
			echo "address add $a/32 dev av_1"
		done | ip -n av_cli -batch -
} 2>&1); then
	not_ok "network namespaces for the availability scenarios" "$err"
	exit 0
fi

TCP="-N /run/netns/av_srv -C /run/netns/av_cli -U 4200 -b 10.198.0.2 -T 5000"
# field NAME: the value of NAME= in $res
field() { echo "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# at_least A B: A >= B for decimals (A like 99.50)
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
# run NAME ARGS...: one scenario; its figures as a diagnostic
run() {
	name=$1
	shift
	res=$(availbench "$@" 2>&1)
	diag "$name: $res"
	[ -n "$(field benign_pct)" ] || { not_ok "$name: availbench ran" "$res"; return 1; }
}
bounds() { # bounds NAME PER_ADDR TOTAL: the attacker's crashes per address and in all
	if [ "$(field crashes_per_addr_max)" -le "$2" ] && [ "$(field crashes)" -le "$3" ]; then
		ok "$1: at most $2 crashes per attacker address, $3 in all"
	else
		not_ok "$1: at most $2 crashes per attacker address, $3 in all" \
			"got $(field crashes_per_addr_max) per address, $(field crashes) in all"
	fi
	if [ "$(field cpr_max)" -le "$backstop" ]; then
		ok "$1: at most $backstop crashes per randomization of the service"
	else
		not_ok "$1: at most $backstop crashes per randomization of the service" \
			"crashes per randomization: $(field cpr)"
	fi
}
benign() { # benign NAME PCT
	if at_least "$(field benign_pct)" "$2"; then
		ok "$1: the benign client got at least $2 % of its answers"
	else
		not_ok "$1: the benign client got at least $2 % of its answers" \
			"$(field benign_answered) of $(field benign_sent) ($(field benign_pct) %)"
	fi
}

# One attacker address: banned after min_faults crashes; the service itself
# is never touched (no restart) and the benign client never notices.
if run "one address" $TCP -d 8 -a 10.199.0.1:8001 -A 10.100.1.2 \
	-- /selftests/service tcp 10.199.0.1:8001; then
	bounds "one address" "$min" "$min"
	benign "one address" 99
	check "one address: the attacker's address is banned" [ "$(field addrs_banned)" = 1 ]
	check "one address: the service was never restarted" [ "$(field restarts)" = 0 ]
fi

# A root service on a Unix socket, a local user (4243) attacks, another (4244)
# is served.
if run "unix socket" -k unix -a /run/avail.sock -X 4243 -B 4244 -T 5000 -d 6 \
	-- /selftests/service unix /run/avail.sock; then
	bounds "unix socket" "$min" "$min"
	benign "unix socket" 99
	check "unix socket: the attacking user is refused" [ "$(field addrs_banned)" = 1 ]
fi

# 32 addresses of one /24: the /24 is banned after escalate_faults crashes
# (the attacker then finds its addresses refused one by one, 500 ms each: how
# many within the run depends on the host's load, not asserted).
if run "32 addresses, one /24" $TCP -d 8 -a 10.199.0.1:8002 -A "$p24" \
	-- /selftests/service tcp 10.199.0.1:8002; then
	bounds "32 addresses, one /24" "$min" "$esc"
	benign "32 addresses, one /24" 99
fi

# 32 addresses of 32 /24s: each banned after min_faults crashes, the backstop
# bounds the crashes per randomization.  How far the attacker gets in 12 s
# depends on the host's load (no -icount here), and so does the benign
# client's share (its loss is the restarts): printed, not asserted.
if run "32 addresses, 32 /24s" $TCP -d 12 -a 10.199.0.1:8003 -A "$spread" \
	-- /selftests/service tcp 10.199.0.1:8003; then
	bounds "32 addresses, 32 /24s" "$min" $((32 * min))
fi
exit 0
