#!/bin/sh
# The relay of issue 9 (item 7), alone: its 1000 generations of fork and execve() take
# most of a script's time under TCG.  Prints the measured slab figures as diagnostics.
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
/selftests/run.sh v2_relay_memory_bounded >/tmp/relay.tap 2>&1
cat /tmp/relay.tap
/selftests/brute_test -t v2_relay_memory_bounded 2>&1 | sed -n 's/.*\(SUnreclaim.*\)/# \1/p'
exit 0
