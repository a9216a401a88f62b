#!/bin/sh
# Real services under Brute (issue 30): Debian's nginx + PHP-FPM, Apache (prefork, direct and
# behind a load balancer in another network namespace), OpenSSH, Postfix + Dovecot, from the
# system guest's image (scripts/rootfs.sh installs them, every unit disabled), given a real
# client-reachable bug by a preload library (src/brute-fault.c, through systemd drop-ins:
# etc/brute-fault.conf), attacked while benign clients run (src/svcbench.c).  Sourced by
# tests/system/5?-services-*.sh (make check: short runs, outcomes asserted) and run by
# tests/bench/services.py (make bench: the same cases for longer, figures printed); dash, as
# root, in the system guest.
#
#   svc_setup              once per boot: users, configuration, drop-ins, daemon-reload; per
#                          script: the network namespaces, the SIEM (rsyslog) and brute-reportd
#   svc_case NAME          one case (service x scenario, list below): fresh units, the tunables
#                          of the case, svcbench for $SVC_D s; its figures in $SVC_OUT/NAME.res
#                          (KEY=VALUE lines), one "SVC NAME ..." diagnostic line on stdout
#   svc_assert NAME        the outcomes of response v4 (issue 30, item 3) for that case, as
#                          TAP lines
#   svc_teardown           every service stopped, namespaces gone, bans lifted, tunables and
#                          brute-reportd's configuration as they were
#
# Network: the services listen in the root namespace.  svc-cli holds the remote clients
# (10.80.0.2 on the link; 10.81.0.2 benign, 10.82.0.2 the attacker, 10.90.0-255.2 a botnet of
# 256 /24s); svc-lb the load balancer (front 10.78.0.1 towards svc-cli, back 10.79.0.2
# towards the host's 10.79.0.1) and a health checker (10.79.0.3).  Local users: 4243 (the
# attacker), 4244 (benign).
#
# Time is scaled for the ordinary bug (a crash every 10 minutes on a real host, >= 20 times
# crash_period_threshold_ms, 30 s): crash_period_threshold_ms 100, the bug every 2 s (20
# times the threshold), forget_time_s 12 (6 bug periods, as 1 hour is 6 times 10 minutes),
# backstop_faults 8 (so that two backstops fit in the short run; bench: 32).
SVC=${SVC:-/data/services}
SVC_OUT=${SVC_OUT:-/tmp/brute-svc}
SVC_D=${SVC_D:-10}
SIEM_LOG=/var/log/brute-siem.log
AUDIT_LOG=/var/log/audit/audit.log
BR=/proc/sys/kernel/brute
SECFS=/sys/kernel/security/brute
CLI=/run/netns/svc-cli
LBNS=/run/netns/svc-lb
SRV=10.80.0.1 BENIGN=10.81.0.2 ATTACKER=10.82.0.2 BOTNET='10.90.{0-255}.2'
LB_FRONT=10.78.0.1 LB_BACK=10.79.0.2 HEALTH=10.79.0.3 SRV_LB=10.79.0.1
LOCAL_ATTACKER=4243 LOCAL_BENIGN=4244
SVC_UNITS="nginx php8.2-fpm apache2 ssh postfix dovecot brute-svc-lb"
MID_ATTACK=72daa15b2f794fafa7bedff6fcaee907
MID_PEER_BAN=79ecec051cb34c3a91486f64fd349085
svc_full=
grep -qw 'rig.services=full' /proc/cmdline && svc_full=1
svc_only=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^rig.services.only=//p' | tr ',' ' ')
# Is case $1 to run (rig.services.only=NAME[,NAME] on the kernel command line: only those)?
svc_selected() { [ -z "$svc_only" ] || case " $svc_only " in *" $1 "*) true ;; *) false ;; esac; }

svc_log() { echo "services: [$(cut -d' ' -f1 /proc/uptime)] $*" >/dev/console 2>/dev/null; }
ip() { /sbin/ip "$@"; }

svc_net() {
	[ -e $CLI ] && [ -e $LBNS ] && return 0
	ip netns add svc-cli && ip netns add svc-lb &&
		ip link add svc-c0 type veth peer name svc-c1 netns svc-cli &&
		ip link add svc-l0 type veth peer name svc-l1 netns svc-lb &&
		ip -n svc-lb link add svc-f0 type veth peer name svc-f1 netns svc-cli &&
		ip addr add $SRV/24 dev svc-c0 && ip addr add $SRV_LB/24 dev svc-l0 &&
		ip link set svc-c0 up && ip link set svc-l0 up &&
		ip -n svc-cli addr add 10.80.0.2/24 dev svc-c1 &&
		ip -n svc-cli addr add 10.78.0.2/24 dev svc-f1 &&
		ip -n svc-lb addr add $LB_BACK/24 dev svc-l1 &&
		ip -n svc-lb addr add $HEALTH/24 dev svc-l1 &&
		ip -n svc-lb addr add $LB_FRONT/24 dev svc-f0 &&
		for ns in svc-cli svc-lb; do ip -n $ns link set lo up || return 1; done &&
		ip -n svc-cli link set svc-c1 up && ip -n svc-cli link set svc-f1 up &&
		ip -n svc-lb link set svc-l1 up && ip -n svc-lb link set svc-f0 up &&
		ip -n svc-cli route add default via $SRV dev svc-c1 &&
		for net in 10.81.0.0/16 10.82.0.0/16 10.90.0.0/16; do
			ip route add $net via 10.80.0.2 dev svc-c0 &&
				ip -n svc-lb route add $net via 10.78.0.2 dev svc-f0 || return 1
		done &&
		{
			echo "address add $BENIGN/32 dev svc-c1"
			echo "address add $ATTACKER/32 dev svc-c1"
			i=0
			while [ $i -le 255 ]; do
				echo "address add 10.90.$i.2/32 dev svc-c1"
				i=$((i + 1))
			done
		} | ip -n svc-cli -batch -
}

svc_net_down() {
	ip netns del svc-cli 2>/dev/null
	ip netns del svc-lb 2>/dev/null
	ip link del svc-c0 2>/dev/null
	ip link del svc-l0 2>/dev/null
	return 0
}

# The configuration of a small real host, once per boot.
svc_configure() {
	[ -f /run/brute-svc/configured ] && return 0
	mkdir -p /run/brute-svc /run/brute-fault "$SVC_OUT" &&
		install -m 755 "$SVC/svcbench" /usr/local/bin/svcbench &&
		install -m 644 "$SVC/brute-fault.so" /usr/local/lib/brute-fault.so || return 1
	id webapp >/dev/null 2>&1 || useradd -r -U -d /var/www/app -s /usr/sbin/nologin webapp ||
		return 1
	id alice >/dev/null 2>&1 || useradd -m -u 2001 -U alice || return 1
	id bob >/dev/null 2>&1 || useradd -m -u 2002 -U bob || return 1
	mkdir -p /var/www/app &&
		echo '<?php echo "ok\n";' >/var/www/html/index.php &&
		echo '<?php echo "ok\n";' >/var/www/app/index.php &&
		echo ok >/var/www/html/ok.txt || return 1
	rm -f /etc/nginx/sites-enabled/default
	install -m 644 "$SVC/etc/nginx-site.conf" /etc/nginx/sites-enabled/brute-svc &&
		install -m 644 "$SVC/etc/php-app-pool.conf" /etc/php/8.2/fpm/pool.d/app.conf || return 1
	a2dismod -q mpm_event >/dev/null && a2enmod -q mpm_prefork >/dev/null || return 1
	mkdir -p /etc/brute-svc &&
		install -m 644 "$SVC/etc/lb-nginx.conf" /etc/brute-svc/lb-nginx.conf &&
		install -m 644 "$SVC/etc/brute-svc-lb.service" /etc/systemd/system/ || return 1
	for u in nginx php8.2-fpm apache2 ssh postfix@ dovecot; do
		mkdir -p /etc/systemd/system/$u.service.d &&
			install -m 644 "$SVC/etc/brute-fault.conf" /etc/systemd/system/$u.service.d/ ||
			return 1
	done
	sed -i 's/^!include auth-system.conf.ext/#&/' /etc/dovecot/conf.d/10-auth.conf &&
		install -m 644 "$SVC/etc/dovecot.conf" /etc/dovecot/conf.d/99-brute-svc.conf &&
		printf 'alice:{PLAIN}alice-pw\nbob:{PLAIN}bob-pw\n' >/etc/dovecot/brute-svc.passwd &&
		chown root:dovecot /etc/dovecot/brute-svc.passwd &&
		chmod 640 /etc/dovecot/brute-svc.passwd || return 1
	# Mail for local users goes to Dovecot over LMTP; retries are scaled down with the rest
	# (a delivery deferred by a crash is tried again within the run).
	postconf -e inet_interfaces=all myhostname=system 'mydestination=system, localhost' \
		mailbox_transport=lmtp:unix:private/dovecot-lmtp minimal_backoff_time=2s \
		maximal_backoff_time=4s queue_run_delay=2s \
		"import_environment=$(postconf -dh import_environment) LD_PRELOAD BRUTE_FAULT BRUTE_FAULT_BUG" ||
		return 1
	systemctl daemon-reload || return 1
	# The tunables as the kernel had them (svc_tunables changes some per case).
	for f in "$BR"/*; do echo "${f##*/}=$(cat "$f")"; done >/run/brute-svc/tunables.orig
	touch /run/brute-svc/configured
}

# The SIEM (rsyslog on 127.0.0.1:6514, as the demo's) and brute-reportd forwarding to it.
svc_siem() {
	install -m 644 "$SVC/etc/rsyslog-brute-siem.conf" /etc/rsyslog.d/60-brute-siem.conf &&
		touch "$SIEM_LOG" || return 1
	[ -f /etc/brute/reportd.conf ] && [ ! -f /run/brute-svc/reportd.conf.orig ] &&
		cp -p /etc/brute/reportd.conf /run/brute-svc/reportd.conf.orig
	mkdir -p /etc/brute
	cat >/etc/brute/reportd.conf <<-CONF
	# brute-reportd.conf(5), written by tests/services/services.sh
	siem_protocol = tcp
	siem_host = 127.0.0.1
	siem_port = 6514
	siem_kinds = attack,kill,closed,ban,unban,peer_ban,peer_unban
	CONF
	chmod 644 /etc/brute/reportd.conf
	systemctl restart rsyslog.service && systemctl reload-or-restart brute-reportd.service ||
		return 1
	wait_for 30 sh -c "ss -Htln 'sport = :6514' | grep -q ." &&
		systemctl is-active --quiet brute-reportd.service
}

svc_setup() {
	svc_log "set-up"
	svc_configure || return 1
	svc_net || return 1
	svc_siem || return 1
	echo 0 >/proc/sys/debug/exception-trace 2>/dev/null # no "segfault at" line per crash
	svc_log "set-up done"
}

svc_teardown() {
	svc_log "teardown"
	for u in $SVC_UNITS; do systemctl stop $u.service 2>/dev/null; done
	systemctl stop postfix@-.service 2>/dev/null
	systemctl reset-failed 2>/dev/null
	rm -f /run/brute-fault/*.env
	postsuper -d ALL >/dev/null 2>&1
	svc_net_down
	echo flush >$SECFS/lift 2>/dev/null
	svc_tunables_restore
	if [ -f /run/brute-svc/reportd.conf.orig ]; then
		cp -p /run/brute-svc/reportd.conf.orig /etc/brute/reportd.conf
		rm -f /run/brute-svc/reportd.conf.orig
	fi
	rm -f /etc/rsyslog.d/60-brute-siem.conf
	systemctl restart rsyslog.service 2>/dev/null
	systemctl stop brute-reportd.service 2>/dev/null
	echo 1 >/proc/sys/debug/exception-trace 2>/dev/null
	return 0
}

svc_tunables() { # NAME=VALUE...
	for kv in "$@"; do
		[ -w "$BR/${kv%%=*}" ] && [ "$(cat "$BR/${kv%%=*}")" != "${kv#*=}" ] &&
			echo "${kv#*=}" >"$BR/${kv%%=*}"
	done
	return 0
}
svc_tunables_restore() {
	[ -f /run/brute-svc/tunables.orig ] || return 0
	# min_faults is bounded by the others: raise them first.
	for n in max_faults escalate_faults; do
		svc_tunables "$(grep "^$n=" /run/brute-svc/tunables.orig)"
	done
	while IFS= read -r kv; do svc_tunables "$kv"; done </run/brute-svc/tunables.orig
}

# svc_env UNIT [BRUTE_FAULT_BUG]: the preload library in UNIT with its attacker's marker
# (and an ordinary bug); the markers are per program, so that the one meant for the
# process behind a proxy passes the proxy.
svc_env() {
	case $1 in
	nginx) spec=nginx:BRUTEFAULT-NGINX ;;
	php8.2-fpm) spec=php-fpm8.2:BRUTEFAULT-PHP ;;
	apache2) spec=apache2:BRUTEFAULT-APACHE ;;
	ssh) spec=sshd:BRUTEFAULT-SSH ;;
	postfix@-) spec=smtpd:BRUTEFAULT-SMTP ;;
	dovecot) spec=imap-login:BRUTEFAULT-LOGIN,imap:BRUTEFAULT-IMAP,lmtp:BRUTEFAULT-LMTP ;;
	*) return 1 ;;
	esac
	{
		echo "LD_PRELOAD=/usr/local/lib/brute-fault.so"
		echo "BRUTE_FAULT=$spec"
		[ -n "$2" ] && echo "BRUTE_FAULT_BUG=$2"
	} >/run/brute-fault/$1.env
}

# What answers on each service's port (svcbench -R waits for an answer, too).
svc_listens() { ss -Htln "sport = :$1" | grep -q .; }
svc_ready() {
	for u in "$@"; do
		case $u in
		nginx) wait_for 60 svc_listens 8080 ;;
		php8.2-fpm) wait_for 60 test -S /run/php/php8.2-fpm-app.sock ;;
		apache2) wait_for 60 svc_listens 80 ;;
		ssh) wait_for 60 svc_listens 22 ;;
		postfix) wait_for 60 svc_listens 25 ;;
		dovecot) wait_for 60 svc_listens 143 ;;
		brute-svc-lb) wait_for 60 sh -c "ip netns exec svc-lb ss -Htln 'sport = :80' | grep -q ." ;;
		esac || return 1
	done
}

# Fresh units: restarted with their environment, failed state and restart counters reset.
svc_fresh() {
	for u in "$@"; do
		systemctl reset-failed $u.service 2>/dev/null
		[ $u = postfix ] && systemctl reset-failed postfix@-.service 2>/dev/null
	done
	systemctl restart $(for u in "$@"; do echo $u.service; done) || return 1
	svc_ready "$@"
}

# The main process's pid file of a unit.
svc_pidfile() {
	case $1 in
	nginx) echo /run/nginx.pid ;;
	php8.2-fpm) echo /run/php/php8.2-fpm.pid ;;
	apache2) echo /run/apache2/apache2.pid ;;
	ssh) echo /run/sshd.pid ;;
	postfix) echo /var/spool/postfix/pid/master.pid ;;
	dovecot) echo /run/dovecot/master.pid ;;
	esac
}
svc_unitname() { [ "$1" = postfix ] && echo postfix@-.service || echo "$1.service"; }

# The cases: the units (the first: whose processes crash), the clients, what is expected.
#   kind: direct (the attacker reaches the service), relayed (through nginx, whose workers
#         relay the request to PHP-FPM: v4 charges the origin, input=relayed), hidden (behind
#         a trusted load balancer or a relay whose input cannot be attributed: the backstop
#         bounds it), local (a local user), bug (no attacker: an ordinary bug, slowly)
#   pct:  the benign share each benign client must get
#   relays: peers that must never be banned (proxies, load balancer, health checker)
svc_define() {
	units= bug= kind= pct=99 relays= trusted= tun= benign= attack= name=$1
	dur=$SVC_D
	cli="ns=$CLI,src=$BENIGN"
	case $1 in
	nginx-one)
		units="nginx" kind=direct
		benign="-b name=benign,$cli,to=$SRV:8080,path=/ok.txt"
		attack="-a ns=$CLI,src=$ATTACKER,to=$SRV:8080,path=/ok.txt?BRUTEFAULT-NGINX"
		;;
	php-www-one | php-www-botnet | php-www-bug)
		units="php8.2-fpm nginx" kind=relayed relays=uid:33
		benign="-b name=benign,$cli,to=$SRV:8080,path=/index.php"
		attack="-a ns=$CLI,src=$ATTACKER,to=$SRV:8080,path=/index.php?BRUTEFAULT-PHP"
		if [ $1 = php-www-botnet ]; then
			pct=90 dur=$((SVC_D * 3 / 2))
			attack="-a ns=$CLI,src=$BOTNET,to=$SRV:8080,path=/index.php?BRUTEFAULT-PHP"
		elif [ $1 = php-www-bug ]; then
			kind=bug attack= bug="php-fpm8.2:index.php:2000" pct=
			dur=$((SVC_D * 5 / 2))
			tun="crash_period_threshold_ms=100 forget_time_s=12 backstop_faults=8"
			[ -n "$svc_full" ] && tun="crash_period_threshold_ms=100 forget_time_s=12"
		fi
		;;
	php-app-one)
		units="php8.2-fpm nginx" kind=relayed relays=uid:33
		benign="-b name=benign,$cli,to=$SRV:8081,path=/index.php"
		attack="-a ns=$CLI,src=$ATTACKER,to=$SRV:8081,path=/index.php?BRUTEFAULT-PHP"
		;;
	apache-one | apache-botnet)
		units="apache2" kind=direct
		benign="-b name=benign,$cli,to=$SRV:80,path=/ok.txt"
		attack="-a ns=$CLI,src=$ATTACKER,to=$SRV:80,path=/ok.txt?BRUTEFAULT-APACHE"
		if [ $1 = apache-botnet ]; then
			pct= dur=$((SVC_D * 3 / 2))
			attack="-a ns=$CLI,src=$BOTNET,to=$SRV:80,path=/ok.txt?BRUTEFAULT-APACHE"
		fi
		;;
	lb-one | lb-botnet)
		units="apache2 brute-svc-lb" kind=hidden pct=90 trusted=$LB_BACK/32
		relays="$LB_BACK/32 $HEALTH/32"
		benign="-b name=benign,$cli,to=$LB_FRONT:80,path=/ok.txt"
		benign="$benign -b name=health,ns=$LBNS,src=$HEALTH,to=$SRV_LB:80,path=/ok.txt,every=200"
		attack="-a ns=$CLI,src=$ATTACKER,to=$LB_FRONT:80,path=/ok.txt?BRUTEFAULT-APACHE"
		if [ $1 = lb-botnet ]; then
			dur=$((SVC_D * 3 / 2))
			attack="-a ns=$CLI,src=$BOTNET,to=$LB_FRONT:80,path=/ok.txt?BRUTEFAULT-APACHE"
		fi
		;;
	apache-loopback)
		units="apache2" kind=local
		benign="-b name=benign,uid=$LOCAL_BENIGN,to=127.0.0.1:80,path=/ok.txt"
		benign="$benign -b name=remote,$cli,to=$SRV:80,path=/ok.txt,every=200"
		attack="-a uid=$LOCAL_ATTACKER,to=127.0.0.1:80,path=/ok.txt?BRUTEFAULT-APACHE"
		;;
	ssh-one)
		units="ssh" kind=direct
		benign="-b name=benign,proto=ssh,$cli,to=$SRV:22,every=200"
		attack="-a proto=ssh,ns=$CLI,src=$ATTACKER,to=$SRV:22,id=SSH-2.0-BRUTEFAULT-SSH,every=100"
		;;
	smtp-one)
		units="postfix dovecot" kind=direct
		benign="-b name=benign,proto=smtp,$cli,to=$SRV:25,rcpt=alice@system,every=200"
		attack="-a proto=smtp,ns=$CLI,src=$ATTACKER,to=$SRV:25,helo=BRUTEFAULT-SMTP,rcpt=bob@system,every=100"
		;;
	lmtp-one)
		units="dovecot postfix" kind=hidden relays="uid:$(id -u postfix)"
		benign="-b name=benign,proto=smtp,$cli,to=$SRV:25,rcpt=alice@system,every=200"
		attack="-a proto=smtp,ns=$CLI,src=$ATTACKER,to=$SRV:25,rcpt=bob@system,body=BRUTEFAULT-LMTP,every=100"
		;;
	lmtp-unix)
		units="dovecot" kind=local
		benign="-b name=benign,proto=lmtp,uid=$LOCAL_BENIGN,to=/run/dovecot/lmtp,rcpt=alice,every=200"
		attack="-a proto=lmtp,uid=$LOCAL_ATTACKER,to=/run/dovecot/lmtp,helo=BRUTEFAULT-LMTP,rcpt=bob,every=100"
		;;
	imap-login-one)
		units="dovecot" kind=direct
		benign="-b name=benign,proto=imap,$cli,to=$SRV:143,user=alice,pass=alice-pw,every=200"
		attack="-a proto=imap,ns=$CLI,src=$ATTACKER,to=$SRV:143,user=BRUTEFAULT-LOGIN,pass=x,every=100"
		;;
	imap-one)
		units="dovecot" kind=hidden relays="uid:$(id -u dovenull)"
		benign="-b name=benign,proto=imap,$cli,to=$SRV:143,user=alice,pass=alice-pw,every=200"
		attack="-a proto=imap,ns=$CLI,src=$ATTACKER,to=$SRV:143,user=bob,pass=bob-pw,cmd=SELECT+BRUTEFAULT-IMAP,pipeline=1,every=100"
		;;
	*) return 1 ;;
	esac
	[ -n "$svc_full" ] && dur=$((dur * 4))
	crash=${units%% *}
	return 0
}

# Value of KEY in the case's results (the first line that has it).
svc_get() { sed -n "s/^$2=//p" "$SVC_OUT/$1.res" | head -n 1; }
# Value of KEY= in a line of svcbench's output.
svc_field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# Brute's records of the case, from what audit.log gained (ausearch is slow under TCG).
svc_records() { # OFFSET
	[ "$(wc -c <$AUDIT_LOG)" -ge "$1" ] || set -- 0
	tail -c +$(($1 + 1)) $AUDIT_LOG |
		grep -aE '^type=(UNKNOWN\[171[0-9]\]|BRUTE_[A-Z_]+) ' | sed "s/$(printf '\035').*//"
}

svc_case() {
	svc_define "$1" || { echo "SVC $1 error=unknown_case"; return 1; }
	res=$SVC_OUT/$name.res
	mkdir -p "$SVC_OUT"
	: >"$res"
	svc_log "$name: set-up"
	echo flush >$SECFS/lift 2>/dev/null
	svc_tunables_restore
	svc_tunables $tun
	rm -f /run/brute-fault/*.env
	for u in $units; do
		[ $u = brute-svc-lb ] && continue
		[ $u = postfix ] && { svc_env postfix@- || return 1; continue; }
		if [ $u = "$crash" ]; then svc_env $u "$bug"; else svc_env $u; fi
	done
	# smtp/lmtp: Postfix delivers to Dovecot; the queue starts empty.
	postsuper -d ALL >/dev/null 2>&1
	if ! out=$(svc_fresh $units 2>&1); then
		echo "SVC $name error=start $(echo $out | tr ' ' _)" | head -c 400
		echo "error=start" >>"$res"
		return 1
	fi
	trusted_status=none
	if [ -n "$trusted" ]; then
		if [ ! -e $SECFS/trusted ]; then
			trusted_status=absent
		elif printf 'flush\nadd %s\n' "$trusted" >$SECFS/trusted 2>/dev/null; then
			trusted_status=declared
		else
			trusted_status=refused
		fi
	fi
	[ -n "$trusted" ] || [ ! -w $SECFS/trusted ] || echo flush >$SECFS/trusted 2>/dev/null
	lost0=$(auditctl -s 2>/dev/null | sed -n 's/^lost //p')
	off=$(wc -c <$AUDIT_LOG)
	siem0=$(wc -l <"$SIEM_LOG")
	cur=$(journalctl -n 0 --show-cursor --no-pager 2>/dev/null | sed -n 's/^-- cursor: //p')
	ts=$(LC_ALL=C date '+%x %T')
	delivered0=$(find /home/alice/Maildir -type f -path '*/new/*' 2>/dev/null | wc -l)
	pidfile=$(svc_pidfile $crash)
	svc_log "$name: $dur s ($kind)"
	# shellcheck disable=SC2086
	out=$(svcbench -d $dur -t 2 -w "$pidfile" $benign $attack 2>&1)
	echo "$out" >"$SVC_OUT/$name.out"
	svc_log "$name: run over"
	# Deliveries deferred by a crash are retried within ~4 s (scaled backoff).
	case $units in *postfix*) sleep 5 ;; *) sleep 2 ;; esac
	{
		echo "name=$name"
		echo "kind=$kind"
		echo "duration=$dur"
		echo "trusted=$trusted_status"
		echo "$out" | awk '/^role=benign/ { for (i = 1; i <= NF; i++) {
				split($i, kv, "="); if (kv[1] == "name") n = kv[2] }
				for (i = 1; i <= NF; i++) { split($i, kv, "=")
					if (kv[1] != "role" && kv[1] != "name") print "benign_" n "_" kv[1] "=" kv[2] }
				print "benign_names_" n "=1" }
			/^role=attack/ { for (i = 1; i <= NF; i++) { split($i, kv, "=")
					if (kv[1] != "role" && kv[1] != "name") print "attack_" kv[1] "=" kv[2] } }
			/^role=watch/ { for (i = 1; i <= NF; i++) { split($i, kv, "=")
					if (kv[1] != "role") print "watch_" kv[1] "=" kv[2] } }
			/^error=/ { print }'
		echo "benign_clients=$(echo "$out" | sed -n 's/^role=benign name=\([^ ]*\).*/\1/p' | tr '\n' ' ')"
		# The units: all active, restarts, the start limit.
		states= nrestarts=0 limit=0
		for u in $units; do
			un=$(svc_unitname $u)
			wait_for 10 systemctl is-active --quiet $un
			states="$states$u:$(systemctl is-active $un 2>/dev/null),"
			nrestarts=$((nrestarts + $(systemctl show -P NRestarts $un 2>/dev/null || echo 0)))
			[ "$(systemctl show -P Result $un)" = start-limit-hit ] && limit=$((limit + 1))
		done
		echo "units=${states%,}"
		echo "unit_nrestarts=$nrestarts"
		limit=$((limit + $(journalctl --after-cursor="$cur" --no-pager -o cat 2>/dev/null |
			grep -c 'Start request repeated too quickly')))
		echo "start_limit_hits=$limit"
		# Mail: the benign messages delivered into alice's mailbox.
		if [ "$crash" = dovecot ] || [ "$crash" = postfix ]; then
			d=$(find /home/alice/Maildir -type f -path '*/new/*' 2>/dev/null | wc -l)
			echo "delivered=$((d - delivered0))"
			echo "queued=$(find /var/spool/postfix/deferred /var/spool/postfix/active \
				/var/spool/postfix/incoming -type f 2>/dev/null | wc -l)"
		fi
		# The kernel's view.
		svc_records "$off" >"$SVC_OUT/$name.records"
		r=$SVC_OUT/$name.records
		echo "k_crashes=$(grep -aE '^type=(UNKNOWN\[1712\]|BRUTE_CRASH) ' "$r" | grep -c ' sig=')"
		echo "k_faults_max=$(grep -aE '^type=(UNKNOWN\[1712\]|BRUTE_CRASH) ' "$r" |
			grep ' sig=' | sed -n 's/.* faults=\([0-9]*\) .*/\1/p' | sort -n | tail -n 1)"
		for a in peer backstop fork exec; do
			echo "k_attack_$a=$(grep -aE '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) ' "$r" |
				grep -c " attack=$a ")"
		done
		echo "k_attacks=$(grep -caE '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) ' "$r")"
		echo "k_kills=$(grep -aE '^type=(UNKNOWN\[1714\]|BRUTE_KILL) ' "$r" | grep -c ' opid=')"
		echo "k_peer_bans=$(grep -caE '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$r")"
		echo "k_banned=$(grep -aE '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$r" |
			sed -n 's/.* peer=\([^ ]*\) .*/\1/p' | sort -u | tr '\n' ' ')"
		echo "k_sources=$(grep -aE '^type=(UNKNOWN\[1712\]|BRUTE_CRASH) ' "$r" | grep ' sig=' |
			sed -n 's/.* source=\([a-z]*\).*/\1/p' | sort | uniq -c | awk '{ printf "%s%s:%s", s, $2, $1; s = "," }')"
		echo "k_inputs=$(grep -aE '^type=(UNKNOWN\[1712\]|BRUTE_CRASH) ' "$r" | grep ' sig=' |
			sed -n 's/.* input=\([a-z]*\).*/\1/p' | sort | uniq -c | awk '{ printf "%s%s:%s", s, $2, $1; s = "," }')"
		echo "k_records_dropped=$(grep -ao 'records_dropped=[0-9]*' "$r" | tail -n 1 | cut -d= -f2)"
		lost1=$(auditctl -s 2>/dev/null | sed -n 's/^lost //p')
		echo "audit_lost=$((${lost1:-0} - ${lost0:-0}))"
		# The peer table now: who is banned (ban_left_s > 0).
		echo "bans_now=$(awk '{ b = 0; p = ""; for (i = 1; i <= NF; i++) {
				if ($i ~ /^peer=/) p = substr($i, 6)
				if ($i ~ /^ban_left_s=/ && substr($i, 12) + 0 > 0) b = 1 }
				if (b) printf "%s ", p }' $SECFS/peers 2>/dev/null)"
		# Reported: every attack and peer ban record in ausearch -k brute, in the journal with
		# the unit, at the SIEM.
		na=$(grep -caE '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) ' "$r")
		np=$(grep -caE '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ' "$r")
		echo "ausearch_attacks=$(ausearch -k brute -m BRUTE_ATTACK -ts $ts --raw 2>/dev/null |
			grep -cE '^type=(UNKNOWN\[1713\]|BRUTE_ATTACK) ')"
		echo "ausearch_peer_bans=$(ausearch -k brute -m BRUTE_PEER_BAN -ts $ts --raw 2>/dev/null |
			grep -cE '^type=(UNKNOWN\[1718\]|BRUTE_PEER_BAN) ')"
		jcount() { # MESSAGE_ID: entries, entries with the crashing unit
			journalctl --after-cursor="$cur" -o json --no-pager SYSLOG_IDENTIFIER=brute-reportd \
				MESSAGE_ID=$1 2>/dev/null >"$SVC_OUT/$name.journal.$1"
			echo "$(grep -c . "$SVC_OUT/$name.journal.$1") $(grep -c "\"OBJECT_SYSTEMD_UNIT\":\"$(svc_unitname $crash)\"" "$SVC_OUT/$name.journal.$1")"
		}
		scount() { tail -n +$((siem0 + 1)) "$SIEM_LOG" | grep -c "kind=\"$1\""; }
		# (records without EOE wait for libauparse's 2 s timeout; a few seconds more under TCG)
		wait_for 15 sh -c "[ \"\$(journalctl --after-cursor='$cur' -o cat --no-pager \
			SYSLOG_IDENTIFIER=brute-reportd MESSAGE_ID=$MID_ATTACK 2>/dev/null | grep -c .)\" -ge $na ]"
		wait_for 10 sh -c "[ \"\$(tail -n +$((siem0 + 1)) $SIEM_LOG | grep -c 'kind=\"attack\"')\" -ge $na ]"
		set -- $(jcount $MID_ATTACK)
		echo "journal_attacks=$1"
		echo "journal_attacks_unit=$2"
		set -- $(jcount $MID_PEER_BAN)
		echo "journal_peer_bans=$1"
		echo "journal_peer_bans_unit=$2"
		echo "journal_units=$(cat "$SVC_OUT/$name".journal.* | grep -o '"OBJECT_SYSTEMD_UNIT":"[^"]*"' |
			cut -d'"' -f4 | sort | uniq -c | awk '{ printf "%s%s:%s", s, $2, $1; s = "," }')"
		echo "siem_attacks=$(scount attack)"
		echo "siem_peer_bans=$(scount peer_ban)"
	} >>"$res" 2>/dev/null
	svc_log "$name: figures collected"
	svc_summary "$name"
}

# One line of the case's main figures (a diagnostic; make bench's table reads the .res).
svc_summary() {
	f=$SVC_OUT/$1.res
	line="SVC $1"
	for k in $(sed -n 's/^benign_clients=//p' "$f"); do
		line="$line $k=$(svc_get "$1" benign_${k}_pct)%($(svc_get "$1" benign_${k}_answered)/$(svc_get "$1" benign_${k}_sent))"
	done
	for k in attack_crashes attack_crashes_per_addr_max attack_addrs_banned attack_addrs \
		watch_cpr_max watch_restarts watch_down_ms unit_nrestarts units start_limit_hits \
		k_crashes k_faults_max k_sources k_inputs k_attack_peer k_attack_backstop k_kills \
		k_peer_bans k_banned bans_now delivered queued trusted ausearch_attacks \
		journal_attacks journal_attacks_unit siem_attacks k_records_dropped audit_lost; do
		v=$(svc_get "$1" $k)
		[ -n "$v" ] && line="$line ${k#attack_}=$(echo "$v" | sed 's/ *$//; s/ /+/g')"
	done
	echo "# $line"
}

at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# The outcomes of response v4 for a case (issue 30, item 3).
svc_assert() {
	svc_define "$1" || return 1
	f=$SVC_OUT/$1.res
	g() { svc_get "$1" "$2"; }
	if [ ! -s "$f" ] || grep -q '^error=' "$f"; then
		not_ok "$1: the case ran" "$(cat "$f" 2>/dev/null | head -n 5)" \
			"$(tail -n 5 "$SVC_OUT/$1.out" 2>/dev/null)"
		return 0
	fi
	min=$(cat $BR/min_faults)
	backstop=$(cat $BR/backstop_faults)
	# The load balancer declared trusted (response v4's /sys/kernel/security/brute/trusted).
	if [ -n "$trusted" ]; then
		case $(g "$1" trusted) in
		declared) ok "$1: the load balancer $trusted is declared trusted" ;;
		absent) not_ok "$1: the load balancer $trusted is declared trusted" \
			"no $SECFS/trusted: this kernel has no trusted peers (response v4)" ;;
		*) not_ok "$1: the load balancer $trusted is declared trusted" \
			"writing $SECFS/trusted failed" ;;
		esac
	fi
	# The attacker: banned after at most min_faults crashes per address (where Brute can
	# see it: directly, through nginx's relay, a local user).
	case $kind in
	direct | relayed | local)
		per=$(g "$1" attack_crashes_per_addr_max)
		if [ "${per:-0}" -le "$min" ] && [ "$(g "$1" attack_addrs_banned)" -ge 1 ]; then
			ok "$1: the attacker is banned after at most $min crashes per address"
		else
			not_ok "$1: the attacker is banned after at most $min crashes per address" \
				"crashes per address (most): $per; addresses found banned: $(g "$1" attack_addrs_banned) of $(g "$1" attack_addrs); crashes seen: $(g "$1" attack_crashes)" \
				"peer bans recorded: $(g "$1" k_banned)"
		fi
		;;
	esac
	# The benign clients.
	if [ -n "$pct" ]; then
		for c in $(g "$1" benign_clients); do
			p=$(g "$1" benign_${c}_pct)
			if at_least "${p:-0}" "$pct"; then
				ok "$1: benign client '$c' answered >= $pct %"
			else
				not_ok "$1: benign client '$c' answered >= $pct %" \
					"$(g "$1" benign_${c}_answered) of $(g "$1" benign_${c}_sent) ($p %): down $(g "$1" benign_${c}_failed_down), banned $(g "$1" benign_${c}_failed_banned), other $(g "$1" benign_${c}_failed_other)"
			fi
		done
	fi
	# Mail behind the relays: the benign messages delivered.
	if [ "$1" = lmtp-one ] || [ "$1" = smtp-one ]; then
		d=$(g "$1" delivered) s=$(g "$1" benign_benign_answered)
		if [ "${s:-0}" -gt 0 ] && [ $((${d:-0} * 100)) -ge $((s * 99)) ]; then
			ok "$1: the benign messages were delivered (>= 99 %)"
		else
			not_ok "$1: the benign messages were delivered (>= 99 %)" \
				"$d of $s accepted messages in alice's mailbox; $(g "$1" queued) still queued"
		fi
	fi
	# The units: active, never on the start limit.
	if ! echo "$(g "$1" units)" | tr ',' '\n' | grep -qv ':active$'; then
		ok "$1: no unit left failed or inactive"
	else
		not_ok "$1: no unit left failed or inactive" "$(g "$1" units)" \
			"restarts by systemd: $(g "$1" unit_nrestarts); Brute kills: $(g "$1" k_kills)"
	fi
	if [ "$(g "$1" start_limit_hits)" = 0 ]; then
		ok "$1: systemd's start limit never hit"
	else
		not_ok "$1: systemd's start limit never hit" "$(g "$1" start_limit_hits) times; units $(g "$1" units)"
	fi
	# Crashes per randomization: backstop_faults, +1 for a slow backstop (response v4:
	# mitigation=restart, the kill at the next crash).
	cpr=$(g "$1" watch_cpr_max)
	kf=$(g "$1" k_faults_max)
	[ "${kf:-0}" -gt "${cpr:-0}" ] && cpr=$kf
	if [ "${cpr:-0}" -le $((backstop + 1)) ]; then
		ok "$1: at most backstop_faults (+1) crashes per randomization"
	else
		not_ok "$1: at most backstop_faults (+1) crashes per randomization" \
			"$cpr crashes of one execution of $crash (backstop_faults $backstop): $(g "$1" watch_cpr)"
	fi
	# No proxy, load balancer or health checker banned.
	if [ -n "$relays" ]; then
		bad=
		for r in $relays; do
			for b in $(g "$1" k_banned) $(g "$1" bans_now); do
				[ "$b" = "$r" ] && bad="$bad $b"
			done
		done
		hb=$(g "$1" benign_health_failed_banned)
		if [ -z "$bad" ] && [ "${hb:-0}" = 0 ]; then
			ok "$1: no proxy, load balancer or health checker banned ($relays)"
		else
			not_ok "$1: no proxy, load balancer or health checker banned ($relays)" \
				"banned:$bad; the health checker's requests refused: ${hb:-0}"
		fi
	fi
	# The ordinary bug: at most one restart per backstop_faults crashes, never an outage.
	if [ "$kind" = bug ]; then
		n=$(g "$1" k_crashes) r=$(g "$1" watch_restarts)
		if [ "${r:-0}" -le $(((${n:-0} + backstop - 1) / backstop)) ]; then
			ok "$1: the ordinary bug costs at most one restart per $backstop crashes"
		else
			not_ok "$1: the ordinary bug costs at most one restart per $backstop crashes" \
				"$r restarts for $n crashes"
		fi
		gap=$(g "$1" benign_benign_max_gap_ms)
		if [ "${gap:-999999}" -le 5000 ] && [ "$(g "$1" watch_down_ms)" -le 5000 ]; then
			ok "$1: the ordinary bug never makes an outage"
		else
			not_ok "$1: the ordinary bug never makes an outage" \
				"longest time without an answer: $gap ms; main process absent $(g "$1" watch_down_ms) ms in all"
		fi
	fi
	# Every incident reported: ausearch -k brute, the journal with the unit, the SIEM.
	na=$(g "$1" k_attacks) np=$(g "$1" k_peer_bans)
	if [ "$(g "$1" ausearch_attacks)" = "$na" ] && [ "$(g "$1" ausearch_peer_bans)" = "$np" ] &&
		[ "$(g "$1" journal_attacks)" = "$na" ] && [ "$(g "$1" journal_attacks_unit)" = "$na" ] &&
		[ "$(g "$1" journal_peer_bans)" = "$np" ] && [ "$(g "$1" siem_attacks)" = "$na" ] &&
		[ "$(g "$1" siem_peer_bans)" = "$np" ] && [ -z "$(g "$1" k_records_dropped | grep -v '^0$')" ] &&
		[ "$(g "$1" audit_lost)" = 0 ]; then
		ok "$1: every incident ($na attacks, $np peer bans) in ausearch -k brute, the journal with its unit, the SIEM; none lost"
	else
		not_ok "$1: every incident in ausearch -k brute, the journal with its unit, the SIEM; none lost" \
			"attack records $na: ausearch $(g "$1" ausearch_attacks), journal $(g "$1" journal_attacks) ($(g "$1" journal_attacks_unit) with unit $(svc_unitname $crash); units named: $(g "$1" journal_units)), SIEM $(g "$1" siem_attacks)" \
			"peer ban records $np: ausearch $(g "$1" ausearch_peer_bans), journal $(g "$1" journal_peer_bans), SIEM $(g "$1" siem_peer_bans)" \
			"records dropped: $(g "$1" k_records_dropped); audit lost: $(g "$1" audit_lost)"
	fi
}
