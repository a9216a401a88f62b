#!/usr/bin/env bash
# Build the test kernel: Debian's linux-source-6.12 + kernel/ overlay + kernel/patches,
# configured from tinyconfig + kernel/configs/*.config, cached outside the repository.
#
# Usage: scripts/kernel.sh            build (or reuse) and print the bzImage path
#        scripts/kernel.sh --tree     only prepare the source tree, print its path
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BRUTE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/brute}
tarball=${BRUTE_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
pristine=$cache/src/linux-source-6.12
work=$cache/linux
stage=$cache/stage
jobs=${BRUTE_JOBS:-$(($(nproc) + 1))}

log() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing (run 'make deps')"
mkdir -p "$cache/src"

# One build at a time per cache.
exec 9>"$cache/.lock"
flock 9

# 1. Pristine source, keyed on the tarball itself.
src_key=$(stat -c '%s-%Y' "$tarball")
if [ "$(cat "$cache/src/.key" 2>/dev/null)" != "$src_key" ]; then
	log "extracting $tarball"
	rm -rf "$pristine" "$work" "$cache/src/.key"
	tar -C "$cache/src" -xf "$tarball"
	echo "$src_key" >"$cache/src/.key"
fi

# 2. Work tree: hard links to the pristine tree; managed files are replaced, never edited
#    in place, so the pristine tree stays intact and unchanged files keep their mtimes.
if [ ! -f "$work/Makefile" ]; then
	log "creating work tree"
	rm -rf "$work"
	cp -al "$pristine" "$work"
fi

# Inputs of the build: everything under kernel/ and this script.
inputs_key=$( (cd "$top" && find kernel scripts/kernel.sh -type f -not -path '*/selftests/*' \
	-print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)

if [ "${1:-}" != "--tree" ] && [ -f "$work/arch/x86/boot/bzImage" ] &&
	[ "$(cat "$work/.brute-key" 2>/dev/null)" = "$inputs_key" ]; then
	echo "$work/arch/x86/boot/bzImage"
	exit 0
fi

# 3. Stage the desired content of every managed file: overlay, then patches in order.
rm -rf "$stage"
mkdir -p "$stage"
(cd "$top/kernel" && find . -type f -not -path './patches/*' -not -path './configs/*' \
	-print0 | cpio -0pdm --quiet "$stage")
for p in "$top"/kernel/patches/*.patch; do
	[ -e "$p" ] || continue
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"); do
		if [ ! -e "$stage/$f" ] && [ -e "$pristine/$f" ]; then
			mkdir -p "$stage/$(dirname "$f")"
			cp "$pristine/$f" "$stage/$f"
		fi
	done
	patch -s -p1 -d "$stage" --no-backup-if-mismatch -r - <"$p" ||
		die "patch $(basename "$p") does not apply to linux-source-6.12"
done
(cd "$stage" && find . -type f | sed 's|^\./||' | sort) >"$cache/manifest.new"

# 4. Sync managed files into the work tree; restore files no longer managed.
changed=0
while read -r f; do
	if ! cmp -s "$stage/$f" "$work/$f"; then
		mkdir -p "$work/$(dirname "$f")"
		rm -f "$work/$f"
		cp "$stage/$f" "$work/$f"
		changed=$((changed + 1))
	fi
done <"$cache/manifest.new"
if [ -f "$work/.brute-manifest" ]; then
	comm -23 "$work/.brute-manifest" "$cache/manifest.new" | while read -r f; do
		rm -f "$work/$f"
		[ -e "$pristine/$f" ] && cp "$pristine/$f" "$work/$f"
	done
fi
mv "$cache/manifest.new" "$work/.brute-manifest"
log "$changed managed file(s) updated"

if [ "${1:-}" = "--tree" ]; then
	echo "$work"
	exit 0
fi

# 5. Configure: tinyconfig + fragments, then check nothing asked for was dropped.
cd "$work"
fragments=("$top"/kernel/configs/*.config)
make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m -O . .config "${fragments[@]}" >/dev/null
make -s olddefconfig >/dev/null
dropped=()
for frag in "${fragments[@]}"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF -- "$line" .config || dropped+=("$line (in $(basename "$frag"))") ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			if grep -q "^$sym=" .config; then dropped+=("$line (in $(basename "$frag"))"); fi ;;
		esac
	done <"$frag"
done
if [ "${#dropped[@]}" -gt 0 ]; then
	printf 'kernel: error: options requested but not set after olddefconfig:\n' >&2
	printf '  %s\n' "${dropped[@]}" >&2
	exit 1
fi

# 6. Build.
log "building bzImage (-j$jobs)"
start=$(date +%s)
if ! make -s -j"$jobs" bzImage >"$cache/build.log" 2>&1; then
	grep -E 'error|Error' "$cache/build.log" | head -40 >&2
	die "kernel build failed, full log: $cache/build.log"
fi
log "built in $(($(date +%s) - start)) s"
echo "$inputs_key" >.brute-key
echo "$work/arch/x86/boot/bzImage"
