#!/bin/sh
# The relay of issue 9 (item 7), alone: its 500 generations of fork and execve() take
# most of a script's time under TCG.  Prints the hierarchy counts as a diagnostic.
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
out=$(/selftests/brute_test -t v2_relay_memory_bounded 2>&1)
rc=$?
echo "$out" | sed -n 's/.*\(hierarchies alive.*\)/# \1/p'
if [ $rc = 0 ]; then
	ok "brute.v2_relay_memory_bounded"
else
	not_ok "brute.v2_relay_memory_bounded" "$out"
fi
exit 0
