#!/bin/sh
# Brute under systemd: a set-user-ID service of user 1000 that crash-loops, restarted by
# systemd, is an exec attack by user 1000 on that program (each restart is a new image that
# crashes once).  It is detected per (user, target), user 1000 is banned from the program,
# and nothing of init's hierarchy is killed: the processes that start services are init's
# (the v6 series counted such crashes in init's statistics and tried to kill init; our v1
# never charged init's hierarchy and so never saw the attack).
. "$RIG/tap.sh"

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled"
	exit 0
fi
install -m 4755 -o root "$SELFTESTS/crasher" /usr/local/bin/brute-crasher-suid
echo flush >/sys/kernel/security/brute/lift

recs() { ausearch --raw -m "$1" 2>/dev/null | grep -E "^type=(UNKNOWN\[$1\]|BRUTE_[A-Z]*) "; }
kills0=$(recs 1714 | wc -l)

systemd-run --quiet --unit=brute-crashloop -p User=1000 -p Restart=always \
	-p RestartSec=50ms -p StartLimitIntervalSec=0 \
	/usr/local/bin/brute-crasher-suid segv
# Until the ban, then a few refused restarts.
wait_for 60 sh -c "ausearch --raw -m 1716 2>/dev/null | grep -q 'target_name=\"brute-crasher-suid\"'"
sleep 1
refused=$(journalctl -u brute-crashloop.service -o cat --no-pager 2>/dev/null |
	grep -c 'Operation not permitted')
systemctl stop brute-crashloop.service
restarts=$(systemctl show -p NRestarts --value brute-crashloop.service 2>/dev/null)
own=$(recs 1712 | grep 'comm="brute-crasher-s"' | awk '{
	h = o = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^brute_hierarchy=/) h = substr($i, 17)
		if ($i ~ /^origin=/) o = substr($i, 8)
	}
	if (h == o) n++
} END { print n + 0 }')
attack=$(recs 1713 | grep 'attack=exec attacker_uid=1000 ' | grep 'exe="/usr/local/bin/brute-crasher-suid"' | tail -n 1)
diag "restarts $restarts, crashes $own, refused starts $refused"
if echo "$attack" | grep -q 'mitigation=ban'; then
	ok "crash-looping set-user-ID service: exec attack by uid 1000 detected, mitigation=ban"
else
	not_ok "crash-looping set-user-ID service: exec attack by uid 1000 detected, mitigation=ban" \
		"$(recs 1713 | tail -n 2)"
fi
if [ "$own" = 5 ] && [ "$refused" -ge 1 ]; then
	ok "the ban stopped the loop: 5 crashes, then systemd's starts refused with EPERM"
else
	not_ok "the ban stopped the loop: 5 crashes, then systemd's starts refused with EPERM" \
		"crashes $own, refused $refused" \
		"$(journalctl -u brute-crashloop.service -o cat --no-pager | tail -n 3)"
fi
if [ "$(recs 1714 | wc -l)" = "$kills0" ]; then
	ok "nothing killed: init's hierarchy starts services, it is never the attacker"
else
	not_ok "nothing killed: init's hierarchy starts services, it is never the attacker" \
		"$(recs 1714 | tail -n 3)"
fi
if [ "$(ps -o comm= -p 1)" = systemd ] && systemctl show -p Id --value init.scope >/dev/null; then
	ok "pid 1 is still systemd, and answers"
else
	not_ok "pid 1 is still systemd, and answers"
fi
systemctl reset-failed brute-crashloop.service 2>/dev/null
echo flush >/sys/kernel/security/brute/lift
exit 0
