#!/bin/sh
# Debian's stock kernel in the fast guest (make check-bpf, scripts/check-bpf.sh): it is the
# unmodified package's, it loads the modules scripts/stock-kernel.sh packed (what the fast
# guest needs that Debian builds as modules: veth), and it can run Brute's BPF flavour: the
# BPF LSM is active and the kernel has BTF.
. "$RIG/tap.sh"

kver=$(uname -r)
case $kver in
*+deb*-amd64) ok "Debian's stock kernel: $kver ($(cat /proc/version | cut -d' ' -f1-3,9-))" ;;
*) not_ok "Debian's stock kernel" "uname -r: $kver" ;;
esac
if [ -d /proc/sys/kernel/brute ] || [ -e /sys/kernel/security/brute ]; then
	not_ok "no Brute LSM in it" "$(ls /proc/sys/kernel/brute /sys/kernel/security/brute 2>&1)"
else
	ok "no Brute LSM in it"
fi

mods=/lib/modules/$kver
loaded=0 failed=
while read -r m; do
	[ -n "$m" ] || continue
	if insmod "$mods/$m" 2>/tmp/insmod.err; then
		loaded=$((loaded + 1))
	else
		failed="$failed $m: $(cat /tmp/insmod.err)"
	fi
done <"$mods/modules.load"
if [ -s "$mods/modules.load" ] && [ -z "$failed" ]; then
	ok "modules loaded ($loaded: $(tr '\n' ' ' <"$mods/modules.load"))"
else
	not_ok "modules loaded" "${failed:-no $mods/modules.load}"
fi
if ip link add brute-v0 type veth peer name brute-v1 2>/tmp/veth.err; then
	ok "a veth pair can be created"
	ip link del brute-v0
else
	not_ok "a veth pair can be created" "$(cat /tmp/veth.err)"
fi

lsm=$(cat /sys/kernel/security/lsm 2>&1)
case ",$lsm," in
*,bpf,*) ok "bpf is an active LSM: $lsm" ;;
*) not_ok "bpf is an active LSM" "/sys/kernel/security/lsm: $lsm" ;;
esac
if [ -s /sys/kernel/btf/vmlinux ]; then
	ok "kernel BTF: /sys/kernel/btf/vmlinux ($(wc -c </sys/kernel/btf/vmlinux) bytes)"
else
	not_ok "kernel BTF: /sys/kernel/btf/vmlinux" "$(ls -l /sys/kernel/btf 2>&1)"
fi
