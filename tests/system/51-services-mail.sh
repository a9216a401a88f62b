#!/bin/sh
# rig.timeout: 1200
# Real services under Brute (issue 30, tests/services/services.sh), make check's short form:
# Postfix and Dovecot: smtpd attacked directly; Dovecot's LMTP behind Postfix (a relay of its
# own uid) and over its Unix socket by a local user; imap-login attacked directly; imap behind
# its login process (the hand-off from dovenull).  OpenSSH: the per-connection sshd
# (executed again for each connection, as root) attacked by one address.
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

# make check: Dovecot behind Postfix and a local user on its Unix socket; make bench: every case.
cases="lmtp-one lmtp-unix"
[ -n "$svc_full" ] && cases="smtp-one lmtp-one lmtp-unix imap-login-one imap-one ssh-one"
svc_script $cases
exit 0
