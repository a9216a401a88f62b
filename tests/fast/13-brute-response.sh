#!/bin/sh
# The Brute selftests of response v3 (issue 20) and of the ways around a ban
# (issue 21): peers banned from the endpoint they attacked, the backstop,
# privileged exec chains, pools, junk between attempts, threads, splice().
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
/selftests/run.sh $(/selftests/brute_test -l 2>&1 |
	awk '!/^#/ && !/^---/ && NF && $NF ~ /^v3_/ { print $NF }')
exit 0
