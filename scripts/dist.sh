#!/bin/sh
# dist.sh [OUTDIR]: brute-VERSION.tar.gz of this tree in OUTDIR (default: the top directory);
# prints its path. VERSION and the files' date come from scripts/version.sh. The files are
# git's tracked files as they are in the work tree (untracked files are left out), or, in an
# unpacked tarball, those its MANIFEST lists; the tarball carries VERSION (the full version)
# and MANIFEST, so that `make dist` in it makes the same tarball again, byte for byte (sorted
# names, every mtime the commit's date, owner 0, gzip -n).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top}
version=$("$top/scripts/version.sh")
epoch=$("$top/scripts/version.sh" --date)
name=brute-$version
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -e "$top/.git" ] && git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z | tr '\0' '\n'
else
	[ -f "$top/MANIFEST" ] || { echo "dist: no git checkout and no MANIFEST" >&2; exit 1; }
	cat "$top/MANIFEST"
fi | grep -vx -e VERSION -e MANIFEST | while IFS= read -r f; do
	[ -f "$top/$f" ] || [ -L "$top/$f" ] && printf '%s\n' "$f"
done >"$tmp/files"
printf '%s\n' VERSION MANIFEST >>"$tmp/files"
LC_ALL=C sort -o "$tmp/files" "$tmp/files"

mkdir "$tmp/$name"
grep -vx -e VERSION -e MANIFEST "$tmp/files" | (cd "$top" && cpio -pdm --quiet "$tmp/$name")
echo "$version" >"$tmp/$name/VERSION"
cp "$tmp/files" "$tmp/$name/MANIFEST"
mkdir -p "$out"
tar -C "$tmp" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	--mode='u+rw,go-w' --format=gnu -cf - "$name" | gzip -n -9 >"$tmp/$name.tar.gz"
mv "$tmp/$name.tar.gz" "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
