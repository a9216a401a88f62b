#!/usr/bin/env bash
# Build the static programs the guests run:
#   $cache/rig/bin/        rig helpers (runas), rig test programs (tests/fast/src/*.c) and
#                          brutectl (tools/brutectl, static; built in $cache/rig/brutectl/)
#   $cache/rig/selftests/  kernel/tools/testing/selftests/brute, if the lead has written it
# Prints nothing on success; the initramfs script picks both directories up.
set -euo pipefail
. "$(dirname "$0")/common.sh"

bin=$rig/bin
mkdir -p "$bin"
for src in "$top"/tests/rig/src/*.c "$top"/tests/fast/src/*.c; do
	[ -e "$src" ] || continue
	out=$bin/$(basename "$src" .c)
	if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
		gcc -static -O2 -Wall -Werror -o "$out" "$src"
	fi
done
# (ld warns that getpwuid/getpwnam in a static binary need glibc's NSS modules at run time:
# the guest's nsswitch.conf says "files", which static glibc has built in.)
if ! make -s -C "$top/tools/brutectl" B="$rig/brutectl" LDFLAGS=-static \
	"$rig/brutectl/normal/brutectl" 2>"$rig/brutectl.log"; then
	cat "$rig/brutectl.log" >&2
	die "building tools/brutectl failed"
fi
cp "$rig/brutectl/normal/brutectl" "$bin/brutectl"

# The selftest Makefile includes ../lib.mk and its tests ../kselftest_harness.h, as in the
# kernel tree: build it in a shadow tools/testing/selftests/ whose top-level files are links to
# a kernel source tree (scripts/kernel.sh's pristine tree, or the few files needed, extracted
# once from the linux-source tarball), so the kernel's own build tree is never touched.
st=$top/kernel/tools/testing/selftests/brute
out=$rig/selftests
if [ ! -f "$st/Makefile" ]; then
	rm -rf "$out"
	exit 0
fi
ksrc=$cache/src/linux-source-6.12
if [ ! -f "$ksrc/tools/testing/selftests/lib.mk" ]; then
	ksrc=$rig/ksrc/linux-source-6.12
	tarball=${BRUTE_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
	if [ ! -f "$ksrc/tools/testing/selftests/lib.mk" ]; then
		log "extracting the selftest framework from $tarball"
		rm -rf "$rig/ksrc"
		mkdir -p "$rig/ksrc"
		tar -C "$rig/ksrc" -xf "$tarball" --wildcards \
			'linux-source-6.12/tools/testing/selftests/*.h' \
			'linux-source-6.12/tools/testing/selftests/lib.mk' \
			'linux-source-6.12/scripts/subarch.include'
	fi
fi
key=$( (hash_inputs kernel/tools/testing/selftests/brute; echo "$ksrc") | sha256sum)
[ "$(cat "$out/.key" 2>/dev/null)" = "$key" ] && exit 0
shadow=$rig/kst/tools/testing/selftests
rm -rf "$rig/kst"
mkdir -p "$shadow"
find "$ksrc/tools/testing/selftests" -maxdepth 1 -type f -exec ln -s {} "$shadow/" \;
cp -r "$st" "$shadow/brute"
rm -rf "$out"
mkdir -p "$out"
# -static rides on CC: a command-line CFLAGS+=-static would replace (not extend) the
# CFLAGS the Makefile sets itself.
make -s -C "$shadow/brute" CC="gcc -static" OUTPUT="$out" >&2
# Scripts and data the Makefile does not generate (run.sh, config) come from the source
# directory; generated programs keep the modes their Makefile gave them.
(cd "$st" && find . -type f ! -name '*.[ch]' ! -name Makefile ! -name '*.o' \
	! -name .gitignore -print0 | cpio -0pdmu --quiet "$out")
echo "$key" >"$out/.key"
