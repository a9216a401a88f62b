#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the Brute selftests, each test in its own process, as root.
# Prints one TAP line per test ("ok - brute.NAME" / "not ok - brute.NAME"),
# with the harness output of a failed test as "#" diagnostics.
#
# Usage: run.sh [TEST...]

dir=$(cd "$(dirname "$0")" && pwd)
ksft_skip=4

if [ "$(id -u)" != 0 ]; then
	echo "ok - brute # SKIP must run as root"
	exit $ksft_skip
fi

# The crashes are the point: do not log each one on the console.
echo 0 >/proc/sys/debug/exception-trace 2>/dev/null

# Set-user-ID root copies of the target, the attacker and the wrapper;
# twenty more of the target, each an inode of its own (the junk an attacker
# crashes between two attempts); a set-group-ID copy for group 1100.
for prog in crasher attacker wrapper; do
	cp "$dir/$prog" "$dir/${prog}_suid" && chown 0:0 "$dir/${prog}_suid" &&
		chmod 4755 "$dir/${prog}_suid" || exit 1
done
for i in $(seq 0 19); do
	cp "$dir/crasher" "$dir/crasher_j$i" && chown 0:0 "$dir/crasher_j$i" &&
		chmod 4755 "$dir/crasher_j$i" || exit 1
done
cp "$dir/crasher" "$dir/crasher_suid1000" && chown 1000:1000 "$dir/crasher_suid1000" &&
	chmod 4755 "$dir/crasher_suid1000" || exit 1
cp "$dir/crasher" "$dir/crasher_sgid1100" && chown 0:1100 "$dir/crasher_sgid1100" &&
	chmod 2755 "$dir/crasher_sgid1100" || exit 1

# Two network namespaces joined by a veth pair, loopback up in both.  Use
# iproute2's ip by path: a busybox shell prefers its own applet, which has no
# netns support.
ip() {
	if [ -x /sbin/ip ]; then /sbin/ip "$@"; else command ip "$@"; fi
}
cleanup_net() {
	ip netns del brute_srv 2>/dev/null
	ip netns del brute_cli 2>/dev/null
}
trap cleanup_net EXIT
cleanup_net
# The client has more addresses: 10.199.0.10-17 (the server's /24),
# 10.198.0.2 (another /24: a bystander), 10.100.N.2 for N = 1..12 (one /24
# each); the server routes them back through the veth.
setup_net() {
	ip netns add brute_srv && ip netns add brute_cli &&
		ip link add brute0 netns brute_srv type veth peer name brute1 netns brute_cli &&
		ip -n brute_srv addr add 10.199.0.1/24 dev brute0 &&
		ip -n brute_cli addr add 10.199.0.2/24 dev brute1 &&
		ip -n brute_srv link set brute0 up && ip -n brute_cli link set brute1 up &&
		ip -n brute_srv link set lo up && ip -n brute_cli link set lo up &&
		ip -n brute_srv route add 10.198.0.0/24 dev brute0 &&
		ip -n brute_srv route add 10.100.0.0/16 dev brute0 &&
		ip -n brute_cli addr add 10.198.0.2/32 dev brute1 || return 1
	for i in $(seq 10 17); do
		ip -n brute_cli addr add 10.199.0.$i/32 dev brute1 || return 1
	done
	for i in $(seq 1 12); do
		ip -n brute_cli addr add 10.100.$i.2/32 dev brute1 || return 1
	done
}
if ! err=$(setup_net 2>&1); then
	echo "# no network namespaces, the network cases will skip: $err"
	cleanup_net
fi

if [ $# -gt 0 ]; then
	tests="$*"
else
	tests=$("$dir/brute_test" -l 2>&1 |
		awk '!/^#/ && !/^---/ && NF && $NF != "global" { print $NF }')
fi

status=0
for t in $tests; do
	out=$("$dir/brute_test" -t "$t" 2>&1)
	rc=$?
	if [ $rc = 0 ] || [ $rc = $ksft_skip ]; then
		why=$(echo "$out" | sed -n 's/^ok [0-9]* .* # SKIP *//p' | head -n 1)
		if [ -n "$why" ]; then
			echo "ok - brute.$t # SKIP $why"
		else
			echo "ok - brute.$t"
		fi
	else
		echo "not ok - brute.$t"
		echo "$out" | sed 's/^/# /'
		status=1
	fi
done
exit $status
