#!/bin/sh
# The Brute selftests of response v4 (issue 29): the party that caused the crash pays.
# MPTCP and loopback clients attributed, users of a root-made user namespace by their kernel
# uid, framing through UDP, io_uring, an upstream connection and a pipe impossible, services
# with file capabilities or started through sudo never killed whole, trusted load balancers
# never banned, proxies seen through or answering for what they mixed, one share of the peer
# table per user, bans that survive a prefix change and a service restart, bans enforced in
# mode 2 only, root never an exec attacker, a slow backstop that asks for a restart, a fast
# backstop that holds the master for a restart (in mode 2 only).
# Then the audit trail those cases leave, found with ausearch.
. "$RIG/tap.sh"

[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
/selftests/run.sh $(/selftests/brute_test -l 2>&1 |
	awk '!/^#/ && !/^---/ && NF && $NF ~ /^v4_/ { print $NF }')

CRASH=1712 ATTACK=1713 CONF=1715 PBAN=1718
name_of() {
	case $1 in
	1711) echo BRUTE_BOUNDARY ;; 1712) echo BRUTE_CRASH ;; 1713) echo BRUTE_ATTACK ;;
	1714) echo BRUTE_KILL ;; 1715) echo BRUTE_CONFIG ;; 1718) echo BRUTE_PEER_BAN ;;
	esac
}
recs() { ausearch --raw -m "$1" 2>/dev/null | grep -E "^type=(UNKNOWN\[$1\]|$(name_of "$1")) "; }
# has NAME TYPE PATTERN [MIN]: at least MIN (1) records of TYPE match the extended regexp.
has() {
	_n=$(recs "$2" | grep -cE "$3")
	if [ "$_n" -ge "${4:-1}" ]; then
		ok "$1 ($_n)"
	else
		not_ok "$1" "records of type $2 matching '$3': $_n, want at least ${4:-1}" \
			"$(recs "$2" | tail -n 2)"
	fi
}
none() {
	_n=$(recs "$2" | grep -cE "$3")
	if [ "$_n" = 0 ]; then
		ok "$1"
	else
		not_ok "$1" "records of type $2 matching '$3': $_n, want none" "$(recs "$2" | grep -E "$3" | tail -n 2)"
	fi
}

# Framing: the benign client's requests were followed by another source's crash.
has "framing: crashes after another source recorded input=ambiguous, naming the benign client" \
	$CRASH ' source=unknown input=ambiguous peer=10\.198\.0\.2/32 ' 32
none "framing: the benign client was never charged" \
	$CRASH ' source=peer input=peer peer=10\.198\.0\.2/32 .*peer_faults='
has "SIGBUS: a peer's request before it named, not charged" \
	$CRASH ' sig=7 .* source=unknown input=ambiguous peer=10\.199\.0\.2/32 .*lport=7798 ' 8
# The trusted load balancer: named, never charged, never banned.
has "trusted load balancer: input=trusted, the balancer named" \
	$CRASH ' source=unknown input=trusted peer=10\.199\.0\.17/32 ' 8
none "trusted load balancer: never banned" $PBAN ' peer=10\.199\.0\.17/32 '
# The proxy seen through: the attacker charged and banned at the proxy's endpoint.
has "relayed: the attacker's crashes through the proxy charged to it, relay=uid:33 named" \
	$CRASH ' source=peer input=relayed peer=10\.199\.0\.2/32 netns=[0-9]+ transport=tcp laddr=10\.199\.0\.1 lport=7787 peer_faults=[1-5] relay=uid:33' 5
has "relayed: the attacker banned at the proxy's endpoint" \
	$PBAN ' peer=10\.199\.0\.2/32 netns=[0-9]+ transport=tcp laddr=10\.199\.0\.1 lport=7787 faults=5 ban_s=[0-9]+ relay=uid:33'
none "relayed: the proxy's user never banned" $PBAN ' peer=uid:33 '
has "mixed: a system account's proxy is trusted" $CRASH ' input=trusted peer=uid:33 ' 8
has "mixed: a user's proxy answers for what it mixed" $PBAN ' peer=uid:4261 peer_uid=4261 .*transport=unix lino=[0-9]+ lpath='
# Loopback: a local user at a TCP endpoint, the local boundary.
has "loopback: uid 4243 banned at the TCP endpoint 127.0.0.1:7782" \
	$PBAN ' peer=uid:4243 peer_uid=4243 netns=[0-9]+ transport=tcp laddr=127\.0\.0\.1 lport=7782 '
has "loopback: the local boundary" 1711 ' boundary=local '
# Users of a root-made user namespace: their kernel uid.
has "user namespace: kernel uid 101000 banned" $PBAN ' peer=uid:101000 '
# MPTCP.
has "MPTCP: the client's address banned at the listener's endpoint" \
	$PBAN ' peer=10\.199\.0\.2/32 netns=[0-9]+ transport=tcp laddr=10\.199\.0\.1 lport=7781 '
# The slow backstop: a restart asked for, then the kill.
has "slow backstop: mitigation=restart, with the service's cgroup" \
	$ATTACK ' attack=backstop .*speed=slow .*mitigation=restart .* cgroup='
has "slow backstop: the next crash kills" $ATTACK ' attack=backstop .*mitigation=kill .* cgroup='
# The fast backstop with a hold: the workers killed, the master held for a restart, killed once
# the hold is over.
has "fast backstop held: mitigation=restart, speed=fast" \
	$ATTACK ' attack=backstop .*speed=fast .*mitigation=restart ' 3
has "fast backstop held: killed once the hold was over" \
	$ATTACK ' attack=backstop .*speed=fast faults=0 .*mitigation=kill .* comm="service" ' 1
# ...the held master's kill recorded as every other kill is: its BRUTE_KILL record.
held=$(recs $ATTACK | grep -E ' attack=backstop .*speed=fast faults=0 .*mitigation=kill .* comm="service" ' |
	sed -n 's/.* pid=\([0-9]*\) .*/\1/p' | head -n 1)
has "fast backstop held: the held master's kill has its BRUTE_KILL record" 1714 \
	" opid=${held:-none} .* ocomm=\"service\" "
# A hold is a mitigation: in mode 1 the fast backstop only reports.
has "fast backstop in mode 1: reported, nothing held" \
	$ATTACK ' attack=backstop .*speed=fast .*brute_mode=1 mitigation=audit ' 1
# The trusted list's changes are configuration changes.
has "the trusted list's changes recorded" $CONF ' tunable=trusted op=update added=1 removed=0 entries=1 '
exit 0
