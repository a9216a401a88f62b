#!/bin/sh
# issue 22 #10: `dpkg --remove brute-reportd` (what `apt remove` does) takes Brute's audit rules
# out: the link /etc/audit/rules.d/70-brute.rules goes with the package, and the postrm reloads
# the rule set, so nothing keeps auditing every set*id system call for a package that is gone;
# the rules stay, as the conffile /etc/brute/70-brute.rules, until purge (86-package-reinstall
# installs the package again).
. "$RIG/tap.sh"

LINK=/etc/audit/rules.d/70-brute.rules
RULES=/etc/brute/70-brute.rules
if ! dpkg-query -W brute-reportd >/dev/null 2>&1; then
	skip "dpkg --remove brute-reportd" "not installed as a package (BRUTE_SYSTEM_INSTALL=make)"
	exit 0
fi
n_rules() { auditctl -l 2>/dev/null | grep -c 'key=brute'; }

[ "$(n_rules)" -gt 0 ] && [ -L $LINK ] && ok "before: $(n_rules) rules keyed brute loaded, $LINK -> $(readlink $LINK)" ||
	not_ok "before: the rules loaded through the link" "$(auditctl -l 2>&1 | head -n 3)" "$(ls -l $LINK 2>&1)"

# --- remove ------------------------------------------------------------------------------
# As the package left it: enabled (30-reportd disabled it; a unit the administrator disabled
# is, rightly, not started again by the postinst of 86-package-reinstall) and running.
systemctl enable --no-reload brute-reportd.service 2>/dev/null
systemctl start brute-reportd.service 2>/dev/null
check "dpkg --remove brute-reportd" dpkg --remove brute-reportd
status=$(dpkg-query -W -f '${db:Status-Abbrev}' brute-reportd 2>/dev/null)
case $status in "rc "*) ok "removed, configuration kept (dpkg status rc)" ;;
*) not_ok "removed, configuration kept (dpkg status rc)" "status: $status" ;; esac
[ ! -e $LINK ] && [ ! -L $LINK ] && ok "the link $LINK is gone" || not_ok "the link $LINK is gone" "$(ls -l $LINK)"
if [ -e /proc/sys/kernel/brute/backstop_hold_s ]; then
	hold=$(cat /proc/sys/kernel/brute/backstop_hold_s)
	[ "$hold" = 0 ] && [ ! -e /usr/lib/sysctl.d/brute-reportd.conf ] &&
		ok "nothing restarts a held service any more: backstop_hold_s back to 0, the sysctl.d file gone" ||
		not_ok "backstop_hold_s back to 0 at removal" "backstop_hold_s: $hold" "$(ls -l /usr/lib/sysctl.d/ 2>&1)"
fi
[ -f $RULES ] && [ -f /etc/brute/reportd.conf ] && ok "$RULES and reportd.conf stay until purge" ||
	not_ok "$RULES and reportd.conf stay until purge" "$(ls -l /etc/brute 2>&1)"
if [ "$(n_rules)" = 0 ]; then
	ok "no rule keyed brute is loaded any more (postrm reloaded the rule set)"
else
	not_ok "no rule keyed brute is loaded any more" "$(auditctl -l 2>&1 | grep brute | head -n 3)"
fi
out=$(augenrules --check 2>&1)
case $out in *"changed"*) not_ok "augenrules --check: the loaded set is what rules.d says" "$out" ;;
*) ok "augenrules --check: the loaded set is what rules.d says" ;; esac
pgrep -x brute-reportd >/dev/null && not_ok "brute-reportd stopped" "$(ps -o pid,args -C brute-reportd)" ||
	ok "brute-reportd stopped"
exit 0
