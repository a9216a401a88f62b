#!/bin/sh
# The brute-reportd Debian package as the rig installs it (dpkg -i of the data disk's .deb in
# system-run, no make install): installed, every file as packaged (dpkg --verify), the /etc
# files are conffiles, the unit enabled and started by the package's postinst, the journal
# catalog indexed by systemd's dpkg trigger (nobody ran journalctl --update-catalog), the
# rules loaded by augenrules.
. "$RIG/tap.sh"

MID_ATTACK=72daa15b2f794fafa7bedff6fcaee907
if ! ls /data/debs/brute-reportd_*.deb >/dev/null 2>&1; then
	skip "brute-reportd package" "no .deb on the data disk (BRUTE_SYSTEM_INSTALL=make)"
	exit 0
fi
deb=$(ls /data/debs/brute-reportd_*.deb | head -n 1)
want=$(dpkg-deb -f "$deb" Version)
status=$(dpkg-query -W -f '${Status} ${Version}' brute-reportd 2>&1)
if [ "$status" = "install ok installed $want" ]; then
	ok "dpkg -i installed brute-reportd $want"
else
	not_ok "dpkg -i installed brute-reportd $want" "dpkg-query: $status"
fi
check "dpkg --verify brute-reportd: every file as packaged" sh -c '
	out=$(dpkg --verify brute-reportd 2>&1); [ -z "$out" ] || { echo "$out"; exit 1; }'
conffiles=$(dpkg-query -W -f '${Conffiles}\n' brute-reportd | awk 'NF { print $1 }' | sort | tr '\n' ' ')
# (the trusted peers' file comes with brutectl, which the package ships)
if [ "$conffiles" = "/etc/audit/plugins.d/brute-reportd.conf /etc/brute/70-brute.rules /etc/brute/reportd.conf /etc/brute/trusted-peers.conf " ]; then
	ok "conffiles: reportd.conf, the plugin configuration, the rules, the trusted peers"
else
	not_ok "conffiles: reportd.conf, the plugin configuration, the rules, the trusted peers" "got: $conffiles"
fi
[ "$(readlink /etc/audit/rules.d/70-brute.rules)" = ../../brute/70-brute.rules ] &&
	ok "the rules are active through /etc/audit/rules.d/70-brute.rules -> ../../brute/70-brute.rules" ||
	not_ok "the rules' link in /etc/audit/rules.d" "$(ls -l /etc/audit/rules.d/ 2>&1)"
for f in /usr/sbin/brute-reportd /lib/systemd/system/brute-reportd.service \
	/usr/lib/systemd/catalog/brute-reportd.catalog /usr/share/man/man8/brute-reportd.8.gz; do
	[ -f "$f" ] || not_ok "packaged file $f present"
done
perm=$(stat -c '%a %U' /etc/brute/reportd.conf)
if [ -e /proc/sys/kernel/brute/backstop_hold_s ]; then
	hold=$(cat /proc/sys/kernel/brute/backstop_hold_s)
	[ "$hold" = 10 ] && [ -f /usr/lib/sysctl.d/brute-reportd.conf ] &&
		ok "the package's sysctl.d file applied: kernel.brute.backstop_hold_s = 10" ||
		not_ok "the package's sysctl.d file applied" "backstop_hold_s: $hold" "$(ls -l /usr/lib/sysctl.d/ 2>&1)"
fi
[ "$perm" = "600 root" ] && ok "reportd.conf mode 600, owner root" ||
	not_ok "reportd.conf mode 600, owner root" "got: $perm"

enabled=$(systemctl is-enabled brute-reportd.service 2>&1)
[ "$enabled" = enabled ] && ok "the package enabled brute-reportd.service" ||
	not_ok "the package enabled brute-reportd.service" "is-enabled: $enabled"
# postinst started it (deb-systemd-invoke start waits for READY=1, Type=notify): system-run
# noted the unit's state right after dpkg -i, before stopping it for the tests.
started=$(cat /run/rig-package-active 2>&1)
if [ "$started" = active ] &&
	journalctl -b -u brute-reportd.service -o cat --no-pager | grep -q '^Started brute-reportd.service'; then
	ok "the package started brute-reportd.service (active after dpkg -i, READY)"
else
	not_ok "the package started brute-reportd.service" "after dpkg -i: $started" \
		"$(journalctl -b -u brute-reportd.service -o cat --no-pager | tail -n 8)"
fi
if journalctl --list-catalog 2>/dev/null | grep -q "^$MID_ATTACK "; then
	ok "journal catalog indexed by the systemd dpkg trigger"
else
	not_ok "journal catalog indexed by the systemd dpkg trigger" \
		"journalctl --list-catalog has no $MID_ATTACK"
fi
n=$(auditctl -l 2>/dev/null | grep -c 'key=brute')
[ "$n" -gt 0 ] && ok "the packaged rules are loaded (augenrules): $n rules keyed brute" ||
	not_ok "the packaged rules are loaded (augenrules)" "$(auditctl -l 2>&1 | head -n 5)"

