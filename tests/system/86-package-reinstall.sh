#!/bin/sh
# issue 22 #10: the package installed again after `dpkg --remove` (85-package-remove) brings the
# rules back, with the administrator's change to /etc/brute/70-brute.rules (kept while
# removed), loaded by the postinst.  And that postinst starts the daemon on a kernel without
# Brute (the unit given a LSM list without it): the start succeeds and the daemon says so,
# once, clearly.
. "$RIG/tap.sh"

LINK=/etc/audit/rules.d/70-brute.rules
RULES=/etc/brute/70-brute.rules
status=$(dpkg-query -W -f '${db:Status-Abbrev}' brute-reportd 2>/dev/null)
case $status in "rc "*) ;; *)
	skip "dpkg -i after dpkg --remove" "brute-reportd is not removed-with-its-configuration ($status)"
	exit 0 ;;
esac
deb=$(ls /data/debs/brute-reportd_*.deb | head -n 1)
n_rules() { auditctl -l 2>/dev/null | grep -c 'key=brute'; }
invocation() { systemctl show -p InvocationID --value brute-reportd; }
run_log() { journalctl -u brute-reportd -o cat --no-pager _SYSTEMD_INVOCATION_ID="$(invocation)" 2>/dev/null; }
said() { run_log | grep -c 'Brute is not active in this kernel'; }

# --- install again, on a kernel without Brute as the unit sees it ------------------------
echo '-w /etc/brute/ -p wa -k brute' >>$RULES	# the administrator's change: kept, loaded
echo "capability,landlock,yama,apparmor" >/run/nobrute-lsm
mkdir -p /run/systemd/system/brute-reportd.service.d
printf '[Service]\nBindReadOnlyPaths=/run/nobrute-lsm:/sys/kernel/security/lsm\n' \
	>/run/systemd/system/brute-reportd.service.d/nobrute.conf
out=$(dpkg -i "$deb" 2>&1)
rc=$?
[ $rc = 0 ] && ok "dpkg -i again: exit 0" || not_ok "dpkg -i again" "exit $rc" "$out"
[ -L $LINK ] && ok "the link is back" || not_ok "the link is back" "$(ls -l $LINK 2>&1)"
if [ "$(n_rules)" -gt 0 ] && auditctl -l | grep -Eq -- '-w /etc/brute/? -p wa -k brute'; then
	ok "the postinst loaded the rules, the administrator's line included ($(n_rules) keyed brute)"
else
	not_ok "the postinst loaded the rules, the administrator's line included" "$(auditctl -l 2>&1 | tail -n 4)"
fi
grep -q '^-w /etc/brute/ -p wa -k brute$' $RULES && ok "$RULES kept the administrator's change" ||
	not_ok "$RULES kept the administrator's change" "$(tail -n 2 $RULES)"
if [ "$(systemctl is-active brute-reportd)" = active ] && wait_for 10 sh -c '[ "$(journalctl -u brute-reportd -o cat --no-pager _SYSTEMD_INVOCATION_ID=$(systemctl show -p InvocationID --value brute-reportd) | grep -c "Brute is not active in this kernel")" -ge 1 ]'; then
	sleep 1
	line=$(run_log | grep 'Brute is not active in this kernel')
	[ "$(said)" = 1 ] && ok "no Brute: the postinst's start succeeded, the daemon said so once: $line" ||
		not_ok "no Brute: said once" "$(run_log)"
else
	not_ok "no Brute: the postinst started the daemon, which says Brute is not active" \
		"$(systemctl is-active brute-reportd)" "$(run_log | tail -n 5)"
fi
st=$(systemctl show -p StatusText --value brute-reportd)
case $st in "brute absent, "*) ok "STATUS=: $st" ;; *) not_ok "STATUS= says brute absent" "$st" ;; esac
out=$(brutectl status 2>&1)
rc=$?
[ $rc = 0 ] && echo "$out" | grep -q '^host: *protected$' &&
	ok "brutectl status (the kernel's own view: Brute is there): exit 0" ||
	not_ok "brutectl status: exit 0" "exit $rc" "$out"

# back to normal for the next scripts
rm -rf /run/systemd/system/brute-reportd.service.d /run/nobrute-lsm
systemctl daemon-reload
systemctl stop brute-reportd.service
exit 0
