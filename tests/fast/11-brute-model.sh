#!/bin/sh
# The Brute selftests of the v2 model (issue 9): exec attacks per (user, target) with a
# temporary ban, and responses nobody can turn against another user.
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
/selftests/run.sh $(/selftests/brute_test -l 2>&1 |
	awk '!/^#/ && !/^---/ && NF && $NF ~ /^v2_/ && $NF != "v2_relay_memory_bounded" { print $NF }')
exit 0
