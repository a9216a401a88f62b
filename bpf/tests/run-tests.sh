#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of brute-bpf-loaded (no BPF is loaded): it refuses a kernel that cannot run it,
# saying what to boot, before touching bpffs. The files it checks are faked through
# BRUTE_BPF_LSM_FILE and BRUTE_BPF_BTF_FILE, the pin directory is BRUTE_BPF_PIN_DIR.
#   run-tests.sh LOADER
# Prints TAP and a last line "N passed, N failed"; exit 1 if any failed.
set -u
loader=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BRUTE_BPF_PIN_DIR="$tmp/bpffs/brute"

n=0 fail=0
# expect NAME STATUS PATTERN: the last run exited STATUS, its stderr matches PATTERN (grep -F),
# and nothing was created under the pin directory's parent. One TAP line.
expect() {
	n=$((n + 1))
	if [ "$rc" = "$2" ] && grep -qF -- "$3" "$tmp/err" && [ ! -e "$tmp/bpffs" ]; then
		echo "ok $n - $1"
		return
	fi
	fail=$((fail + 1))
	echo "not ok $n - $1"
	for l in "exit $rc (want $2), stderr:" "$(cat "$tmp/err")" "want: $3" \
		"$(ls -R "$tmp/bpffs" 2>&1)"; do
		printf '%s\n' "$l" | sed 's/^/#   /'
	done
}

printf 'lockdown,capability,landlock,yama,apparmor\n' >"$tmp/lsm"
: >"$tmp/btf"
BRUTE_BPF_LSM_FILE=$tmp/lsm BRUTE_BPF_BTF_FILE=$tmp/btf "$loader" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "no bpf in the LSM list: refused, says which lsm= to boot with" 2 \
	'boot with lsm=lockdown,capability,landlock,yama,apparmor,bpf'
expect "no bpf in the LSM list: the message quotes the active list" 2 \
	'the BPF LSM is not active: '"$tmp"'/lsm is "lockdown,capability,landlock,yama,apparmor", without bpf'

# "bpf" only as a part of another name is not the BPF LSM
printf 'capability,notbpf,bpfx\n' >"$tmp/lsm"
BRUTE_BPF_LSM_FILE=$tmp/lsm BRUTE_BPF_BTF_FILE=$tmp/btf "$loader" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "a name containing bpf is not bpf" 2 'boot with lsm=capability,notbpf,bpfx,bpf'

BRUTE_BPF_LSM_FILE=$tmp/nonexistent BRUTE_BPF_BTF_FILE=$tmp/btf "$loader" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "no LSM list (securityfs not mounted): refused, says so" 2 'is securityfs mounted?'

printf 'lockdown,capability,landlock,yama,apparmor,bpf\n' >"$tmp/lsm"
BRUTE_BPF_LSM_FILE=$tmp/lsm BRUTE_BPF_BTF_FILE=$tmp/nobtf "$loader" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "no kernel BTF: refused, says CONFIG_DEBUG_INFO_BTF" 2 \
	"the kernel's BTF is missing: $tmp/nobtf"

"$loader" --status >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--status with nothing pinned: not loaded" 1 'nothing pinned under'

"$loader" --bogus >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "an unknown option: usage" 1 'usage: brute-bpf-loaded'

echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
