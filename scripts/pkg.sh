#!/usr/bin/env bash
# pkg.sh [OUTDIR]: build the brute-reportd Debian package from `make dist`'s tarball (so the
# package is built from exactly what a release ships) and print the .deb's path.
#
# OUTDIR defaults to $BRUTE_CACHE/rig/pkg. The package's version is the tree's
# (scripts/version.sh): when debian/changelog's top entry has another version, an entry for
# this one is put on top in the build copy, dated by the tree's SOURCE_DATE_EPOCH. Built with
# dpkg-buildpackage -b (no root needed: Rules-Requires-Root: no) and DEB_BUILD_OPTIONS=nocheck
# (make check runs the daemon's tests in its own layer; BRUTE_PKG_CHECK=1 runs them here too).
# A tarball already built into OUTDIR is not built again. Needs debhelper and the build
# dependencies of debian/control (make deps).
#
# brutectl: when the tree has tools/brutectl/, the top-level install puts it into this package
# (TODO(brutectl) in debian/control for when it is on main).
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=${1:-$rig/pkg}
mkdir -p "$out"
tgz=$("$top/scripts/dist.sh" "$out")
sum=$(sha256sum "$tgz" | cut -d' ' -f1)
version=$(cat <(tar -xzOf "$tgz" --wildcards '*/VERSION'))
arch=$(dpkg --print-architecture)
deb=$out/brute-reportd_${version}_$arch.deb
if [ -f "$deb" ] && [ "$(cat "$deb.key" 2>/dev/null)" = "$sum${BRUTE_PKG_CHECK:-}" ]; then
	echo "$deb"
	exit 0
fi

build=$out/build
rm -rf "$build" "$deb" "$deb.key"
mkdir -p "$build"
tar -C "$build" -xzf "$tgz"
src=$build/brute-$version
epoch=$(cd "$src" && scripts/version.sh --date)
if [ "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)" != "$version" ]; then
	{
		printf 'brute (%s) unstable; urgency=medium\n\n' "$version"
		printf '  * Built from the tree at %s (scripts/pkg.sh).\n\n' "$version"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Maintainer)" \
			"$(LC_ALL=C date -u -R -d "@$epoch")"
		cat "$src/debian/changelog"
	} >"$src/debian/changelog.new"
	mv "$src/debian/changelog.new" "$src/debian/changelog"
fi
start=$(date +%s)
opts=nocheck
[ -n "${BRUTE_PKG_CHECK:-}" ] && opts=
(cd "$src" && env -u CPPFLAGS -u CFLAGS -u LDFLAGS -u SOURCE_DATE_EPOCH -u MAKEFLAGS \
	DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 ||
	die "dpkg-buildpackage failed, log: $out/build.log"
log "dpkg-buildpackage took $(($(date +%s) - start)) s"
mv "$build"/*.deb "$build"/*.changes "$build"/*.buildinfo "$out/"
rm -rf "$build"
[ -f "$deb" ] || die "no $deb after the build"
echo "$sum${BRUTE_PKG_CHECK:-}" >"$deb.key"
echo "$deb"
