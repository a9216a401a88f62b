#!/bin/sh
# Peer ban actions (issue 30, item 4): with peer_action = brute-peer-nft@.service, a peer that
# crashed a forking TCP service 5 times is banned by the kernel (1718) and brute-reportd starts
# the shipped nftables action, in the service's network namespace (a drop-in's
# NetworkNamespacePath=, as brute-reportd(8) says): the peer at the service's port is in the
# set "inet brute peers4" with the ban's time left, and nftables drops its packets (the rule's
# counter grows, the kernel's ban refuses nothing: the set dropped them first).  The set holds
# the peer off on its own: with the ban lifted by hand (brutectl lift --peer) while
# brute-reportd does not run (as on an edge whose daemon did not see the end), its packets are
# still dropped by the set.  With brute-reportd running, the end of a ban (lifted by root)
# runs the action again, which deletes the element: the peer is served.  The state file
# counts the actions.  Needs nftables in the kernel (CONFIG_NF_TABLES, NF_TABLES_INET).
. "$RIG/tap.sh"

st=$SELFTESTS
AUDIT_LOG=/var/log/audit/audit.log
STATUS=/run/brute-reportd/status
SVC=brute-nft-tcp.service
DROPIN=/run/systemd/system/brute-peer-nft@.service.d

if [ ! -e /sys/kernel/security/brute/peers ]; then
	skip "peer ban actions" "not a v3 kernel (no /sys/kernel/security/brute/peers)"
	exit 0
fi
if ! command -v nft >/dev/null; then
	not_ok "nft is installed in the guest (scripts/rootfs.sh: nftables)"
	exit 0
fi
if ! err=$(unshare -n nft list tables 2>&1); then
	skip "peer ban actions with nftables" "the kernel has no nf_tables ($err)"
	exit 0
fi
T0=$(cut -d' ' -f1 /proc/uptime)
t() { diag "t+$(awk -v a="$T0" '{ printf "%.1f", $1 - a }' /proc/uptime) s: $*"; }
bad() {
	printf 'not ok - %s\n' "$1"
	shift
	for d in "$@"; do printf '%s\n' "$d" | sed 's/^/#   /'; done
}
ip() { if [ -x /sbin/ip ]; then /sbin/ip "$@"; else command ip "$@"; fi; }
srv() { ip netns exec rnf-srv "$@"; }
cleanup() {
	systemctl stop $SVC 2>/dev/null
	systemctl reset-failed $SVC 2>/dev/null
	ip netns del rnf-srv 2>/dev/null
	ip netns del rnf-cli 2>/dev/null
	rm -rf $DROPIN
	systemctl daemon-reload
	echo "peer all" >/sys/kernel/security/brute/lift 2>/dev/null || :
}
pbans() { grep -aE "^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) " $AUDIT_LOG; }
punbans() { grep -aE "^type=(UNKNOWN\[1719\]|BRUTE_PEER_UNBAN) " $AUDIT_LOG; }
element() { srv nft list set inet brute peers4 2>/dev/null | grep -o "10\.199\.0\.2 \. 7777 timeout [0-9a-z]* expires [0-9a-z]*"; }
drops() { srv nft list chain inet brute input 2>/dev/null | sed -n 's/.*ip saddr \. tcp dport @peers4 counter packets \([0-9]*\) .*/\1/p'; }
status_key() { sed -n "s/^$1=//p" $STATUS 2>/dev/null; }
# the client from rnf-cli: "answered A crashed C refused R"
client() { $st/client -n /run/netns/rnf-cli "$@" tcp 10.199.0.1:7777; }

cleanup
[ -f /etc/brute/reportd.conf ] && cp -p /etc/brute/reportd.conf /run/reportd-nft.conf.orig
printf 'journal = yes\npeer_action = brute-peer-nft@.service\n' >/etc/brute/reportd.conf
chown root:root /etc/brute/reportd.conf
chmod 600 /etc/brute/reportd.conf
if ! ip netns add rnf-srv || ! ip netns add rnf-cli ||
	! ip link add rnf0 netns rnf-srv type veth peer name rnf1 netns rnf-cli ||
	! ip -n rnf-srv addr add 10.199.0.1/24 dev rnf0 || ! ip -n rnf-cli addr add 10.199.0.2/24 dev rnf1 ||
	! ip -n rnf-srv link set rnf0 up || ! ip -n rnf-cli link set rnf1 up ||
	! ip -n rnf-srv link set lo up || ! ip -n rnf-cli link set lo up; then
	bad "namespaces and veth pair"
	cleanup
	exit 0
fi
# the action runs where the service's endpoint is: its network namespace
mkdir -p $DROPIN
printf '[Service]\nNetworkNamespacePath=/run/netns/rnf-srv\n' >$DROPIN/netns.conf
systemctl daemon-reload
if ! out=$(systemctl restart brute-reportd.service 2>&1) || [ "$(systemctl is-active brute-reportd)" != active ]; then
	bad "brute-reportd started with peer_action = brute-peer-nft@.service" "$out"
	cleanup
	exit 0
fi
inv=$(systemctl show -p InvocationID --value brute-reportd)
dlog() { journalctl -u brute-reportd _SYSTEMD_INVOCATION_ID="$inv" -o cat --no-pager; }
if ! systemd-run --quiet --unit=$SVC $st/service -n /run/netns/rnf-srv tcp 10.199.0.1:7777 ||
	! wait_for 10 eval "srv ss -Hltn 'sport = :7777' | grep -q LISTEN"; then
	bad "the service ($SVC)" "$(systemctl status --no-pager $SVC 2>&1 | tail -n 5)"
	cleanup
	exit 0
fi
pban_s=$(cat /proc/sys/kernel/brute/peer_ban_time_s)
t "service and brute-reportd up"

# --- the ban: the kernel's, then the set's ----------------------------------------------------
out=$(client -t 3000 -c 7 -r crash)
if wait_for 10 eval 'pbans | grep -q " peer=10.199.0.2/32 "' && wait_for 15 element; then
	e=$(element)
	left=$(echo "$e" | sed 's/.* timeout \([0-9]*\)m.*/\1/')
	if [ "$left" -ge $((pban_s / 60 - 1)) ] && [ "$left" -le $((pban_s / 60)) ]; then
		ok "banned (1718), and the action put 10.199.0.2 . 7777 in inet brute peers4 with the ban's time left ($e; peer_ban_time_s $pban_s) ($out)"
	else
		bad "the element's timeout is the ban's time left" "$e" "peer_ban_time_s $pban_s"
	fi
else
	bad "banned (1718), and the action put the peer in inet brute peers4" "client: $out" \
		"$(pbans | tail -n 1)" "$(srv nft list ruleset 2>&1 | head -n 20)" "$(dlog | tail -n 5)" \
		"$(journalctl -u 'brute-peer-nft@*' -o cat --no-pager | tail -n 5)"
fi
d0=$(drops)
out=$(client -t 1500 -c 2)
d1=$(drops)
if [ "$out" = "answered 0 crashed 0 refused 2" ] && [ "${d1:-0}" -gt "${d0:-0}" ]; then
	ok "its packets are dropped by the set: refused 2, the rule's counter $d0 -> $d1"
else
	bad "its packets are dropped by the set" "client: $out" "counter: $d0 -> $d1"
fi
if wait_for 10 eval '[ "$(status_key peer_actions)" -ge 1 ]' && [ "$(status_key peer_action_failures)" = 0 ]; then
	ok "the state file counts it: peer_actions=$(status_key peer_actions), peer_action_failures=0"
else
	bad "the state file counts it" "$(grep -E '^peer_' $STATUS 2>&1)" "$(dlog | tail -n 4)"
fi

# --- lifted by hand while brute-reportd is stopped: the set still drops the peer --------------
systemctl stop brute-reportd.service
lu=$(punbans | wc -l)
brutectl lift --peer 10.199.0.2 >/dev/null 2>&1 || echo "peer 10.199.0.2" >/sys/kernel/security/brute/lift
d0=$(drops)
out=$(client -t 1500 -c 2)
d1=$(drops)
if [ "$(punbans | wc -l)" -gt "$lu" ] && [ "$out" = "answered 0 crashed 0 refused 2" ] &&
	[ "${d1:-0}" -gt "${d0:-0}" ] && [ -n "$(element)" ]; then
	ok "the kernel's ban lifted by hand (1719), brute-reportd not running: the set still drops the peer ($out, counter $d0 -> $d1, $(element))"
else
	bad "the kernel's ban lifted, the set still drops the peer" "1719: $(punbans | tail -n 1)" \
		"client: $out" "counter: $d0 -> $d1" "element: $(element)"
fi
srv nft flush set inet brute peers4
out=$(client -c 1)
if [ "$out" = "answered 1 crashed 0 refused 0" ]; then
	ok "without the set's element the peer is served ($out)"
else
	bad "without the set's element the peer is served" "client: $out"
fi

# --- brute-reportd running: the end of a ban deletes the element ------------------------------
systemctl start brute-reportd.service
inv=$(systemctl show -p InvocationID --value brute-reportd)
lb=$(pbans | wc -l)
out=$(client -t 3000 -c 7 -r crash)
if wait_for 10 eval '[ "$(pbans | wc -l)" -gt "$lb" ]' && wait_for 15 element; then
	brutectl lift --peer 10.199.0.2 >/dev/null 2>&1 || echo "peer 10.199.0.2" >/sys/kernel/security/brute/lift
	if wait_for 15 eval '[ -z "$(element)" ]' && out=$(client -c 1) &&
		[ "$out" = "answered 1 crashed 0 refused 0" ]; then
		ok "banned again, then lifted by root (brutectl lift --peer): the action deleted the element, the peer is served ($out)"
	else
		bad "lifted by root: the action deletes the element" "client: $out" "element: $(element)" \
			"$(dlog | tail -n 5)" "$(journalctl -u 'brute-peer-nft@*' -o cat --no-pager | tail -n 4)"
	fi
	if dlog | grep -q "peer action brute-peer-nft@[0-9a-f]*-[0-9]*\.service: end of the ban of 10.199.0.2/32" &&
		journalctl -u 'brute-peer-nft@*' -o cat --no-pager | grep -q "ban of 10.199.0.2/32 on port 7777 ended (lifted): deleted from inet brute peers4"; then
		ok "brute-reportd and the action's unit logged it"
	else
		bad "brute-reportd and the action's unit logged it" "$(dlog | tail -n 4)" \
			"$(journalctl -u 'brute-peer-nft@*' -o cat --no-pager | tail -n 4)"
	fi
else
	bad "banned again: the action put the peer in the set" "client: $out" "$(pbans | tail -n 1)" "$(dlog | tail -n 4)"
fi
if [ -z "$(systemctl list-units --all --no-legend 'brute-peer-nft@*' | grep -v inactive)" ]; then
	ok "no action unit left behind (CollectMode=inactive-or-failed)"
else
	bad "no action unit left behind" "$(systemctl list-units --all --no-legend 'brute-peer-nft@*')"
fi

# --- clean up for later scripts ---------------------------------------------------------------
cleanup
if [ -f /run/reportd-nft.conf.orig ]; then
	cp -p /run/reportd-nft.conf.orig /etc/brute/reportd.conf
else
	rm -f /etc/brute/reportd.conf
fi
systemctl --no-block stop brute-reportd.service
t "done"
exit 0
