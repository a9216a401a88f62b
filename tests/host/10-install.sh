#!/bin/bash
# make install / make uninstall into a DESTDIR: no package is ever installed (apt-get,
# dpkg-query, the deps target), an edited configuration survives a reinstall (the new default
# beside it as .default), uninstall removes everything but edited configuration, and
# PURGE=yes that too; the installed daemon and man pages carry the tree's version and date.
. "$(dirname "$0")/lib.bash"
set -u
D=$(mktemp -d)
S=$(mktemp -d)    # sentinel package tools: any call is recorded
trap 'rm -rf "$D" "$S"' EXIT
for t in apt-get apt dpkg-query dpkg aptitude; do
	printf '#!/bin/sh\necho "%s $*" >>%s/called\nexit 1\n' "$t" "$S" >"$S/$t"
	chmod +x "$S/$t"
done
inst() { PATH="$S:$PATH" make -s -C "$top" "$@" DESTDIR="$D" PREFIX=/usr 2>&1; }

if out=$(inst install); then ok "make install DESTDIR"; else not_ok "make install DESTDIR" "$out"; exit 0; fi
same "make install ran no package tool (apt-get, dpkg-query...)" "" "$(cat "$S/called" 2>/dev/null)"

files=(usr/sbin/brute-reportd usr/lib/systemd/system/brute-reportd.service
	usr/lib/systemd/catalog/brute-reportd.catalog usr/share/man/man8/brute-reportd.8
	usr/share/man/man5/brute-reportd.conf.5 etc/brute/reportd.conf
	etc/audit/plugins.d/brute-reportd.conf etc/audit/rules.d/70-brute.rules
	usr/libexec/brute/brute-peer-nft usr/lib/systemd/system/brute-peer-nft@.service
	usr/lib/sysctl.d/brute-reportd.conf)
# brutectl's (tools/brutectl): the unit that loads the trusted peers, and their file
[ -f "$top/tools/brutectl/Makefile" ] && files+=(usr/sbin/brutectl usr/share/man/man8/brutectl.8
	usr/lib/systemd/system/brute-trusted-peers.service etc/brute/trusted-peers.conf)
missing=
for f in "${files[@]}"; do [ -f "$D/$f" ] || missing="$missing $f"; done
same "every file installed" "" "$missing"
same "modes: reportd.conf 600, plugin 640, rules 640, daemon 755" "600 640 640 755" \
	"$(stat -c %a "$D/etc/brute/reportd.conf" "$D/etc/audit/plugins.d/brute-reportd.conf" \
		"$D/etc/audit/rules.d/70-brute.rules" "$D/usr/sbin/brute-reportd" | xargs)"
version=$("$top/scripts/version.sh")
day=$(date -u -d "@$("$top/scripts/version.sh" --date)" +%Y-%m-%d)
same "brute-reportd --version is the tree's version" "brute-reportd $version" \
	"$("$D/usr/sbin/brute-reportd" --version 2>&1)"
same "man pages: .TH date and version from the tree" \
	".TH BRUTE-REPORTD 8 \"$day\" \"brute $version\" | .TH BRUTE-REPORTD.CONF 5 \"$day\" \"brute $version\"" \
	"$(grep -h '^\.TH' "$D/usr/share/man/man8/brute-reportd.8" | cut -d'"' -f1-4)\" | $(grep -h '^\.TH' "$D/usr/share/man/man5/brute-reportd.conf.5" | cut -d'"' -f1-4)\""
same "unit's ExecStart is the installed daemon" "ExecStart=/usr/sbin/brute-reportd" \
	"$(grep '^ExecStart=' "$D/usr/lib/systemd/system/brute-reportd.service")"
[ -f "$top/tools/brutectl/Makefile" ] &&
	same "brute-trusted-peers.service loads the trusted peers with the installed brutectl" \
		"ExecStart=/usr/sbin/brutectl trust load" \
		"$(grep '^ExecStart=' "$D/usr/lib/systemd/system/brute-trusted-peers.service")"

# An operator edits the configuration and the rules, then installs again (twice).
echo "siem_protocol = tcp   # edited" >>"$D/etc/brute/reportd.conf"
echo "## edited" >>"$D/etc/audit/rules.d/70-brute.rules"
cp "$D/etc/brute/reportd.conf" "$S/conf.edited"
cp "$D/etc/audit/rules.d/70-brute.rules" "$S/rules.edited"
echo "# stale" >"$D/usr/sbin/brute-reportd"
for i in 1 2; do
	out=$(inst install) || not_ok "make install again ($i)" "$out"
done
if cmp -s "$S/conf.edited" "$D/etc/brute/reportd.conf" && cmp -s "$S/rules.edited" "$D/etc/audit/rules.d/70-brute.rules"; then
	ok "reinstall keeps the edited reportd.conf and 70-brute.rules"
else
	not_ok "reinstall keeps the edited reportd.conf and 70-brute.rules" "$(diff "$S/conf.edited" "$D/etc/brute/reportd.conf")"
fi
if cmp -s "$top/etc/brute/reportd.conf" "$D/etc/brute/reportd.conf.default" &&
	cmp -s "$top/rules/70-brute.rules" "$D/etc/audit/rules.d/70-brute.rules.default"; then
	ok "the new defaults are installed beside them as .default"
else
	not_ok "the new defaults are installed beside them as .default" "$(ls -la "$D/etc/brute" "$D/etc/audit/rules.d")"
fi
same "an unedited configuration file gets no .default" "" "$(ls "$D/etc/audit/plugins.d/" | grep default)"
same "install note names the kept file" 1 "$(inst install | grep -c 'kept your .*/etc/brute/reportd.conf')"
same "program files are replaced" "brute-reportd $version" "$("$D/usr/sbin/brute-reportd" --version 2>&1)"
same "reinstalls ran no package tool" "" "$(cat "$S/called" 2>/dev/null)"

out=$(inst uninstall) || not_ok "make uninstall" "$out"
same "make uninstall leaves only the edited configuration" \
	"etc/audit/rules.d/70-brute.rules etc/brute/reportd.conf" \
	"$(cd "$D" && find . -type f -o -type l | sed 's|^\./||' | sort | xargs)"
out=$(inst uninstall PURGE=yes) || not_ok "make uninstall PURGE=yes" "$out"
same "make uninstall PURGE=yes leaves no file, no /etc/brute" "" \
	"$(cd "$D" && find . -type f -o -type l -o -path ./etc/brute | sort | xargs)"
