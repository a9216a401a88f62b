#!/bin/sh
# The Brute selftests of response v3 (issue 20) and of the ways around a ban
# (issue 21): peers banned from the endpoint they attacked, the backstop,
# privileged exec chains, pools, junk between attempts, threads, splice().
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
/selftests/run.sh $(/selftests/brute_test -l 2>&1 |
	awk '!/^#/ && !/^---/ && NF && $NF ~ /^v3_/ { print $NF }')

# v3_peer_table_full_of_bans, in the audit trail: uid 4304's crashes while the service's share
# of the peer table was full of bans carry the peer and charged=no (counted for the hierarchy
# only), the ones after the lift its count, up to its ban.
crashes() {
	ausearch --raw -m 1712 2>/dev/null | grep -E '^type=(UNKNOWN\[1712\]|BRUTE_CRASH) ' |
		grep " source=peer peer=uid:4304 peer_uid=4304 netns=[0-9]* transport=unix lino=[0-9]* $1"
}
n_unch=$(crashes 'charged=no ' | wc -l)
n_ch=$(crashes 'peer_faults=[1-5] ' | wc -l)
if [ "$n_unch" = 6 ] && [ "$n_ch" = 5 ]; then
	ok "an endpoint's share of the peer table full of bans: 6 crashes recorded with peer=uid:4304 charged=no, then 5 counted (peer_faults) after a lift"
else
	not_ok "an endpoint's share of the peer table full of bans: the uncounted crashes recorded with the peer and charged=no" \
		"charged=no: $n_unch (want 6), peer_faults: $n_ch (want 5)" "$(crashes '' | tail -n 2)"
fi
exit 0
