#!/usr/bin/env bash
# Build the kernel's own selftests for make check-kselftest, statically, from the kernel tree
# scripts/kernel.sh prepared ($cache/linux: linux-source-6.12 with kernel/ and its patches,
# so lsm_list_modules_test knows LSM_ID_BRUTE), and pack them with the guest script into a
# cpio that tests/rig/guest.py appends to the fast guest's initramfs (BRUTE_INITRD_EXTRA).
# Prints the path of the cpio.gz; rebuilt only when an input changes.
#
#   $cache/kselftest/src/        a copy of the tree's Makefile, include/, arch/x86/, scripts/,
#                                tools/ and usr/ (the tree itself is only read): `make headers`
#                                and the selftests are built there
#   $cache/kselftest/stage/      the cpio's content: /kselftest (the programs, tests/kselftest/
#                                list), /tests/90-kselftest.sh, /bin/bash (bash-static),
#                                /usr/bin/nstat (iproute2) and its libraries
#   $cache/kselftest/build.log   the build's output
#
# Collections: exec clone3 pidfd ptrace seccomp sigaltstack prctl proc core futex lsm
# net/af_unix through the selftests' own `make install`; from net/, the programs
# tests/kselftest/list names, with the scripts they need. Environment: BRUTE_KSELFTEST_TREE
# (another prepared tree), BRUTE_CACHE.
set -euo pipefail
. "$(dirname "$0")/common.sh"

collections="exec clone3 pidfd ptrace seccomp sigaltstack prctl proc core futex lsm net/af_unix"
# From net/: programs (built), and the upstream scripts the list runs or they call.
net_programs="tls tcp_inq sk_so_peek_off tcp_mmap msg_zerocopy so_incoming_cpu
	reuseport_bpf_cpu reuseport_dualstack reuseaddr_conflict reuseport_addr_any bind_wildcard
	bind_timewait sk_bind_sendto_listen sk_connect_zero_addr socket rxtimestamp
	tcp_fastopen_backup_key ipv6_flowlabel ipv6_flowlabel_mgr"
net_scripts="in_netns.sh msg_zerocopy.sh reuseport_addr_any.sh run_netsocktests rxtimestamp.sh
	tcp_fastopen_backup_key.sh ipv6_flowlabel.sh"

tree=${BRUTE_KSELFTEST_TREE:-$cache/linux}
ks=$cache/kselftest
src=$ks/src
stage=$ks/stage
out=$ks/kselftest.cpio.gz
list=$top/tests/kselftest/list
mkdir -p "$ks"
exec 8>"$ks/.lock"
flock 8

if [ ! -f "$tree/Makefile" ] || [ ! -d "$tree/tools/testing/selftests" ]; then
	[ -z "${BRUTE_KSELFTEST_TREE:-}" ] || die "$tree is not a kernel tree"
	log "no kernel tree in $tree: preparing it (scripts/kernel.sh --tree)"
	"$top/scripts/kernel.sh" --tree >/dev/null
fi

key=$( {
	hash_inputs scripts/kselftests.sh scripts/common.sh tests/kselftest
	echo "$tree"
	# The tree's content that the build reads: the selftests and the UAPI headers.
	(cd "$tree" && find tools/testing/selftests include/uapi arch/x86/include/uapi \
		arch/x86/entry/syscalls -type f \( -name '*.[ch]' -o -name '*.sh' -o -name Makefile \
		-o -name '*.mk' -o -name '*.tbl' -o -name settings -o -name '*.pl' \) -print0 |
		sort -z | xargs -0 sha256sum)
	dpkg-query -W gcc-12 libc6-dev libcap-dev libssl-dev bash-static iproute2
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (file owners in the cpio)"

log "building the kernel's selftests from $tree (log: $ks/build.log)"
exec 4>&1 3>&2 >"$ks/build.log" 2>&1
trap 'echo "kselftests.sh: error: the build failed, end of $ks/build.log:" >&3; tail -n 30 "$ks/build.log" >&3' ERR

# 1. A private copy of what the build reads (no objects): the shared tree is only read.
rm -rf "$src"
mkdir -p "$src"
(cd "$tree" && rsync -a -R --exclude='*.o' --exclude='.*.cmd' --exclude='*.a' \
	--exclude='*.ko' ./Makefile ./include ./arch/x86 ./scripts ./tools ./usr "$src/")

# 2. The UAPI headers, as the selftests' KHDR_INCLUDES expects them (usr/include).
make -s -C "$src" headers

# 3. The collections, through the selftests' own install (kselftest-list.txt). exec builds
#    its load_address.* programs itself as PIE (-pie, -static-pie), which -static in CC
#    would break: build those first with the plain compiler; the rest is static.
st=$src/tools/testing/selftests
make -s -C "$st/exec" OUTPUT="$st/exec" CC=gcc \
	$(for a in 0x1000 0x200000 0x1000000; do
		echo "$st/exec/load_address.$a" "$st/exec/load_address.static.$a"; done)
rm -rf "$stage"
mkdir -p "$stage/kselftest" "$stage/tests" "$stage/bin"
make -s -C "$st" TARGETS="$collections" CC="gcc -static" \
	install INSTALL_PATH="$stage/kselftest"

# 4. net/: only the programs the list runs. linux-source-6.12 (6.12.118)'s tls.c does not
#    compile: stable backports call tls_crypto_info_init() with a fourth argument (the key
#    generation, for rekey tests) that its definition lacks; the macro drops it (the cases
#    that call it need kTLS, which the test configuration does not have).
make -s -C "$st/net" OUTPUT="$st/net" CC="gcc -static" \
	$(for p in $net_programs; do [ "$p" = tls ] || echo "$st/net/$p"; done)
make -s -C "$st/net" OUTPUT="$st/net" \
	CC="gcc -static '-Dtls_crypto_info_init(v,c,k,...)=tls_crypto_info_init_(v,c,k)'" "$st/net/tls"
for f in $net_programs $net_scripts; do
	install -m 755 "$st/net/$f" "$stage/kselftest/net/$f"
done
# busybox sh runs its own applets before any program on PATH: its `ip` knows no netns. The
# upstream sh scripts (in_netns.sh and those calling it) run under bash, which finds
# iproute2's /sbin/ip.
for f in $net_scripts; do
	sed -i '1s|^#!/bin/sh$|#!/bin/bash|' "$stage/kselftest/net/$f"
done
install -m 755 "$top"/tests/kselftest/net/*.sh "$stage/kselftest/net/"
gcc -static -O2 -Wall -Werror -o "$stage/kselftest/net/ptyrun" "$top/tests/kselftest/src/ptyrun.c"
install -m 644 "$list" "$stage/kselftest/list"
install -m 755 "$top/tests/kselftest/90-kselftest.sh" "$stage/tests/90-kselftest.sh"
# bash for the upstream scripts that need it (msg_zerocopy.sh, rxtimestamp.sh,
# tcp_fastopen_backup_key.sh, exec's "script"); the fast guest has only busybox sh.
install -m 755 /bin/bash-static "$stage/bin/bash"
# nstat (iproute2) for tcp_fastopen_backup_key.sh, with the libraries it links.
mkdir -p "$stage/usr/bin"
cp -L /usr/bin/nstat "$stage/usr/bin/nstat"
for lib in $(ldd /usr/bin/nstat | grep -o '/[^ ]*'); do
	mkdir -p "$stage/$(dirname "$lib")"
	cp -L "$lib" "$stage/$lib"
done
# No debug information in the guest.
find "$stage/kselftest" -type f -perm -u+x -exec sh -c \
	'for f; do case $(head -c 4 "$f") in "$(printf "\177ELF")") strip "$f" ;; esac; done' sh {} +

# 5. Every entry of the list exists, and every upstream test of these collections is in
#    the list, run or excluded (a new upstream test is noticed, not silently skipped).
missing=()
while read -r prog _; do
	case $prog in '' | '#'* | -* | '~'*) continue ;; esac
	[ -x "$stage/kselftest/$prog" ] || missing+=("$prog")
done <"$list"
[ ${#missing[@]} -eq 0 ] || die "in tests/kselftest/list, not built: ${missing[*]}"
unlisted=()
while IFS=: read -r coll prog; do
	grep -Eq "^-?$coll/$prog([[:space:]]|$)" "$list" || unlisted+=("$coll/$prog")
done <"$stage/kselftest/kselftest-list.txt"
[ ${#unlisted[@]} -eq 0 ] || die "upstream tests neither run nor excluded in tests/kselftest/list: ${unlisted[*]}"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$key" >"$out.key"
trap - ERR
exec >&4 2>&3 4>&- 3>&-
log "$(du -h "$out" | cut -f1) cpio, $(grep -cEv '^[[:space:]]*(#|-|~|$)' "$list") programs"
echo "$out"
