#!/bin/bash
# The daemon's build honours CPPFLAGS/CFLAGS/LDFLAGS and, with none given, is hardened
# (Debian's dpkg-buildflags hardening=+all or the equivalent set): the binary is PIE, has
# RELRO and BIND_NOW, a non-executable stack, uses the stack protector (__stack_chk_fail)
# and fortified libc functions (__*_chk). The same checks on a build with hardening turned
# off must fail (the checks can tell).
. "$(dirname "$0")/lib.bash"
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cmds=$(make -s -n -B -C "$top/daemon" build/normal/brute-reportd \
	CPPFLAGS=-DPROBE_CPPFLAGS CFLAGS=-DPROBE_CFLAGS LDFLAGS=-Wl,--probe-ldflags 2>&1 | grep -- '-o build/normal/brute-reportd')
missing=
for p in -DPROBE_CPPFLAGS -DPROBE_CFLAGS -Wl,--probe-ldflags; do
	case $cmds in *" $p"*) ;; *) missing="$missing $p" ;; esac
done
same "the build honours CPPFLAGS, CFLAGS and LDFLAGS" "" "$missing"

# hardening_report BINARY: one word per property found
hardening_report() {
	local b=$1 dyn syms
	dyn=$(readelf -W -d "$b")
	syms=$(readelf -W --dyn-syms "$b")
	[ "$(readelf -h "$b" | awk '/Type:/ { print $2 }')" = DYN ] && grep -q 'PIE' <<<"$dyn" && echo pie
	readelf -W -l "$b" | grep -q GNU_RELRO && echo relro
	grep -qE 'BIND_NOW|FLAGS_1.*NOW' <<<"$dyn" && echo bindnow
	readelf -W -l "$b" | awk '/GNU_STACK/ { print $7 }' | grep -qx RW && echo nxstack
	grep -qw '__stack_chk_fail' <<<"$syms" && echo stackprotector
	grep -qE ' __[a-z]+_chk(@|$)' <<<"$syms" && echo fortify
}
want="pie relro bindnow nxstack stackprotector fortify"

mkdir -p "$T/hard" "$T/soft"
(cd "$top/daemon" && find . -path ./build -prune -o -type f -print | cpio -pdm --quiet "$T/hard/daemon")
cp -a "$T/hard/daemon" "$T/soft/"
if out=$(env -u CPPFLAGS -u CFLAGS -u LDFLAGS make -s -C "$T/hard/daemon" build/normal/brute-reportd 2>&1); then
	same "default build: $want" "$want" "$(hardening_report "$T/hard/daemon/build/normal/brute-reportd" | xargs)"
	diag "fortified: $(readelf -W --dyn-syms "$T/hard/daemon/build/normal/brute-reportd" | grep -oE '__[a-z]+_chk\b' | grep -v stack | sort -u | xargs)"
else
	not_ok "default build" "$out"
fi
if out=$(make -s -C "$T/soft/daemon" build/normal/brute-reportd CPPFLAGS=-U_FORTIFY_SOURCE \
	CFLAGS="-O2 -fno-stack-protector -fno-PIE" LDFLAGS="-no-pie -Wl,-z,lazy -Wl,-z,norelro" 2>&1); then
	same "a build with hardening off fails every check" "nxstack" \
		"$(hardening_report "$T/soft/daemon/build/normal/brute-reportd" | xargs)"
else
	not_ok "a build with hardening off" "$out"
fi
