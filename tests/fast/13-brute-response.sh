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
		grep " source=peer input=peer peer=uid:$1 peer_uid=$1 netns=[0-9]* transport=unix lino=[0-9]* lpath=[^ ]* $2"
}
n_unch=$(crashes 4304 'charged=no ' | wc -l)
n_ch=$(crashes 4304 'peer_faults=[1-5] ' | wc -l)
if [ "$n_unch" = 6 ] && [ "$n_ch" = 5 ]; then
	ok "an endpoint's share of the peer table full of bans: 6 crashes recorded with peer=uid:4304 charged=no, then 5 counted (peer_faults) after a lift"
else
	not_ok "an endpoint's share of the peer table full of bans: the uncounted crashes recorded with the peer and charged=no" \
		"charged=no: $n_unch (want 6), peer_faults: $n_ch (want 5)" "$(crashes 4304 '' | tail -n 2)"
fi

# v3_user_netns_one_share: uid 4324 attacked a service in the second of user 1000's network
# namespaces, whose share of the peer table the first one's peers had filled with bans: its 6
# crashes carry charged=no, in that namespace (not the host's); uid 4330, at a service of the
# host, was counted.
host_netns=$(stat -L -c %i /proc/self/ns/net)
n_unch=$(crashes 4324 'charged=no ' | grep -v " netns=$host_netns " | wc -l)
n_host=$(crashes 4330 'peer_faults=[1-5] ' | grep -c " netns=$host_netns ")
if [ "$n_unch" = 6 ] && [ "$n_host" = 5 ]; then
	ok "one share for a user's network namespaces: 6 crashes of peer=uid:4324 in the user's namespace charged=no, 5 of uid:4330 at the host's service counted"
else
	not_ok "one share for a user's network namespaces" \
		"charged=no in the user's namespace: $n_unch (want 6), counted at the host: $n_host (want 5)" \
		"$(crashes 4324 '' | tail -n 2)"
fi
exit 0
