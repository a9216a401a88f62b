#!/bin/bash
# siem/: the Sigma rules (sigma_check.py: well-formed, and each selects exactly its records
# among real audit.log lines) and the rsyslog configurations, run for real: a collector
# (siem/rsyslog/brute-collector.conf) and a relay (brute-relay.conf), as two rsyslogd
# processes on this machine with certificates made here (a CA, collector.example.org,
# relay.example.org); brute-reportd replays a recorded attack (--input --forward) to the relay,
# which delivers every alert to the collector over RELP+TLS, then over syslog TLS (the relay's
# "brute-tls" ruleset); then brute-reportd straight to the collector's syslog TLS input
# (siem_protocol = tls). Only paths and ports are changed in the configurations under test.
. "$(dirname "$0")/lib.bash"
set -u
python3 "$top/tests/host/sigma_check.py" "$top" || not_ok "sigma_check.py ran" "exit $?"

for m in imrelp omrelp lmnsd_gtls; do
	if ! ls /usr/lib/x86_64-linux-gnu/rsyslog/$m.so >/dev/null 2>&1 &&
		! ls /usr/lib/*/rsyslog/$m.so >/dev/null 2>&1; then
		not_ok "rsyslog module $m installed (make deps: rsyslog-relp, rsyslog-gnutls)"
		exit 0
	fi
done
T=$(mktemp -d)
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; sleep 0.3; rm -rf "$T"; }
trap cleanup EXIT
[ -n "${KEEP_SIEM_TMP:-}" ] && trap - EXIT && echo "# tmp $T"
base=$((20000 + $$ % 20000))
RELP=$base TLS=$((base + 1)) RELAY=$((base + 2)) ROGUE=$((base + 4))

# Certificates: a CA, the collector's and the relay's (names as in the configurations).
c=$T/certs
mkdir -p "$c"
(
	cd "$c"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=brute-test-ca
	for n in collector.example.org relay.example.org rogue.example.net; do
		openssl req -newkey rsa:2048 -nodes -keyout ${n%%.*}.key -out $n.csr -subj "/CN=$n"
		printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth,clientAuth\n' $n >$n.ext
		openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out ${n%%.*}.pem -extfile $n.ext
	done
) >"$T/openssl.log" 2>&1 || { not_ok "test certificates" "$(tail -n 5 "$T/openssl.log")"; exit 0; }

# The configurations under test, with this run's paths and ports.
mkdir -p "$T/collector" "$T/relay" "$T/rogue"
sed -e "s|/etc/rsyslog-brute/|$c/|g" -e "s|/var/log/brute/|$T/collector/|g" \
	-e "s|port=\"2514\"|port=\"$RELP\"|" -e "s|port=\"6514\"|port=\"$TLS\"|" \
	"$top/siem/rsyslog/brute-collector.conf" >"$T/collector/rsyslog.conf"
sed -e "s|/etc/rsyslog-brute/host\.|$c/relay.|g" -e "s|/etc/rsyslog-brute/|$c/|g" \
	-e "s|target=\"collector.example.org\"|target=\"127.0.0.1\"|" \
	-e "s|port=\"2514\"|port=\"$RELP\"|" -e "s|port=\"6514\"|port=\"$TLS\"|" \
	-e "s|port=\"10514\"|port=\"$RELAY\"|" \
	"$top/siem/rsyslog/brute-relay.conf" >"$T/relay/rsyslog.conf"
# the second transport: the same relay, its input bound to the "brute-tls" ruleset
echo "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"$((RELAY + 1))\" ruleset=\"brute-tls\")" >>"$T/relay/rsyslog.conf"
# a relay whose certificate (same CA) names a host the collector does not permit
sed -e "s|$c/relay\.|$c/rogue.|g" -e "s|port=\"$RELAY\"|port=\"$ROGUE\"|" \
	-e "s|port=\"$((RELAY + 1))\"|port=\"$((ROGUE + 1))\"|" "$T/relay/rsyslog.conf" >"$T/rogue/rsyslog.conf"
for side in collector relay rogue; do
	printf 'global(workDirectory="%s")\n' "$T/$side" | cat - "$T/$side/rsyslog.conf" >"$T/$side/r.conf"
	check "rsyslogd -N1 accepts the $side configuration" rsyslogd -N1 -f "$T/$side/r.conf"
	rsyslogd -n -f "$T/$side/r.conf" -i "$T/$side/pid" >"$T/$side/log" 2>&1 &
	pids="$pids $!"
done
listening() { ss -Hltn "sport = :$1" | grep -q LISTEN; }
waitfor() { local i; for i in $(seq 1 100); do "$@" && return 0; sleep 0.2; done; return 1; }
if waitfor listening $RELP && waitfor listening $TLS && waitfor listening $RELAY && waitfor listening $ROGUE; then
	ok "collector listens (RELP+TLS, syslog TLS), relay listens on 127.0.0.1"
else
	not_ok "collector and relay listen" "$(cat "$T/collector/log" "$T/relay/log")"
	exit 0
fi

# brute-reportd replays a recorded fork attack and forwards its alerts (RFC 5424 over TCP).
fixture=$top/daemon/tests/fixtures/captured-fork.log
make -s -C "$top/daemon" brute-reportd >/dev/null || { not_ok "build brute-reportd"; exit 0; }
alerts=$T/collector/alerts.log
n_alerts() { grep -c ' brute-reportd ' "$alerts" 2>/dev/null || echo 0; }
forward() { # PORT [FIXTURE]
	local f=${2:-$fixture}
	local s="$T/spool$1-${f##*/}"
	mkdir -p "$s"
	printf 'journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\nsiem_port = %s\nspool_dir = %s\n' \
		"$1" "$s" >"$T/reportd$1.conf"
	chmod 600 "$T/reportd$1.conf"
	"$top/daemon/brute-reportd" -c "$T/reportd$1.conf" -i "$f" --forward -o none -q --stats
}
if ! out=$(forward $RELAY 2>&1); then not_ok "brute-reportd --forward to the relay" "$out"; exit 0; fi
# rsyslog's imtcp closes its end when brute-reportd's ends: that confirms the batch
same "plain TCP: the relay confirmed every alert (brute-reportd's spool is empty)" "spooled now 0" \
	"$(echo "$out" | grep -o 'spooled now [0-9]*')"
at_least() { [ "$(n_alerts)" -ge "$1" ]; }
if waitfor at_least 1; then sleep 2; fi
n=$(n_alerts)
if [ "$n" -gt 0 ]; then
	ok "RELP+TLS: $n alerts of brute-reportd reached the collector"
else
	not_ok "RELP+TLS: alerts of brute-reportd reached the collector" "$(cat "$T/relay/log" "$T/collector/log" | tail -n 20)"
	exit 0
fi
grep -q ' brute-reportd [0-9-]* [A-Za-z_-]* \[brute@[0-9]* ' "$alerts" &&
	ok "the collector's file is RFC 5424 with Brute's structured data" ||
	not_ok "the collector's file is RFC 5424 with Brute's structured data" "$(head -n 2 "$alerts")"
if ! out=$(forward $((RELAY + 1)) 2>&1); then not_ok "brute-reportd --forward to the relay (tls)" "$out"; exit 0; fi
if waitfor at_least $((2 * n)); then sleep 1; fi
same "syslog TLS: the same $n alerts reached the collector again" "$((2 * n))" "$(n_alerts)"
# The collector refuses a peer outside permittedPeer, on both transports.
forward $ROGUE >/dev/null 2>&1
forward $((ROGUE + 1)) >/dev/null 2>&1
sleep 8
same "a relay named rogue.example.net (not permitted) delivers nothing, RELP or TLS" "$((2 * n))" "$(n_alerts)"
if grep -q "imrelp.*authentication error.*rogue.example.net" "$T/collector/log" &&
	grep -q "peer name not authorized.*rogue.example.net" "$T/collector/log"; then
	ok "the collector logged both refusals (imrelp and gtls name authentication)"
else
	not_ok "the collector logged both refusals (imrelp and gtls name authentication)" "$(tail -n 10 "$T/collector/log")"
fi

# brute-reportd itself over syslog TLS (siem_protocol = tls, RFC 5425) straight to the
# collector's imtcp/gtls input: the collector's certificate verified against the CA and the
# name collector.example.org, the relay's certificate as client certificate (the collector
# demands one); then a CA that did not sign the collector: refused, nothing arrives, spooled.
forward_tls() { # PORT NAME CA [PROTOCOL]
	mkdir -p "$T/spool-tls-$2"
	printf 'journal = no\nsiem_protocol = %s\nsiem_host = 127.0.0.1\nsiem_port = %s\nsiem_tls_name = %s\nsiem_tls_ca = %s\nsiem_tls_cert = %s\nsiem_tls_key = %s\nspool_dir = %s\nsiem_retry_min = 1\n' \
		"${4:-tls}" "$1" "$2" "$3" "$c/relay.pem" "$c/relay.key" "$T/spool-tls-$2" >"$T/reportd-tls-$2.conf"
	chmod 600 "$T/reportd-tls-$2.conf"
	"$top/daemon/brute-reportd" -c "$T/reportd-tls-$2.conf" -i "$fixture" --forward -o none --stats
}
if out=$(forward_tls $TLS collector.example.org "$c/ca.pem" 2>&1); then
	if waitfor at_least $((3 * n)); then sleep 1; fi
	same "brute-reportd over TLS: the same $n alerts reached the collector's TLS input" \
		"$((3 * n))" "$(n_alerts)"
	# its gtls driver closes its end after brute-reportd's close_notify: the batch confirmed
	same "TLS: the collector confirmed every alert (brute-reportd's spool is empty)" "spooled now 0" \
		"$(echo "$out" | grep -o 'spooled now [0-9]*')"
else
	not_ok "brute-reportd over TLS to the collector" "$out"
fi
# the wrong name: refused by brute-reportd itself during the handshake, nothing delivered
out=$(forward_tls $TLS wrong.example.org "$c/ca.pem" 2>&1)
sleep 1
same "brute-reportd over TLS, name mismatch: nothing more reached the collector" "$((3 * n))" "$(n_alerts)"
case $out in
*"server certificate rejected"*"does not match"*) ok "brute-reportd logged the name mismatch" ;;
*) not_ok "brute-reportd logged the name mismatch" "$out" ;;
esac
# --stats at exit: "spooled now N" (the spool's own count)
case $out in
*"spooled now 0,"*) not_ok "the refused alerts stay in brute-reportd's spool" "$out" ;;
*"spooled now "[1-9]*) ok "the refused alerts stay in brute-reportd's spool ($(echo "$out" | grep -o 'spooled now [0-9]*'))" ;;
*) not_ok "the refused alerts stay in brute-reportd's spool" "$out" ;;
esac

# brute-reportd over RELP with TLS (siem_protocol = relp, siem_tls_ca set) straight to the
# collector's imrelp input: the alerts arrive, and the spool is empty (each acknowledged).
rm -rf "$T/spool-tls-collector.example.org"
if out=$(forward_tls $RELP collector.example.org "$c/ca.pem" relp 2>&1); then
	if waitfor at_least $((4 * n)); then sleep 1; fi
	same "brute-reportd over RELP+TLS: the same $n alerts reached the collector's imrelp input" \
		"$((4 * n))" "$(n_alerts)"
	# the spool is empty once everything was acknowledged (--stats: "spooled now 0")
	same "every RELP alert acknowledged: the spool is empty" "spooled now 0" \
		"$(echo "$out" | grep -o 'spooled now [0-9]*')"
else
	not_ok "brute-reportd over RELP+TLS to the collector" "$out"
fi

# v3: a recorded stream with peer bans (captured-v3.log: a TCP peer, its /24, a Unix peer, each
# banned and lifted) through the relay: the collector gets each peer ban and its end as an
# alert whose structured data carries the peer and the endpoint, for a SIEM or a firewall.
v3=$top/daemon/tests/fixtures/captured-v3.log
n_kind() { grep -c " brute-reportd [0-9]* $1 \[brute@32473 kind=" "$alerts" 2>/dev/null || echo 0; }
peer_alerts() { [ "$(n_kind PEER_BAN)" -ge 3 ] && [ "$(n_kind PEER_UNBAN)" -ge 3 ]; }
if out=$(forward $RELAY "$v3" 2>&1); then
	waitfor peer_alerts
	same "v3: 3 peer bans and 3 ends reached the collector (RELP+TLS)" "3 3" \
		"$(n_kind PEER_BAN) $(n_kind PEER_UNBAN)"
	line=$(grep ' PEER_BAN \[' "$alerts" | head -n 1)
	case $line in
	*' PEER_BAN [brute@32473 kind="peer_ban" message_id="79ecec051cb34c3a91486f64fd349085" peer="10.196.0.2/32" netns="4026532091" transport="tcp" laddr="10.196.0.1" lport="7777" faults="5" ban_s="900" '*'Peer 10.196.0.2/32 banned from tcp 10.196.0.1:7777 in netns 4026532091 for 900 s after 5 crashes of service'*)
		ok "v3: the peer ban alert carries the peer and the endpoint" ;;
	*) not_ok "v3: the peer ban alert carries the peer and the endpoint" "$line" ;;
	esac
	grep -q ' PEER_UNBAN \[brute@32473 kind="peer_unban" .* peer="uid:4243" peer_uid="4243" netns="4026531840" transport="unix" lino="1150" reason="lifted" refused="1" ' "$alerts" &&
		ok "v3: the end of the Unix peer's ban, with its uid and socket inode" ||
		not_ok "v3: the end of the Unix peer's ban, with its uid and socket inode" "$(grep ' PEER_UNBAN ' "$alerts")"
else
	not_ok "brute-reportd --forward of the v3 stream to the relay" "$out"
fi

# issue 31: a receiver that stops reading (the relay's rsyslogd stopped: its kernel still
# accepts the connection and its TCP stack takes the alerts) gets nothing counted as
# delivered: brute-reportd keeps them spooled (it used to count them delivered as soon as
# that stack acknowledged them: lost with the receiver); once it reads again, a second
# brute-reportd on the same spool delivers them, confirmed (the spool empties).
stalled() { # FIXTURE
	mkdir -p "$T/spool-stalled"
	printf 'journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\nsiem_port = %s\nspool_dir = %s\nsiem_timeout = 1\nsiem_retry_min = 1\n' \
		"$RELAY" "$T/spool-stalled" >"$T/reportd-stalled.conf"
	chmod 600 "$T/reportd-stalled.conf"
	"$top/daemon/brute-reportd" -c "$T/reportd-stalled.conf" -i "$1" --forward -o none --stats
}
before=$(n_alerts)
relay_pid=$(cat "$T/relay/pid" 2>/dev/null)
if [ -n "$relay_pid" ] && kill -STOP "$relay_pid"; then
	out=$(stalled "$fixture" 2>&1)
	case $out in
	*"spooled now "[1-9]*) ok "a stopped receiver: the alerts stay in brute-reportd's spool ($(echo "$out" | grep -o 'spooled now [0-9]*'))" ;;
	*) not_ok "a stopped receiver: the alerts stay in brute-reportd's spool" "$out" ;;
	esac
	kill -CONT "$relay_pid"
	out=$(stalled /dev/null 2>&1)
	same "the receiver reads again: the spool is delivered and empty" "spooled now 0" \
		"$(echo "$out" | grep -o 'spooled now [0-9]*')"
	if waitfor at_least $((before + n)); then sleep 1; fi
	[ "$(n_alerts)" -ge $((before + n)) ] &&
		ok "the $n alerts reached the collector ($(($(n_alerts) - before)) with the stopped connection's copies)" ||
		not_ok "the $n alerts reached the collector" "before $before, now $(n_alerts)"
else
	not_ok "stop the relay's rsyslogd" "pid '$relay_pid'"
fi

# issue 42: 9,000 alerts queued while the receiver had stalled (a TCP proxy in front of the
# relay stopped: its kernel takes connections and a buffer of each), then read through that
# proxy, which does not pass brute-reportd's half-close on (socat, shut-none): the relay never
# sees the end of the stream, so never closes its end, and no batch is ever confirmed by a
# close.  Each batch is then sent once and counted as unconfirmed (it used to be sent again for
# ever, and nothing after it); every alert reaches the collector; the duplicates are the
# copies the stopped proxy's kernel held (the start of the batch, once per attempt during the
# stall), at most what was counted as sent again.
PROXY=$((base + 6))
command -v socat >/dev/null || { not_ok "socat installed (make deps)"; exit 0; }
make -s -C "$top/daemon" bench/gen-stream >/dev/null || { not_ok "build gen-stream"; exit 0; }
"$top/daemon/bench/gen-stream" 30000 0 1 >"$T/stream.log"	# 9,000 alerts for the SIEM
socat -t 3600 -T 120 "TCP4-LISTEN:$PROXY,bind=127.0.0.1,reuseaddr,fork" \
	"TCP4:127.0.0.1:$RELAY,shut-none" 2>"$T/socat.log" &
proxy=$!
pids="$pids $proxy"
waitfor listening $PROXY || { not_ok "socat listens" "$(cat "$T/socat.log")"; exit 0; }
mkdir -p "$T/spool-proxy" "$T/run-proxy"
printf 'journal = no\nsiem_protocol = tcp\nsiem_host = 127.0.0.1\nsiem_port = %s\nspool_dir = %s\nsiem_timeout = 3\nsiem_retry_min = 1\n' \
	"$PROXY" "$T/spool-proxy" >"$T/reportd-proxy.conf"
chmod 600 "$T/reportd-proxy.conf"
state() { sed -n "s/^$1=//p" "$T/run-proxy/status" 2>/dev/null; }
state_is() { [ "$(state "$1")" = "$2" ]; }
stalled_seen() { state_is alerts_queued 9000 && case $(state siem_last_error) in "no progress"*) ;; *) false ;; esac; }
lines_before=$(wc -l <"$alerts")
# (kind, hierarchy): one alert's identity
distinct() { tail -n "+$((lines_before + 1))" "$alerts" | grep -o 'kind="[a-z_]*"\|hierarchy="[0-9]*"' | paste - - | sort -u | wc -l; }
received() { tail -n "+$((lines_before + 1))" "$alerts" | grep -c ' brute-reportd '; }
all_there() { [ "$(distinct)" -ge 9000 ]; }
waitlong() { local i; for i in $(seq 1 300); do "$@" && return 0; sleep 0.2; done; return 1; }
mkfifo "$T/stdin"
RUNTIME_DIRECTORY=$T/run-proxy "$top/daemon/brute-reportd" -c "$T/reportd-proxy.conf" --stdin -o none \
	<"$T/stdin" 2>"$T/reportd-proxy.log" &
reportd=$!
pids="$pids $reportd"
exec 9>"$T/stdin"
kill -STOP "$proxy"
cat "$T/stream.log" >&9
if waitlong stalled_seen; then
	ok "9000 alerts queued, the stopped receiver seen as stalled ($(state spooled) spooled)"
else
	not_ok "9000 alerts queued, the stopped receiver seen as stalled" "$(cat "$T/run-proxy/status" 2>&1)"
fi
kill -CONT "$proxy"
waitlong state_is spooled 0
waitlong all_there
same "through a proxy that keeps the half-close: brute-reportd's spool empties" 0 "$(state spooled)"
same "the collector got all 9000 alerts" 9000 "$(distinct)"
dups=$(($(received) - $(distinct))) resent=$(state siem_resent) unconfirmed=$(state siem_unconfirmed)
diag "proxy scenario: $(received) received, $(distinct) distinct, $dups duplicates, siem_resent $resent, siem_unconfirmed $unconfirmed"
[ "$dups" -le "$resent" ] &&
	ok "duplicates ($dups) bounded by what was counted as sent again (siem_resent $resent)" ||
	not_ok "duplicates bounded and counted" "duplicates $dups, siem_resent $resent"
[ "${unconfirmed:-0}" -gt 0 ] &&
	ok "the batches the relay read without closing counted as unconfirmed ($unconfirmed)" ||
	not_ok "the batches the relay read without closing counted as unconfirmed" "$(cat "$T/run-proxy/status")"
grep -q 'left its end of the stream open: delivered, counted as unconfirmed' "$T/reportd-proxy.log" &&
	ok "brute-reportd said so once" ||
	not_ok "brute-reportd said so once" "$(tail -n 5 "$T/reportd-proxy.log")"
kill "$reportd"
exec 9>&-
