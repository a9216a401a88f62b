#!/bin/sh
# Brute under systemd: a crash-looping set-user-ID service restarted by
# systemd is judged on its own hierarchies, never charged to init's (the v6
# series counted such crashes in init's statistics and tried to kill init).
. "$RIG/tap.sh"

if [ ! -d /proc/sys/kernel/brute ]; then
	not_ok "brute is enabled"
	exit 0
fi
install -m 4755 -o root "$SELFTESTS/crasher" /usr/local/bin/brute-crasher-suid

# Raw records of a type (ausearch -m returns whole events): by number (stock auditd) or name.
name_of() { case $1 in 1712) echo BRUTE_CRASH ;; 1713) echo BRUTE_ATTACK ;; esac; }
recs() { ausearch --raw -m "$1" 2>/dev/null | grep -E "^type=(UNKNOWN\[$1\]|$(name_of "$1")) "; }

systemd-run --quiet --unit=brute-crashloop -p User=1000 -p Restart=always \
	-p RestartSec=50ms -p StartLimitIntervalSec=0 \
	/usr/local/bin/brute-crasher-suid segv
# Let it crash and restart at least eight times.
wait_for 40 sh -c "[ \$(ausearch --raw -m 1712 2>/dev/null | grep -c 'brute-crasher-s') -ge 8 ]"
systemctl stop brute-crashloop.service
restarts=$(systemctl show -p NRestarts --value brute-crashloop.service 2>/dev/null)
crashes=$(recs 1712 | grep -c 'comm="brute-crasher-s"')
charged=$(recs 1712 | grep 'comm="brute-crasher-s"' | awk '{
	h = o = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^brute_hierarchy=/) h = substr($i, 17)
		if ($i ~ /^origin=/) o = substr($i, 8)
	}
	if (h != o) n++
} END { print n + 0 }')
diag "restarts $restarts, crash records $crashes, charged to a parent $charged"
if [ "$crashes" -ge 8 ] && [ "$charged" = 0 ]; then
	ok "crash-looping service: $crashes crashes counted, none charged to init's hierarchy"
else
	not_ok "crash-looping service: crashes counted, none charged to init's hierarchy" \
		"$(recs 1712 | tail -n 3)"
fi
if recs 1713 | grep -q 'attack=exec'; then
	not_ok "no exec attack detected on init's hierarchy" "$(recs 1713 | tail -n 2)"
else
	ok "no exec attack detected on init's hierarchy"
fi
if [ "$(ps -o comm= -p 1)" = systemd ]; then
	ok "pid 1 is still systemd"
else
	not_ok "pid 1 is still systemd"
fi
systemctl reset-failed brute-crashloop.service 2>/dev/null
exit 0
