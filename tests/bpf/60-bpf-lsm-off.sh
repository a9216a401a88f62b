#!/bin/sh
# The stock kernel booted without the BPF LSM (make check-bpf's second boot, lsm= without
# bpf): brute-bpf-loaded refuses to start, quotes the active list and says which lsm= to
# boot with, and pins nothing.
. "$RIG/tap.sh"

lsm=$(cat /sys/kernel/security/lsm)
case ",$lsm," in
*,bpf,*)
	skip "brute-bpf-loaded without the BPF LSM" "bpf is active ($lsm): the boot with it"
	exit 0
	;;
esac
brute-bpf-loaded >/tmp/lsm-off.out 2>&1
rc=$?
if [ $rc = 2 ] &&
	grep -qF "the BPF LSM is not active: /sys/kernel/security/lsm is \"$lsm\", without bpf" /tmp/lsm-off.out &&
	grep -qF "boot with lsm=$lsm,bpf " /tmp/lsm-off.out && [ ! -e /sys/fs/bpf/brute ]; then
	ok "refused without the BPF LSM (exit 2): $(tail -n 1 /tmp/lsm-off.out)"
else
	not_ok "refused without the BPF LSM (exit 2, says lsm=$lsm,bpf)" "exit $rc" \
		"$(cat /tmp/lsm-off.out)" "$(ls /sys/fs/bpf 2>&1)"
fi
