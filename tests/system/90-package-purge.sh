#!/bin/sh
# Last: dpkg --purge brute-reportd leaves nothing behind: the daemon stopped, the unit gone
# and no longer enabled, no file of the package, no /etc/brute (the rules' conffile with it),
# no spool (/var/lib/brute-reportd), no audit rule keyed brute loaded, the catalog entries
# gone from the index (systemd's trigger).
. "$RIG/tap.sh"

MID_ATTACK=72daa15b2f794fafa7bedff6fcaee907
if ! dpkg-query -W brute-reportd >/dev/null 2>&1; then
	skip "dpkg --purge brute-reportd" "not installed as a package (BRUTE_SYSTEM_INSTALL=make)"
	exit 0
fi
files=$(dpkg -L brute-reportd | while read -r f; do [ -f "$f" ] && echo "$f"; done)
# running now or not (40-demo leaves it running), the purge must stop it
systemctl start brute-reportd.service 2>/dev/null
# its StateDirectory= exists now, so that the purge has a spool to remove
[ -d /var/lib/brute-reportd ] && ok "spool /var/lib/brute-reportd present before the purge" ||
	not_ok "spool /var/lib/brute-reportd present before the purge"
check "dpkg --purge brute-reportd" dpkg --purge brute-reportd
status=$(dpkg-query -W -f '${db:Status-Abbrev}' brute-reportd 2>/dev/null)
case $status in "" | "pn "*) ok "dpkg: brute-reportd not installed, no conffiles left" ;;
*) not_ok "dpkg: brute-reportd not installed, no conffiles left" "status: $status" ;; esac
left=
for f in $files /etc/brute /var/lib/brute-reportd \
	/etc/systemd/system/multi-user.target.wants/brute-reportd.service; do
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done
[ -z "$left" ] && ok "no file left ($(echo "$files" | wc -l) packaged files, /etc/brute, spool, unit link)" ||
	not_ok "no file left" "left:$left"
if auditctl -l 2>/dev/null | grep -q 'key=brute'; then
	not_ok "no audit rule keyed brute loaded" "$(auditctl -l | grep brute | head -n 3)"
else
	ok "no audit rule keyed brute loaded"
fi
if pgrep -x brute-reportd >/dev/null; then
	not_ok "brute-reportd stopped" "$(ps -o pid,args -C brute-reportd)"
else
	ok "brute-reportd stopped"
fi
load=$(systemctl show -p LoadState --value brute-reportd.service)
[ "$load" = not-found ] && ok "systemd no longer knows brute-reportd.service" ||
	not_ok "systemd no longer knows brute-reportd.service" "LoadState=$load"
if journalctl --list-catalog 2>/dev/null | grep -q "^$MID_ATTACK "; then
	not_ok "catalog entries removed from the index (trigger)" "$MID_ATTACK still listed"
else
	ok "catalog entries removed from the index (trigger)"
fi
