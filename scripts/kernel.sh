#!/usr/bin/env bash
# Build a kernel: Debian's linux-source-6.12 + kernel/ overlay + kernel/patches, configured
# from tinyconfig + fragments, cached outside the repository, one work tree per flavour:
#   test   kernel/configs/*.config (lockdep; what make check boots)
#   kasan  test + kernel/configs/flavours/kasan.config (KASAN, kmemleak, UBSAN, fault injection)
#   kcsan  test + kernel/configs/flavours/kcsan.config (KCSAN, fault injection)
#   prod   test minus debug.config + kernel/configs/flavours/prod.config (no debug options,
#          -O2, the LSM stack of a distribution: make bench)
#
# Usage: scripts/kernel.sh [--flavour F]           build (or reuse) and print the bzImage path
#        scripts/kernel.sh [--flavour F] --tree    only prepare the source tree, print its path
#        BRUTE_FLAVOUR=F is the same as --flavour F.
set -euo pipefail

flavour=${BRUTE_FLAVOUR:-test}
if [ "${1:-}" = "--flavour" ]; then
	flavour=${2:?--flavour needs a name}
	shift 2
fi

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BRUTE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/brute}
tarball=${BRUTE_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
pristine=$cache/src/linux-source-6.12
case "$flavour" in
test) work=$cache/linux ;;
kasan | kcsan | prod) work=$cache/linux-$flavour ;;
*) printf 'kernel: error: unknown flavour %s (test, kasan, kcsan, prod)\n' "$flavour" >&2; exit 2 ;;
esac
stage=$cache/stage-$flavour
jobs=${BRUTE_JOBS:-$(($(nproc) + 1))}

log() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing (run 'make deps')"
mkdir -p "$cache/src"

# One extraction at a time per cache, one build at a time per flavour.
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
exec 9>&-
exec 8>"$cache/.lock-$flavour"
flock 8
if [ ! -f "$work/Makefile" ]; then
	log "creating work tree"
	rm -rf "$work"
	cp -al "$pristine" "$work"
fi

# Inputs of the build: everything under kernel/ and this script.
inputs_key=$( (cd "$top" && echo "$flavour" && find kernel scripts/kernel.sh -type f \
	-not -path '*/selftests/*' -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)

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
(cd "$stage" && find . -type f | sed 's|^\./||' | sort) >"$stage.manifest"

# 4. Sync managed files into the work tree; restore files no longer managed.
changed=0
while read -r f; do
	if ! cmp -s "$stage/$f" "$work/$f"; then
		mkdir -p "$work/$(dirname "$f")"
		rm -f "$work/$f"
		cp "$stage/$f" "$work/$f"
		changed=$((changed + 1))
	fi
done <"$stage.manifest"
if [ -f "$work/.brute-manifest" ]; then
	comm -23 "$work/.brute-manifest" "$stage.manifest" | while read -r f; do
		rm -f "$work/$f"
		# A file of ours (none in the pristine tree) is only removed.
		if [ -e "$pristine/$f" ]; then cp "$pristine/$f" "$work/$f"; fi
	done
fi
mv "$stage.manifest" "$work/.brute-manifest"
log "$changed managed file(s) updated"

if [ "${1:-}" = "--tree" ]; then
	echo "$work"
	exit 0
fi

# 5. Configure: tinyconfig + fragments, then check nothing asked for was dropped.
cd "$work"
case "$flavour" in
test) fragments=("$top"/kernel/configs/*.config) ;;
prod)
	fragments=()
	for f in "$top"/kernel/configs/*.config; do
		[ "$(basename "$f")" = debug.config ] || fragments+=("$f")
	done
	fragments+=("$top/kernel/configs/flavours/prod.config") ;;
*) fragments=("$top"/kernel/configs/*.config "$top/kernel/configs/flavours/$flavour.config") ;;
esac
make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m -O . .config "${fragments[@]}" >/dev/null
make -s olddefconfig >/dev/null
# What each symbol was asked to be: a later fragment overrides an earlier one.
declare -A want=() from=()
for frag in "${fragments[@]}"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		want[$sym]=$line
		from[$sym]=$(basename "$frag")
	done <"$frag"
done
dropped=()
for sym in "${!want[@]}"; do
	line=${want[$sym]}
	case "$line" in
	CONFIG_*=*) grep -qxF -- "$line" .config || dropped+=("$line (in ${from[$sym]})") ;;
	*) if grep -q "^$sym=" .config; then dropped+=("$line (in ${from[$sym]})"); fi ;;
	esac
done
if [ "${#dropped[@]}" -gt 0 ]; then
	printf 'kernel: error: options requested but not set after olddefconfig:\n' >&2
	printf '  %s\n' "${dropped[@]}" >&2
	exit 1
fi

# 6. Build.
log "building the $flavour bzImage (-j$jobs)"
start=$(date +%s)
buildlog=$cache/build-$flavour.log
if ! make -s -j"$jobs" bzImage >"$buildlog" 2>&1; then
	grep -E 'error|Error' "$buildlog" | head -40 >&2
	die "kernel build failed, full log: $buildlog"
fi
log "built in $(($(date +%s) - start)) s"
echo "$inputs_key" >.brute-key
echo "$work/arch/x86/boot/bzImage"
