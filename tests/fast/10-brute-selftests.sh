#!/bin/sh
# The Brute selftests (kernel/tools/testing/selftests/brute), one TAP line per test:
# the seeds' cases and the tunables (the v2 model's cases are in 11-brute-model.sh).
. "$RIG/tap.sh"

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled" "/proc/sys/kernel/brute is missing: $(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
ok "brute is enabled ($(cat /sys/kernel/security/lsm))"
/selftests/run.sh $(/selftests/brute_test -l 2>&1 |
	awk '!/^#/ && !/^---/ && NF && $NF != "global" && $NF !~ /^v[234]_/ { print $NF }')
exit 0
