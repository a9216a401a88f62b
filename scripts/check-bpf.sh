#!/usr/bin/env bash
# check-bpf.sh: make check-bpf (not part of make check yet): Brute's BPF flavour (bpf/,
# docs/bpf-flavour.md) on Debian's unmodified stock kernel.
#
#   1. scripts/stock-kernel.sh: the newest linux-image-6.12.*-amd64 apt offers, its vmlinux
#      (BTF) and the modules the fast guest needs;
#   2. bpf/: vmlinux.h from that BTF, the BPF object, brute-bpf-loaded (static, for the
#      guest), in $BRUTE_CACHE/rig/bpf; its host tests (bpf/tests/run-tests.sh);
#   3. the fast guest (tests/rig/guest.py, the busybox initramfs of scripts/initramfs.sh) on
#      the stock vmlinuz, with two cpio archives appended (BRUTE_INITRD_EXTRA): the modules,
#      and tests/bpf/ (its scripts into /tests, the loader, tests/bpf/src/ built static);
#      it runs 00-rig (auditd), 01-stock-kernel and 50-brute-bpf only; then once more booted
#      with lsm= without bpf, 60-bpf-lsm-off only (run fast$BRUTE_RUN_NAME-nolsm);
#   4. the first boot's console: the LSMs the stock kernel initialized include bpf.
# Last line: "check-bpf: N passed, N failed". Guest runs are named fast$BRUTE_RUN_NAME
# (default -bpf); BRUTE_FAST_TIMEOUT bounds the guest (default here 900 s); BRUTE_QEMU_ACCEL
# defaults to tcg,thread=single here (below). BRUTE_BPF_STRESS=MODE:N boots once and runs
# only tests/bpf/70-text-poke-stress.sh (MODE bpf or ftrace, N rounds).
set -euo pipefail
. "$(dirname "$0")/common.sh"

t0=$(date +%s)
stock=$("$top/scripts/stock-kernel.sh" | tail -n 1)
kver=${stock##*/}
b=$rig/bpf
mkdir -p "$b"
# The static link's warnings about NSS functions in libaudit and libcap-ng are expected (the
# loader calls none of them).
if ! nice make -s -C "$top/bpf" B="$b" BTF="$stock/vmlinux" LDFLAGS=-static >"$b/build.log" 2>&1; then
	cat "$b/build.log" >&2
	die "building bpf/ failed"
fi
for src in "$top"/tests/bpf/src/*.c; do
	gcc -static -O2 -Wall -Werror -o "$b/$(basename "$src" .c)" "$src"
done

pass=0 fail=0
count() { # count OUTPUT: add its summary line "N passed, N failed"
	local s
	s=$(printf '%s\n' "$1" | sed -n 's/.*\b\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p' |
		tail -n 1)
	if [ -z "$s" ]; then
		fail=$((fail + 1))
		return
	fi
	pass=$((pass + ${s% *}))
	fail=$((fail + ${s#* }))
}

log "host tests (bpf/tests/run-tests.sh)"
out=$(sh "$top/bpf/tests/run-tests.sh" "$b/brute-bpf-loaded" 2>&1) || true
printf '%s\n' "$out"
count "$out"

# The guest's additions: tests/bpf/*.sh into /tests, the loader and test programs.
stage=$b/stage
rm -rf "$stage"
mkdir -p "$stage/tests" "$stage/usr/local/sbin" "$stage/usr/local/bin"
install -m 755 "$top"/tests/bpf/*.sh "$stage/tests/"
install -m 755 "$b/brute-bpf-loaded" "$stage/usr/local/sbin/"
for src in "$top"/tests/bpf/src/*.c; do
	install -m 755 "$b/$(basename "$src" .c)" "$stage/usr/local/bin/"
done
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$b/bpf.cpio.gz"

export BRUTE_FAST_TIMEOUT=${BRUTE_FAST_TIMEOUT:-900}
export BRUTE_INITRD_EXTRA="$stock/modules.cpio.gz:$b/bpf.cpio.gz"
run_name=${BRUTE_RUN_NAME:--bpf}
guest() { # guest RUN-SUFFIX TESTS [CMDLINE]: one boot of the stock kernel, counted
	local out
	log "booting Debian's $kver in the fast guest${3:+ with $3} (tests: $2)"
	out=$(BRUTE_RUN_NAME=$run_name$1 BRUTE_TESTS=$2 BRUTE_CMDLINE="${BRUTE_CMDLINE:-}${3:+ $3}" \
		nice "${PYTHON:-python3}" "$top/tests/rig/guest.py" fast --kernel "$stock/vmlinuz") || true
	printf '%s\n' "$out"
	count "$(printf '%s\n' "$out" | grep '^fast-guest:')"
}
# Multi-threaded TCG executes stale code after the kernel patched it at run time (an int3 left
# by text_poke_bp: "Oops: int3" in a BPF trampoline's or ftrace's call site, see
# docs/bpf-flavour.md): the guests' vCPUs run in one host thread.
export BRUTE_QEMU_ACCEL=${BRUTE_QEMU_ACCEL:-tcg,thread=single}
if [ -n "${BRUTE_BPF_STRESS:-}" ]; then
	# The reproducer alone: BRUTE_BPF_STRESS=bpf:60 or ftrace:300 (tests/bpf/70-*).
	guest -stress 70-text-poke-stress "stress.mode=${BRUTE_BPF_STRESS%%:*} stress.n=${BRUTE_BPF_STRESS#*:}"
	echo "check-bpf: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
console=$rig/runs/fast$run_name/console.log
tg=$(date +%s)
guest "" 00-rig,01-stock-kernel,50-brute-bpf
guest_s=$(($(date +%s) - tg))
# The same kernel booted without the BPF LSM: the loader refuses, saying what to boot.
guest -nolsm 60-bpf-lsm-off lsm=landlock,lockdown,yama,apparmor

# The guest's clock when its tests started: the kernel's boot to the first test.
first=$(sed -n 's/^rig: \[\([0-9.]*\)\] === .*/\1/p' "$console" 2>/dev/null | head -n 1)
init=$(console_lsms "$console")
case ",$init," in
*,bpf,*) echo "ok - console: LSMs initialized: $init"; pass=$((pass + 1)) ;;
*) echo "not ok - console: LSMs initialized: '${init:-none found}' (want bpf among them)"
	fail=$((fail + 1)) ;;
esac
log "times: first guest $guest_s s (boot to tests in the guest: ${first:-?} s), whole check-bpf $(($(date +%s) - t0)) s"
echo "check-bpf: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
