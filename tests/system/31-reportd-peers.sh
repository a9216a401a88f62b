#!/bin/sh
# brute-reportd and the v3 kernel's peers: a client in another network namespace crashes a forking
# TCP service run as a systemd unit, across a veth pair, and a local user (uid 4243) crashes a root
# service over a Unix socket.  Each peer is banned (1718); the "peer banned" entry names the peer,
# the endpoint and the service's unit (journalctl -u SERVICE shows it there, journalctl -x the
# catalog text), rsyslog receives the alert with the peer address, the service lives on.  Root
# lifts each ban (1719, "peer ban ended" entry and alert) and the peer is served again.  Records
# the kernel could not emit (an exclude rule) are said in brute-reportd's own log.
# Needs a v3 kernel (/sys/kernel/security/brute/peers); with reportd.capture=1 on the kernel
# command line the audit.log lines are printed as "# capture peers: LINE" diagnostics.
. "$RIG/tap.sh"

st=$SELFTESTS
MID_PEER_BAN=79ecec051cb34c3a91486f64fd349085
MID_PEER_UNBAN=73f71a481cdb4da99e1d4e883ea387f8
LIFT=/sys/kernel/security/brute/lift
PORT=6514
SIEM=/var/log/brute-siem-peers.log
AUDIT_LOG=/var/log/audit/audit.log
capture=0
grep -qw 'reportd.capture=1' /proc/cmdline && capture=1

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled" "$(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
if [ ! -e /sys/kernel/security/brute/peers ]; then
	skip "peer bans" "not a v3 kernel (no /sys/kernel/security/brute/peers)"
	exit 0
fi
cp "$st/crasher" "$st/crasher_suid" && chown 0:0 "$st/crasher_suid" && chmod 4755 "$st/crasher_suid"

# --- helpers (as 30-reportd.sh's) ------------------------------------------------------------
T0=$(cut -d' ' -f1 /proc/uptime)
t() { diag "t+$(awk -v a="$T0" '{ printf "%.1f", $1 - a }' /proc/uptime) s: $*"; }
bad() {
	printf 'not ok - %s\n' "$1"
	shift
	for d in "$@"; do printf '%s\n' "$d" | sed 's/^/#   /'; done
}
# Value of a kernel field of each record on stdin (not the enriched part after \035).
fields() { sed -n "s/^\([^$(printf '\035')]*\) $1=\([^ $(printf '\035')]*\).*/\2/p"; }
field() { fields "$1" | head -n 1; }
J=/tmp/reportd-peers-journal.json
jsnap() { journalctl -u brute-reportd -o json --no-pager >$J 2>/dev/null; }
# "F1=v1 F2=v2 ..." of the first line on stdin, in one process
jget() {
	awk -v want="$*" 'NR == 1 { n = split(want, w, " "); out = ""
		for (i = 1; i <= n; i++) {
			v = ""
			if (match($0, "\"" w[i] "\":\"[^\"]*\""))
				v = substr($0, RSTART + length(w[i]) + 4, RLENGTH - length(w[i]) - 5)
			out = out (i > 1 ? " " : "") w[i] "=" v
		}
		print out }'
}
# Forwarded RFC 5424 messages of one MSGID as rsyslog received them (one a line, %rawmsg%)
siem_lines() { grep -aE "^<[0-9]+>1 [^ ]+ [^ ]+ brute-reportd [0-9]+ $1 \[brute@32473 " $SIEM 2>/dev/null; }
listening() { ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q LISTEN; }
capture() { # capture NAME FIRST_LINE: audit.log from that line on, as diagnostics
	[ $capture = 1 ] || return 0
	tail -n "+$2" $AUDIT_LOG | while IFS= read -r l; do printf '# capture %s: %s\n' "$1" "$l"; done
}
# served OUT ANSWERED TOTAL MIN_REFUSED: the client's "answered A crashed C refused R" adds up
served() {
	case $1 in "answered "[0-9]*" crashed "[0-9]*" refused "[0-9]*) ;; *) return 1 ;; esac
	set -- $1 "$2" "$3" "$4"
	[ "$2" = "$7" ] && [ $(($2 + $4 + $6)) = "$8" ] && [ "$6" -ge "$9" ]
}

# --- the listener and the daemon --------------------------------------------------------------
cat >/etc/rsyslog.d/31-brute-siem-peers.conf <<CONF
# tests/system/31-reportd-peers.sh: a SIEM stand-in, RFC 5424 over TCP (RFC 6587 octet counting)
module(load="imtcp")
template(name="brute-siem-peers-raw" type="string" string="%rawmsg%\n")
ruleset(name="brute-siem-peers") {
	action(type="omfile" file="$SIEM" template="brute-siem-peers-raw")
}
input(type="imtcp" address="127.0.0.1" port="$PORT" ruleset="brute-siem-peers")
CONF
rm -f $SIEM
if ! { systemctl restart rsyslog.service && wait_for 10 listening; }; then
	bad "rsyslog listens on 127.0.0.1:$PORT (imtcp)" "$(systemctl status --no-pager rsyslog 2>&1 | tail -n 8)"
fi
[ -f /etc/brute/reportd.conf ] && cp -p /etc/brute/reportd.conf /run/reportd-peers.conf.orig
cat >/etc/brute/reportd.conf <<CONF
siem_protocol = tcp
siem_host = 127.0.0.1
siem_port = $PORT
siem_retry_min = 1
siem_retry_max = 1
CONF
chown root:root /etc/brute/reportd.conf
chmod 600 /etc/brute/reportd.conf
journalctl --update-catalog
if ! out=$(systemctl restart brute-reportd.service 2>&1) || [ "$(systemctl is-active brute-reportd)" != active ]; then
	bad "brute-reportd started" "$out" "$(systemctl status --no-pager brute-reportd 2>&1 | tail -n 8)"
	exit 0
fi
t "listener and brute-reportd up"

# Peer ban records (1718) and their ends (1719) in audit.log; journal entries of one peer.
pbans() { grep -aE "^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) " $AUDIT_LOG; }
punbans() { grep -aE "^type=(UNKNOWN\[1719\]|BRUTE_PEER_UNBAN) " $AUDIT_LOG; }
pbanned() { pbans | grep -q " peer=$1 "; }
punbanned() { punbans | grep -q " peer=$1 "; }
jpeer() { grep "\"MESSAGE_ID\":\"$1\"" $J | grep "\"BRUTE_PEER\":\"$2\""; }
jhas_peer() { jsnap; [ -n "$(jpeer "$1" "$2")" ]; }
ip() { if [ -x /sbin/ip ]; then /sbin/ip "$@"; else command ip "$@"; fi; }
SVC=brute-peer-tcp.service USVC=brute-peer-unix.service SOCK=/run/brute-peer.sock
peer_cleanup() {
	systemctl stop $SVC $USVC 2>/dev/null
	systemctl reset-failed $SVC $USVC 2>/dev/null
	ip netns del rpt-srv 2>/dev/null
	ip netns del rpt-cli 2>/dev/null
	rm -f $SOCK
	echo "peer all" >$LIFT 2>/dev/null || :
}
# peer_checks NAME PEER UNIT WANT_FIELDS: the peer ban entry of PEER in brute-reportd's journal
# (WANT_FIELDS, with PRIORITY and the service's unit), under the service's own unit, with the
# catalog text; the alert rsyslog received
peer_checks() {
	if wait_for 10 jhas_peer $MID_PEER_BAN "$2"; then
		e=$(jpeer $MID_PEER_BAN "$2" | tail -n 1)
		got=$(echo "$e" | jget PRIORITY BRUTE_PEER $4 BRUTE_FAULTS BRUTE_BAN_S BRUTE_UNIT)
		want="PRIORITY=2 BRUTE_PEER=$2 $5 BRUTE_FAULTS=5 BRUTE_BAN_S=$pban_s BRUTE_UNIT=$3"
		if [ "$got" = "$want" ]; then
			ok "$1: journal peer banned entry = the kernel's 1718 record ($got)"
		else
			bad "$1: journal peer banned entry = the kernel's 1718 record" "got:  $got" \
				"want: $want" "$(pbans | grep " peer=$2 " | tail -n 1)"
		fi
	else
		bad "$1: journal peer banned entry (MESSAGE_ID=$MID_PEER_BAN) for $2" \
			"$(pbans | tail -n 2)" "$(journalctl -u brute-reportd -o cat --no-pager | tail -n 5)"
	fi
	# journalctl -u SERVICE: the service's own messages and Brute's entry about it (_UID=0 +
	# OBJECT_SYSTEMD_UNIT, as systemd-coredump's)
	u=$(journalctl -u "$3" -o json --no-pager 2>/dev/null | grep "\"MESSAGE_ID\":\"$MID_PEER_BAN\"" |
		grep "\"BRUTE_PEER\":\"$2\"" | tail -n 1)
	if [ -n "$u" ] && echo "$u" | grep -q "\"OBJECT_SYSTEMD_UNIT\":\"$3\"" &&
		echo "$u" | grep -q '"SYSLOG_IDENTIFIER":"brute-reportd"'; then
		ok "$1: journalctl -u $3 shows the peer ban: $(echo "$u" | jget MESSAGE)"
	else
		bad "$1: journalctl -u $3 shows the peer ban" \
			"$(journalctl -u brute-reportd -o export --no-pager MESSAGE_ID=$MID_PEER_BAN | grep -E '^(OBJECT_|_UID|BRUTE_(UNIT|PID|PEER)=)' | tail -n 8)"
	fi
	x=$(journalctl -x -u brute-reportd MESSAGE_ID=$MID_PEER_BAN BRUTE_PEER="$2" --no-pager 2>&1)
	if echo "$x" | grep -q "Subject: Peer $2 banned from a $6 endpoint for $pban_s s after 5 crashes" &&
		echo "$x" | grep -qF "brutectl lift --peer $2"; then
		ok "$1: journalctl -x shows the catalog text of the peer banned entry"
	else
		bad "$1: journalctl -x shows the catalog text of the peer banned entry" "$(echo "$x" | tail -n 12)"
	fi
	# authpriv (10) * 8 + crit (2) = 82
	if wait_for 10 eval "siem_lines PEER_BAN | grep -q ' peer=\"$2\" '"; then
		line=$(siem_lines PEER_BAN | grep " peer=\"$2\" " | tail -n 1)
		if echo "$line" | grep -q "^<82>1 .* PEER_BAN \[brute@32473 kind=\"peer_ban\" message_id=\"$MID_PEER_BAN\" peer=\"$2\" .*unit=\"$3\""; then
			ok "$1: rsyslog received the peer ban alert: $(echo "$line" | cut -c1-200)..."
		else
			bad "$1: rsyslog received the peer ban alert" "$line"
		fi
	else
		bad "$1: rsyslog received the peer ban alert" "$(siem_lines PEER_BAN | tail -n 2)"
	fi
}
# unban_checks NAME PEER UNIT: root lifted the ban: the 1719 record, the entry, the alert
unban_checks() {
	if wait_for 10 punbanned "$2" && wait_for 10 jhas_peer $MID_PEER_UNBAN "$2"; then
		# a ban at a layout ends twice (its endpoint's entry, its layout's: layout=);
		# brute-reportd tells the endpoint's end, which counted the refusals
		krefused=$(punbans | grep " peer=$2 " | grep -v " layout=" | tail -n 1 | field refused)
		got=$(jpeer $MID_PEER_UNBAN "$2" | tail -n 1 | jget PRIORITY BRUTE_REASON BRUTE_REFUSED \
			BRUTE_LIFTED_BY_UID BRUTE_BAN_S BRUTE_UNIT)
		want="PRIORITY=5 BRUTE_REASON=lifted BRUTE_REFUSED=$krefused BRUTE_LIFTED_BY_UID=0"
		want="$want BRUTE_BAN_S=$pban_s BRUTE_UNIT=$3"
		if [ "$got" = "$want" ] && [ "${krefused:-0}" -ge 1 ]; then
			ok "$1: root lifted the ban: 1719 record and peer ban ended entry ($got)"
		else
			bad "$1: peer ban ended entry after the lift" "got:  $got" "want: $want (refused >= 1)" \
				"$(punbans | tail -n 1)"
		fi
	else
		bad "$1: lifting the peer ban gives a 1719 record and a peer ban ended entry" \
			"$(punbans | tail -n 2)" "$(journalctl -u brute-reportd -o cat --no-pager | tail -n 5)"
	fi
	if wait_for 10 eval "siem_lines PEER_UNBAN | grep -q ' peer=\"$2\" .*reason=\"lifted\"'"; then
		ok "$1: rsyslog received the peer ban ended alert"
	else
		bad "$1: rsyslog received the peer ban ended alert" "$(siem_lines PEER_UNBAN | tail -n 2)"
	fi
}

peer_cleanup
pban_s=$(cat /proc/sys/kernel/brute/peer_ban_time_s)
lp=$(($(wc -l <$AUDIT_LOG) + 1))
# TCP: a forking service in namespace rpt-srv, run by systemd; the attacker in rpt-cli
if ip netns add rpt-srv && ip netns add rpt-cli &&
	ip link add rpt0 netns rpt-srv type veth peer name rpt1 netns rpt-cli &&
	ip -n rpt-srv addr add 10.198.0.1/24 dev rpt0 && ip -n rpt-cli addr add 10.198.0.2/24 dev rpt1 &&
	ip -n rpt-srv link set rpt0 up && ip -n rpt-cli link set rpt1 up &&
	ip -n rpt-srv link set lo up && ip -n rpt-cli link set lo up &&
	systemd-run --quiet --unit=$SVC $st/service -n /run/netns/rpt-srv tcp 10.198.0.1:7777 &&
	wait_for 10 eval "ip netns exec rpt-srv ss -Hltn 'sport = :7777' | grep -q LISTEN"; then
	netns=$(ip netns exec rpt-srv readlink /proc/self/ns/net | tr -dc 0-9)
	out=$($st/client -n /run/netns/rpt-cli -t 3000 -c 7 -r crash tcp 10.198.0.1:7777)
	# (on a loaded TCG guest a crash may outlast the client's timeout: counted refused)
	if wait_for 10 pbanned 10.198.0.2/32 && served "$out" 0 7 2 &&
		[ "$(pbans | grep " peer=10.198.0.2/32 " | tail -n 1 | field faults)" = 5 ] &&
		[ "$(systemctl is-active $SVC)" = active ]; then
		ok "tcp peer: 5 crashes, then refused; banned (1718), the service lives on ($out)"
	else
		bad "tcp peer: 5 crashes, then refused; banned (1718), the service lives on" "client: $out" \
			"service: $(systemctl is-active $SVC)" "$(pbans | tail -n 1)"
	fi
	peer_checks "tcp peer" 10.198.0.2/32 $SVC \
		"BRUTE_NETNS BRUTE_TRANSPORT BRUTE_LADDR BRUTE_LPORT" \
		"BRUTE_NETNS=$netns BRUTE_TRANSPORT=tcp BRUTE_LADDR=10.198.0.1 BRUTE_LPORT=7777" tcp
	echo "peer 10.198.0.2" >$LIFT
	unban_checks "tcp peer" 10.198.0.2/32 $SVC
	out=$($st/client -n /run/netns/rpt-cli -c 1 tcp 10.198.0.1:7777)
	if [ "$out" = "answered 1 crashed 0 refused 0" ]; then
		ok "tcp peer: served again after the lift ($out)"
	else
		bad "tcp peer: served again after the lift" "client: $out"
	fi
else
	bad "tcp peer: namespaces, veth pair and the service ($SVC)" \
		"$(systemctl status --no-pager $SVC 2>&1 | tail -n 5)"
fi
# Unix: a root service, a local user (4243) as the attacker
if systemd-run --quiet --unit=$USVC $st/service unix $SOCK &&
	wait_for 10 eval "ss -Hxl src $SOCK | grep -q LISTEN"; then
	lino=$(ss -Hxl src $SOCK | awk '{ print $6 }')
	out=$($st/client -u 4243 -t 3000 -c 6 -r crash unix $SOCK)
	if wait_for 10 pbanned uid:4243 && served "$out" 0 6 1 &&
		[ "$(pbans | grep " peer=uid:4243 " | tail -n 1 | field faults)" = 5 ] &&
		[ "$(systemctl is-active $USVC)" = active ]; then
		ok "unix peer: uid 4243 crashed root's service 5 times, then refused; banned (1718) ($out)"
	else
		bad "unix peer: uid 4243 crashed root's service 5 times, then refused; banned (1718)" \
			"client: $out" "service: $(systemctl is-active $USVC)" "$(pbans | tail -n 1)"
	fi
	peer_checks "unix peer" uid:4243 $USVC "BRUTE_PEER_UID BRUTE_TRANSPORT BRUTE_LINO" \
		"BRUTE_PEER_UID=4243 BRUTE_TRANSPORT=unix BRUTE_LINO=$lino" unix
	echo "peer uid:4243" >$LIFT
	unban_checks "unix peer" uid:4243 $USVC
	out=$($st/client -u 4243 -c 1 unix $SOCK)
	if [ "$out" = "answered 1 crashed 0 refused 0" ]; then
		ok "unix peer: served again after the lift ($out)"
	else
		bad "unix peer: served again after the lift" "client: $out"
	fi
else
	bad "unix peer: the service ($USVC)" "$(systemctl status --no-pager $USVC 2>&1 | tail -n 5)"
fi
capture peers "$lp"
peer_cleanup
t "peers checked"

# Records audit did not take (an exclude rule refuses the boundary records of three runs of
# crasher_suid): the records after them carry the kernel's total (records_dropped=); brute-reportd
# says so in its own log (at once, then at most once a minute) and counts all of them (SIGUSR1).
dropped() { sed -n 's/.* records_dropped=\([0-9]*\).*/\1/p' /sys/kernel/security/brute/stats; }
inv=$(systemctl show -p InvocationID --value brute-reportd)
dlog() { journalctl -u brute-reportd _SYSTEMD_INVOCATION_ID="$inv" -o cat --no-pager; }
said() { dlog | grep -q "could not emit [0-9]* Brute audit records\{0,1\} ([0-9]* since boot, as of record "; }
counted() { systemctl kill -s USR1 brute-reportd; sleep 0.5; dlog | grep -q "records the kernel dropped $d1;"; }
d0=$(dropped)
auditctl -a exclude,always -F msgtype=1711 >/dev/null
for i in 1 2 3; do runas 1000 $st/crasher_suid true; done
auditctl -d exclude,always -F msgtype=1711 >/dev/null
d1=$(dropped)
runas 1000 $st/crasher_suid true
if [ "$d1" -ge $((d0 + 3)) ] && wait_for 10 said && wait_for 10 counted; then
	ok "records the kernel could not emit ($d0 -> $d1): logged ($(dlog | grep 'could not emit' | head -n 1 | cut -c1-90)...) and counted"
else
	bad "records the kernel could not emit: logged and counted" "stats $d0 -> $d1" "$(dlog | tail -n 4)"
fi

# --- clean up for later scripts ---------------------------------------------------------------
if [ -f /run/reportd-peers.conf.orig ]; then
	cp -p /run/reportd-peers.conf.orig /etc/brute/reportd.conf
else
	rm -f /etc/brute/reportd.conf
fi
rm -f /etc/rsyslog.d/31-brute-siem-peers.conf "$st/crasher_suid"
systemctl --no-block stop brute-reportd.service
systemctl --no-block restart rsyslog.service
t "done"
exit 0
