#!/usr/bin/env bash
# datadisk.sh [OUT]: make the system guest's per-run data disk (ext4, label "data", mounted
# on /data in the guest) and print its path. Contents:
#   tests/     tests/system/*.sh, and *.inc that they source
#   rig/       run-tests.sh, system-run, tap.sh, inject/, bin/ (runas, segv, ...)
#   selftests/ the static selftests, if built
#   demo/      tests/demo: its programs (built by tests/demo/Makefile), guest script, unit, configuration
#   services/  tests/services: services.sh, etc/, svcbench (static) and brute-fault.so (the
#              preload library, built against this host's glibc: Debian 12's, as the guest's)
#   debs/      the brute-reportd Debian package (scripts/pkg.sh: daemon, unit, catalog,
#              rules, plugin configuration), installed with dpkg -i before the tests run
#   root/      tests/system/root/, copied onto / in the guest after that
#   siem/      siem/rsyslog/*.conf (tests/system/35-reportd-tls-relp.sh runs the collector)
# BRUTE_SYSTEM_INSTALL=make puts `make install DESTDIR=root/` there instead of the package
# (quicker when iterating on files that are not tracked by git yet: the package is built from
# `make dist`, i.e. git's tracked files).
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=${1:-$rig/data.ext4}
"$top/scripts/selftests.sh"
stage=${out%.ext4}.d
rm -rf "$stage"
mkdir -p "$stage"/{tests,rig/bin,root}
chmod 755 "$stage/root"
for t in "$top"/tests/system/*.sh; do
	[ -e "$t" ] && install -m 755 "$t" "$stage/tests/"
done
# what several scripts source (not run by itself: not *.sh)
for t in "$top"/tests/system/*.inc; do
	[ -e "$t" ] && install -m 644 "$t" "$stage/tests/"
done
install -m 755 "$top"/tests/rig/{run-tests.sh,system-run} "$stage/rig/"
install -m 644 "$top/tests/rig/tap.sh" "$stage/rig/"
cp -r "$top/tests/rig/inject" "$stage/rig/"
cp -a "$rig"/bin/. "$stage/rig/bin/"
[ -d "$rig/selftests" ] && cp -a "$rig/selftests" "$stage/selftests"
if [ -f "$top/tests/demo/Makefile" ]; then
	make -s -C "$top/tests/demo" OUT="$rig/demo" >&2 || die "building tests/demo failed"
	mkdir -p "$stage/demo"
	cp -a "$rig/demo/." "$stage/demo/"
	install -m 644 "$top"/tests/demo/{demo.sh,*.service,*.conf} "$stage/demo/"
fi

if [ -f "$top/tests/services/services.sh" ]; then
	svc=$stage/services
	mkdir -p "$svc/etc"
	gcc -static -O2 -Wall -Wextra -Werror -o "$svc/svcbench" \
		"$top/tests/services/src/svcbench.c" 2>"$rig/services-build.log" ||
		{ cat "$rig/services-build.log" >&2; die "building svcbench failed"; }
	gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$svc/brute-fault.so" \
		"$top/tests/services/src/brute-fault.c" -ldl ||
		die "building brute-fault.so failed"
	install -m 644 "$top"/tests/services/{services.sh,collect.awk} "$svc/"
	install -m 644 "$top"/tests/services/etc/* "$svc/etc/"
	install -m 644 "$top/tests/demo/rsyslog-brute-siem.conf" "$svc/etc/"
fi

if [ "${BRUTE_SYSTEM_INSTALL:-deb}" = make ]; then
	make -s -C "$top" install DESTDIR="$stage/root" PREFIX=/usr >&2 ||
		die "make install DESTDIR=$stage/root failed"
else
	deb=$("$top/scripts/pkg.sh") || die "building the brute-reportd package failed"
	mkdir -p "$stage/debs"
	cp "$deb" "$stage/debs/"
fi
mkdir -p "$stage/siem"
install -m 644 "$top"/siem/rsyslog/*.conf "$stage/siem/"
[ -d "$top/tests/system/root" ] && cp -a "$top/tests/system/root/." "$stage/root/"
[ -n "$(ls -A "$stage/root")" ] || rmdir "$stage/root"

size=$(($(du -sm "$stage" | cut -f1) + 32))
mkfs.ext4 -q -F -L data -d "$stage" "$out" "${size}M" >&2
echo "$out"
