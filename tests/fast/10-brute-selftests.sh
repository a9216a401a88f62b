#!/bin/sh
# The Brute selftests (kernel/tools/testing/selftests/brute), one TAP line per test.
. "$RIG/tap.sh"

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled" "/proc/sys/kernel/brute is missing: $(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
ok "brute is enabled ($(cat /sys/kernel/security/lsm))"
/selftests/run.sh
exit 0
