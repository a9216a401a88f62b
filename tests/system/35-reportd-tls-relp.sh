#!/bin/sh
# brute-reportd (the packaged unit) forwards the alerts of real attacks straight to rsyslog's
# TLS and RELP inputs: siem/rsyslog/brute-collector.conf as shipped (only its ports changed;
# certificates made here with certtool under /etc/rsyslog-brute/, the names the file expects),
# run as a second rsyslogd.  Over syslog TLS (siem_protocol = tls: imtcp with the gtls stream
# driver, mutual X.509 with name checks), then RELP over TLS (siem_protocol = relp: imrelp,
# acknowledged), the alert line of each attack as rsyslog wrote it; then the collector is
# killed (SIGKILL) and an attack made while it is down arrives once it is back, the spool empty.
. "$RIG/tap.sh"

st=$SELFTESTS
ATTACK=1713
AUDIT_LOG=/var/log/audit/audit.log
C=/run/brute-collector
PKI=/etc/rsyslog-brute
ALERTS=/var/log/brute/alerts.log
TLS_PORT=16514 RELP_PORT=12514
STATUS=/run/brute-reportd/status

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled" "$(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
for m in imrelp lmnsd_gtls; do
	if ! ls /usr/lib/*/rsyslog/$m.so >/dev/null 2>&1; then
		not_ok "rsyslog module $m in the guest (scripts/rootfs.sh: rsyslog-relp, rsyslog-gnutls)"
		exit 0
	fi
done
command -v certtool >/dev/null || { not_ok "certtool in the guest (gnutls-bin)"; exit 0; }

bad() {
	printf 'not ok - %s\n' "$1"
	shift
	for d in "$@"; do printf '%s\n' "$d" | sed 's/^/#   /'; done
}
unit_diag() {
	systemctl status --no-pager brute-reportd 2>&1 | tail -n 8
	journalctl -u brute-reportd --no-pager -n 10 2>&1
}
# RFC 5424 ATTACK lines of brute-reportd in the collector's file (RSYSLOG_SyslogProtocol23Format)
alert_lines() { grep -a ' brute-reportd [0-9]* ATTACK \[brute@32473 ' $ALERTS 2>/dev/null; }
has_alert() { alert_lines | grep -q " hierarchy=\"$1\""; }
n_attacks() { grep -acE "^type=(UNKNOWN\[$ATTACK\]|BRUTE_ATTACK) " $AUDIT_LOG; }
logged() { [ "$(n_attacks)" -ge "$1" ]; }
last_hier() {
	grep -aE "^type=(UNKNOWN\[$ATTACK\]|BRUTE_ATTACK) " $AUDIT_LOG | tail -n 1 |
		sed -n 's/.* brute_hierarchy=\([0-9]*\).*/\1/p'
}
# a real fork attack (uid 1000 in a set-user-ID program, killed by Brute): prints the
# attack's hierarchy.  A copy of the attacker of its own: each of uid 1000's attacks is also
# an attempt on the program it runs (an exec attack), and 30-reportd's attacks plus these
# three on one program would get uid 1000 banned from it.
cp $st/attacker /tmp/attacker35 && chmod 4755 /tmp/attacker35
attack() {
	a0=$(n_attacks)
	runas 1000 /tmp/attacker35 -s fork 12 >/tmp/attack.out 2>&1
	wait_for 10 logged $((a0 + 1)) && last_hier
}
listening() { ss -Hltn "sport = :$1" | grep -q LISTEN; }
collector_start() {
	rsyslogd -n -f $C/r.conf -i $C/pid >>$C/log 2>&1 &
	echo $! >$C/rsyslogd.pid
	wait_for 60 listening $TLS_PORT && wait_for 30 listening $RELP_PORT
}
collector_diag() {
	echo "rsyslogd: $(tail -n 8 $C/log $C/internal.log 2>&1)"
	ps -eo pid,stat,etime,args | grep '[r]syslogd'
	ss -Hltn
}
# the daemon's own count of spooled alerts (its state file, updated within 5 s)
spooled() { sed -n 's/^spooled=//p' $STATUS 2>/dev/null; }
spool_empty() { [ "$(spooled)" = 0 ]; }
spool_holds() { [ "$(spooled)" -ge 1 ] 2>/dev/null; }

# --- certificates and the collector ---------------------------------------------------------
mkdir -p $PKI $C /var/log/brute
(
	cd $PKI || exit 1
	printf 'cn = "brute test CA"\nca\ncert_signing_key\nexpiration_days = 2\n' >ca.tmpl
	for n in collector relay; do
		printf 'cn = "%s.example.org"\ndns_name = "%s.example.org"\ntls_www_server\ntls_www_client\nsigning_key\nencryption_key\nexpiration_days = 2\n' $n $n >$n.tmpl
	done
	certtool --generate-privkey --key-type=ecdsa --outfile ca.key &&
	certtool --generate-self-signed --load-privkey ca.key --template ca.tmpl --outfile ca.pem &&
	for n in collector relay; do
		certtool --generate-privkey --key-type=ecdsa --outfile $n.key &&
		certtool --generate-certificate --load-privkey $n.key --load-ca-certificate ca.pem \
			--load-ca-privkey ca.key --template $n.tmpl --outfile $n.pem || exit 1
	done
) >$C/certtool.log 2>&1 || { not_ok "certificates (certtool)" "$(tail -n 5 $C/certtool.log)"; exit 0; }
chmod 644 $PKI/*.pem $PKI/*.key
sed -e "s|port=\"6514\"|port=\"$TLS_PORT\"|" -e "s|port=\"2514\"|port=\"$RELP_PORT\"|" \
	/data/siem/brute-collector.conf >$C/collector.conf
# rsyslogd's own messages (the default ruleset) into a file of its own, for diagnostics
printf 'global(workDirectory="%s")\nsyslog.* %s/internal.log\n' $C $C | cat - $C/collector.conf >$C/r.conf
rm -f $ALERTS
check "rsyslogd -N1 accepts siem/rsyslog/brute-collector.conf" rsyslogd -N1 -f $C/r.conf
if collector_start; then
	ok "the collector listens: syslog TLS on $TLS_PORT, RELP over TLS on $RELP_PORT"
else
	not_ok "the collector listens" "$(collector_diag)"
	exit 0
fi

# --- brute-reportd over syslog TLS ----------------------------------------------------------
[ -f /etc/brute/reportd.conf ] && cp -p /etc/brute/reportd.conf /run/reportd.conf.orig35
conf() { # PROTOCOL PORT
	cat >/etc/brute/reportd.conf <<CONF
siem_protocol = $1
siem_host = 127.0.0.1
siem_port = $2
siem_tls_name = collector.example.org
siem_tls_ca = $PKI/ca.pem
siem_tls_cert = $PKI/relay.pem
siem_tls_key = $PKI/relay.key
siem_retry_min = 1
siem_retry_max = 1
kill_coalesce_ms = 100
CONF
	chown root:root /etc/brute/reportd.conf
	chmod 600 /etc/brute/reportd.conf
}
conf tls $TLS_PORT
if ! out=$(systemctl start brute-reportd.service 2>&1) ||
	[ "$(systemctl is-active brute-reportd)" != active ]; then
	bad "brute-reportd starts with siem_protocol = tls" "$out" "$(unit_diag)"
	exit 0
fi
h=$(attack)
if [ -n "$h" ] && wait_for 15 has_alert "$h"; then
	ok "syslog TLS: rsyslog's imtcp/gtls input wrote the alert of attack $h: $(alert_lines | grep " hierarchy=\"$h\"" | cut -c1-150)..."
else
	bad "syslog TLS: rsyslog's imtcp/gtls input wrote the alert of attack '$h'" \
		"$(tail -n 3 $ALERTS 2>&1)" "$(tail -n 5 $C/log)" "$(unit_diag)"
fi
alert_lines | grep " hierarchy=\"$h\"" | grep -q 'attack_type="fork"' &&
	ok "the alert is RFC 5424 with Brute's structured data (attack_type=\"fork\")" ||
	not_ok "the alert is RFC 5424 with Brute's structured data" "$(alert_lines | tail -n 1)"

# --- RELP over TLS (reload) -----------------------------------------------------------------
conf relp $RELP_PORT
systemctl reload brute-reportd.service
h=$(attack)
if [ -n "$h" ] && wait_for 15 has_alert "$h"; then
	ok "RELP: rsyslog's imrelp input wrote the alert of attack $h: $(alert_lines | grep " hierarchy=\"$h\"" | cut -c1-150)..."
else
	bad "RELP: rsyslog's imrelp input wrote the alert of attack '$h'" \
		"$(tail -n 3 $ALERTS 2>&1)" "$(tail -n 5 $C/log)" "$(unit_diag)"
fi
if wait_for 10 spool_empty; then
	ok "RELP: every alert acknowledged (spooled=0 in $STATUS)"
else
	not_ok "RELP: every alert acknowledged" "spooled: $(spooled)"
fi

# --- the collector killed; an attack meanwhile; the collector back --------------------------
kill -9 "$(cat $C/rsyslogd.pid)"
wait_for 5 sh -c "! ss -Hltn 'sport = :$RELP_PORT' | grep -q LISTEN"
h=$(attack)
if [ -n "$h" ] && wait_for 10 spool_holds && ! has_alert "$h"; then
	ok "RELP, collector down (SIGKILL): the alert of attack $h waits in the spool (spooled=$(spooled))"
else
	not_ok "RELP, collector down: the alert of attack '$h' waits in the spool" \
		"spooled: $(spooled)" "$(alert_lines | tail -n 1)"
fi
collector_start
if [ -n "$h" ] && wait_for 20 has_alert "$h" && wait_for 10 spool_empty; then
	n=$(alert_lines | grep -c " hierarchy=\"$h\"")
	ok "RELP, collector back: the alert of attack $h arrived ($n line(s)), the spool is empty"
else
	not_ok "RELP, collector back: the alert of attack '$h' arrived" "$(collector_diag)" "$(unit_diag)"
fi
[ "$(systemctl show -p NRestarts --value brute-reportd)" = 0 ] &&
	ok "brute-reportd ran throughout (no restart)" ||
	not_ok "brute-reportd ran throughout" "$(unit_diag)"

# --- clean up ----------------------------------------------------------------------------------
[ -f /run/reportd.conf.orig35 ] && cp -p /run/reportd.conf.orig35 /etc/brute/reportd.conf
systemctl --no-block stop brute-reportd.service
kill "$(cat $C/rsyslogd.pid)" 2>/dev/null
rm -f /tmp/attacker35
exit 0
