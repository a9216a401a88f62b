#!/bin/sh
# rig.timeout: 1800
# Real services under Brute (issue 30, tests/services/services.sh), make check's short form:
# nginx and PHP-FPM: nginx's workers attacked directly; PHP-FPM's pools behind nginx (www:
# Debian's default, www-data like nginx; app: a user of its own) attacked through it by one
# address and by a botnet of 256 /24s; an ordinary bug in the www pool at a slow pace.  Apache
# with mpm_prefork: attacked directly by one address and by the botnet, through a load balancer
# (nginx in another network namespace, declared trusted) while a health checker probes it, and
# the same behind HAProxy (which retries a connection Apache refused), and by a local user over
# loopback TCP.  (make bench adds the botnet through each load balancer.)
# Each case restarts its units with the preload library's bug, runs benign clients and the
# attacker for a few seconds (svcbench) and asserts what response v4 promises (svc_assert):
# the attacker banned after at most min_faults crashes per address where Brute can see it,
# the benign clients answered (>= 99 %, >= 90 % for a botnet or behind a load balancer), no
# unit left failed or inactive and never on systemd's start limit, at most backstop_faults
# (+1) crashes per randomization, no proxy, load balancer or health checker banned, the
# ordinary bug at most one restart per backstop_faults crashes and no outage, every incident
# in the journal (with the unit) and the SIEM, and in ausearch -k brute (once, for all cases).  The figures of each case are
# a "# SVC NAME ..." diagnostic; make bench runs the same cases longer (tests/bench/services.py).
. "$RIG/tap.sh"
SVC=${RIG%/rig}/services
. "$SVC/services.sh"

# make check: one case of each shape (a proxy's relay, the ordinary bug, direct, the trusted
# load balancers, a local user), within make check's time; make bench: every case.
cases="php-www-one php-www-bug apache-one lb-one haproxy-one apache-loopback"
[ -n "$svc_full" ] && cases="nginx-one php-www-one php-app-one php-www-botnet php-www-bug apache-one apache-botnet lb-one haproxy-one apache-loopback lb-botnet haproxy-botnet"
svc_script $cases
exit 0
