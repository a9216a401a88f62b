#!/bin/bash
# The brute-reportd Debian package (scripts/pkg.sh: dpkg-buildpackage from `make dist`'s
# tarball): builds, is lintian clean (pedantic and info tags included, overrides in
# debian/brute-reportd.lintian-overrides), carries the tree's version, the expected files with
# the /etc ones as conffiles, a hardened binary, and maintainer scripts that enable and start
# the unit the Debian way (dh_installsystemd). The system guest installs it (10-package) and
# purges it (90-package-purge).
. "$(dirname "$0")/lib.bash"
set -u
. "$top/scripts/common.sh"   # $rig
version=$("$top/scripts/version.sh")
start=$(date +%s)
if ! deb=$("$top/scripts/pkg.sh" 2>"$rig/pkg.err"); then
	not_ok "scripts/pkg.sh builds the package" "$(tail -n 5 "$rig/pkg.err")" \
		"$(tail -n 30 "$rig/pkg/build.log" 2>/dev/null)"
	exit 0
fi
ok "scripts/pkg.sh builds the package"
diag "$(cat "$rig/pkg.err") (this run: $(($(date +%s) - start)) s)"
same "package version is the tree's" "$version" "$(dpkg-deb -f "$deb" Version)"

changes=${deb%/*}/brute_${version}_$(dpkg --print-architecture).changes
lintian --pedantic --info --fail-on error,warning,info,pedantic "$changes" >"$rig/lintian.out" 2>&1
rc=$?
out=$(grep -v 'running with root privileges' "$rig/lintian.out")
if [ "$rc" = 0 ] && [ -z "$out" ]; then ok "lintian clean (--pedantic --info)"; else not_ok "lintian clean (--pedantic --info)" "exit $rc" "$out"; fi

files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort | xargs)
want="/etc/audit/plugins.d/brute-reportd.conf /etc/audit/rules.d/70-brute.rules /etc/brute/70-brute.rules /etc/brute/reportd.conf /lib/systemd/system/brute-peer-nft@.service /lib/systemd/system/brute-reportd.service /usr/lib/systemd/catalog/brute-reportd.catalog /usr/lib/sysctl.d/brute-reportd.conf /usr/libexec/brute/brute-peer-nft /usr/sbin/brute-reportd"
# brutectl (tools/brutectl) goes into the package when the tree has it, with the unit that
# loads the trusted peers at boot and their file (a conffile)
[ -f "$top/tools/brutectl/Makefile" ] && want="$want /usr/sbin/brutectl /etc/brute/trusted-peers.conf /lib/systemd/system/brute-trusted-peers.service"
want="$want /usr/share/doc/brute-reportd/changelog.gz /usr/share/doc/brute-reportd/copyright /usr/share/lintian/overrides/brute-reportd /usr/share/man/man5/brute-reportd.conf.5.gz /usr/share/man/man8/brute-reportd.8.gz"
[ -f "$top/tools/brutectl/Makefile" ] && want="$want /usr/share/man/man8/brutectl.8.gz"
same "package files" "$(printf '%s\n' $want | sort | xargs)" "$files"
C=$(mktemp -d)
trap 'rm -rf "$C"' EXIT
dpkg-deb -R "$deb" "$C/root"
conffiles="/etc/audit/plugins.d/brute-reportd.conf /etc/brute/70-brute.rules /etc/brute/reportd.conf"
[ -f "$top/tools/brutectl/Makefile" ] && conffiles="$conffiles /etc/brute/trusted-peers.conf"
same "conffiles" "$conffiles" "$(sort "$C/root/DEBIAN/conffiles" | xargs)"
# issue 22 #10: the rules are active through a link that is a plain package file (removed
# with the package); their content is the conffile /etc/brute/70-brute.rules (kept until purge)
same "/etc/audit/rules.d/70-brute.rules is a link to the conffile /etc/brute/70-brute.rules" \
	"../../brute/70-brute.rules" "$(readlink "$C/root/etc/audit/rules.d/70-brute.rules")"
same "the rules are the tree's" "" "$(cmp "$top/rules/70-brute.rules" "$C/root/etc/brute/70-brute.rules" 2>&1)"
same "reportd.conf root-only (0600)" "-rw-------" "$(dpkg-deb -c "$deb" | awk '$6 == "./etc/brute/reportd.conf" { print $1 }')"
same "the daemon reports the package version" "brute-reportd $version" "$("$C/root/usr/sbin/brute-reportd" --version 2>&1)"
dyn=$(readelf -W -d "$C/root/usr/sbin/brute-reportd")
syms=$(readelf -W --dyn-syms "$C/root/usr/sbin/brute-reportd")
for b in brute-reportd brutectl; do
	dyn=$(readelf -W -d "$C/root/usr/sbin/$b")
	syms=$(readelf -W --dyn-syms "$C/root/usr/sbin/$b")
	if grep -q BIND_NOW <<<"$dyn" && grep -q PIE <<<"$dyn" && grep -qw __stack_chk_fail <<<"$syms" &&
		grep -qE ' __[a-z]+_chk(@|$)' <<<"$syms"; then
		ok "packaged $b hardened (PIE, BIND_NOW, stack protector, fortify)"
	else
		not_ok "packaged $b hardened (PIE, BIND_NOW, stack protector, fortify)" "$dyn"
	fi
done
# issue 22 #6: both programs are compiled in the build step (dh_auto_build), none in
# dh_auto_install (which only copies)
log=$rig/pkg/build.log
built=$(awk '/dh_auto_build/ { s = 1 } /dh_auto_test|dh_auto_install/ { s = 0 }
	s && /-o build\/normal\/brute-reportd |-o build\/normal\/brutectl / { print ($0 ~ /brutectl/ ? "brutectl" : "brute-reportd") }' "$log" | sort -u | xargs)
late=$(awk '/dh_auto_install/ { s = 1 } /dh_install /{ s = 0 } s && /(cc|gcc|clang) .* -o /' "$log")
if [ "$built" = "brute-reportd brutectl" ] && [ -z "$late" ]; then
	ok "brute-reportd and brutectl compiled in dh_auto_build, nothing compiled in dh_auto_install"
else
	not_ok "brute-reportd and brutectl compiled in dh_auto_build, nothing in dh_auto_install" \
		"built in dh_auto_build: $built" "compiled in dh_auto_install: $late"
fi
if grep -q 'augenrules --load' "$C/root/DEBIAN/postrm" && grep -q 'augenrules --load' "$C/root/DEBIAN/postinst"; then
	ok "postinst loads the audit rules, postrm (remove) reloads without them"
else
	not_ok "postinst loads the audit rules, postrm (remove) reloads without them"
fi
if grep -q "deb-systemd-helper enable 'brute-reportd.service'" "$C/root/DEBIAN/postinst" &&
	grep -q "deb-systemd-invoke \$_dh_action 'brute-reportd.service'" "$C/root/DEBIAN/postinst" &&
	grep -q "deb-systemd-helper purge 'brute-reportd.service'" "$C/root/DEBIAN/postrm" &&
	grep -q 'rm -rf /var/lib/brute-reportd' "$C/root/DEBIAN/postrm"; then
	ok "postinst enables and starts the unit, postrm purges it and the spool"
else
	not_ok "postinst enables and starts the unit, postrm purges it and the spool" \
		"$(cat "$C/root/DEBIAN/postinst" "$C/root/DEBIAN/postrm")"
fi
if [ -f "$top/tools/brutectl/Makefile" ]; then
	if grep -q "deb-systemd-helper enable 'brute-trusted-peers.service'" "$C/root/DEBIAN/postinst" &&
		grep -q '^ExecStart=/usr/sbin/brutectl trust load$' "$C/root/lib/systemd/system/brute-trusted-peers.service" &&
		same_file=$(cmp "$top/etc/brute/trusted-peers.conf" "$C/root/etc/brute/trusted-peers.conf" 2>&1) &&
		[ -z "$same_file" ]; then
		ok "brute-trusted-peers.service enabled by postinst, runs the package's brutectl; trusted-peers.conf is the tree's"
	else
		not_ok "brute-trusted-peers.service enabled by postinst, trusted-peers.conf the tree's" \
			"$(grep -n 'trusted' "$C/root/DEBIAN/postinst")" "$same_file"
	fi
fi
same "the package's catalog is the tree's (indexed by systemd's trigger on /usr/lib/systemd/catalog)" "" \
	"$(cmp "$top/systemd/brute-reportd.catalog" "$C/root/usr/lib/systemd/catalog/brute-reportd.catalog" 2>&1)"
same "the package's sysctl.d file is the tree's (kernel.brute.backstop_hold_s, applied by postinst)" "" \
	"$(cmp "$top/systemd/brute-reportd.sysctl" "$C/root/usr/lib/sysctl.d/brute-reportd.conf" 2>&1;
	   grep -L 'systemd-sysctl brute-reportd.conf' "$C/root/DEBIAN/postinst")"
