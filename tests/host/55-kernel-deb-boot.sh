#!/bin/bash
# make kernel-deb-boot without a kernel package (the package takes hours to build): what it
# says, and that it boots nothing, when there is no package, when the file is not a package,
# and when the package has no kernel in /boot. The boot itself is measured in README
# ("Building the kernel package").
. "$(dirname "$0")/lib.bash"
set -u
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S/cache/kdeb"

# expect NAME STATUS-WANTED TEXT-WANTED [DEB]
expect() {
	local out rc=0
	out=$(BRUTE_CACHE=$S/cache "$top/scripts/kernel-deb-boot.sh" ${4:+"$4"} 2>&1) || rc=$?
	if [ "$rc" = "$2" ] && [[ $out == *"$3"* ]] && [ ! -e "$S/cache/rig/runs/fast-kdeb" ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc (want $2), want '$3' and no guest run; output:" "$out"
	fi
}

expect "no package: exit 1, says to run make kernel-deb first" 1 \
	"no linux-image-*-brute_*.deb in $S/cache/kdeb: make kernel-deb first"
# the -dbg package is not the kernel's: still none
: >"$S/cache/kdeb/linux-image-1-brute-dbg_1_amd64.deb"
expect "only a -dbg package: not taken for the kernel" 1 "make kernel-deb first"
: >"$S/cache/kdeb/linux-image-1-brute_1_amd64.deb"
expect "an empty file: exit 1, cannot take /boot out of it" 1 \
	"cannot take /boot out of $S/cache/kdeb/linux-image-1-brute_1_amd64.deb"
expect "a missing file given: exit 1" 1 "cannot read $S/none.deb" "$S/none.deb"
# a real package without a kernel
mkdir -p "$S/pkg/DEBIAN" "$S/pkg/boot"
printf 'Package: linux-image-1-brute\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
	>"$S/pkg/DEBIAN/control"
: >"$S/pkg/boot/System.map-1-brute"
dpkg-deb -b -Zgzip "$S/pkg" "$S/cache/kdeb/linux-image-1-brute_1_amd64.deb" >/dev/null
expect "a package with no vmlinuz: exit 1, says so" 1 "has no /boot/vmlinuz-* or no /boot/config-*"
# a package with a kernel, and a guest that never starts (PYTHON=false): the console of an
# earlier boot, which would pass the LSM checks, is not judged again
: >"$S/pkg/boot/vmlinuz-1-brute"
echo 'CONFIG_LSM="landlock,apparmor,brute"' >"$S/pkg/boot/config-1-brute"
dpkg-deb -b -Zgzip "$S/pkg" "$S/cache/kdeb/linux-image-1-brute_1_amd64.deb" >/dev/null
mkdir -p "$S/cache/rig/runs/fast-kdeb"
printf '%s\n' '[    0.4] LSM: initializing lsm=capability,apparmor,brute' '[    0.5] brute: up and running' \
	>"$S/cache/rig/runs/fast-kdeb/console.log"
rc=0
out=$(BRUTE_CACHE=$S/cache PYTHON=false "$top/scripts/kernel-deb-boot.sh" 2>&1) || rc=$?
if [ "$rc" = 1 ] && [[ $out == *"no console from the guest"* ]] && [[ $out != *"ok: "* ]]; then
	ok "no guest run: exit 1, an earlier boot's console not judged again"
else
	not_ok "no guest run: exit 1, an earlier boot's console not judged again" "exit $rc; output:" "$out"
fi
# The console checks, on consoles a stand-in for the guest writes (the real boot takes the
# package's 4 h 39 min build; README has it): LSM order and Brute's start.
cat >"$S/guest" <<'EOS'
#!/bin/sh
# stand-in for python3 tests/rig/guest.py: writes $FAKE_CONSOLE as the console, exits 0
d=$BRUTE_CACHE/rig/runs/fast$BRUTE_RUN_NAME
mkdir -p "$d" && printf '%b' "$FAKE_CONSOLE" >"$d/console.log"
EOS
chmod +x "$S/guest"
console_case() { # NAME STATUS-WANTED CONSOLE
	local out rc=0
	out=$(BRUTE_CACHE=$S/cache PYTHON=$S/guest FAKE_CONSOLE=$3 "$top/scripts/kernel-deb-boot.sh" 2>&1) || rc=$?
	if [ "$rc" = "$2" ]; then ok "$1"; else not_ok "$1" "exit $rc (want $2); output:" "$out"; fi
}
up='[    0.5] brute: up and running\n'
console_case "apparmor then brute, ima and evm after: passes" 0 \
	"[    0.4] LSM: initializing lsm=lockdown,capability,apparmor,bpf,brute,ima,evm\n$up"
console_case "apparmor right before brute: passes" 0 \
	"[    0.4] LSM: initializing lsm=capability,apparmor,brute\n$up"
console_case "brute alone (lsm=brute): fails" 1 "[    0.4] LSM: initializing lsm=capability,brute\n$up"
console_case "brute before apparmor: fails" 1 "[    0.4] LSM: initializing lsm=capability,brute,apparmor\n$up"
console_case "a name that only ends in brute: fails" 1 \
	"[    0.4] LSM: initializing lsm=capability,apparmor,notbrute\n$up"
console_case "Brute never started: fails" 1 "[    0.4] LSM: initializing lsm=capability,apparmor,brute\n"
