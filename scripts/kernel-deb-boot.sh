#!/usr/bin/env bash
# kernel-deb-boot.sh [LINUX-IMAGE.deb]: boot the kernel of the package `make kernel-deb` built
# in the fast guest and run its tests there (`make kernel-deb-boot`; not part of `make check`:
# the package takes hours to build on 2 cores).
#
# The vmlinuz is taken out of the package (its /boot, into $BRUTE_CACHE/kdeb/boot), booted with
# the busybox initramfs of the fast guest (tests/rig/guest.py fast --kernel), and judged as the
# fast guest is, plus two checks of the console:
#   - the LSMs initialized are Debian's with brute after them (AppArmor still the major LSM;
#     ima and evm, which the kernel always initializes last, come after brute);
#   - Brute initialized.
# What the distro's configuration does not have is skipped by the tests themselves: KUnit,
# failslab, kmemleak, and veth (a module, which the initramfs does not load: the tests that
# need network namespaces). The per-script bound is raised to 600 s (rig.timeout): that
# kernel is slower under TCG than the test kernel (40-audit-tools after the storm: 118 s, 60 s
# on the test kernel); BRUTE_FAST_TIMEOUT bounds the whole guest (default here 1500 s).
set -euo pipefail
. "$(dirname "$0")/common.sh"

kdeb=$cache/kdeb
deb=${1:-}
if [ -z "$deb" ]; then
	# the newest image package (not its -dbg)
	for f in "$kdeb"/linux-image-*-brute_*.deb; do
		[ -e "$f" ] || continue
		if [ -z "$deb" ] || [ "$f" -nt "$deb" ]; then deb=$f; fi
	done
	[ -n "$deb" ] ||
		die "no linux-image-*-brute_*.deb in $kdeb: make kernel-deb first (hours on 2 cores)"
fi
[ -r "$deb" ] || die "cannot read $deb"
out=$kdeb/boot
rm -rf "$out"
mkdir -p "$out"
dpkg-deb --fsys-tarfile "$deb" | tar -C "$out" -x --wildcards './boot/*' ||
	die "cannot take /boot out of $deb (is it a linux-image package?)"
vmlinuz='' config=''
for f in "$out"/boot/vmlinuz-* "$out"/boot/config-*; do
	case $f in */vmlinuz-\*|*/config-\*) ;; */vmlinuz-*) vmlinuz=$f ;; */config-*) config=$f ;; esac
done
if [ -z "$vmlinuz" ] || [ -z "$config" ]; then
	die "$deb has no /boot/vmlinuz-* or no /boot/config-*"
fi
lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$config")
log "booting $vmlinuz (from $(basename "$deb"); CONFIG_LSM=\"$lsm\")"

export BRUTE_CMDLINE="${BRUTE_CMDLINE:+$BRUTE_CMDLINE }rig.timeout=600"
export BRUTE_FAST_TIMEOUT=${BRUTE_FAST_TIMEOUT:-1500}
export BRUTE_RUN_NAME=${BRUTE_RUN_NAME:--kdeb}
console=$rig/runs/fast$BRUTE_RUN_NAME/console.log
rm -f "$console"	# judge this boot's console, never an earlier one
rc=0
"${PYTHON:-python3}" "$top/tests/rig/guest.py" fast --kernel "$vmlinuz" || rc=$?

[ -s "$console" ] || die "no console from the guest ($console)"
init=$(console_lsms "$console")
case ",$init," in
*,apparmor,brute,* | *,apparmor,*,brute,*) log "ok: LSMs initialized in order: $init" ;;
*) log "not ok: LSMs initialized: '${init:-none found}' (want apparmor, then brute)"; rc=1 ;;
esac
if grep -q 'brute: up and running' "$console"; then
	log "ok: Brute initialized"
else
	log "not ok: no 'brute: up and running' on the console ($console)"
	rc=1
fi
exit "$rc"
