#!/bin/bash
# make dist: brute-VERSION.tar.gz with the tree's version; the tarball holds no build output,
# builds the daemon from itself (version and man page date from its VERSION and mtimes),
# and its own `make dist` gives the same tarball byte for byte.
. "$(dirname "$0")/lib.bash"
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
version=$("$top/scripts/version.sh")
day=$(date -u -d "@$("$top/scripts/version.sh" --date)" +%Y-%m-%d)

if ! tgz=$("$top/scripts/dist.sh" "$T/1" 2>&1); then not_ok "make dist" "$tgz"; exit 0; fi
same "tarball named brute-VERSION.tar.gz" "$T/1/brute-$version.tar.gz" "$tgz"
tar -C "$T" -xzf "$tgz"
src=$T/brute-$version
same "no build output in the tarball" "" \
	"$(tar -tzf "$tgz" | grep -E '/build/|\.o$|daemon/brute-reportd$|\.tar\.gz$|\.deb$' | head)"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	tracked=$(git -C "$top" ls-files | grep -vx -e VERSION | LC_ALL=C sort | xargs)
else   # run from an unpacked tarball: its own MANIFEST
	tracked=$(grep -vx -e VERSION -e MANIFEST "$top/MANIFEST" | xargs)
fi
shipped=$(grep -vx -e VERSION -e MANIFEST "$src/MANIFEST" | xargs)
same "MANIFEST lists git's tracked files" "$tracked" "$shipped"
same "its VERSION is the full version" "$version" "$(cat "$src/VERSION")"
same "scripts/version.sh in the tarball (no git)" "$version" "$(cd "$src" && env -u SOURCE_DATE_EPOCH scripts/version.sh)"

if out=$(cd "$src" && env -u SOURCE_DATE_EPOCH make -s dist 2>&1); then
	if cmp -s "$tgz" "$src/brute-$version.tar.gz"; then
		ok "make dist in the unpacked tarball gives the same tarball, byte for byte"
	else
		not_ok "make dist in the unpacked tarball gives the same tarball, byte for byte" \
			"$(diff <(tar -tvzf "$tgz") <(tar -tvzf "$src/brute-$version.tar.gz") | head)"
	fi
else
	not_ok "make dist in the unpacked tarball" "$out"
fi
D=$T/root
if out=$(cd "$src" && env -u SOURCE_DATE_EPOCH make -s install DESTDIR="$D" PREFIX=/usr 2>&1); then
	ok "the tarball builds and installs the daemon"
	same "its brute-reportd --version" "brute-reportd $version" "$("$D/usr/sbin/brute-reportd" --version 2>&1)"
	same "its man page date" "\"$day\" \"brute $version\"" \
		"$(grep '^\.TH' "$D/usr/share/man/man8/brute-reportd.8" | grep -o '"[^"]*" "[^"]*"' | head -n 1)"
else
	not_ok "the tarball builds and installs the daemon" "$out"
fi
