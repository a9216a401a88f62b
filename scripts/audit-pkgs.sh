#!/usr/bin/env bash
# Build Debian bookworm's audit 3.0.9 with userspace/audit/*.patch applied, once: the .debs
# land in $cache/audit/<key>/debs and, unpacked, in $cache/audit/<key>/root (for the busybox
# guest and for building the daemon against the patched libauparse). The key hashes the
# patches and this script; any other change reuses the build. Prints $cache/audit/<key>.
#
# The source package comes from Debian's deb-src archive through a private apt
# configuration (the host's sources.list is not touched). The build is
# dpkg-buildpackage -b with the profile nopython (no Python bindings) and nocheck; the
# golang binding package is skipped (it needs golang-go and is not used here). Version:
# 1:3.0.9-1+brute1. Measured here (2 cores, shared): about 9 minutes, once per patch set.
set -euo pipefail
. "$(dirname "$0")/common.sh"

version=1:3.0.9-1
local_version=${version}+brute1
patches=("$top"/userspace/audit/[0-9][0-9][0-9][1-9]-*.patch) # 0000 is the cover letter
[ -e "${patches[0]}" ] || die "no patches in userspace/audit/"

# What the build depends on: the source version, the packaging changes and build options
# below (bump recipe when editing them) and the patches; not this file's comments.
recipe="2: +brute1 changelog, golang profile; -b -Pnopython,pkg.audit.nogolang nocheck"
base=$cache/audit
key=$( {
	echo "$version $recipe"
	sha256sum "${patches[@]}" | sed "s|$top/||"
} | sha256sum | cut -c1-16)
out=$base/$key
# One build at a time (make check builds the guests' inputs beside the audit-tools layer).
mkdir -p "$base"
exec 7>"$base/.lock"
flock 7
if [ -f "$out/done" ]; then
	echo "$out"
	exit 0
fi

# Sources: audit_3.0.9-1.dsc and its tarballs, fetched once.
src=$base/src
if [ ! -f "$src/audit_${version#*:}.dsc" ]; then
	log "fetching the source package audit $version"
	apt=$base/apt
	mkdir -p "$apt/lists/partial" "$src"
	mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v -e security -e nodesource -e google | head -n1 || true)
	mirror=${mirror:-http://deb.debian.org/debian}
	echo "deb-src $mirror bookworm main" >"$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists" -o APT::Sandbox::User=root)
	apt-get -q "${opts[@]}" update >"$base/apt.log" 2>&1 ||
		die "apt-get update (deb-src) failed, log: $base/apt.log"
	(cd "$src" && apt-get -q "${opts[@]}" source --download-only "audit=$version") \
		>>"$base/apt.log" 2>&1 || die "apt-get source audit=$version failed, log: $base/apt.log"
fi

log "building audit $local_version ($key), log: $out/build.log"
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out/work"
work=$out/work
dpkg-source -x "$src/audit_${version#*:}.dsc" "$work/audit" >"$out/build.log" 2>&1 ||
	die "dpkg-source -x failed, log: $out/build.log"
for p in "${patches[@]}"; do
	patch -d "$work/audit" -p1 --no-backup-if-mismatch -s <"$p" >>"$out/build.log" 2>&1 ||
		die "$(basename "$p") does not apply to audit $version"
done
# The package version says what it is; the golang binding package gets a profile to skip it.
(cd "$work/audit" && {
	printf 'audit (%s) bookworm; urgency=medium\n\n' "$local_version"
	printf '  * Brute: userspace/audit/ patches (record names, field types,\n'
	printf '    ausearch parsing and key, aureport anomalies).\n\n'
	printf ' -- Brute developers <dev@brute.invalid>  %s\n\n' "$(date -R)"
	cat debian/changelog
} >debian/changelog.new && mv debian/changelog.new debian/changelog &&
	sed -i '/^Package: golang-redhat-audit-dev/a Build-Profiles: <!pkg.audit.nogolang>' \
		debian/control)
(cd "$work/audit" && DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -b -uc -us -d -Pnopython,pkg.audit.nogolang) \
	>>"$out/build.log" 2>&1 || die "dpkg-buildpackage failed, log: $out/build.log"
mkdir -p "$out/debs" "$out/root"
mv "$work"/*.deb "$out/debs/"
for deb in "$out"/debs/*.deb; do
	dpkg-deb -x "$deb" "$out/root"
done
rm -rf "$work"
# The unpacked libraries' development links point to absolute /lib paths: make them relative.
for so in "$out"/root/usr/lib/*/libaudit.so "$out"/root/usr/lib/*/libauparse.so; do
	[ -L "$so" ] && ln -sf "../../../lib/$(basename "$(dirname "$so")")/$(basename "$(readlink "$so")")" "$so"
done
log "audit $local_version built in $(($(date +%s) - start)) s"
touch "$out/done"
# Earlier builds (other patches) are not needed any more.
find "$base" -mindepth 1 -maxdepth 1 -type d -name '????????????????' ! -name "$key" \
	-exec rm -rf {} +
echo "$out"
